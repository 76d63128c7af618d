// Visual targets from Node: a Tk app, which shows assistive technology
// nothing, pressed by the text OCR reads on its window.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { headless, expect } from 'uidrive';

const tkApp = fileURLToPath(new URL('../../../tests/apps/tk_press.py', import.meta.url));
let desktop;

before(async () => {
  desktop = await headless();
});

after(async () => {
  await desktop?.close();
});

test('a Tk app: getByOcr clicks its button, the label it changes shows, waitChanged sees a late change', async () => {
  const tk = await desktop.launch(['/usr/bin/python3', tkApp], { timeout: 60_000 });
  try {
    const clicked = await tk.getByOcr('Press me', { exact: true }).click();
    assert.equal(clicked.effect, 'confirmed', JSON.stringify(clicked));
    await expect(tk.getByOcr('Pressed 1', { exact: true })).toBeVisible();
    const box = await tk.getByOcr('Pressed 1', { exact: true }).bounds();
    assert.ok(box && box.width > 0, JSON.stringify(box));

    await tk.getByOcr('Change later').click();
    const region = await tk.waitChanged({ timeout: 20_000 });
    assert.ok(region.width > 0 && region.height > 0, JSON.stringify(region));
    await expect(tk.getByOcr('Done later', { exact: true })).toBeVisible();
    // A template that cannot be read is an invalid request, not a miss.
    await assert.rejects(tk.getByImage('/nonexistent/button.png').count(), (e) => e.code === 'invalid_request');
  } finally {
    await tk.close();
  }
});
