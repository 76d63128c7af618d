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
