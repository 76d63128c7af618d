"""The wheel carries the `uidrive` command: `pip install` of the wheel into a
fresh venv puts `uidrive` (agent CLI, MCP server, trace viewer, `serve`) on
the venv's PATH, and `python -m uidrive` runs the same command. Both run the
command line compiled into the extension: the wheel holds no second binary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import uidrive


def _wheel() -> Path:
    """The wheel under test (test.sh sets UIDRIVE_WHEEL to the one it built)."""
    path = os.environ.get("UIDRIVE_WHEEL")
    if not path or not Path(path).is_file():
        raise RuntimeError("set UIDRIVE_WHEEL to the built wheel (bindings/python/test.sh does)")
    return Path(path)


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A new venv (with pip) with only the wheel installed, as a user would."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    made = time.monotonic()
    subprocess.run(
        [
            str(venv / "bin" / "pip"),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
            str(_wheel()),
        ],
        check=True,
    )
    done = time.monotonic()
    print(f"venv {made - started:.1f} s; pip install of the wheel {done - made:.1f} s")
    yield venv


def _run(
    venv: Path, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    # Only the venv's bin on PATH (plus the system's), as after `source venv/bin/activate`.
    environment = dict(os.environ if env is None else env)
    environment["PATH"] = f"{venv / 'bin'}:/usr/bin:/bin"
    environment.pop("UIDRIVE_BIN", None)
    return subprocess.run(list(argv), capture_output=True, text=True, env=environment)


def test_the_wheel_puts_uidrive_on_the_venvs_path(fresh_venv: Path) -> None:
    script = fresh_venv / "bin" / "uidrive"
    assert script.is_file()
    out = _run(fresh_venv, "uidrive", "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"uidrive {uidrive.__version__}"
    # The command's help lists the agent commands, the MCP server, the trace viewer and serve.
    help_text = _run(fresh_venv, "uidrive", "--help")
    assert help_text.returncode == 0, help_text.stderr
    for command in ("serve", "mcp", "trace", "snapshot", "click"):
        assert f"\n  {command} " in help_text.stdout, help_text.stdout


def test_python_dash_m_uidrive_is_the_same_command(fresh_venv: Path) -> None:
    out = _run(fresh_venv, str(fresh_venv / "bin" / "python"), "-m", "uidrive", "--version")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"uidrive {uidrive.__version__}"
    bad = _run(fresh_venv, str(fresh_venv / "bin" / "python"), "-m", "uidrive", "no-such-command")
    assert bad.returncode == 2
    assert "no-such-command" in bad.stderr


def test_the_wheel_ships_no_second_binary() -> None:
    with zipfile.ZipFile(_wheel()) as wheel:
        names = wheel.namelist()
        sizes = {i.filename: i.file_size for i in wheel.infolist()}
    assert not [n for n in names if ".data/scripts/" in n], names
    native = [n for n in names if n.endswith(".abi3.so")]
    assert len(native) == 1, names
    print(f"wheel {_wheel().stat().st_size} bytes; extension {sizes[native[0]]} bytes unpacked")


def test_serve_and_trace_show_from_the_installed_command(fresh_venv: Path, tmp_path: Path) -> None:
    socket = tmp_path / "demo.sock"
    server = subprocess.Popen(
        [str(fresh_venv / "bin" / "uidrive"), "serve", "--socket", str(socket), "--demo"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                app = uidrive.connect(socket)
                break
            except uidrive.DisconnectedError:
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < deadline, "uidrive serve did not listen within 30 s"
                time.sleep(0.05)
        with app:
            app.tracing.start(screenshots=False, snapshots=True, title="from the wheel")
            app.get_by_role("button", name="Add").click()
            trace = app.tracing.stop(path=tmp_path / "trace.zip")
    finally:
        server.terminate()
        server.communicate(timeout=30)
    assert trace is not None
    shown = _run(fresh_venv, "uidrive", "trace", "show", trace["path"])
    assert shown.returncode == 0, shown.stderr
    assert "from the wheel" in shown.stdout
    assert "click" in shown.stdout
    html = tmp_path / "trace.html"
    page = _run(fresh_venv, "uidrive", "trace", "show", trace["path"], "--html", str(html))
    assert page.returncode == 0, page.stderr
    assert html.read_text().lstrip().lower().startswith("<!doctype html")


def test_a_session_daemon_started_from_the_venv_runs(fresh_venv: Path, tmp_path: Path) -> None:
    # `open` leaves a daemon running `uidrive serve`: from the wheel it is
    # `python -m uidrive serve`, the interpreter being this process's executable.
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env["XDG_RUNTIME_DIR"] = str(tmp_path)
    opened = _run(
        fresh_venv,
        "uidrive",
        "--session",
        "wheel",
        "open",
        "--headless",
        "--timeout",
        "60000",
        "--launch",
        "gnome-calculator",
        env=env,
    )
    try:
        assert opened.returncode == 0, opened.stdout + opened.stderr
        pressed = _run(
            fresh_venv,
            "uidrive",
            "--session",
            "wheel",
            "--json",
            "click",
            "role=button name=7",
            env=env,
        )
        assert pressed.returncode == 0, pressed.stdout + pressed.stderr
        assert json.loads(pressed.stdout)["ok"] is True, pressed.stdout
    finally:
        closed = _run(fresh_venv, "uidrive", "--session", "wheel", "close", env=env)
    assert closed.returncode == 0, closed.stdout + closed.stderr
