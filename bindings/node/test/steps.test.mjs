// Scrolling, expanding, stepping, selecting text and held keys on real GTK
// apps: gtk4-demo's demo list and tree rows, gtk3-widget-factory's spin
// button and entry. Each action's effect is read back from the app's tree.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { headless, expect } from 'uidrive';

let desktop;

before(async () => {
  desktop = await headless();
});

after(async () => {
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

/** The labels of the list rows on screen now. */
async function shownRows(app) {
  const tree = await app.tree();
  return new Set(
    tree.nodes
      .filter((n) => n.role === 'listItem' && n.label && !(n.states ?? []).includes('offscreen'))
      .map((n) => n.label),
  );
}

test('gtk4-demo: scroll shows later demos, collapse and expand fold a tree row', async () => {
  const demo = await desktop.launch(['gtk4-demo'], { timeout: 60_000 });
  try {
    const demos = demo.getByRole('list', { name: 'Demo list' });
    const before = await shownRows(demo);
    assert.ok(before.has('GTK Demo') && !before.has('Entry'), [...before].join(', '));

    const scrolled = await demos.scroll('down', { notches: 10 });
    assert.equal(scrolled.route, 'input');
    assert.equal(scrolled.effect, 'confirmed', JSON.stringify(scrolled));
    const after = await shownRows(demo);
    assert.ok(after.has('Entry'), [...after].join(', '));

    // A tree row with no action for it: focused by a click, then Shift+Left/Right.
    const benchmark = demos.getByRole('group', { name: 'Benchmark' });
    const fishbowl = demos.getByRole('listItem', { name: 'Fishbowl' });
    await demos.scroll('up', { notches: 10 });
    assert.ok((await benchmark.states()).includes('expanded'));
    const collapsed = await benchmark.collapse();
    assert.equal(collapsed.effect, 'confirmed', JSON.stringify(collapsed));
    assert.ok(!(await benchmark.states()).includes('expanded'));
    assert.equal(await benchmark.isExpanded(), false);
    await expect(fishbowl).toHaveCount(0);
    assert.equal((await benchmark.collapse()).route, 'not_needed');
    const expanded = await benchmark.expand({ timeout: 10_000 });
    assert.equal(expanded.effect, 'confirmed', JSON.stringify(expanded));
    assert.ok((await benchmark.states()).includes('expanded'));
    assert.equal(await benchmark.isExpanded(), true);
    await expect(fishbowl).toBeVisible();

    // The window by its title, waited for; one that never shows times out.
    // (gtk4-demo titles its window after the demo chosen: Benchmark, by now.)
    const title = (await demo.windows())[0].title;
    assert.equal((await demo.waitForWindow(title)).title, title);
    assert.equal(await codeOf(demo.waitForWindow('No such dialog', { timeout: 300 })), 'timeout');

    // Refused before anything is looked for.
    assert.equal(await codeOf(demos.scroll('sideways')), 'invalid_request');
    for (const notches of [0, -1, 1.5]) {
      assert.equal(await codeOf(demos.scroll('down', { notches })), 'invalid_request');
    }
  } finally {
    await demo.close();
  }
});

test('gtk3-widget-factory: the spin button steps, the entry selects text and takes a held Shift', async () => {
  const factory = await desktop.launch(['gtk3-widget-factory'], { timeout: 60_000 });
  try {
    const spin = factory.getByRole('stepper', { disabled: false }).first();
    assert.equal((await spin.node()).now, 50);
    const up = await spin.increment({ steps: 3 });
    assert.equal(up.route, 'semantic:increment');
    assert.equal(up.effect, 'confirmed', JSON.stringify(up));
    await expect(spin).toHaveValue('53');
    const down = await spin.decrement();
    assert.equal(down.route, 'semantic:decrement');
    await expect(spin).toHaveValue('52');
    await spin.setValue(1);
    const atMin = await spin.decrement();
    assert.equal(atMin.route, 'not_needed');
    assert.match(atMin.observed, /already/);
    for (const steps of [0, -2, 1001]) {
      assert.equal(await codeOf(spin.increment({ steps })), 'invalid_request');
    }

    const entry = factory.locator('role=textField[disabled=false] >> nth=2');
    await expect(entry).toHaveValue('entry');
    const selected = await entry.selectText(0, 3);
    assert.equal(selected.route, 'semantic:selectText');
    assert.deepEqual((await entry.node()).selection, [0, 3]);
    assert.equal(await codeOf(entry.selectText(3, 0)), 'invalid_request');

    // Shift held over two presses of Left selects the two characters before the caret.
    await entry.fill('hello');
    await entry.press('End');
    const held = await factory.keyboard.down('Shift');
    assert.equal(held.effect, 'unverifiable');
    await factory.keyboard.press('Left');
    await factory.keyboard.press('Left');
    await factory.keyboard.up('Shift');
    assert.deepEqual((await entry.node()).selection, [3, 5]);
    await factory.keyboard.press('Left');
    assert.deepEqual((await entry.node()).selection, [3, 3]);
    assert.equal(await codeOf(factory.keyboard.down('Hyper')), 'invalid_request');
  } finally {
    await factory.close();
  }
});
