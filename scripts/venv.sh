#!/usr/bin/env bash
# Prints the path of a Python venv that has REQUIREMENTS installed, creating it
# only when it is not there yet. The venv lives under the target dir, keyed by
# a hash of its inputs (the interpreter and the requirements), so a run whose
# inputs did not change reuses it and skips pip; a change makes a new one and
# removes the old.
#
#   venv="$(bash scripts/venv.sh NAME REQUIREMENT...)"
#
# Uses $CARGO_TARGET_DIR when set, else target/; $PYTHON when set, else python3.
# pip's own output goes to stderr; stdout is the venv's path alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
name="$1"
shift
python="${PYTHON:-python3}"
target="${CARGO_TARGET_DIR:-$root/target}"
mkdir -p "$target/venvs"
target="$(cd "$target" && pwd)"

interpreter="$("$python" -c 'import sys; print(sys.executable, sys.version)')"
key="$(printf '%s\n' "$interpreter" "$@" | sha256sum | cut -c1-12)"
venv="$target/venvs/$name-$key"

if [ ! -f "$venv/.complete" ]; then
    for old in "$target/venvs/$name"-*; do
        [ -e "$old" ] && rm -rf "$old"
    done
    echo "venv.sh: creating $venv" >&2
    "$python" -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >&2
    printf '%s\n' "$interpreter" "$@" >"$venv/.complete"
else
    echo "venv.sh: reusing $venv (inputs unchanged)" >&2
fi
echo "$venv"
