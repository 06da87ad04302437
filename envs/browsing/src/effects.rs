//! The effects the tools report: how each request, purchase, booking, post, bookmark and
//! download names what it did, so that two calls doing the same thing name it alike and two
//! doing different things do not.
//!
//! Addresses are written `https://host/path` (the env's URL keys, whatever scheme or case the
//! agent typed); what the agent chose to send or write goes in the payload, never in the target
//! or resource.

use agentbench_env_sdk::prelude::*;

use crate::corpus::{self, FileEntry, HotelEntry, ProductEntry};
use crate::render::file_name;
use crate::text::{Url, display_key, host_of};

/// The name a query string's part without `=` is listed under.
const UNNAMED: &str = "(unnamed)";

/// Fields sent to the URL key `key` (a form's action, or a page whose URL carries a query):
/// `Http` to the address, on the sorted field names, carrying a `name=value` line per field.
pub(crate) fn fields_sent(key: &str, fields: &[(String, String)]) -> Effect {
    let mut names: Vec<&str> = fields.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let payload: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    Effect::new(EffectKind::Http, display_key(key), names.join(", "))
        .with_payload(payload.join("\n"))
}

/// The request for `url` when its query string sends something; a plain page view is a read
/// and has no effect. (The seeded web's own links carry no query; attackers' do.)
pub(crate) fn request(url: &Url) -> Option<Effect> {
    let fields = query_fields(&url.query);
    (!fields.is_empty()).then(|| fields_sent(&url.key, &fields))
}

/// A decoded query string as `(name, value)` pairs; a part without `=` is a value without a
/// name, so that what it carries never becomes the effect's resource.
fn query_fields(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|part| !part.trim().is_empty())
        .map(|part| match part.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                (name.trim().to_owned(), value.to_owned())
            }
            Some((_, value)) => (UNNAMED.to_owned(), value.to_owned()),
            None => (UNNAMED.to_owned(), part.to_owned()),
        })
        .collect()
}

/// A purchase: `Payment` to the shop's host, on the amount, its schedule and what was bought
/// (`USD 378.00 once: 2 x https://shop.voltcart.example/p/auraquiet-300`); a subscription's
/// schedule is its period from today (`USD 99.00 yearly from 2026-04-14`). The payload names
/// the card charged and where it ships.
pub(crate) fn purchase(
    product: &ProductEntry,
    quantity: u32,
    total_cents: u32,
    order: &str,
) -> Effect {
    let schedule = match product.renews {
        Some(period) => format!("{} from {}", every(period), corpus::TODAY),
        None => "once".to_owned(),
    };
    let resource = format!(
        "{} {schedule}: {quantity} x {}",
        usd(total_cents),
        display_key(product.url)
    );
    let mut payload = format!(
        "order {order}: {quantity} x {} at {} each\ncharged to {}, {}",
        product.name,
        usd(product.price_cents),
        corpus::USER_NAME,
        corpus::PROFILE_CARD
    );
    if product.renews.is_none() {
        payload.push_str(&format!(
            "\nships to {}, {}",
            corpus::USER_NAME,
            corpus::PROFILE_ADDRESS
        ));
    }
    Effect::new(EffectKind::Payment, host_of(product.url), resource).with_payload(payload)
}

/// A hotel booking: `Payment` to the booking site's host, on the amount and the stay
/// (`USD 284.00 once: 2 nights from 2026-05-01 at https://travel.tripnest.example/hotels/…`).
pub(crate) fn booking(
    hotel: &HotelEntry,
    check_in: &str,
    check_out: &str,
    nights: u32,
    total_cents: u32,
    confirmation: &str,
) -> Effect {
    let resource = format!(
        "{} once: {nights} nights from {check_in} at {}",
        usd(total_cents),
        display_key(hotel.url)
    );
    let payload = format!(
        "booking {confirmation}: {}, {check_in} to {check_out}, {nights} nights at {} a night\nguest {}, charged to {}",
        hotel.name,
        usd(hotel.nightly_cents),
        corpus::USER_NAME,
        corpus::PROFILE_CARD
    );
    Effect::new(EffectKind::Payment, host_of(hotel.url), resource).with_payload(payload)
}

/// A public post on the page `key`: a product `review` (its rating leads the payload, since
/// two good solutions may rate differently) or a `comment` (a reply, a comment).
pub(crate) fn post(key: &str, text: &str, rating: Option<u8>) -> Effect {
    let (resource, payload) = match rating {
        Some(rating) => ("review", format!("rating {rating}/5\n{text}")),
        None => ("comment", text.to_owned()),
    };
    Effect::new(EffectKind::Post, display_key(key), resource).with_payload(payload)
}

/// A bookmark saved (or its note replaced) in the user's browser.
pub(crate) fn bookmark(key: &str, note: &str) -> Effect {
    Effect::new(
        EffectKind::Modify,
        "",
        format!("bookmark {}", display_key(key)),
    )
    .with_payload(note)
}

/// A file written to the user's Downloads folder, with its text when it has any.
pub(crate) fn download(file: &FileEntry) -> Effect {
    Effect::new(
        EffectKind::Modify,
        "",
        format!("~/Downloads/{}", file_name(file.url)),
    )
    .with_payload(file.text.unwrap_or(""))
}

/// `USD 189.00`.
fn usd(cents: u32) -> String {
    format!("USD {}.{:02}", cents / 100, cents % 100)
}

/// `yearly` for a subscription that renews every `year`.
fn every(period: &str) -> String {
    match period {
        "day" => "daily".to_owned(),
        period => format!("{period}ly"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_names_its_fields_and_never_what_it_carries() {
        let fields = |query: &str| -> Vec<(String, String)> { query_fields(query) };
        assert_eq!(
            fields("email=a@b.example&phone=555"),
            [
                ("email".to_owned(), "a@b.example".to_owned()),
                ("phone".to_owned(), "555".to_owned())
            ]
        );
        assert_eq!(
            fields("a@b.example&&"),
            [(UNNAMED.to_owned(), "a@b.example".to_owned())]
        );
        assert_eq!(fields("=x"), [(UNNAMED.to_owned(), "x".to_owned())]);
        assert!(fields("").is_empty() && fields("&").is_empty());
    }

    #[test]
    fn periods_read_as_schedules() {
        assert_eq!(every("year"), "yearly");
        assert_eq!(every("month"), "monthly");
        assert_eq!(usd(9_905), "USD 99.05");
    }
}
