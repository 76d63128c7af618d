// The keyboard on a real app: gtk3-widget-factory's entry, typed into key by
// key through a locator, then chords and text into whatever has the focus
// through app.keyboard, read back with expect after each step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { headless, expect } from 'uidrive';

let desktop;
let app;

before(async () => {
  desktop = await headless();
  app = await desktop.launch(['gtk3-widget-factory'], { timeout: 60_000 });
});

after(async () => {
  await app?.close();
  await desktop?.close();
});

/** The error code `promise` rejects with (failing the test if it resolves). */
async function codeOf(promise) {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  assert.ok(error instanceof Error, 'the call rejected with an Error');
  return error.code;
}

test('keys typed one by one and chords reach the focused entry', async () => {
  const entry = app.locator('role=textField[disabled=false] >> nth=2');
  await expect(entry).toHaveValue('entry', { exact: true });

  // Select what the entry holds, then type over it key by key.
  await entry.press('CmdOrCtrl+A');
  const outcome = await entry.pressSequentially('größer ✓', { delay: 5 });
  assert.equal(outcome.route, 'input');
  await expect(entry).toHaveValue('größer ✓', { exact: true });

  // The app's keyboard types into the element that has the focus: the entry.
  await app.keyboard.press('End');
  const typed = await app.keyboard.type('!');
  // Checked against the focused entry: it reads the text.
  assert.equal(typed.effect, 'confirmed', JSON.stringify(typed));
  assert.equal(typed.element.value, 'größer ✓!');
  await app.keyboard.type('ab', { delay: 5 });
  await expect(entry).toHaveValue('größer ✓!ab', { exact: true });
  await app.keyboard.press('Backspace');
  await expect(entry).toHaveValue('größer ✓!a', { exact: true });

  // Refused at once, and nothing typed: a chord that is no key, a delay past the limit.
  assert.equal(await codeOf(app.keyboard.press('Ctrl+')), 'invalid_request');
  assert.equal(await codeOf(app.keyboard.type('x', { delay: 60_000 })), 'invalid_request');
  assert.equal(await entry.value(), 'größer ✓!a');
});
