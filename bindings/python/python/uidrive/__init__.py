"""uidrive: drive native desktop apps from Python through their accessibility tree.

    import uidrive

    with uidrive.headless() as desktop:
        with desktop.launch(["gnome-calculator"]) as app:
            for key in ["7", "\N{MULTIPLICATION SIGN}", "6", "="]:
                outcome = app.get_by_role("button", name=key, exact=True).click()
                print(outcome["effect"], outcome.get("observed", outcome.get("checked")))
            display = app.get_by_role("textField").first  # the calculator has two fields
            uidrive.expect(display).to_have_value("42")  # the whole value, as in Playwright

Each action answers what it did and what the tree showed of it: ``effect``
``"confirmed"`` (with ``observed``) or ``"unverifiable"`` (with ``checked``),
or raises when its effect did not come.

Every call blocks until its answer is in, with the GIL released so other
threads run, and never waits past its timeout (in milliseconds, as in
Playwright: ``timeout=5000`` is five seconds). Errors are
``uidrive.Error`` subclasses carrying ``code``, ``message`` and ``suggestion``.
"""

from uidrive._errors import (
    AmbiguousError,
    AppExitedError,
    AssertionFailedError,
    DisconnectedError,
    Error,
    FailedError,
    InvalidRequestError,
    NoElementError,
    NotActionableError,
    NoWindowError,
    ParseError,
    ProtocolError,
    StaleRefError,
    TimeoutError,
    UnknownMethodError,
    UnsupportedError,
)
from uidrive._expect import expect
from uidrive._native import (
    App,
    Clipboard,
    Desktop,
    Expect,
    ExpectedWindow,
    Locator,
    Notification,
    Snapshot,
    Tracing,
    TrayItem,
    TrayMenuItem,
    Window,
    __version__,
    attach,
    connect,
    headless,
    launch,
)
from uidrive.types import (
    ActionResult,
    Bounds,
    InputEvent,
    Node,
    SnapshotElement,
    TraceSummary,
    Tree,
    WindowInfo,
)

__all__ = [
    "ActionResult",
    "AmbiguousError",
    "App",
    "AppExitedError",
    "AssertionFailedError",
    "Bounds",
    "Clipboard",
    "Desktop",
    "DisconnectedError",
    "Error",
    "Expect",
    "ExpectedWindow",
    "FailedError",
    "InputEvent",
    "InvalidRequestError",
    "Locator",
    "NoElementError",
    "NoWindowError",
    "Node",
    "NotActionableError",
    "Notification",
    "ParseError",
    "ProtocolError",
    "Snapshot",
    "SnapshotElement",
    "StaleRefError",
    "TimeoutError",
    "TraceSummary",
    "Tracing",
    "TrayItem",
    "TrayMenuItem",
    "Tree",
    "UnknownMethodError",
    "UnsupportedError",
    "Window",
    "WindowInfo",
    "__version__",
    "attach",
    "connect",
    "expect",
    "headless",
    "launch",
]
