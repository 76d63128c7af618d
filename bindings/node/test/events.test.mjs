// app.waitForEvent (issue 31): the events an action made a real app send,
// from AT-SPI's event stream, each handed over once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { headless } from 'uidrive';

let desktop;

before(async () => {
  desktop = await headless();
});

after(async () => {
  await desktop?.close();
});

test('gtk3-widget-factory: focus and fill an entry, and wait for their events', async () => {
  const factory = await desktop.launch(['gtk3-widget-factory'], { timeout: 60_000 });
  try {
    // The enabled entries: the combo's, an empty one, "entry", and the text view.
    const entry = factory.getByRole('textField', { disabled: false }).nth(2);
    assert.equal(await entry.value(), 'entry');
    const id = (await entry.node()).id;
    await factory.getByRole('stepper', { disabled: false }).first().focus();
    await entry.focus();
    const focus = await factory.waitForEvent('focus', entry);
    assert.equal(focus.kind, 'focus');
    assert.equal(focus.detail, 'focused');
    assert.equal(focus.element, id);
    assert.equal(focus.value, 'true');

    await entry.fill('hello events');
    const value = await factory.waitForEvent('value', entry, { timeout: 10_000 });
    assert.equal(value.element, id);
    assert.equal(value.value, 'hello events');

    // Handed over once: no focus came since.
    await assert.rejects(factory.waitForEvent('focus', entry, { timeout: 700 }), { code: 'timeout' });
    await assert.rejects(factory.waitForEvent('blur'), { code: 'invalid_request' });
  } finally {
    await factory.close();
  }
});
