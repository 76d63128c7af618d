// headless({ backend: 'wayland' }): a headless Wayland desktop (sway, no X
// server). mousepad launched on it is a native Wayland client (no DISPLAY);
// a real click and typed text reach it through the compositor and read back.
// With xwayland: true, the same mousepad told GDK_BACKEND=x11 is an X client
// of Xwayland and takes typed text the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { headless, expect } from 'uidrive';

/** The names of a process's environment, as the kernel has it. */
function envNames(pid) {
  return readFileSync(`/proc/${pid}/environ`, 'latin1')
    .split('\0')
    .filter(Boolean)
    .map((v) => v.split('=', 1)[0]);
}

/** Launches mousepad, types `text` into its editor with real keys and reads it back. */
async function typeIntoMousepad(desktop, env, text) {
  const app = await desktop.launch(['mousepad'], { env, timeout: 60_000 });
  try {
    const names = envNames(app.pid);
    const editor = app.getByRole('textField').first();
    await editor.click();
    const typed = await app.keyboard.type(text);
    assert.equal(typed.effect, 'confirmed', JSON.stringify(typed));
    await expect(editor).toHaveValue(text, { exact: true });
    return names;
  } finally {
    await app.close();
  }
}

test('mousepad on the Wayland desktop takes typed text', async () => {
  const desktop = await headless({ backend: 'wayland' });
  try {
    assert.equal(desktop.env.WAYLAND_DISPLAY, desktop.display);
    assert.equal(desktop.env.DISPLAY, undefined);
    const names = await typeIntoMousepad(desktop, {}, 'typed from Node on Wayland');
    assert.ok(names.includes('WAYLAND_DISPLAY') && !names.includes('DISPLAY'), names.join(' '));
  } finally {
    await desktop.close();
  }
});

test('with xwayland, an X client runs beside Wayland ones', async () => {
  const desktop = await headless({ backend: 'wayland', xwayland: true });
  try {
    assert.match(desktop.env.DISPLAY, /^:\d+$/);
    assert.equal(desktop.env.GDK_BACKEND, 'wayland', 'apps still start on Wayland');
    await typeIntoMousepad(desktop, { GDK_BACKEND: 'x11' }, 'typed from Node through Xwayland');
    await typeIntoMousepad(desktop, {}, 'and natively beside it');
  } finally {
    await desktop.close();
  }
});

test('an unknown backend, or xwayland on X11, is refused', async () => {
  await assert.rejects(headless({ backend: 'mir' }), (e) => e.code === 'invalid_request' && /wayland/.test(e.message));
  await assert.rejects(headless({ xwayland: true }), (e) => e.code === 'invalid_request' && /Xwayland/.test(e.message));
});
