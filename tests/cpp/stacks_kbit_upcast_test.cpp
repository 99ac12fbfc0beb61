// The kbit_upcast stack preset (core/plan/stacks.cpp): axolotl and torchtune keep the weights QLoRA
// leaves unquantized (embedding, final norm and head, the layers' norms) in 16 bit, where PEFT's
// prepare_model_for_kbit_training (the hf preset) holds them in fp32: for Llama-3-8B the frozen
// base differs by exactly those elements × 2 bytes; an explicit kbit_upcast wins over the preset.
#include <catch2/catch.hpp>

#include <string>

#include "arch/registry.hpp"
#include "config.hpp"
#include "plan/memory.hpp"
#include "plan/option_schema.hpp"
#include "plan/stacks.hpp"
#include "test_util.hpp"

namespace stacks_kbit_upcast_test {

using namespace cardfit;
using M = MemoryModel;

namespace {
const Overheads kOv{805306368, 0.05};
constexpr int64_t kHidden = 4096, kVocab = 128256, kLayers = 32;  // Llama-3-8B (untied head)

int64_t qlora_weights(const std::string& extra) {
  static const Model m = trace_model(Config::parse(example("Meta-Llama-3-8B.json")));
  const M mm(m, parse_options(R"({"mode":"qlora")" + extra + "}"), Mode::qlora, 512, kOv);
  return mm.events().back().fixed[M::kWeightsC];
}
}  // namespace

TEST_CASE("axolotl and torchtune keep QLoRA's unquantized weights 16-bit, hf upcasts them to fp32", "[stacks]") {
  const int64_t unquantized = 2 * kVocab * kHidden + (2 * kLayers + 1) * kHidden;
  const int64_t hf = qlora_weights("");
  for (const char* s : {"axolotl", "torchtune"}) {
    CHECK(hf - qlora_weights(std::string(R"(,"stack":")") + s + "\"") == 2 * unquantized);
    CHECK(qlora_weights(std::string(R"(,"stack":")") + s + R"(","kbit_upcast":true)") == hf);
  }
  CHECK(qlora_weights(R"(,"stack":"llamafactory")") == hf);
  CHECK(hf - qlora_weights(R"(,"kbit_upcast":false)") == 2 * unquantized);
  CHECK_FALSE(stack_row(Stack::axolotl).policies.kbit_upcast);
  CHECK(stack_row(Stack::hf).policies.kbit_upcast);
}
}  // namespace stacks_kbit_upcast_test
