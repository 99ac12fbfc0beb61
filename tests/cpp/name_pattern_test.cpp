// NamePattern (core/arch/name_pattern.hpp): Python re.match semantics on the patterns checkpoint
// configs write, each expectation what `re.match(pattern, name) is not None` gives in CPython.
#include <catch2/catch.hpp>

#include "arch/name_pattern.hpp"

namespace name_pattern_test {

using cardfit::NamePattern;

namespace {
bool m(const char* pattern, const char* name) { return NamePattern(pattern).matches(name); }
}  // namespace

TEST_CASE("name patterns match as Python's re.match: anchored at the start, not at the end") {
  // compressed-tensors' usual ignores and targets
  CHECK(m(".*lm_head", "lm_head"));
  CHECK(m(".*lm_head", "model.lm_head"));
  CHECK(m(".*mlp.gate$", "model.layers.0.mlp.gate"));
  CHECK_FALSE(m(".*mlp.gate$", "model.layers.0.mlp.gate_proj"));
  CHECK(m(".*mlp.gate", "model.layers.0.mlp.gate_proj"));  // no '$': a prefix match is enough
  CHECK(m(".*\\.mlp\\.gate$", "model.layers.0.mlp.gate"));
  CHECK_FALSE(m(".*\\.mlp\\.gate$", "model.layers.0.mlpXgate"));
  CHECK(m(".*mlp.gate$", "model.layers.0.mlpXgate"));  // an unescaped '.' is any character
  CHECK_FALSE(m("mlp", "model.mlp"));                   // re.match does not search
  CHECK(m("model\\.layers\\.[0-9]+\\.self_attn", "model.layers.12.self_attn.q_proj"));
  CHECK_FALSE(m("model\\.layers\\.[0-9]+\\.self_attn", "model.layers.x.self_attn"));
  CHECK(m(".*(q|k|v)_proj$", "model.layers.3.self_attn.k_proj"));
  CHECK_FALSE(m(".*(q|k|v)_proj$", "model.layers.3.self_attn.o_proj"));
  CHECK(m("(?:vision_tower|multi_modal_projector).*", "multi_modal_projector.linear_1"));
  CHECK(m("^model$", "model"));
  CHECK_FALSE(m("^model$", "model.x"));
  // classes, escapes, repeats
  CHECK(m("[a-c_]+$", "ab_c"));
  CHECK_FALSE(m("[a-c_]+$", "abd"));
  CHECK(m("[^.]+\\.weight", "embed.weight"));
  CHECK_FALSE(m("[^.]+\\.weight", "a.b.weight"));
  CHECK(m("\\w+\\.\\d+$", "layers.17"));
  CHECK_FALSE(m("\\d", "x1"));
  CHECK(m("a{2,3}b", "aab"));
  CHECK(m("a{2,3}b", "aaab"));
  CHECK_FALSE(m("a{2,3}b", "ab"));
  CHECK_FALSE(m("a{2,3}b", "aaaab"));  // anchored: four a's cannot start a match of a{2,3}b
  CHECK(m("a{2}", "aaaa"));
  CHECK(m("a{2,}$", "aaaa"));
  CHECK(m("x?y", "y"));
  CHECK(m(".*?_proj$", "q_proj"));
  CHECK(m("(a|ab)c", "abc"));  // backtracks into the other branch
  CHECK(m("(a*)*b", "aaab"));  // an empty repetition ends the loop
  CHECK(m("", "anything"));
  CHECK(m("a|", "b"));  // an empty alternative matches the empty prefix
}

TEST_CASE("name patterns outside the subset, and ones that backtrack without end, are refused") {
  for (const char* bad : {"(", "a)", "[ab", "*a", "a**", "a{", "a{2", "a{3,1}", "\\b", "\\1", "(?P<x>a)", "a\\", "^*"})
    CHECK_THROWS_AS(NamePattern(bad), NamePattern::Invalid);
  const NamePattern catastrophic("(a|a)*(a|a)*(a|a)*(a|a)*b");
  CHECK_THROWS_AS(catastrophic.matches("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac"), NamePattern::Invalid);
}

TEST_CASE("a pattern is digit-blind when no atom tells one digit from another") {
  for (const char* blind : {".*self_attn.*", "re", "\\d+", "[0-9]", "\\w", "\\D", "[a-z_.]+", "(?:a|\\d{2})", ".{3}"})
    CHECK(NamePattern(blind).digit_blind());
  for (const char* sighted : {".*layers\\.1\\..*", "[0-4]", "[^0-4]", "(?:a|7)", "x[5-9]"})
    CHECK_FALSE(NamePattern(sighted).digit_blind());
  // What the property promises: names alike but digit for digit answer alike.
  const NamePattern p(".*experts\\.\\d{2}\\.");
  CHECK(p.matches("layers.3.experts.10.w1") == p.matches("layers.8.experts.95.w1"));
  CHECK(p.matches("layers.3.experts.100.w1") != p.matches("layers.3.experts.10.w1"));  // length still counts
}
}  // namespace name_pattern_test
