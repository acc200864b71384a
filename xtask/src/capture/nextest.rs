//! Capture cases for `nextest` (`cargo nextest run`): failures, a crash, a time-out, retries and a
//! flaky test, fail-fast, the output formats before and after the summary, a run with no test and
//! a build that fails.
//!
//! cargo-nextest must be installed (`cargo install cargo-nextest --locked`). The ground truth is
//! nextest's own JUnit report, which the fixture's `.config/nextest.toml` has every run write; the
//! target directory is the project's own, so that it is found there and every capture starts from
//! a fresh one (the flaky test counts its tries in it).

use super::{Case, Program, Truth, strings};

/// `env` by its absolute path (see the cargo cases).
const ENV_PROGRAM: &str = "/usr/bin/env";

/// The environment of every run, as `env` arguments: colour off as in CI unless a case asks for
/// it, and `RUST_BACKTRACE` fixed so that a developer's shell does not change the logs.
const ENV: [&str; 3] = [
    "CARGO_TARGET_DIR=target",
    "CARGO_TERM_COLOR=never",
    "RUST_BACKTRACE=0",
];

/// Where the JUnit report of the default profile goes, relative to the project.
const JUNIT: &str = "target/nextest/default/junit.xml";

/// A case running `cargo nextest run <args>` in `project`, with `extra` environment.
fn case(name: &'static str, project: &'static str, extra: &[&str], args: &[&str]) -> Case {
    let mut all: Vec<&str> = ENV.to_vec();
    all.extend_from_slice(extra);
    all.extend_from_slice(&["cargo", "nextest", "run"]);
    all.extend_from_slice(args);
    let mut case = Case::new("nextest", name, project, Program::System(ENV_PROGRAM), &[]);
    case.args = strings(&all);
    case.version_args = strings(&["cargo", "nextest", "--version"]);
    case
}

/// A case whose run writes the JUnit report.
fn with_junit(name: &'static str, extra: &[&str], args: &[&str]) -> Case {
    case(name, "demo", extra, args).truth(Truth::File(JUNIT), "xml")
}

/// The nextest cases.
pub(crate) fn cases() -> Vec<Case> {
    let retried = "test(flaky) | test(adds_wrong) | test(integration_ok) | test(leaky)";
    vec![
        with_junit("failing", &[], &["--no-fail-fast"]),
        with_junit(
            "failing-backtrace",
            &["RUST_BACKTRACE=1"],
            &["--no-fail-fast"],
        ),
        with_junit("failing-color", &[], &["--no-fail-fast", "--color=always"]),
        // The first failure cancels the rest: `3/12 tests run` and a warning.
        with_junit("fail-fast", &[], &[]),
        with_junit(
            "retries",
            &[],
            &["--no-fail-fast", "--retries", "1", "-E", retried],
        ),
        // The output only after the summary, unindented.
        with_junit(
            "final-output-no-indent",
            &[],
            &[
                "--no-fail-fast",
                "--no-output-indent",
                "--failure-output",
                "final",
                "-E",
                "test(adds_wrong) | test(returns_err) | test(aborts)",
            ],
        ),
        with_junit(
            "passing",
            &[],
            &["-E", "test(=tests::adds) | test(=integration_ok)"],
        ),
        with_junit("no-tests", &[], &["-E", "test(=no_such_test)"]),
        case("build-error", "broken", &[], &[]),
    ]
}
