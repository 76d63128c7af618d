#!/usr/bin/env bash
# The compatibility suite: real apps of every toolkit, each on a private
# headless desktop, driven through the uidrive command line (see compat.py).
# usage: scripts/compat/run.sh [--backend x11|wayland] [APP...]
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --locked --quiet -p uidrive-cli
# The values step's checker first: it must catch false claims on pictures drawn for it.
/usr/bin/python3 -m unittest -q scripts/compat/test_shown.py
exec /usr/bin/python3 scripts/compat/compat.py "$@"
