//! Throughput of each summarizer, and of auto-detection, on logs of 100 MiB and more.
//!
//! For each tool with captured logs under `summarizers/testdata/<tool>/`, the bench builds one big
//! log by repeating that tool's logs of failing code (the realistic worst case: a passing log is
//! mostly lines a parser rejects at once, a crash log is a few lines) until it reaches the target
//! size, writes it to the bench
//! directory so that `cargo xtask bench` can run ripgrep over the very same bytes, and measures:
//!
//! - `lines/<tool>`: the shared line reader alone ([`verdict_model::lines`]: splitting, CRLF, ANSI
//!   stripping, UTF-8 checks) feeding a parser that does nothing — the part of every parser's
//!   time that is not the parser's own;
//! - `parse/<tool>`: the tool's own summarizer over the log held in memory (line splitting, ANSI
//!   stripping and parsing: everything but reading the file);
//! - `summarize/<tool>`: the whole `verdict summarize` path without `--tool`: the log split into
//!   the runs it holds ([`verdict_summarizers::sections`]), each run's tool detected from its
//!   start, then parsed by it.
//!
//! Next to each log it writes `<tool>.json`: the logs it was built from, its size, the summarizer
//! detection picked, and what the parse found, so that a misdetection or a parser that stopped
//! understanding the log shows in the results rather than as a suspiciously fast number.
//!
//! Environment: `VERDICT_BENCH_DIR` (default `target/bench/logs`) and `VERDICT_BENCH_MIB` (default
//! 100). Under `cargo test --all-targets` (no `--bench` argument) each log is one copy of its
//! sources and nothing is written, so that the test pass stays quick. Run it through `cargo xtask bench`, which also times ripgrep and prints the table; plain
//! `cargo bench -p verdict-summarizers --bench throughput [FILTER]` works too.

use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use verdict_model::Summarizer;

/// The default size of each generated log, in MiB.
const DEFAULT_MIB: u64 = 100;

/// A tool's generated log, in memory.
struct BenchLog {
    summarizer: &'static dyn Summarizer,
    bytes: Vec<u8>,
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bench_dir() -> PathBuf {
    std::env::var_os("VERDICT_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join("../target/bench/logs"))
}

/// Whether this is a benchmark run (`cargo bench`), rather than the single pass `cargo test
/// --all-targets` makes over every bench to check that it runs.
fn benchmarking() -> bool {
    std::env::args().any(|arg| arg == "--bench")
}

/// How big each generated log is: the target size when benchmarking, one copy of the sources in a
/// test pass, which must stay quick in a debug build.
fn target_bytes() -> u64 {
    if !benchmarking() {
        return 1;
    }
    let mib = std::env::var("VERDICT_BENCH_MIB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&mib| mib > 0)
        .unwrap_or(DEFAULT_MIB);
    mib << 20
}

/// The captured logs of `tool`, sorted by name: those of failing code (the case's name says so —
/// `failing`, `…-errors`, `…-failures`, `many-problems` — and the tool exited non-zero, per
/// `<case>.meta.json`); else every log whose tool exited non-zero; else all of them.
fn source_logs(tool: &str) -> Vec<PathBuf> {
    let dir = manifest_dir().join("testdata").join(tool);
    let Ok(entries) = fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut logs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    let non_zero: Vec<PathBuf> = logs
        .iter()
        .filter(|p| exited_non_zero(p))
        .cloned()
        .collect();
    let failing: Vec<PathBuf> = non_zero
        .iter()
        .filter(|p| names_failing_code(p))
        .cloned()
        .collect();
    [failing, non_zero, logs]
        .into_iter()
        .find(|set| !set.is_empty())
        .unwrap_or_default()
}

/// Whether the case's name says the code under test fails.
fn names_failing_code(log: &Path) -> bool {
    let stem = log.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    stem.split('-')
        .any(|word| matches!(word, "failing" | "failures" | "errors" | "problems"))
}

/// Whether the capture of `log` recorded a non-zero exit code (or none: killed by a signal).
fn exited_non_zero(log: &Path) -> bool {
    let meta = log.with_extension("meta.json");
    let Ok(text) = fs::read_to_string(meta) else {
        return false;
    };
    let Ok(meta) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    meta.get("exit_code").and_then(serde_json::Value::as_i64) != Some(0)
}

/// Repeats the concatenation of `sources` until it holds at least `target` bytes. Each source
/// ends with a newline, so that one log's last line never runs into the next one's first.
fn build(sources: &[PathBuf], target: u64) -> Vec<u8> {
    let mut unit = Vec::new();
    for path in sources {
        let Ok(bytes) = fs::read(path) else { continue };
        unit.extend_from_slice(&bytes);
        if !unit.ends_with(b"\n") {
            unit.push(b'\n');
        }
    }
    if unit.is_empty() {
        return unit;
    }
    let copies = target.div_ceil(unit.len() as u64) as usize;
    unit.repeat(copies)
}

/// Builds, writes and describes the log of every tool that has captured logs.
fn logs() -> Vec<BenchLog> {
    let dir = bench_dir();
    if benchmarking()
        && let Err(error) = fs::create_dir_all(&dir)
    {
        panic!("cannot create {}: {error}", dir.display());
    }
    let target = target_bytes();
    let mut logs = Vec::new();
    for &summarizer in verdict_summarizers::all() {
        let tool = summarizer.name();
        let sources = source_logs(tool);
        let bytes = build(&sources, target);
        if bytes.is_empty() {
            eprintln!("{tool}: no captured logs under summarizers/testdata/{tool}/, skipped");
            continue;
        }
        if !benchmarking() {
            // A test pass leaves the logs of the last benchmark run alone.
            logs.push(BenchLog { summarizer, bytes });
            continue;
        }
        let path = dir.join(format!("{tool}.log"));
        if let Err(error) = fs::write(&path, &bytes) {
            panic!("cannot write {}: {error}", path.display());
        }
        let detected = verdict_summarizers::detect(&verdict_summarizers::sample(&bytes));
        let report = summarizer.parse(&bytes);
        let info = serde_json::json!({
            "tool": tool,
            "bytes": bytes.len(),
            "sources": sources
                .iter()
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect::<Vec<_>>(),
            "detected": detected.summarizer.name(),
            "confidence": detected.confidence,
            "outcome": report.outcome.as_str(),
            "diagnostics": report.diagnostics_found(),
        });
        let info_path = dir.join(format!("{tool}.json"));
        if let Err(error) = fs::write(&info_path, info.to_string()) {
            panic!("cannot write {}: {error}", info_path.display());
        }
        eprintln!(
            "{tool}: {:.0} MiB from {} logs; detected as {} ({}); {} with {} diagnostics",
            bytes.len() as f64 / (1 << 20) as f64,
            sources.len(),
            detected.summarizer.name(),
            detected.confidence,
            report.outcome.as_str(),
            report.diagnostics_found(),
        );
        logs.push(BenchLog { summarizer, bytes });
    }
    logs
}

fn throughput(c: &mut Criterion) {
    let logs = logs();
    for measured in [Measured::Lines, Measured::Parse, Measured::Summarize] {
        let mut group = c.benchmark_group(measured.group());
        // Each iteration takes a large fraction of a second: few samples, one iteration each.
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(5));
        for log in &logs {
            group.throughput(Throughput::Bytes(log.bytes.len() as u64));
            let bytes = &log.bytes[..];
            let summarizer = log.summarizer;
            group.bench_function(summarizer.name(), |b| match measured {
                Measured::Lines => b.iter(|| {
                    verdict_model::lines::for_each_line_in(black_box(bytes), |line| {
                        black_box(line);
                    })
                }),
                Measured::Parse => b.iter(|| summarizer.parse(black_box(bytes))),
                Measured::Summarize => {
                    b.iter(|| verdict_summarizers::summarize_all(black_box(bytes)))
                }
            });
        }
        group.finish();
    }
}

/// What is measured on each log.
#[derive(Clone, Copy)]
enum Measured {
    /// The shared line reader alone (splitting, CRLF, ANSI stripping, UTF-8 checks), feeding a
    /// parser that does nothing: the floor every parser's time includes.
    Lines,
    /// The tool's own summarizer.
    Parse,
    /// Sample, detection, and the parse by the summarizer detected.
    Summarize,
}

impl Measured {
    fn group(self) -> &'static str {
        match self {
            Measured::Lines => "lines",
            Measured::Parse => "parse",
            Measured::Summarize => "summarize",
        }
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);
