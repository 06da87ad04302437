"""The synchronous client of agentbench's REST API (`agentbench serve`), over httpx.

Retries: with `retries=N`, a request is sent again (at most N times, after `backoff * 2**attempt`
seconds, or the server's `Retry-After`) only when sending it again cannot do anything twice:

- the connection was never made (a connect error or timeout, an exhausted pool), or the server
  answered 429 (`too_many_episodes`) or 503 (`store_unavailable`), both of which mean nothing was
  recorded;
- any other connection failure (a read timeout, a dropped connection) only for reads and for steps
  that carry a `request_id`, which the server answers from its record when it has one. With
  retries on, a step without a `request_id` is given a fresh `uuid4` one, so that steps are always
  safe to retry.

Creating, forking, abandoning and deleting an episode are not retried after a failure in flight:
the server may have done them.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx

from agentbench_client.episode import Episode
from agentbench_client.errors import AgentbenchError
from agentbench_client.records import Action, BatchItem, Mode, Step

if TYPE_CHECKING:
    from typing_extensions import Self

# Answers that say nothing was recorded and asking again later may succeed.
_RETRIED_STATUSES = frozenset({429, 503})
# Failures that happen before a request is sent, so that sending it again is always safe.
_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class Client:
    """A connection to one agentbench server.

    `base_url` is the server's root (`http://127.0.0.1:8080`); `api_key` is a key from
    `agentbench keys create`, for a server that takes keys (the `AGENTBENCH_API_KEY` variable when
    not given); `timeout` is per request, in seconds; `retries` and `backoff` are described in
    this module's docstring; `transport`
    replaces httpx's network transport (an `httpx.MockTransport` in tests). Use it as a context
    manager, or call `close()`.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 0,
        backoff: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.retries = retries
        self.backoff = backoff
        api_key = api_key or os.environ.get("AGENTBENCH_API_KEY")
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            timeout=timeout,
            transport=transport,
            headers=headers,
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # Envs.

    def health(self) -> dict[str, Any]:
        """`GET /healthz`: `{"status": "ok"}` while the server serves."""
        return self._request("GET", "/healthz")

    def envs(self) -> list[dict[str, Any]]:
        """Every env the server hosts, each with its tools in function-calling form."""
        envs: list[dict[str, Any]] = self._request("GET", "/v1/envs")["envs"]
        return envs

    def env(self, name: str) -> dict[str, Any]:
        """One env: `{name, version, description, content_hash, tools, irreversible_tools,
        policies}`, each tool as `{"type": "function", "function": {name, description,
        parameters}}`."""
        return self._request("GET", f"/v1/envs/{_segment(name)}")

    # Episodes.

    def create_episode(
        self,
        env: str,
        task: dict[str, Any] | None = None,
        seed: int | None = None,
        mode: Mode | None = None,
    ) -> Episode:
        """Starts an episode of `env`; the server's defaults are the env's default task, seed 0
        and `enforce`."""
        body: dict[str, Any] = {"env": env}
        if task is not None:
            body["task"] = task
        if seed is not None:
            body["seed"] = seed
        if mode is not None:
            body["mode"] = mode
        return Episode.from_created(self, self._request("POST", "/v1/episodes", json=body))

    def episode(self, episode_id: str) -> Episode:
        """Attaches to an existing episode (one this process did not start, or one to resume
        after a restart), from its recorded trajectory."""
        trajectory = self.trajectory(episode_id)
        return Episode.from_trajectory(self, trajectory, self.env(trajectory["env"])["tools"])

    def step(
        self,
        episode_id: str,
        action: Action,
        *,
        request_id: str | None = None,
        tokens: int | None = None,
    ) -> Step:
        """Takes one action in an episode and returns the step as recorded. A step that the
        server judged (blocked, invalid arguments, an unknown tool) is a `Step` with that
        status, not an error; an episode that is over raises `episode_over`."""
        body: dict[str, Any] = {"action": action}
        request_id = request_id or self._fresh_request_id()
        if request_id is not None:
            body["request_id"] = request_id
        if tokens is not None:
            body["tokens"] = tokens
        answer = self._request(
            "POST",
            f"/v1/episodes/{_segment(episode_id)}/steps",
            json=body,
            idempotent=request_id is not None,
        )
        return Step.from_json(answer)

    def step_many(self, items: Sequence[BatchItem]) -> list[Step | AgentbenchError]:
        """Takes many actions at once (`POST /v1/steps`), on one episode or many, in order.
        Each item is answered on its own: a `Step`, or the `AgentbenchError` its single request
        would have raised (returned, not raised). With retries on, the items answered 429 or
        503 are sent again. `Episode` handles do not see these steps: their `observation` and
        `action_mask` stay as they were."""
        bodies = [self._batch_body(item) for item in items]
        results: dict[int, Step | AgentbenchError] = {}
        positions = list(range(len(bodies)))
        attempt = 0
        while positions:
            answer = self._request(
                "POST",
                "/v1/steps",
                json={"steps": [bodies[position] for position in positions]},
                idempotent=all("request_id" in bodies[position] for position in positions),
            )
            for position, result in zip(positions, answer["results"], strict=True):
                results[position] = _batch_result(result)
            if attempt >= self.retries:
                break
            positions = [position for position in positions if _not_recorded(results[position])]
            if positions:
                time.sleep(self.backoff * 2**attempt)
                attempt += 1
        return [results[position] for position in range(len(bodies))]

    def fork(self, episode_id: str) -> Episode:
        """Branches an open episode: a new episode with the same steps so far."""
        return Episode.from_created(
            self, self._request("POST", f"/v1/episodes/{_segment(episode_id)}/fork")
        )

    def abandon(self, episode_id: str) -> None:
        """Ends an episode before its end, keeping its record (state `abandoned`)."""
        self._request("POST", f"/v1/episodes/{_segment(episode_id)}/abandon")

    def delete_episode(self, episode_id: str) -> None:
        """Removes an episode and its record."""
        self._request("DELETE", f"/v1/episodes/{_segment(episode_id)}")

    def trajectory(self, episode_id: str) -> dict[str, Any]:
        """An episode's whole record: `{id, env, env_version, env_hash, seed, mode, task,
        observation, state, terminated, truncated, outcome, forked_from, steps}`."""
        return self._request("GET", f"/v1/episodes/{_segment(episode_id)}")

    def action_schema(self, episode_id: str) -> dict[str, Any]:
        """A JSON Schema of the actions the episode's mask leaves open, for constrained
        decoding."""
        return self._request("GET", f"/v1/episodes/{_segment(episode_id)}/action-schema")

    # Runs and the leaderboard.

    def runs(self) -> list[dict[str, Any]]:
        """Every recorded suite run (`agentbench run`), newest first."""
        runs: list[dict[str, Any]] = self._request("GET", "/v1/runs")["runs"]
        return runs

    def run(self, run_id: str) -> dict[str, Any]:
        """One run with its metrics and gate verdict."""
        return self._request("GET", f"/v1/runs/{_segment(run_id)}")

    def compare_runs(self, run_id: str, other_id: str) -> dict[str, Any]:
        """How `run_id` differs from `other_id`, metric by metric and episode by episode."""
        return self._request("GET", f"/v1/runs/{_segment(run_id)}/compare/{_segment(other_id)}")

    def leaderboard(
        self, suite: str | None = None, agent: str | None = None, category: str | None = None
    ) -> dict[str, Any]:
        """One row per agent and suite version; `suite` is a name or `name@version`, `agent` a
        part of the agent's name, `category` shows that category's metrics."""
        query = {"suite": suite, "agent": agent, "category": category}
        params = {key: value for key, value in query.items() if value is not None}
        return self._request("GET", "/v1/leaderboard", params=params)

    def trainings(self) -> list[dict[str, Any]]:
        """Every training run with a held-out evaluation, newest first, with its curve."""
        trainings: list[dict[str, Any]] = self._request("GET", "/v1/trainings")["trainings"]
        return trainings

    # Plumbing.

    def _fresh_request_id(self) -> str | None:
        return str(uuid.uuid4()) if self.retries > 0 else None

    def _batch_body(self, item: BatchItem) -> dict[str, Any]:
        body: dict[str, Any] = dict(item)
        if "request_id" not in body and (request_id := self._fresh_request_id()) is not None:
            body["request_id"] = request_id
        return body

    def _request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, str] | None = None,
        idempotent: bool | None = None,
    ) -> dict[str, Any]:
        """Sends one request, retrying as the module docstring says, and returns the JSON
        object answered (`{}` for 204) or raises the `AgentbenchError` answered."""
        if idempotent is None:
            idempotent = method == "GET"
        attempt = 0
        while True:
            try:
                response = self._http.request(method, path, json=json, params=params)
            except _NOT_SENT:
                if attempt >= self.retries:
                    raise
                delay = self.backoff * 2**attempt
            except httpx.TransportError:
                if not idempotent or attempt >= self.retries:
                    raise
                delay = self.backoff * 2**attempt
            else:
                if response.status_code not in _RETRIED_STATUSES or attempt >= self.retries:
                    return _answer(response)
                delay = _retry_after(response) or self.backoff * 2**attempt
            time.sleep(delay)
            attempt += 1


def _answer(response: httpx.Response) -> dict[str, Any]:
    if response.status_code == 204:
        return {}
    try:
        body = response.json()
    except ValueError:
        body = response.text
    if response.is_success and isinstance(body, dict):
        return body
    raise AgentbenchError.from_body(response.status_code, body)


def _batch_result(result: dict[str, Any]) -> Step | AgentbenchError:
    if result.get("step") is not None:
        return Step.from_json(result["step"])
    return AgentbenchError.from_body(int(result["status"]), result)


def _not_recorded(result: Step | AgentbenchError) -> bool:
    """A batch item answered 429 or 503: nothing was recorded, and it may be sent again."""
    return isinstance(result, AgentbenchError) and result.status in _RETRIED_STATUSES


def _retry_after(response: httpx.Response) -> float | None:
    """The server's `Retry-After` in seconds, when it gives one as a number."""
    try:
        return float(response.headers["retry-after"])
    except (KeyError, ValueError):
        return None


def _segment(value: str) -> str:
    """One path segment, escaped, so that an id cannot reach another route."""
    return quote(value, safe="")
