#!/usr/bin/env bash
# Builds everything a user of uidrive may want, optimised, in one compilation,
# and prints what it built and where:
#
#   - the `uidrive` command line (and MCP server), copied into a directory on
#     PATH: $UIDRIVE_BIN_DIR, else $CARGO_HOME/bin (~/.cargo/bin, where rustup
#     puts cargo);
#   - libuidrive.so and libuidrive.a, with include/uidrive.h and uidrive.pc;
#   - the Python wheel (abi3: CPython 3.9 and newer);
#   - the Node module (bindings/node, ready for `npm install <that folder>`),
#     and the npm tarball that needs no Rust, target/npm/uidrive-VERSION.tgz
#     (the prebuilt module, types, and the `uidrive` bin; no install script).
#
#   bash scripts/build.sh
#
# Needs Rust, python3 (with venv) and Node 18+. One `cargo build --release`
# compiles every crate once; maturin and the Node module's build then find it
# all compiled and only package it. Later `pip install ./bindings/python` and
# `npm install <path>/bindings/node` reuse the same target dir.
# CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$SECONDS

for tool in cargo python3 node; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is not installed" >&2; exit 1; }
done
# python3 -m venv needs Debian's python3-venv.
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-venv
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
mkdir -p "$CARGO_TARGET_DIR"
CARGO_TARGET_DIR="$(cd "$CARGO_TARGET_DIR" && pwd)"
out="$CARGO_TARGET_DIR/release"

step() { printf '\n== %s\n' "$*"; }

step "maturin (a venv kept under the target dir)"
venv="$(bash scripts/venv.sh maturin "maturin>=1.9,<2")"

step "cargo build --release: the CLI, libuidrive, the Python extension, the Node module"
cargo build --release --locked -p uidrive-cli -p uidrive -p uidrive-python -p uidrive-node

step "the Python wheel (maturin packages what cargo built)"
wheels="$CARGO_TARGET_DIR/wheels"
rm -f "$wheels"/uidrive-*.whl
(cd bindings/python && "$venv/bin/maturin" build --release --locked --out "$wheels")
wheel="$(ls "$wheels"/uidrive-*.whl)"

step "the Node module, and its npm tarball (prebuilt: installs with no Rust)"
node bindings/node/scripts/build.js
tarball="$(node bindings/node/scripts/pack.js "$CARGO_TARGET_DIR/npm")"

step "libuidrive's pkg-config file"
bash tests/c_abi/make-pc.sh "$root/include" "$out" "$out/pkgconfig"

step "the uidrive command"
bin_dir="${UIDRIVE_BIN_DIR:-${CARGO_HOME:-$HOME/.cargo}/bin}"
mkdir -p "$bin_dir"
install -m 755 "$out/uidrive" "$bin_dir/uidrive.partial"
mv -f "$bin_dir/uidrive.partial" "$bin_dir/uidrive"

on_path="yes"
[ "$(command -v uidrive 2>/dev/null)" = "$bin_dir/uidrive" ] || on_path="no: add $bin_dir to PATH"

cat <<EOF

== built in $((SECONDS - started)) s (release)

uidrive command     $bin_dir/uidrive   (on PATH: $on_path)
                    try: uidrive --help; uidrive skills
C library           $out/libuidrive.so
                    $out/libuidrive.a
  header            $root/include/uidrive.h
  pkg-config        $out/pkgconfig/uidrive.pc
                    try: PKG_CONFIG_PATH=$out/pkgconfig cc app.c \$(pkg-config --cflags --libs uidrive)
Python wheel        $wheel
                    try: pip install $wheel   (brings the uidrive command too)
                    (or pip install $root/bindings/python, which reuses this build)
npm tarball         $tarball
                    try: npm install $tarball   (no Rust needed; brings the uidrive bin)
Node module         $root/bindings/node/uidrive.node
                    try: npm install $root/bindings/node   (from your project; reuses this build)
EOF
