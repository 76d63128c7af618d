"""uidrive's compatibility suite: real apps of every toolkit, each on a private
headless desktop of its own, each driven through the `uidrive` command line
with a scenario whose every effect is read back through the accessibility tree.

usage: /usr/bin/python3 scripts/compat/compat.py [--backend x11|wayland] [APP...]
       (run.sh builds uidrive first)

--backend wayland runs each app on uidrive's headless Wayland desktop (sway) as a native
Wayland client instead of the X11 one (Xvfb); an app that cannot run there is listed with
the reason (scenarios.NOT_ON_WAYLAND) and neither passes nor fails; a step that needs what
the Wayland backend answers `unsupported` for (scenarios.UNSUPPORTED_ON_WAYLAND) is listed
as `unsup` when it ends on that answer, and one that fails on a Wayland defect found and not
fixed yet (scenarios.FAILS_ON_WAYLAND) as `known`, with the defect and this run's error.

Steps per app, each PASS or FAIL (never skipped):
  open     `uidrive open --headless --launch ...`
  nodes    `snapshot` and a pyatspi walk of the same window count the same elements
  text     type or fill, then read the text back from the tree
  button   press a button, read its effect back
  menu     choose a menu item, read its effect back
  truth    every action above said what it observed (`effect`), and each one it
           called confirmed is borne out by witnesses that are not uidrive's:
           Debian's pyatspi reads the text, state or window it claimed, and
           a capture of the screen by another client changed (GDK's on X11, grim's on Wayland;
           scripts/compat/witness.py)
  values   the values uidrive reads are what the screen shows: on that capture of the screen,
           each text field, cell or label shown whole that reads no value shows no text in its
           box but its label or placeholder, and a sample of those that read a value (and the
           app's MUST_SHOW) show it to tesseract; the same check, given a claim falsified on
           that capture, must fail (scripts/compat/shown.py)
  capture  `screenshot` gives a PNG that is not one flat colour
  close    `close`, then no process of the app's desktop is left (app, Xvfb or sway, buses)
A scenario may end early when a step leaves nothing to go on; every step it
did not reach counts as failed. Ends with `compat: N passed, M failed`.
"""
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
UIDRIVE = os.environ.get("UIDRIVE", os.path.join(ROOT, "target", "debug", "uidrive"))
PYTHON = "/usr/bin/python3"  # Debian's, which has pyatspi
STEPS = ["open", "nodes", "text", "button", "menu", "truth", "values", "capture", "close"]
# The commands that act: their outcomes are judged by the truth step.
ACTIONS = {"press", "click", "fill", "type", "key", "check", "select", "menu"}
# How long a claimed change may take to show on the screen.
SHOWS_WITHIN = 3.0
WORK = tempfile.mkdtemp(prefix="uidrive-compat-")
# The display backend of the desktops (--backend): "x11" or "wayland".
BACKEND = "x11"
STARTED = time.time()


def capturer():
    """Who takes the witness's captures of the screen (scripts/compat/witness.py)."""
    return "grim" if BACKEND == "wayland" else "GDK"


def rss_mib(pid):
    """The resident memory of process `pid` in MiB, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class StepFailed(Exception):
    def __init__(self, message, code=None):
        super().__init__(message)
        self.code = code  # the uidrive error code the step ended on, if any


def run_cli(session, args, timeout=60, env=None):
    """Runs `uidrive --json ARGS` for the session; returns its data, or raises StepFailed."""
    cmd = [UIDRIVE, "--session", session, "--json"] + args
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise StepFailed(f"`uidrive {' '.join(args)}` did not answer within {timeout} s")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    if not lines:
        raise StepFailed(f"`uidrive {' '.join(args)}` printed nothing (exit {done.returncode}): "
                         f"{done.stderr.strip()[-300:]}")
    answer = json.loads(lines[-1])
    if answer.get("ok"):
        return answer.get("data", {})
    err = answer.get("error", {})
    raise StepFailed(f"`uidrive {' '.join(args)}`: {err.get('code')}: {err.get('message')}", err.get("code"))


def run_text(session, args, timeout=60):
    """Runs `uidrive ARGS` (text output) for the session; returns its stdout, or raises StepFailed."""
    done = subprocess.run([UIDRIVE, "--session", session] + args, capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise StepFailed(f"`uidrive {' '.join(args)}`: {done.stderr.strip()[-300:]}")
    return done.stdout


def proc_children():
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(pid):
    children, found, todo = proc_children(), [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found[1:]


def environ(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            pairs = f.read().split(b"\0")
    except OSError:
        return {}
    return dict(p.decode(errors="replace").split("=", 1) for p in pairs if b"=" in p)


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def on_bus(bus):
    """Every live process whose session bus is `bus` (the desktop's private one)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and environ(int(entry)).get("DBUS_SESSION_BUS_ADDRESS") == bus:
            if alive(int(entry)):
                found.append(int(entry))
    return found


def png_colours(path):
    """The number of distinct colours of an 8-bit RGB or RGBA PNG (stops counting at 1000)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise StepFailed(f"{path} is not a PNG")
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {2: 3, 6: 4}.get(colour)
            if depth != 8 or channels is None:
                raise StepFailed(f"unexpected PNG format: depth {depth}, colour type {colour}")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    prev = bytearray(stride)
    colours = set()
    for y in range(height):
        row = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, line = row[0], bytearray(row[1:])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if y % 4 == 0:
            for x in range(0, stride, channels * 3):
                colours.add(bytes(line[x:x + channels]))
            if len(colours) >= 1000:
                break
    return width, height, len(colours)


class App:
    """One app under test: a uidrive session on a private desktop, and its results."""

    def __init__(self, name, argv, open_timeout_ms=60000, ready=None):
        self.name = name
        self.ready = ready
        self.argv = argv
        self.session = f"compat-{name}-{os.getpid()}"
        self.open_timeout_ms = open_timeout_ms
        self.results = {}  # step -> (ok, detail)
        self.daemon = None
        self.bus = None
        self.desktop_env = {}
        self.app_pid = None
        self.nodes = None
        self.acted = []  # (command line, outcome) of every action
        self.untrue = []  # what a witness contradicted
        self.must_show = ()  # (role, label, value) the values step must read by OCR
        self.values_after = None  # the scenario step the values step follows (None: the last)

    # --- commands -------------------------------------------------------
    def cli(self, *args, timeout=60):
        if args and args[0] in ACTIONS and self.desktop_env:
            return self.act(list(args), timeout)
        return run_cli(self.session, list(args), timeout=timeout)

    # --- the truth step: actions judged by witnesses that are not uidrive's ---
    def witness(self, what, *args):
        done = subprocess.run([PYTHON, os.path.join(HERE, "witness.py"), str(self.app_pid), what, *args],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, **self.desktop_env})
        if done.returncode != 0:
            raise StepFailed(f"witness {what}: {done.stderr.strip()[-300:]}")
        return json.loads(done.stdout.splitlines()[-1])

    def act(self, args, timeout):
        """Runs an action, then holds what it answered against the witnesses."""
        windows = {w["id"]: w["title"] for w in run_cli(self.session, ["windows"])["windows"]}
        before = self.witness("capture")
        data = run_cli(self.session, args, timeout=timeout)
        self.acted.append((" ".join(args), data))
        if data.get("effect") == "confirmed":
            self.judge(args, data, before, windows)
        return data

    def judge(self, args, data, before, windows):
        """A confirmed outcome's claims, read back by pyatspi; and the screen changed."""
        line = f"`{' '.join(args)}` said confirmed: {data.get('observed')}"
        element = data.get("element") or {}
        claims = []
        if args[0] in ("fill", "type") and element.get("value"):
            claims.append(("text", element["value"]))
        if args[0] == "select":
            claims.append(("text", args[2]))
        if args[0] == "check" and element.get("label"):
            claims.append(("unchecked" if "--off" in args else "checked", element["label"]))
        for closed in data.get("closed") or []:
            if windows.get(closed):
                # Windows may share a title (a browser's popups): one fewer must show.
                titled = sum(1 for title in windows.values() if title == windows[closed])
                claims.append(("closed", (windows[closed], titled)))
        deadline = time.time() + SHOWS_WITHIN
        while True:
            changed = self.witness("capture")["hash"] != before["hash"]
            if changed or time.time() >= deadline:
                break
            time.sleep(0.2)
        if not changed:
            self.untrue.append(f"{line}; but {capturer()}'s capture of the screen did not change in {SHOWS_WITHIN:.0f} s")
        if not claims:
            return
        seen = self.witness("read")
        texts = [" ".join(t.replace("\ufffc", " ").split()) for t in seen["texts"]]
        for kind, value in claims:
            if kind == "closed":
                title, before_count = value
                holds = seen["shown"].count(title) < before_count
                value = f"{title} ({before_count} before)"
            else:
                folded = " ".join(value.split())
                holds = {
                    "text": lambda: any(folded == t or (len(folded) > 3 and folded in t) for t in texts),
                    "checked": lambda: value in seen["checked"],
                    "unchecked": lambda: value not in seen["checked"],
                }[kind]()
            if not holds:
                self.untrue.append(f"{line}; but pyatspi does not read {kind} {value!r}")

    @staticmethod
    def left_out(dropped, image, origin, windows):
        """Why the text-bearing elements of a read were left out, and what the step saw."""
        reasons = ", ".join(f"{count} {why}" for why, count in dropped.items()) or "none read"
        listed = "; ".join(f"{w['id']} {w['title']!r} {w['bounds']}{'' if w.get('visible') else ' hidden'}"
                           for w in windows)
        return (f"text-bearing elements left out: {reasons}; capture {image.size[0]}x{image.size[1]}, "
                f"content at {origin}; windows: {listed}")

    def truth_step(self):
        if not self.acted:
            raise StepFailed("no action ran")
        effects = [data.get("effect") for _, data in self.acted]
        missing = [line for line, data in self.acted if data.get("effect") is None]
        if missing:
            raise StepFailed(f"actions without an effect in their outcome: {missing}")
        if self.untrue:
            raise StepFailed("; ".join(self.untrue))
        confirmed, unverifiable = effects.count("confirmed"), effects.count("unverifiable")
        return (f"{len(self.acted)} actions: {confirmed} confirmed and borne out by pyatspi and {capturer()}'s capture, "
                f"{unverifiable} unverifiable")

    def values_step(self):
        """The values uidrive reads against a capture of the screen (scripts/compat/shown.py);
        the app's `must_show` (role, label, value) must be among those read by OCR."""
        import shown
        from PIL import Image

        path = os.path.join(WORK, f"{self.name}-values.png")
        for attempt in range(3):
            windows = self.windows()
            main = windows[0]
            # The app's other windows that show cover what is under them; Chromium lists windows
            # of its main window's own place and size too (had one covered it, OCR would say so).
            covered = [tuple(w["bounds"][k] for k in ("x", "y", "width", "height")) for w in windows[1:]
                       if w.get("visible") and w["bounds"] != main["bounds"]]
            origin = (main["contentBounds"]["x"], main["contentBounds"]["y"])
            # A value the app must show, read otherwise, is read again (three reads, a second
            # apart) and said: LibreOffice re-creates its cells' objects, and a read right
            # then has been seen to miss A1's value once in three runs under load. So is a read
            # that shows nothing whole (gnome-system-monitor, once in CI), with why.
            nodes = self.tree(main["id"])
            self.witness("shot", path)
            image = Image.open(path).convert("RGB")
            dropped = {}
            on_screen = shown.on_screen(nodes, origin, image.size, covered, dropped)
            missed = [(role, label, value) for role, label, value in self.must_show
                      if not any(n.get("role") == role and n.get("label") == label and n.get("value") == value
                                 for n, _ in on_screen)]
            if (on_screen and not missed) or attempt == 2:
                break
            if not on_screen:  # said in the log: a read that shows nothing once is a lead
                print(f"  {self.name}: values: nothing shown whole ({self.left_out(dropped, image, origin, windows)}); "
                      "reading again", flush=True)
            else:
                print(f"  {self.name}: values: read {missed} otherwise; reading again", flush=True)
            time.sleep(1.0)
        if os.environ.get("UIDRIVE_COMPAT_DUMP"):  # what the step saw, beside the capture
            with open(os.path.join(WORK, f"{self.name}-values.json"), "w") as f:
                json.dump({"origin": origin, "covered": covered, "windows": windows, "shown": [n["id"] for n, _ in on_screen],
                           "nodes": [n for n in nodes if n.get("role") in shown.TEXT_ROLES]}, f, indent=1)
        if not on_screen:
            raise StepFailed("no text field, cell or label shown whole on the screen: nothing to check "
                             f"({self.left_out(dropped, image, origin, windows)})")
        required = []
        for role, label, value in self.must_show:
            found = [n for n, _ in on_screen if n.get("role") == role and n.get("label") == label]
            if not found:
                raise StepFailed(f"{role} {label!r} is not among the elements shown whole")
            if found[0].get("value") != value:
                raise StepFailed(f"{role} {label!r} reads {found[0].get('value')!r}, not {value!r}")
            required.append(found[0])
        seen = shown.judge(image, on_screen, must=required)
        checked = seen["empty_blank"] + seen["empty_read"] + seen["valued_read"]
        detail = (f"{len(on_screen)} shown whole, {checked} checked: of {seen['empty']} with no value "
                  f"{seen['empty_blank']} show nothing, {seen['empty_read']} read by OCR show no text "
                  f"but their label or placeholder")
        if seen["empty_unread"]:
            detail += f" ({seen['empty_unread']} more with ink not read, past the OCR limit)"
        detail += f"; {seen['valued_read']} of {seen['valued']} plain values read back by OCR"
        if seen["examples"]:
            detail += f" ({', '.join(seen['examples'])})"
        # A box that shows text where uidrive reads none is uidrive's fault only when the app
        # exposes that text: pyatspi is asked what lies within the box (Qt Designer's Widget Box
        # draws its widgets' names in a cell and exposes no element for them).
        untrue, unexposed = [], []
        for node, box, line, claimed_empty in seen["contradicted"]:
            there = self.witness("inside", *map(str, box))["inside"] if claimed_empty else None
            # The element itself must be among those found: else the boxes disagree, and nothing is excused.
            if there and not any(e["name"].strip() or (e["text"] or "").strip() for e in there):
                unexposed.append(f"{line}; pyatspi: {len(there)} element(s) within it, none with a name "
                                 f"or text ({', '.join(sorted({e['role'] for e in there}))})")
            elif there is not None:
                untrue.append((node, box, f"{line}; pyatspi reads there: " + (", ".join(
                    repr(e["name"] or e["text"]) for e in there if e["name"] or e["text"])[:200] or "no element")))
            else:
                untrue.append((node, box, line))
        # A live app (gnome-system-monitor's memory and CPU columns, its rows re-sorted as
        # processes come and go) changes its text between the read and the capture: an element
        # whose label or value reads otherwise on a fresh read, or whose box shows other pixels
        # on a second capture, changed, and is said apart rather than counted untrue.
        if untrue:
            fresh = {n["id"]: n for n in self.tree(main["id"])}
            again_path = os.path.join(WORK, f"{self.name}-values-again.png")
            self.witness("shot", again_path)
            again = Image.open(again_path).convert("RGB")

            def live(node, box):
                if node["id"] in fresh and (fresh[node["id"]].get("label"), fresh[node["id"]].get("value")) \
                        != (node.get("label"), node.get("value")):
                    return True
                x, y, w, h = (int(v) for v in box)  # on the screen, as the captures are
                crop = (x, y, x + w, y + h)
                return image.crop(crop).tobytes() != again.crop(crop).tobytes()

            changed = [line for n, box, line in untrue if live(n, box)]
            if changed:
                detail += f"; {len(changed)} changed while read (a live app), e.g. " + changed[0]
            untrue = [line for n, box, line in untrue if line not in changed]
        if unexposed:
            detail += (f"; {len(unexposed)} show what OCR reads as text where no element the app exposes "
                       f"has a name or text: " + "; ".join(unexposed[:3]))
        if untrue:
            raise StepFailed(detail + "; untrue: " + "; ".join(untrue[:5]))
        if not checked:
            raise StepFailed(detail + ": nothing was checked")
        if seen["empty"] and not seen["empty_blank"] + seen["empty_read"]:
            raise StepFailed(detail + ": no element with no value was checked")
        if seen["valued"] and not seen["valued_read"]:
            raise StepFailed(detail + ": no element with a value was checked")
        return detail + self.falsified(image, on_screen, seen["read_back"])

    def falsified(self, image, on_screen, read_back=()):
        """The checker, given claims made false on this very capture, must say so: a value
        shown read as none (one OCR read back, when there is one: tesseract may be unsure of
        another's glyphs, as of GIMP's '100.0', and only sure words count against an empty
        claim), and a value given to an element that shows nothing."""
        import shown

        caught, tried = [], []
        showing = [(n, b) for n, b in on_screen if n.get("value") and shown.plain(n["value"])
                   and not any(shown.part_of(n["value"], t) for t in (n.get("label"), n.get("placeholder")) if t)]
        showing.sort(key=lambda nb: not any(nb[0] is n for n in read_back))
        # Up to 3 values, until one claimed empty is caught: a claim of no value is held only
        # against the words tesseract is sure of, and it may be unsure of a value it read.
        unsure = []
        for node, box in showing[:3]:
            claim = f"{node['value']!r} claimed empty"
            if shown.judge(image, [({**node, "value": None}, box)])["untrue"]:
                if unsure:
                    claim += f" (after {', '.join(unsure)}, read too unsurely to count)"
                tried.append(claim)
                caught.append(claim)
                break
            unsure.append(claim)
        else:
            tried.extend(unsure)
        for node, box in on_screen:
            if not node.get("value") and shown.blank(image, box, node.get("role"))[0]:
                tried.append(f"an empty {node['role']} claimed to read 'uidrive42'")
                if shown.judge(image, [({**node, "value": "uidrive42"}, box)])["untrue"]:
                    caught.append(tried[-1])
                break
        missed = [t for t in tried if t not in caught]
        if missed:
            raise StepFailed(f"the checker did not catch falsified claims: {missed}")
        if not tried:
            return "; no claim to falsify on this capture"
        return f"; falsified claims caught: {', '.join(caught)}"

    def elements(self, window=None):
        args = ["snapshot"] + (["--window", str(window)] if window is not None else [])
        return self.cli(*args)["elements"]

    def find(self, role=None, label=None, contains=None, elements=None):
        found = []
        for e in elements if elements is not None else self.tree():
            if role is not None and e.get("role") != role:
                continue
            text = e.get("label", "") or ""
            if label is not None and text != label:
                continue
            if contains is not None and contains not in text and contains not in (e.get("value") or ""):
                continue
            found.append(e)
        return found

    def tree(self, window=None):
        """The window's whole tree (the protocol's `tree`, hidden elements included), by default
        the app's first window's."""
        if window is None:
            window = self.windows()[0]["id"]
        tree = self.protocol("tree", {"window": window})
        for node in tree["nodes"]:  # the focused element comes apart from the states
            if node["id"] == tree.get("focus"):
                node["states"] = node.get("states", []) + ["focused"]
        return tree["nodes"]

    def wait_for(self, what, check, timeout=10.0, window=None):
        """Reads the whole tree until `check(nodes)` answers something true; fails naming `what`."""
        return self.wait_until(what, lambda: check(self.tree(window)), timeout)

    def wait_until(self, what, check, timeout=10.0):
        """Calls `check()` until it answers something true; fails naming `what`."""
        deadline = time.time() + timeout
        while True:
            found = check()
            if found:
                return found
            if time.time() >= deadline:
                raise StepFailed(f"{what}: not seen within {timeout:.0f} s")
            time.sleep(0.5)

    def windows(self):
        return self.cli("windows")["windows"]

    # --- steps shared by every app -----------------------------------------
    def open(self):
        # Settings of its own, so nothing an earlier run left (a mode, a draft) changes this one.
        home = os.path.join(WORK, self.name)
        fresh = {f"XDG_{kind}_HOME": os.path.join(home, kind.lower()) for kind in ("CONFIG", "DATA", "STATE")}
        headless = ["--headless"] + (["wayland"] if BACKEND == "wayland" else [])
        run_cli(self.session, ["open", *headless, "--timeout", str(self.open_timeout_ms), "--launch",
                               *self.argv], timeout=self.open_timeout_ms / 1000 + 60, env=fresh)
        path = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                            "uidrive", "sessions", self.session)
        with open(path) as f:
            self.daemon = json.load(f)["target"]["daemon"]
        for pid in descendants(self.daemon):
            env = environ(pid)
            # Not a process that has a bus of its own (WebKit's web process, behind a proxy).
            display = "WAYLAND_DISPLAY" if BACKEND == "wayland" else "DISPLAY"
            if "AT_SPI_BUS_ADDRESS" in env and display in env and "webkitgtk" not in env["AT_SPI_BUS_ADDRESS"]:
                if BACKEND == "wayland" and "DISPLAY" in env:
                    raise StepFailed(f"the app (process {pid}) has DISPLAY={env['DISPLAY']} on the Wayland desktop")
                self.desktop_env = {k: env[k] for k in ("DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY", "SWAYSOCK",
                                                          "DBUS_SESSION_BUS_ADDRESS", "AT_SPI_BUS_ADDRESS",
                                                          "XDG_RUNTIME_DIR") if k in env}
                break
        self.bus = self.desktop_env.get("DBUS_SESSION_BUS_ADDRESS")
        if not self.bus:
            raise StepFailed("could not find the private desktop's environment under the session's daemon")
        helpers = {"Xvfb", "sway", "dbus-daemon", "at-spi-bus-laun", "at-spi2-registr", "openbox"}
        apps = [p for p in proc_children().get(self.daemon, []) if comm(p) not in helpers]
        if len(apps) != 1:
            raise StepFailed(f"expected one app process under the daemon, found {apps}")
        self.app_pid = apps[0]
        if self.ready:
            self.ready(self)  # what the app shows once it has loaded (a browser's page)
        windows = self.cli("windows")["windows"]
        return f"{len(windows)} window(s): {windows[0]['title']!r}" if windows else "no window"

    def protocol(self, method, params):
        """One request to the session's server over its socket, as any protocol client sends it."""
        path = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                            "uidrive", "sessions", self.session)
        with open(path) as f:
            address = json.load(f)["target"]["socket"]
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(60)
            conn.connect(address)
            conn.sendall(json.dumps({"id": 1, "method": method, "params": params}).encode() + b"\n")
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = conn.recv(1 << 20)
                if not chunk:
                    break
                answer += chunk
        reply = json.loads(answer)
        if "error" in reply:
            raise StepFailed(f"{method}: {reply['error']}")
        return reply["result"]

    def full_tree(self, window):
        """The window's whole tree as the protocol's `tree` gives it (what the snapshot is made from):
        (nodes, nodes not inside a truncated element, number of truncated elements)."""
        started = time.perf_counter()
        nodes = self.protocol("tree", {"window": window})["nodes"]
        self.tree_ms = (time.perf_counter() - started) * 1000
        by_id = {n["id"]: n for n in nodes}
        truncated = {n["id"] for n in nodes if n.get("truncated")}

        def inside(n):
            parent = by_id.get(n.get("parent"))
            while parent is not None:
                if parent["id"] in truncated:
                    return True
                parent = by_id.get(parent.get("parent"))
            return False

        return nodes, [n for n in nodes if not inside(n)], len(truncated)

    def snapshot_accounting(self, window):
        """The elements `snapshot` shows plus those it counts as hidden, `(+N)`."""
        started = time.perf_counter()
        lines = run_text(self.session, ["snapshot", "--window", str(window)])
        ms = (time.perf_counter() - started) * 1000
        hidden = sum(int(m) for m in re.findall(r"\(\+(\d+)\)$", lines, re.M))
        return len(lines.splitlines()) + hidden, ms

    def memory_stays_flat(self, window):
        """Five more full reads of the window leave the app alive and its memory where it was
        (the first reads may build the app's accessible objects; these must not add more).

        A browser keeps starting helper processes for seconds after its page shows, so the
        baseline is taken once the app's memory has settled, and the processes that start
        during the reads are reported but not counted: only those present before are compared."""
        reads = 5
        before = self.settled_rss()
        for _ in range(reads):
            self.full_tree(window)
        if rss_mib(self.app_pid) is None:
            raise StepFailed(f"the app (process {self.app_pid}) is gone after {reads} reads")
        now = self.app_rss()
        after = {pid: now[pid] for pid in before if pid in now}
        base, grown = sum(before.values()), sum(after.values())
        allowed = max(32.0, base * 0.10)
        if grown - base > allowed:
            worst = max(after, key=lambda pid: after[pid] - before[pid])
            raise StepFailed(f"the app grew from {base:.0f} to {grown:.0f} MiB over {reads} reads "
                             f"(more than {allowed:.0f} MiB; process {worst} "
                             f"{before[worst]:.0f} -> {after[worst]:.0f} MiB)")
        detail = f"; memory {base:.0f} -> {grown:.0f} MiB over {reads} more reads"
        started = {pid: mib for pid, mib in now.items() if pid not in before}
        if started:
            detail += (f" ({len(started)} process(es) the app started meanwhile, "
                       f"{sum(started.values()):.0f} MiB, not counted)")
        return detail

    def settled_rss(self, limit_s=20.0):
        """The app's memory per process once two samples a second apart show the same
        processes within 2 % (or after `limit_s`, the last sample)."""
        deadline = time.time() + limit_s
        last = self.app_rss()
        while time.time() < deadline:
            time.sleep(1)
            now = self.app_rss()
            total, previous = sum(now.values()), sum(last.values())
            if now.keys() == last.keys() and abs(total - previous) <= 0.02 * previous:
                return now
            last = now
        return last

    def app_rss(self):
        """The resident memory of each of the app's processes (LibreOffice's soffice.bin runs
        under its launcher, a browser's renderers under the browser), in MiB by pid."""
        pids = {self.app_pid, *descendants(self.app_pid)}
        sizes = {pid: rss_mib(pid) for pid in pids}
        return {pid: mib for pid, mib in sizes.items() if mib is not None}

    def nodes_step(self):
        """uidrive's element count against a pyatspi walk of the same window, read again if they
        differ; and `snapshot` must account for every element of the tree (shown, or counted hidden)."""
        window = self.cli("windows")["windows"][0]
        title = window["title"]
        detail = ""
        for _ in range(3):
            accounted, snapshot_ms = self.snapshot_accounting(window["id"])
            nodes, kept, truncated = self.full_tree(window["id"])
            # A node `joined` stands for two of the app's objects (one widget read as one element).
            ours = len(kept) + sum(1 for n in kept if n.get("joined"))
            walk = subprocess.run([PYTHON, os.path.join(HERE, "atspi_walk.py"), str(self.app_pid),
                                   "--title", title], capture_output=True, text=True, timeout=300,
                                  env={**os.environ, **self.desktop_env})
            if walk.returncode != 0:
                raise StepFailed(f"pyatspi walk failed: {walk.stderr.strip()[-300:]}")
            peer = json.loads(walk.stdout.splitlines()[-1])
            self.nodes = (ours, peer["nodes"], self.tree_ms, peer["ms"])
            detail = (f"uidrive {ours} / pyatspi {peer['nodes']} nodes; full tree {self.tree_ms:.0f} ms "
                      f"(protocol `tree`), pyatspi walk {peer['ms']:.0f} ms; snapshot {snapshot_ms:.0f} ms "
                      f"(CLI) accounts for {accounted} of the tree's {len(nodes)}")
            if truncated or peer.get("limited"):
                detail += (f"; children of elements that manage their descendants left out "
                           f"(uidrive marks {truncated} truncated, pyatspi finds {peer['limited']})")
            if peer.get("defunct"):
                detail += f"; {peer['defunct']} element(s) the app marks defunct left out on both sides"
            if ours == peer["nodes"] and accounted == len(nodes):
                return detail + self.memory_stays_flat(window["id"])
            time.sleep(1)
        raise StepFailed(detail + ": the counts differ")

    def capture(self):
        path = os.path.join(WORK, f"{self.name}.png")
        self.cli("screenshot", path, "--window", str(self.windows()[0]["id"]))
        width, height, colours = png_colours(path)
        if colours < 3:
            raise StepFailed(f"{width}x{height} capture has {colours} colour(s): blank")
        return f"{width}x{height}, {colours if colours < 1000 else '1000+'} colours"

    def close(self):
        watched = set(descendants(self.daemon)) | {self.daemon} | set(on_bus(self.bus))
        self.cli("close", timeout=60)
        deadline = time.time() + 15
        while time.time() < deadline:
            left = [p for p in watched | set(on_bus(self.bus)) if alive(p)]
            if not left:
                return f"{len(watched)} processes ended"
            time.sleep(0.5)
        raise StepFailed("still running after close: " + ", ".join(f"{p} {comm(p)}" for p in left))

    def cleanup(self):
        """After a failure: stop the session, then anything of its desktop that is left."""
        try:
            run_cli(self.session, ["close"], timeout=30)
        except Exception:
            pass
        if self.bus:
            for pid in on_bus(self.bus):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass


# A step's outcome: it passed, it failed, or (on Wayland) it failed as its scenario says it
# does there: on the `unsupported` the Wayland backend answers (unsup), or on a defect found
# and not fixed yet (known). Those two are neither passed nor failed, and listed with why.
PASS, FAIL, UNSUPPORTED, KNOWN = "pass", "FAIL", "unsup", "known"


def run_app(app, scenario, unsupported=None, known=None):
    """Runs the shared steps and the app's own (`scenario` fills text, button, menu).
    `unsupported` maps a step to why the Wayland backend answers `unsupported` there, `known`
    to the defect it fails on there."""
    unsupported, known = unsupported or {}, known or {}

    def step(name, work):
        started = time.time()
        try:
            detail = work() or ""
            if name in known:  # the table of known defects is out of date: say so
                detail += f" (passed, though listed as failing on {BACKEND}: {known[name]})"
            app.results[name] = (PASS, detail, time.time() - started)
            return True
        except StepFailed as e:
            if e.code == "unsupported" and name in unsupported:
                app.results[name] = (UNSUPPORTED, f"{unsupported[name]} ({e})", time.time() - started)
                print(f"  {app.name}: {name} unsupported on {BACKEND}: {e}", flush=True)
                return False
            if name in known:
                app.results[name] = (KNOWN, f"{known[name]} This run: {e}", time.time() - started)
                print(f"  {app.name}: {name} failed as known on {BACKEND}: {e}", flush=True)
                return False
            app.results[name] = (FAIL, str(e), time.time() - started)
        except Exception as e:  # a defect of the suite itself still fails the step
            app.results[name] = (FAIL, f"{type(e).__name__}: {e}", time.time() - started)
        print(f"  {app.name}: {name} FAILED: {app.results[name][1]}", flush=True)
        return False

    began = time.time()
    if step("open", app.open):
        step("nodes", app.nodes_step)
        for name, work in scenario(app):
            step(name, work)
            if name == app.values_after:
                step("values", app.values_step)
        step("truth", app.truth_step)
        if "values" not in app.results:
            step("values", app.values_step)
        step("capture", app.capture)
        step("close", app.close)
    # After an open that failed as known, what was not reached is not a failure of its own.
    after_open = KNOWN if app.results["open"][0] == KNOWN else FAIL
    for name in STEPS:
        app.results.setdefault(name, (after_open, "not reached", 0.0))
    if app.results["close"][0] != PASS:
        app.cleanup()
    app.seconds = time.time() - began


def report(apps, not_run):
    """Prints the table and every step's detail; answers the number of failed steps.
    `not_run` maps an app the backend cannot run to the reason."""
    width = max([len(a.name) for a in apps] + [len(name) for name in not_run] + [3])
    print()
    print(f"backend: {BACKEND}")
    print(f"{'app':<{width}}  " + "  ".join(f"{s:<7}" for s in STEPS) + "  nodes (uidrive/pyatspi)  time")
    for a in apps:
        marks = "  ".join(f"{a.results[s][0]:<7}" for s in STEPS)
        nodes = f"{a.nodes[0]}/{a.nodes[1]}" if a.nodes else "-"
        print(f"{a.name:<{width}}  {marks}  {nodes:<23}  {a.seconds:.0f} s")
    for name in not_run:
        print(f"{name:<{width}}  " + "  ".join(f"{'-':<7}" for _ in STEPS) + "  not run (below)")
    print()
    for a in apps:
        # An app's own steps beyond the shared columns (a select) follow them.
        for s in STEPS + [extra for extra in a.results if extra not in STEPS]:
            outcome, detail, _ = a.results[s]
            print(f"{a.name} {s}: {outcome}{': ' + detail if detail else ''}")
    for name, why in not_run.items():
        print(f"{name}: not run on {BACKEND}: {why}")
    outcomes = [outcome for a in apps for outcome, _, _ in a.results.values()]
    passed, failed = outcomes.count(PASS), outcomes.count(FAIL)
    unsup, known = outcomes.count(UNSUPPORTED), outcomes.count(KNOWN)
    print(f"compat: took {time.time() - STARTED:.0f} s")
    summary = f"compat: {passed} passed, {failed} failed"
    if BACKEND == "wayland":
        summary += (f", {unsup} unsupported on wayland, {known} failed as known on wayland, "
                    f"{len(not_run)} app(s) not run on wayland")
    print(summary)
    return failed


def main():
    global BACKEND
    import scenarios

    args = sys.argv[1:]
    if "--backend" in args:
        at = args.index("--backend")
        if at + 1 >= len(args) or args[at + 1] not in ("x11", "wayland"):
            raise SystemExit("--backend takes x11 or wayland")
        BACKEND = args[at + 1]
        del args[at:at + 2]
    wanted = args or list(scenarios.APPS)
    unknown = [w for w in wanted if w not in scenarios.APPS]
    if unknown:
        raise SystemExit(f"unknown app(s) {unknown}; known: {list(scenarios.APPS)}")
    not_run = {}
    if BACKEND == "wayland":
        not_run = {name: scenarios.NOT_ON_WAYLAND[name] for name in wanted if name in scenarios.NOT_ON_WAYLAND}
        wanted = [name for name in wanted if name not in not_run]
    apps = []
    for name in wanted:
        argv, scenario, timeout_ms, prepare = scenarios.APPS[name]
        if BACKEND == "wayland":
            argv = scenarios.ON_WAYLAND.get(name, argv)
        if prepare:
            prepare(WORK)
        app = App(name, [a.replace("{work}", WORK).replace("{here}", HERE) for a in argv], timeout_ms,
                  scenarios.READY.get(name))
        app.must_show = scenarios.MUST_SHOW.get(name, ())
        app.values_after = scenarios.VALUES_AFTER.get(name)
        print(f"== {name} ({BACKEND}): {' '.join(app.argv)}", flush=True)
        if BACKEND == "wayland":
            run_app(app, scenario, scenarios.UNSUPPORTED_ON_WAYLAND.get(name),
                    scenarios.FAILS_ON_WAYLAND.get(name))
        else:
            run_app(app, scenario)
        apps.append(app)
    for name, why in not_run.items():
        print(f"== {name} ({BACKEND}): not run: {why}", flush=True)
    sys.exit(1 if report(apps, not_run) else 0)


if __name__ == "__main__":
    main()
