#!/usr/bin/env bash
# Installs what the web_agent graph drives a browser with: Chromium from Debian (when
# /usr/bin/chromium is missing and we may use apt-get) and the pinned @playwright/mcp server
# into graphs/web_agent/mcp/node_modules. Idempotent and quiet when both are present; sourced
# by scripts/test and scripts/serve after _bootstrap.sh.
set -euo pipefail
BROWSER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MCP_DIR="$BROWSER_ROOT/graphs/web_agent/mcp"

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium (Debian package) for the web_agent graph" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends chromium >/dev/null; }
  else
    echo "web_agent needs /usr/bin/chromium: run 'apt-get install chromium' as root" >&2
    exit 1
  fi
fi

if [ ! -x "$MCP_DIR/node_modules/.bin/playwright-mcp" ] ||
  [ "$MCP_DIR/package-lock.json" -nt "$MCP_DIR/node_modules/.package-lock.json" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "web_agent needs Node.js 18+ and npm to install @playwright/mcp" >&2
    exit 1
  fi
  echo "installing @playwright/mcp into $MCP_DIR" >&2
  if [ -f "$MCP_DIR/package-lock.json" ]; then
    (cd "$MCP_DIR" && npm ci --silent --no-audit --no-fund >/dev/null)
  else
    (cd "$MCP_DIR" && npm install --silent --no-audit --no-fund >/dev/null)
  fi
fi
