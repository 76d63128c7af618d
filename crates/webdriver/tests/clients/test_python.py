"""Official Python clients against `uidrive webdriver`: the Appium Python
client and Selenium's own bindings, each driving gnome-calculator and KDE's
kcalc (Qt) on a private headless desktop of the session's own.

Run by crates/webdriver/tests/clients.sh with UIDRIVE_WEBDRIVER_URL set;
`python test_python.py [NAME...]` runs the named tests only.
"""

import base64
import os
import struct
import sys
import time

from appium import webdriver as appium_webdriver
from appium.options.common import AppiumOptions
from appium.webdriver.common.appiumby import AppiumBy
from selenium import webdriver as selenium_webdriver
from selenium.common.exceptions import (
    InvalidSelectorException,
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.options import ArgOptions

URL = os.environ["UIDRIVE_WEBDRIVER_URL"]
PNG = b"\x89PNG\r\n\x1a\n"


def png_size(png):
    assert png[:8] == PNG, "not a PNG"
    return struct.unpack(">II", png[16:24])


def caps(options, app):
    options.set_capability("platformName", "linux")
    options.set_capability("appium:automationName", "uidrive")
    options.set_capability("appium:app", app)
    return options


def appium(app):
    return appium_webdriver.Remote(URL, options=caps(AppiumOptions(), app))


def selenium(app):
    return selenium_webdriver.Remote(command_executor=URL, options=caps(ArgOptions(), app))


def expect_text(driver, element, text):
    """uidrive's own wait (`uidrive: expect`), then WebDriver's read."""
    driver.execute_script("uidrive: expect", {"elementId": element.id, "text": text})
    assert element.text == text, f"the display reads {element.text!r}, not {text!r}"


def calculator_display(driver):
    # The editable entry (the result line below it is read-only).
    return driver.find_element(
        By.XPATH, '//textField[contains(@actions, "setValue") and not(contains(@states, "readOnly"))]'
    )


def test_appium_gnome_calculator():
    driver = appium("gnome-calculator")
    try:
        assert driver.capabilities["appium:automationName"] == "uidrive"
        driver.find_element(AppiumBy.NAME, "7").click()
        driver.find_element(AppiumBy.XPATH, '//button[@name="×"]').click()
        driver.find_element(AppiumBy.NAME, "6").click()
        driver.find_element(AppiumBy.XPATH, "//button[@label='=']").click()
        display = calculator_display(driver)
        expect_text(driver, display, "42")
        assert display.get_attribute("value") == "42"

        png = driver.get_screenshot_as_png()
        width, height = png_size(png)
        assert width > 100 and height > 100, (width, height)
        source = driver.page_source
        assert source.startswith("<?xml") and '<button' in source and 'name="7"' in source

        # W3C key actions: clear, then 12*3 Enter.
        ActionChains(driver).send_keys(Keys.ESCAPE).send_keys("12*3").send_keys(Keys.ENTER).perform()
        expect_text(driver, display, "36")

        try:
            driver.find_element(AppiumBy.NAME, "No such button")
            raise AssertionError("a missing name was found")
        except NoSuchElementException as e:
            assert "no_element" in e.msg, e.msg

        seven = driver.find_element(AppiumBy.NAME, "7")
        rect = seven.rect
        assert rect["width"] > 0 and rect["height"] > 0, rect
        assert seven.is_enabled() and seven.is_displayed()
        assert seven.tag_name == "button"
        w, h = png_size(seven.screenshot_as_png)
        assert (w, h) == (int(rect["width"]), int(rect["height"])), ((w, h), rect)
        # The same element found twice has the same id (uidrive's identity).
        assert driver.find_element(AppiumBy.XPATH, '//button[@name="7"]').id == seven.id
        assert len(driver.find_elements(AppiumBy.CLASS_NAME, "button")) > 20
        assert driver.find_elements(AppiumBy.NAME, "No such button") == []
        assert driver.window_handles == [driver.current_window_handle]
        assert driver.title == "Calculator"
        # The mode menu's Advanced item holds buttons Basic mode hides.
        driver.find_element(AppiumBy.NAME, "Basic").click()
        driver.find_element(AppiumBy.NAME, "Advanced").click()
        driver.execute_script("uidrive: expect", {"selector": 'role=button[name="Basic"]', "count": 0})
        # Basic mode's keypad went with it: its 7 is a stale element now.
        try:
            seven.click()
            raise AssertionError("Basic mode's 7 was clicked after Advanced mode replaced it")
        except StaleElementReferenceException as e:
            assert "stale_ref" in e.msg, e.msg
        try:
            driver.find_element(AppiumBy.XPATH, "//button[")
            raise AssertionError("a bad XPath was taken")
        except InvalidSelectorException:
            pass
    finally:
        driver.quit()


def test_selenium_gnome_calculator():
    driver = selenium("gnome-calculator")
    try:
        driver.implicitly_wait(2)
        driver.find_element(By.NAME, "7").click()
        driver.find_element(By.XPATH, '//button[@name="×"]').click()
        driver.find_element(By.NAME, "6").click()
        driver.find_element(By.XPATH, '//button[@name="="]').click()
        display = calculator_display(driver)
        expect_text(driver, display, "42")
        png = base64.b64decode(driver.get_screenshot_as_base64())
        png_size(png)
        assert "<textField" in driver.page_source
        ActionChains(driver).send_keys(Keys.ESCAPE, "12*3", Keys.ENTER).perform()
        expect_text(driver, display, "36")
        started = time.monotonic()
        try:
            driver.find_element(By.NAME, "No such button")
            raise AssertionError("a missing name was found")
        except NoSuchElementException:
            pass
        # The implicit wait waited (uidrive's auto-wait) before giving up.
        assert time.monotonic() - started >= 1.9
        assert display.get_dom_attribute("role") == "textField"
        assert "focusable" in display.get_property("states")
    finally:
        driver.quit()


def test_appium_root_desktop():
    """`appium:app: Root`: a session on the whole desktop. Its windows are
    every app's; finds look through all of them."""
    driver = appium("Root")
    try:
        # A private desktop of its own, where nothing runs yet.
        assert driver.window_handles == []
        calc = driver.execute_script("uidrive: launch", {"app": "gnome-calculator"})
        factory = driver.execute_script("uidrive: launch", {"app": "gtk3-widget-factory"})
        assert calc["pid"] != factory["pid"], (calc, factory)
        handles = driver.window_handles
        assert len(handles) >= 2, handles
        source = driver.page_source
        assert source.startswith("<?xml") and "<desktop>" in source, source[:200]
        assert 'title="Calculator"' in source and 'name="7"' in source
        assert source.count("<hierarchy ") == len(handles), (source.count("<hierarchy "), handles)
        # The calculator's 7, found across the desktop's windows, then clicked.
        driver.find_element(AppiumBy.NAME, "7").click()
        # The XPath names its window: the widget factory has entries too.
        display = driver.find_element(
            AppiumBy.XPATH,
            '//hierarchy[@title="Calculator"]//textField[contains(@actions, "setValue") and not(contains(@states, "readOnly"))]',
        )
        expect_text(driver, display, "7")
        # A widget factory element, found the same way.
        assert driver.find_elements(AppiumBy.XPATH, '//slider[contains(@states, "horizontal")]') != []
        try:
            driver.find_element(AppiumBy.NAME, "No such button")
            raise AssertionError("a missing name was found")
        except NoSuchElementException as e:
            assert "Calculator" in e.msg, e.msg
        titles = {}
        for handle in handles:
            driver.switch_to.window(handle)
            titles[driver.title] = handle
        assert "Calculator" in titles, titles
        driver.switch_to.window(titles["Calculator"])
        # Once switched, the session reads that window alone.
        assert driver.find_elements(AppiumBy.XPATH, "//slider") == []
        assert driver.find_element(AppiumBy.NAME, "7").is_displayed()
    finally:
        driver.quit()


def test_selenium_window_rect():
    """Window rect, maximize and minimize through the headless desktop's
    window manager (openbox), read back from the X server."""
    driver = selenium("gtk3-widget-factory")
    try:
        # gtk3-widget-factory's smallest size is 1366x741.
        driver.set_window_rect(20, 30, 1400, 780)
        assert driver.get_window_rect() == {"x": 20, "y": 30, "width": 1400, "height": 780}
        driver.maximize_window()
        big = driver.get_window_rect()
        assert big["width"] > 1400 and big["height"] > 780, big
        screen = png_size(driver.get_screenshot_as_png())
        assert (big["width"], big["height"]) == screen, (big, screen)
        driver.minimize_window()
        # Setting the rect restores the minimized window first.
        rect = driver.set_window_rect(30, 40, 1380, 760)
        assert rect == {"x": 30, "y": 40, "width": 1380, "height": 760}, rect
        assert driver.get_window_rect() == rect
        driver.set_window_rect(x=50, y=60)
        assert driver.get_window_rect() == {"x": 50, "y": 60, "width": 1380, "height": 760}
        try:
            driver.fullscreen_window()
            raise AssertionError("fullscreen answered success")
        except WebDriverException as e:
            assert "unsupported operation" in str(e.msg) or "fullscreen" in e.msg, e.msg
    finally:
        driver.quit()


def test_selenium_drag_slider():
    """ActionChains' drag (a press, a move with a duration, a release) moves
    a real GtkScale's knob; the value read back follows it."""
    driver = selenium("gtk3-widget-factory")
    try:
        slider = driver.find_element(
            By.XPATH,
            '//slider[@max="100" and contains(@states, "horizontal") and not(contains(@states, "disabled"))]',
        )
        shown = slider.get_dom_attribute("value")
        before = float(shown)
        width = slider.rect["width"]
        started = time.monotonic()
        ActionChains(driver, duration=400).drag_and_drop_by_offset(slider, int(width / 4), 0).perform()
        # Two moves of 400 ms each were played out, not jumped.
        assert time.monotonic() - started >= 0.8
        driver.execute_script("uidrive: expect", {"elementId": slider.id, "not": True, "value": shown})
        after = float(slider.get_dom_attribute("value"))
        assert after > before + 10, (before, after)
        ActionChains(driver, duration=300).drag_and_drop_by_offset(slider, -int(width / 3), 0).perform()
        driver.execute_script("uidrive: expect", {"elementId": slider.id, "not": True, "value": str(after).removesuffix(".0")})
        back = float(slider.get_dom_attribute("value"))
        assert back < after - 10, (after, back)
    finally:
        driver.quit()


def kcalc(driver):
    display = driver.find_element(By.XPATH, '//*[@description="Result Display"]')
    for name in ["7", "×", "6", "="]:
        driver.find_element(By.NAME, name).click()
    expect_text(driver, display, "42")
    driver.find_element(By.NAME, "AC").click()
    expect_text(driver, display, "0")


def test_appium_kcalc():
    driver = appium("kcalc")
    try:
        kcalc(driver)
    finally:
        driver.quit()


def test_selenium_kcalc():
    driver = selenium("kcalc")
    try:
        kcalc(driver)
    finally:
        driver.quit()


def main(names):
    tests = {k: v for k, v in globals().items() if k.startswith("test_")}
    chosen = names or list(tests)
    failed = []
    for name in chosen:
        started = time.monotonic()
        try:
            tests[name]()
            print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - report every failure, then exit non-zero
            failed.append(name)
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    print(f"{len(chosen) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
