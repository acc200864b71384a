//! Capture cases for `mocha`: the spec reporter as a CI job shows it (no terminal, `CI=true`).
//! mocha writes one report per run, so the ground truth comes from a second run of the same
//! project with `--reporter json --reporter-option output=truth.json`.
//!
//! Projects (under `xtask/capture/projects/mocha/`):
//! - `failing`: 8 files, 40 failures — node:assert failures with diffs, async rejections, a
//!   timeout, a callback error, failing `before`/`beforeEach`/`afterEach` hooks, a thrown string;
//! - `esm-failing`: ES modules, whose stack frames are `file://` URLs;
//! - `passing`, with pending tests and a slow test;
//! - `load-error` (a required module is missing: mocha stops before running anything),
//!   `syntax-error` (a test file does not parse), `no-tests` ("Error: No test files found"),
//!   `bad-config` (.mocharc.json does not parse).
//!
//! The `mocha10-` cases run the older major mocha 10 on the same projects through its npm alias
//! `mocha10`, naming the launcher inside the package (an alias has no `.bin` entry of its own).

use super::{Case, Program, Truth, strings};

/// The launcher of mocha 10, relative to `node_modules/.bin`.
const MOCHA10: &str = "../mocha10/bin/mocha.js";

fn mocha(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    with_truth(Case::new(
        "mocha",
        name,
        project,
        Program::Node("mocha"),
        args,
    ))
}

fn mocha10(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    with_truth(Case::new(
        "mocha",
        name,
        project,
        Program::Node(MOCHA10),
        args,
    ))
}

/// The ground truth of a case: a second run with the JSON reporter.
fn with_truth(case: Case) -> Case {
    case.truth(
        Truth::RunFile(
            strings(&[
                "--reporter",
                "json",
                "--reporter-option",
                "output=truth.json",
            ]),
            "truth.json",
        ),
        "json",
    )
}

/// The mocha cases.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        mocha("failing", "failing", &[]),
        // `--color` as well as FORCE_COLOR: the capture framework's own removal of FORCE_COLOR
        // from the environment wins over a case's.
        mocha("failing-color", "failing", &["--color"]).env("FORCE_COLOR", "1"),
        // The TAP reporter: `not ok N full title`, the message, then the stack repeating it.
        mocha("tap", "failing", &["--reporter", "tap"]),
        mocha("esm-failing", "esm-failing", &[]),
        mocha("passing", "passing", &[]),
        // The runs below stop before any test: there is no report to compare with.
        Case::new(
            "mocha",
            "load-error",
            "load-error",
            Program::Node("mocha"),
            &[],
        ),
        Case::new(
            "mocha",
            "syntax-error",
            "syntax-error",
            Program::Node("mocha"),
            &[],
        ),
        Case::new("mocha", "no-tests", "no-tests", Program::Node("mocha"), &[]),
        Case::new(
            "mocha",
            "bad-config",
            "bad-config",
            Program::Node("mocha"),
            &[],
        ),
        // mocha 10.
        mocha10("mocha10-failing", "failing", &[]),
        mocha10("mocha10-failing-color", "failing", &["--color"]).env("FORCE_COLOR", "1"),
        mocha10("mocha10-esm-failing", "esm-failing", &[]),
        mocha10("mocha10-passing", "passing", &[]),
        Case::new(
            "mocha",
            "mocha10-syntax-error",
            "syntax-error",
            Program::Node(MOCHA10),
            &[],
        ),
        Case::new(
            "mocha",
            "mocha10-bad-config",
            "bad-config",
            Program::Node(MOCHA10),
            &[],
        ),
        Case::new(
            "mocha",
            "mocha10-load-error",
            "load-error",
            Program::Node(MOCHA10),
            &[],
        ),
        Case::new(
            "mocha",
            "mocha10-no-tests",
            "no-tests",
            Program::Node(MOCHA10),
            &[],
        ),
    ]
}
