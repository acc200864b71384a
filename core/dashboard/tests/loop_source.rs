//! `LoopSource` over real state databases written through `StateDb`'s own API, as the loop's
//! driver writes them: the run states the page shows, a run's timeline, redaction of every
//! text, the watermark, and the actions it refuses with what to run instead.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use verdict_core::agent_loop::agent::{RetryAction, SessionOutcome};
use verdict_core::agent_loop::driver::Event;
use verdict_core::agent_loop::driver::events::{AgentRetry, ScheduledRecord};
use verdict_core::model::{Fingerprint, Outcome};
use verdict_core::state::{
    AttemptFinish, AttemptId, FailureRef, NewRun, NewVerification, RunId, RunState, StateDb,
};
use verdict_dashboard::render::{self, Chrome};
use verdict_dashboard::source::LoopSource;
use verdict_dashboard::view::{Action, Kind, QueueQuery, State, Target};
use verdict_dashboard::{DashboardError, Source};

/// A GitHub token shape verdict's redaction knows.
const SECRET: &str = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

/// A workspace with a state database, and a connection that writes it as the loop does.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    path: PathBuf,
    db: StateDb,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().to_path_buf();
        let path = root.join(".verdict").join("state.db");
        let db = StateDb::open(&path).expect("open the state database");
        Fixture {
            _dir: dir,
            root,
            path,
            db,
        }
    }

    fn source(&self) -> LoopSource {
        LoopSource::new(self.path.clone())
    }

    fn run(&self, task: &str, agent: &str) -> RunId {
        self.db
            .create_run(&NewRun {
                task,
                workspace: &self.root,
                config: serde_json::json!({
                    "agents": [agent],
                    "settings": settings(None),
                }),
                max_attempts: 3,
            })
            .expect("create run")
    }

    /// Starts the next attempt of `run` with its agent's process recorded.
    fn start(&self, run: RunId, agent: &str, pid: i32) -> AttemptId {
        let number = self.db.next_attempt_number(run).expect("next number");
        let id = self
            .db
            .begin_attempt(run, number, agent, Some(100))
            .expect("begin attempt");
        self.db
            .record_agent_process(id, pid, pid, 7)
            .expect("record the process");
        id
    }

    /// Ends the running attempt's agent and moves the run to `verifying`.
    fn agent_done(&self, run: RunId, attempt: AttemptId) {
        self.db
            .finish_attempt(
                attempt,
                &AttemptFinish {
                    sessions: &[],
                    session_outcome: "success",
                    output_tail: "done",
                    workspace_changed: true,
                },
            )
            .expect("finish attempt");
        self.db
            .transition(
                run,
                RunState::AgentRunning,
                RunState::Verifying,
                "agent finished",
            )
            .expect("to verifying");
    }

    /// A whole attempt verified with `outcome`, `digest` and `failures`; the run stays verifying.
    fn verified(
        &self,
        run: RunId,
        agent: &str,
        outcome: Outcome,
        category: Option<&str>,
        failures: &[FailureRef],
        digest: &str,
    ) -> AttemptId {
        let attempt = self.start(run, agent, 4242);
        self.agent_done(run, attempt);
        self.db
            .record_verification(
                run,
                Some(attempt),
                &NewVerification {
                    outcome,
                    category,
                    confidence: category.map(|_| 0.9),
                    location: None,
                    failures,
                    flaky: &[],
                    tests_run: Some(4),
                    digest,
                    duration: Duration::from_millis(250),
                },
            )
            .expect("record the verification");
        attempt
    }

    /// Schedules the next attempt as the driver does: the move and its event in one commit.
    fn schedule(&self, run: RunId, scheduled: ScheduledRecord, reason: &str) {
        let payload = Value::Object(Event::RetryScheduled(scheduled).fields());
        self.db
            .write(|batch| {
                batch.transition(run, RunState::Verifying, RunState::RetryScheduled, reason)?;
                batch.record_event(Some(run), "retry_scheduled", &payload)
            })
            .expect("schedule a retry");
    }

    /// A run that failed once and ended in `end` (a terminal state reachable from verifying).
    fn failed_run(&self, task: &str, end: RunState, reason: &str) -> RunId {
        let run = self.run(task, "claude");
        self.verified(
            run,
            "claude",
            Outcome::Failed,
            Some("test_failure"),
            &[],
            "",
        );
        self.db
            .transition(run, RunState::Verifying, end, reason)
            .expect("end the run");
        run
    }
}

fn settings(guidance: Option<&str>) -> Value {
    serde_json::json!({
        "agents": [], "max_attempts": 3, "reset": false, "guidance": guidance,
        "new_failures_only": false, "allow_infra_edits": false, "budget": null, "only": [],
        "agent_timeout": null, "max_agent_retries": null, "baseline": true,
    })
}

fn failure(test: &str) -> FailureRef {
    FailureRef {
        fingerprint: Fingerprint::compute("jest", None, Some("src/sum.test.ts"), Some(test), "x"),
        label: format!("jest sum › {test}"),
    }
}

fn all(search: Option<&str>, state: Option<State>) -> QueueQuery {
    QueueQuery {
        state,
        search: search.map(str::to_owned),
        per_page: 100,
        ..QueueQuery::default()
    }
}

/// Runs of a workspace, one in each state the loop has (two retries: one with its delay
/// recorded, one without).
struct Runs {
    pending: RunId,
    running: RunId,
    verifying: RunId,
    scheduled: RunId,
    untimed: RunId,
    interrupted: RunId,
    passed: RunId,
    escalated: RunId,
    exhausted: RunId,
    blocked: RunId,
    session: RunId,
    /// The scheduled retry's delay.
    delay_ms: u64,
}

fn every_state(f: &Fixture) -> Runs {
    let pending = f.run("pending task", "claude");
    let running = f.run("running task", "claude");
    f.start(running, "claude", 5151);
    let verifying = f.run("verifying task", "codex");
    let verifying_attempt = f.start(verifying, "codex", 6161);
    f.agent_done(verifying, verifying_attempt);
    let scheduled = f.run("scheduled task", "claude");
    f.verified(
        scheduled,
        "claude",
        Outcome::Failed,
        Some("type_error"),
        &[],
        "digest",
    );
    let delay_ms = 90_000;
    f.schedule(
        scheduled,
        ScheduledRecord {
            next: 2,
            delay_ms,
            ..ScheduledRecord::default()
        },
        "attempt 1 failed: 1 type error",
    );
    let untimed = f.run("untimed retry task", "claude");
    f.verified(untimed, "claude", Outcome::Failed, None, &[], "");
    f.db.transition(
        untimed,
        RunState::Verifying,
        RunState::RetryScheduled,
        "attempt 1 failed",
    )
    .expect("retry without an event");
    let interrupted = f.run("interrupted task", "claude");
    f.db.transition(
        interrupted,
        RunState::Pending,
        RunState::Interrupted,
        "ctrl-c",
    )
    .expect("interrupt");
    let passed = f.run("passed task", "claude");
    f.verified(passed, "claude", Outcome::Passed, None, &[], "");
    f.db.transition(
        passed,
        RunState::Verifying,
        RunState::Passed,
        "verified green",
    )
    .expect("pass");
    let escalated = f.failed_run("escalated task", RunState::Escalated, "same failure twice");
    let exhausted = f.failed_run("exhausted task", RunState::Exhausted, "3 attempts spent");
    let blocked = f.failed_run("blocked task", RunState::Blocked, "infra edit");
    let session = f.run("session task", "claude");
    let session_attempt = f.start(session, "claude", 7171);
    f.db.finish_attempt(
        session_attempt,
        &AttemptFinish {
            sessions: &[],
            session_outcome: "timeout",
            output_tail: "",
            workspace_changed: false,
        },
    )
    .expect("finish");
    f.db.transition(
        session,
        RunState::AgentRunning,
        RunState::SessionFailed,
        "timed out",
    )
    .expect("session failed");

    Runs {
        pending,
        running,
        verifying,
        scheduled,
        untimed,
        interrupted,
        passed,
        escalated,
        exhausted,
        blocked,
        session,
        delay_ms,
    }
}

/// Every state of the loop lands in the page's state, with its worker, time or reason.
#[tokio::test]
async fn every_run_state_maps_onto_the_page() {
    let f = Fixture::new();
    let Runs {
        pending,
        running,
        verifying,
        scheduled,
        untimed,
        interrupted,
        passed,
        escalated,
        exhausted,
        blocked,
        session,
        delay_ms,
    } = every_state(&f);
    let view = f.source().queue(&all(None, None)).await.expect("queue");
    let row = |run: RunId| {
        view.rows
            .iter()
            .find(|row| row.id == run.to_string())
            .unwrap_or_else(|| panic!("run {run} is listed"))
    };
    assert_eq!(view.total, 11);
    assert_eq!(row(pending).state, State::Pending);
    assert_eq!(row(running).state, State::Running);
    assert_eq!(
        row(running).worker.as_ref().map(|w| w.as_str()),
        Some("pid 5151")
    );
    let started = f.db.history(running).expect("history").attempts[0]
        .attempt
        .started_at;
    assert_eq!(row(running).running_since, Some(started));
    assert_eq!(row(verifying).state, State::Running);
    assert_eq!(row(verifying).agent.as_str(), "codex");
    assert!(
        row(verifying)
            .reason
            .as_ref()
            .is_some_and(|r| r.as_str().starts_with("verifying"))
    );
    assert_eq!(row(scheduled).state, State::RetryScheduled);
    let event_at = f.db.events(scheduled).expect("events")[0].at;
    assert_eq!(
        row(scheduled).next_retry_at,
        Some(event_at + delay_ms as i64)
    );
    assert_eq!(row(scheduled).category.as_deref(), Some("type_error"));
    assert_eq!(row(untimed).state, State::RetryScheduled);
    assert_eq!(
        row(untimed).next_retry_at,
        None,
        "no recorded delay, no invented time"
    );
    assert!(
        row(untimed)
            .reason
            .as_ref()
            .is_some_and(|r| r.as_str().starts_with("retry scheduled"))
    );
    assert_eq!(row(interrupted).state, State::Interrupted);
    assert_eq!(row(passed).state, State::Passed);
    assert_eq!(row(escalated).state, State::Escalated);
    for (run, name) in [
        (exhausted, "exhausted"),
        (blocked, "blocked"),
        (session, "session_failed"),
    ] {
        assert_eq!(row(run).state, State::Failed, "{name}");
        let reason = row(run).reason.as_ref().map(|r| r.as_str().to_owned());
        assert!(
            reason
                .as_deref()
                .is_some_and(|r| r.starts_with(&format!("{name}: "))),
            "{reason:?}"
        );
    }
    let count = |state: State| {
        view.counts
            .iter()
            .find(|(s, _)| *s == state)
            .map(|(_, n)| *n)
    };
    assert_eq!(view.counts.len(), State::ALL.len());
    assert_eq!(count(State::Running), Some(2));
    assert_eq!(count(State::Failed), Some(3));
    assert_eq!(count(State::RetryScheduled), Some(2));
    assert_eq!(count(State::Cancelled), Some(0));
    assert_eq!(view.agents, vec!["claude".to_owned(), "codex".to_owned()]);
}

/// The queue's filters (state, agent, search, campaign, pages) and `/metrics` over the runs.
#[tokio::test]
async fn filters_and_metrics_over_every_state() {
    let f = Fixture::new();
    let Runs { escalated, .. } = every_state(&f);
    // Filters: by state, by agent, by search; a campaign matches no loop run.
    let failed = f
        .source()
        .queue(&all(None, Some(State::Failed)))
        .await
        .expect("queue");
    assert_eq!(failed.total, 3);
    let query = QueueQuery {
        agent: Some("codex".into()),
        ..all(None, None)
    };
    assert_eq!(f.source().queue(&query).await.expect("queue").total, 1);
    let found = f
        .source()
        .queue(&all(Some("ESCALATED"), None))
        .await
        .expect("queue");
    assert_eq!(
        found.rows.iter().map(|r| r.id.clone()).collect::<Vec<_>>(),
        vec![escalated.to_string()]
    );
    let query = QueueQuery {
        campaign: Some("any".into()),
        ..all(None, None)
    };
    assert_eq!(f.source().queue(&query).await.expect("queue").total, 0);
    let paged = QueueQuery {
        per_page: 4,
        page: 2,
        ..all(None, None)
    };
    assert_eq!(f.source().queue(&paged).await.expect("queue").rows.len(), 3);

    let metrics = f.source().metrics().await.expect("metrics");
    assert!(metrics.oldest_due_ms.is_some(), "the pending run is due");
    let outcome = |name: &str| {
        metrics
            .attempts_by_outcome
            .iter()
            .find(|(o, _)| o == name)
            .map(|(_, n)| *n)
    };
    assert_eq!(outcome("escalated"), Some(1));
    assert_eq!(outcome("timeout"), Some(1));
    assert_eq!(outcome("passed"), Some(1));
}

/// A run's page: attempts with their verification, the digest the next prompt carried, the
/// delay and guidance of the retry, and its transitions in order.
#[tokio::test]
async fn a_runs_timeline_shows_attempts_digests_guidance_and_transitions() {
    let f = Fixture::new();
    let run = f.run("make the sum tests pass\nsecond line of the task", "claude");
    f.db.write(|batch| {
        batch.update_run_config(
            run,
            &serde_json::json!({"settings": settings(Some("use integers"))}),
            3,
        )
    })
    .expect("record the guidance");
    let failures = [failure("adds"), failure("subtracts")];
    f.verified(
        run,
        "claude",
        Outcome::Failed,
        Some("test_failure"),
        &failures,
        "2 tests fail: adds, subtracts",
    );
    f.schedule(
        run,
        ScheduledRecord {
            next: 2,
            delay_ms: 1500,
            guidance: "read the failing assertion first".into(),
            human: Some("the bug is in sum.ts".into()),
            ..ScheduledRecord::default()
        },
        "attempt 1 failed: 2 tests",
    );
    f.db.transition(
        run,
        RunState::RetryScheduled,
        RunState::Interrupted,
        "stopped",
    )
    .expect("interrupt");
    f.verified(run, "codex", Outcome::Passed, None, &[], "all green");
    f.db.transition(
        run,
        RunState::Verifying,
        RunState::Passed,
        "attempt 2 verified green",
    )
    .expect("pass");

    let view = f
        .source()
        .task(&run.to_string())
        .await
        .expect("task")
        .expect("the run exists");
    assert_eq!(view.row.title.as_str(), "make the sum tests pass");
    assert_eq!(view.row.state, State::Passed);
    assert_eq!(view.row.attempts, 2);
    assert_eq!(view.row.agent.as_str(), "codex");
    assert!(view.text.as_str().contains("second line"));
    assert_eq!(
        view.guidance.as_ref().map(|g| g.as_str()),
        Some("use integers")
    );
    assert!(!view.can_retry);
    assert_eq!(view.attempts.len(), 2);
    let first = &view.attempts[0];
    assert_eq!(first.outcome.as_deref(), Some("failed"));
    assert_eq!(first.category.as_deref(), Some("test_failure"));
    assert_eq!(
        first.digest.as_ref().map(|d| d.as_str()),
        Some("2 tests fail: adds, subtracts")
    );
    assert_eq!(
        first
            .fingerprints
            .iter()
            .map(|f| f.as_str())
            .collect::<Vec<_>>(),
        ["jest sum › adds", "jest sum › subtracts"]
    );
    assert_eq!(first.retry_delay_ms, Some(1500));
    assert_eq!(first.verify_ms, 250);
    assert_eq!(first.worker.as_ref().map(|w| w.as_str()), Some("pid 4242"));
    let second = &view.attempts[1];
    assert_eq!(second.outcome.as_deref(), Some("passed"));
    assert_eq!(second.agent.as_ref().map(|a| a.as_str()), Some("codex"));
    assert_eq!(second.retry_delay_ms, None);
    assert_eq!(
        second.digest, None,
        "no next prompt carries a pass's digest"
    );
    assert_eq!(view.row.category, None, "no failure category beside a pass");
    let actions: Vec<&str> = view.history.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        [
            "agent_running",
            "verifying",
            "retry_scheduled",
            "guidance",
            "advice",
            "interrupted",
            "agent_running",
            "verifying",
            "passed"
        ]
    );
    let guidance = &view.history[3];
    assert!(
        guidance
            .detail
            .as_ref()
            .is_some_and(|d| d.as_str().contains("the bug is in sum.ts"))
    );
    assert!(view.history.windows(2).all(|w| w[0].at <= w[1].at));

    assert!(f.source().task("999").await.expect("task").is_none());
    assert!(
        f.source()
            .task("not a number")
            .await
            .expect("task")
            .is_none()
    );
}

/// A secret in a task, a digest, a failure, a reason, guidance or an agent's name never reaches
/// a view.
#[tokio::test]
async fn a_secret_in_the_database_never_reaches_a_view() {
    let f = Fixture::new();
    let run = f.run(
        &format!("deploy with {SECRET}"),
        &format!("agent --token {SECRET}"),
    );
    let failures = [FailureRef {
        fingerprint: Fingerprint::compute("jest", None, None, Some("auth"), "x"),
        label: format!("jest auth › token {SECRET}"),
    }];
    let digest = format!("expected header Authorization: token {SECRET}");
    f.verified(
        run,
        &format!("agent --token {SECRET}"),
        Outcome::Failed,
        Some("test_failure"),
        &failures,
        &digest,
    );
    f.schedule(
        run,
        ScheduledRecord {
            next: 2,
            delay_ms: 10,
            guidance: format!("do not print {SECRET}"),
            human: Some(format!("use {SECRET}")),
            ..ScheduledRecord::default()
        },
        &format!("attempt 1 failed: {SECRET}"),
    );
    // The agent asked for ten minutes after a rate limit: it is held, under its redacted name.
    let retry = Event::AgentRetry(AgentRetry {
        retry: 1,
        agent: format!("agent --token {SECRET}"),
        outcome: SessionOutcome::RateLimited {
            retry_after: Some(Duration::from_secs(600)),
        },
        action: RetryAction::RetrySame,
        next_agent: format!("agent --token {SECRET}"),
        delay_ms: 1000,
        all_limited: true,
    });
    f.db.record_event(Some(run), "agent_retry", &Value::Object(retry.fields()))
        .expect("record the pool's retry");
    let source = f.source();
    let metrics = source.metrics().await.expect("metrics");
    assert_eq!(metrics.held.len(), 1, "{:?}", metrics.held);
    let until = metrics.held[0].until - verdict_core::state::now_ms();
    assert!(
        (590_000..=600_000).contains(&until),
        "held for {until} ms more"
    );
    let id = run.to_string();
    let task = source
        .task(&id)
        .await
        .expect("task")
        .expect("the run exists");
    assert!(
        task.attempts[0].digest.is_some(),
        "the digest is shown, redacted"
    );
    let queue = source.queue(&all(None, None)).await.expect("queue");
    let analytics = source.analytics().await.expect("analytics");
    let chrome = Chrome {
        source: source.describe(),
        kind: Kind::Loop,
        now: verdict_core::state::now_ms(),
        watermark: source.watermark().await.expect("watermark"),
        actions: false,
        csrf: String::new(),
        flash: None,
        held: metrics.held.clone(),
    };
    let texts = [
        serde_json::to_string(&queue).expect("serializes"),
        serde_json::to_string(&task).expect("serializes"),
        serde_json::to_string(&analytics).expect("serializes"),
        serde_json::to_string(&metrics).expect("serializes"),
        render::queue_page(&chrome, &all(None, None), &queue).into_string(),
        render::task_page(&chrome, &task).into_string(),
        render::analytics_page(&chrome, &analytics).into_string(),
    ];
    for text in texts {
        assert!(!text.contains(SECRET), "a secret reached a view: {text}");
        assert!(
            !text.contains("ghp_0123"),
            "part of a secret reached a view: {text}"
        );
        assert!(
            text.contains("[redacted"),
            "the redacted text is there: {text}"
        );
    }
    // The search looks in redacted text: the secret finds nothing.
    let found = source.queue(&all(Some(SECRET), None)).await.expect("queue");
    assert_eq!(found.total, 0);
}

/// The watermark changes after a transition another connection commits, and only then.
#[tokio::test]
async fn the_watermark_changes_with_a_transition_and_not_without() {
    let f = Fixture::new();
    let run = f.run("a task", "claude");
    let source = f.source();
    let first = source.watermark().await.expect("watermark");
    assert_eq!(source.watermark().await.expect("watermark"), first);
    // Reads change nothing.
    source.queue(&all(None, None)).await.expect("queue");
    source.task(&run.to_string()).await.expect("task");
    assert_eq!(source.watermark().await.expect("watermark"), first);

    f.db.transition(run, RunState::Pending, RunState::Interrupted, "stopped")
        .expect("transition");
    let second = source.watermark().await.expect("watermark");
    assert_ne!(second, first);
    assert_eq!(source.watermark().await.expect("watermark"), second);
    // The queue read after the commit sees it, not a cached snapshot.
    let view = source.queue(&all(None, None)).await.expect("queue");
    assert_eq!(view.rows[0].state, State::Interrupted);

    // Recording the agent's process (an update, not an insert) changes it too.
    let attempt = f.db.begin_attempt(run, 1, "claude", None).expect("begin");
    let third = source.watermark().await.expect("watermark");
    assert_ne!(third, second);
    f.db.record_agent_process(attempt, 42, 42, 1)
        .expect("process");
    assert_ne!(source.watermark().await.expect("watermark"), third);

    // A fresh source (a restarted server) says the same of the same database.
    let now = source.watermark().await.expect("watermark");
    assert_eq!(f.source().watermark().await.expect("watermark"), now);
}

/// A workspace where no loop ran: no runs, and no database left behind.
#[tokio::test]
async fn a_missing_database_shows_no_runs_and_is_not_created() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(".verdict").join("state.db");
    let source = LoopSource::new(path.clone());
    let view = source.queue(&all(None, None)).await.expect("queue");
    assert_eq!(view.total, 0);
    assert!(view.counts.iter().all(|(_, n)| *n == 0));
    assert_eq!(source.analytics().await.expect("analytics").tasks, 0);
    assert!(source.task("1").await.expect("task").is_none());
    let before = source.watermark().await.expect("watermark");
    assert!(!path.exists(), "the dashboard created {}", path.display());

    // A loop that starts later is seen without a restart.
    let db = StateDb::open(&path).expect("open");
    db.create_run(&NewRun {
        task: "later",
        workspace: dir.path(),
        config: serde_json::json!({}),
        max_attempts: 1,
    })
    .expect("create run");
    assert_ne!(source.watermark().await.expect("watermark"), before);
    assert_eq!(
        source.queue(&all(None, None)).await.expect("queue").total,
        1
    );
}

/// Failures by category and fingerprint, and success per agent, counted from the runs.
#[tokio::test]
async fn analytics_count_categories_fingerprints_and_agents() {
    let f = Fixture::new();
    let adds = [failure("adds")];
    // Run 1: fails on `adds` twice, then passes; run 2: fails on `adds`, escalated unfixed.
    let fixed = f.run("fixed", "claude");
    for next in [2, 3] {
        f.verified(
            fixed,
            "claude",
            Outcome::Failed,
            Some("test_failure"),
            &adds,
            "d",
        );
        f.schedule(
            fixed,
            ScheduledRecord {
                next,
                ..ScheduledRecord::default()
            },
            "failed",
        );
    }
    f.verified(fixed, "codex", Outcome::Passed, None, &[], "");
    f.db.transition(fixed, RunState::Verifying, RunState::Passed, "green")
        .expect("pass");
    let stuck = f.run("stuck", "claude");
    f.verified(
        stuck,
        "claude",
        Outcome::Failed,
        Some("type_error"),
        &adds,
        "d",
    );
    f.db.transition(
        stuck,
        RunState::Verifying,
        RunState::Escalated,
        "same failure",
    )
    .expect("escalate");

    let view = f.source().analytics().await.expect("analytics");
    assert_eq!((view.tasks, view.finished, view.attempts), (2, 2, 4));
    assert_eq!(view.success_rate, Some(0.5));
    assert_eq!(view.attempts_to_success, Some(3.0));
    let categories: Vec<(&str, u64, u64)> = view
        .by_category
        .iter()
        .map(|g| (g.name.as_str(), g.attempts, g.tasks))
        .collect();
    assert_eq!(categories, [("test_failure", 2, 1), ("type_error", 1, 1)]);
    assert_eq!(view.fingerprints.len(), 1);
    let print = &view.fingerprints[0];
    assert_eq!(print.text.as_str(), "jest sum › adds");
    assert_eq!((print.occurrences, print.tasks, print.unfixed), (3, 2, 1));
    let claude = view
        .by_agent
        .iter()
        .find(|g| g.name == "claude")
        .expect("claude");
    assert_eq!((claude.attempts, claude.tasks, claude.passed), (3, 2, 1));
    let codex = view
        .by_agent
        .iter()
        .find(|g| g.name == "codex")
        .expect("codex");
    assert_eq!(
        (codex.attempts, codex.tasks, codex.success_rate),
        (1, 1, Some(1.0))
    );
    assert!(view.by_campaign.is_empty());
    assert_eq!(view.verify_ms, 4 * 250);
}

/// The page's actions are refused with the `verdict loop` command that does it instead.
#[tokio::test]
async fn actions_are_refused_with_what_to_run_instead() {
    let f = Fixture::new();
    let source = f.source();
    let root = f.root.display().to_string();
    let cases = [
        (
            Action::Retry {
                task: "3".into(),
                guidance: "g".into(),
            },
            "--guide",
        ),
        (Action::Cancel(Target::Task("3".into())), "Ctrl-C"),
        (Action::Pause(Target::Agent("claude".into())), "Ctrl-C"),
        (Action::Resume(Target::Task("3".into())), "--resume"),
    ];
    for (action, expected) in cases {
        match source.act(&action).await {
            Err(DashboardError::Unsupported(message)) => {
                assert!(message.contains(expected), "{message}");
                assert!(message.contains(&root), "{message}");
            }
            other => panic!("{action:?} was not refused: {other:?}"),
        }
    }
}
