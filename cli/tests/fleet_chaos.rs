//! Chaos and partition tests of `verdict fleet`: workers killed with SIGKILL at fixed points of
//! an attempt and at random moments, and a worker stopped with SIGSTOP past its lease. They run
//! the real binary on a cheap project (`cli/tests/fleet_chaos/project`: a script verifier that
//! checks the file the agent writes, so an attempt costs well under a second) and a scripted
//! agent (`cli/tests/fleet_chaos/agent.py`) that appends each session to a ledger outside the
//! database. What must hold, read from the ledger and from /proc as well as from the fleet:
//! every task ends in a final state, each attempt ran once, no agent outlives its task, and a
//! lost lease writes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::fleet::{Out, finish, gone_within, is_dead, signal};
use crate::r#loop::quote;
use crate::support::project::Project;

/// How long one `verdict fleet` command may take before the test gives up on it.
const LIMIT: Duration = Duration::from_secs(240);

/// The states a task ends in.
const FINAL: [&str; 5] = ["passed", "escalated", "failed", "expired", "cancelled"];

/// The database the tests of this file run on, chosen here in one place.
#[derive(Debug, Clone, Copy)]
enum Backend {
    /// A SQLite file in the test's directory.
    Sqlite,
}

impl Backend {
    /// The backend under test.
    fn current() -> Backend {
        Backend::Sqlite
    }

    /// The `--state` of a fresh database for one test whose files are in `dir`.
    fn state(self, dir: &Path) -> String {
        match self {
            Backend::Sqlite => dir.join("fleet.db").to_string_lossy().into_owned(),
        }
    }
}

/// This file's fixtures.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fleet_chaos")
}

/// A fleet in a temporary directory: the chaos project as a git repository, the database, the
/// work directories, the ledger, the agents' ready files and the pause markers.
struct Chaos {
    repo: Project,
    dir: tempfile::TempDir,
    state: String,
}

impl Chaos {
    fn new() -> Chaos {
        let dir = tempfile::Builder::new()
            .prefix("verdict-chaos-")
            .tempdir()
            .expect("a temporary directory");
        let repo = Project::empty();
        verdict_test_support::copy_dir_except(
            &fixtures().join("project"),
            repo.root(),
            &["__pycache__", ".verdict"],
        );
        repo.write(".gitignore", ".verdict/\n__pycache__/\n");
        repo.git_init();
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "the chaos project"]);
        for sub in ["ready", "marks"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        let state = Backend::current().state(dir.path());
        Chaos { repo, dir, state }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// A task line: the repository at HEAD in a worktree, the agent in `mode`.
    fn task(&self, key: &str, mode: &str) -> Value {
        let agent = format!(
            "python3 {} {mode} --ledger {} --task {} --ready {}",
            quote(&fixtures().join("agent.py").to_string_lossy()),
            quote(&self.path("ledger.jsonl").to_string_lossy()),
            quote(key),
            quote(&self.path("ready").to_string_lossy()),
        );
        json!({
            "key": key,
            "workspace": self.repo.root().to_string_lossy(),
            "rev": "HEAD",
            "task": "Write `done` into work.txt.",
            "agent": agent,
            "max_attempts": 3,
        })
    }

    fn command(&self, args: &[&str], env: &[(&str, String)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_verdict"));
        command
            .arg("fleet")
            .args(args)
            .args(["--state", &self.state])
            .current_dir(self.dir.path())
            .env("VERDICT_STATE_DIR", ".verdict")
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .env_remove(PAUSE_ENV)
            .env_remove("CHAOS_PAUSE_VERIFY")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null());
        command
    }

    /// Runs `verdict fleet ARGS --state …` to its end.
    fn run(&self, args: &[&str]) -> Out {
        let child = self
            .command(args, &[])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("verdict starts");
        finish(child, LIMIT)
    }

    /// Starts a worker (`work --min-free-disk 1 ARGS`), its output to `NAME.out` and `NAME.err`.
    fn spawn(&self, args: &[&str], env: &[(&str, String)], name: &str) -> Child {
        let out = std::fs::File::create(self.path(&format!("{name}.out"))).expect("create");
        let err = std::fs::File::create(self.path(&format!("{name}.err"))).expect("create");
        let mut all = vec!["work", "--min-free-disk", "1"];
        all.extend(args);
        self.command(&all, env)
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("verdict starts")
    }

    /// What worker `name` printed on stderr.
    fn stderr_of(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(&format!("{name}.err"))).unwrap_or_default()
    }

    /// Adds `tasks` as a JSONL file.
    fn add(&self, tasks: &[Value]) {
        let text: String = tasks.iter().map(|t| format!("{t}\n")).collect();
        let file = self.path("tasks.jsonl");
        std::fs::write(&file, text).expect("write the tasks");
        let out = self.run(&["add", "--file", &file.to_string_lossy()]);
        assert_eq!(out.code, 0, "{out:?}");
    }

    /// Every task as `status --format json` shows it.
    fn tasks(&self) -> Vec<Value> {
        let out = self.run(&["status", "--format", "json"]);
        assert_eq!(out.code, 0, "{out:?}");
        let status: Value = serde_json::from_str(&out.stdout).expect("status prints JSON");
        status["tasks"].as_array().cloned().unwrap_or_default()
    }

    /// The task `key`.
    fn task_status(&self, key: &str) -> Value {
        self.tasks()
            .into_iter()
            .find(|t| t["key"] == key)
            .unwrap_or_else(|| panic!("no task {key}"))
    }

    /// The attempts `fleet history KEY` records.
    fn attempts(&self, key: &str) -> Vec<Value> {
        let out = self.run(&["history", key, "--format", "json"]);
        assert_eq!(out.code, 0, "{out:?}");
        let history: Value = serde_json::from_str(&out.stdout).expect("history prints JSON");
        history["attempts"].as_array().cloned().unwrap_or_default()
    }

    /// Every agent session that started, by its ledger line, with `"ended": true` added to
    /// those that came to their end while their worker lived (one that ran on after its worker
    /// died ended unseen: its attempt was interrupted).
    fn ledger(&self) -> Vec<Value> {
        let lines: Vec<Value> = std::fs::read_to_string(self.path("ledger.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).expect("a ledger line"))
            .collect();
        let ends: BTreeSet<(String, u64)> = lines
            .iter()
            .filter(|l| l["end"] == true && l["orphaned"] == false)
            .map(|l| (l["task"].to_string(), l["call"].as_u64().unwrap_or(0)))
            .collect();
        lines
            .into_iter()
            .filter(|l| l["end"].is_null())
            .map(|mut l| {
                let key = (l["task"].to_string(), l["call"].as_u64().unwrap_or(0));
                l["ended"] = json!(ends.contains(&key));
                l
            })
            .collect()
    }

    /// Stops the worker `pid` (SIGSTOP) at a moment it holds no write lock on the database.
    /// Stopped inside a write, it would hold the lock until it runs again, and every other
    /// worker's write would wait for it: the fleet stands still, which is what SQLite does, not
    /// a lease running out, which is what the tests that stop a worker are about.
    fn stop_between_writes(&self, pid: u32) {
        let start = Instant::now();
        loop {
            signal(pid, "STOP");
            let free = rusqlite::Connection::open(&self.state)
                .and_then(|probe| {
                    // A stopped holder lets go only once it runs again: no use waiting.
                    probe.busy_timeout(Duration::ZERO)?;
                    probe.execute_batch("BEGIN IMMEDIATE; ROLLBACK;")
                })
                .is_ok();
            if free {
                return;
            }
            signal(pid, "CONT");
            assert!(
                start.elapsed() < LIMIT,
                "the worker {pid} never let go of the write lock"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Waits for `file` to hold a pid (a marker a paused process wrote), while `worker` runs.
    fn wait_for(&self, file: &Path, worker: &mut Child) -> Option<i32> {
        let start = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(file) {
                return text.trim().parse().ok();
            }
            if let Ok(Some(status)) = worker.try_wait() {
                panic!(
                    "the worker ended ({status}) before {} appeared: {}",
                    file.display(),
                    self.stderr_of("w1")
                );
            }
            assert!(start.elapsed() < LIMIT, "{} never appeared", file.display());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// What must hold once the fleet is idle, whatever was killed: no agent is left; every
    /// task ended, and passed (every task here can pass within its attempts, and an
    /// interrupted attempt does not count); no two sessions of a task overlapped (their calls
    /// count up by one) and no attempt's agent ran to its end twice while its worker lived (the
    /// loop's attempt number); each task's sessions are those its recorded attempts ran, plus at most one per
    /// interrupted attempt; the interrupted ones are not counted.
    ///
    /// `killed` names the workers killed: an agent that ended just before its worker was
    /// killed, before the worker recorded the end, is run again (nobody saw it end, so its
    /// work is not trusted); such repeats are counted in the report, and allowed only there.
    fn check_idle(&self, killed: &BTreeSet<u32>) -> Report {
        let ledger = self.ledger();
        for line in &ledger {
            let pid = line["pid"].as_i64().expect("a pid") as i32;
            // A moment for one stopped a moment ago to be reaped.
            assert!(
                !agent_alive(pid) || gone_within(pid, Duration::from_secs(3)),
                "the agent {pid} of {} survived its task",
                line["task"]
            );
        }
        let tasks = self.tasks();
        let mut sessions: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
        for line in &ledger {
            let task = line["task"].as_str().expect("a task").to_owned();
            sessions.entry(task).or_default().push(line);
        }
        let mut report = Report::default();
        for task in &tasks {
            let key = task["key"].as_str().expect("a key");
            assert!(
                FINAL.contains(&task["state"].as_str().unwrap_or_default()),
                "task {key} did not end: {task:#}"
            );
            assert_eq!(task["state"], "passed", "{task:#}");
            let mine = sessions.remove(key).unwrap_or_default();
            let calls: Vec<u64> = mine.iter().filter_map(|l| l["call"].as_u64()).collect();
            let expected: Vec<u64> = (1..=calls.len() as u64).collect();
            assert_eq!(
                calls, expected,
                "task {key}: a session repeated or overlapped"
            );
            // A session cut short (or that ended unseen) is run again under its attempt's
            // number; one that came to its end before its worker's eyes never is.
            let mut seen = BTreeSet::new();
            for line in mine.iter().filter(|l| l["ended"] == true) {
                let attempt = line["attempt"].as_u64();
                let worker = line["worker"].as_u64().unwrap_or(0) as u32;
                if !seen.insert(attempt) {
                    panic!("task {key}: an attempt's agent ran to its end twice: {mine:#?}");
                }
                if killed.contains(&worker) {
                    // Its worker died after it: the next session may repeat its attempt.
                    seen.remove(&attempt);
                    report.unseen_ends += 1;
                }
            }
            let attempts = self.attempts(key);
            let with_agent = attempts.iter().filter(|a| !a["agent"].is_null()).count();
            let interrupted: Vec<&Value> = attempts
                .iter()
                .filter(|a| a["outcome"] == "interrupted")
                .collect();
            for a in &interrupted {
                assert_eq!(a["counted"], false, "task {key}: {a:#}");
            }
            let counted = attempts.iter().filter(|a| a["counted"] == true).count();
            assert_eq!(task["attempts"], counted, "task {key}: {attempts:#?}");
            assert!(
                (with_agent..=with_agent + interrupted.len()).contains(&mine.len()),
                "task {key}: {} sessions in the ledger, {with_agent} attempts with an agent and \
                 {} interrupted: {attempts:#?}",
                mine.len(),
                interrupted.len()
            );
            report.sessions += mine.len();
            report.attempts += attempts.len();
            report.interrupted += interrupted.len();
            for a in &interrupted {
                let worker = a["worker"].as_str().unwrap_or_default().to_owned();
                let reason = a["reason"].as_str().unwrap_or_default().to_owned();
                report.interrupted_by.push((worker, reason));
            }
            report.unrecorded_sessions += mine.len() - with_agent;
        }
        assert!(
            sessions.is_empty(),
            "sessions of unknown tasks: {sessions:?}"
        );
        report
    }
}

/// What [`Chaos::check_idle`] counted.
#[derive(Debug, Default)]
struct Report {
    sessions: usize,
    attempts: usize,
    interrupted: usize,
    /// Sessions of interrupted attempts (the ledger has them, the fleet's record does not).
    unrecorded_sessions: usize,
    /// Sessions that ended under a worker killed later.
    unseen_ends: usize,
    /// The worker and the reason of each interrupted attempt.
    interrupted_by: Vec<(String, String)>,
}

/// The worker's pause points: `POINT:DIR` (`core/fleet/src/worker.rs`).
const PAUSE_ENV: &str = "VERDICT_FLEET_PAUSE_AT";

/// Whether `pid` is a live process of this file's scripted agent.
fn agent_alive(pid: i32) -> bool {
    !is_dead(pid)
        && std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains("fleet_chaos/agent.py"))
}

/// Where an attempt's worker is killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point {
    /// The claim is written; nothing else is done.
    Claimed,
    /// The work directory is made.
    Prepared,
    /// The agent runs.
    AgentRunning,
    /// The agent is done; the verifier runs.
    Verifying,
    /// The attempt ended; its result is not yet written.
    Ran,
}

/// Kills a worker at `point` of its first attempt, then lets another run the fleet until idle,
/// and checks what must hold.
fn killed_at(point: Point) {
    let started = Instant::now();
    let chaos = Chaos::new();
    let victim_mode = if point == Point::AgentRunning {
        "sleep-then-done"
    } else {
        "done"
    };
    let mut victim = chaos.task("victim", victim_mode);
    victim["priority"] = json!(10);
    chaos.add(&[
        victim,
        chaos.task("b", "done-on-second"),
        chaos.task("c", "done"),
    ]);
    let marks = chaos.path("marks");
    let marks_text = marks.to_string_lossy().into_owned();
    let env = match point {
        Point::Claimed => vec![(PAUSE_ENV, format!("claimed:{marks_text}"))],
        Point::Prepared => vec![(PAUSE_ENV, format!("prepared:{marks_text}"))],
        Point::Ran => vec![(PAUSE_ENV, format!("ran:{marks_text}"))],
        Point::Verifying => vec![("CHAOS_PAUSE_VERIFY", marks_text.clone())],
        Point::AgentRunning => Vec::new(),
    };
    let mut w1 = chaos.spawn(&["--lease", "3"], &env, "w1");
    let mark = match point {
        Point::Claimed => marks.join(format!("claimed-{}", w1.id())),
        Point::Prepared => marks.join(format!("prepared-{}", w1.id())),
        Point::Ran => marks.join(format!("ran-{}", w1.id())),
        Point::Verifying => marks.join("verifying"),
        Point::AgentRunning => chaos.path("ready/victim.ready"),
    };
    // The pause points write an empty marker; the agent and the verifier write their pid.
    let paused = chaos.wait_for(&mark, &mut w1);
    let held = chaos.task_status("victim");
    assert_eq!(held["state"], "running", "{held:#}");
    let killed = BTreeSet::from([w1.id()]);
    signal(w1.id(), "KILL");
    let _ = w1.wait();

    // Its own lease longer, so that a busy machine does not take its live work back.
    let w2 = chaos.spawn(
        &["--until-idle", "--lease", "8", "--concurrency", "2"],
        &[],
        "w2",
    );
    let out = finish(w2, LIMIT);
    assert_eq!(out.code, 0, "{}", chaos.stderr_of("w2"));

    let report = chaos.check_idle(&killed);
    // The killed attempt: the first claim of the victim, interrupted, not counted.
    let attempts = chaos.attempts("victim");
    assert_eq!(attempts[0]["outcome"], "interrupted", "{attempts:#?}");
    assert_eq!(attempts[0]["counted"], false, "{attempts:#?}");
    assert_eq!(report.interrupted, 1, "{report:?}");
    // Exactly the sessions the fleet records, plus the killed attempt's when it reached its
    // agent.
    let reached_agent = matches!(point, Point::AgentRunning | Point::Verifying | Point::Ran);
    assert_eq!(
        report.unrecorded_sessions,
        usize::from(reached_agent),
        "{report:?}"
    );
    let victim_sessions = chaos
        .ledger()
        .iter()
        .filter(|l| l["task"] == "victim")
        .count();
    // The victim's work was done once: its agent is not run again after a kill once it ran
    // to its end (verifying, ran); a session cut short is run again.
    let expected = if point == Point::AgentRunning { 2 } else { 1 };
    assert_eq!(victim_sessions, expected, "{:#?}", chaos.ledger());
    // The process the worker was killed beside does not outlive it: the agent, the verifier.
    if let Some(pid) = paused {
        assert!(
            gone_within(pid, Duration::from_secs(10)),
            "{pid} (paused at {point:?}) survived"
        );
    }
    eprintln!("killed at {point:?}: {report:?} in {:?}", started.elapsed());
}

#[test]
fn a_worker_killed_once_it_claimed_loses_nothing() {
    killed_at(Point::Claimed);
}

#[test]
fn a_worker_killed_once_it_prepared_the_work_directory_loses_nothing() {
    killed_at(Point::Prepared);
}

#[test]
fn a_worker_killed_while_its_agent_runs_loses_nothing() {
    killed_at(Point::AgentRunning);
}

#[test]
fn a_worker_killed_while_it_verifies_loses_nothing() {
    killed_at(Point::Verifying);
}

#[test]
fn a_worker_killed_before_it_writes_the_result_loses_nothing() {
    killed_at(Point::Ran);
}

/// A small seeded generator (splitmix64): a chaos run's kills are replayed from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A worker process of the random run, killed if the test ends while it runs.
struct Worker(Child, String);

impl Drop for Worker {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The seed of a random chaos run: `VERDICT_CHAOS_SEED` replays one.
fn chaos_seed() -> u64 {
    std::env::var("VERDICT_CHAOS_SEED")
        .ok()
        .and_then(|seed| seed.trim().parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Tasks of the random chaos run: `VERDICT_CHAOS_TASKS`, else 60, which a debug build on two
/// busy cores runs in about a minute and a half (an attempt costs about a second of CPU).
fn chaos_tasks() -> usize {
    std::env::var("VERDICT_CHAOS_TASKS")
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(60)
}

/// Worker processes at once.
const WORKERS: usize = 3;
/// How many workers are killed, in all. Bounded so that the leases can be long: each kill
/// leaves up to `--concurrency` tasks waiting a lease before they are rescued.
const KILLS: usize = 6;

#[test]
fn a_fleet_survives_workers_killed_at_random_moments() {
    let started = Instant::now();
    let seed = chaos_seed();
    eprintln!("chaos seed {seed} (VERDICT_CHAOS_SEED={seed} replays its kills)");
    let mut rng = Rng(seed);
    let count = chaos_tasks();
    // About a second of CPU an attempt, on two busy cores.
    let limit = LIMIT.max(Duration::from_secs(3 * count as u64));
    let chaos = Chaos::new();
    // Most tasks pass at once, some fail once then pass, some have an agent that takes a
    // while (so that kills land while agents run).
    let tasks: Vec<Value> = (0..count)
        .map(|i| {
            let mode = match rng.below(10) {
                0..=6 => "done",
                7..=8 => "done-on-second",
                _ => "sleep",
            };
            chaos.task(&format!("t{i:03}"), mode)
        })
        .collect();
    chaos.add(&tasks);
    // A lease long enough that a starved machine never takes back live work: a worker that
    // was not killed must never lose a lease.
    let args = ["--until-idle", "--concurrency", "4", "--lease", "10"];
    let mut names = 0;
    let mut spawn = |chaos: &Chaos| {
        names += 1;
        let name = format!("w{names}");
        Worker(chaos.spawn(&args, &[], &name), name)
    };
    let mut workers: Vec<Worker> = (0..WORKERS).map(|_| spawn(&chaos)).collect();
    let mut kills = Vec::new();
    let mut killed = BTreeSet::new();
    let mut next_kill = Instant::now() + Duration::from_millis(500 + rng.below(2500));
    while !workers.is_empty() {
        // A worker that ended by itself found the fleet idle, and lost no lease.
        let mut i = 0;
        while i < workers.len() {
            if let Ok(Some(status)) = workers[i].0.try_wait() {
                let name = workers.remove(i).1.clone();
                assert!(status.success(), "{name}: {}", chaos.stderr_of(&name));
            } else {
                i += 1;
            }
        }
        if kills.len() < KILLS && Instant::now() >= next_kill && !workers.is_empty() {
            let victim = rng.below(workers.len() as u64) as usize;
            let mut worker = workers.remove(victim);
            signal(worker.0.id(), "KILL");
            let _ = worker.0.wait();
            killed.insert(worker.0.id());
            kills.push((started.elapsed(), worker.1.clone()));
            // The killed worker is replaced, as a supervisor would.
            workers.push(spawn(&chaos));
            next_kill = Instant::now() + Duration::from_millis(300 + rng.below(3000));
        }
        assert!(
            started.elapsed() < limit,
            "the fleet was not idle after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let ran = started.elapsed();
    eprintln!("killed {kills:?}; idle after {ran:?}");
    let report = chaos.check_idle(&killed);
    assert_eq!(kills.len(), KILLS, "the fleet was idle before every kill");
    // Only the killed workers' attempts were taken back (at most `--concurrency` each), and
    // attempts handed back while a dead worker's loop still held the work directory.
    let mut rescued = 0;
    for (worker, reason) in &report.interrupted_by {
        // A worker's id is `host-pid-random`.
        let pid = worker.rsplit('-').nth(1).and_then(|p| p.parse().ok());
        if pid.is_some_and(|pid| killed.contains(&pid)) {
            rescued += 1;
        } else {
            assert!(
                reason.contains("verdict loop"),
                "the attempt of a live worker {worker} was interrupted: {reason}"
            );
        }
    }
    assert!(
        rescued <= 4 * KILLS,
        "{rescued} attempts taken back from {KILLS} killed workers"
    );
    eprintln!(
        "{count} tasks, {KILLS} kills: {} sessions, {} attempts, {} interrupted, {} sessions \
         unrecorded, {} ended unseen; the fleet idle after {ran:?}, checked after {:?}",
        report.sessions,
        report.attempts,
        report.interrupted,
        report.unrecorded_sessions,
        report.unseen_ends,
        started.elapsed()
    );
}

#[test]
fn a_worker_stopped_past_its_lease_writes_nothing_when_it_comes_back() {
    let started = Instant::now();
    let chaos = Chaos::new();
    chaos.add(&[chaos.task("p", "sleep-then-done")]);
    let mut w1 = chaos.spawn(&["--lease", "3"], &[], "w1");
    let w1_pid = w1.id();
    let agent = chaos
        .wait_for(&chaos.path("ready/p.ready"), &mut w1)
        .expect("the agent's pid");
    // Cut off: the worker no longer runs, its agent does (in a process group of its own).
    let _unstop = Unstop(w1_pid);
    chaos.stop_between_writes(w1_pid);
    let w2 = chaos.spawn(&["--until-idle", "--lease", "8"], &[], "w2");
    let w2_pid = w2.id();
    // The second worker takes the lease back once it ran out, but not the work directory:
    // the first worker's loop still holds it, so its attempt is handed back uncounted to be
    // tried again (no agent of the task starts while the first one may still edit the tree).
    let start = Instant::now();
    loop {
        let attempts = chaos.attempts("p");
        if attempts.len() >= 2 && attempts[1]["finished_at"].is_i64() {
            assert_eq!(attempts[0]["outcome"], "interrupted", "{attempts:#?}");
            assert_eq!(attempts[1]["outcome"], "interrupted", "{attempts:#?}");
            assert_eq!(attempts[1]["counted"], false, "{attempts:#?}");
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the second worker did not take the lease back: {attempts:#?}\n{}",
            chaos.stderr_of("w2")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let waiting = chaos.task_status("p");
    assert_eq!(waiting["state"], "retry_scheduled", "{waiting:#}");
    assert_eq!(waiting["attempts"], 0, "{waiting:#}");
    assert_eq!(chaos.ledger().len(), 1, "{:#?}", chaos.ledger());
    let before = chaos.attempts("p");

    // Back: its next heartbeat finds the lease lost, and it stops its agent and writes
    // nothing. Told to stop (before the task is due again, which it would take as any other),
    // it says it lost a lease and exits non-zero.
    signal(w1.id(), "CONT");
    assert!(
        gone_within(agent, Duration::from_secs(5)),
        "the first worker's agent {agent} still runs"
    );
    signal(w1.id(), "TERM");
    let out = finish(w1, Duration::from_secs(60));
    let said = chaos.stderr_of("w1");
    assert_ne!(out.code, 0, "{said}");
    assert!(said.contains("1 attempt(s) lost their lease"), "{said}");
    // The second worker goes on with the task and passes it.
    let out = finish(w2, LIMIT);
    assert_eq!(out.code, 0, "{}", chaos.stderr_of("w2"));
    let task = chaos.task_status("p");
    assert_eq!(task["state"], "passed", "{task:#}");
    let attempts = chaos.attempts("p");
    let outcomes: Vec<&str> = attempts
        .iter()
        .map(|a| a["outcome"].as_str().unwrap_or("running"))
        .collect();
    assert_eq!(
        outcomes,
        ["interrupted", "interrupted", "passed"],
        "{attempts:#?}"
    );
    // What the first worker's attempt and the hand-back recorded stands as it was.
    assert_eq!(
        attempts[..2],
        before[..2],
        "the first worker's return changed the record"
    );
    let by = attempts[0]["worker"].as_str().unwrap_or_default();
    assert!(by.contains(&format!("-{w1_pid}-")), "{by} is not {w1_pid}");
    for a in &attempts[1..] {
        let by = a["worker"].as_str().unwrap_or_default();
        assert!(
            by.contains(&format!("-{w2_pid}-")),
            "attempt {} by {by}, not by the second worker ({w2_pid})",
            a["number"]
        );
    }
    chaos.check_idle(&BTreeSet::new());
    eprintln!("partition by SIGSTOP: {:?}", started.elapsed());
}

/// Kills a worker the test stopped, when the test ends before it did: a worker left stopped
/// would never end.
struct Unstop(u32);

impl Drop for Unstop {
    fn drop(&mut self) {
        let pid = self.0;
        let ours = std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains("verdict-chaos-"));
        if ours && !is_dead(pid as i32) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}
