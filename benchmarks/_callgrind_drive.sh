# Sourced by server_instructions.sh and queue_instructions.sh: the project's Python, a free
# port for the server and `drive N`, which sends N runs of the bench graph to it
# (threads.create + runs.wait, 4 at a time, as `api_overhead.py --cpu` sends them).
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="$ROOT/.venv/bin/python"
PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
drive() {
  (cd "$ROOT/benchmarks" && "$PYTHON" -c "import asyncio, sys; from server_cpu import drive; \
asyncio.run(drive(sys.argv[1], int(sys.argv[2]), 4, 300))" "http://127.0.0.1:$PORT" "$1")
}
# `count_runs PID RUNS DIR LABEL`: 20 unmeasured runs, then RUNS runs with PID's callgrind
# instrumentation on, and the instructions per run its dumps in DIR add up to.
count_runs() {
  drive 20
  callgrind_control -i on "$1" >/dev/null
  drive "$2"
  callgrind_control -i off "$1" >/dev/null
  callgrind_control -d "$1" >/dev/null
  local total
  total="$(cat "$3"/callgrind.* | awk '/^totals:/ {s += $2} END {print s}')"
  echo "$((total / $2)) instructions per run ($2 runs, $4)"
}
