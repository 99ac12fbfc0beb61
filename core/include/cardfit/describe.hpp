// What the core accepts and what it (and every front end) can answer, as data for the front ends:
// the option schema and the error registry. Beside handle(); like it, plain strings out.
#pragma once
#include <string>

namespace cardfit {

/// {"options": [{name, type, group, doc, flag, flag_arg?, flag_reads?, values?, min?, max?,
/// min_exclusive?, max_length?, item?, default, default_note?}], "groups": [{id, title}],
/// "errors": [{code, summary}]} (docs/api.md).
std::string describe_json();

/// The error answer for an exception that escaped handle() (code internal.uncaught, the registry's
/// summary as message), built at start-up so the failure path only copies it.
const std::string& uncaught_error_json();

}  // namespace cardfit
