//! `cargo xtask bench --pipeline`: the wall time of `verdict run` against the same tools run one
//! after another, and against the physical floor of running them in parallel on this machine.
//!
//! The fixture is the example project (`examples/polyglot`: tsc, eslint, jest and pytest on small
//! code with deliberate failures). Steps:
//!
//! 1. Install the example's tools, build the release `verdict`, and run it once with
//!    `--format json` to learn the exact argv of each verifier (so the tools alone run the very
//!    commands verdict runs, machine-readable output flags included).
//! 2. Time each tool alone (wall and CPU time of the process tree, from the kernel's accounting of
//!    reaped children), several runs after a warm-up; medians.
//! 3. Time the four one after another (what a shell script does), `verdict run --no-cache`, and a
//!    fully cached `verdict run` on a green copy of the example (`xtask/bench/polyglot-green`
//!    holds the fixed files; only passes are cached).
//! 4. The floor is max(slowest tool alone, total CPU of all tools ÷ cores). Prints a Markdown
//!    table, also written to `target/bench/pipeline.md`.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::capture::repo_root;
use crate::example;

/// Runs the benchmark with `runs` timed runs of each measurement.
pub(crate) fn run(runs: usize) -> Result<()> {
    let example = example::dir();
    example::install(&example)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    duct::cmd!(&cargo, "build", "--release", "-p", "verdict-cli")
        .dir(repo_root())
        .run()
        .context("cargo build --release failed")?;
    let verdict = repo_root().join("target/release/verdict");

    // The commands verdict runs, from its own JSON report.
    let output = Command::new(&verdict)
        .args(["run", "--no-cache", "--format", "json", "-C"])
        .arg(&example)
        .stderr(Stdio::null())
        .output()
        .context("failed to run verdict")?;
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).context("verdict's JSON report")?;
    let mut tools: Vec<(String, Vec<String>)> = Vec::new();
    for verification in report["verifications"].as_array().into_iter().flatten() {
        let name = verification["verifier"].as_str().unwrap_or("?").to_owned();
        let argv: Vec<String> = verification["command"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect();
        if argv.is_empty() {
            bail!("verdict ran no command for {name}: {verification}");
        }
        tools.push((name, argv));
    }
    if tools.len() != 4 {
        bail!(
            "expected four verifiers on the example, verdict ran {}",
            tools.len()
        );
    }

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut alone = Vec::new();
    for (name, argv) in &tools {
        let timing = median_of(runs, || time_command(argv, &example))?;
        alone.push((name.clone(), timing));
    }
    let sequential = median_of(runs, || {
        let mut total = Timing::default();
        for (_, argv) in &tools {
            total = total.add(time_command(argv, &example)?);
        }
        Ok(total)
    })?;
    let verdict_args = |dir: &Path, cache: bool| {
        let mut args = vec!["run".to_owned(), "--format".to_owned(), "json".to_owned()];
        if !cache {
            args.push("--no-cache".to_owned());
        }
        args.push("-C".to_owned());
        args.push(dir.to_string_lossy().into_owned());
        args
    };
    let mut full_argv = vec![verdict.to_string_lossy().into_owned()];
    full_argv.extend(verdict_args(&example, false));
    let full = median_of(runs, || time_command(&full_argv, &example))?;

    let green = green_copy(&example)?;
    let mut cached_argv = vec![verdict.to_string_lossy().into_owned()];
    cached_argv.extend(verdict_args(&green, true));
    // The first run fills the cache (every verifier must pass for that).
    let first = Command::new(&cached_argv[0])
        .args(&cached_argv[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    if !first.success() {
        bail!("the green copy of the example does not pass: {first}");
    }
    let cached = median_of(runs.max(10), || time_command(&cached_argv, &green))?;

    let slowest = alone.iter().map(|(_, t)| t.wall).max().unwrap_or_default();
    let cpu_total: Duration = alone.iter().map(|(_, t)| t.cpu).sum();
    let floor = slowest.max(cpu_total / cores as u32);

    let mut md = String::new();
    writeln!(md, "Machine: {} cores, {}.", cores, cpu_model())?;
    writeln!(
        md,
        "Fixture: examples/polyglot (tsc, eslint, jest, pytest; failing), {runs} runs each, medians.\n"
    )?;
    writeln!(md, "| measurement | wall | CPU |")?;
    writeln!(md, "|---|---:|---:|")?;
    for (name, t) in &alone {
        writeln!(md, "| {name} alone | {} | {} |", ms(t.wall), ms(t.cpu))?;
    }
    writeln!(
        md,
        "| one after another | {} | {} |",
        ms(sequential.wall),
        ms(sequential.cpu)
    )?;
    writeln!(
        md,
        "| floor: max(slowest {}, CPU {} ÷ {cores}) | {} | |",
        ms(slowest),
        ms(cpu_total),
        ms(floor)
    )?;
    writeln!(
        md,
        "| `verdict run --no-cache` | {} | {} |",
        ms(full.wall),
        ms(full.cpu)
    )?;
    writeln!(
        md,
        "| `verdict run`, all cached (green copy) | {} | {} |",
        ms(cached.wall),
        ms(cached.cpu)
    )?;
    writeln!(
        md,
        "\n`verdict run` ÷ floor: {:.2} (goal ≤ 1.10); ÷ one after another: {:.2}; cached run: {} (goal < 50 ms).",
        full.wall.as_secs_f64() / floor.as_secs_f64(),
        full.wall.as_secs_f64() / sequential.wall.as_secs_f64(),
        ms(cached.wall)
    )?;
    print!("{md}");
    let out = repo_root().join("target/bench");
    fs::create_dir_all(&out)?;
    fs::write(out.join("pipeline.md"), md)?;
    Ok(())
}

/// Wall and CPU (user + system, of the whole reaped process tree) time.
#[derive(Debug, Clone, Copy, Default)]
struct Timing {
    wall: Duration,
    cpu: Duration,
}

impl Timing {
    fn add(self, other: Timing) -> Timing {
        Timing {
            wall: self.wall + other.wall,
            cpu: self.cpu + other.cpu,
        }
    }
}

/// One warm-up, then `runs` timed runs; the median of each measure.
fn median_of(runs: usize, mut measure: impl FnMut() -> Result<Timing>) -> Result<Timing> {
    measure()?;
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    for _ in 0..runs.max(1) {
        let t = measure()?;
        walls.push(t.wall);
        cpus.push(t.cpu);
    }
    walls.sort();
    cpus.sort();
    Ok(Timing {
        wall: walls[walls.len() / 2],
        cpu: cpus[cpus.len() / 2],
    })
}

/// Runs `argv` in `dir`, output discarded; any exit code is fine (the fixture fails on purpose).
fn time_command(argv: &[String], dir: &Path) -> Result<Timing> {
    let before = children_cpu()?;
    let start = Instant::now();
    let (program, args) = argv.split_first().context("empty command")?;
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("failed to run {program}"))?;
    let wall = start.elapsed();
    Ok(Timing {
        wall,
        cpu: children_cpu()?.saturating_sub(before),
    })
}

/// CPU time of this process's reaped children and their reaped descendants, from
/// `/proc/self/stat` (cutime + cstime, in clock ticks of 1/100 s on Linux).
fn children_cpu() -> Result<Duration> {
    let stat = fs::read_to_string("/proc/self/stat").context("read /proc/self/stat")?;
    // The command name may hold spaces; fields are counted after its closing parenthesis.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Ok(Duration::from_millis((ticks(13) + ticks(14)) * 10))
}

/// A copy of the example with its failures fixed, sharing its installed tools.
fn green_copy(example: &Path) -> Result<PathBuf> {
    let dir = repo_root().join("target/bench/polyglot-green");
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    copy_sources(example, &dir)?;
    copy_sources(&repo_root().join("xtask/bench/polyglot-green"), &dir)?;
    std::os::unix::fs::symlink(example.join("node_modules"), dir.join("node_modules"))?;
    std::os::unix::fs::symlink(example.join(".venv"), dir.join(".venv"))?;
    Ok(dir)
}

/// Copies a tree, leaving out installed tools and verdict's own state.
fn copy_sources(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if matches!(
            name.to_str(),
            Some("node_modules" | ".venv" | ".verdict" | "__pycache__" | ".pytest_cache")
        ) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type()?.is_dir() {
            copy_sources(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{} ms", d.as_millis())
}

/// The CPU's model name, from `/proc/cpuinfo`.
pub(crate) fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}
