"""The shapes of what uidrive returns, as the protocol defines them.

Results are plain dicts and lists, keyed by the protocol's own field names
(``contentBounds``, ``posInSet``, ...), so a node printed from Python reads
the same as one on the wire or from the command line.
"""

from __future__ import annotations

import re
from typing import Any, Literal, TypedDict, Union

__all__ = [
    "ActionResult",
    "Bounds",
    "ElementIdLike",
    "ElementKey",
    "Event",
    "Hello",
    "InputEvent",
    "Node",
    "SnapshotElement",
    "TextLike",
    "Tree",
    "WindowInfo",
]

ElementKey = Union[str, int, bool]
"""An element's ``key``: the app's own lasting name for it."""

ElementIdLike = Union[str, int]
"""An element's ``id``: its digit string as the tree gives it, or the number."""

TextLike = Union[str, "re.Pattern[str]"]
"""Text to find: a str matches case-insensitively as a substring (the whole
text, case-sensitively, with ``exact=True``); a compiled ``re`` pattern is
searched in the text (its IGNORECASE, MULTILINE and DOTALL flags are kept)."""


class Bounds(TypedDict):
    x: float
    y: float
    width: float
    height: float


class _WindowRequired(TypedDict):
    id: int
    title: str
    kind: str
    bounds: Bounds
    contentBounds: Bounds
    focused: bool
    visible: bool


class WindowInfo(_WindowRequired, total=False):
    url: str
    # What the window manager says of it (uidrive's additions to `windows`).
    states: list[str]
    zIndex: int


class _NodeRequired(TypedDict):
    id: str
    role: str


class Node(_NodeRequired, total=False):
    """One element. ``id`` is a string of digits (64-bit)."""

    parent: str
    key: ElementKey
    label: str
    value: str
    placeholder: str
    classes: list[str]
    tag: str
    description: str
    bounds: Bounds
    states: list[str]
    actions: list[str]
    min: float
    max: float
    now: float
    step: float
    selection: list[int]
    level: int
    posInSet: int
    setSize: int
    rowCount: int
    colCount: int
    rowIndex: int
    colIndex: int
    rowSpan: int
    colSpan: int
    current: str
    autoComplete: str
    roleDescription: str
    hasPopup: str
    controls: list[str]
    describedBy: list[str]
    errorMessage: list[str]
    keyShortcuts: str
    webView: bool


class _TreeRequired(TypedDict):
    window: int
    nodes: list[Node]


class Tree(_TreeRequired, total=False):
    focus: str
    announcements: list[Any]


class Hello(TypedDict, total=False):
    protocol: int
    server: str
    methods: list[str]
    actions: list[str]


InputEvent = dict[str, Any]
"""One ``input`` event as the protocol writes it, e.g.
``{"type": "click", "x": 10, "y": 20}`` or ``{"type": "key", "key": "Ctrl+A"}``."""


class _ActionResultRequired(TypedDict):
    route: str
    effect: Literal["confirmed", "unverifiable"]
    window: int
    element: Node


class ActionResult(_ActionResultRequired, total=False):
    """What an action did, and what the tree showed of it. ``route`` is
    ``"semantic:<action>"`` when the element's own action was used,
    ``"input"`` for real pointer or key input, and ``"not_needed"`` when
    nothing had to be done (already checked, ...). ``effect`` is
    ``"confirmed"`` (the tree showed the change the action is for, said in
    ``observed``) or ``"unverifiable"`` (nothing the tree shows can prove
    it; ``checked`` says what was looked at); an action whose effect did not
    come raises instead. ``element`` is the element acted on as last read;
    ``closed`` lists the windows the action closed (a dialog's Close)."""

    observed: str
    checked: str
    closed: list[int]


class _SnapshotElementRequired(TypedDict):
    ref: str
    id: str
    role: str
    depth: int


class SnapshotElement(_SnapshotElementRequired, total=False):
    """One line of a snapshot. ``ref`` is ``"@e3"``; ``states`` are the ones worth reading."""

    label: str
    value: str
    key: str
    states: list[str]
    parent: str
    children: int
    interactive: bool
    offscreen: bool


class TraceSummary(TypedDict):
    """What ``app.tracing.stop(path=...)`` wrote: the zip, its steps, pictures and size."""

    path: str
    steps: int
    pictures: int
    bytes: int


class Event(TypedDict, total=False):
    """An accessibility event, as ``app.wait_for_event`` returns it: its
    ``kind``, the toolkit's ``detail`` (``focused``, ``insert``,
    ``accessible-name``...), its ``element`` and ``window``, the element as
    read once it came (``node``), and the new ``value`` where it has one."""

    kind: str
    detail: str
    element: str
    window: int
    node: Node
    value: str
