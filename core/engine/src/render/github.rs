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
//! GitHub shows at most 10 error and 10 warning annotations per step and 50 per job, and drops
//! the rest. So the most useful come first (errored verifiers, then errors, root causes first),
//! at most [`MAX_ANNOTATIONS`] are written, and a last notice says how many were left out and
//! where they are — nothing vanishes silently, and the log is not flooded.

use std::fmt::Write as _;

use super::{RenderInput, forward_slashes, markdown, plural, ranked, reason};
use crate::model::{Diagnostic, Outcome, Severity};

/// The most annotations written: GitHub's limit per job.
pub const MAX_ANNOTATIONS: usize = 50;

/// Renders the workflow commands.
pub fn render(input: &RenderInput<'_>) -> String {
    let mut out = String::new();
    let mut written = 0usize;
    let mut left_out = 0u64;
    for verification in input.verifications {
        if verification.outcome() == Outcome::Errored {
            let title = format!("verdict: {} could not verify", verification.verifier);
            command(
                &mut out,
                "error",
                &[("title", &title)],
                &reason(verification),
            );
            written += 1;
        }
    }
    for verification in input.verifications {
        let report = &verification.report;
        for diagnostic in ranked(report) {
            if written >= MAX_ANNOTATIONS {
                left_out += 1;
                continue;
            }
            annotation(&mut out, &verification.verifier, diagnostic);
            written += 1;
        }
        left_out += report.diagnostics_dropped;
    }
    if left_out > 0 {
        let logs: Vec<&str> = input
            .verifications
            .iter()
            .filter_map(|v| v.log.as_deref())
            .collect();
        let mut message = format!(
            "{} not annotated (GitHub shows at most {MAX_ANNOTATIONS} per job)",
            plural(left_out, "finding", "findings")
        );
        if !logs.is_empty() {
            let _ = write!(message, "; full logs: {}", logs.join(", "));
        }
        command(&mut out, "notice", &[("title", "verdict")], &message);
    }
    if input.known_failures > 0 {
        let message = format!(
            "{} set aside (baseline)",
            plural(input.known_failures, "known failure", "known failures")
        );
        command(&mut out, "notice", &[("title", "verdict")], &message);
    }
    out
}

/// The Markdown job summary for `$GITHUB_STEP_SUMMARY`: the Markdown report.
pub fn job_summary(input: &RenderInput<'_>) -> String {
    markdown::render(input)
}

/// One diagnostic's annotation.
fn annotation(out: &mut String, verifier: &str, diagnostic: &Diagnostic) {
    let level = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let file = diagnostic.file.as_deref().map(forward_slashes);
    let line = diagnostic.line.filter(|l| *l >= 1).map(|l| l.to_string());
    let column = diagnostic.column.filter(|c| *c >= 1).map(|c| c.to_string());
    let title = match &diagnostic.code {
        Some(code) => format!("{verifier}: {code}"),
        None => verifier.to_owned(),
    };
    let mut properties: Vec<(&str, &str)> = Vec::new();
    if let Some(file) = file.as_deref().filter(|f| !f.is_empty()) {
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
