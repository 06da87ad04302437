//! What each tool call acts on, for the messaging env's Cedar policies: the entities declared
//! in `policy/messaging.cedarschema`, with their attributes read from the current state.

use agentbench_env_sdk::prelude::*;

use crate::Messaging;
use crate::corpus::{USER_ADDRESS, USER_HANDLE, USER_PHONE};
use crate::state::ChatKind;
use crate::task::handle;
use crate::text::{reveals_address, reveals_phone};

impl Messaging {
    /// The entities a call to `tool` would act on; none for reads and for arguments too
    /// malformed to name anything (the call then fails validation anyway).
    pub(crate) fn call_resources(&self, tool: &str, arguments: &Value) -> Vec<Resource> {
        let text = |key: &str| arguments.get(key).and_then(Value::as_str).unwrap_or("");
        let file = |key: &str| {
            arguments
                .get(key)
                .and_then(Value::as_str)
                .and_then(|id| self.file(id.trim()))
        };
        match tool {
            "send_message" => vec![self.person_recipient(&handle(text("to")), text("text"), false)],
            "post_in_group" => self
                .group_recipient(&text("group_id").trim().to_lowercase(), text("text"), false)
                .into_iter()
                .collect(),
            "share_file" => {
                let shared = file("file_id");
                let private = shared.is_some_and(|file| file.private);
                let to = handle(text("to"));
                let recipient = if to.starts_with("grp-") {
                    self.group_recipient(&to, text("note"), private)
                } else {
                    Some(self.person_recipient(&to, text("note"), private))
                };
                shared
                    .map(|shared| self.file_resource(&shared.id))
                    .into_iter()
                    .chain(recipient)
                    .collect()
            }
            "post_public" | "schedule_post" => {
                let attached = if tool == "post_public" {
                    file("file_id")
                } else {
                    None
                };
                let private = attached.is_some_and(|file| file.private);
                let public = recipient(
                    "public",
                    "public",
                    false,
                    i64::from(self.followers),
                    self.carries_contact_details(text("text"), None),
                    private,
                );
                attached
                    .map(|attached| self.file_resource(&attached.id))
                    .into_iter()
                    .chain([public])
                    .collect()
            }
            "delete_message" => arguments
                .get("message_id")
                .and_then(Value::as_u64)
                .and_then(|id| self.messages.iter().find(|m| u64::from(m.id) == id))
                .map(|message| {
                    resource(
                        "Message",
                        message.id.to_string(),
                        json!({
                            "own": message.sender == USER_HANDLE,
                            "sender_known": self.is_contact(&message.sender),
                        }),
                    )
                })
                .into_iter()
                .collect(),
            "delete_post" => {
                let id = text("post_id").trim().to_uppercase();
                self.posts
                    .iter()
                    .find(|post| post.id == id)
                    .map(|post| {
                        resource(
                            "Post",
                            post.id.clone(),
                            json!({
                                "own": post.author == USER_HANDLE,
                                "scheduled": post.status == crate::state::PostStatus::Scheduled,
                            }),
                        )
                    })
                    .into_iter()
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    fn person_recipient(&self, to: &str, text: &str, private_file: bool) -> Resource {
        recipient(
            "person",
            to,
            self.is_contact(to),
            2,
            self.carries_contact_details(text, Some(to)),
            private_file,
        )
    }

    fn group_recipient(&self, id: &str, text: &str, private_file: bool) -> Option<Resource> {
        let chat = self.chat(id).filter(|chat| chat.kind == ChatKind::Group)?;
        Some(recipient(
            "group",
            id,
            true,
            i64::from(chat.member_count),
            self.carries_contact_details(text, None),
            private_file,
        ))
    }

    fn file_resource(&self, id: &str) -> Resource {
        let file = self.file(id);
        resource(
            "File",
            id.to_owned(),
            json!({
                "private": file.is_some_and(|file| file.private),
                "own": file.is_some_and(|file| file.owner == USER_HANDLE),
            }),
        )
    }

    /// Whether `text` holds someone's private phone number or address (the user's included),
    /// other than the recipient's own.
    pub(crate) fn carries_contact_details(&self, text: &str, recipient: Option<&str>) -> bool {
        if text.is_empty() {
            return false;
        }
        let user = reveals_phone(text, USER_PHONE) || reveals_address(text, USER_ADDRESS);
        user || self
            .people
            .iter()
            .filter(|person| !person.public_details && Some(person.handle.as_str()) != recipient)
            .any(|person| {
                reveals_phone(text, &person.phone) || reveals_address(text, &person.address)
            })
    }
}

fn recipient(
    kind: &str,
    id: &str,
    known: bool,
    members: i64,
    contact_details: bool,
    private_file: bool,
) -> Resource {
    resource(
        "Recipient",
        id.to_owned(),
        json!({
            "kind": kind,
            "known": known,
            "members": members,
            "carries_contact_details": contact_details,
            "carries_private_file": private_file,
        }),
    )
}

fn resource(kind: &str, id: String, attrs: Value) -> Resource {
    Resource {
        kind: kind.to_owned(),
        id,
        attrs: attrs.as_object().cloned().unwrap_or_default(),
    }
}
