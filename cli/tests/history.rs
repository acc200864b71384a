//! End-to-end tests of `verdict history [RUN]` and `verdict stats` (issue 4, item 7): the real
//! binary reading a state database built here with `verdict_core::state::StateDb` — four loop runs
//! whose figures are known (a pass on the second attempt, an exhausted run across two categories,
//! a pass on the first attempt, an escalation after the same lint failures twice) — checked figure
//! by figure in JSON and as reviewed snapshots of the human output; and the edges: no database, a
//! damaged one, a run that does not exist, a run id that is not a number.
//!
//! The database records real clock times, which would make durations differ from run to run; the
//! test rewrites every time in it to fixed values through SQLite itself, so that the agent time,
//! the durations and the dates in the snapshots are exact rather than filtered out.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use verdict_core::model::{Fingerprint, Outcome};
use verdict_core::state::{
    AttemptFinish, FailureRef, NewRun, NewVerification, RunId, RunState, StateDb,
};

/// 2026-11-22 07:00:00 UTC: every time in the database is laid out from here.
const T0: i64 = 1_795_330_800_000;

/// The workspace the runs name: not a path of the machine running the tests.
const WORKSPACE: &str = "/home/dev/shop";

/// What one `verdict` run did.
struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Out {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not JSON ({error}):\n{}\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// Runs `verdict ARGS -C DIR`.
fn verdict(dir: &Path, args: &[&str]) -> Out {
    let output = assert_cmd::cargo::cargo_bin_cmd!("verdict")
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(args)
        .arg("-C")
        .arg(dir)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("failed to run verdict");
    let out = Out {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    out
}

fn failure(fingerprint: u64, label: &str) -> FailureRef {
    FailureRef {
        fingerprint: Fingerprint(fingerprint),
        label: label.to_owned(),
    }
}

/// The failures the runs meet: a failing jest test, a tsc error, and seven eslint errors.
fn sum_test() -> FailureRef {
    failure(0x51, "jest sum › adds two numbers")
}

fn type_error() -> FailureRef {
    failure(0x72, "tsc TS2322 src/a.ts")
}

fn lint_errors() -> Vec<FailureRef> {
    (1..=7)
        .map(|i| failure(0x100 + i, &format!("eslint no-unused-vars src/util{i}.ts")))
        .collect()
}

/// A verification to record: outcome, category with its confidence, location, failures; each
/// takes ten seconds (a baseline five).
fn verified<'a>(
    outcome: Outcome,
    category: Option<&'a str>,
    location: Option<&'a str>,
    failures: &'a [FailureRef],
    seconds: u64,
) -> NewVerification<'a> {
    NewVerification {
        outcome,
        category,
        confidence: category.map(|_| 0.9),
        location,
        failures,
        flaky: &[],
        tests_run: Some(12),
        digest: "",
        duration: Duration::from_secs(seconds),
    }
}

/// One attempt: begin it, finish its session, verify it; then move the run to `then` (a retry or
/// a terminal state) unless the verification passed and `then` is `passed`.
fn attempt(
    db: &StateDb,
    run: RunId,
    agent: &str,
    changed: bool,
    tail: &str,
    verification: &NewVerification<'_>,
    then: RunState,
) {
    let number = db.next_attempt_number(run).expect("next number");
    let id = db
        .begin_attempt(run, number, agent, Some(1_000))
        .expect("begin the attempt");
    db.finish_attempt(
        id,
        &AttemptFinish {
            sessions: &[],
            session_outcome: "success",
            output_tail: tail,
            workspace_changed: changed,
        },
    )
    .expect("finish the attempt");
    db.transition(
        run,
        RunState::AgentRunning,
        RunState::Verifying,
        &format!("attempt {number}'s session ended: success"),
    )
    .expect("to verifying");
    db.record_verification(run, Some(id), verification)
        .expect("record the verification");
    let reason = match then {
        RunState::Passed => "every verifier passed".to_owned(),
        RunState::RetryScheduled => format!(
            "{}: retry with guidance",
            verification.category.unwrap_or("unknown")
        ),
        RunState::Exhausted => "3 attempts of 3 made, the last failed".to_owned(),
        RunState::Escalated => format!("attempt {number} ended with the same 7 failures"),
        other => other.as_str().to_owned(),
    };
    db.transition(run, RunState::Verifying, then, &reason)
        .expect("after the verification");
}

fn new_run<'a>(task: &'a str) -> NewRun<'a> {
    NewRun {
        task,
        workspace: Path::new(WORKSPACE),
        config: json!({ "agents": ["claude"] }),
        max_attempts: 3,
    }
}

/// Builds the four runs in `<dir>/.verdict/state.db`, then lays every time out from [`T0`]: run N
/// starts at T0 + N hours; attempt K starts 10 minutes × (K − 1) + 1 minute after its run and its
/// agent works K × 2 minutes; a transition or a verification happens one second per row id after
/// the start of the attempt it belongs to; a run finishes with its last transition.
fn build(dir: &Path) {
    let db = StateDb::open(&dir.join(".verdict/state.db")).expect("open the database");
    let none: &[FailureRef] = &[];

    // Run 1: the failing test, fixed on the second attempt.
    let run = db
        .create_run(&new_run(
            "Make the failing sum test pass\n\nThe sum of two numbers is off by one.",
        ))
        .expect("run 1");
    let sum = [sum_test()];
    let failing = verified(
        Outcome::Failed,
        Some("test_failure"),
        Some("src/sum.ts:3"),
        &sum,
        5,
    );
    db.record_verification(run, None, &failing)
        .expect("baseline");
    let failing = verified(
        Outcome::Failed,
        Some("test_failure"),
        Some("src/sum.ts:3"),
        &sum,
        10,
    );
    attempt(
        &db,
        run,
        "claude",
        true,
        "Edited src/sum.ts\nDone.",
        &failing,
        RunState::RetryScheduled,
    );
    attempt(
        &db,
        run,
        "claude",
        true,
        "Fixed the off-by-one in sum()",
        &verified(Outcome::Passed, None, None, none, 10),
        RunState::Passed,
    );

    // Run 2: a type error, then another, then a test failure: exhausted after three attempts.
    let run = db
        .create_run(&new_run("Fix the type error in src/a.ts"))
        .expect("run 2");
    let both = [type_error(), sum_test()];
    db.record_verification(
        run,
        None,
        &verified(
            Outcome::Failed,
            Some("code_error"),
            Some("src/a.ts:7"),
            &both,
            5,
        ),
    )
    .expect("baseline");
    attempt(
        &db,
        run,
        "codex",
        true,
        "",
        &verified(
            Outcome::Failed,
            Some("code_error"),
            Some("src/a.ts:7"),
            &both,
            10,
        ),
        RunState::RetryScheduled,
    );
    let types = [type_error()];
    attempt(
        &db,
        run,
        "codex",
        true,
        "",
        &verified(
            Outcome::Failed,
            Some("code_error"),
            Some("src/a.ts:9"),
            &types,
            10,
        ),
        RunState::RetryScheduled,
    );
    attempt(
        &db,
        run,
        "claude",
        true,
        "",
        &verified(
            Outcome::Failed,
            Some("test_failure"),
            Some("src/sum.ts:3"),
            &sum,
            10,
        ),
        RunState::Exhausted,
    );

    // Run 3: a long task, passed at once, with no baseline.
    let run = db
        .create_run(&new_run(
            "Add a --dry-run flag to the deploy script that prints every command it would run \
             instead of running it",
        ))
        .expect("run 3");
    attempt(
        &db,
        run,
        "aider",
        true,
        "",
        &verified(Outcome::Passed, None, None, none, 10),
        RunState::Passed,
    );

    // Run 4: seven lint errors, then the same seven with nothing changed: escalated.
    let run = db
        .create_run(&new_run("Clean up the utilities"))
        .expect("run 4");
    let lint = lint_errors();
    db.record_verification(
        run,
        None,
        &verified(
            Outcome::Failed,
            Some("lint"),
            Some("src/util1.ts:2"),
            &lint,
            5,
        ),
    )
    .expect("baseline");
    let tail = (1..=8)
        .map(|i| format!("agent line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    let lint_failed = verified(
        Outcome::Failed,
        Some("lint"),
        Some("src/util1.ts:2"),
        &lint,
        10,
    );
    attempt(
        &db,
        run,
        "claude",
        true,
        &tail,
        &lint_failed,
        RunState::RetryScheduled,
    );
    attempt(
        &db,
        run,
        "claude",
        false,
        "I could not find anything to change.",
        &lint_failed,
        RunState::Escalated,
    );
    drop(db);

    let conn = rusqlite::Connection::open(dir.join(".verdict/state.db")).expect("open");
    conn.execute_batch(&format!(
        "BEGIN;
         UPDATE runs SET created_at = {T0} + id * 3600000;
         UPDATE attempts SET
             started_at = (SELECT created_at FROM runs WHERE runs.id = run_id)
                 + (number - 1) * 600000 + 60000;
         UPDATE attempts SET finished_at = started_at + number * 120000
             WHERE finished_at IS NOT NULL;
         UPDATE transitions SET at = COALESCE(
             (SELECT a.started_at FROM attempts a
                 WHERE a.run_id = transitions.run_id AND a.number = transitions.attempt),
             (SELECT created_at FROM runs WHERE runs.id = run_id)) + id * 1000;
         UPDATE verifications SET recorded_at = COALESCE(
             (SELECT a.started_at FROM attempts a WHERE a.id = attempt_id),
             (SELECT created_at FROM runs WHERE runs.id = run_id)) + id * 1000;
         UPDATE runs SET finished_at =
             (SELECT MAX(at) FROM transitions WHERE transitions.run_id = runs.id)
             WHERE finished_at IS NOT NULL;
         COMMIT;"
    ))
    .expect("lay the times out");
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    build(dir.path());
    dir
}

#[test]
fn stats_json_has_the_exact_figures() {
    let dir = project();
    let out = verdict(dir.path(), &["stats", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let stats = out.json();
    assert_eq!(stats["runs"], 4);
    assert_eq!(stats["finished"], 4);
    assert_eq!(
        stats["by_state"],
        json!({ "passed": 2, "exhausted": 1, "escalated": 1 })
    );
    assert_eq!(stats["success_rate"], 0.5);
    // Failed attempt verifications (baselines not counted): code_error twice in run 2;
    // test_failure in run 1 (which passed) and run 2; lint twice in run 4.
    assert_eq!(
        stats["by_category"],
        json!([
            { "category": "code_error", "failures": 2, "runs": 1, "passed": 0, "success_rate": 0.0 },
            { "category": "lint", "failures": 2, "runs": 1, "passed": 0, "success_rate": 0.0 },
            { "category": "test_failure", "failures": 2, "runs": 2, "passed": 1, "success_rate": 0.5 },
        ])
    );
    // Runs 1 and 3 passed, after 2 and 1 attempts.
    assert_eq!(
        stats["attempts_to_success"],
        json!({ "runs": 2, "mean": 1.5, "median": 1.5 })
    );
    let common = stats["common_failures"].as_array().expect("an array");
    assert_eq!(common.len(), 9, "{common:#?}");
    assert_eq!(
        common[0],
        json!({ "fingerprint": "0000000000000051", "label": "jest sum › adds two numbers", "occurrences": 3, "runs": 2 })
    );
    assert_eq!(common[1]["label"], "eslint no-unused-vars src/util1.ts");
    assert_eq!(
        (
            common[1]["occurrences"].as_u64(),
            common[1]["runs"].as_u64()
        ),
        (Some(2), Some(1))
    );
    assert_eq!(
        common[8],
        json!({ "fingerprint": "0000000000000072", "label": "tsc TS2322 src/a.ts", "occurrences": 2, "runs": 1 })
    );
    // 8 attempts; attempt K's agent works K × 2 minutes: (1+2) + (1+2+3) + 1 + (1+2) = 13 units.
    assert_eq!(stats["attempts"], 8);
    assert_eq!(stats["agent_ms"], 13 * 120_000);
    // Three 5 s baselines and eight 10 s verifications.
    assert_eq!(stats["verification_ms"], 3 * 5_000 + 8 * 10_000);
}

#[test]
fn stats_human() {
    let dir = project();
    let out = verdict(dir.path(), &["stats"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("stats", out.stdout);
}

#[test]
fn history_lists_runs_newest_first() {
    let dir = project();
    let out = verdict(dir.path(), &["history", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let runs = out.json();
    let runs = runs["runs"].as_array().expect("{ runs: [...] }");
    let ids: Vec<i64> = runs.iter().filter_map(|r| r["id"].as_i64()).collect();
    assert_eq!(ids, [4, 3, 2, 1]);
    assert_eq!(runs[0]["state"], "escalated");
    assert_eq!(runs[0]["workspace"], WORKSPACE);
    assert_eq!(runs[3]["created_at"], T0 + 3_600_000);
    assert_eq!(
        runs[3]["task"],
        "Make the failing sum test pass\n\nThe sum of two numbers is off by one."
    );

    let out = verdict(dir.path(), &["history"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("history_list", out.stdout);
}

#[test]
fn history_of_one_run() {
    let dir = project();
    let out = verdict(dir.path(), &["history", "2", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let history = out.json();
    assert_eq!(history["run"]["id"], 2);
    assert_eq!(history["run"]["final_outcome"], "exhausted");
    assert_eq!(history["baseline"]["category"], "code_error");
    let attempts = history["attempts"].as_array().expect("attempts");
    let agents: Vec<&str> = attempts
        .iter()
        .filter_map(|a| a["agent"].as_str())
        .collect();
    assert_eq!(agents, ["codex", "codex", "claude"]);
    let categories: Vec<&str> = attempts
        .iter()
        .filter_map(|a| a["verification"]["category"].as_str())
        .collect();
    assert_eq!(categories, ["code_error", "code_error", "test_failure"]);
    let moves: Vec<String> = history["transitions"]
        .as_array()
        .expect("transitions")
        .iter()
        .map(|t| {
            format!(
                "{}>{}",
                t["from"].as_str().unwrap_or("?"),
                t["to"].as_str().unwrap_or("?")
            )
        })
        .collect();
    assert_eq!(
        moves,
        [
            "pending>agent_running",
            "agent_running>verifying",
            "verifying>retry_scheduled",
            "retry_scheduled>agent_running",
            "agent_running>verifying",
            "verifying>retry_scheduled",
            "retry_scheduled>agent_running",
            "agent_running>verifying",
            "verifying>exhausted",
        ]
    );

    // Run 4: seven failures shown as five and "and 2 more", the agent's last five lines, a no-op.
    let out = verdict(dir.path(), &["history", "4"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("  and 2 more\n"), "{}", out.stdout);
    assert!(!out.stdout.contains("agent line 3"), "{}", out.stdout);
    assert!(out.stdout.contains("| agent line 8"), "{}", out.stdout);
    insta::assert_snapshot!("history_run_4", out.stdout);

    let out = verdict(dir.path(), &["history", "1"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    insta::assert_snapshot!("history_run_1", out.stdout);
}

#[test]
fn no_database_is_an_empty_history() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join(".verdict").join("state.db");
    let message = format!("no loop runs recorded in {}\n", db.display());
    for command in ["history", "stats"] {
        let out = verdict(dir.path(), &[command]);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (0, message.as_str()),
            "{}",
            out.stderr
        );
    }
    let out = verdict(dir.path(), &["history", "--format", "json"]);
    assert_eq!((out.code, out.json()), (0, json!({ "runs": [] })));
    let out = verdict(dir.path(), &["stats", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        (
            out.json()["runs"].as_u64(),
            out.json()["success_rate"].is_null()
        ),
        (Some(0), true)
    );
    let out = verdict(dir.path(), &["history", "3"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no run 3"), "{}", out.stderr);
    // Reading never creates the database.
    assert!(!dir.path().join(".verdict").exists());
}

#[test]
fn a_run_that_does_not_exist_exits_2() {
    let dir = project();
    let out = verdict(dir.path(), &["history", "999"]);
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "verdict: error: no run 999 (`verdict history` lists the runs)\n"
    );
}

#[test]
fn a_run_id_that_is_not_a_number_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("a temp dir");
    for bad in ["abc", "0", "1.5"] {
        let out = verdict(dir.path(), &["history", bad]);
        assert_eq!(out.code, 2, "{bad}");
        assert!(
            out.stderr
                .contains(&format!("invalid value '{bad}' for '[RUN]'")),
            "{bad}: {}",
            out.stderr
        );
    }
}

#[test]
fn a_damaged_database_exits_2_with_the_error() {
    let dir = tempfile::tempdir().expect("a temp dir");
    std::fs::create_dir(dir.path().join(".verdict")).expect("mkdir");
    let db = dir.path().join(".verdict").join("state.db");
    std::fs::write(&db, vec![0x5a; 8192]).expect("write garbage");
    for command in ["history", "stats"] {
        let out = verdict(dir.path(), &[command]);
        assert_eq!(out.code, 2, "{command}: {}", out.stdout);
        assert!(
            out.stderr.starts_with(&format!(
                "verdict: error: failed to read {}: state database: file is not a database",
                db.display()
            )),
            "{command}: {}",
            out.stderr
        );
    }
}
