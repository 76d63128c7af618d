// The npm tarball needs no Rust: packed from the built uidrive.node
// (scripts/pack.js, as scripts/build.sh does), installed into an empty project
// with no cargo on PATH, it gives `require('uidrive')`, `import 'uidrive'` and
// a `uidrive` bin, and drives gnome-calculator on a private headless desktop.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(here, '..');
let work;
let project;
// No cargo, rustc or rustup: only the directories node and npm live in.
const PATH = [...new Set([path.dirname(process.execPath), '/usr/bin', '/bin'])].join(':');

function run(argv, options = {}) {
  const started = process.hrtime.bigint();
  const out = spawnSync(argv[0], argv.slice(1), {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    env: { ...process.env, PATH, CARGO: '/nonexistent/cargo', ...(options.env || {}) },
  });
  out.seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return out;
}

before(() => {
  work = mkdtempSync(path.join(tmpdir(), 'uidrive-tarball-'));
  project = path.join(work, 'project');
  // The tools are really gone from that PATH.
  for (const tool of ['cargo', 'rustc']) {
    assert.notEqual(run(['sh', '-c', `command -v ${tool}`]).status, 0, `${tool} is not on PATH`);
  }
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball installs with no cargo and drives gnome-calculator', async () => {
  const packed = spawnSync(process.execPath, [path.join(pkg, 'scripts', 'pack.js'), path.join(work, 'npm')], {
    encoding: 'utf8',
  });
  assert.equal(packed.status, 0, packed.stderr);
  const tarball = packed.stdout.trim();
  const version = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')).version;
  assert.equal(path.basename(tarball), `uidrive-${version}.tgz`);

  run(['mkdir', '-p', project]);
  writeFileSync(path.join(project, 'package.json'), '{ "name": "empty", "version": "1.0.0", "private": true }\n');
  const installed = run(['npm', 'install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
  assert.equal(installed.status, 0, installed.stdout + installed.stderr);
  console.log(`npm install of the tarball: ${installed.seconds.toFixed(1)} s`);
  assert.ok(existsSync(path.join(project, 'node_modules', 'uidrive', 'uidrive.node')));
  assert.ok(!existsSync(path.join(project, 'node_modules', 'uidrive', 'Cargo.toml')), 'no Rust sources shipped');

  // The bin is the command line in the native module.
  const bin = path.join(project, 'node_modules', '.bin', 'uidrive');
  const versionOut = run([bin, '--version'], { cwd: project });
  assert.equal(versionOut.status, 0, versionOut.stderr);
  assert.equal(versionOut.stdout.trim(), `uidrive ${version}`);
  const npx = run(['npx', '--no-install', 'uidrive', 'trace', '--help'], { cwd: project });
  assert.equal(npx.status, 0, npx.stderr);
  assert.match(npx.stdout, /show/);

  // require() and import, then 7 × 6 = 42 on gnome-calculator.
  writeFileSync(
    path.join(project, 'calc.cjs'),
    `const required = require('uidrive');
import('uidrive').then(async ({ headless, expect, default: imported }) => {
  if (imported !== required) throw new Error('import and require differ');
  const desktop = await headless();
  try {
    const app = await desktop.launch(['gnome-calculator'], { timeout: 60000 });
    try {
      for (const k of ['7', '×', '6', '=']) {
        await app.getByRole('button', { name: k, exact: true }).click();
      }
      const display = app.getByRole('textField').first();
      await expect(display).toHaveValue('42', { exact: true });
      console.log('display: ' + (await display.value()));
    } finally {
      await app.close();
    }
  } finally {
    await desktop.close();
  }
});
`,
  );
  const calc = run([process.execPath, 'calc.cjs'], { cwd: project });
  assert.equal(calc.status, 0, calc.stdout + calc.stderr);
  assert.match(calc.stdout, /^display: 42$/m);
});
