"""uidrive.headless() is its user's alone (issue 30, finding 1): it is the
same desktop as `uidrive serve --headless` and `uidrive open --headless`
(crates/x11's Desktop, reached through the facade), so its display takes
only clients with the cookie of its X authority file, which lives in the
desktop's 0700 runtime directory. The tests in crates/x11/tests/private.rs
and crates/cli/tests/private.rs prove a second user reaches none of it."""

import os
import stat
import subprocess

import uidrive


def test_the_display_takes_only_clients_with_the_desktops_cookie(
    desktop: uidrive.Desktop,
) -> None:
    env = desktop.env
    xauthority = env["XAUTHORITY"]
    runtime = env["XDG_RUNTIME_DIR"]
    assert os.path.dirname(xauthority) == runtime
    assert stat.S_IMODE(os.stat(runtime).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(xauthority).st_mode) == 0o600
    def probe(cookie_file: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            ["xdpyinfo", "-display", desktop.display],
            env={**os.environ, "XAUTHORITY": cookie_file},
            capture_output=True,
        )

    with_cookie = probe(xauthority)
    assert with_cookie.returncode == 0, with_cookie.stderr
    without = probe("/nonexistent")
    assert without.returncode != 0, "the display let in a client without the cookie"
