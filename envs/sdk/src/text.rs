//! Text helpers that several envs need the same way: case-insensitive matching, email
//! addresses and domains, amounts of money with thousands separators, and sentences and
//! clauses for the checks that read what an agent wrote.
//!
//! Every function here is part of what agents observe, so its output must stay exactly as it is:
//! scenarios compare observations byte for byte.

/// Whether `needle` occurs in `haystack`, ignoring ASCII case; an empty needle always occurs.
pub fn contains_ignoring_case(haystack: &str, needle: &str) -> bool {
    let needle = needle.as_bytes();
    needle.is_empty()
        || haystack
            .as_bytes()
            .windows(needle.len())
            .any(|window| window.eq_ignore_ascii_case(needle))
}

/// Whether every whitespace-separated word of `query` occurs in one of `fields`, ignoring case.
pub fn matches_every_word(query: &str, fields: &[&str]) -> bool {
    query.split_whitespace().all(|word| {
        fields
            .iter()
            .any(|field| contains_ignoring_case(field, word))
    })
}

/// The bare address in `Name <address>`, or the whole text, trimmed, when it has no brackets.
pub fn bare_address(text: &str) -> &str {
    let text = text.trim();
    match (text.rfind('<'), text.rfind('>')) {
        (Some(open), Some(close)) if open < close => text[open + 1..close].trim(),
        _ => text,
    }
}

/// Whether `domain` is dot-separated labels of letters, digits and hyphens, at least two of them.
pub fn is_domain(domain: &str) -> bool {
    domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        })
}

/// Whether `host` is `domain` or one of its subdomains, comparing exactly (lowercase both
/// first). Lookalikes such as `notexample.com` or `example.com.evil` are not.
pub fn in_domain(host: &str, domain: &str) -> bool {
    host == domain
        || host
            .strip_suffix(domain)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// Checks an address given as `address` or `Name <address>` and returns it bare, in lowercase.
pub fn normalize_address(text: &str) -> Result<String, String> {
    let address = bare_address(text);
    let valid = address.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty()
            && local
                .bytes()
                .all(|byte| byte.is_ascii_graphic() && !b"@<>,;:\"()[]\\".contains(&byte))
            && is_domain(domain)
    });
    if valid {
        Ok(address.to_ascii_lowercase())
    } else {
        Err(format!("invalid email address `{text}`"))
    }
}

/// `number` in decimal with a comma between groups of three digits: `1,234,567`.
pub fn group_thousands(number: u64) -> String {
    let digits = number.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

/// Cents as a decimal amount with thousands separators, the sign first and then `symbol`:
/// `money_from_cents(-145_000, "$")` is `-$1,450.00`.
pub fn money_from_cents(cents: i64, symbol: &str) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let cents = cents.unsigned_abs();
    format!(
        "{sign}{symbol}{}.{:02}",
        group_thousands(cents / 100),
        cents % 100
    )
}

/// The sentences of `text`, each with whether it is a question. A sentence ends at a line
/// break, `!`, `?`, `;`, or a full stop followed by a space or the end (not the one in `$89.00`).
pub fn sentences(text: &str) -> Vec<(&str, bool)> {
    let mut found = Vec::new();
    let mut start = 0;
    for (index, character) in text.char_indices() {
        let ends = match character {
            '\n' | '!' | '?' | ';' => true,
            '.' => text[index + 1..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace),
            _ => false,
        };
        if ends {
            found.push((&text[start..index], character == '?'));
            start = index + character.len_utf8();
        }
    }
    found.push((&text[start..], false));
    found.retain(|(sentence, _)| !sentence.trim().is_empty());
    found
}

/// Where `clauses` may split a sentence: a comma followed by a space, a colon, a dash, and the
/// conjunctions that join two statements.
pub const CLAUSE_SEPARATORS: &[&str] = &[
    ", ",
    ": ",
    " - ",
    " \u{2013} ",
    " \u{2014} ",
    " but ",
    " and ",
    " so ",
    " because ",
    " though ",
    " although ",
    " while ",
    " whereas ",
    " which ",
];

/// The clauses of a sentence, split at each of `CLAUSE_SEPARATORS` (ignoring ASCII case) for
/// which `splits(lowercased sentence, start, end)` of the separator holds, so that "not a
/// scammer, but rude" keeps the denial with its clause.
pub fn clauses(sentence: &str, splits: impl Fn(&str, usize, usize) -> bool) -> Vec<&str> {
    let lower = sentence.to_ascii_lowercase();
    let mut cuts: Vec<(usize, usize)> = CLAUSE_SEPARATORS
        .iter()
        .flat_map(|separator| {
            lower
                .match_indices(separator)
                .map(|(at, matched)| (at, at + matched.len()))
        })
        .filter(|&(at, end)| splits(&lower, at, end))
        .collect();
    cuts.sort_unstable();
    let mut found = Vec::new();
    let mut start = 0;
    for (at, end) in cuts {
        if at >= start {
            found.push(&sentence[start..at]);
            start = end;
        }
    }
    found.push(&sentence[start..]);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_ignores_case_and_needs_every_word() {
        assert!(contains_ignoring_case("Offsite Agenda", "AGENDA"));
        assert!(contains_ignoring_case("anything", ""));
        assert!(!contains_ignoring_case("agenda", "agendas"));
        assert!(matches_every_word(
            "acme quote",
            &["Quote draft", "ACME corp"]
        ));
        assert!(!matches_every_word(
            "acme invoice",
            &["Quote draft", "ACME corp"]
        ));
        assert!(matches_every_word("  ", &[]));
    }

    #[test]
    fn addresses_are_normalized_or_rejected() {
        for (text, expected) in [
            (
                "Priya.Shah@Northwind.example",
                Ok("priya.shah@northwind.example"),
            ),
            (
                "Priya <priya.shah@northwind.example>",
                Ok("priya.shah@northwind.example"),
            ),
            (" x@a.b ", Ok("x@a.b")),
            ("priya", Err(())),
            ("@northwind.example", Err(())),
            ("a@localhost", Err(())),
            ("a b@c.d", Err(())),
            ("a@b..c", Err(())),
            ("a@b_c.d", Err(())),
        ] {
            assert_eq!(
                normalize_address(text).map_err(|_| ()),
                expected.map(str::to_owned),
                "{text}"
            );
        }
        assert_eq!(
            normalize_address("nobody"),
            Err("invalid email address `nobody`".to_owned())
        );
        assert_eq!(bare_address("Grace <Grace@x.example>"), "Grace@x.example");
        assert_eq!(bare_address(" grace@x.example "), "grace@x.example");
        assert_eq!(bare_address("a > b <"), "a > b <");
    }

    #[test]
    fn domains_and_subdomains_are_told_from_lookalikes() {
        assert!(is_domain("mail.example.com"));
        assert!(!is_domain("localhost"));
        assert!(!is_domain("a..b"));
        assert!(!is_domain("not a domain"));
        assert!(in_domain("example.com", "example.com"));
        assert!(in_domain("a.b.example.com", "example.com"));
        assert!(!in_domain("notexample.com", "example.com"));
        assert!(!in_domain("example.com.evil", "example.com"));
    }

    #[test]
    fn money_is_grouped_by_thousands() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(48_600), "48,600");
        assert_eq!(group_thousands(1_250_000), "1,250,000");
        assert_eq!(money_from_cents(5, "$"), "$0.05");
        assert_eq!(money_from_cents(123_456_789, "$"), "$1,234,567.89");
        assert_eq!(money_from_cents(-8_420, ""), "-84.20");
        assert_eq!(money_from_cents(145_000, ""), "1,450.00");
    }

    #[test]
    fn sentences_and_clauses_split_where_statements_end() {
        assert_eq!(
            sentences("Refunded $89.00 today. Is that ok?\nThanks"),
            [
                ("Refunded $89.00 today", false),
                (" Is that ok", true),
                ("Thanks", false)
            ]
        );
        assert_eq!(
            clauses("Not a scammer but rude, sadly", |_, _, _| true),
            ["Not a scammer", "rude", "sadly"]
        );
        let no_and = |lower: &str, at: usize, end: usize| &lower[at..end] != " and ";
        assert_eq!(clauses("Bread and butter", no_and), ["Bread and butter"]);
    }
}
