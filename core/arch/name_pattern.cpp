// NamePattern: a recursive-descent parser into atoms and quantified pieces, and a backtracking
// matcher in continuation style (each piece hands the position after it to the rest of the
// pattern), greedy or lazy as Python's re tries them.
#include "name_pattern.hpp"

#include <cctype>

#include "../function_ref.hpp"

namespace cardfit {
namespace {

using Atom = NamePattern::Atom;
using Piece = NamePattern::Piece;
using Sequence = NamePattern::Sequence;

class Parser {
 public:
  explicit Parser(std::string_view p) : p_(p) {}

  Atom pattern() {
    Atom root = group();
    if (i_ != p_.size()) fail("an unbalanced ')'");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw NamePattern::Invalid(what + " at character " + std::to_string(i_ + 1));
  }
  bool at_end() const { return i_ >= p_.size(); }
  char peek() const { return p_[i_]; }

  Atom group() {  // alternatives up to ')' or the end
    Atom g;
    g.kind = Atom::Kind::group;
    g.branches.emplace_back();
    while (!at_end() && peek() != ')') {
      if (peek() == '|') {
        ++i_;
        g.branches.emplace_back();
        continue;
      }
      g.branches.back().push_back(piece());
    }
    return g;
  }

  Piece piece() {
    Piece p;
    p.atom = atom();
    if (at_end()) return p;
    const char q = peek();
    if (q == '*' || q == '+' || q == '?') {
      ++i_;
      p.min = q == '+' ? 1 : 0;
      p.max = q == '?' ? 1 : -1;
    } else if (q == '{') {
      ++i_;
      p.min = number();
      p.max = p.min;
      if (!at_end() && peek() == ',') {
        ++i_;
        p.max = !at_end() && std::isdigit(static_cast<unsigned char>(peek())) ? number() : -1;
      }
      if (at_end() || peek() != '}') fail("a repeat {m,n} without its '}'");
      ++i_;
      if (p.max >= 0 && p.max < p.min) fail("a repeat {m,n} with n < m");
    } else {
      return p;
    }
    if (p.atom.kind == Atom::Kind::line_start || p.atom.kind == Atom::Kind::line_end) fail("a repeated anchor");
    if (!at_end() && peek() == '?') {
      ++i_;
      p.lazy = true;
    }
    if (!at_end() && (peek() == '*' || peek() == '+' || peek() == '?' || peek() == '{')) fail("a repeat of a repeat");
    return p;
  }

  int number() {
    if (at_end() || !std::isdigit(static_cast<unsigned char>(peek()))) fail("a repeat {m,n} without a number");
    int n = 0;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) {
      n = n * 10 + (peek() - '0');
      if (n > 1000) fail("a repeat count over 1000");
      ++i_;
    }
    return n;
  }

  Atom atom() {
    Atom a;
    const char c = p_[i_++];
    switch (c) {
      case '.':
        a.kind = Atom::Kind::set;
        a.set.set();
        a.set.reset('\n');
        return a;
      case '^': a.kind = Atom::Kind::line_start; return a;
      case '$': a.kind = Atom::Kind::line_end; return a;
      case '(': {
        if (p_.substr(i_, 2) == "?:") i_ += 2;
        else if (!at_end() && peek() == '?') fail("a group extension (?...) other than (?:...)");
        a = group();
        if (at_end()) fail("a '(' without its ')'");
        ++i_;
        return a;
      }
      case '[': return set();
      case '\\':
        a.kind = Atom::Kind::set;
        escape(a.set);
        return a;
      case '*': case '+': case '?': case '{': fail(std::string("a '") + c + "' with nothing to repeat");
      case ')': fail("an unbalanced ')'");
      default:
        a.kind = Atom::Kind::literal;
        a.literal = c;
        return a;
    }
  }

  // After a backslash: a class escape or one escaped punctuation character, added to `into`.
  void escape(std::bitset<256>& into) {
    if (at_end()) fail("a trailing '\\'");
    const char e = p_[i_++];
    auto add = [&](auto in_class, bool negate) {
      for (int ch = 0; ch < 256; ++ch)
        if (bool(in_class(ch)) != negate) into.set(size_t(ch));
    };
    auto digit = [](int ch) { return ch >= '0' && ch <= '9'; };
    auto word = [](int ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_'; };
    auto space = [](int ch) { return ch == ' ' || (ch >= '\t' && ch <= '\r'); };
    switch (e) {
      case 'd': add(digit, false); return;
      case 'D': add(digit, true); return;
      case 'w': add(word, false); return;
      case 'W': add(word, true); return;
      case 's': add(space, false); return;
      case 'S': add(space, true); return;
      default:
        if (std::isalnum(static_cast<unsigned char>(e))) fail(std::string("the escape \\") + e);
        into.set(static_cast<unsigned char>(e));
    }
  }

  Atom set() {  // after '['
    Atom a;
    a.kind = Atom::Kind::set;
    bool negate = false;
    if (!at_end() && peek() == '^') {
      negate = true;
      ++i_;
    }
    bool first = true;
    while (true) {
      if (at_end()) fail("a '[' without its ']'");
      char c = p_[i_++];
      if (c == ']' && !first) break;
      first = false;
      if (c == '\\') {
        escape(a.set);
        continue;
      }
      if (!at_end() && peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        const char hi = p_[i_ + 1];
        if (hi == '\\') fail("a class range ending in an escape");
        if (static_cast<unsigned char>(hi) < static_cast<unsigned char>(c)) fail("a class range out of order");
        for (int ch = static_cast<unsigned char>(c); ch <= static_cast<unsigned char>(hi); ++ch) a.set.set(size_t(ch));
        i_ += 2;
        continue;
      }
      a.set.set(static_cast<unsigned char>(c));
    }
    if (negate) a.set.flip();
    return a;
  }

  std::string_view p_;
  size_t i_ = 0;
};

// The rest of the pattern after a piece, as a non-owning reference to a continuation on the caller's
// stack (it outlives the call it is passed to): std::function copied each one to the heap, which
// was most of a match's time.
using Next = FunctionRef<bool(size_t)>;

struct Matcher {
  std::string_view s;
  mutable int64_t steps = 0;

  void step() const {
    if (++steps > NamePattern::kMaxSteps) throw NamePattern::Invalid("a pattern that backtracks too much to match");
  }

  bool atom(const Atom& a, size_t pos, const Next& next) const {
    step();
    switch (a.kind) {
      case Atom::Kind::literal: return pos < s.size() && s[pos] == a.literal && next(pos + 1);
      case Atom::Kind::set: return pos < s.size() && a.set.test(static_cast<unsigned char>(s[pos])) && next(pos + 1);
      case Atom::Kind::line_start: return pos == 0 && next(pos);
      case Atom::Kind::line_end: return pos == s.size() && next(pos);
      case Atom::Kind::group:
        for (const auto& branch : a.branches)
          if (sequence(branch, 0, pos, next)) return true;
        return false;
    }
    return false;
  }

  bool sequence(const Sequence& seq, size_t i, size_t pos, const Next& next) const {
    if (i == seq.size()) return next(pos);
    return repeat(seq[i], pos, 0, [&](size_t q) { return sequence(seq, i + 1, q, next); });
  }

  // `count` repetitions of p are behind pos; try one more (greedy first, lazy last) or stop.
  bool repeat(const Piece& p, size_t pos, int count, const Next& next) const {
    const bool may_stop = count >= p.min;
    const bool may_go = p.max < 0 || count < p.max;
    auto more = [&] {
      // An empty repetition past the minimum cannot help (and would loop): as Python's re stops it.
      return may_go && atom(p.atom, pos, [&](size_t q) { return (q != pos || count < p.min) && repeat(p, q, count + 1, next); });
    };
    if (p.lazy) return (may_stop && next(pos)) || more();
    return more() || (may_stop && next(pos));
  }
};

bool blind_to_digits(const Atom& a) {
  switch (a.kind) {
    case Atom::Kind::literal: return !std::isdigit(static_cast<unsigned char>(a.literal));
    case Atom::Kind::set: {
      int digits = 0;
      for (char d = '0'; d <= '9'; ++d) digits += a.set.test(static_cast<unsigned char>(d));
      return digits == 0 || digits == 10;
    }
    case Atom::Kind::group:
      for (const auto& branch : a.branches)
        for (const auto& piece : branch)
          if (!blind_to_digits(piece.atom)) return false;
      return true;
    default: return true;
  }
}

}  // namespace

NamePattern::NamePattern(std::string_view pattern) : root_(Parser(pattern).pattern()), digit_blind_(blind_to_digits(root_)) {}

bool NamePattern::matches(std::string_view name) const {
  Matcher m{name};
  return m.atom(root_, 0, [](size_t) { return true; });
}

}  // namespace cardfit
