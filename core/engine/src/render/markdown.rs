//! The Markdown format: a report sized for a pull-request comment (and GitHub's job summary).
//!
//! A headline with the outcome, a table of the verifiers (outcome, counts, time), the top
//! failures with their locations, and the digest in a collapsed `<details>`. The whole text stays
//! under [`MAX_BYTES`] (GitHub rejects comments over 65 536 characters): failures that do not fit
//! are counted in a last line, and the digest is cut visibly if even it does not fit.
//!
//! Text from the tools is escaped: Markdown punctuation gets a backslash (so a message holding
//! `<script>` or `|` can neither inject HTML nor break the table), line breaks become spaces.

use std::fmt::Write as _;

use super::{RenderInput, counts_phrase, duration, plural, ranked, reason};
use crate::model::{Outcome, Status, Verification};

/// The most bytes the report takes.
pub const MAX_BYTES: usize = 60_000;

/// At most this many failures are listed, however much room there is.
const MAX_FAILURES: usize = 30;

/// Renders the Markdown report.
pub fn render(input: &RenderInput<'_>) -> String {
    let mut head = String::new();
    let (icon, word) = match input.outcome {
        Outcome::Passed => ("✅", "all verifiers passed"),
        Outcome::Failed => ("❌", "failures found"),
        Outcome::Errored => ("⚠️", "could not verify everything"),
    };
    let _ = writeln!(head, "## {icon} verdict: {word}\n");
    if input.known_failures > 0 {
        let _ = writeln!(
            head,
            "{} set aside (baseline).\n",
            plural(input.known_failures, "known failure", "known failures")
        );
    }
    if !input.verifications.is_empty() {
        head.push_str("| Verifier | Outcome | Result | Time |\n|---|---|---|---|\n");
        for verification in input.verifications {
            let _ = writeln!(
                head,
                "| {} | {} | {} | {} |",
                escape(&verification.verifier),
                outcome_cell(verification),
                escape(&result_cell(verification)),
                time_cell(verification),
            );
        }
        head.push('\n');
    }

    let digest = digest_section(&input.digest.text);
    let mut lines: Vec<String> = Vec::new();
    let mut total = 0u64;
    for verification in input.verifications {
        let report = &verification.report;
        total = total.saturating_add(report.diagnostics_dropped);
        for diagnostic in ranked(report) {
            total += 1;
            if lines.len() >= MAX_FAILURES {
                continue;
            }
            let mut line = format!("- **{}**", escape(&verification.verifier));
            if let Some(location) = diagnostic.location() {
                let _ = write!(line, " `{}`", code_span_text(&location));
            }
            if let Some(code) = &diagnostic.code {
                let _ = write!(line, " {}", escape(code));
            }
            if let Some(test) = &diagnostic.test {
                let _ = write!(line, " {} —", escape(test));
            }
            let _ = write!(line, " {}", escape(diagnostic.message.trim()));
            lines.push(line);
        }
    }

    // What must fit besides the failures: the head, the digest and a line counting the rest.
    let mut out = head;
    let reserve = digest.len() + 200;
    let mut listed = 0usize;
    if !lines.is_empty() {
        out.push_str("### Failures\n\n");
        for line in &lines {
            if out.len() + line.len() + 1 + reserve > MAX_BYTES {
                break;
            }
            out.push_str(line);
            out.push('\n');
            listed += 1;
        }
        let rest = total.saturating_sub(listed as u64);
        if rest > 0 {
            let _ = writeln!(out, "- … and {rest} more in the logs");
        }
        out.push('\n');
    }
    if out.len() + digest.len() > MAX_BYTES {
        let room = MAX_BYTES.saturating_sub(out.len() + 100);
        out.push_str(&digest_section(&cut(&input.digest.text, room)));
    } else {
        out.push_str(&digest);
    }
    out
}

fn outcome_cell(verification: &Verification) -> &'static str {
    match (verification.status, verification.outcome()) {
        (Status::Skipped, _) => "⏭️ skipped",
        (Status::Cancelled, _) => "⚠️ cancelled",
        (Status::NotInShard, _) => "⏭️ not in this shard",
        (Status::Cached, Outcome::Passed) => "✅ passed (cached)",
        (_, Outcome::Passed) => "✅ passed",
        (_, Outcome::Failed) => "❌ failed",
        (_, Outcome::Errored) => "⚠️ errored",
    }
}

fn result_cell(verification: &Verification) -> String {
    let text = match (verification.status, verification.outcome()) {
        (Status::Skipped | Status::Cancelled | Status::NotInShard, _) | (_, Outcome::Errored) => {
            reason(verification)
        }
        _ => counts_phrase(verification.kind, &verification.report),
    };
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    cut(&text, 200)
}

fn time_cell(verification: &Verification) -> String {
    match verification.status {
        Status::Ran => duration(verification.duration),
        _ => "—".to_owned(),
    }
}

/// The digest in a collapsed block, fenced with more backticks than it holds in a row.
fn digest_section(text: &str) -> String {
    let text = text.trim_end();
    if text.is_empty() {
        return String::new();
    }
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "<details><summary>Digest (what an agent reads)</summary>\n\n{fence}text\n{text}\n{fence}\n\n</details>\n"
    )
}

/// Text for an inline code span: no backticks or line breaks.
fn code_span_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '`' => '\'',
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect()
}

/// Cuts `text` to at most `max` bytes on a character boundary, with a visible mark.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max.saturating_sub(" (cut)".len());
    while end > 0 && !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} (cut)", &text[..end])
}

/// Escapes tool text for inline Markdown: punctuation that Markdown or HTML could read gets a
/// backslash, controls are dropped, and line breaks become spaces.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '<' | '>' | '(' | ')' | '#' | '|'
            | '!' | '~' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_disarms_html_and_tables() {
        assert_eq!(escape("<b>|x|</b>\nok"), r"\<b\>\|x\|\</b\> ok");
    }

    #[test]
    fn cut_respects_char_boundaries() {
        assert_eq!(cut("ééééé", 9), "é (cut)");
    }
}
