//! The failures a session began with (its baseline), as the stop and post-edit hooks read them:
//! taken from the verification of the tree the session began on, kept per session in the state
//! database, and set aside from later verifications by fingerprint
//! ([`verdict_core::baseline::Baseline`]), each report then saying how many of its tool's
//! counts predate the session ([`verdict_core::SetAside`]).

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use verdict_core::baseline::Baseline;
use verdict_core::model::Fingerprint;
use verdict_core::{KnownFrom, Outcome, Verification};

use super::{Harness, state, verify};

/// The failures a session began with, as kept in the state database: each failing diagnostic's
/// fingerprint, and each verifier that could not verify with its error.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct SessionBaseline {
    failures: Vec<(String, Fingerprint)>,
    errored: Vec<(String, String)>,
}

impl SessionBaseline {
    pub(super) fn of(verifications: &[Verification]) -> SessionBaseline {
        let failed: Vec<Verification> = verifications
            .iter()
            .filter(|v| v.outcome() == Outcome::Failed)
            .cloned()
            .collect();
        let failures = Baseline::from_verifications(&failed)
            .fingerprints()
            .map(|(verifier, fingerprint)| (verifier.to_owned(), fingerprint))
            .collect();
        let errored = verifications
            .iter()
            .filter(|v| v.outcome() == Outcome::Errored)
            .map(|v| (v.verifier.clone(), errored_key(v)))
            .collect();
        SessionBaseline { failures, errored }
    }

    /// Sets aside in `verifications` what the session began with, and says how many failures
    /// that was. A verifier that could not verify with the same error as then counts as passed
    /// for the decision (its report is left as it is).
    pub(super) fn set_aside(&self, verifications: &mut [Verification]) -> (u64, Vec<bool>) {
        let mut baseline = Baseline::default();
        for (verifier, fingerprint) in &self.failures {
            baseline.add_fingerprint(verifier, *fingerprint);
        }
        let mut known = baseline.set_aside(verifications, KnownFrom::Session);
        let old_errors: Vec<bool> = verifications
            .iter()
            .map(|v| {
                v.outcome() == Outcome::Errored
                    && self
                        .errored
                        .iter()
                        .any(|(name, key)| *name == v.verifier && *key == errored_key(v))
            })
            .collect();
        known += old_errors.iter().filter(|old| **old).count() as u64;
        (known, old_errors)
    }
}

/// What identifies a verifier's failure to verify: its error, else its summary.
fn errored_key(verification: &Verification) -> String {
    verification
        .report
        .error
        .clone()
        .unwrap_or_else(|| verification.report.summary.clone().unwrap_or_default())
}

/// A session's baseline, as a stop found it.
pub(super) struct Found {
    pub(super) baseline: SessionBaseline,
    /// Taken at this stop (from the verification of the tree the session began on), and kept now.
    pub(super) first_check: bool,
}

/// The baseline of `session` at a stop whose verification of the tree `tree` is
/// `verifications`: the one kept for the session, else the one its start gives (kept from now
/// on). `None` when it is not known. A kept baseline that cannot be read back sets nothing
/// aside: every failure counts.
pub(super) fn at_stop(
    store: &mut state::Store,
    harness: Harness,
    session: &str,
    tree: Option<&str>,
    verifications: &[Verification],
) -> Result<Option<Found>> {
    if let Some(json) = store.baseline(harness.key(), session)? {
        return Ok(Some(Found {
            baseline: serde_json::from_str(&json).unwrap_or_default(),
            first_check: false,
        }));
    }
    let Some(found) = at_start(store, harness, session, tree, verifications)? else {
        return Ok(None);
    };
    let json = serde_json::to_string(&found).context("failed to encode a baseline")?;
    let kept = store.keep_baseline(harness.key(), session, &json)?;
    Ok(Some(Found {
        baseline: serde_json::from_str(&kept).unwrap_or_default(),
        first_check: true,
    }))
}

/// The baseline of `session` for a check that keeps nothing (the post-edit hook): the one kept
/// for the session, else the verification of the tree it began on when one is remembered.
pub(super) fn known(
    store: &mut state::Store,
    harness: Harness,
    session: &str,
) -> Result<Option<SessionBaseline>> {
    if let Some(json) = store.baseline(harness.key(), session)? {
        return Ok(Some(serde_json::from_str(&json).unwrap_or_default()));
    }
    at_start(store, harness, session, None, &[])
}

/// The baseline a session's first stop takes: the verification of the tree the session began on
/// (recorded by its session-start hook), which is the one just made when the tree is unchanged
/// since, else a remembered one. `None` when no such verification is known: no session-start
/// record (an older install, or no snapshot), or a start tree that was never verified.
fn at_start(
    store: &mut state::Store,
    harness: Harness,
    session: &str,
    tree: Option<&str>,
    verifications: &[Verification],
) -> Result<Option<SessionBaseline>> {
    let Some(start) = store.session_start(harness.key(), session)? else {
        return Ok(None);
    };
    if tree == Some(start.as_str()) {
        return Ok(Some(SessionBaseline::of(verifications)));
    }
    Ok(verify::remembered(store, &start)?.map(|then| SessionBaseline::of(&then)))
}
