//! Real lines, mangled: every summarizer, and the splitter, read the captured and wild logs'
//! lines with bytes deleted, inserted (digits, the tools' punctuation and glyphs, characters of
//! several bytes) and cut, and none may panic. The lines are the tools' own, so the parsers go
//! deep into their formats before the damage; a mangled `✖ 3é problems` once split an `é`, and
//! a status line of twelve spaces once read a verb's first letter past its end.

use std::fs;

use crate::support::{case_names, log, testdata};

/// What is inserted: what the formats are made of, and characters of two to four bytes.
const PIECES: &[&str] = &[
    "(", ")", ":", ",", ".", " ", "-", "=", "|", "[", "]", "'", "\"", "#", "$", ">", "/", "\\",
    "\t", "0", "1", "7", "42", "TS", "error", "failed", "passed", " problem", "test ", " ... ",
    "é", "✓", "✖", "×", "●", "→", "❯", "⎯", "›", "🦀", "\u{fffd}",
];

/// A small, seeded generator, so that a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n.max(1) as u64).unwrap_or(0)
    }
}

/// The first lines of every UTF-8 log under `testdata/`: the captured ones and the wild ones.
fn real_lines() -> Vec<String> {
    let mut folders = Vec::new();
    for parent in ["", "wild"] {
        for entry in fs::read_dir(testdata(parent)).expect("testdata") {
            let name = entry.expect("an entry").file_name();
            let name = name.to_string_lossy();
            if !name.contains('.') && name != "wild" {
                folders.push(
                    format!("{parent}/{name}")
                        .trim_start_matches('/')
                        .to_owned(),
                );
            }
        }
    }
    folders.sort();
    let mut lines = Vec::new();
    for folder in &folders {
        for case in case_names(folder) {
            if let Ok(text) = String::from_utf8(log(folder, &case)) {
                lines.extend(text.lines().take(150).map(str::to_owned));
            }
        }
    }
    lines
}

/// `line` with a few bytes deleted, pieces inserted, or its end cut, on char boundaries.
fn mangle(line: &str, rng: &mut Rng) -> String {
    let mut text = line.to_owned();
    for _ in 0..rng.below(6) {
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let at = boundaries[rng.below(boundaries.len())];
        match rng.below(10) {
            0..=3 => {
                if let Some(c) = text[at..].chars().next() {
                    text.replace_range(at..at + c.len_utf8(), "");
                }
            }
            4..=8 => text.insert_str(at, PIECES[rng.below(PIECES.len())]),
            _ => text.truncate(at),
        }
    }
    text
}

#[test]
fn mangled_real_lines_never_panic_a_summarizer() {
    let lines = real_lines();
    assert!(lines.len() > 10_000, "only {} lines", lines.len());
    let mut rng = Rng(0x5eed_1e55);
    for round in 0..4 {
        // Lines of many logs side by side, so that a parser meets each format's lines out of
        // their order too.
        let mut log = String::new();
        for _ in 0..6_000 {
            log.push_str(&mangle(&lines[rng.below(lines.len())], &mut rng));
            log.push('\n');
        }
        for summarizer in verdict_summarizers::all() {
            let report = summarizer.parse(log.as_bytes());
            assert_eq!(report.tool, summarizer.name(), "round {round}");
        }
        let reports = verdict_summarizers::summarize_all(log.as_bytes());
        assert!(!reports.is_empty(), "round {round}");
    }
}
