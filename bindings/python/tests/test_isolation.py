"""Each app launched on the headless desktop gets a home of its own (HOME and
the XDG config, cache, data and state directories, inside the desktop's
private runtime directory), unless the caller names one; settings go to
GSettings' memory backend. Read from the apps' own /proc/PID/environ."""

from __future__ import annotations

import os
from pathlib import Path

from uidrive.pytest_plugin import AppFactory

XDG = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
    return dict(entry.split("=", 1) for entry in raw.split("\0") if "=" in entry)


def test_each_app_gets_a_private_home_unless_told_otherwise(
    launch_app: AppFactory, tmp_path: Path
) -> None:
    first = environ(launch_app(["gnome-calculator"]).pid or 0)
    second = environ(launch_app(["gtk3-widget-factory"]).pid or 0)
    assert first["HOME"] != second["HOME"]
    for env in (first, second):
        home = Path(env["HOME"])
        assert home.is_dir() and str(home) != os.environ.get("HOME")
        # Inside the desktop's runtime directory, which only its user can enter.
        runtime = home.parent.parent
        assert (runtime.stat().st_mode & 0o077) == 0, oct(runtime.stat().st_mode)
        for name in XDG:
            assert Path(env[name]).is_dir() and Path(env[name]).is_relative_to(home), (name, env)
        assert env["GSETTINGS_BACKEND"] == "memory"

    # A caller who names the home gets that one, and no private XDG directories.
    own = tmp_path / "own-home"
    own.mkdir()
    third = environ(launch_app(["gtk3-widget-factory"], env={"HOME": str(own)}).pid or 0)
    assert third["HOME"] == str(own)
    for name in XDG:
        assert third.get(name) == os.environ.get(name), name
