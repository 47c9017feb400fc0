#!/usr/bin/env bash
# Installs the python tool's sandbox: the pinned npm `pyodide` (CPython in WebAssembly) into
# graphs/toolkit/python_sandbox/node_modules. Idempotent and quiet when installed; without
# Node.js and npm it says so and succeeds: the agents then run without the python tool.
set -euo pipefail
SANDBOX_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/graphs/toolkit/python_sandbox"

if [ ! -f "$SANDBOX_DIR/node_modules/pyodide/pyodide.asm.wasm" ] ||
  [ "$SANDBOX_DIR/package-lock.json" -nt "$SANDBOX_DIR/node_modules/.package-lock.json" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "the agents' python tool needs Node.js 20+ and npm (pyodide); it stays off" >&2
  else
    echo "installing pyodide into $SANDBOX_DIR" >&2
    (cd "$SANDBOX_DIR" && npm ci --silent --no-audit --no-fund >/dev/null)
  fi
fi
