//! BERT's uncased WordPiece tokenizer, as the model's `tokenizer.json` configures it: clean the
//! text, space out CJK ideographs, strip accents, lowercase, split on whitespace and punctuation,
//! then cut each word into the longest pieces the vocabulary has (`##` marks a continuation).

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// Words longer than this (in characters) become `[UNK]`, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary and the ids of the special tokens.
#[derive(Debug, Clone)]
pub struct Tokenizer {
    ids: HashMap<String, u32>,
    pub cls: u32,
    pub sep: u32,
    pub unk: u32,
}

impl Tokenizer {
    /// The vocabulary in `vocab.txt` form: one token a line, its id the line number.
    pub fn from_vocab(text: &str) -> Result<Tokenizer, String> {
        let ids: HashMap<String, u32> = text
            .lines()
            .enumerate()
            .map(|(id, token)| (token.to_owned(), id as u32))
            .collect();
        let special = |token: &str| {
            ids.get(token)
                .copied()
                .ok_or_else(|| format!("the vocabulary has no `{token}`"))
        };
        Ok(Tokenizer {
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            unk: special("[UNK]")?,
            ids,
        })
    }

    /// `[CLS]`, the pieces of `text`, `[SEP]`; at most `max_len` ids (the text is cut).
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let mut ids = vec![self.cls];
        for word in words(&normalize(text)) {
            self.pieces(&word, &mut ids);
            if ids.len() >= max_len - 1 {
                break;
            }
        }
        ids.truncate(max_len - 1);
        ids.push(self.sep);
        ids
    }

    /// Appends the WordPiece ids of one word: `[UNK]` when any part of it is not in the
    /// vocabulary.
    fn pieces(&self, word: &str, ids: &mut Vec<u32>) {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > MAX_WORD_CHARS {
            ids.push(self.unk);
            return;
        }
        let first = ids.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < chars.len() {
            let found = (start + 1..=chars.len()).rev().find_map(|end| {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.extend(&chars[start..end]);
                self.ids.get(&piece).map(|id| (*id, end))
            });
            match found {
                Some((id, end)) => {
                    ids.push(id);
                    start = end;
                }
                None => {
                    ids.truncate(first);
                    ids.push(self.unk);
                    return;
                }
            }
        }
    }
}

/// BERT's normaliser: control characters dropped, whitespace made a space, CJK ideographs
/// spaced out, accents stripped (NFD without its combining marks), lowercased.
fn normalize(text: &str) -> String {
    let mut clean = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            clean.push(' ');
        } else if is_cjk(c) {
            clean.push(' ');
            clean.push(c);
            clean.push(' ');
        } else {
            clean.push(c);
        }
    }
    clean
        .nfd()
        .filter(|c| c.general_category() != GeneralCategory::NonspacingMark)
        .flat_map(char::to_lowercase)
        .collect()
}

/// Splits on whitespace and makes every punctuation character a word of its own.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if is_whitespace(c) || is_punctuation(c) {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            if is_punctuation(c) {
                words.push(c.to_string());
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r') || c.general_category() == GeneralCategory::SpaceSeparator
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r')
        && matches!(
            c.general_category(),
            GeneralCategory::Control | GeneralCategory::Format
        )
}

/// ASCII symbols count as punctuation too, as in BERT.
fn is_punctuation(c: char) -> bool {
    matches!(c as u32, 33..=47 | 58..=64 | 91..=96 | 123..=126)
        || c.general_category_group() == GeneralCategoryGroup::Punctuation
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_strips_accents_and_case_and_spaces_out_ideographs() {
        assert_eq!(normalize("Café\tÜBER\u{200b}東京"), "cafe uber 東  京 ");
    }

    #[test]
    fn punctuation_and_ascii_symbols_are_words_of_their_own() {
        assert_eq!(
            words("send_email {\"to\":x} — ok"),
            [
                "send", "_", "email", "{", "\"", "to", "\"", ":", "x", "}", "—", "ok"
            ]
        );
    }

    #[test]
    fn a_word_is_cut_into_the_longest_pieces_and_unknown_when_a_piece_is_missing() {
        let tokenizer =
            Tokenizer::from_vocab("[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##want\n##ed\nwant\n").unwrap();
        assert_eq!(tokenizer.encode("unwanted want", 16), [2, 4, 5, 6, 7, 3]);
        assert_eq!(tokenizer.encode("unwantedx", 16), [2, 1, 3]);
        assert_eq!(tokenizer.encode("want want want", 4), [2, 7, 7, 3]);
    }
}
