// Errors are Error objects with a code, a message and a suggestion, as core gives them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { attach, connect, expect, launch } from 'uidrive';
import { startDemoServer, tempDir } from './helpers.mjs';
import { join } from 'node:path';

/** Asserts that `promise` rejects with a uidrive Error of `code`, and returns it. */
async function rejectsWith(promise, code) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof Error, 'an Error object');
    assert.equal(error.code, code, `code of: ${error.message}`);
    assert.equal(typeof error.message, 'string');
    assert.ok(error.message.length > 0, 'a message');
    assert.equal(typeof error.suggestion, 'string');
    assert.ok(error.suggestion.length > 0, 'a suggestion');
    return error;
  }
  assert.fail(`expected a rejection with code ${code}`);
}

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

test('connect to a socket nobody listens on: disconnected', async () => {
  const { dir, remove } = tempDir();
  try {
    await rejectsWith(connect(join(dir, 'nobody.sock')), 'disconnected');
  } finally {
    remove();
  }
});

test('an unknown window: no_window', async () => {
  await rejectsWith(app.tree({ window: 424242 }), 'no_window');
});

test('an element that does not exist: no_element', async () => {
  await rejectsWith(app.act({ key: 'no-such-key', action: 'press' }), 'no_element');
});

test('a menu path that does not exist: no_element naming the label', async () => {
  const error = await rejectsWith(app.menu(['File', 'Nonexistent']), 'no_element');
  assert.match(error.message, /Nonexistent/);
});

test('malformed arguments: invalid_request naming the field', async () => {
  const error = await rejectsWith(app.input([{ type: 'teleport' }]), 'invalid_request');
  assert.match(error.message, /input/);
  await rejectsWith(app.idle({ timeout: -5 }), 'invalid_request');
  await rejectsWith(app.tree({ window: 1.5 }), 'invalid_request');
  await rejectsWith(app.menu([]), 'invalid_request');
});

test('an unknown method: unknown_method', async () => {
  await rejectsWith(app.call('teleport', {}), 'unknown_method');
});

test('idle past its timeout: timeout', async () => {
  const slow = await startDemoServer(['--demo-idle-delay-ms', '3000']);
  const slowApp = await connect(slow.socket);
  try {
    await rejectsWith(slowApp.idle({ timeout: 200 }), 'timeout');
  } finally {
    await slowApp.close();
    await slow.stop();
  }
});

test('launch of a program that does not exist: failed', async () => {
  await rejectsWith(
    launch(['/nonexistent/uidrive-test-program'], { socketEnv: 'UIDRIVE_TEST_SOCKET', timeout: 2000 }),
    'failed',
  );
});

test('launch of an app that exits before listening: app_exited', async () => {
  await rejectsWith(launch(['true'], { socketEnv: 'UIDRIVE_TEST_SOCKET', timeout: 5000 }), 'app_exited');
});

test('setTimeouts with a negative number throws at once: invalid_request', () => {
  assert.throws(() => app.setTimeouts({ action: -1 }), (error) => {
    assert.equal(error.code, 'invalid_request');
    assert.ok(error.suggestion);
    return true;
  });
});

test('attach with neither a pid nor a name: invalid_request', async () => {
  await rejectsWith(attach({}), 'invalid_request');
  await rejectsWith(attach({ pid: 1, name: 'both' }), 'invalid_request');
});

/** Asserts that `call` throws a uidrive Error of `code` at once, and returns it. */
function throwsWith(call, code) {
  let caught;
  assert.throws(call, (error) => {
    assert.equal(error.code, code, `code of: ${error.message}`);
    caught = error;
    return true;
  });
  return caught;
}

test('a timeout of 1e22 ms is invalid_request, not a crash', async () => {
  await rejectsWith(app.getByKey('add').click({ timeout: 1e22 }), 'invalid_request');
  await rejectsWith(app.idle({ timeout: 1e22 }), 'invalid_request');
  throwsWith(() => app.setTimeouts({ expect: 1e22 }), 'invalid_request');
  // Past the longest timeout uidrive takes anywhere: one hour.
  throwsWith(() => app.setTimeouts({ action: 3_600_001 }), 'invalid_request');
  assert.equal(await app.getByKey('add').count(), 1, 'the process is still there');
});

test('an unknown role or state throws at once, with the closest names', () => {
  const started = Date.now();
  const error = throwsWith(() => app.getByRole('buton'), 'invalid_request');
  assert.match(error.suggestion, /"button"/);
  throwsWith(() => app.window().getByRole('textfield'), 'invalid_request');
  const state = throwsWith(() => expect(app.getByKey('add')).toHaveState('chekced'), 'invalid_request');
  assert.match(state.suggestion, /"checked"/);
  assert.ok(Date.now() - started < 1000, 'at once, not after a wait');
});

test('window({title, id}) is refused instead of preferring the title', () => {
  throwsWith(() => app.window({ title: 'Demo', id: 1 }), 'invalid_request');
});

test('isVisible and isHidden wait for their timeout', async () => {
  const missing = app.getByText('no element shows this text');
  let started = Date.now();
  assert.equal(await missing.isVisible(), false);
  assert.ok(Date.now() - started < 400, 'no wait without a timeout');
  started = Date.now();
  assert.equal(await missing.isVisible({ timeout: 500 }), false);
  assert.ok(Date.now() - started >= 500, 'waited out its timeout');
  assert.equal(await app.getByKey('add').isVisible({ timeout: 5000 }), true);
  assert.equal(await missing.isHidden({ timeout: 5000 }), true);
});

test('an action outcome has the one shape of every language', async () => {
  const outcome = await app.getByKey('add').click();
  // What it did, what the tree showed of it (the count beside the button changed).
  assert.deepEqual(Object.keys(outcome).sort(), ['effect', 'element', 'observed', 'route', 'window']);
  assert.equal(outcome.route, 'semantic:press');
  assert.equal(outcome.effect, 'confirmed');
  assert.match(outcome.observed, /^the window changed: 1 element\(s\) changed name or state/);
  assert.equal((await app.getByKey('add').activate()).route, 'semantic:press');
});

test('click takes a button and a click count', async () => {
  const add = app.getByKey('add');
  // Any other button or count is always the real pointer's (the demo's
  // button presses only on the primary button).
  assert.equal((await add.click({ button: 'right' })).route, 'input');
  assert.equal((await add.click({ button: 'middle', clickCount: 3 })).route, 'input');
  assert.equal((await add.click({ clickCount: 2 })).route, 'input');
  assert.equal((await add.click({ button: 'left', clickCount: 1 })).route, 'semantic:press');

  // One it cannot send is refused before anything is looked for: a locator
  // that finds nothing says invalid_request, not no_element.
  const missing = app.getByKey('no-such-key');
  for (const button of ['back', 'Right', '']) {
    const error = await rejectsWith(missing.click({ button }), 'invalid_request');
    assert.match(error.message, /'left', 'right' or 'middle'/);
  }
  for (const clickCount of [0, -1, 4, 1.5, Number.NaN, Infinity, 2 ** 40]) {
    const error = await rejectsWith(missing.click({ button: 'right', clickCount }), 'invalid_request');
    assert.match(error.message, /1 to 3 presses/);
  }
});

test('a ref never given is stale_ref at once', () => {
  throwsWith(() => app.getByRef('@e99999'), 'stale_ref');
  throwsWith(() => app.getByRef('e0'), 'invalid_request');
});

test('a locator that finds nothing names the windows', async () => {
  const [window] = await app.windows();
  const error = await rejectsWith(app.getByKey('no-such-key').click({ timeout: 300 }), 'no_element');
  assert.match(error.message, /the app's windows: /);
  assert.ok(error.message.includes(window.title), error.message);
});

test('pressSequentially types key by key', async () => {
  const name = app.getByKey('name');
  await name.fill('Ada');
  const outcome = await name.pressSequentially('!?', { delay: 10 });
  assert.equal(outcome.route, 'input');
  await expect(name).toHaveValue('Ada!?', { exact: true });
  await rejectsWith(name.pressSequentially('x', { delay: -1 }), 'invalid_request');
});

test('the keyboard types into the focused element', async () => {
  const name = app.getByKey('name');
  await name.fill('Ada');
  await name.focus();
  await app.keyboard.type('!', { delay: 10 });
  await app.keyboard.type('?');
  await expect(name).toHaveValue('Ada!?', { exact: true });
  await rejectsWith(app.keyboard.type('x', { delay: 1e22 }), 'invalid_request');
  await rejectsWith(app.keyboard.press('NoSuchKey+'), 'invalid_request');
});
