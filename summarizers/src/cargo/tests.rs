//! Unit tests of the cargo summarizer on small logs; the captured logs are in `tests/`.

use verdict_model::{Kind, Outcome, Report, Summarizer};

use super::CargoSummarizer;
use super::compiler::{due_to, generated, short_diagnostic};

fn parse(log: &str) -> Report {
    CargoSummarizer.parse(log.as_bytes())
}

#[test]
fn rustc_error_with_code_location_and_label() {
    let report = parse(
        "error[E0308]: mismatched types\n --> src/lib.rs:21:5\n   |\n20 | pub fn version() -> u32 {\n   |                     --- expected `u32` because of return type\n21 |     \"1.0\"\n   |     ^^^^^ expected `u32`, found `&str`\n\nerror: could not compile `broken` (lib) due to 1 previous error\n",
    );
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.errors, Some(1));
    let d = &report.diagnostics[0];
    assert_eq!(d.code.as_deref(), Some("E0308"));
    assert_eq!(d.location().as_deref(), Some("src/lib.rs:21:5"));
    assert_eq!(d.detail.as_deref(), Some("expected `u32`, found `&str`"));
}

#[test]
fn clippy_lint_takes_its_name_from_the_help_link() {
    let report = parse(
        "warning: the loop variable `i` is only used to index `values`\n --> src/lib.rs:7:14\n  |\n7 |     for i in 0..values.len() {\n  |              ^^^^^^^^^^^^^^^\n  |\n  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#needless_range_loop\n  = note: `#[warn(clippy::needless_range_loop)]` on by default\n\nwarning: `clippy` (lib) generated 1 warning\n",
    );
    assert_eq!(report.outcome, Outcome::Passed);
    assert_eq!(report.counts.warnings, Some(1));
    assert_eq!(
        report.diagnostics[0].code.as_deref(),
        Some("clippy::needless_range_loop")
    );
    assert_eq!(report.diagnostics[0].kind, Kind::Lint);
}

#[test]
fn old_style_panic_and_old_compile_summary() {
    let report = parse(
        "running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\nthread 't' panicked at 'assertion failed: `(left == right)`\n  left: `1`,\n right: `2`', src/lib.rs:5:9\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n",
    );
    assert_eq!(report.outcome, Outcome::Failed);
    let d = &report.diagnostics[0];
    assert_eq!(d.test.as_deref(), Some("t"));
    assert_eq!(d.location().as_deref(), Some("src/lib.rs:5:9"));
    assert_eq!(d.message, "assertion failed: `(left == right)`");
    assert_eq!(d.detail.as_deref(), Some("left: `1`, right: `2`"));
    assert_eq!(
        due_to("error: could not compile `x` due to previous error"),
        Some(1)
    );
}

#[test]
fn cargo_errors_without_a_build_are_errored() {
    let report = parse(
        "error: failed to load manifest for dependency `shop-utils`\n\nCaused by:\n  failed to read `/x/Cargo.toml`\n\nCaused by:\n  No such file or directory (os error 2)\n",
    );
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some(
            "failed to load manifest for dependency `shop-utils`: failed to read `/x/Cargo.toml`: No such file or directory (os error 2)"
        )
    );
}

#[test]
fn warnings_less_duplicates() {
    assert_eq!(
        generated("`a` (lib test) generated 1 warning (1 duplicate)"),
        Some(0)
    );
    assert_eq!(
        generated(
            "`a` (lib) generated 8 warnings (run `cargo fix --lib -p a` to apply 5 suggestions)"
        ),
        Some(8)
    );
}

#[test]
fn diagnostics_beyond_the_cap_are_counted() {
    let n = verdict_model::model::MAX_DIAGNOSTICS + 5;
    let log: String = (0..n)
        .map(|i| format!("error[E0308]: mismatched types\n --> src/a.rs:{i}:1\n\n"))
        .collect();
    let report = parse(&log);
    assert_eq!(report.diagnostics_found(), n as u64);
}

/// A log that merged stdout and stderr mid-line: cargo's `error: test failed` after libtest's
/// unfinished `test tests::fine ... ` of a binary that then crashed. The crash was lost, and
/// the run errored as a binary that ended before its summary.
#[test]
fn cargo_error_glued_to_an_unfinished_test_line_is_read() {
    let report = parse(
        "     Running unittests src/lib.rs (target/debug/deps/segv-1)\n\nrunning 2 tests\ntest tests::fine ... error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `target/debug/deps/segv-1` (signal: 11, SIGSEGV: invalid memory reference)\n   Doc-tests segv\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nerror: 1 target failed:\n    `--lib`\n",
    );
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert!(
        report.diagnostics[0].message.contains("SIGSEGV"),
        "{report:#?}"
    );
}

#[test]
fn garbage_does_not_panic() {
    for log in [
        "error",
        "error[",
        "error[E0308]",
        "thread '",
        "thread 'x' panicked at ",
        "---- x stdout ----\n",
        "test result: ",
        "{\"reason\":\"compiler-message\"",
        "error: x\n  \n",
        "--> :",
    ] {
        let _ = parse(log);
    }
}

/// A terminal 80 columns wide cuts cargo's summary inside its count; copied from there, the
/// log holds it on two lines. The count is read whole, and the warnings after it too.
#[test]
fn a_summary_cut_at_the_terminals_width_is_read_whole() {
    let summary = "error: could not compile `verdict-core` (lib) due to 106 previous errors; 2 warnings emitted";
    let (cut, rest) = summary.split_at(80);
    let report = parse(&format!(
        "src\\main.rs:12:9: error[E0308]: mismatched types\n{cut}\n{rest}\n"
    ));
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.errors, Some(106));
    assert_eq!(report.counts.warnings, Some(2));
    // Cut inside the count (a narrower terminal, or a longer package name).
    let (cut, rest) = summary.split_at(summary.find("6 previous").unwrap_or(0));
    let report = parse(&format!("{cut}\n{rest}\n\n"));
    assert_eq!(report.counts.errors, Some(106));
    // A summary that ends where its line does is read as it is.
    let report = parse(
        "error: could not compile `x` (lib) due to 3 previous errors\nerror: could not compile `y` (lib) due to 1 previous error\n",
    );
    assert_eq!(report.counts.errors, Some(4));
}

#[test]
fn short_message_format_places_each_diagnostic() {
    let report = parse(
        "    Checking app v0.1.0 (/w/app)\nsrc/lib.rs:1:5: warning: unused import: `std::fmt`\nsrc\\main.rs:12:9: error[E0308]: mismatched types\nerror: could not compile `app` (lib) due to 1 previous error; 1 warning emitted\n",
    );
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.errors, Some(1));
    let places: Vec<_> = report.diagnostics.iter().map(|d| d.location()).collect();
    assert_eq!(
        places,
        [
            Some("src/lib.rs:1:5".to_owned()),
            Some("src\\main.rs:12:9".to_owned())
        ]
    );
    assert_eq!(report.diagnostics[1].code.as_deref(), Some("E0308"));
    assert!(short_diagnostic("note: see issue 12:5: error").is_none());
    assert!(short_diagnostic("   --> src/lib.rs:1:5: error: x").is_none());
}

/// Cargo before 1.36 capitalised its summary and ended with `error: build failed`.
#[test]
fn old_cargo_summaries_are_cargo_s_own() {
    let report = parse(
        "error[E0308]: mismatched types\n --> src/lib.rs:1:1\n\nerror: aborting due to previous error\n\nerror: Could not compile `x`.\n\nTo learn more, run the command again with --verbose.\nerror: build failed\n",
    );
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.errors, Some(1));
    assert_eq!(report.diagnostics.len(), 1, "{report:#?}");
}

/// libtest of 2016 indented the panic by a tab: the failure had no place.
#[test]
fn a_tab_indented_old_panic_is_placed() {
    let report = parse(
        "running 1 test\ntest t ... FAILED\n\nfailures:\n\n---- t stdout ----\n\tthread 't' panicked at 'boom', tests/a.rs:9\n\n\nfailures:\n    t\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured\n\nerror: test failed\n",
    );
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(
        report.diagnostics[0].location().as_deref(),
        Some("tests/a.rs:9")
    );
    assert_eq!(report.diagnostics[0].message, "boom");
}

/// A library missing from the machine made the build fail, not the code.
#[test]
fn a_missing_system_library_is_not_a_code_failure() {
    let report = parse(
        "error: linking with `cc` failed: exit status: 1\n  |\n  = note: rust-lld: error: unable to find library -lXrandr\n\n\nerror: could not compile `x` (lib test) due to 1 previous error\n",
    );
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(report.error.is_some_and(|e| e.contains("-lXrandr")));
    let report = parse(
        "error: linking with `cc` failed: exit status: 1\n  |\n  = note: rust-lld: error: undefined symbol: foo\n\n\nerror: could not compile `x` (bin \"x\") due to 1 previous error\n",
    );
    assert_eq!(report.outcome, Outcome::Failed);
}

/// A build cut off while compiling (cargo killed, out of memory) was a pass: no error, no
/// failing test.
#[test]
fn a_build_cut_off_while_compiling_is_not_a_pass() {
    let report = parse("   Compiling libc v0.2.150\n   Compiling app v0.1.0 (/work/app)\n");
    assert_eq!(report.outcome, Outcome::Errored);
    assert!(report.error.is_some_and(|e| e.contains("Compiling app")));
    let report = parse(
        "   Compiling app v0.1.0 (/work/app)\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 0.50s\n",
    );
    assert_eq!(report.outcome, Outcome::Passed);
}
