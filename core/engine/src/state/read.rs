//! Reading the state database back: one run's history, the list of runs, and the figures of
//! `verdict stats`.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::{Connection, OptionalExtension, Row};
use serde::Serialize;

use super::{
    AttemptId, AttemptRecord, FailureRef, Result, RunId, RunRecord, RunState, StateError,
    VerificationRecord,
};
use crate::model::{Fingerprint, Outcome};

/// How many failure patterns [`Stats::common_failures`] lists.
const COMMON_FAILURES: usize = 10;

/// One recorded state transition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransitionRecord {
    /// The highest attempt number of the run when it happened (`None` before attempt 1).
    pub attempt: Option<u32>,
    /// The state left.
    pub from: RunState,
    /// The state entered.
    pub to: RunState,
    /// Why.
    pub reason: String,
    /// When (ms since the epoch).
    pub at: i64,
}

/// One recorded event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventRecord {
    /// Its kind (`attempt_started`, `agent_retry` …).
    pub kind: String,
    /// When (ms since the epoch).
    pub at: i64,
    /// Its payload.
    pub payload: serde_json::Value,
}

/// An attempt with the summary of its verification.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptHistory {
    /// The attempt.
    #[serde(flatten)]
    pub attempt: AttemptRecord,
    /// Its verification, if it got that far.
    pub verification: Option<VerificationRecord>,
}

/// Everything recorded about one run, for `verdict history RUN`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunHistory {
    /// The run.
    pub run: RunRecord,
    /// The baseline verification of the starting tree, if one ran.
    pub baseline: Option<VerificationRecord>,
    /// Its attempts, by number.
    pub attempts: Vec<AttemptHistory>,
    /// Its transitions, in order.
    pub transitions: Vec<TransitionRecord>,
}

/// How runs that met one failure category ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryStats {
    /// The category.
    pub category: String,
    /// Failed attempt verifications of this category.
    pub failures: u64,
    /// Runs with at least one such failure.
    pub runs: u64,
    /// Those runs that still ended `passed`.
    pub passed: u64,
    /// `passed / runs`.
    pub success_rate: f64,
}

/// How many attempts the runs that passed needed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptsToSuccess {
    /// Runs that passed.
    pub runs: u64,
    /// The mean number of attempts.
    pub mean: f64,
    /// The median number of attempts (the mean of the middle two for an even count).
    pub median: f64,
}

/// A failure seen again and again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailurePattern {
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
    /// Its description, as last recorded.
    pub label: String,
    /// How many attempt verifications had it.
    pub occurrences: u64,
    /// In how many runs.
    pub runs: u64,
}

/// The figures of `verdict stats`; the default is those of a database with no run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Runs recorded.
    pub runs: u64,
    /// Runs by the state they are in (their final state once finished).
    pub by_state: BTreeMap<RunState, u64>,
    /// Runs that reached a terminal state.
    pub finished: u64,
    /// `passed / finished`, when any run finished.
    pub success_rate: Option<f64>,
    /// By failure category (of failed attempt verifications; the baseline is not counted), most
    /// frequent first.
    pub by_category: Vec<CategoryStats>,
    /// Attempts the passed runs needed, when any passed.
    pub attempts_to_success: Option<AttemptsToSuccess>,
    /// The most frequent failures of attempt verifications (at most ten), most frequent first.
    pub common_failures: Vec<FailurePattern>,
    /// Attempts that counted (judged; interrupted ones are not, as a run's own count does not).
    pub attempts: u64,
    /// Attempts interrupted (the loop was stopped during them), not counted in `attempts`.
    pub interrupted: u64,
    /// Time spent in agent sessions, in ms (attempts that finished; interrupted ones are not
    /// counted, their end is unknown).
    pub agent_ms: u64,
    /// Time spent verifying, in ms (baselines included).
    pub verification_ms: u64,
}

const RUN_COLUMNS: &str = "id, task, task_hash, workspace, config_json, max_attempts, state, \
                           created_at, finished_at, final_outcome";

fn parse_state(text: &str) -> rusqlite::Result<RunState> {
    text.parse().map_err(|error: super::UnknownState| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(error))
    })
}

fn run_row(row: &Row<'_>) -> rusqlite::Result<RunRecord> {
    let config: String = row.get(4)?;
    let final_outcome: Option<String> = row.get(9)?;
    Ok(RunRecord {
        id: RunId(row.get(0)?),
        task: row.get(1)?,
        task_hash: row.get(2)?,
        workspace: row.get(3)?,
        config: serde_json::from_str(&config).unwrap_or(serde_json::Value::Null),
        max_attempts: row.get(5)?,
        state: parse_state(&row.get::<_, String>(6)?)?,
        created_at: row.get(7)?,
        finished_at: row.get(8)?,
        final_outcome: final_outcome.as_deref().map(parse_state).transpose()?,
    })
}

pub(super) fn run(conn: &Connection, run: RunId) -> Result<Option<RunRecord>> {
    Ok(conn
        .query_row(
            &format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"),
            [run.0],
            run_row,
        )
        .optional()?)
}

pub(super) fn find_unfinished(
    conn: &Connection,
    task_hash: &str,
    workspace: &str,
) -> Result<Option<RunRecord>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {RUN_COLUMNS} FROM runs WHERE task_hash = ?1 AND workspace = ?2 \
                 AND finished_at IS NULL ORDER BY id DESC LIMIT 1"
            ),
            [task_hash, workspace],
            run_row,
        )
        .optional()?)
}

pub(super) fn runs(conn: &Connection) -> Result<Vec<RunRecord>> {
    let mut statement =
        conn.prepare(&format!("SELECT {RUN_COLUMNS} FROM runs ORDER BY id DESC"))?;
    let runs = statement
        .query_map([], run_row)?
        .collect::<Result<_, _>>()?;
    Ok(runs)
}

fn attempt_row(row: &Row<'_>) -> rusqlite::Result<AttemptRecord> {
    Ok(AttemptRecord {
        id: AttemptId(row.get(0)?),
        run: RunId(row.get(1)?),
        number: row.get(2)?,
        agent: row.get(3)?,
        prompt_tokens: row.get::<_, Option<i64>>(4)?.map(|n| n as u64),
        pid: row.get(5)?,
        pgid: row.get(6)?,
        process_start: row.get::<_, Option<i64>>(7)?.map(|n| n as u64),
        started_at: row.get(8)?,
        finished_at: row.get(9)?,
        session_outcome: row.get(10)?,
        output_tail: row.get(11)?,
        workspace_changed: row.get(12)?,
        interrupted: row.get(13)?,
        sessions: row
            .get::<_, Option<String>>(14)?
            .and_then(|json| serde_json::from_str(&json).ok())
            .unwrap_or_default(),
    })
}

/// The attempts of `run` by number; with `only_unfinished`, those that never finished.
pub(super) fn attempts(
    conn: &Connection,
    run: RunId,
    only_unfinished: bool,
) -> Result<Vec<AttemptRecord>> {
    let filter = if only_unfinished {
        "AND finished_at IS NULL"
    } else {
        ""
    };
    let mut statement = conn.prepare(&format!(
        "SELECT id, run_id, number, agent, prompt_tokens, pid, pgid, process_start, started_at, \
         finished_at, session_outcome, output_tail, workspace_changed, interrupted, sessions_json \
         FROM attempts WHERE run_id = ?1 {filter} ORDER BY number"
    ))?;
    let attempts = statement
        .query_map([run.0], attempt_row)?
        .collect::<Result<_, _>>()?;
    Ok(attempts)
}

fn parse_outcome(text: &str) -> Option<Outcome> {
    [Outcome::Passed, Outcome::Failed, Outcome::Errored]
        .into_iter()
        .find(|outcome| outcome.as_str() == text)
}

fn verifications(conn: &Connection, run: RunId) -> Result<Vec<VerificationRecord>> {
    // `run_id` has no index of its own: the attempts' ids and the baseline's partial index find
    // the run's rows without reading every verification (and its digest) in the database.
    let filter = "attempt_id IN (SELECT id FROM attempts WHERE run_id = ?1) \
                  OR (run_id = ?1 AND attempt_id IS NULL)";
    Ok(verifications_where(conn, filter, [run.0], "digest")?
        .into_iter()
        .map(|(_, verification)| verification)
        .collect())
}

/// The verifications `filter` selects, in the order they were recorded, with their runs;
/// `digest` is the column (or expression) read as the digest.
fn verifications_where(
    conn: &Connection,
    filter: &str,
    params: impl rusqlite::Params,
    digest: &str,
) -> Result<Vec<(RunId, VerificationRecord)>> {
    let mut statement = conn.prepare(&format!(
        "SELECT attempt_id, outcome, category, confidence, location, failures_json, tests_run, \
         {digest}, duration_ms, recorded_at, flaky_json, run_id FROM verifications \
         WHERE {filter} ORDER BY id"
    ))?;
    let rows = statement.query_map(params, |row| {
        Ok((
            (
                row.get::<_, Option<i64>>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<String>>(2)?,
                row.get::<_, Option<f64>>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, String>(5)?,
            ),
            (
                row.get::<_, Option<i64>>(6)?,
                row.get::<_, String>(7)?,
                row.get::<_, i64>(8)?,
                row.get::<_, i64>(9)?,
                row.get::<_, String>(10)?,
                row.get::<_, i64>(11)?,
            ),
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (
            (attempt, outcome, category, confidence, location, failures),
            (tests, digest, ms, at, flaky, run),
        ) = row?;
        out.push((
            RunId(run),
            VerificationRecord {
                attempt: attempt.map(AttemptId),
                outcome: parse_outcome(&outcome)
                    .ok_or_else(|| StateError::Corrupt(format!("unknown outcome `{outcome}`")))?,
                category,
                confidence,
                location,
                failures: parse_failures(&failures)?,
                flaky: parse_failures(&flaky)?,
                tests_run: tests.map(|n| n as u64),
                digest,
                duration_ms: ms.max(0) as u64,
                recorded_at: at,
            },
        ));
    }
    Ok(out)
}

/// The verification of every attempt of every run (baselines left out), with its run, its digest
/// left empty.
pub(super) fn attempt_verifications(conn: &Connection) -> Result<Vec<(RunId, VerificationRecord)>> {
    verifications_where(conn, "attempt_id IS NOT NULL", [], "''")
}

fn parse_failures(json: &str) -> Result<Vec<FailureRef>> {
    serde_json::from_str(json)
        .map_err(|error| StateError::Corrupt(format!("unreadable failures ({error}): {json}")))
}

fn transitions(conn: &Connection, run: RunId) -> Result<Vec<TransitionRecord>> {
    let mut statement = conn.prepare(
        "SELECT attempt, from_state, to_state, reason, at FROM transitions WHERE run_id = ?1 \
         ORDER BY id",
    )?;
    let transitions = statement
        .query_map([run.0], |row| {
            Ok(TransitionRecord {
                attempt: row.get(0)?,
                from: parse_state(&row.get::<_, String>(1)?)?,
                to: parse_state(&row.get::<_, String>(2)?)?,
                reason: row.get(3)?,
                at: row.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(transitions)
}

pub(super) fn events(conn: &Connection, run: RunId) -> Result<Vec<super::EventRecord>> {
    let mut statement =
        conn.prepare("SELECT kind, at, payload_json FROM events WHERE run_id = ?1 ORDER BY id")?;
    let events = statement
        .query_map([run.0], |row| {
            let payload: String = row.get(2)?;
            Ok(EventRecord {
                kind: row.get(0)?,
                at: row.get(1)?,
                payload: serde_json::from_str(&payload).unwrap_or(serde_json::Value::Null),
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(events)
}

/// Every attempt of every run, by run and number, without its output tail (`output_tail` is
/// `None`): a list of runs needs their figures, not their agents' output.
pub(super) fn every_attempt(conn: &Connection) -> Result<Vec<AttemptRecord>> {
    let mut statement = conn.prepare(
        "SELECT id, run_id, number, agent, prompt_tokens, pid, pgid, process_start, started_at, \
         finished_at, session_outcome, NULL, workspace_changed, interrupted, sessions_json \
         FROM attempts ORDER BY run_id, number",
    )?;
    let attempts = statement
        .query_map([], attempt_row)?
        .collect::<Result<_, _>>()?;
    Ok(attempts)
}

/// The last transition of every run that has one.
pub(super) fn last_transitions(conn: &Connection) -> Result<Vec<(RunId, TransitionRecord)>> {
    let mut statement = conn.prepare(
        "SELECT run_id, attempt, from_state, to_state, reason, at FROM transitions \
         WHERE id IN (SELECT MAX(id) FROM transitions GROUP BY run_id)",
    )?;
    let transitions = statement
        .query_map([], |row| {
            Ok((
                RunId(row.get(0)?),
                TransitionRecord {
                    attempt: row.get(1)?,
                    from: parse_state(&row.get::<_, String>(2)?)?,
                    to: parse_state(&row.get::<_, String>(3)?)?,
                    reason: row.get(4)?,
                    at: row.get(5)?,
                },
            ))
        })?
        .collect::<Result<_, _>>()?;
    Ok(transitions)
}

/// The events of `kind` of every run, oldest first, with their run.
pub(super) fn events_of_kind(
    conn: &Connection,
    kind: &str,
) -> Result<Vec<(Option<RunId>, EventRecord)>> {
    let mut statement = conn
        .prepare("SELECT run_id, kind, at, payload_json FROM events WHERE kind = ?1 ORDER BY id")?;
    let events = statement
        .query_map([kind], |row| {
            let payload: String = row.get(3)?;
            Ok((
                row.get::<_, Option<i64>>(0)?.map(RunId),
                EventRecord {
                    kind: row.get(1)?,
                    at: row.get(2)?,
                    payload: serde_json::from_str(&payload).unwrap_or(serde_json::Value::Null),
                },
            ))
        })?
        .collect::<Result<_, _>>()?;
    Ok(events)
}

/// Figures that change with every commit of the loop's own tables, for a reader that polls: the
/// newest row of each table, and how many attempts recorded a process or finished (the updates
/// an insert does not show).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ChangeMarks {
    /// The newest run's id.
    pub runs: i64,
    /// The newest attempt's id.
    pub attempts: i64,
    /// Attempts whose agent process was recorded.
    pub processes: i64,
    /// Attempts that finished or were marked interrupted.
    pub finished: i64,
    /// The newest verification's id (recording one again replaces it with a newer row).
    pub verifications: i64,
    /// The newest transition's id.
    pub transitions: i64,
    /// The newest event's id.
    pub events: i64,
}

pub(super) fn change_marks(conn: &Connection) -> Result<ChangeMarks> {
    Ok(conn.query_row(
        "SELECT (SELECT COALESCE(MAX(id), 0) FROM runs), \
         (SELECT COALESCE(MAX(id), 0) FROM attempts), \
         (SELECT COUNT(pid) FROM attempts), \
         (SELECT COUNT(finished_at) FROM attempts), \
         (SELECT COALESCE(MAX(id), 0) FROM verifications), \
         (SELECT COALESCE(MAX(id), 0) FROM transitions), \
         (SELECT COALESCE(MAX(id), 0) FROM events)",
        [],
        |row| {
            Ok(ChangeMarks {
                runs: row.get(0)?,
                attempts: row.get(1)?,
                processes: row.get(2)?,
                finished: row.get(3)?,
                verifications: row.get(4)?,
                transitions: row.get(5)?,
                events: row.get(6)?,
            })
        },
    )?)
}

/// SQLite's `PRAGMA data_version`: it changes when another connection commits.
pub(super) fn data_version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA data_version", [], |row| row.get(0))?)
}

pub(super) fn history(conn: &Connection, id: RunId) -> Result<RunHistory> {
    let run = run(conn, id)?.ok_or(StateError::NoSuchRun(id))?;
    let mut baseline = None;
    let mut by_attempt = HashMap::new();
    for verification in verifications(conn, id)? {
        match verification.attempt {
            None => baseline = Some(verification),
            Some(attempt) => {
                by_attempt.insert(attempt, verification);
            }
        }
    }
    let attempts = attempts(conn, id, false)?
        .into_iter()
        .map(|attempt| AttemptHistory {
            verification: by_attempt.remove(&attempt.id),
            attempt,
        })
        .collect();
    Ok(RunHistory {
        run,
        baseline,
        attempts,
        transitions: transitions(conn, id)?,
    })
}

pub(super) fn stats(conn: &Connection) -> Result<Stats> {
    let runs = runs(conn)?;
    let mut by_state = BTreeMap::new();
    for run in &runs {
        *by_state.entry(run.state).or_insert(0) += 1;
    }
    let finished = runs.iter().filter(|run| run.state.is_terminal()).count() as u64;
    let passed_runs: HashSet<RunId> = runs
        .iter()
        .filter(|run| run.state == RunState::Passed)
        .map(|run| run.id)
        .collect();
    let success_rate = (finished > 0).then(|| passed_runs.len() as f64 / finished as f64);
    let (by_category, common_failures) = failure_stats(conn, &passed_runs)?;
    let attempts_to_success = attempts_to_success(conn, &passed_runs)?;
    let totals = totals(conn)?;
    Ok(Stats {
        runs: runs.len() as u64,
        by_state,
        finished,
        success_rate,
        by_category,
        attempts_to_success,
        common_failures,
        attempts: totals.attempts,
        interrupted: totals.interrupted,
        agent_ms: totals.agent_ms,
        verification_ms: totals.verification_ms,
    })
}

/// The failed attempt verifications by category, and the most common failures.
fn failure_stats(
    conn: &Connection,
    passed_runs: &HashSet<RunId>,
) -> Result<(Vec<CategoryStats>, Vec<FailurePattern>)> {
    // Failed attempt verifications: category, failures, run.
    let mut statement = conn.prepare(
        "SELECT run_id, category, failures_json FROM verifications \
         WHERE attempt_id IS NOT NULL AND outcome != 'passed' ORDER BY id",
    )?;
    let failed: Vec<(i64, Option<String>, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<Result<_, _>>()?;

    let mut categories: BTreeMap<String, (u64, HashSet<RunId>)> = BTreeMap::new();
    let mut patterns: HashMap<Fingerprint, (String, u64, HashSet<RunId>)> = HashMap::new();
    for (run, category, failures) in &failed {
        let run = RunId(*run);
        let category = category.clone().unwrap_or_else(|| "unknown".to_owned());
        let entry = categories.entry(category).or_default();
        entry.0 += 1;
        entry.1.insert(run);
        for failure in parse_failures(failures)? {
            let entry = patterns
                .entry(failure.fingerprint)
                .or_insert_with(|| (String::new(), 0, HashSet::new()));
            entry.0 = failure.label;
            entry.1 += 1;
            entry.2.insert(run);
        }
    }
    let mut by_category: Vec<CategoryStats> = categories
        .into_iter()
        .map(|(category, (failures, runs))| {
            let passed = runs.iter().filter(|run| passed_runs.contains(run)).count() as u64;
            CategoryStats {
                category,
                failures,
                runs: runs.len() as u64,
                passed,
                success_rate: passed as f64 / runs.len() as f64,
            }
        })
        .collect();
    by_category.sort_by(|a, b| {
        b.failures
            .cmp(&a.failures)
            .then(a.category.cmp(&b.category))
    });

    let mut common_failures: Vec<FailurePattern> = patterns
        .into_iter()
        .map(|(fingerprint, (label, occurrences, runs))| FailurePattern {
            fingerprint,
            label,
            occurrences,
            runs: runs.len() as u64,
        })
        .collect();
    common_failures.sort_by(|a, b| {
        b.occurrences
            .cmp(&a.occurrences)
            .then(b.runs.cmp(&a.runs))
            .then(a.label.cmp(&b.label))
            .then(a.fingerprint.cmp(&b.fingerprint))
    });
    common_failures.truncate(COMMON_FAILURES);
    Ok((by_category, common_failures))
}

/// How many attempts the passed runs took.
fn attempts_to_success(
    conn: &Connection,
    passed_runs: &HashSet<RunId>,
) -> Result<Option<AttemptsToSuccess>> {
    let mut attempts_of_passed: Vec<u64> = Vec::new();
    for run in passed_runs {
        // The attempts that counted, as the run's own `run_finished` says: not the interrupted.
        let count: i64 = conn.query_row(
            "SELECT COUNT(*) FROM attempts WHERE run_id = ?1 AND interrupted = 0",
            [run.0],
            |row| row.get(0),
        )?;
        attempts_of_passed.push(count.max(0) as u64);
    }
    attempts_of_passed.sort_unstable();
    Ok((!attempts_of_passed.is_empty()).then(|| {
        let n = attempts_of_passed.len();
        let mean = attempts_of_passed.iter().sum::<u64>() as f64 / n as f64;
        let median = if n % 2 == 1 {
            attempts_of_passed[n / 2] as f64
        } else {
            (attempts_of_passed[n / 2 - 1] + attempts_of_passed[n / 2]) as f64 / 2.0
        };
        AttemptsToSuccess {
            runs: n as u64,
            mean,
            median,
        }
    }))
}

/// The attempts and time of every run.
struct Totals {
    attempts: u64,
    interrupted: u64,
    agent_ms: u64,
    verification_ms: u64,
}

fn totals(conn: &Connection) -> Result<Totals> {
    let (attempts, interrupted, agent_ms): (i64, i64, i64) = conn.query_row(
        "SELECT COALESCE(SUM(interrupted = 0), 0), COALESCE(SUM(interrupted = 1), 0), \
         COALESCE(SUM(CASE WHEN interrupted = 0 AND finished_at IS NOT NULL \
         THEN MAX(finished_at - started_at, 0) ELSE 0 END), 0) FROM attempts",
        [],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )?;
    let verification_ms: i64 = conn.query_row(
        "SELECT COALESCE(SUM(duration_ms), 0) FROM verifications",
        [],
        |row| row.get(0),
    )?;
    Ok(Totals {
        attempts: attempts.max(0) as u64,
        interrupted: interrupted.max(0) as u64,
        agent_ms: agent_ms.max(0) as u64,
        verification_ms: verification_ms.max(0) as u64,
    })
}
