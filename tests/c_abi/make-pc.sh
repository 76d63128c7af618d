#!/usr/bin/env bash
# Writes uidrive.pc from uidrive.pc.in for a header dir and a library dir.
# usage: make-pc.sh INCLUDEDIR LIBDIR OUTDIR
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
includedir="$1" libdir="$2" outdir="$3"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)"
mkdir -p "$outdir"
sed -e "s|@PREFIX@|$(dirname "$includedir")|" \
    -e "s|@INCLUDEDIR@|$includedir|" \
    -e "s|@LIBDIR@|$libdir|" \
    -e "s|@VERSION@|$version|" \
    "$root/uidrive.pc.in" > "$outdir/uidrive.pc"
