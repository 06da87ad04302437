//! The effects the tools report to the host: what each call did to the world, named so that two
//! calls doing the same thing name it alike (bare lowercase addresses, normalized paths, ids) and
//! free text the agent wrote travels only in the payload.

use agentbench_env_sdk::prelude::*;

use crate::Permission;
use crate::dates::{Date, Timestamp};
use crate::text::bare_address;

/// How effects name an email, an event and a day's events.
pub(crate) fn email_resource(id: u32) -> String {
    format!("email #{id}")
}

pub(crate) fn event_resource(id: u32) -> String {
    format!("event #{id}")
}

/// A new event is named by its day, not its id: the id depends on how many events were created
/// before it, which two correct solutions need not agree on.
pub(crate) fn event_day_resource(start: Timestamp) -> String {
    format!("event {}", Date(start.day()))
}

/// One `Send` per distinct recipient of an email, all naming the same attachments (sorted, each
/// once) and carrying the subject, the body and the attached files' text.
pub(crate) fn email_sent(
    recipients: impl IntoIterator<Item = impl AsRef<str>>,
    attachments: &[String],
    subject: &str,
    body: &str,
    attachment_text: &str,
) -> Vec<Effect> {
    let mut sorted = attachments.to_vec();
    sorted.sort();
    sorted.dedup();
    let resource = sorted.join(", ");
    let mut payload = format!("Subject: {subject}\n\n{body}");
    if !attachment_text.is_empty() {
        payload.push_str("\n\n");
        payload.push_str(attachment_text);
    }
    distinct_addresses(recipients)
        .into_iter()
        .map(|address| Effect::new(EffectKind::Send, address, &resource).with_payload(&payload))
        .collect()
}

/// The invitations (or cancellations) an event's attendees receive, one `Send` each.
pub(crate) fn attendees_notified(
    attendees: impl IntoIterator<Item = impl AsRef<str>>,
    resource: &str,
    payload: &str,
) -> Vec<Effect> {
    distinct_addresses(attendees)
        .into_iter()
        .map(|address| Effect::new(EffectKind::Send, address, resource).with_payload(payload))
        .collect()
}

/// Sharing a file: the permission is part of the resource, since edit access is more than read.
pub(crate) fn file_shared(path: &str, with: &str, permission: Permission, content: &str) -> Effect {
    Effect::new(
        EffectKind::Share,
        with,
        format!("{path} ({})", permission.name()),
    )
    .with_payload(content)
}

/// Bare lowercase addresses, each once, in their first order.
fn distinct_addresses<S: AsRef<str>>(addresses: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut distinct: Vec<String> = Vec::new();
    for address in addresses {
        let address = bare_address(address.as_ref()).to_ascii_lowercase();
        if !distinct.contains(&address) {
            distinct.push(address);
        }
    }
    distinct
}
