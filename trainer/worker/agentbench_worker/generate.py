"""Sampling replies: each prompt read once (past what the prefix cache holds), then every reply of
a batch decoded together, one forward pass per token for all of them, keeping each sampled token
id and its log-probability.

Decoding a small model on a CPU is bound by reading its weights, so a forward pass over 8 rows
costs little more than over 1: batching the concurrent requests (`Batcher`) is what multiplies
throughput. Rows of different lengths are padded on the left, masked out of attention, and given
their own positions; a row leaves the batch when its reply ends, and its keys and values go to
the prefix cache.

The log-probability of a sampled token is under the model's distribution at the temperature it
was drawn at, the logits divided by the temperature (before ``top_p``'s truncation and a tool-call
grammar's mask, `grammar`), which is the distribution a PPO update at that temperature
differentiates.
"""

from __future__ import annotations

import copy
import secrets
import threading
import time
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from transformers import DynamicCache
from transformers.cache_utils import Cache, DynamicLayer

from .grammar import Constraint
from .policy import Policy


@dataclass
class Draw:
    """One reply to sample, and what has been sampled of it."""
    prompt: list[int]
    max_tokens: int
    temperature: float
    top_p: float
    seed: int | None = None
    ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    #: ``stop`` at the end-of-turn token, ``length`` at `max_tokens`.
    finish: str = "length"
    #: How many prompt tokens the prefix cache spared reading.
    cached: int = 0
    #: Why it could not be sampled, when it could not (the others of its batch go on).
    error: Exception | None = None
    #: The policy version it was sampled from.
    version: int = 0
    #: What the reply's tool calls are held to, when they are (`grammar`).
    constraint: Constraint | None = None

    def __post_init__(self):
        self.generator = torch.Generator(device="cpu")
        # Without a seed, a fresh one (not torch.seed(), which would reseed the global generator).
        self.generator.manual_seed(self.seed if self.seed is not None else secrets.randbits(63))

    def pick(self, logits: torch.Tensor, eos: int) -> bool:
        """Samples the next token from `logits` and records it; whether the reply has ended."""
        logits = logits.float().cpu()
        allowed = None if self.constraint is None else self.constraint.allowed(len(logits))
        if self.temperature > 0:
            scaled = torch.log_softmax(logits / self.temperature, dim=-1)
            probabilities = scaled.exp()
            if allowed is not None:
                probabilities = probabilities.masked_fill(~allowed, 0.0)
                total = probabilities.sum()
                # Renormalised; where the model gives the allowed tokens no mass at all, drawn
                # among them evenly.
                probabilities = (probabilities / total if total > 0
                                 else allowed.float() / allowed.sum())
            if self.top_p < 1.0:
                probabilities = nucleus(probabilities, self.top_p)
            token = int(torch.multinomial(probabilities, 1, generator=self.generator))
        else:
            scaled = torch.log_softmax(logits, dim=-1)
            token = int(torch.argmax(logits if allowed is None
                                     else logits.masked_fill(~allowed, float("-inf"))))
        if self.constraint is not None:
            self.constraint.advance(token)
        self.ids.append(token)
        self.logprobs.append(float(scaled[token]))
        if token == eos:
            self.finish = "stop"
            return True
        return len(self.ids) >= self.max_tokens

    def fed(self) -> list[int]:
        """The tokens the model has read for this draw: the prompt and every sampled token but
        the last."""
        return self.prompt + self.ids[:-1]


def nucleus(probabilities: torch.Tensor, top_p: float) -> torch.Tensor:
    """`probabilities` cut to the smallest set of tokens whose mass reaches `top_p`."""
    ordered, order = torch.sort(probabilities, descending=True)
    before = torch.cumsum(ordered, dim=-1) - ordered
    ordered[before >= top_p] = 0.0
    kept = torch.zeros_like(probabilities).scatter(0, order, ordered)
    return kept / kept.sum()


def generate(policy: Policy, draws: list[Draw]) -> None:
    """Samples every draw's reply, decoding them together; a draw that fails keeps its `error`."""
    model, device = policy.model, policy.device
    eos = policy.tokenizer.eos_token_id
    rows: list[tuple[Draw, DynamicCache]] = []
    with torch.no_grad():
        for index, draw in enumerate(draws):
            try:
                cached, cache = policy.prefixes.take(draw.prompt)
                # Only the last position's logits start the reply.
                out = model(input_ids=torch.tensor([draw.prompt[cached:]], device=device),
                            use_cache=True, logits_to_keep=1,
                            **({} if cache is None else {"cache": cache}))
            except Exception as error:  # noqa: BLE001 - this draw fails, the batch goes on
                draw.error = error
                continue
            draw.cached = cached
            if index + 1 < len(draws) and policy.prefixes.capacity > 0:
                # The draws after it may share its prompt's start (an env's tool list): a copy,
                # since decoding extends this cache in place.
                policy.prefixes.put(draw.prompt, copy.deepcopy(out.cache))
            if draw.pick(out.logits[0, -1], eos):
                policy.prefixes.put(draw.fed(), out.cache)
            else:
                rows.append((draw, out.cache))
        if rows:
            decode(policy, rows, eos)


def decode(policy: Policy, rows: list[tuple[Draw, DynamicCache]], eos: int) -> None:
    """Decodes the rows (each a draw with its first token picked, and the cache of its prompt)
    until every reply has ended."""
    model, device = policy.model, policy.device
    lengths = [cache.get_seq_length() for _, cache in rows]
    width = max(lengths)
    pads = [width - length for length in lengths]
    layers = []
    for index in range(len(rows[0][1].layers)):
        layer = RoomyLayer()
        layer.update(*(
            torch.cat([F.pad(getattr(row_cache.layers[index], part), (0, 0, pad, 0))
                       for (_, row_cache), pad in zip(rows, pads)])
            for part in ("keys", "values")
        ))
        layers.append(layer)
    cache = Cache(layers=layers)
    mask = torch.tensor([[0] * pad + [1] * length for pad, length in zip(pads, lengths)],
                        device=device)
    draws = [draw for draw, _ in rows]
    while draws:
        mask = torch.cat([mask, mask.new_ones((len(draws), 1))], dim=1)
        # The token fed now is the last sampled: its position is the count read before it.
        positions = torch.tensor([[len(draw.fed())] for draw in draws], device=device)
        out = model(input_ids=torch.tensor([[draw.ids[-1]] for draw in draws], device=device),
                    attention_mask=mask, position_ids=positions, cache=cache, use_cache=True)
        ended = [draw.pick(out.logits[row, -1], eos) for row, draw in enumerate(draws)]
        if not any(ended):
            continue
        for row, draw in enumerate(draws):
            if ended[row]:
                policy.prefixes.put(draw.fed(), row_cache(cache, row, pads[row]))
        kept = [row for row, done in enumerate(ended) if not done]
        draws = [draws[row] for row in kept]
        pads = [pads[row] for row in kept]
        if draws:
            index = torch.tensor(kept, device=device)
            cache.batch_select_indices(index)
            mask = mask[index]


class RoomyLayer(DynamicLayer):
    """A cache layer that writes each new token's keys and values into room kept after them
    (doubled when it runs out), where `DynamicLayer` concatenates the whole cache anew at every
    token: at a batch of 8 rows that copying was half of decoding's time."""

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        held = self.get_seq_length()
        total = held + key_states.shape[-2]
        room = getattr(self, "room", None)
        if room is None or room[0].shape[-2] < total or self.keys.data_ptr() != room[0].data_ptr():
            # First use, full, or `keys` replaced (a batch selection): move into new room.
            size = max(2 * total, 64)
            room = tuple(
                torch.empty((*states.shape[:-2], size, states.shape[-1]), dtype=states.dtype,
                            device=states.device)
                for states in (key_states, value_states)
            )
            if held:
                room[0][..., :held, :] = self.keys
                room[1][..., :held, :] = self.values
            self.room = room
        room[0][..., held:total, :] = key_states
        room[1][..., held:total, :] = value_states
        self.keys, self.values = room[0][..., :total, :], room[1][..., :total, :]
        return self.keys, self.values


def row_cache(cache: Cache, row: int, pad: int) -> DynamicCache:
    """Row `row` of a batch's cache, its left padding cut off, as a cache of its own."""
    return DynamicCache(ddp_cache_data=[
        (layer.keys[row:row + 1, :, pad:].clone(), layer.values[row:row + 1, :, pad:].clone())
        for layer in cache.layers
    ])


class Batcher:
    """Gathers the chat requests that arrive together and samples them as one batch: a request
    waits up to `window` seconds for others to join (at most `most` a batch), and a batch runs
    under `lock`, the one the weights' updates take, so every reply is sampled from one policy
    version."""

    def __init__(self, policy: Policy, lock: threading.Lock, window: float = 0.02,
                 most: int = 16):
        self.policy = policy
        self.lock = lock
        self.window = window
        self.most = most
        self.waiting: list[tuple[Draw, threading.Event]] = []
        self.arrived = threading.Condition()
        threading.Thread(target=self.serve, name="batcher", daemon=True).start()

    def sample(self, draw: Draw) -> int:
        """Samples `draw`'s reply, with whatever requests arrive with it; returns the policy
        version it was sampled from."""
        done = threading.Event()
        with self.arrived:
            self.waiting.append((draw, done))
            self.arrived.notify()
        done.wait()
        if draw.error is not None:
            raise draw.error
        return draw.version

    def serve(self) -> None:
        while True:
            with self.arrived:
                while not self.waiting:
                    self.arrived.wait()
            time.sleep(self.window)
            with self.arrived:
                batch, self.waiting = self.waiting[:self.most], self.waiting[self.most:]
            draws = [draw for draw, _ in batch]
            try:
                with self.lock:
                    for draw in draws:
                        draw.version = self.policy.version
                    generate(self.policy, draws)
            except Exception as error:  # noqa: BLE001 - answered to each request of the batch
                for draw in draws:
                    draw.error = draw.error or error
            for _, done in batch:
                done.set()
