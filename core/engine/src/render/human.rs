//! The human format: one line per verifier, then the digest.
//!
//! ```text
//! ✓ tsc passed 1.2s
//! ✗ eslint failed 0.8s — 3 errors in 2 files
//! ! jest errored 2.0s — Cannot find module 'ts-jest'
//! ✓ pytest passed (cached)
//!
//! eslint: 3 errors in 2 files
//!   …
//! ```
//!
//! Colour (ANSI SGR) only when [`RenderInput::color`] is set; the CLI decides that from the
//! terminal and `NO_COLOR`.

use std::fmt::Write as _;

use super::{RenderInput, counts_phrase, duration, plural, reason};
use crate::model::{Outcome, Status, Verification};

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const DIM: &str = "\x1b[2m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// Renders the human format.
pub fn render(input: &RenderInput<'_>) -> String {
    let paint = |style: &str, text: &str| {
        if input.color {
            format!("{style}{text}{RESET}")
        } else {
            text.to_owned()
        }
    };
    let mut out = String::new();
    for verification in input.verifications {
        let (mark, style) = match (verification.status, verification.outcome()) {
            (Status::Skipped, _) => ("-", YELLOW),
            (Status::Cancelled, _) => ("!", YELLOW),
            (Status::NotInShard, _) => ("-", DIM),
            (_, Outcome::Passed) => ("✓", GREEN),
            (_, Outcome::Failed) => ("✗", RED),
            (_, Outcome::Errored) => ("!", YELLOW),
        };
        let _ = writeln!(
            out,
            "{} {}",
            paint(style, mark),
            one_line(verification, &paint)
        );
        for note in &verification.notes {
            let _ = writeln!(out, "  {}", paint(DIM, note));
        }
    }
    if input.known_failures > 0 {
        let _ = writeln!(
            out,
            "{}",
            paint(
                DIM,
                &format!(
                    "{} set aside (baseline)",
                    plural(input.known_failures, "known failure", "known failures")
                )
            )
        );
    }
    let digest = input.digest.text.trim_end();
    if !digest.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(digest);
        out.push('\n');
    }
    if out.is_empty() {
        // Nothing ran and the digest is empty: say so rather than print nothing.
        let _ = writeln!(out, "{}", paint(YELLOW, "no verifier ran"));
    }
    out
}

/// `eslint failed 0.8s — 3 errors in 2 files`, with the name in bold when colouring.
fn one_line(verification: &Verification, paint: &dyn Fn(&str, &str) -> String) -> String {
    let name = paint(BOLD, &verification.verifier);
    let report = &verification.report;
    let state = match verification.status {
        Status::Skipped => "skipped",
        Status::Cancelled => "cancelled",
        Status::NotInShard => "not in this shard",
        _ => report.outcome.as_str(),
    };
    let time = match verification.status {
        Status::Ran => format!(" {}", duration(verification.duration)),
        Status::Cached => " (cached)".to_owned(),
        Status::Skipped | Status::Cancelled | Status::NotInShard => String::new(),
    };
    let detail = match (verification.status, report.outcome) {
        (Status::Skipped | Status::Cancelled | Status::NotInShard, _) | (_, Outcome::Errored) => {
            first_line(&reason(verification))
        }
        _ => counts_phrase(verification.kind, report),
    };
    if detail.is_empty() {
        format!("{name} {state}{time}")
    } else {
        format!("{name} {state}{time} — {detail}")
    }
}

/// The first line of a possibly multi-line reason, marked when more followed.
fn first_line(text: &str) -> String {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("").trim().to_owned();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}
