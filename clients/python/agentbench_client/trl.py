"""An `environment_factory` for TRL's `GRPOTrainer`: one agentbench episode per rollout, with
the env's tools as methods, and a reward function over the episodes.

What TRL asks of an environment (read in TRL 1.16.0, `trl/trainer/grpo_trainer.py`):

- The trainer calls the factory with no arguments: once at start to probe the class, then once
  per rollout that runs at the same time, and it reuses instances across batches (`reset`
  between rollouts).
- The tools are the public functions of the instance's class
  (`inspect.getmembers(type(env), inspect.isfunction)`, less `reset`, `get_reward` and names
  starting with `_`); properties are not tools. Their schemas come from
  `transformers.utils.get_json_schema`: the type hints of `inspect.signature` (a method's `self`
  dropped) and a Google-style docstring with an `Args:` line per parameter. The model's call runs
  as `method(**arguments)` and its result goes back to the model as `str(result)`; an exception
  goes back as `{"error": str(exception)}`.
- `reset(**row)` gets the dataset row (every column, `prompt` included) and returns a string
  appended to the last user message, or None.
- Reward functions are called as `f(prompts=..., completions=..., completion_ids=...,
  environments=[...], **columns)`, `environments` holding the instances in completion order,
  and return one float (or None, "not applicable") per completion.

So `environment_factory` builds a class per env, at start, from the env's tools as the server
lists them: one method per tool, whose keyword-only signature is made from the tool's JSON
Schema (a parameter named like a Python keyword gains a trailing underscore: `with` is
`with_`) and whose docstring carries the tool's descriptions. The arguments go to the server as
given: it validates them, and records a bad call as an `invalid_arguments` step that the rule
scorer penalises, rather than the call failing in Python. `final_message` ends the episode and
`ask_user` asks the user, as two more tools.
"""

from __future__ import annotations

import functools
import inspect
import json
import keyword
import operator
import re
from collections.abc import Callable, Sequence
from types import GenericAlias
from typing import Any, ClassVar, Literal, cast

from agentbench_client.client import Client
from agentbench_client.episode import Episode
from agentbench_client.errors import AgentbenchError
from agentbench_client.records import Action, Mode, Step

# Names the base class uses, which a tool must not shadow.
_RESERVED_NAMES = frozenset(
    {"reset", "get_reward", "final_message", "ask_user", "reward", "episode", "steps"}
)
_JSON_SCALAR_TYPES: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "object": dict,
    "null": type(None),
}


class AgentbenchToolEnv:
    """The base of the classes `environment_factory` builds: an instance plays one episode at
    a time, from `reset` on; its other public methods are the tools."""

    _client: ClassVar[Client]
    _env: ClassVar[str]
    _task_column: ClassVar[str]
    _seed_column: ClassVar[str]
    _mode: ClassVar[Mode | None]

    def __init__(self) -> None:
        self._episode: Episode | None = None
        self._steps: list[Step] = []

    def reset(self, **row: Any) -> str:
        """Starts a new episode (abandoning the previous one if it is still open) with the task
        and seed of the row's task and seed columns, when it has them; returns the first
        observation as text."""
        if self._episode is not None and not self._episode.done:
            self._episode.abandon()
        self._steps = []
        self._episode = self._client.create_episode(
            self._env,
            task=_task(row.get(self._task_column)),
            seed=_seed(row.get(self._seed_column)),
            mode=self._mode,
        )
        return _text(self._episode.observation)

    def final_message(self, text: str) -> str:
        """Give the user your final answer. This ends the task: call it once, last.

        Args:
            text: The final answer to the user, as plain text.

        Returns:
            The end of the task, as JSON text.
        """
        return self._act({"message": text})

    def ask_user(self, question: str) -> str:
        """Ask the user a question and get the reply, for instance to confirm an action that
        cannot be undone.

        Args:
            question: The question for the user, as plain text.

        Returns:
            The user's reply, as JSON text.
        """
        return self._act({"ask_user": question})

    @property
    def reward(self) -> float:
        """The episode's return: the sum of its steps' rewards (each the mean of its scorers'
        rewards), plus, once the episode has ended, the outcome's reward (1 for a success
        without harm, -1 for any harm, 0 otherwise)."""
        return sum(step.reward for step in self._steps)

    @property
    def episode(self) -> Episode | None:
        """The episode being played; None before the first `reset`."""
        return self._episode

    @property
    def steps(self) -> list[Step]:
        """The steps taken since the last `reset`, in order."""
        return self._steps

    def _act(self, action: Action) -> str:
        if self._episode is None:
            raise RuntimeError("no episode yet: call reset() first")
        step = self._episode.step(action)
        self._steps.append(step)
        return _text(step.observation)

    def _end_with(self, text: str) -> None:
        """Ends an open episode with `text` as the final message, as if the model had called
        `final_message`. An episode the server has already closed (expired, abandoned) stays
        without an outcome."""
        if self._episode is None or self._episode.done:
            return
        try:
            self._act({"message": text})
        except AgentbenchError as error:
            if error.status != 409:
                raise


def environment_factory(
    base_url: str,
    env: str,
    *,
    task_column: str = "task",
    seed_column: str = "seed",
    mode: Mode | None = None,
    timeout: float = 30.0,
    retries: int = 3,
) -> type[AgentbenchToolEnv]:
    """Builds the environment class for `GRPOTrainer(environment_factory=...)`: calling it
    (with no arguments) makes an environment that plays episodes of `env` on the server at
    `base_url`, with one method per tool of the env.

    `reset` takes the episode's task from the row's `task_column` (a dict, or a JSON string
    of one; the env's default task when absent) and its seed from `seed_column` (seed 0 when
    absent). JSON strings suit a `datasets` column best: a column of dicts becomes a struct
    that gives every row every key of every other row. `mode` is `enforce` (the server's
    default) or `audit`. All instances share one `Client` with the given `timeout` and
    `retries`.
    """
    client = Client(base_url, timeout=timeout, retries=retries)
    namespace: dict[str, Any] = {
        "__module__": __name__,
        "__doc__": f"An agentbench `{env}` episode per rollout, its tools as methods.",
        "_client": client,
        "_env": env,
        "_task_column": task_column,
        "_seed_column": seed_column,
        "_mode": mode,
    }
    class_name = "".join(part.capitalize() for part in re.split(r"\W|_", env)) + "Environment"
    for tool in client.env(env)["tools"]:
        method = tool_method(tool["function"])
        method.__qualname__ = f"{class_name}.{method.__name__}"
        namespace[method.__name__] = method
    return cast(type[AgentbenchToolEnv], type(class_name, (AgentbenchToolEnv,), namespace))


def agentbench_reward(
    environments: Sequence[object], completions: Sequence[Any] | None = None, **_: Any
) -> list[float | None]:
    """A TRL reward function: each rollout's episode return (`AgentbenchToolEnv.reward`).

    A rollout that stopped with a plain assistant reply instead of calling `final_message`
    leaves its episode open; given `completions` (as TRL passes them), this ends such an
    episode with that reply as the final message first, so that its outcome counts. Rollouts
    of other environments (in a multi-environment run) get None: not applicable.
    """
    if completions is None:
        finals: list[str | None] = [None] * len(environments)
    else:
        finals = [_final_reply(completion) for completion in completions]
    rewards: list[float | None] = []
    for environment, final in zip(environments, finals, strict=True):
        if not isinstance(environment, AgentbenchToolEnv):
            rewards.append(None)
            continue
        if final is not None:
            environment._end_with(final)
        rewards.append(environment.reward)
    return rewards


def tool_method(function: dict[str, Any]) -> Callable[..., str]:
    """One env tool (the `function` of its function-calling form: `name`, `description`,
    `parameters`) as a method whose signature and docstring describe it to
    `transformers.utils.get_json_schema`."""
    name = function["name"]
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise ValueError(
            f"the tool `{name}` cannot be a method: its name is not a public identifier"
        )
    if name in _RESERVED_NAMES:
        raise ValueError(
            f"the tool `{name}` cannot be a method: the name is taken by the base class"
        )
    schema = function.get("parameters") or {}
    properties: dict[str, dict[str, Any]] = schema.get("properties") or {}
    required = set(schema.get("required") or [])

    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    # The Python name of each parameter, to its name on the wire.
    wire_names: dict[str, str] = {}
    # Optional parameters that cannot be null, which a None leaves out.
    omitted_when_none: set[str] = set()
    descriptions: list[str] = []
    for wire_name, property_schema in properties.items():
        python_name = _python_name(wire_name)
        if python_name in wire_names:
            raise ValueError(
                f"the tool `{name}` has two parameters named `{python_name}` in Python"
            )
        wire_names[python_name] = wire_name
        hint = _type_hint(property_schema)
        default: Any = inspect.Parameter.empty
        if wire_name not in required:
            default = property_schema.get("default")
            if default is None and not _allows_null(property_schema):
                hint = hint | None
                omitted_when_none.add(python_name)
        parameters.append(
            inspect.Parameter(
                python_name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hint
            )
        )
        description = property_schema.get("description") or property_schema.get("title")
        descriptions.append(f"    {python_name}: {_one_line(description or wire_name)}")

    def method(self: AgentbenchToolEnv, **arguments: Any) -> str:
        wire_arguments = {
            wire_names.get(key, key): value
            for key, value in arguments.items()
            if not (value is None and key in omitted_when_none)
        }
        return self._act({"tool": name, "arguments": wire_arguments})

    docstring = function.get("description") or f"Call the `{name}` tool."
    if descriptions:
        docstring += "\n\nArgs:\n" + "\n".join(descriptions)
    docstring += "\n\nReturns:\n    What the tool answered, as JSON text."
    method.__name__ = name
    method.__doc__ = docstring
    method.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = {
        **{parameter.name: parameter.annotation for parameter in parameters[1:]},
        "return": str,
    }
    return method


def _python_name(wire_name: str) -> str:
    """A parameter name usable in Python: other characters become `_`, and a keyword (`with`,
    `from`) or `self` gains a trailing `_`."""
    name = re.sub(r"\W", "_", wire_name)
    if not name or name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) or name == "self" else name


def _type_hint(schema: dict[str, Any]) -> Any:
    """The Python type hint that `get_json_schema` turns back into (about) this JSON Schema."""
    if "enum" in schema:
        values = [value for value in schema["enum"] if value is not None]
        hint: Any = Literal[tuple(values)] if values else type(None)
        return hint | None if None in schema["enum"] and values else hint
    if "const" in schema:
        return Literal[schema["const"]]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _union([_type_hint(option) for option in schema[key]])
    types = schema.get("type")
    if types is None:
        return Any
    hints = [
        _scalar_or_array(name, schema) for name in (types if isinstance(types, list) else [types])
    ]
    return _union(hints)


def _union(hints: list[Any]) -> Any:
    return functools.reduce(operator.or_, hints)


def _scalar_or_array(type_name: str, schema: dict[str, Any]) -> Any:
    if type_name == "array":
        items = schema.get("items")
        return (
            GenericAlias(list, (_type_hint(items),)) if isinstance(items, dict) and items else list
        )
    return _JSON_SCALAR_TYPES.get(type_name, Any)


def _allows_null(schema: dict[str, Any]) -> bool:
    types = schema.get("type")
    return (
        types == "null"
        or (isinstance(types, list) and "null" in types)
        or None in schema.get("enum", [])
        or any(_allows_null(option) for key in ("anyOf", "oneOf") for option in schema.get(key, []))
    )


def _one_line(text: str) -> str:
    """Description text on one line, so that the docstring's `Args:` block parses."""
    return " ".join(text.split())


def _task(value: Any) -> dict[str, Any] | None:
    """A task from a dataset column: a dict, or a JSON string of one (or absent)."""
    if isinstance(value, str):
        value = json.loads(value) if value.strip() else None
    return cast(dict[str, Any] | None, value)


def _seed(value: Any) -> int | None:
    """A seed from a dataset column (a Python or NumPy integer, or absent)."""
    return int(value) if value is not None else None


def _text(observation: Any) -> str:
    return (
        observation if isinstance(observation, str) else json.dumps(observation, ensure_ascii=False)
    )


def _final_reply(completion: Any) -> str | None:
    """The text of a completion's last message when it is an assistant reply without tool
    calls: the answer a rollout stopped on. None when it stopped on a tool's result (out of
    turns or of tokens) or said nothing."""
    if isinstance(completion, str):
        return completion.strip() or None
    if not isinstance(completion, list) or not completion:
        return None
    last = completion[-1]
    if not isinstance(last, dict) or last.get("role") != "assistant" or last.get("tool_calls"):
        return None
    content = last.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return (content.strip() or None) if isinstance(content, str) else None
