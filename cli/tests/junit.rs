//! `verdict run --format junit` on real jest, vitest, mocha, pytest, cargo test and nextest
//! projects (`cli/tests/run/junit-*`: passing, failing, skipped and errored tests in two files,
//! a name used twice), counted as Jenkins counts a JUnit report: the `<testcase>` elements and
//! their failure, error and skipped children must equal the tool's own totals (the counts of the
//! same run's `--format json` report, read from the tool's own summary or structured report).
//! Each document is also read by junitparser and checked against Jenkins' schema and GitLab's
//! rules (`core/engine/tests/render/junit_validate.py`).

use serde_json::Value;

use crate::support::project::{Project, repo};

/// What Jenkins counts in a JUnit document, per suite, read by junitparser: the cases, and those
/// with a failure, an error or a skipped child.
fn jenkins_counts(project: &Project, xml: &str) -> Value {
    let file = project.path("junit-counted.xml");
    std::fs::write(&file, xml).expect("write the XML");
    let script = "\
import json, sys
from junitparser import JUnitXml, Failure, Error, Skipped
suites = {}
for suite in JUnitXml.fromfile(sys.argv[1]):
    counts = {'cases': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
    for case in suite:
        counts['cases'] += 1
        kinds = [type(r) for r in case.result]
        if Failure in kinds:
            counts['failures'] += 1
        elif Error in kinds:
            counts['errors'] += 1
        elif Skipped in kinds:
            counts['skipped'] += 1
    suites[suite.name] = counts
print(json.dumps(suites))
";
    verdict_test_support::python_json(
        [
            std::ffi::OsStr::new("-c"),
            script.as_ref(),
            file.as_os_str(),
        ],
        "junitparser (`cargo xtask tools` installs it)",
    )
}

/// `junit_validate.py`'s verdict on `xml`: Jenkins' schema and GitLab's rules.
pub(crate) fn validate(project: &Project, xml: &str) -> Value {
    let file = project.path("junit-validated.xml");
    std::fs::write(&file, xml).expect("write the XML");
    let engine = repo().join("core/engine/tests");
    verdict_test_support::python_json(
        [
            engine.join("render/junit_validate.py").into_os_string(),
            file.into_os_string(),
            engine
                .join("data/jenkins-junit/junit-10.xsd")
                .into_os_string(),
        ],
        "the JUnit checks (`cargo xtask tools` installs xmlschema)",
    )
}

/// Runs `verifier` on the fixture `junit-<fixture>` as JUnit and as JSON, and checks that the
/// JUnit's cases are the tool's tests. Returns the JUnit document.
fn check(fixture: &str, verifier: &str, setup: fn(&Project)) -> String {
    let project = Project::fixture(&format!("junit-{fixture}"));
    setup(&project);
    let junit = project.verdict(&["run", "--only", verifier, "--no-cache", "--format", "junit"]);
    assert_eq!(
        junit.code,
        1,
        "the fixture has failing tests:\n{}",
        junit.all()
    );
    let json = project.verdict(&["run", "--only", verifier, "--no-cache", "--format", "json"]);
    assert_eq!(json.code, 1, "{}", json.all());
    let report = json.json();
    let verification = report["verifications"]
        .as_array()
        .and_then(|v| v.iter().find(|v| v["verifier"] == verifier))
        .unwrap_or_else(|| panic!("no {verifier} in {report:#}"))
        .clone();
    let counts = &verification["report"]["counts"];
    let n = |key: &str| counts[key].as_u64().unwrap_or(0);

    let counted = jenkins_counts(&project, &junit.stdout);
    let suite = &counted[verifier];
    let c = |key: &str| suite[key].as_u64().expect("a count");
    let (passed, failed, skipped, errors) = (
        n("tests_passed"),
        n("tests_failed"),
        n("tests_skipped"),
        n("errors"),
    );
    assert!(
        passed > 0 && failed > 0 && skipped > 0,
        "{verifier}: the fixture has passing, failing and skipped tests: {counts}"
    );
    assert_eq!(
        (c("cases"), c("failures"), c("errors"), c("skipped")),
        (passed + failed + skipped + errors, failed, errors, skipped),
        "{verifier}: the JUnit's cases against the tool's counts {counts}:\n{}",
        junit.stdout
    );
    let checked = validate(&project, &junit.stdout);
    for key in ["schema_errors", "gitlab_errors"] {
        assert_eq!(
            checked[key],
            Value::Array(Vec::new()),
            "{verifier}: {key}:\n{}",
            junit.stdout
        );
    }
    for suite in checked["suites"].as_array().expect("suites") {
        assert_eq!(
            suite["attributes"], suite["counted"],
            "{verifier}: {suite:#}"
        );
    }
    junit.stdout
}

fn node(project: &Project) {
    project.link_node_modules();
}

fn python(project: &Project) {
    project.link_venv();
}

fn nothing(_: &Project) {}

#[test]
fn jest_junit_counts_every_test() {
    let xml = check("jest", "jest", node);
    // The failure's text is the test's diagnostic; the test file is the case's class and file.
    assert!(
        xml.contains(
            r#"<testcase name="cart › adds" classname="test/cart.test.js" file="test/cart.test.js""#
        ),
        "{xml}"
    );
    assert!(xml.contains("Received: 3"), "{xml}");
}

#[test]
fn vitest_junit_counts_every_test() {
    let xml = check("vitest", "vitest", node);
    assert!(xml.contains(r#"name="cart &gt; adds""#), "{xml}");
}

#[test]
fn mocha_junit_counts_every_test() {
    let xml = check("mocha", "mocha", node);
    // Two tests named `totals` at the top of two files: GitLab keeps both only under two names.
    assert!(xml.contains(r#"name="totals (2)""#), "{xml}");
}

#[test]
fn pytest_junit_counts_every_test() {
    let xml = check("pytest", "pytest", python);
    // A fixture that raised is an error, an expected failure a skipped test.
    assert!(
        xml.contains(
            r#"<testcase name="tests/test_cart.py::test_query" classname="tests/test_cart.py""#
        ),
        "{xml}"
    );
}

#[test]
fn cargo_test_junit_counts_every_test() {
    let xml = check("cargo", "cargo-test", nothing);
    assert!(xml.contains(r#"name="cart::adds""#), "{xml}");
}

#[test]
fn nextest_junit_counts_every_test() {
    check("nextest", "cargo-test", nothing);
}
