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

/// How much of a message its grouping key reads. No digest line shows more than a few hundred
/// bytes of a message, so messages that differ only beyond this read the same in the digest.
const KEY_BYTES: usize = 1024;

/// The key two messages are grouped by: a hash of the message with whitespace runs folded, nothing
/// else changed (`Expected 2 arguments` and `Expected 3 arguments` are different advice). It costs
/// no allocation, and is the same from run to run. With 64 bits, a collision among the at most
/// 10 000 diagnostics of a report is a one-in-10¹¹ event.
pub(super) fn message_key(message: &str) -> u64 {
    // FNV-1a, a byte at a time: messages are short, and this needs no buffer and no setup.
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let end = super::tokens::floor_char_boundary(message, KEY_BYTES);
    let mut hash = OFFSET;
    for (i, word) in message[..end].split_whitespace().enumerate() {
        let separator = if i == 0 { &[][..] } else { &b" "[..] };
        for &byte in separator.iter().chain(word.as_bytes()) {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
    }
    hash
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

    #[test]
    fn message_key_folds_whitespace_only() {
        assert_eq!(
            message_key(" Cannot  find\nname 'x' "),
            message_key("Cannot find name 'x'")
        );
        assert_ne!(message_key("ab c"), message_key("a bc"));
        assert_ne!(
            message_key("Expected 2 arguments"),
            message_key("Expected 3 arguments")
        );
    }
}
