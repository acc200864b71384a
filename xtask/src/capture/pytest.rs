//! Capture cases for `pytest`: the failure report in each `--tb` style and verbosity, the short
//! test summary, collection errors, and the ways pytest stops before running anything.
//!
//! The ground truth is pytest's own JUnit XML, written by the same run (`--junitxml`). Runs where
//! pytest exits before writing it (a usage error, a conftest that fails to import) have none.
//!
//! The `pytest8-` cases run the previous major (pytest 8, from
//! `xtask/capture/requirements-pytest8.txt`) on the same projects, from a second venv in the
//! capture root that [`cases`] creates on demand.

use std::path::Path;

use super::{Case, Program, Truth, install_venv, repo_root};

/// The venv of pytest 8, under the default capture root.
const VENV8: &str = "/tmp/verdict-capture/venv-pytest8";

/// Its pytest.
const PYTEST8: &str = "/tmp/verdict-capture/venv-pytest8/bin/pytest";

/// A pytest 8 case, with its JUnit XML as ground truth.
fn case8(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut all = args.to_vec();
    all.push("--junitxml=truth.xml");
    Case::new("pytest", name, project, Program::System(PYTEST8), &all)
        .truth(Truth::File(JUNIT), "xml")
}

/// A pytest 8 case whose run stops before pytest writes any report.
fn crash8(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    Case::new("pytest", name, project, Program::System(PYTEST8), args)
}

/// Creates the pytest 8 venv unless it is there already. The framework only knows the one venv
/// of `requirements.txt`; a failure here only warns, and the pytest 8 cases then fail to start.
fn install_pytest8() {
    let requirements = repo_root().join("xtask/capture/requirements-pytest8.txt");
    if let Err(error) = install_venv(&requirements, Path::new(VENV8)) {
        eprintln!("warning: pytest 8 venv: {error:#}");
    }
}

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
    let mut cases = vec![
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
    ];
    cases.extend(cases8());
    cases
}

/// The pytest 8 cases. Listing them creates their venv: the framework's list of cases is the only
/// hook a capture module has (after the first time this is a comparison of the stamp file).
fn cases8() -> Vec<Case> {
    install_pytest8();
    vec![
        case8("pytest8-failing", "failing", &[]),
        case8("pytest8-failing-quiet", "failing", &["-q"]),
        case8("pytest8-failing-verbose", "failing", &["-v"]),
        case8("pytest8-failing-tb-long", "failing", &["--tb=long"]),
        case8("pytest8-failing-tb-short", "failing", &["--tb=short"]),
        case8("pytest8-failing-tb-native", "failing", &["--tb=native"]),
        case8("pytest8-failing-tb-no-ra", "failing", &["--tb=no", "-ra"]),
        case8("pytest8-failing-ra-all", "failing", &["-rA", "--tb=short"]),
        case8("pytest8-failing-tb-line", "failing", &["--tb=line"]),
        case8(
            "pytest8-failing-color",
            "failing",
            &["--color=yes", "--tb=short"],
        ),
        case8("pytest8-collect-errors", "collect-errors", &[]),
        case8("pytest8-collect-errors-quiet", "collect-errors", &["-q"]),
        case8("pytest8-passing", "passing", &[]),
        case8("pytest8-no-tests", "no-tests", &[]),
        case8("pytest8-internal-error", "internal-error", &[]),
        crash8("pytest8-bad-conftest", "bad-conftest", &[]),
        crash8("pytest8-bad-config", "bad-config", &[]),
        crash8(
            "pytest8-usage-error",
            "passing",
            &["--definitely-not-an-option"],
        ),
    ]
}
