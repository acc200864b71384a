//! Bounded and contained (issue 22, items 3 and 5): what verdict reads stays in its workspace and
//! is a regular file, a message or an input too large is refused with a clear answer instead of
//! being held or waited on, and what verdict keeps is capped and the owner's only. Each test runs
//! the real binary, with a deadline of its own, so that a regression fails rather than hangs.

use crate::support::project::{self as support, Project};

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Longer than any refusal takes, far shorter than a read that never ends.
const AT_ONCE: Duration = Duration::from_secs(20);

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_verdict"))
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo starts");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// `verdict summarize FILE` refuses what is not a regular file at once: `/dev/zero` was read for
/// ever, a FIFO was waited on for ever. stdin (`-`) is still read.
#[test]
fn summarize_refuses_devices_fifos_and_directories_at_once() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let fifo = temp.path().join("pipe.log");
    mkfifo(&fifo);
    for (path, what) in [
        (PathBuf::from("/dev/zero"), "character device"),
        (fifo, "FIFO"),
        (temp.path().to_path_buf(), "directory"),
    ] {
        let started = Instant::now();
        let output = assert_cmd::Command::new(binary())
            .env("VERDICT_STATE_DIR", ".verdict")
            .current_dir(temp.path())
            .arg("summarize")
            .arg(&path)
            .timeout(AT_ONCE)
            .output()
            .expect("verdict runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{}: {stderr} after {:?}",
            path.display(),
            started.elapsed()
        );
        assert!(
            stderr.contains(what) && stderr.contains("not a regular file"),
            "{}: {stderr}",
            path.display()
        );
    }
    let output = assert_cmd::Command::new(binary())
        .env("VERDICT_STATE_DIR", ".verdict")
        .current_dir(temp.path())
        .args(["summarize", "--tool", "tsc", "-"])
        .write_stdin(
            "src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
        )
        .timeout(AT_ONCE)
        .output()
        .expect("verdict runs");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}

/// A `verdict mcp` driven line by line, each answer waited for up to a deadline.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
}

impl Server {
    /// Starts `verdict mcp -C dir` and completes the handshake.
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(binary())
            .args(["mcp", "-C"])
            .arg(dir)
            .env("VERDICT_STATE_DIR", ".verdict")
            .env("PATH", support::path_with_node())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
                if sender.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut server = Server {
            child,
            stdin,
            lines,
        };
        server.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bounds", "version": "1"}}}),
        );
        let answer = server.answer(0);
        assert!(answer["result"]["serverInfo"].is_object(), "{answer:#}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write a message");
        stdin.flush().expect("flush");
    }

    /// The answer to request `id`, skipping notifications; panics after [`AT_ONCE`].
    fn answer(&mut self, id: i64) -> Value {
        let deadline = Instant::now() + AT_ONCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line["id"] == id => return line,
                Ok(_) => {}
                Err(_) => panic!("no answer to request {id} within {AT_ONCE:?}"),
            }
        }
    }

    /// `summarize_log` of `path`: its result.
    fn summarize(&mut self, id: i64, path: &str) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "summarize_log", "arguments": {"path": path}}}),
        );
        self.answer(id)["result"].clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + AT_ONCE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text of an `isError` result.
fn refusal(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result:#}");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// `summarize_log` returned the lines of a mode-600 file outside the workspace (`../o.log`, an
/// absolute path, a symlink pointing out); each is now an `isError` result saying why, while a
/// log inside the workspace is read. A FIFO, a directory and `/dev/zero` are refused at once.
#[test]
fn mcp_summarize_log_stays_in_its_workspace() {
    let temp = tempfile::tempdir().expect("a temp dir");
    let outer = temp.path().canonicalize().expect("canonical");
    let project = outer.join("project");
    std::fs::create_dir_all(project.join("logs")).expect("mkdir");
    let secret = outer.join("o.log");
    std::fs::write(
        &secret,
        "src/secret.ts(1,1): error TS1005: hunter2-is-the-password expected.\n",
    )
    .expect("write");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    std::os::unix::fs::symlink(&secret, project.join("logs/link.log")).expect("symlink");
    std::fs::write(
        project.join("logs/tsc.log"),
        "src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
    )
    .expect("write");
    mkfifo(&project.join("logs/pipe.log"));

    let mut server = Server::start(&project);
    let inside = server.summarize(1, "logs/tsc.log");
    assert_ne!(inside["isError"], true, "{inside:#}");

    let absolute = secret.to_string_lossy().into_owned();
    for (id, path) in [
        (2, "../o.log"),
        (3, absolute.as_str()),
        (4, "logs/link.log"),
    ] {
        let result = server.summarize(id, path);
        let text = refusal(&result);
        assert!(text.contains("outside the workspace"), "{path}: {text}");
        assert!(
            !result.to_string().contains("hunter2"),
            "{path}: {result:#}"
        );
    }
    for (id, path, what) in [
        (5, "logs/pipe.log", "FIFO"),
        (6, "logs", "directory"),
        (7, "/dev/zero", "outside the workspace"),
    ] {
        let started = Instant::now();
        let text = refusal(&server.summarize(id, path));
        assert!(text.contains(what), "{path}: {text}");
        assert!(started.elapsed() < AT_ONCE, "{path}");
    }
}

/// A request of 16 MiB or more got no answer at all (the SDK drops the line): the client waited
/// for ever. It now gets a JSON-RPC error with its id, and the next request is served.
#[test]
fn mcp_oversized_request_gets_an_error_and_the_next_is_served() {
    let project = Project::empty();
    project.write("logs/tsc.log", "src/a.ts(1,7): error TS2322: Bad.\n");
    let mut server = Server::start(project.root());
    let text = "x".repeat(17 * 1024 * 1024);
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "summarize_log", "arguments": {"text": text, "tool": "tsc"}}});
    let mut stdin = server.stdin.take().expect("stdin");
    // Written by a thread of its own: the server reads it while the test waits for answers.
    let writer = std::thread::spawn(move || {
        writeln!(stdin, "{big}").expect("write the large request");
        let next = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        writeln!(stdin, "{next}").expect("write the next request");
        stdin.flush().expect("flush");
        stdin
    });
    let error = server.answer(1);
    assert_eq!(error["error"]["code"], -32600, "{error:#}");
    let message = error["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("16 MiB"), "{message}");
    let next = server.answer(2);
    assert!(next["result"]["tools"].is_array(), "{next:#}");
    server.stdin = Some(writer.join().expect("the writer"));
    let after = server.summarize(3, "logs/tsc.log");
    assert_ne!(after["isError"], true, "{after:#}");
}

/// The hook read stdin whole (400 MB in, 790 MB resident): past its limit it stops reading and
/// lets the agent stop with a message that says why, as every error of verdict does.
#[test]
fn hook_stdin_over_the_limit_fails_open_and_says_so() {
    let project = Project::empty();
    let mut child = Command::new(binary())
        .args(["hook", "claude"])
        .current_dir(project.root())
        .env("VERDICT_STATE_DIR", ".verdict")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hook starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let cwd = project.root().to_string_lossy().into_owned();
    std::thread::spawn(move || {
        let head = format!(r#"{{"session_id":"s","cwd":{cwd:?},"padding":""#);
        let _ = stdin.write_all(head.as_bytes());
        let chunk = vec![b'x'; 1024 * 1024];
        // Until the hook stops reading (EPIPE), at most 64 MiB.
        for _ in 0..64 {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
        let _ = stdin.write_all(b"\"}\n");
    });
    let started = Instant::now();
    let output = loop {
        if let Ok(Some(_)) = child.try_wait() {
            break child.wait_with_output().expect("the output");
        }
        if started.elapsed() > AT_ONCE * 3 {
            let _ = child.kill();
            panic!("the hook did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let answer: Value = serde_json::from_slice(&output.stdout).expect("a JSON answer");
    assert_eq!(answer.get("decision"), None, "{answer:#}");
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("larger than 8 MiB") && message.contains("letting the agent stop"),
        "{message}"
    );
}

/// A custom verifier that prints `noise` MiB of lines between `first` and `last`, then exits
/// with `code`.
fn flooding(name: &str, first: &str, noise: u32, last: &str, code: i32) -> String {
    format!(
        r#"
[[verifier]]
name = "{name}"
kind = "lint"
command = ["sh", "-c", "echo '{first}'; yes 'some noise of the tool' | head -n {lines}; echo '{last}'; exit {code}"]
summary = '^checked (?P<errors>\d+) errors$'

[[verifier.pattern]]
regex = '^ERROR (?P<file>\S+): (?P<message>.+)$'
"#,
        lines = u64::from(noise) * 1024 * 1024 / 23
    )
}

/// A verifier printing 2 GiB kept a 2 GiB log, 20 runs of it. The log now keeps the first and
/// last 16 MiB with a line saying what was cut, and the outcome is still right: a failure in the
/// head fails, a summary in the tail counts, and a pass whose kept output shows no summary of
/// the whole run is not a pass.
#[test]
fn a_flooding_verifier_keeps_a_capped_log_and_the_right_outcome() {
    let project = Project::empty();
    let config = [
        flooding("fails", "ERROR src/a.c: broken", 64, "checked 1 errors", 1),
        flooding("summarized", "start", 64, "checked 0 errors", 0),
        flooding("unsummarized", "start", 64, "done", 0),
    ]
    .concat();
    project.write("verdict.toml", &config);
    let out = project.verdict(&["run", "--format", "json", "--jobs", "1"]);
    let report = out.json();
    let verifier = |name: &str| {
        report["verifications"]
            .as_array()
            .and_then(|all| all.iter().find(|v| v["verifier"] == name))
            .unwrap_or_else(|| panic!("no {name}: {}", out.all()))
            .clone()
    };
    let fails = verifier("fails");
    assert_eq!(fails["outcome"], "failed", "{fails:#}");
    assert_eq!(verifier("summarized")["outcome"], "passed", "{}", out.all());
    let unsummarized = verifier("unsummarized");
    assert_eq!(unsummarized["outcome"], "errored", "{unsummarized:#}");
    let error = unsummarized["report"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("cut from the middle"), "{error}");
    for v in [&fails, &unsummarized] {
        let log = v["log"].as_str().expect("a log");
        let path = project.root().join(log);
        let size = std::fs::metadata(&path).expect("the log").len();
        assert!(size < 32 * 1024 * 1024 + 1024, "{log}: {size} bytes");
        let text = std::fs::read(&path).expect("read");
        let said =
            String::from_utf8_lossy(&text[16 * 1024 * 1024..16 * 1024 * 1024 + 200]).into_owned();
        assert!(said.contains("bytes of output left out here"), "{said}");
        let notes = v["report"]["notes"].to_string();
        assert!(
            notes.contains("bytes in the middle were left out"),
            "{notes}"
        );
    }
}

/// Kept logs are raw output, secrets included: each is 0600, in run directories that are 0700.
#[test]
fn kept_logs_are_the_owners_only() {
    let project = Project::empty();
    project.write(
        "verdict.toml",
        "[[verifier]]\nname = \"check\"\nkind = \"lint\"\ncommand = [\"sh\", \"-c\", \"echo token=abc; echo clean\"]\n",
    );
    let out = project.verdict(&["run", "--format", "json"]);
    let report = out.json();
    let log = report["verifications"][0]["log"]
        .as_str()
        .unwrap_or_else(|| panic!("no log: {}", out.all()));
    let path = project.root().join(log);
    let mode = |p: &Path| {
        std::fs::metadata(p)
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&path), 0o600, "{}", path.display());
    let run_dir = path.parent().expect("a run directory");
    assert_eq!(mode(run_dir), 0o700, "{}", run_dir.display());
    assert_eq!(mode(run_dir.parent().expect("runs")), 0o700);
}
