// Window management on uidrive's headless desktop (its window manager,
// openbox, does what it is asked): gtk3-widget-factory resized, moved,
// maximized, minimized and restored, each confirmed by `windows()`; the apps
// on the desktop; the whole screen; the window an action opens, found by
// its appearance.
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

test('gtk3-widget-factory: resize, move, maximize, minimize, restore', async () => {
  const app = await desktop.launch(['gtk3-widget-factory'], { timeout: 60_000 });
  try {
    const window = app.window();
    const resized = await window.resize(1500, 900);
    assert.equal(resized.effect, 'confirmed');
    await window.move(50, 40);
    assert.deepEqual(await window.bounds(), { x: 50, y: 40, width: 1500, height: 900 });

    await window.maximize();
    const [listed] = await app.windows();
    assert.ok(listed.states.includes('maximized'), JSON.stringify(listed));
    await window.minimize();
    assert.ok((await window.states()).includes('minimized'));
    const restored = await window.restore();
    assert.ok(!restored.states.includes('minimized') && !restored.states.includes('maximized'));
    assert.deepEqual(await window.bounds(), { x: 50, y: 40, width: 1500, height: 900 });

    const apps = await app.apps();
    const factory = apps.find((a) => a.name === 'gtk3-widget-factory');
    assert.ok(factory, JSON.stringify(apps));
    assert.equal(factory.pid, app.pid);

    const png = await app.captureScreen();
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1920, 1200]);

    const check = app.getByRole('checkBox', { name: 'checkbutton' }).first();
    const box = await check.bounds();
    const shot = await check.screenshot();
    assert.ok(Math.abs(shot.readUInt32BE(16) - box.width) <= 1, `${shot.readUInt32BE(16)} vs ${box.width}`);
    assert.ok(Math.abs(shot.readUInt32BE(20) - box.height) <= 1);
  } finally {
    await app.close();
  }
});

test('gtk4-demo: waitForWindow(action) is the window Run opens', async () => {
  const demo = await desktop.launch(['gtk4-demo'], { timeout: 60_000 });
  try {
    await demo.getByText('Builder', { exact: true }).click();
    const run = demo.getByRole('button', { name: 'Run', exact: true });
    await expect(run).toBeEnabled();
    const before = (await demo.windows()).map((w) => w.id);
    const opened = await demo.waitForWindow(() => run.click());
    assert.ok(!before.includes(opened.id), `${opened.id} is new`);
    const closed = await demo.window({ id: opened.id }).close();
    assert.equal(closed.closed, true);
  } finally {
    await demo.close();
  }
});
