// JsonWriter: nlohmann's number spelling (detail::to_chars, Grisu2) and its string escaping with
// ensure_ascii on (\" \\ \b \f \n \r \t, other control characters and DEL as \u00xx, every non-ASCII
// character as \uxxxx, a surrogate pair beyond U+FFFF). Why ASCII: the JS side decodes the answer
// with TextDecoder, whose pure-ASCII path is ~100x faster than its UTF-8 one in V8 (a 73 KB report:
// 0.009 against 0.82 ms under Node 20, docs/performance.md), and JSON.parse gives the same strings.
#include "json_writer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include <nlohmann/json.hpp>

namespace cardfit {

namespace {
// Whether any byte of w is below 0x20, '"', '\\', or 0x7f and above (the bytes write_string
// escapes), eight at a time: "hasless" and "haszero" of Bit Twiddling Hacks
// (graphics.stanford.edu/~seander/bithacks.html#HasLessInWord), exact as a yes/no for the word. The
// core report is mostly runs of plain text (assumptions, card names), scanned 8 bytes a step.
bool has_escape(uint64_t w) {
  constexpr uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
  auto has_zero = [&](uint64_t x) { return ((x - ones) & ~x & high) != 0; };
  const bool control = ((w - ones * 0x20) & ~w & high) != 0;
  const bool high_or_del = (w & high) != 0 || has_zero(w ^ (ones * 0x7f));
  return control || high_or_del || has_zero(w ^ (ones * '"')) || has_zero(w ^ (ones * '\\'));
}

// The same for one byte, by table: the tail of a string, and most keys (shorter than a word).
constexpr auto kEscaped = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[size_t(c)] = c < 0x20 || c == '"' || c == '\\' || c >= 0x7f;
  return t;
}();

// The length of s's leading run with nothing to escape (s.size() when there is nothing).
size_t plain_prefix(std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (has_escape(w)) break;
  }
  while (i < s.size() && !kEscaped[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

// The code point of the UTF-8 sequence at s[i] and its length; an invalid or truncated sequence is
// U+FFFD for its first byte (nlohmann's error_handler_t::replace). The core's strings are valid
// UTF-8 (json_input.cpp refuses other input), so this is a guard, not a path.
std::pair<uint32_t, size_t> decode_utf8(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  const size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return {0xfffd, 1};
  uint32_t cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return {0xfffd, 1};
    cp = cp << 6 | (byte(i + k) & 0x3f);
  }
  const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return {0xfffd, 1};
  return {cp, n};
}

// \uxxxx of a UTF-16 code unit, lowercase as nlohmann spells it.
std::array<char, 6> u_escape(uint32_t unit) {
  static constexpr char hex[] = "0123456789abcdef";
  return {'\\', 'u', hex[unit >> 12 & 15], hex[unit >> 8 & 15], hex[unit >> 4 & 15], hex[unit & 15]};
}
}  // namespace

void JsonWriter::flush() {
  if (used_ == 0) return;
  out_.append(buffer_, used_);
  used_ = 0;
}

void JsonWriter::put(const char* p, size_t n) {
  if (n > sizeof buffer_ - used_) {
    flush();
    if (n >= sizeof buffer_) {
      out_.append(p, n);  // a long run (a section written before, a long text) goes straight in
      return;
    }
  }
  std::memcpy(buffer_ + used_, p, n);
  used_ += n;
}

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
  put(text + !comma, 1 + comma);
  first_.push_back(1);
}

void JsonWriter::close(char c) {
  first_.pop_back();
  put(c);
  value_done();
}

JsonWriter& JsonWriter::literal_key(const char* text, size_t size) {
  // Nothing to escape (checked when compiled): ,"key": straight into the buffer.
  const bool comma = comma_due();
  const size_t n = size + 3 + comma;
  if (n > sizeof buffer_ - used_) flush();  // then it has: a literal key is under 1 KB
  char* out = buffer_ + used_;
  if (comma) *out++ = ',';
  *out++ = '"';
  std::memcpy(out, text, size);
  out += size;
  *out++ = '"';
  *out++ = ':';
  used_ += n;
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::data_key(std::string_view k) {
  if (comma_due()) put(',');
  write_string(k);
  put(':');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  if (comma_due()) put(',');
  write_string(s);
  return value_done();
}

void JsonWriter::write_string(std::string_view s) {
  put('"');
  size_t plain = 0;  // the start of the run of characters that need no escape, copied at once
  for (size_t i = plain_prefix(s); i < s.size(); i = plain + plain_prefix(s.substr(plain))) {
    put(s.data() + plain, i - plain);
    const auto c = static_cast<unsigned char>(s[i]);
    plain = i + 1;
    switch (c) {
      case '"': put("\\\"", 2); break;
      case '\\': put("\\\\", 2); break;
      case '\b': put("\\b", 2); break;
      case '\f': put("\\f", 2); break;
      case '\n': put("\\n", 2); break;
      case '\r': put("\\r", 2); break;
      case '\t': put("\\t", 2); break;
      default: {
        if (c < 0x80) {
          put(u_escape(c).data(), 6);
          break;
        }
        const auto [cp, length] = decode_utf8(s, i);
        plain = i + length;
        if (cp < 0x10000) {
          put(u_escape(cp).data(), 6);
        } else {  // a surrogate pair, as JSON spells a character beyond the BMP
          put(u_escape(0xd800 + ((cp - 0x10000) >> 10)).data(), 6);
          put(u_escape(0xdc00 + ((cp - 0x10000) & 0x3ff)).data(), 6);
        }
      }
    }
  }
  put(s.data() + plain, s.size() - plain);
  put('"');
}

// std::to_chars: the digits std::to_string gives, without a temporary string.
JsonWriter& JsonWriter::signed_value(int64_t v) {
  char buf[24] = {','};
  const char* begin = buf + !comma_due();
  put(begin, size_t(std::to_chars(buf + 1, buf + sizeof buf, v).ptr - begin));
  return value_done();
}

JsonWriter& JsonWriter::unsigned_value(uint64_t v) {
  char buf[24] = {','};
  const char* begin = buf + !comma_due();
  put(begin, size_t(std::to_chars(buf + 1, buf + sizeof buf, v).ptr - begin));
  return value_done();
}

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();
  char buf[64] = {','};
  const char* begin = buf + !comma_due();
  put(begin, size_t(nlohmann::detail::to_chars(buf + 1, buf + sizeof buf, v) - begin));
  return value_done();
}

JsonWriter& JsonWriter::value(bool v) {
  const std::string_view text = v ? ",true" : ",false";
  put(text.substr(!comma_due()));
  return value_done();
}

JsonWriter& JsonWriter::null() {
  put(std::string_view(",null").substr(!comma_due()));
  return value_done();
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  if (comma_due()) put(',');
  put(json);
  return value_done();
}

}  // namespace cardfit
