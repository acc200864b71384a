//! Recognising the marker glyphs of the tools when a console code page garbled them.
//!
//! A tool writes `✖` as the UTF-8 bytes `E2 9C 96`; a Windows console whose code page is cp850
//! reads those as `Ô£û`, and a log saved from it keeps the three wrong characters (as UTF-8). The
//! glyphs the parsers look for (`✖ ✓ ✔ ✗ ✕ × ● → ❯ ⎯ › ·`, the box and arrow glyphs) are listed
//! here as each code page shows them: cp437, cp850, cp852, cp1250, cp1251, cp1252, cp1257
//! (undefined bytes kept as their C1 control or shown as `?`) and Shift-JIS; vitest's `⎯` also as
//! cp437 text written back through a Windows code page's best fit and read as UTF-8 again (`GĻ`).
//! Shift-JIS merges the last byte of `✖ ✓ ✔ ✗ ✕ ● →` with the next character, so those cannot be
//! told apart and are left alone.
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
    // cp1257, cp1250 and cp1251 (undefined bytes kept as their C1 control or shown as `?`),
    // and cp437 written back through a Windows code page's best fit (`Γ` as `G`) and read as
    // UTF-8 again: vitest's `⎯` rule becomes `GĻ`.
    ("ā\u{9c}–", "✖"),
    ("ā?–", "✖"),
    ("âś–", "✖"),
    ("вњ–", "✖"),
    ("ā\u{9c}“", "✓"),
    ("ā?“", "✓"),
    ("âś“", "✓"),
    ("вњ“", "✓"),
    ("ā\u{9c}”", "✔"),
    ("ā?”", "✔"),
    ("âś”", "✔"),
    ("вњ”", "✔"),
    ("ā\u{9c}—", "✗"),
    ("ā?—", "✗"),
    ("âś—", "✗"),
    ("вњ—", "✗"),
    ("ā\u{9c}•", "✕"),
    ("ā?•", "✕"),
    ("âś•", "✕"),
    ("вњ•", "✕"),
    ("Ć—", "×"),
    ("Ă—", "×"),
    ("Г—", "×"),
    ("ā—¸", "●"),
    ("â—Ź", "●"),
    ("в—Џ", "●"),
    ("ā†’", "→"),
    ("в†’", "→"),
    ("ā¯Æ", "❯"),
    ("âťŻ", "❯"),
    ("вќЇ", "❯"),
    ("āˇÆ", "⎯"),
    ("âŽŻ", "⎯"),
    ("вЋЇ", "⎯"),
    ("GĻ", "⎯"),
    ("ā€ŗ", "›"),
    ("â€ş", "›"),
    ("вЂє", "›"),
    ("Ā·", "·"),
    ("В·", "·"),
    ("ā—‹", "○"),
    ("в—‹", "○"),
    ("ā†“", "↓"),
    ("в†“", "↓"),
    ("ā\u{9c}ˇ", "✎"),
    ("ā?ˇ", "✎"),
    ("âśŽ", "✎"),
    ("вњЋ", "✎"),
    ("ļ¹£", "﹣"),
    ("ďąŁ", "﹣"),
    ("п№Ј", "﹣"),
    ("ā„¹", "ℹ"),
    ("â„ą", "ℹ"),
    ("в„№", "ℹ"),
    ("ā–¶", "▶"),
    ("в–¶", "▶"),
    ("ā\u{88}\u{9a}", "√"),
    ("ā??", "√"),
    ("â\u{88}š", "√"),
    ("â?š", "√"),
    ("в€љ", "√"),
    ("ā\u{9a} ", "⚠"),
    ("ā? ", "⚠"),
    ("âš ", "⚠"),
    ("вљ ", "⚠"),
    ("ā”€", "─"),
    ("в”Ђ", "─"),
    ("ā”‚", "│"),
    ("в”‚", "│"),
    ("ā”\u{9c}", "├"),
    ("â”ś", "├"),
    ("в”њ", "├"),
    ("ā””", "└"),
    ("в””", "└"),
    ("ā”\u{8c}", "┌"),
    ("â”Ś", "┌"),
    ("в”Њ", "┌"),
    ("ā”\u{90}", "┐"),
    ("в”ђ", "┐"),
    ("ā”\u{98}", "┘"),
    ("â”\u{98}", "┘"),
    ("в”\u{98}", "┘"),
    ("в”?", "┘"),
    ("ā”¤", "┤"),
    ("в”¤", "┤"),
    ("ā”¬", "┬"),
    ("в”¬", "┬"),
    ("ā”´", "┴"),
    ("в”ґ", "┴"),
    ("ā”¼", "┼"),
    ("â”Ľ", "┼"),
    ("в”ј", "┼"),
    ("ā•\u{90}", "═"),
    ("ā•?", "═"),
    ("в•ђ", "═"),
    ("ā•‘", "║"),
    ("в•‘", "║"),
    ("ā•\u{ad}", "╭"),
    ("в•\u{ad}", "╭"),
    ("ā•®", "╮"),
    ("в•®", "╮"),
    ("ā•Æ", "╯"),
    ("â•Ż", "╯"),
    ("в•Ї", "╯"),
    ("ā•°", "╰"),
    ("в•°", "╰"),
    ("ā–ø", "▸"),
    ("в–ё", "▸"),
    ("ā¯®", "❮"),
    ("âť®", "❮"),
    ("вќ®", "❮"),
    ("ā˛\u{9c}", "➜"),
    ("ā˛?", "➜"),
    ("âžś", "➜"),
    ("вћњ", "➜"),
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
        // ´ ï`, of the Shift-JIS kanji, of `ā Ā Ć Ă Ļ ď ļ` and of Cyrillic `в Г п`); a log
        // without them needs no automaton.
        if memchr::memchr3(0xc3, 0xce, 0xc2, text).is_none()
            && memchr::memchr3(0xe7, 0xe9, 0xe2, text).is_none()
            && memchr::memchr2(0xc4, 0xd0, text).is_none()
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
            ("āˇÆāˇÆ Failed Tests 13 āˇÆāˇÆ", "⎯⎯ Failed Tests 13 ⎯⎯"),
            ("  ā¯Æ test/a.test.ts:5:10", "  ❯ test/a.test.ts:5:10"),
            ("GĻGĻ Failed Tests 13 GĻGĻ", "⎯⎯ Failed Tests 13 ⎯⎯"),
            ("вњ“ adds", "✓ adds"),
            ("âťŻ src/a.test.ts", "❯ src/a.test.ts"),
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
