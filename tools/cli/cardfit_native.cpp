// cardfit-native: the command line over the native core, for batches (a sweep over many configs,
// a crawl of the hub's config files) where scripts/cardfit's wasm module is the bottleneck. Same
// flags (from the core's option schema, as scripts/cardfit builds them), same inputs (files, or - for
// standard input), same answers: --json prints the core report one line per config, byte for byte
// what `scripts/cardfit --json` prints (tests/js/cli_native.test.mjs); without it, the Markdown.
// Hub ids, --graph / --tensors, --history and --export stay with scripts/cardfit.
//   cardfit-native [--json] [options] CONFIG...
// Exit status: 0 on success, 2 on bad input (the error JSON on standard error, as scripts/cardfit).
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cardfit/describe.hpp"
#include "cardfit/planner.hpp"

using nlohmann::json;

namespace {

constexpr int kBadInput = 2;
constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;  // the limit of the safetensors format itself

// A front-end error: a code of the core's registry (describe_json's "errors"), a message, no path.
struct CliError {
  std::string code, message;
};

// {"ok":false,"error":{...},"input":...}: the key order of scripts/cardfit's error lines.
void fail(const json& error, const std::string* input = nullptr) {
  nlohmann::ordered_json out = {{"ok", false}, {"error", error}};
  if (input) out["input"] = *input;
  std::cerr << out.dump() << "\n";
}

std::string read_file(const std::string& name) {
  std::ifstream in(name, std::ios::binary);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad())
    throw CliError{"cli.file_unreadable", "Cannot read " + name + " (hub ids are scripts/cardfit's)."};
  return text.str();
}

// A .safetensors file starts with a little-endian u64 N, then N bytes of JSON header.
std::string read_safetensors_header(const std::string& name) {
  std::ifstream in(name, std::ios::binary | std::ios::ate);
  if (!in) throw CliError{"cli.file_unreadable", "Cannot read " + name + "."};
  const uint64_t size = uint64_t(in.tellg());
  unsigned char prefix[8] = {};
  in.seekg(0);
  uint64_t n = 0;
  if (size >= 8 && in.read(reinterpret_cast<char*>(prefix), 8))
    for (int i = 7; i >= 0; --i) n = n << 8 | prefix[i];
  if (n == 0 || n > std::min(kSafetensorsMaxHeader, size - 8))
    throw CliError{"cli.safetensors_invalid", name + " is not a safetensors file: its 8-byte header length is " +
                                                  (size < 8 ? std::string("missing") : std::to_string(n) + ", for a file of " +
                                                                                           std::to_string(size) + " bytes") + "."};
  std::string header(n, '\0');
  if (!in.read(header.data(), std::streamsize(n))) throw CliError{"cli.file_unreadable", "Cannot read " + name + "."};
  return header;
}

// JavaScript's String.prototype.trim for the ASCII whitespace a command line can carry.
std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\n\r\f\v");
  return first == std::string::npos ? "" : s.substr(first, s.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

// How a flag's value becomes the option's JSON value: scripts/cardfit's readers. Values that are not
// clearly of the type pass as text, for the core to judge with its own error codes.
json flag_value(const json& option, const std::string& v) {
  static const std::regex integer("^\\d+$"), number("^\\d*\\.?\\d+([eE][-+]?\\d+)?$");
  const std::string type = option.at("type"), reads = option.value("flag_reads", "");
  if (reads == "safetensors_header") return read_safetensors_header(v);
  if (reads == "file") return read_file(v);
  // As JSON.stringify(Number(v)): the nearest double, written without a fraction when integral.
  // strtod, not stod: stod throws on an underflow too, where Number("1e-400") is 0.
  auto numeric = [](const std::string& text) {
    errno = 0;
    const double d = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(d)) return json(text);  // past a double: the core refuses the text by name
    return d == std::floor(d) && std::fabs(d) < 9.2e18 ? json(int64_t(d)) : json(d);
  };
  if (type == "integer") return std::regex_match(v, integer) ? numeric(v) : json(v);
  if (type == "number") return std::regex_match(v, number) ? numeric(v) : json(v);
  if (type == "boolean") return v == "true" ? json(true) : v == "false" ? json(false) : json(v);
  auto items = [](const std::string& text) {
    std::vector<std::string> out;
    std::stringstream s(text);
    for (std::string item; std::getline(s, item, ',');)
      if (!(item = trim(item)).empty()) out.push_back(item);
    return out;
  };
  if (type == "names") return items(v);
  if (type == "map") {  // CARD=USD,...
    json prices = json::object();
    for (const std::string& pair : items(v)) {
      const size_t eq = pair.find('=');
      const std::string card = trim(pair.substr(0, eq)), usd = eq == std::string::npos ? "" : trim(pair.substr(eq + 1));
      prices[card] = std::regex_match(usd, number) ? numeric(usd) : json(usd);
    }
    return prices;
  }
  return v;
}

struct Args {
  bool json_lines = false, help = false;
  json options = json::object();
  std::vector<std::string> inputs;
};

Args parse_args(int argc, char** argv, const json& schema) {
  std::map<std::string, const json*> flags;
  for (const json& o : schema.at("options")) flags[o.at("flag")] = &o;
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      a.inputs.insert(a.inputs.end(), argv + i + 1, argv + argc);
      break;
    }
    if (arg == "-" || arg.empty() || arg[0] != '-') {
      a.inputs.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-h") return Args{.help = true};
    if (arg == "--json") {
      a.json_lines = true;
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string flag = eq != std::string::npos && eq > 0 ? arg.substr(0, eq) : arg;
    const auto it = flags.find(flag);
    if (it == flags.end())
      throw CliError{"cli.unknown_option", "Unknown option " + flag.substr(0, 64) + "; see cardfit-native --help."};
    const json& option = *it->second;
    if (option.at("type") == "boolean" && !option.contains("flag_arg")) {  // a switch
      if (eq != std::string::npos) throw CliError{"cli.unexpected_value", flag + " takes no value."};
      a.options[option.at("name").get<std::string>()] = true;
      continue;
    }
    if (eq == std::string::npos && i + 1 >= argc) throw CliError{"cli.missing_value", flag + " needs a value."};
    a.options[option.at("name").get<std::string>()] = flag_value(option, eq != std::string::npos ? arg.substr(eq + 1) : argv[++i]);
  }
  if (a.inputs.empty()) throw CliError{"cli.no_config", "No config given; pass a config.json path or - for standard input."};
  return a;
}

// One line per option, in the schema's groups: the full table with ranges is scripts/cardfit --help.
std::string usage(const json& schema) {
  std::string out =
      "usage: cardfit-native [--json] [options] CONFIG...\n"
      "Plans each Hugging Face config.json (a file, or - for standard input) with the native core.\n"
      "  --json  the core report, one line per config (JSON Lines), instead of Markdown\n";
  for (const json& g : schema.at("groups")) {
    out += g.at("title").get<std::string>() + ":\n";
    for (const json& o : schema.at("options")) {
      if (o.at("group") != g.at("id")) continue;
      std::string head = "  " + o.at("flag").get<std::string>();
      if (o.at("type") == "enum") {
        head += " ";
        for (const json& v : o.at("values")) head += v.get<std::string>() + (&v == &o.at("values").back() ? "" : "|");
      } else if (o.contains("flag_arg")) {
        head += " " + o.at("flag_arg").get<std::string>();
      }
      out += head + (head.size() < 34 ? std::string(34 - head.size(), ' ') : "\n" + std::string(34, ' ')) + " " +
             o.at("doc").get<std::string>() + "\n";
    }
  }
  return out + "Hub ids, --graph, --tensors, --history and --export: scripts/cardfit.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  const json schema = json::parse(cardfit::describe_json());
  Args args;
  try {
    args = parse_args(argc, argv, schema);
  } catch (const CliError& e) {
    fail({{"code", e.code}, {"message", e.message}, {"path", ""}});
    return kBadInput;
  }
  if (args.help) {
    std::cout << usage(schema);
    return 0;
  }
  cardfit::Planner planner;  // one for the run: the card catalog is compiled once
  const std::string options = args.options.dump();
  std::string stdin_text;  // read once, even if - is given twice
  bool stdin_read = false;
  int status = 0, printed = 0;
  for (const std::string& input : args.inputs) {
    std::string text;
    try {
      if (input != "-") {
        text = read_file(input);
      } else {
        if (!stdin_read) stdin_text.assign(std::istreambuf_iterator<char>(std::cin), {});
        stdin_read = true;
        text = stdin_text;
      }
    } catch (const CliError& e) {
      fail({{"code", e.code}, {"message", e.message}, {"path", ""}}, &input);
      status = kBadInput;
      continue;
    }
    const std::string answer = args.json_lines ? planner.plan(text, options) : planner.markdown(text, options);
    // The answer is the core's JSON text, keys sorted: an error is {"error":{...},"ok":false}, a
    // success has no "error" and a key before it. Only errors are parsed.
    if (answer.rfind("{\"error\":", 0) == 0) {
      fail(json::parse(answer).at("error"), &input);
      status = kBadInput;
      continue;
    }
    if (args.json_lines) {
      std::cout << answer << "\n";
    } else {
      std::string markdown = json::parse(answer).at("markdown");
      markdown.erase(markdown.find_last_not_of(" \t\r\n") + 1);
      std::cout << (printed++ ? "\n" : "") << markdown << "\n";
    }
  }
  std::cout.flush();
  return status;
}
