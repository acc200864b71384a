//! The retry loop's own cost per attempt — everything but the agent and the verifiers: building
//! the prompt, the state database's transactions (`synchronous=FULL`), the events, the workspace
//! snapshots (git, in a private repository), classification and the decision.
//!
//! Each iteration drives one loop run of ten attempts through [`verdict_core::agent_loop::driver::run`] in a
//! small workspace (20 files): the agent is an in-process session that succeeds at once and edits
//! one file, and the verification hands back a real parsed pytest failure (from the captured logs)
//! for nine attempts and a pass for the tenth. The time per attempt is the iteration's time divided
//! by ten. A second benchmark does the same with `--reset` (the starting tree restored before
//! every attempt). The run prints, once, the retry prompt's size in tokens against its bound.
//!
//! The passing attempt's judgement — the snapshot, the cheating guard, and the check of test
//! infrastructure (the verification names pytest's, as the pytest verifier does; the agent changes
//! none of it, as an honest attempt does not) — is timed apart, from its agent's end to the run's,
//! and again with that check off (`allow_infra_edits`): the difference is what the check costs an
//! honest attempt.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use criterion::{Criterion, criterion_group, criterion_main};
use verdict_core::agent_loop::agent::session::{AgentSession, SessionRequest, SessionResult};
use verdict_core::agent_loop::agent::{AgentPool, PoolOptions, SessionOutcome};
use verdict_core::agent_loop::driver::{
    self, Event, LoopParts, LoopSpec, Verify, VerifyError, VerifyRequest,
};
use verdict_core::agent_loop::policy::{Policies, RepeatAction};
use verdict_core::model::{Kind, Status, Verification};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Exit, Infrastructure, Part};

const ATTEMPTS: u32 = 10;
const BUDGET: usize = 500;

/// An agent that succeeds at once, after appending a line to `src/work.py`.
struct InstantAgent;

#[async_trait]
impl AgentSession for InstantAgent {
    fn name(&self) -> &str {
        "instant"
    }

    async fn run(&self, request: SessionRequest) -> SessionResult {
        let file = request.cwd.join("src/work.py");
        let mut text = std::fs::read_to_string(&file).unwrap_or_default();
        text.push_str("x = 1\n");
        std::fs::write(&file, text).expect("the agent writes");
        SessionResult {
            agent: "instant".into(),
            outcome: SessionOutcome::Success,
            exit: Exit::Code { code: 0 },
            output_tail: "done".into(),
            duration: Duration::ZERO,
            pid: None,
            log_path: request.run_dir.join("agent.log"),
        }
    }
}

/// A verification that fails with a real pytest report until the last attempt.
struct Canned {
    failing: Verification,
    calls: AtomicU32,
}

#[async_trait]
impl Verify for Canned {
    async fn verify(&self, request: VerifyRequest) -> Result<Vec<Verification>, VerifyError> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        let _ = request;
        let mut verification = self.failing.clone();
        if call + 1 >= ATTEMPTS {
            verification.report.outcome = verdict_core::Outcome::Passed;
            verification.report.diagnostics.clear();
            verification.report.counts.tests_failed = Some(0);
        }
        Ok(vec![verification])
    }

    fn infrastructure(&self) -> Vec<(String, Infrastructure)> {
        let pytest = Infrastructure::default()
            .whole("**/conftest.py")
            .whole("pytest.ini")
            .part(
                "pyproject.toml",
                Part::Toml(vec!["tool".into(), "pytest".into()]),
            )
            .part("setup.cfg", Part::Ini("tool:pytest".into()))
            .part("tox.ini", Part::Ini("pytest".into()));
        vec![("pytest".into(), pytest)]
    }
}

fn failing_pytest() -> Verification {
    let log = repo().join("summarizers/testdata/pytest/failing.log");
    let bytes = std::fs::read(&log).expect("a captured pytest log");
    let report = verdict_summarizers::summarize(&bytes);
    Verification {
        verifier: "pytest".into(),
        kind: Kind::Test,
        status: Status::Ran,
        report,
        command: None,
        log: Some(".verdict/runs/x/pytest.log".into()),
        duration: Duration::ZERO,
        notes: Vec::new(),
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("core/engine sits two levels below the repository root")
        .to_path_buf()
}

const TASK: &str = "Make the failing tests in tests/test_cart.py pass without changing the tests. \
    The cart total must include the discount codes described in docs/discounts.md, and an empty \
    cart totals zero.";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    for i in 0..20 {
        let path = dir.path().join(format!("src/module_{i}.py"));
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
        std::fs::write(&path, format!("def f{i}():\n    return {i}\n").repeat(20)).expect("write");
    }
    std::fs::write(dir.path().join("src/work.py"), "").expect("write");
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"cart\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("conftest.py"), "import sys\n").expect("write");
    dir
}

fn one_run(failing: &Verification, reset: bool, check_infra: bool) -> driver::LoopEnd {
    let dir = workspace();
    let mut policies = Policies::defaults();
    policies.max_attempts = ATTEMPTS;
    policies.on_repeat = RepeatAction::Retry;
    let policies = Policies::from_toml(&format!(
        "max_attempts = {ATTEMPTS}\non_repeat = \"retry\"\nallow_infra_edits = {}\n[policy.test_failure]\nmax_attempts = {ATTEMPTS}\nrefresh_after = 0\n",
        !check_infra
    ))
    .unwrap_or(policies);
    let spec = LoopSpec {
        task: TASK.into(),
        root: dir.path().to_path_buf(),
        policies,
        baseline: false,
        reset,
        digest_budget: BUDGET,
        guidance: None,
        flaky_rerun: false,
        grace: Duration::from_millis(100),
        yield_retries: false,
    };
    let prompts = Arc::new(Mutex::new(Vec::<u64>::new()));
    let seen = Arc::clone(&prompts);
    let starts = Arc::new(Mutex::new(Vec::<std::time::Instant>::new()));
    let started = Arc::clone(&starts);
    let pass = Arc::new(Mutex::new(Vec::<std::time::Instant>::new()));
    let judged = Arc::clone(&pass);
    let parts = LoopParts {
        verify: Arc::new(Canned {
            failing: failing.clone(),
            calls: AtomicU32::new(0),
        }),
        pool: AgentPool::new(vec![Box::new(InstantAgent)], PoolOptions::default()),
        runner: ProcessRunner::new(),
        sink: Box::new(move |event| {
            match &event.event {
                Event::AgentFinished(finished) if finished.attempt == ATTEMPTS => {
                    judged.lock().expect("lock").push(std::time::Instant::now());
                }
                Event::RunFinished { .. } => {
                    judged.lock().expect("lock").push(std::time::Instant::now());
                }
                _ => {}
            }
            if let Event::AttemptStarted { prompt_tokens, .. } = event.event {
                let tokens = prompt_tokens;
                seen.lock().expect("lock").push(tokens);
                started
                    .lock()
                    .expect("lock")
                    .push(std::time::Instant::now());
            }
        }),
        guide: None,
        interrupted: Arc::new(AtomicBool::new(false)),
        // The bench reads no exit code: any number will do.
        exit_code: |_| 0,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let end = runtime
        .block_on(driver::run(spec, parts))
        .expect("the loop runs");
    assert_eq!(end.attempts, ATTEMPTS, "{end:?}");
    PROMPTS.get_or_init(|| prompts.lock().expect("lock").clone());
    // The steady cost of one attempt: from attempt 2's start to attempt 10's, over 8 attempts
    // (the run's one-off costs — the database, the snapshot repository, the checkpoint — apart).
    if let [agent_end, run_end] = pass.lock().expect("lock").as_slice() {
        PASS.lock()
            .expect("lock")
            .push(run_end.duration_since(*agent_end));
    }
    let starts = starts.lock().expect("lock");
    if let (Some(second), Some(last)) = (starts.get(1), starts.last()) {
        STEADY
            .lock()
            .expect("lock")
            .push(last.duration_since(*second) / (starts.len() as u32 - 2));
    }
    end
}

static PROMPTS: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
static STEADY: Mutex<Vec<Duration>> = Mutex::new(Vec::new());
static PASS: Mutex<Vec<Duration>> = Mutex::new(Vec::new());

fn report_steady(name: &str) {
    let mut steady = STEADY.lock().expect("lock");
    steady.sort();
    if let Some(median) = steady.get(steady.len() / 2) {
        println!(
            "{name}: steady cost per attempt (median of {}): {median:.2?}",
            steady.len()
        );
    }
    steady.clear();
    let mut pass = PASS.lock().expect("lock");
    pass.sort();
    if let Some(median) = pass.get(pass.len() / 2) {
        println!(
            "{name}: the passing attempt's judgement (median of {}): {median:.2?}",
            pass.len()
        );
    }
    pass.clear();
}

fn bench(c: &mut Criterion) {
    let failing = failing_pytest();
    let mut group = c.benchmark_group("loop");
    group.sample_size(10);
    group.bench_function("ten_attempts", |b| {
        b.iter(|| one_run(&failing, false, true))
    });
    report_steady("ten_attempts");
    group.bench_function("ten_attempts_no_infra_check", |b| {
        b.iter(|| one_run(&failing, false, false))
    });
    report_steady("ten_attempts_no_infra_check");
    group.bench_function("ten_attempts_reset", |b| {
        b.iter(|| one_run(&failing, true, true))
    });
    report_steady("ten_attempts_reset");
    group.finish();
    if let Some(prompts) = PROMPTS.get() {
        let task = verdict_core::digest::tokens::count(TASK) as u64;
        let bound = task + BUDGET as u64 + verdict_core::agent_loop::prompt::OVERHEAD_TOKENS as u64;
        println!(
            "prompt tokens per attempt: {prompts:?} (task {task}, bound task + budget + {} = {bound})",
            verdict_core::agent_loop::prompt::OVERHEAD_TOKENS
        );
        assert!(
            prompts.iter().all(|&p| p <= bound),
            "a prompt over its bound"
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
