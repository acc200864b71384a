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
//! - `each-typecheck`: run with `--typecheck`, nested describes, `test.each` titles made from
//!   arrays (`[ 'a', '/c' ] -> a/c`) and a failing type test;
//! - `passing`; `no-tests` ("No test files found, exiting with code 1"); `bad-config` (the config
//!   file does not parse: "Startup Error").
//!
//! The `vitest3-` cases run the previous major (vitest 3) on the same projects through its npm
//! alias `vitest3`, on the machine's own Node.js 20 (`/usr/bin/node`) rather than the pinned
//! Node.js 22 the framework puts first on `PATH`: Node 20 is what many of its users run. The script
//! path is under the capture root, whose default is fixed.

use super::{Case, Program, Truth, strings};

/// The launcher of vitest 3 under the default capture root.
const VITEST3: &str = "/tmp/verdict-capture/node_modules/vitest3/vitest.mjs";

/// A vitest 3 case: `node <launcher> <args>`.
fn vitest3(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut all = vec![VITEST3];
    all.extend_from_slice(args);
    let mut case = Case::new(
        "vitest",
        name,
        project,
        Program::System("/usr/bin/node"),
        &all,
    );
    case.version_args = strings(&[VITEST3, "--version"]);
    case
}

/// A vitest 3 case with the given reporter and its JSON report as ground truth.
fn vitest3_reporter(name: &'static str, project: &'static str, reporter: &str) -> Case {
    vitest3(
        name,
        project,
        &[
            "run",
            reporter,
            "--reporter=json",
            "--outputFile.json=truth.json",
        ],
    )
    .truth(Truth::File("truth.json"), "json")
}

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
        // The TAP reporters: nested file and describe blocks, or one flat line per test.
        vitest("tap", "failing", "--reporter=tap", &[]),
        vitest("tap-flat", "failing", "--reporter=tap-flat", &[]),
        // Under `CI=true` vitest colours its output without a terminal; this is the plain variant.
        vitest(
            "failing-no-color",
            "failing",
            "--reporter=default",
            &["--no-color"],
        ),
        // Test titles longer than a terminal's width, for the header a terminal wraps.
        vitest(
            "long-titles",
            "long-titles",
            "--reporter=default",
            &["--no-color"],
        ),
        vitest("unhandled", "unhandled", "--reporter=default", &[]),
        // `--typecheck` with nested describes and `test.each` titles that hold ` [ `.
        vitest(
            "each-typecheck",
            "each-typecheck",
            "--reporter=default",
            &["--typecheck"],
        ),
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
        // vitest 3 on Node.js 20.
        vitest3_reporter("vitest3-failing", "failing", "--reporter=default"),
        vitest3_reporter("vitest3-failing-verbose", "failing", "--reporter=verbose"),
        vitest3_reporter("vitest3-failing-dot", "failing", "--reporter=dot"),
        vitest3_reporter("vitest3-unhandled", "unhandled", "--reporter=default"),
        vitest3_reporter("vitest3-passing", "passing", "--reporter=default"),
        vitest3_reporter("vitest3-no-tests", "no-tests", "--reporter=default"),
        vitest3("vitest3-bad-config", "bad-config", &["run"]),
    ]
}
