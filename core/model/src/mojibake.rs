//! Recognising the marker glyphs of the tools when a console code page garbled them.
//!
//! A tool writes `✖` as the UTF-8 bytes `E2 9C 96`; a Windows console whose code page is cp850
//! reads those as `Ô£û`, and a log saved from it keeps the three wrong characters (as UTF-8). The
//! glyphs the parsers look for (`✖ ✓ ✔ ✗ ✕ × ● → ❯ ⎯ › ·`, the box and arrow glyphs) are listed
//! here as each code page shows them: cp437, cp850, cp852, cp1252 (undefined bytes kept as their
//! C1 control or shown as `?`) and Shift-JIS. Shift-JIS merges the last byte of `✖ ✓ ✔ ✗ ✕ ● →`
//! with the next character, so those cannot be told apart and are left alone.
//!
//! Whether an input holds such text is decided once, from its start ([`Mojibake::found_in`]); only
//! then are its lines rewritten, so a clean log costs nothing per line.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};

/// Each garbled form, and the glyph it stands for.
const TABLE: &[(&str, &str)] = &[
    ("Γ£û", "✖"),
    ("Γ£ô", "✓"),
    ("Γ£ö", "✔"),
    ("Γ£ù", "✗"),
    ("Γ£ò", "✕"),
    ("├ù", "×"),
    ("ΓùÅ", "●"),
    ("ΓåÆ", "→"),
    ("Γ¥»", "❯"),
    ("ΓÄ»", "⎯"),
    ("ΓÇ║", "›"),
    ("┬╖", "·"),
    ("Γùï", "○"),
    ("Γåô", "↓"),
    ("Γ£Ä", "✎"),
    ("∩╣ú", "﹣"),
    ("Γä╣", "ℹ"),
    ("Γû╢", "▶"),
    ("ΓêÜ", "√"),
    ("ΓÜá", "⚠"),
    ("ΓöÇ", "─"),
    ("Γöé", "│"),
    ("Γö£", "├"),
    ("Γöö", "└"),
    ("Γöî", "┌"),
    ("ΓöÉ", "┐"),
    ("Γöÿ", "┘"),
    ("Γöñ", "┤"),
    ("Γö¼", "┬"),
    ("Γö┤", "┴"),
    ("Γö╝", "┼"),
    ("ΓòÉ", "═"),
    ("Γòæ", "║"),
    ("Γò¡", "╭"),
    ("Γò«", "╮"),
    ("Γò»", "╯"),
    ("Γò░", "╰"),
    ("Γû╕", "▸"),
    ("Γ¥«", "❮"),
    ("Γ₧£", "➜"),
    ("Ô£û", "✖"),
    ("Ô£ô", "✓"),
    ("Ô£ö", "✔"),
    ("Ô£ù", "✗"),
    ("Ô£ò", "✕"),
    ("ÔùÅ", "●"),
    ("ÔåÆ", "→"),
    ("ÔØ»", "❯"),
    ("ÔÄ»", "⎯"),
    ("ÔÇ║", "›"),
    ("┬À", "·"),
    ("Ôùï", "○"),
    ("Ôåô", "↓"),
    ("Ô£Ä", "✎"),
    ("´╣ú", "﹣"),
    ("Ôä╣", "ℹ"),
    ("ÔûÂ", "▶"),
    ("ÔêÜ", "√"),
    ("ÔÜá", "⚠"),
    ("ÔöÇ", "─"),
    ("Ôöé", "│"),
    ("Ôö£", "├"),
    ("Ôöö", "└"),
    ("Ôöî", "┌"),
    ("ÔöÉ", "┐"),
    ("Ôöÿ", "┘"),
    ("Ôöñ", "┤"),
    ("Ôö¼", "┬"),
    ("Ôö┤", "┴"),
    ("Ôö╝", "┼"),
    ("ÔòÉ", "═"),
    ("Ôòæ", "║"),
    ("Ôò¡", "╭"),
    ("Ôò«", "╮"),
    ("Ôò»", "╯"),
    ("Ôò░", "╰"),
    ("Ôû©", "▸"),
    ("ÔØ«", "❮"),
    ("Ô×£", "➜"),
    ("Ôťľ", "✖"),
    ("Ôťô", "✓"),
    ("Ôťö", "✔"),
    ("ÔťŚ", "✗"),
    ("ÔťĽ", "✕"),
    ("├Ś", "×"),
    ("ÔŚĆ", "●"),
    ("Ôćĺ", "→"),
    ("ÔŁ»", "❯"),
    ("┬Ě", "·"),
    ("ÔŚő", "○"),
    ("Ôćô", "↓"),
    ("ÔťÄ", "✎"),
    ("ÔľÂ", "▶"),
    ("ÔłÜ", "√"),
    ("Ôöť", "├"),
    ("Ôöś", "┘"),
    ("ÔöĄ", "┤"),
    ("ÔöČ", "┬"),
    ("ÔĽÉ", "═"),
    ("ÔĽĹ", "║"),
    ("ÔĽş", "╭"),
    ("ÔĽ«", "╮"),
    ("ÔĽ»", "╯"),
    ("ÔĽ░", "╰"),
    ("ÔľŞ", "▸"),
    ("ÔŁ«", "❮"),
    ("Ô×ť", "➜"),
    ("âœ–", "✖"),
    ("âœ“", "✓"),
    ("âœ”", "✔"),
    ("âœ—", "✗"),
    ("âœ•", "✕"),
    ("Ã—", "×"),
    ("â—\u{8f}", "●"),
    ("â—?", "●"),
    ("â†’", "→"),
    ("â\u{9d}¯", "❯"),
    ("â?¯", "❯"),
    ("âŽ¯", "⎯"),
    ("â€º", "›"),
    ("Â·", "·"),
    ("â—‹", "○"),
    ("â†“", "↓"),
    ("âœŽ", "✎"),
    ("ï¹£", "﹣"),
    ("â„¹", "ℹ"),
    ("â–¶", "▶"),
    ("âˆš", "√"),
    ("âš\u{a0}", "⚠"),
    ("âš?", "⚠"),
    ("â”€", "─"),
    ("â”‚", "│"),
    ("â”œ", "├"),
    ("â””", "└"),
    ("â”Œ", "┌"),
    ("â”\u{90}", "┐"),
    ("â”?", "┐"),
    ("â”˜", "┘"),
    ("â”¤", "┤"),
    ("â”¬", "┬"),
    ("â”´", "┴"),
    ("â”¼", "┼"),
    ("â•\u{90}", "═"),
    ("â•?", "═"),
    ("â•‘", "║"),
    ("â•\u{ad}", "╭"),
    ("â•®", "╮"),
    ("â•¯", "╯"),
    ("â•°", "╰"),
    ("â–¸", "▸"),
    ("â\u{9d}®", "❮"),
    ("â?®", "❮"),
    ("âžœ", "➜"),
    ("笶ｯ", "❯"),
    ("竡ｯ", "⎯"),
    ("窶ｺ", "›"),
    ("邃ｹ", "ℹ"),
    ("笆ｶ", "▶"),
    ("笞\u{f8f0}", "⚠"),
    ("笏\u{80}", "─"),
    ("笏､", "┤"),
    ("笏ｬ", "┬"),
    ("笏ｴ", "┴"),
    ("笏ｼ", "┼"),
    ("笊ｭ", "╭"),
    ("笊ｮ", "╮"),
    ("笊ｯ", "╯"),
    ("笊ｰ", "╰"),
    ("笆ｸ", "▸"),
    ("笶ｮ", "❮"),
];

static MATCHER: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .build(TABLE.iter().map(|(garbled, _)| garbled))
        .expect("a valid table")
});

/// The repair of garbled glyphs.
pub(crate) struct Mojibake;

impl Mojibake {
    /// Whether `text` holds a glyph garbled by a code page.
    pub(crate) fn found_in(text: &[u8]) -> bool {
        // Every garbled form holds one of these bytes (the UTF-8 lead bytes of `Ô Γ â Ã Â ├ ┬ ∩
        // ´ ï` and of the Shift-JIS kanji); a log without them needs no automaton.
        if memchr::memchr3(0xc3, 0xce, 0xc2, text).is_none()
            && memchr::memchr3(0xe7, 0xe9, 0xe2, text).is_none()
        {
            return false;
        }
        MATCHER.is_match(text)
    }

    /// Appends `line` with its garbled glyphs repaired to `out`; returns whether anything changed.
    pub(crate) fn repair_into(line: &str, out: &mut String) -> bool {
        let mut last = 0;
        for found in MATCHER.find_iter(line) {
            out.push_str(&line[last..found.start()]);
            out.push_str(TABLE[found.pattern().as_usize()].1);
            last = found.end();
        }
        if last == 0 {
            return false;
        }
        out.push_str(&line[last..]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repair(line: &str) -> String {
        let mut out = String::new();
        if Mojibake::repair_into(line, &mut out) {
            out
        } else {
            line.to_owned()
        }
    }

    #[test]
    fn repairs_each_code_page() {
        let cases = [
            (
                "Ô£û 4 problems (0 errors, 4 warnings)",
                "✖ 4 problems (0 errors, 4 warnings)",
            ),
            ("Γ£ô adds (3 ms)", "✓ adds (3 ms)"),
            (" ├ù renders", " × renders"),
            ("âœ– 2 problems", "✖ 2 problems"),
            ("  ÔùÅ suite ÔÇ║ test", "  ● suite › test"),
            ("Ôťľ failed", "✖ failed"),
            ("FAIL ÔåÆ expected", "FAIL → expected"),
            ("´╣ú skipped test", "﹣ skipped test"),
            ("笶ｯ src/a.test.ts", "❯ src/a.test.ts"),
            ("plain ✓ text é", "plain ✓ text é"),
        ];
        for (garbled, clean) in cases {
            assert_eq!(repair(garbled), clean, "{garbled}");
        }
        assert!(Mojibake::found_in("x\nÔ£ö ok\n".as_bytes()));
        assert!(!Mojibake::found_in("x\n✔ ok café\n".as_bytes()));
    }

    /// No garbled form hides inside another glyph's clean UTF-8 or a common accented word.
    #[test]
    fn clean_text_is_left_alone() {
        let clean = "✖✓✔✗✕×●→❯⎯›·○↓✎﹣ℹ▶√⚠─│├└┌┐┘┤┬┴┼═║╭╮╯╰ café naïve Ärger señor Ôte";
        assert_eq!(repair(clean), clean);
    }
}
