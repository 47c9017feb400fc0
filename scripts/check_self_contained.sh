#!/usr/bin/env bash
# Fails when code, tests, benchmarks or scripts mention the shared folder that sits beside CI's
# checkout but not beside a user's clone. The repository carries its own data (data/webshop).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Built from parts so this file does not match its own pattern.
shared="shared"
pattern="\.\./${shared}|/work/${shared}"
# -o with a little context: recordings are one long JSON line each.
# The benchmarks' reference virtualenvs (installed packages, not ours) are left out.
if grep -rnoIE --exclude-dir=__pycache__ --exclude-dir=node_modules --exclude-dir=.ref-venv \
    --exclude-dir=.aegra-venv ".{0,40}(${pattern}).{0,40}" \
    src tests benchmarks scripts graphs .ci; then
    echo "error: the lines above mention ../${shared} or /work/${shared}; use data/webshop" >&2
    exit 1
fi
echo "self-contained: nothing in src/ tests/ benchmarks/ scripts/ graphs/ .ci/ points outside"
