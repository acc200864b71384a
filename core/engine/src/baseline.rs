//! Failures known before a change: a [`Baseline`] of fingerprints taken from earlier verifications,
//! and [`Baseline::set_aside`], which removes those failures from new results.
//!
//! Used by `verdict run --baseline FILE` (the known failures of, say, the main branch) and by the
//! retry loop's `--new-failures-only` (the failures the starting tree already had). Failures are
//! matched by [`Fingerprint`] — tool, code, file and test, not the line — with multiplicity, so a
//! moved line still matches and three of a kind against a baseline of two leaves one.

use std::collections::BTreeMap;

use crate::model::{Fingerprint, Kind, Outcome, Report, Severity, Verification};

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
    /// multiplicity: three of a kind against a baseline of two leaves one), adjusting its counts; a
    /// report left with no failure passes. Returns how many were set aside. Errored reports are left
    /// alone: a verifier that could not verify has not shown that only old failures remain.
    pub fn set_aside(&self, verifications: &mut [Verification]) -> u64 {
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
            let mut removed_tests = 0u64;
            let mut removed_errors = 0u64;
            let mut removed_suites = 0u64;
            let mut removed_warnings = 0u64;
            report.diagnostics.retain(|d| {
                let Some(left) = budget.get_mut(&d.fingerprint).filter(|n| **n > 0) else {
                    return true;
                };
                *left -= 1;
                // As the tools count them: a failing test is a failed test; a test file that
                // did not load is an errored suite and (for pytest) an error; a fixture that
                // raised around a test is an error.
                if d.kind == Kind::Test && d.is_failed_test() {
                    removed_tests += 1;
                } else if d.severity == Severity::Error {
                    removed_errors += 1;
                    if d.kind == Kind::Test && d.test.is_none() {
                        removed_suites += 1;
                    }
                } else {
                    removed_warnings += 1;
                }
                false
            });
            let removed = removed_tests + removed_errors + removed_warnings;
            if removed == 0 {
                continue;
            }
            total += removed;
            let counts = &mut report.counts;
            let sub = |n: &mut Option<u64>, by: u64| {
                if let Some(n) = n {
                    *n = n.saturating_sub(by);
                }
            };
            sub(&mut counts.tests_failed, removed_tests);
            sub(&mut counts.errors, removed_errors);
            sub(&mut counts.suites_errored, removed_suites);
            if counts.files.is_some() {
                // The files still holding a finding; the tool's own count included the known
                // ones. (Findings beyond the kept diagnostics are not placed, so this is exact
                // only when nothing was dropped; it never counts a file that has none left.)
                let left: std::collections::BTreeSet<&str> = report
                    .diagnostics
                    .iter()
                    .filter_map(|d| d.file.as_deref())
                    .collect();
                counts.files = Some(left.len() as u64);
            }
            sub(&mut counts.warnings, removed_warnings);
            let failures_left = report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error)
                || report.diagnostics_dropped > 0
                || counts.tests_failed.is_some_and(|n| n > 0)
                || counts.suites_errored.is_some_and(|n| n > 0)
                || counts.errors.is_some_and(|n| n > 0);
            if !failures_left {
                report.outcome = Outcome::Passed;
            }
            verification.notes.push(format!(
                "{removed} known failure{} set aside (in the baseline)",
                if removed == 1 { "" } else { "s" }
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
        let n = baseline.set_aside(&mut now);
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
        assert_eq!(report.counts.errors, Some(0));
        assert_eq!(report.counts.suites_errored, Some(0));
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
        assert_eq!(report.counts.errors, Some(0));
    }

    #[test]
    fn the_files_count_is_of_the_files_still_holding_a_finding() {
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
        assert_eq!(report.counts.errors, Some(1));
        assert_eq!(report.counts.files, Some(1));
    }
}
