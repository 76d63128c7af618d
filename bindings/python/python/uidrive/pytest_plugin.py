"""uidrive's pytest plugin, loaded by pytest when the wheel is installed.

Fixtures, named as pytest-playwright names its own:

- ``desktop``: a private headless desktop (X display, session bus,
  accessibility bus) for the whole session. Under pytest-xdist every worker is
  its own process, so every worker gets a desktop of its own.
- ``app``: the app the test is about, launched on that desktop and closed when
  the test ends. Its command comes from the test's marker,
  ``@pytest.mark.uidrive_app(["gnome-calculator"], timeout=60_000)`` (a list,
  or a string split as a shell splits it, plus ``desktop.launch`` options), or
  else from the ini key ``uidrive_app``.
- ``launch_app``: a factory, ``launch_app(argv, **launch_options)``, that
  launches apps on that desktop and closes each one when the test ends (what
  ``app`` itself uses).

Options (each also an ini key, without the leading dashes and with ``_``):

- ``--uidrive-tracing on|off|retain-on-failure`` (default ``off``): record a
  trace of every app ``app`` and ``launch_app`` launch (docs/trace.md), kept for
  every test (``on``) or only for the tests that failed
  (``retain-on-failure``), as ``<output>/<test id>/trace.zip``
  (``trace-2.zip``, ... for a test's second and later apps). Open one with
  ``uidrive trace show TRACE --html trace.html`` (the ``uidrive`` command
  the wheel installs; ``python -m uidrive`` is the same).
- ``--uidrive-output DIR`` (default ``test-results``): where traces go.
- ``--uidrive-expect-timeout MS`` (ini ``uidrive_expect_timeout``): the
  suite's default timeout for ``expect``, in milliseconds, as
  ``uidrive.expect.set_options(timeout=MS)`` sets it.

Every timeout is in milliseconds, as in Playwright.
"""

from __future__ import annotations

import re
import shlex
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
    group.addoption(
        "--uidrive-expect-timeout",
        type=float,
        default=None,
        metavar="MS",
        help="the default timeout of expect assertions, in milliseconds "
        "(ini: uidrive_expect_timeout; default: the App's, 5000)",
    )
    parser.addini(
        "uidrive_app",
        "the command the `app` fixture launches when the test has no uidrive_app marker "
        "(split as a shell splits it)",
        default="",
    )
    parser.addini(
        "uidrive_expect_timeout",
        "the default timeout of expect assertions, in milliseconds",
        default="",
    )


def pytest_configure(config: pytest.Config) -> None:
    _COLLECTED.clear()
    config.addinivalue_line(
        "markers",
        "uidrive_app(argv, **launch_options): the app the `app` fixture launches "
        "(argv a list or a shell-split string; options as desktop.launch takes them)",
    )
    option = config.getoption("--uidrive-expect-timeout")
    ini = str(config.getini("uidrive_expect_timeout") or "").strip()
    if option is not None:
        uidrive.expect.set_options(timeout=option)
    elif ini:
        try:
            uidrive.expect.set_options(timeout=float(ini))
        except ValueError:
            raise pytest.UsageError(
                f"uidrive_expect_timeout = {ini!r}: give a number of milliseconds"
            ) from None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Keeps each phase's report on the test, so the ``app`` fixture knows at
    teardown whether the test failed."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    setattr(item, f"_uidrive_report_{report.when}", report)
    if report.failed and report.when in ("setup", "call"):
        # The apps' own output, captured at launch, in the failure's report.
        for factory in item.stash.get(_FACTORIES, []):
            report.sections.extend(factory.output_sections())
    if report.when == "teardown":
        for path in item.stash.get(_NODE_TRACES, []):
            report.user_properties.append(("uidrive_trace", str(path)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collects the traces the tests wrote, in this process or an xdist worker."""
    if report.when == "teardown":
        for name, value in report.user_properties:
            if name == "uidrive_trace":
                _COLLECTED.append((report.nodeid, Path(str(value))))


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
        self.argv: list[list[str]] = []

    def output_sections(self) -> list[tuple[str, str]]:
        """Each captured app's stdout and stderr, titled for a test report."""
        sections = []
        for app, argv in zip(self.launched, self.argv):
            process = app.process
            if process is None:
                continue
            for stream in ("stdout", "stderr"):
                text = getattr(process, stream)
                if text:
                    sections.append((f"uidrive app {argv[0]} (pid {process.pid}) {stream}", text))
        return sections

    def __call__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
        socket_env: str | None = None,
        capture_output: bool | None = None,
    ) -> uidrive.App:
        # The app's own stdout and stderr are kept on it (app.process.stdout,
        # .stderr) and shown in the report of a failed test, not printed.
        # An app reached over a protocol socket is not captured.
        capture = socket_env is None if capture_output is None else capture_output
        app = self.desktop.launch(
            argv, env=env, timeout=timeout, socket_env=socket_env, capture_output=capture
        )
        self.launched.append(app)
        self.argv.append(list(argv))
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
def launch_app(desktop: uidrive.Desktop, request: pytest.FixtureRequest) -> Iterator[AppFactory]:
    """``launch_app(argv, env=..., timeout=..., socket_env=...)`` launches on
    ``desktop``; every app launched is closed when the test ends. With
    ``--uidrive-tracing``, each is traced, and the trace kept as the option says."""
    mode = str(request.config.getoption("--uidrive-tracing"))
    output = Path(str(request.config.getoption("--uidrive-output")))
    factory = AppFactory(
        desktop,
        tracing=mode,
        trace_dir=output / trace_dir_name(request.node.nodeid),
        title=request.node.nodeid,
    )
    request.node.stash.setdefault(_FACTORIES, []).append(factory)
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
            # Listed through the teardown report's user_properties, which
            # pytest-xdist carries from its workers to the controller.
            node.stash.setdefault(_NODE_TRACES, []).extend(factory.traces)
        finally:
            factory.close_all()


def app_command(request: pytest.FixtureRequest) -> tuple[list[str], dict[str, object]]:
    """The argv and launch options the ``app`` fixture launches: the closest
    ``uidrive_app`` marker's, else the ``uidrive_app`` ini key's."""
    marker = request.node.get_closest_marker("uidrive_app")
    if marker is not None:
        if len(marker.args) != 1:
            raise pytest.UsageError(
                "@pytest.mark.uidrive_app takes one argv: "
                '@pytest.mark.uidrive_app(["gnome-calculator"])'
            )
        given = marker.args[0]
        argv = shlex.split(given) if isinstance(given, str) else [str(a) for a in given]
        return argv, dict(marker.kwargs)
    ini = str(request.config.getini("uidrive_app") or "")
    return shlex.split(ini), {}


@pytest.fixture
def app(launch_app: AppFactory, request: pytest.FixtureRequest) -> uidrive.App:
    """The app of ``@pytest.mark.uidrive_app(argv)`` (or the ini key
    ``uidrive_app``), launched on ``desktop`` and closed when the test ends."""
    argv, options = app_command(request)
    if not argv:
        pytest.fail(
            f"{request.node.nodeid}: the `app` fixture launches the app named by "
            '@pytest.mark.uidrive_app(["gnome-calculator"]) or the ini key uidrive_app; '
            "to launch apps yourself, use the `launch_app` fixture",
            pytrace=False,
        )
    return launch_app(argv, **options)  # type: ignore[arg-type]


_NODE_TRACES = pytest.StashKey[list[Path]]()
_FACTORIES = pytest.StashKey[list[AppFactory]]()
# The controller's list (one pytest session per process).
_COLLECTED: list[tuple[str, Path]] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    traces = _COLLECTED
    if traces:
        terminalreporter.section("uidrive traces")
        for nodeid, path in traces:
            terminalreporter.write_line(f"{nodeid}: {path}")
        terminalreporter.write_line(
            "view one with: uidrive trace show TRACE --html trace.html"
            " (the wheel's command; or python -m uidrive trace show ...)"
        )
