#!/usr/bin/env bash
# Sets up the trainer's device-side worker (trainer/worker): a Python venv with PyTorch,
# transformers, safetensors, peft (LoRA) and llguidance (tool-call grammars; 3 MB, no
# dependencies) from PyPI, and the worker installed into it (editable).
#
# PyPI's Linux torch wheel is its CUDA build: it pulls ~3 GB of nvidia-* wheels and the venv
# comes to ~5.6 GB, but it runs on a CPU as it is, and it is what a CUDA machine wants. pip
# caches the wheels, so a second set-up on the same machine reads them from disk. Trainium
# (TorchNeuron, `torch-neuronx`) comes from AWS's own package index, not PyPI: see the README.
#
# Usage: trainer/setup.sh [VENV]   (default: target/trainer-venv)
# Prints the venv's path. Safe to run again: a complete venv with these pins is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${1:-target/trainer-venv}"
torch_version="2.15.0"
transformers_version="5.24.0"
safetensors_version="0.8.0"
peft_version="0.21.2"
accelerate_version="1.15.0"
llguidance_version="1.9.1"
stamp="$venv/.agentbench-trainer-$torch_version-$transformers_version-$safetensors_version-$peft_version-$llguidance_version"

if [[ -x "$venv/bin/python" && -f "$stamp" ]] \
    && "$venv/bin/python" -c "import agentbench_worker" 2>/dev/null; then
    echo "$venv"
    exit 0
fi

python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check \
    "torch==$torch_version" "transformers==$transformers_version" \
    "safetensors==$safetensors_version" "peft==$peft_version" \
    "accelerate==$accelerate_version" "llguidance==$llguidance_version" >&2
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -e trainer/worker >&2
touch "$stamp"
echo "$venv"
