"""Drives agentbench's own WebSocket (`/v1/ws`) with a plain WebSocket client: two episodes at
once through one connection, operations pipelined, and the bad messages a client can send.
Prints every answer, by the id it was sent with, as JSON.

Usage: python socket_session.py WS_URL   (ws://HOST:PORT/v1/ws)
"""

import json
import sys

from websockets.sync.client import connect


def main(url):
    answers = {}
    with connect(url) as socket:
        def exchange(messages):
            for message in messages:
                socket.send(message if isinstance(message, str) else json.dumps(message))
            for _ in messages:
                answer = json.loads(socket.recv(timeout=30))
                answers[json.dumps(answer["id"])] = answer

        exchange([
            {"id": "create-a", "op": "createEpisode", "body": {"env": "workspace", "seed": 4}},
            {"id": "create-b", "op": "createEpisode", "body": {"env": "banking"}},
        ])
        a = answers['"create-a"']["body"]["id"]
        b = answers['"create-b"']["body"]["id"]
        read = {"tool": "read_file", "arguments": {"path": "/docs/offsite-agenda.md"}}
        # Pipelined: both episodes' steps in flight at once, each episode's in order.
        exchange([
            {"id": 1, "op": "step", "episode": a, "body": {"action": read, "request_id": "r1"}},
            {"id": 2, "op": "step", "episode": b, "body": {"action": {"ask_user": "which account?"}}},
            {"id": 3, "op": "step", "episode": a, "body": {"action": {"message": "done"}}},
            {"id": 4, "op": "stepBatch", "body": {"steps": [
                {"episode": b, "action": {"message": "done"}},
                {"episode": a, "action": read},
            ]}},
        ])
        exchange([
            {"id": 5, "op": "step", "episode": a, "body": {"action": read, "request_id": "r1"}},
            {"id": 6, "op": "getEpisode", "episode": a},
            {"id": 7, "op": "getEnv", "env": "workspace"},
            {"id": 8, "op": "step", "body": {"action": read}},
            {"id": 9, "op": "launchRockets"},
            {"id": 10, "op": "step", "episode": "ep_missing", "body": {"action": read}},
            {"id": 11, "op": "step", "episode": a, "body": {"action": read, "colour": 1}},
            "this is not JSON",
        ])
    print(json.dumps(answers))


if __name__ == "__main__":
    main(sys.argv[1])
