#!/usr/bin/env node
// Packs the npm tarball that needs no Rust: the prebuilt uidrive.node (the
// library and the `uidrive` command line in one module), the JS entry points
// and the types, and no install script, so `npm install uidrive-VERSION.tgz`
// runs nothing and needs no toolchain.
//
//   node scripts/pack.js [OUT_DIR]     (default: <target dir>/npm)
//
// Prints the tarball's path. Build uidrive.node first (scripts/build.js).
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const target = process.env.CARGO_TARGET_DIR || path.resolve(here, '..', '..', 'target');
const out = path.resolve(process.argv[2] || path.join(target, 'npm'));

const manifest = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const binary = path.join(here, 'uidrive.node');
if (!fs.existsSync(binary)) {
  console.error(`uidrive: ${binary} is not built; run \`node scripts/build.js\` first`);
  process.exit(1);
}
// The tarball's version is the module's own (the Cargo workspace's).
const version = require(binary).version();
if (version !== manifest.version) {
  console.error(`uidrive: package.json says ${manifest.version} but uidrive.node is ${version}`);
  process.exit(1);
}

// What a user installs: everything but the Rust sources and the build scripts.
const shipped = manifest.files.filter(
  (f) => !['Cargo.toml', 'build.rs', 'src/', 'scripts/build.js', 'scripts/install.js'].includes(f),
);
const staged = fs.mkdtempSync(path.join(os.tmpdir(), 'uidrive-npm-'));
try {
  for (const file of shipped) {
    const destination = path.join(staged, file);
    fs.mkdirSync(path.dirname(destination), { recursive: true });
    fs.copyFileSync(path.join(here, file), destination);
    fs.chmodSync(destination, fs.statSync(path.join(here, file)).mode);
  }
  const packed = { ...manifest, files: shipped };
  delete packed.devDependencies;
  delete packed.scripts; // no install script: nothing runs at `npm install`
  fs.writeFileSync(path.join(staged, 'package.json'), `${JSON.stringify(packed, null, 2)}\n`);

  fs.mkdirSync(out, { recursive: true });
  const pack = spawnSync('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: staged,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (pack.status !== 0) {
    console.error(`uidrive: npm pack failed (exit ${pack.status})`);
    process.exit(pack.status || 1);
  }
  const [{ filename, size, unpackedSize }] = JSON.parse(pack.stdout);
  const tarball = path.join(out, filename);
  console.error(`uidrive: packed ${tarball} (${size} bytes, ${unpackedSize} unpacked)`);
  console.log(tarball);
} finally {
  fs.rmSync(staged, { recursive: true, force: true });
}
