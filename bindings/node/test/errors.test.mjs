// Errors are Error objects with a code, a message and a suggestion, as core gives them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { attach, connect, launch } from 'uidrive';
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
