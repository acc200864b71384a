//! The loop's durable state against a real SQLite file: the state machine's refusals, attempt
//! numbering, resuming after a crash with a real orphaned agent process, concurrent writers, exact
//! statistics, and a writer process killed with `SIGKILL` at random points.
//!
//! The crash test spawns this very test binary in "writer" mode (the `crash_writer` test with
//! `VERDICT_STATE_WRITER` set): it drives runs through the state machine forever, printing each
//! attempt it has committed, until the parent kills it. After every kill the parent reopens the
//! database and checks what must hold whatever point the kill hit.

use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use verdict_core::model::{Fingerprint, Outcome};
use verdict_core::state::{
    AttemptFinish, FailureRef, NewRun, NewVerification, OrphanOutcome, RunId, RunState, StateDb,
    StateError, StoppedAttempt, proc_stat, process_start_time, stop_orphaned_group, task_hash,
};

/// The task every run in these tests works on.
const TASK: &str = "make the failing tests pass";
/// The environment variable that turns `crash_writer` into the writer process; its value is the
/// database path.
const WRITER_ENV: &str = "VERDICT_STATE_WRITER";
/// Set (to anything) for a writer that spawns a real agent in attempt 1 and then hangs.
const HANG_ENV: &str = "VERDICT_STATE_WRITER_HANG";
/// The attempts each run of the writer may make.
const WRITER_MAX_ATTEMPTS: u32 = 4;

fn temp_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    // A directory that does not exist yet: open creates it.
    let path = dir.path().join(".verdict").join("state.db");
    (dir, path)
}

fn new_run<'a>(workspace: &'a Path, max_attempts: u32) -> NewRun<'a> {
    NewRun {
        task: TASK,
        workspace,
        config: serde_json::json!({"agents": ["scripted"]}),
        max_attempts,
    }
}

fn failure(name: &str) -> FailureRef {
    FailureRef {
        fingerprint: Fingerprint::compute("tsc", Some("TS2322"), Some(name), None, "type error"),
        label: format!("tsc TS2322 {name}"),
    }
}

fn verification<'a>(
    outcome: Outcome,
    category: Option<&'a str>,
    failures: &'a [FailureRef],
    ms: u64,
) -> NewVerification<'a> {
    NewVerification {
        outcome,
        category,
        confidence: category.map(|_| 0.9),
        location: failures.first().map(|_| "src/a.ts:3"),
        failures,
        flaky: &[],
        tests_run: Some(7),
        digest: "digest text",
        duration: Duration::from_millis(ms),
    }
}

/// Drives one whole attempt of `run` (which must be able to start one): agent, verification with
/// `outcome`, and the move after it — `passed` for a pass, else `after_failure`.
fn attempt(
    db: &StateDb,
    run: RunId,
    outcome: Outcome,
    category: Option<&str>,
    failures: &[FailureRef],
    after_failure: RunState,
) {
    let number = db.next_attempt_number(run).expect("next number");
    let id = db
        .begin_attempt(run, number, "scripted", Some(120))
        .expect("begin attempt");
    db.record_agent_process(id, 4242, 4242, 99)
        .expect("process");
    db.finish_attempt(
        id,
        &AttemptFinish {
            sessions: &[],
            session_outcome: "success",
            output_tail: "done",
            workspace_changed: true,
        },
    )
    .expect("finish");
    db.transition(
        run,
        RunState::AgentRunning,
        RunState::Verifying,
        "agent done",
    )
    .expect("to verifying");
    db.record_verification(
        run,
        Some(id),
        &verification(outcome, category, failures, 100),
    )
    .expect("verification");
    let to = if outcome == Outcome::Passed {
        RunState::Passed
    } else {
        after_failure
    };
    db.transition(run, RunState::Verifying, to, "verified")
        .expect("after verification");
}

#[test]
fn open_creates_the_directory_in_wal_mode_at_the_current_schema() {
    let (_dir, path) = temp_db();
    let db = StateDb::open(&path).expect("open");
    assert!(path.exists());
    assert_eq!(db.integrity_check().expect("check"), "ok");
    let conn = rusqlite::Connection::open(&path).expect("raw connection");
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .expect("journal mode");
    assert_eq!(mode, "wal");
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .expect("user version");
    assert_eq!(version, verdict_core::state::SCHEMA_VERSION);
    drop(db);
    // Reopening does not migrate again; a database from a newer verdict is refused.
    StateDb::open(&path).expect("reopen");
    conn.pragma_update(None, "user_version", version + 1)
        .expect("bump version");
    let error = StateDb::open(&path).expect_err("newer schema");
    assert_eq!(
        error.to_string(),
        format!(
            "state database schema version {} is newer than this verdict's {version}",
            version + 1
        )
    );
}

#[test]
fn a_database_another_part_of_verdict_created_first_is_migrated_beside_its_tables() {
    let (dir, path) = temp_db();
    std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
    // `verdict hook` keeps its block counts in a table of its own in the same file.
    let conn = rusqlite::Connection::open(&path).expect("raw connection");
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE hook_sessions (harness TEXT, session TEXT, blocks INTEGER);
         INSERT INTO hook_sessions VALUES ('claude', 's1', 2);",
    )
    .expect("hook table");
    let db = StateDb::open(&path).expect("open");
    let run = db.create_run(&new_run(dir.path(), 3)).expect("run");
    assert_eq!(db.run(run).expect("run").state, RunState::Pending);
    let blocks: i64 = conn
        .query_row("SELECT blocks FROM hook_sessions", [], |row| row.get(0))
        .expect("hook row kept");
    assert_eq!(blocks, 2);
}

#[test]
fn an_invalid_transition_names_both_states_and_changes_nothing() {
    let (dir, path) = temp_db();
    let db = StateDb::open(&path).expect("open");
    let run = db.create_run(&new_run(dir.path(), 3)).expect("run");

    let error = db
        .transition(run, RunState::Pending, RunState::Passed, "cheat")
        .expect_err("pending → passed");
    assert_eq!(
        error.to_string(),
        "invalid transition from pending to passed"
    );
    let error = db
        .transition(run, RunState::Verifying, RunState::Passed, "stale")
        .expect_err("not in verifying");
    assert_eq!(
        error.to_string(),
        format!("run {} is pending, not verifying", run)
    );
    assert!(matches!(error, StateError::StateMismatch { .. }));

    attempt(
        &db,
        run,
        Outcome::Passed,
        None,
        &[],
        RunState::RetryScheduled,
    );
    let error = db
        .transition(run, RunState::Passed, RunState::AgentRunning, "again")
        .expect_err("terminal");
    assert_eq!(
        error.to_string(),
        "invalid transition from passed to agent_running"
    );
    let error = db
        .begin_attempt(run, 2, "scripted", None)
        .expect_err("no attempt after a pass");
    assert_eq!(
        error.to_string(),
        "invalid transition from passed to agent_running"
    );

    let history = db.history(run).expect("history");
    let path: Vec<(RunState, RunState)> =
        history.transitions.iter().map(|t| (t.from, t.to)).collect();
    assert_eq!(
        path,
        [
            (RunState::Pending, RunState::AgentRunning),
            (RunState::AgentRunning, RunState::Verifying),
            (RunState::Verifying, RunState::Passed),
        ]
    );
    assert_eq!(history.run.state, RunState::Passed);
    assert_eq!(history.run.final_outcome, Some(RunState::Passed));
    assert!(history.run.finished_at.is_some());
    assert_eq!(
        history.transitions[0].reason,
        "attempt 1 started (scripted)"
    );
    assert_eq!(history.transitions[0].attempt, Some(1));
}

#[test]
fn a_batch_is_stored_whole_or_not_at_all() {
    let (dir, path) = temp_db();
    let db = StateDb::open(&path).expect("open");
    let run = db.create_run(&new_run(dir.path(), 3)).expect("run");
    let id = db
        .begin_attempt(run, 1, "scripted", None)
        .expect("attempt 1");
    // The second write is refused (the run is not verifying): the first is not kept either.
    let error = db
        .write(|batch| {
            batch.finish_attempt(id, &AttemptFinish::default())?;
            batch.transition(run, RunState::Verifying, RunState::Passed, "too soon")
        })
        .expect_err("refused");
    assert_eq!(
        error.to_string(),
        format!("run {run} is agent_running, not verifying")
    );
    assert_eq!(db.unfinished_attempts(run).expect("unfinished").len(), 1);
    // Both together, once they are right.
    db.write(|batch| {
        batch.finish_attempt(id, &AttemptFinish::default())?;
        batch.transition(run, RunState::AgentRunning, RunState::Verifying, "done")?;
        assert_eq!(batch.state(run)?, RunState::Verifying);
        assert_eq!(batch.next_attempt_number(run)?, 2);
        Ok(())
    })
    .expect("batch");
    assert!(db.unfinished_attempts(run).expect("unfinished").is_empty());
    assert_eq!(db.run(run).expect("run").state, RunState::Verifying);
}

#[test]
fn attempt_numbers_are_unique_and_in_order() {
    let (dir, path) = temp_db();
    let db = StateDb::open(&path).expect("open");
    let run = db.create_run(&new_run(dir.path(), 5)).expect("run");
    assert_eq!(db.next_attempt_number(run).expect("next"), 1);

    let error = db
        .begin_attempt(run, 2, "scripted", None)
        .expect_err("skips attempt 1");
    assert_eq!(
        error.to_string(),
        format!("attempt 2 of run {run} is out of order: the next attempt is 1")
    );
    let first = db
        .begin_attempt(run, 1, "scripted", None)
        .expect("attempt 1");
    // While it runs, no second attempt can start.
    let error = db
        .begin_attempt(run, 2, "scripted", None)
        .expect_err("attempt 1 is running");
    assert_eq!(
        error.to_string(),
        "invalid transition from agent_running to agent_running"
    );
    db.finish_attempt(first, &AttemptFinish::default())
        .expect("finish");
    let error = db
        .finish_attempt(first, &AttemptFinish::default())
        .expect_err("finished twice");
    assert_eq!(
        error.to_string(),
        format!("attempt {first} has already finished")
    );
    db.transition(run, RunState::AgentRunning, RunState::Verifying, "done")
        .expect("verifying");
    db.transition(run, RunState::Verifying, RunState::RetryScheduled, "failed")
        .expect("retry");
    let error = db
        .begin_attempt(run, 1, "scripted", None)
        .expect_err("attempt 1 again");
    assert!(matches!(
        error,
        StateError::AttemptOutOfOrder { next: 2, .. }
    ));
    db.begin_attempt(run, 2, "scripted", None)
        .expect("attempt 2");

    // The UNIQUE constraint holds even for a writer that bypasses the API.
    let conn = rusqlite::Connection::open(&path).expect("raw connection");
    let duplicate = conn.execute(
        "INSERT INTO attempts (run_id, number, agent, started_at) VALUES (?1, 1, 'x', 0)",
        [run.0],
    );
    assert!(duplicate.is_err(), "a duplicated attempt was stored");
}

/// A real agent stand-in: `sh` running `sleep` in a process group of its own, as the session layer
/// spawns agents. `ignore_term` makes the whole group ignore `SIGTERM`.
fn spawn_agent(ignore_term: bool) -> Child {
    let script = if ignore_term {
        "trap '' TERM; sleep 300 & wait"
    } else {
        "sleep 300 & wait"
    };
    Command::new("sh")
        .args(["-c", script])
        .process_group(0)
        // Not the writer's stdout: an orphan holding the pipe would keep the reader waiting.
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn sh")
}

fn alive(pid: i32) -> bool {
    proc_stat(pid).is_some_and(|stat| stat.state != 'Z')
}

/// Waits for `child`'s group to hold a second process (the `sleep`), so that killing "the group"
/// is tested on a tree and not on one process.
fn wait_for_group_members(pgid: i32, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let members = std::fs::read_dir("/proc")
            .expect("/proc")
            .flatten()
            .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
            .filter_map(proc_stat)
            .filter(|stat| stat.pgid == pgid && stat.state != 'Z')
            .count();
        if members >= count {
            return;
        }
        assert!(Instant::now() < deadline, "the agent's group never grew");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn resuming_stops_the_orphaned_agent_and_continues_at_the_next_attempt() {
    let (dir, path) = temp_db();
    let workspace = dir.path();
    let mut agent;
    {
        let db = StateDb::open(&path).expect("open");
        let run = db.create_run(&new_run(workspace, 3)).expect("run");
        attempt(
            &db,
            run,
            Outcome::Failed,
            Some("test_failure"),
            &[failure("a.ts")],
            RunState::RetryScheduled,
        );
        let id = db
            .begin_attempt(run, 2, "scripted", None)
            .expect("attempt 2");
        agent = spawn_agent(false);
        let pid = agent.id() as i32;
        let start = process_start_time(pid).expect("start time");
        db.record_agent_process(id, pid, pid, start)
            .expect("record");
        // The loop dies here: the database is dropped without finishing anything.
    }
    let pid = agent.id() as i32;
    wait_for_group_members(pid, 2);

    let db = StateDb::open(&path).expect("reopen");
    let run = db
        .find_run_by_task(&task_hash(TASK), workspace)
        .expect("find")
        .expect("the unfinished run");
    assert_eq!(run.state, RunState::AgentRunning);
    assert!(
        db.find_run_by_task(&task_hash("another task"), workspace)
            .expect("find")
            .is_none()
    );
    let unfinished = db.unfinished_attempts(run.id).expect("unfinished");
    assert_eq!(unfinished.len(), 1);
    let orphan = &unfinished[0];
    assert_eq!(
        (orphan.number, orphan.pid, orphan.pgid),
        (2, Some(pid), Some(pid))
    );

    // A start time that does not match is another process that got the pid: left alone.
    let recorded = orphan.process_start.expect("recorded start");
    assert_eq!(
        stop_orphaned_group(pid, pid, recorded + 1, Duration::from_millis(300)),
        OrphanOutcome::Reused
    );
    assert!(alive(pid));
    assert_eq!(
        stop_orphaned_group(pid, pid, recorded, Duration::from_secs(5)),
        OrphanOutcome::Terminated
    );
    agent.wait().expect("reap");
    assert!(!alive(pid));
    assert_eq!(
        stop_orphaned_group(pid, pid, recorded, Duration::from_secs(5)),
        OrphanOutcome::Gone
    );

    db.mark_interrupted(orphan.id).expect("mark");
    db.transition(
        run.id,
        RunState::AgentRunning,
        RunState::Interrupted,
        "resumed",
    )
    .expect("interrupted");
    assert!(
        db.unfinished_attempts(run.id)
            .expect("unfinished")
            .is_empty()
    );
    assert_eq!(db.next_attempt_number(run.id).expect("next"), 3);
    db.begin_attempt(run.id, 3, "scripted", None)
        .expect("attempt 3");

    let history = db.history(run.id).expect("history");
    let numbers: Vec<(u32, bool, Option<&str>)> = history
        .attempts
        .iter()
        .map(|a| {
            (
                a.attempt.number,
                a.attempt.interrupted,
                a.attempt.session_outcome.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        numbers,
        [
            (1, false, Some("success")),
            (2, true, Some("interrupted")),
            (3, false, None)
        ]
    );
    assert!(history.attempts[0].verification.is_some());
    assert!(history.attempts[1].verification.is_none());
}

#[test]
fn resume_stops_the_agent_marks_the_attempt_and_names_an_unverified_one() {
    let (dir, path) = temp_db();
    let db = StateDb::open(&path).expect("open");
    let run = db.create_run(&new_run(dir.path(), 5)).expect("run");

    // Killed while the agent of attempt 1 runs.
    let id = db
        .begin_attempt(run, 1, "scripted", None)
        .expect("attempt 1");
    let mut agent = spawn_agent(false);
    let pid = agent.id() as i32;
    wait_for_group_members(pid, 2);
    let start = process_start_time(pid).expect("start time");
    db.record_agent_process(id, pid, pid, start)
        .expect("record");
    let resumed = db.resume(run, Duration::from_secs(5)).expect("resume");
    agent.wait().expect("reap");
    assert!(!alive(pid));
    assert_eq!(resumed.was, RunState::AgentRunning);
    assert_eq!(resumed.run.state, RunState::Interrupted);
    assert_eq!(
        resumed.stopped,
        [StoppedAttempt {
            number: 1,
            outcome: Some(OrphanOutcome::Terminated)
        }]
    );
    assert_eq!((resumed.next_attempt, resumed.unverified), (2, None));
    let reason = &db.history(run).expect("history").transitions[1].reason;
    assert_eq!(
        reason,
        "resumed: the loop stopped during attempt 1 (agent_running)"
    );

    // Killed after attempt 2's agent finished, before its verification was recorded.
    let id = db
        .begin_attempt(run, 2, "scripted", None)
        .expect("attempt 2");
    db.finish_attempt(id, &AttemptFinish::default())
        .expect("finish");
    db.transition(run, RunState::AgentRunning, RunState::Verifying, "done")
        .expect("verifying");
    let resumed = db.resume(run, Duration::from_secs(5)).expect("resume");
    assert_eq!(resumed.was, RunState::Verifying);
    assert_eq!(resumed.run.state, RunState::Interrupted);
    assert!(resumed.stopped.is_empty());
    assert_eq!(resumed.next_attempt, 3);
    assert_eq!(resumed.unverified.map(|a| (a.id, a.number)), Some((id, 2)));
    // The resumed loop verifies it, and a scheduled retry is resumed as it stands.
    db.transition(
        run,
        RunState::Interrupted,
        RunState::Verifying,
        "verify attempt 2",
    )
    .expect("verify again");
    db.record_verification(
        run,
        Some(id),
        &verification(Outcome::Failed, Some("lint"), &[], 5),
    )
    .expect("verification");
    db.transition(run, RunState::Verifying, RunState::RetryScheduled, "failed")
        .expect("retry");
    let resumed = db.resume(run, Duration::from_secs(5)).expect("resume");
    assert_eq!(
        (resumed.was, resumed.run.state, resumed.next_attempt),
        (RunState::RetryScheduled, RunState::RetryScheduled, 3)
    );
    assert_eq!(resumed.unverified, None);
}

#[test]
fn a_group_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let mut agent = spawn_agent(true);
    let pid = agent.id() as i32;
    wait_for_group_members(pid, 2);
    let start = process_start_time(pid).expect("start time");
    let began = Instant::now();
    assert_eq!(
        stop_orphaned_group(pid, pid, start, Duration::from_millis(300)),
        OrphanOutcome::Killed
    );
    assert!(began.elapsed() >= Duration::from_millis(300));
    agent.wait().expect("reap");
    assert!(!alive(pid));
}

#[test]
fn two_connections_writing_at_once_never_fail_busy() {
    let (dir, path) = temp_db();
    // Both open a database that does not exist yet, at the same moment.
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let path = path.clone();
            let workspace = dir.path().to_owned();
            std::thread::spawn(move || -> Result<u32, StateError> {
                let db = StateDb::open(&path)?;
                let run = db.create_run(&new_run(&workspace, 1000))?;
                for number in 1..=60 {
                    let id = db.begin_attempt(run, number, "scripted", None)?;
                    db.finish_attempt(id, &AttemptFinish::default())?;
                    db.transition(run, RunState::AgentRunning, RunState::Verifying, "done")?;
                    db.record_verification(
                        run,
                        Some(id),
                        &verification(Outcome::Failed, Some("lint"), &[], 1),
                    )?;
                    db.transition(run, RunState::Verifying, RunState::RetryScheduled, "again")?;
                    db.record_event(
                        Some(run),
                        "retry_scheduled",
                        &serde_json::json!({"n": number}),
                    )?;
                }
                db.next_attempt_number(run)
            })
        })
        .collect();
    for thread in threads {
        let next = thread.join().expect("thread").expect("no SQLITE_BUSY");
        assert_eq!(next, 61);
    }
    let db = StateDb::open(&path).expect("open");
    let runs = db.runs().expect("runs");
    assert_eq!(runs.len(), 2);
    for run in runs {
        assert_eq!(db.history(run.id).expect("history").transitions.len(), 180);
        assert_eq!(db.events(run.id).expect("events").len(), 60);
    }
}

#[test]
fn stats_over_recorded_runs_give_exact_figures() {
    let (dir, path) = temp_db();
    let db = StateDb::open(&path).expect("open");
    let ws = dir.path();
    let (f1, f2, f3) = (
        failure("src/a.ts"),
        failure("src/b.ts"),
        failure("src/c.ts"),
    );
    let old = failure("src/old.ts");
    use Outcome::{Failed, Passed};
    use RunState::{Escalated, Exhausted, RetryScheduled};

    // A: an old failure in the baseline, a code error, then green on attempt 2.
    let a = db.create_run(&new_run(ws, 3)).expect("run");
    db.record_verification(
        a,
        None,
        &verification(Failed, Some("test_failure"), std::slice::from_ref(&old), 50),
    )
    .expect("baseline");
    attempt(
        &db,
        a,
        Failed,
        Some("code_error"),
        std::slice::from_ref(&f1),
        RetryScheduled,
    );
    attempt(&db, a, Passed, None, &[], RetryScheduled);
    // B: green at once.
    let b = db.create_run(&new_run(ws, 3)).expect("run");
    attempt(&db, b, Passed, None, &[], RetryScheduled);
    // C: three failures, exhausted.
    let c = db.create_run(&new_run(ws, 3)).expect("run");
    attempt(
        &db,
        c,
        Failed,
        Some("test_failure"),
        &[f2.clone(), f1.clone()],
        RetryScheduled,
    );
    attempt(
        &db,
        c,
        Failed,
        Some("test_failure"),
        std::slice::from_ref(&f2),
        RetryScheduled,
    );
    attempt(
        &db,
        c,
        Failed,
        Some("code_error"),
        std::slice::from_ref(&f1),
        Exhausted,
    );
    // D: the same lint failure twice, escalated.
    let d = db.create_run(&new_run(ws, 3)).expect("run");
    attempt(
        &db,
        d,
        Failed,
        Some("lint"),
        std::slice::from_ref(&f3),
        RetryScheduled,
    );
    attempt(
        &db,
        d,
        Failed,
        Some("lint"),
        std::slice::from_ref(&f3),
        Escalated,
    );
    // E: interrupted during attempt 1.
    let e = db.create_run(&new_run(ws, 3)).expect("run");
    let id = db.begin_attempt(e, 1, "scripted", None).expect("attempt");
    db.mark_interrupted(id).expect("interrupt");
    db.transition(e, RunState::AgentRunning, RunState::Interrupted, "killed")
        .expect("interrupted");
    // F: two test failures, green on attempt 3.
    let f = db.create_run(&new_run(ws, 5)).expect("run");
    attempt(
        &db,
        f,
        Failed,
        Some("test_failure"),
        std::slice::from_ref(&f2),
        RetryScheduled,
    );
    attempt(
        &db,
        f,
        Failed,
        Some("test_failure"),
        std::slice::from_ref(&f2),
        RetryScheduled,
    );
    attempt(&db, f, Passed, None, &[], RetryScheduled);

    let stats = db.stats().expect("stats");
    assert_eq!(stats.runs, 6);
    assert_eq!(stats.finished, 5);
    assert_eq!(stats.success_rate, Some(0.6));
    let by_state: Vec<(RunState, u64)> = stats.by_state.iter().map(|(s, n)| (*s, *n)).collect();
    assert_eq!(
        by_state,
        [
            (RunState::Interrupted, 1),
            (RunState::Passed, 3),
            (RunState::Exhausted, 1),
            (RunState::Escalated, 1),
        ]
    );
    let categories: Vec<(&str, u64, u64, u64, f64)> = stats
        .by_category
        .iter()
        .map(|c| {
            (
                c.category.as_str(),
                c.failures,
                c.runs,
                c.passed,
                c.success_rate,
            )
        })
        .collect();
    assert_eq!(
        categories,
        [
            ("test_failure", 4, 2, 1, 0.5),
            ("code_error", 2, 2, 1, 0.5),
            ("lint", 2, 1, 0, 0.0),
        ]
    );
    let attempts_to_success = stats.attempts_to_success.as_ref().expect("some passed");
    assert_eq!(
        (
            attempts_to_success.runs,
            attempts_to_success.mean,
            attempts_to_success.median
        ),
        (3, 2.0, 2.0)
    );
    let patterns: Vec<(&str, u64, u64)> = stats
        .common_failures
        .iter()
        .map(|p| (p.label.as_str(), p.occurrences, p.runs))
        .collect();
    assert_eq!(
        patterns,
        [
            ("tsc TS2322 src/b.ts", 4, 2),
            ("tsc TS2322 src/a.ts", 3, 2),
            ("tsc TS2322 src/c.ts", 2, 1),
        ]
    );
    assert_eq!(stats.common_failures[0].fingerprint, f2.fingerprint);
    // Run E's one attempt was interrupted: it is counted apart, as a run's own count leaves it out.
    assert_eq!((stats.attempts, stats.interrupted), (2 + 1 + 3 + 2 + 3, 1));
    // Eleven attempt verifications of 100 ms and the baseline's 50 ms.
    assert_eq!(stats.verification_ms, 11 * 100 + 50);
    // Agent time: every finished, uninterrupted attempt's span, as the history records it.
    let mut agent_ms = 0;
    for run in db.runs().expect("runs") {
        for a in db.history(run.id).expect("history").attempts {
            if !a.attempt.interrupted {
                agent_ms +=
                    (a.attempt.finished_at.expect("finished") - a.attempt.started_at) as u64;
            }
        }
    }
    assert_eq!(stats.agent_ms, agent_ms);

    let json = serde_json::to_value(&stats).expect("serializes");
    assert_eq!(json["by_state"]["passed"], 3);
    assert_eq!(
        json["common_failures"][0]["fingerprint"],
        f2.fingerprint.to_string()
    );

    // The baseline is kept apart in the history.
    let history = db.history(a).expect("history");
    let baseline = history.baseline.expect("baseline");
    assert_eq!((baseline.outcome, baseline.failures), (Failed, vec![old]));
    assert_eq!(history.attempts.len(), 2);
    assert_eq!(
        history.attempts[1].verification.as_ref().map(|v| v.outcome),
        Some(Passed)
    );
}

/// Small xorshift generator: the kill points only need to differ between rounds.
struct Rng(u64);

impl Rng {
    fn seeded() -> Rng {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64);
        Rng(nanos | 1)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Resumes (or starts) the run of [`TASK`] and drives it through attempts, `steps` of them or
/// forever, exactly as the loop would: stop and mark what a killed predecessor left running, move
/// the run out of a state it was cut off in, then attempt after attempt. Prints `started RUN N`
/// once attempt N is committed, and `agent PID` for a real agent it leaves behind.
fn write_runs(path: &Path, workspace: &Path, steps: Option<u32>, hang: bool) {
    let db = StateDb::open(path).expect("open");
    let mut rng = Rng::seeded();
    let mut done = 0;
    loop {
        let run = match db
            .find_run_by_task(&task_hash(TASK), workspace)
            .expect("find")
        {
            Some(run) => run.id,
            None => db
                .create_run(&new_run(workspace, WRITER_MAX_ATTEMPTS))
                .expect("create"),
        };
        let resumed = db.resume(run, Duration::from_secs(2)).expect("resume");
        let mut state = resumed.run.state;
        assert!(
            matches!(
                state,
                RunState::Pending | RunState::RetryScheduled | RunState::Interrupted
            ),
            "resumed into {state}"
        );
        loop {
            let number = db.next_attempt_number(run).expect("next");
            if number > WRITER_MAX_ATTEMPTS {
                db.transition(run, state, RunState::Exhausted, "no attempts left")
                    .expect("exhausted");
                break;
            }
            let id = db
                .begin_attempt(run, number, "scripted", None)
                .expect("begin");
            println!("started {} {number}", run.0);
            std::io::stdout().flush().expect("flush");
            if hang {
                let mut agent = spawn_agent(false);
                let pid = agent.id() as i32;
                let start = process_start_time(pid).expect("agent start");
                db.record_agent_process(id, pid, pid, start)
                    .expect("record");
                println!("agent {pid}");
                std::io::stdout().flush().expect("flush");
                // Wait on the agent as the loop would, until the parent kills this process.
                let _ = agent.wait();
                loop {
                    std::thread::sleep(Duration::from_secs(60));
                }
            }
            // Not a real agent: the writer's own pid, in a group that does not exist.
            let me = std::process::id() as i32;
            let start = process_start_time(me).expect("own start");
            db.record_agent_process(id, me, me, start).expect("record");
            std::thread::sleep(Duration::from_micros(rng.below(3000)));
            db.finish_attempt(
                id,
                &AttemptFinish {
                    sessions: &[],
                    session_outcome: "success",
                    output_tail: "edited",
                    workspace_changed: true,
                },
            )
            .expect("finish");
            db.transition(
                run,
                RunState::AgentRunning,
                RunState::Verifying,
                "agent done",
            )
            .expect("verifying");
            let failures = [failure("src/a.ts")];
            let failed = verification(Outcome::Failed, Some("test_failure"), &failures, 1);
            let to = if number == WRITER_MAX_ATTEMPTS {
                RunState::Exhausted
            } else {
                RunState::RetryScheduled
            };
            if number.is_multiple_of(2) {
                // The verification, the move after it and its event in one transaction.
                db.write(|batch| {
                    batch.record_verification(run, Some(id), &failed)?;
                    batch.transition(run, RunState::Verifying, to, "failed")?;
                    batch.record_event(Some(run), "retry_scheduled", &serde_json::json!({}))
                })
                .expect("batch");
            } else {
                db.record_verification(run, Some(id), &failed)
                    .expect("verification");
                std::thread::sleep(Duration::from_micros(rng.below(3000)));
                db.transition(run, RunState::Verifying, to, "failed")
                    .expect("after");
            }
            done += 1;
            if steps.is_some_and(|steps| done >= steps) {
                return;
            }
            if to.is_terminal() {
                break;
            }
            state = to;
        }
    }
}

/// What must hold in the database whatever point a kill hit; returns every attempt as (run, number).
fn check_invariants(db: &StateDb) -> BTreeSet<(i64, u32)> {
    assert_eq!(db.integrity_check().expect("integrity check"), "ok");
    let runs = db.runs().expect("runs");
    let unfinished_runs = runs.iter().filter(|run| !run.state.is_terminal()).count();
    assert!(
        unfinished_runs <= 1,
        "{unfinished_runs} unfinished runs: a resume started a new run"
    );
    let mut all = BTreeSet::new();
    for run in runs {
        let history = db.history(run.id).expect("history");
        // The transitions form one valid path from pending to the stored state.
        let mut at = RunState::Pending;
        for transition in &history.transitions {
            assert_eq!(transition.from, at, "run {}: a gap in the path", run.id);
            assert!(transition.from.can_go_to(transition.to));
            at = transition.to;
        }
        assert_eq!(
            at, run.state,
            "run {}: the path does not end at its state",
            run.id
        );
        assert_eq!(run.state.is_terminal(), run.finished_at.is_some());
        // Attempt numbers are 1..=n, and the next one is n + 1.
        let numbers: Vec<u32> = history.attempts.iter().map(|a| a.attempt.number).collect();
        let expected: Vec<u32> = (1..=numbers.len() as u32).collect();
        assert_eq!(numbers, expected, "run {}: attempts not contiguous", run.id);
        assert!(numbers.len() as u32 <= WRITER_MAX_ATTEMPTS);
        assert_eq!(
            db.next_attempt_number(run.id).expect("next"),
            numbers.len() as u32 + 1
        );
        // Only the last attempt may be unfinished, and only while the run is in agent_running.
        for (index, a) in history.attempts.iter().enumerate() {
            if a.attempt.finished_at.is_none() {
                assert_eq!(index + 1, history.attempts.len());
                assert_eq!(run.state, RunState::AgentRunning);
            }
        }
        all.extend(numbers.into_iter().map(|n| (run.id.0, n)));
    }
    all
}

/// Spawns this test binary as the writer.
fn spawn_writer(path: &Path, hang: bool) -> Child {
    let exe = std::env::current_exe().expect("test binary");
    let mut command = Command::new(exe);
    command
        .args([
            "state::crash_writer",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WRITER_ENV, path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if hang {
        command.env(HANG_ENV, "1");
    } else {
        command.env_remove(HANG_ENV);
    }
    command.spawn().expect("spawn the writer")
}

/// The `started RUN N` lines of a writer's output.
fn started(output: &str) -> BTreeSet<(i64, u32)> {
    output
        .lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix("started ")?.split(' ');
            Some((words.next()?.parse().ok()?, words.next()?.parse().ok()?))
        })
        .collect()
}

/// In writer mode, the writer process of the crash test; otherwise the same writer, bounded, in
/// process, followed by the invariants the crash test checks.
#[test]
fn crash_writer() {
    if let Some(path) = std::env::var_os(WRITER_ENV) {
        let path = Path::new(&path);
        let workspace = path.parent().expect("db dir").to_owned();
        write_runs(path, &workspace, None, std::env::var_os(HANG_ENV).is_some());
        return;
    }
    let (dir, path) = temp_db();
    write_runs(&path, dir.path(), Some(10), false);
    let db = StateDb::open(&path).expect("open");
    let attempts = check_invariants(&db);
    // Ten attempts at four per run: two exhausted runs and a third at attempt 2.
    assert_eq!(attempts.len(), 10);
    let runs = db.runs().expect("runs");
    let states: Vec<RunState> = runs.iter().map(|run| run.state).collect();
    assert_eq!(
        states,
        [
            RunState::RetryScheduled,
            RunState::Exhausted,
            RunState::Exhausted
        ]
    );
}

#[test]
fn kill_9_at_random_points_never_loses_or_repeats_an_attempt() {
    let (_dir, path) = temp_db();
    let mut rng = Rng::seeded();
    let seed = rng.0;
    let mut committed: BTreeSet<(i64, u32)> = BTreeSet::new();
    let mut orphan_pid = None;

    for round in 0..10 {
        // Round 3 kills the writer while a real agent runs in attempt N; round 4 must stop it.
        let hang = round == 3;
        let mut writer = spawn_writer(&path, hang);
        let stdout = writer.stdout.take().expect("stdout");
        let (lines, receive) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let mut output = String::new();
        // Wait for the first committed attempt (the agent, when hanging), so that every round
        // makes progress however slow the machine; then kill at a random point after it.
        let awaited = if hang { "agent " } else { "started " };
        loop {
            let line = receive
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("round {round}: the writer said nothing: {output}"));
            output.push_str(&line);
            output.push('\n');
            if let Some(pid) = line.strip_prefix("agent ") {
                orphan_pid = pid.parse::<i32>().ok();
            }
            if line.starts_with(awaited) {
                break;
            }
        }
        if !hang {
            std::thread::sleep(Duration::from_micros(rng.below(250_000)));
        }
        writer.kill().expect("kill -9");
        reader.join().expect("reader thread");
        for line in receive.try_iter() {
            output.push_str(&line);
            output.push('\n');
        }
        writer.wait().expect("reap the writer");

        let db = StateDb::open(&path).expect("reopen after kill -9");
        let attempts = check_invariants(&db);
        let printed = started(&output);
        assert!(
            printed.is_subset(&attempts),
            "round {round} (seed {seed}): attempts reported started are missing: {:?}",
            printed.difference(&attempts).collect::<Vec<_>>()
        );
        assert!(
            committed.is_subset(&attempts),
            "round {round} (seed {seed}): attempts lost"
        );
        assert!(
            attempts.len() > committed.len(),
            "round {round} (seed {seed}): the writer made no progress"
        );
        committed = attempts;
        let newest = db.runs().expect("runs").into_iter().next().expect("a run");
        eprintln!(
            "round {round}: killed in {} with {} attempts recorded",
            newest.state,
            committed.len()
        );

        if round == 4 {
            let pid = orphan_pid.expect("the orphaned agent's pid");
            assert!(!alive(pid), "the orphaned agent survived the resume");
            let interrupted: Vec<(i64, u32)> = db
                .runs()
                .expect("runs")
                .iter()
                .flat_map(|run| db.history(run.id).expect("history").attempts)
                .filter(|a| a.attempt.interrupted && a.attempt.pid == Some(pid))
                .map(|a| (a.attempt.run.0, a.attempt.number))
                .collect();
            assert_eq!(
                interrupted.len(),
                1,
                "the hung attempt is marked interrupted"
            );
        }
    }
    // Every run but the last is exhausted after exactly its four attempts.
    let db = StateDb::open(&path).expect("open");
    let runs = db.runs().expect("runs");
    let finished: HashSet<RunState> = runs.iter().skip(1).map(|run| run.state).collect();
    assert!(
        finished.iter().all(|state| *state == RunState::Exhausted),
        "{finished:?}"
    );
}
