//! `verdict fleet` end to end: the real binary, a git repository with the pytest cart project,
//! tasks checked out into worktrees, a scripted agent that records every attempt in a ledger
//! outside the database (`cli/tests/fleet/agent.py`), and the real pytest verifying.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::r#loop::quote;
use crate::support::project::{Project, path_with_node};

/// How long one `verdict fleet` command may take before the test gives up on it.
const LIMIT: Duration = Duration::from_secs(240);

/// The scripted agent.
fn agent_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fleet/agent.py")
}

/// A fleet in a temporary directory: the cart project as a git repository, the database, the
/// work directories, the ledger and the agents' ready files.
pub(crate) struct Fleet {
    pub(crate) repo: Project,
    dir: tempfile::TempDir,
    pub(crate) state: String,
}

/// What one `verdict fleet` command did.
#[derive(Debug)]
pub(crate) struct Out {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Out {
    fn all(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl Fleet {
    /// A fleet on a SQLite file.
    pub(crate) fn sqlite() -> Fleet {
        let dir = tempfile::Builder::new()
            .prefix("verdict-fleet-")
            .tempdir()
            .expect("a temporary directory");
        let state = dir.path().join("fleet.db").to_string_lossy().into_owned();
        Fleet::with_state(dir, state)
    }

    /// A fleet on a fresh database of the test process's PostgreSQL cluster.
    pub(crate) fn postgres() -> Fleet {
        let dir = tempfile::Builder::new()
            .prefix("verdict-fleet-")
            .tempdir()
            .expect("a temporary directory");
        Fleet::with_state(dir, verdict_test_support::postgres::database())
    }

    fn with_state(dir: tempfile::TempDir, state: String) -> Fleet {
        let repo = Project::empty();
        verdict_test_support::copy_dir_except(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/loop/cart"),
            repo.root(),
            &["__pycache__", ".pytest_cache", ".verdict"],
        );
        repo.write(
            ".gitignore",
            ".venv\n.verdict/\n__pycache__/\n.pytest_cache/\n",
        );
        repo.git_init();
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "the cart"]);
        std::fs::create_dir_all(dir.path().join("ready")).expect("mkdir");
        Fleet { repo, dir, state }
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// The agent's command line for `mode`, recording under `key`.
    fn agent(&self, mode: &str, key: &str) -> String {
        format!(
            "python3 {} {mode} --ledger {} --task {} --ready {}",
            quote(&agent_script().to_string_lossy()),
            quote(&self.path("ledger.jsonl").to_string_lossy()),
            quote(key),
            quote(&self.path("ready").to_string_lossy()),
        )
    }

    /// A task line: the repository at HEAD in a worktree, the shared venv linked by its setup.
    pub(crate) fn task(&self, key: &str, mode: &str) -> Value {
        let venv = verdict_test_support::tool("venv");
        json!({
            "key": key,
            "workspace": self.repo.root().to_string_lossy(),
            "rev": "HEAD",
            "setup": format!("ln -s {} .venv", quote(&venv.to_string_lossy())),
            "task": "Make the failing cart tests pass: discount() must take the percentage off.",
            "agent": self.agent(mode, key),
            "max_attempts": 3,
        })
    }

    fn command(&self, args: &[&str]) -> Command {
        self.command_with(
            Command::new(env!("CARGO_BIN_EXE_verdict")),
            &self.state,
            args,
        )
    }

    /// `verdict fleet ARGS --state STATE` run by `command` (verdict itself, or a wrapper that
    /// runs it).
    fn command_with(&self, mut command: Command, state: &str, args: &[&str]) -> Command {
        command
            .arg("fleet")
            .args(args)
            .args(["--state", state])
            .current_dir(self.dir.path())
            .env("VERDICT_STATE_DIR", ".verdict")
            .env("PATH", path_with_node())
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .stdin(Stdio::null());
        command
    }

    /// Runs `verdict fleet ARGS --state …` to its end.
    pub(crate) fn run(&self, args: &[&str]) -> Out {
        let child = self
            .command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("verdict starts");
        finish(child, LIMIT)
    }

    /// Starts `verdict fleet ARGS --state …`, output to files beside the fleet.
    pub(crate) fn spawn(&self, args: &[&str], name: &str) -> Child {
        let out = std::fs::File::create(self.path(&format!("{name}.out"))).expect("create");
        let err = std::fs::File::create(self.path(&format!("{name}.err"))).expect("create");
        self.command(args)
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("verdict starts")
    }

    /// Adds `tasks` as a JSONL file.
    pub(crate) fn add(&self, tasks: &[Value]) -> Out {
        let text: String = tasks.iter().map(|t| format!("{t}\n")).collect();
        let file = self.path("tasks.jsonl");
        std::fs::write(&file, text).expect("write the tasks");
        self.run(&["add", "--file", &file.to_string_lossy()])
    }

    /// Works until nothing waits.
    pub(crate) fn work(&self, extra: &[&str]) -> Out {
        let mut args = vec!["work", "--until-idle", "--min-free-disk", "1"];
        args.extend(extra);
        let out = self.run(&args);
        assert_eq!(out.code, 0, "{}", out.all());
        out
    }

    /// `status --format json`.
    pub(crate) fn status(&self) -> Value {
        let out = self.run(&["status", "--format", "json"]);
        assert_eq!(out.code, 0, "{}", out.all());
        serde_json::from_str(&out.stdout).expect("status prints JSON")
    }

    /// The task `key` as `status` shows it.
    pub(crate) fn task_status(&self, key: &str) -> Value {
        let status = self.status();
        status["tasks"]
            .as_array()
            .and_then(|tasks| tasks.iter().find(|t| t["key"] == key).cloned())
            .unwrap_or_else(|| panic!("no task {key} in {status:#}"))
    }

    /// Every ledger line: one per agent session that ran.
    pub(crate) fn ledger(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("ledger.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).expect("a ledger line"))
            .collect()
    }

    /// The agent sessions the ledger shows for `key`, by their call numbers, in order.
    pub(crate) fn calls_of(&self, key: &str) -> Vec<u64> {
        self.ledger()
            .iter()
            .filter(|l| l["task"] == key)
            .filter_map(|l| l["call"].as_u64())
            .collect()
    }

    /// Waits until the agent of `key` wrote its ready file; its pid.
    fn wait_ready(&self, key: &str, child: &mut Child) -> i32 {
        let file = self.path(&format!("ready/{key}.ready"));
        let start = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&file)
                && let Ok(pid) = text.trim().parse()
            {
                return pid;
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the worker ended ({status}) before the agent of {key} was ready");
            }
            assert!(start.elapsed() < LIMIT, "the agent of {key} never started");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `fleet history KEY --format json`.
    fn history(&self, key: &str) -> Value {
        let out = self.run(&["history", key, "--format", "json", "--diff"]);
        assert_eq!(out.code, 0, "{}", out.all());
        serde_json::from_str(&out.stdout).expect("history prints JSON")
    }
}

/// Each scenario runs on both backends: `fleet::sqlite::NAME` and `fleet::postgres::NAME`.
macro_rules! on_both_backends {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $scenario() { super::$scenario(super::Fleet::sqlite()) })*
        }
        mod postgres {
            $(#[test] fn $scenario() { super::$scenario(super::Fleet::postgres()) })*
        }
    };
}
pub(crate) use on_both_backends;

on_both_backends!(
    three_tasks_pass_each_attempt_once_and_keep_their_changes_on_a_branch,
    adding_the_same_file_again_adds_nothing,
    a_bad_line_adds_nothing_and_names_its_line,
    a_one_task_fleet_gives_the_events_of_verdict_loop,
    a_task_waiting_on_its_retry_delay_does_not_hold_up_the_next,
    cancelling_a_running_task_stops_its_agent,
    sigterm_drains_a_worker_and_hands_its_attempt_back_uncounted,
    a_worker_killed_mid_attempt_loses_nothing_and_runs_nothing_twice,
    two_workers_keep_an_agent_limit_and_a_reported_retry_after,
    an_escalated_task_sent_back_with_guidance_passes_with_it_in_its_prompt,
);

/// Waits for `child` to end within `limit` (killing it after), and reads its output.
pub(crate) fn finish(mut child: Child, limit: Duration) -> Out {
    use std::io::Read;
    // Read while it runs: output larger than a pipe's buffer would otherwise block it for ever.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_string(&mut text).expect("read its output");
            }
            text
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("verdict fleet ran longer than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Out {
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("the reader of stdout"),
        stderr: stderr.join().expect("the reader of stderr"),
    }
}

/// Whether process `pid` is gone (or a zombie).
pub(crate) fn is_dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits up to `limit` for `pid` to be gone.
pub(crate) fn gone_within(pid: i32, limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if is_dead(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    is_dead(pid)
}

/// Runs git in `dir`; its stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git starts");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn three_tasks_pass_each_attempt_once_and_keep_their_changes_on_a_branch(fleet: Fleet) {
    let tasks = [
        fleet.task("a", "fix"),
        fleet.task("b", "fix-on-second"),
        fleet.task("c", "fix"),
    ];
    let added = fleet.add(&tasks);
    assert_eq!(added.code, 0, "{}", added.all());
    assert!(
        added.stdout.contains("3 added, 0 already"),
        "{}",
        added.all()
    );

    let worked = fleet.work(&["--concurrency", "2"]);

    for (key, attempts) in [("a", 1), ("b", 2), ("c", 1)] {
        let task = fleet.task_status(key);
        assert_eq!(task["state"], "passed", "{task:#}");
        assert_eq!(task["attempts"], attempts, "{task:#}");
        // Each attempt ran exactly once: the ledger is outside the database.
        let expected: Vec<u64> = (1..=attempts).collect();
        assert_eq!(fleet.calls_of(key), expected, "{key}");
        // Its work is on a branch of the repository, which the worktree's HEAD never moved to.
        // The worker's log says why when a branch is missing (a warning from keeping it).
        let branch = task["branch"]
            .as_str()
            .unwrap_or_else(|| panic!("no branch: {task:#}\n{}", worked.all()))
            .to_owned();
        let cart = git(fleet.repo.root(), &["show", &format!("{branch}:cart.py")]);
        assert!(cart.contains("total - total * percent"), "{cart}");
        let workdir = PathBuf::from(task["workdir"].as_str().expect("a workdir"));
        let status = git(&workdir, &["status", "--porcelain", "--", "cart.py"]);
        assert!(
            status.contains("cart.py"),
            "the fix stays in the work tree: {status}"
        );
    }
    let history = fleet.history("b");
    let diff = history["diff"].as_str().expect("a diff");
    assert!(
        diff.contains("+    return total - total * percent / 100"),
        "{diff}"
    );
    // The main checkout is untouched.
    assert!(
        fleet
            .repo
            .read("cart.py")
            .contains("total + total * percent")
    );

    // `verdict stats` and `verdict history` read the fleet's database too.
    let verdict = |args: &[&str]| -> Value {
        let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
            .args(args)
            .args(["--state", &fleet.state, "--format", "json"])
            .stdin(Stdio::null())
            .output()
            .expect("verdict runs");
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).expect("JSON")
    };
    let stats = verdict(&["stats"]);
    assert_eq!(stats["tasks"], 3, "{stats:#}");
    assert_eq!(stats["success_rate"], 1.0, "{stats:#}");
    assert_eq!(stats["attempts_to_success"]["max"], 2, "{stats:#}");
    let id = fleet.task_status("b")["id"].to_string();
    let history = verdict(&["history", &id]);
    assert_eq!(history["task"]["key"], "b", "{history:#}");
    assert_eq!(history["attempts"].as_array().map(Vec::len), Some(2));
}

fn adding_the_same_file_again_adds_nothing(fleet: Fleet) {
    let tasks = [fleet.task("a", "fix"), fleet.task("b", "fix")];
    assert!(fleet.add(&tasks[..1]).stdout.contains("1 added, 0 already"));
    // The file cut after its first line, then added whole: only the second line is new.
    let again = fleet.add(&tasks);
    assert!(
        again.stdout.contains("1 added, 1 already"),
        "{}",
        again.all()
    );
    // A line without a key gets one from its content: the same line twice is one task.
    let mut keyless = fleet.task("x", "fix");
    keyless.as_object_mut().expect("an object").remove("key");
    fleet.add(&[keyless.clone()]);
    let twice = fleet.add(&[keyless]);
    assert!(
        twice.stdout.contains("0 added, 1 already"),
        "{}",
        twice.all()
    );
    assert_eq!(fleet.status()["tasks"].as_array().map(Vec::len), Some(3));
}

fn a_bad_line_adds_nothing_and_names_its_line(fleet: Fleet) {
    let file = fleet.path("tasks.jsonl");
    let good = fleet.task("a", "fix");
    std::fs::write(&file, format!("{good}\n{{\"workspace\": \"x\"}}\n")).expect("write");
    let out = fleet.run(&["add", "--file", &file.to_string_lossy()]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("line 2"), "{}", out.all());
    assert_eq!(fleet.status()["tasks"].as_array().map(Vec::len), Some(0));
}

fn a_one_task_fleet_gives_the_events_of_verdict_loop(fleet: Fleet) {
    fleet.add(&[fleet.task("b", "fix-on-second")]);
    fleet.work(&[]);
    let history = fleet.history("b");
    let kinds = |events: &[Value]| -> Vec<String> {
        events
            .iter()
            .map(|e| e["event"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let fleet_kinds = kinds(history["events"].as_array().expect("events"));

    // The same task through `verdict loop`, in a clone of the same repository.
    let clone = tempfile::tempdir().expect("temp dir");
    let target = clone.path().join("cart");
    git(
        fleet.repo.root(),
        &["clone", "-q", ".", &target.to_string_lossy()],
    );
    verdict_test_support::link_venv(&target);
    let events = clone.path().join("events.ndjson");
    let task = fleet.task("b", "fix-on-second");
    // Its own count of sessions, so that its first session is a first call too.
    let ready = fleet.path("ready").to_string_lossy().into_owned();
    let loop_agent = task["agent"]
        .as_str()
        .expect("an agent")
        .replace(&ready, &clone.path().to_string_lossy());
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(["loop", "--max-attempts", "3", "--events"])
        .arg(&events)
        .args(["--task", task["task"].as_str().expect("a task")])
        .args(["--agent", &loop_agent])
        .current_dir(&target)
        .env("VERDICT_STATE_DIR", ".verdict")
        .env("PATH", path_with_node())
        .env_remove("CI")
        .stdin(Stdio::null())
        .output()
        .expect("verdict loop runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let loop_events: Vec<Value> = std::fs::read_to_string(&events)
        .expect("events")
        .lines()
        .map(|l| serde_json::from_str(l).expect("an event"))
        .collect();
    assert_eq!(fleet_kinds, kinds(&loop_events));
    assert!(fleet_kinds.contains(&"retry_scheduled".to_owned()));
}

fn a_task_waiting_on_its_retry_delay_does_not_hold_up_the_next(fleet: Fleet) {
    // A test failure waits a minute before its next attempt.
    fleet.repo.write(
        "verdict.toml",
        "[loop.policy.test_failure]\ndelays = [\"60s\"]\n",
    );
    fleet.repo.git(&["add", "-A"]);
    fleet.repo.git(&["commit", "-q", "-m", "a long delay"]);
    let mut slow = fleet.task("slow", "fix-on-second");
    slow["priority"] = json!(10);
    fleet.add(&[slow, fleet.task("quick", "fix")]);
    let mut worker = fleet.spawn(&["work", "--concurrency", "1", "--min-free-disk", "1"], "w");
    let start = Instant::now();
    loop {
        let quick = fleet.task_status("quick");
        if quick["state"] == "passed" {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(50),
            "quick did not pass while slow waited: {:#}",
            fleet.status()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let slow = fleet.task_status("slow");
    assert_eq!(slow["state"], "retry_scheduled", "{slow:#}");
    assert!(slow["next_retry_at"].as_i64().is_some(), "{slow:#}");
    // The slow one ran first (its priority), once.
    assert_eq!(fleet.calls_of("slow"), [1]);
    let _ = worker.kill();
    let _ = worker.wait();
}

fn cancelling_a_running_task_stops_its_agent(fleet: Fleet) {
    fleet.add(&[fleet.task("s", "sleep-then-fix")]);
    let mut worker = fleet.spawn(&["work", "--lease", "4", "--min-free-disk", "1"], "w");
    let pid = fleet.wait_ready("s", &mut worker);
    let out = fleet.run(&["cancel", "s"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        gone_within(pid, Duration::from_secs(20)),
        "the agent {pid} still runs"
    );
    let start = Instant::now();
    while fleet.task_status("s")["state"] != "cancelled" {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{:#}",
            fleet.status()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(fleet.task_status("s")["attempts"], 0);
    let _ = worker.kill();
    let _ = worker.wait();
}

/// A worker that cannot take a task says why on stderr without being asked for logs: its
/// warnings (too little disk, changes it could not keep) were silent unless `VERDICT_LOG` was set.
#[test]
fn a_worker_with_too_little_disk_says_so_unasked() {
    let fleet = Fleet::sqlite();
    fleet.add(&[fleet.task("s", "fix")]);
    // A petabyte, in MiB.
    let worker = fleet.spawn(&["work", "--min-free-disk", "1000000000"], "w");
    let start = Instant::now();
    loop {
        let said = std::fs::read_to_string(fleet.path("w.err")).unwrap_or_default();
        if said.contains("too little free disk to take a task") {
            break;
        }
        assert!(
            start.elapsed() < LIMIT,
            "the worker did not say why: {said}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(worker.id(), "TERM");
    let out = finish(worker, Duration::from_secs(60));
    assert_eq!(
        out.code,
        0,
        "{}",
        std::fs::read_to_string(fleet.path("w.err")).unwrap_or_default()
    );
    let task = fleet.task_status("s");
    assert_eq!(task["state"], "pending", "{task:#}");
}

fn sigterm_drains_a_worker_and_hands_its_attempt_back_uncounted(fleet: Fleet) {
    fleet.add(&[fleet.task("s", "sleep-then-fix")]);
    let mut worker = fleet.spawn(&["work", "--drain", "1", "--min-free-disk", "1"], "w");
    let pid = fleet.wait_ready("s", &mut worker);
    signal(worker.id(), "TERM");
    let out = finish(worker, Duration::from_secs(60));
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(
        gone_within(pid, Duration::from_secs(10)),
        "the agent {pid} still runs"
    );
    let task = fleet.task_status("s");
    assert_eq!(task["state"], "pending", "{task:#}");
    assert_eq!(task["attempts"], 0, "{task:#}");
    let workdir = PathBuf::from(task["workdir"].as_str().expect("its workdir is kept"));
    assert!(workdir.is_dir());
    // The next worker goes on with it and passes.
    fleet.work(&[]);
    let task = fleet.task_status("s");
    assert_eq!(task["state"], "passed", "{task:#}");
    assert_eq!(fleet.calls_of("s"), [1, 2]);
}

fn a_worker_killed_mid_attempt_loses_nothing_and_runs_nothing_twice(fleet: Fleet) {
    fleet.add(&[fleet.task("s", "sleep-then-fix")]);
    let mut worker = fleet.spawn(&["work", "--lease", "3", "--min-free-disk", "1"], "w1");
    let pid = fleet.wait_ready("s", &mut worker);
    signal(worker.id(), "KILL");
    let _ = worker.wait();
    // A second worker takes the task back once the lease has run out, stops the dead worker's
    // agent (its loop state in the work directory names it) and goes on.
    fleet.work(&["--lease", "3"]);
    let task = fleet.task_status("s");
    assert_eq!(task["state"], "passed", "{task:#}");
    assert!(
        gone_within(pid, Duration::from_secs(10)),
        "the agent {pid} survived its task"
    );
    // Attempt 1 was cut short and does not count; attempt 2 (as the loop numbers it) passed.
    assert_eq!(fleet.calls_of("s"), [1, 2]);
    let history = fleet.history("s");
    let outcomes: Vec<&str> = history["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["outcome"].as_str().unwrap_or("running"))
        .collect();
    assert_eq!(outcomes, ["interrupted", "passed"]);
}

/// Sends SIG`name` to `pid` with kill(1).
pub(crate) fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("kill starts");
    assert!(status.success(), "kill -{name} {pid}");
}

fn two_workers_keep_an_agent_limit_and_a_reported_retry_after(fleet: Fleet) {
    let mut limited = fleet.task("limited", "rate-limit");
    limited["priority"] = json!(10);
    let mut tasks = vec![limited];
    tasks.extend((0..5).map(|i| fleet.task(&format!("slow-{i}"), "slow-fix")));
    fleet.add(&tasks);
    // Every task's agent is `python3 …`: the provider the limit names.
    let args = [
        "work",
        "--until-idle",
        "--concurrency",
        "3",
        "--limit",
        "python3=2",
        "--min-free-disk",
        "1",
    ];
    let workers = [fleet.spawn(&args, "w1"), fleet.spawn(&args, "w2")];
    for (n, worker) in workers.into_iter().enumerate() {
        let out = finish(worker, LIMIT);
        let err = std::fs::read_to_string(fleet.path(&format!("w{}.err", n + 1)));
        assert_eq!(out.code, 0, "{err:?}");
    }
    for task in fleet.status()["tasks"].as_array().expect("tasks") {
        assert_eq!(task["state"], "passed", "{task:#}");
    }
    // Never three sessions at once across both workers.
    let spans: Vec<(f64, f64)> = std::fs::read_to_string(fleet.path("ready/spans.jsonl"))
        .expect("spans")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a span"))
        .map(|v| {
            (
                v["start"].as_f64().unwrap_or(0.0),
                v["end"].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    assert_eq!(spans.len(), 5);
    let most = spans
        .iter()
        .map(|(start, _)| {
            spans
                .iter()
                .filter(|(s, e)| s <= start && start < e)
                .count()
        })
        .max();
    assert!(most <= Some(2), "{most:?} sessions at once: {spans:?}");
    // No session of the provider started in the 6 s the rate limit asked for (half a second
    // allowed for the report to reach the database).
    let limited: Value = serde_json::from_str(
        std::fs::read_to_string(fleet.path("ready/limited.json"))
            .expect("the rate limit was reported")
            .trim(),
    )
    .expect("json");
    let at = limited["time"].as_f64().expect("a time");
    let inside: Vec<Value> = fleet
        .ledger()
        .into_iter()
        .filter(|l| {
            let t = l["time"].as_f64().unwrap_or(0.0);
            t > at + 0.5 && t < at + 6.0
        })
        .collect();
    assert!(inside.is_empty(), "sessions during the hold: {inside:?}");
}

fn an_escalated_task_sent_back_with_guidance_passes_with_it_in_its_prompt(fleet: Fleet) {
    fleet.add(&[fleet.task("g", "fix-if-guided")]);
    fleet.work(&[]);
    // The same failure twice: the loop escalates to a person.
    let task = fleet.task_status("g");
    assert_eq!(task["state"], "escalated", "{task:#}");
    let early = fleet.run(&["retry", "nope", "--guide", "x"]);
    assert_eq!(early.code, 2, "{}", early.all());
    let sent = fleet.run(&[
        "retry",
        "g",
        "--guide",
        "GUIDE: take the percentage off, not add it",
    ]);
    assert_eq!(sent.code, 0, "{}", sent.all());
    assert_eq!(fleet.task_status("g")["state"], "pending");
    fleet.work(&[]);
    let task = fleet.task_status("g");
    assert_eq!(task["state"], "passed", "{task:#}");
    let calls = fleet.calls_of("g");
    let last = calls.last().copied().expect("sessions ran");
    let prompt = std::fs::read_to_string(fleet.path(&format!("ready/g-prompt-{last}.txt")))
        .expect("the last prompt");
    assert!(
        prompt.contains("GUIDE: take the percentage off"),
        "{prompt}"
    );
    // Sending back a task that passed is refused.
    let again = fleet.run(&["retry", "g", "--guide", "more"]);
    assert_eq!(again.code, 1, "{}", again.all());
}

/// A network namespace joined to this one by a veth pair, removed on drop.
struct Netns {
    name: String,
    outer: String,
    /// This side's address, which the namespace reaches.
    address: String,
}

impl Netns {
    fn new() -> Netns {
        let n = std::process::id() % 200 + 20;
        let netns = Netns {
            name: format!("vfleet{n}"),
            outer: format!("vfa{n}"),
            address: format!("10.201.{n}.1"),
        };
        let inner = format!("vfb{n}");
        let inner_address = format!("10.201.{n}.2/24");
        let outer_address = format!("{}/24", netns.address);
        for args in [
            vec!["netns", "add", &netns.name],
            vec![
                "link",
                "add",
                &netns.outer,
                "type",
                "veth",
                "peer",
                "name",
                &inner,
            ],
            vec!["link", "set", &inner, "netns", &netns.name],
            vec!["addr", "add", &outer_address, "dev", &netns.outer],
            vec!["link", "set", &netns.outer, "up"],
            vec![
                "-n",
                &netns.name,
                "addr",
                "add",
                &inner_address,
                "dev",
                &inner,
            ],
            vec!["-n", &netns.name, "link", "set", &inner, "up"],
            vec!["-n", &netns.name, "link", "set", "lo", "up"],
        ] {
            ip(&args);
        }
        netns
    }

    /// Cuts the link (`false`) or restores it.
    fn link(&self, up: bool) {
        ip(&["link", "set", &self.outer, if up { "up" } else { "down" }]);
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["link", "del", &self.outer])
            .status();
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .status();
    }
}

/// Runs `ip ARGS`; fails the test when it fails.
fn ip(args: &[&str]) {
    let status = Command::new("ip").args(args).status().expect("ip starts");
    assert!(status.success(), "ip {args:?}");
}

/// A worker in its own network namespace loses the database mid-attempt: it stops its agent
/// before its lease runs out, another worker takes the task and passes it, and when the link
/// comes back the first worker's writes change nothing.
#[test]
fn a_worker_cut_off_from_postgres_stops_its_agent_and_changes_nothing_after() {
    let fleet = Fleet::postgres();
    fleet.add(&[fleet.task("s", "sleep-then-fix")]);
    let netns = Netns::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let target = fleet
        .state
        .split('@')
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|host| host.rsplit(':').next())
        .expect("the cluster's port")
        .to_owned();
    let mut forward = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fleet/forward.py"))
        .args([&netns.address, &port.to_string(), &target])
        .stdout(Stdio::piped())
        .spawn()
        .expect("the forwarder starts");
    {
        use std::io::BufRead;
        let mut line = String::new();
        let out = forward.stdout.as_mut().expect("stdout");
        std::io::BufReader::new(out)
            .read_line(&mut line)
            .expect("listening");
    }
    let inside = fleet.state.replace(
        &format!("127.0.0.1:{target}"),
        &format!("{}:{port}", netns.address),
    );
    let mut wrapper = Command::new("ip");
    wrapper.args(["netns", "exec", &netns.name, env!("CARGO_BIN_EXE_verdict")]);
    let args = [
        "work",
        "--until-idle",
        "--lease",
        "6",
        "--min-free-disk",
        "1",
    ];
    let out = std::fs::File::create(fleet.path("cut.err")).expect("create");
    let mut cut_off = fleet
        .command_with(wrapper, &inside, &args)
        .stderr(out)
        .spawn()
        .expect("the worker starts");
    let pid = fleet.wait_ready("s", &mut cut_off);

    netns.link(false);
    let cut_at = Instant::now();
    // Self-fencing: the agent is stopped before the lease (6 s from the last renewal) runs out.
    assert!(
        gone_within(pid, Duration::from_secs(6)),
        "the cut-off worker's agent {pid} still runs"
    );
    assert!(cut_at.elapsed() < Duration::from_secs(6));
    // Another worker takes the task back once the lease has run out, and passes it.
    let out = fleet.run(&args);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(fleet.task_status("s")["state"], "passed");

    // The link comes back: the cut-off worker's late writes change nothing.
    netns.link(true);
    let late = finish(cut_off, Duration::from_secs(120));
    assert_ne!(late.code, 0, "the cut-off worker says its lease was lost");
    let task = fleet.task_status("s");
    assert_eq!(task["state"], "passed", "{task:#}");
    let history = fleet.history("s");
    let outcomes: Vec<&str> = history["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["outcome"].as_str().unwrap_or("running"))
        .collect();
    assert_eq!(outcomes, ["interrupted", "passed"]);
    assert_eq!(fleet.calls_of("s"), [1, 2]);
    let _ = forward.kill();
    let _ = forward.wait();
}
