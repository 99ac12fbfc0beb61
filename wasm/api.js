// wasm/api.js: the JS API of cardfit (createCardfit() -> {schema, plan}), appended to
// dist/cardfit.js with --extern-post-js. Not a planner: it only stringifies the options and parses
// the core's answer; every number, check and message comes from the core.
//
// Used alike by the page (global createCardfit), the widget and the CLI (require('dist/cardfit.js')).
var createCardfit = (function (createModule) {
  'use strict';

  function argumentError(code, message) {
    return { ok: false, error: { code: code, message: message, path: '' } };
  }

  // createCardfit() -> Promise<{schema, plan(configText, options?)}>
  return function createCardfit() {
    return createModule().then(function (module) {
      return Object.freeze({
        // The report schema this build produces, e.g. "cardfit.report/1".
        schema: module.schema(),
        // plan(configText, options) -> the report object ({ok: true, ...}) or {ok: false, error}.
        // options: {mode, batch, seq, lora_rank, ...} with the names of the CLI (snake_case).
        plan: function plan(configText, options) {
          if (typeof configText !== 'string') {
            return argumentError('api.config_not_string', 'The config must be given as text (the contents of a config.json).');
          }
          if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
            return argumentError('api.options_not_object', 'The options must be an object such as {"batch": 4}.');
          }
          return JSON.parse(module.handle(configText, JSON.stringify(options || {})));
        },
      });
    });
  };
})(createCardfitModule);

if (typeof module === 'object' && module.exports) {
  module.exports = { createCardfit: createCardfit, createCardfitModule: createCardfitModule };
}
