// A typed use of the whole API, checked by `tsc --noEmit` (never run).
import {
  App,
  ActionOutcome,
  Desktop,
  Locator,
  ScrollDirection,
  Snapshot,
  Tree,
  UidriveError,
  WindowInfo,
  attach,
  connect,
  expect,
  headless,
  launch,
  version,
} from 'uidrive';

async function calculator(desktop: Desktop): Promise<string | null> {
  const app: App = await desktop.launch(['gnome-calculator'], { timeout: 30_000 });
  try {
    const key = (k: string): Locator => app.getByRole('button', { name: k, exact: true });
    for (const k of ['7', '×', '6', '=']) {
      const outcome: ActionOutcome = await key(k).click();
      const route: string = outcome.route;
      void route;
    }
    const display = app.getByRole('textField').first();
    await expect(display).toHaveValue('42', { exact: true });
    // ARIA's name for the same role is taken too; a misspelt role is a type error.
    await expect(app.getByRole('textbox').first()).toHaveValue('42', { exact: true });
    // @ts-expect-error: `textbx` is no role, the protocol's or ARIA's
    void app.getByRole('textbx');
    return await display.value();
  } finally {
    await app.close();
  }
}

async function everything(): Promise<void> {
  const desktop: Desktop = await headless({ width: 1024, height: 768, timeout: 20_000 });
  const display: string = desktop.display;
  const wayland: Desktop = await headless({ backend: 'wayland', xwayland: true });
  // @ts-expect-error: `mir` is no backend
  void headless({ backend: 'mir' });
  await wayland.close();
  const env: Record<string, string> = desktop.env;
  await calculator(desktop);

  const app = await launch(['gtk3-widget-factory'], { env, timeout: 30_000 });
  const byPid = await attach({ pid: app.pid ?? 0 }, { env });
  const byName = await attach({ name: 'gtk3-widget-factory' });
  const viaSocket = await connect('/tmp/app.sock');
  const launchedSocketApp = await launch(['my-app'], { socketEnv: 'MYGO_AUTOMATION', env: { LANG: 'C' } });

  const windows: WindowInfo[] = await app.windows();
  const tree: Tree = await app.tree({ window: windows[0].id });
  const firstId: string = tree.nodes[0].id;
  const png: Buffer = await app.capture();
  await app.menu(['File', 'Quit']);
  await app.input([
    { type: 'click', x: 10, y: 20, button: 'left', clicks: 2, mods: ['shift'] },
    { type: 'key', key: 'CmdOrCtrl+A' },
    { type: 'text', text: 'héllo' },
    { type: 'wheel', x: 1, y: 1, dx: 0, dy: -3, precise: true },
  ]);
  await app.idle({ timeout: 2000 });
  const result: unknown = await app.eval('document.title');
  await app.act({ key: 'add', action: 'press' });
  const hello = await app.call('hello', {});
  const snapshot: Snapshot = await app.snapshot({ interactive: true });
  const firstRef: string = snapshot.elements[0].ref;
  await app.getByRef(firstRef).click();
  app.setTimeouts({ action: 5000 });
  const expectMs: number = app.timeouts().expect;

  const dialog = app.window({ title: /preferences/i });
  const list = app.getByRole('list', { name: 'Fruits' });
  const item: Locator = list
    .getByRole('listItem')
    .filter({ hasText: 'an', has: app.getByKey('banana'), hasNotText: /x/ })
    .first()
    .nth(0)
    .last()
    .locator('role=text')
    .locator(app.getByText('Banana'))
    .includeHidden()
    .withTimeout(3000);
  const description: string = item.description;
  const cell: Locator = app.getByRole('table').cell(200, 4);
  const cellText: string = await cell.text();

  await item.click({ timeout: 1000 });
  await item.click({ button: 'right' });
  await item.click({ button: 'middle', clickCount: 2, timeout: 1000 });
  await item.dblclick();
  await item.fill('text');
  await item.type('more');
  await item.press('Enter');
  await item.check();
  await item.uncheck();
  await item.setChecked(true);
  await item.selectOption(/cherry/i);
  await item.hover();
  await item.focus();
  await item.scrollIntoView();
  await item.setValue(3.5);
  await item.dragTo(dialog.getByLabel('Bin'));
  const direction: ScrollDirection = 'down';
  await item.scroll(direction, { notches: 3, timeout: 1000 });
  await item.scroll('left');
  await item.expand();
  await item.collapse({ timeout: 1000 });
  await item.increment({ steps: 2 });
  await item.decrement();
  const selected: ActionOutcome = await item.selectText(0, 4, { timeout: 1000 });
  void selected;
  await app.keyboard.down('Shift');
  await app.keyboard.up('Shift', { window: 1 });

  const count: number = await item.count();
  const all: Locator[] = await item.all();
  const text: string = await item.text();
  const value: string | null = await item.value();
  const states: string[] = await item.states();
  const bounds = await item.bounds();
  const width: number | undefined = bounds?.width;
  const flags: boolean[] = await Promise.all([
    item.isVisible(),
    item.isHidden(),
    item.isEnabled(),
    item.isChecked(),
    item.isFocused(),
  ]);

  await expect(item).toBeVisible();
  await expect(item).toBeHidden({ timeout: 100 });
  await expect(item).toBeEnabled();
  await expect(item).toBeDisabled();
  await expect(item).toBeChecked();
  await expect(item).not.toBeChecked();
  await expect(item).toBeFocused();
  await expect(item).toBeEditable();
  await expect(item, { timeout: 1000 }).toHaveText('Banana', { exact: true });
  await expect(item).toHaveText(/ban/i);
  await expect(item).toHaveValue('50');
  await expect(item).toHaveState('checked');
  await expect(list.getByRole('listItem')).toHaveCount(3);
  await expect(app.getByPlaceholder('Search')).toBeVisible();
  await expect(app.getByLabel('Name', { exact: true })).toBeEditable();
  await expect(app.getByKey(7)).toBeVisible();
  await expect(app.getById(firstId)).toBeVisible();
  await expect(app.locator('role=button[name="Add"]')).toBeVisible();

  try {
    await app.getByRole('button').click();
  } catch (e) {
    const error = e as UidriveError;
    const parts: string[] = [error.code, error.message, error.suggestion];
    void parts;
  }

  await Promise.all([byPid.close(), byName.close(), viaSocket.close(), launchedSocketApp.close()]);
  await app.close();
  await desktop.close();
  void [display, png, result, hello, expectMs, description, cellText, count, all, text, value, states, width, flags, version()];
}

void everything;
