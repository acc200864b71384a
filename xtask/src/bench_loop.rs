//! `cargo xtask bench --loop [--before BINARY]`: the seconds `verdict loop` spends verifying each
//! failed attempt, on a project whose test suite takes a few seconds and with an agent that never
//! fixes it.
//!
//! The project is generated under `target/bench/loop-*`: `app.py` with a wrong `discount()`, one
//! failing test, and 40 passing tests that sleep 75 ms each (about 3 s of suite), run by the pytest
//! of `cargo xtask tools` (or `$VERDICT_TOOLS`). `[loop] on_repeat = "retry"` keeps the loop going
//! through the same failure. Two agents, small Python scripts that read the prompt and exit 0:
//!
//! - `touch` appends a comment to `app.py`: the tree changes, the failure stays (the loop runs the
//!   suite, then re-runs the failed test to tell a flaky one apart);
//! - `nothing` changes nothing: the tree is the one verified before.
//!
//! Each run is `verdict loop --max-attempts 4`; an attempt's verification time is the time from
//! its `agent_finished` event to its `verification_finished` event. With `--before`, the same runs
//! of another `verdict` binary (the one before a change) are measured beside this one's. Prints a
//! Markdown table, also written to `target/bench/loop-verification.md`.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::capture::repo_root;

/// Attempts per `verdict loop` run.
const ATTEMPTS: usize = 4;

const APP: &str = "def discount(total, percent):\n    return total + total * percent / 100\n";

const TESTS: &str = "from app import discount\n\n\ndef test_discount():\n    \
                     assert discount(200, 10) == 180\n";

const SLOW_TESTS: &str = "import time\n\nimport pytest\n\n\n@pytest.mark.parametrize(\"n\", \
                          range(40))\ndef test_slow(n):\n    time.sleep(0.075)\n    assert n >= 0\n";

const AGENT: &str = "import sys\n\nsys.stdin.read()\nif sys.argv[1] == \"touch\":\n    \
                     with open(\"app.py\", \"a\") as app:\n        app.write(\"# another try\\n\")\n";

/// Runs the benchmark: `runs` loop runs of each agent and binary.
pub(crate) fn run(runs: usize, before: Option<PathBuf>) -> Result<()> {
    let tools = match std::env::var_os("VERDICT_TOOLS") {
        Some(dir) => PathBuf::from(dir),
        None => crate::tools::install()?,
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    duct::cmd!(&cargo, "build", "--release", "-p", "verdict-cli")
        .dir(repo_root())
        .run()
        .context("cargo build --release failed")?;
    let mut binaries = vec![("this commit", repo_root().join("target/release/verdict"))];
    if let Some(before) = before {
        binaries.insert(0, ("before", before));
    }
    let base = repo_root().join("target/bench/loop");
    if base.exists() {
        fs::remove_dir_all(&base)?;
    }
    fs::create_dir_all(&base)?;
    let agent = base.join("agent.py");
    fs::write(&agent, AGENT)?;

    let suite = {
        let dir = project(&base, "suite", &tools)?;
        let start = Instant::now();
        Command::new(dir.join(".venv/bin/python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .context("failed to run pytest")?;
        start.elapsed().as_secs_f64()
    };

    let mut md = String::new();
    writeln!(
        md,
        "| agent | verdict | seconds of verification per failed attempt (median) | each attempt |"
    )?;
    writeln!(md, "|---|---|---|---|")?;
    for mode in ["touch", "nothing"] {
        for (label, verdict) in &binaries {
            let mut seconds = Vec::new();
            for n in 0..runs.max(1) {
                let dir = project(
                    &base,
                    &format!("{mode}-{}-{n}", label.replace(' ', "-")),
                    &tools,
                )?;
                seconds.extend(loop_once(verdict, &dir, &agent, mode)?);
            }
            let mut sorted = seconds.clone();
            sorted.sort_by(f64::total_cmp);
            let median = sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN);
            let each: Vec<String> = seconds.iter().map(|s| format!("{s:.2}")).collect();
            writeln!(
                md,
                "| `{mode}` | {label} | **{median:.2} s** | {} |",
                each.join(", ")
            )?;
        }
    }
    writeln!(
        md,
        "\nThe suite alone (`python -m pytest -q`, 41 tests): {suite:.2} s. {} CPUs ({}), load \
         average before the runs: {}.",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        crate::bench_pipeline::cpu_model(),
        fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .next()
            .unwrap_or("?")
    )?;
    print!("{md}");
    fs::write(repo_root().join("target/bench/loop-verification.md"), md)?;
    Ok(())
}

/// A fresh copy of the project under `base/name`, its `.venv` linked to the tools' venv.
fn project(base: &Path, name: &str, tools: &Path) -> Result<PathBuf> {
    let dir = base.join(name);
    fs::create_dir_all(&dir)?;
    fs::write(dir.join("app.py"), APP)?;
    fs::write(dir.join("test_app.py"), TESTS)?;
    fs::write(dir.join("test_slow.py"), SLOW_TESTS)?;
    fs::write(
        dir.join(".gitignore"),
        ".venv\n.verdict/\n__pycache__/\n.pytest_cache/\n",
    )?;
    fs::write(dir.join("verdict.toml"), "[loop]\non_repeat = \"retry\"\n")?;
    std::os::unix::fs::symlink(tools.join("venv"), dir.join(".venv"))?;
    Ok(dir)
}

/// One `verdict loop` run in `dir`; the seconds of verification of each failed attempt.
fn loop_once(verdict: &Path, dir: &Path, agent: &Path, mode: &str) -> Result<Vec<f64>> {
    let events = dir.with_extension("events.ndjson");
    let agent_line = format!("python3 {} {mode}", agent.display());
    let status = Command::new(verdict)
        .args(["loop", "--task", "Make the discount test pass", "--agent"])
        .arg(&agent_line)
        .args(["--max-attempts", &ATTEMPTS.to_string(), "--events"])
        .arg(&events)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .context("failed to run verdict loop")?;
    if status.code() != Some(1) {
        bail!(
            "verdict loop in {} ended with {status}, not exhausted (1)",
            dir.display()
        );
    }
    let text = fs::read_to_string(&events)?;
    let events: Vec<serde_json::Value> = text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .context("an event is not JSON")?;
    let time_of = |kind: &str, attempt: u64| {
        events
            .iter()
            .find(|e| e["event"] == kind && e["attempt"] == attempt)
            .and_then(|e| e["time_ms"].as_u64())
    };
    let mut seconds = Vec::new();
    for attempt in 1..=ATTEMPTS as u64 {
        let (Some(agent), Some(verified)) = (
            time_of("agent_finished", attempt),
            time_of("verification_finished", attempt),
        ) else {
            bail!("attempt {attempt} in {} has no verification", dir.display());
        };
        seconds.push(verified.saturating_sub(agent) as f64 / 1000.0);
    }
    Ok(seconds)
}
