// index.d.ts declares every function and method the native module has, and no more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const native = require('uidrive');
const dts = readFileSync(new URL('../index.d.ts', import.meta.url), 'utf8');

/** The body of `declare class Name { ... }` in index.d.ts. */
function classBody(name) {
  const start = dts.indexOf(`export declare class ${name} `);
  assert.ok(start >= 0, `index.d.ts declares class ${name}`);
  const end = dts.indexOf('\n}\n', start);
  return dts.slice(start, end);
}

/** Member names declared in a class body: `name(`, `readonly name:`. */
function declaredMembers(body) {
  const names = new Set();
  for (const m of body.matchAll(/^ {2}(?:readonly )?([A-Za-z]+)\s*[(:]/gm)) names.add(m[1]);
  names.delete('constructor');
  return names;
}

test('every module-level export is declared', () => {
  for (const [name, value] of Object.entries(native)) {
    const declared =
      typeof value === 'function' && /^[A-Z]/.test(name)
        ? dts.includes(`export declare class ${name} `)
        : dts.includes(`export declare function ${name}(`);
    assert.ok(declared, `index.d.ts declares ${name}`);
  }
});

for (const name of ['App', 'Window', 'Locator', 'Expect', 'Desktop', 'Keyboard', 'Process', 'Clipboard', 'Notification', 'TrayItem', 'TrayMenuItem']) {
  test(`class ${name}: the declared members are the native ones`, () => {
    const proto = native[name].prototype;
    const actual = new Set(Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor'));
    const declared = declaredMembers(classBody(name));
    assert.deepEqual([...actual].sort(), [...declared].sort());
  });
}
