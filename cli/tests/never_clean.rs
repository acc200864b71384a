//! A verifier whose failures were set aside against a baseline is never called clean (issue 23,
//! item 2): its counts are the tool's own, and it says how many of them predate the session (or
//! are in the baseline). The stop hook's reason, `verdict run --baseline` in each format, and the
//! post-edit hook, which adds only what is new since the session began. Real pytest, tsc and
//! eslint from the tools `cargo xtask tools` installs.

use crate::support::project as support;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::Project;

/// A project verifier with one error that never goes away, in the format of a compiler.
const STYLE: &str = r#"
[[verifier]]
name = "style"
kind = "lint"
command = ["sh", "-c", "echo 'src/style.c:1:1: error: trailing whitespace'; exit 1"]

[[verifier.pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): (?P<message>.*)$'
"#;

/// A pytest project (the real pytest) with three failing tests and one passing, and the `style`
/// verifier with its one error: everything that fails, fails before the session.
fn failing_pytest() -> Project {
    let project = Project::empty();
    project.write("calc.py", "def add(a, b):\n    return a - b\n");
    project.write(
        "pytest.ini",
        "[pytest]\ntestpaths = tests\npythonpath = .\n",
    );
    project.write(
        "tests/test_calc.py",
        "from calc import add\n\n\
         def test_sum():\n    assert add(2, 3) == 5\n\n\
         def test_total():\n    assert add(1, 1) == 2\n\n\
         def test_addition():\n    assert add(4, 4) == 8\n\n\
         def test_zero():\n    assert add(0, 0) == 0\n",
    );
    project.write("verdict.toml", STYLE);
    project.link_venv();
    project.git_init();
    project
}

/// The agent's new failing test.
fn add_a_failing_test(project: &Project) {
    project.write(
        "tests/test_more.py",
        "from calc import add\n\ndef test_negative():\n    assert add(-1, -1) == -2\n",
    );
}

/// Runs `verdict hook <args>` in the project with `stdin`; returns the JSON answer and stderr.
fn hook(project: &Project, args: &[&str], stdin: &str) -> (Value, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .arg("hook")
        .args(args)
        .current_dir(project.root())
        .env("PATH", support::path_with_node())
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR")
        .env_remove("VERDICT_LOOP_SESSION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("verdict starts");
    child
        .stdin
        .take()
        .expect("a stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let output = child.wait_with_output().expect("verdict ends");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    let answer = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}\n{stderr}"));
    (answer, stderr)
}

/// Claude Code's input of `event` for session `session`.
fn claude(project: &Project, session: &str, event: &str) -> Value {
    json!({
        "session_id": session,
        "transcript_path": project.path("transcript.jsonl"),
        "cwd": project.root(),
        "permission_mode": "default",
        "hook_event_name": event,
    })
}

/// Begins session `session`: the session-start hook records the tree and verifies it.
fn begin(project: &Project, session: &str) {
    let mut input = claude(project, session, "SessionStart");
    input["source"] = json!("startup");
    let (answer, stderr) = hook(
        project,
        &["claude", "--event", "session-start"],
        &input.to_string(),
    );
    assert_eq!(answer, json!({}), "{stderr}");
    // The hook answers at once and verifies the start tree in the background: its log says
    // when it is done.
    let (_, log) = stderr
        .split_once("(log: ")
        .unwrap_or_else(|| panic!("no background verification: {stderr}"));
    let log = log.trim_end().trim_end_matches(')');
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.contains("kept") {
            break;
        }
        assert!(
            std::time::Instant::now() < until,
            "the start was not verified: {text}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The stop hook's answer for session `session`.
fn stop(project: &Project, session: &str) -> (Value, String) {
    let input = claude(project, session, "Stop");
    hook(project, &["claude"], &input.to_string())
}

/// In a session that began with three failing tests and a failing `style`, the agent adds a
/// failing test: the block reason counts pytest's four failures and says three predate the
/// session, and `style`, whose one error was set aside, says it has that error (it said `style:
/// no errors`, and `pytest: 1 failed`).
#[test]
fn the_stop_hook_never_calls_a_failing_verifier_clean() {
    let project = failing_pytest();
    begin(&project, "s1");
    add_a_failing_test(&project);
    let (answer, stderr) = stop(&project, "s1");
    assert_eq!(answer["decision"], "block", "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(
        reason.contains(
            "pytest: 4 failed, 1 passed (3 of the failures predate this session, 1 is new)"
        ),
        "{reason}"
    );
    assert!(reason.contains("test_negative"), "{reason}");
    assert!(
        !reason.contains("test_total"),
        "old failures are not listed: {reason}"
    );
    assert!(
        reason.contains("style: 1 error (from before this session)"),
        "{reason}"
    );
    assert!(!reason.contains("no errors"), "{reason}");
}

/// `verdict run --baseline` with the report of the failing start: the human output, the digest,
/// the JSON report and the Markdown keep the tool's counts and say which are in the baseline.
#[test]
fn a_run_against_a_baseline_keeps_the_tools_counts_in_every_format() {
    let project = failing_pytest();
    let base = project.verdict(&["run", "--format", "json=base.json"]);
    assert_eq!(base.code, 1, "{}", base.all());
    add_a_failing_test(&project);
    let run = project.verdict(&[
        "run",
        "--baseline",
        "base.json",
        "--format",
        "human",
        "--format",
        "json=now.json",
        "--format",
        "markdown=now.md",
    ]);
    assert_eq!(run.code, 1, "{}", run.all());
    let pytest = "4 failed, 1 passed (3 of the failures are in the baseline, 1 is new)";
    assert!(
        run.stdout.contains(&format!("pytest: {pytest}")),
        "{}",
        run.all()
    );
    assert!(
        run.stdout.contains("style: 1 error (in the baseline)"),
        "{}",
        run.all()
    );
    assert!(!run.stdout.contains("no errors"), "{}", run.all());
    let markdown = project.read("now.md");
    assert!(markdown.contains(pytest), "{markdown}");
    let document: Value = serde_json::from_str(&project.read("now.json")).expect("JSON");
    let verifications = document["verifications"].as_array().expect("verifications");
    let of = |name: &str| {
        verifications
            .iter()
            .find(|v| v["verifier"] == name)
            .unwrap_or_else(|| panic!("no {name}: {document:#}"))
    };
    let pytest = &of("pytest")["report"];
    assert_eq!(pytest["counts"]["tests_failed"], 4, "{pytest:#}");
    assert_eq!(pytest["set_aside"]["tests_failed"], 3, "{pytest:#}");
    assert_eq!(pytest["set_aside"]["from"], "baseline", "{pytest:#}");
    let style = &of("style")["report"];
    assert_eq!(style["outcome"], "passed", "{style:#}");
    assert_eq!(style["set_aside"]["errors"], 1, "{style:#}");
}

/// The real tsc and eslint on a project whose `src/legacy.js` is broken before the session: the
/// agent adds a lint error to `src/price.js`. tsc, whose one error was set aside, is not `tsc: no
/// errors` in the block reason.
#[test]
fn tsc_with_errors_from_before_the_session_is_not_called_clean() {
    let project = Project::fixture("post-edit");
    project.link_node_modules();
    project.git_init();
    begin(&project, "t1");
    let price = project.read("src/price.js");
    project.write(
        "src/price.js",
        &price.replace("module.exports", "const unusedThing = 1;\n\nmodule.exports"),
    );
    let (answer, stderr) = stop(&project, "t1");
    assert_eq!(answer["decision"], "block", "{answer:#}\n{stderr}");
    let reason = support::hook_prompt(&answer);
    assert!(reason.contains("unusedThing"), "{reason}");
    assert!(
        reason.contains("tsc: 1 error") && reason.contains("from before this session"),
        "{reason}"
    );
    assert!(!reason.contains("tsc: no errors"), "{reason}");
    assert!(
        !reason.contains("leftover"),
        "an old lint error is not listed: {reason}"
    );
}

/// `src/price.js` with a type error and a lint error before the session.
const BROKEN_PRICE: &str = r#"/**
 * Formats an amount of cents as a price.
 * @param {number} cents
 * @returns {string}
 */
function formatPrice(cents) {
  const rounded = Math.round(cents);
  return cents / 100;
}

module.exports = { formatPrice };
"#;

/// Claude Code's `PostToolUse` input after an edit of `file` in session `session`.
fn edit(project: &Project, session: &str, file: &str) -> String {
    let mut input = claude(project, session, "PostToolUse");
    input["tool_name"] = json!("Edit");
    input["tool_input"] = json!({
        "file_path": project.path(file),
        "old_string": "a",
        "new_string": "b"
    });
    input.to_string()
}

/// The post-edit hook tells the agent what is new since the session began: an edit of a file
/// that was broken before gets back only the problem the edit made, not the file's old ones (it
/// repeated them after every edit), and an edit that adds nothing gets nothing.
#[test]
fn the_post_edit_hook_adds_only_what_is_new_since_the_session_began() {
    let project = Project::fixture("post-edit");
    project.link_node_modules();
    project.git_init();
    project.write("src/price.js", BROKEN_PRICE);
    begin(&project, "p1");
    // An edit that changes nothing the tools see: the file's old problems are not repeated.
    project.write(
        "src/price.js",
        &BROKEN_PRICE.replace("Formats an amount", "Formats any amount"),
    );
    let (answer, stderr) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &edit(&project, "p1", "src/price.js"),
    );
    assert_eq!(answer, json!({}), "{stderr}");
    // An edit that adds a lint error: that alone comes back.
    project.write(
        "src/price.js",
        &BROKEN_PRICE.replace("module.exports", "const unusedThing = 1;\n\nmodule.exports"),
    );
    let (answer, stderr) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &edit(&project, "p1", "src/price.js"),
    );
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no context: {answer:#}\n{stderr}"));
    assert!(context.contains("unusedThing"), "{context}");
    assert!(!context.contains("TS2322"), "{context}");
    assert!(!context.contains("'rounded'"), "{context}");
    assert!(
        context.contains("2 more, from before this session, not repeated"),
        "{context}"
    );
}

/// `verdict loop --new-failures-only` on the cart with a test that fails before the loop and
/// after; the agent breaks a function. The next attempt's prompt counts pytest's two failures and
/// says one predates the loop (it said `pytest: 1 failed`).
#[test]
fn the_loops_prompt_says_which_failures_predate_the_loop() {
    use crate::r#loop::Scenario;
    let cart = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/loop/cart");
    let scenario = Scenario::copy_of(&cart);
    scenario.project.write(
        "test_legacy.py",
        "def test_legacy():\n    assert 1 + 1 == 3\n",
    );
    let agent = scenario.agent("break-another", "a");
    let out = scenario.run(&[
        "--task",
        "Make the cart's tests pass.",
        "--agent",
        &agent,
        "--max-attempts",
        "2",
        "--new-failures-only",
    ]);
    assert_eq!(out.code, 1, "{}", out.all());
    let prompt = scenario.prompt("a", 2);
    assert!(
        prompt
            .contains("pytest: 2 failed, 2 passed (1 of the failures predates the loop, 1 is new)"),
        "{prompt}"
    );
    assert!(
        !prompt.contains("test_discount"),
        "an old failure is not listed: {prompt}"
    );
}
