//! The retry loop's driver in process: agents that are Rust closures and a verification that reads
//! the workspace, so that the driver's own rules — what a resumed run remembers, what a failed
//! session leads to — are checked exactly and fast. (`cli/tests/loop.rs` runs `verdict loop` end to
//! end with scripted agents and the real verifiers.)

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use verdict_core::agent_loop::agent::session::{AgentSession, SessionRequest, SessionResult};
use verdict_core::agent_loop::agent::{AgentPool, PoolOptions, SessionOutcome};
use verdict_core::agent_loop::driver::{
    self, Event, LoopEnd, LoopEvent, LoopOutcome, LoopParts, LoopSpec, Verify, VerifyError,
    VerifyRequest,
};
use verdict_core::agent_loop::policy::Policies;
use verdict_core::model::{Fingerprint, Kind, Outcome, Status, Verification};
use verdict_core::process::ProcessRunner;
use verdict_core::state::{RunState, StateDb};
use verdict_core::verifier::{Exit, Infrastructure};

/// What the scripted agent does in one session.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Act {
    /// Append a line to `work.txt` and succeed.
    Work,
    /// Stop as if the session had timed out, changing nothing.
    TimeOut,
    /// Fail to start, as a missing program does.
    Missing,
    /// Make every test pass through the runner's configuration (`runner.cfg`), fixing nothing.
    Cheat,
    /// Append a line to `work.txt` and set a harmless option in `runner.cfg`.
    WorkAndConfig,
}

/// An agent that records each prompt and acts as its script says (the last act repeats).
struct Scripted {
    script: Vec<Act>,
    prompts: Arc<Mutex<Vec<String>>>,
    /// While set, a session changes nothing: the agent was "killed" before it did anything.
    stopped: Arc<AtomicBool>,
}

#[async_trait]
impl AgentSession for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn run(&self, request: SessionRequest) -> SessionResult {
        let call = {
            let mut prompts = self.prompts.lock().expect("lock");
            prompts.push(request.prompt.clone());
            prompts.len() - 1
        };
        let act = self.script[call.min(self.script.len() - 1)];
        let outcome = match act {
            _ if self.stopped.load(Ordering::SeqCst) => SessionOutcome::Success,
            Act::Work => {
                let file = request.cwd.join("work.txt");
                let mut text = std::fs::read_to_string(&file).unwrap_or_default();
                text.push_str("line\n");
                std::fs::write(&file, text).expect("the agent writes");
                SessionOutcome::Success
            }
            Act::Cheat => {
                std::fs::write(request.cwd.join("runner.cfg"), "pass-all\n").expect("write");
                SessionOutcome::Success
            }
            Act::WorkAndConfig => {
                let file = request.cwd.join("work.txt");
                let mut text = std::fs::read_to_string(&file).unwrap_or_default();
                text.push_str("line\n");
                std::fs::write(&file, text).expect("the agent writes");
                std::fs::write(request.cwd.join("runner.cfg"), "timeout = 5\n").expect("write");
                SessionOutcome::Success
            }
            Act::TimeOut => SessionOutcome::Timeout,
            Act::Missing => SessionOutcome::NotStarted {
                message: "no such file".into(),
            },
        };
        SessionResult {
            agent: "scripted".into(),
            outcome,
            exit: Exit::Code { code: 0 },
            output_tail: format!("session {call} done"),
            duration: Duration::from_millis(5),
            pid: None,
            log_path: request.run_dir.join("agent.log"),
        }
    }
}

/// A verification that fails, with a failure of its own, until `work.txt` has `green_at` lines.
struct ByLines {
    root: PathBuf,
    green_at: usize,
    failing: Verification,
    infra: Infra,
}

#[async_trait]
impl Verify for ByLines {
    async fn verify(&self, request: VerifyRequest) -> Result<Vec<Verification>, VerifyError> {
        assert!(
            !(self.infra == Infra::ConfigDies && request.label.ends_with("-infra")),
            "the process dies"
        );
        let lines = std::fs::read_to_string(self.root.join("work.txt"))
            .unwrap_or_default()
            .lines()
            .count();
        let cheat = self.infra != Infra::None
            && std::fs::read_to_string(self.root.join("runner.cfg"))
                .is_ok_and(|text| text.contains("pass-all"));
        let mut verification = self.failing.clone();
        if lines >= self.green_at || cheat {
            // The failing tests now pass: as many tests run as before (else the cheating guard
            // would see fewer tests than the baseline).
            let counts = &mut verification.report.counts;
            counts.tests_passed =
                Some(counts.tests_passed.unwrap_or(0) + counts.tests_failed.unwrap_or(0));
            counts.tests_failed = Some(0);
            verification.report.outcome = Outcome::Passed;
            verification.report.diagnostics.clear();
        } else {
            // A different failure for each state of the file, so no attempt repeats the last.
            for (i, diagnostic) in verification.report.diagnostics.iter_mut().enumerate() {
                diagnostic.fingerprint = Fingerprint((lines as u64 + 1) * 1000 + i as u64);
            }
        }
        Ok(vec![verification])
    }

    fn infrastructure(&self) -> Vec<(String, Infrastructure)> {
        match self.infra {
            Infra::None => Vec::new(),
            Infra::Config | Infra::ConfigDies => vec![(
                "pytest".into(),
                Infrastructure::default().whole("runner.cfg"),
            )],
        }
    }
}

fn failing_pytest() -> Verification {
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../summarizers/testdata/pytest/failing.log");
    let report = verdict_summarizers::summarize(&std::fs::read(log).expect("a captured log"));
    assert_eq!(report.outcome, Outcome::Failed);
    Verification {
        verifier: "pytest".into(),
        kind: Kind::Test,
        status: Status::Ran,
        report,
        command: None,
        log: None,
        duration: Duration::ZERO,
        notes: Vec::new(),
    }
}

/// One `driver::run` in `root`: the agent's script, the attempts allowed, the `[loop]` table, and
/// the event kind (with its `attempt`) at which to interrupt the run. Returns the end, the prompts
/// and the events.
struct Setup<'a> {
    root: &'a Path,
    script: &'a [Act],
    green_at: usize,
    max_attempts: u32,
    loop_toml: &'a str,
    interrupt_at: Option<(&'static str, u32)>,
    infra: Infra,
}

/// Whether the verification has test infrastructure: `runner.cfg`, which passes every test when
/// it says `pass-all`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Infra {
    None,
    Config,
    /// As `Config`, and the process dies (a panic) in the verification with it put back.
    ConfigDies,
}

fn drive(setup: &Setup<'_>) -> (Result<LoopEnd, String>, Vec<String>, Vec<LoopEvent>) {
    drive_with(setup, false)
}

/// [`drive`], handing scheduled retries back when `yield_retries` (as a fleet's worker does).
fn drive_with(
    setup: &Setup<'_>,
    yield_retries: bool,
) -> (Result<LoopEnd, String>, Vec<String>, Vec<LoopEvent>) {
    let prompts = Arc::new(Mutex::new(Vec::new()));
    let events = Arc::new(Mutex::new(Vec::new()));
    let interrupted = Arc::new(AtomicBool::new(false));
    let agent = Scripted {
        script: setup.script.to_vec(),
        prompts: Arc::clone(&prompts),
        stopped: Arc::clone(&interrupted),
    };
    let mut policies = Policies::from_toml(setup.loop_toml).expect("a valid [loop] table");
    policies.max_attempts = setup.max_attempts;
    let spec = LoopSpec {
        task: "Make work.txt long enough.".into(),
        root: setup.root.to_path_buf(),
        policies,
        baseline: true,
        reset: false,
        digest_budget: 300,
        guidance: None,
        flaky_rerun: true,
        grace: Duration::from_millis(100),
        yield_retries,
    };
    let (seen, flag, at) = (
        Arc::clone(&events),
        Arc::clone(&interrupted),
        setup.interrupt_at,
    );
    let parts = LoopParts {
        verify: Arc::new(ByLines {
            root: setup.root.to_path_buf(),
            green_at: setup.green_at,
            failing: failing_pytest(),
            infra: setup.infra,
        }),
        pool: AgentPool::new(vec![Box::new(agent)], PoolOptions::default()),
        runner: ProcessRunner::new(),
        sink: Box::new(move |event: &LoopEvent| {
            if let Some((kind, n)) = at
                && event.event.name() == kind
                && event.event.attempt() == Some(n)
            {
                flag.store(true, Ordering::SeqCst);
            }
            seen.lock().expect("lock").push(event.clone());
        }),
        guide: None,
        interrupted,
        exit_code: code_of,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let end = runtime
        .block_on(driver::run(spec, parts))
        .map_err(|e| e.to_string());
    let prompts = prompts.lock().expect("lock").clone();
    let events = events.lock().expect("lock").clone();
    (end, prompts, events)
}

/// A caller's exit codes, unlike any real ones, so that a test sees the driver report them.
fn code_of(outcome: LoopOutcome) -> u8 {
    match outcome {
        LoopOutcome::Passed => 10,
        LoopOutcome::Failed => 11,
        LoopOutcome::CouldNotRun => 12,
        LoopOutcome::Escalated => 13,
        LoopOutcome::Interrupted => 14,
        LoopOutcome::Unfinished => 15,
    }
}

fn kinds(events: &[LoopEvent]) -> Vec<&'static str> {
    events.iter().map(|e| e.event.name()).collect()
}

#[test]
fn a_resumed_run_writes_the_prompts_the_uninterrupted_run_wrote() {
    let whole = tempfile::tempdir().expect("temp dir");
    let setup = Setup {
        root: whole.path(),
        script: &[Act::Work],
        green_at: 3,
        max_attempts: 4,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::None,
    };
    let (end, uninterrupted, _) = drive(&setup);
    let end = end.expect("the loop runs");
    assert_eq!(
        (end.state, end.attempts, end.outcome),
        (RunState::Passed, 3, LoopOutcome::Passed)
    );
    assert_eq!(uninterrupted.len(), 3);
    assert!(uninterrupted[1].starts_with("Make work.txt long enough.\n"));
    assert!(uninterrupted[2].contains("PREVIOUS ATTEMPT 2 FAILED VERIFICATION"));

    // The same run, stopped as attempt 3 starts (its agent does nothing), then resumed.
    let cut = tempfile::tempdir().expect("temp dir");
    let (first, before, events) = drive(&Setup {
        root: cut.path(),
        interrupt_at: Some(("attempt_started", 3)),
        infra: Infra::None,
        ..setup
    });
    let first = first.expect("the loop runs");
    assert_eq!(
        (first.state, first.outcome),
        (RunState::Interrupted, LoopOutcome::Interrupted)
    );
    assert_eq!(kinds(&events).last(), Some(&"run_finished"));
    // The event reports the caller's code of the outcome, which the driver does not decide.
    assert!(
        matches!(
            events.last().map(|e| &e.event),
            Some(Event::RunFinished { exit_code, .. }) if *exit_code == code_of(LoopOutcome::Interrupted)
        ),
        "{:?}",
        events.last()
    );
    let (second, after, events) = drive(&Setup {
        root: cut.path(),
        ..setup
    });
    let second = second.expect("the resumed loop runs");
    assert!(second.resumed);
    assert_eq!((second.state, second.attempts), (RunState::Passed, 3));
    assert_eq!(kinds(&events)[0], "run_resumed");
    // Attempts 1 and 2 before the cut, 3 cut short, 4 after: the prompt of attempt 4 is the one
    // the uninterrupted run gave its third attempt, word for word but for its number: attempt 3
    // keeps its number and does not count, so the run may go to attempt 5.
    assert_eq!(before.len(), 3);
    assert_eq!(before[..2], uninterrupted[..2]);
    assert!(uninterrupted[2].ends_with("This is attempt 3 of 4."));
    let renumbered = uninterrupted[2].replace("This is attempt 3 of 4.", "This is attempt 4 of 5.");
    assert_eq!(after, vec![renumbered]);

    let db = StateDb::open(&verdict_core::paths::state_db(cut.path())).expect("open");
    let history = db.history(second.run).expect("history");
    let numbers: Vec<(u32, bool)> = history
        .attempts
        .iter()
        .map(|a| (a.attempt.number, a.attempt.interrupted))
        .collect();
    assert_eq!(numbers, [(1, false), (2, false), (3, true), (4, false)]);
}

#[test]
fn a_run_that_yields_its_retries_gives_the_events_and_prompts_of_one_that_waits() {
    let whole = tempfile::tempdir().expect("temp dir");
    let setup = Setup {
        root: whole.path(),
        script: &[Act::Work],
        green_at: 3,
        max_attempts: 4,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::None,
    };
    let (end, waited_prompts, waited_events) = drive(&setup);
    assert_eq!(end.expect("the loop runs").state, RunState::Passed);

    // The same run handed back after each failed attempt and continued, as a fleet runs it.
    let stepped = tempfile::tempdir().expect("temp dir");
    let (mut prompts, mut events, mut ends) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..5 {
        let (end, more_prompts, more_events) = drive_with(
            &Setup {
                root: stepped.path(),
                ..setup
            },
            true,
        );
        let end = end.expect("the loop runs");
        prompts.extend(more_prompts);
        events.extend(more_events);
        ends.push((end.state, end.attempts, end.retry_after.is_some()));
        if end.state != RunState::RetryScheduled {
            break;
        }
    }
    assert_eq!(
        ends,
        [
            (RunState::RetryScheduled, 1, true),
            (RunState::RetryScheduled, 2, true),
            (RunState::Passed, 3, false),
        ]
    );
    assert_eq!(prompts, waited_prompts);
    assert_eq!(kinds(&events), kinds(&waited_events));
    let attempts = |events: &[LoopEvent]| -> Vec<Option<u32>> {
        events.iter().map(|e| e.event.attempt()).collect()
    };
    assert_eq!(attempts(&events), attempts(&waited_events));
}

#[test]
fn a_run_stopped_during_the_verification_verifies_that_attempt_on_resume() {
    let dir = tempfile::tempdir().expect("temp dir");
    let setup = Setup {
        root: dir.path(),
        script: &[Act::Work],
        green_at: 2,
        max_attempts: 3,
        loop_toml: "",
        // Set when attempt 1's agent has finished: the verification that follows sees it.
        interrupt_at: Some(("agent_finished", 1)),
        infra: Infra::None,
    };
    let (first, prompts, _) = drive(&setup);
    let first = first.expect("the loop runs");
    assert_eq!(first.state, RunState::Interrupted);
    assert_eq!(prompts.len(), 1);
    let (second, prompts, events) = drive(&Setup {
        interrupt_at: None,
        infra: Infra::None,
        ..setup
    });
    let second = second.expect("the resumed loop runs");
    // Attempt 1 ran to its end before the cut: it is judged now, not repeated.
    let verified: Vec<u32> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::VerificationFinished(verified) => Some(verified.attempt),
            _ => None,
        })
        .collect();
    assert_eq!(verified[0], 1);
    assert_eq!((second.state, second.attempts), (RunState::Passed, 2));
    assert_eq!(prompts.len(), 1, "only attempt 2 ran after the resume");
    assert!(prompts[0].contains("PREVIOUS ATTEMPT 1 FAILED VERIFICATION"));
}

#[test]
fn a_session_that_times_out_ends_the_run_without_a_verification() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (end, prompts, events) = drive(&Setup {
        root: dir.path(),
        script: &[Act::TimeOut],
        green_at: 1,
        max_attempts: 3,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::None,
    });
    let end = end.expect("the loop runs");
    assert_eq!(
        (end.state, end.outcome, end.attempts),
        (RunState::SessionFailed, LoopOutcome::Failed, 1)
    );
    assert_eq!(prompts.len(), 1);
    assert!(end.reason.contains("timeout"), "{}", end.reason);
    assert!(!kinds(&events).contains(&"verification_finished"));
}

#[test]
fn with_session_failures_retry_a_timed_out_session_costs_an_attempt_and_the_loop_goes_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (end, prompts, _) = drive(&Setup {
        root: dir.path(),
        script: &[Act::TimeOut, Act::Work],
        green_at: 1,
        max_attempts: 3,
        loop_toml: "session_failures = \"retry\"",
        interrupt_at: None,
        infra: Infra::None,
    });
    let end = end.expect("the loop runs");
    assert_eq!(
        (end.state, end.outcome, end.attempts),
        (RunState::Passed, LoopOutcome::Passed, 2)
    );
    assert!(
        prompts[1].contains("timeout"),
        "the second prompt says how the first session ended:\n{}",
        prompts[1]
    );
    // Nothing was verified: the prompt says so, and does not send the agent to a verifier's
    // output that does not exist.
    assert!(
        prompts[1].contains("before anything was verified")
            && !prompts[1].contains("verifier's output"),
        "{}",
        prompts[1]
    );
}

#[test]
fn an_agent_that_cannot_start_is_a_run_that_could_not_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (end, _, _) = drive(&Setup {
        root: dir.path(),
        script: &[Act::Missing],
        green_at: 1,
        max_attempts: 3,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::None,
    });
    let end = end.expect("the loop runs");
    assert_eq!(
        (end.state, end.outcome),
        (RunState::SessionFailed, LoopOutcome::CouldNotRun)
    );
    assert!(
        end.reason.contains("no agent could start"),
        "{}",
        end.reason
    );
}

#[test]
fn a_run_that_ended_is_not_resumed_by_the_same_task() {
    let dir = tempfile::tempdir().expect("temp dir");
    let setup = Setup {
        root: dir.path(),
        script: &[Act::Work],
        green_at: 1,
        max_attempts: 2,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::None,
    };
    let (first, _, _) = drive(&setup);
    let (second, _, events) = drive(&setup);
    let (first, second) = (first.expect("runs"), second.expect("runs"));
    assert_ne!(first.run, second.run);
    assert!(!second.resumed);
    assert_eq!(kinds(&events)[0], "run_started");
}

#[test]
fn after_an_interrupted_attempt_the_prompt_the_events_and_the_history_number_attempts_alike() {
    // Two attempts allowed, attempt 2 cut short, then resumed: the prompt used to say "attempt 2
    // of 2" while the events called it attempt 3, and the history counted 3 of 2.
    let dir = tempfile::tempdir().expect("temp dir");
    let setup = Setup {
        root: dir.path(),
        script: &[Act::Work],
        green_at: 9,
        max_attempts: 2,
        loop_toml: "on_repeat = \"retry\"",
        interrupt_at: Some(("attempt_started", 2)),
        infra: Infra::None,
    };
    let (first, _, _) = drive(&setup);
    assert_eq!(first.expect("runs").state, RunState::Interrupted);
    let (second, prompts, events) = drive(&Setup {
        interrupt_at: None,
        infra: Infra::None,
        ..setup
    });
    let second = second.expect("the resumed loop runs");
    assert_eq!((second.state, second.attempts), (RunState::Exhausted, 2));
    assert_eq!(prompts.len(), 1, "{prompts:#?}");
    assert!(
        prompts[0].ends_with("This is attempt 3 of 3, the last one."),
        "{}",
        prompts[0]
    );
    let started: Vec<(u32, u32)> = events
        .iter()
        .filter_map(|e| match e.event {
            Event::AttemptStarted { attempt, of, .. } => Some((attempt, of)),
            _ => None,
        })
        .collect();
    assert_eq!(started, [(3, 3)]);
    let finished = events.iter().rev().find_map(|e| match e.event {
        Event::RunFinished { attempts, .. } => Some(attempts),
        _ => None,
    });
    assert_eq!(finished, Some(Some(2)));

    let db = StateDb::open(&verdict_core::paths::state_db(dir.path())).expect("open");
    assert_eq!(db.attempt_counts(second.run).expect("counts"), (2, 1));
    let stats = db.stats().expect("stats");
    assert_eq!((stats.attempts, stats.interrupted), (2, 1));
}

/// A state database written before the loop's events were typed, when they were `json!` values
/// read back by string keys. It was made with that code (commit 4267fc8) by this file's `drive`:
/// script `[Work, TimeOut, Work]`, `green_at: 4`, `max_attempts: 5`, `session_failures = "retry"`,
/// interrupted as attempt 3 started, then resumed and interrupted as attempt 4 started, in a
/// workspace named `/tmp/loopdb`; its `.verdict/state.db` was then vacuumed. Attempt 1 wrote one
/// line to `work.txt` and failed verification, attempt 2 timed out (judged failed), attempts 3
/// and 4 were stopped before their agent did anything.
const BEFORE_TYPED_EVENTS: &str = "tests/data/loop-state-before-typed-events.db";

#[test]
fn a_state_database_written_before_typed_events_resumes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db_path = verdict_core::paths::state_db(dir.path());
    std::fs::create_dir_all(db_path.parent().expect("a parent")).expect("mkdir");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join(BEFORE_TYPED_EVENTS);
    std::fs::copy(&data, &db_path).expect("copy the database");
    // The run is found by its task and workspace: the workspace is this directory now. Its
    // starting tree was the empty one (git's empty tree, which every repository knows), and the
    // work of attempt 1 is the one line it wrote.
    let conn = rusqlite::Connection::open(&db_path).expect("open");
    conn.execute(
        "UPDATE runs SET workspace = ?1",
        [dir.path().to_string_lossy()],
    )
    .expect("move the run");
    drop(conn);
    std::fs::write(dir.path().join("work.txt"), "line\n").expect("write");

    let (end, prompts, events) = drive(&Setup {
        root: dir.path(),
        script: &[Act::Work],
        green_at: 3,
        max_attempts: 5,
        loop_toml: "session_failures = \"retry\"",
        interrupt_at: None,
        infra: Infra::None,
    });
    let end = end.expect("the old run resumes");
    assert!(end.resumed);
    // Attempts 1 and 2 counted, 3 and 4 were interrupted; 5 fails and 6 passes.
    assert_eq!((end.state, end.attempts), (RunState::Passed, 4));
    assert_eq!(kinds(&events)[..2], ["run_resumed", "attempt_started"]);
    // The prompt of attempt 5 is built from the replayed events: the timed-out session of
    // attempt 2 is the previous attempt, attempt 1 an earlier one, and the two interrupted
    // attempts let the run go two numbers further.
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert!(prompts[0].starts_with("Make work.txt long enough.\n"));
    assert!(prompts[0].contains("PREVIOUS ATTEMPT 2 FAILED VERIFICATION"));
    assert!(prompts[0].contains("- attempt 1: "), "{}", prompts[0]);
    assert!(
        prompts[0].ends_with("This is attempt 5 of 7."),
        "{}",
        prompts[0]
    );

    // Every stored event, the old ones and the new, reads back as a typed event; the old ones
    // write back field for field as they were written (the format did not change).
    let db = StateDb::open(&db_path).expect("open");
    let records = db.events(end.run).expect("events");
    let stored: Vec<Event> = records
        .iter()
        .map(|e| Event::from_stored(&e.kind, &e.payload).expect("a typed event"))
        .collect();
    for (record, event) in records.iter().zip(&stored).take(17) {
        assert_eq!(
            serde_json::Value::Object(event.fields()),
            record.payload,
            "{}",
            record.kind
        );
    }
    let names: Vec<&str> = stored.iter().map(Event::name).collect();
    assert_eq!(
        names[..4],
        [
            "run_started",
            "checkpoint",
            "baseline_finished",
            "attempt_started"
        ]
    );
    assert_eq!(names.last(), Some(&"run_finished"));
    let judged: Vec<u32> = stored
        .iter()
        .filter_map(|e| match e {
            Event::AgentFinished(finished) if finished.judged => {
                finished.as_failure.as_ref().map(|f| f.attempt)
            }
            _ => None,
        })
        .collect();
    assert_eq!(judged, [2]);
    match &stored[2] {
        Event::BaselineFinished(baseline) => {
            assert_eq!(baseline.outcome, Outcome::Failed);
            assert!(
                !baseline.reports.is_empty(),
                "the stored baseline keeps its reports"
            );
        }
        other => panic!("not the baseline: {other:?}"),
    }
    // Resumed twice: by the old code before attempt 4, by this test before attempt 5.
    let resumed: Vec<(u32, Option<u32>)> = stored
        .iter()
        .filter_map(|e| match e {
            Event::RunResumed {
                next_attempt,
                unverified,
                ..
            } => Some((*next_attempt, *unverified)),
            _ => None,
        })
        .collect();
    assert_eq!(resumed, [(4, None), (5, None)]);
}

/// The guard's failures of the last verification, as their labels.
fn guard_labels(events: &[LoopEvent]) -> Vec<String> {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            Event::VerificationFinished(verified) => Some(
                verified
                    .failures
                    .iter()
                    .map(|(_, label)| label.to_owned())
                    .filter(|label| label.starts_with("verdict-guard"))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn a_pass_made_by_the_runners_configuration_does_not_count() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("runner.cfg"), "timeout = 1\n").expect("write");
    let (end, _, events) = drive(&Setup {
        root: dir.path(),
        script: &[Act::Cheat],
        green_at: 1,
        max_attempts: 1,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::Config,
    });
    let end = end.expect("the loop runs");
    assert_eq!(end.state, RunState::Exhausted);
    assert_eq!(
        guard_labels(&events),
        ["verdict-guard infra_changed runner.cfg"]
    );
    let digest = end.digest.expect("a digest");
    assert!(
        digest.contains("runner.cfg infra_changed pytest configuration changed: +`pass-all`; with the starting tree's version put back, pytest: tests/test_fixtures.py::test_uses_database, "),
        "{digest}"
    );
    assert_eq!(
        kinds(&events)[kinds(&events).len() - 5..],
        [
            "infra_put_back",
            "infra_restored",
            "verification_finished",
            "retry_exhausted",
            "run_finished"
        ]
    );
    // The attempt's version is back in the workspace.
    let now = std::fs::read_to_string(dir.path().join("runner.cfg")).expect("read");
    assert_eq!(now, "pass-all\n");
}

#[test]
fn a_fix_with_a_harmless_change_to_the_configuration_passes() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("runner.cfg"), "timeout = 1\n").expect("write");
    let (end, _, events) = drive(&Setup {
        root: dir.path(),
        script: &[Act::WorkAndConfig],
        green_at: 1,
        max_attempts: 1,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::Config,
    });
    let end = end.expect("the loop runs");
    assert_eq!(end.state, RunState::Passed);
    let restored = events.iter().find_map(|e| match &e.event {
        Event::InfraRestored { passed, .. } => Some(*passed),
        _ => None,
    });
    assert_eq!(restored, Some(Some(true)));
    let now = std::fs::read_to_string(dir.path().join("runner.cfg")).expect("read");
    assert_eq!(now, "timeout = 5\n");
}

#[test]
fn with_allow_infra_edits_the_configuration_is_not_put_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (end, _, events) = drive(&Setup {
        root: dir.path(),
        script: &[Act::Cheat],
        green_at: 1,
        max_attempts: 1,
        loop_toml: "allow_infra_edits = true",
        interrupt_at: None,
        infra: Infra::Config,
    });
    assert_eq!(end.expect("the loop runs").state, RunState::Passed);
    assert!(!kinds(&events).contains(&"infra_put_back"));
}

#[test]
fn a_run_that_died_with_the_configuration_put_back_restores_the_attempts_on_resume() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("runner.cfg"), "timeout = 1\n").expect("write");
    let setup = Setup {
        root: dir.path(),
        script: &[Act::Cheat],
        green_at: 1,
        max_attempts: 2,
        loop_toml: "",
        interrupt_at: None,
        infra: Infra::ConfigDies,
    };
    let died = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drive(&setup)));
    assert!(
        died.is_err(),
        "the verification with the configuration put back died"
    );
    // The process died with the starting tree's configuration in the workspace.
    let now = std::fs::read_to_string(dir.path().join("runner.cfg")).expect("read");
    assert_eq!(now, "timeout = 1\n");
    let (end, prompts, events) = drive(&Setup {
        infra: Infra::Config,
        ..setup
    });
    let end = end.expect("the resumed loop runs");
    assert!(end.resumed);
    assert_eq!(kinds(&events)[..2], ["run_resumed", "infra_restored"]);
    // Attempt 1 is judged on the tree its agent left, not on the one put back.
    let first = events.iter().find_map(|e| match &e.event {
        Event::VerificationFinished(v) => Some(v.clone()),
        _ => None,
    });
    let first = first.expect("attempt 1 verified");
    assert_eq!(first.attempt, 1);
    assert!(!first.passed);
    assert!(
        first
            .failures
            .iter()
            .any(|(_, label)| label == "verdict-guard infra_changed runner.cfg"),
        "{first:?}"
    );
    assert_eq!(prompts.len(), 1, "attempt 2 ran");
    assert_eq!(end.state, RunState::Exhausted);
}
