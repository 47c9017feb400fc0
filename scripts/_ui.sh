#!/usr/bin/env bash
# Builds the web UI (ui/, Vite + TypeScript, versions pinned by ui/package-lock.json) into
# src/open_langgraph/server/ui_dist/, which `olg serve` serves at /ui and the wheel includes.
# Builds only when the output is missing or older than a source file; installs the pinned
# npm packages (npm ci) when ui/node_modules is missing or older than the lockfile. Sourced by
# scripts/serve and scripts/test after _bootstrap.sh; also runnable on its own.
set -euo pipefail
UI_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
UI_SRC="$UI_ROOT/ui"
UI_OUT="$UI_ROOT/src/open_langgraph/server/ui_dist/index.html"

ui_stale() {
  [ ! -f "$UI_OUT" ] && return 0
  [ -n "$(find "$UI_SRC/src" "$UI_SRC/index.html" "$UI_SRC/package.json" \
    "$UI_SRC/package-lock.json" "$UI_SRC/vite.config.ts" "$UI_SRC/tsconfig.json" \
    -newer "$UI_OUT" -print -quit)" ]
}

ui_modules_stale() {
  [ ! -f "$UI_SRC/node_modules/.package-lock.json" ] ||
    [ "$UI_SRC/package-lock.json" -nt "$UI_SRC/node_modules/.package-lock.json" ]
}

if ui_stale || ui_modules_stale; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "the web UI needs Node.js 20+ and npm to build (ui/); /ui answers 404 until then" >&2
    exit 1
  fi
  if ui_modules_stale; then
    echo "installing the web UI's npm packages into $UI_SRC/node_modules" >&2
    (cd "$UI_SRC" && npm ci --silent --no-audit --no-fund >/dev/null)
  fi
  echo "building the web UI into ${UI_OUT%/index.html}" >&2
  (cd "$UI_SRC" && npm run --silent build >/dev/null)
fi
