//! Capture cases for `unittest`: `python -m unittest` at the default and `-v` verbosity.
//!
//! The ground truth comes from the same run: the log is printed by [`DRIVER`], a tiny Python
//! program that runs `unittest.main` exactly as `python -m unittest` does (same discovery, same
//! output, same exit code) and then writes what unittest's own `TestResult` holds — `failures`,
//! `errors`, `testsRun`, `skipped`, `expectedFailures`, `unexpectedSuccesses` — to `truth.json`.
//! The driver is written into the capture root when the cases are listed.
//!
//! Only Python 3.11 (the machine's `/usr/bin/python3.11`) is captured: other versions could not be
//! fetched here (no download of interpreters). Projects (under
//! `xtask/capture/projects/unittest/`):
//! - `failing`: a package with passing, failing and erroring tests (an assertion, a `KeyError`
//!   and a `ValueError` raised in the code under test), a failing `subTest`, skips (a method and a
//!   class), an expected failure and an unexpected success, a module whose doctests run through
//!   `load_tests` + `doctest.DocTestSuite` (one example broken), and a test module that does not
//!   import;
//! - `passing`: passing tests, a doctest, a skip and an expected failure (`OK (skipped=1,
//!   expected failures=1)`);
//! - `empty`: a test module without tests (`Ran 0 tests`).

use std::fs;

use super::{Case, Program, Truth, strings};

/// The Python the cases run.
const PYTHON: &str = "/usr/bin/python3.11";

/// Where [`DRIVER`] is written, in the default capture root.
const DRIVER_PATH: &str = "/tmp/verdict-capture/unittest_truth.py";

/// The driver: unittest's own run and result, written out as JSON.
const DRIVER: &str = r#""""Runs `python -m unittest <args>` in this process, then writes what unittest's own TestResult
holds to a JSON file: the ground truth of the log the same run printed.

Usage: python unittest_truth.py OUT.json [unittest arguments...]
"""

import json
import sys
import unittest


def test_id(test):
    return test.id() if hasattr(test, "id") else str(test)


def main():
    out = sys.argv[1]
    program = unittest.main(module=None, argv=["python -m unittest"] + sys.argv[2:], exit=False)
    result = program.result
    truth = {
        "python": sys.version.split()[0],
        "testsRun": result.testsRun,
        "failures": [{"id": test_id(t), "description": str(t), "traceback": tb} for t, tb in result.failures],
        "errors": [{"id": test_id(t), "description": str(t), "traceback": tb} for t, tb in result.errors],
        "skipped": [{"id": test_id(t), "reason": reason} for t, reason in result.skipped],
        "expectedFailures": [{"id": test_id(t)} for t, _ in result.expectedFailures],
        "unexpectedSuccesses": [{"id": test_id(t)} for t in result.unexpectedSuccesses],
        "wasSuccessful": result.wasSuccessful(),
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    # The exit code `python -m unittest` gives the same result (5: no test ran, Python 3.12+).
    no_tests = getattr(sys.modules["unittest.main"], "_NO_TESTS_EXITCODE", None)
    if no_tests is not None and result.testsRun == 0 and not result.skipped:
        sys.exit(no_tests)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
"#;

/// A run of `python -m unittest <args>` through the driver, with its result as the truth.
fn unittest(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut all = vec![DRIVER_PATH, "truth.json"];
    all.extend_from_slice(args);
    let mut case = Case::new("unittest", name, project, Program::System(PYTHON), &all)
        .truth(Truth::File("truth.json"), "json");
    case.version_args = strings(&["--version"]);
    case.truth_how = Some(
        "the same run: unittest_truth.py (written by xtask/src/capture/unittest.rs) runs \
         unittest.main as python -m unittest does, then writes its TestResult (failures, errors, \
         testsRun, skipped, expectedFailures, unexpectedSuccesses) to truth.json",
    );
    case
}

/// The unittest cases.
pub(crate) fn cases() -> Vec<Case> {
    if let Err(error) =
        fs::create_dir_all("/tmp/verdict-capture").and_then(|()| fs::write(DRIVER_PATH, DRIVER))
    {
        eprintln!("warning: cannot write the unittest driver: {error}");
    }
    vec![
        unittest("py311-failing", "failing", &[]),
        unittest("py311-failing-verbose", "failing", &["-v"]),
        unittest("py311-passing", "passing", &[]),
        unittest("py311-passing-verbose", "passing", &["-v"]),
        unittest("py311-no-tests", "empty", &[]),
    ]
}
