//! Doc-tests beside nextest (issue 20): nextest cannot run doc-tests, so where the project runs
//! its tests with nextest, `cargo-doctest` runs `cargo test --doc` beside it, and `verdict list`
//! says so. The fixture `cli/tests/run/nextest-doctest/` has a passing unit test and a broken
//! doc example; it is run with the real cargo and cargo-nextest.

use super::verification;
use crate::support::project::Project;

#[test]
fn a_broken_doctest_fails_where_nextest_runs_the_tests() {
    assert!(
        verdict_cargo::nextest::nextest_program().is_some(),
        "cargo-nextest is missing: run `cargo install cargo-nextest --locked`"
    );
    let project = Project::fixture("nextest-doctest");

    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    let line = |name: &str| {
        list.stdout
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{name} does not apply:\n{}", list.stdout))
            .to_owned()
    };
    assert!(
        line("cargo-test").contains("cannot run doc-tests: doc-tests run by cargo-doctest"),
        "{}",
        list.stdout
    );
    assert!(
        line("cargo-doctest").contains("src/lib.rs has doc examples"),
        "{}",
        list.stdout
    );

    let run = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    let report = run.json();
    assert_eq!(
        verification(&report, "cargo-test")["outcome"],
        "passed",
        "{report:#}"
    );
    let doctest = verification(&report, "cargo-doctest");
    assert_eq!(doctest["outcome"], "failed", "{report:#}");
    let failing: Vec<&str> = doctest["report"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["test"].as_str())
        .collect();
    assert_eq!(failing, ["src/lib.rs - add (line 5)"], "{report:#}");

    let human = project.verdict(&["run", "--no-cache"]);
    assert_eq!(human.code, 1, "{}", human.all());
    assert!(
        human.stdout.contains("src/lib.rs - add (line 5)"),
        "{}",
        human.all()
    );
}
