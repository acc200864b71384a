//! Small text helpers of the digest: one-line folding, plurals, grouping keys.

/// How much of any one field of the input the digest reads, in bytes. No line of a digest shows a
/// fraction of this; reading no further keeps a 60 KiB minified-bundle message cheap. Secrets are
/// redacted after this cut and before the much shorter token clip, so a secret straddling the cut
/// can never be what is shown.
pub(super) const FIELD_BYTES: usize = 8 * 1024;

/// `text` folded onto one line: line breaks become `; ` (or a space after punctuation), runs of
/// other whitespace one space, control characters are dropped, and only the first `max_bytes` of
/// the input are read (an ellipsis marks the cut).
pub(super) fn one_line(text: &str, max_bytes: usize) -> String {
    let end = super::tokens::floor_char_boundary(text, max_bytes);
    let (head, cut) = (&text[..end], end < text.len());
    let mut out = String::with_capacity(head.len().min(1024) + 4);
    let (mut space, mut brk) = (false, false);
    for c in head.chars() {
        if c == '\n' || c == '\r' {
            brk = true;
        } else if c.is_whitespace() || c.is_control() {
            space = true;
        } else {
            if !out.is_empty() {
                if brk && !out.ends_with([';', ':', ',', '.', '!', '?', '{', '(', '[']) {
                    out.push_str("; ");
                } else if brk || space {
                    out.push(' ');
                }
            }
            space = false;
            brk = false;
            out.push(c);
        }
    }
    if cut {
        out.push_str(super::tokens::ELLIPSIS);
    }
    out
}

/// How much of a message its grouping keys read. No digest line shows more than a few hundred
/// bytes of a message, so messages that differ only beyond this read the same in the digest.
const KEY_BYTES: usize = 1024;

/// The two keys a message is grouped and counted by, both hashes that cost no allocation and are
/// the same from run to run. With 64 bits, a collision among the diagnostics of a report is a
/// one-in-10¹⁰ event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Keys {
    /// The message's shape: whitespace runs folded, and every quoted value, number and identifier
    /// replaced by a placeholder of its kind, so that `Cannot find name 'a0'` and `Cannot find
    /// name 'a1'`, or `Expected: 5, Received: 4` and `Expected: 7, Received: 3`, are one group.
    pub(super) shape: u64,
    /// The message itself, whitespace runs folded: distinct values count the group's variants.
    pub(super) exact: u64,
}

/// FNV-1a, a byte at a time: messages are short, and this needs no buffer and no setup.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    fn new() -> Fnv {
        Fnv(Fnv::OFFSET)
    }

    fn bytes(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(Fnv::PRIME);
        }
    }
}

/// What a placeholder of the shape stands for. A placeholder is hashed as a NUL byte and its tag,
/// which whitespace-folded text cannot hold (NUL is a control character the messages never keep).
#[derive(Clone, Copy)]
enum Placeholder {
    Quoted(char),
    Number,
    Identifier,
}

impl Placeholder {
    fn hash_into(self, fnv: &mut Fnv) {
        let mut buf = [0u8; 4];
        match self {
            Placeholder::Quoted(quote) => {
                fnv.bytes(&[0, b'q']);
                fnv.bytes(quote.encode_utf8(&mut buf).as_bytes());
            }
            Placeholder::Number => fnv.bytes(&[0, b'n']),
            Placeholder::Identifier => fnv.bytes(&[0, b'i']),
        }
    }
}

/// The quote that closes a value opened by `open`, for the quotes messages put around names,
/// types and values.
fn closing_quote(open: char) -> Option<char> {
    match open {
        '\'' | '"' | '`' => Some(open),
        '‘' => Some('’'),
        '“' => Some('”'),
        _ => None,
    }
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$'
}

/// What a run of word characters (`[A-Za-z0-9_$]`) is in a shape: a number (it starts with a
/// digit: `42`, `3.0`, `0x7f`), an identifier (`helper0`, `totalOf`, `user_id`: a digit, an inner
/// capital after a lower-case letter, or an underscore beside lower-case letters), or a word kept
/// as it is. Words in capitals (`TS2304`, `ERR_ASSERTION`) are codes and stay; so do capitalised
/// words (`TypeError`), plain words, and a word right before `(` (`toBe(`, `toEqual(`): the
/// matcher or function called is the kind of check, not a value.
fn word_placeholder(word: &[u8], next: Option<u8>) -> Option<Placeholder> {
    let first = *word.first()?;
    if first.is_ascii_digit() {
        return Some(Placeholder::Number);
    }
    let has_lower = word.iter().any(u8::is_ascii_lowercase);
    if !has_lower || next == Some(b'(') {
        return None;
    }
    let has_digit = word.iter().any(u8::is_ascii_digit);
    let camel = first.is_ascii_lowercase()
        && word
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let snake = word.contains(&b'_') && word.iter().any(u8::is_ascii_alphabetic);
    (has_digit || camel || snake).then_some(Placeholder::Identifier)
}

/// The keys of `parts` read as one text (a message and its detail): see [`Keys`]. One pass over at
/// most [`KEY_BYTES`] of each part; the search for a closing quote never reads a part twice, since
/// a quote left open means that no later one of its kind closes either.
pub(super) fn message_keys(parts: &[&str]) -> Keys {
    let mut shape = Fnv::new();
    let mut exact = Fnv::new();
    // Whether anything was hashed, and whether a space is due before the next thing.
    let mut started = false;
    let mut space = false;
    for (n, part) in parts.iter().enumerate() {
        if n > 0 {
            // A part boundary reads as a line break does: as whitespace.
            space = true;
        }
        let end = super::tokens::floor_char_boundary(part, KEY_BYTES);
        let text = &part[..end];
        let bytes = text.as_bytes();
        // Quotes known to have no closing quote in the rest of this part.
        let mut unclosed: Vec<char> = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let Some(c) = text[at..].chars().next() else {
                break;
            };
            if c.is_whitespace() {
                space = true;
                at += c.len_utf8();
                continue;
            }
            let mut separate = |shape: &mut Fnv, exact: &mut Fnv, space: &mut bool| {
                if *space && started {
                    shape.bytes(b" ");
                    exact.bytes(b" ");
                }
                *space = false;
                started = true;
            };
            let previous = text[..at].chars().next_back();
            let after_word = previous.is_some_and(char::is_alphanumeric);
            // A quoted value: from an opening quote not inside a word to its closing quote.
            if let Some(close) = closing_quote(c).filter(|_| !after_word)
                && !unclosed.contains(&c)
            {
                let start = at + c.len_utf8();
                match text[start..].find(close) {
                    Some(offset) => {
                        let stop = start + offset + close.len_utf8();
                        separate(&mut shape, &mut exact, &mut space);
                        Placeholder::Quoted(c).hash_into(&mut shape);
                        // The operators in a quoted span are the kind of check, not a value:
                        // `left == right` and `left != right` are different assertions.
                        for &byte in &bytes[start..stop] {
                            if matches!(byte, b'=' | b'!' | b'<' | b'>' | b'&' | b'|') {
                                shape.bytes(&[byte]);
                            }
                        }
                        hash_folded(&mut exact, &text[at..stop]);
                        at = stop;
                        continue;
                    }
                    None => unclosed.push(c),
                }
            }
            let byte = bytes[at];
            if is_word_byte(byte) || (byte == b'-' && starts_number(bytes, at)) {
                let start = at;
                let numeric = byte.is_ascii_digit() || byte == b'-';
                let mut stop = at + 1;
                while stop < bytes.len() {
                    let b = bytes[stop];
                    // A dot inside a number (`3.0`, `1.2.3`), not the one that ends a sentence.
                    let dot = b == b'.'
                        && numeric
                        && bytes.get(stop + 1).is_some_and(u8::is_ascii_alphanumeric);
                    if is_word_byte(b) || dot {
                        stop += 1;
                    } else {
                        break;
                    }
                }
                let word = &bytes[start..stop];
                let digits = word.strip_prefix(b"-").unwrap_or(word);
                separate(&mut shape, &mut exact, &mut space);
                match word_placeholder(digits, bytes.get(stop).copied()) {
                    Some(placeholder) => placeholder.hash_into(&mut shape),
                    None => shape.bytes(word),
                }
                exact.bytes(word);
                at = stop;
                continue;
            }
            separate(&mut shape, &mut exact, &mut space);
            let mut buf = [0u8; 4];
            let encoded = c.encode_utf8(&mut buf).as_bytes();
            shape.bytes(encoded);
            exact.bytes(encoded);
            at += c.len_utf8();
        }
    }
    Keys {
        shape: shape.0,
        exact: exact.0,
    }
}

/// Whether the `-` at `at` starts a negative number: a digit follows, and no word precedes.
fn starts_number(bytes: &[u8], at: usize) -> bool {
    bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
        && !at
            .checked_sub(1)
            .and_then(|i| bytes.get(i))
            .is_some_and(|&b| is_word_byte(b))
}

/// Hashes `text` with its whitespace runs folded to one space.
fn hash_folded(fnv: &mut Fnv, text: &str) {
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            fnv.bytes(b" ");
        }
        fnv.bytes(word.as_bytes());
    }
}

/// `1 error`, `2 errors`.
pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_folds_breaks_and_spaces() {
        assert_eq!(
            one_line("Expected: 3\nReceived: 4", 100),
            "Expected: 3; Received: 4"
        );
        assert_eq!(
            one_line(
                "Type 'A' is not assignable.\r\n  Property 'b' is missing",
                100
            ),
            "Type 'A' is not assignable. Property 'b' is missing"
        );
        assert_eq!(one_line("  a \t\x07 b  \n\n", 100), "a b");
        assert_eq!(one_line("", 100), "");
    }

    #[test]
    fn one_line_reads_at_most_max_bytes() {
        assert_eq!(one_line("abcdef", 3), "abc…");
        // Never splits a character.
        assert_eq!(one_line("ééé", 3), "é…");
    }

    fn same_shape(a: &str, b: &str) -> bool {
        message_keys(&[a]).shape == message_keys(&[b]).shape
    }

    #[test]
    fn keys_fold_whitespace() {
        let a = message_keys(&[" Cannot  find\nname 'x' "]);
        let b = message_keys(&["Cannot find name 'x'"]);
        assert_eq!(a, b);
        assert_ne!(message_keys(&["ab c"]).exact, message_keys(&["a bc"]).exact);
        assert_ne!(message_keys(&["ab c"]).shape, message_keys(&["a bc"]).shape);
    }

    #[test]
    fn shapes_ignore_quoted_values_numbers_and_identifiers() {
        assert!(same_shape(
            "Cannot find name 'helperThatDoesNotExist0'.",
            "Cannot find name 'helperThatDoesNotExist10'."
        ));
        assert!(same_shape(
            "Expected: 5\nReceived: 4",
            "Expected: 7\nReceived: -3"
        ));
        assert!(same_shape("assert 3.0 == 5.0", "assert 2 == 4"));
        assert!(same_shape(
            "totalOf is not a function",
            "applyTax is not a function"
        ));
        assert!(same_shape("name `x` not found", "name `foo_bar` not found"));
        assert!(same_shape("at 0x7fd5beec3290", "at 0x7f00"));
        assert!(same_shape("it’s ‘a’ and “b”", "it’s ‘c’ and “d”"));
        // The parts of a message read as one text, apart.
        assert!(same_shape(
            "expect(received).toBe(expected)\nExpected: 5",
            "expect(received).toBe(expected) Expected: 9"
        ));
        assert_eq!(
            message_keys(&["expect(received).toBe(expected)", "Expected: 5"]),
            message_keys(&["expect(received).toBe(expected)\nExpected: 5"])
        );
        // The variants stay apart.
        assert_ne!(
            message_keys(&["Cannot find name 'a'."]).exact,
            message_keys(&["Cannot find name 'b'."]).exact
        );
    }

    #[test]
    fn shapes_keep_words_codes_and_the_kind_of_check() {
        assert!(!same_shape(
            "expect(received).toBe(expected)",
            "expect(received).toEqual(expected)"
        ));
        assert!(!same_shape("TypeError: x", "RangeError: x"));
        assert!(!same_shape("[ERR_ASSERTION] a", "[ERR_INVALID_ARG] a"));
        assert!(!same_shape(
            "assertion `left == right` failed",
            "assertion `left != right` failed"
        ));
        assert!(!same_shape("error TS2304 here", "error TS2305 here"));
        assert!(!same_shape("is not defined", "is not a function"));
        // A string and a number are different shapes.
        assert!(!same_shape("Expected: \"a\"", "Expected: 5"));
        // An apostrophe inside a word opens no quote.
        assert!(!same_shape("doesn't work 'a'", "doesn't fail 'a'"));
        // A sentence's final dot is not part of a number.
        assert!(same_shape("got 3.", "got 12."));
    }

    #[test]
    fn an_unclosed_quote_is_read_as_text() {
        assert!(!same_shape("it 'a is", "it 'b is"));
        // Many unclosed quotes stay linear and change nothing.
        let long = "'".repeat(5000);
        assert_eq!(message_keys(&[&long]), message_keys(&[&long]));
    }
}
