//! End-to-end tests of `verdict mcp` (issue 11, item 1) with a real MCP client: the official
//! Python SDK (`xtask/tools/mcp/requirements.txt`, installed by `cargo xtask tools`) drives the
//! real binary over stdio through `cli/tests/mcp/client.py`, on small projects whose verifiers are
//! the real pytest and `[[verifier]]`s of verdict.toml. The client checks every structured result
//! against the tool's declared `outputSchema` itself; these tests check what the results say,
//! against `verdict run` on the same project. Also `verdict mcp install` for each client, on
//! temporary directories with `HOME` overridden.

use crate::support::project as support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::Project;

/// A second verifier beside pytest: passes, fast, and gives progress a second step.
const NOTES: &str = r#"
[[verifier]]
name = "notes"
kind = "lint"
command = ["sh", "-c", "grep -n TODO calc.py && exit 1; echo clean"]

[[verifier.pattern]]
regex = '^(?P<line>\d+):(?P<message>.*TODO.*)$'
"#;

/// A verifier that outlives any test unless stopped: it writes its process group id (it leads
/// its group), then starts a grandchild that ignores SIGINT (a background job of a
/// non-interactive shell does), and writes the grandchild's pid once it runs.
const SLOW: &str = r#"
[[verifier]]
name = "slow"
kind = "test"
command = ["sh", "-c", "echo $$ > slow.pgid; sleep 300 & echo $! > child.pid; wait"]

[[verifier]]
name = "quick"
kind = "lint"
command = ["sh", "-c", "echo fine"]
"#;

const FAILING_CALC: &str = "def add(a, b):\n    return a - b\n";
const FIXED_CALC: &str = "def add(a, b):\n    return a + b\n";
const TESTS: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";

/// A git repository with pytest (the real one, linked from the tools' venv) and `notes`; its
/// `add` is wrong, so one of its two tests fails.
fn pytest_project() -> Project {
    let project = Project::empty();
    project.write("calc.py", FAILING_CALC);
    project.write("tests/test_calc.py", TESTS);
    project.write(
        "pytest.ini",
        "[pytest]\ntestpaths = tests\npythonpath = .\n",
    );
    project.write("verdict.toml", NOTES);
    project.link_venv();
    project.git_init();
    project
}

/// The venv's Python with the MCP SDK.
fn python() -> PathBuf {
    let python = support::tools().join("mcp-venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run `cargo xtask tools` first (it installs xtask/tools/mcp/requirements.txt)",
        python.display()
    );
    python
}

/// Runs the Python client on `project` with `steps`; returns what it printed for each step.
pub(crate) fn client(project: &Project, steps: &Value) -> Vec<Value> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let output = Command::new(python())
        .arg(&script)
        .arg(steps.to_string())
        .env("VERDICT_BIN", env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .env("VERDICT_PROJECT", project.root())
        .env("PATH", support::path_with_node())
        .stdin(Stdio::null())
        .output()
        .expect("the MCP client starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the MCP client failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        output.status
    );
    assert!(!stderr.contains("panicked"), "verdict panicked:\n{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line from the client"))
        .collect();
    assert_eq!(
        lines.len(),
        steps.as_array().map_or(0, Vec::len),
        "one line per step:\n{stdout}\n{stderr}"
    );
    lines
}

/// The verifier `name` of a structured `verify` result.
fn verifier<'a>(structured: &'a Value, name: &str) -> &'a Value {
    structured["verifiers"]
        .as_array()
        .and_then(|all| all.iter().find(|v| v["name"] == name))
        .unwrap_or_else(|| panic!("no verifier {name} in {structured:#}"))
}

/// Checks a `verify` result: no `isError`, the digest first and within `budget`, then a
/// `resource_link` to each log the structured result names, each a readable file holding
/// `log_holds[verifier]`.
fn check_verify(result: &Value, budget: u64, log_holds: &[(&str, &str)]) -> Value {
    assert_ne!(result["isError"], true, "{result:#}");
    let structured = result["structuredContent"].clone();
    let content = result["content"].as_array().expect("content");
    assert_eq!(content[0]["type"], "text", "{result:#}");
    let tokens = structured["digest"]["tokens"].as_u64().expect("tokens");
    assert!(
        tokens <= budget && structured["digest"]["budget"] == budget,
        "{structured:#}"
    );
    let links: Vec<&Value> = content
        .iter()
        .filter(|c| c["type"] == "resource_link")
        .collect();
    let logs: Vec<&str> = structured["verifiers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["log"].as_str())
        .collect();
    assert_eq!(
        links.iter().map(|l| l["uri"].as_str()).collect::<Vec<_>>(),
        logs.iter().map(|l| Some(*l)).collect::<Vec<_>>(),
        "one resource_link per log: {result:#}"
    );
    for link in &links {
        assert_eq!(link["mimeType"], "text/plain", "{link:#}");
    }
    for (name, needle) in log_holds {
        let uri = verifier(&structured, name)["log"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has no log: {structured:#}"));
        let path = uri.strip_prefix("file://").expect("a file:// URI");
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(
            text.contains(needle),
            "{name}'s log lacks {needle:?}:\n{text}"
        );
    }
    structured
}

/// The first three answers of the session: the server's name and capabilities, the three tools
/// with their schemas, and the verifiers `list_verifiers` says run.
fn check_handshake_and_listing(out: &[Value]) {
    let init = &out[0]["result"];
    assert_eq!(init["serverInfo"]["name"], "verdict", "{init:#}");
    assert!(init["capabilities"]["tools"].is_object(), "{init:#}");

    let tools = out[1]["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["verify", "summarize_log", "list_verifiers"]);
    for tool in tools {
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool:#}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool:#}");
        assert!(tool["description"].as_str().is_some_and(|d| d.len() > 40));
    }
    let verify_tool = &tools[0];
    for field in ["only", "skip", "budget", "failed_first", "changed_only"] {
        assert!(
            verify_tool["inputSchema"]["properties"][field].is_object(),
            "verify takes {field}: {verify_tool:#}"
        );
    }

    let listed = &out[2]["result"]["structuredContent"];
    let runs: Vec<&str> = listed["verifiers"]
        .as_array()
        .expect("verifiers")
        .iter()
        .filter(|v| v["runs"] == true)
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(runs, ["pytest", "notes"], "{listed:#}");
}

/// initialize, tools/list with every schema, list_verifiers, then verify on the failing
/// project: the digest names the failing test, the structured result agrees with `verdict run
/// --format json`, progress comes once per verifier, each log is linked. Then the fix is written
/// and the same (warm) server verifies it as passed, and `changed_only` names what was unchanged.
#[test]
fn a_real_client_verifies_a_failing_then_a_passing_project() {
    let project = pytest_project();
    let steps = json!([
        { "do": "initialize" },
        { "do": "list_tools" },
        { "do": "call", "tool": "list_verifiers" },
        { "do": "call", "tool": "verify", "args": { "budget": 300 } },
        { "do": "write", "file": "calc.py", "text": FIXED_CALC },
        { "do": "call", "tool": "verify", "args": { "budget": 300 } },
        { "do": "write", "file": "calc.py", "text": format!("{FIXED_CALC}# faster\n") },
        { "do": "call", "tool": "verify", "args": { "changed_only": true } },
    ]);
    let out = client(&project, &steps);

    check_handshake_and_listing(&out);

    // The failing project.
    let failing = &out[3];
    let structured = check_verify(
        &failing["result"],
        300,
        &[("pytest", "test_add"), ("notes", "clean")],
    );
    assert_eq!(structured["outcome"], "failed", "{structured:#}");
    assert_eq!(structured["exit_code"], 1);
    let pytest = verifier(&structured, "pytest");
    assert_eq!(pytest["outcome"], "failed");
    assert_eq!(pytest["counts"]["tests_failed"], 1, "{pytest:#}");
    assert_eq!(pytest["counts"]["tests_passed"], 1, "{pytest:#}");
    assert_eq!(verifier(&structured, "notes")["outcome"], "passed");
    let digest = failing["result"]["content"][0]["text"]
        .as_str()
        .expect("the digest");
    assert!(
        digest.contains("test_add") && digest.contains("pytest"),
        "the digest does not name the failing test:\n{digest}"
    );
    // One notification per finished verifier, counting up to the total.
    let progress = failing["progress"].as_array().expect("progress");
    assert_eq!(progress.len(), 2, "{progress:#?}");
    assert_eq!(progress[1]["progress"], 2.0);
    assert!(progress.iter().all(|p| p["total"] == 2.0), "{progress:#?}");
    let mut said: Vec<&str> = progress
        .iter()
        .filter_map(|p| p["message"].as_str())
        .collect();
    said.sort_unstable();
    assert_eq!(said, ["notes: passed", "pytest: failed"]);

    // The fixed project, verified by the same warm server, into a run directory of its own.
    let passing = check_verify(&out[5]["result"], 300, &[("pytest", "2 passed")]);
    assert_ne!(
        verifier(&passing, "pytest")["log"],
        pytest["log"],
        "two calls share a log"
    );
    assert_eq!(passing["outcome"], "passed", "{passing:#}");
    assert_eq!(passing["exit_code"], 0);
    assert_eq!(verifier(&passing, "pytest")["counts"]["tests_passed"], 2);
    assert_eq!(passing["unchanged"], json!([]));

    // A comment changed calc.py, which pytest reads, and `notes` (no `inputs`) always runs: both
    // run again, so nothing is unchanged. `verdict run` agrees with the last result.
    let again = check_verify(&out[7]["result"], 500, &[]);
    assert_eq!(again["outcome"], "passed", "{again:#}");
    assert_eq!(again["unchanged"], json!([]), "{again:#}");
    let cli = project.verdict(&["run", "--format", "json"]);
    let report = cli.json();
    assert_eq!(report["outcome"], again["outcome"], "{}", cli.all());
    assert_eq!(report["exit_code"], again["exit_code"]);
    for verification in report["verifications"].as_array().expect("verifications") {
        let name = verification["verifier"].as_str().expect("a name");
        assert_eq!(
            verification["report"]["counts"],
            verifier(&again, name)["counts"],
            "{name}"
        );
    }
}

/// `changed_only`: after a pass, a change to one verifier's inputs only reports that verifier;
/// the other's pass, replayed from the cache, is named in `unchanged`.
#[test]
fn changed_only_reports_only_the_verifiers_whose_inputs_changed() {
    let project = pytest_project();
    project.write("calc.py", FIXED_CALC);
    // `notes` now depends on calc.py alone, so its pass is cached while calc.py is unchanged.
    project.write(
        "verdict.toml",
        &NOTES.replace(
            "kind = \"lint\"\n",
            "kind = \"lint\"\ninputs = [\"calc.py\"]\n",
        ),
    );
    let steps = json!([
        { "do": "call", "tool": "verify" },
        { "do": "write", "file": "tests/test_more.py", "text": "def test_more():\n    assert True\n" },
        { "do": "call", "tool": "verify", "args": { "changed_only": true } },
    ]);
    let out = client(&project, &steps);
    let first = check_verify(&out[0]["result"], 500, &[]);
    assert_eq!(first["outcome"], "passed", "{first:#}");
    let second = check_verify(&out[2]["result"], 500, &[]);
    assert_eq!(second["outcome"], "passed", "{second:#}");
    let reported: Vec<&str> = second["verifiers"]
        .as_array()
        .expect("verifiers")
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(reported, ["pytest"], "{second:#}");
    assert_eq!(second["unchanged"], json!(["notes"]), "{second:#}");
    assert_eq!(verifier(&second, "pytest")["counts"]["tests_passed"], 3);
}

/// summarize_log on a captured log, by path and as text, and errors of verdict itself as
/// `isError` results (an unknown verifier, both path and text), while a failing log (a file of
/// the workspace) is a normal result.
#[test]
fn summarize_log_and_what_verdict_cannot_do() {
    let project = pytest_project();
    let log = support::repo().join("summarizers/testdata/pytest");
    let failing = std::fs::read_dir(&log)
        .expect("captured pytest logs (cargo xtask capture)")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.extension().is_some_and(|x| x == "log")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("failing"))
        })
        .expect("a captured failing pytest log");
    let text = std::fs::read_to_string(&failing).expect("the log");
    // summarize_log reads only inside the workspace: the log is copied into the project.
    project.write("logs/pytest.log", &text);
    let path = "logs/pytest.log".to_owned();
    let steps = json!([
        { "do": "call", "tool": "summarize_log", "args": { "path": path, "budget": 120 } },
        { "do": "call", "tool": "summarize_log", "args": { "text": text, "tool": "pytest" } },
        { "do": "call", "tool": "summarize_log", "args": { "text": "x", "path": path } },
        { "do": "call", "tool": "verify", "args": { "only": ["no-such-verifier"] } },
    ]);
    let out = client(&project, &steps);
    let cli = project.verdict(&["summarize", "--format", "json", &path]);
    let by_path = &out[0]["result"];
    assert_ne!(by_path["isError"], true, "{by_path:#}");
    assert_eq!(by_path["structuredContent"]["outcome"], "failed");
    assert_eq!(by_path["structuredContent"]["exit_code"], cli.code);
    assert_eq!(
        by_path["structuredContent"]["reports"][0]["counts"],
        cli.json()["counts"],
        "{by_path:#}"
    );
    let digest = by_path["content"][0]["text"].as_str().expect("a digest");
    assert!(digest.contains("pytest"), "{digest}");
    let by_text = &out[1]["result"]["structuredContent"];
    assert_eq!(by_text["reports"][0]["counts"], cli.json()["counts"]);
    for (i, needle) in [(2, "path"), (3, "no-such-verifier")] {
        let result = &out[i]["result"];
        assert_eq!(result["isError"], true, "{result:#}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(needle), "{text}");
    }
}

/// A cancel from the client in the middle of a slow verifier stops its whole process group
/// (the shell and its grandchild, a background job that ignores SIGINT) at once; the server then
/// goes on answering, and verifies again.
#[test]
fn a_cancel_stops_the_tools_process_group() {
    let project = Project::empty();
    project.write("verdict.toml", SLOW);
    let steps = json!([
        { "do": "initialize" },
        { "do": "cancel", "tool": "verify", "when_file": "child.pid", "group_file": "slow.pgid" },
        { "do": "call", "tool": "list_verifiers" },
        { "do": "call", "tool": "verify", "args": { "only": ["quick"] } },
    ]);
    let out = client(&project, &steps);
    let cancel = &out[1];
    assert_eq!(cancel["started"], true, "{cancel:#}");
    assert_eq!(cancel["finished_before_cancel"], false, "{cancel:#}");
    let members = cancel["members_at_cancel"].as_array().expect("members");
    assert!(members.len() >= 2, "the shell and sleep: {cancel:#}");
    assert_eq!(cancel["members_left"], json!([]), "{cancel:#}");
    // SIGINT ends the shell at once, and the runner stops what is left of a group whose leader
    // exited within its leak timeout (100 ms): well before the 5 s grace, and long before the
    // call would give up waiting (12 s) and drop the runner, whose guard kills the group too.
    assert!(
        cancel["seconds_to_stop"].as_f64().is_some_and(|s| s < 4.0),
        "{cancel:#}"
    );
    let child: i32 = project.read("child.pid").trim().parse().expect("a pid");
    assert!(
        !Path::new(&format!("/proc/{child}")).exists() || is_zombie(child),
        "the grandchild {child} outlived the cancel"
    );
    assert_ne!(out[2]["result"]["isError"], true, "{:#}", out[2]);
    let after = check_verify(&out[3]["result"], 500, &[]);
    assert_eq!(after["outcome"], "passed", "{after:#}");
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit(')')
                .next()
                .map(|r| r.trim_start().starts_with('Z'))
        })
        .unwrap_or(true)
}

/// Runs `verdict mcp install ARGS` in `cwd` with `HOME` set to `home`.
fn install(cwd: &Path, home: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(["mcp", "install"])
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("CODEX_HOME")
        .output()
        .expect("verdict starts");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "verdict mcp install {args:?}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The verdict binary, as the entries must name it.
fn binary() -> PathBuf {
    std::fs::canonicalize(env!("CARGO_BIN_EXE_verdict")).expect("the binary")
}

fn same_binary(command: &Value) -> bool {
    command.as_str().is_some_and(|c| {
        Path::new(c).is_absolute() && std::fs::canonicalize(c).ok() == Some(binary())
    })
}

/// Each JSON client, at each scope: the entry in the client's format, every other key of an
/// existing file kept, and a second install that changes nothing.
#[test]
fn install_writes_each_json_clients_entry_and_keeps_the_rest() {
    for (client, project_file, user_file) in [
        ("claude", ".mcp.json", ".claude.json"),
        ("cursor", ".cursor/mcp.json", ".cursor/mcp.json"),
        ("gemini", ".gemini/settings.json", ".gemini/settings.json"),
    ] {
        for scope in ["project", "user"] {
            let home = tempfile::tempdir().expect("a home");
            let project = Project::empty();
            project.git_init();
            project.write("src/main.py", "");
            let path = match scope {
                "project" => project.path(project_file),
                _ => home.path().join(user_file),
            };
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("a directory");
            // Keys out of alphabetical order, which a sorted map would reorder.
            let before_text = r#"{"theme": "dark", "mcpServers": {"other": {"command": "other-server", "args": []}}, "autoUpdates": false}"#;
            let before: Value = serde_json::from_str(before_text).expect("JSON");
            std::fs::write(&path, before_text).expect("write the config");
            // From a subdirectory: the project's entry goes to its root.
            let said = install(
                &project.path("src"),
                home.path(),
                &[client, "--scope", scope],
            );
            assert!(said.contains("added"), "{client} {scope}: {said}");
            let text = std::fs::read_to_string(&path).expect("the config");
            let written: Value = serde_json::from_str(&text).expect("JSON");
            assert_eq!(written["theme"], "dark", "{client} {scope}: {text}");
            let at = |key: &str| text.find(&format!("\"{key}\"")).expect(key);
            assert!(
                at("theme") < at("mcpServers") && at("mcpServers") < at("autoUpdates"),
                "{client} {scope}: keys keep their order: {text}"
            );
            assert!(at("other") < at("verdict"), "{client} {scope}: {text}");
            assert_eq!(
                written["mcpServers"]["other"],
                before["mcpServers"]["other"]
            );
            let entry = &written["mcpServers"]["verdict"];
            // A project's config is shared with the team: an absolute path of this machine
            // would start nothing on another.
            match scope {
                "project" => assert_eq!(entry["command"], "verdict", "{client}: {text}"),
                _ => assert!(same_binary(&entry["command"]), "{client} {scope}: {text}"),
            }
            assert_eq!(entry["args"], json!(["mcp"]), "{client} {scope}");
            match client {
                "gemini" => assert_eq!(entry["timeout"], 600_000),
                _ => assert_eq!(entry["type"], "stdio"),
            }
            let said = install(
                &project.path("src"),
                home.path(),
                &[client, "--scope", scope],
            );
            assert!(said.contains("nothing changed"), "{client} {scope}: {said}");
            assert_eq!(std::fs::read_to_string(&path).expect("the config"), text);
        }
    }
}

/// Codex's TOML: `[mcp_servers.verdict]` with a tool timeout that lets a test suite finish,
/// in `$CODEX_HOME` or `~/.codex`, and the file's comments and other tables kept.
#[test]
fn install_writes_codexs_toml_and_keeps_its_comments() {
    let home = tempfile::tempdir().expect("a home");
    let config = home.path().join(".codex/config.toml");
    std::fs::create_dir_all(config.parent().expect("a parent")).expect("a directory");
    let before =
        "# my settings\nmodel = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # keep\n";
    std::fs::write(&config, before).expect("write the config");
    let said = install(home.path(), home.path(), &["codex", "--scope", "user"]);
    assert!(said.contains("added"), "{said}");
    let text = std::fs::read_to_string(&config).expect("the config");
    assert!(
        text.starts_with(before),
        "the rest of the file changed:\n{text}"
    );
    let parsed: toml::Table = text.parse().expect("TOML");
    let entry = &parsed["mcp_servers"]["verdict"];
    assert!(same_binary(&json!(entry["command"].as_str())), "{text}");
    assert_eq!(entry["args"].as_array().map(Vec::len), Some(1), "{text}");
    assert_eq!(entry["tool_timeout_sec"].as_integer(), Some(600), "{text}");
    let said = install(home.path(), home.path(), &["codex", "--scope", "user"]);
    assert!(said.contains("nothing changed"), "{said}");
    assert_eq!(std::fs::read_to_string(&config).expect("the config"), text);

    // The project's .codex/config.toml, created.
    let project = Project::empty();
    project.git_init();
    install(project.root(), home.path(), &["codex"]);
    let parsed: toml::Table = project.read(".codex/config.toml").parse().expect("TOML");
    assert_eq!(
        parsed["mcp_servers"]["verdict"]["command"].as_str(),
        Some("verdict")
    );
}

/// The project's entry, `verdict mcp` from the `PATH` as a client starts it (no shell), answers
/// `initialize` on a machine where verdict is installed anywhere on the `PATH`.
#[test]
fn a_projects_entry_starts_verdict_from_the_path() {
    let home = tempfile::tempdir().expect("a home");
    let project = Project::empty();
    project.git_init();
    install(project.root(), home.path(), &["claude"]);
    let written: Value = serde_json::from_str(&project.read(".mcp.json")).expect("JSON");
    let entry = &written["mcpServers"]["verdict"];
    let bin = tempfile::tempdir().expect("a bin dir");
    std::os::unix::fs::symlink(binary(), bin.path().join("verdict")).expect("link verdict");
    let args: Vec<&str> = entry["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let command = entry["command"].as_str().expect("a command");
    // The lookup a client makes: the command's name in the `PATH` it starts servers with.
    let found = bin.path().join(command);
    assert!(found.is_file(), "{command} is not found in the PATH");
    let mut child = Command::new(&found)
        .args(&args)
        .current_dir(project.root())
        .env("VERDICT_STATE_DIR", ".verdict")
        .env("PATH", bin.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    writeln!(child.stdin.take().expect("stdin"), "{request}").expect("write");
    let output = child.wait_with_output().expect("the server ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answer: Value = serde_json::from_str(stdout.lines().next().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no JSON answer ({e}): {stdout}{output:?}"));
    assert_eq!(answer["id"], 1, "{answer:#}");
    assert!(answer["result"]["serverInfo"].is_object(), "{answer:#}");
}

/// At a monorepo's root, `list_verifiers` names the packages a run there leaves out, and
/// `verify` says so in its `note`, as `verdict list` and `verdict run` do.
#[test]
fn a_monorepo_root_names_the_packages_verify_leaves_out() {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"private": true, "workspaces": ["packages/*"]}"#,
    );
    project.write(
        "packages/a/package.json",
        r#"{"name": "a", "scripts": {"test": "jest"}, "devDependencies": {"jest": "^30.0.0"}}"#,
    );
    project.write("verdict.toml", SLOW);
    let steps = json!([
        { "do": "call", "tool": "list_verifiers" },
        { "do": "call", "tool": "verify", "args": { "skip": ["slow"] } },
    ]);
    let out = client(&project, &steps);
    let listed = &out[0]["result"]["structuredContent"];
    let packages = listed["uncovered_packages"].as_array().expect("packages");
    assert_eq!(packages.len(), 1, "{listed:#}");
    assert_eq!(packages[0]["dir"], "packages/a", "{listed:#}");
    assert!(
        packages[0]["verifiers"]
            .as_array()
            .is_some_and(|v| v.contains(&json!("jest"))),
        "{listed:#}"
    );
    assert!(
        listed["config"]
            .as_str()
            .is_some_and(|c| c.ends_with("verdict.toml")),
        "{listed:#}"
    );
    let verified = check_verify(&out[1]["result"], 500, &[]);
    assert_eq!(verified["outcome"], "passed", "{verified:#}");
    assert!(
        verified["note"]
            .as_str()
            .is_some_and(|n| n.contains("packages/a (jest")),
        "{verified:#}"
    );
}

/// `failed_first`: the failing test alone runs first; while it fails, the full run is skipped,
/// and once it passes the suite runs in full, as with `verdict run --failed-first`.
#[test]
fn failed_first_reruns_the_failed_test_before_the_suite() {
    let project = pytest_project();
    let steps = json!([
        { "do": "call", "tool": "verify" },
        { "do": "call", "tool": "verify", "args": { "failed_first": true, "only": ["pytest"] } },
        { "do": "write", "file": "calc.py", "text": FIXED_CALC },
        { "do": "call", "tool": "verify", "args": { "failed_first": true, "only": ["pytest"] } },
    ]);
    let out = client(&project, &steps);
    assert_eq!(
        check_verify(&out[0]["result"], 500, &[])["outcome"],
        "failed"
    );
    let still = check_verify(&out[1]["result"], 500, &[("pytest", "test_add")]);
    let pytest = verifier(&still, "pytest");
    assert_eq!(still["outcome"], "failed", "{still:#}");
    assert_eq!(pytest["counts"]["tests_failed"], 1, "{pytest:#}");
    assert_ne!(
        pytest["counts"]["tests_passed"], 1,
        "test_zero ran: {pytest:#}"
    );
    assert!(
        pytest["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("re-ran 1 failed test first; they still fail")),
        "{pytest:#}"
    );
    let fixed = check_verify(&out[3]["result"], 500, &[]);
    let pytest = verifier(&fixed, "pytest");
    assert_eq!(fixed["outcome"], "passed", "{fixed:#}");
    assert_eq!(pytest["counts"]["tests_passed"], 2, "{pytest:#}");
    assert!(
        pytest["notes"][0]
            .as_str()
            .is_some_and(|n| n.ends_with("they pass now, then ran in full")),
        "{pytest:#}"
    );
}

/// A verifier whose output holds a secret, beside eslint.
const LEAKY: &str = r#"
[[verifier]]
name = "leaky"
kind = "lint"
command = ["sh", "-c", "echo 'DATABASE_PASSWORD=hunter2MkdW9o'; echo 'error: leaked'; exit 1"]

[[verifier.pattern]]
regex = '^error: (?P<message>.*)$'
"#;

/// The reads of each link over the protocol: two, each the whole file, redacted.
fn check_reads(read_links: &Value) {
    let reads = read_links["reads"].as_array().expect("reads");
    assert_eq!(reads.len(), 2, "{read_links:#}");
    for read in reads {
        let contents = read["result"]["contents"]
            .as_array()
            .unwrap_or_else(|| panic!("no contents: {read:#}"));
        let text = contents[0]["text"].as_str().expect("text");
        assert_eq!(contents[0]["uri"], read["uri"], "{read:#}");
        assert!(
            !text.contains("hunter2MkdW9o"),
            "a secret was served: {text}"
        );
    }
    let texts: Vec<&str> = reads
        .iter()
        .filter_map(|r| r["result"]["contents"][0]["text"].as_str())
        .collect();
    assert!(
        texts.iter().any(|t| t.contains("no-unused-vars")),
        "{texts:#?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("DATABASE_PASSWORD=[redacted")),
        "{texts:#?}"
    );
}

/// eslint's log was an empty file (its findings go to `eslint.json`), and `verify` linked it
/// with `size: 0`; a client could not read a link over the protocol (`resources/read` was
/// -32601). Now every link names a file that holds the tool's output, the server offers
/// `resources`, lists the newest run's files and serves them redacted, and nothing outside the
/// runs directory.
#[test]
fn every_log_link_holds_the_output_and_reads_over_the_protocol() {
    let project = Project::empty();
    project.write("package.json", r#"{"name": "links", "private": true}"#);
    project.write(
        "eslint.config.mjs",
        "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error' } }];\n",
    );
    project.write("src/a.js", "const unused = 1;\n");
    project.write("verdict.toml", LEAKY);
    project.write("secret.txt", "DATABASE_PASSWORD=hunter2MkdW9o\n");
    project.link_node_modules();
    project.git_init();
    let outside = format!("file://{}/secret.txt", project.root().display());
    let steps = json!([
        { "do": "initialize" },
        { "do": "call", "tool": "verify", "args": { "only": ["eslint", "leaky"] } },
        { "do": "read_links" },
        { "do": "list_resources" },
        { "do": "read_resource", "uri": outside },
        { "do": "read_resource", "uri": "file:///etc/passwd" },
        { "do": "read_resource", "uri": "https://example.com/x.log" },
    ]);
    let out = client(&project, &steps);
    assert!(
        out[0]["result"]["capabilities"]["resources"].is_object(),
        "{:#}",
        out[0]
    );

    let result = &out[1]["result"];
    assert_ne!(result["isError"], true, "{result:#}");
    let structured = &result["structuredContent"];
    assert_eq!(
        verifier(structured, "eslint")["outcome"],
        "failed",
        "{structured:#}"
    );
    let links: Vec<&Value> = result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter(|c| c["type"] == "resource_link")
        .collect();
    assert_eq!(links.len(), 2, "{result:#}");
    for link in &links {
        let uri = link["uri"].as_str().expect("a uri");
        let path = uri.strip_prefix("file://").expect("a file:// URI");
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        assert!(size > 0, "{uri} is empty: {link:#}");
        assert_eq!(link["size"], size, "{link:#}");
    }
    let eslint_link = verifier(structured, "eslint")["log"]
        .as_str()
        .expect("eslint's log");
    let eslint_path = eslint_link.strip_prefix("file://").expect("a file:// URI");
    assert!(
        std::fs::read_to_string(eslint_path)
            .expect("eslint's log")
            .contains("no-unused-vars"),
        "{eslint_link} does not hold eslint's findings"
    );
    // The digest's footer names the same file.
    let digest = result["content"][0]["text"].as_str().expect("the digest");
    let file = Path::new(eslint_path)
        .file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned();
    assert!(
        digest.contains(&file),
        "the digest does not name {file}:\n{digest}"
    );

    // Each link reads over the protocol: the whole file, redacted.
    check_reads(&out[2]);

    // The newest run's files are listed, the linked ones among them.
    let listed: Vec<&str> = out[3]["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    for link in &links {
        assert!(
            listed.contains(&link["uri"].as_str().expect("uri")),
            "{listed:#?}"
        );
    }

    // Nothing outside the runs directory, not even the project's own files.
    for refused in &out[4..] {
        assert!(refused["error"]["code"].is_i64(), "{refused:#}");
        assert!(refused.get("result").is_none(), "{refused:#}");
    }
}

/// The names of the failing tests a `verify` result's digest names, among `names`.
fn named<'a>(result: &Value, names: &[&'a str]) -> Vec<&'a str> {
    let digest = result["content"][0]["text"].as_str().unwrap_or_default();
    names
        .iter()
        .copied()
        .filter(|name| digest.contains(name))
        .collect()
}

/// The verifiers a scoped result did not run, by name, with their reasons.
fn not_run(structured: &Value) -> Vec<(String, String)> {
    structured["scope"]["not_run"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            let text = |key: &str| n[key].as_str().unwrap_or_default().to_owned();
            (text("verifier"), text("reason"))
        })
        .collect()
}

/// A jest project with two source files, each with its own test file holding one passing and
/// one failing test, a third source file no test imports, and `notes`, which cannot be scoped.
fn jest_project() -> Project {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "scoped", "private": true, "scripts": {"test": "jest"}, "devDependencies": {"jest": "*"}}"#,
    );
    for name in ["a", "b"] {
        project.write(
            &format!("src/{name}.js"),
            &format!("exports.{name} = () => '{name}';\n"),
        );
        project.write(
            &format!("test/{name}.test.js"),
            &format!(
                "const {{ {name} }} = require('../src/{name}');\n\
                 test('{name} works', () => expect({name}()).toBe('{name}'));\n\
                 test('{name} is broken', () => expect({name}()).toBe('not {name}'));\n"
            ),
        );
    }
    project.write("src/c.js", "exports.c = 3;\n");
    project.write("calc.py", FIXED_CALC);
    project.write("verdict.toml", NOTES);
    project.link_node_modules();
    project.git_init();
    project
}

/// `verify` with `files` on a jest project runs only the tests related to the files (jest's
/// `--findRelatedTests`): src/a.js runs test/a.test.js alone, whose two tests are the whole
/// count (checked against the JSON report jest wrote), and b's failure is absent. `notes`,
/// which cannot be scoped, is named as not run. A file no test imports runs nothing, which is
/// no pass; a path outside the project is an error.
#[test]
fn files_run_only_the_related_jest_tests() {
    let project = jest_project();
    let outside = project.root().join("../elsewhere.js").display().to_string();
    let steps = json!([
        { "do": "call", "tool": "verify", "args": { "files": ["src/a.js"] } },
        { "do": "call", "tool": "verify", "args": { "files": ["src/c.js", "src/gone.js"] } },
        { "do": "call", "tool": "verify", "args": { "files": [outside] } },
        { "do": "call", "tool": "verify", "args": { "files": ["/etc/passwd"] } },
    ]);
    let out = client(&project, &steps);

    let scoped = check_verify(&out[0]["result"], 500, &[("jest", "a.test.js")]);
    assert_eq!(scoped["outcome"], "failed", "{scoped:#}");
    let jest = verifier(&scoped, "jest");
    assert_eq!(jest["scope"], "related_tests", "{jest:#}");
    assert_eq!(jest["counts"]["tests_passed"], 1, "{jest:#}");
    assert_eq!(jest["counts"]["tests_failed"], 1, "{jest:#}");
    assert_eq!(
        named(&out[0]["result"], &["a is broken", "b is broken"]),
        ["a is broken"]
    );
    // jest's own count, from the report it wrote beside its log.
    let log = jest["log"].as_str().and_then(|l| l.strip_prefix("file://"));
    let dir = Path::new(log.expect("a log"))
        .parent()
        .expect("the run dir");
    let own: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("jest.json")).expect("jest's JSON report"),
    )
    .expect("JSON");
    assert_eq!(own["numTotalTests"], 2, "{own:#}");
    assert_eq!(own["numTotalTestSuites"], 1, "{own:#}");
    let suite = own["testResults"][0]["name"].as_str().unwrap_or_default();
    assert!(suite.ends_with("test/a.test.js"), "{suite}");
    assert_eq!(scoped["scope"]["files"], json!(["src/a.js"]), "{scoped:#}");
    assert_eq!(
        not_run(&scoped),
        [(
            "notes".to_owned(),
            "cannot scope to files; run verify without files".to_owned()
        )]
    );
    let digest = out[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        digest.contains("scoped to 1 file (src/a.js), not the whole project")
            && digest.contains("not run: notes — cannot scope to files"),
        "{digest}"
    );

    // No test imports src/c.js: jest ran nothing, which is said and is not a pass.
    let nothing = check_verify(&out[1]["result"], 500, &[]);
    assert_eq!(nothing["verifiers"], json!([]), "{nothing:#}");
    assert_eq!(nothing["outcome"], "errored", "{nothing:#}");
    assert!(
        not_run(&nothing).contains(&(
            "jest".to_owned(),
            "it found no test related to the files".to_owned()
        )),
        "{nothing:#}"
    );
    assert_eq!(
        nothing["scope"]["missing"],
        json!([{ "file": "src/gone.js", "reason": "does not exist" }])
    );

    for (i, path) in [(2, "elsewhere.js"), (3, "/etc/passwd")] {
        let result = &out[i]["result"];
        assert_eq!(result["isError"], true, "{result:#}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains(path) && text.contains("outside the project"),
            "{text}"
        );
    }
}

/// A second pytest file beside tests/test_calc.py, with a failing test of its own.
const OTHER_TESTS: &str =
    "def test_other_passes():\n    assert True\n\n\ndef test_other_fails():\n    assert 1 == 2\n";

/// `verify` with `files` on a pytest project: a test file runs alone, a node id runs that test
/// alone, a source file runs nothing (pytest has no standard map from a source file to its
/// tests) and says so. A scoped run leaves the cache alone: its pass is not the project's (the
/// whole run after it runs pytest again, and fails), and its failures do not replace the whole
/// run's as what `failed_first` re-runs.
#[test]
fn files_run_pytest_by_test_file_and_node_id() {
    let project = pytest_project();
    project.write("tests/test_other.py", OTHER_TESTS);
    project.git(&["add", "-A"]);
    let steps = json!([
        { "do": "call", "tool": "verify", "args": { "files": ["tests/test_calc.py"] } },
        { "do": "call", "tool": "verify", "args": { "files": ["tests/test_other.py::test_other_fails"] } },
        { "do": "call", "tool": "verify", "args": { "files": ["calc.py"] } },
        { "do": "call", "tool": "verify", "args": { "files": ["tests/test_calc.py::test_zero"] } },
        { "do": "call", "tool": "verify", "args": { "only": ["pytest"] } },
        { "do": "call", "tool": "verify", "args": { "files": ["tests/test_other.py::test_other_fails"] } },
        { "do": "call", "tool": "verify", "args": { "failed_first": true, "only": ["pytest"] } },
    ]);
    let out = client(&project, &steps);
    let failures = ["test_add", "test_other_fails"];

    let by_file = check_verify(&out[0]["result"], 500, &[("pytest", "test_calc.py")]);
    let pytest = verifier(&by_file, "pytest");
    assert_eq!(pytest["scope"], "related_tests", "{pytest:#}");
    assert_eq!(pytest["counts"]["tests_passed"], 1, "{pytest:#}");
    assert_eq!(pytest["counts"]["tests_failed"], 1, "{pytest:#}");
    assert_eq!(named(&out[0]["result"], &failures), ["test_add"]);
    assert_eq!(by_file["outcome"], "failed", "{by_file:#}");

    let by_id = check_verify(&out[1]["result"], 500, &[]);
    let pytest = verifier(&by_id, "pytest");
    assert_eq!(pytest["counts"]["tests_failed"], 1, "{pytest:#}");
    assert_eq!(
        pytest["counts"]["tests_passed"].as_u64().unwrap_or(0),
        0,
        "{pytest:#}"
    );
    assert_eq!(named(&out[1]["result"], &failures), ["test_other_fails"]);

    let source = check_verify(&out[2]["result"], 500, &[]);
    assert_eq!(source["verifiers"], json!([]), "{source:#}");
    assert_eq!(source["outcome"], "errored", "{source:#}");
    let reasons = not_run(&source);
    assert!(
        reasons
            .iter()
            .any(|(v, why)| v == "pytest" && why.contains("no standard way")),
        "{source:#}"
    );

    let zero = check_verify(&out[3]["result"], 500, &[]);
    assert_eq!(zero["outcome"], "passed", "{zero:#}");
    assert_eq!(verifier(&zero, "pytest")["counts"]["tests_passed"], 1);
    let digest = out[3]["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(digest.contains("not the whole project"), "{digest}");
    let whole = check_verify(&out[4]["result"], 500, &[]);
    let pytest = verifier(&whole, "pytest");
    assert_eq!(pytest["status"], "ran", "{pytest:#}");
    assert_eq!(whole["outcome"], "failed", "{whole:#}");
    assert_eq!(pytest["counts"]["tests_failed"], 2, "{pytest:#}");
    assert!(whole.get("scope").is_none(), "{whole:#}");
    // The whole run's two failures are re-run first, not the scoped run's one.
    let again = check_verify(&out[6]["result"], 500, &[]);
    let pytest = verifier(&again, "pytest");
    assert!(
        pytest["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("re-ran 2 failed tests first; they still fail")),
        "{pytest:#}"
    );
}
