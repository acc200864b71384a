//! Capture cases for `vitest`: the default reporter as a CI job shows it (no terminal,
//! `CI=true`), and the `verbose` and `dot` reporters, each run also writing vitest's JSON report
//! (`--reporter=json --outputFile.json=truth.json`) as ground truth.
//!
//! vitest 5 needs Node.js 22.12 or later (on Node 20 its reporter crashes on `Map.groupBy`): the
//! capture must run with such a `node` first on `PATH`.
//!
//! Projects (under `xtask/capture/projects/vitest/`):
//! - `failing`: 11 files, 40 failing tests — the same fixtures as jest's, in ESM — with a missing
//!   module two files import (the root cause) and a file with a syntax error ("Failed Suites");
//! - `unhandled`: errors thrown outside any test ("Unhandled Errors", `Errors  2 errors`);
//! - `passing`; `no-tests` ("No test files found, exiting with code 1"); `bad-config` (the config
//!   file does not parse: "Startup Error").

use super::{Case, Program, Truth};

fn vitest(name: &'static str, project: &'static str, reporter: &str, extra: &[&str]) -> Case {
    let mut args = vec![
        "run",
        reporter,
        "--reporter=json",
        "--outputFile.json=truth.json",
    ];
    args.extend_from_slice(extra);
    Case::new("vitest", name, project, Program::Node("vitest"), &args)
        .truth(Truth::File("truth.json"), "json")
}

/// The vitest cases.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        vitest("failing", "failing", "--reporter=default", &[]),
        vitest("failing-verbose", "failing", "--reporter=verbose", &[]),
        vitest("failing-dot", "failing", "--reporter=dot", &[]),
        // Under `CI=true` vitest colours its output without a terminal; this is the plain variant.
        vitest(
            "failing-no-color",
            "failing",
            "--reporter=default",
            &["--no-color"],
        ),
        vitest("unhandled", "unhandled", "--reporter=default", &[]),
        vitest("passing", "passing", "--reporter=default", &[]),
        vitest("no-tests", "no-tests", "--reporter=default", &[]),
        // The config does not load: vitest writes no report.
        Case::new(
            "vitest",
            "bad-config",
            "bad-config",
            Program::Node("vitest"),
            &["run"],
        ),
    ]
}
