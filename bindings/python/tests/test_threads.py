"""The GIL is released while uidrive waits: other Python threads keep running."""

from __future__ import annotations

import threading
import time

from conftest import DemoFactory
from uidrive.pytest_plugin import AppFactory

IDLE_MS = 1500


class Counter(threading.Thread):
    """Counts as fast as it can until told to stop: pure Python, needs the GIL."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.count = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.count += 1


def test_other_threads_run_during_a_long_idle(demo_server: DemoFactory) -> None:
    with demo_server(idle_delay_ms=IDLE_MS).connect() as app:
        counter = Counter()
        counter.start()
        started = time.monotonic()
        before = counter.count
        app.idle(timeout=10_000)
        elapsed = time.monotonic() - started
        during = counter.count - before
        counter.stop.set()
        counter.join(timeout=5)
    assert elapsed >= IDLE_MS / 1000 * 0.9
    # With the GIL held for 1.5 s the counter would barely move; released, it
    # counts at full speed (millions per second), so 100 000 is far below that.
    assert during > 100_000, f"the counter moved only {during} times in {elapsed:.2f} s"


def test_a_wait_in_a_thread_leaves_the_main_thread_free(demo_server: DemoFactory) -> None:
    with demo_server(idle_delay_ms=IDLE_MS).connect() as app:
        done = threading.Event()
        errors: list[BaseException] = []

        def wait() -> None:
            try:
                app.idle(timeout=10_000)
            except BaseException as error:  # reported below
                errors.append(error)
            finally:
                done.set()

        waiter = threading.Thread(target=wait)
        started = time.monotonic()
        waiter.start()
        spins = 0
        while not done.is_set():
            spins += 1
        waiter.join(timeout=10)
    assert not errors
    assert time.monotonic() - started >= IDLE_MS / 1000 * 0.9
    assert spins > 100_000


def test_other_threads_run_while_a_real_app_launches(launch_app: AppFactory) -> None:
    # Launching waits on the accessibility bus for the app's first window: a
    # real blocking call into a real app, during which Python must keep running.
    counter = Counter()
    counter.start()
    started = time.monotonic()
    before = counter.count
    calculator = launch_app(["gnome-calculator"])
    elapsed = time.monotonic() - started
    during = counter.count - before
    counter.stop.set()
    counter.join(timeout=5)
    assert calculator.windows()
    assert during > 10_000, f"the counter moved only {during} times in {elapsed:.2f} s"
