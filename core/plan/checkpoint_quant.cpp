#include "checkpoint_quant.hpp"

namespace cardfit {

namespace {
QuantKind kind_of(StoredBnb::Kind k) {
  switch (k) {
    case StoredBnb::Kind::nf4: return QuantKind::nf4;
    case StoredBnb::Kind::fp4: return QuantKind::fp4;
    case StoredBnb::Kind::int8: return QuantKind::int8;
  }
  return QuantKind::nf4;
}
// double_quant means something only for a 4-bit base: an 8-bit checkpoint leaves it as given.
bool takes_double_quant(const StoredBnb& b) { return b.kind != StoredBnb::Kind::int8; }
}  // namespace

Options with_checkpoint_quant(const Model& m, const Options& o) {
  if (!m.stored_bnb || (o.qlora_quant_set && o.double_quant_set)) return o;
  Options e = o;
  if (!o.qlora_quant_set) e.qlora_quant = kind_of(m.stored_bnb->kind);
  if (!o.double_quant_set && takes_double_quant(*m.stored_bnb)) e.double_quant = m.stored_bnb->double_quant;
  return e;
}

std::string checkpoint_quant_clause(const Model& m, const Options& o) {
  if (!m.stored_bnb) return "";
  const StoredBnb& b = *m.stored_bnb;
  std::string taken, keys;
  if (!o.qlora_quant_set) {
    taken = std::string("qlora_quant ") + quant_name(kind_of(b.kind));
    keys = b.kind == StoredBnb::Kind::int8 ? "load_in_8bit" : "bnb_4bit_quant_type";
  }
  if (!o.double_quant_set && takes_double_quant(b)) {
    taken += (taken.empty() ? "" : " and ") + std::string("double_quant ") + (b.double_quant ? "true" : "false");
    keys += (keys.empty() ? "" : ", ") + std::string("bnb_4bit_use_double_quant");
  }
  if (taken.empty()) return "";
  return taken + " from the checkpoint's quantization_config (" + keys + ")";
}

}  // namespace cardfit
