#!/usr/bin/env bash
# CPU seconds per SQLite run of two builds of `olg serve`, served and driven at the same time.
#
#   benchmarks/server_ab.sh BEFORE_SRC [RUNS]     # RUNS defaults to 1500
#
# BEFORE_SRC is another build's `src/` (e.g. `git worktree add --detach /tmp/before <commit>`,
# then /tmp/before/src), run with this checkout's virtualenv; the other server is this
# checkout. On a shared VM the same server's CPU per run drifts by 10-30 % from one minute to
# the next, which buries a change of a few percent when the builds are measured in turn. Here
# both take the same runs (threads.create + runs.wait of the bench graph, 2 at a time each) at
# once, so the drift moves both alike and their ratio stays. Absolute figures are higher than
# `api_overhead.py --cpu`'s: two servers and the client share the cores.
#
# With OLG_AB_POSTGRES set to a PostgreSQL server's URL (postgresql://postgres@127.0.0.1:5432),
# each build stores in a fresh database of its own there (dropped after) instead of SQLite,
# and a second line gives the CPU of the PostgreSQL backends serving each database.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_callgrind_drive.sh"
BEFORE_SRC="$(cd "$1" && pwd)"
RUNS="${2:-1500}"
OLG="$ROOT/.venv/bin/olg"
CONFIG="$ROOT/benchmarks/bench_graph/open_langgraph.json"
TMP="$(mktemp -d /tmp/olg-ab.XXXXXX)"
free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT_A="$(free_port)"
PORT_B="$(free_port)"
STORE_A=(--db "$TMP/before.db")
STORE_B=(--db "$TMP/after.db")
DATABASES=()
if [ -n "${OLG_AB_POSTGRES:-}" ]; then
  for side in A B; do
    url="$(cd "$ROOT/benchmarks" && "$PYTHON" -c "import sys; from api_overhead import \
PostgresDatabase; print(PostgresDatabase.fresh(sys.argv[1]).url)" "$OLG_AB_POSTGRES")"
    DATABASES+=("${url##*/}")
    if [ "$side" = A ]; then STORE_A+=(--database-url "$url"); else STORE_B+=(--database-url "$url"); fi
  done
fi
cleanup() {
  kill "$PID_A" "$PID_B" 2>/dev/null || true
  wait 2>/dev/null || true
  for name in "${DATABASES[@]}"; do
    "$PYTHON" -c "import sys, psycopg; psycopg.connect(sys.argv[1], autocommit=True).execute(\
f'DROP DATABASE IF EXISTS \"{sys.argv[2]}\" WITH (FORCE)')" "$OLG_AB_POSTGRES" "$name" || true
  done
  rm -rf "$TMP"
}
PID_A=""
PID_B=""
trap cleanup EXIT
PYTHONPATH="$BEFORE_SRC" "$OLG" serve --host 127.0.0.1 --port "$PORT_A" --config "$CONFIG" \
  "${STORE_A[@]}" >"$TMP/before.log" 2>&1 &
PID_A=$!
"$OLG" serve --host 127.0.0.1 --port "$PORT_B" --config "$CONFIG" "${STORE_B[@]}" \
  >"$TMP/after.log" 2>&1 &
PID_B=$!
for port in "$PORT_A" "$PORT_B"; do
  for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/ok" >/dev/null && break; sleep 0.5; done
done
drive_both() {
  (cd "$ROOT/benchmarks" && "$PYTHON" -c "
import asyncio, sys
from server_cpu import drive
async def both(runs):
    await asyncio.gather(drive(sys.argv[1], runs, 2, 300), drive(sys.argv[2], runs, 2, 300))
asyncio.run(both(int(sys.argv[3])))" "http://127.0.0.1:$PORT_A" "http://127.0.0.1:$PORT_B" "$1")
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# The CPU ticks of the PostgreSQL backends connected to database $1 (the pool keeps them).
backends() {
  "$PYTHON" -c "import sys, psycopg
rows = psycopg.connect(sys.argv[1], autocommit=True).execute(
    'SELECT pid FROM pg_stat_activity WHERE datname = %s', (sys.argv[2],)).fetchall()
total = 0
for (pid,) in rows:
    try:
        fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    except OSError:
        pass
print(total)" "$OLG_AB_POSTGRES" "$1"
}
# Prints LABEL and the two sides' CPU per run from their ticks before and after.
ratio() {
  "$PYTHON" -c "import os, sys; hz = os.sysconf('SC_CLK_TCK'); n = int(sys.argv[6]); \
a = (int(sys.argv[3]) - int(sys.argv[2])) / hz / n * 1000; \
b = (int(sys.argv[5]) - int(sys.argv[4])) / hz / n * 1000; \
print(f'{sys.argv[1]}before {a:.2f} ms/run, this checkout {b:.2f} ms/run, ratio {b / a:.3f} ({n} runs each)')" \
    "$@" "$RUNS"
}
drive_both 50
A1="$(ticks "$PID_A")"
B1="$(ticks "$PID_B")"
if [ ${#DATABASES[@]} -eq 2 ]; then PA1="$(backends "${DATABASES[0]}")"; PB1="$(backends "${DATABASES[1]}")"; fi
drive_both "$RUNS"
A2="$(ticks "$PID_A")"
B2="$(ticks "$PID_B")"
if [ ${#DATABASES[@]} -eq 2 ]; then
  ratio "PostgreSQL backends: " "$PA1" "$(backends "${DATABASES[0]}")" "$PB1" "$(backends "${DATABASES[1]}")"
fi
ratio "" "$A1" "$A2" "$B1" "$B2"
