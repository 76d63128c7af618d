// Shared test helpers: the `uidrive serve --demo` socket app, and temporary paths.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { connect } from 'uidrive';

const here = dirname(fileURLToPath(import.meta.url));

/** The `uidrive` CLI binary: $UIDRIVE_BIN, as test.sh sets it. */
export function uidriveBin() {
  const bin = process.env.UIDRIVE_BIN;
  if (!bin || !existsSync(bin)) {
    throw new Error(
      `UIDRIVE_BIN (${bin ?? 'unset'}) must name the uidrive binary; run bindings/node/test.sh, ` +
        `or build it with \`cargo build -p uidrive-cli\` and set UIDRIVE_BIN`,
    );
  }
  return resolve(here, '..', bin);
}

/** A fresh directory, removed by the returned `remove()`. */
export function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'uidrive-node-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts `uidrive serve --socket PATH --demo` (the in-memory counter UI, extra args appended)
 * and resolves once a client can connect, within `timeout` ms.
 */
export async function startDemoServer(extraArgs = [], timeout = 10_000) {
  const { dir, remove } = tempDir();
  const socket = join(dir, 'demo.sock');
  const child = spawn(uidriveBin(), ['serve', '--socket', socket, '--demo', ...extraArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit');
  const deadline = Date.now() + timeout;
  let probe;
  for (;;) {
    if (child.exitCode !== null) {
      remove();
      throw new Error(`uidrive serve exited (${child.exitCode}): ${stderr}`);
    }
    try {
      probe = await connect(socket);
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill('SIGTERM');
        remove();
        throw new Error(`uidrive serve did not listen on ${socket} within ${timeout} ms: ${error.message}; ${stderr}`);
      }
      // Not listening yet: the server is still starting. Look again shortly.
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  await probe.close();
  return {
    socket,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      remove();
    },
  };
}
