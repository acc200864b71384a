//! Capture cases for `eslint`.
//!
//! The log of each case is eslint's default `stylish` output (or `-f json`, which is also what CI
//! jobs feed to other tools), and the ground truth is eslint's JSON report of the same project from a
//! second run (`-f json -o eslint-report.json`). Crashes (an invalid config, no config, no files) have
//! no report.
//!
//! The `v10-` cases run eslint 10 through its npm alias `eslint10`. Both packages declare an
//! `eslint` binary, so `node_modules/.bin/eslint` is whichever npm linked last: every case names
//! its launcher inside the package instead (a `Program::Node` path relative to `node_modules/.bin`).

use super::{Case, Program, Truth, strings};

/// The launcher of the pinned eslint 9, relative to `node_modules/.bin`.
const ESLINT9: &str = "../eslint/bin/eslint.js";

/// The launcher of eslint 10, relative to `node_modules/.bin`.
const ESLINT10: &str = "../eslint10/bin/eslint.js";

/// Where the truth run writes its report, in the project directory.
const REPORT: &str = "eslint-report.json";

/// The eslint cases.
pub(crate) fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (prefix, program) in [("", ESLINT9), ("v10-", ESLINT10)] {
        // Case names are `&'static str`; the few prefixed ones live as long as the xtask anyway.
        let name = |stem: &str| -> &'static str { format!("{prefix}{stem}").leak() };
        let lint = |stem: &str, project: &'static str, args: &[&str]| {
            Case::new("eslint", name(stem), project, Program::Node(program), args)
                .truth(json_truth(args), "json")
        };
        let crash = |stem: &str, project: &'static str, args: &[&str]| {
            Case::new("eslint", name(stem), project, Program::Node(program), args)
        };
        cases.extend([
            // Errors and warnings over many files, with a parsing error; as CI shows it, with
            // colour forced, and as JSON.
            lint("many-problems", "many-problems", &[]),
            // `--color` as well as FORCE_COLOR: the framework's own removal of FORCE_COLOR wins
            // over a case's environment.
            lint("many-problems-color", "many-problems", &["--color"]).env("FORCE_COLOR", "1"),
            lint("many-problems-json", "many-problems", &["-f", "json"]),
            // Warnings only: eslint passes, unless told how many warnings it may allow.
            lint("warnings-only", "warnings-only", &[]),
            lint("max-warnings", "warnings-only", &["--max-warnings", "0"]),
            lint("passing", "passing", &[]),
            lint("passing-json", "passing", &["-f", "json"]),
            // Nothing could be linted.
            crash("config-syntax", "config-syntax", &[]),
            crash("bad-rule", "bad-rule", &[]),
            crash("no-config", "no-config", &[]),
            crash("no-files", "passing", &["lib/"]),
        ]);
    }
    // A syntax error in 150 files and one rule broken many times in a few files and once in
    // many others: what a group line lists of many files.
    cases.push(
        Case::new(
            "eslint",
            "many-parse-errors",
            "many-parse-errors",
            Program::Node(ESLINT9),
            &[],
        )
        .truth(json_truth(&[]), "json"),
    );
    cases.push(
        Case::new(
            "eslint",
            "many-problems-json-metadata",
            "many-problems",
            Program::Node(ESLINT9),
            &["-f", "json-with-metadata"],
        )
        .truth(json_truth(&[]), "json"),
    );
    cases
}

/// The truth run: the same arguments with eslint's JSON report written to [`REPORT`].
fn json_truth(args: &[&str]) -> Truth {
    let mut truth: Vec<String> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        if *arg == "-f" {
            rest.next();
        } else {
            truth.push((*arg).to_owned());
        }
    }
    truth.extend(strings(&["-f", "json", "-o", REPORT]));
    Truth::RunFile(truth, REPORT)
}
