//! `cargo xtask bench`: parser throughput against ripgrep, on the same logs.
//!
//! 1. Installs ripgrep from the OS packages when `rg` is missing (`apt-get install -y ripgrep`,
//!    through `sudo` unless already root).
//! 2. Runs the criterion bench `summarizers/benches/throughput.rs`, which builds one log of 100 MiB
//!    or more per tool from the captured failing logs, writes it under `target/bench/logs/`, and
//!    measures the shared line reader alone (`lines/<tool>`), each parser (`parse/<tool>`) and the
//!    auto-detecting path (`summarize/<tool>`).
//! 3. Times the release `verdict summarize <log>` end to end, and `rg --count` searching the same log
//!    for the lines that tool's parser looks for: the practical ceiling of a line-oriented scan.
//! 4. Prints a Markdown table (also written to `target/bench/results.md`) with the machine it ran
//!    on, ready for BENCHMARKS.md.
//!
//! Criterion's samples and the processes' runs (`verdict`, `rg`: several, after one warm-up run that
//! also brings the log into the page cache) are reported as median and best; the ratio and the
//! verdicts on the floor and the goal use medians.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::capture::repo_root;

/// The parser floor of issue 2: 200 MiB/s single-threaded.
const FLOOR_MIB_S: f64 = 200.0;

/// The goal of issue 2: half of ripgrep's throughput on the same log.
const GOAL_RATIO: f64 = 0.5;

/// What ripgrep searches for in each tool's log: the lines that tool's parser has to find. Patterns
/// are Rust regex syntax (ripgrep's default engine, and the one our parsers use), written as a
/// person would for the job; none needs a Unicode word boundary, which would push ripgrep off its
/// fast path on non-ASCII logs and flatter the parsers.
pub(crate) fn rg_patterns(tool: &str) -> &'static [&'static str] {
    match tool {
        // `src/a.ts(3,7): error TS2345: …` and `src/a.ts:3:7 - error TS2345: …`; the footer.
        "tsc" => &[r"error TS\d+", r"^Found \d+ errors?"],
        // stylish `  3:7  error  …  rule`, its `✖ N problems` footer; `-f json` messages.
        "eslint" => &[
            r"\d+:\d+\s+(error|warning)",
            r"✖ \d+ problems?",
            r#""severity":\s*[12]"#,
        ],
        // `FAIL file` headers, `● Suite › test` blocks, the `Tests:` / `Test Suites:` summary.
        "jest" => &[r"^\s*FAIL ", r"●", r"^(Tests|Test Suites):"],
        // ` FAIL  file > test`, ` × test`, the `Test Files` / `Tests` summary.
        "vitest" => &[r"FAIL|×", r"^\s*(Test Files|Tests)\s+\d"],
        // `N passing` / `N failing` / `N pending`, numbered failure blocks `  1) suite`.
        "mocha" => &[r"^\s*\d+ (passing|failing|pending)", r"^\s+\d+\) "],
        // rustc and clippy diagnostics and their locations, libtest failures, panics and results.
        "cargo" => &[
            r"^(error|warning)(\[|:)",
            r"^\s*--> ",
            r"^test .* \.\.\. FAILED",
            r"panicked at",
            r"test result:",
        ],
        // Failure headers `____ test_x ____`, `E ` lines, the short summary, the closing line.
        "pytest" => &[
            r"^_{3,} .* _{3,}$",
            r"^E ",
            r"^(FAILED|ERROR) ",
            r"^={3,} .* in [0-9.]+s",
        ],
        // What the generic parser places or counts: `file:line[:col]: severity:`, tracebacks,
        // panics, linker errors, bare failure lines, tool summaries.
        _ => &[
            r":\d+(:\d+)?: (fatal )?(error|warning)",
            r"^Traceback \(most recent call last\)|^\s*File .*, line \d+",
            r"^panic: |panicked at",
            r"undefined reference to",
            r"^(error|fatal|FAILED)[: ]|\*\*\* .*Error \d+",
            r"^Found \d+ errors?|\d+ errors? generated",
        ],
    }
}

/// Options of `cargo xtask bench`.
pub(crate) struct Options {
    /// Only these tools (empty: every tool with captured logs).
    pub tools: Vec<String>,
    /// Size of each generated log, in MiB.
    pub mib: u64,
    /// Timed runs of each process.
    pub runs: usize,
    /// Skip criterion and report its last results (the logs must exist).
    pub no_criterion: bool,
}

/// One row of the results table.
struct Row {
    tool: String,
    bytes: u64,
    detected: String,
    outcome: String,
    lines: Option<Speed>,
    parse: Option<Speed>,
    summarize: Option<Speed>,
    cli: Option<Speed>,
    rg: Speed,
}

/// A throughput in MiB/s: the median run's, and the best run's.
#[derive(Clone, Copy)]
struct Speed {
    median: f64,
    best: f64,
}

impl Speed {
    /// The speed of processing `bytes` in these run times (seconds per iteration).
    fn of(bytes: u64, mut seconds: Vec<f64>) -> Option<Speed> {
        seconds.retain(|s| s.is_finite() && *s > 0.0);
        seconds.sort_by(f64::total_cmp);
        let mib = bytes as f64 / (1u64 << 20) as f64;
        Some(Speed {
            median: mib / *seconds.get(seconds.len() / 2)?,
            best: mib / *seconds.first()?,
        })
    }
}

/// Runs the benchmark.
pub(crate) fn run(options: &Options) -> Result<()> {
    let root = repo_root();
    let target = target_dir(&root);
    let bench = target.join("bench");
    let logs_dir = bench.join("logs");
    let criterion_home = bench.join("criterion");
    ensure_rg()?;

    if !options.no_criterion {
        let mut args = vec![
            "bench",
            "--package",
            "verdict-summarizers",
            "--bench",
            "throughput",
        ];
        let filter = (!options.tools.is_empty())
            .then(|| format!("^(parse|summarize)/({})$", options.tools.join("|")));
        if let Some(filter) = &filter {
            args.extend(["--", filter.as_str()]);
        }
        eprintln!("$ cargo {}", args.join(" "));
        let mib = options.mib.to_string();
        duct::cmd(cargo(), &args)
            .dir(&root)
            .env("VERDICT_BENCH_DIR", &logs_dir)
            .env("VERDICT_BENCH_MIB", &mib)
            .env("CRITERION_HOME", &criterion_home)
            .run()
            .context("the criterion bench failed")?;
    }

    eprintln!("$ cargo build --release --package verdict-cli");
    duct::cmd(cargo(), ["build", "--release", "--package", "verdict-cli"])
        .dir(&root)
        .run()
        .context("building the release verdict failed")?;
    let verdict = target.join("release/verdict");

    let mut rows = Vec::new();
    for tool in tools_with_logs(&logs_dir)? {
        if !options.tools.is_empty() && !options.tools.contains(&tool) {
            continue;
        }
        let log = logs_dir.join(format!("{tool}.log"));
        let info: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(logs_dir.join(format!("{tool}.json")))
                .with_context(|| format!("no description of {}", log.display()))?,
        )?;
        let bytes = fs::metadata(&log)?.len();
        let text = |key: &str| info[key].as_str().unwrap_or("?").to_owned();

        let mut rg = Command::new("rg");
        rg.arg("--count").arg("--no-filename");
        for pattern in rg_patterns(&tool) {
            rg.arg("-e").arg(pattern);
        }
        rg.arg(&log);
        let rg_time = time_process(&mut rg, options.runs, &[0, 1])?;

        let mut cli = Command::new(&verdict);
        cli.arg("summarize").arg(&log);
        let cli_time = time_process(&mut cli, options.runs, &[0, 1, 2]).ok();

        let criterion = |group: &str| {
            Speed::of(
                bytes,
                criterion_seconds(&criterion_home.join(group).join(&tool)),
            )
        };
        rows.push(Row {
            tool: tool.clone(),
            bytes,
            detected: text("detected"),
            outcome: text("outcome"),
            lines: criterion("lines"),
            parse: criterion("parse"),
            summarize: criterion("summarize"),
            cli: cli_time.and_then(|times| Speed::of(bytes, times)),
            rg: Speed::of(bytes, rg_time).context("no rg timing")?,
        });
    }
    if rows.is_empty() {
        bail!(
            "no generated logs under {} (are there captured logs under summarizers/testdata/?)",
            logs_dir.display()
        );
    }

    let report = format!("{}\n{}", machine()?, table(&rows, options.runs));
    fs::write(bench.join("results.md"), &report)?;
    println!("{report}");
    Ok(())
}

/// The cargo that runs us, so that the toolchain is the same.
fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// `$CARGO_TARGET_DIR`, or `<repo>/target`.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// Installs ripgrep from the OS packages when it is not on `PATH`.
fn ensure_rg() -> Result<()> {
    if Command::new("rg").arg("--version").output().is_ok() {
        return Ok(());
    }
    let is_root = duct::cmd!("id", "-u")
        .read()
        .is_ok_and(|uid| uid.trim() == "0");
    let apt = |args: &[&str]| {
        let mut argv: Vec<&str> = if is_root { vec![] } else { vec!["sudo"] };
        argv.push("apt-get");
        argv.extend_from_slice(args);
        eprintln!("$ {}", argv.join(" "));
        duct::cmd(argv[0], &argv[1..]).stdout_to_stderr().run()
    };
    if apt(&["install", "-y", "ripgrep"]).is_err() {
        // A fresh container has no package lists yet.
        apt(&["update"]).context("apt-get update failed")?;
        apt(&["install", "-y", "ripgrep"]).context("installing ripgrep failed")?;
    }
    Command::new("rg")
        .arg("--version")
        .output()
        .context("ripgrep is still not on PATH after installing it")?;
    Ok(())
}

/// The tools that have a generated log in `dir`, sorted.
fn tools_with_logs(dir: &Path) -> Result<Vec<String>> {
    let mut tools: Vec<String> = fs::read_dir(dir)
        .with_context(|| format!("failed to read {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|x| x == "log"))
        .filter_map(|path| Some(path.file_stem()?.to_str()?.to_owned()))
        .collect();
    tools.sort();
    Ok(tools)
}

/// Runs `command` once to warm up, then `runs` times, and returns the wall time of each run, in
/// seconds. Its output is read through a pipe (ripgrep stops at the first match when its output is
/// `/dev/null`).
fn time_process(command: &mut Command, runs: usize, ok_codes: &[i32]) -> Result<Vec<f64>> {
    command.stdin(Stdio::null()).stdout(Stdio::piped());
    let mut times = Vec::with_capacity(runs);
    for i in 0..=runs {
        let start = Instant::now();
        let output = command
            .output()
            .with_context(|| format!("failed to run {command:?}"))?;
        let elapsed = start.elapsed();
        match output.status.code() {
            Some(code) if ok_codes.contains(&code) => {}
            _ => bail!("{command:?} failed: {}", output.status),
        }
        if i > 0 {
            times.push(elapsed.as_secs_f64());
        }
    }
    Ok(times)
}

/// Criterion's time of one iteration in each sample, in seconds, from its `sample.json`.
fn criterion_seconds(bench_dir: &Path) -> Vec<f64> {
    let Ok(text) = fs::read_to_string(bench_dir.join("new/sample.json")) else {
        return Vec::new();
    };
    let Ok(sample) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let numbers = |key: &str| -> Vec<f64> {
        sample[key]
            .as_array()
            .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
            .unwrap_or_default()
    };
    numbers("times")
        .iter()
        .zip(numbers("iters"))
        .map(|(nanos, iters)| nanos / iters / 1e9)
        .collect()
}

/// The machine, date and commit, as Markdown.
fn machine() -> Result<String> {
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name")?.split_once(':').map(|x| x.1))
        .unwrap_or("unknown")
        .trim()
        .to_owned();
    let meminfo = fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let ram_gib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or_else(|| "?".to_owned(), |kib| format!("{:.1}", kib / 1048576.0));
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let read = |program: &str, args: &[&str]| {
        duct::cmd(program, args)
            .stderr_null()
            .read()
            .map(|s| s.trim().to_owned())
            .unwrap_or_else(|_| "?".to_owned())
    };
    let commit = read("git", &["rev-parse", "--short=12", "HEAD"]);
    let dirty = !read("git", &["status", "--porcelain", "--untracked-files=no"]).is_empty();
    let mut out = String::new();
    writeln!(
        out,
        "- date: {}",
        read("date", &["-u", "+%Y-%m-%d %H:%M UTC"])
    )?;
    writeln!(
        out,
        "- commit: {commit}{}",
        if dirty {
            " (with uncommitted changes)"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "- machine: {cpu}, {nproc} CPUs (`nproc`), {ram_gib} GiB RAM"
    )?;
    writeln!(
        out,
        "- {}; {}",
        read("rustc", &["--version"]),
        read("rg", &["--version"]).lines().next().unwrap_or("?")
    )?;
    Ok(out)
}

fn table(rows: &[Row], runs: usize) -> String {
    let mut out = String::new();
    let fmt = |v: Option<Speed>| {
        v.map_or_else(
            || "–".to_owned(),
            |v| format!("{:.0} ({:.0})", v.median, v.best),
        )
    };
    let _ = writeln!(
        out,
        "| tool | log size | line reader MiB/s | parser MiB/s | auto-detect MiB/s \
         | `verdict summarize` MiB/s | rg MiB/s | parser / rg | detected as | parse outcome |"
    );
    let _ = writeln!(out, "|---|--:|--:|--:|--:|--:|--:|--:|---|---|");
    let mut below_floor = Vec::new();
    let mut below_goal = Vec::new();
    for row in rows {
        let ratio = row.parse.map(|p| p.median / row.rg.median);
        if row.parse.is_some_and(|p| p.median < FLOOR_MIB_S) {
            below_floor.push(row.tool.as_str());
        }
        if ratio.is_some_and(|r| r < GOAL_RATIO) {
            below_goal.push(row.tool.as_str());
        }
        let _ = writeln!(
            out,
            "| {} | {:.0} MiB | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.tool,
            row.bytes as f64 / (1u64 << 20) as f64,
            fmt(row.lines),
            fmt(row.parse),
            fmt(row.summarize),
            fmt(row.cli),
            fmt(Some(row.rg)),
            ratio.map_or_else(|| "–".to_owned(), |r| format!("{r:.2}")),
            row.detected,
            row.outcome,
        );
    }
    let _ = writeln!(
        out,
        "\nEach cell: median (best). Line reader, parser and auto-detect: criterion, 10 samples, in \
         memory, one thread; the line reader feeds a parser that does nothing. `verdict summarize` \
         and rg: the whole process on the file (page cache warm), {runs} runs after a warm-up. \
         Ratio and verdicts use medians."
    );
    let _ = writeln!(
        out,
        "Floor {FLOOR_MIB_S:.0} MiB/s: {}. Goal parser/rg ≥ {GOAL_RATIO}: {}.",
        verdict_list(&below_floor),
        verdict_list(&below_goal)
    );
    out
}

fn verdict_list(failing: &[&str]) -> String {
    if failing.is_empty() {
        "met by every parser".to_owned()
    } else {
        format!("not met by {}", failing.join(", "))
    }
}
