#!/usr/bin/env node
// `npm install` of this folder: uses the uidrive.node already here (built by
// scripts/build.sh, `npm run build` or shipped in a packed tarball) and builds
// from source with cargo only when there is none.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const binary = path.join(here, 'uidrive.node');
if (fs.existsSync(binary)) {
  console.error(`uidrive: using the prebuilt ${binary}; no build needed (rebuild from source with \`npm run build\`)`);
  process.exit(0);
}
console.error('uidrive: no prebuilt uidrive.node here; building it from source with cargo (needs Rust)');
require('./build.js');
