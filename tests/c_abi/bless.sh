#!/usr/bin/env bash
# Regenerates the committed include/uidrive.h from ffi/ (after an ABI change).
set -euo pipefail
cd "$(dirname "$0")/../.."
UIDRIVE_BLESS=1 cargo build -p uidrive
git --no-pager diff --stat -- include/uidrive.h || true
