// wasm/api.js: the JS API of cardfit (createCardfit() -> {schema, describe, plan, planText, graph,
// tensors, curves, markdown}), appended to dist/cardfit.js with --extern-post-js. Not a planner: it only
// stringifies the options, remembers recent answers and parses the core's JSON; every number,
// check and message comes from the core, and so do the error codes and their default messages
// (the registry of core/error.cpp, exported by describe()).
//
// Lifetimes: plan() returns the small core report; graph(), tensors(), curves() and markdown()
// are asked for only when a page section is opened, the CLI wants them or an export is made. The
// core keeps the traced model of its last few config texts, so a change of options does not trace
// again; here the last few answers are kept by (call, config text, options), so asking again for
// what was just asked (reopening a section) costs no wasm call.
//
// Used alike by the page (global createCardfit), the widget and the CLI (require('dist/cardfit.js')).
var createCardfit = (function (createModule) {
  'use strict';

  var CACHED_ANSWERS = 12;
  var utf8 = new TextDecoder();

  // Error codes and their default messages come from the core's registry (core/error.cpp).
  function failure(summaries, code) {
    return { ok: false, error: { code: code, message: summaries[code], path: '' } };
  }
  function deepFreeze(x) {
    if (x && typeof x === 'object') { Object.keys(x).forEach(function (k) { deepFreeze(x[k]); }); Object.freeze(x); }
    return x;
  }

  // createCardfit() -> Promise<{schema, describe, plan, planText, graph, tensors, curves, markdown}>
  return function createCardfit() {
    return createModule().then(function (module) {
      var answers = new Map(); // key -> the core's JSON text, most recent last

      // A wasm trap (a core bug) must not leave a damaged instance behind: the failing call returns
      // an error, and a fresh instance replaces the old one as soon as it is ready.
      function restart() {
        answers.clear();
        createModule().then(function (fresh) { module = fresh; }, function () {});
      }

      // {options, groups, errors}: the option schema and the error registry (docs/api.md).
      var described = deepFreeze(JSON.parse(module.describe()));
      var summaries = {};
      described.errors.forEach(function (e) { summaries[e.code] = e.summary; });

      // The core's JSON text for a call (remembered), or an API-level failure object.
      function answer(kind, configText, options, extra) {
        if (typeof configText !== 'string') return failure(summaries, 'api.config_not_string');
        if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
          return failure(summaries, 'api.options_not_object');
        }
        var optionsJson;
        try {
          optionsJson = JSON.stringify(options || {});
        } catch (e) {
          return failure(summaries, 'api.options_not_json');  // the caller's value, not a crash
        }
        var key = kind + (extra ? '+' : '') + '\u0000' + optionsJson + '\u0000' + configText;
        var text = answers.get(key);
        if (text === undefined) {
          try {
            // The core answers with its text's length; the bytes stay in wasm memory until the next
            // call (wasm/bindings.cpp), so they are decoded at once.
            var length = kind === 'tensors' ? module.tensors(configText, optionsJson, !!extra) : module[kind](configText, optionsJson);
            var at = module.answer_data();
            text = utf8.decode(module.HEAPU8.subarray(at, at + length));
          } catch (e) {
            restart();
            return failure(summaries, 'api.crashed');
          }
          if (answers.size >= CACHED_ANSWERS) answers.delete(answers.keys().next().value);
        } else {
          answers.delete(key);
        }
        answers.set(key, text);
        return text;
      }
      function call(kind, configText, options, extra) {
        var a = answer(kind, configText, options, extra);
        return typeof a === 'string' ? JSON.parse(a) : a; // a fresh object each time: callers may change theirs
      }

      return Object.freeze({
        // The report schema this build produces, e.g. "cardfit.report/2".
        schema: module.schema(),
        describe: described,
        // plan(configText, options) -> the core report ({ok: true, ...}) or {ok: false, error}.
        // options: {mode, batch, seq, lora_rank, ...} with the names of the CLI (snake_case).
        plan: function plan(configText, options) { return call('plan', configText, options); },
        // planText(configText, options) -> plan()'s answer as the core wrote it: JSON text, pure
        // ASCII, an error as {"error": ..., "ok": false}. For a tool that passes the report on
        // (the CLI's --json) and would otherwise parse it and stringify it again.
        planText: function planText(configText, options) {
          var a = answer('plan', configText, options);
          return typeof a === 'string' ? a : JSON.stringify(a);
        },
        // graph(...) -> {ok, batch, seq, images, node_count, nodes, blocks (folded by signature)}.
        graph: function graph(configText, options) { return call('graph', configText, options); },
        // tensors(..., expandExperts) -> {ok, expanded, tensor_count, tensors}: MoE experts stacked
        // per layer ("...experts.{0..63}.w1.weight") unless expandExperts.
        tensors: function tensors(configText, options, expandExperts) { return call('tensors', configText, options, !!expandExperts); },
        // curves(...) -> {ok, full, lora, qlora, serve}: memory against batch per mode.
        curves: function curves(configText, options) { return call('curves', configText, options); },
        // markdown(...) -> {ok, markdown}: the Markdown twin.
        markdown: function markdown(configText, options) { return call('markdown', configText, options); },
      });
    });
  };
})(createCardfitModule);

if (typeof module === 'object' && module.exports) {
  module.exports = { createCardfit: createCardfit, createCardfitModule: createCardfitModule };
}
