"""pytest-xdist: every worker gets a private headless desktop of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import uidrive

INNER_TEST = textwrap.dedent(
    """
    import json, os

    def _record(desktop, name):
        out = os.environ["UIDRIVE_PARALLEL_OUT"]
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        with open(os.path.join(out, name + "-" + worker + ".json"), "w") as f:
            json.dump({"worker": worker, "display": desktop.display}, f)

    def test_one(desktop):
        _record(desktop, "one")

    def test_two(desktop):
        _record(desktop, "two")

    def test_three(desktop):
        _record(desktop, "three")

    def test_four(desktop):
        _record(desktop, "four")
    """
)


def test_desktop_fixture_is_private_to_each_worker(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER_TEST)
    out = tmp_path / "out"
    out.mkdir()
    env = dict(os.environ, UIDRIVE_PARALLEL_OUT=str(out))
    run = subprocess.run(
        # --dist each: both workers run every test, so both surely start a desktop
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "--dist",
            "each",
            "-p",
            "no:cacheprovider",
            "-q",
            "test_inner.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    records = [json.loads(p.read_text()) for p in out.glob("*.json")]
    assert len(records) == 8
    displays = {r["worker"]: r["display"] for r in records}
    assert len(displays) == 2, f"expected two workers, saw {displays}"
    # one desktop per worker, and never two workers on one display
    per_worker: dict[str, set[str]] = {}
    for record in records:
        per_worker.setdefault(record["worker"], set()).add(record["display"])
    assert all(len(seen) == 1 for seen in per_worker.values()), per_worker
    assert len(set(displays.values())) == 2, displays


def test_this_worker_has_its_own_desktop(desktop: uidrive.Desktop) -> None:
    assert desktop.display.startswith(":")
    env = desktop.env
    assert env["DISPLAY"] == desktop.display
    assert env["DBUS_SESSION_BUS_ADDRESS"]
    assert not desktop.closed
