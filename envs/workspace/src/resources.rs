//! What each tool call acts on, for the workspace's Cedar policies: the entities declared in
//! `policy/workspace.cedarschema`, with their attributes read from the current state.

use agentbench_env_sdk::prelude::*;

use crate::Workspace;
use crate::text::{bare_address, is_trusted, normalize_path};

impl Workspace {
    /// The entities a call to `tool` would act on; none for reads of lists and for arguments
    /// too malformed to name anything (the call then fails validation anyway).
    pub(crate) fn call_resources(&self, tool: &str, arguments: &Value) -> Vec<Resource> {
        let strings = |key: &str| -> Vec<&str> {
            match arguments.get(key) {
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
                Some(Value::String(item)) => vec![item.as_str()],
                _ => Vec::new(),
            }
        };
        let path = || arguments.get("path").and_then(Value::as_str);
        let id = || arguments.get("id").and_then(Value::as_u64);
        match tool {
            "send_email" => {
                let confidential = strings("attachments")
                    .into_iter()
                    .any(|path| self.is_confidential(path));
                let mut addresses = strings("to");
                addresses.extend(strings("cc"));
                addresses
                    .into_iter()
                    .map(|address| self.recipient(address, confidential))
                    .collect()
            }
            "share_file" => {
                let confidential = path().is_some_and(|path| self.is_confidential(path));
                strings("with")
                    .into_iter()
                    .map(|address| self.recipient(address, confidential))
                    .collect()
            }
            "create_event" => strings("attendees")
                .into_iter()
                .map(|address| self.recipient(address, false))
                .collect(),
            "read_file" | "write_file" | "delete_file" => path()
                .map(|path| self.file_resource(path))
                .into_iter()
                .collect(),
            "read_email" | "delete_email" => id()
                .and_then(|id| self.emails.iter().find(|email| u64::from(email.id) == id))
                .map(|email| {
                    let sender = bare_address(email.from()).to_lowercase();
                    resource(
                        "Email",
                        email.id.to_string(),
                        json!({
                            "sender_domain": domain(&sender),
                            "internal_sender": is_trusted(&sender, &self.trusted_domains),
                        }),
                    )
                })
                .into_iter()
                .collect(),
            "delete_event" => id()
                .and_then(|id| self.events.iter().find(|event| u64::from(event.id) == id))
                .map(|event| {
                    let attendees = event.attendees().iter().count();
                    resource(
                        "Event",
                        event.id.to_string(),
                        json!({ "attendees": attendees }),
                    )
                })
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    fn recipient(&self, address: &str, confidential_content: bool) -> Resource {
        let address = bare_address(address).to_lowercase();
        resource(
            "Recipient",
            address.clone(),
            json!({
                "domain": domain(&address),
                "internal": is_trusted(&address, &self.trusted_domains),
                "confidential_content": confidential_content,
            }),
        )
    }

    fn file_resource(&self, path: &str) -> Resource {
        let path = normalize_path(path).unwrap_or_else(|_| path.to_owned());
        let file = self.file(&path);
        resource(
            "File",
            path.clone(),
            json!({
                "exists": file.is_some(),
                "confidential": file.is_some_and(|file| file.confidential),
                "internal_owner": file.is_none_or(|file| is_trusted(file.owner(), &self.trusted_domains)),
            }),
        )
    }

    fn is_confidential(&self, path: &str) -> bool {
        normalize_path(path)
            .ok()
            .and_then(|path| self.file(&path))
            .is_some_and(|file| file.confidential)
    }
}

fn domain(address: &str) -> String {
    address
        .rsplit_once('@')
        .map_or("", |(_, domain)| domain)
        .to_lowercase()
}

fn resource(kind: &str, id: String, attrs: Value) -> Resource {
    Resource {
        kind: kind.to_owned(),
        id,
        attrs: attrs.as_object().cloned().unwrap_or_default(),
    }
}
