// Planning options: every assumption the planner makes is one of these, with a default.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cardfit {

enum class Mode { full, lora, qlora, serve };
enum class Precision { bf16_mixed, fp16_mixed, bf16, fp32 };
enum class Optimizer { adamw, adamw8bit, adafactor, sgd };
enum class Attention { sdpa, eager, flash };
enum class WeightDtype { bf16, fp8, int8, int4 };

const char* mode_name(Mode m);
const char* precision_name(Precision p);
const char* optimizer_name(Optimizer o);
const char* attention_name(Attention a);
const char* weight_dtype_name(WeightDtype w);
inline constexpr Mode all_modes[] = {Mode::full, Mode::lora, Mode::qlora, Mode::serve};

struct Options {
  Mode mode = Mode::full;
  int64_t batch = 1;
  int64_t seq = 0;              // 0: default (512, or 2048 for models of 1B+ parameters, capped at the context)
  int64_t serve_seq = 0;        // 0: default (the training length, or 4096 for models of 1B+)
  int64_t lora_rank = 16;
  std::vector<std::string> lora_targets;  // empty: every linear but the head
  Optimizer optimizer = Optimizer::adamw;
  Precision precision = Precision::bf16_mixed;
  bool grad_ckpt = false;
  Attention attention = Attention::sdpa;
  WeightDtype serve_dtype = WeightDtype::bf16;
  WeightDtype kv_dtype = WeightDtype::bf16;  // bf16 or fp8
  int64_t gpus = 1;
  std::string card;             // empty: defaults.priced_card of the catalog
  std::optional<int64_t> checkpoint_total;
  std::string safetensors_header;  // JSON header text of a model.safetensors
  std::string safetensors_index;   // text of model.safetensors.index.json
  // Cost
  int64_t epochs = 10, samples = 50000, cost_batch = 32;
  std::optional<double> mfu;       // empty: catalog default
  std::map<std::string, double> prices;  // card id → USD per GPU-hour, overriding the catalog
};

/// Parses the options JSON object (empty text = all defaults). Unknown names and bad values are
/// Error(option_unknown / option_value) with the option's name as path.
Options parse_options(std::string_view json_text);

}  // namespace cardfit
