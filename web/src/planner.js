// web/src/planner.js: runs cardfit.plan off the main thread. The wasm module's script text is
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
      var report = api.plan(job.text, job.options);
      self.postMessage({ id: job.id, report: report, ms: performance.now() - t0 });
    }, function (err) {
      self.postMessage({ id: job.id, report: { ok: false, error: { code: 'api.load_failed', message: 'The planner failed to load: ' + (err && err.message), path: '' } }, ms: 0 });
    });
  };
})();`;

function makePlanner(moduleText) {
  let worker = null;
  let direct = null; // Promise<api> when running on the main thread
  const queue = [];
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
      if (typeof createCardfit !== 'function') {
        const s = document.createElement('script');
        s.textContent = moduleText;
        document.head.append(s);
      }
      createCardfit().then(resolve, reject);
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
    if (running || !queue.length) return;
    const job = queue.shift();
    running = job;
    if (worker) {
      worker.postMessage({ id: job.id, text: job.text, options: job.options });
    } else if (direct) {
      direct.then((api) => {
        const t0 = performance.now();
        const report = api.plan(job.text, job.options);
        finish({ id: job.id, report, ms: performance.now() - t0 });
      }, (err) => finish({ id: job.id, report: { ok: false, error: { code: 'api.load_failed', message: `The planner failed to load: ${err && err.message}`, path: '' } }, ms: 0 }));
    }
  }

  return {
    // plan(text, options, key) → Promise<{report, ms} | null>; null when a newer request with the
    // same key replaced this one before it ran.
    plan(text, options, key) {
      return new Promise((resolve) => {
        const job = { id: nextId++, text, options: options || {}, key, resolve };
        if (key) {
          const i = queue.findIndex((j) => j.key === key);
          if (i >= 0) { queue[i].resolve(null); queue.splice(i, 1); }
        }
        queue.push(job);
        pump();
      });
    },
    // Drops queued (not yet running) requests whose key starts with prefix.
    cancel(prefix) {
      for (let i = queue.length - 1; i >= 0; i--) {
        if (String(queue[i].key || '').startsWith(prefix)) { queue[i].resolve(null); queue.splice(i, 1); }
      }
    },
    get inWorker() { return !!worker; },
  };
}
