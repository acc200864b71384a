//! Failures known before a change: a [`Baseline`] of fingerprints taken from earlier verifications,
//! and [`Baseline::set_aside`], which removes those failures from new results.
//!
//! Used by `verdict run --baseline FILE` (the known failures of, say, the main branch) and by the
//! retry loop's `--new-failures-only` (the failures the starting tree already had). Failures are
//! matched by [`Fingerprint`] — tool, code, file and test, not the line — with multiplicity, so a
//! moved line still matches and three of a kind against a baseline of two leaves one.

use std::collections::BTreeMap;

use crate::model::{
    Fingerprint, Kind, KnownFrom, Outcome, Report, SetAside, Severity, Verification,
};

/// The fingerprints of earlier verifications, by verifier, with their multiplicity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    known: BTreeMap<String, BTreeMap<Fingerprint, usize>>,
}

impl Baseline {
    /// The failures (every diagnostic) of `verifications`.
    pub fn from_verifications(verifications: &[Verification]) -> Baseline {
        let mut baseline = Baseline::default();
        for verification in verifications {
            baseline.add(&verification.verifier, &verification.report);
        }
        baseline
    }

    /// Adds the failures (every diagnostic) of `verifier`'s `report`.
    pub fn add(&mut self, verifier: &str, report: &Report) {
        let counts = self.known.entry(verifier.to_owned()).or_default();
        for diagnostic in &report.diagnostics {
            *counts.entry(diagnostic.fingerprint).or_default() += 1;
        }
    }

    /// Adds one failure of `verifier` (as read back from [`Baseline::fingerprints`]).
    pub fn add_fingerprint(&mut self, verifier: &str, fingerprint: Fingerprint) {
        *self
            .known
            .entry(verifier.to_owned())
            .or_default()
            .entry(fingerprint)
            .or_default() += 1;
    }

    /// Every known failure as (verifier, fingerprint), each as many times as it is known, in a
    /// stable order: what a caller stores to rebuild the baseline with
    /// [`Baseline::add_fingerprint`].
    pub fn fingerprints(&self) -> impl Iterator<Item = (&str, Fingerprint)> + '_ {
        self.known.iter().flat_map(|(verifier, counts)| {
            counts.iter().flat_map(move |(fingerprint, n)| {
                std::iter::repeat_n((verifier.as_str(), *fingerprint), *n)
            })
        })
    }

    /// No failure is known.
    pub fn is_empty(&self) -> bool {
        self.known.values().all(BTreeMap::is_empty)
    }

    /// Removes from each failed report the failures the baseline already had (by fingerprint, with
    /// multiplicity: three of a kind against a baseline of two leaves one) and records how many in
    /// [`Report::set_aside`], known `from` where it says; the report's counts stay the tool's, so
    /// that no text ever calls a verifier with failures clean. A report left with no new failure
    /// passes. Returns how many were set aside. Errored reports are left alone: a verifier that
    /// could not verify has not shown that only old failures remain.
    pub fn set_aside(&self, verifications: &mut [Verification], from: KnownFrom) -> u64 {
        let mut total = 0;
        for verification in verifications {
            let report = &mut verification.report;
            if report.outcome != Outcome::Failed {
                continue;
            }
            let Some(known) = self.known.get(&verification.verifier) else {
                continue;
            };
            let mut budget = known.clone();
            let mut aside = SetAside::new(from);
            report.diagnostics.retain(|d| {
                let Some(left) = budget.get_mut(&d.fingerprint).filter(|n| **n > 0) else {
                    return true;
                };
                *left -= 1;
                // As the tools count them: a failing test is a failed test; a test file that
                // did not load is an errored suite and (for pytest) an error; a fixture that
                // raised around a test is an error.
                if d.kind == Kind::Test && d.is_failed_test() {
                    aside.tests_failed += 1;
                } else if d.severity == Severity::Error {
                    aside.errors += 1;
                    if d.kind == Kind::Test && d.test.is_none() {
                        aside.suites_errored += 1;
                    }
                } else {
                    aside.warnings += 1;
                }
                false
            });
            let removed = aside.failures() + aside.warnings;
            if removed == 0 {
                continue;
            }
            total += removed;
            let counts = &report.counts;
            let left = |n: Option<u64>, by: u64| n.is_some_and(|n| n > by);
            let failures_left = report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
                || report.diagnostics_dropped > 0
                || left(counts.tests_failed, aside.tests_failed)
                || left(counts.suites_errored, aside.suites_errored)
                || left(counts.errors, aside.errors);
            if !failures_left {
                report.outcome = Outcome::Passed;
            }
            report.set_aside = Some(aside);
            verification.notes.push(format!(
                "{removed} known failure{} set aside ({})",
                if removed == 1 { "" } else { "s" },
                from.before()
            ));
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Diagnostic;

    fn test_failure(name: &str) -> Diagnostic {
        Diagnostic::new("pytest", Kind::Test, Severity::Error, "assert 1 == 2")
            .at("test_a.py", Some(3), None)
            .with_test(name)
    }

    fn verification(
        diagnostics: &[Diagnostic],
        failed: u64,
        errors: u64,
        suites: u64,
    ) -> Verification {
        let mut report = Report::new("pytest", Outcome::Failed);
        for d in diagnostics {
            report.push(d.clone());
        }
        report.counts.tests_failed = Some(failed);
        report.counts.tests_passed = Some(2);
        report.counts.errors = (errors > 0).then_some(errors);
        report.counts.suites_errored = (suites > 0).then_some(suites);
        Verification {
            verifier: "pytest".to_owned(),
            kind: Kind::Test,
            status: crate::model::Status::Ran,
            report,
            command: None,
            log: None,
            duration: std::time::Duration::ZERO,
            notes: Vec::new(),
        }
    }

    /// Sets `now` aside against a baseline of `before`; the report and how many were set aside.
    fn check(before: &Verification, now: Verification) -> (Report, u64) {
        let baseline = Baseline::from_verifications(std::slice::from_ref(before));
        let mut now = [now];
        let n = baseline.set_aside(&mut now, KnownFrom::Baseline);
        let [now] = now;
        (now.report, n)
    }

    #[test]
    fn a_baseline_rebuilt_from_its_fingerprints_is_the_same() {
        let a = test_failure("test_a.py::test_x");
        let before = verification(&[a.clone(), a, test_failure("test_a.py::test_y")], 3, 0, 0);
        let baseline = Baseline::from_verifications(std::slice::from_ref(&before));
        let mut rebuilt = Baseline::default();
        for (verifier, fingerprint) in baseline.fingerprints() {
            rebuilt.add_fingerprint(verifier, fingerprint);
        }
        assert_eq!(baseline.fingerprints().count(), 3);
        assert_eq!(rebuilt, baseline);
    }

    #[test]
    fn known_errors_around_tests_and_known_collection_errors_leave_a_pass() {
        let fixture = test_failure("test_a.py::test_db").as_test_error();
        let collect = Diagnostic::new("pytest", Kind::Test, Severity::Error, "ImportError: x")
            .at("test_b.py", None, None)
            .as_root_cause();
        let before = verification(&[fixture.clone(), collect.clone()], 0, 2, 1);
        let (report, n) = check(&before, verification(&[fixture, collect], 0, 2, 1));
        assert_eq!(n, 2);
        assert_eq!(report.outcome, Outcome::Passed, "{report:?}");
        // The tool's counts, and how many of them predate.
        assert_eq!(report.counts.errors, Some(2));
        assert_eq!(report.counts.suites_errored, Some(1));
        let aside = report.set_aside.expect("set aside");
        assert_eq!((aside.errors, aside.suites_errored), (2, 1));
        assert_eq!(aside.new_failures(&report), 0);
        assert_eq!(aside.words(0), "all 2 in the baseline");
    }

    #[test]
    fn a_new_failing_test_beside_known_errors_is_counted_as_a_failed_test() {
        let fixture = test_failure("test_a.py::test_db").as_test_error();
        let before = verification(std::slice::from_ref(&fixture), 0, 1, 0);
        let now = verification(&[fixture, test_failure("test_a.py::test_new")], 1, 1, 0);
        let (report, n) = check(&before, now);
        assert_eq!(n, 1);
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.tests_failed, Some(1));
        assert_eq!(report.counts.errors, Some(1));
        let aside = report.set_aside.expect("set aside");
        assert_eq!((aside.tests_failed, aside.errors), (0, 1));
        assert_eq!(aside.new_failures(&report), 1);
        assert_eq!(
            aside.words(1),
            "1 of the failures is in the baseline, 1 is new"
        );
    }

    #[test]
    fn the_counts_stay_the_tools_own() {
        let lint = |file: &str, rule: &str| {
            Diagnostic::new("eslint", Kind::Lint, Severity::Error, "bad")
                .at(file, Some(1), Some(1))
                .with_code(rule)
        };
        let old = [lint("a.js", "r1"), lint("b.js", "r1"), lint("c.js", "r1")];
        let mut before = verification(&old, 0, 3, 0);
        before.report.counts.files = Some(3);
        let mut all = old.to_vec();
        all.push(lint("d.js", "r2"));
        let mut now = verification(&all, 0, 4, 0);
        now.report.counts.files = Some(4);
        let (report, n) = check(&before, now);
        assert_eq!(n, 3);
        assert_eq!(report.counts.errors, Some(4));
        assert_eq!(report.counts.files, Some(4));
        assert_eq!(report.diagnostics.len(), 1);
        let aside = report.set_aside.expect("set aside");
        assert_eq!(aside.errors, 3);
        assert_eq!(
            aside.words(aside.new_failures(&report)),
            "3 of the failures are in the baseline, 1 is new"
        );
    }
}
