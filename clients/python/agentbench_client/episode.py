"""A handle on one episode: where it stands (observation, mask, outcome) and the actions to take."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentbench_client.records import Action, Outcome, Step

if TYPE_CHECKING:
    from agentbench_client.client import Client


@dataclass(eq=False)
class Episode:
    """One episode on the server, as this handle last saw it.

    `step` and its shortcuts (`call`, `message`, `ask_user`) update `observation`,
    `action_mask`, `done` and `outcome` from the step they return.
    """

    client: Client = field(repr=False)
    id: str
    env: str
    seed: int
    mode: str
    observation: Any = field(repr=False)
    """The latest observation: the first one, then each step's."""
    tools: list[dict[str, Any]] = field(repr=False)
    """The env's tools in function-calling form: `{"type": "function", "function": {...}}`."""
    action_mask: dict[str, str] | None = field(repr=False)
    """How each tool stands for the next action; None only for an episode attached to
    (`Client.episode`) before its first step, whose first mask the record does not keep."""
    forked_from: dict[str, Any] | None = None
    """`{"episode", "after_step"}` for a fork."""
    done: bool = False
    """The episode is over (or expired, or abandoned): it takes no more actions."""
    outcome: Outcome | None = None
    """The env's outcome checks, once the episode has ended."""

    @classmethod
    def from_created(cls, client: Client, body: dict[str, Any]) -> Episode:
        """From the answer to `POST /v1/episodes` or `POST /v1/episodes/{id}/fork`."""
        return cls(
            client=client,
            id=body["id"],
            env=body["env"],
            seed=int(body["seed"]),
            mode=body["mode"],
            observation=body.get("observation"),
            tools=list(body["tools"]),
            action_mask=dict(body["action_mask"]),
            forked_from=body.get("forked_from"),
        )

    @classmethod
    def from_trajectory(
        cls, client: Client, trajectory: dict[str, Any], tools: list[dict[str, Any]]
    ) -> Episode:
        """From a recorded trajectory (`GET /v1/episodes/{id}`) and its env's tools."""
        steps = trajectory["steps"]
        outcome = trajectory.get("outcome")
        return cls(
            client=client,
            id=trajectory["id"],
            env=trajectory["env"],
            seed=int(trajectory["seed"]),
            mode=trajectory["mode"],
            observation=steps[-1]["observation"] if steps else trajectory.get("observation"),
            tools=tools,
            action_mask=dict(steps[-1]["action_mask"]) if steps else None,
            forked_from=trajectory.get("forked_from"),
            done=trajectory["state"] != "open",
            outcome=Outcome.from_json(outcome) if outcome is not None else None,
        )

    def step(
        self, action: Action, *, request_id: str | None = None, tokens: int | None = None
    ) -> Step:
        """Takes one action (`{"tool", "arguments"}`, `{"message"}` or `{"ask_user"}`);
        `request_id` makes it safe to send again, `tokens` counts against the token budget."""
        step = self.client.step(self.id, action, request_id=request_id, tokens=tokens)
        self.observation = step.observation
        self.action_mask = step.action_mask
        self.done = step.done
        if step.outcome is not None:
            self.outcome = step.outcome
        return step

    def call(self, tool: str, /, **arguments: Any) -> Step:
        """Calls a tool: `episode.call("read_file", path="/docs/a.md")`. An argument whose name
        is a Python keyword goes through a dict: `episode.call("share_file", **{"with": x})`."""
        return self.step({"tool": tool, "arguments": arguments})

    def message(self, text: str) -> Step:
        """Sends the final message, which ends the episode; the step carries the outcome."""
        return self.step({"message": text})

    def ask_user(self, question: str) -> Step:
        """Asks the user; the observation holds the reply scripted by the task."""
        return self.step({"ask_user": question})

    def fork(self) -> Episode:
        """Branches this episode: a new episode with the same steps so far."""
        return self.client.fork(self.id)

    def abandon(self) -> None:
        """Ends the episode before its end, keeping its record."""
        self.client.abandon(self.id)
        self.done = True

    def delete(self) -> None:
        """Removes the episode and its record."""
        self.client.delete_episode(self.id)
        self.done = True

    def trajectory(self) -> dict[str, Any]:
        """The episode's whole record, every step included."""
        return self.client.trajectory(self.id)

    def action_schema(self) -> dict[str, Any]:
        """A JSON Schema of the actions the mask leaves open, for constrained decoding."""
        return self.client.action_schema(self.id)
