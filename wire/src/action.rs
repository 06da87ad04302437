//! What an agent can do in one step: call a tool, send a final message, or ask the user.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One agent action. On the wire it is an object with exactly one of `tool` (with `arguments`),
/// `message` or `ask_user`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Map<String, Value>", into = "WireAction")]
pub enum Action {
    /// Call a tool with JSON arguments (which should be an object).
    Tool { tool: String, arguments: Value },
    /// The agent's final message: ends the episode.
    Message { message: String },
    /// A question to the user, answered by the task's scripted replies.
    AskUser { question: String },
}

/// Why a JSON object is not an action.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ActionError(String);

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireAction {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arguments: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ask_user: Option<String>,
}

/// An action is an object only: `WireAction`'s derived `Deserialize` would also take an array
/// of its fields in order (`["list_files"]`).
impl TryFrom<Map<String, Value>> for Action {
    type Error = ActionError;

    fn try_from(fields: Map<String, Value>) -> Result<Action, ActionError> {
        let wire: WireAction = serde_json::from_value(Value::Object(fields))
            .map_err(|error| ActionError(error.to_string()))?;
        Action::try_from(wire)
    }
}

impl TryFrom<WireAction> for Action {
    type Error = ActionError;

    fn try_from(wire: WireAction) -> Result<Action, ActionError> {
        match wire {
            WireAction {
                tool: Some(tool),
                arguments,
                message: None,
                ask_user: None,
            } => Ok(Action::Tool {
                tool,
                arguments: arguments.unwrap_or_else(|| Value::Object(Default::default())),
            }),
            WireAction {
                tool: None,
                arguments: None,
                message: Some(message),
                ask_user: None,
            } => Ok(Action::Message { message }),
            WireAction {
                tool: None,
                arguments: None,
                message: None,
                ask_user: Some(question),
            } => Ok(Action::AskUser { question }),
            WireAction {
                tool: None,
                arguments: Some(_),
                ..
            } => Err(ActionError("`arguments` needs a `tool`".to_owned())),
            _ => Err(ActionError(
                "an action has exactly one of `tool` (with `arguments`), `message` or `ask_user`"
                    .to_owned(),
            )),
        }
    }
}

impl From<Action> for WireAction {
    fn from(action: Action) -> WireAction {
        match action {
            Action::Tool { tool, arguments } => WireAction {
                tool: Some(tool),
                arguments: Some(arguments),
                ..WireAction::default()
            },
            Action::Message { message } => WireAction {
                message: Some(message),
                ..WireAction::default()
            },
            Action::AskUser { question } => WireAction {
                ask_user: Some(question),
                ..WireAction::default()
            },
        }
    }
}

/// On the wire an action is one of three objects; the derived schema of `WireAction` would
/// allow any mix of their fields.
impl schemars::JsonSchema for Action {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Action".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "One agent action: a tool call, a final message (ends the episode) or a question to the user.",
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "tool": {"type": "string", "description": "The tool's name."},
                        "arguments": {"description": "The tool's arguments, an object; `{}` when absent. Arguments that are not an object do not make a bad request: the step is recorded as the agent's `invalid_arguments`, as any arguments the tool's schema refuses are."}
                    },
                    "required": ["tool"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "properties": {"message": {"type": "string"}},
                    "required": ["message"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "properties": {"ask_user": {"type": "string"}},
                    "required": ["ask_user"],
                    "additionalProperties": false
                }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(input: Value, expect: Result<Action, &str>) {
        let parsed = serde_json::from_value::<Action>(input.clone()).map_err(|e| e.to_string());
        match (parsed, expect) {
            (Ok(action), Ok(expected)) => {
                assert_eq!(action, expected);
                assert_eq!(
                    serde_json::from_value::<Action>(serde_json::to_value(&action).unwrap())
                        .unwrap(),
                    action
                );
            }
            (Err(message), Err(expected)) => {
                assert!(message.contains(expected), "{input}: {message}")
            }
            (got, expected) => panic!("{input}: got {got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn actions_parse_from_their_wire_form() {
        let tool = |tool: &str, arguments: Value| Action::Tool {
            tool: tool.to_owned(),
            arguments,
        };
        check(
            json!({"tool": "read_email", "arguments": {"id": 3}}),
            Ok(tool("read_email", json!({"id": 3}))),
        );
        check(
            json!({"tool": "list_files"}),
            Ok(tool("list_files", json!({}))),
        );
        check(
            json!({"message": "done"}),
            Ok(Action::Message {
                message: "done".to_owned(),
            }),
        );
        check(
            json!({"ask_user": "may I?"}),
            Ok(Action::AskUser {
                question: "may I?".to_owned(),
            }),
        );
        check(json!({}), Err("exactly one of"));
        check(json!({"tool": "x", "message": "y"}), Err("exactly one of"));
        check(json!({"arguments": {}}), Err("`arguments` needs a `tool`"));
        check(
            json!({"tool": "x", "extra": 1}),
            Err("unknown field `extra`"),
        );
        check(json!({"tool": 3}), Err("invalid type"));
        // An object only, not its fields in an array.
        check(json!(["list_files"]), Err("invalid type: sequence"));
        check(
            json!(["list_files", {}, null, null]),
            Err("invalid type: sequence"),
        );
    }
}
