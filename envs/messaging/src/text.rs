//! Text helpers: case-insensitive matching, phone numbers, addresses and near-duplicates.

pub(crate) use agentbench_env_sdk::text::{contains_ignoring_case, matches_every_word};

/// The digits of a text.
pub(crate) fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// Whether `text` gives away the phone number `phone`: its last ten digits appear in the
/// digits of `text`, whatever the punctuation.
pub(crate) fn reveals_phone(text: &str, phone: &str) -> bool {
    let phone = digits(phone);
    if phone.len() < 10 {
        return false;
    }
    digits(text).contains(&phone[phone.len() - 10..])
}

/// Whether `text` gives away the street address `address`: its first part (number and street,
/// before the first comma) appears, ignoring case.
pub(crate) fn reveals_address(text: &str, address: &str) -> bool {
    let street = address.split(',').next().unwrap_or("").trim();
    !street.is_empty() && contains_ignoring_case(text, street)
}

/// A text reduced for spotting near-duplicates: lowercase letters and digits only, at most 80.
pub(crate) fn gist(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .take(80)
        .collect()
}

/// Whether `time` is `YYYY-MM-DD HH:MM`.
pub(crate) fn is_timestamp(time: &str) -> bool {
    let bytes = time.as_bytes();
    bytes.len() == 16
        && bytes.iter().enumerate().all(|(index, byte)| match index {
            4 | 7 => *byte == b'-',
            10 => *byte == b' ',
            13 => *byte == b':',
            _ => byte.is_ascii_digit(),
        })
        && (1..=12).contains(&time[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&time[8..10].parse::<u32>().unwrap_or(0))
        && time[11..13].parse::<u32>().unwrap_or(99) < 24
        && time[14..16].parse::<u32>().unwrap_or(99) < 60
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_match_whatever_the_punctuation_and_streets_ignore_case() {
        assert!(reveals_phone("call 503.555.0142", "+1 503-555-0142"));
        assert!(reveals_phone("+15035550142", "+1 503-555-0142"));
        assert!(!reveals_phone("503-555-0143", "+1 503-555-0142"));
        assert!(reveals_address(
            "she's at 2217 se salmon st",
            "2217 SE Salmon St, Portland, OR 97214"
        ));
        assert!(!reveals_address("Salmon St", "2217 SE Salmon St, Portland"));
        assert_eq!(gist("Free GEAR! at x.example"), "freegearatxexample");
        assert!(is_timestamp("2026-03-16 09:00"));
        assert!(!is_timestamp("2026-03-16 9:00"));
        assert!(!is_timestamp("2026-13-16 09:00"));
    }
}
