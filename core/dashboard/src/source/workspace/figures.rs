//! The analytics page and `/metrics` of a workspace's loop runs: `verdict stats`' figures, and
//! what they do not break down (per agent, fingerprints left unfixed, holds, due runs) counted
//! from the runs.

use std::collections::{BTreeMap, HashMap, HashSet};

use verdict_core::agent_loop::agent::SessionOutcome;
use verdict_core::model::{Fingerprint as Print, Outcome};
use verdict_core::state::{AttemptId, RunId, RunState, VerificationRecord};

use super::rows::agent_of;
use super::snapshot::{RunInfo, Snapshot};
use super::timeline::outcome_of;
use crate::view::{Analytics, Fingerprint, Group, Hold, Metrics, Redacted, State};

/// How many fingerprints the analytics page lists.
const FINGERPRINTS: usize = 10;

/// Agents held back now: the pool waits after a rate limit or an overload for as long as the
/// agent asked (else its own delay); the latest hold of each agent that has not ended.
pub(crate) fn held(snapshot: &Snapshot, now: i64) -> Vec<Hold> {
    let mut until: BTreeMap<String, i64> = BTreeMap::new();
    for retry in &snapshot.pool_retries {
        let asked = match &retry.retry.outcome {
            SessionOutcome::RateLimited { retry_after }
            | SessionOutcome::Overloaded { retry_after } => {
                retry_after.map(|wait| wait.as_millis() as u64)
            }
            _ => continue,
        };
        let wait = asked.unwrap_or(retry.retry.delay_ms).min(i64::MAX as u64) as i64;
        let end = retry.at.saturating_add(wait);
        let agent = Redacted::new(&retry.retry.agent).as_str().to_owned();
        let entry = until.entry(agent).or_insert(end);
        *entry = (*entry).max(end);
    }
    until
        .into_iter()
        .filter(|(_, until)| *until > now)
        .map(|(agent, until)| Hold { agent, until })
        .collect()
}

/// Tasks by state, every state present.
pub(crate) fn by_state(snapshot: &Snapshot) -> Vec<(State, u64)> {
    State::ALL
        .into_iter()
        .map(|state| {
            let n = snapshot
                .rows
                .iter()
                .filter(|row| row.state == state)
                .count();
            (state, n as u64)
        })
        .collect()
}

/// `/metrics` of the runs at `now`.
pub(crate) fn metrics(snapshot: &Snapshot, now: i64) -> Metrics {
    // Due: a pending run since it was created; a scheduled retry since its time came. A retry
    // whose time was not recorded is left out rather than guessed.
    let oldest_due = snapshot
        .runs
        .iter()
        .zip(&snapshot.rows)
        .filter_map(|(info, row)| match info.run.state {
            RunState::Pending => Some(info.run.created_at),
            RunState::RetryScheduled => row.next_retry_at.filter(|at| *at <= now),
            _ => None,
        })
        .min();
    let verified = by_attempt(&snapshot.verifications);
    let mut outcomes: BTreeMap<String, u64> = BTreeMap::new();
    for info in &snapshot.runs {
        for (index, attempt) in info.attempts.iter().enumerate() {
            let last_of = (index + 1 == info.attempts.len()).then_some(info.run.state);
            if let Some(outcome) = outcome_of(attempt, verified.get(&attempt.id).copied(), last_of)
            {
                *outcomes.entry(outcome).or_default() += 1;
            }
        }
    }
    Metrics {
        by_state: by_state(snapshot),
        oldest_due_ms: oldest_due.map(|due| (now - due).max(0)),
        rescues: snapshot.stats.interrupted,
        held: held(snapshot, now),
        attempts_by_outcome: outcomes.into_iter().collect(),
    }
}

fn by_attempt(
    verifications: &[(RunId, VerificationRecord)],
) -> HashMap<AttemptId, &VerificationRecord> {
    verifications
        .iter()
        .filter_map(|(_, v)| v.attempt.map(|attempt| (attempt, v)))
        .collect()
}

/// The analytics page of the runs at `now`.
pub(crate) fn analytics(snapshot: &Snapshot, now: i64) -> Analytics {
    let stats = &snapshot.stats;
    let runs: HashMap<RunId, &RunInfo> = snapshot
        .runs
        .iter()
        .map(|info| (info.run.id, info))
        .collect();
    Analytics {
        tasks: stats.runs,
        finished: stats.finished,
        success_rate: stats.success_rate,
        attempts: stats.attempts,
        by_category: by_category(snapshot, &runs),
        by_agent: by_agent(snapshot),
        // A loop run belongs to no campaign.
        by_campaign: Vec::new(),
        fingerprints: fingerprints(snapshot),
        attempts_to_success: stats.attempts_to_success.as_ref().map(|a| a.mean),
        agent_ms: stats.agent_ms,
        verify_ms: stats.verification_ms,
        held: held(snapshot, now),
        as_of: now,
    }
}

/// A group's figures over `runs`, with `attempts` attempts in it.
fn group<'a>(name: String, attempts: u64, runs: impl Iterator<Item = &'a RunInfo>) -> Group {
    let (mut tasks, mut finished, mut passed, mut to_success) = (0, 0, 0, 0u64);
    for info in runs {
        tasks += 1;
        if info.run.state.is_terminal() {
            finished += 1;
        }
        if info.run.state == RunState::Passed {
            passed += 1;
            to_success += info.attempts.iter().filter(|a| !a.interrupted).count() as u64;
        }
    }
    Group {
        name,
        attempts,
        tasks,
        finished,
        passed,
        success_rate: (finished > 0).then(|| passed as f64 / finished as f64),
        attempts_to_success: (passed > 0).then(|| to_success as f64 / passed as f64),
    }
}

/// Failed attempt verifications by category, most first.
fn by_category(snapshot: &Snapshot, runs: &HashMap<RunId, &RunInfo>) -> Vec<Group> {
    let mut categories: BTreeMap<String, (u64, HashSet<RunId>)> = BTreeMap::new();
    for (run, verification) in &snapshot.verifications {
        if verification.outcome == Outcome::Passed {
            continue;
        }
        let name = verification.category.as_deref().unwrap_or("unknown");
        if !categories.contains_key(name) {
            categories.insert(name.to_owned(), Default::default());
        }
        if let Some(entry) = categories.get_mut(name) {
            entry.0 += 1;
            entry.1.insert(*run);
        }
    }
    let mut groups: Vec<Group> = categories
        .into_iter()
        .map(|(name, (failures, ids))| {
            group(
                name,
                failures,
                ids.iter().filter_map(|id| runs.get(id).copied()),
            )
        })
        .collect();
    groups.sort_by(|a, b| b.attempts.cmp(&a.attempts).then(a.name.cmp(&b.name)));
    groups
}

/// Per agent: the attempts it ran, and the runs it ran any attempt of (a run without attempts
/// counts for the agent its configuration names first).
fn by_agent(snapshot: &Snapshot) -> Vec<Group> {
    let mut agents: BTreeMap<String, (u64, Vec<&RunInfo>)> = BTreeMap::new();
    for info in &snapshot.runs {
        let mut names: HashSet<String> = HashSet::new();
        for attempt in &info.attempts {
            agents.entry(attempt.agent.clone()).or_default().0 += 1;
            names.insert(attempt.agent.clone());
        }
        if names.is_empty() {
            names.insert(agent_of(info));
        }
        for name in names.into_iter().filter(|name| !name.is_empty()) {
            agents.entry(name).or_default().1.push(info);
        }
    }
    agents
        .into_iter()
        .map(|(name, (attempts, runs))| {
            group(
                Redacted::new(&name).as_str().to_owned(),
                attempts,
                runs.into_iter(),
            )
        })
        .collect()
}

/// The most common failures: occurrences, runs, and the runs whose last verified attempt still
/// had them (unfixed).
fn fingerprints(snapshot: &Snapshot) -> Vec<Fingerprint> {
    let mut last_failures: HashMap<RunId, HashSet<Print>> = HashMap::new();
    let mut seen: HashMap<Print, (String, u64, HashSet<RunId>)> = HashMap::new();
    for (run, verification) in &snapshot.verifications {
        // Recorded in order: each run's last verification overwrites the ones before.
        let prints = verification
            .failures
            .iter()
            .map(|f| f.fingerprint)
            .collect();
        last_failures.insert(*run, prints);
        if verification.outcome == Outcome::Passed {
            continue;
        }
        for failure in &verification.failures {
            let entry = seen
                .entry(failure.fingerprint)
                .or_insert_with(|| (String::new(), 0, HashSet::new()));
            entry.0.clone_from(&failure.label);
            entry.1 += 1;
            entry.2.insert(*run);
        }
    }
    let mut out: Vec<(Print, Fingerprint)> = seen
        .into_iter()
        .map(|(print, (label, occurrences, runs))| {
            let unfixed = runs
                .iter()
                .filter(|run| {
                    last_failures
                        .get(run)
                        .is_some_and(|last| last.contains(&print))
                })
                .count() as u64;
            let view = Fingerprint {
                text: Redacted::new(&label),
                occurrences,
                tasks: runs.len() as u64,
                unfixed,
            };
            (print, view)
        })
        .collect();
    out.sort_by(|(pa, a), (pb, b)| {
        b.occurrences
            .cmp(&a.occurrences)
            .then(b.tasks.cmp(&a.tasks))
            .then(a.text.as_str().cmp(b.text.as_str()))
            .then(pa.cmp(pb))
    });
    out.truncate(FINGERPRINTS);
    out.into_iter().map(|(_, view)| view).collect()
}
