//! The judgement of an attempt: verify (or answer from a verification of the same tree), re-run
//! the failed tests once to tell flaky failures apart, set known failures aside
//! (`new_failures_only`), and check a pass with the cheating guard.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::decide::Failed;
use super::events::{Event, VerifiedRecord};
use super::recorder::record;
use super::run::Driver;
use super::workspace::{blocking, read_sources, take};
use super::{LoopEnd, LoopError, LoopOutcome, VerifyRequest};
use crate::agent_loop::classify::{Category, Classification, FailureSet, classify, flaky_failures};
use crate::agent_loop::guard::{
    Guard, Sources, Violation, as_verification, diff_paths, files_to_read,
};
use crate::digest;
use crate::model::{Fingerprint, Kind, KnownFrom, Outcome, Verification};
use crate::snapshot::TreeId;
use crate::state::{AttemptId, FailureRef, NewVerification, RunState};

/// One attempt's verification, judged.
struct Judged {
    verifications: Vec<Verification>,
    /// The verifications as the tools reported them (after the flaky re-run, before known
    /// failures and the guard): what a later attempt on the same tree is answered from.
    as_verified: Vec<Verification>,
    digest: digest::Digest,
    record: VerifiedRecord,
    classification: Option<Classification>,
}

/// The verifications of an attempt with the flaky failures set aside, before known failures and
/// the guard.
struct Verified {
    verifications: Vec<Verification>,
    flaky: FailureSet,
}

/// An attempt's verifications with flaky and known failures set aside and the guard's verdict in.
struct Settled {
    verifications: Vec<Verification>,
    as_verified: Vec<Verification>,
    flaky: FailureSet,
    failures: FailureSet,
    known: usize,
    passed: bool,
    answered_from: Option<String>,
}

impl Driver<'_> {
    /// Verifies attempt `number` (the run is `verifying`) and decides what follows.
    pub(super) async fn verify_attempt(
        &mut self,
        attempt: AttemptId,
        number: u32,
        changed: bool,
        tree: Option<TreeId>,
    ) -> Result<Option<LoopEnd>, LoopError> {
        let run = self.run;
        let started = Instant::now();
        let tree = match (&self.snapshots, tree) {
            (_, Some(tree)) => Some(tree),
            (Some(s), None) => Some(take(s).await?),
            (None, None) => None,
        };
        let Some(judged) = self.judge(number, changed, tree.as_ref()).await? else {
            let reason = format!("interrupted verifying attempt {number}");
            return self
                .interrupt(RunState::Verifying, &reason, Vec::new(), |_| Ok(()))
                .map(Some);
        };
        if let Some(tree) = &tree {
            self.remember(tree, &format!("attempt {number}"), &judged.as_verified);
        }
        let verified = &judged.record;
        let refs = failure_refs(&verified.failures);
        let flaky = failure_refs(&verified.flaky);
        let new_verification = NewVerification {
            outcome: verified.outcome,
            category: verified.category.map(Category::as_str),
            confidence: verified.confidence.map(f64::from),
            location: verified.location.as_deref(),
            failures: &refs,
            flaky: &flaky,
            tests_run: tests_run(&judged.verifications),
            digest: &judged.digest.text,
            duration: started.elapsed(),
        };
        let store = |batch: &crate::state::Batch<'_>| {
            batch.record_verification(run, Some(attempt), &new_verification)
        };
        let event = Event::VerificationFinished(verified.clone());
        self.progress
            .note(verified, Some(judged.digest.text.clone()));
        if verified.passed {
            return self
                .passed(number, event, judged.digest.text.clone(), store)
                .map(Some);
        }
        let classification = judged.classification.unwrap_or(Classification {
            category: verified.category.unwrap_or(Category::Unknown),
            confidence: verified.confidence.unwrap_or(0.5),
            main_location: verified.location.clone(),
            summary: verified.summary.clone(),
        });
        // The verification and the decision are stored in one transaction: a run stopped between
        // them would resume with the attempt judged but not decided on.
        let failed = Failed {
            from: RunState::Verifying,
            number,
            classification,
            digest: judged.digest.text.clone(),
            guidance_instead: None,
            events: vec![event],
        };
        self.decide_next(failed, store).await
    }

    /// Ends the run verified green with attempt `number`.
    fn passed(
        &self,
        number: u32,
        verified: Event,
        digest: String,
        store: impl FnOnce(&crate::state::Batch<'_>) -> Result<(), crate::state::StateError>,
    ) -> Result<LoopEnd, LoopError> {
        let run = self.run;
        let reason = format!("attempt {number} verified green");
        // The passing attempt counts with those judged before it.
        let attempts = self.progress.judged_count() + 1;
        let events = [
            verified,
            Event::RunFinished {
                state: RunState::Passed,
                reason: reason.clone(),
                exit_code: (self.exit_code)(LoopOutcome::Passed),
                attempts: Some(attempts),
            },
        ];
        record(self.shared, run, &events, |batch| {
            store(batch)?;
            batch.transition(run, RunState::Verifying, RunState::Passed, &reason)
        })?;
        Ok(LoopEnd {
            run,
            state: RunState::Passed,
            outcome: LoopOutcome::Passed,
            attempts,
            reason,
            digest: Some(digest),
            resumed: self.resumed,
            retry_after: None,
        })
    }

    /// Verifies the workspace after attempt `number` and judges it: flaky failures apart, known
    /// failures apart (`new_failures_only`), the cheating guard on a pass. `None`: interrupted.
    async fn judge(
        &self,
        number: u32,
        changed: bool,
        tree: Option<&TreeId>,
    ) -> Result<Option<Judged>, LoopError> {
        let (verifications, answered_from) = self.answer_or_verify(number, tree).await?;
        if self.is_interrupted(&verifications) {
            return Ok(None);
        }
        let answered = answered_from.is_some();
        let Some(Verified {
            mut verifications,
            flaky,
        }) = self
            .set_aside_flaky(verifications, number, tree, answered)
            .await?
        else {
            return Ok(None);
        };
        let as_verified = verifications.clone();
        let (known, as_ran) = self.set_aside_known(&mut verifications);
        let mut failures = FailureSet::from_verifications(&verifications);
        for (fingerprint, _) in flaky.iter() {
            failures = failures.new_since(&single(fingerprint));
        }
        let errored = verifications
            .iter()
            .any(|v| v.outcome() == Outcome::Errored);
        let mut passed = failures.is_empty() && !errored;
        if passed {
            let ran = as_ran.as_deref().unwrap_or(&verifications);
            let (mut violations, changed) = self.guard_check(ran, tree).await?;
            if violations.is_empty() {
                match self.infra_check(number, tree, ran, changed).await? {
                    Some(found) => violations = found,
                    None => return Ok(None),
                }
            }
            if let Some(guard) = as_verification(&violations) {
                verifications.push(guard);
                failures = FailureSet::from_verifications(&verifications);
                passed = false;
            }
        }
        let settled = Settled {
            verifications,
            as_verified,
            flaky,
            failures,
            known,
            passed,
            answered_from,
        };
        Ok(Some(self.conclude(number, changed, tree, settled)))
    }

    /// The verifications of the tree after attempt `number`: those of the same tree verified
    /// before in this process, when there are some (and what they were for), else a fresh run.
    async fn answer_or_verify(
        &self,
        number: u32,
        tree: Option<&TreeId>,
    ) -> Result<(Vec<Verification>, Option<String>), LoopError> {
        // A tree verified before is answered from that verification: the tools would only say
        // again what they said (flaky failures aside, which the re-run tells apart when the tree
        // is first verified).
        let Some((what, verifications)) = tree.and_then(|t| self.verified.get(t.as_str())) else {
            let label = format!("attempt-{number}");
            return Ok((self.verify_once(None, false, label).await?, None));
        };
        let of = if what == "baseline" {
            "the baseline"
        } else {
            what
        };
        let answered = verifications
            .iter()
            .map(|v| {
                let mut v = v.clone();
                v.duration = Duration::ZERO;
                v.notes.push(format!(
                    "answered from the verification of {of}: the tree has not changed since"
                ));
                v
            })
            .collect();
        Ok((answered, Some(what.clone())))
    }

    /// Tells flaky failures apart: a failure on a tree that passed before, or one that went away
    /// when the failed tests ran once more, untouched. `None`: interrupted.
    async fn set_aside_flaky(
        &self,
        mut verifications: Vec<Verification>,
        number: u32,
        tree: Option<&TreeId>,
        answered: bool,
    ) -> Result<Option<Verified>, LoopError> {
        let first = FailureSet::from_verifications(&verifications);
        // A failure on a tree that passed before came with no change since the pass.
        if !first.is_empty() && tree.is_some_and(|tree| self.passed_before(tree)) {
            return Ok(Some(Verified {
                verifications,
                flaky: first,
            }));
        }
        let failed_tests: Vec<String> = verifications
            .iter()
            .filter(|v| v.kind == Kind::Test && v.outcome() == Outcome::Failed)
            .map(|v| v.verifier.clone())
            .collect();
        if !self.spec.flaky_rerun || answered || failed_tests.is_empty() {
            return Ok(Some(Verified {
                verifications,
                flaky: FailureSet::default(),
            }));
        }
        // Only the failed tests run again, each tool with its own filter; a verifier that has
        // none, or whose filtered run cannot verify, runs in full.
        let request = VerifyRequest {
            only: Some(failed_tests),
            fresh: true,
            failed_first: true,
            label: format!("attempt-{number}-rerun"),
        };
        let rerun = self
            .verify
            .verify(request)
            .await
            .map_err(LoopError::Verify)?;
        if self.is_interrupted(&rerun) {
            return Ok(None);
        }
        let flaky = compare_rerun(&mut verifications, rerun);
        Ok(Some(Verified {
            verifications,
            flaky,
        }))
    }

    /// Whether `tree` passed before: in an attempt of this run, or as the starting tree.
    fn passed_before(&self, tree: &TreeId) -> bool {
        let progress = &self.progress;
        progress.passed_trees.contains(&tree.to_string())
            || (progress.start_tree.as_ref() == Some(tree)
                && progress
                    .baseline
                    .as_ref()
                    .is_some_and(|b| b.outcome == Outcome::Passed))
    }

    /// With `new_failures_only`, sets the baseline's failures aside in `verifications`; returns
    /// how many, and the verifications as they ran. The guard compares the tests that ran with the
    /// baseline's, so it is shown the verifications as they ran: setting known failures aside
    /// takes them out of the diagnostics, and a pass would look like fewer tests were named.
    fn set_aside_known(
        &self,
        verifications: &mut [Verification],
    ) -> (usize, Option<Vec<Verification>>) {
        if !self.spec.policies.new_failures_only {
            return (0, None);
        }
        let Some(baseline) = self.progress.known() else {
            return (0, None);
        };
        let as_ran = verifications.to_vec();
        let known = baseline.set_aside(verifications, KnownFrom::Loop) as usize;
        (known, Some(as_ran))
    }

    /// The cheating guard's reasons a pass does not count.
    async fn guard_check(
        &self,
        verifications: &[Verification],
        tree: Option<&TreeId>,
    ) -> Result<(Vec<Violation>, Option<Vec<String>>), LoopError> {
        let guard = Guard::new(&self.spec.policies.protected)
            .map_err(LoopError::Guard)?
            .allow_test_edits(self.spec.policies.allow_test_edits);
        let (diff, sources, truncated) = match (&self.snapshots, &self.progress.start_tree, tree) {
            (Some(s), Some(start), Some(now)) if start != now => {
                let (s, a, b) = (Arc::clone(s), start.clone(), now.clone());
                blocking(move || {
                    let diff = s.diff(&a, &b)?;
                    // The guard reads changed tests whole; it reads no file itself.
                    let sources = read_sources(s.root(), &files_to_read(&diff.text));
                    Ok((diff.text, sources, diff.truncated))
                })
                .await?
            }
            _ => (String::new(), Sources::new(), false),
        };
        let baseline = self.progress.baseline_verifications();
        let violations = guard.check(baseline.as_deref(), verifications, &diff, &sources);
        // The paths the diff names spare the infrastructure check a git process of its own.
        let changed = (!diff.is_empty() && !truncated).then(|| diff_paths(&diff));
        Ok((violations, changed))
    }

    /// The judgement of attempt `number` from its settled verifications: digest, outcome,
    /// classification and the record its event carries.
    fn conclude(
        &self,
        number: u32,
        changed: bool,
        tree: Option<&TreeId>,
        settled: Settled,
    ) -> Judged {
        let Settled {
            verifications,
            as_verified,
            flaky,
            failures,
            known,
            passed,
            answered_from,
        } = settled;
        let digest = digest_of(&verifications, self.spec.digest_budget, &self.spec.root);
        let outcome = match (passed, crate::model::overall(&verifications)) {
            (true, _) => Outcome::Passed,
            (false, Outcome::Passed) => Outcome::Failed,
            (false, outcome) => outcome,
        };
        let classification = (!passed).then(|| {
            let mut classification = classify(&verifications);
            if failures.is_empty() && !flaky.is_empty() {
                classification.category = Category::Flaky;
            }
            classification
        });
        let record = VerifiedRecord {
            attempt: number,
            outcome,
            passed,
            category: classification.as_ref().map(|c| c.category),
            confidence: classification.as_ref().map(|c| c.confidence),
            location: classification
                .as_ref()
                .and_then(|c| c.main_location.clone()),
            summary: classification
                .as_ref()
                .map_or_else(|| "verified green".to_owned(), |c| c.summary.clone()),
            failures,
            flaky,
            known,
            no_op: !changed,
            tree: tree.map(ToString::to_string),
            digest_tokens: digest.tokens,
            answered_from,
        };
        Judged {
            verifications,
            as_verified,
            digest,
            record,
            classification,
        }
    }
}

/// Compares the first run of the failed test verifiers with their re-run: the failures that went
/// away are flaky, and are set aside in the first run, which stands for each verifier (the re-run
/// may have run only the failed tests, and its counts are not the suite's).
fn compare_rerun(verifications: &mut [Verification], rerun: Vec<Verification>) -> FailureSet {
    // A re-run that could not verify tells nothing: its verifier's failures stand.
    let rerun: Vec<Verification> = rerun
        .into_iter()
        .filter(|v| matches!(v.outcome(), Outcome::Passed | Outcome::Failed))
        .collect();
    let before: Vec<Verification> = verifications
        .iter()
        .filter(|v| rerun.iter().any(|r| r.verifier == v.verifier))
        .cloned()
        .collect();
    let flaky = flaky_failures(
        &FailureSet::from_verifications(&before),
        &FailureSet::from_verifications(&rerun),
    );
    if flaky.is_empty() {
        return flaky;
    }
    let labels = flaky.iter().map(|(_, l)| l).collect::<Vec<_>>().join(", ");
    for again in rerun {
        if let Some(slot) = verifications
            .iter_mut()
            .find(|v| v.verifier == again.verifier)
        {
            take_out_flaky(slot, &flaky);
            slot.notes.push(format!(
                "failed tests re-run: flaky failures set aside: {labels}"
            ));
        }
    }
    flaky
}

/// Takes the failures of `flaky` out of `verification`'s report: their diagnostics go, and each
/// distinct test among them counts as passed rather than failed.
fn take_out_flaky(verification: &mut Verification, flaky: &FailureSet) {
    let report = &mut verification.report;
    let flaky_fingerprints: BTreeSet<Fingerprint> = flaky.iter().map(|(f, _)| f).collect();
    let mut tests = BTreeSet::new();
    report.diagnostics.retain(|d| {
        let is_flaky = flaky_fingerprints.contains(&d.fingerprint);
        if is_flaky && let Some(test) = &d.test {
            tests.insert(test.clone());
        }
        !is_flaky
    });
    let moved = tests.len() as u64;
    if let (Some(failed), Some(passed)) = (
        report.counts.tests_failed.as_mut(),
        report.counts.tests_passed.as_mut(),
    ) {
        let moved = moved.min(*failed);
        *failed -= moved;
        *passed += moved;
    }
    // Every failure came and went: the verifier passed, as a re-run in full would have said.
    if report.outcome == Outcome::Failed
        && report.errors().next().is_none()
        && report.diagnostics_dropped == 0
    {
        report.outcome = Outcome::Passed;
    }
}

/// A set of one fingerprint (to subtract it).
fn single(fingerprint: Fingerprint) -> FailureSet {
    let mut set = FailureSet::default();
    set.insert(fingerprint, "");
    set
}

/// The failures as the state database stores them.
pub(super) fn failure_refs(failures: &FailureSet) -> Vec<FailureRef> {
    failures
        .iter()
        .map(|(fingerprint, label)| FailureRef {
            fingerprint,
            label: label.to_owned(),
        })
        .collect()
}

/// How many tests the test verifiers ran, when any says.
pub(super) fn tests_run(verifications: &[Verification]) -> Option<u64> {
    let counts: Vec<u64> = verifications
        .iter()
        .filter(|v| v.kind == Kind::Test)
        .filter_map(|v| {
            let c = &v.report.counts;
            match (c.tests_passed, c.tests_failed) {
                (None, None) => None,
                (p, f) => Some(p.unwrap_or(0) + f.unwrap_or(0)),
            }
        })
        .collect();
    (!counts.is_empty()).then(|| counts.iter().sum())
}

/// The digest of `verifications` within `budget` tokens, its paths relative to `root`.
pub(super) fn digest_of(
    verifications: &[Verification],
    budget: usize,
    root: &std::path::Path,
) -> digest::Digest {
    let inputs: Vec<digest::Input<'_>> = verifications.iter().map(digest::Input::of).collect();
    digest::render(&inputs, &digest::Options::new(budget).in_project(root))
}
