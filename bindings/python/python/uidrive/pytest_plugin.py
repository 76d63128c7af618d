"""uidrive's pytest plugin, loaded by pytest when the wheel is installed.

Fixtures:

- ``desktop``: a private headless desktop (X display, session bus,
  accessibility bus) for the whole session. Under pytest-xdist every worker is
  its own process, so every worker gets a desktop of its own.
- ``app``: a factory, ``app(argv, **launch_options)``, that launches apps on
  that desktop and closes each one when the test ends.

Options:

- ``--uidrive-tracing on|off|retain-on-failure`` (default ``off``): record a
  trace of every app the ``app`` fixture launches (docs/trace.md), kept for
  every test (``on``) or only for the tests that failed
  (``retain-on-failure``), as ``<output>/<test id>/trace.zip``
  (``trace-2.zip``, ... for a test's second and later apps). Open one with
  ``uidrive trace show TRACE --html trace.html`` (the ``uidrive`` command
  the wheel installs; ``python -m uidrive`` is the same).
- ``--uidrive-output DIR`` (default ``test-results``): where traces go.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

import uidrive

TRACING_MODES = ("on", "off", "retain-on-failure")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("uidrive")
    group.addoption(
        "--uidrive-tracing",
        choices=TRACING_MODES,
        default="off",
        help="record a trace of each app the `app` fixture launches: keep it for every test "
        "(on), for failed tests only (retain-on-failure), or record none (off, the default)",
    )
    group.addoption(
        "--uidrive-output",
        default="test-results",
        metavar="DIR",
        help="where traces are written, as DIR/<test id>/trace.zip (default: test-results)",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Keeps each phase's report on the test, so the ``app`` fixture knows at
    teardown whether the test failed."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"_uidrive_report_{report.when}", report)


def trace_dir_name(nodeid: str) -> str:
    """A test id as a directory name: ``t/test_a.py::test_b[x]`` -> ``t-test_a.py-test_b-x``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", nodeid).strip("-.") or "test"


class AppFactory:
    """Launches apps on one desktop and closes them all at the end of a test."""

    def __init__(
        self,
        desktop: uidrive.Desktop,
        *,
        tracing: str = "off",
        trace_dir: Path | None = None,
        title: str | None = None,
    ) -> None:
        self.desktop = desktop
        self.launched: list[uidrive.App] = []
        self.tracing = tracing
        self.trace_dir = trace_dir
        self.title = title
        self.traced: list[uidrive.App] = []
        self.traces: list[Path] = []

    def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        socket_env: str | None = None,
    ) -> uidrive.App:
        app = self.desktop.launch(argv, env=env, timeout=timeout, socket_env=socket_env)
        self.launched.append(app)
        if self.tracing != "off":
            app.tracing.start(title=self.title)
            self.traced.append(app)
        return app

    def stop_traces(self, failed: bool) -> None:
        """Writes each app's trace when the mode keeps it, else drops it."""
        keep = self.tracing == "on" or (self.tracing == "retain-on-failure" and failed)
        for n, app in enumerate(self.traced, start=1):
            if keep and self.trace_dir is not None:
                name = "trace.zip" if n == 1 else f"trace-{n}.zip"
                written = app.tracing.stop(path=self.trace_dir / name)
                if written is not None:
                    self.traces.append(Path(written["path"]))
            else:
                app.tracing.stop()
        self.traced.clear()

    def close_all(self) -> None:
        errors: list[uidrive.Error] = []
        while self.launched:
            try:
                self.launched.pop().close()
            except uidrive.Error as error:
                errors.append(error)
        if errors:
            raise errors[0]


@pytest.fixture(scope="session")
def desktop() -> Iterator[uidrive.Desktop]:
    """A private headless desktop for this session (or this xdist worker)."""
    with uidrive.headless() as started:
        yield started


@pytest.fixture
def app(desktop: uidrive.Desktop, request: pytest.FixtureRequest) -> Iterator[AppFactory]:
    """``app(argv, env=..., timeout=..., socket_env=...)`` launches on ``desktop``;
    every app launched is closed when the test ends. With ``--uidrive-tracing``,
    each is traced, and the trace kept as the option says."""
    mode = str(request.config.getoption("--uidrive-tracing"))
    output = Path(str(request.config.getoption("--uidrive-output")))
    factory = AppFactory(
        desktop,
        tracing=mode,
        trace_dir=output / trace_dir_name(request.node.nodeid),
        title=request.node.nodeid,
    )
    try:
        yield factory
    finally:
        try:
            node = request.node
            failed = any(
                getattr(getattr(node, f"_uidrive_report_{when}", None), "failed", False)
                for when in ("setup", "call")
            )
            factory.stop_traces(failed)
            for path in factory.traces:
                node.config.stash.setdefault(_TRACES, []).append((node.nodeid, path))
        finally:
            factory.close_all()


_TRACES = pytest.StashKey[list[tuple[str, Path]]]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    traces = terminalreporter.config.stash.get(_TRACES, [])
    if traces:
        terminalreporter.section("uidrive traces")
        for nodeid, path in traces:
            terminalreporter.write_line(f"{nodeid}: {path}")
        terminalreporter.write_line(
            "view one with: uidrive trace show TRACE --html trace.html"
            " (the wheel's command; or python -m uidrive trace show ...)"
        )
