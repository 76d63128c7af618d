#!/usr/bin/env bash
# What tracing costs (docs/trace.md): the gnome-calculator scenario with
# tracing off and on, on a private headless desktop. Prints the time per step
# each way, the tree reads, captures and settle waits tracing adds per step,
# and the size of a trace of the scenario.
#
#   bash bench/trace_cost.sh [ROUNDS]     (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p uidrive-facade --example trace_cost >&2
exec "${CARGO_TARGET_DIR:-target}/release/examples/trace_cost" "${1:-5}" 2> >(grep -v -e 'WARNING' -e '^$' >&2)
