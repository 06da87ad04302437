//! Builds an episode's initial state from the corpus, the seed and the task.
//!
//! The seed decides which filler emails appear, when every email arrived, which variant of each
//! injection is planted, and when the movable meetings are. Emails get their ids after they are
//! sorted by arrival, so ids follow the mailbox order and are stable for a seed.

use std::borrow::Cow;

use agentbench_env_sdk::Rng;

use crate::corpus::{self, EmailEntry};
use crate::dates::{START_OF_WORK, TODAY, Timestamp};
use crate::state::{
    CalendarEvent, Email, EmailContent, EventDetails, File, FileOrigin, Injection, Planting, Share,
    Source, WrittenEmail,
};
use crate::task::{ExtraEmail, ExtraFile, Task, normalize_target};
use crate::text::{is_domain, normalize_address, normalize_addresses, normalize_path};
use crate::{Folder, Permission, Workspace};

/// The latest minute of today an email can have arrived at: the agent starts at 09:00.
const LAST_MINUTE_BEFORE_WORK: u32 = 8 * 60 + 59;
/// When a planted email arrived, unless the task says: the latest before the agent starts.
const PLANTED_EMAIL_MINUTE: u32 = 8 * 60 + 55;
/// How far back filler emails go.
const FILLER_DAYS: u64 = 21;
/// How far the seed may move a movable meeting, in minutes.
const MEETING_SHIFTS: [i32; 6] = [-60, -30, 0, 0, 30, 60];

pub(crate) fn build(rng: &mut Rng, mut task: Task) -> Result<Workspace, String> {
    let (instruction, goals) = task.instruction_and_goals()?;
    let trusted_domains = task
        .trusted_domains
        .iter()
        .map(|domain| normalize_domain(domain))
        .collect::<Result<Vec<_>, _>>()?;

    let mut injections = Vec::new();
    let emails = seed_emails(rng, &mut task, &mut injections)?;
    let files = seed_files(rng, &task, &mut injections)?;
    let events = seed_events(rng);

    Ok(Workspace {
        instruction,
        goals,
        trusted_domains,
        next_email_id: emails.len() as u32 + 1,
        emails,
        next_event_id: events.len() as u32 + 1,
        events,
        files,
        injections,
        log: Vec::new(),
        clock: START_OF_WORK,
        irreversible_actions: 0,
        untrusted_content_read: false,
    })
}

fn seed_emails(
    rng: &mut Rng,
    task: &mut Task,
    injections: &mut Vec<Injection>,
) -> Result<Vec<Email>, String> {
    let mut emails = Vec::with_capacity(
        corpus::INBOX.len()
            + corpus::SENT.len()
            + corpus::FILLER_COUNT.1
            + corpus::INJECTED_EMAILS.len()
            + task.extra_emails.len()
            + EXPECTED_SENDS,
    );
    for (index, entry) in corpus::INBOX.iter().enumerate() {
        let date = jittered_date(rng, entry);
        emails.push(seeded(
            Folder::Inbox,
            date,
            entry.read,
            EmailContent::Inbox(index as u8),
        ));
    }
    for (index, entry) in corpus::SENT.iter().enumerate() {
        let date = jittered_date(rng, entry);
        emails.push(seeded(
            Folder::Sent,
            date,
            true,
            EmailContent::Sent(index as u8),
        ));
    }
    add_filler(rng, &mut emails);

    // Injections found before sorting, with the email's position then.
    let mut planted: Vec<(usize, Planting)> = Vec::new();
    for (slot, injected) in corpus::INJECTED_EMAILS.iter().enumerate() {
        let slot = slot as u8;
        let date = jittered_date(rng, &injected.email);
        let read = injected.email.read;
        if task.injections {
            let variant = rng.below(injected.variants.len() as u64) as u8;
            planted.push((emails.len(), Planting::Email { slot, variant }));
            let content = EmailContent::Injected {
                slot,
                variant: Some(variant),
            };
            emails.push(seeded(Folder::Inbox, date, read, content));
        } else if injected.present_when_clean {
            let content = EmailContent::Injected {
                slot,
                variant: None,
            };
            emails.push(seeded(Folder::Inbox, date, read, content));
        }
    }
    for extra in std::mem::take(&mut task.extra_emails) {
        let subject = extra.subject.clone();
        let (email, targets) =
            planted_email(extra).map_err(|error| format!("extra email `{subject}`: {error}"))?;
        if !targets.is_empty() {
            planted.push((emails.len(), Planting::Task(targets)));
        }
        emails.push(email);
    }

    // Sort by arrival. The ids hold the positions before sorting until the injections have
    // found their emails again; positions also break ties, which keeps the order deterministic.
    for (position, email) in emails.iter_mut().enumerate() {
        email.id = position as u32;
    }
    emails.sort_unstable_by_key(|email| (email.date, email.id));
    for (position, planting) in planted {
        let index = emails
            .iter()
            .position(|email| email.id as usize == position)
            .expect("every planted email is in the mailbox");
        injections.push(Injection {
            source: Source::Email(index as u32 + 1),
            planting,
            live: true,
            seen: false,
        });
    }
    for (index, email) in emails.iter_mut().enumerate() {
        email.id = index as u32 + 1;
    }
    Ok(emails)
}

/// Room reserved for the emails an agent typically sends, so that sending rarely reallocates.
const EXPECTED_SENDS: usize = 4;

fn seeded(folder: Folder, date: Timestamp, read: bool, content: EmailContent) -> Email {
    Email {
        id: 0,
        folder,
        date,
        read,
        content,
    }
}

/// A hand-written email's arrival, moved by up to twenty minutes either way (but never past
/// 09:00 today).
fn jittered_date(rng: &mut Rng, entry: &EmailEntry) -> Timestamp {
    let jitter = rng.below(41) as u32;
    let mut minute_of_day = (u32::from(entry.minute_of_day) + jitter).saturating_sub(20);
    if entry.days_ago == 0 {
        minute_of_day = minute_of_day.min(LAST_MINUTE_BEFORE_WORK);
    }
    Timestamp::at(TODAY - i32::from(entry.days_ago), minute_of_day)
}

/// Picks some of the routine mail and dates it anywhere in the past three weeks; the older it
/// is, the likelier the user has read it.
fn add_filler(rng: &mut Rng, emails: &mut Vec<Email>) {
    let mut order: [u8; corpus::FILLER.len()] = std::array::from_fn(|index| index as u8);
    rng.shuffle(&mut order);
    let (fewest, most) = corpus::FILLER_COUNT;
    let count = fewest + rng.below((most - fewest + 1) as u64) as usize;
    for &index in &order[..count] {
        let days_ago = rng.below(FILLER_DAYS) as i32;
        let minute_of_day = if days_ago == 0 {
            6 * 60 + rng.below(u64::from(LAST_MINUTE_BEFORE_WORK - 6 * 60)) as u32
        } else {
            7 * 60 + rng.below(14 * 60) as u32
        };
        let read = days_ago > 2 || rng.chance(1, 3);
        let date = Timestamp::at(TODAY - days_ago, minute_of_day);
        emails.push(seeded(
            Folder::Inbox,
            date,
            read,
            EmailContent::Filler(index),
        ));
    }
}

fn planted_email(extra: ExtraEmail) -> Result<(Email, Vec<String>), String> {
    normalize_address(&extra.from)?;
    let to = if extra.to.is_empty() {
        vec![corpus::USER_ADDRESS.to_owned()]
    } else {
        normalize_addresses(&extra.to)?
    };
    let date = match &extra.date {
        Some(date) => Timestamp::parse(date)?,
        None => Timestamp::at(TODAY, PLANTED_EMAIL_MINUTE),
    };
    if date >= START_OF_WORK {
        return Err(format!(
            "the date {date} is not before {START_OF_WORK}, when the episode starts"
        ));
    }
    let content = WrittenEmail {
        from: extra.from,
        to,
        cc: normalize_addresses(&extra.cc)?,
        subject: extra.subject,
        body: extra.body,
        attachments: Vec::new(),
    };
    let email = Email {
        id: 0,
        folder: extra.folder.unwrap_or(Folder::Inbox),
        date,
        read: extra.read,
        content: EmailContent::Written(Box::new(content)),
    };
    Ok((email, injection_targets(&extra.injection_targets)?))
}

fn injection_targets(targets: &[String]) -> Result<Vec<String>, String> {
    targets
        .iter()
        .map(|target| normalize_target(target))
        .collect()
}

fn seed_files(
    rng: &mut Rng,
    task: &Task,
    injections: &mut Vec<Injection>,
) -> Result<Vec<File>, String> {
    let mut files = Vec::with_capacity(corpus::FILES.len() + 1 + task.extra_files.len());
    for (index, entry) in corpus::FILES.iter().enumerate() {
        let origin = FileOrigin::Corpus(index as u8);
        files.push(seeded_file(
            origin,
            entry.confidential,
            entry.modified_days_ago,
        ));
    }
    let notes = &corpus::INJECTED_FILE;
    let variant = task
        .injections
        .then(|| rng.below(notes.variants.len() as u64) as u8);
    if let Some(variant) = variant {
        injections.push(Injection {
            source: Source::File(Cow::Borrowed(notes.file.path)),
            planting: Planting::Notes { variant },
            live: true,
            seen: false,
        });
    }
    let origin = FileOrigin::Notes { variant };
    files.push(seeded_file(
        origin,
        notes.file.confidential,
        notes.file.modified_days_ago,
    ));

    for extra in &task.extra_files {
        let (file, targets) =
            planted_file(extra).map_err(|error| format!("extra file `{}`: {error}", extra.path))?;
        // A planted file replaces a seeded one at the same path, and the seeded one's injection.
        let source = Source::File(Cow::Owned(file.path().to_owned()));
        files.retain(|existing| existing.path() != file.path());
        injections.retain(|injection| injection.source != source);
        if !targets.is_empty() {
            injections.push(Injection {
                source,
                planting: Planting::Task(targets),
                live: true,
                seen: false,
            });
        }
        files.push(file);
    }
    // Paths are unique, so the unstable sort is deterministic.
    files.sort_unstable_by(|a, b| a.path().cmp(b.path()));
    Ok(files)
}

fn seeded_file(origin: FileOrigin, confidential: bool, modified_days_ago: u8) -> File {
    File {
        origin,
        written: None,
        added_shares: Vec::new(),
        confidential,
        modified: Timestamp::at(TODAY - i32::from(modified_days_ago), 17 * 60),
        original: true,
    }
}

fn planted_file(extra: &ExtraFile) -> Result<(File, Vec<String>), String> {
    let path = normalize_path(&extra.path)?;
    let owner = match &extra.owner {
        Some(owner) => normalize_address(owner)?,
        None => corpus::USER_ADDRESS.to_owned(),
    };
    let added_shares = normalize_addresses(&extra.shared_with)?
        .into_iter()
        .map(|with| Share {
            with,
            permission: Permission::Read,
        })
        .collect();
    let file = File {
        origin: FileOrigin::Other { path, owner },
        written: Some(extra.content.clone()),
        added_shares,
        confidential: extra.confidential,
        modified: Timestamp::at(TODAY - 1, 17 * 60),
        original: true,
    };
    Ok((file, injection_targets(&extra.injection_targets)?))
}

fn seed_events(rng: &mut Rng) -> Vec<CalendarEvent> {
    let mut events: Vec<CalendarEvent> = Vec::with_capacity(corpus::EVENTS.len() + 2);
    for (index, entry) in corpus::EVENTS.iter().enumerate() {
        let shift = if entry.movable {
            *rng.pick(&MEETING_SHIFTS)
        } else {
            0
        };
        let minute_of_day = (i32::from(entry.minute_of_day) + shift) as u32;
        let start = Timestamp::at(TODAY + i32::from(entry.day), minute_of_day);
        events.push(CalendarEvent {
            id: index as u32,
            start,
            end: start.plus_minutes(u32::from(entry.minutes)),
            details: EventDetails::Corpus(index as u8),
        });
    }
    events.sort_unstable_by_key(|event| (event.start, event.id));
    for (index, event) in events.iter_mut().enumerate() {
        event.id = index as u32 + 1;
    }
    events
}

/// Checks a trusted domain and returns it in lowercase.
fn normalize_domain(text: &str) -> Result<String, String> {
    let domain = text.trim().to_ascii_lowercase();
    if is_domain(&domain) {
        Ok(domain)
    } else {
        Err(format!("invalid trusted domain `{text}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(seed: u64, task: &str) -> Workspace {
        build(&mut Rng::new(seed), serde_json::from_str(task).unwrap()).unwrap()
    }

    #[test]
    fn the_default_seed_fills_every_part_of_the_workspace() {
        for seed in 0..20 {
            let workspace = workspace(seed, "{}");
            let inbox = workspace
                .emails
                .iter()
                .filter(|email| email.folder == Folder::Inbox)
                .count();
            assert!(inbox >= 30, "{inbox} emails in the inbox");
            assert!(
                workspace
                    .emails
                    .iter()
                    .any(|email| email.folder == Folder::Sent)
            );
            assert!(workspace.files.len() >= 15);
            assert!(workspace.events.len() >= 10);
            assert!(corpus::CONTACTS.len() >= 12);
            assert_eq!(workspace.injections.len(), 4);
            // Ids follow arrival order, and nothing arrived after the agent starts.
            assert!(
                workspace
                    .emails
                    .windows(2)
                    .all(|pair| pair[0].date <= pair[1].date)
            );
            assert!(
                workspace
                    .emails
                    .iter()
                    .enumerate()
                    .all(|(index, email)| email.id == index as u32 + 1)
            );
            assert!(
                workspace
                    .emails
                    .iter()
                    .all(|email| email.date < START_OF_WORK)
            );
            // The meetings are in the coming two weeks, in order.
            assert!(
                workspace
                    .events
                    .windows(2)
                    .all(|pair| pair[0].start <= pair[1].start)
            );
            for event in &workspace.events {
                assert!(event.start.day() >= TODAY && event.end.day() < TODAY + 14);
            }
            // The files are sorted by path, and the injections point at what carries them.
            assert!(
                workspace
                    .files
                    .windows(2)
                    .all(|pair| pair[0].path() < pair[1].path())
            );
            for injection in &workspace.injections {
                let (_, injected_text) = match &injection.source {
                    Source::Email(id) => workspace.emails[*id as usize - 1].body_parts(),
                    Source::File(path) => workspace
                        .files
                        .iter()
                        .find(|file| file.path() == path)
                        .unwrap()
                        .content_parts(),
                };
                assert!(!injected_text.is_empty(), "{injection:?}");
            }
        }
    }

    #[test]
    fn a_clean_workspace_has_no_injections() {
        let workspace = workspace(0, r#"{"injections": false}"#);
        assert!(workspace.injections.is_empty());
        assert!(
            !workspace
                .emails
                .iter()
                .any(|email| email.from().contains("northwind-support"))
        );
        assert!(
            workspace
                .emails
                .iter()
                .all(|email| email.body_parts().1.is_empty())
        );
        assert!(
            workspace
                .files
                .iter()
                .all(|file| file.content_parts().1.is_empty())
        );
    }

    #[test]
    fn the_saved_state_stays_small() {
        let mut harness = agentbench_env_sdk::Harness::<Workspace>::new();
        harness.reset(0, "{}").unwrap();
        let size = harness.save().len();
        assert!(size < 4096, "{size} bytes");
    }
}
