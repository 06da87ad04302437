"""A Gymnasium-style environment over agentbench episodes, without depending on gymnasium.

`AgentbenchEnv` has the methods of `gymnasium.Env` that a training or evaluation loop calls
(`reset`, `step`, `close`), with their return shapes, so a loop written for Gymnasium runs on
it. It is duck-typed, not a subclass: it has no `action_space` or `observation_space`, since
actions and observations are JSON (an action is `{"tool", "arguments"}`, `{"message"}` or
`{"ask_user"}`; an observation is what the env answered), and wrappers that need spaces do not
apply.
"""

from __future__ import annotations

from typing import Any

from agentbench_client.client import Client
from agentbench_client.episode import Episode
from agentbench_client.records import Action, Mode


class AgentbenchEnv:
    """Episodes of one env, one at a time: `reset` starts one, `step` acts in it.

    The reward of a step is `Step.reward`: the mean of its scorers' rewards, plus the
    outcome's reward (1 for a success without harm, -1 for any harm, 0 otherwise) on the step
    that ends the episode, so that an episode's rewards sum to its return.
    """

    def __init__(
        self,
        client: Client,
        env: str,
        task: dict[str, Any] | None = None,
        seed: int | None = None,
        mode: Mode | None = None,
    ) -> None:
        self.client = client
        self.env = env
        self.task = task
        self.seed = seed
        self.mode = mode
        self.episode: Episode | None = None
        """The episode being played; None before the first `reset`."""

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Starts a new episode, abandoning the previous one if it is still open. `seed` and
        `options["task"]` replace the constructor's seed and task for this episode only (envs
        are deterministic: the same seed and task give the same episode). Returns the first
        observation and `{"episode": id, "tools": [...], "action_mask": {...}}`."""
        if self.episode is not None and not self.episode.done:
            self.episode.abandon()
        task = (options or {}).get("task", self.task)
        self.episode = self.client.create_episode(
            self.env, task=task, seed=self.seed if seed is None else seed, mode=self.mode
        )
        info = {
            "episode": self.episode.id,
            "tools": self.episode.tools,
            "action_mask": self.episode.action_mask,
        }
        return self.episode.observation, info

    def step(self, action: Action) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Takes one action: `(observation, reward, terminated, truncated, info)`, with the
        step's record as `info["step"]` (a `Step`: status, violations, scores, outcome, the
        next action mask). Acting after the end raises `AgentbenchError` (`episode_over`)."""
        if self.episode is None:
            raise RuntimeError("no episode yet: call reset() first")
        step = self.episode.step(action)
        return step.observation, step.reward, step.terminated, step.truncated, {"step": step}

    def close(self) -> None:
        """Abandons the episode being played, if it is still open. The client stays open: it
        belongs to the caller."""
        if self.episode is not None and not self.episode.done:
            self.episode.abandon()
