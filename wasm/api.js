// wasm/api.js: the JS API of cardfit (createCardfit() -> {schema, describe, plan}), appended to
// dist/cardfit.js with --extern-post-js. Not a planner: it only stringifies the options and parses
// the core's answer; every number, check and message comes from the core.
//
// Used alike by the page (global createCardfit), the widget and the CLI (require('dist/cardfit.js')).
var createCardfit = (function (createModule) {
  'use strict';

  // Error codes and their default messages come from the core's registry (core/error.cpp).
  function failure(summaries, code, detail) {
    var error = { code: code, message: summaries[code], path: '' };
    if (detail) error.detail = detail;
    return { ok: false, error: error };
  }
  function deepFreeze(x) {
    if (x && typeof x === 'object') { Object.keys(x).forEach(function (k) { deepFreeze(x[k]); }); Object.freeze(x); }
    return x;
  }

  // createCardfit() -> Promise<{schema, describe, plan(configText, options?)}>
  return function createCardfit() {
    return createModule().then(function (module) {
      // A wasm trap (a core bug) must not leave a damaged instance behind: the failing call returns
      // an error, and a fresh instance replaces the old one as soon as it is ready.
      function restart() {
        createModule().then(function (fresh) { module = fresh; }, function () {});
      }
      // {options, groups, errors}: the option schema and the error registry (docs/api.md).
      var described = deepFreeze(JSON.parse(module.describe()));
      var summaries = {};
      described.errors.forEach(function (e) { summaries[e.code] = e.summary; });
      return Object.freeze({
        // The report schema this build produces, e.g. "cardfit.report/1".
        schema: module.schema(),
        describe: described,
        // plan(configText, options) -> the report object ({ok: true, ...}) or {ok: false, error}.
        // options: {mode, batch, seq, lora_rank, ...} with the names of the CLI (snake_case).
        plan: function plan(configText, options) {
          if (typeof configText !== 'string') {
            return failure(summaries, 'api.config_not_string');
          }
          if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
            return failure(summaries, 'api.options_not_object');
          }
          var optionsJson;
          try {
            optionsJson = JSON.stringify(options || {});
          } catch (e) {
            return failure(summaries, 'api.options_not_json');  // the caller's value, not a crash
          }
          try {
            return JSON.parse(module.handle(configText, optionsJson));
          } catch (e) {
            restart();
            return failure(summaries, 'api.crashed', String(e && e.message || e));
          }
        },
      });
    });
  };
})(createCardfitModule);

if (typeof module === 'object' && module.exports) {
  module.exports = { createCardfit: createCardfit, createCardfitModule: createCardfitModule };
}
