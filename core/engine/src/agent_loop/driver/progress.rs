//! What the loop knows about its run so far: built up as the run goes, and rebuilt from the stored
//! events when a run is resumed.

use std::collections::{BTreeMap, BTreeSet};

use super::LoopError;
use super::events::{BaselineRecord, Event, ScheduledRecord, StoredReport, VerifiedRecord};
use crate::agent_loop::classify::Category;
use crate::agent_loop::policy::AttemptRecord;
use crate::agent_loop::prompt::EarlierAttempt;
use crate::baseline::Baseline;
use crate::model::Verification;
use crate::snapshot::TreeId;
use crate::state::{RunId, StateDb};

/// Whether the replay needs the stored event of `kind` with `fields`.
fn needed(kind: &str, fields: &serde_json::Value) -> bool {
    match kind {
        "checkpoint"
        | "baseline_finished"
        | "verification_finished"
        | "retry_scheduled"
        | "infra_put_back"
        | "infra_restored" => true,
        "agent_finished" => fields.get("judged") == Some(&serde_json::Value::Bool(true)),
        _ => false,
    }
}

/// Everything the loop knows about its run so far.
#[derive(Debug, Default)]
pub(super) struct Progress {
    /// The starting tree.
    pub(super) start_tree: Option<TreeId>,
    /// The baseline verification.
    pub(super) baseline: Option<BaselineRecord>,
    /// Judged attempts, for [`decide`](crate::agent_loop::policy::decide).
    pub(super) judged: Vec<AttemptRecord>,
    /// One line per judged attempt, for the prompt.
    pub(super) earlier: Vec<EarlierAttempt>,
    /// The last failed verification's digest, attempt number and no-op flag.
    pub(super) last_failure: Option<(u32, String, bool)>,
    /// What the last retry decision asked of the next prompt.
    pub(super) scheduled: Option<ScheduledRecord>,
    /// Trees whose verification passed: a failure on one of them came with no change since a pass.
    pub(super) passed_trees: BTreeSet<String>,
    /// The attempt and tree of test infrastructure put back and not yet restored: a run stopped
    /// during that verification restores the tree when it is resumed.
    pub(super) put_back: Option<(u32, String)>,
}

impl Progress {
    /// The progress of `run`, replayed from its stored events.
    pub(super) fn replay(run: RunId, db: &StateDb) -> Result<Progress, LoopError> {
        let history = db.history(run)?;
        let digests: BTreeMap<u32, String> = history
            .attempts
            .iter()
            .filter_map(|a| Some((a.attempt.number, a.verification.as_ref()?.digest.clone())))
            .collect();
        let mut progress = Progress::default();
        for stored in db.events(run)? {
            match Event::from_stored(&stored.kind, &stored.payload) {
                Ok(event) => progress.replay_one(event, &digests),
                // An event the replay does not need (or one an older verdict wrote in another
                // shape) is passed over, as it always was; one it needs must read.
                Err(_) if !needed(&stored.kind, &stored.payload) => {}
                Err(e) => {
                    return Err(LoopError::Record {
                        run,
                        message: format!("unreadable {} event: {e}", stored.kind),
                    });
                }
            }
        }
        Ok(progress)
    }

    /// Takes in one stored event.
    fn replay_one(&mut self, event: Event, digests: &BTreeMap<u32, String>) {
        match event {
            Event::Checkpoint { tree } => self.start_tree = TreeId::new(tree).ok(),
            Event::BaselineFinished(baseline) => self.baseline = Some(baseline),
            Event::VerificationFinished(verified) => {
                let digest = digests.get(&verified.attempt).cloned();
                self.note(&verified, digest);
            }
            // A failed session judged without verification (session_failures = "retry").
            Event::AgentFinished(finished) if finished.judged => {
                if let Some(as_failure) = &finished.as_failure {
                    self.note(as_failure, None);
                }
            }
            Event::RetryScheduled(scheduled) => self.scheduled = Some(scheduled),
            Event::InfraPutBack { attempt, tree, .. } => self.put_back = Some((attempt, tree)),
            Event::InfraRestored { .. } => self.put_back = None,
            _ => {}
        }
    }

    /// Takes in a judged attempt.
    pub(super) fn note(&mut self, record: &VerifiedRecord, digest: Option<String>) {
        if record.passed {
            if let Some(tree) = &record.tree {
                self.passed_trees.insert(tree.clone());
            }
            return;
        }
        self.judged.push(AttemptRecord {
            number: record.attempt,
            category: record.category.unwrap_or(Category::Unknown),
            failures: record.failures.clone(),
            no_op: record.no_op,
        });
        self.earlier.push(EarlierAttempt {
            number: record.attempt,
            summary: record.summary.clone(),
            no_op: record.no_op,
        });
        self.last_failure = Some((record.attempt, digest.unwrap_or_default(), record.no_op));
    }

    /// Attempts judged so far.
    pub(super) fn judged_count(&self) -> u32 {
        self.judged.len() as u32
    }

    /// The last failed verification's digest.
    pub(super) fn last_digest(&self) -> Option<String> {
        self.last_failure
            .as_ref()
            .map(|(_, digest, _)| digest.clone())
    }

    /// The baseline's failures, for `new_failures_only`.
    pub(super) fn known(&self) -> Option<Baseline> {
        let verifications = self.baseline_verifications()?;
        Some(Baseline::from_verifications(&verifications))
    }

    /// The baseline's verifications, as stored.
    pub(super) fn baseline_verifications(&self) -> Option<Vec<Verification>> {
        let baseline = self.baseline.as_ref()?;
        Some(
            baseline
                .reports
                .iter()
                .map(StoredReport::to_verification)
                .collect(),
        )
    }
}
