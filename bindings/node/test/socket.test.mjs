// A socket-protocol app (`uidrive serve --demo`, the in-memory counter) driven through `connect`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'uidrive';
import { startDemoServer } from './helpers.mjs';

let server;
let app;

before(async () => {
  server = await startDemoServer();
  app = await connect(server.socket);
});

after(async () => {
  await app?.close();
  await server?.stop();
});

const countText = (tree) => tree.nodes.find((n) => /^Count: /.test(n.label ?? n.value ?? '')) ?? null;

test('windows lists the demo window with its protocol fields', async () => {
  const windows = await app.windows();
  assert.equal(windows.length, 1);
  const [counter] = windows;
  assert.equal(counter.title, 'Counter');
  assert.equal(typeof counter.id, 'number');
  assert.deepEqual(Object.keys(counter.bounds).sort(), ['height', 'width', 'x', 'y']);
  assert.ok('contentBounds' in counter, 'camelCase field names, as on the wire');
});

test('tree reads elements with string ids, and act by key presses Add', async () => {
  const before = await app.tree();
  const add = before.nodes.find((n) => n.key === 'add');
  assert.ok(add, 'the Add button has the key `add`');
  assert.equal(add.role, 'button');
  assert.match(add.id, /^\d+$/, 'element ids are strings of digits');
  const start = Number(countText(before).label.replace('Count: ', ''));

  await app.act({ key: 'add', action: 'press' });
  const afterPress = await app.tree({ window: before.window });
  assert.equal(countText(afterPress).label, `Count: ${start + 1}`);
});

test('capture resolves to a PNG Buffer', async () => {
  const png = await app.capture();
  assert.ok(Buffer.isBuffer(png));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

test('menu, input and idle reach the app', async () => {
  await app.act({ key: 'add', action: 'press' });
  await app.menu(['File', 'New']);
  assert.equal(countText(await app.tree()).label, 'Count: 0', 'File > New resets the count');
  await app.input([{ type: 'key', key: 'Tab' }]);
  await app.idle({ timeout: 2000 });
});

test('call reaches any method by name', async () => {
  const hello = await app.call('hello', {});
  assert.equal(typeof hello.protocol, 'number');
  assert.ok(hello.methods.includes('tree'));
});

test('timeouts are read and changed in milliseconds', () => {
  const defaults = app.timeouts();
  assert.equal(typeof defaults.action, 'number');
  app.setTimeouts({ expect: 1234 });
  assert.deepEqual(app.timeouts(), { action: defaults.action, expect: 1234 });
  app.setTimeouts({ expect: defaults.expect });
});
