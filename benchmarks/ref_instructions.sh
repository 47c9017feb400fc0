#!/usr/bin/env bash
# Instructions per run of `langgraph dev` (langgraph-api 0.16.7, the reference), counted as
# server_instructions.sh counts `olg serve`'s: the same bench graph, the same 20 unmeasured
# runs, then RUNS runs (threads.create + runs.wait, 4 at a time) with instrumentation on.
#
#   benchmarks/ref_instructions.sh [RUNS]     # default 150; about 2.5 min
#
# CPU seconds of two servers measured a minute apart drift by 10-30 % on a shared VM, so their
# ratio moves by half between invocations (docs/performance.md). Instruction counts do not
# drift: this over server_instructions.sh is the ratio of the two servers' user-space work.
# The reference's count includes what its in-memory queue does while a run waits to be picked
# up (about a second a run), as its CPU seconds do. The reference is installed into
# benchmarks/.ref-venv on first use, as `api_overhead.py` installs it, and serves a fresh copy
# of the graph folder (it would otherwise reload the runs of earlier invocations).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_callgrind_drive.sh"
RUNS="${1:-150}"
REF_VENV="$ROOT/benchmarks/.ref-venv"
(cd "$ROOT/benchmarks" && "$PYTHON" -c \
  "import api_overhead as a; a.ensure_ref_venv(a.DEFAULT_REF_VENV)")
TMP="$(mktemp -d /tmp/olg-ref-instructions.XXXXXX)"
mkdir "$TMP/graph"
cp -r "$ROOT/benchmarks/bench_graph/." "$TMP/graph/"
rm -rf "$TMP/graph/.langgraph_api" "$TMP/graph/__pycache__"
(
  cd "$TMP/graph"
  export LANGSMITH_TRACING=false LANGCHAIN_TRACING_V2=false LANGGRAPH_CLI_NO_ANALYTICS=1
  exec valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$TMP/callgrind.%p" \
    "$REF_VENV/bin/python" "$REF_VENV/bin/langgraph" dev --no-browser --no-reload \
    --host 127.0.0.1 --port "$PORT" --config langgraph.json
) >"$TMP/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$TMP"' EXIT
for _ in $(seq 1200); do curl -sf "http://127.0.0.1:$PORT/ok" >/dev/null && break; sleep 0.5; done
if ! curl -sf "http://127.0.0.1:$PORT/ok" >/dev/null; then
  echo "langgraph dev did not answer /ok; its log:" >&2
  tail -20 "$TMP/server.log" >&2
  exit 1
fi
count_runs "$PID" "$RUNS" "$TMP" "langgraph dev"
