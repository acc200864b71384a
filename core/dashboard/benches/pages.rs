//! How long the dashboard's pages take over a fleet of 10 000 tasks: `cargo bench -p
//! verdict-dashboard --bench pages -- [--tasks N] [--runs N] [--backend sqlite|postgres|both]
//! [--loop-runs N] [--fill-only PATH]`; the backend is SQLite unless said.
//!
//! The fleet is filled through the real [`Store`] API, as workers fill it: every task added
//! (5 agents, 10 campaigns, multi-line task texts), claimed and finished about three times with
//! digests and fingerprints of 6 failure categories, most ending passed and some escalated or
//! failed; a few hundred are left running, retry scheduled an hour out, or paused. Then each page
//! is timed as the server makes it — the [`FleetSource`] read followed by its `render` call — over
//! `--runs` runs (30): p50, p95 and max, in milliseconds, as a Markdown table.
//!
//! PostgreSQL runs on the throw-away cluster of `verdict-test-support` (`VERDICT_TOOLS`).
//! `--loop-runs N` (1 000; 0 for none) also times a workspace's `LoopSource` over N runs of
//! `verdict loop`, written through `StateDb` as the driver writes them. It keeps one snapshot of
//! the runs until the next commit: its max is the first, cold read; p50 the reads after.

use std::sync::Arc;
use std::time::{Duration, Instant};

use verdict_core::model::{Fingerprint, Outcome};
use verdict_core::state::{
    AttemptFinish, FailureRef, NewRun, NewVerification, RunId, RunState, StateDb,
};
use verdict_dashboard::render::{self, Chrome};
use verdict_dashboard::source::FleetSource;
use verdict_dashboard::source::LoopSource;
use verdict_dashboard::view::{QueueQuery, State};
use verdict_dashboard::{Result, Source};
use verdict_fleet::{AttemptEnd, Claim, Control, NewTask, Selector, Store, TaskState, WorkerId};

const AGENTS: [&str; 5] = ["claude", "codex", "gemini", "aider", "opencode"];
const CATEGORIES: [&str; 6] = [
    "test_failure",
    "type_error",
    "lint",
    "build_error",
    "flaky",
    "timeout",
];
/// Tasks left in each of running, retry scheduled and paused.
const LEFT: usize = 150;

/// What the command line asks for.
struct Settings {
    tasks: usize,
    runs: usize,
    backend: String,
    /// Loop runs in a workspace's state database (`--loop-runs N`, 0: none).
    loop_runs: usize,
    /// Only fill a SQLite fleet at this path and stop (`--fill-only PATH`): a fleet to look at,
    /// as the README's screenshot does.
    fill_only: Option<String>,
}

fn settings() -> Settings {
    let mut s = Settings {
        tasks: 10_000,
        runs: 30,
        backend: "sqlite".into(),
        loop_runs: 1_000,
        fill_only: None,
    };
    let args: Vec<String> = std::env::args().collect();
    let mut i = 1;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--tasks" => s.tasks = value.parse().expect("--tasks N"),
            "--runs" => s.runs = value.parse().expect("--runs N"),
            "--backend" => s.backend = value,
            "--loop-runs" => s.loop_runs = value.parse().expect("--loop-runs N"),
            "--fill-only" => s.fill_only = Some(value),
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    s
}

/// A small deterministic generator (xorshift64*): the same fleet on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Task `i`: its agent, campaign and a task text of a few lines.
fn new_task(i: usize, workspace: &str) -> NewTask {
    let agent = AGENTS[i % AGENTS.len()];
    let line = serde_json::json!({
        "key": format!("bench-{i:05}"),
        "workspace": workspace,
        "task": format!(
            "Fix issue #{i}: the {} module returns a wrong total for refunds in {}\n\n\
             Steps: run the tests under tests/{}; the failing case is the one that rounds half \
             cents. Keep the public API; add a regression test named after the issue.",
            ["billing", "ledger", "tax", "export", "search"][i % 5],
            ["EUR", "USD", "JPY", "GBP"][i % 4],
            ["unit", "integration", "e2e"][i % 3],
        ),
        "agent": agent,
        "campaign": format!("campaign-{}", i % 10),
        "priority": 1,
    });
    NewTask::from_line(&line.to_string(), |_| unreachable!("no task files")).expect("a task")
}

/// A failed attempt's end: category, fingerprints and a digest of realistic size.
fn failed(rng: &mut Rng, agent: &str, state: TaskState, retry: Duration) -> AttemptEnd {
    let category = CATEGORIES[rng.below(CATEGORIES.len())];
    let fingerprints: Vec<String> = (0..1 + rng.below(3))
        .map(|_| {
            let n = rng.below(200);
            format!(
                "jest src/{}.test.ts › case {n} (expected value)",
                ["sum", "tax", "ledger"][n % 3]
            )
        })
        .collect();
    let mut digest = format!(
        "verification failed: {category}, {} failures\n",
        fingerprints.len()
    );
    for print in &fingerprints {
        digest.push_str(&format!(
            "● {print}\n  expect(received).toEqual(expected)\n  Expected: 10.05\n  Received: 10.04\n  \
             at Object.<anonymous> (src/sum.test.ts:{}:17)\n",
            rng.below(400)
        ));
    }
    digest.push_str(&"  context line of the failing test, kept by the digest\n".repeat(12));
    let mut end = AttemptEnd::ended(state, "failed", format!("{category}: {}", fingerprints[0]));
    end.counted = true;
    end.retry_after = (state == TaskState::RetryScheduled).then_some(retry);
    end.category = Some(category.to_owned());
    end.fingerprints = fingerprints;
    end.digest = Some(digest);
    end.agent = Some(agent.to_owned());
    end.agent_ms = 20_000 + rng.below(200_000) as u64;
    end.verify_ms = 5_000 + rng.below(60_000) as u64;
    end
}

/// How task `i`'s attempt `number` ends: about three attempts each, most passing.
fn end_of(rng: &mut Rng, claim: &Claim, i: usize) -> AttemptEnd {
    let agent = AGENTS[i % AGENTS.len()];
    let last = 2 + (i % 3) as u32;
    if claim.number < last {
        return failed(rng, agent, TaskState::RetryScheduled, Duration::ZERO);
    }
    match i % 20 {
        0 => failed(rng, agent, TaskState::Escalated, Duration::ZERO),
        1 => failed(rng, agent, TaskState::Failed, Duration::ZERO),
        _ => {
            let mut end = AttemptEnd::ended(TaskState::Passed, "passed", "verified green".into());
            end.counted = true;
            end.agent = Some(agent.to_owned());
            end.agent_ms = 30_000 + rng.below(100_000) as u64;
            end.verify_ms = 8_000 + rng.below(30_000) as u64;
            end
        }
    }
}

/// Fills `store` with `n` tasks and their attempts; the last `3 × LEFT` are left running,
/// retry scheduled an hour out, and paused. Eight workers claim at once, then one drains what a
/// worker that stopped early (it found nothing due while another was finishing) left due.
async fn fill(store: Arc<dyn Store>, n: usize, workspace: &str) {
    let tasks: Vec<NewTask> = (0..n).map(|i| new_task(i, workspace)).collect();
    for chunk in tasks.chunks(500) {
        store.add(chunk).await.expect("add tasks");
    }
    let tail = n.saturating_sub(3 * LEFT);
    for i in tail + 2 * LEFT..n {
        let selector = Selector::Task(format!("bench-{i:05}"));
        store
            .control(&selector, Control::Pause, Some("bench"))
            .await
            .expect("pause");
    }
    let workers: Vec<_> = (0..8u64)
        .map(|seed| tokio::spawn(work(Arc::clone(&store), n, seed)))
        .collect();
    for worker in workers {
        worker.await.expect("a worker");
    }
    work(store, n, 8).await;
}

/// Claims and finishes until nothing is due.
async fn work(store: Arc<dyn Store>, n: usize, seed: u64) {
    let tail = n.saturating_sub(3 * LEFT);
    let me = WorkerId {
        id: format!("bench-{}-{seed}", std::process::id()),
        host: "bench".into(),
        pid: std::process::id(),
    };
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (seed + 1));
    let lease = Duration::from_secs(3600);
    while let Some(claim) = store.claim(&me, lease).await.expect("claim") {
        let i: usize = claim.task.spec.key["bench-".len()..]
            .parse()
            .expect("a bench key");
        let end = if i < tail {
            end_of(&mut rng, &claim, i)
        } else if i < tail + LEFT {
            // Left running: claimed, never finished (the lease outlives the benchmark).
            continue;
        } else {
            failed(&mut rng, AGENTS[i % 5], TaskState::RetryScheduled, lease)
        };
        store.finish(&claim, &end).await.expect("finish");
    }
}

/// `p` (0–100) of `values`.
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (sorted.len().saturating_sub(1)) as f64).round() as usize;
    sorted.get(rank).copied().unwrap_or(f64::NAN)
}

/// One page made `runs` times: its row of the table, or why it could not be made.
async fn time<F, Fut>(runs: usize, mut page: F) -> String
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<usize>>,
{
    let mut ms = Vec::with_capacity(runs);
    let mut bytes = 0;
    for _ in 0..runs {
        let start = Instant::now();
        match page().await {
            Ok(size) => bytes = size,
            Err(error) => return format!("error: {error} | | | |"),
        }
        ms.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let max = ms.iter().copied().fold(0.0, f64::max);
    format!(
        "{:.1} | {:.1} | {:.1} | {} KiB |",
        percentile(&ms, 50.0),
        percentile(&ms, 95.0),
        max,
        bytes / 1024
    )
}

/// Times every page of `source`; one Markdown row each.
async fn pages(backend: &str, source: &dyn Source, ids: &[String], runs: usize) -> String {
    let chrome = Chrome {
        source: source.describe(),
        kind: source.kind(),
        now: verdict_core::state::now_ms(),
        watermark: String::new(),
        actions: true,
        csrf: "bench".into(),
        flash: None,
        held: Vec::new(),
    };
    let chrome = &chrome;
    let queries = [
        (
            "queue",
            QueueQuery {
                per_page: 50,
                ..QueueQuery::default()
            },
        ),
        (
            "queue, state passed",
            QueueQuery {
                state: Some(State::Passed),
                per_page: 50,
                ..QueueQuery::default()
            },
        ),
        (
            "queue, search",
            QueueQuery {
                search: Some("ledger".into()),
                per_page: 50,
                ..QueueQuery::default()
            },
        ),
    ];
    let mut out = String::new();
    for (name, query) in &queries {
        let row = time(runs, || async {
            let view = source.queue(query).await?;
            Ok(render::queue_page(chrome, query, &view).into_string().len())
        })
        .await;
        out.push_str(&format!("| {backend} | {name} | {row}\n"));
    }
    let mut next = 0;
    let row = time(runs, || {
        next += 7;
        let id = ids
            .get(next % ids.len().max(1))
            .cloned()
            .unwrap_or_default();
        async move {
            let view = source.task(&id).await?;
            Ok(view.map_or(0, |view| {
                render::task_page(chrome, &view).into_string().len()
            }))
        }
    })
    .await;
    out.push_str(&format!("| {backend} | task | {row}\n"));
    let row = time(runs, || async {
        let view = source.analytics().await?;
        Ok(render::analytics_page(chrome, &view).into_string().len())
    })
    .await;
    out.push_str(&format!("| {backend} | analytics | {row}\n"));
    let row = time(runs, || async {
        let view = source.metrics().await?;
        Ok(render::metrics(&view, chrome.now).len())
    })
    .await;
    out.push_str(&format!("| {backend} | metrics | {row}\n"));
    out
}

/// Fills one backend's store and times its pages.
async fn bench(backend: &str, store: Arc<dyn Store>, s: &Settings, workspace: &str) -> String {
    let started = Instant::now();
    fill(Arc::clone(&store), s.tasks, workspace).await;
    eprintln!(
        "{backend}: {} tasks filled in {:.0} s",
        s.tasks,
        started.elapsed().as_secs_f64()
    );
    // Tasks with about three attempts, spread over the fleet.
    let ids: Vec<String> = store
        .tasks(&Selector::Campaign("campaign-3".into()))
        .await
        .expect("tasks")
        .iter()
        .map(|task| task.id.to_string())
        .collect();
    let source = FleetSource::new(Arc::clone(&store));
    pages(backend, &source, &ids, s.runs).await
}

/// A workspace's state database with `n` loop runs written as the driver writes them, one
/// commit per run: about three attempts each, verified with digests and fingerprints, most
/// passing; the ids of the runs.
fn fill_loop(path: &std::path::Path, n: usize) -> Vec<String> {
    let db = StateDb::open(path).expect("open the state database");
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let workspace = std::path::Path::new("/work/project");
    (0..n)
        .map(|i| {
            let task = new_task(i, "/work/project").task;
            let agent = AGENTS[i % AGENTS.len()];
            db.write(|batch| {
                let run = batch.create_run(&NewRun {
                    task: &task,
                    workspace,
                    config: serde_json::json!({"agents": [agent]}),
                    max_attempts: 4,
                })?;
                let last = 2 + (i % 3) as u32;
                for number in 1..=last {
                    loop_attempt(batch, run, number, number == last, agent, &mut rng)?;
                }
                Ok(run)
            })
            .expect("write a run")
            .to_string()
        })
        .collect()
}

/// One attempt of a loop run: agent, verification, and the move after it.
fn loop_attempt(
    batch: &verdict_core::state::Batch<'_>,
    run: RunId,
    number: u32,
    passes: bool,
    agent: &str,
    rng: &mut Rng,
) -> verdict_core::state::Result<()> {
    let attempt = batch.begin_attempt(run, number, agent, Some(3_000))?;
    batch.record_agent_process(attempt, 4242, 4242, 7)?;
    let finish = AttemptFinish {
        sessions: &[],
        session_outcome: "success",
        output_tail: "done",
        workspace_changed: true,
    };
    batch.finish_attempt(attempt, &finish)?;
    batch.transition(
        run,
        RunState::AgentRunning,
        RunState::Verifying,
        "agent finished",
    )?;
    let end = failed(rng, agent, TaskState::RetryScheduled, Duration::ZERO);
    let failures: Vec<FailureRef> = end
        .fingerprints
        .iter()
        .map(|label| FailureRef {
            fingerprint: Fingerprint::compute("jest", None, None, Some(label), "x"),
            label: label.clone(),
        })
        .collect();
    let outcome = if passes {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    let verification = NewVerification {
        outcome,
        category: (!passes).then_some(end.category.as_deref()).flatten(),
        confidence: None,
        location: None,
        failures: if passes { &[] } else { &failures },
        flaky: &[],
        tests_run: Some(120),
        digest: end.digest.as_deref().unwrap_or_default(),
        duration: Duration::from_millis(end.verify_ms),
    };
    batch.record_verification(run, Some(attempt), &verification)?;
    if passes {
        return batch.transition(run, RunState::Verifying, RunState::Passed, "verified green");
    }
    batch.transition(
        run,
        RunState::Verifying,
        RunState::RetryScheduled,
        &end.reason,
    )?;
    let payload = serde_json::json!({
        "next": number + 1, "delay_ms": 0, "guidance": "", "refresh": false, "last": false,
        "human": null,
    });
    batch.record_event(Some(run), "retry_scheduled", &payload)
}

fn main() {
    // `cargo bench` passes `--bench`; a test runner listing the targets (nextest's `--list`)
    // does not, and must not fill a fleet of 10 000 tasks.
    if !std::env::args().any(|a| a == "--bench") || std::env::args().any(|a| a == "--list") {
        return;
    }
    let s = settings();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let workspace = dir.path().join("project");
    std::fs::create_dir_all(&workspace).expect("mkdir");
    let workspace = workspace.to_string_lossy().into_owned();
    if let Some(path) = &s.fill_only {
        let store = verdict_fleet::SqliteStore::open(std::path::Path::new(path))
            .expect("open the SQLite store");
        runtime.block_on(fill(Arc::new(store), s.tasks, &workspace));
        return;
    }
    let mut out = format!(
        "{} tasks, {} runs per page; a page is the source's read and its render.\n\n\
         | backend | page | p50 ms | p95 ms | max ms | size |\n|---|---|--:|--:|--:|--:|\n",
        s.tasks, s.runs
    );
    runtime.block_on(async {
        if s.backend == "sqlite" || s.backend == "both" {
            let path = dir.path().join("fleet.db");
            let store = verdict_fleet::SqliteStore::open(&path).expect("open the SQLite store");
            out.push_str(&bench("SQLite", Arc::new(store), &s, &workspace).await);
        }
        if s.backend == "postgres" || s.backend == "both" {
            let url = verdict_test_support::postgres::database();
            let store = verdict_fleet::PgStore::connect(&url)
                .await
                .expect("connect to PostgreSQL");
            out.push_str(&bench("PostgreSQL", Arc::new(store), &s, &workspace).await);
        }
        if s.loop_runs > 0 {
            let path = dir.path().join(".verdict").join("state.db");
            let started = Instant::now();
            let ids = fill_loop(&path, s.loop_runs);
            eprintln!(
                "loop: {} runs written in {:.0} s",
                s.loop_runs,
                started.elapsed().as_secs_f64()
            );
            let source = LoopSource::new(path);
            let backend = format!("loop, {} runs", s.loop_runs);
            out.push_str(&pages(&backend, &source, &ids, s.runs).await);
        }
    });
    print!("{out}");
}
