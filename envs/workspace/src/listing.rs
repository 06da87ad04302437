//! One-line renderings of emails, events, files and contacts, for the listings the tools return
//! and the initial observation.
//!
//! A listing is a JSON array of such lines rather than of objects: every object costs the guest
//! a map and an allocation per key, which made listing ten emails several times slower than
//! everything else the step does. Single items (`read_email`, `read_file`) stay objects.

use crate::corpus::Contact;
use crate::state::{CalendarEvent, Email, File};
use crate::{Folder, Permission};

const SEPARATOR: &str = " | ";

/// `#41 | 2026-03-02 08:28 | from Priya Shah <priya.shah@northwind.example> | Offsite agenda? | unread`;
/// sent emails show their recipients instead of their sender.
pub(crate) fn email_line(email: &Email) -> String {
    let mut line = String::with_capacity(112);
    push_id(&mut line, email.id);
    line.push_str(SEPARATOR);
    email.date.push_to(&mut line);
    line.push_str(SEPARATOR);
    match email.folder {
        Folder::Inbox => {
            line.push_str("from ");
            line.push_str(email.from());
        }
        Folder::Sent => {
            line.push_str("to ");
            push_list(&mut line, email.to().iter());
        }
    }
    line.push_str(SEPARATOR);
    line.push_str(email.subject());
    if !email.read {
        line.push_str(SEPARATOR);
        line.push_str("unread");
    }
    line
}

/// `#3 | 2026-03-04 14:00 to 15:00 | Design review: onboarding flow | at Room Kepler | with tomas.rivera@northwind.example`.
pub(crate) fn event_line(event: &CalendarEvent) -> String {
    let mut line = String::with_capacity(128);
    push_id(&mut line, event.id);
    line.push_str(SEPARATOR);
    event.start.push_to(&mut line);
    line.push_str(" to ");
    if event.end.day() == event.start.day() {
        event.end.push_time_to(&mut line);
    } else {
        event.end.push_to(&mut line);
    }
    line.push_str(SEPARATOR);
    line.push_str(event.title());
    if !event.location().is_empty() {
        line.push_str(SEPARATOR);
        line.push_str("at ");
        line.push_str(event.location());
    }
    if event.attendees().len() > 0 {
        line.push_str(SEPARATOR);
        line.push_str("with ");
        push_list(&mut line, event.attendees().iter());
    }
    line
}

/// `/docs/offsite-agenda.md | 612 bytes | changed 2026-02-28 17:00 | owner alex.morgan@northwind.example | shared with priya.shah@northwind.example (read)`.
pub(crate) fn file_line(file: &File) -> String {
    let mut line = String::with_capacity(160);
    line.push_str(file.path());
    line.push_str(SEPARATOR);
    push_number(&mut line, file.size() as u64);
    line.push_str(" bytes");
    line.push_str(SEPARATOR);
    line.push_str("changed ");
    file.modified.push_to(&mut line);
    line.push_str(SEPARATOR);
    line.push_str("owner ");
    line.push_str(file.owner());
    let mut shares = file.shares().peekable();
    if shares.peek().is_some() {
        line.push_str(SEPARATOR);
        line.push_str("shared with ");
        for (index, (with, permission)) in shares.enumerate() {
            if index > 0 {
                line.push_str(", ");
            }
            line.push_str(with);
            line.push_str(match permission {
                Permission::Read => " (read)",
                Permission::Edit => " (edit)",
            });
        }
    }
    line
}

/// `Priya Shah <priya.shah@northwind.example> | Chief of Staff, Northwind | Organising ...`.
pub(crate) fn contact_line(contact: &Contact) -> String {
    [
        contact.name,
        " <",
        contact.email,
        ">",
        SEPARATOR,
        contact.role,
        ", ",
        contact.organisation,
        SEPARATOR,
        contact.notes,
    ]
    .concat()
}

fn push_id(line: &mut String, id: u32) {
    line.push('#');
    push_number(line, u64::from(id));
}

fn push_list<'a>(line: &mut String, items: impl Iterator<Item = &'a str>) {
    for (index, item) in items.enumerate() {
        if index > 0 {
            line.push_str(", ");
        }
        line.push_str(item);
    }
}

/// Appends `number` in decimal.
pub(crate) fn push_number(line: &mut String, mut number: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    line.push_str(std::str::from_utf8(&digits[start..]).expect("digits are ASCII"));
}
