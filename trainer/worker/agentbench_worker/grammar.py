"""Tool calls held to the request's tools while they are sampled: once a reply opens
``<tool_call>``, only tokens that keep it a prefix of ``{"name": TOOL, "arguments": {...}}``
(the arguments matching that tool's JSON Schema) and then ``</tool_call>`` may be drawn, so every
call the policy writes parses, names a tool it was offered and fits its schema; the text around
calls stays free. ``tool_choice: "required"`` (or one function by name) holds the whole reply to
one such call. What vLLM's structured outputs and OpenAI's ``strict`` tools do, through
llguidance (the grammar engine they use), which masks the vocabulary token by token.

The mask decides what is drawn, not what is recorded: a token's log-probability stays the
model's own (the logits over the temperature, before the mask), the quantity a PPO update
recomputes, so a policy's first epoch on its own samples still has a ratio of exactly 1.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

import numpy
import torch

#: How many compiled grammars (one per distinct tool list and choice) are kept for reuse.
KEPT_GRAMMARS = 32

OPEN, CLOSE = "<tool_call>", "</tool_call>"

#: What the JSON may hold between its tokens: at most one space (the template's own spacing),
#: so a call cannot run on in whitespace.
SPACING = {"lenient": True, "whitespace_pattern": "[ ]?"}


class GrammarError(ValueError):
    """Tools whose schemas do not make a grammar: answered 400 with the reason."""


def call_schema(tools: list) -> dict:
    """The JSON Schema of one call of any of `tools`: ``{"name": NAME, "arguments": PARAMS}``
    with ``name`` first, as the chat template writes it; a tool that declares no parameters
    takes an empty object."""
    options = []
    for tool in tools:
        function = tool["function"]
        parameters = function.get("parameters")
        if not isinstance(parameters, dict) or not parameters:
            parameters = {"type": "object", "properties": {}, "additionalProperties": False}
        options.append({
            "type": "object",
            "properties": {"name": {"const": function["name"]}, "arguments": parameters},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        })
    return {"anyOf": options, "x-guidance": SPACING}


def lark(tools: list, required: bool) -> str:
    """The reply's grammar: free text with calls in it (each opened by a lazily matched
    ``<tool_call>``), or, `required`, exactly one call."""
    body = f"%json {json.dumps(call_schema(tools))} {json.dumps(CLOSE)}"
    if required:
        return f"%llguidance {{}}\nstart: {json.dumps(OPEN)} {body}\n"
    return (
        "%llguidance {}\n"
        "start: call* TEXT\n"
        "TEXT: /(.|\\n)*/\n"
        f"opening[lazy]: TEXT {json.dumps(OPEN)}\n"
        f"call: opening {body}\n"
    )


class Grammars:
    """Compiles a request's tools into a `Constraint` for its reply, with the tokenizer's
    vocabulary read once (about a second) and the grammars of recent tool lists kept."""

    def __init__(self, tokenizer):
        import llguidance.hf

        self.vocabulary = llguidance.hf.from_tokenizer(tokenizer)
        self.kept: OrderedDict[str, object] = OrderedDict()
        self.lock = threading.Lock()

    def constraint(self, tools: list, required: bool) -> "Constraint":
        from llguidance import LLMatcher

        grammar = lark(tools, required)
        with self.lock:
            matcher = self.kept.get(grammar)
            if matcher is not None:
                self.kept.move_to_end(grammar)
        if matcher is None:
            matcher = LLMatcher(self.vocabulary, grammar, log_level=0)
            if matcher.is_error():
                raise GrammarError(f"the tools' schemas make no grammar: {matcher.get_error()}")
            with self.lock:
                self.kept[grammar] = matcher
                while len(self.kept) > KEPT_GRAMMARS:
                    self.kept.popitem(last=False)
        # The kept matcher stays at the start; each reply advances a copy of its own.
        return Constraint(matcher.deep_copy())


class Constraint:
    """One reply's grammar, advanced token by token."""

    def __init__(self, matcher):
        self.matcher = matcher

    def allowed(self, vocabulary: int) -> torch.Tensor:
        """Which of the `vocabulary` token ids may come next, as booleans (ids past the
        grammar's vocabulary never may)."""
        # Bit i of the little-endian mask is token i (numpy unpacks it 20 times faster than
        # torch's shifts).
        packed = numpy.frombuffer(self.matcher.compute_bitmask(), dtype=numpy.uint8)
        bits = torch.from_numpy(numpy.unpackbits(packed, bitorder="little").view(numpy.bool_))
        if len(bits) >= vocabulary:
            return bits[:vocabulary]
        return torch.cat([bits, bits.new_zeros(vocabulary - len(bits))])

    def advance(self, token: int) -> None:
        """Takes the sampled `token` (one `allowed` let through, so the grammar accepts it)."""
        if not self.matcher.consume_token(token):
            raise RuntimeError(f"the tool-call grammar refused token {token} it allowed: "
                               f"{self.matcher.get_error()}")
