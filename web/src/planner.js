// web/src/planner.js: runs cardfit's calls (plan, and graph/tensors/markdown on request) off the main thread. The wasm module's script text is
// inlined in the page as <script type="text/plain" id="cardfit-module">; a Blob-URL worker made
// from that text works from file:// and needs no network. Where workers are unavailable the same
// text runs on the main thread. Not a planner itself: it queues requests and returns the core's
// reports. One request runs at a time; a newer request with the same key replaces a queued one
// (typing fast plans only the last text).

const WORKER_GLUE = `
;(function () {
  var ready = createCardfit();
  self.onmessage = function (e) {
    var job = e.data;
    ready.then(function (api) {
      var t0 = performance.now();
      var report = api[job.kind](job.text, job.options, job.extra);
      self.postMessage({ id: job.id, report: report, ms: performance.now() - t0 });
    }, function (err) {
      self.postMessage({ id: job.id, report: { ok: false, error: { code: 'api.load_failed', message: 'The planner failed to load: ' + (err && err.message), path: '' } }, ms: 0 });
    });
  };
})();`;

export function makePlanner(moduleText) {
  let worker = null;
  let direct = null; // Promise<api> when running on the main thread
  const queue = [];
  const background = [];  // low-priority runs (warm-up, compare what-ifs): only when nothing else waits
  let running = null;
  let nextId = 1;

  try {
    const url = URL.createObjectURL(new Blob([moduleText, WORKER_GLUE], { type: 'text/javascript' }));
    worker = new Worker(url);
    worker.onmessage = (e) => finish(e.data);
    worker.onerror = (e) => { e.preventDefault(); fallBack(); };
  } catch (e) {
    fallBack();
  }

  function fallBack() {
    if (direct) return;
    if (worker) { worker.terminate(); worker = null; }
    direct = new Promise((resolve, reject) => {
      // The module's own script defines createCardfit as a global of the page (classic script).
      if (typeof globalThis.createCardfit !== 'function') {
        const s = document.createElement('script');
        s.textContent = moduleText;
        document.head.append(s);
      }
      globalThis.createCardfit().then(resolve, reject);
    });
    if (running) { const job = running; running = null; queue.unshift(job); }
    pump();
  }

  function finish(msg) {
    const job = running;
    running = null;
    if (job && job.id === msg.id) job.resolve({ report: msg.report, ms: msg.ms });
    pump();
  }

  function pump() {
    if (running) return;
    if (!queue.length && background.length) queue.push(background.shift());
    if (!queue.length) return;
    const job = queue.shift();
    running = job;
    if (worker) {
      worker.postMessage({ id: job.id, kind: job.kind, text: job.text, options: job.options, extra: job.extra });
    } else if (direct) {
      direct.then((api) => {
        const t0 = performance.now();
        const report = api[job.kind](job.text, job.options, job.extra);
        finish({ id: job.id, report, ms: performance.now() - t0 });
      }, (err) => finish({ id: job.id, report: { ok: false, error: { code: 'api.load_failed', message: `The planner failed to load: ${err && err.message}`, path: '' } }, ms: 0 }));
    }
  }

  return {
    // plan(text, options, key, low) → Promise<{report, ms} | null>; null when a newer request with
    // the same key replaced this one before it ran. Low-priority requests (the compare view's
    // what-if runs) wait until no interactive request does.
    plan(text, options, key, low) { return this.call('plan', text, options, key, low); },
    // call(kind, ...) → the same for the on-request sections: 'graph', 'tensors' (extra: expand
    // the experts), 'curves', 'markdown'. Asked only when a section is opened or an export made.
    call(kind, text, options, key, low, extra) {
      return new Promise((resolve) => {
        const job = { id: nextId++, kind, text, options: options || {}, key, resolve, extra };
        if (key) {
          for (const q of [queue, background]) {
            const i = q.findIndex((j) => j.key === key);
            if (i >= 0) { q[i].resolve(null); q.splice(i, 1); }
          }
        }
        (low ? background : queue).push(job);
        pump();
      });
    },
    // Plans in the background while nothing else waits, results dropped. V8 compiles wasm with a
    // fast baseline compiler first and tiers hot functions up to optimised code as they run; a few
    // idle runs after the first plan make the next live re-plans several times faster.
    warmUp(text, options, times) {
      // Distinct batches: the API answers a repeated call from its cache without running the core.
      for (let i = 0; i < times; i++) background.push({ id: nextId++, kind: 'plan', text, options: { ...options, batch: 2 + i }, key: 'warm', resolve: () => {} });
      pump();
    },
    // Drops queued (not yet running) requests whose key starts with prefix.
    cancel(prefix) {
      for (const q of [queue, background]) {
        for (let i = q.length - 1; i >= 0; i--) {
          if (String(q[i].key || '').startsWith(prefix)) { q[i].resolve(null); q.splice(i, 1); }
        }
      }
    },
    get inWorker() { return !!worker; },
  };
}
