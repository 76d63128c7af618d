#!/usr/bin/env node
// Builds the native module from source with cargo and puts it next to index.js
// as uidrive.node. `--debug` builds without optimisations (faster to compile).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
// Built inside the repository, cargo uses the workspace's target dir, so
// `npm install /path/to/uidrive/bindings/node` from another project reuses
// what scripts/build.sh or scripts/test.sh compiled. A copy of this folder
// (npm install --install-links, a packed tarball) has no workspace around it:
// it keeps the uidrive.node it was copied with.
const workspace = path.resolve(here, '..', '..', 'Cargo.toml');
if (!fs.existsSync(workspace)) {
  if (fs.existsSync(path.join(here, 'uidrive.node'))) {
    console.error('uidrive: no cargo workspace around this copy; keeping the uidrive.node it came with');
    process.exit(0);
  }
  console.error(`uidrive: cannot build: ${workspace} is missing (install from the repository's bindings/node folder)`);
  process.exit(1);
}
const debug = process.argv.includes('--debug') || process.env.UIDRIVE_NODE_PROFILE === 'debug';
const cargo = process.env.CARGO || 'cargo';
const args = ['build', '-p', 'uidrive-node', '--lib', '--message-format=json-render-diagnostics'];
if (!debug) args.push('--release');

const build = spawnSync(cargo, args, {
  cwd: here,
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
});
if (build.error) {
  console.error(`uidrive: could not run ${cargo}: ${build.error.message}`);
  console.error('uidrive: install Rust (https://rustup.rs) and try again');
  process.exit(1);
}
if (build.status !== 0) {
  console.error(`uidrive: cargo build failed (exit ${build.status})`);
  process.exit(build.status || 1);
}

// cargo names the library it built in its JSON messages; that works for any target dir.
let library = null;
for (const line of build.stdout.split('\n')) {
  if (!line.startsWith('{')) continue;
  const message = JSON.parse(line);
  if (message.reason === 'compiler-artifact' && message.target && message.target.name === 'uidrive_node') {
    library = message.filenames.find((f) => /\.(so|dylib|dll)$/.test(f)) || library;
  }
}
if (!library) {
  console.error('uidrive: cargo did not report the uidrive_node library');
  process.exit(1);
}
const destination = path.join(here, 'uidrive.node');
// Copy to a temporary name first so a running process never sees half a file.
const partial = `${destination}.${process.pid}.tmp`;
fs.copyFileSync(library, partial);
fs.renameSync(partial, destination);
console.error(`uidrive: built ${path.relative(process.cwd(), destination) || destination} (${debug ? 'debug' : 'release'})`);
