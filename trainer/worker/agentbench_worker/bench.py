"""``python -m agentbench_worker.bench URL``: how fast a running worker generates and updates.

- generation: `--requests` chat completions of at most `--max-tokens` sampled tokens each (a
  reply ends at its end-of-turn token or the limit), `--concurrency` at a time (the worker
  samples concurrent requests as one batch), each after a system turn of about `--prompt-chars`
  characters that they share (as an env's tool list is shared; the worker's prefix cache reads
  it once) and a question of their own; reports the completion tokens per second, prefill
  included, and how many prompt tokens the prefix cache spared;
- update: `--updates` PPO steps (`/v1/train`) on a batch of `--batch` samples of `--tokens`
  tokens each, the second half of each trained on; and one supervised step (`/v1/sft`) on the
  same; reports seconds per update. The samples' first halves are one prompt, as a scenario's
  rollouts share theirs (the worker reads it once), unless `--distinct-prompts`.

Every update moves the policy: run it on a worker whose policy may change.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor


def post(url: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(
        url + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=3600) as response:
        return json.load(response)


def main() -> None:
    parser = argparse.ArgumentParser(prog="agentbench_worker.bench", description=__doc__)
    parser.add_argument("url", help="the worker's root, http://127.0.0.1:8100")
    parser.add_argument("--requests", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--prompt-chars", type=int, default=6000)
    parser.add_argument("--updates", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=512)
    parser.add_argument("--distinct-prompts", action="store_true",
                        help="give every update sample a prompt of its own")
    args = parser.parse_args()
    url = args.url.rstrip("/")

    filler = "The quarterly report lists every invoice with its amount and due date. "
    prompt = (filler * (args.prompt_chars // len(filler) + 1))[: args.prompt_chars]

    def ask(seed: int) -> dict:
        return post(url, "/v1/chat/completions", {
            "messages": [{"role": "system", "content": prompt},
                         {"role": "user", "content": f"Question {seed}: what is due first?"}],
            "max_tokens": args.max_tokens, "temperature": 1.0, "seed": seed,
        })

    started = time.monotonic()
    with ThreadPoolExecutor(args.concurrency) as pool:
        replies = list(pool.map(ask, range(args.requests)))
    generation = time.monotonic() - started

    last = replies[-1]
    generated = sum(reply["usage"]["completion_tokens"] for reply in replies)
    prompt_tokens = sum(reply["usage"]["prompt_tokens"] for reply in replies)
    cached = sum(reply["usage"]["prompt_tokens_details"]["cached_tokens"] for reply in replies)
    vocabulary = last["prompt_token_ids"] * (2 * args.tokens // len(last["prompt_token_ids"]) + 2)
    half = args.tokens // 2
    mask = [0] * half + [1] * (args.tokens - half)

    def ids_of(index: int) -> list[int]:
        start = index + 1 if args.distinct_prompts else 0
        return vocabulary[start:start + half] + vocabulary[half + 7 * index:][:args.tokens - half]

    sequences = [ids_of(index) for index in range(args.batch)]
    logprobs = post(url, "/v1/logprobs", {"sequences": sequences})["logprobs"]
    samples = [{"token_ids": ids, "loss_mask": mask, "advantages": [1.0] * args.tokens,
                "old_logprobs": old} for ids, old in zip(sequences, logprobs)]
    version = last["policy_version"]
    update_seconds = []
    for _ in range(args.updates):
        trained = post(url, "/v1/train", {"samples": samples, "policy_version": version})
        update_seconds.append(trained["seconds"])
        version = trained["policy_version"]
    sft = post(url, "/v1/sft", {"samples": [{"token_ids": ids, "loss_mask": mask}
                                            for ids in sequences]})
    print(json.dumps({
        "generation": {
            "requests": args.requests,
            "concurrency": args.concurrency,
            "prompt_tokens_each": prompt_tokens // args.requests,
            "cached_prompt_tokens": cached,
            "completion_tokens": generated,
            "seconds": round(generation, 2),
            "completion_tokens_per_second_with_prefill": round(generated / generation, 2),
        },
        "update": {
            "batch": args.batch,
            "tokens_each": args.tokens,
            "shared_prompt_tokens": 0 if args.distinct_prompts else half,
            "ppo_seconds_per_update": [round(s, 2) for s in update_seconds],
            "sft_seconds": round(sft["seconds"], 2),
        },
    }, indent=2))


if __name__ == "__main__":
    main()
