#!/usr/bin/env bash
# Builds the uidrive wheel, installs it into a venv and tests it there:
# ruff, mypy (against the installed stubs) and pytest on two xdist workers,
# each with its own headless desktop.
#
#   bindings/python/test.sh [extra pytest args...]
#
# Needs: a Rust toolchain, python3 with venv (scripts/install-deps.sh), and
# PyPI for maturin, pytest, pytest-xdist, mypy and ruff the first time: the
# venv is kept under the target dir and reused while its inputs are unchanged
# (scripts/venv.sh).
# CARGO_TARGET_DIR is honoured; UIDRIVE_PY_PROFILE=debug builds a debug wheel.
# The cargo builds here find everything already compiled when scripts/test.sh
# or scripts/build.sh ran first with the same profile (one feature set for the
# whole workspace, one PyO3 configuration in .cargo/config.toml).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"
profile="${UIDRIVE_PY_PROFILE:-release}"
wheels="$CARGO_TARGET_DIR/python-wheels/$profile"

step() { printf '\n== %s\n' "$*"; }

step "venv (maturin, pytest, pytest-xdist, mypy, ruff, pyyaml)"
venv="$(bash "$repo/scripts/venv.sh" python-test "maturin>=1.9,<2" pytest pytest-xdist mypy ruff pyyaml types-PyYAML)"
py="$venv/bin/python"

step "uidrive CLI (for the socket tests: uidrive serve --demo)"
cargo_profile=()
[ "$profile" = release ] && cargo_profile=(--release)
cargo build -p uidrive-cli "${cargo_profile[@]}"
export UIDRIVE_BIN="$CARGO_TARGET_DIR/$profile/uidrive"

step "wheel ($profile)"
rm -rf "$wheels"
(cd "$here" && "$venv/bin/maturin" build "${cargo_profile[@]}" --out "$wheels")
"$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheels"/uidrive-*.whl
# tests/test_command.py installs it again into a fresh venv, as a user would.
UIDRIVE_WHEEL="$(ls "$wheels"/uidrive-*.whl)"
export UIDRIVE_WHEEL

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
