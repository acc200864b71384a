//! Capture cases for `tsc`.
//!
//! tsc has no JSON output, so the ground truth of every case is the plain `--pretty false` run of
//! the same project and tsc version (one `file(l,c): error TSnnnn: …` line per error, parsed by
//! the tests with their own strict pattern). Without a terminal tsc is not pretty by default: the
//! plain cases are what a CI log shows, the `--pretty` cases (always coloured) what a developer's
//! terminal or a CI job with `--pretty` shows.
//!
//! The `ts7-` cases run the latest major (typescript 7, the native compiler) through its npm alias
//! `typescript7`. Both packages declare a `tsc` binary, so `node_modules/.bin/tsc` is whichever npm
//! linked last: every case names its launcher inside the package instead (a `Program::Node` path
//! relative to `node_modules/.bin`).

use super::{Case, Program, Truth, strings};

/// The launcher of the pinned typescript 5, relative to `node_modules/.bin`.
const TSC5: &str = "../typescript/bin/tsc";

/// The launcher of typescript 7, relative to `node_modules/.bin`.
const TSC7: &str = "../typescript7/bin/tsc";

/// The tsc cases.
pub(crate) fn cases() -> Vec<Case> {
    let mut cases = vec![
        // The CI default (no terminal, so not pretty), and the pretty variant of the same project.
        tsc("many-errors-plain", "many-errors", &["-p", "."]),
        tsc(
            "many-errors-pretty",
            "many-errors",
            &["-p", ".", "--pretty"],
        ),
        tsc("passing", "passing", &["-p", "."]),
        tsc("passing-pretty", "passing", &["-p", ".", "--pretty"]),
        // A syntax error anywhere hides every semantic error: only TS1xxx remain.
        tsc("syntax-errors-plain", "syntax-errors", &["-p", "."]),
        tsc(
            "syntax-errors-pretty",
            "syntax-errors",
            &["-p", ".", "--pretty"],
        ),
        // The footer variants: one error, several in one file.
        tsc("one-error-pretty", "one-error", &["-p", ".", "--pretty"]),
        tsc("same-file-pretty", "same-file", &["-p", ".", "--pretty"]),
        // Configuration errors: unknown and mistyped options, a tsconfig that is not JSON, no
        // inputs, an unknown command-line flag.
        tsc("config-error-plain", "config-error", &["-p", "."]),
        tsc(
            "config-error-pretty",
            "config-error",
            &["-p", ".", "--pretty"],
        ),
        tsc(
            "broken-tsconfig-pretty",
            "broken-tsconfig",
            &["-p", ".", "--pretty"],
        ),
        tsc("no-inputs-plain", "no-inputs", &["-p", "."]),
        tsc("no-inputs-pretty", "no-inputs", &["-p", ".", "--pretty"]),
        tsc("unknown-flag", "passing", &["-p", ".", "--strictt"]),
        // Build mode over project references, with its timestamped progress lines.
        tsc("build-verbose-plain", "build", &["-b", "--verbose"]),
        tsc(
            "build-verbose-pretty",
            "build",
            &["-b", "--verbose", "--pretty"],
        ),
    ];
    cases.extend([
        tsc7("ts7-many-errors-plain", "many-errors", &["-p", "."]),
        tsc7(
            "ts7-many-errors-pretty",
            "many-errors",
            &["-p", ".", "--pretty"],
        ),
        tsc7(
            "ts7-same-file-pretty",
            "same-file",
            &["-p", ".", "--pretty"],
        ),
        tsc7(
            "ts7-config-error-pretty",
            "config-error",
            &["-p", ".", "--pretty"],
        ),
        tsc7(
            "ts7-no-inputs-pretty",
            "no-inputs",
            &["-p", ".", "--pretty"],
        ),
        tsc7(
            "ts7-build-verbose-pretty",
            "build",
            &["-b", "--verbose", "--pretty"],
        ),
    ]);
    cases
}

/// `args` without any `--pretty`, plus `--pretty false`: the truth run of a case.
fn plain(args: &[&str]) -> Vec<String> {
    let mut plain: Vec<String> = args
        .iter()
        .filter(|a| **a != "--pretty" && **a != "--verbose")
        .map(|a| (*a).to_owned())
        .collect();
    plain.extend(strings(&["--pretty", "false"]));
    plain
}

/// A case of the pinned typescript 5.
fn tsc(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("tsc", name, project, Program::Node(TSC5), args)
        .truth(Truth::Stdout(plain(args)), "txt")
}

/// A case of typescript 7.
fn tsc7(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("tsc", name, project, Program::Node(TSC7), args)
        .truth(Truth::Stdout(plain(args)), "txt")
}
