//! The end of a run: its closing line and counts (pytest-sugar's too), the problems of the run
//! as a whole, and the outcome.

use verdict_model::{Diagnostic, Kind, Outcome, Report, Severity};

use super::lines::final_counts;
use super::parser::Parser;
use super::{MAX_MESSAGE, TOOL};
use crate::text::{clip, count_of};

impl Parser {
    /// Reads pytest-sugar's counts (`       9 passed`, `      16 failed` and, under it, `         -
    /// tests/test_x.py:10 test_x` for each failing test); `true` for the lines that are its.
    pub(super) fn sugar_results_line(&mut self, line: &str) -> bool {
        if !self.sugar_results {
            return false;
        }
        let trimmed = line.trim();
        if line.starts_with(' ')
            && let Some(count) = final_counts(trimmed)
        {
            let counts = self.final_counts.get_or_insert_with(String::new);
            if counts.len() < MAX_MESSAGE {
                if !counts.is_empty() {
                    counts.push_str(", ");
                }
                counts.push_str(count);
            }
            self.final_line = Some(counts.clone());
            return true;
        }
        if trimmed.is_empty() || (line.starts_with(' ') && trimmed.starts_with("- ")) {
            return true;
        }
        self.sugar_results = false;
        false
    }

    /// Why a log without its closing line is errored, naming the test it stopped in.
    fn cut_error(&mut self) -> String {
        match self.running.take().filter(|_| !self.xdist) {
            Some(test) => {
                format!("the log ends before pytest's summary line, while {test} was running")
            }
            None => "the log ends before pytest's summary line".to_owned(),
        }
    }
}

impl Parser {
    /// What the run says beyond its tests' failures: the test pytest-timeout stopped the run in,
    /// pytest-cov's minimum not reached, the warnings, the failures beyond the cap. `true` when
    /// pytest-timeout ended the run.
    pub(super) fn push_run_problems(&mut self, report: &mut Report) -> bool {
        let mut timed_out = false;
        if self.started
            && self.final_counts.is_none()
            && self.internal.is_none()
            && let Some(d) = self.timeout_diagnostic()
        {
            report.push(d);
            // pytest-timeout ended the run on purpose: the test that hung is the failure.
            timed_out = true;
        }
        if let Some(coverage) = self.coverage.take() {
            report.push(
                Diagnostic::new(TOOL, Kind::Custom, Severity::Error, coverage)
                    .with_code("coverage"),
            );
        }
        for w in std::mem::take(&mut self.warnings) {
            report.push(w);
        }
        report.diagnostics_dropped += self.dropped;
        timed_out
    }

    /// A label's count summed over the sessions, or `None` when no session has it.
    pub(super) fn total(&self, labels: &[&str]) -> Option<u64> {
        self.earlier_counts
            .iter()
            .map(String::as_str)
            .chain(self.final_counts.as_deref())
            .filter_map(|counts| labels.iter().find_map(|label| count_of(counts, label)))
            .reduce(|a, b| a.saturating_add(b))
    }

    /// The counts of the closing lines, the tests `-v` named when they are all of them, and the
    /// summary.
    pub(super) fn count(&mut self, report: &mut Report) {
        if !self.earlier_counts.is_empty() || self.final_counts.is_some() {
            let c = &mut report.counts;
            c.tests_passed = Some(self.total(&["passed"]).unwrap_or(0));
            c.tests_failed = Some(self.total(&["failed"]).unwrap_or(0));
            // JUnit and most dashboards count an expected failure as skipped.
            c.tests_skipped =
                Some(self.total(&["skipped"]).unwrap_or(0) + self.total(&["xfailed"]).unwrap_or(0));
            // pytest's own words for them, so that the digest counts as pytest does.
            c.tests_xfailed = self.total(&["xfailed"]);
            c.tests_xpassed = self.total(&["xpassed"]);
            // `-k`, `-m` and `--deselect` leave tests out without skipping them.
            c.tests_deselected = self.total(&["deselected"]);
            c.errors = self.total(&["errors", "error"]);
            c.warnings = self.total(&["warnings", "warning"]);
        }
        report.counts.suites_errored = self.collection_errors;
        let c = &report.counts;
        let counted = [
            c.tests_passed,
            c.tests_failed,
            c.tests_skipped,
            c.tests_xpassed,
            c.errors,
        ]
        .iter()
        .map(|n| n.unwrap_or(0))
        .sum::<u64>();
        if self.tests.len() as u64 + self.tests_dropped + self.teardown_errors == counted {
            // `-v` named every test the closing line counts (without `-v`, or with files that
            // failed to collect, it names some or none: no list then).
            report.tests = std::mem::take(&mut self.tests);
            report.tests_dropped = self.tests_dropped;
        }
        let lines: Vec<&str> = self
            .earlier_lines
            .iter()
            .chain(&self.final_line)
            .map(|l| l.trim_matches(|c| c == '=' || c == ' '))
            .collect();
        report.summary = (!lines.is_empty()).then(|| clip(&lines.join("; "), MAX_MESSAGE));
    }

    /// The run's outcome, with the error that says why when it is errored.
    pub(super) fn outcome(&mut self, report: &mut Report, timed_out: bool) -> Outcome {
        let failing = report.counts.tests_failed.unwrap_or(0) > 0
            || report.counts.errors.unwrap_or(0) > 0
            || report.errors().next().is_some();
        let ran = [
            "passed", "failed", "skipped", "xfailed", "xpassed", "error", "errors",
        ]
        .iter()
        .any(|label| self.total(&[label]).unwrap_or(0) > 0);
        // `--collect-only` ends with `34 tests collected in 0.05s`: nothing ran, and nothing had
        // to.
        let collected_only = ["tests collected", "test collected"]
            .iter()
            .any(|label| self.total(&[label]).unwrap_or(0) > 0);
        if let Some(internal) = self.internal.take() {
            report.error = Some(format!("INTERNALERROR: {internal}"));
            Outcome::Errored
        } else if self.usage || (self.error.is_some() && !failing) {
            report.error = Some(
                self.error
                    .take()
                    .unwrap_or_else(|| "pytest was called with invalid arguments".to_owned()),
            );
            Outcome::Errored
        } else if self.final_counts.is_none()
            && !self.load_failed
            && !timed_out
            && self.collection_errors.is_none()
        {
            // A run that ends says so in its closing line; without it the log was cut, or pytest
            // died (a crash in a test, the runner killed), or this is not its report: what it
            // shows failing is kept, but what passed is unknown.
            report.error = Some(self.cut_error());
            Outcome::Errored
        } else if failing {
            Outcome::Failed
        } else if self.interrupted {
            report.error = Some("pytest was interrupted before it finished".to_owned());
            Outcome::Errored
        } else if self.final_counts.is_some() && !ran && !collected_only {
            // Exit code 5: nothing was collected, or everything was deselected.
            report.error = Some(
                report
                    .summary
                    .clone()
                    .unwrap_or_else(|| "no tests ran".to_owned()),
            );
            Outcome::Errored
        } else if self.final_counts.is_none() {
            report.error = Some(self.cut_error());
            Outcome::Errored
        } else {
            Outcome::Passed
        }
    }
}
