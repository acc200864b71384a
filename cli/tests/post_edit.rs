//! The post-edit hook (`verdict hook <harness> --event post-edit`, issue 11, item 3) on a real
//! project: JavaScript that the real tsc (`checkJs`) type-checks and the real eslint lints, from
//! the tools `cargo xtask tools` installs. `src/legacy.js` is broken before any edit (a type error
//! and a lint error) and is never edited; the tests edit `src/price.js` and hand the hook each
//! harness's input naming it.

use crate::support::project as support;

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::Project;
use verdict_core::digest::tokens;

/// `src/price.js` with a type error (a number returned as the declared string) and a lint error
/// (an unused variable).
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

/// A copy of the fixture with the tools linked in, in a git repository.
fn project() -> Project {
    let project = Project::fixture("post-edit");
    project.link_node_modules();
    project.git_init();
    project
}

/// Claude Code's `PostToolUse` input after an `Edit` of `file` (absolute, as Claude Code gives it).
fn claude_edit(project: &Project, file: &str) -> String {
    json!({
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": project.root(),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {
            "file_path": project.path(file),
            "old_string": "a",
            "new_string": "b"
        },
        "tool_response": { "filePath": project.path(file), "success": true },
        "tool_use_id": "toolu_01"
    })
    .to_string()
}

/// Runs `verdict hook <args>` in the project with `stdin`; returns the JSON answer and stderr,
/// after checking that the hook exited 0 with exactly one JSON object on stdout.
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
    assert_eq!(
        stdout.lines().count(),
        1,
        "one JSON line: {stdout}\n{stderr}"
    );
    let answer = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}\n{stderr}"));
    (answer, stderr)
}

/// The additional context of an answer, checking the harness's envelope.
fn context<'a>(answer: &'a Value, event: &str) -> &'a str {
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], event, "{answer}");
    assert!(
        answer.get("decision").is_none(),
        "never a decision: {answer}"
    );
    output["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no additionalContext: {answer}"))
}

/// The edited file's type error and lint error come back, and nothing of the file that was broken
/// before but not edited; within the default budget of 150 tokens.
#[test]
fn an_edit_gets_back_the_type_and_lint_errors_of_its_file_only() {
    let project = project();
    project.write("src/price.js", BROKEN_PRICE);
    let (answer, stderr) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &claude_edit(&project, "src/price.js"),
    );
    let text = context(&answer, "PostToolUse");
    assert!(
        text.contains("src/price.js:8:3 tsc TS2322"),
        "tsc's error: {text}"
    );
    assert!(
        text.contains("src/price.js:7:9 eslint no-unused-vars"),
        "eslint's error: {text}"
    );
    assert!(!text.contains("legacy"), "an unedited file: {text}");
    assert!(tokens::count(text) <= 150, "{text}");
    assert!(stderr.contains("with tsc, eslint"), "{stderr}");
    // The unedited broken file is there for a full run to find: the hook left it out.
    let full = project.verdict(&["run"]);
    assert!(full.stdout.contains("src/legacy.js"), "{}", full.all());
}

/// An edit that breaks nothing gets no context at all, though another file is broken.
#[test]
fn a_clean_edit_gets_nothing() {
    let project = project();
    let (answer, stderr) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &claude_edit(&project, "src/price.js"),
    );
    assert_eq!(answer, json!({}), "{stderr}");
    assert!(stderr.contains("checked src/price.js"), "{stderr}");
}

/// Codex's `apply_patch` (the files in the patch's headers) and Gemini CLI's `AfterTool` (a
/// `replace`) get the same diagnostics, in their own envelopes.
#[test]
fn codex_and_gemini_edits_are_checked_too() {
    let project = project();
    project.write("src/price.js", BROKEN_PRICE);
    let patch = "*** Begin Patch\n*** Update File: src/price.js\n@@\n-  return x;\n+  return \
                 cents / 100;\n*** Delete File: src/gone.js\n*** End Patch\n";
    let codex = json!({
        "session_id": "s2",
        "turn_id": "t1",
        "cwd": project.root(),
        "hook_event_name": "PostToolUse",
        "model": "gpt-5-codex",
        "tool_name": "apply_patch",
        "tool_use_id": "call_1",
        "tool_input": { "command": patch },
        "tool_response": "Success. Updated the following files:\nM src/price.js\n"
    });
    let (answer, _) = hook(
        &project,
        &["codex", "--event", "post-edit"],
        &codex.to_string(),
    );
    let text = context(&answer, "PostToolUse");
    assert!(text.contains("src/price.js:8:3 tsc TS2322"), "{text}");
    assert!(text.contains("eslint no-unused-vars"), "{text}");
    let gemini = json!({
        "session_id": "s3",
        "transcript_path": "/tmp/chat.json",
        "cwd": project.root(),
        "hook_event_name": "AfterTool",
        "timestamp": "2026-11-26T10:00:00Z",
        "tool_name": "replace",
        "tool_input": {
            "file_path": project.path("src/price.js"),
            "old_string": "a",
            "new_string": "b"
        },
        "tool_response": { "llmContent": "Successfully modified file" }
    });
    let (answer, _) = hook(
        &project,
        &["gemini", "--event", "post-edit"],
        &gemini.to_string(),
    );
    let text = context(&answer, "AfterTool");
    assert!(text.contains("src/price.js:8:3 tsc TS2322"), "{text}");
    assert!(!text.contains("legacy"), "{text}");
}

/// Many problems in the edited file: the context keeps to the budget (the default, and one given
/// with `--budget`), errors first, and says how many it left out.
#[test]
fn the_context_keeps_to_its_budget() {
    let project = project();
    let mut text = String::from("/** @param {number} n */\nfunction f(n) {\n  return n;\n}\n");
    for i in 0..30 {
        text.push_str(&format!(
            "const unusedValueNumber{i} = f(\"not a number {i}\");\n"
        ));
    }
    text.push_str("module.exports = { f };\n");
    project.write("src/price.js", &text);
    let input = claude_edit(&project, "src/price.js");
    for (args, budget) in [
        (&["claude", "--event", "post-edit"][..], 150),
        (
            &["claude", "--event", "post-edit", "--budget", "60"][..],
            60,
        ),
    ] {
        let (answer, _) = hook(&project, args, &input);
        let context = context(&answer, "PostToolUse");
        assert!(
            tokens::count(context) <= budget,
            "{} tokens over {budget}: {context}",
            tokens::count(context)
        );
        assert!(context.contains("src/price.js:5:"), "{context}");
        assert!(
            context.ends_with("more (`verdict run` shows all)"),
            "{context}"
        );
    }
}

/// A tool that cannot run says so in one short line; an edit of a file no fast verifier checks
/// runs nothing.
#[test]
fn a_tool_that_cannot_run_says_so_in_one_line() {
    let project = Project::fixture("post-edit");
    project.git_init();
    project.write("src/price.js", BROKEN_PRICE);
    let (answer, _) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &claude_edit(&project, "src/price.js"),
    );
    let text = context(&answer, "PostToolUse");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    for (line, tool) in lines.iter().zip(["tsc", "eslint"]) {
        assert!(
            line.starts_with(&format!("verdict: {tool} could not check this edit: ")),
            "{text}"
        );
        assert!(tokens::count(line) <= 50, "{line}");
    }
    project.write("README.md", "# prices\n");
    let (answer, stderr) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &claude_edit(&project, "README.md"),
    );
    assert_eq!(answer, json!({}), "{stderr}");
    assert!(
        stderr.contains("no fast verifier checks README.md"),
        "{stderr}"
    );
}

/// `fast = false` takes a verifier out of the post-edit check, `fast = true` puts a project's own
/// in; an input that is no edit is let go with a message for the user.
#[test]
fn the_project_chooses_its_fast_verifiers() {
    let project = project();
    project.write("src/price.js", BROKEN_PRICE);
    project.write(
        "verdict.toml",
        r#"
[verifiers.tsc]
fast = false

[verifiers.todo]
fast = true

[[verifier]]
name = "todo"
kind = "lint"
command = ["sh", "-c", "grep -n 'Math.round' src/*.js | sed 's/^\\([^:]*\\):\\([0-9]*\\):.*/\\1:\\2:1: error: no rounding here/'; exit 1"]

[[verifier.pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error): (?P<message>.*)$'
"#,
    );
    let (answer, stderr) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &claude_edit(&project, "src/price.js"),
    );
    let text = context(&answer, "PostToolUse");
    assert!(!text.contains("tsc"), "{text}");
    assert!(text.contains("eslint no-unused-vars"), "{text}");
    assert!(
        text.contains("src/price.js:7:1 todo: no rounding here"),
        "{text}\n{stderr}"
    );
    let (answer, _) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        r#"{"session_id":"s","hook_event_name":"Stop"}"#,
    );
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(message.contains("PostToolUse"), "{answer}");
}

/// `hook install --post-edit` adds the post-edit hook with the harness's matcher of edit tools
/// and a short timeout; a second install changes nothing; without the flag it is not written;
/// Cursor, whose after-edit hook cannot reach the agent, refuses it.
#[test]
fn install_writes_the_post_edit_hook_on_request() {
    let project = Project::empty();
    project.git_init();
    let install = |args: &[&str]| project.verdict(&[&["hook", "install"], args].concat());
    let out = install(&["claude"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let settings: Value =
        serde_json::from_str(&project.read(".claude/settings.json")).expect("JSON settings");
    assert!(settings["hooks"].get("PostToolUse").is_none(), "{settings}");
    let out = install(&["claude", "--post-edit"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let settings: Value =
        serde_json::from_str(&project.read(".claude/settings.json")).expect("JSON settings");
    let group = &settings["hooks"]["PostToolUse"][0];
    assert_eq!(group["matcher"], "Edit|Write|MultiEdit", "{settings}");
    assert_eq!(group["hooks"][0]["timeout"], 60, "{settings}");
    let command = group["hooks"][0]["command"].as_str().unwrap_or_default();
    assert!(
        command.ends_with("verdict hook claude --event post-edit"),
        "{command}"
    );
    assert_eq!(settings["hooks"]["Stop"].as_array().map(Vec::len), Some(1));
    let before = project.read(".claude/settings.json");
    let out = install(&["claude", "--post-edit"]);
    assert!(out.stdout.contains("nothing changed"), "{}", out.all());
    assert_eq!(project.read(".claude/settings.json"), before);

    let out = install(&["gemini", "--post-edit"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let settings: Value =
        serde_json::from_str(&project.read(".gemini/settings.json")).expect("JSON settings");
    let group = &settings["hooks"]["AfterTool"][0];
    assert_eq!(group["matcher"], "write_file|replace", "{settings}");
    assert_eq!(group["hooks"][0]["timeout"], 60_000, "{settings}");
    let out = install(&["codex", "--post-edit"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let hooks: Value =
        serde_json::from_str(&project.read(".codex/hooks.json")).expect("JSON hooks");
    assert_eq!(
        hooks["hooks"]["PostToolUse"][0]["matcher"],
        "apply_patch|Edit|Write"
    );
    let out = install(&["cursor", "--post-edit"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(!project.path(".cursor/hooks.json").exists());
}

/// clippy checks the whole crate (it needs it), and only what it says of the edited file comes
/// back: the file the agent did not edit has a denied lint of its own.
#[test]
fn clippy_reports_the_edited_rust_file_only() {
    let project = Project::empty();
    project.git_init();
    project.write(
        "Cargo.toml",
        "[package]\nname = \"post-edit-fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\n",
    );
    project.write(".gitignore", "target/\n");
    project.write(
        "src/lib.rs",
        "mod legacy;\n\npub fn add(a: u32, b: u32) -> u32 {\n    let unused = 3;\n    a + b\n}\n",
    );
    project.write(
        "src/legacy.rs",
        "pub fn old() -> bool {\n    let x = 1;\n    x == x\n}\n",
    );
    let input = json!({
        "session_id": "s4",
        "cwd": project.root(),
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": { "file_path": project.path("src/lib.rs"), "content": "…" }
    });
    let (answer, stderr) = hook(
        &project,
        &["claude", "--event", "post-edit"],
        &input.to_string(),
    );
    let text = context(&answer, "PostToolUse");
    assert!(
        text.contains("src/lib.rs:4:9 clippy unused_variables (warning)"),
        "{text}\n{stderr}"
    );
    assert!(!text.contains("legacy"), "{text}");
    assert!(stderr.contains("with clippy"), "{stderr}");
}

/// tsc runs for an edited JavaScript file only when its config (or one it extends) lets it check
/// JavaScript: otherwise it has nothing to say of that file, and its time is saved.
#[test]
fn tsc_runs_for_javascript_only_when_its_config_checks_it() {
    let project = project();
    project.write("src/price.js", BROKEN_PRICE);
    let base = project.read("tsconfig.json");
    project.write(
        "tsconfig.json",
        r#"{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src/**/*.ts"] }"#,
    );
    let input = claude_edit(&project, "src/price.js");
    let (answer, stderr) = hook(&project, &["claude", "--event", "post-edit"], &input);
    assert!(
        stderr.contains("checked src/price.js with eslint\n"),
        "{stderr}"
    );
    let text = context(&answer, "PostToolUse");
    assert!(!text.contains("tsc"), "{text}");
    project.write("tsconfig.base.json", &base);
    project.write(
        "tsconfig.json",
        "{\n  // the options are in the base\n  \"extends\": \"./tsconfig.base.json\",\n}\n",
    );
    let (answer, stderr) = hook(&project, &["claude", "--event", "post-edit"], &input);
    assert!(stderr.contains("with tsc, eslint"), "{stderr}");
    assert!(
        context(&answer, "PostToolUse").contains("src/price.js:8:3 tsc TS2322"),
        "{answer}"
    );
}
