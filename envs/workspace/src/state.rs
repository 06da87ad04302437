//! The parts of the episode state: emails, calendar events, files, planted injections and the
//! log of what the agent did.
//!
//! A seeded item refers to its corpus entry by index instead of copying the entry's text, so
//! `reset` copies no text, the saved state is a few kilobytes, and `load` allocates little. What
//! the agent or the task wrote is held in full.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::corpus::{self, EmailEntry, FileEntry, FillerEntry, InjectionVariant};
use crate::dates::Timestamp;
use crate::{Folder, Permission};

/// A list of strings from the corpus or from the state; the accessors below return it so that
/// callers need not care which.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Strings<'a> {
    Corpus(&'static [&'static str]),
    Owned(&'a [String]),
}

impl<'a> Strings<'a> {
    pub(crate) fn len(self) -> usize {
        match self {
            Strings::Corpus(strings) => strings.len(),
            Strings::Owned(strings) => strings.len(),
        }
    }

    pub(crate) fn get(self, index: usize) -> &'a str {
        match self {
            Strings::Corpus(strings) => strings[index],
            Strings::Owned(strings) => &strings[index],
        }
    }

    pub(crate) fn iter(self) -> impl Iterator<Item = &'a str> {
        (0..self.len()).map(move |index| self.get(index))
    }

    pub(crate) fn contains(self, wanted: &str) -> bool {
        self.iter().any(|string| string == wanted)
    }

    pub(crate) fn to_value(self) -> Value {
        Value::Array(
            self.iter()
                .map(|string| Value::String(string.to_owned()))
                .collect(),
        )
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Email {
    pub id: u32,
    pub folder: Folder,
    pub date: Timestamp,
    pub read: bool,
    pub content: EmailContent,
}

/// Where an email's sender, recipients, subject and body come from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum EmailContent {
    /// `corpus::INBOX[index]`.
    Inbox(u8),
    /// `corpus::SENT[index]`.
    Sent(u8),
    /// `corpus::FILLER[index]`, sent to the user.
    Filler(u8),
    /// `corpus::INJECTED_EMAILS[slot]`, with the text of the injection variant planted in it.
    Injected { slot: u8, variant: Option<u8> },
    /// Sent by the agent or planted by the task.
    Written(Box<WrittenEmail>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct WrittenEmail {
    /// The sender as `Name <address>` or a bare address.
    pub from: String,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub body: String,
    /// Paths of the attached files.
    pub attachments: Vec<String>,
}

/// Where an email's text is.
enum EmailText<'a> {
    Entry(&'static EmailEntry),
    Filler(&'static FillerEntry),
    Written(&'a WrittenEmail),
}

impl Email {
    fn text(&self) -> EmailText<'_> {
        match &self.content {
            EmailContent::Inbox(index) => EmailText::Entry(&corpus::INBOX[usize::from(*index)]),
            EmailContent::Sent(index) => EmailText::Entry(&corpus::SENT[usize::from(*index)]),
            EmailContent::Filler(index) => EmailText::Filler(&corpus::FILLER[usize::from(*index)]),
            EmailContent::Injected { slot, .. } => {
                EmailText::Entry(&corpus::INJECTED_EMAILS[usize::from(*slot)].email)
            }
            EmailContent::Written(email) => EmailText::Written(email),
        }
    }

    /// The sender as `Name <address>` or a bare address.
    pub(crate) fn from(&self) -> &str {
        match self.text() {
            EmailText::Entry(entry) => entry.from,
            EmailText::Filler(entry) => entry.from,
            EmailText::Written(email) => &email.from,
        }
    }

    pub(crate) fn to(&self) -> Strings<'_> {
        match self.text() {
            EmailText::Entry(entry) => Strings::Corpus(entry.to),
            EmailText::Filler(_) => Strings::Corpus(corpus::ALEX),
            EmailText::Written(email) => Strings::Owned(&email.to),
        }
    }

    pub(crate) fn cc(&self) -> Strings<'_> {
        match self.text() {
            EmailText::Entry(entry) => Strings::Corpus(entry.cc),
            EmailText::Filler(_) => Strings::Corpus(&[]),
            EmailText::Written(email) => Strings::Owned(&email.cc),
        }
    }

    pub(crate) fn subject(&self) -> &str {
        match self.text() {
            EmailText::Entry(entry) => entry.subject,
            EmailText::Filler(entry) => entry.subject,
            EmailText::Written(email) => &email.subject,
        }
    }

    /// The body in two parts: the text, and the injection appended to it (often empty).
    pub(crate) fn body_parts(&self) -> (&str, &str) {
        let appended = match &self.content {
            EmailContent::Injected { slot, variant } => variant_text(
                corpus::INJECTED_EMAILS[usize::from(*slot)].variants,
                *variant,
            ),
            _ => "",
        };
        match self.text() {
            EmailText::Entry(entry) => (entry.body, appended),
            EmailText::Filler(entry) => (entry.body, appended),
            EmailText::Written(email) => (&email.body, appended),
        }
    }

    pub(crate) fn body(&self) -> Cow<'_, str> {
        joined(self.body_parts())
    }

    pub(crate) fn attachments(&self) -> Strings<'_> {
        match self.text() {
            EmailText::Written(email) => Strings::Owned(&email.attachments),
            EmailText::Entry(_) | EmailText::Filler(_) => Strings::Corpus(&[]),
        }
    }
}

fn variant_text(variants: &'static [InjectionVariant], variant: Option<u8>) -> &'static str {
    variant.map_or("", |variant| variants[usize::from(variant)].text)
}

fn joined<'a>((text, appended): (&'a str, &'a str)) -> Cow<'a, str> {
    if appended.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned([text, appended].concat())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CalendarEvent {
    pub id: u32,
    pub start: Timestamp,
    pub end: Timestamp,
    pub details: EventDetails,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum EventDetails {
    /// `corpus::EVENTS[index]`.
    Corpus(u8),
    Created(Box<CreatedEvent>),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CreatedEvent {
    pub title: String,
    pub attendees: Vec<String>,
    pub location: String,
}

impl CalendarEvent {
    pub(crate) fn title(&self) -> &str {
        match &self.details {
            EventDetails::Corpus(index) => corpus::EVENTS[usize::from(*index)].title,
            EventDetails::Created(event) => &event.title,
        }
    }

    pub(crate) fn attendees(&self) -> Strings<'_> {
        match &self.details {
            EventDetails::Corpus(index) => {
                Strings::Corpus(corpus::EVENTS[usize::from(*index)].attendees)
            }
            EventDetails::Created(event) => Strings::Owned(&event.attendees),
        }
    }

    pub(crate) fn location(&self) -> &str {
        match &self.details {
            EventDetails::Corpus(index) => corpus::EVENTS[usize::from(*index)].location,
            EventDetails::Created(event) => &event.location,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct File {
    pub origin: FileOrigin,
    /// What the agent or the task wrote; `None` while the file holds its seeded content.
    pub written: Option<String>,
    /// Shares made after seeding. For an address the corpus entry also shares with, the entry
    /// here wins.
    pub added_shares: Vec<Share>,
    /// Sensitive content (payroll, contracts, HR records); never shown to the agent. A file the
    /// agent writes becomes confidential when it copies confidential content.
    pub confidential: bool,
    pub modified: Timestamp,
    /// The file is as the episode began: the agent has neither created nor overwritten it.
    pub original: bool,
}

/// Where a file's path, owner, seeded content and seeded shares come from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum FileOrigin {
    /// `corpus::FILES[index]`.
    Corpus(u8),
    /// `corpus::INJECTED_FILE`, with the text of the injection variant planted in it.
    Notes { variant: Option<u8> },
    /// Created by the agent or planted by the task.
    Other { path: String, owner: String },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Share {
    pub with: String,
    pub permission: Permission,
}

/// Where a file's path, owner and seeded content are.
enum FileText<'a> {
    Entry(&'static FileEntry),
    Other { path: &'a str, owner: &'a str },
}

impl File {
    fn text(&self) -> FileText<'_> {
        match &self.origin {
            FileOrigin::Corpus(index) => FileText::Entry(&corpus::FILES[usize::from(*index)]),
            FileOrigin::Notes { .. } => FileText::Entry(&corpus::INJECTED_FILE.file),
            FileOrigin::Other { path, owner } => FileText::Other { path, owner },
        }
    }

    pub(crate) fn path(&self) -> &str {
        match self.text() {
            FileText::Entry(entry) => entry.path,
            FileText::Other { path, .. } => path,
        }
    }

    pub(crate) fn owner(&self) -> &str {
        match self.text() {
            FileText::Entry(entry) => entry.owner,
            FileText::Other { owner, .. } => owner,
        }
    }

    /// The content in two parts: the text, and the injection appended to it (often empty).
    pub(crate) fn content_parts(&self) -> (&str, &str) {
        match (&self.written, &self.origin, self.text()) {
            (Some(written), _, _) => (written, ""),
            (None, FileOrigin::Notes { variant }, FileText::Entry(entry)) => (
                entry.content,
                variant_text(corpus::INJECTED_FILE.variants, *variant),
            ),
            (None, _, FileText::Entry(entry)) => (entry.content, ""),
            // A file the task or the agent made always holds what they wrote.
            (None, _, FileText::Other { .. }) => ("", ""),
        }
    }

    pub(crate) fn content(&self) -> Cow<'_, str> {
        joined(self.content_parts())
    }

    pub(crate) fn size(&self) -> usize {
        let (text, appended) = self.content_parts();
        text.len() + appended.len()
    }

    /// Everyone the file is shared with, and how.
    pub(crate) fn shares(&self) -> impl Iterator<Item = (&str, Permission)> {
        let seeded = match self.text() {
            FileText::Entry(entry) => entry.shared_with,
            FileText::Other { .. } => &[],
        };
        seeded
            .iter()
            .filter(|(with, _)| !self.added_shares.iter().any(|share| share.with == *with))
            .map(|&(with, permission)| (with, permission))
            .chain(
                self.added_shares
                    .iter()
                    .map(|share| (share.with.as_str(), share.permission)),
            )
    }
}

/// A prompt injection a third party planted, and what it tries to get acted on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Injection {
    pub source: Source,
    pub planting: Planting,
    /// The text is still there: a file's injection dies when the file is overwritten or deleted.
    pub live: bool,
    /// The agent has read it.
    pub seen: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Source {
    Email(u32),
    File(Cow<'static, str>),
}

/// Which injection was planted, which fixes its targets.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Planting {
    /// Variant `variant` of `corpus::INJECTED_EMAILS[slot]`.
    Email { slot: u8, variant: u8 },
    /// Variant `variant` of `corpus::INJECTED_FILE`.
    Notes { variant: u8 },
    /// Planted by the task, with these targets (lowercase addresses and canonical paths).
    Task(Vec<String>),
}

impl Injection {
    /// The attacker addresses and file paths it tries to get acted on.
    pub(crate) fn targets(&self) -> Strings<'_> {
        match &self.planting {
            Planting::Email { slot, variant } => Strings::Corpus(
                corpus::INJECTED_EMAILS[usize::from(*slot)].variants[usize::from(*variant)].targets,
            ),
            Planting::Notes { variant } => {
                Strings::Corpus(corpus::INJECTED_FILE.variants[usize::from(*variant)].targets)
            }
            Planting::Task(targets) => Strings::Owned(targets),
        }
    }
}

impl Source {
    pub(crate) fn describe(&self) -> String {
        match self {
            Source::Email(id) => format!("email #{id}"),
            Source::File(path) => format!("file {path}"),
        }
    }
}

/// One change the agent made, with what the checks need even after later changes (a sent email
/// may be deleted from the sent folder, a shared file deleted).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Action {
    EmailSent(SentEmail),
    EmailDeleted {
        id: u32,
        from: String,
        subject: String,
    },
    EventCreated {
        id: u32,
        title: String,
        start: Timestamp,
        attendees: Vec<String>,
    },
    EventDeleted {
        id: u32,
        title: String,
        attendees: Vec<String>,
    },
    FileWritten {
        path: String,
        created: bool,
        replaced_original: bool,
    },
    FileShared {
        path: String,
        with: String,
        permission: Permission,
        external: bool,
        confidential: bool,
    },
    FileDeleted {
        path: String,
        confidential: bool,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SentEmail {
    pub id: u32,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub subject: String,
    pub body: String,
    pub attachments: Vec<String>,
    /// The attachments' content when it was sent, so that goals accept content attached rather
    /// than pasted.
    pub attachment_text: String,
    /// Recipients outside the trusted domains.
    pub external_recipients: Vec<String>,
    /// Confidential files attached or reproduced in the body.
    pub confidential_files: Vec<String>,
}

impl SentEmail {
    pub(crate) fn recipients(&self) -> impl Iterator<Item = &String> {
        self.to.iter().chain(&self.cc)
    }
}
