//! Helpers of the CLI tests: running the real `verdict` binary, the captured logs it is run on,
//! input generated on the fly, the peak memory of a run, and projects to run it on.
//!
//! The tests run verdict with `VERDICT_STATE_DIR=.verdict`, which keeps its files in the
//! project's tree, where they read its logs, state and cache, and nothing is left in the user's
//! cache directory by projects outside a repository. `state_dir.rs` tests the default place.

pub(crate) mod project;
pub(crate) mod rusage;
pub(crate) mod schema;
pub(crate) mod stream;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What one run of `verdict` did.
#[derive(Debug)]
pub(crate) struct Run {
    /// Its exit code.
    pub(crate) code: i32,
    /// What it printed on stdout.
    pub(crate) stdout: String,
    /// What it printed on stderr.
    pub(crate) stderr: String,
}

impl Run {
    /// The `--format json` report this run printed.
    pub(crate) fn json(&self) -> serde_json::Value {
        let document = serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!("stdout is not a JSON report ({error}):\n{}", self.stdout)
        });
        schema::check_if_run_report(&document);
        document
    }
}

/// Runs `verdict ARGS` with `stdin` as its input, and checks that it ended by itself with one of
/// its documented exit codes, without a panic.
pub(crate) fn verdict(args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
    let output = assert_cmd::cargo::cargo_bin_cmd!("verdict")
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(args)
        .write_stdin(stdin)
        .timeout(Duration::from_secs(120))
        .output()
        .expect("failed to run verdict");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_sane(
        &format!("verdict {}", args.join(" ")),
        Some(run.code),
        &run.stderr,
    );
    run
}

/// Fails unless a run ended with exit code 0, 1 or 2 and printed no panic.
pub(crate) fn assert_sane(what: &str, code: Option<i32>, stderr: &str) {
    assert!(!stderr.contains("panicked"), "{what} panicked:\n{stderr}");
    assert!(
        matches!(code, Some(0..=2)),
        "{what} ended with {code:?}, not 0, 1 or 2:\n{stderr}"
    );
}

/// A log captured from a real tool by `cargo xtask capture`.
#[derive(Debug, Clone)]
pub(crate) struct Log {
    /// The tool's folder under `summarizers/testdata/`.
    pub(crate) tool: String,
    /// The case: the file stem.
    pub(crate) case: String,
    /// Where it is.
    pub(crate) path: PathBuf,
    /// The log's bytes.
    pub(crate) bytes: Vec<u8>,
    /// The tool's own exit code, from `<case>.meta.json` (`None`: killed, or no meta file).
    pub(crate) tool_exit: Option<i64>,
}

impl Log {
    /// `tool/case`, for messages.
    pub(crate) fn id(&self) -> String {
        format!("{}/{}", self.tool, self.case)
    }

    /// Whether the case's name says the code under test fails (`failing`, `build-errors`,
    /// `test-failures`, `many-problems`, …) and the tool agreed by exiting non-zero.
    pub(crate) fn is_failing(&self) -> bool {
        self.tool_exit != Some(0)
            && self
                .words()
                .any(|w| matches!(w, "failing" | "failures" | "errors" | "problems"))
    }

    fn words(&self) -> impl Iterator<Item = &str> {
        self.case.split('-')
    }
}

/// The exit code `verdict summarize` must give a captured log, from the case's name and the
/// tool's own exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expect {
    /// Exactly this code.
    Code(i32),
    /// 1 or 2: the log shows a failure or a crash, which is never a pass.
    NotPass,
}

impl Log {
    /// What `verdict summarize` must exit with on this log:
    /// - 0 when the tool itself exited 0 (passing, and clean builds with warnings), unless the case
    ///   ran no test or a test binary ended before its summary;
    /// - 1 for failing code (`failing…`, `…-errors`, `…-failures`);
    /// - 2 when nothing could be verified: invalid or unreadable configuration or manifest, no
    ///   tests, an internal error, a usage error;
    /// - otherwise (load errors, syntax errors, missing dependencies: failing code for some tools,
    ///   a crash for others) 1 or 2, never 0.
    pub(crate) fn expected_exit(&self) -> Expect {
        let has = |word: &str| self.words().any(|w| w == word);
        // A run with no test, and a test binary that ended before its summary (the tool exits 0
        // but its other tests never ran), verify nothing.
        let no_tests = self.case.contains("no-tests") || self.case.contains("exits-early");
        // A checker that says it found no file to check, or machine output with no finding and
        // nothing to show a file was read (ruff's bare `[]`), verifies nothing either.
        let text = String::from_utf8_lossy(&self.bytes);
        let no_files = text.contains("No Python files found")
            || text.contains("No source files found")
            || text.trim() == "[]";
        if no_tests
            || no_files
            || has("config")
            || has("internal")
            || has("usage")
            || has("manifest")
        {
            Expect::Code(2)
        } else if self.tool_exit == Some(0) {
            Expect::Code(0)
        } else if self.is_failing() {
            Expect::Code(1)
        } else {
            Expect::NotPass
        }
    }
}

/// `summarizers/testdata/`.
pub(crate) fn testdata_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../summarizers/testdata")
}

/// Every captured log, sorted by tool and case. Fails when there is none: these tests are about
/// real output, and must not pass vacuously.
pub(crate) fn captured_logs() -> Vec<Log> {
    let dir = testdata_dir();
    let mut logs = Vec::new();
    let tools = fs::read_dir(&dir).map(|entries| {
        entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect::<Vec<_>>()
    });
    for tool_dir in tools.unwrap_or_default() {
        let Ok(entries) = fs::read_dir(&tool_dir) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.extension().is_none_or(|x| x != "log") {
                continue;
            }
            let meta = fs::read_to_string(path.with_extension("meta.json"))
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
            logs.push(Log {
                tool: name_of(&tool_dir),
                case: path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                path: path.clone(),
                bytes: fs::read(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display())),
                tool_exit: meta.and_then(|m| m.get("exit_code")?.as_i64()),
            });
        }
    }
    logs.sort_by(|a, b| (&a.tool, &a.case).cmp(&(&b.tool, &b.case)));
    assert!(
        !logs.is_empty(),
        "no captured logs under {}: run `cargo xtask capture`",
        dir.display()
    );
    logs
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One failing log of each tool that has one (the first by name), sorted by tool.
pub(crate) fn one_failing_log_per_tool() -> Vec<Log> {
    let mut picked: Vec<Log> = Vec::new();
    for log in captured_logs() {
        if log.is_failing() && picked.last().is_none_or(|p| p.tool != log.tool) {
            picked.push(log);
        }
    }
    assert!(!picked.is_empty(), "no failing captured log");
    picked
}

/// `text` with every bare `\n` made `\r\n`, as a log written on Windows.
pub(crate) fn to_crlf(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + text.len() / 16);
    let mut previous = 0u8;
    for &byte in text {
        if byte == b'\n' && previous != b'\r' {
            out.push(b'\r');
        }
        out.push(byte);
        previous = byte;
    }
    out
}

/// `log` with invalid UTF-8 before it, after it, and at the end of its middle line.
pub(crate) fn with_invalid_utf8(log: &[u8]) -> Vec<u8> {
    let mut out = b"\xff\xfe\xc3\x28 stray bytes \xa0\xa1\n".to_vec();
    let lines: Vec<&[u8]> = log.split_inclusive(|&b| b == b'\n').collect();
    for (i, line) in lines.iter().enumerate() {
        if i == lines.len() / 2 {
            out.extend_from_slice(line.strip_suffix(b"\n").unwrap_or(line));
            out.extend_from_slice(b" \xe2\x28\xa1\n");
        } else {
            out.extend_from_slice(line);
        }
    }
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out.extend_from_slice(b"\xc0\xaf\xed\xa0\x80\n");
    out
}

/// The lines of `a` and `b` taken in turn, as two parallel jobs writing to one log.
pub(crate) fn interleave(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len() + b.len() + 2);
    let (mut a, mut b) = (
        a.split_inclusive(|&c| c == b'\n'),
        b.split_inclusive(|&c| c == b'\n'),
    );
    loop {
        let (x, y) = (a.next(), b.next());
        if x.is_none() && y.is_none() {
            return out;
        }
        for line in [x, y].into_iter().flatten() {
            out.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                out.push(b'\n');
            }
        }
    }
}

/// Deterministic bytes that are no text: a xorshift stream.
pub(crate) fn garbage(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// What a `--format json` run said, in a few words: its outcome, and its error or summary line.
pub(crate) fn gist(run: &Run) -> String {
    match serde_json::from_str::<serde_json::Value>(&run.stdout) {
        Ok(json) => format!(
            "{} {}: {}",
            json["tool"].as_str().unwrap_or("?"),
            json["outcome"].as_str().unwrap_or("?"),
            json["error"]
                .as_str()
                .or(json["summary"].as_str())
                .unwrap_or("")
        ),
        Err(_) => run.stdout.lines().next().unwrap_or("").to_owned(),
    }
}

/// A temporary file holding `data`, deleted when dropped.
pub(crate) fn temp_file(data: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("cannot create a temporary file");
    file.write_all(data).expect("cannot write a temporary file");
    file
}
