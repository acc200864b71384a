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

use super::{Case, Program, Truth, strings};

fn mocha(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("mocha", name, project, Program::Node("mocha"), args).truth(
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
    ]
}
