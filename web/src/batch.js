// web/src/batch.js: a batch change without the core. The core report ships, per mode, the few
// moments of the step that can be its peak (memory_events: fixed + batch × per-sample bytes, by
// component); these pure functions give the plan section, the checks and the batch curves at any
// batch exactly as the core's MemoryModel::at, run_checks and memory_curves would
// (tests/js/batch.test.mjs holds them to the core's own numbers). Not a planner: no memory rule
// lives here, only the evaluation of the core's lines.

// The caching allocator's reserve over a peak, as core/plan/memory.cpp allocator_reserve.
function allocatorReserve(peak, fraction) {
  return fraction > 0 ? Math.ceil(peak * fraction / (1 - fraction)) : 0;
}

// MemoryModel::at(batch) from one mode's memory_events: the members of report.modes[mode].
export function memoryAtBatch(ev, batch) {
  let peak = null;
  let peakBytes = -1;
  const phasePeak = ev.phases.map(() => 0);
  for (const e of ev.events) {
    const b = e.fixed_total + e.per_sample_total * batch;
    if (b > phasePeak[e.phase]) phasePeak[e.phase] = b;
    if (b > peakBytes) { peakBytes = b; peak = e; }  // the first maximum, as the core
  }
  const components = {};
  const labels = {};
  ev.components.forEach((c, i) => {
    if (c.only_if_fixed && peak.fixed[i] === 0) return;
    components[c.id] = peak.fixed[i] + peak.per_sample[i] * batch;
    labels[c.id] = c.label;
  });
  const reserve = allocatorReserve(peakBytes, ev.allocator_reserve_fraction);
  const phases = {};
  ev.phases.forEach((name, i) => { phases[name] = phasePeak[i]; });
  return {
    mode: ev.mode, batch, seq: ev.seq, peak_bytes: peakBytes, reserved_bytes: peakBytes + reserve + ev.cuda_context_bytes,
    peak_phase: ev.phases[peak.phase], peak_event: peak.what, components, component_labels: labels,
    overheads: { allocator_reserve: reserve, cuda_context: ev.cuda_context_bytes }, phases, trainable_params: ev.trainable_params,
  };
}

// The core report at another batch: the plan section re-evaluated, the checks of that batch; every
// other section does not depend on the batch (cards and cost use batch 1 and cost_batch).
export function reportAtBatch(report, batch) {
  const ev = report.memory_events[report.plan.mode];
  const byBatch = report.checks_by_batch || {};
  return {
    ...report,
    plan: { ...report.plan, ...memoryAtBatch(ev, batch) },
    checks: (batch > 1 ? byBatch.batched : byBatch.single) || report.checks,
  };
}

// The batches a curve samples, as core/plan/curve.cpp curve_batches: about √2 apart, no repeats.
export function curveBatches(limit) {
  const out = [];
  for (let x = 1; ; x *= Math.SQRT2) {
    const b = Math.round(x);
    if (b > limit) break;
    if (!out.length || b > out[out.length - 1]) out.push(b);
  }
  return out;
}

// The curves section (memory against batch per mode) as core/plan/curve.cpp memory_curves: each
// stops at the first sampled batch past the largest card's capacity, but not before batch 8.
export function curvesFromEvents(report) {
  const largest = Math.max(0, ...report.cards.map((c) => c.capacity_bytes));
  const curves = {};
  for (const [mode, ev] of Object.entries(report.memory_events)) {
    const points = [];
    for (const b of curveBatches(ev.max_batch)) {
      let peak = -1;
      for (const e of ev.events) peak = Math.max(peak, e.fixed_total + e.per_sample_total * b);
      const reserved = peak + allocatorReserve(peak, ev.allocator_reserve_fraction) + ev.cuda_context_bytes;
      points.push({ batch: b, peak_bytes: peak, reserved_bytes: reserved });
      if (b >= 8 && reserved > largest) break;
    }
    curves[mode] = { points, seq: ev.seq };
  }
  return curves;
}

