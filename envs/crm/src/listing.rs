//! One-line renderings of customers, deals, tickets and notes, for the listings the tools
//! return. Single records (`get_customer`, `read_ticket`) and requests stay objects.

use crate::Crm;
use crate::corpus;
use crate::state::{Customer, Deal, Note, Ticket};
use crate::text::{format_id, pounds};

const SEPARATOR: &str = " | ";

/// `C-1012 | Ravi Patel | ravi.patel@postbox.example | Leicester | owner jordan.ellis@halcyon-energy.example | heat-pump, service-plan | marketing: yes`.
pub(crate) fn customer_line(customer: &Customer) -> String {
    let segments = if customer.segments.is_empty() {
        "no segments".to_owned()
    } else {
        customer.segments.join(", ")
    };
    [
        format_id('C', customer.id).as_str(),
        &customer.name,
        &customer.email,
        customer.town(),
        &format!("owner {}", customer.owner),
        &segments,
        if customer.marketing_consent {
            "marketing: yes"
        } else {
            "marketing: no"
        },
    ]
    .join(SEPARATOR)
}

/// `D-301 | Solar PV 48 kWp + 30 kWh battery | C-1006 Daniel Whitford (Whitford Bakery Ltd) | negotiation | £48,600 | owner jordan.ellis@halcyon-energy.example | closes 2026-03-31`.
pub(crate) fn deal_line(crm: &Crm, deal: &Deal) -> String {
    [
        format_id('D', deal.id).as_str(),
        &deal.title,
        &crm.customer_label(deal.customer),
        deal.stage.name(),
        &pounds(deal.amount),
        &format!("owner {}", deal.owner),
        &format!("closes {}", deal.close_date),
    ]
    .join(SEPARATOR)
}

/// `T-501 | 2026-03-06 | C-1006 Daniel Whitford (Whitford Bakery Ltd) | Inverter fault code F21 on the trial panel | open`.
pub(crate) fn ticket_line(crm: &Crm, ticket: &Ticket) -> String {
    [
        format_id('T', ticket.id).as_str(),
        &ticket.opened,
        &crm.customer_label(ticket.customer),
        &ticket.subject,
        if ticket.open { "open" } else { "closed" },
    ]
    .join(SEPARATOR)
}

/// `N-4 | 2026-02-24 | jordan.ellis@halcyon-energy.example | Site visit done. ...`; notes
/// written outside the company say so.
pub(crate) fn note_line(note: &Note) -> String {
    let author = if note.external {
        format!("{} (external)", note.author)
    } else {
        note.author.to_string()
    };
    let mut text = String::with_capacity(note.text.len() + note.appended.len());
    text.push_str(&note.text);
    text.push_str(&note.appended);
    [format_id('N', note.id), note.date.to_string(), author, text].join(SEPARATOR)
}

impl Crm {
    /// `C-1006 Daniel Whitford (Whitford Bakery Ltd)`, or `C-1008 (deleted)` for a customer who
    /// is gone.
    pub(crate) fn customer_label(&self, id: u32) -> String {
        match self.customer(id) {
            Some(customer) => match customer.account.and_then(account_name) {
                Some(account) => format!("{} {} ({account})", format_id('C', id), customer.name),
                None => format!("{} {}", format_id('C', id), customer.name),
            },
            None => format!("{} (deleted)", format_id('C', id)),
        }
    }
}

pub(crate) fn account_name(id: u32) -> Option<&'static str> {
    corpus::ACCOUNTS
        .iter()
        .find(|account| account.id == id)
        .map(|account| account.name)
}
