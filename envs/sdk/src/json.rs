//! The JSON text of a `serde_json::Value`, byte for byte what `serde_json::to_string` writes,
//! with strings scanned eight bytes at a time.
//!
//! Every step hands the host its observation, and then its facts, as JSON text. serde_json
//! looks at a string's bytes one at a time to find the few it must escape; compiled to
//! WebAssembly that loop was the hottest function of a step in a guest (about a fifth of the
//! guest's time on a `list_files` step). Here a string is checked a 64-bit word at a time and
//! copied in runs.

use std::fmt::Write as _;

use serde_json::Value;

/// `value` as compact JSON text, identical to `serde_json::to_string(value)`.
pub(crate) fn to_text(value: &Value) -> String {
    let mut text = String::with_capacity(256);
    push_value(&mut text, value);
    text
}

fn push_value(text: &mut String, value: &Value) {
    match value {
        Value::Null => text.push_str("null"),
        Value::Bool(true) => text.push_str("true"),
        Value::Bool(false) => text.push_str("false"),
        // `Number`'s `Display` is its JSON form (a `Number` is never NaN or infinite).
        Value::Number(number) => write!(text, "{number}").expect("writing to a String"),
        Value::String(string) => push_string(text, string),
        Value::Array(items) => {
            text.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    text.push(',');
                }
                push_value(text, item);
            }
            text.push(']');
        }
        Value::Object(map) => {
            text.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    text.push(',');
                }
                push_string(text, key);
                text.push(':');
                push_value(text, item);
            }
            text.push('}');
        }
    }
}

/// `string` as a JSON string literal, escaped as serde_json escapes it: `\"`, `\\`, the short
/// escapes of backspace, tab, line feed, form feed and carriage return, and `\u00xx` for the
/// other control characters. Everything else, non-ASCII included, is copied as it is.
fn push_string(text: &mut String, string: &str) {
    let bytes = string.as_bytes();
    text.reserve(bytes.len() + 2);
    text.push('"');
    // `bytes[run..at]` needs no escape and is not copied yet.
    let mut run = 0;
    let mut at = 0;
    while at < bytes.len() {
        if let Some(word) = bytes.get(at..at + 8)
            && !any_needs_escape(u64::from_le_bytes(word.try_into().expect("eight bytes")))
        {
            at += 8;
            continue;
        }
        let byte = bytes[at];
        if needs_escape(byte) {
            // Escapes are ASCII, so `run` and `at` are on character boundaries.
            text.push_str(&string[run..at]);
            push_escape(text, byte);
            run = at + 1;
        }
        at += 1;
    }
    text.push_str(&string[run..]);
    text.push('"');
}

fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Whether any of the eight bytes of `word` needs an escape (exact: no false answers either
/// way, since a borrow only crosses into a byte above one that already matched).
fn any_needs_escape(word: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |word: u64, limit: u8| word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS;
    let equal = |word: u64, byte: u8| below(word ^ (ONES * u64::from(byte)), 1);
    below(word, 0x20) | equal(word, b'"') | equal(word, b'\\') != 0
}

fn push_escape(text: &mut String, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match byte {
        b'"' => text.push_str("\\\""),
        b'\\' => text.push_str("\\\\"),
        0x08 => text.push_str("\\b"),
        b'\t' => text.push_str("\\t"),
        b'\n' => text.push_str("\\n"),
        0x0c => text.push_str("\\f"),
        b'\r' => text.push_str("\\r"),
        _ => {
            text.push_str("\\u00");
            text.push(char::from(HEX[usize::from(byte >> 4)]));
            text.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Strings that put every ASCII byte, and multi-byte characters, at every offset of a word.
    fn strings() -> Vec<String> {
        let mut strings = vec![String::new()];
        for byte in 0..0x80u8 {
            let c = char::from(byte);
            for prefix in 0..9 {
                strings.push(format!(
                    "{}{c}{}",
                    "a".repeat(prefix),
                    "b".repeat(9 - prefix)
                ));
            }
        }
        for special in ["é", "€", "𝄞", "\u{7f}", "\u{2028}", "\u{fffd}"] {
            for prefix in 0..9 {
                strings.push(format!(
                    "{}{special}\"x\n{}",
                    "a".repeat(prefix),
                    "€".repeat(3)
                ));
            }
        }
        strings.push("plain text that is long enough to fill several words".to_owned());
        strings.push("line one\nline two\t\"quoted\" \\ back\u{1}\u{1f}".repeat(5));
        strings
    }

    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        for string in strings() {
            let value = Value::String(string.clone());
            assert_eq!(
                to_text(&value),
                serde_json::to_string(&value).unwrap(),
                "{string:?}"
            );
        }
    }

    #[test]
    fn values_are_written_as_serde_json_writes_them() {
        let keys: serde_json::Map<String, Value> = strings()
            .into_iter()
            .enumerate()
            .map(|(index, key)| (key, json!(index)))
            .collect();
        let values = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-17),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(0.1),
            json!(-2.5e-300),
            json!(1e21),
            json!(f64::MAX),
            json!([]),
            json!({}),
            json!([1, "two", [3.0], {"four": null}]),
            json!({"folder": "/", "files": ["/a.txt | 12 bytes", "/b \"c\".md"], "n": {"x": []}}),
            Value::Object(keys),
        ];
        for value in values {
            assert_eq!(to_text(&value), serde_json::to_string(&value).unwrap());
        }
    }

    #[test]
    fn the_word_check_agrees_with_the_byte_check() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let interesting = [
            0x00, 0x1f, 0x20, 0x21, b'"', 0x23, b'\\', 0x5b, 0x5d, 0x7f, 0x80, 0xff,
        ];
        for _ in 0..100_000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let mut bytes = seed.to_le_bytes();
            // Mostly ordinary bytes, with one or two chosen near the escape boundaries.
            for (slot, pick) in bytes.iter_mut().zip(seed.to_be_bytes()) {
                if pick % 5 == 0 {
                    *slot = interesting[usize::from(pick) % interesting.len()];
                } else if *slot < 0x20 || *slot == b'"' || *slot == b'\\' {
                    *slot = b'x';
                }
            }
            let word = u64::from_le_bytes(bytes);
            assert_eq!(
                any_needs_escape(word),
                bytes.iter().any(|&byte| needs_escape(byte)),
                "{bytes:?}"
            );
        }
    }
}
