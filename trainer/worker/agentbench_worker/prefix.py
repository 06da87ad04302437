"""Prefix caching for generation: the KV caches of the last few sequences the policy generated,
so that a prompt sharing a prefix with one of them reads only the rest.

Two prompts share long prefixes in agentbench's episodes: every turn of an episode re-sends the
whole conversation (the previous prompt, the reply and the tool's result), and every episode of
one env opens with the same system turn and tool list, which is most of a prompt. Matching is on
token ids, not text, so a turn whose re-rendering tokenises the last reply differently still
reuses everything before the first differing token. An entry is copied before use (generation
extends a cache in place) and every entry is dropped when the weights change.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass

#: A shared prefix shorter than this is recomputed: copying a cache has a cost of its own.
MIN_REUSED = 16


@dataclass
class Entry:
    tokens: list[int]
    cache: object


class PrefixCache:
    """At most `capacity` KV caches, least recently used first out (0 turns caching off)."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.entries: list[Entry] = []
        self.lock = threading.Lock()

    def take(self, prompt: list[int]) -> tuple[int, object | None]:
        """The longest prefix of `prompt` that an entry holds, short of the prompt's last token
        (whose logits start the reply), and a copy of that entry's cache cut to it; ``(0,
        None)`` when none shares `MIN_REUSED` tokens."""
        with self.lock:
            best, length = None, 0
            for entry in self.entries:
                shared = common_prefix(entry.tokens, prompt)
                if shared > length:
                    best, length = entry, shared
            length = min(length, len(prompt) - 1)
            if best is None or length < MIN_REUSED:
                return 0, None
            self.entries.remove(best)
            self.entries.append(best)
            cache = copy.deepcopy(best.cache)
        cache.crop(length - len(best.tokens))  # a negative count: how many tokens to drop
        return length, cache

    def put(self, tokens: list[int], cache) -> None:
        """Keeps `cache`, which holds the keys and values of `tokens` (and is not used again by
        the caller)."""
        if self.capacity <= 0:
            return
        with self.lock:
            self.entries = [entry for entry in self.entries if entry.tokens != tokens]
            self.entries.append(Entry(tokens, cache))
            del self.entries[:-self.capacity]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


def common_prefix(a: list[int], b: list[int]) -> int:
    """How many leading tokens `a` and `b` share."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    low, high = 0, n  # a[:low] == b[:low], a[:high] != b[:high]
    while high - low > 1:
        middle = (low + high) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle
    return low
