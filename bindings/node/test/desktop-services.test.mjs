// The headless desktop's services from Node, on real programs: text set on
// the clipboard pastes into mousepad and what mousepad copies reads back;
// `notify-send -A` is listed and its action invoked (notify-send prints it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { headless, expect } from 'uidrive';

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
