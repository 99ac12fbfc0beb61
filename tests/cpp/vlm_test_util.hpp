// What the vision-language model tests each check of a golden config: it plans in all four modes
// with the parameter total derived by hand, and an image per sample adds to the peak.
#pragma once
#include <cstdint>

#include "plan/memory.hpp"
#include "test_util.hpp"

// Every mode plans `config` and counts `total` parameters.
inline void check_plans_in_every_mode(const nlohmann::json& config, int64_t total) {
  for (const char* mode : {"full", "lora", "qlora", "serve"}) {
    INFO(mode);
    const nlohmann::json r = plan(config.dump(), {{"mode", mode}});
    REQUIRE(r.at("ok") == true);
    CHECK(r["params"]["total"] == total);
  }
}

// The batch-1 memory plan of `m` in `mode` with `images` images per sample (0: text only).
inline cardfit::MemoryPlan with_images(const cardfit::Model& m, int64_t images, cardfit::Mode mode, int64_t seq = 2048) {
  cardfit::Options o;
  o.images = images;
  return cardfit::MemoryModel(m, o, mode, seq, {}).at(1);
}
