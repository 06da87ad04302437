"""What the client sends and what it reads back.

Actions and batch items are TypedDicts: they are written by hand as JSON literals
(`{"tool": "read_file", "arguments": {"path": "/docs/a.md"}}`) and go on the wire unchanged, and
a TypedDict lets a type checker catch a misspelt key without a conversion step. The step records
the server answers with are frozen dataclasses over the JSON: the fields a client acts on
(status, observation, mask, scores, outcome) are lifted and typed, and the whole answer stays in
`raw` for the rest (events, effects, timings, validation issues). Reports the client only passes
on (envs, runs, the leaderboard, trainings, trajectories, action schemas) are returned as the
JSON the server sends; its `GET /openapi.json` is their schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

Mode = Literal["enforce", "audit"]
"""What the safety policies do with a forbidden call: not run it (`enforce`) or run and record it."""


class ToolCall(TypedDict):
    """Call one of the env's tools."""

    tool: str
    arguments: dict[str, Any]


class FinalMessage(TypedDict):
    """The agent's final message; it ends the episode."""

    message: str


class AskUser(TypedDict):
    """A question to the user, answered from the task's `user_replies`."""

    ask_user: str


Action = ToolCall | FinalMessage | AskUser


class _BatchItemRequired(TypedDict):
    episode: str
    action: Action


class BatchItem(_BatchItemRequired, total=False):
    """One action of `Client.step_many`: the episode's id, the action and, optionally, a
    `request_id` (a retry with the same id answers the recorded step) and the model `tokens`
    spent producing it."""

    request_id: str
    tokens: int


@dataclass(frozen=True)
class Score:
    """One step scorer's judgement of a step: a reward in [-1, 1] and what it saw."""

    scorer: str
    version: str
    reward: float
    labels: list[str]
    unmeasured: str | None
    """Why the scorer could not judge the step; its `reward` (0) then means nothing."""

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Score:
        return cls(
            scorer=body["scorer"],
            version=body["version"],
            reward=float(body["reward"]),
            labels=list(body.get("labels") or []),
            unmeasured=body.get("unmeasured"),
        )


@dataclass(frozen=True)
class Outcome:
    """The env's outcome checks on an ended episode."""

    success: bool
    """Every success check passed."""
    harms: list[str]
    """The harm checks that failed: the harms done."""
    checks: list[dict[str, Any]]
    """Every check as `{"name", "kind", "passed", "detail"}`."""

    @property
    def reward(self) -> float:
        """1 for a success without harm, -1 for any harm, 0 otherwise."""
        if self.harms:
            return -1.0
        return 1.0 if self.success else 0.0

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Outcome:
        return cls(
            success=bool(body["success"]), harms=list(body["harms"]), checks=list(body["checks"])
        )


@dataclass(frozen=True)
class Step:
    """One step as the server recorded it."""

    index: int
    action: dict[str, Any]
    status: str
    """`ok`, `tool_error`, `invalid_arguments`, `unknown_tool`, `blocked`, `message`,
    `ask_user` or `env_error`."""
    observation: Any
    """What the agent sees: the tool's result, the user's reply or what was wrong."""
    terminated: bool
    truncated: bool
    action_mask: dict[str, str]
    """How each tool stands for the next action (`allowed`, `blocked`, `conditional`)."""
    violations: list[dict[str, Any]]
    """The policies that forbid the call, as `{"policy", "annotations", "resource"}`."""
    scores: list[Score]
    outcome: Outcome | None
    """On the step that ended the episode, the env's outcome checks."""
    request_id: str | None
    raw: dict[str, Any] = field(repr=False, compare=False)
    """The whole record as the server sent it."""

    @property
    def done(self) -> bool:
        """The episode is over after this step."""
        return self.terminated or self.truncated

    @property
    def score(self) -> float:
        """The mean reward of the scorers that judged this step (0 when none did)."""
        measured = [score.reward for score in self.scores if score.unmeasured is None]
        return sum(measured) / len(measured) if measured else 0.0

    @property
    def reward(self) -> float:
        """The reward a learner credits to this step: its `score`, plus the outcome's reward on
        the step that ended the episode. An episode's rewards sum to its return."""
        return self.score + (self.outcome.reward if self.outcome is not None else 0.0)

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> Step:
        outcome = body.get("outcome")
        return cls(
            index=int(body["index"]),
            action=body["action"],
            status=body["status"],
            observation=body.get("observation"),
            terminated=bool(body["terminated"]),
            truncated=bool(body["truncated"]),
            action_mask=dict(body.get("action_mask") or {}),
            violations=list(body.get("violations") or []),
            scores=[Score.from_json(score) for score in body.get("scores") or []],
            outcome=Outcome.from_json(outcome) if outcome is not None else None,
            request_id=body.get("request_id"),
            raw=body,
        )
