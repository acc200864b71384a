//! `cargo xtask bench --merge`: the wall time and peak memory of `verdict merge` on 100 shard
//! reports of 10 000 tests each (issue 13: under 1 s and under 200 MiB).
//!
//! Set-up writes the reports to `target/bench/merge/shard-<i>.json`: each a `verdict-run/1`
//! document of shard `i/100` with a type checker (run in shard 1, `not_in_shard` in the others)
//! and a test runner that ran 10 000 tests there, 10 of them failing (a diagnostic each, with a
//! fingerprint of its own), every test listed in `report.tests` with a file and a duration. Then
//! the release `verdict merge` runs on them under GNU time (`/usr/bin/time -v`), once to warm the
//! page cache and `runs` timed times for each output format measured; medians and the worst peak
//! resident set are printed as a Markdown table and written to `target/bench/merge.md`.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::capture::repo_root;

/// How many shard reports.
const SHARDS: u32 = 100;
/// Tests per shard.
const TESTS: u32 = 10_000;
/// Failing tests per shard.
const FAILING: u32 = 10;
/// Test files per shard (the tests are spread over them).
const FILES: u32 = 100;

/// Runs the benchmark with `runs` timed runs of each format.
pub(crate) fn run(runs: usize) -> Result<()> {
    if !Path::new("/usr/bin/time").is_file() {
        bail!("GNU time is needed to measure peak memory: `apt-get install -y time`");
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    duct::cmd!(&cargo, "build", "--release", "-p", "verdict-cli")
        .dir(repo_root())
        .run()
        .context("cargo build --release failed")?;
    let verdict = repo_root().join("target/release/verdict");
    let dir = repo_root().join("target/bench/merge");
    let files = write_reports(&dir)?;
    let bytes: u64 = files
        .iter()
        .map(|f| fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();

    let mut rows = Vec::new();
    for format in ["human", "json"] {
        let output = dir.join(format!("merged.{format}"));
        let mut args: Vec<String> = vec!["merge".to_owned()];
        args.extend(files.iter().map(|f| f.to_string_lossy().into_owned()));
        args.extend([
            "--format".to_owned(),
            format.to_owned(),
            "--output".to_owned(),
            output.to_string_lossy().into_owned(),
        ]);
        // Warm-up: the reports in the page cache.
        measure(&verdict, &args)?;
        let mut walls = Vec::new();
        let mut cpus = Vec::new();
        let mut peak = 0;
        for _ in 0..runs {
            let (wall, cpu, rss) = measure(&verdict, &args)?;
            walls.push(wall);
            cpus.push(cpu);
            peak = peak.max(rss);
        }
        walls.sort_by(f64::total_cmp);
        cpus.sort_by(f64::total_cmp);
        let median = walls[walls.len() / 2];
        let best = walls[0];
        let cpu = cpus[cpus.len() / 2];
        rows.push((format, median, best, cpu, peak, output));
    }

    let mut table = String::new();
    let _ = writeln!(
        table,
        "{SHARDS} shard reports of {TESTS} tests each ({FAILING} failing), {:.1} MiB of JSON; \
         {runs} timed runs after a warm-up.\n",
        bytes as f64 / (1024.0 * 1024.0)
    );
    let _ = writeln!(
        table,
        "| output | wall median (best) | CPU (user + sys, median) | peak RSS (worst) | output size |\n|---|--:|--:|--:|--:|"
    );
    for (format, median, best, cpu, peak, output) in &rows {
        let size = fs::metadata(output).map(|m| m.len()).unwrap_or(0);
        let _ = writeln!(
            table,
            "| `--format {format}` | {:.0} ms ({:.0} ms) | {:.0} ms | {:.1} MiB | {:.1} MiB |",
            median * 1000.0,
            best * 1000.0,
            cpu * 1000.0,
            *peak as f64 / 1024.0,
            size as f64 / (1024.0 * 1024.0)
        );
    }
    print!("{table}");
    fs::write(repo_root().join("target/bench/merge.md"), &table)?;
    for (format, median, _, _, peak, _) in &rows {
        if *median >= 1.0 || *peak as f64 / 1024.0 >= 200.0 {
            bail!("`verdict merge --format {format}` is over the bar (1 s, 200 MiB)");
        }
    }
    Ok(())
}

/// Runs `verdict ARGS` under GNU time; its wall time and CPU time (user + system) in seconds and
/// its peak RSS in KiB. The merge must exit 1 (the reports hold failures), never 2.
fn measure(verdict: &Path, args: &[String]) -> Result<(f64, f64, u64)> {
    let output = Command::new("/usr/bin/time")
        .arg("-v")
        .arg(verdict)
        .args(args)
        .output()
        .context("failed to run /usr/bin/time")?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let field = |name: &str| {
        stderr
            .lines()
            .find_map(|line| line.trim().strip_prefix(name))
            .map(str::trim)
            .map(str::to_owned)
    };
    let status = field("Exit status:").unwrap_or_default();
    if status != "1" {
        bail!("verdict merge exited with {status}, not 1:\n{stderr}");
    }
    let rss = field("Maximum resident set size (kbytes):")
        .and_then(|v| v.parse::<u64>().ok())
        .context("no peak RSS from GNU time")?;
    let wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss):")
        .and_then(|v| parse_clock(&v))
        .context("no wall time from GNU time")?;
    let seconds = |name: &str| field(name).and_then(|v| v.parse::<f64>().ok());
    let cpu = seconds("User time (seconds):").unwrap_or(0.0)
        + seconds("System time (seconds):").unwrap_or(0.0);
    Ok((wall, cpu, rss))
}

/// GNU time's `m:ss.cc` or `h:mm:ss` in seconds.
fn parse_clock(text: &str) -> Option<f64> {
    text.split(':').try_fold(0.0, |total, part| {
        Some(total * 60.0 + part.parse::<f64>().ok()?)
    })
}

/// Writes the shard reports; their paths, in shard order.
fn write_reports(dir: &Path) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    let mut files = Vec::new();
    for index in 1..=SHARDS {
        let path = dir.join(format!("shard-{index}.json"));
        let text = serde_json::to_string(&report(index))?;
        fs::write(&path, text).with_context(|| format!("failed to write {}", path.display()))?;
        files.push(path);
    }
    Ok(files)
}

/// The report of shard `index`.
fn report(index: u32) -> Value {
    let mut tests = Vec::with_capacity(TESTS as usize);
    let mut diagnostics = Vec::new();
    for n in 0..TESTS {
        let file = format!("test/shard{index}/file{}.test.js", n % FILES);
        let name = format!("suite {} › computes case {n}", n % FILES);
        let failing = n % (TESTS / FAILING) == 0;
        tests.push(json!({
            "name": name,
            "file": file,
            "status": if failing { "failed" } else { "passed" },
            "duration_ms": 3 + u64::from(n % 17),
        }));
        if failing {
            diagnostics.push(json!({
                "tool": "jest",
                "kind": "test",
                "severity": "error",
                "file": file,
                "line": 10 + n % 50,
                "message": format!("expect(received).toBe(expected) in case {index}-{n}"),
                "test": name,
                "detail": "Expected: 4\nReceived: 5",
                // A fingerprint of its own: shard and test in 16 hex digits.
                "fingerprint": format!("{:08x}{:08x}", index, n),
            }));
        }
    }
    let tsc = if index == 1 {
        json!({
            "verifier": "tsc", "kind": "type", "status": "ran", "outcome": "passed",
            "duration_ms": 1200, "command": ["tsc", "--noEmit"], "log": ".verdict/runs/x/tsc.log",
            "notes": [],
            "report": {"tool": "tsc", "outcome": "passed", "counts": {"errors": 0}, "diagnostics": []}
        })
    } else {
        json!({
            "verifier": "tsc", "kind": "type", "status": "not_in_shard", "outcome": "errored",
            "duration_ms": 0, "command": null, "log": null, "notes": [],
            "report": {"tool": "tsc", "outcome": "errored", "counts": {}, "diagnostics": [],
                       "error": format!("not run in shard {index}/{SHARDS}: tsc is no test runner, so it runs in shard 1/{SHARDS}")}
        })
    };
    json!({
        "schema": "verdict-run/1",
        "verdict_version": "0.1.0",
        "outcome": "failed",
        "exit_code": 1,
        "known_failures": 0,
        "verifications": [
            tsc,
            {
                "verifier": "jest", "kind": "test", "status": "ran", "outcome": "failed",
                "duration_ms": 30_000, "command": ["jest", "--ci", format!("--shard={index}/{SHARDS}")],
                "log": ".verdict/runs/x/jest.log", "notes": [],
                "report": {
                    "tool": "jest", "outcome": "failed",
                    "counts": {"tests_passed": TESTS - FAILING, "tests_failed": FAILING},
                    "diagnostics": diagnostics,
                    "summary": format!("Tests: {FAILING} failed, {} passed, {TESTS} total", TESTS - FAILING),
                    "tests": tests,
                }
            }
        ],
        "digest": {"text": "jest: 10 failed", "tokens": 5, "budget": 500},
        "shard": {"index": index, "total": SHARDS},
    })
}
