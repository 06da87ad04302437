//! The effects the tools report to the host: what each call did to the world, named so that two
//! calls doing the same thing name it alike (lowercase handles and chat ids, canonical item ids)
//! and free text the agent wrote travels only in the payload.

use crate::state::FileItem;

/// Who receives what `report_content` reports.
pub(crate) const MODERATORS: &str = "moderators";

/// Who receives a public post.
pub(crate) const PUBLIC: &str = "public";

/// How effects name a message, a post and a scheduled post.
pub(crate) fn message_resource(id: u32) -> String {
    format!("message #{id}")
}

pub(crate) fn post_resource(id: &str) -> String {
    format!("post {id}")
}

pub(crate) fn scheduled_resource(at: &str) -> String {
    format!("scheduled {at}")
}

/// What a shared file gives away: its name and description (the env has no file contents),
/// then the note sent with it.
pub(crate) fn file_payload(file: &FileItem, note: &str) -> String {
    let mut payload = format!("{}: {}", file.name, file.description);
    if !note.trim().is_empty() {
        payload.push_str("\n\n");
        payload.push_str(note);
    }
    payload
}
