//! The GitHub format: workflow commands that GitHub Actions turns into annotations, and
//! [`job_summary`] for `$GITHUB_STEP_SUMMARY`.
//!
//! ```text
//! ::error file=src/a.ts,line=3,col=5,title=tsc%3A TS2345::Argument of type …
//! ::error title=verdict%3A jest could not verify::Cannot find module 'ts-jest'
//! ```
//!
//! Escaping follows the runner's own rules: in the message `%`, CR and LF become `%25`, `%0D`,
//! `%0A`; in properties `:` and `,` also become `%3A` and `%2C`. Other control characters (a
//! tool's stray ANSI escapes) are dropped: the log viewer would interpret them.
//!
//! GitHub shows at most 10 error, 10 warning and 10 notice annotations per step and drops the
//! rest without a word. So the most actionable come first and at most [`MAX_PER_LEVEL`] of each
//! level are written: verifiers that could not verify, then root causes, then the first finding
//! of each file, then the rest in the order the tools reported them. A last notice says how many
//! were left out and where they all are. Files are named from the repository's root
//! ([`RenderInput::repo_path`]), as GitHub reads them.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{RenderInput, markdown, plural, reason};
use crate::model::{Diagnostic, Outcome, Severity, Verification};

/// The annotations of one level (error, warning, notice) GitHub shows per step.
pub const MAX_PER_LEVEL: usize = 10;

/// One annotation that may be written.
enum Item<'a> {
    /// A verifier that could not verify.
    Errored(&'a Verification),
    /// A finding of a verifier.
    Finding(&'a str, &'a Diagnostic),
}

/// The findings of one level, most actionable first.
#[derive(Default)]
struct Ranked<'a> {
    /// `(tier, item)`: 0 errored verifiers, 1 root causes, 2 the first of a file, 3 the rest.
    items: Vec<(u8, Item<'a>)>,
    /// The files that already have a finding of this level.
    files: BTreeSet<String>,
}

impl<'a> Ranked<'a> {
    fn push(&mut self, input: &RenderInput<'_>, verifier: &'a str, diagnostic: &'a Diagnostic) {
        let file = diagnostic
            .file
            .as_deref()
            .filter(|f| !f.trim().is_empty())
            .map(|f| input.repo_path(f).into_owned());
        let first_of_file = match file {
            Some(file) => self.files.insert(file),
            None => false,
        };
        let tier = if diagnostic.root_cause {
            1
        } else if first_of_file {
            2
        } else {
            3
        };
        self.items.push((tier, Item::Finding(verifier, diagnostic)));
    }

    /// The items in rank order (stable: report order within a tier).
    fn into_sorted(mut self) -> Vec<Item<'a>> {
        self.items.sort_by_key(|(tier, _)| *tier);
        self.items.into_iter().map(|(_, item)| item).collect()
    }
}

/// Renders the workflow commands.
pub fn render(input: &RenderInput<'_>) -> String {
    let mut errors = Ranked::default();
    let mut warnings = Ranked::default();
    let mut notes = Ranked::default();
    let mut dropped = 0u64;
    for verification in input.verifications {
        if verification.outcome() == Outcome::Errored {
            errors.items.push((0, Item::Errored(verification)));
        }
    }
    for verification in input.verifications {
        let report = &verification.report;
        for diagnostic in &report.diagnostics {
            let level = match diagnostic.severity {
                Severity::Error => &mut errors,
                Severity::Warning => &mut warnings,
                Severity::Info => &mut notes,
            };
            level.push(input, &verification.verifier, diagnostic);
        }
        dropped += report.diagnostics_dropped;
    }
    let (errors, warnings, notes) = (
        errors.into_sorted(),
        warnings.into_sorted(),
        notes.into_sorted(),
    );

    // verdict's own notices share the notice budget with the tools' notes.
    let baseline_notice = input.known_failures > 0;
    let mut notes_shown = MAX_PER_LEVEL - usize::from(baseline_notice);
    let overflow = errors.len() > MAX_PER_LEVEL
        || warnings.len() > MAX_PER_LEVEL
        || notes.len() > notes_shown
        || dropped > 0;
    if overflow {
        notes_shown -= 1;
    }

    let mut out = String::new();
    for (items, shown) in [
        (&errors, MAX_PER_LEVEL),
        (&warnings, MAX_PER_LEVEL),
        (&notes, notes_shown),
    ] {
        for item in items.iter().take(shown) {
            match item {
                Item::Errored(verification) => {
                    let title = format!("verdict: {} could not verify", verification.verifier);
                    command(
                        &mut out,
                        "error",
                        &[("title", &title)],
                        &reason(verification),
                    );
                }
                Item::Finding(verifier, diagnostic) => {
                    annotation(&mut out, input, verifier, diagnostic);
                }
            }
        }
    }
    if overflow {
        let left = |items: &[Item<'_>], shown: usize| items.len().saturating_sub(shown) as u64;
        let left = [
            left(&errors, MAX_PER_LEVEL),
            left(&warnings, MAX_PER_LEVEL),
            left(&notes, notes_shown),
            dropped,
        ];
        command(
            &mut out,
            "notice",
            &[("title", "verdict")],
            &overflow_notice(input, left),
        );
    }
    if baseline_notice {
        let message = format!(
            "{} set aside (baseline)",
            plural(input.known_failures, "known failure", "known failures")
        );
        command(&mut out, "notice", &[("title", "verdict")], &message);
    }
    out
}

/// The notice of what was not annotated: `left` counts the errors, warnings and notes beyond
/// GitHub's limits and the findings verdict did not keep, and the logs that hold them are named.
fn overflow_notice(input: &RenderInput<'_>, left: [u64; 4]) -> String {
    let mut parts = Vec::new();
    let words = [
        ("error", "errors"),
        ("warning", "warnings"),
        ("note", "notes"),
        (
            "finding verdict did not keep",
            "findings verdict did not keep",
        ),
    ];
    for (n, (one, many)) in left.into_iter().zip(words) {
        if n > 0 {
            parts.push(format!("{n} more {}", if n == 1 { one } else { many }));
        }
    }
    let mut message = format!(
        "{} not annotated: GitHub shows at most {MAX_PER_LEVEL} errors and {MAX_PER_LEVEL} \
         warnings per step",
        join_words(&parts)
    );
    // The logs of the verifiers that found something or could not verify: a passing one holds
    // nothing left out.
    let logs: Vec<String> = input
        .verifications
        .iter()
        .filter(|v| v.outcome() != Outcome::Passed || !v.report.diagnostics.is_empty())
        .filter_map(|v| v.log.as_deref())
        .map(|log| input.repo_path(log).into_owned())
        .collect();
    if logs.is_empty() {
        message.push_str(". The job summary sums them up.");
    } else {
        let _ = write!(
            message,
            ". The verifiers' logs have them all ({}); the job summary sums them up.",
            logs.join(", ")
        );
    }
    message
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The Markdown job summary for `$GITHUB_STEP_SUMMARY`: the Markdown report.
pub fn job_summary(input: &RenderInput<'_>) -> String {
    markdown::render(input)
}

/// One diagnostic's annotation.
fn annotation(out: &mut String, input: &RenderInput<'_>, verifier: &str, diagnostic: &Diagnostic) {
    let level = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let file = diagnostic
        .file
        .as_deref()
        .filter(|f| !f.trim().is_empty())
        .map(|f| input.repo_path(f));
    let line = diagnostic.line.filter(|l| *l >= 1).map(|l| l.to_string());
    let column = diagnostic.column.filter(|c| *c >= 1).map(|c| c.to_string());
    let title = match &diagnostic.code {
        Some(code) => format!("{verifier}: {code}"),
        None => verifier.to_owned(),
    };
    let mut properties: Vec<(&str, &str)> = Vec::new();
    if let Some(file) = file.as_deref() {
        properties.push(("file", file));
        if let Some(line) = &line {
            properties.push(("line", line));
            if let Some(column) = &column {
                properties.push(("col", column));
            }
        }
    }
    properties.push(("title", &title));
    let mut message = String::new();
    if let Some(test) = &diagnostic.test {
        let _ = write!(message, "{test}: ");
    }
    message.push_str(diagnostic.message.trim());
    if let Some(detail) = diagnostic.detail.as_deref().map(str::trim)
        && !detail.is_empty()
    {
        let _ = write!(message, "\n{detail}");
    }
    command(out, level, &properties, &message);
}

/// Writes `::name key=value,…::message` and a newline.
fn command(out: &mut String, name: &str, properties: &[(&str, &str)], message: &str) {
    out.push_str("::");
    out.push_str(name);
    for (i, (key, value)) in properties.iter().enumerate() {
        out.push(if i == 0 { ' ' } else { ',' });
        out.push_str(key);
        out.push('=');
        out.push_str(&escape_property(value));
    }
    out.push_str("::");
    out.push_str(&escape_data(message));
    out.push('\n');
}

/// Escapes a command's message.
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if c.is_control() && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// Escapes a command's property value.
pub fn escape_property(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c if c.is_control() && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_runner() {
        assert_eq!(escape_data("50%\r\na:b,c"), "50%25%0D%0Aa:b,c");
        assert_eq!(escape_data("\u{1b}[31mred\u{7}"), "[31mred");
        assert_eq!(escape_property("50%\r\na:b,c"), "50%25%0D%0Aa%3Ab%2Cc");
    }
}
