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
PYTHONPATH="$BEFORE_SRC" "$OLG" serve --host 127.0.0.1 --port "$PORT_A" --config "$CONFIG" \
  --db "$TMP/before.db" >"$TMP/before.log" 2>&1 &
PID_A=$!
"$OLG" serve --host 127.0.0.1 --port "$PORT_B" --config "$CONFIG" --db "$TMP/after.db" \
  >"$TMP/after.log" 2>&1 &
PID_B=$!
trap 'kill $PID_A $PID_B 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$TMP"' EXIT
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
drive_both 50
A1="$(ticks "$PID_A")"
B1="$(ticks "$PID_B")"
drive_both "$RUNS"
A2="$(ticks "$PID_A")"
B2="$(ticks "$PID_B")"
"$PYTHON" -c "import os, sys; hz = os.sysconf('SC_CLK_TCK'); n = int(sys.argv[5]); \
a = (int(sys.argv[2]) - int(sys.argv[1])) / hz / n * 1000; \
b = (int(sys.argv[4]) - int(sys.argv[3])) / hz / n * 1000; \
print(f'before {a:.2f} ms/run, this checkout {b:.2f} ms/run, ratio {b / a:.3f} ({n} runs each)')" \
  "$A1" "$A2" "$B1" "$B2" "$RUNS"
