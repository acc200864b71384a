//! Contract tests of `verdict hook` (issue 4, item 9): the real binary as the stop hook of Claude
//! Code, Codex and Cursor, fed each harness's exact input on stdin, on small real projects whose
//! one verifier is a `[[verifier]]` in verdict.toml (`sh -c` a fixed script that fails or passes
//! depending on `state.txt`), and its answers compared with golden snapshots
//! (`cli/tests/hook/snapshots/`). Also `verdict hook install`: what it writes, and that a second
//! install changes nothing.

use crate::support::project as support;
use crate::support::project::git_in as git;
use crate::support::schema;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The verifier: passes when state.txt holds `ok`, else reports its content as a gcc-style error.
/// It also counts its runs in runs.txt.
const CONFIG: &str = r#"
[[verifier]]
name = "check"
kind = "build"
command = ["sh", "-c", '''echo run >> runs.txt; if [ "$(cat state.txt)" = ok ]; then echo fine; else echo "src/app.c:1:1: error: $(cat state.txt)"; exit 1; fi''']

[[verifier.pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): (?P<message>.*)$'
"#;

/// Failures that differ in their words (fingerprints ignore numbers, so `error 1` and `error 2`
/// are the same failure).
const FAILURES: [&str; 6] = [
    "missing semicolon",
    "unknown type name",
    "undeclared identifier",
    "too many arguments",
    "expected expression",
    "conflicting types",
];

/// A verifier that outlives any deadline, writing its pid first.
const SLOW_CONFIG: &str = r#"
[[verifier]]
name = "slow"
kind = "test"
command = ["sh", "-c", "echo $$ > slow.pid; sleep 30; echo woke"]
"#;

/// Names of failing tests that differ in their words, for a pytest project (a test's name is
/// part of its failure's fingerprint).
const TEST_NAMES: [&str; 4] = ["test_sum", "test_total", "test_addition", "test_plus"];

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(config: &str) -> Project {
        let dir = tempfile::tempdir().expect("a temp dir");
        let project = Project { dir };
        project.write("verdict.toml", config);
        project.write("state.txt", "ok\n");
        project
    }

    /// A git repository without verdict.toml whose one verifier, pytest (the real one, from the
    /// tools `cargo xtask tools` installs), is found by detection; `tests/` and `docs/` are
    /// directories the agent may `cd` into.
    fn pytest() -> Project {
        let dir = tempfile::tempdir().expect("a temp dir");
        let project = Project { dir };
        project.write("calc.py", "def add(a, b):\n    return a - b\n");
        project.write(
            "pytest.ini",
            "[pytest]\ntestpaths = tests\npythonpath = .\n",
        );
        project.write("docs/index.md", "# calc\n");
        project.failing_test(TEST_NAMES[0]);
        std::fs::create_dir(project.root().join(".git")).expect("a .git directory");
        let venv = support::tools().join("venv");
        assert!(
            venv.join("bin/python").is_file(),
            "{} is missing: run `cargo xtask tools` first",
            venv.display()
        );
        std::os::unix::fs::symlink(venv, project.root().join(".venv")).expect("link .venv");
        project
    }

    /// Makes the pytest project's one test `name`, failing.
    fn failing_test(&self, name: &str) {
        self.write(
            "tests/test_calc.py",
            &format!("from calc import add\n\ndef {name}():\n    assert add(2, 3) == 5\n"),
        );
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a directory");
        }
        std::fs::write(path, text).expect("write a file");
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap_or_default()
    }

    /// Sets what the verifier reports: `ok` passes, anything else is the error's message.
    fn state(&self, text: &str) {
        self.write("state.txt", &format!("{text}\n"));
    }

    /// Runs `verdict <args>` in the project with `stdin`; returns (stdout, stderr).
    fn verdict(&self, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> (String, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_verdict"));
        // Tests run from inside an agent's session too: its variables must not leak in.
        command
            .args(args)
            .env("VERDICT_STATE_DIR", ".verdict")
            .current_dir(self.root())
            .env_remove("CODEX_HOME")
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("verdict starts");
        child
            .stdin
            .take()
            .expect("a stdin")
            .write_all(stdin.as_bytes())
            .expect("write stdin");
        let output = child.wait_with_output().expect("verdict ends");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(
            output.status.code(),
            Some(0),
            "verdict {args:?} did not exit 0:\n{stdout}\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        (stdout, stderr)
    }

    /// Runs the hook of `harness` with `input`; returns its answer (one JSON object) and stderr.
    fn hook(&self, harness: &str, input: &str, extra: &[&str]) -> (Value, String) {
        self.hook_env(harness, input, extra, &[])
    }

    /// [`Project::hook`] with environment variables set, as the harness sets them.
    fn hook_env(
        &self,
        harness: &str,
        input: &str,
        extra: &[&str],
        env: &[(&str, &Path)],
    ) -> (Value, String) {
        let mut args = vec!["hook", harness];
        args.extend(extra);
        let (stdout, stderr) = self.verdict(&args, input, env);
        assert_eq!(stdout.lines().count(), 1, "one line of JSON: {stdout}");
        let answer = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {stdout}"));
        (answer, stderr)
    }

    /// The session's start and first check, on a passing project (whatever `state.txt` holds,
    /// restored after): the baseline it takes holds nothing, so every failure after it is the
    /// session's own.
    fn begin(&self, harness: &str, input: &str) {
        let state = self.read("state.txt");
        self.state("ok");
        self.start(harness, input);
        let (answer, stderr) = self.hook(harness, input, &[]);
        assert_eq!(answer, json!({}), "the first check passes: {stderr}");
        self.write("state.txt", &state);
    }

    /// Runs the session-start hook of `harness` for the session of `stop_input` (a stop input of
    /// that harness), with the harness's own session-start input; returns its stderr. It answers
    /// `{}` whatever happens.
    fn start(&self, harness: &str, stop_input: &str) -> String {
        let input = self.start_input(harness, stop_input);
        let (answer, stderr) = self.hook(harness, &input, &["--event", "session-start"]);
        assert_eq!(answer, json!({}), "{stderr}");
        stderr
    }

    /// The session-start input of `harness` for the session of `stop_input`.
    fn start_input(&self, harness: &str, stop_input: &str) -> String {
        let stop: Value = serde_json::from_str(stop_input).expect("a stop input");
        let id = |key: &str| stop[key].as_str().expect("a session id").to_owned();
        match harness {
            "claude" => json!({
                "session_id": id("session_id"),
                "transcript_path": self.root().join("transcript.jsonl"),
                "cwd": self.root(),
                "hook_event_name": "SessionStart",
                "source": "startup",
                "model": "claude-sonnet-4-5",
            }),
            "codex" => json!({
                "session_id": id("session_id"),
                "transcript_path": self.root().join("rollout.jsonl"),
                "cwd": self.root(),
                "hook_event_name": "SessionStart",
                "model": "gpt-5-codex",
                "source": "startup",
            }),
            "gemini" => json!({
                "session_id": id("session_id"),
                "transcript_path": self.root().join("gemini.json"),
                "cwd": self.root(),
                "hook_event_name": "SessionStart",
                "timestamp": "2026-11-26T10:00:00Z",
                "source": "startup",
            }),
            "cursor" => json!({
                "conversation_id": id("conversation_id"),
                "generation_id": "gen-0",
                "session_id": id("conversation_id"),
                "hook_event_name": "sessionStart",
                "cursor_version": "2.0.77",
                "workspace_roots": [self.root()],
                "is_background_agent": false,
                "composer_mode": "agent",
            }),
            other => panic!("no harness {other}"),
        }
        .to_string()
    }

    /// Claude Code's Stop input, every field its hooks reference documents.
    fn claude_input(&self, session: &str, active: bool) -> String {
        self.claude_input_in(session, active, self.root())
    }

    /// Claude Code's Stop input after the agent `cd`'d into `cwd`.
    fn claude_input_in(&self, session: &str, active: bool, cwd: &Path) -> String {
        json!({
            "session_id": session,
            "transcript_path": self.root().join("transcript.jsonl"),
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": active,
        })
        .to_string()
    }

    /// Codex's Stop input.
    fn codex_input(&self, session: &str) -> String {
        json!({
            "session_id": session,
            "transcript_path": self.root().join("rollout.jsonl"),
            "cwd": self.root(),
            "hook_event_name": "Stop",
            "model": "gpt-5-codex",
            "turn_id": "turn-1",
            "stop_hook_active": false,
            "last_assistant_message": "All done.",
        })
        .to_string()
    }

    /// Cursor's stop input.
    fn cursor_input(&self, conversation: &str, status: &str, loop_count: u32) -> String {
        json!({
            "conversation_id": conversation,
            "generation_id": "gen-1",
            "model": "claude-sonnet",
            "hook_event_name": "stop",
            "cursor_version": "2.0.77",
            "workspace_roots": [self.root()],
            "user_email": null,
            "status": status,
            "loop_count": loop_count,
        })
        .to_string()
    }

    /// `answer` as pretty JSON, with this project's path and run ids hidden.
    fn normalized(&self, answer: &Value) -> String {
        let text = serde_json::to_string_pretty(answer).expect("JSON");
        let text = text.replace(&self.root().display().to_string(), "[ROOT]");
        hide_token_counts(&hide_run_ids(&text))
    }
}

/// `45/500 tokens` → `[N]/500 tokens`: the digest's size counts the log's path, whose run id holds
/// verdict's pid, so it varies by a token from run to run.
fn hide_token_counts(text: &str) -> String {
    let marker = "/500 tokens";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let head = rest[..at].trim_end_matches(|c: char| c.is_ascii_digit());
        out.push_str(head);
        out.push_str("[N]");
        out.push_str(marker);
        rest = &rest[at + marker.len()..];
    }
    out.push_str(rest);
    out
}

/// The verdict binary under test, as `verdict hook install` names it (its canonical path).
fn exe() -> String {
    Path::new(env!("CARGO_BIN_EXE_verdict"))
        .canonicalize()
        .expect("the verdict binary")
        .display()
        .to_string()
}

/// The binary's path → `[VERDICT]`.
fn hide_exe(text: &str) -> String {
    text.replace(&exe(), "[VERDICT]")
}

/// `.verdict/runs/<id>/` → `.verdict/runs/[RUN]/`.
fn hide_run_ids(text: &str) -> String {
    let marker = ".verdict/runs/";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        out.push_str(&rest[..at + marker.len()]);
        rest = &rest[at + marker.len()..];
        let end = rest.find('/').unwrap_or(rest.len());
        out.push_str("[RUN]");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

macro_rules! snapshot {
    ($name:expr, $text:expr) => {
        insta::with_settings!({ snapshot_path => "hook/snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!($name, $text);
        })
    };
}

fn is_block(answer: &Value) -> bool {
    answer["decision"] == "block"
}

/// The fields of Claude Code's hook output (its Agent SDK's `SyncHookJSONOutput`), and those of
/// the hook-specific output of its Stop and SubagentStop hooks.
const CLAUDE_OUTPUT_FIELDS: [&str; 8] = [
    "continue",
    "suppressOutput",
    "stopReason",
    "decision",
    "systemMessage",
    "terminalSequence",
    "reason",
    "hookSpecificOutput",
];
const CLAUDE_STOP_SPECIFIC_FIELDS: [&str; 2] = ["hookEventName", "additionalContext"];

/// Fails unless a Claude Code stop answer is an object of only the fields Claude Code reads, each
/// of the type it takes.
fn check_claude_stop_answer(answer: &Value) {
    let fields = answer.as_object().expect("an object");
    for (key, value) in fields {
        assert!(
            CLAUDE_OUTPUT_FIELDS.contains(&key.as_str()),
            "`{key}` is no field of Claude Code's hook output: {answer:#}"
        );
        match key.as_str() {
            "continue" | "suppressOutput" => assert!(value.is_boolean(), "{answer:#}"),
            "decision" => assert!(value == "block" || value == "approve", "{answer:#}"),
            "hookSpecificOutput" => {
                let specific = value.as_object().expect("an object");
                assert!(
                    specific
                        .keys()
                        .all(|k| CLAUDE_STOP_SPECIFIC_FIELDS.contains(&k.as_str())),
                    "{answer:#}"
                );
                let point = &specific["hookEventName"];
                assert!(point == "Stop" || point == "SubagentStop", "{answer:#}");
                assert!(specific["additionalContext"].is_string(), "{answer:#}");
            }
            _ => assert!(value.is_string(), "`{key}` is not a string: {answer:#}"),
        }
    }
}

fn message(answer: &Value) -> &str {
    answer["systemMessage"].as_str().unwrap_or("")
}

// ---------------------------------------------------------------------------------------------
// Claude Code

/// Claude Code shows a block's reason as a hook error and a Stop hook's `additionalContext` as
/// feedback, and gives the model both: the block keeps the agent working with verdict's
/// instruction as its reason, and what fails is the feedback.
#[test]
fn claude_blocks_a_failing_project_with_the_digest_as_feedback() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("s1", false));
    project.state("unknown type name foo");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
    let reason = answer["reason"].as_str().expect("a reason");
    assert!(
        reason.starts_with("verdict: the project's verification fails") && !reason.contains('\n'),
        "{reason}"
    );
    let feedback = &answer["hookSpecificOutput"];
    assert_eq!(feedback["hookEventName"], "Stop", "{answer:#}");
    let details = feedback["additionalContext"].as_str().expect("feedback");
    assert!(details.contains("src/app.c:1:1"), "{details}");
    assert!(details.contains("unknown type name foo"), "{details}");
    assert!(details.contains("full log"), "{details}");
    check_claude_stop_answer(&answer);
    snapshot!("claude_block", project.normalized(&answer));
}

/// In plan mode the agent cannot edit files: it is never told to fix code, however the project
/// fails, and nothing is counted against the session.
#[test]
fn claude_in_plan_mode_is_never_told_to_fix_code() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("plan", false));
    project.state("unknown type name foo");
    let mut input: Value =
        serde_json::from_str(&project.claude_input("plan", false)).expect("JSON");
    input["permission_mode"] = json!("plan");
    let (answer, _) = project.hook("claude", &input.to_string(), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    // The same failure in the same session, once the agent can edit: blocked at once.
    let (answer, _) = project.hook("claude", &project.claude_input("plan", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
}

#[test]
fn claude_lets_a_passing_project_stop() {
    let project = Project::new(CONFIG);
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    assert_eq!(project.read("runs.txt"), "run\n", "the verifier ran once");
    check_claude_stop_answer(&answer);
    snapshot!("claude_pass", project.normalized(&answer));
}

#[test]
fn the_fourth_consecutive_block_lets_the_agent_stop_with_the_failure() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("s1", false));
    for n in 1..=3 {
        project.state(FAILURES[n - 1]);
        let (answer, _) = project.hook("claude", &project.claude_input("s1", n > 1), &[]);
        assert!(is_block(&answer), "block {n}: {answer:#}");
    }
    project.state(FAILURES[3]);
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", true), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("after 3 blocks"), "{answer:#}");
    assert!(message(&answer).contains(FAILURES[3]), "{answer:#}");
    assert!(
        stderr.contains("after 3 blocks"),
        "visible on stderr too: {stderr}"
    );
    check_claude_stop_answer(&answer);
    snapshot!("claude_fourth_block_allows", project.normalized(&answer));
    // Letting go ended the chain: the next stop (a new request) blocks again.
    project.state(FAILURES[4]);
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
}

#[test]
fn max_blocks_is_configurable() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("s1", false));
    project.state("first");
    let (answer, _) = project.hook(
        "claude",
        &project.claude_input("s1", false),
        &["--max-blocks", "1"],
    );
    assert!(is_block(&answer), "{answer:#}");
    project.state("second");
    let (answer, _) = project.hook(
        "claude",
        &project.claude_input("s1", true),
        &["--max-blocks", "1"],
    );
    assert!(message(&answer).contains("after 1 block "), "{answer:#}");
}

#[test]
fn the_same_failure_twice_lets_the_agent_stop() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("s1", false));
    project.state("expected semicolon");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", true), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("same failures"), "{answer:#}");
    assert!(
        message(&answer).contains("expected semicolon"),
        "{answer:#}"
    );
    check_claude_stop_answer(&answer);
    snapshot!("claude_same_failure_allows", project.normalized(&answer));
}

#[test]
fn a_pass_resets_the_count() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("s1", false));
    for n in 1..=2 {
        project.state(FAILURES[n - 1]);
        let (answer, _) = project.hook("claude", &project.claude_input("s1", n > 1), &[]);
        assert!(is_block(&answer), "{answer:#}");
    }
    project.state("ok");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", true), &[]);
    assert_eq!(answer, json!({}));
    // Three fresh blocks, not one.
    for n in 3..=5 {
        project.state(FAILURES[n - 1]);
        let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
        assert!(is_block(&answer), "block after the pass {n}: {answer:#}");
    }
}

/// Claude Code's `cwd` follows the agent's `cd`: a stop from `tests/` got a fresh count in
/// `tests/.verdict/` (a fourth block), and a stop from `docs/` found no verifier and let the agent
/// stop while the tests failed.
#[test]
fn a_stop_from_a_subdirectory_verifies_and_counts_at_the_repository_root() {
    let project = Project::pytest();
    // The session's first check, with the bug fixed: nothing fails yet.
    project.write("calc.py", "def add(a, b):\n    return a + b\n");
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    project.write("calc.py", "def add(a, b):\n    return a - b\n");
    for (n, dir) in [".", "tests", "docs"].into_iter().enumerate() {
        project.failing_test(TEST_NAMES[n]);
        let cwd = project.root().join(dir);
        let (answer, stderr) =
            project.hook("claude", &project.claude_input_in("s1", n > 0, &cwd), &[]);
        assert!(
            is_block(&answer),
            "block {} from {dir}: {answer:#}\n{stderr}",
            n + 1
        );
        let reason = support::hook_prompt(&answer);
        assert!(reason.contains(TEST_NAMES[n]), "{reason}");
    }
    project.failing_test(TEST_NAMES[3]);
    let cwd = project.root().join("tests");
    let (answer, _) = project.hook("claude", &project.claude_input_in("s1", true, &cwd), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("after 3 blocks"), "{answer:#}");
    for dir in ["tests", "docs"] {
        let stray = project.root().join(dir).join(".verdict");
        assert!(!stray.exists(), "{} was created", stray.display());
    }
}

/// Outside a repository verdict.toml is only looked for in the start directory: the project
/// Claude Code names in `CLAUDE_PROJECT_DIR` is where the session's project is, wherever the
/// agent `cd`s.
#[test]
fn claude_project_dir_is_verified_when_the_agent_cds_into_a_subdirectory() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("s1", false));
    project.state("unknown type name foo");
    project.write("sub/notes.txt", "notes\n");
    let cwd = project.root().join("sub");
    let (answer, stderr) = project.hook_env(
        "claude",
        &project.claude_input_in("s1", false, &cwd),
        &[],
        &[("CLAUDE_PROJECT_DIR", project.root())],
    );
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    assert!(project.root().join(".verdict/state.db").is_file());
    assert!(!cwd.join(".verdict").exists(), "sub/.verdict was created");
}

/// Claude Code's worktree sessions set `CLAUDE_PROJECT_DIR` to the main checkout and `cwd` to the
/// worktree the agent edits (Gemini CLI's `GEMINI_PROJECT_DIR` likewise): verdict verified the
/// main checkout, and a failure made only in the worktree was answered `{}`. The session's start
/// is recorded, and the baseline taken, in the worktree too; the main checkout is never run.
#[test]
fn a_session_in_a_git_worktree_is_verified_in_its_worktree() {
    let project = Project::new(CONFIG);
    project.write(".gitignore", ".verdict/\nruns.txt\n.claude/worktrees/\n");
    git(project.root(), &["init", "-q"]);
    git(project.root(), &["add", "-A"]);
    git(project.root(), &["commit", "-q", "-m", "init"]);
    let worktree = project.root().join(".claude/worktrees/w1");
    let worktree_arg = worktree.to_str().expect("a UTF-8 temp path");
    git(
        project.root(),
        &["worktree", "add", "-q", "-b", "w1", worktree_arg],
    );
    let cases = [
        ("claude", "CLAUDE_PROJECT_DIR", "Stop"),
        ("gemini", "GEMINI_PROJECT_DIR", "AfterAgent"),
        ("codex", "", "Stop"),
    ];
    for (harness, variable, stop_event) in cases {
        let session = format!("{harness}-in-worktree");
        let input = |event: &str| {
            json!({"session_id": session, "cwd": worktree, "hook_event_name": event}).to_string()
        };
        let env: Vec<(&str, &Path)> = if variable.is_empty() {
            Vec::new()
        } else {
            vec![(variable, project.root())]
        };
        std::fs::write(worktree.join("state.txt"), "ok\n").expect("write");
        let (answer, stderr) = project.hook_env(
            harness,
            &input("SessionStart"),
            &["--event", "session-start"],
            &env,
        );
        assert_eq!(answer, json!({}), "{stderr}");
        // The agent breaks the worktree only; the main checkout still passes.
        std::fs::write(worktree.join("state.txt"), "unknown type name foo\n").expect("write");
        let (answer, stderr) = project.hook_env(harness, &input(stop_event), &[], &env);
        let decision = answer["decision"].as_str().unwrap_or_default();
        assert!(
            decision == "block" || decision == "deny",
            "{harness}: {answer:#}\n{stderr}"
        );
        let reason = support::hook_prompt(&answer);
        assert!(reason.contains("unknown type name"), "{harness}: {reason}");
        assert!(
            !stderr.contains("set aside"),
            "{harness}: the start was the worktree's passing tree: {stderr}"
        );
    }
    assert!(
        !project.root().join("runs.txt").exists(),
        "the main checkout was verified instead of the worktree"
    );
    assert!(worktree.join("runs.txt").is_file());
}

/// A `cwd` that is not a string was taken for no `cwd`, and the hook's own directory verified
/// instead: an error, said so, and the agent let go (verdict's own errors never block).
#[test]
fn a_cwd_of_the_wrong_type_is_an_error_said_so() {
    let project = Project::new(CONFIG);
    project.state("unknown type name foo");
    for cwd in [json!(42), json!({"path": "."}), json!(["."])] {
        let input = json!({"session_id": "s1", "cwd": cwd, "hook_event_name": "Stop"});
        let (answer, stderr) = project.hook("claude", &input.to_string(), &[]);
        assert!(!is_block(&answer), "{answer:#}");
        assert!(
            message(&answer).contains("`cwd` that is not a string"),
            "{answer:#}\n{stderr}"
        );
        let input = json!({
            "session_id": "s1", "cwd": cwd, "hook_event_name": "PostToolUse",
            "tool_name": "Edit", "tool_input": {"file_path": "src/app.c"},
        });
        let (_, stderr) = project.hook("claude", &input.to_string(), &["--event", "post-edit"]);
        assert!(stderr.contains("`cwd` that is not a string"), "{stderr}");
    }
    assert!(
        !project.root().join("runs.txt").exists(),
        "something was verified"
    );
}

#[test]
fn sessions_and_harnesses_are_counted_apart() {
    let project = Project::new(CONFIG);
    for session in ["a", "b"] {
        project.begin("claude", &project.claude_input(session, false));
    }
    project.begin("codex", &project.codex_input("a"));
    project.state("shared failure");
    let (a, _) = project.hook("claude", &project.claude_input("a", false), &[]);
    let (b, _) = project.hook("claude", &project.claude_input("b", false), &[]);
    let (c, _) = project.hook("codex", &project.codex_input("a"), &[]);
    assert!(is_block(&a) && is_block(&b) && is_block(&c), "{a} {b} {c}");
    // Session a now sees the same failure twice.
    let (a, _) = project.hook("claude", &project.claude_input("a", true), &[]);
    assert!(message(&a).contains("same failures"), "{a:#}");
}

// ---------------------------------------------------------------------------------------------
// Fail open

#[test]
fn garbage_on_stdin_lets_the_agent_stop_with_a_message() {
    let project = Project::new(CONFIG);
    project.state("broken");
    for harness in ["claude", "codex", "cursor"] {
        let (answer, stderr) = project.hook(harness, "{this is not json", &[]);
        assert!(!is_block(&answer) && answer.get("followup_message").is_none());
        assert!(stderr.contains("is not JSON"), "{harness}: {stderr}");
        assert!(
            stderr.contains("letting the agent stop"),
            "{harness}: {stderr}"
        );
        snapshot!(
            format!("{harness}_garbage_stdin"),
            project.normalized(&answer)
        );
    }
    assert_eq!(project.read("runs.txt"), "", "nothing was verified");
}

#[test]
fn input_without_a_session_or_for_another_event_fails_open() {
    let project = Project::new(CONFIG);
    project.state("broken");
    let (answer, _) = project.hook("claude", r#"{"cwd":"."}"#, &[]);
    assert!(message(&answer).contains("no `session_id`"), "{answer:#}");
    let (answer, _) = project.hook(
        "claude",
        r#"{"session_id":"s","hook_event_name":"PreToolUse"}"#,
        &[],
    );
    assert!(message(&answer).contains("not `PreToolUse`"), "{answer:#}");
}

#[test]
fn a_project_without_verifiers_lets_the_agent_stop_quietly() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let project = Project { dir };
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert_eq!(answer, json!({}));
    assert!(stderr.contains("no verifier applies"), "{stderr}");
}

/// The hook created `.verdict/` and a new run directory at every stop in a project no verifier
/// applies to (a user-wide hook runs in every project).
#[test]
fn a_project_without_verifiers_is_left_untouched() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let project = Project { dir };
    project.write("README.md", "nothing to verify\n");
    for session in ["s1", "s1", "s2"] {
        let (answer, _) = project.hook("claude", &project.claude_input(session, false), &[]);
        assert_eq!(answer, json!({}));
    }
    let entries: Vec<String> = std::fs::read_dir(project.root())
        .expect("read the project")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(entries, ["README.md"], "the hook wrote into the project");
}

/// A `cwd` that does not exist was created, `.verdict/runs/…` and all, and then reported as
/// "no verifier applies".
#[test]
fn a_cwd_that_does_not_exist_lets_the_agent_stop_saying_so() {
    let project = Project::new(CONFIG);
    project.state("broken");
    let ghost = project.root().join("ghost/a/b");
    let (answer, stderr) =
        project.hook("claude", &project.claude_input_in("s1", false, &ghost), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("does not exist"), "{answer:#}");
    assert!(!stderr.contains("no verifier applies"), "{stderr}");
    assert!(
        !project.root().join("ghost").exists(),
        "the hook created the missing directory"
    );
    check_claude_stop_answer(&answer);
    snapshot!("claude_missing_cwd", project.normalized(&answer));
    // Codex's `cwd` and Cursor's `workspace_roots` alike; Cursor's answer has no message field.
    let input = json!({"session_id": "s1", "cwd": ghost, "hook_event_name": "Stop"});
    let (answer, _) = project.hook("codex", &input.to_string(), &[]);
    assert!(message(&answer).contains("does not exist"), "{answer:#}");
    let input = json!({"conversation_id": "c1", "workspace_roots": [ghost], "status": "completed"});
    let (answer, stderr) = project.hook("cursor", &input.to_string(), &[]);
    assert_eq!(answer, json!({}));
    assert!(stderr.contains("does not exist"), "{stderr}");
    assert!(
        !project.root().join("ghost").exists(),
        "the hook created the missing directory"
    );
    assert_eq!(project.read("runs.txt"), "", "nothing was verified");
}

#[test]
fn a_bad_verdict_toml_fails_open() {
    let project = Project::new("[[verifier]]\nname = \n");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("verdict.toml"), "{answer:#}");
    assert!(
        message(&answer).contains("letting the agent stop"),
        "{answer:#}"
    );
}

#[test]
fn a_state_database_that_cannot_open_fails_open() {
    let project = Project::new(CONFIG);
    project.state("broken");
    std::fs::create_dir_all(project.root().join(".verdict/state.db")).expect("mkdir");
    let (answer, _) = project.hook("codex", &project.codex_input("s1"), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("state database"), "{answer:#}");
}

#[test]
fn a_locked_state_database_fails_open() {
    let project = Project::new(CONFIG);
    project.begin("claude", &project.claude_input("s1", false));
    project.state("broken");
    // Another process holds the write lock for longer than verdict waits (2 s).
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
    let db = rusqlite::Connection::open(project.root().join(".verdict/state.db")).expect("open");
    db.execute_batch("BEGIN EXCLUSIVE; UPDATE hook_sessions SET blocks = blocks;")
        .expect("lock");
    project.state("another failure");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", true), &[]);
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("state database"), "{answer:#}");
    assert!(
        message(&answer).contains("letting the agent stop"),
        "{answer:#}"
    );
    db.execute_batch("ROLLBACK;").expect("unlock");
}

#[test]
fn stdin_left_open_is_cut_at_the_deadline() {
    let project = Project::new(CONFIG);
    let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(["hook", "claude", "--deadline", "1"])
        .current_dir(project.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("verdict starts");
    // Hold stdin open (never written, never closed) until verdict has answered.
    let stdin = child.stdin.take();
    let started = Instant::now();
    let output = child.wait_with_output().expect("verdict ends");
    drop(stdin);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(output.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert!(
        message(&answer).contains("stdin was not closed"),
        "{answer:#}"
    );
}

/// Whether process `pid` is gone or a zombie.
fn gone(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, r)| r.split_whitespace().next());
    stat.is_empty() || state == Some("Z")
}

#[test]
fn sigterm_from_the_harness_stops_the_verifiers() {
    let project = Project::new(SLOW_CONFIG);
    let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(["hook", "codex"])
        .current_dir(project.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("verdict starts");
    child
        .stdin
        .take()
        .expect("a stdin")
        .write_all(project.codex_input("s1").as_bytes())
        .expect("write stdin");
    let started = Instant::now();
    while project.read("slow.pid").trim().is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the verifier never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let output = child.wait_with_output().expect("verdict ends");
    assert!(started.elapsed() < Duration::from_secs(15));
    let answer: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert!(message(&answer).contains("interrupted"), "{answer:#}");
    let pid = project.read("slow.pid");
    assert!(gone(pid.trim()), "the verifier {} still runs", pid.trim());
}

#[test]
fn the_deadline_cancels_verification_and_lets_the_agent_stop() {
    let project = Project::new(SLOW_CONFIG);
    let started = Instant::now();
    let (answer, _) = project.hook(
        "claude",
        &project.claude_input("s1", false),
        &["--deadline", "1"],
    );
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(!is_block(&answer), "{answer:#}");
    assert!(message(&answer).contains("1s deadline"), "{answer:#}");
    check_claude_stop_answer(&answer);
    snapshot!("claude_deadline", project.normalized(&answer));
    // The verifier was killed, not left running.
    let pid = project.read("slow.pid");
    let pid = pid.trim();
    assert!(!pid.is_empty(), "the slow verifier started");
    assert!(gone(pid), "the verifier {pid} still runs");
}

/// A suite of two minutes, twice the time the stop hook used to give itself, that fails.
const SLOW_SUITE_CONFIG: &str = r#"
[[verifier]]
name = "suite"
kind = "test"
command = ["sh", "-c", '''sleep 8; echo "src/app.c:1:1: error: still broken"; exit 1''']

[[verifier.pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): (?P<message>.*)$'
"#;

/// The hook as installed, run as Claude Code runs it (its argv, killed at its timeout), verifies
/// a suite that takes most of its time: the failure comes back, not "could not finish in time".
/// The clock is shrunk with `--timeout 20` (a `--deadline 10` in the command); the default
/// limits keep the same margin (`the_default_deadline_is_just_inside_the_written_timeout`).
#[test]
fn a_slow_suite_is_verified_under_the_installed_limits() {
    let project = Project::new(SLOW_SUITE_CONFIG);
    project.verdict(&["hook", "install", "claude", "--timeout", "20"], "", &[]);
    let doc: Value = serde_json::from_str(&project.read(".claude/settings.json")).expect("JSON");
    let stop = &doc["hooks"]["Stop"][0]["hooks"][0];
    let command = stop["command"].as_str().expect("a command");
    let limit = Duration::from_secs(stop["timeout"].as_u64().expect("a timeout"));
    // As the harness runs it: through a shell, with verdict on the `PATH`.
    let bin = tempfile::tempdir().expect("a bin dir");
    std::os::unix::fs::symlink(exe(), bin.path().join("verdict")).expect("link verdict");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = Instant::now();
    let mut child = Command::new("/bin/sh")
        .args(["-c", command])
        .env("VERDICT_STATE_DIR", ".verdict")
        .env("PATH", path)
        .current_dir(project.root())
        .env_remove("CLAUDE_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hook starts");
    child
        .stdin
        .take()
        .expect("a stdin")
        .write_all(project.claude_input("long", false).as_bytes())
        .expect("write stdin");
    // Claude Code kills a hook at its timeout; so does this test.
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("the hook outlived its installed timeout of {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let output = child.wait_with_output().expect("the hook ends");
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answer: Value = serde_json::from_str(stdout.trim()).expect("one JSON answer");
    assert_eq!(limit, Duration::from_secs(20), "{stop:#}");
    assert!(command.ends_with("--deadline 10"), "{command}");
    assert!(
        took >= Duration::from_secs(8),
        "the suite ran whole: {took:?}"
    );
    assert!(is_block(&answer), "{answer:#}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("still broken"), "{answer:#}");
}

// ---------------------------------------------------------------------------------------------
// Codex and Cursor

#[test]
fn codex_blocks_then_lets_a_fixed_project_stop() {
    let project = Project::new(CONFIG);
    project.begin("codex", &project.codex_input("s1"));
    project.state("undefined reference to main");
    let (answer, _) = project.hook("codex", &project.codex_input("s1"), &[]);
    assert!(is_block(&answer), "{answer:#}");
    snapshot!("codex_block", project.normalized(&answer));
    project.state("ok");
    let (answer, _) = project.hook("codex", &project.codex_input("s1"), &[]);
    assert_eq!(answer, json!({}));
}

#[test]
fn cursor_continues_with_a_followup_message_then_lets_go() {
    let project = Project::new(CONFIG);
    project.begin("cursor", &project.cursor_input("c1", "completed", 0));
    project.state("implicit declaration of function bar");
    let (answer, _) = project.hook("cursor", &project.cursor_input("c1", "completed", 0), &[]);
    let followup = answer["followup_message"].as_str().expect("a followup");
    assert!(followup.contains("implicit declaration"), "{followup}");
    snapshot!("cursor_followup", project.normalized(&answer));
    // The same failure again: Cursor gets no followup, and the reason goes to stderr.
    let (answer, stderr) = project.hook("cursor", &project.cursor_input("c1", "completed", 1), &[]);
    assert_eq!(answer, json!({}));
    assert!(stderr.contains("same failures"), "{stderr}");
    project.state("ok");
    let (answer, _) = project.hook("cursor", &project.cursor_input("c1", "completed", 0), &[]);
    assert_eq!(answer, json!({}));
}

#[test]
fn cursor_aborted_or_errored_stops_without_verifying() {
    let project = Project::new(CONFIG);
    project.state("broken");
    for status in ["aborted", "error"] {
        let (answer, _) = project.hook("cursor", &project.cursor_input("c1", status, 0), &[]);
        assert_eq!(answer, json!({}), "{status}");
    }
    assert_eq!(project.read("runs.txt"), "", "nothing was verified");
}

#[test]
fn cursor_input_with_a_byte_order_mark_is_read() {
    let project = Project::new(CONFIG);
    project.begin("cursor", &project.cursor_input("c1", "completed", 0));
    project.state("broken");
    let input = format!("\u{feff}{}", project.cursor_input("c1", "completed", 0));
    let (answer, _) = project.hook("cursor", &input, &[]);
    assert!(answer.get("followup_message").is_some(), "{answer:#}");
}

// ---------------------------------------------------------------------------------------------
// verdict hook install

/// Installs twice; returns the file after the first install, checking that the second one
/// changed nothing and said so.
fn install_twice(project: &Project, args: &[&str], file: &Path, env: &[(&str, &Path)]) -> String {
    let mut all = vec!["hook", "install"];
    all.extend(args);
    let (first, _) = project.verdict(&all, "", env);
    assert!(first.contains("added"), "{first}");
    let after_first = std::fs::read(file).expect("the settings file");
    let (second, _) = project.verdict(&all, "", env);
    assert!(second.contains("nothing changed"), "{second}");
    let after_second = std::fs::read(file).expect("the settings file");
    assert_eq!(
        after_first, after_second,
        "a second install changed the file"
    );
    String::from_utf8(after_first).expect("UTF-8")
}

#[test]
fn install_claude_keeps_other_settings_and_is_idempotent() {
    let project = Project::new(CONFIG);
    project.write(
        ".claude/settings.json",
        r#"{
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PostToolUse": [{ "matcher": "Write", "hooks": [{ "type": "command", "command": "fmt.sh" }] }],
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify.sh" }] }]
  }
}"#,
    );
    let file = project.root().join(".claude/settings.json");
    let text = install_twice(&project, &["claude"], &file, &[]);
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(doc["model"], "opus");
    assert_eq!(doc["permissions"]["allow"][0], "Bash(npm test)");
    assert_eq!(
        doc["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "fmt.sh"
    );
    assert_eq!(doc["hooks"]["Stop"][0]["hooks"][0]["command"], "notify.sh");
    // A subagent's stop is verified as the main agent's is, by the same command.
    let stop = &doc["hooks"]["Stop"][1]["hooks"][0];
    let subagent_stop = &doc["hooks"]["SubagentStop"][0]["hooks"][0];
    assert_eq!(subagent_stop, stop, "{text}");
    snapshot!("install_claude_settings", hide_exe(&text));
}

/// Every `command` string in a settings document.
fn commands_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("command", Value::String(command)) => out.push(command.clone()),
                    _ => commands_in(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| commands_in(item, out)),
        _ => {}
    }
}

/// Runs a hook's `command` as the harnesses do, through `sh -c`, with `PATH` and `input` on
/// stdin; returns (exit code, stdout, stderr).
fn run_hook_command(
    project: &Project,
    command: &str,
    path: &str,
    input: &str,
) -> (Option<i32>, String, String) {
    let mut child = Command::new("/bin/sh")
        .args(["-c", command])
        .current_dir(project.root())
        .env("VERDICT_STATE_DIR", ".verdict")
        .env("PATH", path)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh starts");
    // A hook that exits before reading its input closes the pipe: that is no error here.
    let _ = child
        .stdin
        .take()
        .expect("a stdin")
        .write_all(input.as_bytes());
    let output = child.wait_with_output().expect("sh ends");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A project's settings travel with its repository, and the absolute path of the installing
/// binary exits 127 on a teammate's machine, which the harnesses take for a quiet non-blocking
/// error: the gate vanished without a word. Each harness's shared settings run `verdict` from the
/// `PATH`: without it, an install hint on stderr and exit 2 (the code the harnesses show and
/// block on); with it, the hook itself.
#[test]
fn shared_hooks_run_verdict_from_the_path_and_hint_when_it_is_missing() {
    let project = Project::new(CONFIG);
    let bin = tempfile::tempdir().expect("a bin dir");
    std::os::unix::fs::symlink(exe(), bin.path().join("verdict")).expect("link verdict");
    // The system's tools, without verdict.
    let system = "/usr/bin:/bin";
    assert!(!Path::new("/usr/bin/verdict").exists() && !Path::new("/bin/verdict").exists());
    let with_verdict = format!("{}:{system}", bin.path().display());
    let cases = [
        (
            "claude",
            ".claude/settings.json",
            project.claude_input("s1", false),
        ),
        ("codex", ".codex/hooks.json", project.codex_input("s2")),
        (
            "cursor",
            ".cursor/hooks.json",
            project.cursor_input("c3", "completed", 0),
        ),
        (
            "gemini",
            ".gemini/settings.json",
            gemini_input(&project, "s4"),
        ),
    ];
    for (harness, file, stop_input) in cases {
        project.verdict(&["hook", "install", harness], "", &[]);
        let text = project.read(file);
        let doc: Value = serde_json::from_str(&text).expect("JSON");
        let mut commands = Vec::new();
        commands_in(&doc, &mut commands);
        // Stop and SessionStart, and SubagentStop for Claude Code.
        let hooks = if harness == "claude" { 3 } else { 2 };
        assert_eq!(commands.len(), hooks, "{harness}: {text}");
        assert!(
            !text.contains(&exe()),
            "{harness}: an absolute path: {text}"
        );
        for command in &commands {
            let (code, stdout, stderr) = run_hook_command(&project, command, system, &stop_input);
            assert_eq!(code, Some(2), "{harness}: {command}: {stdout}{stderr}");
            assert!(
                stderr.contains("verdict is not installed here") && stderr.contains(file),
                "{harness}: {stderr}"
            );
        }
        let stop = commands
            .iter()
            .find(|c| !c.contains("--event"))
            .expect("the stop hook");
        let (code, stdout, stderr) = run_hook_command(&project, stop, &with_verdict, &stop_input);
        assert_eq!(code, Some(0), "{harness}: {stdout}{stderr}");
        assert_eq!(stdout.trim(), "{}", "{harness}: {stderr}");
    }
    // The project passes, so each stop was verified and let go.
    assert!(project.read("runs.txt").lines().count() >= 1);
}

/// A Claude Code older than the one whose stop hooks read `additionalContext` rejects the hook's
/// answer and lets the agent stop: the install says so when it finds one on `PATH`.
#[test]
fn install_warns_of_a_claude_code_too_old_for_the_stop_feedback() {
    use std::os::unix::fs::PermissionsExt as _;
    let project = Project::new(CONFIG);
    let bin = tempfile::tempdir().expect("a temp bin");
    let claude = bin.path().join("claude");
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let said_for = |version: &str| {
        std::fs::write(
            &claude,
            format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
        )
        .expect("write claude");
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let _ = std::fs::remove_file(project.root().join(".claude/settings.json"));
        project.verdict(
            &["hook", "install", "claude"],
            "",
            &[("PATH", Path::new(&path))],
        )
    };
    let (_, err) = said_for("2.1.100");
    assert!(
        err.contains("Claude Code 2.1.100") && err.contains("2.1.163 or later"),
        "{err}"
    );
    let (_, err) = said_for("2.1.332");
    assert!(!err.contains("warning"), "{err}");
}

/// Shared settings an older install wrote with its absolute path get the command from the `PATH`
/// in its place at the next install; the user's settings keep the absolute path.
#[test]
fn install_replaces_an_absolute_path_in_shared_settings() {
    let project = Project::new(CONFIG);
    project.write(
        ".claude/settings.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/home/someone/bin/verdict hook claude", "timeout": 600}]}], "SessionStart": [{"hooks": [{"type": "command", "command": "/home/someone/bin/verdict hook claude --event session-start --deadline 5", "timeout": 60}]}]}}"#,
    );
    let (said, _) = project.verdict(&["hook", "install", "claude"], "", &[]);
    assert!(said.contains("added"), "{said}");
    let doc: Value = serde_json::from_str(&project.read(".claude/settings.json")).expect("JSON");
    let stop = doc["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap_or_default();
    assert!(stop.ends_with("exec verdict hook claude"), "{doc:#}");
    assert_eq!(doc["hooks"]["Stop"].as_array().map(Vec::len), Some(1));
    // A command the user changed (its own options) is theirs: it is left as it is.
    assert_eq!(
        doc["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "/home/someone/bin/verdict hook claude --event session-start --deadline 5"
    );
    let home = tempfile::tempdir().expect("a temp home");
    project.verdict(
        &["hook", "install", "claude", "--scope", "user"],
        "",
        &[("HOME", home.path())],
    );
    let user = std::fs::read_to_string(home.path().join(".claude/settings.json")).expect("read");
    assert!(user.contains(&format!("{} hook claude", exe())), "{user}");
}

#[test]
fn install_codex_in_the_user_scope() {
    let project = Project::new(CONFIG);
    let home = tempfile::tempdir().expect("a temp home");
    let file = home.path().join(".codex/hooks.json");
    let text = install_twice(
        &project,
        &["codex", "--scope", "user"],
        &file,
        &[("HOME", home.path())],
    );
    assert!(!project.root().join(".codex").exists());
    snapshot!("install_codex_hooks", hide_exe(&text));
}

#[test]
fn install_cursor_creates_hooks_json() {
    let project = Project::new(CONFIG);
    let file = project.root().join(".cursor/hooks.json");
    let text = install_twice(&project, &["cursor"], &file, &[]);
    snapshot!("install_cursor_hooks", hide_exe(&text));
}

#[test]
fn install_leaves_invalid_settings_alone() {
    let project = Project::new(CONFIG);
    project.write(".cursor/hooks.json", "{ not json");
    let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(["hook", "install", "cursor"])
        .current_dir(project.root())
        .output()
        .expect("verdict runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not valid JSON"));
    assert_eq!(project.read(".cursor/hooks.json"), "{ not json");
}

/// A command that only mentioned `verdict hook claude` counted as the hook: nothing was written,
/// and the hook never ran.
#[test]
fn install_does_not_take_a_command_that_mentions_verdict_for_the_hook() {
    let project = Project::new(CONFIG);
    let settings = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo verdict hook claude"}]}]}}"#;
    project.write(".claude/settings.json", settings);
    let file = project.root().join(".claude/settings.json");
    let text = install_twice(&project, &["claude"], &file, &[]);
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    let commands: Vec<&str> = doc["hooks"]["Stop"]
        .as_array()
        .expect("a Stop list")
        .iter()
        .filter_map(|group| group["hooks"][0]["command"].as_str())
        .collect();
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert_eq!(commands[0], "echo verdict hook claude");
    assert!(
        commands[1].ends_with("; exec verdict hook claude"),
        "{commands:?}"
    );
}

/// A quoted path to verdict with a space in it was not recognised, and a second hook was added.
#[test]
fn install_recognises_a_quoted_path_to_verdict() {
    let project = Project::new(CONFIG);
    let settings = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"\"/opt/my tools/verdict\" hook claude --deadline 40"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"'/opt/my tools/verdict' hook claude --event=session-start"}]}]}}"#;
    project.write(".claude/settings.json", settings);
    let (out, _) = project.verdict(&["hook", "install", "claude"], "", &[]);
    // The quoted paths are verdict's Stop and SessionStart hooks: only SubagentStop is new.
    assert!(out.contains("as the SubagentStop hook"), "{out}");
    assert!(!out.contains("as the Stop hook"), "{out}");
    assert!(!out.contains("as the SessionStart hook"), "{out}");
    let doc: Value = serde_json::from_str(&project.read(".claude/settings.json")).expect("JSON");
    assert_eq!(
        doc["hooks"]["Stop"].as_array().map(Vec::len),
        Some(1),
        "{doc:#}"
    );
    let (again, _) = project.verdict(&["hook", "install", "claude"], "", &[]);
    assert!(again.contains("nothing changed"), "{again}");
}

/// A settings file written by an older install has the stop hook alone: installing again adds
/// the session-start hook beside it and leaves the stop hook as it was (not a second one). In the
/// project's shared settings, the older stop hook's absolute path gives way to `verdict` from the
/// `PATH`, in its place.
#[test]
fn install_adds_the_session_start_hook_to_an_older_install() {
    let project = Project::new(CONFIG);
    let old = format!(
        r#"{{"hooks":{{"Stop":[{{"hooks":[{{"type":"command","command":"{} hook claude","timeout":600}}]}}]}}}}"#,
        exe()
    );
    project.write(".claude/settings.local.json", &old);
    let (out, _) = project.verdict(&["hook", "install", "claude", "--scope", "local"], "", &[]);
    assert!(out.contains("as the SessionStart hook"), "{out}");
    assert!(!out.contains("as the Stop hook"), "{out}");
    let doc: Value =
        serde_json::from_str(&project.read(".claude/settings.local.json")).expect("JSON");
    let stops = doc["hooks"]["Stop"].as_array().expect("Stop");
    assert_eq!(stops.len(), 1, "{doc:#}");
    assert_eq!(
        doc["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        format!("{} hook claude --event session-start", exe())
    );
    project.write(".claude/settings.json", &old);
    let (out, _) = project.verdict(&["hook", "install", "claude"], "", &[]);
    assert!(out.contains("as the SessionStart hook"), "{out}");
    let doc: Value = serde_json::from_str(&project.read(".claude/settings.json")).expect("JSON");
    let stops = doc["hooks"]["Stop"].as_array().expect("Stop");
    assert_eq!(stops.len(), 1, "{doc:#}");
    assert!(
        stops[0]["hooks"][0]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("; exec verdict hook claude")),
        "{doc:#}"
    );
    let (again, _) = project.verdict(&["hook", "install", "claude"], "", &[]);
    assert!(again.contains("nothing changed"), "{again}");
    // Cursor's older hooks.json likewise.
    let old = format!(
        r#"{{"version":1,"hooks":{{"stop":[{{"command":"{} hook cursor","timeout":60}}]}}}}"#,
        exe()
    );
    project.write(".cursor/hooks.json", &old);
    let (out, _) = project.verdict(&["hook", "install", "cursor"], "", &[]);
    assert!(out.contains("as the sessionStart hook"), "{out}");
    let doc: Value = serde_json::from_str(&project.read(".cursor/hooks.json")).expect("JSON");
    assert_eq!(doc["hooks"]["stop"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        doc["hooks"]["sessionStart"].as_array().map(Vec::len),
        Some(1)
    );
}

/// A symlinked settings file (kept with the user's dotfiles) was replaced by a regular file.
#[test]
fn install_writes_through_a_symlinked_settings_file() {
    let project = Project::new(CONFIG);
    project.write("dotfiles/claude.json", r#"{"model": "opus"}"#);
    std::fs::create_dir(project.root().join(".claude")).expect("mkdir .claude");
    let link = project.root().join(".claude/settings.json");
    std::os::unix::fs::symlink("../dotfiles/claude.json", &link).expect("symlink");
    let text = install_twice(&project, &["claude"], &link, &[]);
    let meta = std::fs::symlink_metadata(&link).expect("the link");
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(project.read("dotfiles/claude.json"), text);
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(doc["model"], "opus");
    assert!(
        doc["hooks"]["Stop"][0]["hooks"][0]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("; exec verdict hook claude")),
        "{doc:#}"
    );
    let mut left: Vec<String> = std::fs::read_dir(project.root().join("dotfiles"))
        .expect("read dotfiles")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    left.sort();
    assert_eq!(left, ["claude.json"], "a temporary file was left behind");
}

/// The hook written by install is the command the tests above run.
#[test]
fn the_installed_command_is_the_hook() {
    let project = Project::new(CONFIG);
    project.verdict(&["hook", "install", "claude"], "", &[]);
    let doc: Value = serde_json::from_str(&project.read(".claude/settings.json")).expect("JSON");
    let command = doc["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .expect("a command");
    assert!(command.starts_with("command -v verdict "), "{command}");
    assert!(command.ends_with("; exec verdict hook claude"), "{command}");
    // Settings that stay on this machine name this binary.
    project.verdict(&["hook", "install", "claude", "--scope", "local"], "", &[]);
    let local: Value =
        serde_json::from_str(&project.read(".claude/settings.local.json")).expect("JSON");
    let command = local["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .expect("a command");
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words, [exe().as_str(), "hook", "claude"]);
    // Claude Code's own default for command hooks, so a real test suite has its 600 s; verdict's
    // default deadline (590 s) stays inside it.
    let timeout = doc["hooks"]["Stop"][0]["hooks"][0]["timeout"]
        .as_u64()
        .expect("a timeout");
    assert_eq!(timeout, 600);
}

/// Claude Code's hook points that `verdict hook install claude --post-edit` writes.
const CLAUDE_POINTS: [&str; 4] = ["Stop", "SubagentStop", "SessionStart", "PostToolUse"];

/// Settings of the user's own, which install keeps beside verdict's hooks.
const CLAUDE_USER_SETTINGS: &str = r#"{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test)"] },
  "hooks": {
    "PostToolUse": [{ "matcher": "Write", "hooks": [{ "type": "command", "command": "fmt.sh" }] }]
  }
}"#;

/// Whether one of the hooks under `point` runs `verdict hook claude`.
fn runs_verdict_at(settings: &Value, point: &str) -> bool {
    let mut commands = Vec::new();
    commands_in(&settings["hooks"][point], &mut commands);
    commands.iter().any(|c| c.contains("verdict hook claude"))
}

/// Reads a settings file and fails unless it matches Claude Code's published settings schema.
fn valid_claude_settings(file: &Path, what: &str) -> Value {
    let text = std::fs::read_to_string(file).expect("the settings file");
    let settings: Value = serde_json::from_str(&text).expect("JSON");
    let errors = schema::claude_settings_errors(&settings);
    assert!(
        errors.is_empty(),
        "{what}: {} does not match {}:\n{}\n{text}",
        file.display(),
        schema::CLAUDE_SETTINGS_SCHEMA,
        errors.join("\n")
    );
    settings
}

/// What `verdict hook install claude` writes at every scope, with and without settings of the
/// user's own and the post-edit hook, matches the schema Claude Code's settings name (the Schema
/// Store's), and runs verdict at each hook point it installs.
#[test]
fn installed_claude_settings_match_the_published_schema() {
    let project = Project::new(CONFIG);
    let home = tempfile::tempdir().expect("a temp home");
    project.write(".claude/settings.json", CLAUDE_USER_SETTINGS);
    let scopes = [
        ("project", project.root().join(".claude/settings.json")),
        ("local", project.root().join(".claude/settings.local.json")),
        ("user", home.path().join(".claude/settings.json")),
    ];
    for (scope, file) in &scopes {
        // The stop and session-start hooks first, then the post-edit hook added to them.
        for extra in [&["--timeout", "900"][..], &["--post-edit"][..]] {
            let mut args = vec!["hook", "install", "claude", "--scope", *scope];
            args.extend(extra);
            project.verdict(&args, "", &[("HOME", home.path())]);
            let what = format!("{scope} scope after `{}`", args.join(" "));
            let settings = valid_claude_settings(file, &what);
            let points = if extra == ["--post-edit"] {
                &CLAUDE_POINTS[..]
            } else {
                &CLAUDE_POINTS[..3]
            };
            for point in points {
                assert!(
                    runs_verdict_at(&settings, point),
                    "{what}: no verdict hook at {point}:\n{settings:#}"
                );
            }
        }
    }
    let shared = valid_claude_settings(&scopes[0].1, "the shared settings");
    assert_eq!(shared["model"], "opus");
    assert_eq!(
        shared["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
        "fmt.sh"
    );
}

/// A change to a settings document.
type Edit = fn(&mut Value);

/// The check above can fail: settings Claude Code would not read are rejected by the same
/// validator, each for its own reason, while the settings they were made from pass.
#[test]
fn the_published_schema_rejects_settings_claude_code_would_not_read() {
    let project = Project::new(CONFIG);
    project.verdict(&["hook", "install", "claude", "--post-edit"], "", &[]);
    let file = project.root().join(".claude/settings.json");
    let settings = valid_claude_settings(&file, "as installed");
    let cases: [(&str, Edit); 6] = [
        ("a timeout written as a string", |s| {
            s["hooks"]["Stop"][0]["hooks"][0]["timeout"] = json!("600");
        }),
        ("a hook point Claude Code does not have", |s| {
            s["hooks"]["AfterAgent"] = s["hooks"]["Stop"].clone();
        }),
        ("a handler without its type", |s| {
            if let Some(handler) = s["hooks"]["Stop"][0]["hooks"][0].as_object_mut() {
                handler.remove("type");
            }
        }),
        (
            "a handler of Cursor's shape, outside a matcher group",
            |s| {
                s["hooks"]["Stop"] = json!([{ "command": "verdict hook claude", "timeout": 600 }]);
            },
        ),
        ("an empty command", |s| {
            s["hooks"]["SessionStart"][0]["hooks"][0]["command"] = json!("");
        }),
        ("a permission rule for a tool that does not exist", |s| {
            s["permissions"] = json!({ "allow": ["Teleport(*)"] });
        }),
    ];
    for (what, edit) in cases {
        let mut broken = settings.clone();
        edit(&mut broken);
        assert!(
            !schema::claude_settings_errors(&broken).is_empty(),
            "{what} was accepted:\n{broken:#}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// A hook a team can leave on (issue 11)

/// Gemini CLI's AfterAgent input.
fn gemini_input(project: &Project, session: &str) -> String {
    json!({
        "session_id": session,
        "transcript_path": project.root().join("gemini.json"),
        "cwd": project.root(),
        "hook_event_name": "AfterAgent",
        "timestamp": "2026-11-26T10:00:00Z",
        "prompt": "Fix the tests",
        "prompt_response": "Done.",
        "stop_hook_active": false,
    })
    .to_string()
}

/// Claude Code's SubagentStop input.
fn subagent_input(project: &Project, session: &str, agent_id: &str, agent_type: &str) -> String {
    json!({
        "session_id": session,
        "transcript_path": project.root().join("transcript.jsonl"),
        "cwd": project.root(),
        "permission_mode": "default",
        "hook_event_name": "SubagentStop",
        "stop_hook_active": false,
        "agent_id": agent_id,
        "agent_type": agent_type,
        "agent_transcript_path": project.root().join("agent.jsonl"),
        "last_assistant_message": "Done.",
    })
    .to_string()
}

/// A test that failed before the session began was blocked on at every stop, even a plain
/// question's, for the whole session. The real pytest: the failure present at the session's
/// first check is set aside for that session; a failure new since then blocks, with the old one
/// left out of the reason.
#[test]
fn a_failure_present_at_session_start_does_not_block_but_a_new_one_does() {
    let project = Project::pytest();
    project.start("claude", &project.claude_input("s1", false));
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    assert!(
        stderr.contains("1 failure was there when this session began"),
        "{stderr}"
    );
    // A later turn, the old failure still there: still not blocked.
    project.write("docs/index.md", "# calc, documented\n");
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    // The agent breaks something else: that blocks, and only that is shown.
    project.write(
        "tests/test_more.py",
        "from calc import add\n\ndef test_negative():\n    assert add(-1, -1) == -2\n",
    );
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("test_negative"), "{reason}");
    assert!(!reason.contains(TEST_NAMES[0]), "{reason}");
    assert!(
        reason.contains("1 failure from before this session set aside"),
        "{reason}"
    );
    // A new session begins with both: neither blocks it.
    project.start("claude", &project.claude_input("s2", false));
    let (answer, stderr) = project.hook("claude", &project.claude_input("s2", false), &[]);
    assert_eq!(answer, json!({}), "{stderr}");
}

/// A stop with no change to the tree since the last verification answers from it: the verifier
/// does not run again, in the same session or another.
#[test]
fn an_unchanged_tree_is_answered_from_the_last_verification() {
    let project = Project::new(CONFIG);
    // The verifier's own run counter is no change of the project's.
    project.write(".gitignore", "runs.txt\n");
    project.begin("claude", &project.claude_input("s1", false));
    project.state("unknown type name foo");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
    // The start tree was verified in a copy of it, whose run counter is its own.
    assert_eq!(project.read("runs.txt"), "run\n");
    let (answer, stderr) = project.hook("claude", &project.claude_input("s1", true), &[]);
    assert!(message(&answer).contains("same failures"), "{answer:#}");
    assert!(
        message(&answer).contains("unknown type name foo"),
        "{answer:#}"
    );
    assert!(
        stderr.contains("unchanged since the last verification"),
        "{stderr}"
    );
    project.start("codex", &project.codex_input("s9"));
    let (answer, _) = project.hook("codex", &project.codex_input("s9"), &[]);
    assert_eq!(answer, json!({}), "a new session begins with the failure");
    assert_eq!(project.read("runs.txt"), "run\n", "the verifier ran again");
    // A change of the tree is verified.
    project.state("conflicting types");
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
    assert_eq!(project.read("runs.txt"), "run\nrun\n");
}

/// A subagent's blocks are its own (by `agent_id`), apart from its parent's; a read-only
/// subagent (the built-in Explore, or one defined without an editing tool) is never told to fix
/// code, and nothing is verified for it.
#[test]
fn subagents_are_counted_apart_and_read_only_ones_let_go() {
    let project = Project::new(CONFIG);
    project.write(
        ".claude/agents/reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews.\ntools: Read, Grep, Glob, Bash\n---\nReview the change.\n",
    );
    project.begin("claude", &project.claude_input("s1", false));
    project.state("undeclared identifier bar");
    let sub = subagent_input(&project, "s1", "a1", "general-purpose");
    let (answer, _) = project.hook("claude", &sub, &[]);
    assert!(is_block(&answer), "{answer:#}");
    // The feedback names the hook point that asked.
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], "SubagentStop",
        "{answer:#}"
    );
    // The parent's first block, not a repeat of the subagent's.
    let (answer, _) = project.hook("claude", &project.claude_input("s1", false), &[]);
    assert!(is_block(&answer), "{answer:#}");
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], "Stop",
        "{answer:#}"
    );
    let (answer, _) = project.hook("claude", &sub, &[]);
    assert!(message(&answer).contains("same failures"), "{answer:#}");
    // Another subagent of the session has a count of its own.
    let other = subagent_input(&project, "s1", "a2", "general-purpose");
    let (answer, _) = project.hook("claude", &other, &[]);
    assert!(is_block(&answer), "{answer:#}");
    let runs = project.read("runs.txt");
    for kind in ["Explore", "Plan", "code-reviewer"] {
        let input = subagent_input(&project, "s1", "r1", kind);
        let (answer, stderr) = project.hook("claude", &input, &[]);
        assert_eq!(answer, json!({}), "{kind}: {stderr}");
    }
    assert_eq!(
        project.read("runs.txt"),
        runs,
        "verified for a read-only subagent"
    );
}

/// Distinct errors, one per line, enough that a 5 000-token digest is far over every cap.
fn many_errors() -> String {
    const WORDS: [&str; 12] = [
        "missing",
        "semicolon",
        "unknown",
        "type",
        "conflicting",
        "declaration",
        "expected",
        "expression",
        "undeclared",
        "identifier",
        "incompatible",
        "pointer",
    ];
    let mut out = String::new();
    for i in 0..900 {
        let w = |k: usize| WORDS[(i / 12usize.pow(k as u32)) % 12];
        out.push_str(&format!(
            "src/part{}/file{i}.c:{}:1: error: {} {} {} near {}\n",
            i % 40,
            i + 1,
            w(0),
            w(1),
            w(2),
            WORDS[(i * 7) % 12]
        ));
    }
    out
}

/// With a 5 000-token budget configured, the digest alone is far over Claude Code's 10 000
/// characters and Codex's 2 500 tokens: every harness's answer stays within both, and ends with
/// where the full log is.
#[test]
fn answers_stay_within_each_harness_cap_with_a_5000_token_budget() {
    let config = r#"
[run]
budget = 5000

[[verifier]]
name = "check"
kind = "build"
command = ["sh", "-c", '''if [ "$(cat state.txt)" = ok ]; then echo fine; else cat errors.txt; exit 1; fi''']

[[verifier.pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): (?P<message>.*)$'
"#;
    let project = Project::new(config);
    project.write("errors.txt", &many_errors());
    project.state("broken");
    let (run, _) = {
        let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
            .env("VERDICT_STATE_DIR", ".verdict")
            .args(["run", "--budget", "5000"])
            .current_dir(project.root())
            .output()
            .expect("verdict run");
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            output.status,
        )
    };
    assert!(
        run.len() > 15_000,
        "the uncapped digest is {} bytes",
        run.len()
    );
    let inputs = [
        ("claude", project.claude_input("s1", false), "reason"),
        ("codex", project.codex_input("s1"), "reason"),
        (
            "cursor",
            project.cursor_input("s1", "completed", 0),
            "followup_message",
        ),
        ("gemini", gemini_input(&project, "s1"), "reason"),
    ];
    for (harness, input, field) in &inputs {
        project.begin(harness, input);
        let (answer, stderr) = project.hook(harness, input, &[]);
        // Claude Code's answer gives what fails apart from its reason; the caps hold for both.
        let text = match answer[field].as_str() {
            Some(_) if *field == "reason" => support::hook_prompt(&answer),
            Some(text) => text.to_owned(),
            None => panic!("{harness}: {answer:#}\n{stderr}"),
        };
        let text = text.as_str();
        assert!(text.len() <= 10_000, "{harness}: {} bytes", text.len());
        let tokens = verdict_core::digest::tokens::count(text);
        assert!(tokens <= 2_500, "{harness}: {tokens} tokens");
        assert!(
            text.len() > 5_000,
            "{harness}: cut further than needed ({} bytes)",
            text.len()
        );
        let last = text.lines().last().unwrap_or_default();
        assert!(
            last.contains("full log") && last.contains(".verdict/runs/"),
            "{harness}: the last line is {last:?}"
        );
    }
}

#[test]
fn gemini_denies_with_the_reason_then_lets_a_fixed_project_stop() {
    let project = Project::new(CONFIG);
    project.begin("gemini", &gemini_input(&project, "g1"));
    project.state("implicit declaration of function baz");
    // Gemini CLI names the project in GEMINI_PROJECT_DIR, whatever the `cwd`.
    project.write("sub/notes.txt", "notes\n");
    let mut input: Value = serde_json::from_str(&gemini_input(&project, "g1")).expect("JSON");
    input["cwd"] = json!(project.root().join("sub"));
    let (answer, stderr) = project.hook_env(
        "gemini",
        &input.to_string(),
        &[],
        &[("GEMINI_PROJECT_DIR", project.root())],
    );
    assert_eq!(answer["decision"], "deny", "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(
        reason.contains("implicit declaration of function baz"),
        "{reason}"
    );
    snapshot!("gemini_deny", project.normalized(&answer));
    assert!(!project.root().join("sub/.verdict").exists());
    project.state("ok");
    let (answer, _) = project.hook("gemini", &gemini_input(&project, "g1"), &[]);
    assert_eq!(answer, json!({}));
    // Another event than AfterAgent is not a stop.
    let input = json!({"session_id": "g1", "hook_event_name": "BeforeAgent"}).to_string();
    let (answer, _) = project.hook("gemini", &input, &[]);
    assert!(message(&answer).contains("not `BeforeAgent`"), "{answer:#}");
}

/// An agent started by `verdict loop` whose harness runs verdict's stop hook: the hook lets it
/// stop at once, without verifying (the loop verifies each attempt itself).
#[test]
fn a_hook_inside_a_verdict_loop_attempt_does_not_verify() {
    let project = Project::new(CONFIG);
    project.state("unknown type name foo");
    let outside = tempfile::tempdir().expect("a temp dir");
    let script = outside.path().join("agent.sh");
    std::fs::write(
        &script,
        r#"before=$(wc -l < runs.txt)
printf '{"session_id":"loop","cwd":"%s","hook_event_name":"Stop"}' "$PWD" \
  | "$1" hook claude > "$2/answer.json" 2> "$2/hook.stderr"
after=$(wc -l < runs.txt)
echo "$before $after" > "$2/runs"
echo ok > state.txt
"#,
    )
    .expect("write the agent");
    let agent = format!(
        "sh '{}' '{}' '{}'",
        script.display(),
        exe(),
        outside.path().display()
    );
    let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(["loop", "--task", "fix the build", "--agent", &agent])
        .current_dir(project.root())
        .env_remove("VERDICT_LOOP_SESSION")
        .stdin(Stdio::null())
        .output()
        .expect("verdict loop");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let read = |name: &str| std::fs::read_to_string(outside.path().join(name)).unwrap_or_default();
    let answer: Value = serde_json::from_str(&read("answer.json")).expect("the hook answered");
    assert_eq!(answer, json!({}));
    assert!(
        read("hook.stderr").contains("verdict loop"),
        "{}",
        read("hook.stderr")
    );
    let runs: Vec<String> = read("runs").split_whitespace().map(str::to_owned).collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert_eq!(runs[0], runs[1], "the hook verified inside the attempt");
}

#[test]
fn install_gemini_writes_after_agent_in_milliseconds() {
    let project = Project::new(CONFIG);
    let file = project.root().join(".gemini/settings.json");
    project.write(
        ".gemini/settings.json",
        r#"{"theme": "Dracula", "general": {"vimMode": true}}"#,
    );
    let text = install_twice(&project, &["gemini"], &file, &[]);
    snapshot!("install_gemini_settings", hide_exe(&text));
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(
        doc["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"],
        600_000
    );
}

/// Installed from a subdirectory, the hook went into that subdirectory's `.claude/`, where
/// Claude Code, started at the repository root, never reads it; `--scope local` writes the
/// settings Claude Code keeps out of the repository; each install says what the harness needs.
#[test]
fn install_goes_to_the_repository_root_and_says_the_trust_step() {
    let project = Project::new(CONFIG);
    std::fs::create_dir(project.root().join(".git")).expect("a .git directory");
    project.write("src/deep/mod.c", "int x;\n");
    let deep = project.root().join("src/deep");
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
            .env("VERDICT_STATE_DIR", ".verdict")
            .args(args)
            .current_dir(&deep)
            .env_remove("CODEX_HOME")
            .output()
            .expect("verdict runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, out, _) = run(&["hook", "install", "claude", "--scope", "local"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("/hooks"), "{out}");
    let local = project.read(".claude/settings.local.json");
    assert!(local.contains(&format!("{} hook claude", exe())), "{local}");
    assert!(!deep.join(".claude").exists());
    assert!(!project.root().join(".claude/settings.json").exists());
    for (harness, file, step) in [
        ("codex", ".codex/hooks.json", "trusted"),
        ("cursor", ".cursor/hooks.json", "Hooks"),
        ("gemini", ".gemini/settings.json", "trusted folder"),
    ] {
        let (code, out, err) = run(&["hook", "install", harness]);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.contains(step), "{harness}: {out}");
        assert!(project.root().join(file).is_file(), "{harness}: no {file}");
    }
    let (code, _, err) = run(&["hook", "install", "codex", "--scope", "local"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--scope local"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// The session's baseline is the tree it began on (its session-start hook)

/// The real pytest project, its one test passing.
fn passing_pytest() -> Project {
    let project = Project::pytest();
    project.write("calc.py", "def add(a, b):\n    return a + b\n");
    project
}

/// A session that begins on a failing project and whose agent only answers a question (the
/// tree unchanged) is let go: the failure was there before it.
#[test]
fn a_session_that_only_answers_on_a_failing_project_is_let_go() {
    let project = Project::pytest();
    let input = project.claude_input("q1", false);
    let stderr = project.start("claude", &input);
    assert!(stderr.contains("begins on tree"), "{stderr}");
    assert!(stderr.contains("in the background"), "{stderr}");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    // The start hook verified this tree: the stop answers from that verification.
    assert!(
        stderr.contains("unchanged since the last verification"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 failure was there when this session began"),
        "{stderr}"
    );
}

/// The false pass this fixes: the baseline was taken at the first stop, so a one-turn session
/// (`claude -p`) that broke a passing project had its own breakage set aside and was let go.
/// Now the baseline is the tree the session began on, which passed (an earlier session's stop
/// verified it): the first stop blocks, on the session's own failure.
#[test]
fn a_one_turn_session_that_breaks_a_passing_project_is_blocked_at_its_first_stop() {
    let project = passing_pytest();
    let earlier = project.claude_input("p0", false);
    project.start("claude", &earlier);
    let (answer, stderr) = project.hook("claude", &earlier, &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    let input = project.claude_input("p1", false);
    project.start("claude", &input);
    // The agent's one turn breaks the function the test checks.
    project.write("calc.py", "def add(a, b):\n    return a - b\n");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains(TEST_NAMES[0]), "{reason}");
    assert!(!reason.contains("set aside"), "{reason}");
    assert!(!reason.contains("not known"), "{reason}");
    // The same with a start tree nobody verified: no baseline is known, and it blocks too.
    project.write("calc.py", "def add(a, b):\n    return a + b  # again\n");
    let input = project.claude_input("p2", false);
    project.start("claude", &input);
    project.write("calc.py", "def add(a, b):\n    return a * b\n");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
}

/// A session that begins on a failing project whose verification is remembered (an earlier
/// session's stop verified that tree), and whose agent adds a failure: blocked on the new one
/// only, at its first stop.
#[test]
fn a_new_failure_on_a_remembered_failing_start_blocks_alone() {
    let project = Project::pytest();
    // An earlier session verifies the failing tree; it is remembered.
    let earlier = project.codex_input("e1");
    project.start("codex", &earlier);
    let (answer, stderr) = project.hook("codex", &earlier, &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    // The next session begins on that tree and adds a failing test.
    let input = project.claude_input("n1", false);
    project.start("claude", &input);
    project.write(
        "tests/test_more.py",
        "from calc import add\n\ndef test_negative():\n    assert add(-1, -1) == -2\n",
    );
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("test_negative"), "{reason}");
    assert!(!reason.contains(TEST_NAMES[0]), "{reason}");
    assert!(
        reason.contains("1 failure from before this session set aside"),
        "{reason}"
    );
}

/// No baseline is known (a session with no session-start record: an older install), so every
/// failure blocks (fail closed), and the reason says why. What fails when the agent is let go is
/// the session's baseline from then on: the next turn is not blocked on it again.
#[test]
fn without_a_known_start_every_failure_blocks_once() {
    let project = Project::pytest();
    let input = project.claude_input("old", false);
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains(TEST_NAMES[0]), "{reason}");
    assert!(
        reason.contains("what failed before this session is not known, so every failure counts"),
        "{reason}"
    );
    // The agent changes nothing that helps: it is let go, showing what still fails.
    project.write("docs/index.md", "# calc, touched\n");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(
        message(&answer).contains("same failures"),
        "{answer:#}\n{stderr}"
    );
    // A later turn: that failure is the session's baseline now.
    project.write("docs/index.md", "# calc, a question answered\n");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    assert!(
        stderr.contains("1 failure was there when this session began"),
        "{stderr}"
    );
    // A new failure still blocks, and only it is shown.
    project.write(
        "tests/test_more.py",
        "from calc import add\n\ndef test_negative():\n    assert add(-1, -1) == -2\n",
    );
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("test_negative"), "{reason}");
    assert!(!reason.contains(TEST_NAMES[0]), "{reason}");
}

/// The session-start hook verifies the tree the session begins on when no verification of it is
/// remembered, so an agent that edits before its first stop is still judged against that tree:
/// the old failure does not block, a new one does.
#[test]
fn a_start_tree_is_verified_when_the_session_begins() {
    let project = Project::pytest();
    let input = project.claude_input("fresh", false);
    let stderr = project.start("claude", &input);
    assert!(stderr.contains("in the background"), "{stderr}");
    // The agent edits at once, while the start tree is verified; its first stop is on another
    // tree.
    project.write("docs/index.md", "# calc, changed by the agent\n");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    assert!(
        stderr.contains("1 failure was there when this session began"),
        "{stderr}"
    );
    project.write("calc.py", "def add(a, b):\n    return a - b - 1\n");
    project.write(
        "tests/test_more.py",
        "from calc import add\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
    );
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("test_zero"), "{reason}");
}

/// The start verification's log, once it says what it did (within 60 s).
fn start_log(project: &Project) -> String {
    let log = project.root().join(".verdict/hook/verify-start.log");
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("verdict hook:") || Instant::now() > until {
            return text;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The tree id the session-start hook's stderr names.
fn start_tree(stderr: &str) -> String {
    let (_, rest) = stderr
        .split_once("begins on tree ")
        .unwrap_or_else(|| panic!("no tree in {stderr}"));
    rest.chars().take_while(char::is_ascii_hexdigit).collect()
}

/// The start verification runs in a copy of the start tree, so an edit the agent makes while it
/// runs neither mixes into its result nor throws it away (it did: the result was kept only if the
/// tree was unchanged when the tools ended, and the first stop then counted every failure).
#[test]
fn a_start_verification_keeps_its_result_whatever_the_agent_edits() {
    let project =
        Project::new(&CONFIG.replace("echo run >> runs.txt;", "echo run >> runs.txt; sleep 2;"));
    project.write(".gitignore", "runs.txt\n");
    project.state("unknown type name foo");
    let input = project.claude_input("slow", false);
    let stderr = project.start("claude", &input);
    assert!(stderr.contains("in the background"), "{stderr}");
    // The agent's edits, while the start tree is verified.
    project.write("notes.md", "the agent's first edit\n");
    project.state("conflicting types");
    let text = start_log(&project);
    assert!(text.contains("verified in a copy of it and kept"), "{text}");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("conflicting types"), "{reason}");
    assert!(!reason.contains("not known"), "{reason}");
    // The start's failure back: it was there when the session began, so it does not block.
    project.state("unknown type name foo");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    assert!(
        stderr.contains("1 failure was there when this session began"),
        "{stderr}"
    );
}

/// The issue's case: a project whose suite takes 10 s (the real pytest, a test that sleeps), a
/// tree nobody verified. The session-start hook answers in under a second; the agent adds a
/// failure at once; its first stop blocks on that failure alone, so the start state was known
/// (the stop found or waited for the background result), and the copy is gone.
#[test]
fn the_session_start_answers_at_once_and_the_first_stop_knows_the_start() {
    let project = Project::pytest();
    project.write(
        "tests/test_slow.py",
        "import time\n\ndef test_slow():\n    time.sleep(10)\n",
    );
    let input = project.claude_input("quick", false);
    let began = Instant::now();
    let stderr = project.start("claude", &input);
    let took = began.elapsed();
    assert!(
        took < Duration::from_secs(1),
        "the hook took {took:?}: {stderr}"
    );
    assert!(stderr.contains("in the background"), "{stderr}");
    let tree = start_tree(&stderr);
    project.write(
        "tests/test_more.py",
        "from calc import add\n\ndef test_negative():\n    assert add(-1, -1) == -2\n",
    );
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("test_negative"), "{reason}");
    assert!(!reason.contains(TEST_NAMES[0]), "{reason}");
    assert!(
        reason.contains("1 failure from before this session set aside"),
        "{reason}"
    );
    let text = start_log(&project);
    assert!(text.contains("verified in a copy of it and kept"), "{text}");
    let prefix = format!("verdict-start-{}-", &tree[..12]);
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .expect("the temp dir")
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(&prefix))
        .map(|entry| entry.path())
        .collect();
    assert!(left.is_empty(), "copies left: {left:?}");
}

/// Fail closed: a start tree that cannot be written out (no temporary directory) is not
/// verified, nothing is kept, and the first stop counts every failure, saying so.
#[test]
fn a_start_tree_that_cannot_be_copied_is_not_kept() {
    let project = Project::new(CONFIG);
    project.write(".gitignore", "runs.txt\n");
    project.state("unknown type name foo");
    let input = project.claude_input("nocopy", false);
    let start = project.start_input("claude", &input);
    let nowhere = project.root().join("no-such-dir");
    let (answer, stderr) = project.hook_env(
        "claude",
        &start,
        &["--event", "session-start"],
        &[("TMPDIR", nowhere.as_path())],
    );
    assert_eq!(answer, json!({}), "{stderr}");
    let text = start_log(&project);
    assert!(text.contains("the start tree stays unverified"), "{text}");
    assert!(!nowhere.exists());
    project.write("notes.md", "the agent's edit\n");
    let (answer, stderr) = project.hook("claude", &input, &[]);
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("not known"), "{reason}");
    assert!(reason.contains("unknown type name foo"), "{reason}");
}

/// The polyglot example (tsc, eslint, jest and pytest, each with a deliberate failure), the real
/// tools linked in, in a git repository.
fn polyglot() -> Project {
    let dir = tempfile::tempdir().expect("a temp dir");
    let project = Project { dir };
    verdict_test_support::copy_dir_except(
        &support::repo().join("examples/polyglot"),
        project.root(),
        &[
            "node_modules",
            ".venv",
            ".verdict",
            ".pytest_cache",
            "__pycache__",
        ],
    );
    verdict_test_support::link_node_modules(project.root());
    verdict_test_support::link_venv(project.root());
    git(project.root(), &["init", "-q", "."]);
    project
}

/// The copy gives the project's own results with the real tools: the start tree of the polyglot
/// example is verified in a copy (its `node_modules` and `.venv` linked in), and a stop in the
/// project after an edit that breaks nothing sets aside every failure the four tools find, so
/// each has the fingerprint it has in place.
#[test]
fn a_start_verified_in_a_copy_matches_the_project_with_real_tools() {
    let project = polyglot();
    let path = support::path_with_node();
    let env = [("PATH", Path::new(&path))];
    let input = project.claude_input("poly", false);
    let start = project.start_input("claude", &input);
    let (answer, stderr) = project.hook_env("claude", &start, &["--event", "session-start"], &env);
    assert_eq!(answer, json!({}), "{stderr}");
    let text = start_log(&project);
    assert!(text.contains("verified in a copy of it and kept"), "{text}");
    project.write("NOTES.md", "the agent's notes\n");
    let (answer, stderr) = project.hook_env("claude", &input, &[], &env);
    assert_eq!(answer, json!({}), "{answer:#}\n{stderr}");
    // Each of the four tools' failures, found in the copy, is one the project has.
    assert!(
        stderr.contains("5 failures were there when this session began"),
        "{stderr}"
    );
}

/// A Rust project's start tree is built in verdict's own target directory, never in the
/// project's `target` through a link: the copy's build would write the start tree's binaries over
/// the project's and wait on the agent's builds for cargo's lock.
#[test]
fn a_start_verified_in_a_copy_builds_apart_from_the_projects_target() {
    let project = Project {
        dir: tempfile::tempdir().expect("a temp dir"),
    };
    project.write(
        "Cargo.toml",
        "[package]\nname = \"adder\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    project.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 3), 5);\n}\n",
    );
    project.write(".gitignore", "target/\n");
    git(project.root(), &["init", "-q", "."]);
    // The project's own build output, marked as cargo marks it.
    project.write(
        "target/CACHEDIR.TAG",
        "Signature: 8a477f597d28d172789f06886806bc55\n",
    );
    project.write("target/mine", "the project's\n");
    let input = project.claude_input("rust", false);
    let start = project.start_input("claude", &input);
    let (answer, stderr) = project.hook_env("claude", &start, &["--event", "session-start"], &[]);
    assert_eq!(answer, json!({}), "{stderr}");
    let text = start_log(&project);
    assert!(text.contains("verified in a copy of it and kept"), "{text}");
    let mut ours: Vec<String> = std::fs::read_dir(project.root().join("target"))
        .expect("the project's target")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    ours.sort();
    assert_eq!(
        ours,
        ["CACHEDIR.TAG", "mine"],
        "the copy built into the project's target"
    );
    assert!(
        project
            .root()
            .join(".verdict/hook/start-target/debug")
            .is_dir(),
        "{text}"
    );
}

/// A copy whose process was killed before it could remove it is removed by the next start
/// verification; a live one's is left alone.
#[test]
fn a_copy_left_by_a_killed_start_verification_is_removed() {
    let project = Project::new(CONFIG);
    git(project.root(), &["init", "-q", "."]);
    let tmp = tempfile::tempdir().expect("a temp dir");
    let mut gone = Command::new("true").spawn().expect("true starts");
    let dead = gone.id();
    gone.wait().expect("true ends");
    let stale = tmp
        .path()
        .join(format!("verdict-start-0123456789ab-{dead}"));
    std::fs::create_dir_all(stale.join("src")).expect("a stale copy");
    std::os::unix::fs::symlink(project.root(), stale.join("node_modules")).expect("a link");
    let live = tmp
        .path()
        .join(format!("verdict-start-0123456789ab-{}", std::process::id()));
    std::fs::create_dir(&live).expect("a live copy");
    let input = project.claude_input("sweep", false);
    let start = project.start_input("claude", &input);
    let env = [("TMPDIR", tmp.path())];
    let (answer, stderr) = project.hook_env("claude", &start, &["--event", "session-start"], &env);
    assert_eq!(answer, json!({}), "{stderr}");
    let text = start_log(&project);
    assert!(text.contains("verified in a copy of it and kept"), "{text}");
    assert!(!stale.exists(), "the stale copy is still there");
    assert!(live.is_dir(), "a live process's copy was removed");
    // Through its link, nothing of the project went with it.
    assert!(project.root().join("verdict.toml").is_file());
    let left: Vec<String> = std::fs::read_dir(tmp.path())
        .expect("the temp dir")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
}

/// A start verification that has not finished by the stop's deadline: the stop waits for it up
/// to the deadline, then counts every failure and says why (fail closed). The verifier is slow in
/// the start tree only, where `slow-start` is.
#[test]
fn a_start_verification_late_for_the_stop_counts_every_failure() {
    let project = Project::new(&CONFIG.replace(
        "echo run >> runs.txt;",
        "echo run >> runs.txt; if [ -e slow-start ]; then sleep 30; fi;",
    ));
    project.write(".gitignore", "runs.txt\n");
    project.write("slow-start", "");
    project.state("unknown type name foo");
    let input = project.claude_input("late", false);
    project.start("claude", &input);
    std::fs::remove_file(project.root().join("slow-start")).expect("remove slow-start");
    let began = Instant::now();
    let (answer, stderr) = project.hook("claude", &input, &["--deadline", "3"]);
    assert!(began.elapsed() >= Duration::from_secs(2), "{stderr}");
    assert!(is_block(&answer), "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(
        reason.contains("had not finished by the deadline"),
        "{reason}"
    );
    assert!(reason.contains("unknown type name foo"), "{reason}");
    // The background verification is stopped: it winds down and says so.
    let lock = std::fs::read_dir(project.root().join(".verdict/hook"))
        .expect("the hook directory")
        .flatten()
        .find(|entry| entry.file_name().to_string_lossy().ends_with(".lock"))
        .expect("a lock");
    let holder = std::fs::read_to_string(lock.path()).expect("the lock's holder");
    let pid = holder.trim().trim_start_matches("pid ");
    let killed = Command::new("kill")
        .args(["-TERM", pid])
        .status()
        .expect("kill runs");
    assert!(killed.success(), "{holder}");
    let text = start_log(&project);
    assert!(text.contains("cut short"), "{text}");
}

/// Each harness's session-start input is read and recorded by its own session id (Cursor's
/// conversation), and a resumed session keeps the tree it began on.
#[test]
fn each_harness_records_its_session_start() {
    let project = Project::new(CONFIG);
    project.write(".gitignore", "runs.txt\n");
    project.state("unknown type name foo");
    let inputs = [
        ("claude", project.claude_input("c", false)),
        ("codex", project.codex_input("x")),
        ("cursor", project.cursor_input("k", "completed", 0)),
        ("gemini", gemini_input(&project, "g")),
    ];
    for (harness, input) in &inputs {
        let stderr = project.start(harness, input);
        assert!(stderr.contains("begins on tree"), "{harness}: {stderr}");
        let (answer, stderr) = project.hook(harness, input, &[]);
        assert_eq!(answer, json!({}), "{harness}: {stderr}");
    }
    let (_, stderr) = project.hook(
        "claude",
        &project.start_input("claude", &inputs[0].1),
        &["--event", "session-start"],
    );
    assert!(stderr.contains("keeps the tree it began on"), "{stderr}");
    // A session-start input given to the stop hook is no stop.
    let (answer, _) = project.hook("claude", &project.start_input("claude", &inputs[0].1), &[]);
    assert!(
        message(&answer).contains("not `SessionStart`"),
        "{answer:#}"
    );
}
