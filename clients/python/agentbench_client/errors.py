"""The one error agentbench answers with: `{"error": {"code", "message", "details"}}` and its status."""

from __future__ import annotations

from typing import Any


class AgentbenchError(Exception):
    """An error answer from the server, or one failed item of a batch (`Client.step_many`).

    `code` is stable and machine-readable (`not_found`, `episode_over`, `too_many_episodes`,
    `unknown_field`, `store_unavailable`, ...); `message` is for people; `details` is whatever
    structured detail the server gave (often None). Connection failures are not answers and stay
    `httpx.TransportError`s.
    """

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details

    @classmethod
    def from_body(cls, status: int, body: Any) -> AgentbenchError:
        """Reads an error body; a body that is not agentbench's (a proxy's page) keeps its text."""
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            return cls(status, error["code"], str(error.get("message", "")), error.get("details"))
        return cls(status, "unexpected_answer", str(body)[:500])

    def __repr__(self) -> str:
        return (
            f"AgentbenchError(status={self.status!r}, code={self.code!r}, "
            f"message={self.message!r}, details={self.details!r})"
        )
