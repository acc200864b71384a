//! End-to-end tests of `verdict loop` (issue 4, item 10): the real binary drives scripted agents
//! (`cli/tests/loop/agents/agent.py`, small Python programs that read the prompt and really edit
//! the project) on copies of small real projects (`cli/tests/loop/cart`, a pytest project with one
//! failing test; `cli/tests/loop/greet`, a TypeScript project with one type error), verified by the
//! real pytest and tsc that `cargo xtask tools` installs.
//!
//! Each test checks the exit code, the run's state and attempts in `.verdict/state.db` (read with
//! `verdict_core::state::StateDb`), the events, and what the agent was given and did (its prompts
//! and call counter, kept in a directory outside the project tree so that they never change the
//! workspace the loop verifies).

use crate::support::project;

use std::cell::Cell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use project::{Project, path_with_node};
use serde_json::Value;
use verdict_core::state::{RunHistory, StateDb};

/// How long one `verdict loop` may take before the test gives up on it.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// `cli/tests/loop/`.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/loop")
}

/// The scripted agent.
pub(crate) fn agent_script() -> PathBuf {
    fixtures().join("agents/agent.py")
}

/// `text` quoted for the shell-like splitter of `--agent`: one word, whatever it holds.
pub(crate) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// How the scripted agent gets its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    /// On stdin (no placeholder in the command).
    Stdin,
    /// As one argv element (`{prompt}`).
    Argv,
    /// In a file whose path is one argv element (`{prompt_file}`).
    File,
}

/// What one `verdict loop` did.
#[derive(Debug)]
pub(crate) struct Out {
    /// Its exit code (-1: killed by a signal).
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Out {
    pub(crate) fn all(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// What a finished run must show.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Expect {
    /// The exit code of `verdict loop`.
    pub(crate) code: i32,
    /// The run's final state in the database.
    pub(crate) state: &'static str,
    /// Attempts judged: started and not interrupted.
    pub(crate) attempts: usize,
}

/// A fixture project in a temporary directory, and beside it (outside its tree) a directory for
/// the agents' logs and counters, the events file and verdict's output.
pub(crate) struct Scenario {
    pub(crate) project: Project,
    logs: tempfile::TempDir,
    /// How many runs were spawned (their output files are numbered).
    spawned: Cell<usize>,
}

impl Scenario {
    /// A copy of the fixture `cli/tests/loop/<name>`, wired to the real tools.
    fn new(name: &str) -> Scenario {
        Scenario::copy_of(&fixtures().join(name))
    }

    /// A copy of the fixture project `dir`, wired to the real tools: a JavaScript project (with
    /// a tsconfig.json or a package.json) to the shared `node_modules`, a Rust one to nothing
    /// (cargo builds it), any other to the shared Python environment.
    pub(crate) fn copy_of(dir: &Path) -> Scenario {
        let project = Project::empty();
        copy_fixture(dir, project.root(), Path::new(""));
        if project.path("tsconfig.json").is_file() || project.path("package.json").is_file() {
            project.link_node_modules();
        } else if !project.path("Cargo.toml").is_file() {
            project.link_venv();
        }
        let logs = tempfile::Builder::new()
            .prefix("verdict-loop-logs-")
            .tempdir()
            .expect("a temporary directory");
        Scenario {
            project,
            logs,
            spawned: Cell::new(0),
        }
    }

    /// The pytest project with one failing test.
    fn cart() -> Scenario {
        Scenario::new("cart")
    }

    fn root(&self) -> &Path {
        self.project.root()
    }

    /// The log directory of the agent called `name`.
    pub(crate) fn log_dir(&self, name: &str) -> PathBuf {
        self.logs.path().join(name)
    }

    /// The `--agent` command line of a scripted agent in `mode`, logging under `name`.
    pub(crate) fn agent(&self, mode: &str, name: &str) -> String {
        self.agent_via(mode, name, Via::Stdin)
    }

    fn agent_via(&self, mode: &str, name: &str, via: Via) -> String {
        let mut line = format!(
            "python3 {} {mode} --log {}",
            quote(&agent_script().to_string_lossy()),
            quote(&self.log_dir(name).to_string_lossy())
        );
        match via {
            Via::Stdin => {}
            Via::Argv => line.push_str(" --prompt {prompt}"),
            Via::File => line.push_str(" --prompt-file {prompt_file}"),
        }
        line
    }

    /// The events file every run of this scenario appends to.
    fn events_path(&self) -> PathBuf {
        self.logs.path().join("events.ndjson")
    }

    /// The `verdict loop` command line: ARGS plus `--events`, in the project.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_verdict"));
        command
            .env("VERDICT_STATE_DIR", ".verdict")
            .arg("loop")
            .args(args)
            .arg("--events")
            .arg(self.events_path())
            .current_dir(self.root())
            .env("PATH", path_with_node())
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CI")
            .stdin(Stdio::null());
        command
    }

    /// Starts `verdict loop ARGS`, its output going to files of the log directory.
    fn spawn(&self, args: &[&str]) -> Child {
        let n = self.spawned.get() + 1;
        self.spawned.set(n);
        let stdout = File::create(self.logs.path().join(format!("stdout-{n}"))).expect("a file");
        let stderr = File::create(self.logs.path().join(format!("stderr-{n}"))).expect("a file");
        let mut command = self.command(args);
        command.stdout(stdout).stderr(stderr);
        command.spawn().expect("verdict starts")
    }

    /// Runs `verdict loop ARGS` to its end.
    pub(crate) fn run(&self, args: &[&str]) -> Out {
        let mut child = self.spawn(args);
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for verdict") {
                break status;
            }
            if started.elapsed() > RUN_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "verdict loop {args:?} ran over {RUN_LIMIT:?}:\n{}",
                    self.output(-1).all()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = self.output(status.code().unwrap_or(-1));
        assert!(
            !out.stderr.contains("panicked"),
            "verdict loop {args:?} panicked:\n{}",
            out.all()
        );
        out
    }

    /// What the last spawned run printed.
    fn output(&self, code: i32) -> Out {
        let n = self.spawned.get();
        let read = |name: &str| {
            std::fs::read_to_string(self.logs.path().join(format!("{name}-{n}")))
                .unwrap_or_default()
        };
        Out {
            code,
            stdout: read("stdout"),
            stderr: read("stderr"),
        }
    }

    /// What `verdict history ARGS` prints for the project (it must succeed).
    fn history(&self, args: &[&str]) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
            .env("VERDICT_STATE_DIR", ".verdict")
            .arg("history")
            .args(args)
            .current_dir(self.root())
            .output()
            .expect("verdict history runs");
        assert!(out.status.success(), "verdict history {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The state database of the project.
    fn db(&self) -> StateDb {
        StateDb::open(&self.project.path(".verdict/state.db")).expect("the state database opens")
    }

    /// The history of the only run in the database.
    fn only_run(&self) -> RunHistory {
        let db = self.db();
        let runs = db.runs().expect("runs");
        assert_eq!(runs.len(), 1, "one run: {runs:#?}");
        db.history(runs[0].id).expect("the run's history")
    }

    /// Every event written to the events file, in order.
    fn events(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(self.events_path()).unwrap_or_default();
        text.lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("an event is not JSON ({e}): {line}"))
            })
            .collect()
    }

    /// The events of kind `kind`.
    pub(crate) fn events_of(&self, kind: &str) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|e| e["event"] == kind)
            .collect()
    }

    /// How many times the agent `name` was called.
    fn calls(&self, name: &str) -> u32 {
        std::fs::read_to_string(self.log_dir(name).join("calls"))
            .ok()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(0)
    }

    /// The prompt the agent `name` got on its call `n`.
    pub(crate) fn prompt(&self, name: &str, n: u32) -> String {
        let path = self.log_dir(name).join(format!("prompt-{n}.txt"));
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("no prompt {}: {e}", path.display()))
    }

    /// Waits until the state database holds `pid` as the last attempt's agent: verdict records
    /// it just after the spawn, and a kill before that leaves it no process group to stop on
    /// resume (the agent can write its ready file first on a loaded machine).
    fn wait_for_agent_pid(&self, pid: i32, child: &mut Child) {
        let started = Instant::now();
        loop {
            let db = self.db();
            let runs = db.runs().expect("runs");
            let recorded = runs
                .first()
                .and_then(|run| db.history(run.id).ok())
                .and_then(|h| h.attempts.last().and_then(|a| a.attempt.pid));
            if recorded == Some(pid) {
                return;
            }
            if started.elapsed() > Duration::from_secs(30) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the agent's pid {pid} was not recorded (last: {recorded:?})");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Checks a finished run against `expect`: the exit code, the only run's state in the
    /// database, its judged attempts, attempt numbers that never repeat, and the `run_finished`
    /// event. Returns the run's history for further checks.
    pub(crate) fn check(&self, out: &Out, expect: Expect) -> RunHistory {
        assert_eq!(out.code, expect.code, "the exit code:\n{}", out.all());
        let history = self.only_run();
        assert_eq!(
            history.run.state.as_str(),
            expect.state,
            "the run's state:\n{history:#?}\n{}",
            out.all()
        );
        let numbers: Vec<u32> = history.attempts.iter().map(|a| a.attempt.number).collect();
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            numbers, sorted,
            "attempt numbers repeat or are out of order"
        );
        let judged = history
            .attempts
            .iter()
            .filter(|a| !a.attempt.interrupted)
            .count();
        assert_eq!(
            judged,
            expect.attempts,
            "judged attempts: {numbers:?}\n{}",
            out.all()
        );
        let finished = self.events_of("run_finished");
        let last = finished.last().expect("a run_finished event");
        assert_eq!(last["state"], expect.state, "{last:#}");
        assert_eq!(last["exit_code"], expect.code, "{last:#}");
        history
    }
}

/// Copies `from/rel` into `to/rel`, recursively.
fn copy_fixture(from: &Path, to: &Path, rel: &Path) {
    let dir = from.join(rel);
    for entry in std::fs::read_dir(&dir).expect("read a fixture directory") {
        let entry = entry.expect("a directory entry");
        let rel = rel.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            std::fs::create_dir_all(to.join(&rel)).expect("create a directory");
            copy_fixture(from, to, &rel);
        } else {
            std::fs::copy(entry.path(), to.join(&rel)).expect("copy a fixture file");
        }
    }
}

/// The task most scenarios give.
const TASK: &str = "Make the failing cart tests pass: discount() must take the percentage off.";

/// The kinds of `events`, in order.
fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["event"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// The `verification_finished` event of attempt `n`.
pub(crate) fn verification_of(scenario: &Scenario, n: u32) -> Value {
    scenario
        .events_of("verification_finished")
        .into_iter()
        .find(|e| e["attempt"] == n)
        .unwrap_or_else(|| panic!("no verification of attempt {n}: {:#?}", scenario.events()))
}

/// Whether the process `pid` is gone (or a zombie nobody reaped: it no longer runs).
fn is_dead(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
    }
}

/// Waits until `path` exists (and is not empty), failing the test after `limit`; `child` is the
/// verdict it waits on, killed when the wait fails.
fn wait_for(path: &Path, child: &mut Child, limit: Duration) -> String {
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && !text.is_empty()
        {
            return text;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!(
                "verdict ended ({status}) before {} appeared",
                path.display()
            );
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{} did not appear within {limit:?}", path.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// ---------------------------------------------------------------------------------------------
// Attempts and prompts

#[test]
fn pass_on_attempt_one() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("fix", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--format", "jsonl"]);
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    assert_eq!(history.attempts[0].attempt.number, 1);
    assert_eq!(scenario.calls("a"), 1);
    // The first prompt is the task, whole and first, then what the baseline found.
    let first = scenario.prompt("a", 1);
    assert!(first.starts_with(TASK), "{first}");
    let found = first
        .split_once("VERIFICATION BEFORE ANY CHANGE\n")
        .unwrap_or_else(|| panic!("no baseline in the first prompt:\n{first}"))
        .1;
    assert!(found.contains("test_discount"), "{first}");
    assert!(scenario.project.read("cart.py").contains("total - total"));
    // The baseline saw the one failing test before the agent ran.
    let baseline = history.baseline.as_ref().expect("a baseline verification");
    assert_eq!(baseline.failures.len(), 1, "{baseline:#?}");
    assert!(
        baseline.failures[0].label.contains("test_discount"),
        "{baseline:#?}"
    );
    // `--format jsonl` streams the same events as the events file, in order.
    let streamed: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("an NDJSON line"))
        .collect();
    assert_eq!(streamed, scenario.events());
    let kinds = kinds(&streamed);
    for kind in [
        "run_started",
        "baseline_finished",
        "attempt_started",
        "agent_finished",
        "verification_finished",
        "run_finished",
    ] {
        assert_eq!(
            kinds.iter().filter(|k| *k == kind).count(),
            1,
            "one {kind}: {kinds:?}"
        );
    }
    assert_eq!(kinds.first().map(String::as_str), Some("run_started"));
    assert_eq!(kinds.last().map(String::as_str), Some("run_finished"));
    let verified = verification_of(&scenario, 1);
    assert_eq!(verified["passed"], true, "{verified:#}");
    for event in &streamed {
        assert!(
            event["run"].is_i64() && event["time_ms"].is_i64(),
            "{event:#}"
        );
    }
    // A finished run is not resumed.
    let again = scenario.run(&["--resume", "--task", TASK, "--agent", &agent]);
    assert_eq!(again.code, 2, "{}", again.all());
    assert!(
        again.stderr.contains("no unfinished loop run"),
        "{}",
        again.all()
    );
    assert_eq!(scenario.calls("a"), 1);
}

#[test]
fn fail_then_fix_on_attempt_two_with_the_digest_in_the_second_prompt() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("fix-on-second", "a");
    // With no terminal, --interactive says so and never waits for a person.
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--interactive"]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    assert!(
        out.stderr.contains("--interactive needs a terminal"),
        "{}",
        out.all()
    );
    assert_eq!(scenario.calls("a"), 2);
    assert!(scenario.prompt("a", 1).starts_with(TASK));
    let second = scenario.prompt("a", 2);
    // The original task first and whole, then the failure of attempt 1 with its digest.
    assert!(second.starts_with(TASK), "{second}");
    let heading = second
        .find("PREVIOUS ATTEMPT 1 FAILED VERIFICATION")
        .unwrap_or_else(|| panic!("no heading for attempt 1:\n{second}"));
    let digest = &second[heading..];
    assert!(digest.contains("test_discount"), "{second}");
    assert!(digest.contains("220"), "the assertion's values: {second}");
    let failed = verification_of(&scenario, 1);
    assert_eq!(failed["passed"], false, "{failed:#}");
    assert_eq!(failed["category"], "test_failure", "{failed:#}");
    assert_eq!(verification_of(&scenario, 2)["passed"], true);
    assert_eq!(scenario.events_of("retry_scheduled").len(), 1);
}

#[test]
fn a_no_op_attempt_is_said_plainly_with_the_guidance_and_the_last_attempt() {
    let scenario = Scenario::cart();
    let task_file = scenario.logs.path().join("TASK.md");
    std::fs::write(&task_file, format!("{TASK}\n")).expect("write the task file");
    let agent = scenario.agent("nothing-then-fix", "a");
    let guide = "Look at the sign in discount().";
    let out = scenario.run(&[
        "--task-file",
        &task_file.to_string_lossy(),
        "--agent",
        &agent,
        "--guide",
        guide,
        "--max-attempts",
        "2",
    ]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    let first = scenario.prompt("a", 1);
    assert!(
        first.starts_with(&format!("{TASK}\n\nVERIFICATION BEFORE ANY CHANGE\n")),
        "the file, whole: {first}"
    );
    let finished = scenario.events_of("agent_finished");
    assert_eq!(finished[0]["workspace_changed"], false, "{:#}", finished[0]);
    assert_eq!(verification_of(&scenario, 1)["no_op"], true);
    let second = scenario.prompt("a", 2);
    assert!(second.starts_with(TASK), "{second}");
    for part in [
        "PREVIOUS ATTEMPT 1 FAILED VERIFICATION\nAttempt 1 changed nothing",
        "GUIDANCE FROM A PERSON\nLook at the sign in discount().",
        "This is attempt 2 of 2, the last one.",
    ] {
        assert!(second.contains(part), "no {part:?} in:\n{second}");
    }
}

#[test]
fn a_javascript_verifier_fail_then_fix_with_the_prompt_in_a_file() {
    let scenario = Scenario::new("greet");
    let agent = scenario.agent_via("fix-on-second", "a", Via::File);
    let task = "Fix the type error in src/greet.ts.";
    let out = scenario.run(&["--task", task, "--agent", &agent]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    assert!(scenario.prompt("a", 1).starts_with(task));
    let second = scenario.prompt("a", 2);
    assert!(second.starts_with(task), "{second}");
    assert!(
        second.contains("PREVIOUS ATTEMPT 1 FAILED VERIFICATION") && second.contains("greet.ts"),
        "{second}"
    );
    let failed = verification_of(&scenario, 1);
    assert_eq!(failed["passed"], false, "{failed:#}");
    assert!(
        failed["summary"].to_string().contains("tsc"),
        "tsc judged it: {failed:#}"
    );
}

#[test]
fn exhausted_after_three_attempts() {
    let scenario = Scenario::cart();
    // A different cart function broken each time: never green, never the same failure twice.
    let agent = scenario.agent("break-another", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    let history = scenario.check(
        &out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 3,
        },
    );
    let numbers: Vec<u32> = history.attempts.iter().map(|a| a.attempt.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    assert_eq!(scenario.calls("a"), 3);
    assert_eq!(scenario.events_of("retry_exhausted").len(), 1);
    // The last prompt lists both earlier attempts.
    let third = scenario.prompt("a", 3);
    assert!(third.starts_with(TASK), "{third}");
    assert!(
        third.contains("PREVIOUS ATTEMPT 2 FAILED VERIFICATION"),
        "{third}"
    );
    assert!(third.contains("test_tax"), "attempt 2's failure: {third}");
}

// ---------------------------------------------------------------------------------------------
// Agent sessions: time-out, rate limit, auth

#[test]
fn a_session_timeout_is_not_retried() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("sleep", "a");
    let started = Instant::now();
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--agent-timeout", "1"]);
    let elapsed = started.elapsed();
    let history = scenario.check(
        &out,
        Expect {
            code: 1,
            state: "session_failed",
            attempts: 1,
        },
    );
    assert_eq!(scenario.calls("a"), 1, "the session was not retried");
    assert_eq!(
        history.attempts[0].attempt.session_outcome.as_deref(),
        Some("timeout"),
        "{history:#?}"
    );
    assert!(scenario.events_of("agent_retry").is_empty());
    let pid: i32 = std::fs::read_to_string(scenario.log_dir("a").join("ready"))
        .expect("the agent started")
        .trim()
        .parse()
        .expect("a pid");
    assert!(is_dead(pid), "the timed-out agent {pid} still runs");
    assert!(elapsed < Duration::from_secs(30), "took {elapsed:?}");
}

#[test]
fn a_rate_limit_with_retry_after_does_not_consume_an_attempt() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("rate-limit-then-fix", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    assert_eq!(history.attempts.len(), 1, "{history:#?}");
    assert_eq!(scenario.calls("a"), 2, "two sessions in one attempt");
    assert_eq!(
        scenario.prompt("a", 2),
        scenario.prompt("a", 1),
        "the retry sends the same prompt"
    );
    let retries = scenario.events_of("agent_retry");
    assert_eq!(retries.len(), 1, "{retries:#?}");
    let retry = &retries[0];
    assert_eq!(retry["outcome"], "rate_limited", "{retry:#}");
    let delay = retry["delay_ms"].as_u64().expect("a delay");
    assert!(
        (1000..1500).contains(&delay),
        "the printed retry-after of 1 s: {retry:#}"
    );
}

#[test]
fn when_every_agent_is_rate_limited_the_loop_waits_then_goes_round() {
    let scenario = Scenario::cart();
    let first = scenario.agent("rate-limit-then-fix", "a");
    let second = scenario.agent("rate-limit-then-fix", "b");
    let out = scenario.run(&["--task", TASK, "--agent", &first, "--agent", &second]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    assert_eq!((scenario.calls("a"), scenario.calls("b")), (2, 1));
    let retries = scenario.events_of("agent_retry");
    let moves: Vec<(bool, u64)> = retries
        .iter()
        .map(|r| {
            (
                r["all_limited"].as_bool().unwrap_or(false),
                r["delay_ms"].as_u64().unwrap_or(u64::MAX),
            )
        })
        .collect();
    // A limited: on to B at once; B limited too: every agent is, so wait A's retry-after.
    assert_eq!(moves.len(), 2, "{retries:#?}");
    assert_eq!(moves[0], (false, 0), "{retries:#?}");
    assert!(
        moves[1].0 && (1000..1500).contains(&moves[1].1),
        "{retries:#?}"
    );
    assert_eq!(
        retries[1]["next_agent"], retries[0]["agent"],
        "{retries:#?}"
    );
}

#[test]
fn an_auth_error_cycles_to_the_second_agent() {
    let scenario = Scenario::cart();
    let first = scenario.agent("auth", "a");
    // B fixes on its second session: attempt 2 shows A stays out of the pool.
    let second = scenario.agent("fix-on-second", "b");
    let out = scenario.run(&["--task", TASK, "--agent", &first, "--agent", &second]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    assert_eq!(scenario.calls("a"), 1, "the first agent is not tried again");
    assert_eq!(scenario.calls("b"), 2);
    assert!(scenario.prompt("b", 1).starts_with(TASK));
    assert!(scenario.prompt("b", 2).starts_with(TASK));
    let retries = scenario.events_of("agent_retry");
    assert_eq!(retries.len(), 1, "{retries:#?}");
    assert_eq!(retries[0]["outcome"], "auth", "{:#}", retries[0]);
    assert_eq!(retries[0]["action"], "skip_agent", "{:#}", retries[0]);
    assert_ne!(
        retries[0]["agent"], retries[0]["next_agent"],
        "{:#}",
        retries[0]
    );
    let finished: Vec<Value> = scenario
        .events_of("agent_finished")
        .iter()
        .map(|e| e["agent"].clone())
        .collect();
    assert_eq!(
        finished,
        [
            retries[0]["next_agent"].clone(),
            retries[0]["next_agent"].clone()
        ],
        "B finished both attempts"
    );
}

#[test]
fn the_history_names_the_agent_that_ran_the_attempt_not_the_one_it_started_with() {
    // With --max-agent-retries 0 the auth error still hands over to the second agent, and the
    // history used to name the first one although the second ran the attempt.
    let scenario = Scenario::cart();
    let first = scenario.agent("auth", "a");
    let second = scenario.agent("fix", "b");
    let out = scenario.run(&[
        "--task",
        TASK,
        "--agent",
        &first,
        "--agent",
        &second,
        "--max-agent-retries",
        "0",
    ]);
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let finished = scenario.events_of("agent_finished");
    let ran = finished[0]["agent"].as_str().expect("an agent").to_owned();
    let started = scenario.events_of("attempt_started");
    let began = started[0]["agent"].as_str().expect("an agent").to_owned();
    assert_ne!(ran, began, "the attempt started with the auth agent");
    assert_eq!(history.attempts[0].attempt.agent, ran, "{history:#?}");
    let sessions: Vec<(&str, &str)> = history.attempts[0]
        .attempt
        .sessions
        .iter()
        .map(|s| (s.agent.as_str(), s.outcome.as_str()))
        .collect();
    assert_eq!(
        sessions,
        [(began.as_str(), "auth"), (ran.as_str(), "success")]
    );
    let shown = scenario.history(&["1"]);
    assert!(
        shown.contains(&format!(
            "attempt 1 · {ran} (after {began} auth) · session success"
        )),
        "{shown}"
    );
}

// ---------------------------------------------------------------------------------------------
// kill -9 and --resume

/// The pid the agent `name` wrote in its `ready` file.
fn ready_pid(text: &str) -> i32 {
    text.trim().parse().expect("a pid in the ready file")
}

#[test]
fn kill_9_during_the_agent_then_resume_keeps_the_attempt_count() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("hang-then-fix", "a");
    let mut child = scenario.spawn(&["--task", TASK, "--agent", &agent]);
    let ready = scenario.log_dir("a").join("ready");
    let pid = ready_pid(&wait_for(&ready, &mut child, RUN_LIMIT));
    scenario.wait_for_agent_pid(pid, &mut child);
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");
    assert!(!is_dead(pid), "the agent outlives verdict's kill -9");
    let before = scenario.only_run();
    assert_eq!(before.run.state.as_str(), "agent_running", "{before:#?}");
    assert_eq!(
        before.attempts.len(),
        1,
        "attempt 1 was committed before the spawn"
    );

    let out = scenario.run(&["--resume", "--task", TASK, "--agent", &agent]);
    assert!(is_dead(pid), "the orphaned agent {pid} still runs");
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let attempts: Vec<(u32, bool)> = history
        .attempts
        .iter()
        .map(|a| (a.attempt.number, a.attempt.interrupted))
        .collect();
    assert_eq!(attempts, [(1, true), (2, false)], "{history:#?}");
    assert_eq!(scenario.calls("a"), 2);
    assert_eq!(
        scenario.prompt("a", 2),
        scenario.prompt("a", 1),
        "the interrupted attempt was not judged"
    );
    let resumed = scenario.events_of("run_resumed");
    assert_eq!(resumed.len(), 1, "{resumed:#?}");
    assert_eq!(resumed[0]["next_attempt"], 2, "{:#}", resumed[0]);
}

#[test]
fn kill_9_during_the_verification_then_resume_verifies_the_same_attempt() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("fix-slow-verify", "a");
    let mut child = scenario.spawn(&["--task", TASK, "--agent", &agent]);
    // The test the agent added writes `verifying` and sleeps, the first time pytest runs it.
    let verifying = scenario.log_dir("a").join("verifying");
    let pytest = ready_pid(&wait_for(&verifying, &mut child, RUN_LIMIT));
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");
    let before = scenario.only_run();
    assert_eq!(before.run.state.as_str(), "verifying", "{before:#?}");
    assert_eq!(before.attempts.len(), 1);
    assert!(
        before.attempts[0].attempt.finished_at.is_some(),
        "{before:#?}"
    );
    assert!(before.attempts[0].verification.is_none(), "{before:#?}");

    // `--resume` without the task continues the latest unfinished run.
    let out = scenario.run(&["--resume", "--agent", &agent]);
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let attempts: Vec<(u32, bool)> = history
        .attempts
        .iter()
        .map(|a| (a.attempt.number, a.attempt.interrupted))
        .collect();
    assert_eq!(attempts, [(1, false)], "attempt 1 verified, not redone");
    assert_eq!(scenario.events_of("run_resumed").len(), 1);
    assert_eq!(scenario.events_of("attempt_started").len(), 1);
    assert!(history.attempts[0].verification.is_some());
    assert_eq!(
        scenario.calls("a"),
        1,
        "the agent's finished work was not redone"
    );
    // Let the orphaned pytest of the killed verification end before the directory goes.
    let started = Instant::now();
    while !is_dead(pytest) && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn kill_9_during_the_second_attempt_then_resume_keeps_the_first_attempts_failure() {
    let scenario = Scenario::cart();
    // Attempt 1 fails verification; attempt 2's agent hangs and verdict is killed; the resumed
    // run makes attempt 3, whose prompt still carries attempt 1's failure.
    let agent = scenario.agent("touch-hang-fix", "a");
    let mut child = scenario.spawn(&["--task", TASK, "--agent", &agent]);
    let ready = scenario.log_dir("a").join("ready");
    let pid = ready_pid(&wait_for(&ready, &mut child, RUN_LIMIT));
    scenario.wait_for_agent_pid(pid, &mut child);
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");
    assert!(!is_dead(pid), "the agent outlives verdict's kill -9");

    let out = scenario.run(&["--resume", "--task", TASK, "--agent", &agent]);
    assert!(is_dead(pid), "the orphaned agent {pid} still runs");
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    let attempts: Vec<(u32, bool)> = history
        .attempts
        .iter()
        .map(|a| (a.attempt.number, a.attempt.interrupted))
        .collect();
    assert_eq!(
        attempts,
        [(1, false), (2, true), (3, false)],
        "{history:#?}"
    );
    assert_eq!(scenario.calls("a"), 3);
    let third = scenario.prompt("a", 3);
    assert!(third.starts_with(TASK), "{third}");
    assert!(
        third.contains("PREVIOUS ATTEMPT 1 FAILED VERIFICATION") && third.contains("test_discount"),
        "the failure of attempt 1, read back after the kill: {third}"
    );
    // Attempt 2 was never judged: it keeps its number and does not count, so the run may go on
    // to attempt 4, and the prompt numbers attempts as the events do.
    assert!(third.contains("This is attempt 3 of 4."), "{third}");
}

#[test]
fn resume_alone_goes_on_with_the_settings_the_run_was_started_with() {
    // `verdict loop --resume` with nothing else used to need --agent again, and then took the
    // attempts allowed, the guidance and every other setting from its own command line.
    let scenario = Scenario::cart();
    let agent = scenario.agent("touch-hang-fix", "a");
    let guide = "Use the minus sign, not the plus sign.";
    let mut child = scenario.spawn(&[
        "--task",
        TASK,
        "--agent",
        &agent,
        "--max-attempts",
        "5",
        "--guide",
        guide,
    ]);
    let ready = scenario.log_dir("a").join("ready");
    let pid = ready_pid(&wait_for(&ready, &mut child, RUN_LIMIT));
    scenario.wait_for_agent_pid(pid, &mut child);
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");

    let out = scenario.run(&["--resume"]);
    assert!(is_dead(pid), "the orphaned agent {pid} still runs");
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    assert_eq!(history.run.max_attempts, 5, "{history:#?}");
    // The attempts that counted, as run_finished says, and the interrupted one apart.
    assert_eq!(
        scenario
            .events_of("run_finished")
            .last()
            .map(|e| e["attempts"].clone()),
        Some(2.into())
    );
    let list = scenario.history(&[]);
    assert!(list.contains(" 2/5 +1 interrupted "), "{list}");
    let shown = scenario.history(&["1"]);
    assert!(
        shown.contains("attempts   2 of 5, and 1 interrupted attempt (not counted)")
            && shown.contains("attempt 2 · ")
            && shown.contains(" · interrupted, not counted · "),
        "{shown}"
    );
    assert!(
        !out.stderr.contains("except what is given here"),
        "nothing was overridden:\n{}",
        out.all()
    );
    let third = scenario.prompt("a", 3);
    assert!(
        third.contains("GUIDANCE FROM A PERSON\n") && third.contains(guide),
        "{third}"
    );
    // Attempt 2 was interrupted: it does not count against the 5, so the run may reach attempt 6.
    assert!(third.contains("This is attempt 3 of 6."), "{third}");
    let started = scenario.events_of("attempt_started");
    assert_eq!(
        started
            .last()
            .map(|e| (e["attempt"].clone(), e["of"].clone())),
        Some((3.into(), 6.into()))
    );
}

#[test]
fn a_flag_given_to_a_resumed_run_overrides_what_it_was_started_with_and_says_so() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("touch-hang-fix", "a");
    let mut child = scenario.spawn(&["--task", TASK, "--agent", &agent, "--max-attempts", "5"]);
    let ready = scenario.log_dir("a").join("ready");
    let pid = ready_pid(&wait_for(&ready, &mut child, RUN_LIMIT));
    scenario.wait_for_agent_pid(pid, &mut child);
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");

    let out = scenario.run(&["--resume", "--max-attempts", "4"]);
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    assert!(
        out.stderr
            .contains("except what is given here: --max-attempts 4 (was 5)"),
        "{}",
        out.all()
    );
    assert_eq!(history.run.max_attempts, 4, "{history:#?}");
    assert!(scenario.prompt("a", 3).contains("This is attempt 3 of 5."));
}

#[test]
fn kill_9_during_the_baseline_then_the_same_task_again_continues_the_run() {
    let scenario = Scenario::cart();
    let log = scenario.log_dir("baseline");
    std::fs::create_dir_all(&log).expect("a log directory");
    // A test that is slow the first time it runs: in the baseline verification.
    scenario.project.write(
        "test_slow.py",
        &format!(
            "import os\nimport time\n\nLOG = {}\n\n\ndef test_slow_once():\n    marker = os.path.join(LOG, \"verifying\")\n    if not os.path.exists(marker):\n        with open(marker, \"w\") as file:\n            file.write(str(os.getpid()))\n        time.sleep(5)\n",
            toml_string(&log.to_string_lossy())
        ),
    );
    let agent = scenario.agent("fix", "a");
    let mut child = scenario.spawn(&["--task", TASK, "--agent", &agent]);
    let pytest = ready_pid(&wait_for(&log.join("verifying"), &mut child, RUN_LIMIT));
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");
    let before = scenario.only_run();
    assert_eq!(before.run.state.as_str(), "pending", "{before:#?}");
    assert!(
        before.attempts.is_empty() && before.baseline.is_none(),
        "{before:#?}"
    );
    assert_eq!(scenario.calls("a"), 0);

    // Running the same task again continues the unfinished run (one run in the database).
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    assert_eq!(scenario.events_of("run_resumed").len(), 1);
    let baseline = history
        .baseline
        .as_ref()
        .expect("the baseline ran on resume");
    assert_eq!(baseline.failures.len(), 1, "{baseline:#?}");
    assert_eq!(history.attempts.len(), 1);
    assert_eq!(scenario.calls("a"), 1);
    let started = Instant::now();
    while !is_dead(pytest) && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn resume_finds_the_run_whichever_way_the_directory_is_named() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("hang-then-fix", "a");
    let slashed = format!("{}/", scenario.root().display());
    let mut child = scenario.spawn(&["-C", &slashed, "--task", TASK, "--agent", &agent]);
    let ready = scenario.log_dir("a").join("ready");
    let pid = ready_pid(&wait_for(&ready, &mut child, RUN_LIMIT));
    scenario.wait_for_agent_pid(pid, &mut child);
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");
    // The same project through a symlink, without the trailing slash.
    let link = scenario.logs.path().join("link");
    std::os::unix::fs::symlink(scenario.root(), &link).expect("a symlink");
    let out = scenario.run(&[
        "-C",
        &link.to_string_lossy(),
        "--resume",
        "--task",
        TASK,
        "--agent",
        &agent,
    ]);
    assert!(is_dead(pid), "the orphaned agent {pid} still runs");
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let numbers: Vec<u32> = history.attempts.iter().map(|a| a.attempt.number).collect();
    assert_eq!(numbers, [1, 2], "{history:#?}");
}

#[test]
fn sigterm_during_the_agent_stops_it_and_exits_130_then_resume_goes_on() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("hang-then-fix", "a");
    let mut child = scenario.spawn(&["--task", TASK, "--agent", &agent]);
    let ready = scenario.log_dir("a").join("ready");
    let pid = ready_pid(&wait_for(&ready, &mut child, RUN_LIMIT));
    scenario.wait_for_agent_pid(pid, &mut child);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill starts");
    assert!(status.success());
    let started = Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait for verdict") {
            break status.code();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "verdict did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(code, Some(130), "{}", scenario.output(-1).all());
    assert!(
        is_dead(pid),
        "verdict stopped its agent {pid} before exiting"
    );
    let before = scenario.only_run();
    assert_eq!(before.run.state.as_str(), "interrupted", "{before:#?}");
    assert!(before.attempts[0].attempt.interrupted, "{before:#?}");
    assert!(
        scenario.output(130).stdout.contains("--resume"),
        "{}",
        scenario.output(130).all()
    );

    let out = scenario.run(&["--resume", "--task", TASK, "--agent", &agent]);
    let history = scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let numbers: Vec<u32> = history.attempts.iter().map(|a| a.attempt.number).collect();
    assert_eq!(numbers, [1, 2]);
    assert_eq!(scenario.calls("a"), 2);
}

#[test]
fn a_second_loop_in_a_live_workspace_is_refused_and_leaves_its_agent_alone() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("hang-then-fix", "a");
    let mut child = scenario.spawn(&["--task", TASK, "--agent", &agent]);
    let ready = scenario.log_dir("a").join("ready");
    let pid = ready_pid(&wait_for(&ready, &mut child, RUN_LIMIT));
    scenario.wait_for_agent_pid(pid, &mut child);
    // The same task again while the first loop drives it: not an orphan to take over.
    let other = scenario.agent("fix", "b");
    let out = scenario.run(&["--task", TASK, "--agent", &other]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.stderr.contains("another `verdict loop`"),
        "{}",
        out.all()
    );
    assert_eq!(scenario.calls("b"), 0, "the second loop ran no agent");
    // Another task in the same workspace is refused too: two agents would edit one tree.
    let out = scenario.run(&["--task", "Another task entirely.", "--agent", &other]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.stderr.contains("another `verdict loop` (run 1, pid ")
            && out.stderr.contains(") is running in"),
        "the refused loop names the run that holds the workspace: {}",
        out.all()
    );
    assert_eq!(scenario.calls("b"), 0, "the third loop ran no agent");
    assert!(!is_dead(pid), "the live run's agent was stopped");
    assert!(
        child.try_wait().expect("wait for verdict").is_none(),
        "the first loop goes on"
    );
    let live = scenario.only_run();
    assert_eq!(live.run.state.as_str(), "agent_running", "{live:#?}");
    assert_eq!(live.attempts.len(), 1);
    // Once its driver is gone (kill -9 releases the lock), the run can be resumed.
    child.kill().expect("SIGKILL verdict");
    child.wait().expect("reap verdict");
    let out = scenario.run(&["--resume", "--task", TASK, "--agent", &agent]);
    assert!(is_dead(pid), "the orphaned agent {pid} still runs");
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
}

#[test]
fn two_loops_started_at_once_leave_exactly_one_running_and_name_it() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("hang-then-fix", "a");
    // The race was lost about once in sixteen starts: both loops refused.
    for trial in 0..12 {
        let first = scenario.spawned.get() + 1;
        let mut children = [
            scenario.spawn(&["--task", TASK, "--agent", &agent]),
            scenario.spawn(&["--task", TASK, "--agent", &agent]),
        ];
        let started = Instant::now();
        let (refused, code) = loop {
            let ended = children
                .iter_mut()
                .enumerate()
                .find_map(|(i, c)| c.try_wait().expect("wait for verdict").map(|s| (i, s)));
            if let Some((i, status)) = ended {
                break (i, status.code());
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "trial {trial}: both loops run at once"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        let stderr = std::fs::read_to_string(
            scenario
                .logs
                .path()
                .join(format!("stderr-{}", first + refused)),
        )
        .unwrap_or_default();
        assert_eq!(code, Some(2), "trial {trial}: {stderr}");
        assert!(
            stderr.contains("another `verdict loop` (") && stderr.contains("pid "),
            "trial {trial}: the refused loop names the one that runs: {stderr}"
        );
        let runner = &mut children[1 - refused];
        assert!(
            runner.try_wait().expect("wait for verdict").is_none(),
            "trial {trial}: the other loop runs"
        );
        runner.kill().expect("SIGKILL verdict");
        runner.wait().expect("reap verdict");
    }
    // Every winner resumed the one run, and no refused loop made one of its own; the last
    // winner's orphaned agent is stopped by the resume that ends it.
    let fix = scenario.agent("fix", "b");
    let out = scenario.run(&["--resume", "--task", TASK, "--agent", &fix]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert_eq!(scenario.only_run().run.state.as_str(), "passed");
}

// ---------------------------------------------------------------------------------------------
// Honest greens and repeated failures

#[test]
fn a_flaky_test_is_not_blamed_on_the_agent() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("flaky", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let verified = verification_of(&scenario, 1);
    assert_eq!(verified["passed"], true, "{verified:#}");
    assert!(
        verified["flaky"].to_string().contains("test_flaky"),
        "{verified:#}"
    );
    let runs = std::fs::read_to_string(scenario.log_dir("a").join("flaky-runs"))
        .expect("the flaky test ran");
    assert_eq!(runs.trim(), "2", "failed once, then passed on the re-run");
}

#[test]
fn flaky_failures_are_reported_on_the_step_line_the_result_and_in_the_history() {
    // Only the verification_finished event used to list them.
    let scenario = Scenario::cart();
    let agent = scenario.agent("flaky", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    assert!(
        out.stderr.contains(
            "attempt 1: verified green; flaky, not blamed on the agent: pytest test_flaky.py::test_flaky"
        ),
        "{}",
        out.all()
    );
    assert!(
        out.stdout
            .contains("not blamed on the agent): pytest test_flaky.py::test_flaky"),
        "{}",
        out.all()
    );
    let history = scenario.history(&["1"]);
    assert!(
        history.contains("· 1 flaky ·")
            && history.contains("- flaky, not blamed: pytest test_flaky.py::test_flaky"),
        "{history}"
    );
}

#[test]
fn an_agent_that_deletes_the_failing_test_is_caught() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("delete-test", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--max-attempts", "1"]);
    scenario.check(
        &out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );
    assert!(
        !scenario
            .project
            .read("test_cart.py")
            .contains("test_discount"),
        "the agent really deleted it"
    );
    // pytest itself passed what was left; the guard's verification failed it.
    let verified = verification_of(&scenario, 1);
    assert_eq!(verified["passed"], false, "{verified:#}");
    assert_eq!(
        guard_failures(&verified),
        ["verdict-guard test_removed test_cart.py"],
        "{verified:#}"
    );
    assert!(
        out.stdout.contains("verdict-guard"),
        "the digest names the guard:\n{}",
        out.all()
    );
}

/// The labels of the guard's failures in a `verification_finished` event, sorted.
pub(crate) fn guard_failures(verified: &Value) -> Vec<String> {
    let mut labels: Vec<String> = verified["failures"]["failures"]
        .as_object()
        .expect("a failure set")
        .values()
        .map(|l| l.as_str().unwrap_or("?").to_owned())
        .collect();
    labels.sort();
    labels
}

#[test]
fn an_agent_that_skips_the_failing_test_is_caught() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("skip-test", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--max-attempts", "1"]);
    scenario.check(
        &out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );
    assert!(
        scenario
            .project
            .read("test_cart.py")
            .contains("@pytest.mark.skip")
    );
    let verified = verification_of(&scenario, 1);
    assert_eq!(verified["passed"], false, "{verified:#}");
    assert_eq!(
        guard_failures(&verified),
        ["verdict-guard skip_added test_cart.py"],
        "{verified:#}"
    );
}

#[test]
fn an_agent_that_returns_early_from_the_failing_test_is_caught() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("return-test", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--max-attempts", "1"]);
    scenario.check(
        &out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );
    assert!(
        scenario
            .project
            .read("test_cart.py")
            .contains("def test_discount():\n    return\n"),
        "the agent really neutered it"
    );
    // As many tests ran as in the baseline, none skipped, and pytest passed them all; the guard
    // read the test and failed the pass.
    let verified = verification_of(&scenario, 1);
    assert_eq!(verified["passed"], false, "{verified:#}");
    assert_eq!(
        guard_failures(&verified),
        ["verdict-guard early_return test_cart.py"],
        "{verified:#}"
    );
    for said in [
        "test_discount can no longer fail: it returns before its assertions",
        "the task forbids making tests pass by changing them",
    ] {
        assert!(
            out.stdout.contains(said),
            "the digest says {said:?}:\n{}",
            out.all()
        );
    }
}

#[test]
fn an_agent_that_edits_a_protected_test_is_caught() {
    let scenario = Scenario::cart();
    scenario
        .project
        .write("verdict.toml", "[loop]\nprotected = [\"test_*.py\"]\n");
    let agent = scenario.agent("edit-test", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--max-attempts", "1"]);
    scenario.check(
        &out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );
    let verified = verification_of(&scenario, 1);
    // The edit rewrote the failing test's expected value to what the code returns, too.
    assert_eq!(
        guard_failures(&verified),
        [
            "verdict-guard expected_rewritten test_cart.py",
            "verdict-guard protected_changed test_cart.py"
        ],
        "{verified:#}"
    );
    assert!(out.stdout.contains("pytest: 3 passed"), "{}", out.all());
}

#[test]
fn the_same_failure_twice_escalates_with_the_summary_on_stdin() {
    let scenario = Scenario::cart();
    let capture = format!(
        "[loop]\nescalate_command = [\"python3\", {}, \"capture\", \"--log\", {}]\n",
        toml_string(&agent_script().to_string_lossy()),
        toml_string(&scenario.log_dir("escalation").to_string_lossy()),
    );
    scenario.project.write("verdict.toml", &capture);
    let agent = scenario.agent("touch", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    scenario.check(
        &out,
        Expect {
            code: 3,
            state: "escalated",
            attempts: 2,
        },
    );
    assert_eq!(scenario.calls("a"), 2);
    let escalated = scenario.events_of("escalated");
    assert_eq!(escalated.len(), 1, "{escalated:#?}");
    assert_eq!(escalated[0]["escalation"]["ok"], true, "{:#}", escalated[0]);
    let path = scenario.log_dir("escalation").join("escalation.json");
    let text = std::fs::read_to_string(&path).expect("the escalation command got its stdin");
    let summary: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("the summary is not JSON ({e}): {text}"));
    assert_eq!(summary["task"], TASK, "{summary:#}");
    assert_eq!(summary["run"], escalated[0]["run"], "{summary:#}");
    assert_eq!(
        summary["attempts"].as_array().map(Vec::len),
        Some(2),
        "{summary:#}"
    );
    assert!(
        summary["reason"]
            .as_str()
            .is_some_and(|r| r.contains("same")),
        "{summary:#}"
    );
    assert!(
        summary["digest"]
            .as_str()
            .is_some_and(|d| d.contains("test_discount")),
        "{summary:#}"
    );
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).expect("a JSON string is a TOML basic string")
}

#[test]
fn a_failure_already_there_does_not_block_with_new_failures_only() {
    let legacy = "\"\"\"Old debt: fails before and after the task.\"\"\"\n\n\ndef test_legacy():\n    assert 1 + 1 == 3\n";
    // Without --new-failures-only the old failure blocks: one attempt, not green.
    let strict = Scenario::cart();
    strict.project.write("test_legacy.py", legacy);
    let agent = strict.agent("fix", "a");
    let out = strict.run(&["--task", TASK, "--agent", &agent, "--max-attempts", "1"]);
    strict.check(
        &out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );

    let lenient = Scenario::cart();
    lenient.project.write("test_legacy.py", legacy);
    let agent = lenient.agent("fix", "a");
    let out = lenient.run(&[
        "--task",
        TASK,
        "--agent",
        &agent,
        "--max-attempts",
        "1",
        "--new-failures-only",
    ]);
    lenient.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let verified = verification_of(&lenient, 1);
    assert_eq!(
        verified["known"], 1,
        "the legacy failure, set apart: {verified:#}"
    );
    assert!(lenient.project.read("cart.py").contains("total - total"));
}

// ---------------------------------------------------------------------------------------------
// --reset

#[test]
fn reset_restores_the_starting_tree_before_each_attempt() {
    let scenario = Scenario::cart();
    let project = &scenario.project;
    project.git_init();
    project.git(&["add", "."]);
    project.git(&["commit", "-q", "-m", "start"]);
    project.git(&["branch", "mine"]);
    let agent = scenario.agent("junk", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--reset"]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    let seen = |n: u32| {
        std::fs::read_to_string(scenario.log_dir("a").join(format!("seen-{n}.txt")))
            .expect("the agent listed its junk")
    };
    assert_eq!(seen(1), "");
    assert_eq!(
        seen(2),
        "",
        "attempt 1's junk is gone when attempt 2 starts"
    );
    assert!(!project.path("junk-1.txt").exists());
    assert!(
        project.path("junk-2.txt").exists(),
        "attempt 2's work stays"
    );
    let resets = scenario.events_of("workspace_reset");
    assert_eq!(resets.len(), 1, "{resets:#?}");
    assert_eq!(resets[0]["attempt"], 2);
    // The user's own repository is left alone: no stash, the same branches and HEAD.
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .args(args)
            .current_dir(project.root())
            .output()
            .expect("git starts");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert_eq!(git(&["stash", "list"]), "");
    let branches = git(&["branch", "--format=%(refname:short)"]);
    let mut branches: Vec<&str> = branches.lines().collect();
    branches.sort_unstable();
    assert!(
        branches == ["master", "mine"] || branches == ["main", "mine"],
        "{branches:?}"
    );
    assert_eq!(git(&["log", "--format=%s"]).trim(), "start");

    // Without --reset the workspace carries over: attempt 2 finds attempt 1's junk.
    let carried = Scenario::cart();
    let agent = carried.agent("junk", "a");
    let out = carried.run(&["--task", TASK, "--agent", &agent]);
    carried.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    let seen = std::fs::read_to_string(carried.log_dir("a").join("seen-2.txt"))
        .expect("the agent listed its junk");
    assert_eq!(seen, "junk-1.txt\n");
}

#[test]
fn reset_refuses_an_events_file_inside_the_tree_it_restores() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("fix", "a");
    let inside = scenario.project.path("events.ndjson");
    let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args([
            "loop", "--task", TASK, "--agent", &agent, "--reset", "--events",
        ])
        .arg(&inside)
        .current_dir(scenario.root())
        .env("PATH", path_with_node())
        .stdin(Stdio::null())
        .output()
        .expect("verdict starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("inside the workspace, which --reset restores"),
        "{stderr}"
    );
    assert_eq!(scenario.calls("a"), 0);
}

// ---------------------------------------------------------------------------------------------
// The task never reaches a shell

#[test]
fn a_task_with_shell_syntax_creates_no_file() {
    // The last: placeholders in the task are the task's own words, not substituted again.
    let placeholders = "; touch pwned {prompt_file} {prompt}";
    for task in ["; touch pwned", "$(touch pwned)", placeholders] {
        for via in [Via::Argv, Via::Stdin] {
            if task == placeholders && via == Via::Stdin {
                continue;
            }
            let scenario = Scenario::cart();
            let agent = scenario.agent_via("fix", "a", via);
            // No baseline: what is checked here is the agent's command line, and the baseline
            // would only add a pytest run to each of the four.
            let out = scenario.run(&["--task", task, "--agent", &agent, "--no-baseline"]);
            scenario.check(
                &out,
                Expect {
                    code: 0,
                    state: "passed",
                    attempts: 1,
                },
            );
            // No baseline: the task alone, byte for byte.
            assert_eq!(scenario.prompt("a", 1), task, "{via:?}");
            if via == Via::Argv {
                let argv = std::fs::read_to_string(scenario.log_dir("a").join("argv-1.json"))
                    .expect("the agent's argv");
                let argv: Vec<String> = serde_json::from_str(&argv).expect("a JSON array");
                assert_eq!(argv.last().map(String::as_str), Some(task), "{argv:?}");
            }
            let cwd = std::env::current_dir().expect("a cwd");
            for dir in [
                scenario.root(),
                scenario.logs.path(),
                cwd.as_path(),
                std::env::temp_dir().as_path(),
            ] {
                assert!(
                    !dir.join("pwned").exists(),
                    "{task:?} via {via:?} created {}",
                    dir.join("pwned").display()
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Could not run

#[test]
fn no_agent_is_exit_2_with_a_message() {
    let scenario = Scenario::cart();
    let out = scenario.run(&["--task", TASK]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stderr.contains("no agent"), "{}", out.all());
}

#[test]
fn agent_timeout_0_and_budget_0_are_refused_as_the_config_file_refuses_them() {
    // They were taken: every session timed out at once, and the retry prompt had no digest.
    let scenario = Scenario::cart();
    let agent = scenario.agent("fix", "a");
    for (flag, message) in [
        ("--agent-timeout", "must be at least 1 second"),
        ("--budget", "must be at least 1 token"),
    ] {
        let out = scenario.run(&["--task", TASK, "--agent", &agent, flag, "0"]);
        assert_eq!(out.code, 2, "{}", out.all());
        assert!(
            out.stderr.contains(flag) && out.stderr.contains(message),
            "{}",
            out.all()
        );
    }
    assert_eq!(scenario.calls("a"), 0, "no agent ran");
}

#[test]
fn a_task_whose_retry_prompt_cannot_fit_one_argument_is_refused_before_attempt_1() {
    // The first prompt (the task alone) fitted; the second, with the digest, did not, and the run
    // ended with exit 2 after attempt 1 had already run.
    let scenario = Scenario::cart();
    let agent = scenario.agent_via("fix", "a", Via::Argv);
    let task = format!(
        "{TASK}\n{}",
        "Keep the cart's behaviour as it is. ".repeat(3600)
    );
    assert!(task.len() < 128 * 1024, "the task alone fits");
    let out = scenario.run(&["--task", &task, "--agent", &agent]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.stderr
            .contains("over the 128 KiB Linux allows for one argument")
            && out.stderr.contains("{prompt_file} or on stdin"),
        "{}",
        out.all()
    );
    assert_eq!(scenario.calls("a"), 0, "no attempt ran");
}

#[test]
fn a_damaged_state_database_is_named_in_the_error() {
    let scenario = Scenario::cart();
    scenario
        .project
        .write(".verdict/state.db", &"not a database ".repeat(200));
    let agent = scenario.agent("fix", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.stderr.contains(".verdict/state.db") && out.stderr.contains("not a database"),
        "{}",
        out.all()
    );
}

#[test]
fn an_agent_that_does_not_exist_is_exit_2() {
    let scenario = Scenario::cart();
    let missing = scenario.logs.path().join("no-such-agent");
    let agent = quote(&missing.to_string_lossy());
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.stdout.contains("no-such-agent") || out.stderr.contains("no-such-agent"),
        "the message names the agent:\n{}",
        out.all()
    );
}

/// The verifications' run directories under `.verdict/runs/`, oldest first, each with the summary
/// line of its pytest log.
fn pytest_runs(scenario: &Scenario) -> Vec<String> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(scenario.project.path(".verdict/runs"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs.iter()
        .map(|dir| {
            let log = std::fs::read_to_string(dir.join("pytest.log")).unwrap_or_default();
            log.lines()
                .rev()
                .find(|line| line.contains(" in ") && line.contains("failed"))
                .or_else(|| log.lines().rev().find(|line| line.contains(" in ")))
                .unwrap_or("(no summary)")
                .trim_matches(|c| c == '=' || c == ' ')
                .to_owned()
        })
        .collect()
}

#[test]
fn an_attempt_that_changed_nothing_is_answered_from_the_last_verification() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("nothing-then-fix", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    let first = verification_of(&scenario, 1);
    assert_eq!(first["no_op"], true, "{first:#}");
    assert_eq!(first["answered_from"], "baseline", "{first:#}");
    assert_eq!(
        first["failures"],
        scenario.events_of("baseline_finished")[0]["failures"]
    );
    assert!(verification_of(&scenario, 2).get("answered_from").is_none());
    // The baseline and attempt 2 ran pytest; attempt 1 ran nothing, not even the flaky re-run.
    let runs = pytest_runs(&scenario);
    assert_eq!(runs.len(), 2, "{runs:#?}");
}

#[test]
fn the_flaky_re_run_repeats_only_the_failed_tests() {
    let scenario = Scenario::cart();
    let agent = scenario.agent("touch", "a");
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--max-attempts", "1"]);
    scenario.check(
        &out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );
    // The baseline and attempt 1 ran the suite (3 tests); the re-run, the one failed test.
    let runs = pytest_runs(&scenario);
    assert_eq!(runs.len(), 3, "{runs:#?}");
    assert!(runs[0].starts_with("1 failed, 2 passed"), "{runs:#?}");
    assert!(runs[1].starts_with("1 failed, 2 passed"), "{runs:#?}");
    assert!(
        runs[2].starts_with("1 failed in"),
        "only the failed test: {runs:#?}"
    );
    let verified = verification_of(&scenario, 1);
    assert_eq!(
        verified["flaky"]["failures"],
        serde_json::json!({}),
        "{verified:#}"
    );
    assert!(
        verified["failures"].to_string().contains("test_discount"),
        "{verified:#}"
    );
    assert!(out.stdout.contains("1 failed, 2 passed"), "{}", out.all());
}
