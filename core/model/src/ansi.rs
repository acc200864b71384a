//! Removing terminal escape sequences, so that parsers see the text a person would read.
//!
//! Tools colour their output when they think a terminal is watching, and CI systems often force
//! colour on. The sequences handled are the ones terminals and CI log viewers understand: CSI
//! (`ESC [ … final`, colours and cursor movement), OSC (`ESC ] … BEL` or `ESC ] … ESC \`, hyperlinks
//! and titles), and two-byte escapes (`ESC (B`, `ESC =`). A lone ESC at the end is dropped.

/// The escape byte that starts every sequence.
const ESC: char = '\u{1b}';

/// Whether `text` holds an escape sequence (cheap: one `memchr`).
pub fn has_escapes(text: &str) -> bool {
    memchr::memchr(0x1b, text.as_bytes()).is_some()
}

/// Appends `text` without its escape sequences to `out`.
pub fn strip_into(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut start = 0;
    // One iterator over the line rather than a search per sequence: a coloured line holds many
    // short sequences, and starting a search costs more than the bytes between them.
    for esc in memchr::memchr_iter(0x1b, bytes) {
        if esc < start {
            // Part of the sequence just skipped (the ESC of an `ESC \` terminator).
            continue;
        }
        out.push_str(&text[start..esc]);
        start = sequence_end(bytes, esc);
    }
    out.push_str(&text[start..]);
}

/// `text` without its escape sequences.
pub fn strip(text: &str) -> String {
    if !has_escapes(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    strip_into(text, &mut out);
    out
}

/// The index just past the escape sequence that starts at `esc`. Always a char boundary: every
/// byte a sequence consumes is ASCII, and a sequence cut short ends before the first non-ASCII byte.
fn sequence_end(bytes: &[u8], esc: usize) -> usize {
    debug_assert_eq!(bytes[esc], ESC as u8);
    let Some(&kind) = bytes.get(esc + 1).filter(|&&b| b != b'\n') else {
        // A lone ESC at the end of the text or of a line.
        return esc + 1;
    };
    match kind {
        b'[' => {
            // CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E.
            let mut j = esc + 2;
            while j < bytes.len() && (0x20..=0x3f).contains(&bytes[j]) {
                j += 1;
            }
            if j < bytes.len() && (0x40..=0x7e).contains(&bytes[j]) {
                j + 1
            } else {
                j
            }
        }
        b']' | b'P' | b'X' | b'^' | b'_' => {
            // OSC and the other string sequences end with BEL or ST (`ESC \`). An unterminated one
            // ends at the next non-ASCII byte or newline, or the end, so that text is not lost.
            let mut j = esc + 2;
            while j < bytes.len() {
                match bytes[j] {
                    0x07 => return j + 1,
                    0x1b if bytes.get(j + 1) == Some(&b'\\') => return j + 2,
                    0x1b => return j,
                    // A newline ends it too, so that text can be stripped many lines at once.
                    b'\n' => return j,
                    b if b >= 0x80 => return j,
                    _ => j += 1,
                }
            }
            j
        }
        b'(' | b')' | b'*' | b'+' | b'#' | b'%' => {
            // Character set designation: ESC ( B and friends, three bytes.
            if bytes
                .get(esc + 2)
                .is_some_and(|b| b.is_ascii() && *b != b'\n')
            {
                esc + 3
            } else {
                esc + 2
            }
        }
        k if k.is_ascii() => esc + 2,
        _ => esc + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn strips_colours_cursor_moves_links_and_charsets() {
        let cases = [
            ("\u{1b}[31merror\u{1b}[0m: x", "error: x"),
            ("\u{1b}[1m\u{1b}[38;5;9mE\u{1b}[39m\u{1b}[22m", "E"),
            ("\u{1b}[2K\u{1b}[1Gdone", "done"),
            (
                "\u{1b}]8;;https://example.com\u{7}link\u{1b}]8;;\u{7}",
                "link",
            ),
            ("\u{1b}]0;title\u{1b}\\text", "text"),
            ("\u{1b}(Bplain", "plain"),
            ("unicode \u{1b}[32m✓\u{1b}[39m ok", "unicode ✓ ok"),
            ("trailing \u{1b}", "trailing "),
            ("cut \u{1b}[31", "cut "),
            ("no escapes", "no escapes"),
        ];
        for (input, expected) in cases {
            assert_eq!(strip(input), expected, "input: {input:?}");
        }
    }

    /// Text is stripped many lines at once, so no sequence may swallow a newline.
    #[test]
    fn no_sequence_spans_a_newline() {
        let cases = [
            "lone \u{1b}\nnext",
            "charset \u{1b}(\nnext",
            "csi \u{1b}[31\nnext",
            "osc \u{1b}]8;;link\nnext",
        ];
        for input in cases {
            assert!(strip(input).ends_with("\nnext"), "input: {input:?}");
        }
    }

    #[test]
    fn unterminated_osc_keeps_following_unicode() {
        assert_eq!(strip("\u{1b}]8;;x✓ after"), "✓ after");
    }
}
