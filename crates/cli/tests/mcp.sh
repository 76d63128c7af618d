#!/usr/bin/env bash
# The MCP server tested with a real MCP client: the official Python SDK
# (`mcp` from PyPI) in a private venv, against uidrive's demo UI and, when the
# headless desktop and AT-SPI driver are there, gnome-calculator.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
venv="${UIDRIVE_MCP_VENV:-$target/mcp-venv}"

cargo build -q -p uidrive-cli
uidrive="$target/debug/uidrive"

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c 'import mcp' 2>/dev/null || "$venv/bin/pip" install -q mcp

"$venv/bin/python" "$here/mcp/client.py" "$uidrive"
if [ "${UIDRIVE_MCP_REAL_APP:-1}" = 1 ] && command -v gnome-calculator >/dev/null; then
    "$venv/bin/python" "$here/mcp/client.py" "$uidrive" --button 7 --expect 'value="7"' \
        --then 'press role=button name="×"' --then 'press role=button name="6"' \
        --then 'press role=button name="="' --then-expect 'value="42"' \
        --app gnome-calculator
fi
