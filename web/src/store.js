// web/src/store.js: the page's one state object and who is told when it changes. get() returns the
// state (frozen: change it only with set); set(patch) replaces the named top-level keys; each
// subscriber names the slices it reads ('view', 'results.a': dotted paths) and runs, synchronously
// and once per set, only when one of them is no longer the same value (Object.is). A subscriber is
// one view's render, so no handler calls a render: handlers set state. Pure: no DOM here.

const read = (state, path) => path.split('.').reduce((v, k) => (v === null || v === undefined ? undefined : v[k]), state);

export function createStore(initial) {
  let state = Object.freeze({ ...initial });
  const subscribers = [];

  function set(patch) {
    const next = typeof patch === 'function' ? patch(state) : patch;
    if (!next || !Object.keys(next).some((k) => !Object.is(state[k], next[k]))) return;
    state = Object.freeze({ ...state, ...next });
    // A render that sets state (rare) notifies everyone of that at once; the loop below then skips
    // the subscribers it already told, as their slices are no longer new to them.
    for (const s of subscribers.slice()) {
      const now = s.paths.map((p) => read(state, p));
      if (now.every((v, i) => Object.is(v, s.last[i]))) continue;
      const before = s.last;
      s.last = now;
      s.fn(state, Object.fromEntries(s.paths.map((p, i) => [p, before[i]])));
    }
  }

  // subscribe(['results.a', 'units'], (state, previous) => …) → unsubscribe(). `previous` holds the
  // slices' values before this change, so a render can tell what moved.
  function subscribe(paths, fn) {
    const s = { paths: [...paths], fn, last: paths.map((p) => read(state, p)) };
    subscribers.push(s);
    return () => { const i = subscribers.indexOf(s); if (i >= 0) subscribers.splice(i, 1); };
  }

  return { get: () => state, set, subscribe };
}
