//! A log of several tools, one after the other (`make test` running eslint then mocha, a shell
//! line running two scripts), split where a package manager or make announces the next command,
//! each part read by the summarizer that recognises it.
//!
//! The markers are what the runners print before a command, never guesses from the tools'
//! output: npm and pnpm's `> name@version script` header, yarn's `$ command` line, make's
//! `make[1]: Entering directory`. A log without them is one part.

use verdict_model::{Outcome, Report};

/// The largest log that is split; a bigger one is read whole, streamed, by one summarizer.
pub(crate) const MAX_SPLIT_BYTES: u64 = 16 * 1024 * 1024;

/// How much of a part is looked at to recognise its tool.
const SAMPLE: usize = 64 * 1024;

/// The parts of `log`, at the runners' announcements of a new command.
pub(crate) fn split(log: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut offset = 0;
    let mut lines = log.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let next = lines.peek().copied().unwrap_or_default();
        if !log[start..offset].trim().is_empty() && announces(line, next) {
            parts.push(&log[start..offset]);
            start = offset;
        }
        offset += line.len();
    }
    if start < log.len() {
        parts.push(&log[start..]);
    }
    parts
}

/// Whether `line` (followed by `next`) announces a new command.
fn announces(line: &str, next: &str) -> bool {
    let line = line.trim_end();
    // npm 7+ and pnpm: `> pkg@1.0.0 lint` then `> eslint .`.
    let npm = line
        .strip_prefix("> ")
        .and_then(|rest| rest.split_whitespace().next())
        .is_some_and(|package| package.contains('@') && !package.starts_with('@'))
        && next.starts_with("> ");
    // yarn 1: `$ eslint .` right after `yarn run v1.22.22`.
    let yarn = line.starts_with("yarn run v");
    let make = line.starts_with("make") && line.contains(": Entering directory");
    npm || yarn || make
}

/// The report of one part, by the summarizer that recognises it; `None` when none does.
pub(crate) fn read(part: &str) -> Option<Report> {
    let sample = {
        let mut end = part.len().min(SAMPLE);
        while !part.is_char_boundary(end) {
            end -= 1;
        }
        verdict_model::lines::clean(&part.as_bytes()[..end])
    };
    let detection = verdict_summarizers::detect(&sample);
    let recognised = detection.summarizer.name() != "generic"
        && detection.confidence >= verdict_summarizers::MIN_CONFIDENCE;
    recognised.then(|| detection.summarizer.parse(part.as_bytes()))
}

/// The reports of several parts as one: the worst outcome, every diagnostic, the counts summed
/// where the parts give them, the summaries and notes of each.
pub(crate) fn merge(name: &str, reports: Vec<Report>) -> Report {
    let outcome = if reports.iter().any(|r| r.outcome == Outcome::Errored) {
        Outcome::Errored
    } else if reports.iter().any(|r| r.outcome == Outcome::Failed) {
        Outcome::Failed
    } else {
        Outcome::Passed
    };
    let mut merged = Report::new(name, outcome);
    let mut summaries = Vec::new();
    let mut errors = Vec::new();
    for report in reports {
        merged.counts.add(&report.counts);
        if let Some(summary) = &report.summary {
            summaries.push(format!("{}: {summary}", report.tool));
        }
        if let Some(error) = &report.error {
            errors.push(format!("{}: {error}", report.tool));
        }
        merged.note(format!("read as {}'s output", report.tool));
        for note in report.notes {
            merged.note(note);
        }
        for diagnostic in report.diagnostics {
            merged.push(diagnostic);
        }
        merged.diagnostics_dropped += report.diagnostics_dropped;
    }
    merged.summary = (!summaries.is_empty()).then(|| summaries.join("; "));
    if outcome == Outcome::Errored {
        merged.error = Some(errors.join("; "));
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_at_npm_headers_yarn_and_make_only() {
        let log = "\n> app@1.0.0 lint\n> eslint .\n\nproblem\n\n> app@1.0.0 test\n> mocha\n\n  1 passing\n";
        let parts = split(log);
        assert_eq!(parts.len(), 2, "{parts:#?}");
        assert!(parts[0].contains("eslint") && !parts[0].contains("mocha"));
        assert!(parts[1].starts_with("> app@1.0.0 test"));
        // A scoped package name, a quoted `>` in a test's output: no header.
        assert_eq!(split("a\n> @scope/x\n> y\n").len(), 1);
        assert_eq!(split("expected\n> 3\n> 4\n").len(), 1);
        assert_eq!(split("x\nmake[1]: Entering directory '/p/a'\ny\n").len(), 2);
    }
}
