//! Secrets a tool prints never leave verdict (issue 22, items 1 and 2). A `[[verifier]]` prints
//! one failure per line of the positive secret corpus (`core/model/testdata/secrets/`: every
//! provider shape and assignment form, each with a fake secret generated for it), and every
//! output is searched for every secret: each format of `verdict run`, `verdict summarize`, the MCP
//! server's results, the stop hook's answer, and the loop's prompts, events, history and state
//! database (its file's bytes). Only the raw kept logs hold them: they are the evidence.

use crate::support::project::{self, Project};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

/// A verifier that fails with every line of `secrets.log` as an error of its own.
const LEAKY: &str = r#"
[[verifier]]
name = "leaky"
kind = "lint"
command = ["sh", "-c", "if [ -f ok ]; then echo fine; exit 0; fi; cat secrets.log; exit 1"]

[[verifier.pattern]]
regex = '^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.+)$'
"#;

/// The positive corpus: (secret, the line that holds it).
fn corpus() -> Vec<(String, String)> {
    let path = project::repo().join("core/model/testdata/secrets/positive.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let (secret, text) = line.split_once('\t').expect("`secret<TAB>line`");
            (secret.to_owned(), text.to_owned())
        })
        .collect()
}

/// The verifier's output: one error per corpus line, at its own line of `src/app.txt`.
fn leaky_log() -> String {
    corpus()
        .iter()
        .enumerate()
        .map(|(i, (_, line))| format!("src/app.txt:{}: error: {line}\n", i + 1))
        .collect()
}

/// A git repository whose one verifier fails with every secret of the corpus.
fn leaky_project() -> Project {
    let project = Project::empty();
    project.write("verdict.toml", LEAKY);
    project.write("secrets.log", &leaky_log());
    project.git_init();
    project
}

/// Fails naming every secret of the corpus that `text` (what `what` wrote) holds.
#[track_caller]
fn assert_no_secret(what: &str, text: &str) {
    let leaked: Vec<String> = corpus()
        .into_iter()
        .filter(|(secret, _)| text.contains(secret.as_str()))
        .map(|(_, line)| line)
        .collect();
    assert!(
        leaked.is_empty(),
        "{what} holds {} secret(s), from:\n{}\n--- {what}\n{}",
        leaked.len(),
        leaked.join("\n"),
        text.chars().take(4000).collect::<String>()
    );
}

/// [`assert_no_secret`] on a file's bytes, read as text whatever they hold (a database too).
#[track_caller]
fn assert_no_secret_in(path: &Path) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_no_secret(
        &path.display().to_string(),
        &String::from_utf8_lossy(&bytes),
    );
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// Each of the corpus's secrets reached verdict: `text` shows as many redactions as there are
/// secrets (a secret dropped with its line would pass [`assert_no_secret`] for nothing).
#[track_caller]
fn assert_redacted_all(what: &str, text: &str) {
    let shown = text.matches("[redacted:").count();
    assert!(
        shown >= corpus().len(),
        "{what} shows {shown} redactions for {} secrets:\n{text}",
        corpus().len()
    );
}

#[test]
fn no_format_of_verdict_run_holds_a_secret() {
    let project = leaky_project();
    let formats = [
        "json", "sarif", "junit", "gitlab", "rdjson", "github", "markdown",
    ];
    let mut args = vec!["run".to_owned(), "--format".to_owned(), "human".to_owned()];
    for format in formats {
        args.push("--format".to_owned());
        args.push(format!("{format}=out/report.{format}"));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = project.verdict(&args);
    assert_eq!(out.code, 1, "{}", out.all());
    assert_no_secret("verdict run's stdout", &out.stdout);
    assert_no_secret("verdict run's stderr", &out.stderr);
    for format in formats {
        let text = project.read(&format!("out/report.{format}"));
        assert_no_secret(format, &text);
        // GitHub's annotations and Markdown show the digest, within its budget.
        if !matches!(format, "github" | "markdown") {
            assert_redacted_all(format, &text);
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&project.read("out/report.json")).expect("the JSON report");
    let diagnostics = json["verifications"][0]["report"]["diagnostics"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(diagnostics, corpus().len(), "{json:#}");
    // What verdict keeps for later (the cache's last report, the digest cache) is redacted too;
    // only the raw logs of the run keep what the tool printed.
    let state = project.path(".verdict");
    let mut raw_logs = 0;
    for file in files_under(&state) {
        let rel = file
            .strip_prefix(&state)
            .expect("under the state directory");
        if rel.starts_with("runs") && file.extension().is_some_and(|e| e == "log") {
            raw_logs += 1;
            continue;
        }
        assert_no_secret_in(&file);
    }
    assert!(
        raw_logs > 0,
        "the run kept no log under {}",
        state.display()
    );
}

#[test]
fn github_annotations_hold_no_secret() {
    let project = leaky_project();
    let summary = project.path("out/step-summary.md");
    std::fs::create_dir_all(project.path("out")).expect("a directory");
    let out = project.verdict_env(
        &["run", "--format", "github"],
        &[
            ("GITHUB_ACTIONS", "true"),
            (
                "GITHUB_STEP_SUMMARY",
                summary.to_str().expect("a UTF-8 path"),
            ),
        ],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(out.stdout.contains("::error"), "{}", out.all());
    assert_no_secret("GitHub annotations", &out.stdout);
    assert_no_secret("stderr", &out.stderr);
    if summary.is_file() {
        assert_no_secret_in(&summary);
    }
}

#[test]
fn verdict_summarize_json_holds_no_secret() {
    let project = leaky_project();
    let out = project.verdict(&["summarize", "--format", "json", "secrets.log"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert_no_secret("summarize --format json", &out.stdout);
    assert_redacted_all("summarize --format json", &out.stdout);
    let digest = project.verdict(&["summarize", "secrets.log"]);
    assert_no_secret("summarize", &digest.stdout);
}

#[test]
fn the_mcp_results_hold_no_secret() {
    let project = leaky_project();
    let steps = json!([
        { "do": "initialize" },
        { "do": "call", "tool": "verify", "args": {} },
        { "do": "call", "tool": "summarize_log", "args": { "path": "secrets.log" } },
        { "do": "call", "tool": "summarize_log", "args": { "text": leaky_log() } },
    ]);
    let out = crate::mcp::client(&project, &steps);
    let verify = out[1]["result"].to_string();
    assert!(verify.contains("leaky"), "{verify}");
    assert_no_secret("the MCP verify result", &verify);
    for step in &out[2..] {
        let result = step["result"].to_string();
        assert!(result.contains("[redacted:"), "{result}");
        assert_no_secret("the MCP summarize_log result", &result);
    }
}

#[test]
fn the_stop_hooks_answer_holds_no_secret() {
    let project = leaky_project();
    let input = json!({
        "session_id": "s1",
        "transcript_path": project.path("transcript.jsonl"),
        "cwd": project.root(),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    })
    .to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .args(["hook", "claude"])
        .env("VERDICT_STATE_DIR", ".verdict")
        .env_remove("CLAUDE_PROJECT_DIR")
        .current_dir(project.root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("a stdin")
                .write_all(input.as_bytes())?;
            child.wait_with_output()
        })
        .expect("verdict hook runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.contains("\"block\""), "{stdout}\n{stderr}");
    assert!(stdout.contains("[redacted:"), "{stdout}");
    assert_no_secret("the hook's answer", &stdout);
    assert_no_secret("the hook's stderr", &stderr);
}

/// An agent that records each prompt it gets in its log directory, changes the project, and
/// prints every secret of the corpus (its session's tail is stored and quoted).
const AGENT: &str = r#"
import os, sys
log = sys.argv[1]
n = len([f for f in os.listdir(log) if f.startswith("prompt-")]) + 1
with open(os.path.join(log, "prompt-%d.txt" % n), "w") as f:
    f.write(sys.stdin.read())
with open("attempt-%d.txt" % n, "w") as f:
    f.write("tried\n")
sys.stdout.write(open("secrets.log").read())
"#;

#[test]
fn the_loops_prompts_events_history_and_state_hold_no_secret() {
    let project = leaky_project();
    let logs = tempfile::tempdir().expect("a temporary directory");
    let agent = logs.path().join("agent.py");
    std::fs::write(&agent, AGENT).expect("write the agent");
    let events = logs.path().join("events.ndjson");
    let command = format!(
        "python3 {} {}",
        crate::r#loop::quote(&agent.to_string_lossy()),
        crate::r#loop::quote(&logs.path().to_string_lossy())
    );
    let verdict = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_verdict"))
            .args(args)
            .env("VERDICT_STATE_DIR", ".verdict")
            .env("PATH", project::path_with_node())
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CI")
            .current_dir(project.root())
            .stdin(Stdio::null())
            .output()
            .expect("verdict runs")
    };
    let run = verdict(&[
        "loop",
        "--task",
        "make the lint pass",
        "--agent",
        &command,
        "--max-attempts",
        "2",
        "--events",
        &events.to_string_lossy(),
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_no_secret("the loop's stdout", &stdout);
    assert_no_secret("the loop's stderr", &stderr);
    let second = std::fs::read_to_string(logs.path().join("prompt-2.txt"))
        .unwrap_or_else(|e| panic!("no second prompt ({e}):\n{stdout}\n{stderr}"));
    assert!(second.contains("[redacted:"), "{second}");
    for n in [1, 2] {
        assert_no_secret_in(&logs.path().join(format!("prompt-{n}.txt")));
    }
    assert_no_secret_in(&events);
    for args in [
        &["history", "--format", "json"][..],
        &["history", "1", "--format", "json"],
        &["history", "1"],
    ] {
        let out = verdict(args);
        assert!(out.status.success(), "verdict {args:?}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert_no_secret(&format!("verdict {}", args.join(" ")), &text);
    }
    let state = project.path(".verdict");
    let databases: Vec<PathBuf> = files_under(&state)
        .into_iter()
        .filter(|f| f.to_string_lossy().contains("state.db"))
        .collect();
    assert!(!databases.is_empty(), "no state database under .verdict");
    for database in databases {
        assert_no_secret_in(&database);
    }
}
