// Structure the golden totals do not pin for the classic families (GPT-NeoX, GPT-J, GPT-BigCode,
// OPT, BLOOM, Falcon/RefinedWeb, MPT, ChatGLM, BERT/RoBERTa, DistilBERT, T5, BART): encoders
// attend both ways with no KV cache, encoder-decoders cross-attend, ALiBi models carry no position tensor, and the config switches
// (parallel/sequential layers, K/V layouts, heads chosen by architectures) pick the right tensors.
#include <catch2/catch.hpp>

#include <algorithm>

#include "arch/registry.hpp"
#include "plan/checks.hpp"
#include "config.hpp"
#include "test_util.hpp"

namespace arch_classic_test {

using namespace cardfit;
using nlohmann::json;

namespace {



}  // namespace

TEST_CASE("encoders attend both ways and hold no KV cache") {
  for (const char* file : {"bert-base-uncased.json", "roberta-base.json", "distilbert-base-uncased.json"}) {
    INFO(file);
    const Model m = trace_golden(file);
    CHECK(m.dims.encoder_only);
    CHECK_FALSE(m.dims.encoder_decoder);
    const auto a = attention_nodes(m);
    REQUIRE(a.size() == size_t(m.dims.layers));
    for (const Node* n : a) {
      CHECK_FALSE(n->attn.causal);
      CHECK_FALSE(n->attn.cross);
    }
    const json r = plan(golden_file(file).at("config").dump(), {{"mode", "serve"}});
    CHECK(r["plan"]["components"].value("kv_cache", 0) == 0);
  }
}

TEST_CASE("encoder-decoders: bidirectional encoder, causal decoder, cross-attention in every decoder layer") {
  for (const char* file : {"t5-small.json", "flan-t5-base.json", "bart-large-cnn.json"}) {
    INFO(file);
    const Model m = trace_golden(file);
    CHECK(m.dims.encoder_decoder);
    size_t enc = 0, dec_self = 0, cross = 0;
    for (const Node* n : attention_nodes(m)) {
      if (n->attn.cross) ++cross;
      else if (n->attn.causal) ++dec_self;
      else ++enc;
    }
    CHECK(enc == size_t(m.dims.layers));
    CHECK(dec_self == cross);
    CHECK(cross > 0);
  }
  // T5: the relative bias sits in the first block of each stack only; v1.1 is gated and untied.
  const Model t5 = trace_golden("t5-small.json");
  CHECK(find(t5, "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"));
  CHECK(find(t5, "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"));
  CHECK_FALSE(find(t5, "encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight"));
  CHECK(find(t5, "lm_head.weight")->tied_to == "shared.weight");
  const Model flan = trace_golden("flan-t5-base.json");
  CHECK(find(flan, "lm_head.weight")->tied_to.empty());
  CHECK(find(flan, "decoder.block.11.layer.2.DenseReluDense.wi_1.weight"));
  // T5EncoderModel keeps the shared embedding and the encoder only.
  json enc_only = golden_file("flan-t5-base.json").at("config");
  enc_only["architectures"] = {"T5EncoderModel"};
  const Model e = trace_json(enc_only);
  CHECK(e.dims.encoder_only);
  CHECK_FALSE(find(e, "lm_head.weight"));
  CHECK_FALSE(find(e, "decoder.final_layer_norm.weight"));
  // BART: positions offset by 2, final_logits_bias is a buffer, not a parameter.
  const Model bart = trace_golden("bart-large-cnn.json");
  CHECK(find(bart, "model.decoder.embed_positions.weight")->shape == Shape{1026, 1024});
  REQUIRE(bart.buffers.size() == 1);
  CHECK(bart.buffers[0].name == "final_logits_bias");
}

TEST_CASE("ALiBi models carry no position tensor") {
  for (const char* file : {"bloom-560m.json", "mpt-7b.json", "falcon-rw-1b.json"}) {
    INFO(file);
    const Model m = trace_golden(file);
    for (const auto& t : m.tensors) CHECK(t.role != Role::position_embedding);
    for (const Node* n : attention_nodes(m)) CHECK(n->attn.alibi);
  }
  const Model falcon = trace_golden("falcon-7b.json");  // named: the nodes point into it (a temporary
                                                       // in the range's expression dies before the loop)
  for (const Node* n : attention_nodes(falcon)) CHECK_FALSE(n->attn.alibi);
}

TEST_CASE("Falcon: K/V layout and layer norms follow new_decoder_architecture, multi_query, parallel_attn") {
  json c = golden_file("falcon-7b.json").at("config");
  // multi_query off (old layout): full multi-head qkv.
  c["multi_query"] = false;
  Model m = trace_json(c);
  CHECK(find(m, "transformer.h.0.self_attention.query_key_value.weight")->shape == Shape{3 * 4544, 4544});
  CHECK(attention_nodes(m)[0]->attn.kv_heads == 71);
  // Sequential layers get a post_attention_layernorm.
  c["parallel_attn"] = false;
  m = trace_json(c);
  CHECK(find(m, "transformer.h.0.post_attention_layernorm.weight"));
  // New architecture with one norm per parallel block (Falcon-11B style).
  json n = golden_file("falcon-40b.json").at("config");
  n["num_ln_in_parallel_attn"] = 1;
  m = trace_json(n);
  CHECK(find(m, "transformer.h.0.input_layernorm.weight"));
  CHECK_FALSE(find(m, "transformer.h.0.ln_mlp.weight"));
  CHECK(attention_nodes(m)[0]->attn.kv_heads == 8);
  n["ffn_hidden_size"] = 16384;
  m = trace_json(n);
  CHECK(find(m, "transformer.h.0.mlp.dense_h_to_4h.weight")->shape == Shape{16384, 8192});
  // The remote-code RefinedWebModel with multi_query: one K/V head.
  const Model falcon = trace_golden("falcon-7b-refinedwebmodel.json");
  CHECK(attention_nodes(falcon)[0]->attn.kv_heads == 1);
}

TEST_CASE("GPT-NeoX and GPT-J run attention and MLP in parallel, NeoX can run them in sequence") {
  json c = golden_file("pythia-160m.json").at("config");
  Model m = trace_json(c);
  CHECK(m.dims.kv_heads == 12);
  c["use_parallel_residual"] = false;
  const Model seq = trace_json(c);
  CHECK(seq.parameter_count() == m.parameter_count());
  CHECK(shape_errors(seq).empty());
  // GPT-J: one ln_1, no ln_2.
  const Model j = trace_golden("gpt-j-6b.json");
  CHECK_FALSE(find(j, "transformer.h.0.ln_2.weight"));
  CHECK(find(j, "lm_head.bias"));
}

TEST_CASE("ChatGLM: the v1 and v2 layouts are told apart by their keys") {
  const Model v1 = trace_golden("chatglm-6b.json");
  CHECK(find(v1, "lm_head.weight")->tied_to == "transformer.word_embeddings.weight");
  CHECK(v1.buffers.size() == 28);
  const Model v2 = trace_golden("chatglm2-6b.json");
  CHECK(v2.dims.kv_heads == 2);
  CHECK(v2.dims.head_dim == 128);
  CHECK(find(v2, "transformer.output_layer.weight")->tied_to.empty());
  CHECK_FALSE(find(v2, "transformer.encoder.layers.0.self_attention.dense.bias"));
}

TEST_CASE("BERT-like heads follow architectures[0]") {
  json c = golden_file("bert-base-uncased.json").at("config");
  const int64_t pretraining = trace_json(c).parameter_count();
  c["architectures"] = {"BertModel"};
  Model m = trace_json(c);
  CHECK(find(m, "bert.pooler.dense.weight"));
  CHECK_FALSE(find(m, "cls.predictions.bias"));
  CHECK(pretraining - m.parameter_count() == (768 * 768 + 768) + 2 * 768 + 30522 + (2 * 768 + 2));
  c["architectures"] = {"BertForSequenceClassification"};
  c["id2label"] = {{"0", "NEG"}, {"1", "NEU"}, {"2", "POS"}};
  m = trace_json(c);
  CHECK(find(m, "classifier.weight")->shape == Shape{3, 768});
  CHECK(find(m, "bert.pooler.dense.weight"));
  c["architectures"] = {"BertForTokenClassification"};
  m = trace_json(c);
  CHECK_FALSE(find(m, "bert.pooler.dense.weight"));
  json r = golden_file("roberta-base.json").at("config");
  r["architectures"] = {"RobertaForSequenceClassification"};
  m = trace_json(r);
  CHECK(find(m, "classifier.out_proj.weight")->shape == Shape{2, 768});
  CHECK_FALSE(find(m, "roberta.pooler.dense.weight"));
  json d = golden_file("distilbert-base-uncased.json").at("config");
  d["architectures"] = {"DistilBertForSequenceClassification"};
  m = trace_json(d);
  CHECK(find(m, "pre_classifier.weight"));
  CHECK_FALSE(find(m, "vocab_projector.weight"));
}

TEST_CASE("OPT post-norm layers and projections, MPT departures follow llm-foundry") {
  const Model o = trace_golden("opt-350m.json");
  CHECK_FALSE(find(o, "model.decoder.final_layer_norm.weight"));
  CHECK(find(o, "lm_head.weight")->shape == Shape{50272, 512});
  json c = golden_file("mpt-7b.json").at("config");
  c["attn_config"]["attn_type"] = "grouped_query_attention";
  c["attn_config"]["kv_n_heads"] = 8;
  Model m = trace_json(c);
  CHECK(find(m, "transformer.blocks.0.attn.Wqkv.weight")->shape == Shape{4096 + 2 * 8 * 128, 4096});
  c["attn_config"]["alibi"] = false;
  c["no_bias"] = false;
  m = trace_json(c);
  CHECK(find(m, "transformer.wpe.weight")->shape == Shape{2048, 4096});
  CHECK(find(m, "transformer.blocks.0.norm_1.bias"));
  CHECK(shape_errors(m).empty());
}
}  // namespace arch_classic_test
