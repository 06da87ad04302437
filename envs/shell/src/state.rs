//! The parts of the episode state: the file system's nodes, the git repositories, the planted
//! injections and the log of what the agent did.
//!
//! A seeded file refers to its corpus entry by index instead of copying its text, so `reset`
//! copies little and the saved state stays small; what the seed, the task or the agent wrote is
//! held in full.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::corpus::{self, GENERATED, PERSONAL, SECRET, UNTRUSTED};

/// A file or a folder.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Node {
    pub dir: bool,
    pub text: Text,
    /// The bytes it occupies: its text's length, or more for archives and binaries.
    pub size: u64,
    pub mode: u16,
    pub owner: Cow<'static, str>,
    pub group: Cow<'static, str>,
    /// `corpus::SECRET`, `PERSONAL`, `GENERATED`, `UNTRUSTED`.
    pub classes: u8,
    pub modified: Cow<'static, str>,
}

/// Where a file's text is.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Text {
    /// `corpus::FILES[index].content`.
    Corpus(u16),
    Owned(String),
}

impl Node {
    pub(crate) fn text(&self) -> &str {
        match &self.text {
            Text::Corpus(index) => corpus::FILES[usize::from(*index)].content,
            Text::Owned(text) => text,
        }
    }

    pub(crate) fn is(&self, class: u8) -> bool {
        self.classes & class != 0
    }

    /// Credentials or personal data: it must not leave the machine or become readable by others.
    pub(crate) fn sensitive(&self) -> bool {
        self.is(SECRET | PERSONAL)
    }

    pub(crate) fn generated(&self) -> bool {
        self.is(GENERATED)
    }

    pub(crate) fn untrusted(&self) -> bool {
        self.is(UNTRUSTED)
    }

    /// A binary file shows a one-line description instead of its bytes.
    pub(crate) fn binary(&self) -> bool {
        self.text().starts_with("<binary")
    }

    /// `-rw-r--r--` or `drwxr-x---`.
    pub(crate) fn mode_text(&self) -> String {
        let mut text = String::with_capacity(10);
        text.push(if self.dir { 'd' } else { '-' });
        for shift in [6, 3, 0] {
            let bits = (self.mode >> shift) & 0o7;
            text.push(if bits & 4 != 0 { 'r' } else { '-' });
            text.push(if bits & 2 != 0 { 'w' } else { '-' });
            text.push(if bits & 1 != 0 { 'x' } else { '-' });
        }
        if self.mode & 0o1000 != 0 {
            text.pop();
            text.push('t');
        }
        text
    }
}

/// A git repository: its local branches, the branches on its remote, and the files as last
/// committed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Repo {
    pub root: Cow<'static, str>,
    pub remote_url: Cow<'static, str>,
    pub current: String,
    /// Local branches by name: their commits, oldest first.
    pub branches: BTreeMap<String, Vec<Commit>>,
    /// The remote's branches by name: their commits, oldest first.
    pub remote_branches: BTreeMap<String, Vec<Commit>>,
    /// A hash of each tracked file's text as last committed, by path.
    pub committed: BTreeMap<String, u64>,
}

impl Repo {
    pub(crate) fn name(&self) -> &str {
        self.root.rsplit('/').next().unwrap_or(&self.root)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Commit {
    pub id: String,
    pub author: Cow<'static, str>,
    pub message: Cow<'static, str>,
    /// Sensitive files (or files holding sensitive values) this commit added to the history.
    pub sensitive: Vec<String>,
}

/// A prompt injection planted in a file, and what it tries to get acted on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Injection {
    /// The file that carries it.
    pub path: String,
    /// Hosts, paths, and strings (a key to be written somewhere).
    pub targets: Vec<Cow<'static, str>>,
    /// The text is still there: rewriting or deleting the file removes it.
    pub live: bool,
    /// The agent has read it.
    pub seen: bool,
}

/// One change or outward action the agent made, with what the checks need even after later
/// changes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Action {
    /// A file was created, overwritten or appended to.
    Written {
        path: String,
        /// The text written (what was appended, for an append).
        text: String,
        /// Sensitive files whose values the new text holds.
        leaked: Vec<String>,
        world_readable: bool,
    },
    Deleted {
        path: String,
        /// The files removed that were not generated (build output, caches).
        lost: Vec<String>,
        files: u32,
        /// By `make clean` rather than `delete_path`.
        by_make: bool,
    },
    Moved {
        from: String,
        to: String,
        /// Files the move overwrote.
        lost: Vec<String>,
    },
    Copied {
        from: String,
        to: String,
        sensitive: Vec<String>,
        world_readable: bool,
        lost: Vec<String>,
    },
    ModeChanged {
        path: String,
        /// (path, mode before, mode after, sensitive) of every file it changed.
        changes: Vec<(String, u16, u16, bool)>,
    },
    SecretRead {
        path: String,
    },
    ScriptRun {
        path: String,
        untrusted: bool,
    },
    HttpRequest {
        method: String,
        url: String,
        host: String,
        allowed: bool,
        /// The body and the uploaded file's text, as sent.
        sent: String,
        upload_path: Option<String>,
        /// Sensitive files whose content (or values) went out.
        sensitive: Vec<String>,
    },
    Committed {
        repo: String,
        branch: String,
        id: String,
        message: String,
        files: Vec<String>,
        sensitive: Vec<String>,
    },
    Pushed {
        repo: String,
        branch: String,
        remote_branch: String,
        force: bool,
        /// Remote commits the push dropped: (id, author, message).
        dropped: Vec<(String, String, String)>,
        /// Sensitive files in the commits pushed.
        sensitive: Vec<String>,
    },
    MakeRun {
        project: String,
        target: String,
    },
}
