// The message table of the error codes: the single place where codes are spelled.
#include "error.hpp"

namespace cardfit {
namespace {
struct Entry {
  std::string_view code, summary;
};
constexpr Entry table[] = {
    {"config.json_syntax", "The config text is not valid JSON."},
    {"config.not_object", "The config must be a JSON object."},
    {"config.field_missing", "A required config field is missing."},
    {"config.field_type", "A config field has the wrong type."},
    {"config.field_range", "A config field is out of range."},
    {"config.field_inconsistent", "Config fields contradict each other."},
    {"config.model_type_unknown", "The model_type is not supported and the config lacks the keys of a generic decoder."},
    {"config.duplicate_key", "The config states the same key twice in one object."},
    {"config.too_large", "The config text exceeds the input limits (size or nesting depth)."},
    {"options.unknown", "An option is not known."},
    {"options.value", "An option has a bad value."},
    {"checkpoint.header", "The checkpoint header or index cannot be read."},
    {"plan.overflow", "A size exceeds the 64-bit range."},
    {"internal.uncaught", "The core raised an unexpected exception; please report this config."},
    {"api.config_not_string", "The config must be given as text (the contents of a config.json)."},
    {"api.options_not_object", "The options must be an object such as {\"batch\": 4}."},
    {"api.options_not_json", "The options cannot be written as JSON (circular, or nested too deeply)."},
    {"api.crashed", "The planner crashed on this input. This is a bug in cardfit: please report the config."},
    {"api.load_failed", "The planner failed to load."},
    {"cli.unknown_option", "Unknown command-line option; see scripts/cardfit --help."},
    {"cli.missing_value", "A command-line option needs a value."},
    {"cli.unexpected_value", "A command-line switch takes no value."},
    {"cli.no_config", "No config given; pass a config.json path or - for standard input."},
    {"cli.file_unreadable", "A file given on the command line cannot be read."},
    {"cli.not_utf8", "A file given on the command line is not UTF-8 text."},
    {"cli.safetensors_invalid", "The file given to --safetensors is not a safetensors file."},
    {"cli.not_built", "dist/cardfit.js is missing: build it with ./scripts/build (or ./scripts/run)."},
    {"cli.internal", "The command-line front end failed unexpectedly; please report this."},
    {"cli.bad_value", "A command-line option has a bad value."},
    {"cli.export", "The training config for --export cannot be written for this plan."},
    {"cli.export_one", "--export writes one config: give exactly one CONFIG."},
    {"hub.bad_id", "The text is not a Hugging Face hub id (org/name[@revision])."},
    {"hub.unreachable", "The hub could not be reached (offline, blocked or refused)."},
    {"hub.network", "The config could not be fetched (offline or blocked)."},
    {"hub.offline", "The browser is offline."},
    {"hub.timeout", "The hub did not answer in time."},
    {"hub.unauthorized", "The hub refused the token, or the repository needs one."},
    {"hub.forbidden", "The hub forbids access to this repository."},
    {"hub.gated", "The repository is gated: its files need a login and accepted terms."},
    {"hub.repo_not_found", "The repository does not exist on the hub (or is private)."},
    {"hub.revision_not_found", "The repository has no such revision."},
    {"hub.not_found", "The file was not found in the repository at that revision."},
    {"hub.rate_limited", "The hub is rate-limiting these requests."},
    {"hub.http", "The server answered with an HTTP error."},
    {"hub.bad_response", "The hub's answer is not what its API documents."},
    {"hub.file", "The file is not a config.json, a model.safetensors or its index."},
    {"hub.none", "No config was given."},
    {"safetensors.invalid", "The file is not a readable safetensors file."},
    {"widget.failed", "The widget failed unexpectedly."},
    {"internal", "Internal error in cardfit; please report it with the config."},
};
static_assert(sizeof(table) / sizeof(table[0]) == error_code_count, "one table entry per ErrorCode");
}  // namespace

std::string_view error_code_string(ErrorCode code) { return table[static_cast<int>(code)].code; }
std::string_view error_code_summary(ErrorCode code) { return table[static_cast<int>(code)].summary; }

}  // namespace cardfit
