// Errors from real apps on a private headless desktop: each a clear code, none a hang.
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

/** The error `promise` rejects with (failing the test if it resolves). */
async function rejection(promise) {
  const error = await promise.then(
    () => null,
    (e) => e,
  );
  assert.ok(error instanceof Error, 'the call rejected with an Error');
  assert.equal(typeof error.suggestion, 'string');
  assert.ok(error.suggestion.length > 0);
  return error;
}

test('launching a program that does not exist: failed', async () => {
  const error = await rejection(desktop.launch(['/nonexistent/uidrive-test-app'], { timeout: 5000 }));
  assert.equal(error.code, 'failed');
  assert.match(error.message, /nonexistent/);
});

test('a program that exits before showing a window: app_exited', async () => {
  const error = await rejection(desktop.launch(['true'], { timeout: 3000 }));
  assert.equal(error.code, 'app_exited');
});

test('a zenity dialog: press its button, the app exits, and later calls say app_exited', async () => {
  const app = await desktop.launch(['zenity', '--question', '--text', 'Proceed?'], { timeout: 30_000 });
  try {
    assert.equal((await rejection(app.tree({ window: 999_999 }))).code, 'no_window');
    const yes = app.getByRole('button', { name: 'Yes', exact: true });
    await expect(yes).toBeVisible();
    const outcome = await yes.click();
    assert.equal(outcome.element.label, 'Yes');
    // The dialog's process ends once it is answered; nothing hangs after that.
    const error = await rejection(app.getByRole('button', { name: 'No' }).click({ timeout: 5000 }));
    assert.equal(error.code, 'app_exited');
  } finally {
    await app.close();
  }
});

test('an app killed in the middle of a session: app_exited', async () => {
  const app = await desktop.launch(['gnome-calculator'], { timeout: 30_000 });
  try {
    await expect(app.getByRole('button', { name: '=', exact: true })).toBeVisible();
    process.kill(app.pid, 'SIGKILL');
    const error = await rejection(app.getByRole('button', { name: '=', exact: true }).click({ timeout: 5000 }));
    assert.equal(error.code, 'app_exited');
  } finally {
    await app.close();
  }
});
