#!/usr/bin/env bash
# Builds the uidrive wheel, installs it into a fresh venv and tests it there:
# ruff, mypy (against the installed stubs) and pytest on two xdist workers,
# each with its own headless desktop.
#
#   bindings/python/test.sh [extra pytest args...]
#
# Needs: a Rust toolchain, python3 with venv (scripts/install-deps.sh), and
# PyPI for maturin, pytest, pytest-xdist, mypy and ruff.
# CARGO_TARGET_DIR is honoured; UIDRIVE_PY_PROFILE=debug builds a debug wheel.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
profile="${UIDRIVE_PY_PROFILE:-release}"
venv="$CARGO_TARGET_DIR/python-test-venv"
wheels="$CARGO_TARGET_DIR/python-wheels"

step() { printf '\n== %s\n' "$*"; }

step "fresh venv at $venv"
rm -rf "$venv" "$wheels"
python3 -m venv "$venv"
py="$venv/bin/python"
"$py" -m pip install --quiet --upgrade pip
"$py" -m pip install --quiet "maturin>=1.9,<2" pytest pytest-xdist mypy ruff

step "uidrive CLI (for the socket tests: uidrive serve --demo)"
cargo_profile=()
[ "$profile" = release ] && cargo_profile=(--release)
cargo build --quiet -p uidrive-cli "${cargo_profile[@]}"
export UIDRIVE_BIN="$CARGO_TARGET_DIR/$profile/uidrive"

step "wheel ($profile)"
(cd "$here" && "$venv/bin/maturin" build --quiet "${cargo_profile[@]}" --out "$wheels")
"$py" -m pip install --quiet "$wheels"/uidrive-*.whl

step "ruff"
(cd "$here" && "$venv/bin/ruff" check python tests bench.py)

step "mypy (the installed package and its stubs, the tests, the bench)"
# Run outside the source tree so `uidrive` resolves to the installed wheel.
(cd "$here/tests" &&
  "$venv/bin/mypy" --config-file "$here/pyproject.toml" -p uidrive &&
  "$venv/bin/mypy" --config-file "$here/pyproject.toml" . ../bench.py &&
  # the stubs must match the extension's real classes and signatures
  "$py" -m mypy.stubtest uidrive._native)

step "pytest -n 2 (against the installed wheel)"
(cd "$here" && "$venv/bin/pytest" -n 2 -p no:cacheprovider "$@" tests)
