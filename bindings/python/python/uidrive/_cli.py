"""The ``uidrive`` command (agent CLI, MCP server, trace viewer, ``serve``).

The wheel's ``uidrive`` console script and ``python -m uidrive`` both land
here; the command line itself is compiled into the extension, so it is the
same core as the library.
"""

from __future__ import annotations

import signal
import sys


def main(argv: list[str] | None = None) -> int:
    """Runs ``uidrive`` on ``argv`` (default: this process's) and answers its exit status."""
    args = sys.argv[1:] if argv is None else argv
    # The command handles its own signals (Ctrl-C stops `serve` and `mcp`);
    # Python's handlers would only set a flag nobody reads while it runs.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    from uidrive._native import cli_main

    # The session daemon `uidrive open` leaves behind is this command again.
    again = [sys.executable, "-m", "uidrive"]
    return cli_main(["uidrive", *args], again)


def _run() -> None:
    sys.exit(main())
