//! The GitLab Code Quality and reviewdog rdjson formats, validated against the schemas GitLab and
//! reviewdog publish (`tests/data/schemas/`) by the `jsonschema` package (`render/schema_check.py`),
//! and read back for what each issue says.

use serde_json::Value;
use verdict_core::model::{Counts, Diagnostic, Kind, Outcome, Report, Severity, Status};
use verdict_core::render::Format;

use super::{
    captured_runs, huge_run, nasty_run, python_check, render_script, rendered, verification,
};

/// What `schema_check.py` found in `text`: `{"errors": [...], "items": N}`.
pub(crate) fn schema_check(kind: &str, name: &str, text: &str) -> Value {
    let scratch = format!("{kind}-{name}");
    python_check(
        &scratch,
        "report.json",
        text,
        "the schema check (jsonschema)",
        |file| vec![render_script("schema_check.py"), kind.into(), file.into()],
    )
}

/// Asserts that `text` is valid `kind` with `items` issues or diagnostics; returns it parsed.
fn valid(kind: &str, name: &str, text: &str, items: usize) -> Value {
    let check = schema_check(kind, name, text);
    assert_eq!(check["errors"], Value::Array(Vec::new()), "{text}");
    assert_eq!(check["items"], items, "{text}");
    serde_json::from_str(text).expect("JSON")
}

/// The issues of a GitLab report whose description contains `needle`.
fn issues_with<'a>(report: &'a Value, needle: &str) -> Vec<&'a Value> {
    report
        .as_array()
        .expect("an array")
        .iter()
        .filter(|i| {
            i["description"]
                .as_str()
                .is_some_and(|d| d.contains(needle))
        })
        .collect()
}

fn one<'a>(report: &'a Value, needle: &str) -> &'a Value {
    let found = issues_with(report, needle);
    assert_eq!(found.len(), 1, "{needle}: {report:#}");
    found[0]
}

#[test]
fn gitlab_of_a_nasty_run_is_valid_and_hides_nothing() {
    let runs = nasty_run();
    // 2 tsc + 4 eslint + 2 jest + cargo-test's blocker + 3 migrations + vitest skipped.
    let report = valid("gitlab", "nasty", &rendered(Format::Gitlab, &runs, 0), 13);

    let blocker = one(&report, "cargo-test could not verify");
    assert_eq!(blocker["severity"], "blocker");
    assert_eq!(blocker["check_name"], "verdict/could-not-verify");
    assert!(
        blocker["description"]
            .as_str()
            .is_some_and(|d| d.contains("failed to start cargo")),
        "{blocker:#}"
    );
    assert_eq!(blocker["location"]["path"], ".");
    let skipped = one(&report, "vitest did not run");
    assert_eq!(skipped["severity"], "info");

    let root = one(&report, "Cannot find module './pool'");
    assert_eq!(root["severity"], "critical");
    assert_eq!(root["check_name"], "tsc/TS2307");
    assert_eq!(
        root["location"],
        serde_json::json!({ "path": "src/db/index.ts", "lines": { "begin": 1 } })
    );
    let plain = one(&report, "Type 'string' is not assignable");
    assert_eq!(plain["severity"], "major");

    // Two identical warnings in one file: two issues, two fingerprints.
    let console = issues_with(&report, "Unexpected console statement.");
    assert_eq!(console.len(), 2);
    assert_eq!(console[0]["location"]["path"], "src/app.js");
    assert_eq!(console[0]["severity"], "minor");
    assert_ne!(console[0]["fingerprint"], console[1]["fingerprint"]);
    assert_eq!(console[0]["check_name"], "eslint/no-console");

    // Line 0 is no line; a failing test keeps its name, its detail and its file.
    assert_eq!(
        one(&report, "line 0 is no line")["location"]["lines"]["begin"],
        1
    );
    let test = one(&report, "cart › adds <items>");
    assert_eq!(test["location"]["path"], "src/cart.test.ts");
    assert!(
        test["description"]
            .as_str()
            .is_some_and(|d| d.ends_with("Expected: 3\nReceived: 4")),
        "{test:#}"
    );
    assert_eq!(test["check_name"], "jest/test");

    // A finding without a file, and files outside the repository, sit at the project's
    // directory and say which file they meant.
    let unlocated = one(&report, "migration 0042 is not reversible");
    assert_eq!(unlocated["location"]["path"], ".");
    assert_eq!(
        unlocated["description"],
        "migrations: migration 0042 is not reversible"
    );
    let absolute = one(&report, "absolute path finding");
    assert_eq!(absolute["location"]["path"], ".");
    assert!(
        absolute["description"]
            .as_str()
            .is_some_and(|d| d.ends_with("(/srv/app/Schema.sql:5)")),
        "{absolute:#}"
    );
    assert!(
        one(&report, "windows absolute finding")["description"]
            .as_str()
            .is_some_and(|d| d.contains(r"C:\work\app\Schema.sql:6")),
    );
}

#[test]
fn gitlab_fingerprints_survive_code_moving_and_other_verifiers() {
    let runs = nasty_run();
    let before = valid("gitlab", "before", &rendered(Format::Gitlab, &runs, 0), 13);
    // The next run: tsc's error moved down ten lines, and eslint no longer runs.
    let mut after_runs = runs.clone();
    after_runs[0].report.diagnostics[0].line = Some(13);
    after_runs.remove(1);
    let after = valid(
        "gitlab",
        "after",
        &rendered(Format::Gitlab, &after_runs, 0),
        9,
    );
    for needle in [
        "Type 'string' is not assignable",
        "cart › adds <items>",
        "cargo-test could not verify",
        "migration 0042",
    ] {
        assert_eq!(
            one(&before, needle)["fingerprint"],
            one(&after, needle)["fingerprint"],
            "{needle}"
        );
    }
    assert_eq!(
        one(&after, "Type 'string' is not assignable")["location"]["lines"]["begin"],
        13
    );
}

#[test]
fn rdjson_of_a_nasty_run_is_valid_and_hides_nothing() {
    let runs = nasty_run();
    let result = valid("rdjson", "nasty", &rendered(Format::Rdjson, &runs, 0), 13);
    assert_eq!(result["source"]["name"], "verdict");
    let diagnostics = result["diagnostics"].as_array().expect("diagnostics");
    let find = |needle: &str| {
        let found: Vec<&Value> = diagnostics
            .iter()
            .filter(|d| d["message"].as_str().is_some_and(|m| m.contains(needle)))
            .collect();
        assert_eq!(found.len(), 1, "{needle}: {result:#}");
        found[0]
    };
    assert_eq!(
        find("Type 'string' is not assignable"),
        &serde_json::json!({
            "message": "Type 'string' is not assignable to type 'number'.",
            "location": { "path": "src/a.ts", "range": { "start": { "line": 3, "column": 7 } } },
            "severity": "ERROR",
            "source": { "name": "tsc" },
            "code": { "value": "TS2322" },
        })
    );
    let warnings: Vec<&Value> = diagnostics
        .iter()
        .filter(|d| d["message"] == "Unexpected console statement.")
        .collect();
    assert_eq!(warnings.len(), 2);
    assert_eq!(warnings[0]["severity"], "WARNING");
    assert_eq!(
        warnings[0]["location"],
        serde_json::json!({ "path": "src/app.js", "range": { "start": { "line": 10 } } })
    );
    let blocker = find("cargo-test could not verify");
    assert_eq!(blocker["severity"], "ERROR");
    assert_eq!(blocker["code"]["value"], "verdict/could-not-verify");
    assert!(blocker.get("location").is_none(), "{blocker:#}");
    assert_eq!(find("vitest did not run")["severity"], "INFO");
    // No line is no range; no file in the repository is no location.
    assert_eq!(
        find("line 0 is no line")["location"],
        serde_json::json!({ "path": "src/zero.js" })
    );
    let unlocated = find("migration 0042");
    assert!(unlocated.get("location").is_none(), "{unlocated:#}");
    assert_eq!(
        find("absolute path finding")["message"],
        "migrations: absolute path finding (/srv/app/Schema.sql:5)"
    );
    assert_eq!(find("windows absolute finding")["severity"], "INFO");
    assert_eq!(find("cart › adds")["location"]["path"], "src/cart.test.ts");
}

#[test]
fn a_passing_run_is_an_empty_valid_report_and_a_silent_failure_is_not() {
    let mut pytest = Report::new("pytest", Outcome::Passed);
    pytest.counts = Counts {
        tests_passed: Some(12),
        ..Counts::default()
    };
    let passing = vec![verification("pytest", Kind::Test, Status::Ran, pytest, 640)];
    let text = rendered(Format::Gitlab, &passing, 0);
    assert_eq!(text, "[]\n");
    valid("gitlab", "pass", &text, 0);
    let result = valid("rdjson", "pass", &rendered(Format::Rdjson, &passing, 0), 0);
    assert_eq!(result["diagnostics"], Value::Array(Vec::new()));

    // A runner that failed and said nothing else is still a failure in both.
    let mut silent = Report::new("mocha", Outcome::Failed);
    silent.summary = Some("exit code 1".to_owned());
    let failing = vec![verification("mocha", Kind::Test, Status::Ran, silent, 300)];
    let report = valid(
        "gitlab",
        "silent",
        &rendered(Format::Gitlab, &failing, 0),
        1,
    );
    assert_eq!(report[0]["description"], "mocha failed: exit code 1");
    assert_eq!(report[0]["severity"], "major");
    let result = valid(
        "rdjson",
        "silent",
        &rendered(Format::Rdjson, &failing, 0),
        1,
    );
    assert_eq!(result["diagnostics"][0]["severity"], "ERROR");

    // A run of nothing verified nothing.
    let report = valid("gitlab", "empty", &rendered(Format::Gitlab, &[], 0), 1);
    assert_eq!(report[0]["severity"], "blocker");
    let result = valid("rdjson", "empty", &rendered(Format::Rdjson, &[], 0), 1);
    assert_eq!(
        result["diagnostics"][0]["message"],
        "verdict could not verify: no verifier ran"
    );
}

#[test]
fn ten_thousand_findings_stay_valid_and_the_rest_are_counted() {
    let runs = huge_run();
    // 10 000 eslint + 1 not listed + 2500 jest.
    let report = valid(
        "gitlab",
        "huge",
        &rendered(Format::Gitlab, &runs, 0),
        12_501,
    );
    let rest = one(&report, "50 more findings not listed");
    assert_eq!(rest["severity"], "info");
    valid(
        "rdjson",
        "huge",
        &rendered(Format::Rdjson, &runs, 0),
        12_501,
    );
}

#[test]
fn every_captured_log_renders_to_valid_gitlab_and_rdjson() {
    let runs = captured_runs();
    let gitlab = schema_check("gitlab", "captured", &rendered(Format::Gitlab, &runs, 0));
    assert_eq!(gitlab["errors"], Value::Array(Vec::new()));
    let rdjson = schema_check("rdjson", "captured", &rendered(Format::Rdjson, &runs, 0));
    assert_eq!(rdjson["errors"], Value::Array(Vec::new()));
    // Each verifier that did not pass says so in both.
    for run in runs.iter().filter(|r| r.outcome() != Outcome::Passed) {
        let alone = std::slice::from_ref(run);
        let issues: Value =
            serde_json::from_str(&rendered(Format::Gitlab, alone, 0)).expect("JSON");
        assert!(
            !issues.as_array().expect("an array").is_empty(),
            "{} renders as a clean report",
            run.verifier
        );
        let result: Value =
            serde_json::from_str(&rendered(Format::Rdjson, alone, 0)).expect("JSON");
        assert!(
            result["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["severity"] == "ERROR")),
            "{} has no error in rdjson",
            run.verifier
        );
    }
}

#[test]
fn the_schema_check_catches_what_gitlab_and_reviewdog_would_reject() {
    let text = rendered(Format::Gitlab, &nasty_run(), 0);
    let mut report: Value = serde_json::from_str(&text).expect("JSON");
    report[0]["severity"] = "fatal".into();
    report[1]["fingerprint"] = report[2]["fingerprint"].clone();
    report[3]["location"]["path"] = "/abs/a.ts".into();
    report[4]["location"]["lines"]["begin"] = "3".into();
    report[5]
        .as_object_mut()
        .expect("an issue")
        .remove("check_name");
    let errors = schema_check("gitlab", "broken", &report.to_string())["errors"].clone();
    let errors: Vec<&str> = errors
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for expected in [
        "[0] (GitLab's documentation) severity",
        "[2] has the fingerprint of [1]",
        "[3] (GitLab's documentation) location/path",
        "[4] (GitLab's schema) location/lines/begin",
        "[5] (GitLab's documentation) : 'check_name' is a required property",
    ] {
        assert!(
            errors.iter().any(|e| e.starts_with(expected)),
            "{expected}: {errors:#?}"
        );
    }
    let object = schema_check("gitlab", "object", "{}")["errors"].clone();
    assert_eq!(object[0], "the report is not a JSON array");

    let text = rendered(Format::Rdjson, &nasty_run(), 0);
    let mut result: Value = serde_json::from_str(&text).expect("JSON");
    result["diagnostics"][0]["severity"] = "FATAL".into();
    result["diagnostics"][1]["location"]["range"]["start"]["line"] = 3_000_000_000u64.into();
    let errors = schema_check("rdjson", "broken", &result.to_string())["errors"].clone();
    assert_eq!(errors.as_array().map(Vec::len), Some(2), "{errors:#}");
}

#[test]
fn a_diagnostic_past_reviewdogs_int32_has_no_range() {
    let mut report = Report::new("tsc", Outcome::Failed);
    report.push(
        Diagnostic::new("tsc", Kind::Type, Severity::Error, "far away").at(
            "src/big.ts",
            Some(u32::MAX),
            Some(3),
        ),
    );
    let runs = vec![verification("tsc", Kind::Type, Status::Ran, report, 10)];
    let result = valid("rdjson", "int32", &rendered(Format::Rdjson, &runs, 0), 1);
    assert_eq!(
        result["diagnostics"][0]["location"],
        serde_json::json!({ "path": "src/big.ts" })
    );
    valid("gitlab", "int32", &rendered(Format::Gitlab, &runs, 0), 1);
}
