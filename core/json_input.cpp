// The strict JSON reader: one iterative pass that checks the text against RFC 8259 and the limits
// (no recursion, so a 100,000-deep text costs a vector, not the stack), then nlohmann builds the
// tree from text known to be good. Every error names where it is; none prints user values whole.
#include "json_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "error.hpp"
#include "limits.hpp"

namespace cardfit {
using nlohmann::json;

namespace {

std::string clip(std::string_view s, size_t n = 40) {
  std::string out;
  for (char c : s.substr(0, n)) out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  if (s.size() > n) out += "...";
  return out;
}

// The length of the valid UTF-8 sequence at `p` (RFC 3629: no overlongs, no surrogates, ≤ U+10FFFF),
// or 0 if it is not one.
size_t utf8_length(const unsigned char* p, size_t left) {
  const unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) { n = 3; lo = 0xA0; }
  else if (c == 0xED) { n = 3; hi = 0x9F; }
  else if (c >= 0xE1 && c <= 0xEF) n = 3;
  else if (c == 0xF0) { n = 4; lo = 0x90; }
  else if (c == 0xF4) { n = 4; hi = 0x8F; }
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else return 0;
  if (left < n) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t i = 2; i < n; ++i)
    if (p[i] < 0x80 || p[i] > 0xBF) return 0;
  return n;
}

// The character at `pos` for a message: printable ASCII quoted, anything else by its code point
// (a BOM or a control character is invisible), an invalid byte by its value. Never a fragment of a
// multi-byte character, which would make the error itself invalid UTF-8.
std::string char_at(std::string_view t, size_t pos) {
  if (pos >= t.size()) return "the end of the text";
  const auto* p = reinterpret_cast<const unsigned char*>(t.data()) + pos;
  char hex[16];
  if (p[0] >= 0x20 && p[0] < 0x7F) return std::string("'") + char(p[0]) + "'";
  const size_t n = utf8_length(p, t.size() - pos);
  if (n == 0) {
    std::snprintf(hex, sizeof hex, "0x%02X", unsigned(p[0]));
    return std::string("the byte ") + hex + " (not UTF-8)";
  }
  uint32_t cp = n == 1 ? p[0] : (p[0] & (0xFF >> (n + 1)));
  for (size_t i = 1; i < n; ++i) cp = (cp << 6) | (p[i] & 0x3F);
  std::snprintf(hex, sizeof hex, "U+%04X", unsigned(cp));
  return std::string("the character ") + hex + (cp == 0xFEFF ? " (a byte-order mark)" : "");
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) out += char(cp);
  else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
  else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18)); out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F));
  }
}

class Scanner {
 public:
  Scanner(std::string_view text, JsonText kind) : t_(text), kind_(kind) {}

  void run() {
    check_bytes();
    value_then_rest();
  }

 private:
  struct Frame {
    bool object;
    int64_t index = 0;     // arrays: the element being read
    std::string key;       // objects: the member being read
    std::unordered_map<std::string, size_t> keys;  // objects: key → offset of its first occurrence
  };

  // --- errors -------------------------------------------------------------------------------
  std::pair<int64_t, int64_t> line_column(size_t pos) const {
    int64_t line = 1, col = 1;
    for (size_t i = 0; i < pos && i < t_.size(); ++i) {
      const unsigned char c = t_[i];
      if (c == '\n') { line = line + 1; col = 1; }
      else if ((c & 0xC0) != 0x80) ++col;  // count characters, not UTF-8 continuation bytes
    }
    return {line, col};
  }
  std::string where(size_t pos) const {
    auto [l, c] = line_column(pos);
    return "line " + std::to_string(l) + ", column " + std::to_string(c);
  }
  std::string path() const {
    std::string p = kind_ == JsonText::config ? "$" : "";
    for (const Frame& f : stack_) {
      if (f.object) {
        if (!p.empty()) p += '.';
        p += f.key;
      } else {
        p += '[';
        p += std::to_string(f.index);
        p += ']';
      }
    }
    return p.empty() ? "options" : p;
  }
  const char* subject() const { return kind_ == JsonText::config ? "The config" : "The options"; }

  [[noreturn]] void syntax(size_t pos, const std::string& what) const {
    auto [l, c] = line_column(pos);
    if (kind_ == JsonText::options)
      throw Error(ErrorCode::option_value, "The options are not valid JSON: " + what + " at " + where(pos) + ".",
                  "options");
    Error e(ErrorCode::json_syntax, "The config is not valid JSON: " + what + " at " + where(pos) + ".", "$");
    e.line = l;
    e.column = c;
    throw e;
  }
  [[noreturn]] void too_large(const std::string& what, size_t pos) const {
    if (kind_ == JsonText::options) {
      // Name the option whose value is too large or deep, when there is one.
      // The leading object keys (an option, and a map's entry: "prices.h100-sxm"), at most two.
      std::string option;
      for (size_t i = 0; i < stack_.size() && i < 2 && stack_[i].object && !stack_[i].key.empty(); ++i) {
        if (!option.empty()) option += '.';
        option.append(stack_[i].key, 0, 64);  // (GCC 12 warned -Wrestrict, wrongly, on "." + substr)
      }
      if (option.empty()) option = "options";
      throw Error(ErrorCode::option_value, "The options are too large: " + what + ".", option);
    }
    Error e(ErrorCode::too_large, "The config is too large: " + what + ".", "$");
    std::tie(e.line, e.column) = line_column(pos);
    throw e;
  }

  // --- whole-text checks ----------------------------------------------------------------------
  void check_bytes() const {
    const int64_t limit = kind_ == JsonText::config ? kMaxConfigBytes : kMaxOptionsBytes;
    if (int64_t(t_.size()) > limit)
      too_large(std::to_string(t_.size()) + " bytes, more than the limit of " + std::to_string(limit) + " bytes", 0);
    if (t_.size() >= 3 && t_.substr(0, 3) == "\xEF\xBB\xBF")
      syntax(0, "it starts with a byte-order mark (BOM); save it as UTF-8 without one");
    const auto* p = reinterpret_cast<const unsigned char*>(t_.data());
    for (size_t i = 0; i < t_.size();) {
      if (p[i] == 0) syntax(i, "a NUL byte (byte offset " + std::to_string(i) + ")");
      const size_t n = utf8_length(p + i, t_.size() - i);
      if (n == 0) syntax(i, "invalid UTF-8 at byte offset " + std::to_string(i));
      i += n;
    }
  }

  // --- the grammar ------------------------------------------------------------------------------
  void ws() {
    while (pos_ < t_.size()) {
      const char c = t_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') ++pos_;
      else if (c == '/' && pos_ + 1 < t_.size() && (t_[pos_ + 1] == '/' || t_[pos_ + 1] == '*'))
        syntax(pos_, "a comment (JSON has no comments)");
      else break;
    }
  }
  bool at_end() const { return pos_ >= t_.size(); }
  [[noreturn]] void truncated() const { syntax(t_.size(), "the text ends early (truncated?)"); }

  void push(bool object) {
    if (int(stack_.size()) >= kMaxJsonDepth)
      too_large("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels at " + path(), pos_);
    stack_.push_back(Frame{object});
  }

  // Reads a string at pos_ (on its opening quote); returns its decoded value if `decode`.
  std::string string(bool decode) {
    const size_t start = pos_++;
    std::string out;
    while (true) {
      if (at_end()) syntax(start, "a string that is never closed");
      const unsigned char c = t_[pos_];
      if (c == '"') { ++pos_; return out; }
      if (c < 0x20) syntax(pos_, "a control character inside a string (write it as an escape such as \\n)");
      if (c != '\\') {
        if (decode) out += char(c);
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= t_.size()) truncated();
      const char e = t_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case '"': case '\\': case '/': if (decode) out += e; break;
        case 'b': if (decode) out += '\b'; break;
        case 'f': if (decode) out += '\f'; break;
        case 'n': if (decode) out += '\n'; break;
        case 'r': if (decode) out += '\r'; break;
        case 't': if (decode) out += '\t'; break;
        case 'u': {
          uint32_t cp = hex4(pos_ - 2);
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate needs its low half
            if (pos_ + 1 < t_.size() && t_[pos_] == '\\' && t_[pos_ + 1] == 'u') {
              pos_ += 2;
              const uint32_t lo = hex4(pos_ - 2);
              if (lo < 0xDC00 || lo > 0xDFFF) syntax(pos_ - 6, "an unpaired UTF-16 surrogate escape");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              syntax(pos_ - 6, "an unpaired UTF-16 surrogate escape");
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            syntax(pos_ - 6, "an unpaired UTF-16 surrogate escape");
          }
          if (cp == 0) syntax(pos_ - 6, "a NUL character (\\u0000)");
          if (decode) append_utf8(out, cp);
          break;
        }
        default: syntax(pos_ - 2, "an invalid escape: a backslash before " + char_at(t_, pos_ - 1));
      }
    }
  }
  uint32_t hex4(size_t escape_at) {
    if (pos_ + 4 > t_.size()) truncated();
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = t_[pos_ + i];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= uint32_t(h - '0');
      else if (h >= 'a' && h <= 'f') v |= uint32_t(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= uint32_t(h - 'A' + 10);
      else syntax(escape_at, "an invalid \\u escape");
    }
    pos_ += 4;
    return v;
  }

  void number() {
    const size_t start = pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (!at_end() && t_[pos_] >= '0' && t_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (t_[pos_] == '-') ++pos_;
    if (at_end()) truncated();
    if (t_[pos_] == '0') {
      ++pos_;
      if (!at_end() && t_[pos_] >= '0' && t_[pos_] <= '9') syntax(start, "a number with a leading zero");
    } else if (digits() == 0) {
      syntax(start, "a malformed number");
    }
    if (!at_end() && t_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) syntax(start, "a malformed number (no digit after the decimal point)");
    }
    if (!at_end() && (t_[pos_] == 'e' || t_[pos_] == 'E')) {
      ++pos_;
      if (!at_end() && (t_[pos_] == '+' || t_[pos_] == '-')) ++pos_;
      if (digits() == 0) syntax(start, "a malformed number (no digit in the exponent)");
    }
    const std::string_view text = t_.substr(start, pos_ - start);
    const bool overflow = beyond_double(text);
    if (overflow) {
      const std::string msg = path() + " is " + clip(text) + ", beyond the range of a number (about ±1.8e308).";
      if (kind_ == JsonText::options) throw Error(ErrorCode::option_value, "Option " + msg, path());
      Error e(ErrorCode::field_range, msg, path());
      std::tie(e.line, e.column) = line_column(start);
      throw e;
    }
  }

  // Whether a JSON number (grammar already checked) is beyond ±DBL_MAX, from its decimal exponent:
  // no strtod over a million digits, no integer overflow on an exponent of a million digits.
  static bool beyond_double(std::string_view n) {
    if (!n.empty() && n[0] == '-') n.remove_prefix(1);
    const size_t int_end = n.find_first_of(".eE");
    const std::string_view ip = n.substr(0, int_end);
    std::string_view fp, ep;
    if (int_end != std::string_view::npos) {
      std::string_view rest = n.substr(int_end);
      if (rest[0] == '.') {
        const size_t e = rest.find_first_of("eE");
        fp = rest.substr(1, e == std::string_view::npos ? std::string_view::npos : e - 1);
        rest = e == std::string_view::npos ? std::string_view() : rest.substr(e);
      }
      if (!rest.empty()) ep = rest.substr(1);
    }
    int64_t exp = 0;
    bool negative_exp = false;
    if (!ep.empty() && (ep[0] == '+' || ep[0] == '-')) { negative_exp = ep[0] == '-'; ep.remove_prefix(1); }
    for (char c : ep) exp = std::min<int64_t>(exp * 10 + (c - '0'), int64_t(1) << 40);
    if (negative_exp) exp = -exp;
    // Significant digits and the decimal exponent of the first one.
    std::string digits(ip);
    digits += fp;
    const size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) return false;  // zero
    const int64_t magnitude = int64_t(ip.size()) - 1 - int64_t(first) + exp;
    if (magnitude != 308) return magnitude > 308;
    const std::string probe = digits.substr(first, 1) + "." + digits.substr(first + 1, 40) + "e308";
    return std::isinf(std::strtod(probe.c_str(), nullptr));
  }

  void literal(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word) {
      if (word.substr(0, t_.size() - pos_) == t_.substr(pos_)) truncated();
      syntax(pos_, "expected " + std::string(word) + ", found " + char_at(t_, pos_));
    }
    pos_ += word.size();
  }

  // A member key at pos_: checks it against the object's earlier keys.
  void key() {
    if (at_end()) truncated();
    if (t_[pos_] != '"') {
      if (t_[pos_] == '}') syntax(pos_, "a comma before '}' (trailing commas are not JSON): expected a key");
      syntax(pos_, t_[pos_] == '\'' ? "a single-quoted key (JSON keys use double quotes): expected a double-quoted key"
                                    : "expected a double-quoted key, found " + char_at(t_, pos_));
    }
    const size_t at = pos_;
    Frame& f = stack_.back();
    f.key = string(true);
    const size_t key_end = pos_;
    auto [it, fresh] = f.keys.emplace(f.key, at);
    if (!fresh) {
      const std::string p = path();
      const std::string msg = subject() + std::string(kind_ == JsonText::config ? " states" : " state") + " the key \"" + clip(f.key, 60) + "\" twice (" +
                              where(it->second) + " and " + where(at) +
                              "); a JSON reader would silently keep only one of them.";
      if (kind_ == JsonText::options) throw Error(ErrorCode::option_value, msg, p);
      Error e(ErrorCode::duplicate_key, msg, p);
      std::tie(e.line, e.column) = line_column(at);
      throw e;
    }
    ws();
    if (at_end()) truncated();
    if (t_[pos_] != ':') syntax(key_end, "expected ':' after the key \"" + clip(f.key) + "\", which ends");
    ++pos_;
  }

  // value (, value)* with an explicit stack: one loop, no recursion.
  void value_then_rest() {
    ws();
    if (at_end()) syntax(0, kind_ == JsonText::config ? "the text is empty" : "the text ends early");
    while (true) {
      // A value at pos_.
      ws();
      if (at_end()) truncated();
      const char c = t_[pos_];
      if (c == '{' || c == '[') {
        push(c == '{');
        ++pos_;
        ws();
        if (at_end()) truncated();
        if (t_[pos_] == (c == '{' ? '}' : ']')) {
          ++pos_;
          stack_.pop_back();
        } else if (c == '{') {
          key();
          continue;
        } else {
          if (t_[pos_] == ',') syntax(pos_, "a comma with no value before it");
          continue;
        }
      } else if (c == '"') {
        string(false);
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        number();
      } else if (c == 't') {
        literal("true");
      } else if (c == 'f') {
        literal("false");
      } else if (c == 'n') {
        literal("null");
      } else if (c == ',' && !stack_.empty()) {
        syntax(pos_, "a comma with no value before it");
      } else if ((c == ']' || c == '}') && !stack_.empty()) {
        syntax(pos_, "a comma before '" + std::string(1, c) + "' (trailing commas are not JSON)");
      } else {
        syntax(pos_, c == '\'' ? "a single-quoted string (JSON strings use double quotes)"
                               : "expected a value (a string, number, object, array, true, false or null), found " + char_at(t_, pos_));
      }
      // After a value: a separator, a close, or the end.
      while (true) {
        const size_t value_end = pos_;  // a missing separator belongs here, not where the next token starts
        ws();
        if (stack_.empty()) {
          if (!at_end()) syntax(pos_, "text after the end of the JSON value");
          return;
        }
        if (at_end()) truncated();
        Frame& f = stack_.back();
        const char s = t_[pos_];
        if (s == ',') {
          ++pos_;
          ws();
          if (f.object) {
            key();
          } else {
            ++f.index;
            if (!at_end() && t_[pos_] == ']') syntax(pos_, "a comma before ']' (trailing commas are not JSON)");
          }
          break;  // read the next value
        }
        if (s == (f.object ? '}' : ']')) {
          ++pos_;
          stack_.pop_back();
          continue;  // the container was a value of its parent
        }
        // The position is the end of the value (the line to fix), the message what was expected.
        syntax(value_end, std::string(f.object ? "expected ',' or '}'" : "expected ',' or ']'") + " after the value, found '" +
                              clip(t_.substr(pos_, 1)) + "' at " + where(pos_) + "; the value ends");
      }
    }
  }

  std::string_view t_;
  JsonText kind_;
  size_t pos_ = 0;
  std::vector<Frame> stack_;
};

}  // namespace

json read_json_text(std::string_view text, JsonText kind) {
  Scanner(text, kind).run();
  // The text is valid JSON within the limits: nlohmann cannot fail on it, but a bug must not
  // surface as nlohmann's text.
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::exception&) {
    throw Error(ErrorCode::internal, "Internal error: the JSON reader accepted text that nlohmann refused.");
  }
}

std::string shown(const json& value) {
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    return s.size() <= 60 ? json(s).dump() : "a string of " + std::to_string(s.size()) + " characters";
  }
  if (value.is_array()) return value.empty() ? "[]" : "a list of " + std::to_string(value.size()) + " values";
  if (value.is_object()) return value.empty() ? "{}" : "an object of " + std::to_string(value.size()) + " keys";
  return value.dump();  // a number, a boolean or null: short
}

}  // namespace cardfit
