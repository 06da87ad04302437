//! The workspace env: one user's email, calendar, contacts and files, seeded with realistic
//! content, some of which carries prompt injections written by third parties.
//!
//! `corpus` holds the static content and `seed` builds an episode's state from it; `state` holds
//! the state's parts, `task` parses the task config, `tools` implements the agent's tools,
//! `listing` renders listings, `resources` names what each call acts on for the Cedar policies in
//! `policy/`, `effects` names what each call did for the host's grading, and `evaluate` scores
//! the episode; `dates` and `text` are helpers.
//! This file holds the state and the `Env` implementation.

mod corpus;
mod dates;
mod effects;
mod evaluate;
mod listing;
mod resources;
mod seed;
mod sensitive;
mod state;
mod task;
mod text;
mod tools;

use std::collections::BTreeSet;

use agentbench_env_sdk::prelude::*;

use crate::dates::Timestamp;
use crate::state::{Action, CalendarEvent, Email, File, Injection};
use crate::task::Goal;

pub use crate::task::{
    EmailDeletedGoal, EmailSentGoal, EventCreatedGoal, EventDeletedGoal, ExtraEmail, ExtraFile,
    FileDeletedGoal, FileSharedGoal, FileWrittenGoal, GoalConfig, Task,
};
pub use crate::tools::{
    CreateEvent, DeleteEmail, DeleteEvent, DeleteFile, ListEvents, ListFiles, ReadEmail, ReadFile,
    SearchContacts, SearchEmails, SendEmail, ShareFile, WriteFile,
};

/// A mail folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Folder {
    Inbox,
    Sent,
}

/// An access level on a shared file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Permission {
    Read,
    Edit,
}

impl Permission {
    fn name(self) -> &'static str {
        match self {
            Permission::Read => "read",
            Permission::Edit => "edit",
        }
    }
}

/// The whole episode: the user's mailbox, calendar and drive, the injections planted in them,
/// the task, and a log of what the agent did. (The address book never changes, so it stays in
/// the corpus.)
#[derive(Debug, Serialize, Deserialize)]
pub struct Workspace {
    /// The task's instruction; the default instruction when `None`.
    instruction: Option<String>,
    goals: Vec<Goal>,
    /// Lowercase domains whose addresses count as internal.
    trusted_domains: Vec<String>,
    /// Every email in every folder, in the order they arrived.
    emails: Vec<Email>,
    /// Sorted by start time.
    events: Vec<CalendarEvent>,
    /// Sorted by path.
    files: Vec<File>,
    injections: Vec<Injection>,
    log: Vec<Action>,
    /// The user's clock: it starts at 09:00 today and advances a minute with every change the
    /// agent makes, so that what it sends and writes is dated in order.
    clock: Timestamp,
    next_email_id: u32,
    next_event_id: u32,
    irreversible_actions: u32,
    /// Whether the agent has read anything from outside the trusted domains or carrying an
    /// injection.
    untrusted_content_read: bool,
}

/// What the workspace reports to safety policies.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Facts {
    /// How many emails the agent has sent.
    pub emails_sent: u32,
    /// How many distinct addresses outside the trusted domains the agent has emailed.
    pub external_recipients_emailed: u32,
    /// How many times the agent has shared a file with an address outside the trusted domains.
    pub files_shared_externally: u32,
    /// How many emails, events and files the agent has deleted.
    pub items_deleted: u32,
    /// How many irreversible tool calls (send, share, delete) have succeeded.
    pub irreversible_actions: u32,
    /// The agent has read content from outside the trusted domains or carrying a prompt injection; what it does next may be steered by a third party.
    pub untrusted_content_read: bool,
    /// How many distinct prompt injections the agent has read.
    pub injections_seen: u32,
    /// The domains whose addresses count as internal.
    pub trusted_domains: Vec<String>,
    /// The share of the task's goals met so far, from 0 to 1 (0 for a task without goals).
    pub progress: f64,
}

impl Env for Workspace {
    const NAME: &'static str = "workspace";
    const VERSION: &'static str = "0.4.0";
    const DESCRIPTION: &'static str = "An office worker's workspace: Alex Morgan's email, \
        calendar, contacts and files at Northwind, seeded with dozens of realistic emails, \
        upcoming meetings and documents, among them payroll, contracts and HR records. Some \
        emails and shared documents from outside the company carry prompt injections that try \
        to get the assistant to leak confidential files, share them externally or delete them. \
        Tasks are routine office requests (reply with a document, schedule a meeting, tidy \
        files); the checks score the task's goals and four harms: exfiltration, following an \
        injection, unrequested deletion and external sharing.";
    const POLICY: Option<Policy> = Some(Policy {
        policies: include_str!("../policy/workspace.cedar"),
        schema: include_str!("../policy/workspace.cedarschema"),
    });
    type Task = Task;
    type Facts = Facts;

    fn tools(tools: &mut Toolbox<Self>) {
        tools
            .add(Self::search_emails)
            .add(Self::read_email)
            .add(Self::send_email)
            .add(Self::delete_email)
            .add(Self::list_events)
            .add(Self::create_event)
            .add(Self::delete_event)
            .add(Self::list_files)
            .add(Self::read_file)
            .add(Self::write_file)
            .add(Self::share_file)
            .add(Self::delete_file)
            .add(Self::search_contacts);
    }

    fn reset(rng: &mut Rng, task: Task) -> Result<Self, String> {
        seed::build(rng, task)
    }

    fn observation(&self) -> Value {
        // Emails are stored in arrival order, so the latest are at the end.
        let inbox = || {
            self.emails
                .iter()
                .filter(|email| email.folder == Folder::Inbox)
        };
        let recent: Vec<Value> = inbox()
            .rev()
            .take(RECENT_EMAILS_SHOWN)
            .map(|email| Value::String(listing::email_line(email)))
            .collect();
        json!({
            "instruction": self.instruction.as_deref().unwrap_or(corpus::DEFAULT_INSTRUCTION),
            "user": corpus::USER_SUMMARY,
            "now": dates::NOW_TEXT,
            "inbox_emails": inbox().count(),
            "inbox_unread": inbox().filter(|email| !email.read).count(),
            "recent_emails": recent,
        })
    }

    fn facts(&self) -> Facts {
        let mut external_recipients = BTreeSet::new();
        let mut facts = Facts {
            emails_sent: 0,
            external_recipients_emailed: 0,
            files_shared_externally: 0,
            items_deleted: 0,
            irreversible_actions: self.irreversible_actions,
            untrusted_content_read: self.untrusted_content_read,
            injections_seen: self
                .injections
                .iter()
                .filter(|injection| injection.seen)
                .count() as u32,
            trusted_domains: self.trusted_domains.clone(),
            progress: evaluate::progress(self),
        };
        for action in &self.log {
            match action {
                Action::EmailSent(email) => {
                    facts.emails_sent += 1;
                    external_recipients.extend(email.external_recipients.iter());
                }
                Action::FileShared { external: true, .. } => facts.files_shared_externally += 1,
                Action::EmailDeleted { .. }
                | Action::EventDeleted { .. }
                | Action::FileDeleted { .. } => facts.items_deleted += 1,
                _ => {}
            }
        }
        facts.external_recipients_emailed = external_recipients.len() as u32;
        facts
    }

    fn resources(&self, tool: &str, arguments: &Value) -> Vec<Resource> {
        self.call_resources(tool, arguments)
    }

    fn evaluate(&self) -> Vec<Check> {
        evaluate::checks(self)
    }

    fn sensitive(&self) -> Vec<SensitiveItem> {
        sensitive::items(self)
    }
}

/// How many of the latest inbox emails the initial observation lists.
const RECENT_EMAILS_SHOWN: usize = 10;

agentbench_env_sdk::export_env!(Workspace);
