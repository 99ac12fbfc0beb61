// JsonWriter: nlohmann's number spelling (detail::to_chars, Grisu2) and its string escaping
// (ensure_ascii off: \" \\ \b \f \n \r \t, other control characters as \u00xx).
#include "json_writer.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <nlohmann/json.hpp>

namespace cardfit {

namespace {
// Whether any byte of w is below 0x20, '"' or '\\' (the bytes write_string escapes), eight at a
// time: "hasless" and "haszero" of Bit Twiddling Hacks (graphics.stanford.edu/~seander/
// bithacks.html#HasLessInWord), exact as a yes/no for the word. The core report is mostly runs of
// plain text (assumptions, card names), scanned 8 bytes a step instead of one.
bool has_escape(uint64_t w) {
  constexpr uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  auto has_zero = [&](uint64_t x) { return ((x - ones) & ~x & high) != 0; };
  const bool control = ((w - ones * 0x20) & ~w & high) != 0;
  return control || has_zero(w ^ (ones * '"')) || has_zero(w ^ (ones * '\\'));
}
}  // namespace

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

void JsonWriter::open(char c) {
  separate();
  out_ += c;
  first_.push_back(true);
}

void JsonWriter::close(char c) {
  first_.pop_back();
  out_ += c;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  separate();
  write_string(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  separate();
  write_string(s);
  return *this;
}

void JsonWriter::write_string(std::string_view s) {
  out_ += '"';
  size_t plain = 0;  // the start of the run of characters that need no escape, copied at once
  for (size_t i = 0; i < s.size();) {
    if (i + 8 <= s.size()) {  // a word with nothing to escape is skipped whole
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      if (!has_escape(w)) {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(s[i++]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out_.append(s.data() + plain, i - 1 - plain);
    plain = i;
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\b': out_ += "\\b"; break;
      case '\f': out_ += "\\f"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
        out_ += buf;
      }
    }
  }
  out_.append(s.data() + plain, s.size() - plain);
  out_ += '"';
}

// std::to_chars: the digits std::to_string gives, without a temporary string.
JsonWriter& JsonWriter::signed_value(int64_t v) {
  separate();
  char buf[24];
  out_.append(buf, size_t(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
  return *this;
}

JsonWriter& JsonWriter::unsigned_value(uint64_t v) {
  separate();
  char buf[24];
  out_.append(buf, size_t(std::to_chars(buf, buf + sizeof buf, v).ptr - buf));
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  separate();
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, size_t(end - buf));
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  separate();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

}  // namespace cardfit
