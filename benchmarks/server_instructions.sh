#!/usr/bin/env bash
# Instructions per run of `olg serve` (SQLite), counted by callgrind: an A/B measure that a
# loaded machine does not move (CPU seconds vary 1.5-2x with the load; this varies < 0.5%).
#
#   benchmarks/server_instructions.sh [RUNS] [OLG]     # defaults: 150, ./.venv/bin/olg
#
# The server starts uninstrumented under valgrind (start-up is not counted), takes 20 runs
# of the bench graph unmeasured, then RUNS runs (threads.create + runs.wait, 4 at a time, as
# `api_overhead.py --cpu` sends them) with instrumentation on. User-space instructions only:
# the kernel's share (sockets, SQLite's writes) is not in it. About 40 s for 150 runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_callgrind_drive.sh"
RUNS="${1:-150}"
OLG="${2:-$ROOT/.venv/bin/olg}"
TMP="$(mktemp -d /tmp/olg-instructions.XXXXXX)"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$TMP/callgrind.%p" \
  "$(dirname "$OLG")/python" "$OLG" serve --host 127.0.0.1 --port "$PORT" \
  --config "$ROOT/benchmarks/bench_graph/open_langgraph.json" --db "$TMP/olg.db" \
  >"$TMP/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/ok" >/dev/null && break; sleep 0.5; done
count_runs "$PID" "$RUNS" "$TMP" "$OLG"
