"""Chat completions: agentbench's ChatML tool template, the request read as a `Draw` to sample
(`generate`), and the reply in OpenAI's shape, with every sampled token id and its
log-probability.

Tools are listed in the system turn, one signature line each with its description and a line per
described parameter (`listing`: half the tokens of the tools' JSON, which a small model on a CPU
pays for in every prompt and every update); the policy calls one by writing
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, and a tool's result comes back in a
user turn as ``<tool_response>...</tool_response>`` (the Hermes convention, which SmolLM2 and
Qwen were trained near). A reply whose ``<tool_call>`` is not such JSON stays text: the agent
records what the model wrote. Calls are held to the tools' schemas while sampled (`grammar`)
when the worker runs with ``--tool-grammar``, when a tool is ``strict``, and always under
``tool_choice`` ``required`` or a named function, which hold the whole reply to one call.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from typing import Callable

from .generate import Draw
from .grammar import Grammars, GrammarError
from .policy import Policy

#: How many tokens a reply may run to when the request does not say.
DEFAULT_MAX_TOKENS = 512

TEMPLATE = (
    "{%- set system = namespace(text='') -%}"
    "{%- for message in messages if message.role == 'system' -%}"
    "{%- set system.text = system.text + message.content -%}"
    "{%- endfor -%}"
    "<|im_start|>system\n{{ system.text }}"
    "{%- if tool_listing %}\n\nTo call a tool, write <tool_call>{\"name\": NAME, \"arguments\": {...}}</tool_call>. "
    "The tools (a parameter marked ? may be left out):\n<tools>\n{{ tool_listing }}\n</tools>"
    "{%- endif %}<|im_end|>\n"
    "{%- for message in messages if message.role != 'system' %}"
    "{%- if message.role == 'assistant' %}"
    "<|im_start|>assistant\n{{ message.content or '' }}"
    "{%- for call in message.tool_calls or [] %}"
    "<tool_call>{\"name\": {{ call.function.name | tojson }}, \"arguments\": {{ call.function.arguments }}}</tool_call>"
    "{%- endfor %}<|im_end|>\n"
    "{%- elif message.role == 'tool' %}"
    "<|im_start|>user\n<tool_response>{{ message.content }}</tool_response><|im_end|>\n"
    "{%- else %}"
    "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


class BadRequest(ValueError):
    """A request the worker cannot serve: answered 400 with the reason."""


def listing(tools: list) -> str:
    """The tools as the system turn lists them: per tool, ``name(param: type, other?: type):
    description`` (``?`` where a parameter is not required) and an indented ``param:
    description`` line per described parameter. Types are the JSON Schema's, without ``null``;
    an enum lists its values; bounds and formats are left out (a call outside them is answered
    with the validation error)."""
    if not isinstance(tools, list):
        raise BadRequest("`tools` must be an array")
    lines = []
    for index, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise BadRequest(f"tools[{index}]: expected {{\"type\": \"function\", \"function\": "
                             f"{{\"name\", \"description\", \"parameters\"}}}}")
        parameters = function.get("parameters")
        parameters = parameters if isinstance(parameters, dict) else {}
        arguments = signature(parameters)[1:-1]
        lines.append(f"{function['name']}({arguments}): {function.get('description') or ''}".rstrip())
        properties = parameters.get("properties")
        for name, schema in (properties if isinstance(properties, dict) else {}).items():
            if isinstance(schema, dict) and schema.get("description"):
                lines.append(f"  {name}: {schema['description']}")
    return "\n".join(lines)


def signature(schema: dict) -> str:
    """An object schema's properties, ``{name: type, other?: type}``."""
    properties = schema.get("properties")
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    return "{" + ", ".join(
        f"{name}{'' if name in required else '?'}: {type_name(property)}"
        for name, property in (properties if isinstance(properties, dict) else {}).items()
    ) + "}"


def type_name(schema) -> str:
    """A JSON Schema's type in a word or a few: ``string``, ``integer|string``, ``array of
    object``, or an enum's values (``"a"|"b"``); ``any`` when it does not say."""
    if not isinstance(schema, dict):
        return "any"
    if isinstance(schema.get("enum"), list):
        return "|".join(json.dumps(value) for value in schema["enum"] if value is not None)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = "|".join(str(part) for part in kind if part != "null")
    if kind == "array":
        return f"array of {type_name(schema.get('items'))}"
    if kind == "object" and isinstance(schema.get("properties"), dict):
        return signature(schema)
    if not kind:
        options = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(options, list):
            return "|".join(type_name(option) for option in options
                            if not (isinstance(option, dict) and option.get("type") == "null"))
        return "any"
    return str(kind)


def template_text(policy: Policy, messages: list, tools: list, prompt: bool) -> str:
    """`messages` rendered by the template, with the tools' `listing`; `prompt` adds the start
    of the assistant's reply."""
    return policy.tokenizer.apply_chat_template(
        messages, tool_listing=listing(tools), add_generation_prompt=prompt, tokenize=False
    )


def render(policy: Policy, messages: list, tools: list) -> list[int]:
    """The prompt's token ids, ending where the assistant's reply begins."""
    if not isinstance(messages, list) or not messages:
        raise BadRequest("`messages` must be a non-empty array")
    text = template_text(policy, messages, tools, True)
    return policy.tokenizer(text, add_special_tokens=False).input_ids


def render_conversation(policy: Policy, messages: list, tools: list) -> dict:
    """A whole conversation as one token sequence, with a loss mask of 1 on the tokens the
    assistant wrote (its turns' text, tool calls and end-of-turn token) and 0 on the rest: what
    supervised fine-tuning on a reference solution trains on. The mask comes from character
    spans of the rendered text, mapped onto the tokens of the whole text, so the ids are the
    ones the template gives the conversation at once."""
    if not isinstance(messages, list) or not messages:
        raise BadRequest("`messages` must be a non-empty array")
    tokenizer = policy.tokenizer

    def text(upto: int, prompt: bool) -> str:
        return template_text(policy, messages[:upto], tools, prompt)

    full = text(len(messages), False)
    spans = []
    for index, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        start = len(text(index, True))
        end = len(text(index + 1, False))
        if full[:end] != text(index + 1, False) or not full[start:end].rstrip().endswith(tokenizer.eos_token):
            raise BadRequest(f"message {index}: the template does not render it as a turn of its own")
        # The turn's text through its end-of-turn token; the newline after it is the template's.
        spans.append((start, start + len(full[start:end].rstrip())))
    encoded = tokenizer(full, add_special_tokens=False, return_offsets_mapping=True)
    mask = [
        int(any(start <= begin and finish <= end for start, end in spans) and finish > begin)
        for begin, finish in encoded["offset_mapping"]
    ]
    return {"token_ids": encoded["input_ids"], "loss_mask": mask}


def parse_reply(text: str) -> tuple[str | None, list[dict]]:
    """The reply's text and its tool calls (OpenAI's form, arguments as JSON text)."""
    calls = []
    for index, match in enumerate(TOOL_CALL.finditer(text)):
        try:
            call = json.loads(match.group(1))
            name, arguments = call["name"], call.get("arguments", {})
            if not isinstance(name, str):
                raise TypeError("name")
        except (ValueError, KeyError, TypeError):
            return text, []
        calls.append(
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        )
    if not calls:
        return text, []
    rest = TOOL_CALL.sub("", text).strip()
    return rest, calls


def number(body: dict, key: str, default, low=None, high=None):
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadRequest(f"`{key}` must be a number")
    if (low is not None and value < low) or (high is not None and value > high):
        raise BadRequest(f"`{key}` must be in [{low}, {high}]")
    return value


def draw_of(policy: Policy, body: dict, grammars: Callable[[], Grammars],
            tool_grammar: bool) -> Draw:
    """What a chat-completions request asks to sample: its prompt, sampling settings, and what
    its tool calls are held to (`constraint_of`; `grammars` gives what compiles them,
    `tool_grammar` holds every request's calls)."""
    tools = body.get("tools") or []
    if body.get("tool_choice") == "none":
        tools = []
    prompt = render(policy, body.get("messages"), tools)
    constraint = constraint_of(tools, body.get("tool_choice"), grammars, tool_grammar)
    max_tokens = int(number(body, "max_tokens", None, 1) or number(
        body, "max_completion_tokens", DEFAULT_MAX_TOKENS, 1))
    temperature = float(number(body, "temperature", 1.0, 0.0, 10.0))
    top_p = float(number(body, "top_p", 1.0, 0.0, 1.0))
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise BadRequest("`seed` must be an integer")
    return Draw(prompt, max_tokens, temperature, top_p, seed, constraint=constraint)


def constraint_of(tools: list, choice, grammars: Callable[[], Grammars], tool_grammar: bool):
    """What a reply's tool calls are held to: one call of the named function or of any tool
    (``tool_choice`` ``{"type": "function", "function": {"name"}}`` or ``required``), calls
    within free text (``auto``, when `tool_grammar` or a tool is ``strict``), or nothing."""
    if not tools:
        if choice == "required" or isinstance(choice, dict):
            raise BadRequest("`tool_choice` asks for a tool call but the request has no `tools`")
        return None
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        chosen = [tool for tool in tools if tool["function"]["name"] == name]
        if not chosen:
            raise BadRequest(f"`tool_choice` names `{name}`, which is not one of the `tools`")
        tools, required = chosen, True
    elif choice in (None, "auto", "required"):
        required = choice == "required"
        strict = any(tool["function"].get("strict") is True for tool in tools)
        if not (required or strict or tool_grammar):
            return None
    else:
        raise BadRequest("`tool_choice` must be none, auto, required or "
                         "{\"type\": \"function\", \"function\": {\"name\": NAME}}")
    try:
        return grammars().constraint(tools, required)
    except GrammarError as error:
        raise BadRequest(str(error)) from error


def reply(policy: Policy, draw: Draw) -> dict:
    """The chat completion of a sampled draw."""
    ids, prompt, finish = draw.ids, draw.prompt, draw.finish
    tokenizer = policy.tokenizer
    text = tokenizer.decode(ids, skip_special_tokens=True)
    content, calls = parse_reply(text)
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = calls
        finish = "tool_calls" if finish == "stop" else finish
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": policy.name,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish,
                "logprobs": {
                    "content": [
                        {"token": tokenizer.decode([token]), "logprob": logprob}
                        for token, logprob in zip(ids, draw.logprobs)
                    ]
                },
                # Beyond OpenAI's shape: what a trainer needs to keep (re-tokenising the
                # decoded text would not give these ids back).
                "token_ids": ids,
            }
        ],
        "prompt_token_ids": prompt,
        "policy_version": draw.version,
        "usage": {
            "prompt_tokens": len(prompt),
            "completion_tokens": len(ids),
            "total_tokens": len(prompt) + len(ids),
            "prompt_tokens_details": {"cached_tokens": draw.cached},
        },
    }
