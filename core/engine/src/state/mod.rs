//! The loop's durable state: runs, attempts, verifications and every state transition, in an
//! embedded SQLite database (`.verdict/state.db`).
//!
//! A loop run can be killed at any point (`kill -9`, a crash, a reboot) and resumed later with its
//! attempt counter intact: no attempt is lost or started twice. That rests on a few rules:
//!
//! - The database is in WAL mode with `synchronous=FULL`: a committed transaction survives a crash
//!   of the process and of the machine. Writers wait up to five seconds for each other
//!   (`busy_timeout`), and every write is one `BEGIN IMMEDIATE` transaction, which takes the write
//!   lock up front instead of failing half-way with `SQLITE_BUSY`.
//! - Every change of a run's state goes through [`StateDb::transition`], which checks inside the
//!   transaction that the stored state is the one the caller believes and that [`RunState`] allows
//!   the move, and records the transition beside the change.
//! - "Attempt N started" is committed ([`StateDb::begin_attempt`]) *before* the agent is spawned,
//!   with a `UNIQUE (run, number)` constraint and a check that N is the next number; the agent's
//!   pid, process group and start time follow right after the spawn
//!   ([`StateDb::record_agent_process`]), and "finished" after the agent is reaped
//!   ([`StateDb::finish_attempt`]).
//! - Resuming: [`StateDb::find_run_by_task`] finds the unfinished run of the same task in the same
//!   workspace; [`StateDb::unfinished_attempts`] lists attempts that started and never finished; the
//!   caller stops their recorded process group ([`stop_orphaned_group`]), marks them
//!   ([`StateDb::mark_interrupted`]), moves the run to `interrupted` and carries on with
//!   [`StateDb::next_attempt_number`] — one more than the highest attempt that ever started.
//!   [`StateDb::resume`] does all of this in order.
//! - Changes that belong together can share one transaction, and one wait for the disk:
//!   [`StateDb::write`] hands out a [`Batch`] with the same writes (an attempt's end and the move to
//!   `verifying`; a verification, the move after it and its event).
//!
//! Reading: [`StateDb::history`] for one run, [`StateDb::runs`], and [`StateDb::stats`] for
//! `verdict stats`; all plain serializable structs. A page over every run (the dashboard) reads
//! them in bulk ([`StateDb::every_attempt`], [`StateDb::attempt_verifications`],
//! [`StateDb::last_transitions`], [`StateDb::events_of_kind`]) and polls
//! [`StateDb::data_version`] and [`StateDb::change_marks`] to see whether anything changed.

mod machine;
mod orphan;
mod read;
mod schema;
mod write;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, Transaction, TransactionBehavior};
use serde::{Deserialize, Serialize};

use crate::model::{Fingerprint, Outcome};

pub use machine::{RunState, UnknownState};
pub use orphan::{
    OrphanOutcome, ProcStat, parse_stat, proc_stat, process_start_time, stop_orphaned_group,
};
pub use read::{
    AttemptHistory, AttemptsToSuccess, CategoryStats, ChangeMarks, EventRecord, FailurePattern,
    RunHistory, Stats, TransitionRecord,
};
pub use write::Batch;
use write::next_number;

/// How long a writer waits for another one to finish before giving up with `SQLITE_BUSY`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema version this build reads and writes (SQLite's `user_version`).
pub const SCHEMA_VERSION: i64 = schema::VERSION;

/// What went wrong with the state database.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The directory of the database could not be created.
    #[error("failed to create {path}: {source}")]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// SQLite refused an operation.
    #[error("state database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The move is not one [`RunState::can_go_to`] allows.
    #[error("invalid transition from {from} to {to}")]
    InvalidTransition {
        /// The state the run is in.
        from: RunState,
        /// The state asked for.
        to: RunState,
    },
    /// The stored state is not the one the caller expected (another process moved the run).
    #[error("run {run} is {actual}, not {expected}")]
    StateMismatch {
        /// The run.
        run: RunId,
        /// The state the caller expected.
        expected: RunState,
        /// The state stored.
        actual: RunState,
    },
    /// An attempt number that is not the next one: it would duplicate or skip an attempt.
    #[error("attempt {number} of run {run} is out of order: the next attempt is {next}")]
    AttemptOutOfOrder {
        /// The run.
        run: RunId,
        /// The number asked for.
        number: u32,
        /// The next number.
        next: u32,
    },
    /// No run with this id.
    #[error("no run {0}")]
    NoSuchRun(RunId),
    /// No attempt with this id.
    #[error("no attempt {0}")]
    NoSuchAttempt(AttemptId),
    /// The attempt's agent has already been reaped or marked interrupted.
    #[error("attempt {0} has already finished")]
    AttemptFinished(AttemptId),
    /// A value in the database that this version cannot read.
    #[error("state database holds {0}")]
    Corrupt(String),
    /// The database was written by a newer verdict.
    #[error("state database schema version {found} is newer than this verdict's {supported}")]
    SchemaTooNew {
        /// The version found in the file.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
}

/// The result type of this module.
pub type Result<T, E = StateError> = std::result::Result<T, E>;

/// The id of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub i64);

/// The id of an attempt (unique across runs; the attempt's *number* counts within its run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AttemptId(pub i64);

impl std::fmt::Display for RunId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::fmt::Display for AttemptId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The identity of a task, for finding its unfinished run again: the BLAKE3 hash of its text, in
/// hex.
pub fn task_hash(task: &str) -> String {
    blake3::hash(task.as_bytes()).to_hex().to_string()
}

/// Milliseconds since the Unix epoch, the unit of every time in the database.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}

/// A run about to be created.
#[derive(Debug, Clone)]
pub struct NewRun<'a> {
    /// The task text, whole.
    pub task: &'a str,
    /// The workspace root.
    pub workspace: &'a Path,
    /// A summary of the configuration the run uses (agents, policies), as JSON.
    pub config: serde_json::Value,
    /// How many attempts the run may make in all.
    pub max_attempts: u32,
}

/// A stored run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    /// Its id.
    pub id: RunId,
    /// The task text.
    pub task: String,
    /// [`task_hash`] of the task.
    pub task_hash: String,
    /// The workspace root.
    pub workspace: String,
    /// The configuration summary.
    pub config: serde_json::Value,
    /// How many attempts the run may make.
    pub max_attempts: u32,
    /// Where it stands.
    pub state: RunState,
    /// When it was created (ms since the epoch).
    pub created_at: i64,
    /// When it reached a terminal state.
    pub finished_at: Option<i64>,
    /// The terminal state it reached.
    pub final_outcome: Option<RunState>,
}

/// One agent session of an attempt: an attempt runs several when an agent fails transiently or is
/// taken out (auth, quota) and the next one takes over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRef {
    /// The agent that ran it.
    pub agent: String,
    /// How it ended (`success`, `auth`, `rate_limited` …).
    pub outcome: String,
}

/// How an attempt's agent session ended, recorded once the agent is reaped.
#[derive(Debug, Clone, Default)]
pub struct AttemptFinish<'a> {
    /// Every session the attempt ran, in order; the last one's agent is the one that ran the
    /// attempt, and is recorded as its agent. Empty: the agent it started with ran it alone.
    pub sessions: &'a [SessionRef],
    /// The session's own outcome (`success`, `timeout`, `crashed`, `rate_limited` …), as the
    /// session layer names it.
    pub session_outcome: &'a str,
    /// The last lines of the agent's output, kept for the history.
    pub output_tail: &'a str,
    /// Whether the attempt changed the workspace (false: a no-op attempt).
    pub workspace_changed: bool,
}

/// A stored attempt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptRecord {
    /// Its id.
    pub id: AttemptId,
    /// Its run.
    pub run: RunId,
    /// Its number within the run, from 1.
    pub number: u32,
    /// The agent that ran it.
    pub agent: String,
    /// The size of its prompt in tokens, when known.
    pub prompt_tokens: Option<u64>,
    /// The agent's pid, once spawned.
    pub pid: Option<i32>,
    /// The agent's process group, once spawned.
    pub pgid: Option<i32>,
    /// The agent's start time (see [`process_start_time`]), once spawned.
    pub process_start: Option<u64>,
    /// When the attempt started (ms since the epoch).
    pub started_at: i64,
    /// When its agent was reaped, or it was marked interrupted.
    pub finished_at: Option<i64>,
    /// The session's outcome (`interrupted` for an interrupted attempt).
    pub session_outcome: Option<String>,
    /// The last lines of the agent's output.
    pub output_tail: Option<String>,
    /// Whether the attempt changed the workspace.
    pub workspace_changed: Option<bool>,
    /// Whether the attempt was cut short by the death of the process driving it.
    pub interrupted: bool,
    /// Every session it ran, in order (empty when not recorded: one session of `agent`).
    pub sessions: Vec<SessionRef>,
}

/// One failure of a verification, as the history and the statistics know it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureRef {
    /// Its fingerprint (tool, code, file, test — not the line).
    pub fingerprint: Fingerprint,
    /// A short human description, e.g. `tsc TS2322 src/a.ts` or `jest sum › adds`.
    pub label: String,
}

/// A verification summary about to be recorded.
#[derive(Debug, Clone)]
pub struct NewVerification<'a> {
    /// The overall outcome.
    pub outcome: Outcome,
    /// The failure category (`code_error`, `test_failure`, `flaky` …) for a failed verification.
    pub category: Option<&'a str>,
    /// The classifier's confidence in the category, 0 to 1.
    pub confidence: Option<f64>,
    /// The main location (`file:line`) of the failure.
    pub location: Option<&'a str>,
    /// The failures found.
    pub failures: &'a [FailureRef],
    /// Failures that came and went (flaky): reported, not blamed on the agent.
    pub flaky: &'a [FailureRef],
    /// How many tests ran, when a test runner was among the verifiers.
    pub tests_run: Option<u64>,
    /// The digest the agent was (or would be) given.
    pub digest: &'a str,
    /// How long the verification took.
    pub duration: Duration,
}

/// A stored verification summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerificationRecord {
    /// The attempt it verified; `None` for the baseline verification of the starting tree.
    pub attempt: Option<AttemptId>,
    /// The overall outcome.
    pub outcome: Outcome,
    /// The failure category.
    pub category: Option<String>,
    /// The classifier's confidence.
    pub confidence: Option<f64>,
    /// The main location.
    pub location: Option<String>,
    /// The failures found.
    pub failures: Vec<FailureRef>,
    /// Failures that came and went (flaky), set aside.
    pub flaky: Vec<FailureRef>,
    /// How many tests ran.
    pub tests_run: Option<u64>,
    /// The digest.
    pub digest: String,
    /// How long it took, in ms.
    pub duration_ms: u64,
    /// When it was recorded (ms since the epoch).
    pub recorded_at: i64,
}

/// An attempt found unfinished on resume.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoppedAttempt {
    /// Its number.
    pub number: u32,
    /// What stopping its recorded process group found; `None` when the loop died before recording
    /// the agent's process (then none was spawned, or it was spawned moments before the kill).
    pub outcome: Option<OrphanOutcome>,
}

/// What [`StateDb::resume`] found and did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resumed {
    /// The run, as it is now.
    pub run: RunRecord,
    /// The state the run was found in.
    pub was: RunState,
    /// The attempts that had not finished, now marked interrupted.
    pub stopped: Vec<StoppedAttempt>,
    /// The number of the next attempt.
    pub next_attempt: u32,
    /// The last attempt, when its agent finished and its verification was never recorded.
    pub unverified: Option<AttemptRecord>,
}

/// The state database: one connection to `.verdict/state.db`.
///
/// Several `StateDb`s (in one process or several) may use one file at once; writers queue for up to
/// [`BUSY_TIMEOUT`].
#[derive(Debug)]
pub struct StateDb {
    conn: Connection,
    path: PathBuf,
}

impl StateDb {
    /// Opens (creating it and its directory if needed) the database at `path`, and brings its schema
    /// up to date.
    pub fn open(path: &Path) -> Result<StateDb> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StateError::CreateDir {
                path: dir.to_owned(),
                source,
            })?;
        }
        let conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let mode = wal_mode(&conn)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StateError::Corrupt(format!(
                "journal mode {mode} where wal was asked for"
            )));
        }
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        let db = StateDb {
            conn,
            path: path.to_owned(),
        };
        db.write(|batch| schema::migrate(batch.tx))?;
        Ok(db)
    }

    /// The file the database lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The result of `PRAGMA integrity_check`: `"ok"` when the file is sound.
    pub fn integrity_check(&self) -> Result<String> {
        let lines: Vec<String> = self
            .conn
            .prepare("PRAGMA integrity_check")?
            .query_map([], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        Ok(lines.join("\n"))
    }

    /// Runs `f` in one `BEGIN IMMEDIATE` transaction, committed when `f` succeeds; nothing of it
    /// is stored when it fails. Use it to store several changes that belong together at the cost
    /// of one commit — each commit waits for the disk (`synchronous=FULL`) — e.g. an attempt's
    /// end and the move to `verifying`, or a verification, the move after it and its event.
    pub fn write<T>(&self, f: impl FnOnce(&Batch<'_>) -> Result<T>) -> Result<T> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let value = f(&Batch { tx: &tx })?;
        tx.commit()?;
        Ok(value)
    }

    /// Creates a run in state `pending`.
    pub fn create_run(&self, run: &NewRun<'_>) -> Result<RunId> {
        self.write(|batch| batch.create_run(run))
    }

    /// The run with this id.
    pub fn run(&self, run: RunId) -> Result<RunRecord> {
        read::run(&self.conn, run)?.ok_or(StateError::NoSuchRun(run))
    }

    /// The most recent run of the task with this [`task_hash`] in `workspace` that has not reached a
    /// terminal state — the run `verdict loop --resume` (or rerunning the same task) continues.
    pub fn find_run_by_task(&self, task_hash: &str, workspace: &Path) -> Result<Option<RunRecord>> {
        read::find_unfinished(&self.conn, task_hash, &workspace.to_string_lossy())
    }

    /// Every run, newest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>> {
        read::runs(&self.conn)
    }

    /// Moves `run` from `from` to `to`, recording why, in one transaction. Fails, changing nothing,
    /// when the stored state is not `from` or the move is not allowed. Reaching a terminal state
    /// also records the run's end time and final outcome.
    pub fn transition(&self, run: RunId, from: RunState, to: RunState, reason: &str) -> Result<()> {
        self.write(|batch| batch.transition(run, from, to, reason))
    }

    /// Commits "attempt `number` started" and the move of the run to `agent_running`, in one
    /// transaction — call it *before* spawning the agent. `number` must be
    /// [`next_attempt_number`](StateDb::next_attempt_number): anything else would duplicate or skip
    /// an attempt. The run must be in a state that may start an attempt (`pending`,
    /// `retry_scheduled`, `interrupted`).
    pub fn begin_attempt(
        &self,
        run: RunId,
        number: u32,
        agent: &str,
        prompt_tokens: Option<u64>,
    ) -> Result<AttemptId> {
        self.write(|batch| batch.begin_attempt(run, number, agent, prompt_tokens))
    }

    /// Records the spawned agent's pid, process group and start time (see
    /// [`process_start_time`]) — call it right after the spawn.
    pub fn record_agent_process(
        &self,
        attempt: AttemptId,
        pid: i32,
        pgid: i32,
        start_time: u64,
    ) -> Result<()> {
        self.write(|batch| batch.record_agent_process(attempt, pid, pgid, start_time))
    }

    /// Records how the attempt's agent session ended — call it after the agent is reaped. An attempt
    /// finishes once: finishing it again, or finishing an interrupted one, is an error.
    pub fn finish_attempt(&self, attempt: AttemptId, finish: &AttemptFinish<'_>) -> Result<()> {
        self.write(|batch| batch.finish_attempt(attempt, finish))
    }

    /// The attempts of `run` that started and neither finished nor were marked interrupted: on
    /// resume, their recorded process groups must be stopped ([`stop_orphaned_group`]) and they must
    /// be marked interrupted.
    pub fn unfinished_attempts(&self, run: RunId) -> Result<Vec<AttemptRecord>> {
        read::attempts(&self.conn, run, true)
    }

    /// Marks an attempt that never finished as interrupted (its session outcome `interrupted`).
    pub fn mark_interrupted(&self, attempt: AttemptId) -> Result<()> {
        self.write(|batch| batch.mark_interrupted(attempt))
    }

    /// Picks up `run` after the process driving it died, before anything else is done: stops the
    /// recorded process group of every attempt that never finished ([`stop_orphaned_group`], with
    /// `grace` between `SIGTERM` and `SIGKILL`), marks those attempts interrupted, and moves a run
    /// cut off in `agent_running` or `verifying` to `interrupted`. A run in `pending`,
    /// `retry_scheduled` or `interrupted` stays where it is; a finished run is left alone.
    ///
    /// The caller then continues from [`Resumed::run`]'s state: start attempt
    /// [`Resumed::next_attempt`], or first verify [`Resumed::unverified`] — the last attempt, when
    /// its agent finished but its verification was never recorded.
    pub fn resume(&self, run: RunId, grace: Duration) -> Result<Resumed> {
        let was = self.run(run)?.state;
        let mut stopped = Vec::new();
        for attempt in self.unfinished_attempts(run)? {
            let outcome = match (attempt.pid, attempt.pgid, attempt.process_start) {
                (Some(pid), Some(pgid), Some(start)) => {
                    Some(stop_orphaned_group(pid, pgid, start, grace))
                }
                _ => None,
            };
            self.mark_interrupted(attempt.id)?;
            stopped.push(StoppedAttempt {
                number: attempt.number,
                outcome,
            });
        }
        if matches!(was, RunState::AgentRunning | RunState::Verifying) {
            let number = self.next_attempt_number(run)? - 1;
            self.transition(
                run,
                was,
                RunState::Interrupted,
                &format!("resumed: the loop stopped during attempt {number} ({was})"),
            )?;
        }
        let last = read::attempts(&self.conn, run, false)?.pop();
        let unverified = match last {
            Some(last) if !last.interrupted && last.finished_at.is_some() => {
                let verified: bool = self.conn.query_row(
                    "SELECT EXISTS (SELECT 1 FROM verifications WHERE attempt_id = ?1)",
                    [last.id.0],
                    |row| row.get(0),
                )?;
                (!verified).then_some(last)
            }
            _ => None,
        };
        Ok(Resumed {
            run: self.run(run)?,
            was,
            stopped,
            next_attempt: self.next_attempt_number(run)?,
            unverified,
        })
    }

    /// How many attempts of `run` counted (judged: every attempt that was not interrupted) and how
    /// many were interrupted, which do not count against its attempts.
    pub fn attempt_counts(&self, run: RunId) -> Result<(u32, u32)> {
        Ok(self.conn.query_row(
            "SELECT COALESCE(SUM(interrupted = 0), 0), COALESCE(SUM(interrupted = 1), 0) \
             FROM attempts WHERE run_id = ?1",
            [run.0],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?)
    }

    /// The number the next attempt of `run` gets: one more than the highest attempt that started
    /// (finished, interrupted or not), 1 for a run without attempts.
    pub fn next_attempt_number(&self, run: RunId) -> Result<u32> {
        next_number(&self.conn, run)
    }

    /// Records the verification summary of `attempt`, or with `None` the baseline verification of
    /// the run's starting tree. Recording again for the same attempt (a verification repeated after
    /// a resume) replaces the earlier summary.
    pub fn record_verification(
        &self,
        run: RunId,
        attempt: Option<AttemptId>,
        verification: &NewVerification<'_>,
    ) -> Result<()> {
        self.write(|batch| batch.record_verification(run, attempt, verification))
    }

    /// Appends an event (`attempt_started`, `agent_retry`, …) with its JSON payload, for the
    /// history and for replaying `--events` output.
    pub fn record_event(
        &self,
        run: Option<RunId>,
        kind: &str,
        payload: &serde_json::Value,
    ) -> Result<()> {
        self.write(|batch| batch.record_event(run, kind, payload))
    }

    /// The events of `run`, oldest first.
    pub fn events(&self, run: RunId) -> Result<Vec<EventRecord>> {
        read::events(&self.conn, run)
    }

    /// Everything recorded about `run`: its attempts with their verifications, its baseline and its
    /// transitions.
    pub fn history(&self, run: RunId) -> Result<RunHistory> {
        read::history(&self.conn, run)
    }

    /// The figures of `verdict stats` over every run in the database.
    pub fn stats(&self) -> Result<Stats> {
        read::stats(&self.conn)
    }

    /// Every attempt of every run, by run and number, without their agents' output
    /// (`output_tail` is `None`; [`history`](StateDb::history) has it).
    pub fn every_attempt(&self) -> Result<Vec<AttemptRecord>> {
        read::every_attempt(&self.conn)
    }

    /// The verification of every attempt of every run (not the baselines), with its run, its
    /// `digest` left empty ([`history`](StateDb::history) has it).
    pub fn attempt_verifications(&self) -> Result<Vec<(RunId, VerificationRecord)>> {
        read::attempt_verifications(&self.conn)
    }

    /// The last transition of every run that has one.
    pub fn last_transitions(&self) -> Result<Vec<(RunId, TransitionRecord)>> {
        read::last_transitions(&self.conn)
    }

    /// The events of `kind` (`retry_scheduled`, `agent_retry` …) of every run, oldest first.
    pub fn events_of_kind(&self, kind: &str) -> Result<Vec<(Option<RunId>, EventRecord)>> {
        read::events_of_kind(&self.conn, kind)
    }

    /// Figures that differ after every commit to the loop's tables: a cheap way to tell whether
    /// anything changed since the last look.
    pub fn change_marks(&self) -> Result<ChangeMarks> {
        read::change_marks(&self.conn)
    }

    /// SQLite's `PRAGMA data_version` on this connection: a different value means another
    /// connection committed since the last call. Cheaper than [`change_marks`](StateDb::change_marks)
    /// and blind to what changed.
    pub fn data_version(&self) -> Result<i64> {
        read::data_version(&self.conn)
    }
}

/// Switches `conn` to WAL and returns the journal mode in force. Two connections that open a new
/// database at the same moment both ask for the switch, which needs an exclusive lock that SQLite
/// does not wait for through the busy handler; so a busy answer is retried here, for up to
/// [`BUSY_TIMEOUT`].
fn wal_mode(conn: &Connection) -> Result<String> {
    let started = std::time::Instant::now();
    loop {
        match conn.pragma_update_and_check(None, "journal_mode", "wal", |row| row.get(0)) {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == rusqlite::ErrorCode::DatabaseBusy
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return Ok(other?),
        }
    }
}
