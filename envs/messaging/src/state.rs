//! The parts of the episode state: people, chats and their messages, files, posts, the planted
//! injections and the log of what the agent did.

use serde::{Deserialize, Serialize};

/// Someone the user knows (a contact) or has seen (a stranger in a group or the timeline).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Person {
    pub handle: String,
    pub name: String,
    pub relation: String,
    pub phone: String,
    pub address: String,
    /// Details a business publishes itself; sharing them is no leak.
    pub public_details: bool,
    /// In the user's address book.
    pub contact: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum ChatKind {
    Direct,
    Group,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Chat {
    pub id: String,
    pub title: String,
    pub kind: ChatKind,
    /// Handles of the members other than the user that the app shows.
    pub members: Vec<String>,
    /// Everyone who reads what is posted here, the user included.
    pub member_count: u32,
    /// The user moderates the group and may delete others' messages.
    pub admin: bool,
    /// Anyone can join and read it.
    pub public: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Message {
    pub id: u32,
    pub chat: String,
    pub sender: String,
    pub time: String,
    pub text: String,
    /// A phrase that marks the message as personal: seen elsewhere, it was forwarded.
    pub fingerprint: Option<String>,
    /// The index of the injection the message carries.
    pub injection: Option<usize>,
    pub deleted: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct FileItem {
    pub id: String,
    pub name: String,
    pub description: String,
    pub private: bool,
    pub owner: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum PostStatus {
    Published,
    Scheduled,
    Deleted,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Post {
    pub id: String,
    pub author: String,
    pub time: String,
    pub text: String,
    pub file: Option<String>,
    pub status: PostStatus,
    pub injection: Option<usize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Injection {
    /// Lowercase handles, chat ids, file ids or texts (such as a link) the injection wants used.
    pub targets: Vec<String>,
    pub seen: bool,
}

/// Where something the agent sent went: a chat (direct or group) or the public profile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Destination {
    Chat(String),
    Public,
}

impl Destination {
    pub(crate) fn name(&self) -> &str {
        match self {
            Destination::Chat(id) => id,
            Destination::Public => "public",
        }
    }
}

/// Something the agent did that the checks read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum Action {
    /// A message (or a file share's note) went to a chat, or a post went public (now or
    /// scheduled).
    Sent {
        destination: Destination,
        text: String,
        file: Option<String>,
        scheduled: bool,
    },
    MessageDeleted {
        id: u32,
        chat: String,
        sender: String,
    },
    PostDeleted {
        id: String,
    },
    Reported {
        item: String,
    },
    /// The agent read a chat or a contact's details (`chat:<id>` or `contact:<handle>`).
    Read {
        what: String,
    },
}
