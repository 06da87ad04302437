"""The update: per-token log-probabilities of token sequences under the policy, and the
PPO-style clipped policy-gradient loss with an optional KL penalty to a reference policy.

A sample is a whole token sequence (prompt, replies and tool results, as the episode went) with
a loss mask of 1 on the tokens the policy sampled and 0 elsewhere (prompt, tool output), an
advantage per token, and the log-probability each sampled token had when it was drawn. Token
t's log-probability comes from the logits at t - 1, so token 0 is never trained on. The loss is
the mean over every masked token of the batch (each token weighs the same, however long its
sequence).

Samples that open alike (every episode of one env starts with the same system turn and tool
listing, every rollout of a scenario with the same request too) have that shared prefix read once
(`logprobs_of`): its keys and values are computed once and every sample reads on from them, and
the gradient reaching them from every sample goes back through the prefix once. The result, loss
and gradient are the ones of reading each sample whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import DynamicCache


@dataclass
class Sample:
    token_ids: list[int]
    loss_mask: list[int]
    #: Per token; absent from a supervised sample.
    advantages: list[float] | None = None
    old_logprobs: list[float] | None = None


class BadBatch(ValueError):
    """A batch the worker cannot train on: answered 400 with the reason."""


def parse_samples(raw, supervised: bool = False) -> list[Sample]:
    """The samples of a batch, each with one entry per token in every per-token field: token
    ids and loss mask, and for a PPO batch (not `supervised`) advantages and old
    log-probabilities. The mask is 0 or 1, 0 on token 0 and 1 somewhere."""
    if not isinstance(raw, list) or not raw:
        raise BadBatch("`samples` must be a non-empty array")
    fields = ["token_ids", "loss_mask"] if supervised else [
        "token_ids", "loss_mask", "advantages", "old_logprobs"]
    samples = []
    for index, item in enumerate(raw):
        try:
            sample = Sample(
                token_ids=[int(t) for t in item["token_ids"]],
                loss_mask=[int(m) for m in item["loss_mask"]],
            )
            if not supervised:
                sample.advantages = [float(a) for a in item["advantages"]]
                sample.old_logprobs = [float(p) for p in item["old_logprobs"]]
        except (KeyError, TypeError, ValueError) as error:
            raise BadBatch(f"sample {index}: {error!r}") from None
        n = len(sample.token_ids)
        if n < 2 or {len(getattr(sample, field)) for field in fields} != {n}:
            raise BadBatch(
                f"sample {index}: {', '.join(fields[:-1])} and {fields[-1]} must have one entry "
                f"per token (at least 2 tokens)"
            )
        if sample.loss_mask[0] != 0 or any(m not in (0, 1) for m in sample.loss_mask):
            raise BadBatch(f"sample {index}: loss_mask is 0 or 1 per token, and 0 on token 0")
        if sum(sample.loss_mask) == 0:
            raise BadBatch(f"sample {index}: no token is trained on (loss_mask is all 0)")
        samples.append(sample)
    return samples


def token_logprobs(model, token_ids: list[int], device, temperature: float = 1.0,
                   mask: list[int] | None = None, prefix: list | None = None) -> torch.Tensor:
    """Each token's log-probability given the ones before it (0 for token 0), as a vector; with
    a `mask`, only the masked tokens' (0 elsewhere): the logits of the other positions, most of
    a long prompt, are then never computed. With a `prefix`, the keys and values of the first
    tokens per layer (`(keys, values)` pairs), only the rest is read; no masked token may lie
    within the prefix or just after it (its logits would come from the prefix)."""
    ids = torch.tensor([token_ids], device=device)
    start = 0 if prefix is None else prefix[0][0].shape[-2]
    targets = torch.arange(1, len(token_ids), device=device)
    if mask is not None:
        targets = targets[torch.tensor(mask[1:], device=device).bool()]
    cache = None if prefix is None else DynamicCache(ddp_cache_data=prefix)
    logits = model(input_ids=ids[:, start:], cache=cache,
                   logits_to_keep=targets - 1 - start).logits[0].float() / temperature
    chosen = torch.log_softmax(logits, dim=-1).gather(1, ids[0, targets, None].long())[:, 0]
    return torch.zeros(len(token_ids), device=chosen.device, dtype=chosen.dtype).index_put(
        (targets,), chosen)


#: The shortest prefix worth reading once for the samples that share it, in tokens.
SHARED_LEAST = 32


def shared_prefixes(samples: list[Sample]) -> list[tuple[int, list[int]]]:
    """The samples in groups that share a prefix of at least `SHARED_LEAST` tokens ending before
    the token whose logits predict their first masked token: `(prefix length, indices)` per
    group, in the order of each group's first sample; the length is 0 for a sample that shares
    with none."""
    groups: list[tuple[int, list[int]]] = []
    for index, sample in enumerate(samples):
        bound = sample.loss_mask.index(1) - 1
        for at, (length, members) in enumerate(groups):
            first = samples[members[0]].token_ids
            shared = common_prefix(first, sample.token_ids, min(length, bound))
            if shared >= SHARED_LEAST:
                groups[at] = (shared, members + [index])
                break
        else:
            groups.append((bound, [index]))
    return [(length if len(members) > 1 else 0, members) for length, members in groups]


def common_prefix(a: list[int], b: list[int], most: int) -> int:
    """How many leading tokens `a` and `b` share, at most `most`."""
    most = min(most, len(a), len(b))
    for at in range(most):
        if a[at] != b[at]:
            return at
    return max(most, 0)


def logprobs_of(model, samples: list[Sample], device, temperature: float = 1.0):
    """Yields `(index, token_logprobs(...))` of every sample, masked, one at a time, the prefix
    each group of `shared_prefixes` shares read once. Under autograd the caller backpropagates
    each sample's loss before taking the next: the gradient that reaches the shared keys and
    values is gathered, and sent back through the prefix once after the group's last sample."""
    for length, members in shared_prefixes(samples):
        held = leaves = None
        grad = False
        if length:
            ids = torch.tensor([samples[members[0]].token_ids[:length]], device=device)
            cache = model(input_ids=ids, use_cache=True, logits_to_keep=1).cache
            held = [(layer.keys, layer.values) for layer in cache.layers]
            grad = torch.is_grad_enabled() and held[0][0].requires_grad
            # Leaves cut from the prefix's graph, so each sample's backward stops at them.
            leaves = [tuple(t.detach().requires_grad_(grad) for t in pair) for pair in held]
        for index in members:
            sample = samples[index]
            yield index, token_logprobs(model, sample.token_ids, device, temperature,
                                        sample.loss_mask, leaves)
        if grad:
            pairs = [(tensor, leaf.grad) for held_pair, leaf_pair in zip(held, leaves)
                     for tensor, leaf in zip(held_pair, leaf_pair) if leaf.grad is not None]
            if pairs:
                torch.autograd.backward([t for t, _ in pairs], [g for _, g in pairs])


def clipped_loss(new: torch.Tensor, old: torch.Tensor, advantages: torch.Tensor,
                 mask: torch.Tensor, clip: float, reference: torch.Tensor | None = None,
                 kl_coef: float = 0.0, tokens: float | None = None) -> dict:
    """PPO's clipped surrogate, summed over the masked tokens and divided by `tokens` (the
    masked tokens of the whole batch; of these tensors when `None`):

    - ratio r = exp(new - old); per token -min(r A, clip(r, 1 - clip, 1 + clip) A);
    - with a reference, plus `kl_coef` times the k3 estimate of KL(new || reference),
      exp(ref - new) - (ref - new) - 1, per token;
    - `clip_fraction`: the share of tokens whose ratio lies outside [1 - clip, 1 + clip];
    - `approx_kl`: the k3 estimate of KL(old || new), exp(new - old) - (new - old) - 1 per
      token, how far the policy has moved since the tokens were sampled.
    """
    # Only the masked tokens count, so nothing else (a prompt token's log-probability that was
    # never computed) can reach the sums, not even as 0 times an overflow.
    keep = mask.bool()
    new, old, advantages = new[keep], old[keep], advantages[keep]
    tokens = float(keep.sum()) if tokens is None else tokens
    ratio = torch.exp(new - old)
    surrogate = torch.minimum(ratio * advantages, torch.clamp(ratio, 1 - clip, 1 + clip) * advantages)
    pg_loss = -surrogate.sum() / tokens
    loss = pg_loss
    kl = torch.zeros((), device=new.device)
    if reference is not None:
        delta = reference[keep] - new
        kl = (torch.exp(delta) - delta - 1).sum() / tokens
        loss = loss + kl_coef * kl
    with torch.no_grad():
        outside = ((ratio < 1 - clip) | (ratio > 1 + clip)).float()
        log_ratio = new - old
        approx_kl = (torch.exp(log_ratio) - 1 - log_ratio).sum() / tokens
    return {
        "loss": loss,
        "pg_loss": pg_loss.detach(),
        "kl": kl.detach(),
        "clip_fraction": outside.sum() / tokens,
        "approx_kl": approx_kl,
    }
