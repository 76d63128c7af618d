#!/usr/bin/env bash
# The MCP server tested with a real MCP client: the official Python SDK
# (`mcp` from PyPI) in a private venv, against uidrive's demo UI and, when the
# headless desktop and AT-SPI driver are there, gnome-calculator. The venv
# is kept between runs (scripts/venv.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"

# Nothing to compile when scripts/test.sh built the workspace first.
cargo build -p uidrive-cli
uidrive="$target/debug/uidrive"

# The client's venv is kept under the target dir while its inputs are unchanged.
venv="$(bash "$root/scripts/venv.sh" mcp-client mcp)"

"$venv/bin/python" "$here/mcp/client.py" "$uidrive"
if [ "${UIDRIVE_MCP_REAL_APP:-1}" = 1 ] && command -v gnome-calculator >/dev/null; then
    "$venv/bin/python" "$here/mcp/client.py" "$uidrive" --button 7 --expect 'value="7"' \
        --then 'press role=button name="×"' --then 'press role=button name="6"' \
        --then 'press role=button name="="' --then-expect 'value="42"' \
        --app gnome-calculator
fi
