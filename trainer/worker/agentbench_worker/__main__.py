"""``python -m agentbench_worker``: loads the policy and serves it on loopback. Prints one line,
``agentbench-worker listening on http://HOST:PORT``, once it answers (``--port 0`` picks a free
port)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from . import policy as policies
from .prefix import PrefixCache
from .server import Worker, serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="agentbench-worker", description=__doc__)
    parser.add_argument("--model", required=True,
                        help="a Hugging Face model folder, or `tiny` (a random two-layer model for tests)")
    parser.add_argument("--name", help="the model name the chat endpoint answers with (default: --model)")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda, cuda:N or neuron")
    parser.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--seed", type=int, default=0, help="seeds a `tiny` model's weights")
    parser.add_argument("--lr", type=float, default=1e-5, help="AdamW's learning rate")
    parser.add_argument("--checkpoints", type=Path, default=Path("checkpoints"),
                        help="where /v1/weights/save writes and /v1/weights/load reads, by version")
    parser.add_argument("--no-reference", action="store_true",
                        help="keep no frozen copy of the starting policy (no KL penalty then)")
    parser.add_argument("--threads", type=int, help="CPU threads torch may use")
    parser.add_argument("--lora", type=int, default=0,
                        help="train rank-N LoRA adapters on the attention projections instead of every "
                             "weight (0: full fine-tune)")
    parser.add_argument("--prefix-cache", type=int, default=policies.DEFAULT_PREFIXES,
                        help="how many generations' KV caches to keep, so that a prompt sharing a "
                             "prefix with one of them reads only the rest (0: none)")
    parser.add_argument("--max-batch", type=int, default=16,
                        help="the most chat requests sampled together in one batch")
    parser.add_argument("--batch-window-ms", type=float, default=20.0,
                        help="how long a chat request waits for others to join its batch")
    parser.add_argument("--tool-grammar", action="store_true",
                        help="hold every reply's tool calls to the request's tools' JSON Schemas "
                             "while sampling them (strict tools and required calls always are)")
    args = parser.parse_args(argv)

    if args.threads:
        torch.set_num_threads(args.threads)
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    device = policies.pick_device(args.device)
    policy = policies.load(args.model, device, getattr(torch, args.dtype), args.seed, args.name,
                           args.lora)
    policy.prefixes = PrefixCache(args.prefix_cache)
    worker = Worker(policy, args.checkpoints, args.lr, reference=not args.no_reference,
                    batch_window=args.batch_window_ms / 1000, max_batch=args.max_batch,
                    tool_grammar=args.tool_grammar)

    def ready(port: int) -> None:
        print(f"agentbench-worker listening on http://{args.host}:{port}", flush=True)

    try:
        serve(worker, args.host, args.port, ready)
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
