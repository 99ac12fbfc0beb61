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

// The length of s's leading run with nothing to escape (s.size() when there is nothing).
size_t plain_prefix(std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (has_escape(w)) break;
  }
  for (; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '"' || c == '\\') break;
  }
  return i;
}
}  // namespace

bool JsonWriter::comma_due() {
  if (after_key_) {
    after_key_ = false;
    return false;
  }
  if (first_.empty()) return false;
  if (first_.back()) {
    first_.back() = 0;
    return false;
  }
  return true;
}

void JsonWriter::open(char c) {
  const char text[2] = {',', c};
  const bool comma = comma_due();
  out_.append(text + !comma, 1 + comma);
  first_.push_back(1);
}

void JsonWriter::close(char c) {
  first_.pop_back();
  out_ += c;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  const bool comma = comma_due();
  char buf[80];  // a key with nothing to escape (all of the report's own) goes out in one append
  if (k.size() <= sizeof buf - 4 && plain_prefix(k) == k.size()) {
    size_t n = 0;
    if (comma) buf[n++] = ',';
    buf[n++] = '"';
    std::memcpy(buf + n, k.data(), k.size());
    n += k.size();
    buf[n++] = '"';
    buf[n++] = ':';
    out_.append(buf, n);
  } else {
    if (comma) out_ += ',';
    write_string(k);
    out_ += ':';
  }
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  if (comma_due()) out_ += ',';
  write_string(s);
  return *this;
}

void JsonWriter::write_string(std::string_view s) {
  out_ += '"';
  size_t plain = 0;  // the start of the run of characters that need no escape, copied at once
  for (size_t i = plain_prefix(s); i < s.size(); i = plain + plain_prefix(s.substr(plain))) {
    out_.append(s.data() + plain, i - plain);
    const auto c = static_cast<unsigned char>(s[i]);
    plain = i + 1;
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
  char buf[24] = {','};
  const char* begin = buf + !comma_due();
  out_.append(begin, size_t(std::to_chars(buf + 1, buf + sizeof buf, v).ptr - begin));
  return *this;
}

JsonWriter& JsonWriter::unsigned_value(uint64_t v) {
  char buf[24] = {','};
  const char* begin = buf + !comma_due();
  out_.append(begin, size_t(std::to_chars(buf + 1, buf + sizeof buf, v).ptr - begin));
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();
  char buf[64] = {','};
  const char* begin = buf + !comma_due();
  out_.append(begin, size_t(nlohmann::detail::to_chars(buf + 1, buf + sizeof buf, v) - begin));
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  const std::string_view text = v ? ",true" : ",false";
  out_.append(text.substr(!comma_due()));
  return *this;
}

JsonWriter& JsonWriter::null() {
  out_.append(std::string_view(",null").substr(!comma_due()));
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  if (comma_due()) out_ += ',';
  out_ += json;
  return *this;
}

}  // namespace cardfit
