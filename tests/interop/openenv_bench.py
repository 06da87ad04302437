"""Steps an OpenEnv WebSocket server as fast as it answers, the same load for any server: N
connections, each resetting once and then stepping one action at a time for a while; prints
steps/s as JSON. It speaks OpenEnv's wire protocol with raw frames (`websockets`), not its
client, so that the driver costs the same whatever the server.

Usage: python openenv_bench.py WS_URL ACTION_JSON [--reset JSON] [--connections 256] [--seconds 10]
  e.g. ws://127.0.0.1:8080/openenv/workspace/ws '{"type": "call_tool", "tool_name": "list_files", "arguments": {}}'
       ws://127.0.0.1:8000/ws '{"type": "call_tool", "tool_name": "echo_message", "arguments": {"message": "hi"}}'
"""

import argparse
import asyncio
import json
import time

from websockets.asyncio.client import connect


async def client(url, reset, step, deadline, counts):
    async with connect(url, max_size=None) as socket:
        await socket.send(reset)
        answer = json.loads(await socket.recv())
        assert answer["type"] == "observation", answer
        while time.monotonic() < deadline:
            await socket.send(step)
            answer = json.loads(await socket.recv())
            if answer["type"] != "observation":
                counts["errors"] += 1
                counts["first_error"] = counts.get("first_error") or answer
            else:
                counts["steps"] += 1
            if answer["type"] != "observation" or answer["data"].get("done"):
                await socket.send(reset)
                await socket.recv()
        await socket.send(json.dumps({"type": "close"}))


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("action")
    parser.add_argument("--reset", default="{}", help="the reset's data")
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    step = json.dumps({"type": "step", "data": json.loads(args.action)})
    reset = json.dumps({"type": "reset", "data": json.loads(args.reset)})
    counts = {"steps": 0, "errors": 0}
    started = time.monotonic()
    deadline = started + args.seconds
    await asyncio.gather(*(client(args.url, reset, step, deadline, counts)
                           for _ in range(args.connections)))
    seconds = time.monotonic() - started
    print(json.dumps({"url": args.url, "connections": args.connections, "seconds": seconds,
                      "steps": counts["steps"], "errors": counts["errors"],
                      "first_error": counts.get("first_error"),
                      "steps_per_second": counts["steps"] / seconds}))


if __name__ == "__main__":
    asyncio.run(main())
