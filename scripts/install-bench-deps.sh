#!/usr/bin/env bash
# Installs what the benchmarks need beyond scripts/install-deps.sh: the peers
# uidrive is measured against. The tests never use these.
#
#   bash scripts/install-bench-deps.sh      # then see README.md, Benchmarks
#
# Safe to run again: only packages that are missing are installed.
set -euo pipefail
cd "$(dirname "$0")/.."

# the headless desktop and the apps the benchmarks read
bash scripts/install-deps.sh

# peers for the benchmarks: Debian's Python AT-SPI clients (for /usr/bin/python3)
BENCH_PEERS=(python3-pyatspi python3-dogtail)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
missing=()
for p in "${BENCH_PEERS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
