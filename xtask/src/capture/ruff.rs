//! Capture cases for `ruff`.
//!
//! The log of each case is what `ruff check` prints in CI: its default `full` output (each
//! diagnostic with a code frame and its fix), `--output-format concise` (one line each), or
//! `--output-format json`. The ground truth is `ruff check --output-format json` of the same
//! project from a second run. `ruff format --check` is the other check ruff runs in CI (files that
//! would be reformatted); its truth is the same command with `--output-format json`. A
//! configuration ruff cannot read, an unknown rule and an unknown option end the run with exit 2
//! before anything is linted: those cases have no truth.

use super::{Case, Program, Truth, strings};

/// The ruff cases.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        // Several rules broken across files: the default output, concise, and JSON.
        check("many-problems", "many-problems", &[]),
        check(
            "many-problems-concise",
            "many-problems",
            &["--output-format", "concise"],
        ),
        check(
            "many-problems-json",
            "many-problems",
            &["--output-format", "json"],
        ),
        // Extra rule families selected in `[tool.ruff.lint]`.
        check("extra-rules", "extra-rules", &[]),
        check(
            "extra-rules-concise",
            "extra-rules",
            &["--output-format", "concise"],
        ),
        // A file ruff cannot parse is reported beside the lint errors of the others.
        check("syntax-error", "syntax-error", &[]),
        check(
            "syntax-error-concise",
            "syntax-error",
            &["--output-format", "concise"],
        ),
        check("passing", "passing", &[]),
        check(
            "passing-concise",
            "passing",
            &["--output-format", "concise"],
        ),
        check("passing-json", "passing", &["--output-format", "json"]),
        // `-v` (what the verifier passes): debug lines on stderr, among them `Checked 3 files`.
        check(
            "passing-verbose-json",
            "passing",
            &["-v", "--output-format", "json"],
        ),
        check("many-problems-verbose", "many-problems", &["-v"]),
        // Nothing to lint (ruff lints its own config files too, so none here): a warning, then
        // the same line as a clean run.
        check("no-files", "no-files", &[]),
        // Nothing could be linted (exit 2).
        crash("config-error", "config-error", &["check"]),
        crash("bad-rule", "bad-rule", &["check"]),
        crash(
            "unknown-format",
            "passing",
            &["check", "--output-format", "jsn"],
        ),
        // The formatter's check.
        format("format-check", "unformatted", &[]),
        format(
            "format-check-concise",
            "unformatted",
            &["--output-format", "concise"],
        ),
        format("format-check-passing", "passing", &[]),
    ]
}

/// `ruff check <args>`, with its JSON output as the truth.
fn check(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    Case::new("ruff", name, project, Program::Venv("ruff"), &all).truth(
        Truth::Stdout(strings(&["check", "--output-format", "json"])),
        "json",
    )
}

/// `ruff format --check`, with its JSON output as the truth.
fn format(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut all = vec!["format", "--check"];
    all.extend_from_slice(args);
    Case::new("ruff", name, project, Program::Venv("ruff"), &all).truth(
        Truth::Stdout(strings(&["format", "--check", "--output-format", "json"])),
        "json",
    )
}

/// A run that ends before linting anything: no truth.
fn crash(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("ruff", name, project, Program::Venv("ruff"), args)
}
