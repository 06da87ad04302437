#!/usr/bin/env bash
# Sets up the Python venv that tests/schemathesis/run.sh drives `agentbench serve` from:
# schemathesis (PyPI), which generates requests from the server's own OpenAPI document
# (GET /openapi.json) and checks every answer against it, then chains operations through the
# document's OpenAPI links (the stateful phase). About 30 s and 95 MB on a fresh machine.
#
# Usage: tests/schemathesis/setup.sh [VENV]   (default: target/schemathesis-venv)
# Prints the venv's path. Safe to run again: a complete venv with this pin is kept.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv="${1:-target/schemathesis-venv}"
schemathesis_version="4.32.5"
stamp="$venv/.agentbench-schemathesis-$schemathesis_version"

if [[ -x "$venv/bin/schemathesis" && -f "$stamp" ]]; then
    echo "$venv"
    exit 0
fi

python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
    "schemathesis==$schemathesis_version" >&2
touch "$stamp"
echo "$venv"
