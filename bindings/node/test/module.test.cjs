// The module loads with require() and with import, and both give the same objects.
const { test } = require('node:test');
const assert = require('node:assert/strict');

test('require("uidrive") and import("uidrive") give the same module', async () => {
  const required = require('uidrive');
  const imported = await import('uidrive');
  assert.equal(typeof required.connect, 'function');
  assert.equal(imported.default, required);
  for (const name of Object.keys(required)) {
    assert.equal(imported[name], required[name], `index.mjs exports ${name}`);
  }
  assert.match(required.version(), /^\d+\.\d+\.\d+/);
});
