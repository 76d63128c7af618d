// Selenium's Node bindings (selenium-webdriver) against `uidrive webdriver`,
// driving gnome-calculator and KDE's kcalc (Qt), each on a private headless
// desktop of the session's own. Run by crates/webdriver/tests/clients.sh with
// UIDRIVE_WEBDRIVER_URL set.
import assert from "node:assert/strict";
import { test } from "node:test";
import { By, Capabilities, Key, WebDriver, error } from "selenium-webdriver";
import { Executor, HttpClient } from "selenium-webdriver/http/index.js";

const URL = process.env.UIDRIVE_WEBDRIVER_URL;
assert.ok(URL, "UIDRIVE_WEBDRIVER_URL is not set");

async function session(app) {
  // Not Builder: it wants a browser to name. A session of any W3C endpoint.
  const caps = new Capabilities({
    platformName: "linux",
    "appium:automationName": "uidrive",
    "appium:app": app,
  });
  return WebDriver.createSession(new Executor(new HttpClient(URL)), caps);
}

async function expectText(driver, element, text) {
  // uidrive's own wait, then WebDriver's read.
  await driver.executeScript("uidrive: expect", { elementId: await element.getId(), text });
  assert.equal(await element.getText(), text);
}

test("selenium-webdriver drives gnome-calculator", async () => {
  const driver = await session("gnome-calculator");
  try {
    await driver.findElement(By.name("7")).click();
    await driver.findElement(By.xpath('//button[@name="×"]')).click();
    await driver.findElement(By.name("6")).click();
    await driver.findElement(By.xpath('//button[@name="="]')).click();
    const display = await driver.findElement(
      By.xpath('//textField[contains(@actions, "setValue") and not(contains(@states, "readOnly"))]'),
    );
    await expectText(driver, display, "42");

    const png = Buffer.from(await driver.takeScreenshot(), "base64");
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.readUInt32BE(16) > 100 && png.readUInt32BE(20) > 100);
    const source = await driver.getPageSource();
    assert.match(source, /<button [^>]*name="7"/);

    await driver.actions().sendKeys(Key.ESCAPE, "12*3", Key.ENTER).perform();
    await expectText(driver, display, "36");

    await assert.rejects(driver.findElement(By.name("No such button")), error.NoSuchElementError);
    const seven = await driver.findElement(By.name("7"));
    const rect = await seven.getRect();
    assert.ok(rect.width > 0 && rect.height > 0);
    assert.equal(await seven.getTagName(), "button");
    assert.equal(await seven.isEnabled(), true);
  } finally {
    await driver.quit();
  }
});

test("selenium-webdriver drives kcalc (Qt)", async () => {
  const driver = await session("kcalc");
  try {
    const display = await driver.findElement(By.xpath('//*[@description="Result Display"]'));
    for (const name of ["7", "×", "6", "="]) {
      await driver.findElement(By.name(name)).click();
    }
    await expectText(driver, display, "42");
  } finally {
    await driver.quit();
  }
});

test("selenium-webdriver sets gtk3-widget-factory's window rect and drags its scale", async () => {
  const driver = await session("gtk3-widget-factory");
  try {
    const win = driver.manage().window();
    // gtk3-widget-factory's smallest size is 1366x741.
    await win.setRect({ x: 10, y: 20, width: 1390, height: 770 });
    assert.deepEqual(await win.getRect(), { x: 10, y: 20, width: 1390, height: 770 });
    await win.maximize();
    const big = await win.getRect();
    assert.ok(big.width > 1390 && big.height > 770, JSON.stringify(big));
    await win.minimize();
    await win.setRect({ x: 10, y: 20, width: 1390, height: 770 });
    assert.deepEqual(await win.getRect(), { x: 10, y: 20, width: 1390, height: 770 });
    await assert.rejects(win.fullscreen(), error.UnsupportedOperationError);

    const sliders = await driver.findElements(
      By.xpath('//slider[@max="100" and contains(@states, "horizontal") and not(contains(@states, "disabled"))]'),
    );
    const slider = sliders[0];
    const shown = await slider.getDomAttribute("value");
    const { width } = await slider.getRect();
    const started = Date.now();
    await driver
      .actions()
      .move({ origin: slider })
      .press()
      .move({ origin: "pointer", x: Math.round(width / 4), y: 0, duration: 500 })
      .release()
      .perform();
    assert.ok(Date.now() - started >= 500, "the move with a duration was played out");
    await driver.executeScript("uidrive: expect", { elementId: await slider.getId(), not: true, value: shown });
    const after = Number(await slider.getDomAttribute("value"));
    assert.ok(after > Number(shown) + 10, `${shown} -> ${after}`);
  } finally {
    await driver.quit();
  }
});
