// Locators and expect over a socket-protocol app: `uidrive serve --demo` through `connect`.
import { test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { connect, expect, Locator, Window } from 'uidrive';
import { startDemoServer } from './helpers.mjs';

let server;
let app;

// A fresh demo app per test, so counts and fields start from the same state.
beforeEach(async () => {
  server = await startDemoServer();
  app = await connect(server.socket);
});

afterEach(async () => {
  await app?.close();
  await server?.stop();
});

test('press "Add", expect "Count: 1"', async () => {
  const outcome = await app.getByRole('button', { name: 'Add' }).click();
  assert.equal(outcome.route, 'semantic:press');
  assert.equal(outcome.element.label, 'Add');
  await expect(app.getByText('Count:')).toHaveText('Count: 1', { exact: true });
  await expect(app.getByKey('count')).toHaveText(/^Count: 1$/);
  // A string is the whole text, case counted (Playwright's rule); a part is toContainText.
  const count = app.getByKey('count');
  await assert.rejects(expect(count, { timeout: 300 }).toHaveText('Count'), { code: 'assertion_failed' });
  await assert.rejects(expect(count, { timeout: 300 }).toHaveText('count: 1'), { code: 'assertion_failed' });
  await expect(count).toHaveText('count: 1', { ignoreCase: true });
  await expect(count).toContainText('Count');
  await expect(count).not.toContainText('count', { timeout: 300 });
  assert.throws(() => expect(count).toHaveText('Count', { exact: false }), { code: 'invalid_request' });
});

test('locators are lazy and made without waiting', async () => {
  const add = app.getByRole('button', { name: 'add' });
  assert.ok(add instanceof Locator);
  assert.equal(add.description, 'get_by_role("button", name="add")');
  assert.equal(String(add), add.description);
  // A locator for something that does not exist is fine until it is used.
  const missing = app.getByText('No such thing');
  assert.equal(await missing.count(), 0);
});

test('fill, type, value and text', async () => {
  const name = app.getByLabel('Name');
  await name.fill('Ada');
  assert.equal(await name.value(), 'Ada');
  await name.type(' Lovelace');
  await expect(name).toHaveValue('Ada Lovelace', { exact: true });
  assert.equal(await app.getByKey('count').text(), 'Count: 0');
});

test('check and uncheck read the state and verify it', async () => {
  const box = app.getByRole('checkBox', { name: 'Subscribe' });
  assert.equal(await box.isChecked(), false);
  await box.check();
  await expect(box).toBeChecked();
  assert.deepEqual((await box.check()).route, 'not_needed');
  await box.uncheck();
  await expect(box).not.toBeChecked();
  await box.setChecked(true);
  await expect(box).toHaveState('checked');
});

test('setValue on a slider', async () => {
  const volume = app.getByRole('slider', { name: 'Volume' });
  await volume.setValue(70);
  await expect(volume).toHaveValue('70', { exact: true });
});

test('nth, first, last, all, count and filter', async () => {
  const items = app.getByRole('listItem');
  await expect(items).toHaveCount(3);
  assert.equal(await items.first().text(), 'Apple');
  assert.equal(await items.last().text(), 'Cherry');
  assert.equal(await items.nth(1).text(), 'Banana');
  const all = await items.all();
  assert.equal(all.length, 3);
  assert.ok(all.every((l) => l instanceof Locator));
  assert.deepEqual(await Promise.all(all.map((l) => l.text())), ['Apple', 'Banana', 'Cherry']);
  assert.equal(await items.filter({ hasText: /an/ }).text(), 'Banana');
  assert.equal(await items.filter({ hasNotText: 'a' }).text(), 'Cherry');
  const list = app.getByRole('list', { name: 'Fruits' });
  assert.equal(await list.getByText('Cherry').count(), 1);
  assert.equal(await list.locator(app.getByKey('apple')).text(), 'Apple');
  assert.equal(await app.getByRole('list').filter({ has: app.getByKey('banana') }).count(), 1);
});

test('the selector string form and windows by title', async () => {
  assert.equal(await app.locator('role=button[name="Add"]').text(), 'Add');
  const counter = app.window({ title: 'Counter' });
  assert.ok(counter instanceof Window);
  await counter.getByRole('button', { name: 'Add' }).click();
  await expect(counter.getByKey('count')).toHaveText('Count: 1');
  const byId = app.window({ id: (await app.windows())[0].id });
  await expect(byId.getByKey('count')).toHaveText('Count: 1');
});

test('queries: node, states, bounds, visible, enabled, focused', async () => {
  const add = app.getByKey('add');
  const node = await add.node();
  assert.equal(node.role, 'button');
  assert.match(node.id, /^\d+$/);
  assert.ok(Array.isArray(await add.states()));
  const bounds = await add.bounds();
  assert.ok(bounds.width > 0 && bounds.height > 0);
  assert.equal(await add.isVisible(), true);
  assert.equal(await add.isHidden(), false);
  assert.equal(await add.isEnabled(), true);
  await expect(add).toBeVisible();
  await expect(add).toBeEnabled();
  await expect(app.getByText('No such thing')).toBeHidden();
  await app.getByLabel('Name').focus();
  await expect(app.getByLabel('Name')).toBeFocused();
  assert.equal(await app.getByLabel('Name').isFocused(), true);
  await expect(app.getByLabel('Name')).toBeEditable();
});

test('snapshot refs name elements for getByRef', async () => {
  const snap = await app.snapshot({ interactive: true });
  assert.equal(typeof snap.window, 'number');
  const line = snap.text.split('\n').find((l) => l.includes('"Add"'));
  assert.ok(line, `the snapshot shows Add:\n${snap.text}`);
  const ref = line.split(' ')[0];
  assert.match(ref, /^@e\d+$/);
  await app.getByRef(ref).click();
  await expect(app.getByKey('count')).toHaveText('Count: 1');
  const full = await app.snapshot();
  assert.ok(full.elements.length >= snap.text.trim().split('\n').length);
  assert.ok(full.elements.some((e) => e.ref === ref), 'refs stay the same between snapshots');
});

test('expect failures say what was expected and what was seen', async () => {
  const error = await expect(app.getByKey('count'), { timeout: 300 })
    .toHaveText('Count: 7')
    .then(() => null, (e) => e);
  assert.ok(error, 'the assertion failed');
  assert.equal(error.code, 'assertion_failed');
  assert.match(error.message, /Count: 7/);
  assert.match(error.message, /Count: 0/);
  assert.ok(error.suggestion);
});

test('more than one match is ambiguous, at once', async () => {
  const started = Date.now();
  const error = await app.getByRole('listItem').click({ timeout: 5000 }).then(() => null, (e) => e);
  assert.equal(error?.code, 'ambiguous');
  assert.match(error.message, /Apple/);
  assert.ok(Date.now() - started < 4000, 'ambiguity fails without waiting out the timeout');
});

test('an element that never comes: no_element after the per-call timeout', async () => {
  const started = Date.now();
  const error = await app.getByRole('button', { name: 'Nope' }).click({ timeout: 400 }).then(() => null, (e) => e);
  assert.equal(error?.code, 'no_element');
  assert.match(error.message, /Nope/);
  const waited = Date.now() - started;
  assert.ok(waited >= 350 && waited < 3000, `the per-call timeout was used (${waited} ms)`);
});

test('a bad RegExp or selector is invalid_request', async () => {
  assert.throws(() => app.getByText(/(?<=x)y/), (e) => e.code === 'invalid_request' && typeof e.suggestion === 'string');
  const error = await app.locator('role=[[[').click({ timeout: 300 }).then(() => null, (e) => e);
  assert.equal(error?.code, 'invalid_request');
});
