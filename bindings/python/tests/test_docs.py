"""Every Python example of the docs, run: the ```python blocks of the
README, of bindings/python/README.md and of docs/first-suite.md, and the
module docstring's example.

A file's blocks run in order, each in a namespace that holds ``uidrive``,
``desktop`` (the session's headless desktop) and ``app`` (gtk3-widget-factory
launched on it), as the READMEs say; a block that defines ``test_*``
functions has each of them called with the plugin's ``app`` fixture.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
import uidrive
from uidrive.pytest_plugin import AppFactory

REPO = Path(__file__).resolve().parents[3]
FENCED = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def fenced_blocks(relative: str) -> list[tuple[str, str]]:
    text = (REPO / relative).read_text()
    return [
        (f"{relative}:{text[: m.start()].count(chr(10)) + 1}", m.group(1))
        for m in FENCED.finditer(text)
    ]


def docstring_example() -> list[tuple[str, str]]:
    """The indented example of the module docstring (between its first
    paragraph and the next unindented line)."""
    doc = uidrive.__doc__ or ""
    lines = doc.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("    "))
    unindented = (i for i in range(start, len(lines)) if lines[i] and not lines[i][0].isspace())
    end = next(unindented, len(lines))
    return [("uidrive.__doc__", textwrap.dedent("\n".join(lines[start:end])))]


EXAMPLES = (
    fenced_blocks("README.md")
    + fenced_blocks("bindings/python/README.md")
    + fenced_blocks("docs/first-suite.md")
    + docstring_example()
)


def test_the_docs_have_examples() -> None:
    assert len(EXAMPLES) >= 7, [where for where, _ in EXAMPLES]


@pytest.mark.parametrize("where,code", EXAMPLES, ids=[where for where, _ in EXAMPLES])
def test_example_runs(
    where: str,
    code: str,
    launch_app: AppFactory,
    desktop: uidrive.Desktop,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # an example that writes a file (trace.zip) writes it here
    namespace: dict[str, Any] = {"uidrive": uidrive, "desktop": desktop}
    if "app." in code and "def test_" not in code and "as app" not in code:
        namespace["app"] = launch_app(["gtk3-widget-factory"])
    exec(compile(code, where, "exec"), namespace)
    for name, function in list(namespace.items()):
        if name.startswith("test_") and callable(function):
            # The plugin's fixtures as pytest would give them: `app` launched
            # from the test's uidrive_app marker, `launch_app` the factory.
            arguments = inspect.signature(function).parameters
            given: dict[str, Any] = {}
            if "launch_app" in arguments:
                given["launch_app"] = launch_app
            if "app" in arguments:
                marks = [m for m in getattr(function, "pytestmark", []) if m.name == "uidrive_app"]
                assert marks, f"{where}: {name} takes `app` but has no uidrive_app marker"
                argv = marks[0].args[0]
                given["app"] = launch_app(
                    argv.split() if isinstance(argv, str) else list(argv), **marks[0].kwargs
                )
            function(**given)
