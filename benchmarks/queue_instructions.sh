#!/usr/bin/env bash
# Instructions per run of queue mode (`olg serve --workers 2`: the API process and its two
# workers), counted by callgrind: an A/B measure a loaded machine moves by about 1 %, where CPU
# seconds vary by 30 % (docs/performance.md, "Issue 34, fourth pass").
#
#   benchmarks/queue_instructions.sh [RUNS] [SRC]   # defaults: 150, this checkout's src/
#
# SRC is another build's `src/` (e.g. `git archive` of a commit) to run with this checkout's
# virtualenv. PostgreSQL (OLG_BENCH_POSTGRES, default 127.0.0.1:5432, a fresh database) and
# Redis (OLG_BENCH_REDIS) are the ones running; their own CPU is not counted, only user-space
# instructions of our three processes. The processes start uninstrumented under valgrind, take
# 20 runs unmeasured, then RUNS runs (threads.create + runs.wait, 4 at a time, as
# `api_overhead.py --cpu` sends them) with instrumentation on. About 100 s for 150 runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_callgrind_drive.sh"
RUNS="${1:-150}"
SRC="${2:-}"
POSTGRES="${OLG_BENCH_POSTGRES:-postgresql://postgres@127.0.0.1:5432}"
REDIS="${OLG_BENCH_REDIS:-redis://127.0.0.1:6379/0}"
TMP="$(mktemp -d /tmp/olg-queue-instructions.XXXXXX)"
DB="olg_instructions_$$"
psql "$POSTGRES/postgres" -qc "CREATE DATABASE $DB"
(
  if [ -n "$SRC" ]; then export PYTHONPATH="$SRC"; fi
  exec valgrind --tool=callgrind --trace-children=yes --instr-atstart=no \
    --callgrind-out-file="$TMP/callgrind.%p" \
    "$PYTHON" -m open_langgraph.cli serve --host 127.0.0.1 --port "$PORT" \
    --config "$ROOT/benchmarks/bench_graph/open_langgraph.json" \
    --database-url "$POSTGRES/$DB" --redis-url "$REDIS" --workers 2
) >"$TMP/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true;
  psql "$POSTGRES/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" || true; rm -rf "$TMP"' EXIT
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/ok" >/dev/null && break; sleep 0.5; done
sleep 5 # the workers' start-up
drive 20
PIDS="$PID $(pgrep -P "$PID" | tr '\n' ' ')"
for pid in $PIDS; do callgrind_control -i on "$pid" >/dev/null; done
drive "$RUNS"
for pid in $PIDS; do callgrind_control -d "$pid" >/dev/null; done
sleep 2
total=0
for pid in $PIDS; do
  count="$(grep -h '^summary:\|^totals:' "$TMP/callgrind.$pid.1" | head -1 | awk '{print $2}')"
  role="worker"
  [ "$pid" = "$PID" ] && role="api"
  echo "$role (pid $pid): $((count / RUNS)) instructions per run"
  total=$((total + count))
done
echo "total: $((total / RUNS)) instructions per run"
