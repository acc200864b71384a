//! The fleet's queue under load: `cargo xtask bench --fleet` (or `cargo bench -p verdict-fleet
//! --bench fleet -- [--tasks N] [--backend sqlite|postgres|both]`).
//!
//! Scripted instant agents and a trivial verifier: each attempt is an [`Attempts`] that answers
//! at once, failing the first `attempts - 1` claims of a task (a retry due at once) and passing
//! the last. Everything else is the real worker (`worker::work`: claims, heartbeats, the work
//! directory of an in-place task, the fenced finish) on the real store, wrapped in a store that
//! times each call.
//!
//! Two phases per backend:
//! - **throughput**: `tasks` tasks × `attempts` attempts through `slots` slots: transitions (claims
//!   and finishes) per second, the store's milliseconds per attempt, and on PostgreSQL the
//!   transactions per attempt (`pg_stat_database.xact_commit`);
//! - **due-to-claim latency while a slot is free**: 100 tasks of one priority whose first
//!   attempt fails with a retry delay of 2–5 s (seeded), through `slots` slots, so slots wait for
//!   tasks, not tasks for slots: the time from a retry's due time to its claim, p50 and p99, of
//!   the retries that came due while fewer than `slots` attempts were in flight.
//!
//! On PostgreSQL, `pgbench` (TPC-B-like, `slots` clients, 10 s) on the same server gives the
//! machine's own figure beside the queue's.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use verdict_fleet::worker::{self, Attempts, Live, Stop, WorkerOptions};
use verdict_fleet::{
    AgentLimit, AttemptEnd, AttemptRecord, Claim, Control, Counts, Facets, Gauges, HistoryRecord,
    LeaseState, ListPage, ListQuery, NewTask, Pruned, Rescued, Selector, Store, TaskId, TaskRecord,
    TaskState, WorkerId,
};

/// What one store call took, by kind.
#[derive(Default)]
struct Timings {
    claim: Vec<f64>,
    empty_claim: Vec<f64>,
    finish: Vec<f64>,
    heartbeat: Vec<f64>,
    counts: Vec<f64>,
    rescue: Vec<f64>,
    /// Each claimed retry: when it was due, and when its claim returned.
    retries: Vec<(Instant, Instant)>,
    /// When each task's scheduled retry is due, by this process's clock.
    due: std::collections::HashMap<TaskId, Instant>,
    /// Attempts in flight (claimed, not finished) from each instant on.
    in_flight: Vec<(Instant, usize)>,
}

impl Timings {
    /// Counts one more (or one fewer) attempt in flight from now on.
    fn flight(&mut self, delta: isize) {
        let now = self.in_flight.last().map_or(0, |(_, n)| *n);
        let next = now.saturating_add_signed(delta);
        self.in_flight.push((Instant::now(), next));
    }

    /// Attempts in flight at `at`.
    fn in_flight_at(&self, at: Instant) -> usize {
        self.in_flight
            .iter()
            .take_while(|(t, _)| *t <= at)
            .last()
            .map_or(0, |(_, n)| *n)
    }

    /// Milliseconds from due to claim of the retries that came due while a slot was free.
    fn due_to_claim(&self, slots: usize) -> Vec<f64> {
        self.retries
            .iter()
            .filter(|(due, _)| self.in_flight_at(*due) < slots)
            .map(|(due, claimed)| claimed.saturating_duration_since(*due).as_secs_f64() * 1000.0)
            .collect()
    }
}

/// A store that times every call of the one it wraps.
struct Timed {
    inner: Arc<dyn Store>,
    timings: Mutex<Timings>,
}

impl Timed {
    fn record(&self, pick: impl FnOnce(&mut Timings) -> &mut Vec<f64>, since: Instant) {
        let ms = since.elapsed().as_secs_f64() * 1000.0;
        let mut timings = self.timings.lock().expect("lock");
        pick(&mut timings).push(ms);
    }
}

#[async_trait]
impl Store for Timed {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    async fn add(&self, tasks: &[NewTask]) -> verdict_fleet::error::Result<Vec<(TaskId, bool)>> {
        self.inner.add(tasks).await
    }
    async fn set_limits(&self, limits: &[AgentLimit]) -> verdict_fleet::error::Result<()> {
        self.inner.set_limits(limits).await
    }
    async fn claim(
        &self,
        worker: &WorkerId,
        lease: Duration,
    ) -> verdict_fleet::error::Result<Option<Claim>> {
        let start = Instant::now();
        let claim = self.inner.claim(worker, lease).await?;
        match &claim {
            Some(claim) => {
                self.record(|t| &mut t.claim, start);
                let mut timings = self.timings.lock().expect("lock");
                timings.flight(1);
                if let Some(due) = timings.due.remove(&claim.task.id) {
                    timings.retries.push((due, Instant::now()));
                }
            }
            None => self.record(|t| &mut t.empty_claim, start),
        }
        Ok(claim)
    }
    async fn heartbeat(
        &self,
        claim: &Claim,
        lease: Duration,
    ) -> verdict_fleet::error::Result<LeaseState> {
        let start = Instant::now();
        let state = self.inner.heartbeat(claim, lease).await;
        self.record(|t| &mut t.heartbeat, start);
        state
    }
    async fn finish(&self, claim: &Claim, end: &AttemptEnd) -> verdict_fleet::error::Result<bool> {
        let start = Instant::now();
        let done = self.inner.finish(claim, end).await;
        self.record(|t| &mut t.finish, start);
        let mut timings = self.timings.lock().expect("lock");
        timings.flight(-1);
        if let Some(after) = end.retry_after {
            // The database set `next_retry_at` from its clock inside the finish's transaction,
            // after any wait for the connection: the return is later by the transaction's own
            // few milliseconds, so this is the due time or a little after it.
            timings.due.insert(claim.task.id, Instant::now() + after);
        }
        drop(timings);
        done
    }
    async fn rescue(&self) -> verdict_fleet::error::Result<Vec<Rescued>> {
        let start = Instant::now();
        let rescued = self.inner.rescue().await;
        self.record(|t| &mut t.rescue, start);
        rescued
    }
    async fn control(
        &self,
        s: &Selector,
        c: Control,
        note: Option<&str>,
    ) -> verdict_fleet::error::Result<u64> {
        self.inner.control(s, c, note).await
    }
    async fn retry(&self, task: &str, guidance: &str) -> verdict_fleet::error::Result<bool> {
        self.inner.retry(task, guidance).await
    }
    async fn task(&self, task: &str) -> verdict_fleet::error::Result<Option<TaskRecord>> {
        self.inner.task(task).await
    }
    async fn tasks(&self, s: &Selector) -> verdict_fleet::error::Result<Vec<TaskRecord>> {
        self.inner.tasks(s).await
    }
    async fn attempts(
        &self,
        task: Option<TaskId>,
    ) -> verdict_fleet::error::Result<Vec<AttemptRecord>> {
        self.inner.attempts(task).await
    }
    async fn events(&self, task: TaskId) -> verdict_fleet::error::Result<Vec<String>> {
        self.inner.events(task).await
    }
    async fn diff(&self, task: TaskId) -> verdict_fleet::error::Result<Option<String>> {
        self.inner.diff(task).await
    }
    async fn counts(&self) -> verdict_fleet::error::Result<Counts> {
        let start = Instant::now();
        let counts = self.inner.counts().await;
        self.record(|t| &mut t.counts, start);
        counts
    }
    async fn set_campaign_cap(
        &self,
        c: &str,
        cap: Option<f64>,
    ) -> verdict_fleet::error::Result<()> {
        self.inner.set_campaign_cap(c, cap).await
    }
    async fn hold(&self, agent: &str, hold: Duration) -> verdict_fleet::error::Result<()> {
        self.inner.hold(agent, hold).await
    }
    async fn held(&self) -> verdict_fleet::error::Result<Vec<(String, i64)>> {
        self.inner.held().await
    }
    async fn list(&self, q: &ListQuery) -> verdict_fleet::error::Result<ListPage> {
        self.inner.list(q).await
    }
    async fn history(&self, task: TaskId) -> verdict_fleet::error::Result<Vec<HistoryRecord>> {
        self.inner.history(task).await
    }
    async fn facets(&self) -> verdict_fleet::error::Result<Facets> {
        self.inner.facets().await
    }
    async fn gauges(&self) -> verdict_fleet::error::Result<Gauges> {
        self.inner.gauges().await
    }
    async fn watermark(&self) -> verdict_fleet::error::Result<String> {
        self.inner.watermark().await
    }
    async fn prune(&self, age: Duration, passed: bool) -> verdict_fleet::error::Result<Pruned> {
        self.inner.prune(age, passed).await
    }
}

/// Instant attempts: the first `attempts - 1` claims of a task fail with a retry after
/// `delay(task)`, the last passes.
struct Scripted {
    attempts: u32,
    delay: Box<dyn Fn(TaskId) -> Duration + Send + Sync>,
}

#[async_trait]
impl Attempts for Scripted {
    async fn run(&self, task: &TaskRecord, number: u32, _: &Path, _: Live) -> AttemptEnd {
        if number >= self.attempts {
            let mut end = AttemptEnd::ended(TaskState::Passed, "passed", "green".into());
            end.counted = true;
            return end;
        }
        let mut end = AttemptEnd::ended(TaskState::RetryScheduled, "failed", "red".into());
        end.counted = true;
        end.retry_after = Some((self.delay)(task.id));
        end.category = Some("test_failure".into());
        end
    }
}

/// `p` (0–100) of `values`, in ms.
fn percentile(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

struct Settings {
    tasks: usize,
    attempts: u32,
    slots: usize,
    backend: String,
}

fn settings() -> Settings {
    let mut s = Settings {
        tasks: 10_000,
        attempts: 3,
        slots: 16,
        backend: "both".into(),
    };
    let args: Vec<String> = std::env::args().collect();
    let mut i = 1;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--tasks" => s.tasks = value.parse().expect("--tasks N"),
            "--attempts" => s.attempts = value.parse().expect("--attempts N"),
            "--slots" => s.slots = value.parse().expect("--slots N"),
            "--backend" => s.backend = value,
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    s
}

/// Tasks on the plain directory `dir`, used in place, of three priorities.
fn tasks(n: usize, dir: &Path, prefix: &str) -> Vec<NewTask> {
    tasks_of(n, dir, prefix, 3)
}

/// Tasks on the plain directory `dir`, used in place, of `priorities` priorities.
fn tasks_of(n: usize, dir: &Path, prefix: &str, priorities: usize) -> Vec<NewTask> {
    (0..n)
        .map(|i| {
            let line = serde_json::json!({
                "key": format!("{prefix}-{i}"),
                "workspace": dir.to_string_lossy(),
                "task": "instant",
                "agent": "instant",
                "priority": (i % priorities) as i32,
            });
            NewTask::from_line(&line.to_string(), |_| unreachable!()).expect("a task")
        })
        .collect()
}

/// Runs the worker over `store` until idle.
async fn work(store: Arc<dyn Store>, attempts: Scripted, slots: usize, base: &Path) {
    let me = WorkerId {
        id: format!("bench-{}", std::process::id()),
        host: "bench".into(),
        pid: std::process::id(),
    };
    let options = WorkerOptions {
        concurrency: slots,
        lease: Duration::from_secs(60),
        heartbeat: Duration::from_secs(15),
        until_idle: true,
        poll: Duration::from_millis(500),
        min_free_bytes: 0,
        work_base: base.to_path_buf(),
        ..WorkerOptions::default()
    };
    let drain = Arc::new(Stop::default());
    worker::work(store, Arc::new(attempts), me, options, drain)
        .await
        .expect("the worker runs");
}

/// Where one phase's database is.
enum Backend {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

impl Backend {
    fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "SQLite",
            Backend::Postgres(_) => "PostgreSQL",
        }
    }

    async fn open(&self) -> Arc<dyn Store> {
        match self {
            Backend::Sqlite(path) => {
                Arc::new(verdict_fleet::SqliteStore::open(path).expect("open"))
            }
            Backend::Postgres(url) => {
                Arc::new(verdict_fleet::PgStore::connect(url).await.expect("connect"))
            }
        }
    }

    /// The database's committed transactions so far, once no connection to it is open.
    fn commits(&self) -> Option<i64> {
        match self {
            Backend::Sqlite(_) => None,
            Backend::Postgres(url) => Some(verdict_test_support::postgres::cluster().commits(url)),
        }
    }
}

/// The store's time per attempt, and what was timed.
fn timings(timed: &Timed) -> Timings {
    std::mem::take(&mut *timed.timings.lock().expect("lock"))
}

/// Phase one: `tasks` × `attempts` through `slots` slots; its Markdown row.
async fn throughput(backend: &Backend, s: &Settings, workspace: &Path, base: &Path) -> String {
    {
        let store = backend.open().await;
        for chunk in tasks(s.tasks, workspace, "t").chunks(500) {
            store.add(chunk).await.expect("add");
        }
    }
    // What opening a store costs in transactions (the migration check), to take off.
    let opened = match backend {
        Backend::Sqlite(_) => None,
        Backend::Postgres(_) => {
            let before = backend.commits();
            drop(backend.open().await);
            backend.commits().zip(before).map(|(a, b)| a - b)
        }
    };
    let before = backend.commits();
    let timed = Arc::new(Timed {
        inner: backend.open().await,
        timings: Mutex::default(),
    });
    let start = Instant::now();
    let attempts = Scripted {
        attempts: s.attempts,
        delay: Box::new(|_| Duration::ZERO),
    };
    work(timed.clone(), attempts, s.slots, base).await;
    let wall = start.elapsed().as_secs_f64();
    let t = timings(&timed);
    drop(timed);
    let after = backend.commits();
    let made = t.finish.len();
    assert_eq!(
        made,
        s.tasks * s.attempts as usize,
        "every attempt ran once"
    );
    let transitions = (t.claim.len() + t.finish.len()) as f64;
    let queue_ms: f64 = t
        .claim
        .iter()
        .chain(&t.finish)
        .chain(&t.heartbeat)
        .sum::<f64>()
        + t.empty_claim
            .iter()
            .chain(&t.counts)
            .chain(&t.rescue)
            .sum::<f64>();
    let xacts = match (before, after, opened) {
        (Some(b), Some(a), Some(o)) => format!("{:.2}", (a - b - o) as f64 / made as f64),
        _ => "—".into(),
    };
    format!(
        "| {} | {} × {} through {} slots | {wall:.1} s | {:.0} | {:.2} ms (claim p50 {:.2} / p99 {:.2}, finish p50 {:.2} / p99 {:.2}) | {xacts} |\n",
        backend.name(),
        s.tasks,
        s.attempts,
        s.slots,
        transitions / wall,
        queue_ms / made as f64,
        percentile(&t.claim, 50.0),
        percentile(&t.claim, 99.0),
        percentile(&t.finish, 50.0),
        percentile(&t.finish, 99.0),
    )
}

/// Tasks of the latency phase.
const LATE_TASKS: usize = 100;

/// Phase two: due-to-claim latency while slots are free; its Markdown row.
async fn latency(backend: &Backend, s: &Settings, workspace: &Path, base: &Path) -> String {
    let timed = Arc::new(Timed {
        inner: backend.open().await,
        timings: Mutex::default(),
    });
    // One priority: a retry due behind a pending task of a higher priority waits by design.
    timed
        .add(&tasks_of(LATE_TASKS, workspace, "l", 1))
        .await
        .expect("add");
    let attempts = Scripted {
        attempts: 2,
        // A seeded spread of delays, 2 to 5 s: the first attempts' burst of claims is over
        // before the retries come due, about 30 a second.
        delay: Box::new(|id| Duration::from_millis(2000 + (id as u64 * 7919) % 3000)),
    };
    work(timed.clone(), attempts, s.slots, base).await;
    let t = timings(&timed);
    let late = t.due_to_claim(s.slots);
    format!(
        "| {} | due-to-claim, {LATE_TASKS} retries due 2–5 s ahead, {} slots | | | p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} of {} retries came due with a slot free) | |\n",
        backend.name(),
        s.slots,
        percentile(&late, 50.0),
        percentile(&late, 99.0),
        percentile(&late, 100.0),
        late.len(),
        t.retries.len(),
    )
}

fn main() {
    // `cargo bench` passes `--bench`; a test runner listing or running the targets (`--list`,
    // `cargo test --benches`, nextest) does not, and must not start a ten-minute benchmark.
    if !std::env::args().any(|a| a == "--bench") || std::env::args().any(|a| a == "--list") {
        return;
    }
    let s = settings();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut out = String::from(
        "| backend | load | wall | transitions/s | queue time per attempt | transactions per attempt |\n|---|---|--:|--:|---|--:|\n",
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let workspace = dir.path().join("project");
    std::fs::create_dir_all(&workspace).expect("mkdir");
    let mut phases = Vec::new();
    if s.backend == "sqlite" || s.backend == "both" {
        phases.push([
            Backend::Sqlite(dir.path().join("one-slot.db")),
            Backend::Sqlite(dir.path().join("throughput.db")),
            Backend::Sqlite(dir.path().join("latency.db")),
        ]);
    }
    if s.backend == "postgres" || s.backend == "both" {
        let db = verdict_test_support::postgres::database;
        phases.push([
            Backend::Postgres(db()),
            Backend::Postgres(db()),
            Backend::Postgres(db()),
        ]);
    }
    // One slot: each call's own cost, with no queueing behind other slots' calls.
    let alone = Settings {
        tasks: (s.tasks / 10).max(1),
        attempts: s.attempts,
        slots: 1,
        backend: s.backend.clone(),
    };
    let only_latency = std::env::args().any(|a| a == "--only-latency");
    for [one, many, late] in &phases {
        if !only_latency {
            out.push_str(&runtime.block_on(throughput(one, &alone, &workspace, dir.path())));
            out.push_str(&runtime.block_on(throughput(many, &s, &workspace, dir.path())));
        }
        out.push_str(&runtime.block_on(latency(late, &s, &workspace, dir.path())));
        eprint!("{out}");
    }
    if !only_latency && (s.backend == "postgres" || s.backend == "both") {
        out.push_str(&pgbench(s.slots));
    }
    println!("{out}");
}

/// `pgbench` on the same server: initialised at scale 1, then `clients` clients for 10 s.
fn pgbench(clients: usize) -> String {
    let cluster = verdict_test_support::postgres::cluster();
    let url = verdict_test_support::postgres::database();
    let run = |args: &[&str]| {
        std::process::Command::new(cluster.program("pgbench"))
            .args(args)
            .arg(&url)
            .output()
            .expect("pgbench starts")
    };
    let init = run(&["-i", "-q", "-s", "1"]);
    assert!(init.status.success(), "pgbench -i: {init:?}");
    let clients = clients.to_string();
    let bench = run(&["-c", &clients, "-j", "2", "-T", "10", "-n"]);
    let text = String::from_utf8_lossy(&bench.stdout);
    let tps = text
        .lines()
        .find(|l| l.starts_with("tps"))
        .unwrap_or("tps: not reported")
        .to_owned();
    format!("| PostgreSQL | pgbench TPC-B-like, {clients} clients, 10 s | | | {tps} | 1 |\n")
}
