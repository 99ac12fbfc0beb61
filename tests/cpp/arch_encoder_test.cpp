// Encoders, speech and contrastive towers: the planner rules their structure needs, checked against
// numbers computed by hand from the modeling code (the totals and names are in the golden files).
#include <catch2/catch.hpp>

#include "plan/graph_costs.hpp"
#include "plan/memory.hpp"
#include "plan_test_util.hpp"
#include "test_util.hpp"

namespace arch_encoder_test {

using namespace cardfit;

namespace {
std::pair<size_t, size_t> locate(const Model& m, const std::string& name) {
  for (size_t b = 0; b < m.blocks.size(); ++b)
    for (size_t n = 0; n < m.blocks[b].nodes.size(); ++n)
      if (m.blocks[b].nodes[n].name == name) return {b, n};
  FAIL("no node " << name);
  return {0, 0};
}
}  // namespace

TEST_CASE("whisper: the encoder runs 1500 frames whatever seq is, the decoder seq tokens") {
  const Model m = trace_golden("whisper-large-v3-turbo.json");
  for (int64_t seq : {64, 448}) {
    auto [b0, n0] = locate(m, "model.encoder.conv1");
    CHECK(node_tokens(m, b0, n0, seq, 0, 0) == 3000);  // conv1 keeps the 3000 mel frames
    auto [b1, n1] = locate(m, "model.encoder.layers.0.fc1");
    CHECK(node_tokens(m, b1, n1, seq, 0, 0) == 1500);
    auto [b2, n2] = locate(m, "model.decoder.layers.0.fc1");
    CHECK(node_tokens(m, b2, n2, seq, 0, 0) == seq);
  }
}

TEST_CASE("whisper serving: decoder self-attention caches seq tokens, cross-attention the 1500 frames") {
  const Model m = trace_golden("whisper-large-v3-turbo.json");
  Options o;
  const MemoryPlan p = plan_memory(m, o, Mode::serve, 2, 448, {});
  // 4 decoder layers × (448 self + 1500 cross tokens) × K and V × 20 heads × 64 × 2 bytes × batch 2.
  CHECK(component(p, "kv_cache") == int64_t(4) * (448 + 1500) * 2 * 20 * 64 * 2 * 2);
  CHECK(component(p, "weights") == int64_t(808878080) * 2);
}

TEST_CASE("wav2vec2: each conv layer spans the product of the later strides in encoder frames") {
  const Model m = trace_golden("wav2vec2-base-960h.json");
  // conv_stride (5, 2, 2, 2, 2, 2, 2): layer 0's output has 2^6 = 64 frames per encoder frame.
  const int64_t expect[] = {64, 32, 16, 8, 4, 2, 1};
  for (int i = 0; i < 7; ++i) {
    auto [b, n] = locate(m, "wav2vec2.feature_extractor.conv_layers." + std::to_string(i) + ".conv");
    CHECK(node_tokens(m, b, n, 500, 0, 0) == 500 * expect[i]);
  }
}

TEST_CASE("bidirectional attention windows bound the attended span (ModernBERT local layers, Qwen2.5-VL)") {
  const Model m = trace_golden("modernbert-base.json");
  auto [bg, ng] = locate(m, "model.layers.0.attn.attn");  // global
  auto [bl, nl] = locate(m, "model.layers.1.attn.attn");  // local, 128-token window
  const Node& global = m.blocks[bg].nodes[ng];
  const Node& local = m.blocks[bl].nodes[nl];
  // QK^T and PV: 2 FLOPs × heads × (head_dim + v_head_dim) × keys attended.
  CHECK(forward_flops_per_token(global, 1024) == Approx(2.0 * 12 * 128 * 1024));
  CHECK(forward_flops_per_token(local, 1024) == Approx(2.0 * 12 * 128 * 128));
  const Model vl = trace_golden("qwen2.5-vl-7b-instruct.json");
  auto [bw, nw] = locate(vl, "visual.blocks.0.attn.attn");
  CHECK(vl.blocks[bw].nodes[nw].attn.window == 64);  // 112 px windows of 14 px patches: 8 × 8
  auto [bf, nf] = locate(vl, "visual.blocks.7.attn.attn");
  CHECK(vl.blocks[bf].nodes[nf].attn.window == 0);   // fullatt_block_indexes
}

TEST_CASE("encoder heads follow architectures[0]") {
  nlohmann::json c = golden_file("electra-small-discriminator.json").at("config");
  c["architectures"] = {"ElectraForMaskedLM"};
  const Model gen = trace_json(c);
  REQUIRE(find(gen, "generator_lm_head.bias"));
  CHECK(find(gen, "generator_predictions.dense.weight")->shape == Shape{128, 256});
  CHECK(find(gen, "discriminator_predictions.dense.weight") == nullptr);
  nlohmann::json d = golden_file("deberta-v3-base.json").at("config");
  d["architectures"] = {"DebertaV2ForSequenceClassification"};
  d["id2label"] = {{"0", "BENIGN"}, {"1", "INJECTION"}, {"2", "JAILBREAK"}};
  const Model cls = trace_json(d);
  CHECK(find(cls, "classifier.weight")->shape == Shape{3, 768});
  CHECK(find(cls, "mask_predictions.classifier.weight") == nullptr);
  // The DeBERTa-v3 backbone: 183,831,552 + pooler (768 x 768 + 768) + classifier (3 x 768 + 3).
  CHECK(cls.parameter_count() == 183831552 + 590592 + 2307);
}
}  // namespace arch_encoder_test
