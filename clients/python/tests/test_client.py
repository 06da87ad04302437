"""The client against a scripted transport: when it retries, what it sends again, and how it
reads answers and errors. The interop test (`tests/interop/client_session.py`) runs it
against a real server."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from agentbench_client import AgentbenchError, Client, Step

EPISODE = {
    "id": "ep_1",
    "env": "workspace",
    "env_version": "0.4.0",
    "seed": 4,
    "mode": "enforce",
    "observation": {"instruction": "Reply to Priya."},
    "tools": [],
    "action_mask": {"read_file": "allowed"},
    "forked_from": None,
}


def step_record(index: int = 0, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "index": index,
        "action": {"tool": "read_file", "arguments": {"path": "/a"}},
        "status": "ok",
        "mask": {},
        "observation": {"content": "agenda"},
        "terminated": False,
        "truncated": False,
        "timings": {"validate_us": 1, "policy_us": 1, "sandbox_us": 1, "total_us": 3},
        "scores": [{"scorer": "rules", "version": "3", "reward": 0.5}],
        "action_mask": {"read_file": "allowed"},
    }
    record.update(fields)
    return record


def error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"error": {"code": code, "message": f"{code} happened", "details": None}}
    return httpx.Response(status, json=body, headers=headers)


class Script:
    """A transport answering from a list, one answer (or exception) per request, in order."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def bodies(self) -> list[Any]:
        return [json.loads(request.content) for request in self.requests]


def client_on(script: Script, retries: int = 0) -> Client:
    return Client(
        "http://agentbench.test", retries=retries, backoff=0, transport=httpx.MockTransport(script)
    )


def test_a_step_retried_after_503_carries_the_same_generated_request_id() -> None:
    script = Script(error(503, "store_unavailable"), httpx.Response(200, json=step_record()))
    client_on(script, retries=1).step("ep_1", {"tool": "read_file", "arguments": {}})
    first, second = script.bodies()
    assert len(first["request_id"]) == 36  # a uuid4
    assert second["request_id"] == first["request_id"]


def test_a_step_with_a_request_id_is_retried_after_a_read_timeout() -> None:
    script = Script(httpx.ReadTimeout("slow"), httpx.Response(200, json=step_record()))
    client_on(script, retries=1).step("ep_1", {"message": "done"}, request_id="r1")
    assert [body["request_id"] for body in script.bodies()] == ["r1", "r1"]


def test_without_retries_a_step_carries_no_request_id_and_a_503_raises() -> None:
    script = Script(error(503, "store_unavailable"))
    with pytest.raises(AgentbenchError) as raised:
        client_on(script).step("ep_1", {"message": "done"})
    assert "request_id" not in script.bodies()[0]
    assert (raised.value.status, raised.value.code) == (503, "store_unavailable")


def test_creating_an_episode_is_not_retried_after_a_read_timeout() -> None:
    script = Script(httpx.ReadTimeout("slow"), httpx.Response(201, json=EPISODE))
    with pytest.raises(httpx.ReadTimeout):
        client_on(script, retries=3).create_episode("workspace")
    assert len(script.requests) == 1


@pytest.mark.parametrize(
    "failure",
    [
        httpx.ConnectError("refused"),
        error(429, "too_many_episodes", {"retry-after": "0"}),
        error(503, "store_unavailable"),
    ],
)
def test_creating_an_episode_is_retried_when_nothing_was_recorded(
    failure: httpx.Response | Exception,
) -> None:
    script = Script(failure, httpx.Response(201, json=EPISODE))
    episode = client_on(script, retries=1).create_episode("workspace", seed=4)
    assert episode.id == "ep_1"
    assert len(script.requests) == 2


def test_retries_stop_at_the_limit() -> None:
    script = Script(*[error(429, "too_many_episodes", {"retry-after": "0"})] * 3)
    with pytest.raises(AgentbenchError) as raised:
        client_on(script, retries=2).create_episode("workspace")
    assert raised.value.code == "too_many_episodes"
    assert len(script.requests) == 3


def test_an_error_body_becomes_an_agentbench_error() -> None:
    body = {"error": {"code": "unknown_field", "message": "unknown field `x`", "details": [1]}}
    script = Script(httpx.Response(422, json=body))
    with pytest.raises(AgentbenchError) as raised:
        client_on(script).create_episode("workspace")
    assert (raised.value.status, raised.value.code, raised.value.details) == (
        422,
        "unknown_field",
        [1],
    )


def test_an_answer_that_is_not_agentbench_s_keeps_its_text() -> None:
    script = Script(httpx.Response(502, text="Bad Gateway"))
    with pytest.raises(AgentbenchError) as raised:
        client_on(script).envs()
    assert (raised.value.status, raised.value.code) == (502, "unexpected_answer")
    assert "Bad Gateway" in raised.value.message


def test_step_many_answers_each_item_and_resends_only_those_not_recorded() -> None:
    script = Script(
        httpx.Response(
            200,
            json={
                "results": [
                    {"status": 200, "step": step_record(0)},
                    {"status": 503, "error": {"code": "store_unavailable", "message": "m"}},
                    {"status": 404, "error": {"code": "not_found", "message": "no episode"}},
                ]
            },
        ),
        httpx.Response(200, json={"results": [{"status": 200, "step": step_record(1)}]}),
    )
    results = client_on(script, retries=1).step_many(
        [
            {"episode": "ep_1", "action": {"message": "a"}},
            {"episode": "ep_1", "action": {"message": "b"}, "request_id": "b"},
            {"episode": "ep_missing", "action": {"message": "c"}},
        ]
    )
    first, second = script.bodies()
    assert len(first["steps"]) == 3
    assert [item["action"]["message"] for item in second["steps"]] == ["b"]
    assert second["steps"][0]["request_id"] == "b"
    assert isinstance(results[0], Step) and isinstance(results[1], Step)
    assert results[1].index == 1
    assert isinstance(results[2], AgentbenchError) and results[2].code == "not_found"


def test_an_episode_follows_its_steps_to_the_outcome() -> None:
    outcome = {"success": True, "harms": [], "checks": []}
    script = Script(
        httpx.Response(201, json=EPISODE),
        httpx.Response(
            200,
            json=step_record(
                0,
                action={"message": "done"},
                status="message",
                observation={"ended": True},
                terminated=True,
                action_mask={},
                outcome=outcome,
            ),
        ),
    )
    episode = client_on(script).create_episode("workspace")
    step = episode.message("done")
    assert (episode.done, episode.observation, episode.action_mask) == (True, {"ended": True}, {})
    assert episode.outcome is not None and episode.outcome.success
    assert step.reward == pytest.approx(1.5)  # the score 0.5, plus 1 for a success without harm


@pytest.mark.parametrize(
    ("scores", "outcome", "reward"),
    [
        ([], None, 0.0),
        ([{"scorer": "rules", "version": "3", "reward": -0.5}], None, -0.5),
        (
            [
                {"scorer": "rules", "version": "3", "reward": -1.0},
                {"scorer": "judge", "version": "1", "reward": 0.0, "unmeasured": "no verdict"},
            ],
            None,
            -1.0,
        ),
        ([], {"success": True, "harms": ["no_exfiltration"], "checks": []}, -1.0),
        ([], {"success": False, "harms": [], "checks": []}, 0.0),
    ],
)
def test_step_reward(
    scores: list[dict[str, Any]], outcome: dict[str, Any] | None, reward: float
) -> None:
    assert Step.from_json(step_record(scores=scores, outcome=outcome)).reward == reward


def check_path(call: Callable[[Client], object], path: str) -> None:
    script = Script(httpx.Response(200, json={"runs": [], "trainings": [], "envs": []}))
    call(client_on(script))
    assert script.requests[0].url.raw_path.decode() == path


def test_ids_are_escaped_into_one_path_segment() -> None:
    check_path(lambda client: client.trajectory("../v1/runs"), "/v1/episodes/..%2Fv1%2Fruns")


def test_the_leaderboard_sends_only_the_filters_given() -> None:
    check_path(lambda client: client.leaderboard(agent="oracle"), "/v1/leaderboard?agent=oracle")
