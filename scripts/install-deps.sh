#!/usr/bin/env bash
# Installs what building and testing uidrive needs on a fresh Debian machine.
# Safe to run again: apt-get skips what is there.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
PKGS=(
  # headless desktop: X server, session bus, accessibility bus and registry
  xvfb x11-utils dbus dbus-x11 at-spi2-core
  # real apps the end-to-end tests drive
  gtk-3-examples gtk-4-examples gnome-calculator zenity
  # peers for the benchmarks
  python3-pyatspi python3-dogtail
  # the Python wheel's test venv (bindings/python/test.sh)
  python3-venv
  # C ABI harnesses
  gcc g++ pkg-config golang-go
  # fonts so apps render text in captures
  fonts-dejavu-core
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
