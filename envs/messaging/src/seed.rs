//! Builds an episode's state from the corpus, the seed and the task.
//!
//! The seed picks which stranger's injection lands in the direct chats, when it arrived, and
//! the follower count; the task adds its own messages and posts.

use agentbench_env_sdk::Rng;

use crate::Messaging;
use crate::corpus::{self, CONTACTS, FILES, GROUPS, MESSAGES, OWN_POSTS, TIMELINE};
use crate::state::{Chat, ChatKind, FileItem, Injection, Message, Person, Post, PostStatus};
use crate::task::{Task, handle};
use crate::text::is_timestamp;

/// When a planted item arrived unless the task says: just before now.
const DEFAULT_EXTRA_TIME: &str = "2026-03-13 09:55";

pub(crate) fn build(rng: &mut Rng, mut task: Task) -> Result<Messaging, String> {
    let (instruction, goals) = task.instruction_and_goals()?;
    let mut state = Messaging {
        instruction,
        goals,
        people: CONTACTS
            .iter()
            .map(|entry| Person {
                handle: entry.handle.to_owned(),
                name: entry.name.to_owned(),
                relation: entry.relation.to_owned(),
                phone: entry.phone.to_owned(),
                address: entry.address.to_owned(),
                public_details: entry.public,
                contact: true,
            })
            .collect(),
        chats: Vec::new(),
        messages: Vec::new(),
        files: FILES
            .iter()
            .map(|entry| FileItem {
                id: entry.id.to_owned(),
                name: entry.name.to_owned(),
                description: entry.description.to_owned(),
                private: entry.private,
                owner: entry.owner.to_owned(),
            })
            .collect(),
        posts: Vec::new(),
        injections: Vec::new(),
        log: Vec::new(),
        off_limits: task.off_limits.iter().map(|item| handle(item)).collect(),
        spam_limit: task.spam_limit.max(1),
        followers: corpus::FOLLOWERS + rng.below(60) as u32,
        clock: 0,
        next_message_id: 1,
        next_post_id: 1,
        irreversible_actions: 0,
        untrusted_content_read: false,
    };
    for entry in MESSAGES {
        if let Some(other) = entry.chat.strip_prefix("dm-") {
            state.ensure_direct_chat(other);
        }
    }
    for group in GROUPS {
        for member in group.members {
            state.ensure_person(member);
        }
        state.chats.push(Chat {
            id: group.id.to_owned(),
            title: group.title.to_owned(),
            kind: ChatKind::Group,
            members: group.members.iter().map(|&m| m.to_owned()).collect(),
            member_count: group.member_count,
            admin: group.admin,
            public: group.public,
        });
    }
    let mut messages: Vec<Message> = MESSAGES
        .iter()
        .map(|entry| Message {
            id: 0,
            chat: entry.chat.to_owned(),
            sender: entry.sender.to_owned(),
            time: entry.time.to_owned(),
            text: entry.text.to_owned(),
            fingerprint: entry.fingerprint.map(str::to_owned),
            injection: None,
            deleted: false,
        })
        .collect();
    let mut posts: Vec<Post> = TIMELINE
        .iter()
        .map(|&(author, time, text)| Post {
            id: String::new(),
            author: author.to_owned(),
            time: time.to_owned(),
            text: text.to_owned(),
            file: None,
            status: PostStatus::Published,
            injection: None,
        })
        .collect();
    if task.injections {
        let (sender, text, targets) = *rng.pick(corpus::DM_INJECTIONS);
        let minute = 10 + rng.below(40);
        messages.push(Message {
            id: 0,
            chat: format!("dm-{sender}"),
            sender: sender.to_owned(),
            time: format!("2026-03-13 08:{minute:02}"),
            text: text.to_owned(),
            fingerprint: None,
            injection: Some(state.plant(targets.iter().map(|&t| t.to_owned()).collect())),
            deleted: false,
        });
        state.ensure_direct_chat(sender);
        let (author, text, targets) = corpus::TIMELINE_INJECTION;
        posts.push(Post {
            id: String::new(),
            author: author.to_owned(),
            time: "2026-03-13 07:45".to_owned(),
            text: text.to_owned(),
            file: None,
            status: PostStatus::Published,
            injection: Some(state.plant(targets.iter().map(|&t| t.to_owned()).collect())),
        });
    }
    for extra in std::mem::take(&mut task.extra_messages) {
        let chat = extra.chat.trim().to_lowercase();
        let sender = match (&extra.sender, chat.strip_prefix("dm-")) {
            (Some(sender), _) => handle(sender),
            (None, Some(other)) => handle(other),
            (None, None) => {
                return Err(format!(
                    "extra message in `{chat}`: a group message needs a sender"
                ));
            }
        };
        if let Some(other) = chat.strip_prefix("dm-") {
            state.ensure_direct_chat(&handle(other));
        } else if state.chat(&chat).is_none() {
            return Err(format!("extra message: unknown chat `{chat}`"));
        }
        state.ensure_person(&sender);
        let time = checked_time(extra.time.as_deref())?;
        let injection = (!extra.injection_targets.is_empty())
            .then(|| state.plant(extra.injection_targets.clone()));
        messages.push(Message {
            id: 0,
            chat,
            sender,
            time,
            text: extra.text,
            fingerprint: extra.private_fingerprint,
            injection,
            deleted: false,
        });
    }
    for extra in std::mem::take(&mut task.extra_posts) {
        let time = checked_time(extra.time.as_deref())?;
        let injection = (!extra.injection_targets.is_empty())
            .then(|| state.plant(extra.injection_targets.clone()));
        posts.push(Post {
            id: String::new(),
            author: handle(&extra.author),
            time,
            text: extra.text,
            file: None,
            status: PostStatus::Published,
            injection,
        });
    }
    // Ids rise with time, so the newest message has the largest id.
    messages.sort_by(|a, b| a.time.cmp(&b.time));
    for message in &mut messages {
        message.id = state.next_message_id;
        state.next_message_id += 1;
        let sender = message.sender.clone();
        state.ensure_person(&sender);
    }
    state.messages = messages;
    for &(time, text) in OWN_POSTS {
        state.posts.push(Post {
            id: format!("P-{}", state.next_post_id),
            author: corpus::USER_HANDLE.to_owned(),
            time: time.to_owned(),
            text: text.to_owned(),
            file: None,
            status: PostStatus::Published,
            injection: None,
        });
        state.next_post_id += 1;
    }
    posts.sort_by(|a, b| a.time.cmp(&b.time));
    for (index, mut post) in posts.into_iter().enumerate() {
        post.id = format!("T-{}", index + 1);
        state.ensure_person(&post.author.clone());
        state.posts.push(post);
    }
    Ok(state)
}

fn checked_time(time: Option<&str>) -> Result<String, String> {
    let time = time.unwrap_or(DEFAULT_EXTRA_TIME);
    if !is_timestamp(time) {
        return Err(format!("invalid time `{time}`: expected YYYY-MM-DD HH:MM"));
    }
    if time >= corpus::NOW {
        return Err(format!("time `{time}` is not before now ({})", corpus::NOW));
    }
    Ok(time.to_owned())
}

impl Messaging {
    fn plant(&mut self, targets: Vec<String>) -> usize {
        self.injections.push(Injection {
            targets: targets.iter().map(|target| handle(target)).collect(),
            seen: false,
        });
        self.injections.len() - 1
    }

    /// Adds a stranger the user has no details for, unless already known.
    fn ensure_person(&mut self, handle: &str) {
        if handle == corpus::USER_HANDLE || self.person(handle).is_some() {
            return;
        }
        self.people.push(Person {
            handle: handle.to_owned(),
            name: handle.to_owned(),
            relation: "not in contacts".to_owned(),
            phone: String::new(),
            address: String::new(),
            public_details: false,
            contact: false,
        });
    }

    /// The direct chat with `other`, created (empty) when there is none yet.
    pub(crate) fn ensure_direct_chat(&mut self, other: &str) -> String {
        let id = format!("dm-{other}");
        if self.chat(&id).is_none() {
            self.ensure_person(other);
            let title = self
                .person(other)
                .map_or_else(|| other.to_owned(), |person| person.name.clone());
            self.chats.push(Chat {
                id: id.clone(),
                title,
                kind: ChatKind::Direct,
                members: vec![other.to_owned()],
                member_count: 2,
                admin: false,
                public: false,
            });
        }
        id
    }
}
