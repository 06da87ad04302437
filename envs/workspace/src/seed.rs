//! Builds an episode's initial state from the corpus, the seed and the task.
//!
//! The seed decides which filler emails appear, when every email arrived, which variant of each
//! injection is planted, and when the movable meetings are. Emails get their ids after they are
//! sorted by arrival, so ids follow the mailbox order and are stable for a seed.

use std::borrow::Cow;
use std::collections::BTreeMap;

use agentbench_env_sdk::Rng;

use crate::corpus::{self, EmailEntry, FileEntry};
use crate::dates::{self, START_OF_WORK, TODAY, Timestamp};
use crate::task::{ExtraEmail, ExtraFile, Task, normalize_target};
use crate::text::{normalize_address, normalize_addresses, normalize_path};
use crate::{
    Action, CalendarEvent, Email, File, Folder, Injection, Permission, Share, Source, Text,
    Workspace,
};

/// The latest minute of today an email can have arrived at: the agent starts at 09:00.
const LAST_MINUTE_BEFORE_WORK: u32 = 8 * 60 + 59;
/// When a planted email arrived, unless the task says: the latest before the agent starts.
const PLANTED_EMAIL_MINUTE: u32 = 8 * 60 + 55;
/// How far back filler emails go.
const FILLER_DAYS: u64 = 21;
/// How far the seed may move a movable meeting, in minutes.
const MEETING_SHIFTS: [i32; 6] = [-60, -30, 0, 0, 30, 60];

/// An email before it has its id, with the targets of the injection it carries, if any.
struct Draft {
    email: Email,
    injection_targets: Vec<Text>,
}

pub(crate) fn build(rng: &mut Rng, mut task: Task) -> Result<Workspace, String> {
    let (instruction, goals) = task.instruction_and_goals()?;
    let trusted_domains = task
        .trusted_domains
        .iter()
        .map(|domain| normalize_domain(domain))
        .collect::<Result<Vec<_>, _>>()?;

    let mut drafts = Vec::with_capacity(
        corpus::INBOX.len()
            + corpus::SENT.len()
            + corpus::FILLER_COUNT.1
            + corpus::INJECTED_EMAILS.len()
            + task.extra_emails.len(),
    );
    for entry in corpus::INBOX {
        drafts.push(draft_from_entry(rng, entry, Folder::Inbox, Cow::Borrowed(entry.body), &[]));
    }
    for entry in corpus::SENT {
        drafts.push(draft_from_entry(rng, entry, Folder::Sent, Cow::Borrowed(entry.body), &[]));
    }
    add_filler(rng, &mut drafts);
    for injected in corpus::INJECTED_EMAILS {
        if task.injections {
            let variant = rng.pick(injected.variants);
            let body = Cow::Owned([injected.email.body, variant.text].concat());
            drafts.push(draft_from_entry(rng, &injected.email, Folder::Inbox, body, variant.targets));
        } else if injected.present_when_clean {
            let body = Cow::Borrowed(injected.email.body);
            drafts.push(draft_from_entry(rng, &injected.email, Folder::Inbox, body, &[]));
        }
    }
    for extra in std::mem::take(&mut task.extra_emails) {
        let subject = extra.subject.clone();
        drafts.push(
            planted_email(extra).map_err(|error| format!("extra email `{subject}`: {error}"))?,
        );
    }
    // A stable sort: emails that arrived in the same minute keep the order they were drafted in.
    drafts.sort_by_key(|draft| draft.email.date);

    let mut emails = Vec::with_capacity(drafts.len());
    let mut injections = Vec::new();
    for (index, draft) in drafts.into_iter().enumerate() {
        let mut email = draft.email;
        email.id = index as u32 + 1;
        if !draft.injection_targets.is_empty() {
            injections.push(Injection {
                source: Source::Email(email.id),
                targets: draft.injection_targets,
                live: true,
                seen: false,
            });
        }
        emails.push(email);
    }

    let files = seed_files(rng, &task, &mut injections)?;
    let events = seed_events(rng);

    Ok(Workspace {
        instruction: instruction.map_or(Cow::Borrowed(corpus::DEFAULT_INSTRUCTION), Cow::Owned),
        goals,
        trusted_domains,
        contacts: corpus::CONTACTS.to_vec(),
        next_email_id: emails.len() as u32 + 1,
        emails,
        next_event_id: events.len() as u32 + 1,
        events,
        files,
        injections,
        log: Vec::<Action>::new(),
        clock: START_OF_WORK,
        irreversible_actions: 0,
        untrusted_content_read: false,
    })
}

/// A hand-written email, moved by up to twenty minutes either way (but never past 09:00 today).
fn draft_from_entry(
    rng: &mut Rng,
    entry: &EmailEntry,
    folder: Folder,
    body: Text,
    injection_targets: &[&'static str],
) -> Draft {
    let jitter = rng.below(41) as u32;
    let mut minute_of_day = (u32::from(entry.minute_of_day) + jitter).saturating_sub(20);
    if entry.days_ago == 0 {
        minute_of_day = minute_of_day.min(LAST_MINUTE_BEFORE_WORK);
    }
    Draft {
        email: Email {
            id: 0,
            folder,
            from: Cow::Borrowed(entry.from),
            to: entry.to.iter().map(|&address| Cow::Borrowed(address)).collect(),
            cc: entry.cc.iter().map(|&address| Cow::Borrowed(address)).collect(),
            subject: Cow::Borrowed(entry.subject),
            body,
            date: Timestamp::at(TODAY - i32::from(entry.days_ago), minute_of_day),
            read: entry.read,
            attachments: Vec::new(),
        },
        injection_targets: injection_targets.iter().map(|&target| Cow::Borrowed(target)).collect(),
    }
}

/// Picks some of the routine mail and dates it anywhere in the past three weeks; the older it
/// is, the likelier the user has read it.
fn add_filler(rng: &mut Rng, drafts: &mut Vec<Draft>) {
    let mut order: [u8; corpus::FILLER.len()] = std::array::from_fn(|index| index as u8);
    rng.shuffle(&mut order);
    let (fewest, most) = corpus::FILLER_COUNT;
    let count = fewest + rng.below((most - fewest + 1) as u64) as usize;
    for &index in &order[..count] {
        let entry = &corpus::FILLER[usize::from(index)];
        let days_ago = rng.below(FILLER_DAYS) as i32;
        let minute_of_day = if days_ago == 0 {
            6 * 60 + rng.below(u64::from(LAST_MINUTE_BEFORE_WORK - 6 * 60)) as u32
        } else {
            7 * 60 + rng.below(14 * 60) as u32
        };
        let read = days_ago > 2 || rng.chance(1, 3);
        drafts.push(Draft {
            email: Email {
                id: 0,
                folder: Folder::Inbox,
                from: Cow::Borrowed(entry.from),
                to: vec![Cow::Borrowed(corpus::USER_ADDRESS)],
                cc: Vec::new(),
                subject: Cow::Borrowed(entry.subject),
                body: Cow::Borrowed(entry.body),
                date: Timestamp::at(TODAY - days_ago, minute_of_day),
                read,
                attachments: Vec::new(),
            },
            injection_targets: Vec::new(),
        });
    }
}

fn planted_email(extra: ExtraEmail) -> Result<Draft, String> {
    normalize_address(&extra.from)?;
    let to = if extra.to.is_empty() {
        vec![Cow::Borrowed(corpus::USER_ADDRESS)]
    } else {
        normalize_addresses(&extra.to)?
    };
    let date = match &extra.date {
        Some(date) => Timestamp::parse(date)?,
        None => Timestamp::at(TODAY, PLANTED_EMAIL_MINUTE),
    };
    Ok(Draft {
        email: Email {
            id: 0,
            folder: extra.folder.unwrap_or(Folder::Inbox),
            from: Cow::Owned(extra.from),
            to,
            cc: normalize_addresses(&extra.cc)?,
            subject: Cow::Owned(extra.subject),
            body: Cow::Owned(extra.body),
            date,
            read: extra.read,
            attachments: Vec::new(),
        },
        injection_targets: injection_targets(&extra.injection_targets)?,
    })
}

fn injection_targets(targets: &[String]) -> Result<Vec<Text>, String> {
    targets.iter().map(|target| normalize_target(target).map(Cow::Owned)).collect()
}

fn seed_files(
    rng: &mut Rng,
    task: &Task,
    injections: &mut Vec<Injection>,
) -> Result<BTreeMap<Text, File>, String> {
    let mut files = BTreeMap::new();
    for entry in corpus::FILES {
        files.insert(Cow::Borrowed(entry.path), file_from_entry(entry, Cow::Borrowed(entry.content)));
    }
    let injected = &corpus::INJECTED_FILE;
    let content = if task.injections {
        let variant = rng.pick(injected.variants);
        injections.push(Injection {
            source: Source::File(Cow::Borrowed(injected.file.path)),
            targets: variant.targets.iter().map(|&target| Cow::Borrowed(target)).collect(),
            live: true,
            seen: false,
        });
        Cow::Owned([injected.file.content, variant.text].concat())
    } else {
        Cow::Borrowed(injected.file.content)
    };
    files.insert(Cow::Borrowed(injected.file.path), file_from_entry(&injected.file, content));

    for extra in &task.extra_files {
        let (path, file, targets) =
            planted_file(extra).map_err(|error| format!("extra file `{}`: {error}", extra.path))?;
        // A planted file replaces a seeded one, and with it the seeded file's injection.
        let source = Source::File(Cow::Owned(path.clone()));
        injections.retain(|injection| injection.source != source);
        if !targets.is_empty() {
            injections.push(Injection { source, targets, live: true, seen: false });
        }
        files.insert(Cow::Owned(path), file);
    }
    Ok(files)
}

fn file_from_entry(entry: &FileEntry, content: Text) -> File {
    File {
        owner: Cow::Borrowed(entry.owner),
        content,
        shared_with: entry
            .shared_with
            .iter()
            .map(|&(with, permission)| Share { with: Cow::Borrowed(with), permission })
            .collect(),
        confidential: entry.confidential,
        modified: Timestamp::at(TODAY - i32::from(entry.modified_days_ago), 17 * 60),
        original: true,
    }
}

fn planted_file(extra: &ExtraFile) -> Result<(String, File, Vec<Text>), String> {
    let path = normalize_path(&extra.path)?;
    let owner = match &extra.owner {
        Some(owner) => Cow::Owned(normalize_address(owner)?),
        None => Cow::Borrowed(corpus::USER_ADDRESS),
    };
    let shared_with = normalize_addresses(&extra.shared_with)?
        .into_iter()
        .map(|with| Share { with, permission: Permission::Read })
        .collect();
    let file = File {
        owner,
        content: Cow::Owned(extra.content.clone()),
        shared_with,
        confidential: extra.confidential,
        modified: Timestamp::at(TODAY - 1, 17 * 60),
        original: true,
    };
    Ok((path, file, injection_targets(&extra.injection_targets)?))
}

fn seed_events(rng: &mut Rng) -> Vec<CalendarEvent> {
    let mut events: Vec<CalendarEvent> = corpus::EVENTS
        .iter()
        .map(|entry| {
            let shift = if entry.movable { *rng.pick(&MEETING_SHIFTS) } else { 0 };
            let minute_of_day = (i32::from(entry.minute_of_day) + shift) as u32;
            let start = Timestamp::at(TODAY + i32::from(entry.day), minute_of_day);
            CalendarEvent {
                id: 0,
                title: Cow::Borrowed(entry.title),
                start,
                end: start.plus_minutes(u32::from(entry.minutes)),
                attendees: entry.attendees.iter().map(|&address| Cow::Borrowed(address)).collect(),
                location: Cow::Borrowed(entry.location),
            }
        })
        .collect();
    events.sort_by_key(|event| event.start);
    for (index, event) in events.iter_mut().enumerate() {
        event.id = index as u32 + 1;
    }
    events
}

/// Checks a trusted domain and returns it in lowercase.
fn normalize_domain(text: &str) -> Result<Text, String> {
    let domain = text.trim().to_ascii_lowercase();
    let valid = domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty() && label.bytes().all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        });
    if valid { Ok(Cow::Owned(domain)) } else { Err(format!("invalid trusted domain `{text}`")) }
}

/// The date of a seeded item, for tests of the seeding.
#[cfg(test)]
fn date_text(timestamp: Timestamp) -> String {
    dates::Date(timestamp.day()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(seed: u64, task: &str) -> Workspace {
        build(&mut Rng::new(seed), serde_json::from_str(task).unwrap()).unwrap()
    }

    #[test]
    fn the_default_seed_fills_every_part_of_the_workspace() {
        let workspace = workspace(0, "{}");
        let inbox = workspace.emails.iter().filter(|email| email.folder == Folder::Inbox).count();
        assert!(inbox >= 30, "{inbox} emails in the inbox");
        assert!(workspace.emails.iter().any(|email| email.folder == Folder::Sent));
        assert!(workspace.files.len() >= 15);
        assert!(workspace.events.len() >= 10);
        assert!(workspace.contacts.len() >= 12);
        assert_eq!(workspace.injections.len(), 4);
        // Ids follow arrival order, and nothing arrived after the agent starts.
        assert!(workspace.emails.windows(2).all(|pair| pair[0].date <= pair[1].date));
        assert!(workspace.emails.iter().enumerate().all(|(index, email)| email.id == index as u32 + 1));
        assert!(workspace.emails.iter().all(|email| email.date < START_OF_WORK));
        // The meetings are in the coming two weeks.
        for event in &workspace.events {
            assert!(event.start.day() >= TODAY && event.start.day() < TODAY + 14, "{}", date_text(event.start));
        }
    }

    #[test]
    fn a_clean_workspace_has_no_injections() {
        let workspace = workspace(0, r#"{"injections": false}"#);
        assert!(workspace.injections.is_empty());
        assert!(!workspace.emails.iter().any(|email| email.from.contains("northwind-support")));
    }

    #[test]
    fn the_saved_state_stays_modest() {
        let mut harness = agentbench_env_sdk::Harness::<Workspace>::new();
        harness.reset(0, "{}").unwrap();
        let size = harness.save().len();
        assert!(size < 64 * 1024, "{size} bytes");
    }
}
