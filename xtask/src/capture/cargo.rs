//! Capture cases for `cargo`: rustc errors and warnings, clippy, libtest, and cargo's own errors.
//!
//! Every case runs cargo through `env` so that the log run and the ground-truth run get the same
//! environment (the framework gives a second run no extra environment): a shared target directory
//! under the capture root (so the fixtures, which sit inside verdict's tree, never build into it),
//! `CARGO_TERM_COLOR=never` as in CI, and `RUST_BACKTRACE` fixed so that a developer's shell does
//! not change the logs. The ground truth is cargo's `--message-format=json` for builds and libtest's
//! JSON (`-Z unstable-options --format json`, allowed on stable by `RUSTC_BOOTSTRAP=1`) for tests.

use super::{Case, Program, Truth, strings};

/// `env` by its absolute path: the framework hands a `Program::System` name to duct as a path, and
/// duct runs a bare relative path from the working directory instead of searching `PATH`.
const ENV_PROGRAM: &str = "/usr/bin/env";

/// The environment of every cargo run, as `env` arguments.
const ENV: [&str; 3] = [
    "CARGO_TARGET_DIR=/tmp/verdict-capture/cargo-target",
    "CARGO_TERM_COLOR=never",
    "RUST_BACKTRACE=0",
];

/// `env <ENV> <extra> cargo <args>` as the argument list of `env`.
fn env_args(extra: &[&str], args: &[&str]) -> Vec<String> {
    let mut all: Vec<&str> = ENV.to_vec();
    all.extend_from_slice(extra);
    all.push("cargo");
    all.extend_from_slice(args);
    strings(&all)
}

/// A case running `cargo <args>` in `project`, with `extra` environment (`KEY=value`).
fn case(name: &'static str, project: &'static str, extra: &[&str], args: &[&str]) -> Case {
    let mut case = Case::new("cargo", name, project, Program::System(ENV_PROGRAM), &[]);
    case.args = env_args(extra, args);
    case.version_args = env_args(&[], &["--version"]);
    case
}

/// The ground truth of a build: the same command with `--message-format=json`.
fn json_truth(extra: &[&str], args: &[&str]) -> Truth {
    let mut args = args.to_vec();
    if !args.iter().any(|a| a.starts_with("--message-format")) {
        args.push("--message-format=json");
    }
    Truth::Stdout(env_args(extra, &args))
}

/// The ground truth of a test run: libtest's JSON events for the same command.
fn libtest_truth(extra: &[&str], args: &[&str]) -> Truth {
    let mut env = vec!["RUSTC_BOOTSTRAP=1"];
    env.extend_from_slice(extra);
    let mut args = args.to_vec();
    if !args.contains(&"--") {
        args.push("--");
    }
    args.extend_from_slice(&["-Z", "unstable-options", "--format", "json"]);
    Truth::Stdout(env_args(&env, &args))
}

/// A build-like case (`build`, `check`, `clippy`) with its JSON ground truth.
fn build(name: &'static str, project: &'static str, extra: &[&str], args: &[&str]) -> Case {
    case(name, project, extra, args).truth(json_truth(extra, args), "jsonl")
}

/// A `cargo test` case with libtest's JSON as ground truth.
fn test(name: &'static str, project: &'static str, extra: &[&str], args: &[&str]) -> Case {
    case(name, project, extra, args).truth(libtest_truth(extra, args), "jsonl")
}

/// The cargo cases.
pub(crate) fn cases() -> Vec<Case> {
    let mut clippy_version = case("clippy", "clippy", &[], &["clippy"]);
    clippy_version.version_args = env_args(&[], &["clippy", "--version"]);
    let clippy = clippy_version.truth(json_truth(&[], &["clippy"]), "jsonl");
    let deny_args = ["clippy", "--all-targets", "--", "-D", "warnings"];
    let mut clippy_deny = case("clippy-deny-warnings", "clippy", &[], &deny_args);
    clippy_deny.version_args = env_args(&[], &["clippy", "--version"]);
    // `--message-format` is a cargo flag: it goes before the `--` that starts clippy's flags.
    let clippy_deny = clippy_deny.truth(
        Truth::Stdout(env_args(
            &[],
            &[
                "clippy",
                "--all-targets",
                "--message-format=json",
                "--",
                "-D",
                "warnings",
            ],
        )),
        "jsonl",
    );
    vec![
        build("build-errors", "broken", &[], &["build"]),
        build(
            "build-errors-color",
            "broken",
            &[],
            &["build", "--color=always"],
        ),
        // The log itself is the JSON message format, as some CI setups print it.
        build(
            "check-json",
            "broken",
            &[],
            &["check", "--message-format=json"],
        ),
        build("build-warnings", "warnings", &[], &["build"]),
        build("build-syntax-error", "syntax", &[], &["build"]),
        build("build-passing", "passing", &[], &["build"]),
        clippy,
        clippy_deny,
        test("test-failures", "tests", &[], &["test"]),
        test(
            "test-no-fail-fast",
            "tests",
            &[],
            &["test", "--no-fail-fast"],
        ),
        test(
            "test-quiet",
            "tests",
            &[],
            &["test", "--no-fail-fast", "-q"],
        ),
        // With `--nocapture` the panics run into libtest's terse progress (`.`, ` 5/17`).
        test(
            "test-quiet-nocapture",
            "tests",
            &[],
            &["test", "--no-fail-fast", "-q", "--", "--nocapture"],
        ),
        test(
            "test-color",
            "tests",
            &[],
            &[
                "test",
                "--no-fail-fast",
                "--color=always",
                "--",
                "--color=always",
            ],
        ),
        test(
            "test-workspace-backtrace",
            "workspace",
            &["RUST_BACKTRACE=1"],
            &["test", "--workspace", "--no-fail-fast"],
        ),
        test("test-passing", "passing", &[], &["test"]),
        build("test-compile-error", "test-compile-error", &[], &["test"]),
        case("manifest-invalid", "manifest", &[], &["build"]),
        case("manifest-missing", "no-manifest", &[], &["build"]),
        case("dependency-missing", "bad-dependency", &[], &["build"]),
    ]
}
