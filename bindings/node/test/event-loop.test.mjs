// No call blocks the event loop: a timer keeps firing while a long `idle` is in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'uidrive';
import { startDemoServer } from './helpers.mjs';

test('a setInterval timer keeps firing during a 1.5 s idle', async () => {
  // The demo server takes 1.5 s to answer `idle`.
  const server = await startDemoServer(['--demo-idle-delay-ms', '1500']);
  const app = await connect(server.socket);
  try {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const started = Date.now();
    try {
      await app.idle({ timeout: 10_000 });
    } finally {
      clearInterval(timer);
    }
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 1400, `idle really waited (${elapsed} ms)`);
    // 1.5 s at one tick per 50 ms is 30 ticks; a blocked loop would give 0 or 1.
    assert.ok(ticks >= 15, `the timer fired ${ticks} times during ${elapsed} ms`);
  } finally {
    await app.close();
    await server.stop();
  }
});

test('several calls run at once and all settle', async () => {
  const server = await startDemoServer(['--demo-idle-delay-ms', '800']);
  const app = await connect(server.socket);
  try {
    const started = Date.now();
    await Promise.all([app.idle({ timeout: 5000 }), app.idle({ timeout: 5000 }), app.windows()]);
    const elapsed = Date.now() - started;
    // Two 800 ms idles side by side, not one after the other.
    assert.ok(elapsed < 1500, `two idles overlapped (${elapsed} ms)`);
  } finally {
    await app.close();
    await server.stop();
  }
});

test('a timer keeps firing while an expect waits on a real app', async () => {
  const { headless, expect } = await import('uidrive');
  const desktop = await headless();
  try {
    const app = await desktop.launch(['gnome-calculator'], { timeout: 30_000 });
    try {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 50);
      const started = Date.now();
      let error;
      try {
        // The display never shows this, so expect keeps reading the app for its whole timeout.
        await expect(app.getByRole('textField').first()).toHaveValue('never shown', {
          exact: true,
          timeout: 1500,
        });
      } catch (e) {
        error = e;
      } finally {
        clearInterval(timer);
      }
      const elapsed = Date.now() - started;
      assert.equal(error?.code, 'assertion_failed');
      assert.ok(elapsed >= 1400, `expect really waited (${elapsed} ms)`);
      assert.ok(ticks >= 15, `the timer fired ${ticks} times during ${elapsed} ms`);
    } finally {
      // The calculator closes when its window is asked to, as a close button asks.
      assert.equal(await app.close(), 'windows');
      assert.equal(await app.close(), 'exited', 'closing twice signals nothing');
    }
  } finally {
    await desktop.close();
  }
});
