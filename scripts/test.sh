#!/usr/bin/env bash
# Runs every test of uidrive on a fresh Debian machine: installs what it needs,
# then checks formatting and lints, and runs the Rust, C, Go, Python, Node and
# MCP suites. Each suite starts its own private headless desktop (Xvfb, D-Bus
# session bus, AT-SPI bus) where it drives real apps.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bash scripts/install-deps.sh
# Every suite builds debug into the one target/ dir, so they share their build.
export UIDRIVE_PY_PROFILE="${UIDRIVE_PY_PROFILE:-debug}"
export UIDRIVE_NODE_PROFILE="${UIDRIVE_NODE_PROFILE:-debug}"
unset CARGO_TARGET_DIR

step() { printf '\n=== %s\n' "$*"; }
passed=0
failed=0
failures=()
run() {
  local name=$1
  shift
  step "$name"
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
}

run "cargo fmt" cargo fmt --all -- --check
run "cargo clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
run "cargo test" cargo test --workspace --locked
for suite in tests/c_abi/run.sh bindings/python/test.sh bindings/node/test.sh crates/cli/tests/mcp.sh; do
  if [ -f "$suite" ]; then
    run "$suite" bash "$root/$suite"
  fi
done

step "summary"
for name in "${failures[@]}"; do echo "failed: $name"; done
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
