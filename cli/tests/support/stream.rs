//! A large input generated on the fly and streamed through `verdict`, with its peak memory
//! measured exactly.
//!
//! Why a launcher process: on Linux, a child's `ru_maxrss` is at least the resident set of the
//! process that spawned it, because `execve` records the high-water mark of the memory image it
//! replaces — and after the `vfork` std spawns with, that image is the parent's. This test binary
//! holds captured logs and the buffers of the tests that run next to it, so measured from here a
//! `verdict` that peaks at 5 MiB could look like 70. So the test re-runs its own binary, with only
//! itself selected, as a small launcher: the launcher spawns `verdict` before it allocates
//! anything, generates the input while `verdict` reads it, reaps it with `wait4(2)`, and reports
//! back on stdout. What `verdict` can have inherited is then at most the launcher's resident set at
//! the spawn, which is measured and reported too.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::{Run, assert_sane, rusage};

/// The environment variable that makes a test run as the launcher; its value is the test's name.
const LAUNCHER: &str = "VERDICT_TEST_LAUNCHER";

/// The start of the line on which the launcher reports.
const MARKER: &str = "verdict-test-launcher: ";

/// What a streamed run of `verdict` did, and what it cost.
#[derive(Debug)]
pub(crate) struct Streamed {
    /// The run itself.
    pub(crate) run: Run,
    /// How many bytes of input `verdict` accepted before it closed its stdin.
    pub(crate) fed: u64,
    /// Its peak resident set size in MiB, as the kernel accounted it (`ru_maxrss`).
    pub(crate) peak_rss_mib: f64,
    /// The launcher's peak resident set when it spawned `verdict`: the most of
    /// [`Streamed::peak_rss_mib`] that can be the launcher's rather than `verdict`'s.
    pub(crate) inherited_mib: f64,
    /// Its CPU time, user and system.
    pub(crate) cpu: Duration,
    /// Wall time of the run.
    pub(crate) elapsed: Duration,
}

impl Streamed {
    /// One line for the test's output: the numbers BENCHMARKS.md and reviews want.
    pub(crate) fn describe(&self, what: &str) -> String {
        format!(
            "{what}: {:.1} s wall, {:.1} s CPU, peak RSS {:.1} MiB (of which at most {:.1} MiB \
             inherited from the launcher)",
            self.elapsed.as_secs_f64(),
            self.cpu.as_secs_f64(),
            self.peak_rss_mib,
            self.inherited_mib
        )
    }
}

/// Runs `verdict ARGS` on `len` bytes of input: the bytes `unit` returns, repeated, the last copy
/// cut short. `test` is the calling test's full name in the test binary (`cli::…`): the launcher
/// re-runs exactly that test.
pub(crate) fn stream(test: &str, args: &[&str], unit: fn() -> Vec<u8>, len: u64) -> Streamed {
    if std::env::var(LAUNCHER).as_deref() == Ok(test) {
        launch(args, unit, len);
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = Command::new(&exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(LAUNCHER, test)
        .stdin(Stdio::null())
        .output()
        .expect("failed to start the launcher");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let Some(report) = stdout.lines().find_map(|l| Some(l.split_once(MARKER)?.1)) else {
        panic!(
            "the launcher reported nothing ({}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let json: serde_json::Value = serde_json::from_str(report).expect("the launcher's report");
    let text = |key: &str| json[key].as_str().unwrap_or_default().to_owned();
    let number = |key: &str| json[key].as_f64().unwrap_or(f64::NAN);
    let code = json["code"].as_i64().and_then(|c| i32::try_from(c).ok());
    let run = Run {
        code: code.unwrap_or(-1),
        stdout: text("stdout"),
        stderr: text("stderr"),
    };
    assert_sane(&format!("verdict {}", args.join(" ")), code, &run.stderr);
    Streamed {
        run,
        fed: json["fed"].as_u64().unwrap_or(0),
        peak_rss_mib: number("peak_rss_kib") / 1024.0,
        inherited_mib: number("inherited_kib") / 1024.0,
        cpu: Duration::from_secs_f64(number("cpu_s")),
        elapsed: Duration::from_secs_f64(number("elapsed_s")),
    }
}

/// The launcher: spawns `verdict` at once, feeds it, reaps it, prints the report and exits.
#[allow(
    clippy::zombie_processes,
    reason = "the child is reaped by rusage::wait"
)]
fn launch(args: &[&str], unit: fn() -> Vec<u8>, len: u64) -> ! {
    let inherited_kib = own_peak_rss_kib();
    let start = Instant::now();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("failed to start verdict");
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("all three streams are piped");
    };
    let out = drain(stdout);
    let err = drain(stderr);
    let feeder = thread::spawn(move || -> u64 {
        let unit = unit();
        assert!(!unit.is_empty(), "nothing to repeat");
        let mut fed = 0u64;
        while fed < len {
            let n = unit
                .len()
                .min(usize::try_from(len - fed).unwrap_or(usize::MAX));
            // verdict closing its stdin early is an answer the test checks, not an error here.
            if stdin.write_all(&unit[..n]).is_err() {
                break;
            }
            fed += n as u64;
        }
        fed
    });
    let usage = rusage::wait(child.id()).expect("wait4 failed");
    let report = serde_json::json!({
        "code": usage.status.code(),
        "stdout": out.join().unwrap_or_default(),
        "stderr": err.join().unwrap_or_default(),
        "fed": feeder.join().unwrap_or(0),
        "peak_rss_kib": usage.peak_rss_kib,
        "inherited_kib": inherited_kib,
        "cpu_s": usage.cpu.as_secs_f64(),
        "elapsed_s": start.elapsed().as_secs_f64(),
    });
    let mut stdout = std::io::stdout().lock();
    // A newline first: the test harness may have started a line of its own.
    let _ = writeln!(stdout, "\n{MARKER}{report}");
    let _ = stdout.flush();
    std::process::exit(0);
}

/// This process's peak resident set so far (`VmHWM`), in KiB.
fn own_peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

/// Reads a pipe to its end on a thread of its own, so that a full pipe never blocks the child.
fn drain(mut pipe: impl Read + Send + 'static) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = Vec::new();
        let _ = pipe.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    })
}
