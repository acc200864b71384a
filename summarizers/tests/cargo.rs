//! The cargo summarizer against every captured cargo log in `testdata/cargo/`.
//!
//! Each log is checked against the ground truth captured with it: cargo's `--message-format=json`
//! for builds (every error and warning at its file and line, and cargo's error count), libtest's
//! JSON events for test runs (every failing test, where it panicked, and the summed counts). Logs
//! without a truth are cargo's own failures and must be errored. Each report is also snapshotted.

use crate::support;
use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_model::{Outcome, Report, Severity, Summarizer};
use verdict_summarizers::cargo::CargoSummarizer;

fn testdata() -> PathBuf {
    support::testdata("cargo")
}

/// The `{…}` lines of a truth file (cargo interleaves its own stderr lines with them).
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// `file:line:col` after `panicked at ` in a failed test's output.
fn panic_location(stdout: &str) -> Option<(String, u32)> {
    let rest = &stdout[stdout.find("panicked at ")? + "panicked at ".len()..];
    let location = rest.lines().next()?.trim_end_matches(':');
    let mut parts = location.rsplitn(3, ':');
    let _column = parts.next()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?.to_owned(), line))
}

fn check_build_truth(case: &str, report: &Report, truth: &[Value]) {
    let mut errors = 0;
    let mut warnings = HashSet::new();
    for value in truth {
        if value["reason"] != "compiler-message" {
            continue;
        }
        let message = &value["message"];
        let level = message["level"].as_str().unwrap_or("");
        let span = message["spans"]
            .as_array()
            .and_then(|spans| spans.iter().find(|s| s["is_primary"] == true));
        if level == "error" {
            errors += 1;
        }
        if level == "warning" {
            warnings.insert(message.to_string());
        }
        let Some(mut span) = span else { continue };
        // A span inside std's macros is shown at the macro's call in the package's code.
        while span["file_name"]
            .as_str()
            .is_some_and(|f| f.starts_with('/'))
            && span["expansion"]["span"].is_object()
        {
            span = &span["expansion"]["span"];
        }
        let file = span["file_name"].as_str().unwrap_or("");
        let line = span["line_start"].as_u64().unwrap_or(0) as u32;
        let severity = if level == "error" {
            Severity::Error
        } else {
            Severity::Warning
        };
        let code = message["code"]["code"].as_str();
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.file.as_deref() == Some(file)
                    && d.line == Some(line)
                    && d.severity == severity
                    && (code.is_none() || d.code.as_deref() == code)),
            "{case}: no diagnostic for {level} {code:?} at {file}:{line} ({})",
            message["message"]
        );
    }
    assert_eq!(
        report.counts.errors.unwrap_or(0),
        errors,
        "{case}: error count"
    );
    if !warnings.is_empty() {
        assert_eq!(
            report.counts.warnings,
            Some(warnings.len() as u64),
            "{case}: warning count"
        );
    }
}

/// What the truth says of a test run: the counts, and whether a test binary ended before its
/// summary without cargo seeing it fail (nothing verified the rest of its tests).
struct TestTruth {
    passed: u64,
    failed: u64,
    ignored: u64,
    incomplete: bool,
}

/// One test binary in the truth, from cargo's `Running …` / `Doc-tests …` line to the next.
#[derive(Default)]
struct TruthSection {
    started: bool,
    finished: bool,
    /// The failures its summary counts.
    suite_failed: u64,
    /// Tests libtest reported one by one: passed, failed, ignored.
    reported: [u64; 3],
    /// cargo said the target failed (`error: test failed, to rerun pass …`).
    target_failed: bool,
}

impl TruthSection {
    /// Adds a finished section to the counts: a binary that ended without its summary counts
    /// what it reported, and once more as a failure when cargo saw the target fail (a crash, an
    /// early exit, a `harness = false` target exiting non-zero).
    fn close(self, truth: &mut TestTruth) {
        if self.finished {
            if self.target_failed && self.suite_failed == 0 {
                // A summary without failures, yet the target failed (a crash at exit).
                truth.failed += 1;
            }
            return;
        }
        truth.passed += self.reported[0];
        truth.failed += self.reported[1];
        truth.ignored += self.reported[2];
        if self.target_failed {
            truth.failed += 1;
        } else if self.started {
            truth.incomplete = true;
        }
    }
}

fn check_test_truth(case: &str, report: &Report, text: &str) -> TestTruth {
    let mut truth = TestTruth {
        passed: 0,
        failed: 0,
        ignored: 0,
        incomplete: false,
    };
    let mut section = TruthSection::default();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("Running ") || trimmed.starts_with("Doc-tests ") {
            std::mem::take(&mut section).close(&mut truth);
            continue;
        }
        if line.starts_with("error: test failed, to rerun pass")
            || line.starts_with("error: doctest failed, to rerun pass")
        {
            section.target_failed = true;
            continue;
        }
        if !line.starts_with('{') {
            continue;
        }
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match (value["type"].as_str(), value["event"].as_str()) {
            (Some("suite"), Some("started")) => {
                // With `-q` cargo prints no `Running …` line: the next binary's start ends the
                // section.
                if section.started {
                    std::mem::take(&mut section).close(&mut truth);
                }
                section.started = true;
            }
            (Some("suite"), Some("ok" | "failed")) => {
                section.finished = true;
                section.suite_failed = value["failed"].as_u64().unwrap_or(0);
                truth.passed += value["passed"].as_u64().unwrap_or(0);
                truth.failed += value["failed"].as_u64().unwrap_or(0);
                truth.ignored += value["ignored"].as_u64().unwrap_or(0);
            }
            (Some("test"), Some("ok")) => section.reported[0] += 1,
            (Some("test"), Some("ignored")) => section.reported[2] += 1,
            (Some("test"), Some("failed")) => {
                section.reported[1] += 1;
                let name = value["name"].as_str().unwrap_or("");
                let found: Vec<_> = report
                    .diagnostics
                    .iter()
                    .filter(|d| d.test.as_deref() == Some(name))
                    .collect();
                assert!(!found.is_empty(), "{case}: no diagnostic for test {name}");
                let stdout = value["stdout"].as_str().unwrap_or("");
                // Doc-tests are placed at their line in the documented file, not in the
                // generated test program their panic points into.
                if !name.contains(" - ")
                    && let Some((file, line)) = panic_location(stdout)
                {
                    assert!(
                        found
                            .iter()
                            .any(|d| d.file.as_deref() == Some(&*file) && d.line == Some(line)),
                        "{case}: test {name} not placed at {file}:{line}: {found:?}"
                    );
                }
            }
            _ => {}
        }
    }
    section.close(&mut truth);
    assert_eq!(
        report.counts.tests_passed,
        Some(truth.passed),
        "{case}: passed"
    );
    assert_eq!(
        report.counts.tests_failed,
        Some(truth.failed),
        "{case}: failed"
    );
    assert_eq!(
        report.counts.tests_skipped,
        Some(truth.ignored),
        "{case}: ignored"
    );
    truth
}

/// Checks one captured case against its truth and meta, and snapshots its report.
fn check(case: &str) {
    let dir = testdata();
    let log = fs::read(dir.join(format!("{case}.log"))).expect("log");
    let meta = support::meta("cargo", case);
    let report = CargoSummarizer.parse(&log);
    let exit_code = meta["exit_code"].as_i64();

    if exit_code != Some(0) {
        assert_ne!(
            report.outcome,
            Outcome::Passed,
            "{case}: a failure is never a pass"
        );
    }

    let truth_path = dir.join(format!("{case}.truth.jsonl"));
    match fs::read_to_string(&truth_path) {
        Ok(text) => {
            let truth = json_lines(&text);
            let incomplete = if truth.iter().any(|v| v.get("type").is_some()) {
                check_test_truth(case, &report, &text).incomplete
            } else {
                check_build_truth(case, &report, &truth);
                false
            };
            if incomplete {
                // A test binary ended before its summary with cargo none the wiser (a test
                // called `process::exit(0)`): whatever cargo's exit, nothing verified the rest.
                assert_eq!(report.outcome, Outcome::Errored, "{case}: incomplete");
                assert!(report.error.is_some(), "{case}: says why");
            } else if exit_code == Some(0) {
                assert_eq!(report.outcome, Outcome::Passed, "{case}: exit 0 is a pass");
            } else {
                assert_eq!(report.outcome, Outcome::Failed, "{case}: the code fails");
            }
        }
        Err(_) => {
            if exit_code == Some(0) {
                assert_eq!(report.outcome, Outcome::Passed, "{case}: exit 0 is a pass");
            }
            assert_eq!(
                report.outcome,
                Outcome::Errored,
                "{case}: nothing was built"
            );
            assert!(report.error.is_some(), "{case}: says why");
        }
    }
    insta::assert_json_snapshot!(case.to_owned(), report);
}

/// The report of one captured case.
fn report_of(case: &str) -> Report {
    CargoSummarizer.parse(&support::log("cargo", case))
}

/// (passed, failed, skipped) of a report.
fn test_counts(report: &Report) -> (Option<u64>, Option<u64>, Option<u64>) {
    (
        report.counts.tests_passed,
        report.counts.tests_failed,
        report.counts.tests_skipped,
    )
}

#[test]
fn a_result_line_a_failing_test_prints_is_its_output_not_a_summary() {
    // The test prints `test result: ok. 10 passed; …`, then panics.
    let report = report_of("test-printed-results");
    assert_eq!(test_counts(&report), (Some(1), Some(1), Some(1)));
    let failures: Vec<_> = report
        .errors()
        .map(|d| {
            (
                d.test.as_deref(),
                d.file.as_deref(),
                d.line,
                d.message.as_str(),
            )
        })
        .collect();
    assert_eq!(
        failures,
        [(
            Some("tests::prints_a_result_then_fails"),
            Some("src/lib.rs"),
            Some(12),
            "real failure"
        )]
    );
}

#[test]
fn failure_lines_a_passing_test_leaks_to_stdout_do_not_fail_it() {
    // `test inner::thing ... FAILED` and `test result: FAILED. …` written past libtest's capture.
    let report = report_of("test-leaked-output");
    assert_eq!(report.outcome, Outcome::Passed, "{report:#?}");
    assert_eq!(test_counts(&report), (Some(1), Some(0), Some(0)));
    assert!(report.diagnostics.is_empty(), "{report:#?}");
}

#[test]
fn a_crashed_test_binary_is_one_failure_in_the_counts() {
    // libtest reported `fine ... ok`, then the binary died of SIGSEGV.
    let report = report_of("test-segv");
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(test_counts(&report), (Some(1), Some(1), Some(0)));
    let failures: Vec<_> = report
        .errors()
        .map(|d| (d.test.as_deref(), d.message.as_str()))
        .collect();
    assert_eq!(
        failures,
        [(
            Some("--lib"),
            "the test binary crashed (signal: 11, SIGSEGV: invalid memory reference)"
        )]
    );
}

#[test]
fn a_failing_harness_false_target_is_reported_with_its_output() {
    let report = report_of("test-custom-harness");
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(test_counts(&report), (Some(1), Some(2), Some(0)));
    let target = report
        .errors()
        .find(|d| d.test.as_deref() == Some("--test custom"))
        .expect("the custom target's failure");
    assert_eq!(target.message, "the test target failed (exit status: 1)");
    assert_eq!(
        target.detail.as_deref(),
        Some("custom harness: checking things; check 3 failed: expected 4 got 5")
    );
}

#[test]
fn a_harness_false_target_keeps_its_output_read_before_cargo_s_lines() {
    // verdict reads a tool's two pipes as data arrives: the target's first line (standard
    // output) can come before cargo's `test failed` for the binary before it and before
    // `Running` (standard error), which cargo wrote first.
    let text = String::from_utf8(support::log("cargo", "test-custom-harness").to_vec())
        .expect("the capture is UTF-8");
    let own = "custom harness: checking things\n";
    let result = "test result: FAILED. 1 passed; 1 failed;";
    let mut moved = text.replacen(own, "", 1);
    let at = moved.find(result).expect("the lib's result")
        + moved[moved.find(result).expect("the lib's result")..]
            .find('\n')
            .expect("its line end")
        + 1;
    moved.insert_str(at, own);
    assert_ne!(moved, text);
    let report = CargoSummarizer.parse(moved.as_bytes());
    let target = report
        .errors()
        .find(|d| d.test.as_deref() == Some("--test custom"))
        .expect("the custom target's failure");
    assert_eq!(
        target.detail.as_deref(),
        Some("custom harness: checking things; check 3 failed: expected 4 got 5")
    );
    assert_eq!(test_counts(&report), (Some(1), Some(2), Some(0)));
}

#[test]
fn a_test_binary_that_exits_0_before_its_summary_is_errored_saying_so() {
    let report = report_of("test-exits-early");
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some(
            "a test binary ended before its summary (1 of 3 tests reported) and cargo did not \
             see it fail: a test may have called `process::exit`"
        )
    );
}

#[test]
fn a_should_panic_test_that_panics_with_another_message_says_what_it_expected() {
    let report = report_of("test-should-panic");
    let failure = report
        .errors()
        .find(|d| d.test.as_deref() == Some("tests::panics_with_another_message"))
        .expect("the failure");
    assert_eq!(failure.message, "bang");
    assert_eq!(
        failure.detail.as_deref(),
        Some("panic did not contain expected string \"boom\"")
    );
}

#[test]
fn nocapture_panics_in_the_quiet_format_end_at_the_tests_result() {
    // `-q -- --nocapture`: each panic is followed by libtest's terse progress (` 2/17`, `.`),
    // the test's `x --- FAILED` line and whatever the next test prints (`Error: …`).
    let report = report_of("test-quiet-nocapture");
    let garbage = report.errors().find(|d| {
        d.detail
            .as_deref()
            .is_some_and(|detail| detail.contains("/17") || detail.contains("Error:"))
    });
    assert!(garbage.is_none(), "{garbage:#?}");
    let failure = report
        .errors()
        .find(|d| d.test.as_deref() == Some("money::tests::rejects_garbage"))
        .expect("the failure");
    assert_eq!(
        (failure.location().as_deref(), failure.detail.as_deref()),
        (Some("src/money.rs:24:28"), None)
    );
}

#[test]
fn a_doc_test_that_does_not_compile_under_nocapture_keeps_its_name() {
    // rustdoc's `Couldn't compile the test.` has no line end: the terse format's line became
    // `Couldn't compile the test.alpha/src/lib.rs - add (line 7) --- FAILED`.
    let report = report_of("test-doctest-nocapture");
    let mut tests: Vec<&str> = report.errors().filter_map(|d| d.test.as_deref()).collect();
    tests.sort_unstable();
    assert_eq!(
        tests,
        [
            "alpha/src/lib.rs - add (line 3)",
            "alpha/src/lib.rs - add (line 7)",
            "integ_fail",
            "integ_unwrap",
            "tests::bad_eq",
            "tests::divz",
            "tests::gprint",
            "tests::multi_line",
            "tests::res_err",
            "tests::sp_mismatch",
            "tests::sp_nopanic",
        ]
    );
    // Its block holds only libtest's note; the panic, printed as it happened, says where.
    let mismatch = report
        .errors()
        .find(|d| d.test.as_deref() == Some("tests::sp_mismatch"))
        .expect("the should_panic failure");
    assert_eq!(
        (mismatch.location().as_deref(), mismatch.message.as_str()),
        (Some("alpha/src/lib.rs:17:67"), "bang")
    );
}

#[test]
fn a_link_error_says_which_symbol_is_undefined() {
    for (case, message) in [
        (
            "build-link-error",
            "linking with `cc` failed: exit status: 1: undefined symbol: verdict_missing_symbol",
        ),
        (
            "build-link-error-bfd",
            "linking with `cc` failed: exit status: 1: undefined reference to \
             `verdict_missing_symbol'",
        ),
    ] {
        let report = report_of(case);
        let errors: Vec<&str> = report.errors().map(|d| d.message.as_str()).collect();
        assert_eq!(errors, [message], "{case}");
    }
}

#[test]
fn a_failed_build_script_is_reported_with_its_reason_not_its_directives() {
    // openssl-sys prints some sixty `cargo:` directives on standard output before it panics;
    // the panic is the reason. The build script's path and backtrace say nothing.
    for (case, error) in [
        (
            "build-script-openssl",
            "failed to run custom build command for `openssl-sys v0.9.118`: process didn't exit \
             successfully (exit status: 101): panicked at ~/.cargo/registry/src/\
             index.crates.io-1949cf8c6b5b557f/openssl-sys-0.9.118/build/main.rs:207:9: OpenSSL \
             include directory does not exist: /nonexistent/openssl/include",
        ),
        (
            "build-script-panic",
            "failed to run custom build command for `bsp v0.1.0 (/tmp/helper-rp/bsp)`: process \
             didn't exit successfully (exit status: 101): panicked at build.rs:2:54: \
             VERDICT_NEEDED_CONFIG must be set: NotPresent",
        ),
    ] {
        let report = report_of(case);
        assert_eq!(report.outcome, Outcome::Errored, "{case}");
        assert_eq!(report.error.as_deref(), Some(error), "{case}");
    }
}

/// Everything checked of each captured log: its truth, its detection and its sections.
fn check_log(tool: &str, case: &str) {
    check(case);
    assert_eq!(support::detected(tool, case), tool, "{case}");
    support::check_sections(tool, case);
}

/// One test per captured log of `testdata/cargo/`.
mod logs {
    crate::support::logs::cargo!(super::check_log);
}
