'use strict';
// The native module, as built by `npm install` or `npm run build` (scripts/build.js).
const path = require('node:path');

const binary = path.join(__dirname, 'uidrive.node');
try {
  module.exports = require(binary);
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes(binary)) {
    const missing = new Error(`uidrive: ${binary} is not built yet; run \`npm run build\` in ${__dirname}`);
    missing.code = 'failed';
    missing.suggestion = 'build the native module from source with `npm run build` (needs Rust)';
    throw missing;
  }
  throw error;
}

// `app.waitForWindow(action)`: the window an async `action` opens, found by
// its appearance (an id `windows()` did not list before) by the native
// waitForNewWindow; given a title, it waits for a window so titled as before.
const byTitle = module.exports.App.prototype.waitForWindow;
Object.defineProperty(module.exports.App.prototype, 'waitForWindow', {
  value: function waitForWindow(what, options) {
    if (typeof what !== 'function') return byTitle.call(this, what, options);
    return (async () => {
      const before = (await this.windows()).map((w) => w.id);
      await what();
      return this.waitForNewWindow(before, options);
    })();
  },
  writable: true,
  configurable: true,
});
