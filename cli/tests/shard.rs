//! End-to-end tests of `verdict run --shard` and `verdict merge` (issue 13): real jest, vitest and
//! pytest projects (`cli/tests/shard/`: seven test files each, two failing tests in two files) run
//! whole and split three ways, and the merged shards compared with the whole run — counts,
//! failures by fingerprint and test name, and the digest.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support::project::{Out, Project};

/// A copy of the fixture `cli/tests/shard/<name>`, wired to the real tools.
fn fixture(name: &str) -> Project {
    let project = Project::empty();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shard")
        .join(name);
    verdict_test_support::copy_dir_except(&from, project.root(), &["node_modules", ".venv"]);
    match name {
        "pytest" => project.link_venv(),
        _ => project.link_node_modules(),
    }
    project
}

/// The verification of `name` in a JSON report.
fn verification<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["verifications"]
        .as_array()
        .expect("a verifications array")
        .iter()
        .find(|v| v["verifier"] == name)
        .unwrap_or_else(|| panic!("no verification of {name}: {report:#}"))
}

/// `(test, fingerprint)` of every error of `name`'s report.
fn failures(report: &Value, name: &str) -> BTreeSet<(String, String)> {
    verification(report, name)["report"]["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| {
            (
                d["test"].as_str().unwrap_or("").to_owned(),
                d["fingerprint"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// The test counts of `name`'s report.
fn counts(report: &Value, name: &str) -> (Value, Value, Value) {
    let counts = &verification(report, name)["report"]["counts"];
    (
        counts["tests_passed"].clone(),
        counts["tests_failed"].clone(),
        counts["tests_skipped"].clone(),
    )
}

/// Runs shards 1..=total of the project as JSON reports `shard-<i>.json` in its root, and returns
/// each shard's report.
fn run_shards(project: &Project, total: u32, extra: &[&str]) -> Vec<Value> {
    (1..=total)
        .map(|index| {
            let shard = format!("{index}/{total}");
            let file = format!("shard-{index}.json");
            let mut args = vec![
                "run", "--shard", &shard, "--format", "json", "--output", &file,
            ];
            args.extend(extra);
            let out = project.verdict(&args);
            let report: Value =
                serde_json::from_str(&project.read(&file)).expect("a shard writes JSON");
            assert_eq!(
                report["shard"],
                serde_json::json!({"index": index, "total": total}),
                "{}",
                out.all()
            );
            assert_eq!(
                i64::from(out.code),
                report["exit_code"].as_i64().unwrap_or(-1),
                "{}",
                out.all()
            );
            report
        })
        .collect()
}

/// `verdict merge` of the files, in the order given.
fn merge(project: &Project, files: &[&str], extra: &[&str]) -> Out {
    let mut args = vec!["merge"];
    args.extend(files);
    args.extend(extra);
    project.verdict(&args)
}

/// The whole run and the merge of its three shards agree on `name`: exit code, counts, failures
/// by test name and fingerprint, and the digest names the same failing tests. Each shard ran part
/// of the tests, and every test ran in exactly one shard.
fn check_split(fixture_name: &str, name: &str) {
    let project = fixture(fixture_name);
    let whole = project.verdict(&["run", "--format", "json"]);
    assert_eq!(whole.code, 1, "{}", whole.all());
    let whole = whole.json();
    assert_eq!(failures(&whole, name).len(), 2, "{whole:#}");

    let shards = run_shards(&project, 3, &[]);
    let mut ran = 0;
    for shard in &shards {
        let v = verification(shard, name);
        if v["status"] == "ran" {
            ran += 1;
            let passed = v["report"]["counts"]["tests_passed"].as_u64().unwrap_or(0);
            assert!(passed < 12, "a shard ran only part of the tests: {v:#}");
        }
    }
    assert_eq!(ran, 3, "seven files, three shards: each ran some");

    // The files in another order than the shards': the merge goes by shard index.
    let out = merge(
        &project,
        &["shard-3.json", "shard-1.json", "shard-2.json"],
        &["--format", "json"],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    let merged = out.json();
    assert_eq!(merged["outcome"], "failed");
    assert_eq!(
        merged.get("shard"),
        None,
        "a merged run is whole: {merged:#}"
    );
    assert_eq!(counts(&merged, name), counts(&whole, name), "{merged:#}");
    assert_eq!(failures(&merged, name), failures(&whole, name));
    // Each shard's tests, as the parsers list them, are the whole run's, once.
    let tests = |report: &Value| -> Vec<String> {
        let mut names: Vec<String> = verification(report, name)["report"]["tests"]
            .as_array()
            .map(|tests| {
                tests
                    .iter()
                    .map(|t| t["name"].as_str().unwrap_or("").to_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    assert_eq!(tests(&merged), tests(&whole));

    let digest = merged["digest"]["text"].as_str().expect("a digest");
    let whole_digest = whole["digest"]["text"].as_str().expect("a digest");
    for (test, _) in failures(&whole, name) {
        // The digest names a test by its last title.
        let last = test
            .rsplit([' ', ':', '>', '›'])
            .next()
            .unwrap_or(&test)
            .to_owned();
        assert!(whole_digest.contains(&last), "{whole_digest}");
        assert!(
            digest.contains(&last),
            "{last} not in the merged digest:\n{digest}"
        );
    }
    // The headline counts are the whole run's.
    let headline = |text: &str| text.lines().next().unwrap_or("").to_owned();
    assert_eq!(headline(digest), headline(whole_digest));

    // The human format renders the same merged run.
    let human = merge(
        &project,
        &["shard-1.json", "shard-2.json", "shard-3.json"],
        &[],
    );
    assert_eq!(human.code, 1, "{}", human.all());
    assert!(
        human.stdout.contains(&headline(whole_digest)),
        "{}",
        human.all()
    );
}

#[test]
fn jest_split_three_ways_merges_to_the_whole_run() {
    check_split("jest", "jest");
}

#[test]
fn vitest_split_three_ways_merges_to_the_whole_run() {
    check_split("vitest", "vitest");
}

#[test]
fn pytest_split_three_ways_merges_to_the_whole_run() {
    check_split("pytest", "pytest");
}

/// With two test files and three shards, one shard has no test of its own: it says so
/// (`not_in_shard`, neither a pass nor a failure, exit 2 as nothing ran in it), and the merge is
/// still the whole run.
fn check_empty_shard(fixture_name: &str, name: &str) {
    let project = fixture(fixture_name);
    let dir = if name == "pytest" { "tests" } else { "test" };
    for entry in std::fs::read_dir(project.path(dir)).expect("the test directory") {
        let path = entry.expect("an entry").path();
        let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !(file.contains("part2") || file.contains("part5")) {
            std::fs::remove_file(&path).expect("remove a test file");
        }
    }
    let whole = project.verdict(&["run", "--format", "json"]).json();
    let shards = run_shards(&project, 3, &[]);
    let empty: Vec<&Value> = shards
        .iter()
        .filter(|s| verification(s, name)["status"] == "not_in_shard")
        .collect();
    assert_eq!(empty.len(), 1, "{shards:#?}");
    let empty = empty[0];
    assert_eq!(empty["exit_code"], 2, "nothing ran in it: {empty:#}");
    let report = &verification(empty, name)["report"];
    assert_eq!(report["outcome"], "errored");
    assert!(
        report["error"]
            .as_str()
            .is_some_and(|e| e.contains("more shards than test files")),
        "{report:#}"
    );
    let out = merge(
        &project,
        &["shard-1.json", "shard-2.json", "shard-3.json"],
        &["--format", "json"],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    let merged = out.json();
    assert_eq!(counts(&merged, name), counts(&whole, name));
    assert_eq!(failures(&merged, name), failures(&whole, name));
}

#[test]
fn an_empty_jest_shard_is_not_run_there_and_the_merge_is_whole() {
    check_empty_shard("jest", "jest");
}

#[test]
fn an_empty_vitest_shard_is_not_run_there_and_the_merge_is_whole() {
    check_empty_shard("vitest", "vitest");
}

#[test]
fn an_empty_pytest_shard_is_not_run_there_and_the_merge_is_whole() {
    check_empty_shard("pytest", "pytest");
}

#[test]
fn a_missing_duplicated_or_foreign_shard_cannot_be_merged() {
    let project = fixture("jest");
    run_shards(&project, 3, &[]);
    let missing = merge(&project, &["shard-1.json", "shard-3.json"], &[]);
    assert_eq!(missing.code, 2, "{}", missing.all());
    assert!(
        missing.stderr.contains("shard 2/3 missing"),
        "{}",
        missing.all()
    );
    assert!(
        missing.stdout.is_empty(),
        "no report of a partial run: {}",
        missing.all()
    );

    let twice = merge(
        &project,
        &[
            "shard-1.json",
            "shard-2.json",
            "shard-3.json",
            "shard-2.json",
        ],
        &[],
    );
    assert_eq!(twice.code, 2, "{}", twice.all());
    assert!(
        twice.stderr.contains("shard 2/3 is given twice"),
        "{}",
        twice.all()
    );

    let out = project.verdict(&[
        "run",
        "--shard",
        "2/2",
        "--format",
        "json",
        "-o",
        "other.json",
    ]);
    assert!(matches!(out.code, 0 | 1), "{}", out.all());
    let foreign = merge(
        &project,
        &["shard-1.json", "other.json", "shard-3.json"],
        &[],
    );
    assert_eq!(foreign.code, 2, "{}", foreign.all());
    assert!(
        foreign
            .stderr
            .contains("other.json is shard 2/2 of a split into 2"),
        "{}",
        foreign.all()
    );

    project.verdict(&["run", "--format", "json", "-o", "whole.json"]);
    let whole = merge(&project, &["whole.json"], &[]);
    assert_eq!(whole.code, 2, "{}", whole.all());
    assert!(whole.stderr.contains("not of a shard"), "{}", whole.all());

    project.write("broken.json", "{\"schema\": \"verdict-run/1\", ");
    let broken = merge(&project, &["shard-1.json", "broken.json"], &[]);
    assert_eq!(broken.code, 2, "{}", broken.all());
    assert!(broken.stderr.contains("broken.json"), "{}", broken.all());

    let absent = merge(&project, &["shard-1.json", "nope.json"], &[]);
    assert_eq!(absent.code, 2, "{}", absent.all());
    assert!(absent.stderr.contains("nope.json"), "{}", absent.all());
}

#[test]
fn an_errored_shard_makes_the_merged_run_errored_naming_it() {
    let project = fixture("jest");
    run_shards(&project, 3, &[]);
    // Shard 2's jest could not verify (as when it timed out on that machine).
    let mut shard: Value = serde_json::from_str(&project.read("shard-2.json")).expect("JSON");
    let jest = shard["verifications"]
        .as_array_mut()
        .and_then(|v| v.iter_mut().find(|v| v["verifier"] == "jest"))
        .expect("jest");
    jest["outcome"] = "errored".into();
    jest["report"]["outcome"] = "errored".into();
    jest["report"]["error"] = "jest timed out after 10m and was stopped".into();
    project.write("shard-2.json", &shard.to_string());
    let out = merge(
        &project,
        &["shard-1.json", "shard-2.json", "shard-3.json"],
        &["--format", "json"],
    );
    assert_eq!(out.code, 2, "{}", out.all());
    let merged = out.json();
    let report = &verification(&merged, "jest")["report"];
    assert_eq!(report["outcome"], "errored");
    assert_eq!(
        report["error"],
        "shard 2/3: jest timed out after 10m and was stopped"
    );
}

#[test]
fn a_shard_must_be_index_slash_total() {
    let project = fixture("jest");
    for bad in ["0/3", "4/3", "1/0", "x", "1/3/3", "-1/3"] {
        let out = project.verdict(&["run", &format!("--shard={bad}")]);
        assert_eq!(out.code, 2, "--shard {bad}: {}", out.all());
        assert!(
            out.stderr.contains("invalid shard"),
            "--shard {bad}: {}",
            out.all()
        );
    }
    let out = project.verdict(&["run", "--shard-durations", "x.json"]);
    assert_eq!(
        out.code,
        2,
        "--shard-durations needs --shard: {}",
        out.all()
    );
}

/// What is no test runner (tsc, eslint) runs in shard 1 only; shard 2 lists it as not run there,
/// never as a pass; the merge takes it from shard 1 and equals the whole run.
#[test]
fn non_test_verifiers_run_in_the_first_shard_only() {
    let project = Project::polyglot();
    // A second test file of each runner, so that each shard has tests of both.
    project.write(
        "tests/test_more.py",
        "def test_more():\n    assert 1 + 1 == 2\n",
    );
    project.write(
        "test/more.test.js",
        "test('more', () => {\n  expect(1 + 1).toBe(2);\n});\n",
    );
    let whole = project.verdict(&["run", "--format", "json"]).json();
    let shards = run_shards(&project, 2, &[]);
    for name in ["jest", "pytest"] {
        for shard in &shards {
            assert_eq!(
                verification(shard, name)["status"],
                "ran",
                "{name}: {shard:#}"
            );
        }
    }
    for name in ["tsc", "eslint"] {
        assert_eq!(verification(&shards[0], name)["status"], "ran");
        let second = verification(&shards[1], name);
        assert_eq!(second["status"], "not_in_shard", "{second:#}");
        assert_ne!(second["outcome"], "passed");
        assert!(
            second["report"]["error"]
                .as_str()
                .is_some_and(|e| e.contains("shard 1/2")),
            "{second:#}"
        );
    }
    // The formats CI systems read leave out what did not run in the shard.
    let junit = project.verdict(&["run", "--shard", "2/2", "--format", "junit"]);
    assert!(junit.stdout.contains("name=\"jest\""), "{}", junit.all());
    assert!(!junit.stdout.contains("name=\"tsc\""), "{}", junit.all());
    let out = merge(
        &project,
        &["shard-2.json", "shard-1.json"],
        &["--format", "json"],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    let merged = out.json();
    for name in ["tsc", "eslint", "jest", "pytest"] {
        assert_eq!(failures(&merged, name), failures(&whole, name), "{name}");
        assert_eq!(
            verification(&merged, name)["report"]["counts"],
            verification(&whole, name)["report"]["counts"],
            "{name}"
        );
    }
}

/// `node --test` splits with Node.js's own `--test-shard`; with four shards for three files, one
/// is empty, and the merge is the whole run.
#[test]
fn node_test_splits_with_its_own_shard_option() {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"name": "shard-node", "private": true, "scripts": {"test": "node --test"}}"#,
    );
    for (i, check) in [(1, "1, 1"), (2, "2, 2"), (3, "1, 2")] {
        project.write(
            &format!("test/part{i}.test.js"),
            &format!(
                "const test = require('node:test');\nconst assert = require('node:assert');\n\
                 test('part {i}', () => assert.equal({check}));\n"
            ),
        );
    }
    let whole = project.verdict(&["run", "--format", "json"]);
    assert_eq!(whole.code, 1, "{}", whole.all());
    let whole = whole.json();
    let shards = run_shards(&project, 4, &[]);
    let statuses: Vec<&Value> = shards
        .iter()
        .map(|s| &verification(s, "node-test")["status"])
        .collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == "not_in_shard").count(),
        1,
        "{statuses:?}"
    );
    for shard in &shards {
        let command = verification(shard, "node-test")["command"].to_string();
        let index = &shard["shard"]["index"];
        assert!(
            command.contains(&format!("--test-shard={index}/4")),
            "{command}"
        );
    }
    let out = merge(
        &project,
        &[
            "shard-1.json",
            "shard-2.json",
            "shard-3.json",
            "shard-4.json",
        ],
        &["--format", "json"],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    let merged = out.json();
    assert_eq!(counts(&merged, "node-test"), counts(&whole, "node-test"));
    assert_eq!(
        failures(&merged, "node-test"),
        failures(&whole, "node-test")
    );
}

/// `--shard-durations` balances pytest's files by an earlier report's test durations: one slow
/// file gets a shard of its own, the six fast ones share the other.
#[test]
fn pytest_files_are_balanced_by_the_durations_of_an_earlier_report() {
    let project = fixture("pytest");
    let tests: Vec<Value> = (1..=7)
        .flat_map(|i| {
            let duration = if i == 1 { 60_000 } else { 10 };
            ["test_adds", "test_multiplies"].map(|name| {
                serde_json::json!({
                    "name": format!("tests/test_part{i}.py::{name}"),
                    "file": format!("tests/test_part{i}.py"),
                    "status": "passed",
                    "duration_ms": duration,
                })
            })
        })
        .collect();
    let earlier = serde_json::json!({
        "schema": "verdict-run/1",
        "verdict_version": "0.1.0",
        "outcome": "passed",
        "exit_code": 0,
        "known_failures": 0,
        "verifications": [{
            "verifier": "pytest", "kind": "test", "status": "ran", "outcome": "passed",
            "duration_ms": 60_060, "command": null, "log": null, "notes": [],
            "report": {
                "tool": "pytest", "outcome": "passed", "counts": {"tests_passed": 14},
                "diagnostics": [], "tests": tests
            }
        }],
        "digest": {"text": "", "tokens": 0, "budget": 500}
    });
    project.write("earlier.json", &earlier.to_string());
    let whole = project.verdict(&["run", "--format", "json"]).json();
    let shards = run_shards(&project, 2, &["--shard-durations", "earlier.json"]);
    let command = |shard: &Value| -> Vec<String> {
        verification(shard, "pytest")["command"]
            .as_array()
            .expect("a command")
            .iter()
            .filter_map(|a| a.as_str())
            .filter(|a| a.starts_with("tests/"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(command(&shards[0]), ["tests/test_part1.py"]);
    assert_eq!(command(&shards[1]).len(), 6, "{:?}", command(&shards[1]));
    assert_eq!(
        verification(&shards[0], "pytest")["report"]["counts"]["tests_passed"],
        2
    );
    // By count, the first shard would have had four files.
    let by_count = run_shards(&project, 2, &[]);
    assert_eq!(
        command(&by_count[0]).len(),
        4,
        "{:?}",
        command(&by_count[0])
    );
    let out = merge(
        &project,
        &["shard-1.json", "shard-2.json"],
        &["--format", "json"],
    );
    let merged = out.json();
    assert_eq!(counts(&merged, "pytest"), counts(&whole, "pytest"));
    assert_eq!(failures(&merged, "pytest"), failures(&whole, "pytest"));
}

/// A real run's JSON report lists pytest's tests with their files and durations, and it is what
/// `--shard-durations` reads: the shards it balances merge to the whole run.
#[test]
fn a_real_report_gives_the_durations_the_next_split_reads() {
    let project = fixture("pytest");
    let whole = project.verdict(&["run", "--format", "json=whole.json"]);
    assert_eq!(whole.code, 1, "{}", whole.all());
    let report: Value = serde_json::from_str(&project.read("whole.json")).expect("JSON");
    let tests = verification(&report, "pytest")["report"]["tests"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(tests.len(), 14, "{report:#}");
    assert!(
        tests.iter().all(|t| t["file"]
            .as_str()
            .is_some_and(|f| f.starts_with("tests/test_part"))
            && t["duration_ms"].is_u64()),
        "{tests:#?}"
    );
    run_shards(&project, 3, &["--shard-durations", "whole.json"]);
    let out = merge(
        &project,
        &["shard-1.json", "shard-2.json", "shard-3.json"],
        &["--format", "json"],
    );
    assert_eq!(out.code, 1, "{}", out.all());
    let merged = out.json();
    assert_eq!(
        verification(&merged, "pytest")["report"]["counts"],
        verification(&report, "pytest")["report"]["counts"],
        "{merged:#}"
    );
    assert_eq!(failures(&merged, "pytest"), failures(&report, "pytest"));
}
