//! Capture cases for `jest`: the default reporter as a CI job shows it (no terminal, `CI=true`),
//! with jest's own `--json --outputFile` report of the same run as ground truth.
//!
//! Projects (under `xtask/capture/projects/jest/`):
//! - `failing`: 11 suites, 40 failing tests — assertion failures of many matchers, async
//!   rejections and a timeout, a failing `beforeEach`, snapshots in CI, console output, a missing
//!   module that two suites load (the root cause) and a test file with a syntax error;
//! - `many-suites`: 22 suites, so jest repeats every failure under "Summary of all failing tests";
//! - `projects`: two projects with display names, which jest prints between `FAIL` and the path;
//! - `passing`, with skipped and todo tests and console output;
//! - `no-tests` ("No tests found, exiting with code 1"), `bad-config` (`● Validation Error:`),
//!   `config-syntax` (jest.config.js does not parse), `missing-env` (an environment that is not
//!   installed).
//!
//! The `jest29-` cases run the previous major (jest 29) on the same projects through its npm alias
//! `jest29`. An alias has no `.bin` entry of its own, so they name the launcher inside the package
//! (a `Program::Node` path relative to `node_modules/.bin`).

use super::{Case, Program, Truth};

/// The launcher of jest 29, relative to `node_modules/.bin`.
const JEST29: &str = "../jest29/bin/jest.js";

fn jest29(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("jest", name, project, Program::Node(JEST29), args)
}

fn jest(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("jest", name, project, Program::Node("jest"), args)
}

/// The jest cases.
pub(crate) fn cases() -> Vec<Case> {
    let truth = || Truth::File("truth.json");
    vec![
        jest("failing", "failing", &["--json", "--outputFile=truth.json"]).truth(truth(), "json"),
        jest(
            "failing-verbose",
            "failing",
            &["--verbose", "--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        // `--colors` as well as FORCE_COLOR: the capture framework's own removal of FORCE_COLOR
        // from the environment wins over a case's.
        jest(
            "failing-color",
            "failing",
            &["--colors", "--json", "--outputFile=truth.json"],
        )
        .env("FORCE_COLOR", "1")
        .truth(truth(), "json"),
        // One test file: jest turns on verbose output and prints console output unbuffered.
        jest(
            "single-file",
            "failing",
            &["test/console.test.js", "--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest(
            "many-suites",
            "many-suites",
            &["--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest(
            "projects",
            "projects",
            &["--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest(
            "projects-color",
            "projects",
            &["--colors", "--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest("passing", "passing", &["--json", "--outputFile=truth.json"]).truth(truth(), "json"),
        // The runs below stop before any test: jest writes no report.
        jest(
            "no-tests",
            "no-tests",
            &["--json", "--outputFile=truth.json"],
        ),
        jest("bad-config", "bad-config", &[]),
        jest("config-syntax", "config-syntax", &[]),
        jest("missing-env", "missing-env", &[]),
        // jest 29.
        jest29(
            "jest29-failing",
            "failing",
            &["--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest29(
            "jest29-failing-color",
            "failing",
            &["--colors", "--json", "--outputFile=truth.json"],
        )
        .env("FORCE_COLOR", "1")
        .truth(truth(), "json"),
        jest29(
            "jest29-passing",
            "passing",
            &["--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest29(
            "jest29-no-tests",
            "no-tests",
            &["--json", "--outputFile=truth.json"],
        ),
        jest29(
            "jest29-many-suites",
            "many-suites",
            &["--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest29(
            "jest29-projects",
            "projects",
            &["--json", "--outputFile=truth.json"],
        )
        .truth(truth(), "json"),
        jest29("jest29-bad-config", "bad-config", &[]),
        jest29("jest29-config-syntax", "config-syntax", &[]),
    ]
}
