#!/usr/bin/env bash
# Builds tests/clients/agent_chat_ui (the JS SDK's useStream called as Agent Chat UI calls it,
# for tests/ui/test_agent_chat_ui.py; its LoadExternalComponent, for test_generative_ui.py) into
# its dist/: installs the pinned npm packages (npm ci) when node_modules is missing or older
# than the lockfile, bundles with esbuild when a bundle is missing or older than a source.
# Sourced by scripts/test; the tests run it too when needed.
set -euo pipefail
CLIENTS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/clients/agent_chat_ui"
CLIENTS_OUT="$CLIENTS_ROOT/dist/harness.js"

if [ ! -f "$CLIENTS_ROOT/node_modules/.package-lock.json" ] ||
  [ "$CLIENTS_ROOT/package-lock.json" -nt "$CLIENTS_ROOT/node_modules/.package-lock.json" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "tests/clients/agent_chat_ui needs Node.js 20+ and npm" >&2
    exit 1
  fi
  echo "installing the Agent Chat UI harness's npm packages into $CLIENTS_ROOT/node_modules" >&2
  (cd "$CLIENTS_ROOT" && npm ci --silent --no-audit --no-fund >/dev/null)
fi
if [ ! -f "$CLIENTS_OUT" ] || [ ! -f "$CLIENTS_ROOT/dist/genui.js" ] ||
  [ -n "$(find "$CLIENTS_ROOT/src" "$CLIENTS_ROOT/package-lock.json" \
    -newer "$CLIENTS_OUT" -print -quit)" ]; then
  (cd "$CLIENTS_ROOT" && npm run --silent build)
fi
