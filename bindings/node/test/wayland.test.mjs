// headless({ backend: 'wayland' }): a headless Wayland desktop (sway, no X
// server). mousepad launched on it is a native Wayland client (no DISPLAY);
// a real click and typed text reach it through the compositor and read back.
// With xwayland: true, the same mousepad told GDK_BACKEND=x11 is an X client
// of Xwayland and takes typed text the same way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { headless, expect } from 'uidrive';

/** The names of a process's environment, as the kernel has it. */
function envNames(pid) {
  return readFileSync(`/proc/${pid}/environ`, 'latin1')
    .split('\0')
    .filter(Boolean)
    .map((v) => v.split('=', 1)[0]);
}

/**
 * The name of the process listening on the Unix socket at `path`, from the
 * kernel's tables: the socket's inode in /proc/net/unix, then the process
 * holding it (Node has no SO_PEERCRED).
 */
function listenerName(path) {
  const real = realpathSync(path);
  const inodes = readFileSync('/proc/net/unix', 'latin1')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    // Num RefCount Protocol Flags Type St Inode Path; flag 00010000: listening.
    .filter((f) => f[7] === real && f[3] === '00010000')
    .map((f) => `socket:[${f[6]}]`);
  assert.equal(inodes.length, 1, `one listener on ${real}: ${inodes}`);
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let fds = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // ended meanwhile
    }
    for (const fd of fds) {
      let target = '';
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (target === inodes[0]) return readFileSync(`/proc/${pid}/comm`, 'latin1').trim();
    }
  }
  return null;
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
  let socket = '';
  try {
    // As in a person's session: a name in the desktop's own runtime
    // directory; `display` is that socket's absolute path, and it is sway's.
    const name = desktop.env.WAYLAND_DISPLAY;
    assert.match(name, /^wayland-[^/]+$/);
    socket = join(desktop.env.XDG_RUNTIME_DIR, name);
    assert.equal(desktop.display, socket);
    assert.equal(listenerName(socket), 'sway');
    assert.equal(desktop.env.DISPLAY, undefined);
    const names = await typeIntoMousepad(desktop, {}, 'typed from Node on Wayland');
    assert.ok(names.includes('WAYLAND_DISPLAY') && !names.includes('DISPLAY'), names.join(' '));
  } finally {
    await desktop.close();
  }
  // Closing removed the runtime directory, the socket's name in it too.
  assert.throws(() => lstatSync(socket), { code: 'ENOENT' });
  assert.ok(!existsSync(dirname(socket)), dirname(socket));
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
