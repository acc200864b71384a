//! The loop's agent presets run (issue 11, item 4): a real `verdict loop --agent <preset>` drives a
//! stand-in of each CLI (`cli/tests/loop/agents/standin.py`, installed on PATH as `claude`,
//! `codex`, `aider` and `gemini`) that parses its argv the way the real CLI's argument parser
//! does, refuses what the real one refuses (an unknown flag, a bad value, a folder outside git for
//! codex, an untrusted folder for gemini), and otherwise fixes the cart fixture's one failing test.
//! Each test checks that the run passed, what the stand-in parsed, and what the preset is for: the
//! tests allowed to Claude Code, no commit in the user's repository, the trusted session.
//! Claude Code is also allowed the commands the project declares for what the loop verifies
//! (issue 28, item 2): `npm test`, `npm run lint`, `make test`, and nothing broader.

use crate::support::project;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use project::{Project, path_with_node};
use serde_json::Value;

/// The cart fixture (a pytest project with one failing test) in a temporary directory, the
/// stand-ins on PATH, and a directory for what they record.
struct Bench {
    project: Project,
    bin: tempfile::TempDir,
    logs: tempfile::TempDir,
}

impl Bench {
    fn new() -> Bench {
        let project = Project::empty();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/loop/cart");
        for entry in std::fs::read_dir(&fixture).expect("the cart fixture") {
            let entry = entry.expect("an entry");
            std::fs::copy(
                entry.path(),
                project.path(&entry.file_name().to_string_lossy()),
            )
            .expect("copy a fixture file");
        }
        project.link_venv();
        Bench::of(project)
    }

    /// `project`, with the stand-ins on PATH.
    fn of(project: Project) -> Bench {
        let bin = tempfile::Builder::new()
            .prefix("verdict-standins-")
            .tempdir()
            .expect("a temporary directory");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/loop/agents/standin.py");
        for name in ["claude", "codex", "aider", "gemini"] {
            let to = bin.path().join(name);
            std::fs::copy(&script, &to).expect("install a stand-in");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755))
                .expect("make it executable");
        }
        let logs = tempfile::Builder::new()
            .prefix("verdict-standin-logs-")
            .tempdir()
            .expect("a temporary directory");
        Bench { project, bin, logs }
    }

    fn root(&self) -> &Path {
        self.project.root()
    }

    fn path(&self) -> std::ffi::OsString {
        let mut dirs = vec![self.bin.path().to_path_buf()];
        dirs.extend(std::env::split_paths(&path_with_node()));
        std::env::join_paths(dirs).expect("a PATH")
    }

    /// A stand-in run directly, in the project.
    fn standin(&self, name: &str, args: &[&str]) -> Output {
        Command::new(self.bin.path().join(name))
            .args(args)
            .current_dir(self.root())
            .env("PATH", self.path())
            .env("VERDICT_STANDIN_LOG", self.logs.path())
            .env_remove("GEMINI_CLI_TRUST_WORKSPACE")
            .stdin(Stdio::null())
            .output()
            .expect("the stand-in runs")
    }

    /// `verdict loop --agent <preset>` to its end, one attempt.
    fn run_loop(&self, preset: &str) -> Output {
        self.run_loop_with(preset, &[])
    }

    /// `verdict loop --agent <preset>` to its end, one attempt, with `env` set.
    fn run_loop_with(&self, preset: &str, env: &[(&str, &str)]) -> Output {
        self.run_loop_args(preset, &[], env)
    }

    /// `verdict loop --agent <preset> <args>` to its end, one attempt, with `env` set.
    fn run_loop_args(&self, preset: &str, args: &[&str], env: &[(&str, &str)]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_verdict"))
            .env("VERDICT_STATE_DIR", ".verdict")
            .args([
                "loop",
                "--task",
                "Make the failing cart test pass",
                "--agent",
                preset,
            ])
            .args(["--max-attempts", "1", "--no-baseline"])
            .args(args)
            .current_dir(self.root())
            .env("PATH", self.path())
            .env("VERDICT_STANDIN_LOG", self.logs.path())
            .env_remove("GEMINI_CLI_TRUST_WORKSPACE")
            .env_remove("CI")
            .env_remove("GITHUB_ACTIONS")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .expect("verdict loop runs")
    }

    /// What the stand-in `name` recorded on its first call.
    fn record(&self, name: &str) -> Value {
        let path: PathBuf = self.logs.path().join(format!("{name}-1.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{name} recorded nothing ({e})"));
        serde_json::from_str(&text).expect("the record is JSON")
    }

    fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(self.root())
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }
}

fn all(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn passes(bench: &Bench, preset: &str) -> Value {
    let out = bench.run_loop(preset);
    assert_eq!(out.status.code(), Some(0), "{preset}:\n{}", all(&out));
    let record = bench.record(preset);
    assert!(
        record["prompt"]
            .as_str()
            .is_some_and(|p| p.starts_with("Make the failing cart test pass")),
        "{record}"
    );
    record
}

#[test]
fn claude_may_run_the_projects_tests() {
    let bench = Bench::new();
    // The stand-in refuses what Claude Code refuses.
    assert_eq!(
        bench.standin("claude", &["-p", "--bogus"]).status.code(),
        Some(1)
    );
    let bad = bench.standin("claude", &["-p", "--allowedTools", "Bash(npm test"]);
    assert_eq!(bad.status.code(), Some(1), "{}", all(&bad));
    let record = passes(&bench, "claude");
    let rules: Vec<&str> = record["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for rule in [
        "Bash(.venv/bin/python -m pytest:*)",
        "Bash(python -m pytest:*)",
        "Bash(pytest:*)",
        "mcp__verdict__verify",
    ] {
        assert!(rules.contains(&rule), "{rule} in {rules:?}");
    }
    // No rule names a verdict run directory or allows a bare interpreter.
    assert!(
        rules
            .iter()
            .all(|r| !r.contains(".verdict") && *r != "Bash(python:*)"),
        "{rules:?}"
    );
    assert_eq!(record["ran_tests"], true, "{record}");
    assert_eq!(
        record["tests_exit"], 0,
        "the stand-in ran the fixed tests: {record}"
    );
    assert_eq!(record["args"]["--permission-mode"], "acceptEdits");
}

/// The rules of the `--allowedTools` list the claude stand-in parsed.
fn rules(record: &Value) -> Vec<String> {
    record["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Rules a prefix match makes far broader than any check: a runner with nothing after it, or
/// a script runner with no script named.
const TOO_BROAD: &[&str] = &[
    "Bash(npm:*)",
    "Bash(npm run:*)",
    "Bash(npx:*)",
    "Bash(node:*)",
    "Bash(make:*)",
    "Bash(python:*)",
    "Bash(python3:*)",
];

#[test]
fn claude_may_run_the_test_lint_and_type_check_scripts_of_package_json() {
    // The polyglot example declares `test` (jest), `lint` (eslint) and `typecheck` (tsc), which
    // verdict's verifiers run in the scripts' place; a script it does not verify is added.
    let project = Project::polyglot();
    let path = project.path("package.json");
    let mut package: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("package.json")).expect("JSON");
    package["scripts"]["build"] = "tsc -p .".into();
    package["scripts"]["lint:fix"] = "eslint --fix .".into();
    std::fs::write(&path, package.to_string()).expect("write package.json");
    let bench = Bench::of(project);
    let out = bench.run_loop_with("claude", &[("VERDICT_STANDIN_TEST", "npm test")]);
    // The example fails on purpose, and the stand-in fixes nothing in it.
    assert_eq!(out.status.code(), Some(1), "{}", all(&out));
    let record = bench.record("claude");
    let rules = rules(&record);
    for rule in [
        "Bash(npm test:*)",
        "Bash(npm run test:*)",
        "Bash(npm run lint:*)",
        "Bash(npm run typecheck:*)",
        "mcp__verdict__verify",
    ] {
        assert!(rules.iter().any(|r| r == rule), "{rule} in {rules:?}");
    }
    for rule in &rules {
        assert!(!TOO_BROAD.contains(&rule.as_str()), "{rule} in {rules:?}");
        assert!(
            !rule.contains("build") && !rule.contains("lint:fix"),
            "a script verdict does not verify: {rule} in {rules:?}"
        );
    }
    // The agent ran the project's own test command, which `acceptEdits` alone refuses.
    assert_eq!(record["ran_tests"], true, "{record}");
    assert_eq!(
        record["tests_exit"], 1,
        "jest's deliberate failure: {record}"
    );
}

#[test]
fn a_check_the_loop_does_not_verify_is_not_allowed() {
    let bench = Bench::of(Project::polyglot());
    let out = bench.run_loop_args("claude", &["--only", "eslint"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", all(&out));
    let rules = rules(&bench.record("claude"));
    assert!(
        rules.iter().any(|r| r == "Bash(npm run lint:*)"),
        "{rules:?}"
    );
    for rule in &rules {
        assert!(
            !rule.starts_with("Bash(npm test") && !rule.contains("typecheck"),
            "--only eslint: {rule} in {rules:?}"
        );
    }
}

#[test]
fn claude_may_run_make_test_when_the_makefile_declares_the_tests() {
    let bench = Bench::new();
    std::fs::write(
        bench.root().join("Makefile"),
        ".PHONY: test lint
test:
	.venv/bin/python -m pytest -q -p no:cacheprovider
lint:
	flake8 .
",
    )
    .expect("write the Makefile");
    let out = bench.run_loop_with("claude", &[("VERDICT_STANDIN_TEST", "make test")]);
    assert_eq!(out.status.code(), Some(0), "{}", all(&out));
    let record = bench.record("claude");
    let rules = rules(&record);
    assert!(rules.iter().any(|r| r == "Bash(make test:*)"), "{rules:?}");
    // `make lint` runs flake8, which verdict does not verify: not allowed, nor any target.
    for rule in &rules {
        assert!(!TOO_BROAD.contains(&rule.as_str()), "{rule} in {rules:?}");
        assert!(!rule.starts_with("Bash(make lint"), "{rule} in {rules:?}");
    }
    assert_eq!(record["ran_tests"], true, "{record}");
    assert_eq!(record["tests_exit"], 0, "the fixed tests pass: {record}");
}

#[test]
fn codex_runs_outside_a_git_repository() {
    let bench = Bench::new();
    // Without the flag, outside git, the stand-in refuses as codex does.
    let refused = bench.standin("codex", &["exec", "--sandbox", "workspace-write", "-"]);
    assert_eq!(refused.status.code(), Some(1), "{}", all(&refused));
    assert_eq!(
        bench
            .standin("codex", &["exec", "--sandbox", "everything", "-"])
            .status
            .code(),
        Some(2)
    );
    let record = passes(&bench, "codex");
    assert_eq!(record["args"]["--skip-git-repo-check"], true);
    assert_eq!(record["args"]["--sandbox"], "workspace-write");
}

#[test]
fn aider_never_touches_the_users_repository() {
    let bench = Bench::new();
    assert_eq!(
        bench.standin("aider", &["--yes-alwayz"]).status.code(),
        Some(2)
    );
    bench.project.git_init();
    bench.project.git(&["add", "-A"]);
    bench.project.git(&["commit", "-qm", "start"]);
    // A change of the user's own, not committed: aider must leave it uncommitted.
    std::fs::write(bench.root().join("NOTES.md"), "mine\n").expect("write");
    bench.project.git(&["add", "NOTES.md"]);
    let head = bench.git(&["rev-parse", "HEAD"]);
    let ignore = std::fs::read_to_string(bench.root().join(".gitignore")).expect(".gitignore");
    let record = passes(&bench, "aider");
    assert_eq!(record["args"]["auto_commits"], false);
    assert_eq!(record["args"]["dirty_commits"], false);
    assert_eq!(bench.git(&["rev-parse", "HEAD"]), head, "no commit");
    assert_eq!(
        std::fs::read_to_string(bench.root().join(".gitignore")).expect(".gitignore"),
        ignore
    );
    let status = bench.git(&["status", "--porcelain"]);
    assert!(
        status.contains("A  NOTES.md") && status.contains(" M cart.py"),
        "{status}"
    );
}

#[test]
fn gemini_is_trusted_for_the_session() {
    let bench = Bench::new();
    let untrusted = bench.standin("gemini", &["--approval-mode", "yolo", "-p", "fix it"]);
    assert_eq!(untrusted.status.code(), Some(1), "{}", all(&untrusted));
    assert_eq!(
        bench
            .standin(
                "gemini",
                &[
                    "--yolo",
                    "--approval-mode",
                    "yolo",
                    "--skip-trust",
                    "-p",
                    "x"
                ]
            )
            .status
            .code(),
        Some(1)
    );
    let record = passes(&bench, "gemini");
    assert_eq!(record["env_trust"], "true");
    assert_eq!(record["args"]["--approvalMode"], "yolo");
}
