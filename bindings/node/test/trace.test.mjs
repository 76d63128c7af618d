// Traces from Node: app.tracing on the demo socket app, and the node:test
// helper (`uidrive/testing`) on a failing gnome-calculator test, whose trace
// headless Chromium renders with every step, its pictures and the failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inflateSync } from 'node:zlib';
import { connect, Tracing } from 'uidrive';
import { traced, traceDirName } from 'uidrive/testing';
import { startDemoServer, tempDir, uidriveBin } from './helpers.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const moduleUrl = (file) => pathToFileURL(resolve(here, '..', file)).href;

test('tracing.start and tracing.stop record the demo app', async () => {
  const server = await startDemoServer();
  const { dir, remove } = tempDir();
  const app = await connect(server.socket);
  try {
    assert.ok(app.tracing instanceof Tracing);
    assert.equal(app.tracing.isRecording, false);
    assert.equal(await app.tracing.stop(), null);
    await app.tracing.start({ screenshots: true, snapshots: true, title: 'demo' });
    await assert.rejects(app.tracing.start(), (e) => e.code === 'invalid_request' && e.suggestion.length > 0);
    await app.getByKey('add').click();
    const written = await app.tracing.stop({ path: join(dir, 'out', 'trace.zip') });
    assert.equal(written.steps, 1);
    assert.ok(written.pictures >= 1);
    assert.equal(statSync(written.path).size, written.bytes);
    assert.equal(app.tracing.isRecording, false);
  } finally {
    await app.close();
    await server.stop();
    remove();
  }
});

test('traceDirName makes a directory name of a test id', () => {
  assert.equal(traceDirName('calc > computes 7 × 6'), 'calc-computes-7-6');
  assert.equal(traceDirName('///'), 'test');
  assert.equal(typeof traced(async () => {}), 'function');
});

const innerTests = (index, testing) => `
import { test, before, after } from 'node:test';
import { headless, expect } from ${JSON.stringify(index)};
import { traced } from ${JSON.stringify(testing)};

let desktop;
before(async () => { desktop = await headless(); });
after(async () => { await desktop?.close(); });

async function sevenTimesSix(app) {
  for (const k of ['7', '×', '6', '=']) {
    await app.getByRole('button', { name: k, exact: true }).click();
  }
  return app.getByRole('textField').first();
}

test('passes', traced(async (t, trace) => {
  const app = await trace(await desktop.launch(['gnome-calculator'], { timeout: 30000 }));
  await expect(await sevenTimesSix(app)).toHaveValue('42', { exact: true });
}));

// Its output captured: a line on stderr before it becomes gnome-calculator (the same pid),
// quoted so the marker shows only as the app prints it.
test('fails', traced(async (t, trace) => {
  const argv = ['sh', '-c', "echo uidrive-node-'marker' >&2; exec gnome-calculator"];
  const app = await trace(await desktop.launch(argv, { timeout: 30000, captureOutput: true }));
  await expect(await sevenTimesSix(app)).toHaveValue('43', { exact: true, timeout: 1000 });
}));
`;

function chromium() {
  for (const name of ['chromium', 'chromium-browser']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0) return found.stdout.trim();
  }
  return null;
}

function runChromium(browser, url, profile, ...extra) {
  return execFileSync(
    browser,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${profile}`,
      ...extra,
      url,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 120_000 },
  );
}

/** The distinct byte values of a PNG's (filtered) pixel data: a blank page has very few. */
function pngVariety(file) {
  const data = readFileSync(file);
  let at = 8;
  const idat = [];
  while (at < data.length) {
    const length = data.readUInt32BE(at);
    const kind = data.toString('latin1', at + 4, at + 8);
    if (kind === 'IDAT') idat.push(data.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return new Set(inflateSync(Buffer.concat(idat))).size;
}

test('a failing node:test test leaves a trace Chromium shows; a passing one leaves none', async (t) => {
  const browser = chromium();
  if (!browser) {
    t.skip('Chromium is not installed (Debian: apt-get install chromium)');
    return;
  }
  const { dir, remove } = tempDir();
  try {
    const inner = join(dir, 'calc.test.mjs');
    writeFileSync(inner, innerTests(moduleUrl('index.mjs'), moduleUrl('testing.mjs')));
    const output = join(dir, 'test-results');
    // A test runner of its own, not a subtest of this one.
    const env = { ...process.env, UIDRIVE_TRACING: 'retain-on-failure', UIDRIVE_OUTPUT: output };
    delete env.NODE_TEST_CONTEXT;
    const run = spawnSync(process.execPath, ['--test', inner], {
      cwd: dir,
      encoding: 'utf8',
      env,
      timeout: 300_000,
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /# pass 1/);
    assert.match(run.stdout, /# fail 1/);
    assert.deepEqual(readdirSync(output), ['fails']);
    const trace = join(output, 'fails', 'trace.zip');
    assert.ok(existsSync(trace));
    const pictures = new Set(readFileSync(trace).toString('latin1').match(/resources\/frame-\d+\.png/g));
    assert.ok(pictures.size >= 2, [...pictures].join());

    const text = execFileSync(uidriveBin(), ['trace', 'show', trace], { encoding: 'utf8' });
    const steps = [...text.matchAll(/^\s+\d+\. \+\d+ ms (\w+) /gm)].map((m) => m[1]);
    assert.deepEqual(steps, ['click', 'click', 'click', 'click', 'expect'], text);
    assert.match(text, /error assertion_failed/);
    // The app's captured stderr went into the trace.
    assert.match(text, /^# stderr of sh \(pid \d+\)\n {2}\| uidrive-node-marker$/m, text);

    const page = join(dir, 'trace.html');
    execFileSync(uidriveBin(), ['trace', 'show', trace, '--html', page], { encoding: 'utf8' });
    const dom = runChromium(browser, pathToFileURL(page).href, join(dir, 'profile-dom'), '--dump-dom');
    const sections = [...dom.matchAll(/<section class="step (\w+)" id="step-(\d+)"/g)].map((m) => [m[1], +m[2]]);
    assert.deepEqual(sections, [['ok', 1], ['ok', 2], ['ok', 3], ['ok', 4], ['failed', 5]]);
    const shown = new Set([...dom.matchAll(/data-picture="([^"]+)"/g)].map((m) => m[1]));
    assert.deepEqual([...shown].sort(), [...pictures].sort());
    const failed = dom.slice(dom.indexOf('id="step-5"'));
    assert.match(failed, /assertion_failed/);
    assert.match(failed, /class="suggestion"/);
    // ... and shows in the failure's box at the top of the page.
    const top = dom.slice(dom.indexOf('<section class="failure"'), dom.indexOf('<nav'));
    assert.match(top, /<details class="output" data-stream="stderr" open[^>]*><summary>stderr of sh \(pid \d+\)<\/summary><pre>uidrive-node-marker\n/);

    const shot = join(dir, 'page.png');
    runChromium(browser, pathToFileURL(page).href, join(dir, 'profile-shot'), '--window-size=1280,1600', `--screenshot=${shot}`);
    assert.ok(pngVariety(shot) > 50, 'the page screenshot is blank');
  } finally {
    remove();
  }
});
