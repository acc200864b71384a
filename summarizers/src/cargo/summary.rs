//! The end of the log: the targets that failed without libtest's report, failing tests that
//! printed no block, the counts, and the outcome.

use verdict_model::{Diagnostic, Evidence, Kind, Outcome, Report, Severity};

use super::TOOL;
use super::libtest::FailedTarget;
use super::parser::{Parser, add};

impl Parser {
    /// Ends what is still being read and builds the report.
    pub(super) fn finish_report(mut self: Box<Self>) -> Report {
        self.finish_pending();
        self.finish_block();
        self.finish_loose();
        self.finish_run();
        let failed_targets = std::mem::take(&mut self.report.failed_targets);
        self.report_failed_targets(&failed_targets);
        self.report_unblocked_failures();
        let error = self.unlocated_errors();
        let mut report = Report::new(TOOL, Outcome::Passed);
        self.count(&mut report);
        report.outcome = self.outcome(&mut report, error, &failed_targets);
        let r = &mut self.report;
        report.diagnostics = std::mem::take(&mut r.diagnostics);
        report.diagnostics_dropped = r.dropped;
        for note in std::mem::take(&mut r.notes) {
            report.note(note);
        }
        report
    }

    /// The targets cargo saw fail without libtest's report, and the libtest binaries that ended
    /// before their summary with cargo none the wiser.
    fn report_failed_targets(&mut self, failed_targets: &[FailedTarget]) {
        let mut ended = 0;
        for failure in failed_targets.iter().filter_map(FailedTarget::diagnostic) {
            // The target failed; a crash or an early exit hides which test, so it counts once.
            add(&mut self.report.failed, 1);
            ended += 1;
            self.report.push(failure);
        }
        // A libtest binary that ended before its summary is one of those cargo saw fail (the
        // two streams cannot be paired line by line, but they can be counted), or one that
        // exited 0 in the middle of its tests.
        let silent = self.report.incomplete.saturating_sub(ended);
        if silent > 0 {
            let (reported, n) = self.report.first_incomplete.unwrap_or((0, 0));
            let which = if silent == self.report.incomplete {
                format!("a test binary ended before its summary ({reported} of {n} tests reported)")
            } else {
                format!("{silent} test binaries ended before their summary")
            };
            self.report.incomplete_error = Some(format!(
                "{which} and cargo did not see it fail: a test may have called `process::exit`"
            ));
        }
    }

    /// Failing tests that printed no block: a loose panic of the same name says why if there
    /// was one, else only that the test failed.
    fn report_unblocked_failures(&mut self) {
        let failing = std::mem::take(&mut self.failing);
        let loose = std::mem::take(&mut self.loose);
        for name in &failing {
            if !self.reported.contains(name) {
                let panic = loose
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default();
                self.report_test(name, &panic);
            }
        }
    }

    /// Errors without a location: next to a failed compilation they are the compiler's (a
    /// linker error) and become diagnostics; alone, they are cargo's own and nothing was built,
    /// and the first is returned as the run's error.
    fn unlocated_errors(&mut self) -> Option<String> {
        if self.unlocated.is_empty() {
            return None;
        }
        if !self.report.compile_failed {
            return self.unlocated.first().cloned();
        }
        for message in std::mem::take(&mut self.unlocated) {
            self.report
                .push(Diagnostic::new(TOOL, Kind::Build, Severity::Error, message));
        }
        None
    }

    /// The report's evidence, tests, counts and summary line.
    fn count(&mut self, report: &mut Report) {
        let r = &self.report;
        if r.build_finished_json {
            report.saw(Evidence::Checked);
        }
        report.tests = std::mem::take(&mut self.tests);
        report.tests_dropped = self.tests_dropped;
        report.counts.errors = r.errors.or(r.rustc_errors);
        report.counts.warnings = if r.target_warnings.is_empty() {
            r.rustc_warnings
        } else {
            Some(r.target_warnings.values().sum())
        };
        report.counts.tests_passed = r.passed;
        report.counts.tests_failed = r.failed;
        report.counts.tests_skipped = r.ignored;
        report.counts.tests_deselected = r.filtered;
        report.summary = r
            .compile_summary
            .clone()
            .or_else(|| r.first_failed_result.clone())
            .or_else(|| r.last_result.clone())
            .or_else(|| r.warning_summary.clone())
            .or_else(|| r.finished.clone());
    }

    /// The run's outcome, with the error that says why when it is errored; `error` is cargo's
    /// own error without a location.
    fn outcome(
        &self,
        report: &mut Report,
        error: Option<String>,
        failed_targets: &[FailedTarget],
    ) -> Outcome {
        let r = &self.report;
        let compiled_errors = r.compile_failed
            || r.diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.kind != Kind::Test);
        let tests_failed =
            r.failed.unwrap_or(0) > 0 || r.diagnostics.iter().any(|d| d.kind == Kind::Test);
        if let Some(error) = self.unverified() {
            report.error = Some(error);
            Outcome::Errored
        } else if compiled_errors || tests_failed || r.errors.unwrap_or(0) > 0 {
            Outcome::Failed
        } else if let Some(error) = error {
            report.error = Some(error);
            Outcome::Errored
        } else if r.test_failed_marker || r.build_failed_json {
            report.error = Some(match failed_targets.first() {
                // Only cargo's standard error was kept: libtest's report went elsewhere.
                Some(target) => format!(
                    "cargo says the tests of `{}` failed, but the log holds no test output \
                     (standard output not captured?)",
                    target.target
                ),
                None => "cargo reported a failure, but the log shows no error or failing test"
                    .to_owned(),
            });
            Outcome::Errored
        } else if let Some(building) = r.building.clone() {
            // cargo ends every build it finishes with `Finished`: this one was cut off (killed,
            // out of memory) while it was still compiling.
            report.error = Some(format!(
                "the log ends while cargo was still building (`{building}`), before its \
                 `Finished` line"
            ));
            Outcome::Errored
        } else {
            Outcome::Passed
        }
    }

    /// Why nothing of the code could be verified, whatever failed: an internal compiler error, a
    /// manifest error, a test binary that ended early, a missing system library, a compiler
    /// killed.
    fn unverified(&self) -> Option<String> {
        let r = &self.report;
        if let Some(ice) = r.ice.clone() {
            return Some(ice);
        }
        if let Some(manifest) = r.manifest_error.clone().filter(|_| !r.compile_failed) {
            return Some(manifest);
        }
        if let Some(incomplete) = r.incomplete_error.clone() {
            // The rest of that binary's tests never ran: nothing says they pass, whatever else
            // failed.
            return Some(incomplete);
        }
        if let Some(library) = r.missing_library.as_deref().filter(|_| {
            !r.other_unlocated
                && r.failed.unwrap_or(0) == 0
                && !r
                    .diagnostics
                    .iter()
                    .any(|d| d.severity == Severity::Error && d.file.is_some())
        }) {
            // Nothing in the code failed: the machine lacks a library, and the tests never ran.
            return Some(format!(
                "the linker could not find a system library ({library}): install it; the code \
                 was not verified"
            ));
        }
        r.compiler_killed.clone().filter(|_| {
            !r.diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.kind != Kind::Test)
        })
    }
}
