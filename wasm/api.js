// wasm/api.js: the JS API of cardfit (createCardfit() -> {schema, plan}), appended to
// dist/cardfit.js with --extern-post-js. Not a planner: it only stringifies the options and parses
// the core's answer; every number, check and message comes from the core.
//
// Used alike by the page (global createCardfit), the widget and the CLI (require('dist/cardfit.js')).
var createCardfit = (function (createModule) {
  'use strict';

  function failure(code, message, detail) {
    var error = { code: code, message: message, path: '' };
    if (detail) error.detail = detail;
    return { ok: false, error: error };
  }

  // createCardfit() -> Promise<{schema, plan(configText, options?)}>
  return function createCardfit() {
    return createModule().then(function (module) {
      // A wasm trap (a core bug) must not leave a damaged instance behind: the failing call returns
      // an error, and a fresh instance replaces the old one as soon as it is ready.
      function restart() {
        createModule().then(function (fresh) { module = fresh; }, function () {});
      }
      return Object.freeze({
        // The report schema this build produces, e.g. "cardfit.report/1".
        schema: module.schema(),
        // plan(configText, options) -> the report object ({ok: true, ...}) or {ok: false, error}.
        // options: {mode, batch, seq, lora_rank, ...} with the names of the CLI (snake_case).
        plan: function plan(configText, options) {
          if (typeof configText !== 'string') {
            return failure('api.config_not_string', 'The config must be given as text (the contents of a config.json).');
          }
          if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
            return failure('api.options_not_object', 'The options must be an object such as {"batch": 4}.');
          }
          try {
            return JSON.parse(module.handle(configText, JSON.stringify(options || {})));
          } catch (e) {
            restart();
            return failure('api.crashed', 'The planner crashed on this input. This is a bug in cardfit: please report the config.', String(e && e.message || e));
          }
        },
      });
    });
  };
})(createCardfitModule);

if (typeof module === 'object' && module.exports) {
  module.exports = { createCardfit: createCardfit, createCardfitModule: createCardfitModule };
}
