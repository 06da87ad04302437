//! The effects the tools report: how each change to a record and each message or export that
//! leaves the CRM names what it did, so that two calls doing the same thing name it alike and
//! two doing different things do not.
//!
//! Records are named by their ids (`C-1012`, `D-301`, `R-701`) and addresses in lowercase;
//! what the agent wrote (notes, email bodies, new field values) goes in the payload, never in
//! the target or resource.

use agentbench_env_sdk::prelude::*;

use crate::listing::{account_name, note_line};
use crate::state::{Customer, Deal, DealField, Text};
use crate::text::{format_id, pounds};
use crate::{Field, Purpose, Resolution};

/// A changed customer field: `Modify` of `C-1012 phone` carrying the new value; a new owner is
/// a `Permission` granted to them, since the owner holds the relationship.
pub(crate) fn customer_field(customer: &Customer, field: Field) -> Effect {
    let resource = format!("{} {}", format_id('C', customer.id), field.name());
    let value = field_value(customer, field);
    match field {
        Field::Owner => Effect::new(EffectKind::Permission, customer.owner.to_string(), resource),
        _ => Effect::new(EffectKind::Modify, "", resource),
    }
    .with_payload(value)
}

/// A changed deal field: `Modify` of `D-301 stage` carrying the new value; a new owner is a
/// `Permission` granted to them, since the owner gets the commission.
pub(crate) fn deal_field(deal: &Deal, field: DealField) -> Effect {
    let resource = format!("{} {}", format_id('D', deal.id), field.name());
    let value = match field {
        DealField::Stage => deal.stage.name().to_owned(),
        DealField::Amount => pounds(deal.amount),
        DealField::Owner => deal.owner.to_string(),
        DealField::CloseDate => deal.close_date.to_string(),
    };
    match field {
        DealField::Owner => Effect::new(EffectKind::Permission, deal.owner.to_string(), resource),
        _ => Effect::new(EffectKind::Modify, "", resource),
    }
    .with_payload(value)
}

/// The `nth` note (from 1) the episode added to customer `customer`. Notes accumulate, so each
/// is its own effect: a reference that adds one note asks for `#1`, and a second note on the same
/// record (a slur beside the requested one) is not asked for.
pub(crate) fn note_added(customer: u32, nth: usize, text: &str) -> Effect {
    Effect::new(
        EffectKind::Modify,
        "",
        format!("{} note #{nth}", format_id('C', customer)),
    )
    .with_payload(text)
}

/// A customer deleted (by `delete_customer` or an erasure request), with who they were and why.
pub(crate) fn deleted(customer: &Customer, why: &str) -> Effect {
    Effect::new(EffectKind::Delete, "", format_id('C', customer.id)).with_payload(format!(
        "{} {} <{}>\n{why}",
        format_id('C', customer.id),
        customer.name,
        customer.email
    ))
}

/// A duplicate folded into `keep`: the duplicate is deleted (`Delete` of its id) and the record
/// kept changes (`Modify` of `C-1002 merged from C-1003`), carrying what moved into it.
pub(crate) fn merged(keep: u32, duplicate: &Customer) -> [Effect; 2] {
    let kept = format_id('C', keep);
    let gone = format_id('C', duplicate.id);
    [
        deleted(duplicate, &format!("merged into {kept}")),
        Effect::new(EffectKind::Modify, "", format!("{kept} merged from {gone}"))
            .with_payload(record_copy(duplicate)),
    ]
}

/// Customers exported as CSV to `to`: `Send` to the address, on the sorted record ids and the
/// sorted columns (`C-1001, C-1002; email, name`), carrying the CSV.
pub(crate) fn exported(to: &str, customers: &[&Customer], fields: &[Field]) -> Effect {
    let mut ids: Vec<u32> = customers.iter().map(|customer| customer.id).collect();
    ids.sort_unstable();
    ids.dedup();
    let ids: Vec<String> = ids.into_iter().map(|id| format_id('C', id)).collect();
    let columns = sorted_columns(fields);
    let names: Vec<&str> = columns.iter().map(|field| field.name()).collect();
    Effect::new(
        EffectKind::Send,
        to.to_lowercase(),
        format!("{}; {}", ids.join(", "), names.join(", ")),
    )
    .with_payload(csv(customers, &columns))
}

/// A full copy of a customer's record emailed to `to` (an access request): named as an export
/// of every field, since that is what left, and carrying the notes too.
pub(crate) fn record_sent(to: &str, customer: &Customer) -> Effect {
    let mut effect = exported(to, &[customer], &Field::ALL);
    effect.payload = record_copy(customer);
    effect
}

/// An email to one recipient: `Send` to the address, on its purpose (`service email`,
/// `marketing email`), carrying the subject and body.
pub(crate) fn emailed(address: &str, purpose: Purpose, subject: &str, body: &str) -> Effect {
    let purpose = match purpose {
        Purpose::Service => "service",
        Purpose::Marketing => "marketing",
    };
    Effect::new(
        EffectKind::Send,
        address.to_lowercase(),
        format!("{purpose} email"),
    )
    .with_payload(format!("{subject}\n\n{body}"))
}

/// A data-subject request closed: `Modify` of `R-701 fulfilled` or `R-701 rejected` (the
/// decision is the change), carrying the audit note.
pub(crate) fn request_closed(request: u32, resolution: Resolution, note: &str) -> Effect {
    let decision = match resolution {
        Resolution::Fulfil => "fulfilled",
        Resolution::Reject => "rejected",
    };
    Effect::new(
        EffectKind::Modify,
        "",
        format!("{} {decision}", format_id('R', request)),
    )
    .with_payload(note)
}

/// Every field of a customer as CSV, then their notes.
fn record_copy(customer: &Customer) -> String {
    let mut copy = csv(&[customer], &sorted_columns(&Field::ALL));
    for note in &customer.notes {
        copy.push('\n');
        copy.push_str(&note_line(note));
    }
    copy
}

/// `fields` without repeats, in the alphabetical order of their names.
fn sorted_columns(fields: &[Field]) -> Vec<Field> {
    let mut columns = fields.to_vec();
    columns.sort_unstable_by_key(|field| field.name());
    columns.dedup();
    columns
}

/// A header line of the column names, then a line per customer.
fn csv(customers: &[&Customer], columns: &[Field]) -> String {
    let header: Vec<&str> = columns.iter().map(|field| field.name()).collect();
    let mut lines = vec![header.join(",")];
    for customer in customers {
        let cells: Vec<String> = columns
            .iter()
            .map(|field| csv_cell(&field_value(customer, *field)))
            .collect();
        lines.push(cells.join(","));
    }
    lines.join("\n")
}

fn csv_cell(value: &str) -> String {
    if value.contains([',', '"', '\n']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value.to_owned()
    }
}

/// A customer's field as text; empty when it is not filled in.
fn field_value(customer: &Customer, field: Field) -> String {
    let optional = |value: &Option<Text>| value.as_deref().unwrap_or("").to_owned();
    match field {
        Field::Name => customer.name.to_string(),
        Field::Email => customer.email.to_string(),
        Field::Phone => customer.phone.to_string(),
        Field::Address => customer.address.to_string(),
        Field::DateOfBirth => optional(&customer.date_of_birth),
        Field::NationalId => optional(&customer.national_id),
        Field::SensitiveNote => optional(&customer.sensitive_note),
        Field::MarketingConsent => customer.marketing_consent.to_string(),
        Field::Segments => customer.segments.join(", "),
        Field::Account => customer
            .account
            .and_then(account_name)
            .unwrap_or("")
            .to_owned(),
        Field::Owner => customer.owner.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_with_commas_quotes_or_lines_are_quoted() {
        assert_eq!(csv_cell("Leeds"), "Leeds");
        assert_eq!(csv_cell("4 Canal Wharf, Leeds"), "\"4 Canal Wharf, Leeds\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn columns_sort_by_name_without_repeats() {
        let columns = sorted_columns(&[Field::Phone, Field::Name, Field::Email, Field::Phone]);
        assert_eq!(columns, [Field::Email, Field::Name, Field::Phone]);
        assert_eq!(sorted_columns(&Field::ALL).len(), Field::ALL.len());
    }
}
