// wasm/api.js: the JS API of cardfit (createCardfit() -> {schema, plan, graph, tensors, curves,
// markdown}), appended to dist/cardfit.js with --extern-post-js. Not a planner: it only
// stringifies the options, remembers recent answers and parses the core's JSON; every number,
// check and message comes from the core.
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

  function failure(code, message) {
    return { ok: false, error: { code: code, message: message, path: '' } };
  }

  // createCardfit() -> Promise<{schema, plan, graph, tensors, curves, markdown}>
  return function createCardfit() {
    return createModule().then(function (module) {
      var answers = new Map(); // key -> the core's JSON text, most recent last

      // A wasm trap (a core bug) must not leave a damaged instance behind: the failing call returns
      // an error, and a fresh instance replaces the old one as soon as it is ready.
      function restart() {
        answers.clear();
        createModule().then(function (fresh) { module = fresh; }, function () {});
      }

      function call(kind, configText, options, extra) {
        if (typeof configText !== 'string') {
          return failure('api.config_not_string', 'The config must be given as text (the contents of a config.json).');
        }
        if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
          return failure('api.options_not_object', 'The options must be an object such as {"batch": 4}.');
        }
        var optionsJson = JSON.stringify(options || {});
        var key = kind + (extra ? '+' : '') + '\u0000' + optionsJson + '\u0000' + configText;
        var text = answers.get(key);
        if (text === undefined) {
          try {
            text = kind === 'tensors' ? module.tensors(configText, optionsJson, !!extra) : module[kind](configText, optionsJson);
          } catch (e) {
            restart();
            return failure('api.crashed', 'The planner crashed on this input. This is a bug in cardfit: please report the config.');
          }
          if (answers.size >= CACHED_ANSWERS) answers.delete(answers.keys().next().value);
        } else {
          answers.delete(key);
        }
        answers.set(key, text);
        return JSON.parse(text); // a fresh object each time: callers may change theirs
      }

      return Object.freeze({
        // The report schema this build produces, e.g. "cardfit.report/1".
        schema: module.schema(),
        // plan(configText, options) -> the core report ({ok: true, ...}) or {ok: false, error}.
        // options: {mode, batch, seq, lora_rank, ...} with the names of the CLI (snake_case).
        plan: function plan(configText, options) { return call('plan', configText, options); },
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
