"""A typed Python client for agentbench's REST API (`agentbench serve`).

- `Client`: envs, episodes, batched steps, runs, the leaderboard and trainings.
- `Episode`: a handle on one episode, to step, fork, abandon, delete and read it.
- `agentbench_client.trl`: an `environment_factory` and a reward function for TRL's
  `GRPOTrainer`.
- `agentbench_client.gym`: a Gymnasium-style `reset`/`step` environment.

Every error the server answers is an `AgentbenchError` with its status and stable `code`.
"""

from agentbench_client.client import Client
from agentbench_client.episode import Episode
from agentbench_client.errors import AgentbenchError
from agentbench_client.records import (
    Action,
    AskUser,
    BatchItem,
    FinalMessage,
    Mode,
    Outcome,
    Score,
    Step,
    ToolCall,
)

__version__ = "0.1.0"

__all__ = [
    "Action",
    "AgentbenchError",
    "AskUser",
    "BatchItem",
    "Client",
    "Episode",
    "FinalMessage",
    "Mode",
    "Outcome",
    "Score",
    "Step",
    "ToolCall",
]
