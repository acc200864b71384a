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

    /// Every ledger line: one per agent session that started.
    fn ledger(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("ledger.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).expect("a ledger line"))
            .collect()
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

    /// What must hold once the fleet is idle, whatever was killed: every task ended, and passed
    /// (every task here can pass within its attempts, and an interrupted attempt does not
    /// count); the ledger shows no session of a task twice (by its call and by the loop's
    /// attempt number); each task's sessions are those its recorded attempts ran, plus at most
    /// one per interrupted attempt; the interrupted ones are not counted; no agent is left.
    fn check_idle(&self) -> Report {
        let tasks = self.tasks();
        let ledger = self.ledger();
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
            assert_eq!(calls, expected, "task {key}: a session repeated or overlapped");
            let loop_attempts: BTreeSet<u64> =
                mine.iter().filter_map(|l| l["attempt"].as_u64()).collect();
            assert_eq!(
                loop_attempts.len(),
                mine.len(),
                "task {key}: an attempt's agent ran twice: {mine:?}"
            );
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
            report.unrecorded_sessions += mine.len() - with_agent;
        }
        assert!(
            sessions.is_empty(),
            "sessions of unknown tasks: {sessions:?}"
        );
        for line in &ledger {
            let pid = line["pid"].as_i64().expect("a pid") as i32;
            assert!(
                !agent_alive(pid) || gone_within(pid, Duration::from_secs(10)),
                "the agent {pid} of {} survived its task",
                line["task"]
            );
        }
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
    signal(w1.id(), "KILL");
    let _ = w1.wait();

    let w2 = chaos.spawn(&["--until-idle", "--lease", "3", "--concurrency", "2"], &[], "w2");
    let out = finish(w2, LIMIT);
    assert_eq!(out.code, 0, "{}", chaos.stderr_of("w2"));

    let report = chaos.check_idle();
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
