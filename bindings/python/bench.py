"""uidrive from Python, measured beside the same work done another way.

1. The cost of one call from Python against the same call from Rust, over the
   same target: `uidrive serve --demo` on a socket (plus a raw Python socket
   client, the floor for any client), and gtk3-widget-factory over AT-SPI.
2. A full tree() of gtk3-widget-factory from Python against pyatspi walking
   the same fields (role, name, states, extents), in the same run.

    python bench.py [--runs N]

Needs the installed wheel, the `uidrive` binary (UIDRIVE_BIN, else built
with cargo), the `call_cost` example (UIDRIVE_CALL_COST, else built with
cargo) and Debian's python3-pyatspi for /usr/bin/python3
(bash scripts/install-bench-deps.sh installs it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any, Callable

import uidrive

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))

PYATSPI_WALK = textwrap.dedent(
    """
    import json, statistics, sys, time
    import pyatspi

    pid, runs = int(sys.argv[1]), int(sys.argv[2])
    desktop = pyatspi.Registry.getDesktop(0)
    app = next(a for a in desktop if a is not None and a.get_process_id() == pid)
    window = app[0]

    def walk(node):
        count = 1
        node.getRoleName()
        node.name
        node.getState().getStates()
        try:
            node.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        except NotImplementedError:
            pass
        for child in node:
            if child is not None:
                count += walk(child)
        return count

    times, nodes = [], 0
    for _ in range(runs):
        window.clear_cache()  # libatspi caches client-side: ask the app every run
        started = time.perf_counter()
        nodes = walk(window)
        times.append(time.perf_counter() - started)
    print(json.dumps({"median_ms": statistics.median(times) * 1e3, "nodes": nodes}))
    """
)


def median_us(call: Callable[[], Any], runs: int) -> float:
    call()  # warm up
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def cargo_binary(env_var: str, build: list[str], path: Path) -> str:
    given = os.environ.get(env_var)
    if given:
        return given
    subprocess.run(["cargo", *build, "--release"], cwd=REPO, check=True)
    return str(path)


def rust_call_cost(
    binary: str, kind: str, target: str, runs: int, env: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    out = subprocess.run(
        [binary, kind, target, str(runs)], capture_output=True, text=True, check=True, env=env
    )
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    return {row["method"]: row for row in rows}


class RawClient:
    """The protocol spoken by hand: the least any client can cost."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.ids = itertools.count(1)

    def call(self, method: str) -> Any:
        self.file.write(json.dumps({"id": next(self.ids), "method": method}).encode() + b"\n")
        self.file.flush()
        return json.loads(self.file.readline())["result"]

    def close(self) -> None:
        self.file.close()
        self.sock.close()


ROUNDS = 5
"""Rust and Python take turns this many times; each figure is the best round's
median, which keeps the comparison fair on a busy machine."""


def best_rounds(
    rust: Callable[[], dict[str, dict[str, float]]],
    others: dict[str, dict[str, Callable[[], Any]]],
    runs: int,
) -> dict[str, dict[str, float]]:
    """Best-of-rounds medians in µs, as {client: {method: µs}}, with Rust and the
    others measured in turn within each round."""
    best: dict[str, dict[str, float]] = {}

    def keep(client: str, method: str, us: float) -> None:
        slot = best.setdefault(client, {})
        slot[method] = min(us, slot.get(method, float("inf")))

    for _ in range(ROUNDS):
        for method, row in rust().items():
            keep("rust", method, row["median_us"])
        for client, calls in others.items():
            for method, call in calls.items():
                keep(client, method, median_us(call, runs))
    return best


def bench_socket(uidrive_bin: str, call_cost: str, runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "demo.sock")
        server = subprocess.Popen(
            [uidrive_bin, "serve", "--demo", "--socket", path], stderr=subprocess.DEVNULL
        )
        try:
            deadline = time.monotonic() + 10
            while not os.path.exists(path):
                if time.monotonic() > deadline:
                    raise RuntimeError("uidrive serve did not listen within 10 s")
                time.sleep(0.01)
            app = uidrive.connect(path)
            raw = RawClient(path)
            best = best_rounds(
                lambda: rust_call_cost(call_cost, "socket", path, runs),
                {
                    "python": {"hello": app.hello, "windows": app.windows, "tree": app.tree},
                    "raw": {
                        "hello": lambda: raw.call("hello"),
                        "windows": lambda: raw.call("windows"),
                        "tree": lambda: raw.call("tree"),
                    },
                },
                runs,
            )
            print(
                "\n## One call over the protocol socket (uidrive serve --demo): "
                f"best of {ROUNDS} rounds, each the median of {runs} calls"
            )
            print(
                f"{'method':<10}{'Rust µs':>10}{'Python µs':>12}{'raw socket µs':>15}"
                f"{'Python - Rust':>15}"
            )
            for method in ("hello", "windows", "tree"):
                rust_us, py_us = best["rust"][method], best["python"][method]
                print(
                    f"{method:<10}{rust_us:>10.1f}{py_us:>12.1f}{best['raw'][method]:>15.1f}"
                    f"{py_us - rust_us:>+15.1f}"
                )
            raw.close()
            app.close()
        finally:
            server.terminate()
            server.wait(timeout=10)


def bench_atspi(call_cost: str, runs: int) -> None:
    with uidrive.headless() as desktop:
        _bench_atspi_app(call_cost, runs, desktop)


def _bench_atspi_app(call_cost: str, runs: int, desktop: uidrive.Desktop) -> None:
    with uidrive.launch(["gtk3-widget-factory"], env=desktop.env) as app:
        app.idle(timeout=10_000)
        pid = app.pid
        assert pid is not None
        env = dict(os.environ, **desktop.env)
        nodes = len(app.tree()["nodes"])
        best = best_rounds(
            lambda: rust_call_cost(call_cost, "pid", str(pid), runs, env=env),
            {"python": {"windows": app.windows, "tree": app.tree}},
            runs,
        )
        print(
            f"\n## gtk3-widget-factory over AT-SPI ({nodes} nodes): "
            f"best of {ROUNDS} rounds, each the median of {runs} calls"
        )
        print(f"{'method':<10}{'Rust ms':>10}{'Python ms':>12}{'Python - Rust':>15}")
        for method in ("windows", "tree"):
            rust_ms, py_ms = best["rust"][method] / 1e3, best["python"][method] / 1e3
            print(f"{method:<10}{rust_ms:>10.2f}{py_ms:>12.2f}{py_ms - rust_ms:>+15.2f}")

        walk = subprocess.run(
            ["/usr/bin/python3", "-c", PYATSPI_WALK, str(pid), str(runs)],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        if walk.returncode != 0:
            print(f"pyatspi failed: {walk.stderr.strip()[-500:]}")
            return
        peer = json.loads(walk.stdout.strip().splitlines()[-1])
        py_tree_ms = median_us(app.tree, runs) / 1e3
        print(
            "\n## Full tree of gtk3-widget-factory, uidrive from Python vs pyatspi "
            f"(role, name, states, extents), median of {runs}, in turn"
        )
        print(f"{'client':<22}{'nodes':>7}{'ms':>10}")
        print(f"{'uidrive (Python)':<22}{nodes:>7}{py_tree_ms:>10.1f}")
        print(f"{'pyatspi':<22}{peer['nodes']:>7}{peer['median_ms']:>10.1f}")
        print(f"pyatspi / uidrive: {peer['median_ms'] / py_tree_ms:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    uidrive_bin = cargo_binary(
        "UIDRIVE_BIN", ["build", "-p", "uidrive-cli"], TARGET / "release" / "uidrive"
    )
    call_cost = cargo_binary(
        "UIDRIVE_CALL_COST",
        ["build", "-p", "uidrive-python", "--example", "call_cost"],
        TARGET / "release" / "examples" / "call_cost",
    )
    print(f"uidrive {uidrive.__version__}, Python {sys.version.split()[0]}")
    bench_socket(uidrive_bin, call_cost, args.runs)
    bench_atspi(call_cost, max(5, args.runs // 4))


if __name__ == "__main__":
    main()
