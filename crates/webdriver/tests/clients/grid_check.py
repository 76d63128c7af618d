"""Two sessions at once through a Selenium Grid 4 hub whose nodes relay to
two `uidrive webdriver` endpoints: each must land on a node of its own.

    python grid_check.py HUB_URL UIDRIVE_URL_1 UIDRIVE_URL_2

Run by crates/webdriver/tests/clients.sh, which starts the hub, the Grid
nodes and the uidrive endpoints, all on 127.0.0.1.
"""

import json
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.options import ArgOptions

READY_WITHIN = 180  # seconds for the hub to see both nodes up


def get(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)["value"]


def wait_for_nodes(hub, count):
    deadline = time.monotonic() + READY_WITHIN
    while True:
        try:
            status = get(f"{hub}/status")
            up = [n for n in status.get("nodes", []) if n.get("availability") == "UP"]
            if status.get("ready") and len(up) >= count:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"the hub did not see {count} nodes up within {READY_WITHIN} s")
        time.sleep(1)


def open_session(hub):
    options = ArgOptions()
    options.set_capability("platformName", "linux")
    options.set_capability("appium:automationName", "uidrive")
    options.set_capability("appium:app", "gnome-calculator")
    driver = webdriver.Remote(command_executor=hub, options=options)
    # The session drives a real app through the hub.
    driver.find_element(By.XPATH, '//button[@name="7"]').click()
    return driver


def main(hub, first, second):
    wait_for_nodes(hub, 2)
    drivers = []
    try:
        with ThreadPoolExecutor(2) as pool:
            for result in [pool.submit(open_session, hub) for _ in range(2)]:
                drivers.append(result.result())
        # The hub's view: which node holds each session.
        nodes = get(f"{hub}/status")["nodes"]
        holding = {
            slot["session"]["sessionId"]: node["uri"]
            for node in nodes
            for slot in node.get("slots", [])
            if slot.get("session")
        }
        ids = [d.session_id for d in drivers]
        assert set(ids) <= set(holding), (ids, holding)
        assert holding[ids[0]] != holding[ids[1]], f"both sessions on {holding[ids[0]]}"
        # The uidrive endpoints' own view: one session each.
        counts = [get(f"{url}/status")["sessions"] for url in (first, second)]
        assert counts == [1, 1], counts
        print(f"grid: two sessions on two nodes: {sorted(holding.values())}; uidrive endpoints hold {counts}")
    finally:
        for driver in drivers:
            driver.quit()
    counts = [get(f"{url}/status")["sessions"] for url in (first, second)]
    assert counts == [0, 0], f"sessions left after quit: {counts}"


if __name__ == "__main__":
    main(*sys.argv[1:4])
