// The shared scenario: real apps from Debian's packages on a private headless
// desktop, driven only through locators and expect (no sleeps, no retry loops).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { headless, expect, App, Desktop } from 'uidrive';

let desktop;

before(async () => {
  desktop = await headless();
  assert.ok(desktop instanceof Desktop);
  assert.match(desktop.display, /^:\d+$/);
  assert.equal(desktop.env.DISPLAY, desktop.display);
});

after(async () => {
  await desktop?.close();
});

/** Runs `body` with an app launched on the desktop, closing it whatever happens. */
async function withApp(argv, body) {
  const app = await desktop.launch(argv, { timeout: 30_000 });
  assert.ok(app instanceof App);
  assert.equal(typeof app.pid, 'number');
  try {
    await body(app);
  } finally {
    await app.close();
  }
}

test('gnome-calculator: 7 × 6 = 42', async () => {
  await withApp(['gnome-calculator'], async (app) => {
    const windows = await app.windows();
    assert.equal(windows.length, 1);
    assert.equal(windows[0].title, 'Calculator');
    const key = (k) => app.getByRole('button', { name: k, exact: true });
    for (const k of ['7', '×', '6', '=']) {
      await key(k).click();
    }
    // The first text field is the calculator's editable display.
    const display = app.getByRole('textField').first();
    await expect(display).toHaveValue('42', { exact: true });
    assert.equal(await display.value(), '42');

    // A capture of the window: PNG bytes whose header gives a window-sized image.
    const png = await app.capture();
    assert.ok(Buffer.isBuffer(png));
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
    const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
    assert.ok(width >= windows[0].contentBounds.width * 0.9, `capture width ${width}`);
    assert.ok(height >= windows[0].contentBounds.height * 0.9, `capture height ${height}`);
  });
});

test('gtk3-widget-factory: check box, toggle, entry, slider, radio', async () => {
  await withApp(['gtk3-widget-factory'], async (app) => {
    // The enabled check buttons are, in order: one mixed, one clear, one checked.
    const clear = app.getByRole('checkBox', { name: 'checkbutton', disabled: false }).nth(1);
    await expect(clear).not.toBeChecked();
    await clear.check();
    await expect(clear).toBeChecked();
    assert.equal((await clear.check()).route, 'not_needed', 'checking a checked box does nothing');
    await clear.uncheck();
    await expect(clear).not.toBeChecked();

    const toggle = app.getByRole('toggleButton', { name: 'togglebutton', disabled: false }).first();
    await expect(toggle).not.toBeChecked();
    await toggle.click();
    await expect(toggle).toBeChecked();

    // The editable entries: the combo's, an empty one, "entry", and the text view.
    const entry = app.getByRole('textField', { disabled: false }).nth(2);
    await expect(entry).toHaveValue('entry', { exact: true });
    await entry.fill('uidrive über alles ✓');
    await expect(entry).toHaveValue('uidrive über alles ✓', { exact: true });
    await expect(entry).toBeEditable();

    const slider = app.getByRole('slider', { disabled: false }).first();
    await expect(slider).toHaveValue('50', { exact: true });
    await slider.setValue(75);
    await expect(slider).toHaveValue('75', { exact: true });

    // Disabled elements are found, and say so.
    await expect(app.getByRole('checkBox', { name: 'checkbutton', disabled: true })).toHaveCount(3);
    await expect(app.getByRole('slider', { disabled: true }).first()).toBeDisabled();

    // Switching to page 2 hides page 1's widgets.
    const page2 = app.getByRole('radio', { name: 'Page 2' });
    await page2.click();
    await expect(page2).toBeChecked();
    await expect(app.getByRole('radio', { name: 'Page 1' })).not.toBeChecked();
    await expect(clear).toBeHidden();

  });
});

test("gtk3-widget-factory: a table's cells by their place", async () => {
  await withApp(['gtk3-widget-factory'], async (app) => {
    // Page 1's tree view: columns Cool, Icon, Name, Nick; GTK gives each cell
    // its row and column, counted from 1.
    const table = app.getByRole('table');
    await expect(table.cell(2, 3)).toHaveText('Otto', { exact: true });
    assert.equal(await table.cell(4, 4).text(), 'Company');
    assert.equal(await app.locator('role=table >> cell=3,3').text(), 'Orville');
    assert.ok((await table.cell(1, 1).states()).includes('checked'));
    assert.ok(!(await table.cell(2, 1).states()).includes('checked'));

    // No fifth row: nothing there.
    assert.equal(await table.cell(5, 3).count(), 0);

    // Rows and columns count from 1: 0 fails at first use, a number that is
    // no row at all (negative, fractional) at once.
    for (const zero of [table.cell(0, 1), table.cell(1, 0)]) {
      await assert.rejects(zero.text(), (error) => {
        assert.equal(error.code, 'invalid_request', error.message);
        assert.match(error.message, /count from 1/);
        return true;
      });
    }
    for (const [row, column] of [[-1, 3], [1.5, 3], [2, Number.NaN]]) {
      assert.throws(() => table.cell(row, column), (error) => {
        assert.equal(error.code, 'invalid_request', error.message);
        assert.match(error.message, /counted from 1/);
        return true;
      });
    }
    await assert.rejects(app.locator('role=table >> cell=0,1').count(), { code: 'invalid_request' });
  });
});

test('gtk3-widget-factory: a right click opens a context menu, two clicks select a word', async () => {
  await withApp(['gtk3-widget-factory'], async (app) => {
    // The editable entries: the combo's, an empty one, "entry", and the text view.
    const entry = app.getByRole('textField', { disabled: false }).nth(2);
    await expect(entry).toHaveValue('entry', { exact: true });

    // A right click is the pointer's, never the entry's own action: GTK opens
    // the entry's context menu, a popup of its own, and Escape closes it.
    assert.equal((await entry.click({ button: 'right' })).route, 'input');
    const selectAll = app.getByRole('menuItem', { name: 'Select All', exact: true });
    await expect(selectAll).toBeVisible();
    await expect(app.getByRole('menuItem', { name: 'Paste', exact: true })).toHaveCount(1);
    await app.keyboard.press('Escape');
    await expect(selectAll).toBeHidden();

    // Two clicks in a row select the word under the pointer, so typed text replaces it.
    assert.equal((await entry.click({ clickCount: 2 })).route, 'input');
    await app.keyboard.type('X');
    await expect(entry).toHaveValue('X', { exact: true });
  });
});

test('attach by pid and by name to an app launched elsewhere', async () => {
  const launched = await desktop.launch(['gnome-calculator'], { timeout: 30_000 });
  try {
    const attached = await desktop.attach({ pid: launched.pid }, { timeout: 30_000 });
    const windows = await attached.windows();
    assert.equal(windows[0].title, 'Calculator');
    await expect(attached.getByRole('button', { name: '=', exact: true })).toBeVisible();
    await attached.close();

    const byName = await desktop.attach({ name: 'gnome-calculator' }, { timeout: 30_000 });
    assert.equal((await byName.windows())[0].title, 'Calculator');
    await byName.close();
  } finally {
    await launched.close();
  }
});

test('gtk4-demo: an element looked for in the old window points at the new one', async () => {
  await withApp(['gtk4-demo'], async (app) => {
    await app.getByText('Builder', { exact: true }).click();
    const run = app.getByRole('button', { name: 'Run', exact: true });
    await expect(run).toBeEnabled();
    await run.click();
    // The demo's window comes second (the main window is the first).
    await expect(app.window({ id: 2 }).getByRole('button').first()).toBeVisible();
    await assert.rejects(
      app.window({ id: 1 }).getByRole('button', { name: 'in the other window' }).click({ timeout: 1000 }),
      (error) => {
        assert.equal(error.code, 'no_element');
        assert.match(error.message, /in window 1/);
        assert.match(error.message, /the app's windows: 1 .*, 2 /);
        assert.match(error.suggestion, /another window/);
        assert.match(error.suggestion, /app\.window\(\{ id \}\)/);
        return true;
      },
    );
  });
});

test('zenity: a dialog answers on stdout, read through app.process', async () => {
  const argv = ['zenity', '--entry', '--title=Name', '--text=Your name'];
  const dialog = await desktop.launch(argv, { timeout: 30_000, captureOutput: true });
  try {
    assert.equal(dialog.process.exitCode, null);
    await dialog.getByRole('textField').fill('Ada');
    await dialog.getByRole('button', { name: 'OK', exact: true }).click();
    assert.equal(await dialog.process.wait(10_000), 0);
    assert.equal(dialog.process.stdout, 'Ada\n');
  } finally {
    await dialog.close();
  }
});
