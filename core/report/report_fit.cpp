// The fit section (plan/fit_advisor.hpp), written straight to a string in nlohmann's (sorted)
// key order. Formats only: every number comes from the advisor.
#include "json_writer.hpp"
#include "report.hpp"

namespace cardfit {

std::string fit_report(const FitAdvice& f) {
  std::string out;
  JsonWriter w(out);
  w.begin_object().field("batch", f.batch).key("best");
  if (f.best) {
    const FitCombination& b = *f.best;
    w.begin_object().field("cards", b.cards).field("fits", b.fits).key("ids").array_of(b.ids);
    w.key("options").raw(b.options).field("reserved_bytes", b.reserved_bytes).field("saved_bytes", b.saved_bytes);
    w.field("step_seconds", b.step_seconds).field("time_factor", b.time_factor).end_object();
  } else {
    w.null();
  }
  w.field("capacity_bytes", f.capacity_bytes).field("card", f.card->id).field("card_name", f.card->name);
  w.field("cards", f.cards).key("changes").begin_array();
  for (const auto& c : f.changes) {
    w.begin_object().field("available", c.available).field("cards", c.cards).field("cost", c.cost);
    w.field("fits", c.fits).field("id", c.id).field("max_batch", c.max_batch).key("options").raw(c.options);
    w.field("reserved_bytes", c.reserved_bytes).field("saved_bytes", c.saved_bytes).field("source", c.source);
    w.field("step_seconds", c.step_seconds).field("time_factor", c.time_factor).field("title", c.title).end_object();
  }
  w.end_array().field("fits", f.fits).field("grad_accum", f.grad_accum).key("longest_seq").begin_array();
  for (const auto& s : f.longest_seq)
    w.begin_object().field("card", s.card->id).field("longest_seq", s.longest_seq).end_object();
  w.end_array().field("mfu", f.mfu).field("mode", mode_name(f.mode)).field("reserved_bytes", f.reserved_bytes);
  w.field("seq", f.seq).field("seq_limit", f.seq_limit).field("step_seconds", f.step_seconds).end_object();
  return out;
}

}  // namespace cardfit
