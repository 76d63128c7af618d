"""Type stubs for uidrive's Rust extension. Every timeout and delay is in milliseconds."""

import os
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, final

from uidrive.types import (
    ActionResult,
    Bounds,
    ElementIdLike,
    ElementKey,
    Event,
    Hello,
    InputEvent,
    Node,
    SnapshotElement,
    TextLike,
    TraceSummary,
    Tree,
    WindowInfo,
)

__all__ = [
    "App",
    "Clipboard",
    "Desktop",
    "Expect",
    "ExpectedWindow",
    "Keyboard",
    "Locator",
    "Notification",
    "Process",
    "Snapshot",
    "Tracing",
    "TrayItem",
    "TrayMenuItem",
    "Window",
    "__version__",
    "attach",
    "cli_main",
    "connect",
    "expect",
    "headless",
    "launch",
]

__version__: str

class _Factories:
    """The locator factories shared by App, Window and Locator."""

    def get_by_role(
        self,
        role: str,
        *,
        name: TextLike | None = None,
        exact: bool = False,
        checked: bool | None = None,
        disabled: bool | None = None,
        expanded: bool | None = None,
        selected: bool | None = None,
        level: int | None = None,
        include_hidden: bool = False,
    ) -> Locator: ...
    def get_by_key(self, key: ElementKey) -> Locator: ...
    def get_by_text(
        self, text: TextLike, *, exact: bool = False, include_hidden: bool = False
    ) -> Locator: ...
    def get_by_label(
        self, label: TextLike, *, exact: bool = False, include_hidden: bool = False
    ) -> Locator: ...
    def get_by_placeholder(
        self, text: TextLike, *, exact: bool = False, include_hidden: bool = False
    ) -> Locator: ...
    def get_by_ocr(self, text: TextLike, *, exact: bool = False) -> Locator:
        """Boxes where OCR reads the text on the window's capture (apps with no tree)."""
    def get_by_image(self, path: str, *, threshold: float | None = None) -> Locator:
        """Boxes where the PNG file's picture shows on the window's capture (0.9 by default)."""
    def get_by_id(self, id: ElementIdLike) -> Locator: ...

@final
class App(_Factories):
    """An app under automation. Close it, or use ``with``, to end a process uidrive launched."""

    @property
    def pid(self) -> int | None: ...
    @property
    def tracing(self) -> Tracing: ...
    @property
    def timeouts(self) -> dict[str, float]: ...
    def set_timeouts(self, *, action: float | None = None, expect: float | None = None) -> None: ...
    def locator(self, selector: str) -> Locator: ...
    def window(
        self, title: TextLike | None = None, *, id: int | None = None, exact: bool = False
    ) -> Window: ...
    def snapshot(self, *, interactive: bool = False, window: int | None = None) -> Snapshot: ...
    def get_by_ref(self, r: str) -> Locator: ...
    @property
    def keyboard(self) -> Keyboard: ...
    @property
    def process(self) -> Process | None: ...
    def hello(self) -> Hello: ...
    def windows(self) -> list[WindowInfo]: ...
    def tree(self, *, window: int | None = None) -> Tree: ...
    def act(
        self,
        action: str,
        *,
        id: ElementIdLike | None = None,
        key: ElementKey | None = None,
        text: str | None = None,
        from_: int | None = None,
        to: int | None = None,
        window: int | None = None,
    ) -> None: ...
    def input(self, events: Sequence[InputEvent], *, window: int | None = None) -> None: ...
    def menu(self, path: Sequence[str], *, window: int | None = None) -> None: ...
    def capture(self, *, window: int | None = None) -> bytes: ...
    def eval(self, script: str, *, window: int | None = None) -> Any: ...
    def idle(self, *, timeout: float | None = None, window: int | None = None) -> None: ...
    def wait_changed(
        self,
        *,
        region: tuple[float, float, float, float] | None = None,
        timeout: float | None = None,
        window: int | None = None,
    ) -> dict[str, float]:
        """Waits until the window's pixels change, then settle (two captures alike)."""
    def wait_for_window(self, title: TextLike, *, timeout: float | None = None) -> WindowInfo:
        """Waits until a window whose title matches shows (a dialog an action opens)."""
    def wait_for_event(
        self,
        kind: Literal["focus", "value", "name", "states", "children", "window"],
        target: Locator | None = None,
        *,
        timeout: float | None = None,
    ) -> Event:
        """Waits for an accessibility event the app sends (of target's element, if given)."""
    def call(self, method: str, params: Mapping[str, Any] | None = None) -> Any: ...
    def apps(self) -> list[dict[str, Any]]:
        """Every app on the desktop's accessibility bus: name, pid, toolkit, windows."""
    def capture_screen(self) -> bytes:
        """The whole screen as PNG bytes."""
    def expect_window(self, *, timeout: float | None = None) -> ExpectedWindow:
        """``with app.expect_window() as info: ...``: ``info.value`` is the window
        the block opened, found by its appearance (a new window id)."""
    def close(self) -> Literal["windows", "terminated", "killed", "exited", "detached"]: ...
    def __enter__(self) -> App: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

@final
class Process:
    """The process uidrive launched (``app.process``)."""

    @property
    def pid(self) -> int: ...
    @property
    def returncode(self) -> int | None: ...
    @property
    def stdout(self) -> str | None: ...
    @property
    def stderr(self) -> str | None: ...
    def wait(self, timeout: float | None = None) -> int: ...

@final
class Keyboard:
    """Real key and text input into whatever element has the focus (``app.keyboard``)."""

    def type(
        self, text: str, *, delay: float | None = None, window: int | None = None
    ) -> ActionResult: ...
    def press(self, chord: str, *, window: int | None = None) -> ActionResult: ...
    def down(self, chord: str, *, window: int | None = None) -> ActionResult:
        """Presses ``chord``'s keys (``"Shift"``, ``"Ctrl+Shift"``) and leaves them
        down for the clicks and keys that follow, until ``up`` or the app closes.
        ``"unverifiable"``: a held key shows nothing by itself."""
    def up(self, chord: str, *, window: int | None = None) -> ActionResult:
        """Releases keys ``down`` holds. ``"unverifiable"``."""

@final
class Snapshot:
    """What one window showed: a line per element with refs (``@e3``) that last
    between snapshots of the same App."""

    @property
    def text(self) -> str: ...
    @property
    def window(self) -> int: ...
    @property
    def elements(self) -> list[SnapshotElement]: ...
    def __getitem__(self, key: str, /) -> Any: ...
    def __contains__(self, key: object, /) -> bool: ...
    def keys(self) -> list[str]: ...

@final
class Window(_Factories):
    """One window of an app as a starting point for locators, found again at every use."""

    def locator(self, selector: str) -> Locator: ...
    def move(self, x: int, y: int) -> dict[str, Any]:
        """Moves the window's content to ``x``, ``y`` through the window manager;
        its state (``bounds``, ``states``, ``zIndex``, ``effect``) once confirmed."""
    def resize(self, width: int, height: int) -> dict[str, Any]: ...
    def minimize(self) -> dict[str, Any]: ...
    def maximize(self) -> dict[str, Any]: ...
    def restore(self) -> dict[str, Any]: ...
    def focus(self) -> dict[str, Any]: ...
    def close(self) -> dict[str, Any]:
        """Asks the window to close as its close button does; waits for it to go."""
    def bounds(self) -> Bounds: ...
    def states(self) -> list[str]:
        """Which of minimized, maximized, fullscreen, focused, above hold."""

@final
class ExpectedWindow:
    """``App.expect_window()``: a context manager whose ``value`` is the window
    the ``with`` block opened."""

    @property
    def value(self) -> WindowInfo: ...
    def __enter__(self) -> ExpectedWindow: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

@final
class Locator(_Factories):
    """A description of elements, resolved against a fresh tree at every use."""

    @property
    def description(self) -> str: ...
    def locator(self, selector: str | Locator) -> Locator: ...
    def nth(self, index: int) -> Locator: ...
    def cell(self, row: int, column: int) -> Locator:
        """The cell at ``row`` and ``column`` (both from 1) of the tables this
        locator finds; a table too big to read whole is asked for that cell."""
    @property
    def first(self) -> Locator: ...
    @property
    def last(self) -> Locator: ...
    def filter(
        self,
        *,
        has_text: TextLike | None = None,
        has_not_text: TextLike | None = None,
        has: Locator | None = None,
        has_not: Locator | None = None,
        exact: bool = False,
    ) -> Locator: ...
    def include_hidden(self, include: bool = True) -> Locator: ...
    def with_timeout(self, timeout: float) -> Locator: ...
    def count(self) -> int: ...
    def all(self) -> list[Locator]: ...
    def node(self, *, timeout: float | None = None) -> Node: ...
    def text(self, *, timeout: float | None = None) -> str: ...
    def value(self, *, timeout: float | None = None) -> str | None: ...
    def states(self, *, timeout: float | None = None) -> list[str]: ...
    def bounds(self, *, timeout: float | None = None) -> Bounds | None: ...
    def screenshot(
        self, path: str | os.PathLike[str] | None = None, *, timeout: float | None = None
    ) -> bytes:
        """A PNG of the one element, cut from a capture of its window (written to ``path`` too)."""
    def is_visible(self, *, timeout: float | None = None) -> bool: ...
    def is_hidden(self, *, timeout: float | None = None) -> bool: ...
    def is_enabled(self, *, timeout: float | None = None) -> bool: ...
    def is_checked(self, *, timeout: float | None = None) -> bool: ...
    def is_focused(self, *, timeout: float | None = None) -> bool: ...
    def is_expanded(self, *, timeout: float | None = None) -> bool:
        """Whether it reads expanded (a GTK 4 tree row: its expander does)."""
    def is_editable(self, *, timeout: float | None = None) -> bool:
        """Whether it takes text and is not read-only."""
    def click(
        self,
        *,
        button: Literal["left", "right", "middle"] | None = None,
        click_count: int | None = None,
        timeout: float | None = None,
    ) -> ActionResult:
        """A real click where the app's hit test says it lands on the element,
        else its own press action (``route`` says which). Another ``button``, or
        ``click_count`` 2 or 3: always real clicks of that button, in a row."""
    def activate(self, *, timeout: float | None = None) -> ActionResult: ...
    def press_sequentially(
        self, text: str, *, delay: float | None = None, timeout: float | None = None
    ) -> ActionResult: ...
    def dblclick(self, *, timeout: float | None = None) -> ActionResult: ...
    def fill(self, text: str, *, timeout: float | None = None) -> ActionResult: ...
    def type(self, text: str, *, timeout: float | None = None) -> ActionResult: ...
    def press(self, key: str, *, timeout: float | None = None) -> ActionResult: ...
    def check(self, *, timeout: float | None = None) -> ActionResult: ...
    def uncheck(self, *, timeout: float | None = None) -> ActionResult: ...
    def set_checked(self, checked: bool, *, timeout: float | None = None) -> ActionResult: ...
    def select_option(
        self, option: TextLike, *, exact: bool = False, timeout: float | None = None
    ) -> ActionResult: ...
    def hover(self, *, timeout: float | None = None) -> ActionResult: ...
    def focus(self, *, timeout: float | None = None) -> ActionResult: ...
    def scroll_into_view(self, *, timeout: float | None = None) -> ActionResult: ...
    def set_value(self, value: float, *, timeout: float | None = None) -> ActionResult: ...
    def drag_to(self, target: Locator, *, timeout: float | None = None) -> ActionResult: ...
    def scroll(
        self,
        direction: Literal["up", "down", "left", "right"],
        notches: int | None = None,
        *,
        timeout: float | None = None,
    ) -> ActionResult:
        """Turns the real mouse wheel ``notches`` clicks (1 to 1000) over its
        centre. ``"confirmed"`` when the tree shows it (elements came, went or
        moved), else ``"unverifiable"``."""
    def expand(self, *, timeout: float | None = None) -> ActionResult:
        """Expands a tree row, an expander or a combo box and waits until it
        reads ``expanded`` (``route`` ``"not_needed"`` when it did already)."""
    def collapse(self, *, timeout: float | None = None) -> ActionResult:
        """Collapses what ``expand`` expands and waits until it no longer reads
        ``expanded``."""
    def increment(self, steps: int | None = None, *, timeout: float | None = None) -> ActionResult:
        """Steps a slider or spin button up ``steps`` times (1 to 1000) by its own
        action and waits until its number grew; at its maximum, ``route``
        ``"not_needed"`` and nothing is sent."""
    def decrement(self, steps: int | None = None, *, timeout: float | None = None) -> ActionResult:
        """Steps it down, as ``increment`` steps it up."""
    def select_text(self, from_: int, to: int, *, timeout: float | None = None) -> ActionResult:
        """Selects the characters ``from_`` to ``to`` (``to`` excluded, counted
        from 0) of its text and waits until its selection reads so; ``from_``
        after ``to`` raises ``InvalidRequestError``."""

@final
class Expect:
    """Assertions on a locator, each retried until it holds or its timeout passes."""

    @property
    def not_(self) -> Expect:
        """Deprecated: write ``not_to_...`` (``expect(l).not_to_be_checked()``)."""
    def to_be_visible(self, *, timeout: float | None = None) -> None: ...
    def to_be_hidden(self, *, timeout: float | None = None) -> None: ...
    def to_be_enabled(self, *, timeout: float | None = None) -> None: ...
    def to_be_disabled(self, *, timeout: float | None = None) -> None: ...
    def to_be_checked(self, *, timeout: float | None = None) -> None: ...
    def to_be_focused(self, *, timeout: float | None = None) -> None: ...
    def to_be_editable(self, *, timeout: float | None = None) -> None: ...
    def to_have_text(
        self,
        text: TextLike,
        *,
        exact: bool | None = None,
        ignore_case: bool = False,
        timeout: float | None = None,
    ) -> None: ...
    def to_contain_text(
        self, text: TextLike, *, ignore_case: bool = False, timeout: float | None = None
    ) -> None: ...
    def to_have_value(
        self,
        value: TextLike,
        *,
        exact: bool | None = None,
        ignore_case: bool = False,
        timeout: float | None = None,
    ) -> None: ...
    def to_have_state(self, state: str, *, timeout: float | None = None) -> None: ...
    def to_have_count(self, count: int, *, timeout: float | None = None) -> None: ...
    def not_to_be_visible(self, *, timeout: float | None = None) -> None: ...
    def not_to_be_hidden(self, *, timeout: float | None = None) -> None: ...
    def not_to_be_enabled(self, *, timeout: float | None = None) -> None: ...
    def not_to_be_disabled(self, *, timeout: float | None = None) -> None: ...
    def not_to_be_checked(self, *, timeout: float | None = None) -> None: ...
    def not_to_be_focused(self, *, timeout: float | None = None) -> None: ...
    def not_to_be_editable(self, *, timeout: float | None = None) -> None: ...
    def not_to_have_text(
        self,
        text: TextLike,
        *,
        exact: bool | None = None,
        ignore_case: bool = False,
        timeout: float | None = None,
    ) -> None: ...
    def not_to_contain_text(
        self, text: TextLike, *, ignore_case: bool = False, timeout: float | None = None
    ) -> None: ...
    def not_to_have_value(
        self,
        value: TextLike,
        *,
        exact: bool | None = None,
        ignore_case: bool = False,
        timeout: float | None = None,
    ) -> None: ...
    def not_to_have_state(self, state: str, *, timeout: float | None = None) -> None: ...
    def not_to_have_count(self, count: int, *, timeout: float | None = None) -> None: ...

@final
class Desktop:
    """A private headless desktop: X display, session bus, accessibility bus."""

    @property
    def display(self) -> str: ...
    @property
    def env(self) -> dict[str, str]: ...
    @property
    def closed(self) -> bool: ...
    def launch(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
        socket_env: str | None = None,
        capture_output: bool = False,
    ) -> App: ...
    def attach(
        self, *, pid: int | None = None, name: str | None = None, timeout: float | None = None
    ) -> App: ...
    def close(self) -> None: ...
    # The desktop's services (uidrive holds the clipboard, and is the
    # notification server and the tray's watcher on its headless desktop).
    @property
    def clipboard(self) -> Clipboard: ...
    def notifications(self) -> list[Notification]: ...
    def wait_for_notification(
        self,
        *,
        summary: str | None = None,
        body: str | None = None,
        app: str | None = None,
        timeout: float | None = None,
    ) -> Notification: ...
    def tray(self) -> list[TrayItem]: ...
    def __enter__(self) -> Desktop: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool: ...

@final
class Clipboard:
    """The desktop's clipboard (``desktop.clipboard``); ``primary=True``: the
    primary selection. uidrive holds what it sets and serves it to apps."""

    def get(self, *, primary: bool = False) -> str | None: ...
    def set(self, text: str, *, primary: bool = False) -> None: ...
    def clear(self, *, primary: bool = False) -> None: ...
    def get_image(self, *, primary: bool = False) -> bytes | None:
        """PNG bytes, when the app holding the clipboard offers ``image/png``."""

@final
class Notification:
    """A notification an app showed (``desktop.notifications()``)."""

    @property
    def id(self) -> int: ...
    @property
    def app_name(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def body(self) -> str: ...
    @property
    def actions(self) -> list[tuple[str, str]]:
        """``(action id, label)`` pairs, in order."""
    @property
    def urgency(self) -> Literal["low", "normal", "critical"]: ...
    @property
    def time(self) -> float:
        """When it was shown, in seconds since the epoch."""
    @property
    def icon(self) -> str: ...
    @property
    def category(self) -> str | None: ...
    def dismiss(self) -> None: ...
    def invoke(self, action: str) -> None:
        """Invokes action ``action`` (its app gets ``ActionInvoked``); it then closes."""

@final
class TrayItem:
    """An item of the tray (``desktop.tray()``)."""

    @property
    def id(self) -> str: ...
    @property
    def service(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def tooltip(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def category(self) -> str: ...
    @property
    def icon(self) -> str: ...
    @property
    def has_menu(self) -> bool: ...
    def activate(self) -> None: ...
    def menu(self) -> list[TrayMenuItem]: ...

@final
class TrayMenuItem:
    """An entry of a tray item's menu (``item.menu()``)."""

    @property
    def id(self) -> int: ...
    @property
    def label(self) -> str: ...
    @property
    def enabled(self) -> bool: ...
    @property
    def visible(self) -> bool: ...
    @property
    def separator(self) -> bool: ...
    @property
    def toggle(self) -> str: ...
    @property
    def checked(self) -> bool: ...
    @property
    def path(self) -> list[str]: ...
    @property
    def submenu(self) -> bool: ...
    def click(self) -> None: ...

def connect(socket_path: str | os.PathLike[str]) -> App: ...
def launch(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    socket_env: str | None = None,
    capture_output: bool = False,
) -> App: ...
def attach(
    *,
    pid: int | None = None,
    name: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> App: ...
def headless(
    *,
    width: int | None = None,
    height: int | None = None,
    timeout: float | None = None,
    backend: Literal["x11", "wayland"] | None = None,
    xwayland: bool = False,
) -> Desktop: ...
def expect(locator: Locator, *, timeout: float | None = None) -> Expect: ...
def cli_main(argv: Sequence[str], self_command: Sequence[str]) -> int: ...


@final
class Tracing:
    """Records every action and ``expect`` of an app's locators as a step (docs/trace.md)."""

    def start(
        self, *, screenshots: bool = True, snapshots: bool = True, title: str | None = None
    ) -> None: ...
    def stop(self, *, path: str | os.PathLike[str] | None = None) -> TraceSummary | None: ...
    @property
    def is_recording(self) -> bool: ...
