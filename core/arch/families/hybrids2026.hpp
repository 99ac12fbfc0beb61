// The hybrid and state-space text families of issue 10's Tier 2 (Mamba-2 / linear-attention mixers
// beside attention); registry.cpp maps model_type to them. Declared apart from families.hpp and
// zoo2026.hpp so that adding one rebuilds only the files that use it.
#pragma once
#include "../../config.hpp"
#include "../../model.hpp"

namespace cardfit::families {

Model granitemoehybrid(const Config& cfg);  // Granite 4.0-H: Mamba-2 / attention layers, MoE + shared_mlp
Model falcon_h1(const Config& cfg);         // Falcon-H1: Mamba-2 and attention side by side in every layer
Model minimax(const Config& cfg);           // MiniMax-Text-01 / M1 (-hf): lightning and softmax attention, MoE

}  // namespace cardfit::families
