"""Shared fixtures: the `uidrive` binary and the in-memory demo UI it serves.

The `desktop` and `app` fixtures come from the plugin shipped in the wheel.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

import pytest
import uidrive


@pytest.fixture(scope="session")
def uidrive_bin() -> str:
    """The `uidrive` command line built from crates/cli (test.sh sets UIDRIVE_BIN)."""
    path = os.environ.get("UIDRIVE_BIN")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(
            "set UIDRIVE_BIN to the uidrive binary (cargo build -p uidrive-cli); "
            "bindings/python/test.sh does this"
        )
    return path


class DemoServer:
    """`uidrive serve --demo` on a socket of its own: the in-memory demo UI
    (a counter window), spoken to over the real protocol socket."""

    def __init__(self, binary: str, socket: Path, idle_delay_ms: int | None) -> None:
        argv = [binary, "serve", "--socket", str(socket), "--demo"]
        if idle_delay_ms is not None:
            argv += ["--demo-idle-delay-ms", str(idle_delay_ms)]
        self.socket = socket
        self.process = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)

    def connect(self, timeout: float = 10.0) -> uidrive.App:
        """Connects once the server listens: polls, within `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return uidrive.connect(self.socket)
            except uidrive.DisconnectedError:
                if self.process.poll() is not None:
                    _, err = self.process.communicate()
                    raise RuntimeError(f"uidrive serve exited: {err}") from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.communicate(timeout=10)


DemoFactory = Callable[..., DemoServer]


@pytest.fixture
def demo_server(uidrive_bin: str, tmp_path: Path) -> Iterator[DemoFactory]:
    """`demo_server(idle_delay_ms=None)` starts a demo server; all stop at the end."""
    servers: list[DemoServer] = []

    def start(idle_delay_ms: int | None = None) -> DemoServer:
        server = DemoServer(uidrive_bin, tmp_path / f"demo{len(servers)}.sock", idle_delay_ms)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def demo(demo_server: DemoFactory) -> Iterator[uidrive.App]:
    """An App connected to a fresh demo UI."""
    with demo_server().connect() as app:
        yield app
