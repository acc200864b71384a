//! `verdict run --format gitlab` and `--format rdjson` on real projects: the polyglot example
//! (tsc and eslint errors, a failing jest test and a failing pytest test), its green copy, and a
//! project whose test runner is not installed. Each report is validated against the schema its
//! reader publishes (GitLab's Code Quality schema and its documented rules, reviewdog's
//! DiagnosticResult schema) by `core/engine/tests/render/schema_check.py`.

use serde_json::Value;

use crate::support::project::{Project, repo};

/// Validates `text` as `kind` (`gitlab` or `rdjson`): asserts it has no errors and `items` issues
/// or diagnostics, and returns it parsed.
pub(crate) fn valid(project: &Project, kind: &str, text: &str, items: usize) -> Value {
    let file = project.path(&format!("report-to-check.{kind}.json"));
    std::fs::write(&file, text).expect("write the report");
    let check = verdict_test_support::python_json(
        [
            repo()
                .join("core/engine/tests/render/schema_check.py")
                .into_os_string(),
            kind.into(),
            file.into_os_string(),
        ],
        "the schema check (`cargo xtask tools` installs jsonschema)",
    );
    assert_eq!(check["errors"], Value::Array(Vec::new()), "{text}");
    assert_eq!(check["items"], items, "{text}");
    serde_json::from_str(text).expect("JSON")
}

/// `(path, line)` of each issue of a Code Quality report, sorted.
fn places(report: &Value) -> Vec<(String, u64)> {
    let mut places: Vec<(String, u64)> = report
        .as_array()
        .expect("an array")
        .iter()
        .map(|issue| {
            (
                issue["location"]["path"].as_str().unwrap_or("?").to_owned(),
                issue["location"]["lines"]["begin"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    places.sort();
    places
}

#[test]
fn the_example_in_gitlab_and_rdjson() {
    let project = Project::polyglot();

    let gitlab = project.verdict(&["run", "--format", "gitlab"]);
    assert_eq!(gitlab.code, 1, "{}", gitlab.all());
    let report = valid(&project, "gitlab", &gitlab.stdout, 5);
    assert_eq!(
        places(&report),
        [
            ("src/cart.ts".to_owned(), 13),
            ("src/cart.ts".to_owned(), 16),
            ("src/format.js".to_owned(), 3),
            ("test/format.test.js".to_owned(), 10),
            ("tests/test_vat.py".to_owned(), 9),
        ]
    );
    let checks: Vec<&str> = report
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|i| i["check_name"].as_str())
        .collect();
    for check in ["eslint/no-unused-vars", "jest/test", "pytest/test"] {
        assert!(checks.contains(&check), "{check}: {checks:?}");
    }
    assert!(
        checks.iter().filter(|c| c.starts_with("tsc/TS")).count() == 2,
        "{checks:?}"
    );

    // The next run of the same code gives the same fingerprints: GitLab compares them between
    // the merge request's pipeline and its target branch's.
    let again = project.verdict(&["run", "--format", "gitlab"]);
    assert_eq!(again.code, 1, "{}", again.all());
    let fingerprints = |report: &Value| {
        let mut all: Vec<String> = report
            .as_array()
            .expect("an array")
            .iter()
            .filter_map(|i| i["fingerprint"].as_str().map(str::to_owned))
            .collect();
        all.sort();
        all
    };
    assert_eq!(fingerprints(&report), fingerprints(&again.json()));

    // rdjson, into a file.
    let rdjson = project.verdict(&["run", "--format", "rdjson", "--output", "verdict.rdjson"]);
    assert_eq!(rdjson.code, 1, "{}", rdjson.all());
    assert!(
        rdjson.stdout.is_empty(),
        "--output also printed:\n{}",
        rdjson.stdout
    );
    let result = valid(&project, "rdjson", &project.read("verdict.rdjson"), 5);
    let diagnostics = result["diagnostics"].as_array().expect("diagnostics");
    assert!(
        diagnostics.iter().all(|d| d["severity"] == "ERROR"),
        "{result:#}"
    );
    let tsc = diagnostics
        .iter()
        .find(|d| d["location"]["range"]["start"]["line"] == 13)
        .expect("tsc's error on line 13");
    assert_eq!(tsc["location"]["path"], "src/cart.ts");
    assert_eq!(tsc["location"]["range"]["start"]["column"], 3);
    assert_eq!(tsc["source"]["name"], "tsc");
    assert_eq!(tsc["code"]["value"], "TS2322");
}

#[test]
fn a_green_project_is_an_empty_valid_report() {
    let project = Project::polyglot_green();
    let gitlab = project.verdict(&["run", "--format", "gitlab"]);
    assert_eq!(gitlab.code, 0, "{}", gitlab.all());
    assert_eq!(gitlab.stdout, "[]\n");
    valid(&project, "gitlab", &gitlab.stdout, 0);
    let rdjson = project.verdict(&["run", "--format", "rdjson"]);
    assert_eq!(rdjson.code, 0, "{}", rdjson.all());
    let result = valid(&project, "rdjson", &rdjson.stdout, 0);
    assert_eq!(result["diagnostics"], Value::Array(Vec::new()));
}

#[test]
fn a_test_runner_that_could_not_run_is_a_blocker_not_a_clean_report() {
    let project = Project::fixture("hanging-jest");
    // No node_modules: jest is declared but not installed.
    let gitlab = project.verdict(&["run", "--format", "gitlab"]);
    assert_eq!(gitlab.code, 2, "{}", gitlab.all());
    let report = valid(&project, "gitlab", &gitlab.stdout, 1);
    let blocker = &report[0];
    assert_eq!(blocker["severity"], "blocker", "{report:#}");
    assert_eq!(blocker["check_name"], "verdict/could-not-verify");
    let description = blocker["description"].as_str().expect("a description");
    assert!(
        description.starts_with("verdict: jest could not verify: ")
            && description.contains("npm install"),
        "{description}"
    );

    let rdjson = project.verdict(&["run", "--format", "rdjson"]);
    assert_eq!(rdjson.code, 2, "{}", rdjson.all());
    let result = valid(&project, "rdjson", &rdjson.stdout, 1);
    let diagnostic = &result["diagnostics"][0];
    assert_eq!(diagnostic["severity"], "ERROR", "{result:#}");
    assert_eq!(diagnostic["code"]["value"], "verdict/could-not-verify");
    assert_eq!(diagnostic["source"]["name"], "jest");
}
