"""One click, through `uidrive webdriver` and through uidrive's Python API:
gnome-calculator on a private headless desktop, its 7 button clicked CLICKS
times. Timed from outside as whole processes; a run with CLICKS=0 (the
launch and the close alone) taken from one with CLICKS=N leaves N clicks.

usage: python bench/webdriver_click.py webdriver URL CLICKS
       python bench/webdriver_click.py python CLICKS

  webdriver  the Appium Python client: a session on URL (a running
             `uidrive webdriver`), find the 7 button by name once, click it
             CLICKS times (each click: one HTTP request; the endpoint finds
             the element again by its id and clicks it), quit.
  python     the `uidrive` wheel: headless(), launch, get_by_role("button",
             name="7", exact=True).click() CLICKS times, close.

Needs Appium-Python-Client (webdriver) or the uidrive wheel (python).
"""

import sys


def webdriver(url, clicks):
    from appium import webdriver as appium
    from appium.options.common import AppiumOptions
    from appium.webdriver.common.appiumby import AppiumBy

    options = AppiumOptions()
    options.set_capability("platformName", "linux")
    options.set_capability("appium:automationName", "uidrive")
    options.set_capability("appium:app", "gnome-calculator")
    driver = appium.Remote(url, options=options)
    try:
        seven = driver.find_element(AppiumBy.NAME, "7")
        for _ in range(clicks):
            seven.click()
    finally:
        driver.quit()


def python(clicks):
    import uidrive

    with uidrive.headless() as desktop:
        app = desktop.launch(["gnome-calculator"])
        try:
            seven = app.get_by_role("button", name="7", exact=True)
            for _ in range(clicks):
                seven.click()
        finally:
            app.close()


if __name__ == "__main__":
    if sys.argv[1] == "webdriver":
        webdriver(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "python":
        python(int(sys.argv[2]))
    else:
        raise SystemExit(__doc__)
