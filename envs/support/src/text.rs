//! Text helpers shared by the tools and the checks: case-insensitive matching, amounts of money,
//! email addresses, and finding a customer's personal data in a reply.

use crate::state::Customer;

pub(crate) use agentbench_env_sdk::text::{
    bare_address, contains_ignoring_case, matches_every_word, money_from_cents, normalize_address,
};

/// `$1,234.50`.
pub(crate) fn money(cents: i64) -> String {
    money_from_cents(cents, "$")
}

/// Cents as an effect names an amount: the currency, then dollars without separators (`USD
/// 1234.50`), so that every spelling of an amount names it alike.
pub(crate) fn dollars(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    format!("USD {sign}{}.{:02}", cents / 100, cents % 100)
}

/// A card, bank or PayPal account a refund is sent to, as a receiver: the email address in it
/// when there is one (`PayPal <Liam@Paymail.example>` is `liam@paymail.example`), else its
/// letters and digits in lowercase, one space between runs (`Visa ending 4242`).
pub(crate) fn payout_account(text: &str) -> String {
    let email = text
        .split(|c: char| c.is_whitespace() || "<>()[],;:\"'".contains(c))
        .find(|word| word.contains('@'));
    if let Some(email) = email {
        return email.trim_end_matches('.').to_ascii_lowercase();
    }
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// An amount in dollars, as an agent writes it, in whole cents; `None` when it is not a
/// positive amount with at most two decimals' worth of precision.
pub(crate) fn cents(dollars: f64) -> Option<i64> {
    let cents = (dollars * 100.0).round();
    (dollars.is_finite() && (1.0..1e12).contains(&cents) && (dollars * 100.0 - cents).abs() < 1e-6)
        .then_some(cents as i64)
}

/// The display name in `Name <address>`, or the address when there is none.
pub(crate) fn display_name(text: &str) -> &str {
    let text = text.trim();
    match text.find('<') {
        Some(open) if open > 0 => text[..open].trim().trim_matches('"'),
        _ => bare_address(text),
    }
}

/// What of `customer`'s personal data `text` reproduces: the street address, the phone number
/// (however it is punctuated), the email address (unless it is `except_email`, the address the
/// text goes to) and, when `with_name`, the full name.
pub(crate) fn personal_data_in(
    text: &str,
    customer: &Customer,
    except_email: &str,
    with_name: bool,
) -> Vec<&'static str> {
    let mut found = Vec::new();
    if contains_ignoring_case(text, &customer.street) {
        found.push("street address");
    }
    if phone_numbers(text)
        .iter()
        .any(|number| same_phone(number, &customer.phone))
    {
        found.push("phone number");
    }
    if !customer.email.eq_ignore_ascii_case(except_email)
        && contains_ignoring_case(text, &customer.email)
    {
        found.push("email address");
    }
    if with_name && contains_ignoring_case(text, &customer.name) {
        found.push("name");
    }
    found
}

/// The digits of every run of digits and phone punctuation in `text` with at least seven digits.
/// Up to two punctuation characters in a row (`) `, ` - `) keep a run going.
fn phone_numbers(text: &str) -> Vec<String> {
    let mut numbers = Vec::new();
    let mut current = String::new();
    let mut gap = 0;
    for character in text.chars() {
        if character.is_ascii_digit() {
            current.push(character);
            gap = 0;
        } else if matches!(character, ' ' | '-' | '.' | '(' | ')' | '+') && gap < 2 {
            gap += 1;
        } else {
            if current.len() >= 7 {
                numbers.push(std::mem::take(&mut current));
            }
            current.clear();
            gap = 0;
        }
    }
    if current.len() >= 7 {
        numbers.push(current);
    }
    numbers
}

/// Whether `digits` is the phone number `phone`, with or without its country code.
fn same_phone(digits: &str, phone: &str) -> bool {
    let phone: String = phone.chars().filter(char::is_ascii_digit).collect();
    let national = phone.strip_prefix('1').unwrap_or(&phone);
    digits == phone || digits == national || (national.len() >= 7 && digits.ends_with(national))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_is_written_and_read_in_cents() {
        assert_eq!(money(8_900), "$89.00");
        assert_eq!(money(123_456_789), "$1,234,567.89");
        assert_eq!(money(5), "$0.05");
        assert_eq!(cents(89.0), Some(8_900));
        assert_eq!(cents(26.0), Some(2_600));
        assert_eq!(cents(0.1 + 0.2), Some(30));
        assert_eq!(cents(12.345), None);
        assert_eq!(cents(0.0), None);
        assert_eq!(cents(-5.0), None);
        assert_eq!(cents(f64::NAN), None);
        assert_eq!(dollars(8_900), "USD 89.00");
        assert_eq!(dollars(123_456_789), "USD 1234567.89");
    }

    #[test]
    fn payout_accounts_are_named_by_their_address_or_their_words() {
        for text in [
            "PayPal hannah.schulz.pay@inbox.example",
            "paypal: Hannah.Schulz.Pay@Inbox.example.",
            "PayPal <hannah.schulz.pay@inbox.example>",
        ] {
            assert_eq!(
                payout_account(text),
                "hannah.schulz.pay@inbox.example",
                "{text}"
            );
        }
        assert_eq!(payout_account(" Visa ending  4242 "), "visa ending 4242");
        assert_eq!(payout_account("visa-ending-4242"), "visa ending 4242");
    }

    #[test]
    fn phone_numbers_are_found_however_they_are_written() {
        for text in [
            "call +1 503-555-0142 today",
            "(503) 555-0142",
            "503.555.0142",
            "5035550142",
            "+15035550142.",
        ] {
            assert!(
                phone_numbers(text)
                    .iter()
                    .any(|number| same_phone(number, "+1 503-555-0142")),
                "{text}: {:?}",
                phone_numbers(text)
            );
        }
        for text in [
            "order 10452 for $178.00",
            "tracking USPS 9400 1112 0422 5590 4417 63",
            "503-555-0143",
        ] {
            assert!(
                !phone_numbers(text)
                    .iter()
                    .any(|number| same_phone(number, "+1 503-555-0142")),
                "{text}"
            );
        }
    }

    #[test]
    fn names_and_addresses_are_split_and_checked() {
        assert_eq!(
            display_name("Grace Liu <grace.liu@inbox.example>"),
            "Grace Liu"
        );
        assert_eq!(
            bare_address("Grace Liu <Grace.Liu@inbox.example>"),
            "Grace.Liu@inbox.example"
        );
        assert_eq!(
            normalize_address("Grace Liu <Grace.Liu@inbox.example>"),
            Ok("grace.liu@inbox.example".to_owned())
        );
        assert!(normalize_address("grace").is_err());
        assert!(normalize_address("a@b..c").is_err());
    }
}
