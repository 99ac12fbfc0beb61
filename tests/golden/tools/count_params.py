#!/usr/bin/env python3
"""Independent parameter counts for golden models whose hub total cannot be read here.

Each function walks the parameters that the transformers modeling file's __init__ methods create
(shapes written from the modeling code, not from cardfit), for a config dict. Run:
    python3 tests/golden/tools/count_params.py tests/golden/models/gpt-oss-20b.json
It prints the total and the tensor count, which the golden file's expected block records.
"""
import json
import sys


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class Walk:
    def __init__(self):
        self.tensors = {}

    def add(self, name, shape):
        assert name not in self.tensors, name
        self.tensors[name] = tuple(shape)

    def linear(self, name, i, o, bias=False):
        self.add(name + ".weight", (o, i))
        if bias:
            self.add(name + ".bias", (o,))

    def total(self):
        return sum(numel(s) for s in self.tensors.values())


def gpt_oss(c):
    """modeling_gpt_oss.py: GptOssForCausalLM."""
    w = Walk()
    H, V, L = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"]
    nh, kv, hd = c["num_attention_heads"], c["num_key_value_heads"], c.get("head_dim", 64)
    E, I = c["num_local_experts"], c["intermediate_size"]
    bias = c.get("attention_bias", True)
    w.add("model.embed_tokens.weight", (V, H))
    for i in range(L):
        p = f"model.layers.{i}."
        w.add(p + "input_layernorm.weight", (H,))
        w.linear(p + "self_attn.q_proj", H, nh * hd, bias)
        w.linear(p + "self_attn.k_proj", H, kv * hd, bias)
        w.linear(p + "self_attn.v_proj", H, kv * hd, bias)
        w.linear(p + "self_attn.o_proj", nh * hd, H, bias)
        w.add(p + "self_attn.sinks", (nh,))
        w.add(p + "post_attention_layernorm.weight", (H,))
        w.add(p + "mlp.router.weight", (E, H))
        w.add(p + "mlp.router.bias", (E,))
        w.add(p + "mlp.experts.gate_up_proj", (E, H, 2 * I))
        w.add(p + "mlp.experts.gate_up_proj_bias", (E, 2 * I))
        w.add(p + "mlp.experts.down_proj", (E, I, H))
        w.add(p + "mlp.experts.down_proj_bias", (E, H))
    w.add("model.norm.weight", (H,))
    if not c.get("tie_word_embeddings", False):
        w.add("lm_head.weight", (V, H))
    return w


def gpt_oss_stored_mxfp4(c):
    """Scalars the MXFP4 checkpoint stores: each expert weight [E, in, out] (model class) is stored as
    *_blocks uint8 [E, out, in/32, 16] and *_scales uint8 [E, out, in/32] (integrations/mxfp4.py)."""
    w = gpt_oss(c)
    stored = 0
    for name, shape in w.tensors.items():
        if name.endswith("gate_up_proj") or name.endswith("down_proj"):
            E, i, o = shape
            stored += E * o * (i // 32) * 16 + E * o * (i // 32)
        else:
            stored += numel(shape)
    return stored


def _gated_delta_net(w, p, c, split):
    """Qwen3NextGatedDeltaNet (fused in_proj_qkvz / in_proj_ba) or Qwen3_5GatedDeltaNet (split)."""
    H = c["hidden_size"]
    nk, nv = c.get("linear_num_key_heads", 16), c.get("linear_num_value_heads", 32)
    dk, dv = c.get("linear_key_head_dim", 128), c.get("linear_value_head_dim", 128)
    K, Vd = nk * dk, nv * dv
    conv_dim = 2 * K + Vd
    if split:
        w.linear(p + "in_proj_qkv", H, conv_dim)
        w.linear(p + "in_proj_z", H, Vd)
        w.linear(p + "in_proj_b", H, nv)
        w.linear(p + "in_proj_a", H, nv)
    else:
        w.linear(p + "in_proj_qkvz", H, 2 * K + 2 * Vd)
        w.linear(p + "in_proj_ba", H, 2 * nv)
    w.add(p + "conv1d.weight", (conv_dim, 1, c.get("linear_conv_kernel_dim", 4)))
    w.add(p + "dt_bias", (nv,))
    w.add(p + "A_log", (nv,))
    w.add(p + "norm.weight", (dv,))
    w.linear(p + "out_proj", Vd, H)


def _qwen3_next_like(c, split, moe):
    w = Walk()
    H, V, L = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"]
    nh, kv, hd = c["num_attention_heads"], c["num_key_value_heads"], c.get("head_dim", 256)
    interval = c.get("full_attention_interval", 4)
    types = c.get("layer_types") or ["linear_attention" if (i + 1) % interval else "full_attention" for i in range(L)]
    w.add("model.embed_tokens.weight", (V, H))
    for i in range(L):
        p = f"model.layers.{i}."
        w.add(p + "input_layernorm.weight", (H,))
        if types[i] == "linear_attention":
            _gated_delta_net(w, p + "linear_attn.", c, split)
        else:
            a = p + "self_attn."
            w.linear(a + "q_proj", H, nh * hd * 2)  # query and output gate
            w.linear(a + "k_proj", H, kv * hd)
            w.linear(a + "v_proj", H, kv * hd)
            w.linear(a + "o_proj", nh * hd, H)
            w.add(a + "q_norm.weight", (hd,))
            w.add(a + "k_norm.weight", (hd,))
        w.add(p + "post_attention_layernorm.weight", (H,))
        E = c.get("num_experts", 512) if moe else 0
        if E and i not in c.get("mlp_only_layers", []) and (i + 1) % c.get("decoder_sparse_step", 1) == 0:
            m, I, S = p + "mlp.", c.get("moe_intermediate_size", 512), c.get("shared_expert_intermediate_size", 512)
            w.add(m + "gate.weight", (E, H))
            for e in range(E):
                w.linear(m + f"experts.{e}.gate_proj", H, I)
                w.linear(m + f"experts.{e}.up_proj", H, I)
                w.linear(m + f"experts.{e}.down_proj", I, H)
            w.linear(m + "shared_expert.gate_proj", H, S)
            w.linear(m + "shared_expert.up_proj", H, S)
            w.linear(m + "shared_expert.down_proj", S, H)
            w.linear(m + "shared_expert_gate", H, 1)
        else:
            I = c["intermediate_size"]
            w.linear(p + "mlp.gate_proj", H, I)
            w.linear(p + "mlp.up_proj", H, I)
            w.linear(p + "mlp.down_proj", I, H)
    w.add("model.norm.weight", (H,))
    if not c.get("tie_word_embeddings", False):
        w.add("lm_head.weight", (V, H))
    return w


def qwen3_5_moe_text(c):
    """modeling_qwen3_5_moe.py: Qwen3_5MoeForCausalLM text model: Qwen3.5's split delta-net
    projections; MoE MLPs with the experts fused as the class and the checkpoint hold them
    (mlp.experts.gate_up_proj [E, 2I, H], down_proj [E, H, I]), a shared expert and its gate."""
    w = _qwen3_next_like({**c, "intermediate_size": 1}, split=True, moe=False)  # dense MLPs replaced below
    H, E, I, S = c["hidden_size"], c.get("num_experts", 256), c.get("moe_intermediate_size", 512), c.get("shared_expert_intermediate_size", 512)
    for name in [n for n in w.tensors if ".mlp." in n]:
        del w.tensors[name]
    for i in range(c["num_hidden_layers"]):
        m = f"model.layers.{i}.mlp."
        w.add(m + "gate.weight", (E, H))
        w.add(m + "experts.gate_up_proj", (E, 2 * I, H))
        w.add(m + "experts.down_proj", (E, H, I))
        w.linear(m + "shared_expert.gate_proj", H, S)
        w.linear(m + "shared_expert.up_proj", H, S)
        w.linear(m + "shared_expert.down_proj", S, H)
        w.linear(m + "shared_expert_gate", H, 1)
    return w


def qwen3_next(c):
    """modeling_qwen3_next.py: Qwen3NextForCausalLM (experts as the checkpoint stores them, one
    module per expert; the class's fused gate_up_proj holds the same scalars)."""
    return _qwen3_next_like(c, split=False, moe=True)


def qwen3_5_text(c):
    """modeling_qwen3_5.py: Qwen3_5ForCausalLM (Qwen3_5TextModel + lm_head), dense MLPs."""
    return _qwen3_next_like(c, split=True, moe=False)


def glm4_moe(c):
    """modeling_glm4_moe.py: Glm4MoeForCausalLM (experts as the checkpoint stores them, one module
    per expert). Returns the parameters; the e_score_correction_bias buffers are in w.buffers."""
    w = Walk()
    w.buffers = {}
    H, V, L = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"]
    nh, kv, hd = c["num_attention_heads"], c["num_key_value_heads"], c.get("head_dim", 128)
    E, S, I = c.get("n_routed_experts", 128), c.get("n_shared_experts", 1), c.get("moe_intermediate_size", 1408)
    bias = c.get("attention_bias", False)
    w.add("model.embed_tokens.weight", (V, H))
    for i in range(L):
        p = f"model.layers.{i}."
        w.add(p + "input_layernorm.weight", (H,))
        w.linear(p + "self_attn.q_proj", H, nh * hd, bias)
        w.linear(p + "self_attn.k_proj", H, kv * hd, bias)
        w.linear(p + "self_attn.v_proj", H, kv * hd, bias)
        w.linear(p + "self_attn.o_proj", nh * hd, H, False)
        if c.get("use_qk_norm", False):
            w.add(p + "self_attn.q_norm.weight", (hd,))
            w.add(p + "self_attn.k_norm.weight", (hd,))
        w.add(p + "post_attention_layernorm.weight", (H,))
        if i >= c.get("first_k_dense_replace", 1):
            w.add(p + "mlp.gate.weight", (E, H))
            w.buffers[p + "mlp.gate.e_score_correction_bias"] = (E,)
            for e in range(E):
                w.linear(p + f"mlp.experts.{e}.gate_proj", H, I)
                w.linear(p + f"mlp.experts.{e}.up_proj", H, I)
                w.linear(p + f"mlp.experts.{e}.down_proj", I, H)
            for n, (a, b) in {"gate_proj": (H, I * S), "up_proj": (H, I * S), "down_proj": (I * S, H)}.items():
                w.linear(p + "mlp.shared_experts." + n, a, b)
        else:
            Id = c["intermediate_size"]
            w.linear(p + "mlp.gate_proj", H, Id)
            w.linear(p + "mlp.up_proj", H, Id)
            w.linear(p + "mlp.down_proj", Id, H)
    w.add("model.norm.weight", (H,))
    if not c.get("tie_word_embeddings", False):
        w.add("lm_head.weight", (V, H))
    return w


def nemotron_h(c):
    """modeling_nemotron_h.py: NemotronHForCausalLM, checkpoint names under backbone. (dense blocks:
    Mamba-2 mixer = Zamba2MambaMixer as NemotronHMamba2Mixer sizes it, attention, relu2 MLP)."""
    w = Walk()
    pat = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
    types = [pat[ch] for ch in c["hybrid_override_pattern"]]
    H, V = c["hidden_size"], c["vocab_size"]
    nh, kv, hd = c["num_attention_heads"], c["num_key_value_heads"], c.get("head_dim", 128)
    mh, mhd, g, N, k = c["mamba_num_heads"], c["mamba_head_dim"], c["n_groups"], c["ssm_state_size"], c["conv_kernel"]
    inner = mh * mhd
    conv_dim = inner + 2 * g * N
    w.add("backbone.embeddings.weight", (V, H))
    for i, t in enumerate(types):
        p = f"backbone.layers.{i}."
        w.add(p + "norm.weight", (H,))
        m = p + "mixer."
        if t == "mamba":
            w.linear(m + "in_proj", H, inner + conv_dim + mh, c.get("use_bias", False))
            w.add(m + "conv1d.weight", (conv_dim, 1, k))
            if c.get("use_conv_bias", True):
                w.add(m + "conv1d.bias", (conv_dim,))
            w.add(m + "dt_bias", (mh,))
            w.add(m + "A_log", (mh,))
            w.add(m + "D", (mh,))
            w.add(m + "norm.weight", (inner,))
            w.linear(m + "out_proj", inner, H, c.get("use_bias", False))
        elif t == "attention":
            w.linear(m + "q_proj", H, nh * hd)
            w.linear(m + "k_proj", H, kv * hd)
            w.linear(m + "v_proj", H, kv * hd)
            w.linear(m + "o_proj", nh * hd, H)
        elif t == "mlp":
            I = c.get("intermediate_size", 21504)
            w.linear(m + "up_proj", H, I, c.get("mlp_bias", False))
            w.linear(m + "down_proj", I, H, c.get("mlp_bias", False))
        else:
            raise NotImplementedError("moe blocks")
    w.add("backbone.norm_f.weight", (H,))
    if not c.get("tie_word_embeddings", False):
        w.add("lm_head.weight", (V, H))
    return w


def gemma4_text(c):
    """modeling_gemma4.py: Gemma4ForCausalLM (Gemma4TextModel + tied lm_head), dense layers.
    Parameters only; the layer_scalar buffers are in w.buffers. Layers sharing KV have no k/v
    projections or k norm in the model class (the checkpoint's copies are dropped on load)."""
    w = Walk()
    w.buffers = {}
    H, V, L = c["hidden_size"], c["vocab_size"], c["num_hidden_layers"]
    nh, kv, hd = c["num_attention_heads"], c["num_key_value_heads"], c.get("head_dim", 256)
    ghd = c.get("global_head_dim", 512)
    keqv = c.get("attention_k_eq_v", False)
    gkv = c.get("num_global_key_value_heads") if keqv else kv
    I, ple = c["intermediate_size"], c.get("hidden_size_per_layer_input", 256)
    types = c["layer_types"]
    first_shared = L - c.get("num_kv_shared_layers", 0)
    w.add("model.embed_tokens.weight", (V, H))
    if ple:
        w.add("model.embed_tokens_per_layer.weight", (c.get("vocab_size_per_layer_input", 262144), L * ple))
        w.linear("model.per_layer_model_projection", H, L * ple)
        w.add("model.per_layer_projection_norm.weight", (ple,))
    for i in range(L):
        p = f"model.layers.{i}."
        full = types[i] == "full_attention"
        d = ghd if full else hd
        k = gkv if full else kv
        shared = i >= first_shared >= 0
        a = p + "self_attn."
        w.add(p + "input_layernorm.weight", (H,))
        w.linear(a + "q_proj", H, nh * d)
        w.add(a + "q_norm.weight", (d,))
        if not shared:
            w.add(a + "k_norm.weight", (d,))   # v_norm: with_scale=False, no weight
            w.linear(a + "k_proj", H, k * d)
            if not (keqv and full):
                w.linear(a + "v_proj", H, k * d)
        w.linear(a + "o_proj", nh * d, H)
        w.add(p + "post_attention_layernorm.weight", (H,))
        w.add(p + "pre_feedforward_layernorm.weight", (H,))
        Ii = I * (2 if c.get("use_double_wide_mlp", False) and i >= first_shared > 0 else 1)
        w.linear(p + "mlp.gate_proj", H, Ii)
        w.linear(p + "mlp.up_proj", H, Ii)
        w.linear(p + "mlp.down_proj", Ii, H)
        w.add(p + "post_feedforward_layernorm.weight", (H,))
        w.buffers[p + "layer_scalar"] = (1,)
        if ple:
            w.linear(p + "per_layer_input_gate", H, ple)
            w.linear(p + "per_layer_projection", ple, H)
            w.add(p + "post_per_layer_input_norm.weight", (H,))
    w.add("model.norm.weight", (H,))
    return w  # lm_head tied to embed_tokens (tie_word_embeddings true): not counted again


COUNTERS = {"gpt_oss": gpt_oss, "qwen3_next": qwen3_next, "qwen3_5_text": qwen3_5_text, "glm4_moe": glm4_moe,
            "nemotron_h": nemotron_h, "gemma4_text": gemma4_text, "qwen3_5_moe_text": qwen3_5_moe_text}

if __name__ == "__main__":
    g = json.load(open(sys.argv[1]))
    cfg = g["config"]
    w = COUNTERS[cfg["model_type"]](cfg)
    print("total", w.total(), "tensors", len(w.tensors))
    if cfg["model_type"] == "gpt_oss":
        print("stored scalars (mxfp4)", gpt_oss_stored_mxfp4(cfg))
