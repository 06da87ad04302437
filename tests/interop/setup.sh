#!/usr/bin/env bash
# Sets up the Python venv that the interoperability tests (tests/tests/interop.rs) drive
# `agentbench serve` from: OpenEnv's own client and the MCP project's Python SDK, from PyPI, and
# agentbench's own Python client (clients/python).
#
# `openenv` (the renamed `openenv-core`) depends on gradio, pandas and huggingface_hub for its
# web interface; its client needs none of them. It is installed without its dependencies, plus
# the ones its client imports: ~140 MB instead of ~480 MB, and about a minute on a fresh
# machine. fastmcp (which OpenEnv's client imports) pins the MCP SDK to 1.x, so the MCP tests use
# its 1.x client.
#
# Usage: tests/interop/setup.sh [VENV]   (default: target/interop-venv)
# Prints the venv's path. Safe to run again: a complete venv with these pins is kept.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv="${1:-target/interop-venv}"
openenv_version="0.10.0"
mcp_version="1.30.0"
stamp="$venv/.agentbench-interop-$openenv_version-$mcp_version-client"

if [[ -x "$venv/bin/python" && -f "$stamp" ]]; then
    echo "$venv"
    exit 0
fi

python3 -m venv "$venv"
pip=("$venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" --no-deps "openenv==$openenv_version" >&2
"${pip[@]}" "websockets>=15,<17" "pydantic>=2,<3" "fastapi<1" "fastmcp>=3,<4" "requests>=2,<3" \
    "mcp==$mcp_version" >&2
# agentbench's own client, from this checkout (its one dependency, httpx, came with mcp).
"${pip[@]}" --no-deps -e clients/python >&2
touch "$stamp"
echo "$venv"
