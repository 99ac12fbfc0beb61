// JsonWriter: appends JSON text to a string as it goes, with nlohmann::json::dump(-1, ' ', true)'s
// exact spelling (compact, numbers as nlohmann prints them, strings escaped alike with ensure_ascii:
// the text is pure ASCII, which the JS side decodes fastest), so reports written with it stay
// byte-compatible with the tree-built ones. Not a DOM and not a validator: callers write object keys
// in the order nlohmann would (sorted), which tests/cpp/report_test.cpp checks by re-dumping every
// golden report.
//
// The text goes through a buffer of its own, appended to the string a few KB at a time and whenever
// a whole JSON value is written (the last container closed, or a value outside any): so the string
// holds the document as soon as it is complete, and the appends stay few. Why: std::string::append
// is a call into the C++ library, and the prebuilt one of the WebAssembly toolchain (Debian's) is
// unoptimised: a quarter of a re-plan in wasm when every token was an append (docs/performance.md).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cardfit {

/// An object key written in the source ("batch"), checked when compiled: it has nothing to escape
/// (no control character, quote, backslash, DEL or non-ASCII byte), so JsonWriter::key copies it as
/// it is. A key that comes from data goes through JsonWriter::data_key, which escapes.
struct LiteralKey {
  template <size_t N>
  consteval LiteralKey(const char (&s)[N]) : text(s, N - 1) {  // NOLINT: implicit on purpose
    if (N > 1024) throw "a literal key must be shorter than the writer's buffer";
    for (const char c : text) {
      const auto u = static_cast<unsigned char>(c);  // char's signedness differs by target
      if (u < 0x20 || u == '"' || u == '\\' || u >= 0x7f) throw "a literal key must need no escaping";
    }
  }
  std::string_view text;
};

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}
  ~JsonWriter() { flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& begin_object() { open('{'); return *this; }
  JsonWriter& end_object() { close('}'); return *this; }
  JsonWriter& begin_array() { open('['); return *this; }
  JsonWriter& end_array() { close(']'); return *this; }
  /// The next member's key (inside an object): a literal, or text from data (escaped as needed).
  JsonWriter& key(LiteralKey k) { return literal_key(k.text.data(), k.text.size()); }
  JsonWriter& data_key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  /// Any integer type (int64_t is long natively, long long in wasm; size_t differs likewise).
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  JsonWriter& value(T v) {
    if constexpr (std::is_signed_v<T>) return signed_value(int64_t(v));
    else return unsigned_value(uint64_t(v));
  }
  JsonWriter& value(double v);  // non-finite → null, as nlohmann
  JsonWriter& value(bool v);
  JsonWriter& null();
  /// Pre-rendered JSON text (a section another writer produced).
  JsonWriter& raw(std::string_view json);

  template <class T>
  JsonWriter& field(LiteralKey k, const T& v) { key(k); return value(v); }
  template <class T>
  JsonWriter& array_of(const std::vector<T>& items) {
    begin_array();
    for (const auto& x : items) value(x);
    return end_array();
  }

 private:
  JsonWriter& literal_key(const char* text, size_t size);  // two scalars: the cheapest call in wasm
  JsonWriter& signed_value(int64_t v);
  JsonWriter& unsigned_value(uint64_t v);
  void write_string(std::string_view s);
  void open(char c);
  void close(char c);
  // Whether the next member or element owes a ',' (and the bookkeeping of having written it): the
  // callers put it in the same put as what follows, one put per token.
  bool comma_due();
  void put(const char* p, size_t n);
  void put(std::string_view s) { put(s.data(), s.size()); }
  void put(char c) { put(&c, 1); }
  void flush();
  // After each value: a complete document (no container open) goes to the string at once.
  JsonWriter& value_done() {
    if (first_.empty()) flush();
    return *this;
  }
  std::string& out_;
  std::vector<uint8_t> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
  size_t used_ = 0;
  char buffer_[4096];
};

}  // namespace cardfit
