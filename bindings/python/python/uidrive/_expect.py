"""``uidrive.expect``: the extension's ``expect`` with a suite-wide default
timeout, as Playwright for Python's ``expect.set_options(timeout=...)``."""

from __future__ import annotations

from uidrive._native import Expect, Locator
from uidrive._native import expect as _native_expect


class ExpectFunction:
    """``expect(locator, timeout=None)`` makes the assertions on ``locator``;
    ``expect.set_options(timeout=MS)`` sets the timeout every later
    ``expect(...)`` takes when given none (``None``: the App's, 5000 ms)."""

    def __init__(self) -> None:
        self._timeout: float | None = None

    def __call__(self, locator: Locator, *, timeout: float | None = None) -> Expect:
        return _native_expect(locator, timeout=self._timeout if timeout is None else timeout)

    def set_options(self, *, timeout: float | None = None) -> None:
        """The default timeout of later assertions, in milliseconds (``None``:
        the App's). It is checked where every timeout is, in the extension: a
        number that is no timeout raises ``InvalidRequestError`` at the next
        ``expect(...)``."""
        self._timeout = timeout

    @property
    def timeout(self) -> float | None:
        """The default set by ``set_options`` (``None``: the App's own)."""
        return self._timeout


expect = ExpectFunction()
