//! Text helpers shared by the tools and the checks: case-insensitive matching, email addresses,
//! IBANs and amounts of money.

pub(crate) use agentbench_env_sdk::text::{
    bare_address, contains_ignoring_case, matches_every_word, money_from_cents, normalize_address,
};

/// Checks an IBAN (spaces and hyphens allowed, any case) and returns it compact and uppercase:
/// a country code, two check digits and up to 30 letters or digits whose ISO 13616 checksum
/// (mod 97) holds, so a mistyped digit is caught as a real bank would catch it.
pub(crate) fn normalize_iban(text: &str) -> Result<String, String> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let bytes = compact.as_bytes();
    let shaped = (15..=34).contains(&bytes.len())
        && bytes[..2].iter().all(u8::is_ascii_uppercase)
        && bytes[2..4].iter().all(u8::is_ascii_digit)
        && bytes[4..].iter().all(u8::is_ascii_alphanumeric);
    if !shaped {
        return Err(format!(
            "`{text}` is not an IBAN: expected a country code, two check digits and the account \
             number, such as NL91 ABNA 0417 1643 00"
        ));
    }
    // The checksum runs over the account part followed by the country code and check digits,
    // letters counting as 10 to 35.
    let mut remainder = 0u32;
    for &byte in bytes[4..].iter().chain(&bytes[..4]) {
        let value = if byte.is_ascii_digit() {
            u32::from(byte - b'0')
        } else {
            u32::from(byte - b'A') + 10
        };
        remainder = if value >= 10 {
            (remainder * 100 + value) % 97
        } else {
            (remainder * 10 + value) % 97
        };
    }
    if remainder == 1 {
        Ok(compact)
    } else {
        Err(format!(
            "`{text}` is not a valid IBAN: its check digits do not match (a mistyped digit?)"
        ))
    }
}

/// A compact IBAN in groups of four, as banks print it.
pub(crate) fn display_iban(compact: &str) -> String {
    let mut text = String::with_capacity(compact.len() + compact.len() / 4);
    for (index, c) in compact.chars().enumerate() {
        if index > 0 && index % 4 == 0 {
            text.push(' ');
        }
        text.push(c);
    }
    text
}

/// An amount in euros as the agent gives it, in cents: positive, at most two decimals, at most
/// ten million.
pub(crate) fn amount_cents(amount: f64) -> Result<i64, String> {
    if !amount.is_finite() || amount <= 0.0 {
        return Err(format!("the amount must be positive, not {amount}"));
    }
    if amount > 10_000_000.0 {
        return Err(format!("the amount {amount} is too large"));
    }
    let cents = (amount * 100.0).round();
    if (amount * 100.0 - cents).abs() > 1e-6 {
        return Err(format!("the amount {amount} has more than two decimals"));
    }
    Ok(cents as i64)
}

/// Cents as euros with thousands separators: `-1,450.00`.
pub(crate) fn money(cents: i64) -> String {
    money_from_cents(cents, "")
}

/// Cents as an effect names an amount: the currency, then euros without separators (`EUR
/// 1184.00`), so that every spelling of an amount names it alike.
pub(crate) fn euros(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    format!("EUR {sign}{}.{:02}", cents / 100, cents % 100)
}

/// Cents as a signed amount in a listing: `+3,200.00` or `-84.20`.
pub(crate) fn signed_money(cents: i64) -> String {
    if cents > 0 {
        format!("+{}", money(cents))
    } else {
        money(cents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibans_are_normalized_checked_and_displayed() {
        assert_eq!(
            normalize_iban("nl91 abna 0417 1643 00"),
            Ok("NL91ABNA0417164300".to_owned())
        );
        assert_eq!(
            normalize_iban("IE29-AIBK-9311-5212-3456-78"),
            Ok("IE29AIBK93115212345678".to_owned())
        );
        for text in [
            "NL91 ABNA 0417 1643 01",
            "NL91",
            "9191 ABNA 0417 1643 00",
            "NL91 ABNA 0417 1643 0!",
        ] {
            assert!(normalize_iban(text).is_err(), "{text}");
        }
        assert_eq!(display_iban("NL91ABNA0417164300"), "NL91 ABNA 0417 1643 00");
    }

    #[test]
    fn amounts_convert_to_cents_and_format_back() {
        assert_eq!(amount_cents(84.2), Ok(8420));
        assert_eq!(amount_cents(1184.0), Ok(118_400));
        assert_eq!(amount_cents(0.01), Ok(1));
        for amount in [0.0, -5.0, 1.005, f64::NAN, 2e7] {
            assert!(amount_cents(amount).is_err(), "{amount}");
        }
        assert_eq!(money(145_000), "1,450.00");
        assert_eq!(money(-8420), "-84.20");
        assert_eq!(money(123_456_789), "1,234,567.89");
        assert_eq!(signed_money(320_000), "+3,200.00");
        assert_eq!(signed_money(5), "+0.05");
        assert_eq!(euros(118_400), "EUR 1184.00");
        assert_eq!(euros(5), "EUR 0.05");
    }

    #[test]
    fn addresses_are_normalized_or_rejected() {
        assert_eq!(
            normalize_address("Ruud Bakker <Ruud@Bakker-Fiscaal.example>"),
            Ok("ruud@bakker-fiscaal.example".to_owned())
        );
        for text in ["ruud", "@x.example", "a@localhost", "a b@c.d"] {
            assert!(normalize_address(text).is_err(), "{text}");
        }
    }
}
