// The headless desktop's services from Node, on real programs: text set on
// the clipboard pastes into mousepad and what mousepad copies reads back;
// `notify-send -A` is listed and its action invoked (notify-send prints it);
// a tray item (tests/apps/tray_item.py) is listed, activated and its menu clicked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headless, expect } from 'uidrive';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../../..');
let desktop;

before(async () => {
  desktop = await headless();
});

after(async () => {
  await desktop?.close();
});

/** Reads until `read()` resolves to `wanted`, up to 15 s; the last answer. */
async function until(read, wanted) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const got = await read();
    if (got === wanted || Date.now() > deadline) return got;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('the clipboard pastes into mousepad and reads what it copied', async () => {
  const pad = await desktop.launch(['mousepad']);
  try {
    const editor = pad.getByRole('textField').first();
    const text = 'Pasted from Node ✓';
    await desktop.clipboard.set(text);
    assert.equal(await desktop.clipboard.get(), text);
    await pad.keyboard.press('Ctrl+v');
    await expect(editor).toHaveValue(text);

    await desktop.clipboard.clear();
    assert.equal(await desktop.clipboard.get(), null);
    await pad.keyboard.type(' and typed');
    const whole = `${text} and typed`;
    await expect(editor).toHaveValue(whole);
    await pad.keyboard.press('Ctrl+a');
    await pad.keyboard.press('Ctrl+c');
    assert.equal(await until(() => desktop.clipboard.get(), whole), whole);
    assert.equal(await until(() => desktop.clipboard.get({ primary: true }), whole), whole);
  } finally {
    await pad.close();
  }
});

test('notify-send is listed, its action invoked, and gone after', async () => {
  const env = { ...process.env, ...desktop.env };
  delete env.WAYLAND_DISPLAY;
  const sender = spawn('notify-send', ['-A', 'open=Open', 'Build finished', 'All green'], { env });
  let printed = '';
  sender.stdout.on('data', (chunk) => {
    printed += chunk;
  });
  const ended = new Promise((resolve) => sender.on('close', resolve));
  const note = await desktop.waitForNotification({ summary: 'Build finished', timeout: 20000 });
  assert.equal(note.body, 'All green');
  assert.deepEqual(note.actions, [{ id: 'open', label: 'Open' }]);
  assert.ok((await desktop.notifications()).some((n) => n.id === note.id));
  await note.invoke('open');
  assert.equal(await ended, 0);
  assert.equal(printed.trim(), 'open');
  assert.ok(!(await desktop.notifications()).some((n) => n.id === note.id));
});

test('a tray item is listed, activated and its menu clicked', async () => {
  // The same small StatusNotifierItem the Python test uses; it logs what is done to it.
  const dir = mkdtempSync(join(tmpdir(), 'uidrive-tray-'));
  const log = join(dir, 'tray.log');
  const env = { ...process.env, ...desktop.env };
  delete env.WAYLAND_DISPLAY;
  const app = spawn('/usr/bin/python3', [join(REPO, 'tests/apps/tray_item.py'), log], {
    env,
    stdio: 'inherit',
  });
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n') : []);
  const seen = async (line) => (await until(() => lines().includes(line), true)) === true;
  try {
    assert.ok(await seen('registered'), 'the item registered with the watcher');
    const items = (await desktop.tray()).filter((i) => i.id === 'uidrive-test-tray');
    assert.equal(items.length, 1);
    const [item] = items;
    assert.deepEqual([item.title, item.tooltip, item.status], [
      'uidrive test tray',
      'Test tray\nAll is well',
      'Active',
    ]);
    await item.activate();
    assert.ok(await seen('activate 0 0'), 'the item was activated');
    const menu = await item.menu();
    assert.deepEqual(
      menu.map((e) => e.label),
      ['Open Window', '', 'Quit', 'Disabled'],
    );
    assert.deepEqual(
      menu.map((e) => e.enabled),
      [true, true, true, false],
    );
    await menu.find((e) => e.label === 'Open Window').click();
    assert.ok(await seen('clicked 1 _Open Window'), 'the menu entry was clicked');
  } finally {
    app.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
