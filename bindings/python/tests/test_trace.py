"""Traces from pytest: a failing gnome-calculator test run under
``--uidrive-tracing retain-on-failure`` leaves a trace, a passing one leaves
nothing, and the trace's HTML view, opened in headless Chromium, shows every
step with its pictures and the failing step's error and suggestion."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest
import uidrive

CALCULATOR_TESTS = """
import pytest
import uidrive


def press_7_times_6(calculator: uidrive.App) -> uidrive.Locator:
    for label in ["7", "\\N{MULTIPLICATION SIGN}", "6", "="]:
        calculator.get_by_role("button", name=label, exact=True).click()
    return calculator.get_by_role("textField").first


@pytest.mark.uidrive_app(["gnome-calculator"])
def test_passes(app: uidrive.App) -> None:
    display = press_7_times_6(app)
    uidrive.expect(display).to_have_value("42", exact=True)


# Its own output, once, before it becomes gnome-calculator (the same pid);
# quoted so the markers show only as the app prints them, not in this source.
@pytest.mark.uidrive_app(
    ["sh", "-c", "echo uidrive-marker-'out'; echo uidrive-marker-'err' >&2; exec gnome-calculator"]
)
def test_fails(app: uidrive.App) -> None:
    display = press_7_times_6(app)
    uidrive.expect(display).to_have_value("43", exact=True, timeout=1000)
"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")


def run_chromium(url: str, profile: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium with a fresh profile and nothing fetched from the network."""
    argv = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        *extra,
        url,
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)


def png_pixels(path: Path) -> tuple[int, int, bytes]:
    """Width, height and the raw (filtered) scanlines of an 8-bit PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, size = 8, b"", (0, 0)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    return size[0], size[1], zlib.decompress(idat)


def test_trace_of_a_failing_calculator_test_opens_in_chromium(
    tmp_path: Path, uidrive_bin: str
) -> None:
    (tmp_path / "test_calc.py").write_text(CALCULATOR_TESTS)
    output = tmp_path / "test-results"
    env = dict(os.environ)
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            # Under xdist the workers write the traces; the controller lists them.
            "-n",
            "2",
            "--uidrive-tracing",
            "retain-on-failure",
            "--uidrive-output",
            str(output),
            "test_calc.py",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout, run.stdout
    assert "uidrive traces" in run.stdout, run.stdout
    # The failing test's app output is in its report, under its own heading,
    # and nowhere else (it is captured, not printed).
    for stream in ("out", "err"):
        marker = f"uidrive-marker-{stream}"
        assert (run.stdout + run.stderr).count(marker) == 1, run.stdout + run.stderr
        heading = rf"-+ uidrive app sh \(pid \d+\) std{stream} -+\n{marker}\n"
        assert re.search(heading, run.stdout), run.stdout

    # The failing test left its trace; the passing one left nothing.
    traces = sorted(output.rglob("*.zip"))
    assert [t.relative_to(output).as_posix() for t in traces] == [
        "test_calc.py-test_fails/trace.zip"
    ], traces
    trace = traces[0]
    assert f"test_calc.py::test_fails: {trace}" in run.stdout, run.stdout
    with zipfile.ZipFile(trace) as archive:
        assert archive.testzip() is None
        names = archive.namelist()
        pictures = sorted(n for n in names if n.endswith(".png"))
        events = [json.loads(line) for line in archive.read("trace.jsonl").decode().splitlines()]
        head = json.dumps(events[0], separators=(",", ":"))
    assert names[0] == "trace.jsonl"
    # The app's own output went into the trace too, a stream per event.
    outputs = {e["stream"]: e for e in events if e["type"] == "output"}
    assert set(outputs) == {"stdout", "stderr"}, outputs
    for stream in ("out", "err"):
        kept = outputs[f"std{stream}"]
        assert kept["text"].startswith(f"uidrive-marker-{stream}\n"), kept
        assert re.fullmatch(r"sh \(pid \d+\)", kept["source"]), kept
    assert '"version":1' in head
    assert len(pictures) >= 2, names

    # As text.
    shown = subprocess.run(
        [uidrive_bin, "trace", "show", str(trace)], capture_output=True, text=True, check=True
    ).stdout
    steps = re.findall(r"^\s+\d+\. \+\d+ ms (\w+) ", shown, re.MULTILINE)
    assert steps == ["click", "click", "click", "click", "expect"], shown
    assert "error assertion_failed" in shown and "suggestion:" in shown, shown
    assert re.search(r"^# stderr of sh \(pid \d+\)\n  \| uidrive-marker-err$", shown, re.M), shown

    # As a page, rendered by a real browser.
    page = tmp_path / "trace.html"
    subprocess.run(
        [uidrive_bin, "trace", "show", str(trace), "--html", str(page)],
        capture_output=True,
        text=True,
        check=True,
    )
    html = page.read_text()
    assert "http://" not in html and "https://" not in html
    dom = run_chromium(page.as_uri(), tmp_path / "profile-dom", "--dump-dom").stdout
    sections = re.findall(r'<section class="step (\w+)" id="step-(\d+)"', dom)
    assert [int(n) for _, n in sections] == [1, 2, 3, 4, 5], sections
    assert [status for status, _ in sections] == ["ok", "ok", "ok", "ok", "failed"]
    calls = re.findall(r"<h2>\d+\. (\w+) ", dom)
    assert calls == ["click", "click", "click", "click", "expect"], calls
    # One picture per capture: every capture in the trace shows, before or after a step.
    shown_pictures = set(re.findall(r'data-picture="([^"]+)"', dom))
    assert shown_pictures == set(pictures), (shown_pictures, pictures)
    assert dom.count('src="data:image/png;base64,') == dom.count("<img ")
    assert dom.count('class="outline"') >= 4
    # The failing step: its error, code and suggestion.
    failed = dom[dom.index('id="step-5"') :]
    assert 'data-status="failed"' in dom[dom.index('<section class="step failed"') :][:200]
    assert "assertion_failed" in failed
    assert "43" in failed and 'class="suggestion"' in failed

    # The page opens on the failure: a summary at the top, before the step
    # list, with the error, what was expected, what was last observed and the
    # pictures before and after, linked to its step.
    assert dom.index('<section class="failure"') < dom.index("<nav")
    top = dom[dom.index('<section class="failure"') : dom.index("<nav")]
    assert 'href="#step-5"' in top
    assert "assertion_failed" in top
    assert re.search(r'<dd class="expected">[^<]*43', top), top[:3000]
    assert re.search(r'<dd class="observed">[^<]*42', top), top[:3000]
    assert top.count('data-which="before"') == 1 and top.count('data-which="after"') == 1
    assert "<img " in top
    # What the app wrote on stderr is there too, beside the failure.
    stderr = re.search(
        r'<details class="output" data-stream="stderr" open[^>]*>(.*?)</details>', top, re.S
    )
    assert stderr and "uidrive-marker-err" in stderr.group(1), top[-3000:]

    # A deep link lands on its step: the page drawn scrolled there is not blank.
    deep = tmp_path / "deep.png"
    run_chromium(
        page.as_uri() + "#step-5",
        tmp_path / "profile-deep",
        "--window-size=1280,900",
        f"--screenshot={deep}",
    )
    _, _, deep_pixels = png_pixels(deep)
    assert len(set(deep_pixels)) > 50, "the deep link's screenshot is blank"

    # The page as the browser drew it is not blank.
    shot = tmp_path / "page.png"
    run_chromium(
        page.as_uri(),
        tmp_path / "profile-shot",
        "--window-size=1280,1600",
        f"--screenshot={shot}",
    )
    width, height, pixels = png_pixels(shot)
    assert (width, height) == (1280, 1600)
    assert len(set(pixels)) > 50, "the page's screenshot is blank"


def test_tracing_start_and_stop_from_python(demo: uidrive.App, tmp_path: Path) -> None:
    assert not demo.tracing.is_recording
    assert demo.tracing.stop() is None
    demo.tracing.start(screenshots=True, snapshots=True, title="demo")
    with pytest.raises(uidrive.InvalidRequestError):
        demo.tracing.start()
    demo.get_by_key("add").click()
    written = demo.tracing.stop(path=tmp_path / "out" / "trace.zip")
    assert written is not None
    assert written["steps"] == 1 and written["pictures"] >= 1
    assert Path(written["path"]).stat().st_size == written["bytes"]
    assert not demo.tracing.is_recording
