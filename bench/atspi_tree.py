"""Benchmark: uidrive's AT-SPI driver against the Python clients a user would
pick instead (pyatspi, dogtail), on the same apps in the same run.

Starts a private Xvfb + D-Bus session and launches gtk3-widget-factory,
gnome-calculator, gtk4-demo and LibreOffice Writer on it one after the other,
each with the environment uidrive's headless desktop gives an app
(`atspi_tree --app-env`; GTK 4 then draws with cairo, not software OpenGL).
Prints the median of RUNS for each row, and the ratio (peer / uidrive):

- full-tree read: role, name, states and bounds of every element, uidrive's
  `tree` against pyatspi walking those fields (uidrive reads more: actions,
  values, text; node counts must match on the GTK apps), in turns once the
  app has finished starting, each side in one process kept for the row
  (every process adds connections the app keeps). Beside each uidrive read,
  the app's own answer time: the calls of one read asked again all at once
  (`replay`), which no read making those calls can beat, so pyatspi / replay
  caps the ratio. For each GTK app it also prints the app's CPU time per
  read; for Writer, one Cache.GetItems call (the whole cache in one answer)
  and one round trip.
- click to settled: a locator's `click()` then `expect` until the effect
  shows (uidrive), against pyatspi's doAction then polling the tree until it
  shows, and dogtail's click() (with its default delays) then the same poll.
  gnome-calculator: button 7, the equation gains a 7; gtk3-widget-factory: the
  toggle button's checked state; gtk4-demo: the demo list's Benchmark row's
  expander (its expanded state). Also uidrive's click + `idle` + one read
  (what `click --settle` does), with how often that one read saw the change,
  and where a click's time can go: one window read, the hit test, an idle.
- typing: "hello" into gtk3-widget-factory's entry, read back: uidrive's
  press_sequentially and keyboard.type against pyatspi (generateKeyboardEvent
  per character, then polling) and dogtail's typeText.
- act(press) + idle on one button of each GTK app (the driver's calls alone).

usage (from the repository root):
    bash scripts/install-bench-deps.sh      # pyatspi, dogtail and the apps, once
    cargo build --release -p uidrive-atspi --example atspi_tree
    /usr/bin/python3 bench/atspi_tree.py [RUNS]     # Debian's python3, for pyatspi

The uidrive side is the Rust example crates/atspi/examples/atspi_tree.rs
(locators through uidrive_core::App), looked up in $CARGO_TARGET_DIR (else
target/) under release/examples/atspi_tree, or given with
UIDRIVE_ATSPI_TREE=/path. The peers run bench/pyatspi_walk.py and
bench/peer_act.py. UIDRIVE_BENCH_APPS=soffice,gnome-calculator runs only those.
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

TYPED = "hello"

# accessible name -> command line, the label of a button to press for act +
# idle, the example's flags for click to settled, and whether it has a typing row
APPS = {
    "gtk3-widget-factory": (
        ["gtk3-widget-factory"],
        "togglebutton",
        ["--click", 'role=toggleButton[name="togglebutton"] >> first', "--flips", "checked"],
        True,
    ),
    "gnome-calculator": (
        ["gnome-calculator"],
        "7",
        ["--click", 'role=button[name="7"]', "--appends", "7", "--on", "role=textField >> first"],
        False,
    ),
    "gtk4-demo": (
        ["gtk4-demo"],
        "Search",
        [
            "--click",
            'role=group[name="Benchmark"] >> role=button[name="Expand"]',
            "--flips",
            "expanded",
            "--on",
            'role=group[name="Benchmark"]',
        ],
        False,
    ),
    "soffice": (None, None, None, False),
}
TYPE_FIELD = "role=textField[disabled=false] >> nth=2"


def writer_argv(profile):
    """lowriter with a fresh profile that shows no tip of the day (a second window)."""
    os.makedirs(os.path.join(profile, "user"), exist_ok=True)
    with open(os.path.join(profile, "user", "registrymodifications.xcu"), "w") as f:
        f.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<oor:items xmlns:oor="http://openoffice.org/2001/registry" '
            'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
            '<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse">'
            "<value>false</value></prop></item>\n"
            "</oor:items>\n"
        )
    return ["lowriter", "--norestore", f"-env:UserInstallation=file://{profile}"]


def example_binary():
    if os.environ.get("UIDRIVE_ATSPI_TREE"):
        return os.environ["UIDRIVE_ATSPI_TREE"]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    path = os.path.join(target, "release", "examples", "atspi_tree")
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: cargo build --release -p uidrive-atspi --example atspi_tree")
    return path


def app_env(binary):
    """How uidrive's headless desktop sets an app's environment (`atspi_tree
    --app-env`): the names it removes, and the values it sets. The apps here
    run as under uidrive's own tests and fixtures; GTK 4 draws with cairo
    there, as software OpenGL would cost the app much CPU on every frame."""
    printed = subprocess.run([binary, "--app-env"], capture_output=True, text=True, check=False)
    if printed.returncode != 0:
        sys.exit(
            f"{binary} --app-env failed (built before it had that flag?): {printed.stderr.strip()}\n"
            "rebuild it: cargo build --release -p uidrive-atspi --example atspi_tree"
        )
    unset, values = set(), {}
    for line in printed.stdout.splitlines():
        if line.startswith("unset "):
            unset.add(line.removeprefix("unset "))
        else:
            name, value = line.split("=", 1)
            values[name] = value
    return unset, values


class Desktop:
    """A private X display and D-Bus session; the session starts the accessibility bus on demand."""

    def __init__(self):
        self.unset, self.app_env = app_env(example_binary())
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

    def launch(self, argv, extra_env=None):
        env = {k: v for k, v in self.env.items() if k not in self.unset}
        env.update(self.app_env)
        env.update(extra_env or {})
        self.apps.append(subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

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


def run(argv, env, what):
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        sys.exit(f"{what} failed: {done.stderr.strip()[-2000:]}")
    return done.stdout.splitlines()


def peer(env, *args):
    return run(["/usr/bin/python3", os.path.join(HERE, "peer_act.py"), *args], env, f"peer_act.py {' '.join(args)}")


def route_of(lines):
    return next((line.split(" ", 1)[1] for line in lines if line.startswith("route ")), "?")


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    binary = example_binary()
    wanted = [a for a in os.environ.get("UIDRIVE_BENCH_APPS", ",".join(APPS)).split(",") if a]
    desktop = Desktop()
    trees, clicks, typing, presses, caps = [], [], [], [], {}
    try:
        for name in wanted:
            argv, button, click, types = APPS[name]
            flags = []
            if name == "soffice":
                profile = os.path.join(desktop.runtime, "lo-profile")
                desktop.launch(writer_argv(profile), {"SAL_USE_VCLPLUGIN": "gtk3"})
                env = dict(desktop.env, UIDRIVE_BENCH_TIMEOUT_S="120")
            else:
                desktop.launch(argv)
                env = desktop.env
                flags = ["--press", button, *click]
                if types:
                    flags += ["--type", TYPE_FIELD, TYPED]
            # uidrive waits (up to its timeout) for the app's window; then the app finishes starting.
            ours = Turns([binary, name, "1", "--turns"], env, f"uidrive on {name}")
            settle(desktop.apps[-1].pid)
            walk = ["/usr/bin/python3", os.path.join(HERE, "pyatspi_walk.py"), name, "1", "--turns"]
            theirs = Turns(walk, env, f"pyatspi on {name}")
            trees.append((name, *tree_reads(ours, theirs, TREE_TURNS * runs)))
            theirs.close()
            if name != "soffice":
                caps[name] = app_cpu_cap(ours, runs, desktop.apps[-1].pid)
            ours.close()
            if name == "soffice":
                caps[name] = peer(env, "-", name, str(runs), "cap")[-1]
                continue
            ours = run([binary, name, str(runs), *flags], env, f"uidrive on {name}")
            presses.append((name, runs_of(ours, r"^act ms ([\d.]+) act\+idle ms ([\d.]+)")))
            pyatspi_clicks = peer(env, "pyatspi", name, str(runs), "click")
            dogtail_clicks = peer(env, "dogtail", name, str(runs), "click")
            clicks.append(
                (
                    name,
                    route_of(ours),
                    runs_of(ours, r"^click ms ([\d.]+) settled ms ([\d.]+)"),
                    idle_runs(ours),
                    runs_of(pyatspi_clicks, r"^ms ([\d.]+)"),
                    route_of(pyatspi_clicks),
                    runs_of(dogtail_clicks, r"^ms ([\d.]+)"),
                    runs_of(ours, r"^phase read ms ([\d.]+) element_at ms ([\d.]+) idle ms ([\d.]+)"),
                )
            )
            if types:
                typing.append(
                    (
                        name,
                        runs_of(ours, r"^press_sequentially ms ([\d.]+)"),
                        runs_of(ours, r"^keyboard.type ms ([\d.]+) settled ms ([\d.]+)"),
                        runs_of(peer(env, "pyatspi", name, str(runs), "type", TYPED), r"^ms ([\d.]+)"),
                        runs_of(peer(env, "dogtail", name, str(runs), "type", TYPED), r"^ms ([\d.]+)"),
                    )
                )
    finally:
        desktop.close()
    report(runs, trees, clicks, typing, presses, caps)


def settle(pid, limit=10.0):
    """Waits until the app's CPU use over half a second stops falling (its
    start-up work is done), for at most `limit` seconds."""
    deadline, last = time.time() + limit, None
    while time.time() < deadline:
        before = cpu_seconds(pid)
        time.sleep(0.5)
        used = cpu_seconds(pid) - before
        if last is not None and used <= last * 1.2 + 0.01:
            return
        last = used


class Turns:
    """A reader of the app's window kept for a whole row and asked one line
    at a time. GTK's bridge keeps every connection it was ever given and each
    slows it a little (docs/apps.md), so a process per read would leave the
    app slower for every later read; one process per side keeps that to one
    pair of connections for uidrive and one for pyatspi."""

    def __init__(self, argv, env, what):
        self.what = what
        self.proc = subprocess.Popen(
            argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.line()  # the warm-up read it makes once attached

    def line(self):
        line = self.proc.stdout.readline()
        if not line:
            sys.exit(f"{self.what} ended: {self.proc.stderr.read().strip()[-2000:]}")
        return line

    def ask(self, command, pattern):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return runs_of([self.line()], pattern)[0]

    def close(self):
        self.proc.stdin.close()
        if self.proc.wait(timeout=60) != 0:
            sys.exit(f"{self.what} failed: {self.proc.stderr.read().strip()[-2000:]}")


# The tree rows take three turns per run: a read is short, and one that
# lands on a slow moment of this VM counts as much as any other.
TREE_TURNS = 3
NODES = r"^nodes (\d+) ms ([\d.]+)"
REPLAY = r"^replay calls (\d+) ms ([\d.]+)"


def tree_reads(ours, theirs, runs):
    """Full-tree reads, uidrive's and pyatspi's in turns, so that a machine
    that slows down or speeds up meanwhile weighs on both alike; each
    measured read comes right after a warm-up read of the same side. Beside
    each of uidrive's measured reads, its calls asked again all at once
    (`replay`), before it in one turn and after it in the next: a read right
    after a pause is slower on this machine, and the replay with it (the
    machine's, not the client's: a core that went idle halts and is slow to
    wake on this VM, docs/apps.md), so the two are compared where they stand."""
    ours.ask("replay", REPLAY)  # records the calls of one read
    reads, walks, replays = [], [], []
    for turn in range(runs):
        theirs.ask("read", NODES)
        walks.append(theirs.ask("read", NODES))
        ours.ask("read", NODES)
        if turn % 2 == 0:
            reads.append(ours.ask("read", NODES))
            replays.append(ours.ask("replay", REPLAY))
        else:
            replays.append(ours.ask("replay", REPLAY))
            reads.append(ours.ask("read", NODES))
    return reads, walks, replays


def cpu_seconds(pid):
    """The CPU time process `pid` has used, user and system, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def app_cpu_cap(turns, runs, pid):
    """The app's own answer time for one of uidrive's full reads: the CPU time
    the app spends over more reads (on a window that has settled after
    the actions above), less what it spends as long without them (a spinner's
    frames), per read. No read of every field can be faster than the app
    answering its calls, so this caps the ratio against a peer that asks less."""
    reads = 3 * runs
    before, started = cpu_seconds(pid), time.perf_counter()
    ours = [turns.ask("read", NODES)[1] for _ in range(reads)]
    busy, wall = cpu_seconds(pid) - before, time.perf_counter() - started
    before = cpu_seconds(pid)
    time.sleep(wall)
    idle = cpu_seconds(pid) - before
    cap = 1000 * max(busy - idle, 0.0) / reads
    ours = median(ours)
    return (
        f"the app's CPU time: {cap:.1f} ms per read (over {reads} reads, less {1000 * idle:.0f} ms it spends idle as long); "
        f"uidrive's reads then {ours:.1f} ms, {ours / cap if cap else float('nan'):.2f}x that cap"
    )


def idle_runs(lines):
    found = []
    for line in lines:
        m = re.search(r"^click ms ([\d.]+) idle ms ([\d.]+) read ms ([\d.]+) seen (\w+)", line)
        if m:
            found.append((float(m.group(1)), float(m.group(2)), float(m.group(3)), m.group(4)))
    return found


def report(runs, trees, clicks, typing, presses, caps):
    turns = TREE_TURNS * runs
    print(f"full-tree read, median of {turns}, uidrive and pyatspi in turns (each after a warm-up read)")
    print("per turn: the median of each turn's pyatspi / uidrive;")
    print("replay: the app answering the calls of one uidrive read asked again all at once, beside each read;")
    print("cap: pyatspi / replay, the most any read making those calls could reach")
    print(
        f"{'app':<22}{'nodes':>7}{'uidrive ms':>12}{'pyatspi nodes':>15}{'pyatspi ms':>12}{'ratio':>8}{'per turn':>10}"
        f"{'calls':>7}{'replay ms':>11}{'cap':>8}{'uidrive/replay':>16}"
    )
    mismatch = []
    for name, ours, theirs, replays in trees:
        nodes = int(median([n for n, _ in ours]))
        their_nodes = int(median([n for n, _ in theirs]))
        ours_ms = median([ms for _, ms in ours])
        theirs_ms = median([ms for _, ms in theirs])
        replay_ms = median([ms for _, ms in replays])
        beside = median([o / r for (_, o), (_, r) in zip(ours, replays)])
        per_turn = median([t / o for (_, o), (_, t) in zip(ours, theirs)])
        if nodes != their_nodes:
            mismatch.append(name)
        print(
            f"{name:<22}{nodes:>7}{ours_ms:>12.1f}{their_nodes:>15}{theirs_ms:>12.1f}{theirs_ms / ours_ms:>7.1f}x{per_turn:>9.1f}x"
            f"{int(median([c for c, _ in replays])):>7}{replay_ms:>11.1f}{theirs_ms / replay_ms:>7.1f}x{beside:>15.2f}x"
        )
    for name, line in caps.items():
        print(f"{name}: {line}")
    if clicks:
        print()
        print(f"click to settled (the effect read back), median of {runs}, ms; ratio = peer / uidrive")
        print(
            f"{'app':<22}{'uidrive click':>14}{'settled':>9}{'click+idle+read':>17}{'seen':>6}"
            f"{'pyatspi':>9}{'ratio':>7}{'dogtail':>9}{'ratio':>7}"
        )
        for name, route, settled, idled, pyatspi_ms, _, dogtail_ms, _ in clicks:
            ours = median([s for _, s in settled])
            seen = sum(1 for *_, s in idled if s == "true")
            theirs, dog = median([m for (m,) in pyatspi_ms]), median([m for (m,) in dogtail_ms])
            print(
                f"{name:<22}{median([c for c, _ in settled]):>14.1f}{ours:>9.1f}{median([r for _, _, r, _ in idled]):>17.1f}"
                f"{f'{seen}/{len(idled)}':>6}{theirs:>9.1f}{theirs / ours:>6.1f}x{dog:>9.1f}{dog / ours:>6.1f}x"
            )
        for name, route, _, _, _, pyatspi_route, _, _ in clicks:
            print(f"  {name}: uidrive click route {route}; pyatspi {pyatspi_route}")
        print("where uidrive's click can spend its time, each alone on the settled window, median ms")
        print(f"{'app':<22}{'window read':>12}{'hit test':>10}{'idle':>8}")
        for name, *_, phases in clicks:
            print(
                f"{name:<22}{median([r for r, _, _ in phases]):>12.1f}{median([h for _, h, _ in phases]):>10.1f}"
                f"{median([i for _, _, i in phases]):>8.1f}"
            )
    if typing:
        print()
        print(f'typing "{TYPED}" into a field and reading it back, median of {runs}, ms; ratio = peer / uidrive press_sequentially')
        print(f"{'app':<22}{'press_sequentially':>19}{'keyboard.type':>15}{'pyatspi':>9}{'ratio':>7}{'dogtail':>9}{'ratio':>7}")
        for name, seq, typed, pyatspi_ms, dogtail_ms in typing:
            ours = median([m for (m,) in seq])
            theirs, dog = median([m for (m,) in pyatspi_ms]), median([m for (m,) in dogtail_ms])
            print(
                f"{name:<22}{ours:>19.1f}{median([s for _, s in typed]):>15.1f}"
                f"{theirs:>9.1f}{theirs / ours:>6.1f}x{dog:>9.1f}{dog / ours:>6.1f}x"
            )
    if presses:
        print()
        print(f"act(press) + idle, median of {runs}")
        print(f"{'app':<22}{'act ms':>10}{'act+idle ms':>14}")
        for name, rows in presses:
            print(f"{name:<22}{median([a for a, _ in rows]):>10.1f}{median([t for _, t in rows]):>14.1f}")
    gtk_mismatch = [n for n in mismatch if n != "soffice"]
    if "soffice" in mismatch:
        print("\nnote: Writer's node counts differ between uidrive and pyatspi (see the tree row)")
    if gtk_mismatch:
        sys.exit(f"node counts differ between uidrive and pyatspi: {', '.join(gtk_mismatch)}")


if __name__ == "__main__":
    main()
