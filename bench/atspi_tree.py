"""Benchmark: reading a whole window, uidrive's AT-SPI driver against pyatspi.

Starts a private Xvfb + D-Bus session, launches gtk3-widget-factory,
gnome-calculator and gtk4-demo on it one after the other, and for each reads
the full tree (role, name, states, bounds of every element) with uidrive's
`tree` and with pyatspi walking the same fields, in the same run. Prints the
median of RUNS reads for each, the node counts (which must match) and the
ratio; then the time of `act` (press) + `idle` on one button of each app.

usage (from the repository root):
    bash scripts/install-bench-deps.sh      # pyatspi and the apps, once
    cargo build --release -p uidrive-atspi --example atspi_tree
    /usr/bin/python3 bench/atspi_tree.py [RUNS]     # Debian's python3, for pyatspi

The example binary is looked up in $CARGO_TARGET_DIR (else target/) under
release/examples/atspi_tree, or given with UIDRIVE_ATSPI_TREE=/path.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (command line, accessible name, label of a button to press for act + idle)
APPS = [
    (["gtk3-widget-factory"], "gtk3-widget-factory", "togglebutton"),
    (["gnome-calculator"], "gnome-calculator", "7"),
    (["gtk4-demo"], "gtk4-demo", "Search"),
]


def example_binary():
    if os.environ.get("UIDRIVE_ATSPI_TREE"):
        return os.environ["UIDRIVE_ATSPI_TREE"]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    path = os.path.join(target, "release", "examples", "atspi_tree")
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: cargo build --release -p uidrive-atspi --example atspi_tree")
    return path


class Desktop:
    """A private X display and D-Bus session; the session starts the accessibility bus on demand."""

    def __init__(self):
        self.runtime = tempfile.mkdtemp(prefix="uidrive-bench-")
        os.chmod(self.runtime, 0o700)
        display = self._free_display()
        self.xvfb = subprocess.Popen(
            ["Xvfb", display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 20
        while not os.path.exists(f"/tmp/.X11-unix/X{display[1:]}"):
            if time.time() > deadline:
                sys.exit("Xvfb did not start")
            time.sleep(0.05)
        self.env = dict(os.environ)
        for name in ("WAYLAND_DISPLAY", "AT_SPI_BUS_ADDRESS", "DBUS_SESSION_BUS_ADDRESS"):
            self.env.pop(name, None)
        self.env.update({"DISPLAY": display, "XDG_RUNTIME_DIR": self.runtime, "GTK_MODULES": "gail:atk-bridge"})
        out = subprocess.run(
            ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        self.env["DBUS_SESSION_BUS_ADDRESS"], self.bus_pid = out[0], int(out[1])
        self.apps = []

    @staticmethod
    def _free_display():
        for n in range(90, 200):
            if not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}"):
                return f":{n}"
        sys.exit("no free X display number")

    def launch(self, argv):
        self.apps.append(subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def close(self):
        for app in self.apps:
            app.kill()
            app.wait()
        # The session bus started the accessibility bus and registry in its session: end them with it.
        for pid in self._session_children():
            try:
                os.kill(pid, 15)
            except ProcessLookupError:
                pass
        try:
            os.kill(self.bus_pid, 15)
        except ProcessLookupError:
            pass
        self.xvfb.terminate()
        self.xvfb.wait()
        shutil.rmtree(self.runtime, ignore_errors=True)

    def _session_children(self):
        """Processes whose environment names this session's bus (the a11y bus launcher, the registry)."""
        found = []
        address = self.env["DBUS_SESSION_BUS_ADDRESS"].encode()
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if address in f.read():
                        found.append(int(entry))
            except OSError:
                pass
        return [p for p in found if p != os.getpid()]


def runs_of(lines, pattern):
    return [tuple(float(g) for g in m.groups()) for m in (re.search(pattern, l) for l in lines) if m]


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    binary = example_binary()
    desktop = Desktop()
    rows = []
    try:
        for argv, name, button in APPS:
            desktop.launch(argv)
            # uidrive waits (up to its timeout) for the app's window; the first read warms both sides up.
            ours = subprocess.run(
                [binary, name, str(runs + 1), "--press", button],
                env=desktop.env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            if ours.returncode != 0:
                sys.exit(f"uidrive failed on {name}: {ours.stderr.strip()}")
            lines = ours.stdout.splitlines()
            trees = runs_of(lines, r"^nodes (\d+) ms ([\d.]+)")[1:]
            presses = runs_of(lines, r"^act ms ([\d.]+) act\+idle ms ([\d.]+)")
            theirs = subprocess.run(
                ["/usr/bin/python3", os.path.join(HERE, "pyatspi_walk.py"), name, str(runs + 1)],
                env=desktop.env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if theirs.returncode != 0:
                sys.exit(f"pyatspi failed on {name}: {theirs.stderr.strip()}")
            walks = runs_of(theirs.stdout.splitlines(), r"^nodes (\d+) ms ([\d.]+)")[1:]
            rows.append((name, trees, walks, presses))
    finally:
        desktop.close()

    print(f"full-tree read, median of {runs} (after one warm-up read each)")
    print(f"{'app':<22}{'nodes':>7}{'uidrive ms':>12}{'pyatspi nodes':>15}{'pyatspi ms':>12}{'ratio':>8}")
    mismatch = False
    for name, trees, walks, _ in rows:
        nodes = int(statistics.median(n for n, _ in trees))
        their_nodes = int(statistics.median(n for n, _ in walks))
        ours_ms = statistics.median(ms for _, ms in trees)
        theirs_ms = statistics.median(ms for _, ms in walks)
        mismatch |= nodes != their_nodes
        print(f"{name:<22}{nodes:>7}{ours_ms:>12.1f}{their_nodes:>15}{theirs_ms:>12.1f}{theirs_ms / ours_ms:>7.1f}x")
    print()
    print(f"act(press) + idle, median of {runs}")
    print(f"{'app':<22}{'act ms':>10}{'act+idle ms':>14}")
    for name, _, _, presses in rows:
        print(f"{name:<22}{statistics.median(a for a, _ in presses):>10.1f}{statistics.median(t for _, t in presses):>14.1f}")
    if mismatch:
        sys.exit("node counts differ between uidrive and pyatspi")


if __name__ == "__main__":
    main()
