"""uidrive's exceptions: one base class carrying code, message and suggestion,
and one subclass per error code so tests can catch exactly what they expect."""

from __future__ import annotations

import builtins


class Error(Exception):
    """Any uidrive error.

    ``code`` is the stable string a script can test (``"no_element"``,
    ``"timeout"``, ...), ``message`` says what happened and ``suggestion``
    what to do about it.
    """

    code: str
    message: str
    suggestion: str

    def __init__(self, code: str, message: str, suggestion: str = "") -> None:
        super().__init__(code, message, suggestion)
        self.code = code
        self.message = message
        self.suggestion = suggestion

    def __str__(self) -> str:
        text = f"{self.code}: {self.message}"
        if self.suggestion:
            text += f"\n  suggestion: {self.suggestion}"
        return text


class ParseError(Error):
    """The other side could not read a request as JSON."""


class InvalidRequestError(Error, builtins.ValueError):
    """A method was given params it does not take, or values it cannot use."""


class UnknownMethodError(Error):
    """The server has no such method."""


class NoWindowError(Error):
    """No window has the id, or the app has none."""


class NoElementError(Error):
    """No element has the id or key, or a locator matched nothing."""


class UnsupportedError(Error):
    """The window or element cannot do what was asked."""


class TimeoutError(Error, builtins.TimeoutError):
    """A wait gave up after its timeout."""


class FailedError(Error):
    """The app could not do it."""


class DisconnectedError(Error, builtins.ConnectionError):
    """The connection to the app could not be made, or it closed."""


class ProtocolError(Error):
    """The other side does not speak the automation protocol."""


class AmbiguousError(Error):
    """A locator matched more than one element where one was needed."""


class NotActionableError(Error):
    """The element is there but cannot take the action (hidden, disabled, moving, read-only)."""


class StaleRefError(Error):
    """A snapshot ref whose element is gone."""


class AppExitedError(Error):
    """The app uidrive launched exited."""


class AssertionFailedError(Error, builtins.AssertionError):
    """An ``expect`` assertion did not hold before its timeout."""


ERRORS_BY_CODE: dict[str, type[Error]] = {
    "parse_error": ParseError,
    "invalid_request": InvalidRequestError,
    "unknown_method": UnknownMethodError,
    "no_window": NoWindowError,
    "no_element": NoElementError,
    "unsupported": UnsupportedError,
    "timeout": TimeoutError,
    "failed": FailedError,
    "disconnected": DisconnectedError,
    "protocol_error": ProtocolError,
    "ambiguous": AmbiguousError,
    "not_actionable": NotActionableError,
    "stale_ref": StaleRefError,
    "app_exited": AppExitedError,
    "assertion_failed": AssertionFailedError,
}


def _from_native(code: str, message: str, suggestion: str) -> Error:
    """Builds the exception for a code; the native module raises what this returns."""
    return ERRORS_BY_CODE.get(code, Error)(code, message, suggestion)
