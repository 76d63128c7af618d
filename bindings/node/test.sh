#!/usr/bin/env bash
# The Node module's tests: install the npm dev dependencies (kept between runs
# while their inputs are unchanged), build the native module and the `uidrive`
# CLI from source (nothing left to compile when scripts/test.sh built the
# workspace first), type-check the typed example, and run the node:test suite
# (socket app, errors, event loop, real apps on a private headless desktop).
# Exits non-zero on any failure.
#
# Needs: Node 18+ with npm, Rust (cargo), and what scripts/install-deps.sh installs.
# UIDRIVE_NODE_PROFILE=release builds optimised (default: debug, faster to compile).
set -euo pipefail
cd "$(dirname "$0")"

for tool in node npm cargo; do
  command -v "$tool" >/dev/null || { echo "test.sh: $tool is not installed" >&2; exit 1; }
done
node -e 'if (+process.versions.node.split(".")[0] < 18) { console.error(`test.sh: Node ${process.version} is too old; use Node 18 or later`); process.exit(1) }'

profile="${UIDRIVE_NODE_PROFILE:-debug}"
profile_flag=()
[ "$profile" = release ] && profile_flag=(--release)

echo "== npm ci (dev dependencies: typescript, @types/node)"
# Kept between runs: node_modules is installed again only when package.json,
# package-lock.json or Node's version changed since the last install.
inputs="$(cat package.json package-lock.json | sha256sum | cut -c1-16) node $(node --version)"
stamp=node_modules/.uidrive-npm-inputs
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ]; then
  echo "   node_modules is up to date ($inputs)"
else
  # --ignore-scripts: the native build runs once, below, with the chosen profile.
  npm ci --ignore-scripts --no-audit --no-fund
  echo "$inputs" >"$stamp"
fi

echo "== build the native module ($profile)"
UIDRIVE_NODE_PROFILE="$profile" node scripts/build.js

echo "== build the uidrive CLI (for \`uidrive serve --demo\`)"
UIDRIVE_BIN="$(cargo build -p uidrive-cli --bin uidrive "${profile_flag[@]}" --message-format=json-render-diagnostics \
  | node -e '
      let bin = "";
      require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
        if (!line.startsWith("{")) return;
        const m = JSON.parse(line);
        if (m.reason === "compiler-artifact" && m.executable && m.target.name === "uidrive") bin = m.executable;
      }).on("close", () => { if (!bin) process.exit(1); console.log(bin); });
    ')"
export UIDRIVE_BIN
echo "   $UIDRIVE_BIN"

echo "== tsc --noEmit on test/typed-example.ts"
npx --no-install tsc --noEmit -p test/tsconfig.json

echo "== node --test"
# One file at a time: the real-app tests share the machine's two cores.
node --test --test-concurrency=1 test/*.test.mjs test/*.test.cjs
