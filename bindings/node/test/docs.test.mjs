// Every JavaScript example of the docs, run: the ```js blocks of
// bindings/node/README.md, docs/trace.md and docs/first-suite.md. A page's blocks run in order,
// each as the body of an async function that sees `uidrive`'s exports,
// `desktop` (a private headless desktop) and `app` (gtk3-widget-factory on
// it), as the README says; `import` and `require` of uidrive become reads
// of the module, and `test(name, fn)` runs `fn` at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const uidrive = require('../index.js');
const testing = require('../testing.js');
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function blocks(relative) {
  const text = readFileSync(path.join(repo, relative), 'utf8');
  const found = [];
  const fence = /^( *)```js\n([\s\S]*?)^ *```/gm;
  for (let m = fence.exec(text); m; m = fence.exec(text)) {
    const indent = m[1].length;
    const code = m[2].split('\n').map((line) => line.slice(indent)).join('\n');
    found.push({ where: `${relative}:${text.slice(0, m.index).split('\n').length}`, code });
  }
  return found;
}

/** The block as a function body: module imports become reads of the module. */
function runnable(code) {
  return code
    .replace(/^import \{([^}]*)\} from 'uidrive\/testing';.*$/gm, 'const {$1} = testing;')
    .replace(/^import \{([^}]*)\} from 'uidrive';.*$/gm, 'const {$1} = uidrive;')
    .replace(/^import \{([^}]*)\} from 'node:test';.*$/gm, '')
    // The README shows both ways of loading the module: one of them declares.
    .replace(/^const \{([^}]*)\} = require\('uidrive'\);.*$/gm, '');
}

const examples = [
  ...blocks('bindings/node/README.md'),
  ...blocks('docs/trace.md'),
  ...blocks('docs/first-suite.md'),
];
let desktop;
let app;
before(async () => {
  desktop = await uidrive.headless();
  app = await desktop.launch(['gtk3-widget-factory']);
  process.chdir(mkdtempSync(path.join(tmpdir(), 'uidrive-docs-')));
});
after(async () => {
  await app?.close();
  await desktop?.close();
});

test('the docs have examples', () => {
  assert.ok(examples.length >= 6, examples.map((e) => e.where).join(', '));
});

for (const { where, code } of examples) {
  test(`example ${where} runs`, async () => {
    const runs = [];
    const runTest = (name, fn) => runs.push(fn({ name, fullName: name }));
    const names = Object.keys(uidrive).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
    const body = runnable(code);
    // Names the block declares itself shadow the module's.
    const declared = new Set([...body.matchAll(/(?:const|let|var)\s+\{([^}]*)\}/g)]
      .flatMap((m) => m[1].split(',').map((n) => n.trim().split(':').pop().trim())));
    const given = names.filter((n) => !declared.has(n) && n !== 'test');
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    const run = new AsyncFunction('uidrive', 'testing', 'desktop', 'app', 'test', ...given, body);
    await run(uidrive, testing, desktop, app, runTest, ...given.map((n) => uidrive[n]));
    await Promise.all(runs);
  });
}
