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
