#!/usr/bin/env bash
# Runs every test of uidrive on a fresh Debian machine: installs what it needs,
# then checks formatting and lints, builds the whole workspace once, and runs
# the Rust, C, Go, Python, Node, MCP and WebDriver (Appium, Selenium and
# Selenium Grid clients) suites on that one build and the
# compatibility suite (scripts/compat: Qt 5 and 6, Firefox, Chromium,
# LibreOffice, GTK 4/libadwaita, GTK 3, wx and Java apps, each on its own
# desktop; on the X11 desktop and again on the Wayland one), the Rust tests
# and the Wayland compatibility run in one lane and the others in a second. Each suite
# starts its own private headless desktop (Xvfb, D-Bus session bus, AT-SPI
# bus) where it drives real apps.
#
# One compilation: `cargo build --workspace --all-targets` builds every crate
# once (debug) — the CLI, libuidrive, the Python extension, the Node module,
# the tests and examples. The workspace's features are unified
# (crates/workspace-hack, kept by cargo-hakari) and PyO3 has one configuration
# (.cargo/config.toml), so the cargo builds that the suites make on their own
# find everything fresh. The last step checks the log for it: no workspace
# crate may be compiled twice. The log is kept in target/test.log.
#
# Clippy lints during that build: the workspace's own crates are compiled by
# clippy-driver (RUSTC_WORKSPACE_WRAPPER, as `cargo clippy` does), so the
# dependencies are compiled once instead of also being checked apart; the
# "clippy" step fails on any warning of the workspace's crates, as
# `cargo clippy --workspace --all-targets -- -D warnings` would, while the
# suites still run. The variable stays set for the suites, whose cargo builds
# must match this one.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

bash scripts/install-deps.sh
# Every suite builds debug into the one target/ dir, so they share their build.
export UIDRIVE_PY_PROFILE="${UIDRIVE_PY_PROFILE:-debug}"
export UIDRIVE_NODE_PROFILE="${UIDRIVE_NODE_PROFILE:-debug}"
export UIDRIVE_PROFILE="${UIDRIVE_PROFILE:-debug}"
# `cargo test --workspace` below runs the C ABI's Rust tests; run.sh skips them.
export UIDRIVE_C_ABI_RUST_TESTS=0
unset CARGO_TARGET_DIR

mkdir -p target
log="$root/target/test.log"
: >"$log"

step() { printf '\n=== %s\n' "$*"; }
passed=0
failed=0
failures=()
run() {
  local name=$1
  shift
  step "$name" | tee -a "$log"
  local started=$SECONDS
  if "$@" 2>&1 | tee -a "$log"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failures+=("$name")
  fi
  echo "--- $name: $((SECONDS - started)) s" | tee -a "$log"
}

# Fails when the log shows a workspace crate compiled more than once: then a
# suite's own cargo build resolved other features than the workspace build
# (run `cargo hakari generate` after changing dependencies) or saw other
# environment (see .cargo/config.toml, and RUSTC_WORKSPACE_WRAPPER below).
compiled_once() {
  local compiled twice
  compiled="$(sed -n '/^=== cargo build/,$p' "$log" | grep -E '^ *Compiling uidrive[a-z0-9-]* v' | awk '{print $2}' | sort)"
  twice="$(uniq -d <<<"$compiled")"
  uniq -c <<<"$compiled"
  if [ -n "$twice" ]; then
    echo "compiled more than once: $twice"
    return 1
  fi
  echo "each workspace crate compiled at most once"
}

# Fails when the build step's log shows a warning of a workspace crate
# (clippy's or rustc's; dependencies' warnings are capped by cargo).
no_warnings() {
  local warned
  warned="$(sed -n '/^=== cargo build/,/^--- cargo build/p' "$log" | grep -E '^warning: .* generated [0-9]+ warnings?' || true)"
  if [ -n "$warned" ]; then
    echo "$warned"
    echo "fix the warnings above (cargo clippy --workspace --all-targets shows them)"
    return 1
  fi
  echo "no warnings from clippy or rustc in the workspace's crates"
}

# The C harness (tests/c_abi/run.sh) calls ud_test_panic, which libuidrive
# exports with its `test-panic` feature: every cargo command here enables it
# too, so that run.sh's build is this one. (scripts/build.sh leaves it off.)
features=(--features uidrive/test-panic)
clippy_driver="$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)"
if [ -z "$clippy_driver" ]; then
  echo "test.sh: clippy-driver not found; install it with: rustup component add clippy" >&2
  exit 1
fi
export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"

run "cargo fmt" cargo fmt --all -- --check
run "cargo build (every crate, once, linted by clippy)" cargo build --workspace --all-targets --locked "${features[@]}"
run "clippy" no_warnings
run "cargo test --doc" cargo test --workspace --doc --locked "${features[@]}"

# The rest runs in two lanes at once, as the suites mostly wait on real apps:
# the Rust test binaries and the compatibility suite on Wayland in one, the C,
# Python, Node, MCP and compatibility (X11) suites in the other. The binaries are run directly, not by `cargo test`,
# which would hold the build directory's lock while they run and keep the
# other lane's (fresh) cargo builds waiting. Each lane writes its own log,
# added to the main one when both have ended.
bins="$root/target/test-binaries.tsv"
cargo test --workspace --locked "${features[@]}" --no-run --message-format=json 2>>"$log" |
  python3 -c '
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["profile"]["test"] and m.get("executable"):
        print(os.path.dirname(m["manifest_path"]) + "\t" + m["executable"])
' >"$bins"

# Runs every test binary from its package's directory, as cargo would.
rust_tests() {
  local dir exe bad=0
  while IFS=$'\t' read -r dir exe; do
    echo "     Running $exe"
    if ! (cd "$dir" && CARGO_MANIFEST_DIR="$dir" "$exe"); then
      echo "FAILED: $exe"
      echo "$exe" >>"$root/target/test-rust.log.binaries"
      bad=1
    fi
  done <"$bins"
  return "$bad"
}

lane() {
  local name=$1
  shift
  local lane_log="$root/target/test-$name.log"
  : >"$lane_log"
  (
    log=$lane_log
    passed=0 failed=0 failures=()
    for suite in "$@"; do
      case $suite in
        rust) run "cargo test" rust_tests ;;
        compat-wayland) run "scripts/compat/run.sh --backend wayland" bash "$root/scripts/compat/run.sh" --backend wayland ;;
        *) [ -f "$suite" ] && run "$suite" bash "$root/$suite" ;;
      esac
    done
    for f in "${failures[@]}"; do echo "failed: $f"; done >"$lane_log.failed"
    echo "$passed" >"$lane_log.passed"
  ) >/dev/null 2>&1
  grep -E '^--- ' "$lane_log" || true
}
rm -f "$root/target/test-rust.log.binaries"
# The compatibility suite on the Wayland desktop follows the Rust tests: that lane
# ends first (1255 s against 1430 s in a run of 2026-12-02), so it adds the
# least to the whole command's time there: the suite took 271 s alone, so about
# 100 s more (1526 s against 1430 s), where a place in the other lane adds 271 s.
lane rust rust compat-wayland &
rust_lane=$!
lane suites tests/c_abi/run.sh bindings/python/test.sh bindings/node/test.sh crates/cli/tests/mcp.sh crates/webdriver/tests/clients.sh scripts/compat/run.sh &
suites_lane=$!
wait "$rust_lane" "$suites_lane" || true
for name in rust suites; do
  cat "$root/target/test-$name.log" | tee -a "$log"
  passed=$((passed + $(cat "$root/target/test-$name.log.passed")))
  while read -r _ suite; do
    failed=$((failed + 1))
    failures+=("$suite")
  done <"$root/target/test-$name.log.failed"
done
run "one compilation per crate" compiled_once

step "summary"
for name in "${failures[@]}"; do echo "failed: $name"; done
# CI shows the log's end: name the failing tests there.
if [ -s "$root/target/test-rust.log.binaries" ]; then
  echo "failing Rust test binaries and their failed tests:"
  while read -r exe; do
    echo "  $exe"
    sed -n "\|Running $exe|,\|^test result:|p" "$root/target/test-rust.log" | grep -E '^test .* FAILED$|panicked at' | head -20 | sed 's/^/    /'
  done <"$root/target/test-rust.log.binaries"
fi
echo "total: $SECONDS s (log: $log)"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
