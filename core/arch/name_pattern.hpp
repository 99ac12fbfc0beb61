// Module-name patterns as checkpoint configs write them (compressed-tensors' "re:" targets and
// ignore lists): the subset of Python's `re` those patterns use, matched as re.match does (anchored
// at the start of the name, not at its end). A small backtracking matcher instead of std::regex,
// which alone added ~53 kB gzipped to the wasm module (docs/performance.md, "Size").
//
// Syntax: literals; `.`; classes `[a-z_]`, `[^.]`; escapes `\d \w \s \D \W \S` and escaped
// punctuation (`\.`); groups `(...)`, `(?:...)` with `|`; quantifiers `* + ? {m} {m,} {m,n}`, each
// optionally lazy (`*?`); anchors `^ $`. Anything else is refused (NamePattern::Invalid), so a
// pattern cardfit cannot read is an error naming its field, never a silent non-match.
#pragma once
#include <bitset>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cardfit {

class NamePattern {
 public:
  struct Invalid : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
  };

  explicit NamePattern(std::string_view pattern);  // throws Invalid
  // re.match(pattern, name) is not None. Throws Invalid when matching takes more than kMaxSteps
  // steps (a pattern like (a*)*b backtracks exponentially; module names are short).
  bool matches(std::string_view name) const;

  static constexpr int64_t kMaxSteps = 1'000'000;

  // True when no atom tells one digit from another (no digit literal, no class holding some digits
  // and not others): then two names that differ only digit for digit match alike (a layer's experts
  // 10..99 all answer as expert 10 does).
  bool digit_blind() const { return digit_blind_; }

  struct Piece;
  using Sequence = std::vector<Piece>;
  struct Atom {
    enum class Kind { literal, set, group, line_start, line_end } kind = Kind::literal;
    char literal = 0;
    std::bitset<256> set;            // Kind::set (also '.' and escapes)
    std::vector<Sequence> branches;  // Kind::group: the alternatives
  };
  struct Piece {
    Atom atom;
    int min = 1, max = 1;  // max -1: unbounded
    bool lazy = false;
  };

 private:
  Atom root_;  // a group of the whole pattern's alternatives
  bool digit_blind_ = false;
};

}  // namespace cardfit
