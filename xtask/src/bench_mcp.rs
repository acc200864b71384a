//! `cargo xtask bench --mcp`: what the `verify` tool of a warm `verdict mcp` server costs beyond
//! the tools it runs (issue 11 sets the bar at 20 ms).
//!
//! The release `verdict mcp` is started once and driven over stdio with plain JSON-RPC lines
//! (initialize, then `tools/call`), as a client would, each call timed from the request written
//! to the response read. Fixtures, in `target/bench/mcp/`:
//!
//! - `check`: one `[[verifier]]` whose tool is a shell printing one compiler error and failing, so
//!   it runs on every call (a failure is never cached) and the tool itself costs about a
//!   millisecond: the difference is verdict's own cost per call;
//! - `cached`: the same verifier passing, with `inputs`, so every call after the first is
//!   answered from the cache: the whole cost of a call that runs nothing;
//! - `pytest` (when `cargo xtask tools` has installed the tools' venv): a small project whose one
//!   test fails, with the real pytest; its argv comes from `verdict run --format json`, so the
//!   tool alone runs the very command verdict runs.
//!
//! Each figure is the median of the timed runs after two warm-up calls; the tool alone is timed
//! the same way. The table is printed and written to `target/bench/mcp.md`.

use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::bench_pipeline::cpu_model;
use crate::capture::repo_root;

/// A failing compiler, as cheap as a process can be.
const CHECK: &str = r#"
[[verifier]]
name = "check"
kind = "build"
command = ["sh", "-c", "echo 'src/app.c:1:1: error: unknown type name foo'; exit 1"]

[[verifier.pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): (?P<message>.*)$'
"#;

/// The same, passing, and cached while `src/` is unchanged.
const CACHED: &str = r#"
[[verifier]]
name = "check"
kind = "build"
command = ["sh", "-c", "echo fine"]
inputs = ["src/*.c"]
"#;

/// Runs the benchmark with `runs` timed calls of each measurement.
pub(crate) fn run(runs: usize) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    duct::cmd!(&cargo, "build", "--release", "-p", "verdict-cli")
        .dir(repo_root())
        .run()
        .context("cargo build --release failed")?;
    let verdict = repo_root().join("target/release/verdict");
    let load = load_average();
    let base = repo_root().join("target/bench/mcp");
    if base.exists() {
        fs::remove_dir_all(&base)?;
    }

    let mut rows = Vec::new();
    let check = project(&base, "check", CHECK)?;
    rows.push(measure(&verdict, &check, "failed", runs)?);
    let cached = project(&base, "cached", CACHED)?;
    rows.push(measure(&verdict, &cached, "passed", runs)?);
    let venv = repo_root().join("target/verdict-tools/venv");
    let pytest = if venv.join("bin/pytest").is_file() {
        let dir = project(&base, "pytest", "")?;
        fs::write(dir.join("calc.py"), "def add(a, b):\n    return a - b\n")?;
        fs::create_dir_all(dir.join("tests"))?;
        fs::write(
            dir.join("tests/test_calc.py"),
            "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )?;
        fs::write(
            dir.join("pytest.ini"),
            "[pytest]\ntestpaths = tests\npythonpath = .\n",
        )?;
        std::os::unix::fs::symlink(&venv, dir.join(".venv"))?;
        Some(measure(&verdict, &dir, "failed", runs)?)
    } else {
        None
    };
    rows.extend(pytest.iter().cloned());

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut md = String::new();
    writeln!(md, "Machine: {cores} cores, {}.", cpu_model())?;
    writeln!(
        md,
        "One warm `verdict mcp` (release) per project, {runs} timed `verify` calls after two \
         warm-up calls, medians (p90 in brackets).\n"
    )?;
    writeln!(
        md,
        "| project | tools alone | `verify`, warm server | cost beyond the tools | `verdict run`, new process |"
    )?;
    writeln!(md, "|---|---:|---:|---:|---:|")?;
    for row in &rows {
        writeln!(
            md,
            "| {} | {} | {} [{}] | **{}** | {} |",
            row.name,
            row.tool.map_or_else(|| "none (cached)".to_owned(), ms),
            ms(row.verify),
            ms(row.verify_p90),
            signed_ms(row.verify, row.tool.unwrap_or_default()),
            ms(row.cli),
        )?;
    }
    if pytest.is_none() {
        writeln!(
            md,
            "\n(pytest left out: `cargo xtask tools` installs the venv it runs from.)"
        )?;
    }
    let worst = rows
        .iter()
        .map(|r| r.verify.saturating_sub(r.tool.unwrap_or_default()))
        .max()
        .unwrap_or_default();
    writeln!(
        md,
        "\nLargest cost beyond the tools: {} (goal < 20 ms); load average before the run: {load}.",
        ms(worst)
    )?;
    print!("{md}");
    fs::write(repo_root().join("target/bench/mcp.md"), md)?;
    Ok(())
}

/// The measurements of one project.
#[derive(Debug, Clone)]
struct Row {
    name: String,
    /// The tools alone (`None`: the call runs nothing, its pass is cached).
    tool: Option<Duration>,
    verify: Duration,
    verify_p90: Duration,
    cli: Duration,
}

/// A project `name` under `base` with `config` as its verdict.toml and a `src/app.c`.
fn project(base: &Path, name: &str, config: &str) -> Result<PathBuf> {
    let dir = base.join(name);
    fs::create_dir_all(dir.join("src"))?;
    fs::create_dir(dir.join(".git"))?;
    fs::write(dir.join("src/app.c"), "int main(void) { return 0; }\n")?;
    if !config.is_empty() {
        fs::write(dir.join("verdict.toml"), config)?;
    }
    Ok(dir)
}

/// Times `verify` on a warm server in `dir`, the tools alone, and `verdict run`.
fn measure(verdict: &Path, dir: &Path, outcome: &str, runs: usize) -> Result<Row> {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The commands verdict runs, from its own report; the first run also fills the cache.
    let output = Command::new(verdict)
        .args(["run", "--format", "json"])
        .current_dir(dir)
        .stderr(Stdio::null())
        .output()
        .context("failed to run verdict")?;
    let report: Value = serde_json::from_slice(&output.stdout).context("verdict's JSON report")?;
    let commands: Vec<Vec<String>> = report["verifications"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["status"] == "ran")
        .map(|v| {
            v["command"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect()
        })
        .collect();

    let mut server = Server::start(verdict, dir)?;
    let mut times = Vec::new();
    let mut ran_tools = false;
    for i in 0..runs + 2 {
        let (took, result) = server.call("verify", json!({}))?;
        let got = &result["structuredContent"]["outcome"];
        if got != outcome {
            bail!("{name}: verify said {got}, expected {outcome}: {result}");
        }
        ran_tools = result["structuredContent"]["verifiers"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|v| v["status"] == "ran");
        if i >= 2 {
            times.push(took);
        }
    }
    server.stop()?;
    times.sort();

    // What the calls ran is what the tools alone run; a call answered from the cache runs none.
    let tool = if commands.is_empty() || !ran_tools {
        None
    } else {
        Some(median(runs, || {
            let start = Instant::now();
            for argv in &commands {
                let (program, args) = argv.split_first().context("an empty command")?;
                Command::new(program)
                    .args(args)
                    .current_dir(dir)
                    .stdin(Stdio::null())
                    .output()
                    .with_context(|| format!("failed to run {program}"))?;
            }
            Ok(start.elapsed())
        })?)
    };
    let cli = median(runs, || {
        let start = Instant::now();
        Command::new(verdict)
            .arg("run")
            .current_dir(dir)
            .stdin(Stdio::null())
            .output()
            .context("failed to run verdict")?;
        Ok(start.elapsed())
    })?;
    Ok(Row {
        name,
        tool,
        verify: times[times.len() / 2],
        verify_p90: times[(times.len() * 9 / 10).min(times.len() - 1)],
        cli,
    })
}

/// The 1-, 5- and 15-minute load averages, as `/proc/loadavg` gives them.
fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Two warm-up runs, then the median of `runs`.
fn median(runs: usize, mut measure: impl FnMut() -> Result<Duration>) -> Result<Duration> {
    measure()?;
    measure()?;
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        times.push(measure()?);
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// A `verdict mcp` process spoken to in JSON-RPC lines.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(verdict: &Path, dir: &Path) -> Result<Server> {
        let mut child = Command::new(verdict)
            .arg("mcp")
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("failed to start verdict mcp")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("no stdout")?);
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": { "name": "verdict-bench", "version": "0" },
            }),
        )?;
        server.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))?;
        Ok(server)
    }

    fn send(&mut self, message: &Value) -> Result<()> {
        writeln!(self.stdin, "{message}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// Sends a request and waits for its response; returns the time it took and the result.
    fn request(&mut self, method: &str, params: Value) -> Result<(Duration, Value)> {
        let id = self.next_id;
        self.next_id += 1;
        let start = Instant::now();
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))?;
        let mut line = String::new();
        loop {
            line.clear();
            if self.stdout.read_line(&mut line)? == 0 {
                bail!("verdict mcp closed its stdout before answering {method}");
            }
            let message: Value =
                serde_json::from_str(&line).with_context(|| format!("not JSON-RPC: {line}"))?;
            if message["id"] == id {
                let took = start.elapsed();
                if let Some(error) = message.get("error") {
                    bail!("{method} failed: {error}");
                }
                return Ok((took, message["result"].clone()));
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Result<(Duration, Value)> {
        self.request(
            "tools/call",
            json!({ "name": tool, "arguments": arguments }),
        )
    }

    /// Closes stdin, which ends the session, and reaps the server.
    fn stop(self) -> Result<()> {
        let Server {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        child.wait()?;
        Ok(())
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// `a - b` in milliseconds, with its sign: a real tool's time varies more from run to run than
/// verdict's cost, so the difference of two medians can come out negative.
fn signed_ms(a: Duration, b: Duration) -> String {
    format!("{:+.1} ms", (a.as_secs_f64() - b.as_secs_f64()) * 1000.0)
}
