//! Capture cases for `pytest`: the failure report in each `--tb` style and verbosity, the short
//! test summary, collection errors, and the ways pytest stops before running anything.
//!
//! The ground truth is pytest's own JUnit XML, written by the same run (`--junitxml`). Runs where
//! pytest exits before writing it (a usage error, a conftest that fails to import) have none.

use super::{Case, Program, Truth};

/// Where each run writes its JUnit XML, relative to the project.
const JUNIT: &str = "truth.xml";

/// A case running `pytest <args> --junitxml=truth.xml` in `project`.
fn case(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut all = args.to_vec();
    all.push("--junitxml=truth.xml");
    Case::new("pytest", name, project, Program::Venv("pytest"), &all)
        .truth(Truth::File(JUNIT), "xml")
}

/// A case whose run stops before pytest writes any report.
fn crash(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("pytest", name, project, Program::Venv("pytest"), args)
}

/// The pytest cases.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        case("failing", "failing", &[]),
        case("failing-quiet", "failing", &["-q"]),
        case("failing-verbose", "failing", &["-v"]),
        case("failing-tb-long", "failing", &["--tb=long"]),
        case("failing-tb-short", "failing", &["--tb=short"]),
        case("failing-tb-line", "failing", &["--tb=line"]),
        case("failing-tb-native", "failing", &["--tb=native"]),
        case("failing-tb-no-ra", "failing", &["--tb=no", "-ra"]),
        case("failing-ra-all", "failing", &["-rA", "--tb=short"]),
        case("failing-quiet-tb-line", "failing", &["-q", "--tb=line"]),
        case(
            "failing-deselected",
            "failing",
            &["-m", "not slow", "-k", "not json"],
        ),
        case("failing-exitfirst", "failing", &["-x"]),
        case("failing-color", "failing", &["--color=yes", "--tb=short"]),
        case("collect-errors", "collect-errors", &[]),
        case("collect-errors-quiet", "collect-errors", &["-q"]),
        case(
            "collect-errors-continue",
            "collect-errors",
            &["--continue-on-collection-errors"],
        ),
        case("passing", "passing", &[]),
        case("passing-quiet", "passing", &["-q"]),
        case("no-tests", "no-tests", &[]),
        case("internal-error", "internal-error", &[]),
        crash("bad-conftest", "bad-conftest", &[]),
        crash("bad-config", "bad-config", &[]),
        crash("usage-error", "passing", &["--definitely-not-an-option"]),
        crash("missing-path", "passing", &["tests/test_nope.py"]),
    ]
}
