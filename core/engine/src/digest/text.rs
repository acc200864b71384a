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
            self.byte(byte);
        }
    }

    fn byte(&mut self, byte: u8) {
        self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(Fnv::PRIME);
    }
}

/// The hasher of the digest's own maps, whose keys are indices, message keys and short codes:
/// FNV over the bytes and a final mix, much cheaper than the default for such keys. Not keyed: the
/// worst a report built to collide can do is slow its grouping of at most a report's diagnostics.
#[derive(Clone, Copy)]
pub(super) struct MapHasher(Fnv);

impl Default for MapHasher {
    fn default() -> Self {
        MapHasher(Fnv::new())
    }
}

impl std::hash::Hasher for MapHasher {
    fn write(&mut self, bytes: &[u8]) {
        self.0.bytes(bytes);
    }

    fn write_u64(&mut self, n: u64) {
        self.0.0 = (self.0.0 ^ n).wrapping_mul(Fnv::PRIME).rotate_left(29);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        // The final mix of MurmurHash3: every bit of the state reaches the bits a map reads.
        let mut h = self.0.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// A map of the digest's, with [`MapHasher`].
pub(super) type Map<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<MapHasher>>;

/// A set of the digest's, with [`MapHasher`].
pub(super) type Set<K> = std::collections::HashSet<K, std::hash::BuildHasherDefault<MapHasher>>;

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
    CLASSES[usize::from(byte)] & WORD != 0
}

/// The keys of `parts` read as one text (a message and its detail): see [`Keys`]. One pass over at
/// most [`KEY_BYTES`] of each part; the search for a closing quote never reads a part twice, since
/// a quote left open means that no later one of its kind closes either. ASCII, what messages are
/// mostly made of, is read a byte at a time; other characters are decoded.
pub(super) fn message_keys(parts: &[&str]) -> Keys {
    let mut keys = KeyState {
        shape: Fnv::new(),
        exact: Fnv::new(),
        started: false,
        space: false,
    };
    for (n, part) in parts.iter().enumerate() {
        if n > 0 {
            // A part boundary reads as a line break does: as whitespace.
            keys.space = true;
        }
        let end = super::tokens::floor_char_boundary(part, KEY_BYTES);
        keys.part(&part[..end]);
    }
    Keys {
        shape: keys.shape.0,
        exact: keys.exact.0,
    }
}

/// The hashes being built, and where they are between two things hashed.
struct KeyState {
    shape: Fnv,
    exact: Fnv,
    /// Whether anything was hashed.
    started: bool,
    /// Whether a space is due before the next thing.
    space: bool,
}

impl KeyState {
    /// Hashes the space due before the next thing, if any.
    fn separate(&mut self) {
        if self.space && self.started {
            self.shape.bytes(b" ");
            self.exact.bytes(b" ");
        }
        self.space = false;
        self.started = true;
    }

    fn part(&mut self, text: &str) {
        let bytes = text.as_bytes();
        // Quotes known to have no closing quote in the rest of this part.
        let mut unclosed: Vec<char> = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let byte = bytes[at];
            let c = if byte.is_ascii() {
                char::from(byte)
            } else {
                match text[at..].chars().next() {
                    Some(c) => c,
                    None => break,
                }
            };
            let is_space = if byte.is_ascii() {
                matches!(byte, b' ' | b'\t'..=b'\r')
            } else {
                c.is_whitespace()
            };
            if is_space {
                self.space = true;
                at += c.len_utf8();
                continue;
            }
            // A quoted value: from an opening quote not inside a word to its closing quote.
            if let Some(close) = closing_quote(c)
                && !after_word(text, at)
                && !unclosed.contains(&c)
            {
                let start = at + c.len_utf8();
                match text[start..].find(close) {
                    Some(offset) => {
                        let stop = start + offset + close.len_utf8();
                        self.separate();
                        Placeholder::Quoted(c).hash_into(&mut self.shape);
                        // The operators in a quoted span are the kind of check, not a value:
                        // `left == right` and `left != right` are different assertions.
                        for &byte in &bytes[start..stop] {
                            if matches!(byte, b'=' | b'!' | b'<' | b'>' | b'&' | b'|') {
                                self.shape.bytes(&[byte]);
                            }
                        }
                        hash_folded(&mut self.exact, &text[at..stop]);
                        at = stop;
                        continue;
                    }
                    None => unclosed.push(c),
                }
            }
            if is_word_byte(byte) || (byte == b'-' && starts_number(bytes, at)) {
                at = self.word(bytes, at);
                continue;
            }
            self.separate();
            let encoded = &bytes[at..at + c.len_utf8()];
            self.shape.bytes(encoded);
            self.exact.bytes(encoded);
            at += c.len_utf8();
        }
    }

    /// Hashes the run of word characters (or the number) at `start`, and returns where it ends.
    /// Its classes are read on the way: see [`word_placeholder`].
    fn word(&mut self, bytes: &[u8], start: usize) -> usize {
        let first = bytes[start];
        let numeric = first.is_ascii_digit() || first == b'-';
        let mut classes = CLASSES[usize::from(first)];
        let mut stop = start + 1;
        while stop < bytes.len() {
            let b = bytes[stop];
            let class = CLASSES[usize::from(b)];
            if class & WORD != 0 {
                classes |= class;
                stop += 1;
            } else if b == b'.'
                && numeric
                && bytes.get(stop + 1).is_some_and(u8::is_ascii_alphanumeric)
            {
                // A dot inside a number (`3.0`, `1.2.3`), not the one that ends a sentence.
                stop += 1;
            } else {
                break;
            }
        }
        let text = &bytes[start..stop];
        self.separate();
        let placeholder = if numeric {
            // A `-` opens a word only before a digit: this is a number either way.
            Some(Placeholder::Number)
        } else {
            word_placeholder(text, classes, bytes.get(stop).copied())
        };
        match placeholder {
            Some(placeholder) => {
                placeholder.hash_into(&mut self.shape);
                self.exact.bytes(text);
            }
            None => {
                for &byte in text {
                    self.shape.byte(byte);
                    self.exact.byte(byte);
                }
            }
        }
        stop
    }
}

/// Whether the character before `at` in `text` is alphanumeric: a quote there is an apostrophe.
fn after_word(text: &str, at: usize) -> bool {
    let Some(&byte) = at.checked_sub(1).and_then(|i| text.as_bytes().get(i)) else {
        return false;
    };
    if byte.is_ascii() {
        byte.is_ascii_alphanumeric()
    } else {
        text[..at]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
    }
}

/// What a run of word characters (`[A-Za-z0-9_$]`) that starts with no digit is in a shape: an
/// identifier (`helper0`, `totalOf`, `user_id`: a digit, an inner capital after a lower-case
/// letter, or an underscore beside lower-case letters), or a word kept as it is. Words in capitals
/// (`TS2304`, `ERR_ASSERTION`) are codes and stay; so do capitalised words (`TypeError`), plain
/// words, and a word right before `(` (`toBe(`, `toEqual(`): the matcher or function called is
/// the kind of check, not a value. (A run that starts with a digit is a number: `42`, `3.0`,
/// `0x7f`.) `classes` are the word's [`CLASSES`] together, `next` the byte after it.
fn word_placeholder(word: &[u8], classes: u8, next: Option<u8>) -> Option<Placeholder> {
    if classes & LOWER == 0 || next == Some(b'(') {
        return None;
    }
    // An upper-case letter right after a lower-case one, in a word that starts lower-case.
    let camel = || {
        word.first().is_some_and(u8::is_ascii_lowercase)
            && classes & UPPER != 0
            && word
                .windows(2)
                .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
    };
    (classes & (DIGIT | UNDERSCORE) != 0 || camel()).then_some(Placeholder::Identifier)
}

/// Classes of bytes in words, as bits: any word character, and which kind.
const WORD: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 4;
const DIGIT: u8 = 8;
const UNDERSCORE: u8 = 16;

/// The class bits of every byte: a table, since a message is mostly words.
static CLASSES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        table[i] = if b.is_ascii_lowercase() {
            WORD | LOWER
        } else if b.is_ascii_uppercase() {
            WORD | UPPER
        } else if b.is_ascii_digit() {
            WORD | DIGIT
        } else if b == b'_' {
            WORD | UNDERSCORE
        } else if b == b'$' {
            WORD
        } else {
            0
        };
        i += 1;
    }
    table
};

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

    /// The keys as a plain walk over the characters computes them: the reading the byte-wise
    /// one above must agree with.
    mod walk {
        use super::super::*;

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
                let end = crate::digest::tokens::floor_char_boundary(part, KEY_BYTES);
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
    }

    /// A small deterministic generator (xorshift), so that a failure reproduces.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn pick<'s>(&mut self, of: &[&'s str]) -> &'s str {
            of[(self.next() % of.len() as u64) as usize]
        }
    }

    #[test]
    fn keys_read_bytes_as_the_walk_over_characters_does() {
        // Pieces where the readings could part: quotes inside and outside words, typographic
        // quotes, non-ASCII letters and spaces, numbers, signs, dots, calls, identifiers.
        let pieces = [
            " ", "  ", "\n", "\t", "\x0b", "\x0c", "\r", "\u{a0}", "\u{2003}", "'", "\"", "`", "‘",
            "’", "“", "”", "é", "É", "ß", "日本", "-", "-1", "3.0", ".", "1.2.3", "0x7f", "(", ")",
            "=", "!=", "<", ">", "&", "|", "$", "_", "a", "B", "abc", "toBe", "totalOf", "user_id",
            "ERR_X", "TS2304", "x1", "Foo", "a.b", ";", ":", "é'", "1'", "\0", "é1",
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let mut parts = Vec::new();
            for _ in 0..1 + rng.next() % 2 {
                let mut text = String::new();
                for _ in 0..rng.next() % 24 {
                    text.push_str(rng.pick(&pieces));
                }
                parts.push(text);
            }
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            assert_eq!(
                message_keys(&parts),
                walk::message_keys(&parts),
                "{parts:?}"
            );
        }
        // Past the cut of a part, in the middle of a character.
        let long = format!("{}xé'x' 12", "a ".repeat(KEY_BYTES / 2 - 1));
        assert_eq!(message_keys(&[&long]), walk::message_keys(&[&long]));
    }
}
