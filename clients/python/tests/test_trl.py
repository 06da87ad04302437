"""Tool methods made from JSON Schemas: the signature and docstring TRL reads (through
`transformers.utils.get_json_schema`) and the arguments they send."""

from __future__ import annotations

import inspect
from typing import Any, Literal

import pytest

from agentbench_client.records import Action
from agentbench_client.trl import tool_method

SHARE_FILE = {
    "name": "share_file",
    "description": "Share a file with someone.",
    "parameters": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "The file's\n   path."},
            "with": {"type": "string", "description": "The address to share it with."},
            "permission": {"type": "string", "enum": ["read", "edit"]},
            "notify": {"type": "boolean"},
            "note": {"type": ["string", "null"], "default": None},
            "cc": {"type": "array", "items": {"type": "string"}, "default": []},
        },
        "required": ["path", "with", "permission"],
    },
}


class Recorder:
    """Stands in for an environment: keeps the actions its tool methods send."""

    def __init__(self) -> None:
        self.actions: list[Action] = []

    def _act(self, action: Action) -> str:
        self.actions.append(action)
        return "{}"


def sent(**arguments: Any) -> Any:
    recorder = Recorder()
    tool_method(SHARE_FILE)(recorder, **arguments)
    return recorder.actions[0]


def test_the_signature_has_a_keyword_parameter_per_property() -> None:
    signature = inspect.signature(tool_method(SHARE_FILE))
    parameters = signature.parameters
    assert list(parameters) == ["self", "path", "with_", "permission", "notify", "note", "cc"]
    assert [name for name, p in parameters.items() if p.default is p.empty] == [
        "self",
        "path",
        "with_",
        "permission",
    ]
    hints = tool_method(SHARE_FILE).__annotations__
    assert hints["permission"] == Literal["read", "edit"]
    assert hints["notify"] == bool | None
    assert hints["note"] == str | None
    assert hints["cc"] == list[str]
    assert hints["return"] is str


def test_the_docstring_describes_every_parameter_on_one_line() -> None:
    doc = inspect.getdoc(tool_method(SHARE_FILE)) or ""
    assert doc.startswith("Share a file with someone.\n\nArgs:\n")
    assert "    path: The file's path.\n" in doc
    assert "    with_: The address to share it with.\n" in doc
    assert "    notify: notify\n" in doc  # no description: its name


def test_arguments_go_out_under_their_wire_names() -> None:
    action = sent(path="/a", with_="b@example.com", permission="read")
    assert action == {
        "tool": "share_file",
        "arguments": {"path": "/a", "with": "b@example.com", "permission": "read"},
    }


def test_none_leaves_out_an_optional_argument_unless_it_may_be_null() -> None:
    arguments = sent(path="/a", with_="b", permission="read", notify=None, note=None)["arguments"]
    assert "notify" not in arguments
    assert arguments["note"] is None


def test_unknown_and_missing_arguments_reach_the_server_which_records_them() -> None:
    assert sent(colour="red")["arguments"] == {"colour": "red"}


@pytest.mark.parametrize("name", ["reset", "final_message", "_hidden", "not-a-name", "class"])
def test_a_tool_whose_name_cannot_be_a_method_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match=f"the tool `{name}` cannot be a method"):
        tool_method({"name": name, "parameters": {}})
