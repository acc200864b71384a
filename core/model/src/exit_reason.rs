//! Why a command failed when its tool itemized no failure: the lines of its log that say so.
//!
//! A test run in which every test passed still fails on a coverage threshold, a leak check or
//! a wrapper's own error, and the reason is one line among the tool's output. Two kinds are
//! told apart: a [`ExitReason::thresholds`] line in a phrasing the coverage tools print (a
//! threshold not met: a failure in the code, as a failing test is), and, for anything else, the
//! last lines that read as errors ([`ExitReason::errors`]), so that whatever the reason was, a
//! reader sees it rather than "exited with 1".
//!
//! The phrasings, as the tools print them:
//! - `ERROR: Coverage for functions (96%) does not meet global threshold (100%)` (istanbul's
//!   reporters, so nyc, c8 and vitest), and per file `… does not meet threshold (90%) for x.js`;
//! - `Jest: "global" coverage threshold for lines (80%) not met: 50%` and `Jest: Coverage for
//!   lines (50%) does not meet "global" threshold (95%)`;
//! - `FAIL Required test coverage of 90% not reached. Total coverage: 85.00%` (pytest-cov);
//! - `Coverage failure: total of 85 is less than fail-under=90` (coverage.py's reports);
//! - `Error: 66.67% function coverage does not meet threshold of 100%.` (`node --test`);
//! - a leak check's `leaks detected`, `is leaking memory`.

use std::io::Read;
use std::sync::LazyLock;

use regex::RegexSet;

use crate::lines;
use crate::model::{Diagnostic, Kind, Outcome, Report, Severity};
use crate::verifier::Captured;

/// The lines of a log that say why its command failed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExitReason {
    /// Thresholds the run did not meet (coverage, leaks), in the order printed.
    pub thresholds: Vec<String>,
    /// The last lines that read as errors, in the order printed; a wrapper's lines that only
    /// repeat the exit code (`npm ERR! code 1`, `make: *** [test] Error 1`) are left out.
    pub errors: Vec<String>,
}

impl ExitReason {
    /// Whether the log gave no reason at all.
    pub fn is_empty(&self) -> bool {
        self.thresholds.is_empty() && self.errors.is_empty()
    }

    /// The reason in one line: the thresholds, else the last errors, joined with ` · `.
    pub fn one_line(&self) -> Option<String> {
        let lines = if self.thresholds.is_empty() {
            &self.errors
        } else {
            &self.thresholds
        };
        (!lines.is_empty()).then(|| lines.join(" · "))
    }
}

/// Explains `report` (which itemized no failure) of a command whose tool `program` exited with
/// `code`, a failure, from the lines of its log ([`read`]): each threshold not met becomes a
/// diagnostic of `kind` (code `threshold`) and the report fails, as a failing test would;
/// otherwise the report is errored (nothing shows what failed in the code) with a reason that
/// quotes the last error lines, so that whatever made the command fail is said.
pub fn explain(report: &mut Report, program: &str, code: i32, captured: &Captured, kind: Kind) {
    let reason = captured.open_log().map(read).unwrap_or_default();
    if !reason.thresholds.is_empty() {
        for line in &reason.thresholds {
            let mut diagnostic = Diagnostic::new(&report.tool, kind, Severity::Error, line);
            diagnostic.code = Some("threshold".to_owned());
            report.push(diagnostic);
        }
        report.outcome = Outcome::Failed;
        return;
    }
    let mut message =
        format!("{program} exited with {code}, but no failure could be read from its output");
    match reason.one_line() {
        Some(errors) => message.push_str(&format!("; it printed last: {errors}")),
        None => message.push_str("; see the log"),
    }
    report.outcome = Outcome::Errored;
    report.error = Some(match report.error.take() {
        Some(existing) => format!("{message}; {existing}"),
        None => message,
    });
}

/// How many threshold lines are kept: one per metric and file is plenty to act on.
const MAX_THRESHOLDS: usize = 20;
/// How many error lines are kept: the last few say what happened last.
const MAX_ERRORS: usize = 3;
/// How long a kept line may be, in bytes.
const MAX_LINE: usize = 300;

static THRESHOLD: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new([
        r"(?i)\bcoverage for \S+ \([\d.]+%\) does not meet\b.*\bthreshold\b",
        r"(?i)\bcoverage threshold for \S+ \([\d.]+%\) not met\b",
        r"(?i)\brequired test coverage of [\d.]+% not reached\b",
        r"(?i)\btotal of [\d.]+ is less than fail-under\b",
        r"(?i)\b[\d.]+% \w+ coverage does not meet threshold of\b",
        r"(?i)\bleaks? detected\b|\bis leaking memory\b",
    ])
    .expect("valid patterns")
});

static ERROR: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new([
        r"(?i)^\W{0,3}(error|fatal|failed|failure|fail)\b",
        r"(?i)(error|exception):",
        r"(?i)\bnot (met|reached)\b",
    ])
    .expect("valid patterns")
});

/// A package manager's or make's lines that only repeat that a command failed.
static WRAPPER_NOISE: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new([
        r"^npm (ERR!|error)",
        r"^ ?ELIFECYCLE\b",
        r"^ERR_PNPM_",
        r"^error Command failed with exit code",
        r"^make(\[\d+\])?: \*\*\*",
        r"^error: test failed, to rerun pass",
        r"^error: \d+ targets? failed:",
    ])
    .expect("valid patterns")
});

/// The reasons in a log read from `reader` (streamed: any size in bounded memory).
pub fn read(reader: impl Read) -> ExitReason {
    let mut reason = ExitReason::default();
    let _ = lines::for_each_line(reader, |line| see(&mut reason, line));
    reason
}

/// The reasons in `text`.
pub fn of_text(text: &str) -> ExitReason {
    let mut reason = ExitReason::default();
    lines::for_each_line_in(text.as_bytes(), |line| see(&mut reason, line));
    reason
}

fn see(reason: &mut ExitReason, line: &str) {
    let text = line
        .trim()
        .trim_start_matches(['#', 'ℹ', '✖', '×', '●'])
        .trim();
    if text.is_empty() || WRAPPER_NOISE.is_match(text) {
        return;
    }
    if THRESHOLD.is_match(text) {
        if reason.thresholds.len() < MAX_THRESHOLDS && !reason.thresholds.iter().any(|t| t == text)
        {
            reason.thresholds.push(cut(text));
        }
    } else if ERROR.is_match(text) {
        let text = cut(text);
        reason.errors.retain(|e| *e != text);
        if reason.errors.len() == MAX_ERRORS {
            reason.errors.remove(0);
        }
        reason.errors.push(text);
    }
}

fn cut(text: &str) -> String {
    if text.len() <= MAX_LINE {
        return text.to_owned();
    }
    let mut end = MAX_LINE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(log: &str, thresholds: &[&str], errors: &[&str]) {
        let reason = of_text(log);
        assert_eq!(reason.thresholds, thresholds, "{log}");
        assert_eq!(reason.errors, errors, "{log}");
    }

    #[test]
    fn coverage_thresholds_in_each_tools_phrasing() {
        check(
            "  511 passing (2s)\n\nERROR: Coverage for functions (96%) does not meet global threshold (100%)\n----|---\nAll files | 96\n",
            &["ERROR: Coverage for functions (96%) does not meet global threshold (100%)"],
            &[],
        );
        check(
            "Jest: \"global\" coverage threshold for lines (80%) not met: 50%\nTests: 1 passed, 1 total\n",
            &["Jest: \"global\" coverage threshold for lines (80%) not met: 50%"],
            &[],
        );
        check(
            "FAIL Required test coverage of 90% not reached. Total coverage: 85.00%\n===== 3 passed in 0.1s =====\n",
            &["FAIL Required test coverage of 90% not reached. Total coverage: 85.00%"],
            &[],
        );
        check(
            "TOTAL 7 1 86%\nCoverage failure: total of 86 is less than fail-under=100\n",
            &["Coverage failure: total of 86 is less than fail-under=100"],
            &[],
        );
        check(
            "# all files | 100.00 | 100.00 | 66.67 |\n# Error: 66.67% function coverage does not meet threshold of 100%.\n",
            &["Error: 66.67% function coverage does not meet threshold of 100%."],
            &[],
        );
    }

    #[test]
    fn otherwise_the_last_error_lines_without_the_wrappers_echo() {
        check(
            "ok 1 - a\nError: first\nTypeError: second\nerror: third\nFailed to tear down: fourth\n\
             npm ERR! code 1\nnpm error Lifecycle script `test` failed\nmake: *** [test] Error 1\n\
             error: test failed, to rerun pass `--lib`\n",
            &[],
            &[
                "TypeError: second",
                "error: third",
                "Failed to tear down: fourth",
            ],
        );
        check("all good\n", &[], &[]);
    }
}
