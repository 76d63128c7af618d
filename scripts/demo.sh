#!/usr/bin/env bash
# The main job on its embedded default: start a private headless desktop,
# launch gnome-calculator on it, compute 7 × 6 by pressing its buttons through
# the accessibility tree, and print what the display shows. Installs what it
# needs on a fresh Debian machine first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cargo build --release --locked --quiet -p uidrive-cli
uidrive=$PWD/target/release/uidrive
export UIDRIVE_SESSION="demo-$$"
trap '"$uidrive" close >/dev/null 2>&1 || true' EXIT

"$uidrive" open --headless --launch gnome-calculator
"$uidrive" snapshot -i | head -n 12
echo "..."
echo "\$ uidrive batch 'press role=button name=\"7\"' ... 'press role=button name=\"=\"'"
"$uidrive" batch \
  'press role=button name="7"' \
  'press role=button name="×"' \
  'press role=button name="6"' \
  'press role=button name="="'
# The display's field now holds the answer; wait for it rather than sleep.
"$uidrive" wait 'text="42"' --timeout 10000
echo "gnome-calculator says 7 × 6 = 42"
