//! End-to-end tests of `verdict run`, `verdict list` and `verdict init` (issue 3): the real binary
//! on copies of real projects, with the real tools (`cargo xtask tools`), and the reports read back
//! by real consumers — serde_json, Microsoft's SARIF Multitool, junitparser.
//!
//! The main fixture is `examples/polyglot` (tsc, eslint, jest and pytest, each with one deliberate
//! failure) and its green copy (`xtask/bench/polyglot-green/` laid over it); small fixtures for
//! the other cases are under `cli/tests/run/`.

use crate::support::project;

mod declared;
mod doctests;
mod evidence;
pub(crate) mod gitlab_rdjson;
mod python_checks;
mod repo_paths;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use project::{Out, Project, tools};
use serde_json::Value;

/// The verification of `name` in a `--format json` report.
fn verification<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["verifications"]
        .as_array()
        .expect("a verifications array")
        .iter()
        .find(|v| v["verifier"] == name)
        .unwrap_or_else(|| panic!("no verification of {name}: {report:#}"))
}

/// The verifiers of a JSON report, in order.
fn names(report: &Value) -> Vec<String> {
    report["verifications"]
        .as_array()
        .expect("a verifications array")
        .iter()
        .map(|v| v["verifier"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// `(verifier, status)` of each verification.
fn statuses(report: &Value) -> Vec<(String, String)> {
    report["verifications"]
        .as_array()
        .expect("a verifications array")
        .iter()
        .map(|v| {
            (
                v["verifier"].as_str().unwrap_or("?").to_owned(),
                v["status"].as_str().unwrap_or("?").to_owned(),
            )
        })
        .collect()
}

pub(crate) fn has_ansi(text: &str) -> bool {
    text.contains('\u{1b}')
}

/// The example's four verifiers and what each must find.
fn assert_example_counts(report: &Value, root: &Path) {
    assert_eq!(report["schema"], "verdict-run/1", "{report:#}");
    assert_eq!(report["outcome"], "failed");
    assert_eq!(report["exit_code"], 1);
    let mut found = names(report);
    found.sort();
    assert_eq!(found, ["eslint", "jest", "pytest", "tsc"], "{report:#}");
    for name in ["tsc", "eslint", "jest", "pytest"] {
        let v = verification(report, name);
        assert_eq!(v["status"], "ran", "{name}: {v:#}");
        assert_eq!(v["outcome"], "failed", "{name}: {v:#}");
        // The full output is kept on disk at .verdict/runs/<id>/<name>.log; eslint prints
        // nothing and writes its findings to its JSON report, which is then the file named.
        let log = v["log"].as_str().expect("a log path");
        let file = if name == "eslint" {
            "eslint.json".to_owned()
        } else {
            format!("{name}.log")
        };
        let parts: Vec<&str> = log.split('/').collect();
        assert!(
            parts.len() == 4 && parts[0] == ".verdict" && parts[1] == "runs" && parts[3] == file,
            "{name}'s log is not at .verdict/runs/<id>/{file}: {log}"
        );
        let text = std::fs::read_to_string(root.join(log))
            .unwrap_or_else(|e| panic!("{name}'s log {log} cannot be read: {e}"));
        assert!(!text.trim().is_empty(), "{name}'s log is empty");
    }
    let counts = |name: &str| verification(report, name)["report"]["counts"].clone();
    assert_eq!(counts("tsc")["errors"], 2, "{:#}", counts("tsc"));
    assert_eq!(counts("eslint")["errors"], 1, "{:#}", counts("eslint"));
    assert_eq!(counts("jest")["tests_failed"], 1, "{:#}", counts("jest"));
    assert_eq!(counts("jest")["tests_passed"], 3, "{:#}", counts("jest"));
    assert_eq!(
        counts("pytest")["tests_failed"],
        1,
        "{:#}",
        counts("pytest")
    );
    assert_eq!(
        counts("pytest")["tests_passed"],
        2,
        "{:#}",
        counts("pytest")
    );
    let diagnostics = |name: &str| {
        verification(report, name)["report"]["diagnostics"]
            .as_array()
            .map_or(0, Vec::len)
    };
    assert_eq!(diagnostics("tsc"), 2);
    assert_eq!(diagnostics("eslint"), 1);
    assert_eq!(diagnostics("jest"), 1);
    assert_eq!(diagnostics("pytest"), 1);
    assert!(
        report["digest"].to_string().contains("src/cart.ts"),
        "the JSON report carries the digest: {report:#}"
    );
}

// ---------------------------------------------------------------------------------------------
// 1–2. The example, in every format

#[test]
fn the_example_fails_with_the_right_counts_in_json() {
    let project = Project::polyglot();
    let out = project.verdict(&["run", "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert_example_counts(&out.json(), project.root());
}

#[test]
fn the_example_for_people_and_for_github_actions() {
    let project = Project::polyglot();

    // Human: one line per verifier, then the digest; no colour when stdout is not a terminal.
    let human = project.verdict(&["run"]);
    assert_eq!(human.code, 1, "{}", human.all());
    assert!(
        !has_ansi(&human.stdout),
        "colour in a pipe:\n{}",
        human.stdout
    );
    assert!(
        !has_ansi(&human.stderr),
        "colour in a pipe:\n{}",
        human.stderr
    );
    for name in ["tsc", "eslint", "jest", "pytest"] {
        let lines = human
            .stdout
            .lines()
            .filter(|l| l.contains(&format!(" {name} failed")))
            .count();
        assert_eq!(lines, 1, "one status line for {name}:\n{}", human.stdout);
    }
    for needle in [
        "src/cart.ts:13:3 TS2322",
        "src/format.js:3:9 no-unused-vars",
        "puts the currency symbol first",
        "test_vat_of_gross_amount",
        ".verdict/runs/",
    ] {
        assert!(
            human.stdout.contains(needle),
            "the digest lacks `{needle}`:\n{}",
            human.stdout
        );
    }

    // NO_COLOR, and GitHub Actions: annotations beside the human report, job summary appended.
    let summary = project.path("step-summary.md");
    std::fs::write(&summary, "# earlier step\n").expect("write the summary file");
    let summary_path = summary.to_str().expect("a UTF-8 path");
    let actions = project.verdict_env(
        &["run"],
        &[
            ("NO_COLOR", "1"),
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", summary_path),
        ],
    );
    assert_eq!(actions.code, 1, "{}", actions.all());
    assert!(!has_ansi(&actions.stdout) && !has_ansi(&actions.stderr));
    assert!(
        actions.stdout.contains("::error file=src/cart.ts,line=13"),
        "no annotations under GITHUB_ACTIONS=true:\n{}",
        actions.stdout
    );
    assert!(
        actions.stdout.contains("tsc: 2 errors"),
        "{}",
        actions.stdout
    );
    let written = project.read("step-summary.md");
    assert!(
        written.starts_with("# earlier step\n") && written.len() > "# earlier step\n".len() + 40,
        "the job summary is not appended:\n{written}"
    );
    assert!(
        written.contains("tsc") && written.contains("pytest"),
        "{written}"
    );

    // JSON on stdout stays valid under GITHUB_ACTIONS: the annotations go elsewhere.
    let json = project.verdict_env(
        &["run", "--format", "json"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", summary_path),
        ],
    );
    assert_eq!(json.code, 1, "{}", json.all());
    assert_example_counts(&json.json(), project.root());
    assert!(json.stderr.contains("::error file="), "{}", json.stderr);
    let summaries = project.read("step-summary.md").matches("pytest").count();
    assert!(summaries >= 2, "a second summary was not appended");

    // GitHub workflow commands.
    // GitHub workflow commands, in Actions: each annotation once (not also added as under
    // another format), and the summary appended again.
    let github = project.verdict_env(
        &["run", "--format", "github"],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", summary_path),
        ],
    );
    assert_eq!(github.code, 1, "{}", github.all());
    let errors: Vec<&str> = github
        .stdout
        .lines()
        .chain(github.stderr.lines())
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert_eq!(
        errors.len(),
        5,
        "one annotation per failure:\n{}",
        github.all()
    );
    assert!(
        project.read("step-summary.md").matches("pytest").count() >= 3,
        "the summary was not appended under --format github"
    );
    for needle in [
        "file=src/cart.ts,line=13,col=3",
        "file=src/cart.ts,line=16,col=47",
        "file=src/format.js,line=3,col=9",
        "file=test/format.test.js,line=10",
        "file=tests/test_vat.py,line=9",
    ] {
        assert!(
            errors.iter().any(|l| l.contains(needle)),
            "no annotation with {needle}:\n{}",
            github.stdout
        );
    }
}

/// The same example as documents for machines and pull requests (a test of its own, so that the
/// test runner spreads the runs).
#[test]
fn the_example_in_sarif_junit_and_markdown() {
    let project = Project::polyglot();

    // SARIF, validated by the Multitool with GitHub's rules.
    let sarif = project.verdict(&["run", "--format", "sarif"]);
    assert_eq!(sarif.code, 1, "{}", sarif.all());
    let log = sarif.json();
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 4, "one SARIF run per verifier");
    let results: usize = runs
        .iter()
        .map(|r| r["results"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(results, 5, "2 tsc + 1 eslint + 1 jest + 1 pytest results");
    let file = project.path("verdict.sarif");
    std::fs::write(&file, &sarif.stdout).expect("write the SARIF");
    let errors = sarif_multitool_errors(project.root(), &file, 4);
    assert!(errors.is_empty(), "SARIF Multitool errors: {errors:#?}");

    // JUnit, read back by junitparser.
    let junit = project.verdict(&["run", "--format", "junit"]);
    assert_eq!(junit.code, 1, "{}", junit.all());
    let read = junitparser(project.root(), &junit.stdout);
    let suite = |name: &str| {
        read["suites"]
            .as_array()
            .expect("suites")
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no suite {name}: {read:#}"))
            .clone()
    };
    assert_eq!(suite("jest")["tests"], 4, "{read:#}");
    assert_eq!(suite("jest")["failures"], 1, "{read:#}");
    assert_eq!(suite("pytest")["tests"], 3, "{read:#}");
    assert_eq!(suite("pytest")["failures"], 1, "{read:#}");

    // Markdown into a file: nothing on stdout.
    let markdown = project.verdict(&["run", "--format", "markdown", "--output", "report.md"]);
    assert_eq!(markdown.code, 1, "{}", markdown.all());
    assert!(
        markdown.stdout.is_empty(),
        "--output also printed:\n{}",
        markdown.stdout
    );
    let text = project.read("report.md");
    assert!(text.contains('|'), "no table in the Markdown:\n{text}");
    for name in ["tsc", "eslint", "jest", "pytest"] {
        assert!(
            text.contains(name),
            "{name} missing from the Markdown:\n{text}"
        );
    }
    assert!(
        text.len() < 65_536,
        "a PR comment holds at most 65536 characters"
    );
}

/// Colour on a terminal, none with NO_COLOR: `verdict run` under `script`, which gives it a
/// pseudo-terminal.
#[test]
fn colour_only_on_a_terminal_and_never_with_no_color() {
    let project = Project::polyglot();
    let binary = assert_cmd::cargo::cargo_bin!("verdict");
    let quoted = format!("'{}'", binary.display().to_string().replace('\'', r"'\''"));
    let on_a_terminal = |no_color: Option<&str>| {
        let mut command = Command::new("script");
        command
            .env("VERDICT_STATE_DIR", ".verdict")
            .args(["-qec", &format!("{quoted} run --only eslint"), "/dev/null"])
            .current_dir(project.root())
            .env("PATH", project::path_with_node())
            .env("TERM", "xterm-256color")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("CI")
            .stdin(Stdio::null());
        match no_color {
            Some(value) => command.env("NO_COLOR", value),
            None => command.env_remove("NO_COLOR"),
        };
        let output = command.output().expect("script runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (code, coloured) = on_a_terminal(None);
    assert_eq!(code, Some(1), "{coloured}");
    assert!(
        coloured.contains("no-unused-vars"),
        "the digest is missing:\n{coloured}"
    );
    assert!(has_ansi(&coloured), "no colour on a terminal:\n{coloured}");
    let (code, plain) = on_a_terminal(Some("1"));
    assert_eq!(code, Some(1), "{plain}");
    assert!(
        plain.contains("no-unused-vars"),
        "the digest is missing:\n{plain}"
    );
    assert!(!has_ansi(&plain), "colour despite NO_COLOR:\n{plain:?}");
}

/// Runs `validate --rule-kind "Gh;Sarif"` on `file`, which holds `runs` runs, and returns the
/// results of level error.
pub(crate) fn sarif_multitool_errors(dir: &Path, file: &Path, runs: usize) -> Vec<String> {
    let multitool =
        tools().join("sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    assert!(
        multitool.is_file(),
        "{} is missing: run `cargo xtask tools` first",
        multitool.display()
    );
    let output = dir.join("validation.sarif");
    let run = Command::new(&multitool)
        .arg("validate")
        .arg(file)
        .args(["--rule-kind", "Gh;Sarif", "--output"])
        .arg(&output)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .expect("run the SARIF Multitool");
    let console = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "the SARIF Multitool failed: {console}"
    );
    assert!(
        console.contains("Done. 1 files scanned."),
        "the file was not validated: {console}"
    );
    let log: Value = serde_json::from_str(
        &std::fs::read_to_string(&output).expect("the Multitool writes its log"),
    )
    .expect("the Multitool's log is JSON");
    let mut errors = Vec::new();
    let mut analyzed = 0;
    for run in log["runs"].as_array().expect("runs") {
        for result in run["results"].as_array().into_iter().flatten() {
            // Every run verdict writes lacks a driver informationUri: one SARIF2005 note per run
            // proves the Multitool read it (it is silent about files it cannot read).
            if result["ruleId"] == "SARIF2005" {
                analyzed += 1;
            }
            if result["level"] == "error" {
                errors.push(format!(
                    "{}: {}",
                    result["ruleId"].as_str().unwrap_or("?"),
                    result["message"]["arguments"]
                ));
            }
        }
    }
    if analyzed != runs {
        errors.push(format!("the Multitool analyzed {analyzed} of {runs} runs"));
    }
    errors
}

/// Reads JUnit XML with junitparser; returns its suites with their counts.
pub(crate) fn junitparser(dir: &Path, xml: &str) -> Value {
    let file = dir.join("junit.xml");
    std::fs::write(&file, xml).expect("write the XML");
    let script = "\
import json, sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
print(json.dumps({'suites': [{'name': s.name, 'tests': s.tests, 'failures': s.failures,
    'errors': s.errors} for s in xml]}))
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

// ---------------------------------------------------------------------------------------------
// 3. The cache

/// Checks that in `report` the test runners (jest, pytest) ran and the others came from the cache.
fn only_the_test_runners_ran(report: &Value, after: &str) {
    let all = statuses(report);
    for (name, status) in &all {
        let expected = if name == "pytest" || name == "jest" {
            "ran"
        } else {
            "cached"
        };
        assert_eq!(status, expected, "{name} after {after}: {all:?}");
    }
}

#[test]
fn a_green_project_passes_then_is_cached_until_a_file_changes() {
    let project = Project::polyglot_green();
    let first = project.verdict(&["run", "--format", "json"]);
    assert_eq!(first.code, 0, "{}", first.all());
    let report = first.json();
    assert_eq!(report["outcome"], "passed", "{report:#}");
    assert!(
        statuses(&report).iter().all(|(_, s)| s == "ran"),
        "{:?}",
        statuses(&report)
    );
    assert_eq!(names(&report).len(), 4);

    let second = project.verdict(&["run"]);
    assert_eq!(second.code, 0, "{}", second.all());
    // Every verifier says it is cached.
    project.filters().bind(|| {
        insta::assert_snapshot!("green_run_cached", second.stdout);
    });
    let third = project.verdict(&["run", "--format", "json"]);
    assert_eq!(third.code, 0, "{}", third.all());
    let all_cached = statuses(&third.json());
    assert!(
        all_cached.iter().all(|(_, s)| s == "cached"),
        "{all_cached:?}"
    );

    // An edit of a Python source: the test runners run again (a test may read any file of the
    // project), the type checker and the linter, which read only their languages, stay cached.
    let vat = project.read("prices/vat.py");
    project.write("prices/vat.py", &format!("{vat}\n# touched\n"));
    let edited = project.verdict(&["run", "--format", "json"]);
    assert_eq!(edited.code, 0, "{}", edited.all());
    only_the_test_runners_ran(&edited.json(), "editing prices/vat.py");

    // A data file of no source language: a test could read it, so no test runner replays a pass.
    project.write("fixtures/rates.txt", "standard 20\n");
    let data = project.verdict(&["run", "--format", "json"]);
    assert_eq!(data.code, 0, "{}", data.all());
    only_the_test_runners_ran(&data.json(), "adding fixtures/rates.txt");

    // A new test file git does not know yet is an input too: a cached pass would be a lie.
    project.write(
        "tests/test_untracked.py",
        "def test_not_yet_added_to_git():\n    assert 1 == 2\n",
    );
    let untracked = project.verdict(&["run", "--format", "json"]);
    assert_eq!(untracked.code, 1, "{}", untracked.all());
    let pytest = verification(&untracked.json(), "pytest").clone();
    assert_eq!(pytest["status"], "ran", "{pytest:#}");
    assert_eq!(pytest["report"]["counts"]["tests_failed"], 1, "{pytest:#}");
    std::fs::remove_file(project.path("tests/test_untracked.py")).expect("remove the test");

    let no_cache = project.verdict(&["run", "--no-cache", "--format", "json"]);
    assert_eq!(no_cache.code, 0, "{}", no_cache.all());
    let forced = statuses(&no_cache.json());
    assert!(forced.iter().all(|(_, s)| s == "ran"), "{forced:?}");
}

// ---------------------------------------------------------------------------------------------
// 4. Baselines

#[test]
fn a_baseline_sets_known_failures_aside_and_keeps_new_ones() {
    let project = Project::polyglot();
    let base = project.verdict(&["run", "--format", "json", "--output", "base.json"]);
    assert_eq!(base.code, 1, "{}", base.all());
    assert!(base.stdout.is_empty(), "{}", base.stdout);

    let known = project.verdict(&["run", "--baseline", "base.json"]);
    assert_eq!(known.code, 0, "only known failures:\n{}", known.all());
    assert!(
        known.stdout.contains("5 known failures set aside"),
        "no line says how many were set aside:\n{}",
        known.all()
    );

    // A new failing test: the only failure left.
    project.write(
        "tests/test_new.py",
        "from prices.vat import vat_of\n\n\ndef test_brand_new_failure():\n    assert vat_of(0.0) == 1.0\n",
    );
    let new = project.verdict(&["run", "--baseline", "base.json", "--format", "json"]);
    assert_eq!(new.code, 1, "{}", new.all());
    let report = new.json();
    assert_eq!(report["known_failures"], 5, "{report:#}");
    for name in ["tsc", "eslint", "jest"] {
        assert_eq!(verification(&report, name)["outcome"], "passed", "{name}");
    }
    let pytest = verification(&report, "pytest");
    assert_eq!(pytest["outcome"], "failed");
    let diagnostics = pytest["report"]["diagnostics"]
        .as_array()
        .expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{pytest:#}");
    assert!(
        diagnostics[0]["test"]
            .as_str()
            .is_some_and(|t| t.contains("test_brand_new_failure")),
        "{pytest:#}"
    );
    let digest = report["digest"].to_string();
    assert!(digest.contains("test_brand_new_failure"), "{digest}");
    assert!(
        !digest.contains("test_vat_of_gross_amount") && !digest.contains("TS2322"),
        "known failures are still in the digest: {digest}"
    );

    // Blank lines above old failures shift them; they are still known.
    std::fs::remove_file(project.path("tests/test_new.py")).expect("remove the new test");
    let cart = project.read("src/cart.ts");
    project.write("src/cart.ts", &format!("\n\n\n{cart}"));
    let test = project.read("tests/test_vat.py");
    project.write("tests/test_vat.py", &format!("\n\n{test}"));
    let shifted = project.verdict(&["run", "--baseline", "base.json", "--format", "json"]);
    assert_eq!(
        shifted.code,
        0,
        "shifted lines are new failures:\n{}",
        shifted.all()
    );
    let report = shifted.json();
    assert_eq!(report["known_failures"], 5, "{report:#}");
    // The lines did move: the run saw tsc's errors three lines lower.
    let log = verification(&report, "tsc")["log"]
        .as_str()
        .expect("a log")
        .to_owned();
    let tsc_log = project.read(&log);
    assert!(tsc_log.contains("src/cart.ts(16,3)"), "{tsc_log}");
}

// ---------------------------------------------------------------------------------------------
// 5. Failed first

#[test]
fn failed_first_reruns_the_failure_then_the_full_run() {
    let project = Project::polyglot();
    let first = project.verdict(&["run", "--only", "pytest"]);
    assert_eq!(first.code, 1, "{}", first.all());

    let again = project.verdict(&[
        "run",
        "--failed-first",
        "--only",
        "pytest",
        "--format",
        "json",
    ]);
    assert_eq!(again.code, 1, "{}", again.all());
    let report = again.json();
    let pytest = verification(&report, "pytest");
    let notes = pytest["notes"].to_string();
    assert!(
        notes.contains("re-ran 1 failed test first"),
        "no failed-first note: {pytest:#}"
    );
    assert!(
        notes.contains("still fail"),
        "the full run was not skipped: {pytest:#}"
    );
    let command = pytest["command"].to_string();
    assert!(
        command.contains("--lf") || command.contains("test_vat_of_gross_amount"),
        "{command}"
    );

    // The fix: the rerun passes, then the full run does.
    let green =
        std::fs::read_to_string(project::repo().join("xtask/bench/polyglot-green/prices/vat.py"))
            .expect("the green vat.py");
    project.write("prices/vat.py", &green);
    let fixed = project.verdict(&[
        "run",
        "--failed-first",
        "--only",
        "pytest",
        "--format",
        "json",
    ]);
    assert_eq!(fixed.code, 0, "{}", fixed.all());
    let report = fixed.json();
    let pytest = verification(&report, "pytest");
    assert_eq!(pytest["outcome"], "passed", "{pytest:#}");
    assert_eq!(
        pytest["report"]["counts"]["tests_passed"], 3,
        "the full run: {pytest:#}"
    );
    assert!(
        pytest["notes"]
            .to_string()
            .contains("re-ran 1 failed test first"),
        "{pytest:#}"
    );
    let human = project.verdict(&["run", "--failed-first", "--only", "pytest", "--no-cache"]);
    assert_eq!(human.code, 0, "{}", human.all());
}

// ---------------------------------------------------------------------------------------------
// 6. Fail closed

#[test]
fn a_hanging_jest_test_times_out_with_exit_2() {
    let project = Project::fixture("hanging-jest");
    project.link_node_modules();
    let started = Instant::now();
    let out = project.verdict(&["run", "--format", "json"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the 3 s time-out took {:?}",
        started.elapsed()
    );
    let report = out.json();
    let jest = verification(&report, "jest");
    assert_eq!(jest["outcome"], "errored", "{jest:#}");
    assert!(jest.to_string().contains("timed out"), "{jest:#}");
    let human = project.verdict(&["run"]);
    assert_eq!(human.code, 2);
    assert!(human.stdout.contains("timed out"), "{}", human.all());
    // Nothing of jest (node, its workers) is left running in the project.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !processes_in(project.root()).is_empty() {
        assert!(
            Instant::now() < deadline,
            "processes left running in the project after the time-out: {:?}",
            processes_in(project.root())
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A tool's config it rejects, and a conftest.py that raises, are errors of the verifier (exit 2);
/// a jest test file that does not parse is a failure in the code, beside the other results.
#[test]
fn broken_tool_configs_are_errored_and_a_test_file_that_cannot_load_fails() {
    let project = Project::polyglot();
    project.write(
        "eslint.config.mjs",
        "export default [{ rules: { 'no-such-rule-x': 'error' } }];\n",
    );
    project.write(
        "test/broken.test.js",
        "test('x', () => { expect(1).toBe(1) \n",
    );
    project.write("tests/conftest.py", "raise RuntimeError('conftest boom')\n");
    let out = project.verdict(&["run", "--format", "json"]);
    assert_eq!(out.code, 2, "{}", out.all());
    let report = out.json();
    let eslint = verification(&report, "eslint");
    assert_eq!(eslint["outcome"], "errored", "{eslint:#}");
    assert!(eslint.to_string().contains("no-such-rule-x"), "{eslint:#}");
    let pytest = verification(&report, "pytest");
    assert_eq!(pytest["outcome"], "errored", "{pytest:#}");
    assert!(
        report["digest"].to_string().contains("conftest boom"),
        "{report:#}"
    );
    let jest = verification(&report, "jest");
    assert_eq!(jest["outcome"], "failed", "{jest:#}");
    assert_eq!(jest["report"]["counts"]["suites_errored"], 1, "{jest:#}");
    assert_eq!(jest["report"]["counts"]["tests_failed"], 1, "{jest:#}");
    assert_eq!(verification(&report, "tsc")["outcome"], "failed");
}

/// Live processes whose working directory is `dir` or below it: `(pid, command line)`.
fn processes_in(dir: &Path) -> Vec<(u32, String)> {
    let dir = dir.canonicalize().expect("the project exists");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cwd) = std::fs::read_link(format!("/proc/{pid}/cwd")) else {
            continue;
        };
        if cwd.starts_with(&dir) && !gone(pid) {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            found.push((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")));
        }
    }
    found
}

#[test]
fn a_missing_tool_is_exit_2_with_an_install_hint() {
    let project = Project::fixture("hanging-jest");
    // No node_modules: jest is declared but not installed.
    let out = project.verdict(&["run"]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.all().contains("npm install"),
        "no install hint:\n{}",
        out.all()
    );
    let json = project.verdict(&["run", "--format", "json"]);
    assert_eq!(json.code, 2);
    assert_eq!(verification(&json.json(), "jest")["outcome"], "errored");
}

#[test]
fn usage_and_config_errors_are_exit_2() {
    let project = Project::polyglot();
    let filters = project.filters();
    let out = project.verdict(&["run", "--only", "nosuch"]);
    assert_eq!(out.code, 2, "{}", out.all());
    // The error names the unknown verifier and the known ones.
    filters.bind(|| insta::assert_snapshot!("unknown_verifier_stderr", out.stderr));

    project.write(
        "verdict.toml",
        "[run]\nbudget = 300\n\n[verifiers.tsc]\ntimout = \"5s\"\n",
    );
    let bad = project.verdict(&["run"]);
    assert_eq!(bad.code, 2, "{}", bad.all());
    // The error names file, line and key.
    filters.bind(|| insta::assert_snapshot!("bad_config_stderr", bad.stderr));
    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 2, "{}", list.all());
    assert!(list.stderr.contains("timout"), "{}", list.stderr);

    // A table for a verifier that does not exist configures nothing: every command says so
    // (`verdict list` accepted it without a word).
    project.write(
        "verdict.toml",
        "[verifiers.tsc]\nenabled = true\n\n[verifiers.jset]\n",
    );
    for args in [&["list"][..], &["run"]] {
        let typo = project.verdict(args);
        assert_eq!(typo.code, 2, "{args:?}: {}", typo.all());
        assert!(
            typo.stderr
                .contains("verdict.toml:4: no verifier is called `jset`"),
            "{args:?}: {}",
            typo.stderr
        );
    }
    // A project directory that is not there is no project in which nothing applies.
    for args in [
        &["run", "-C", "no/such/dir"][..],
        &["list", "-C", "package.json"],
    ] {
        let missing = project.verdict(args);
        assert_eq!(missing.code, 2, "{args:?}: {}", missing.all());
        assert!(
            missing
                .stderr
                .contains("the project directory no/such/dir does not exist")
                || missing
                    .stderr
                    .contains("the project directory package.json is not a directory"),
            "{args:?}: {}",
            missing.stderr
        );
    }

    // A baseline that is missing, or no verdict report: exit 2 before anything runs.
    std::fs::remove_file(project.path("verdict.toml")).expect("remove the bad config");
    let missing = project.verdict(&["run", "--only", "eslint", "--baseline", "nosuch.json"]);
    assert_eq!(missing.code, 2, "{}", missing.all());
    filters.bind(|| insta::assert_snapshot!("missing_baseline_stderr", missing.stderr));
    project.write("not-a-report.json", "{\"schema\": \"something-else\"}");
    let wrong = project.verdict(&["run", "--only", "eslint", "--baseline", "not-a-report.json"]);
    assert_eq!(wrong.code, 2, "{}", wrong.all());
    filters.bind(|| insta::assert_snapshot!("wrong_baseline_stderr", wrong.stderr));

    let empty = Project::empty();
    let none = empty.verdict(&["run"]);
    assert_eq!(none.code, 2, "{}", none.all());
    empty
        .filters()
        .bind(|| insta::assert_snapshot!("nothing_applies_stderr", none.stderr));
}

// ---------------------------------------------------------------------------------------------
// 7. Verifiers defined in verdict.toml

/// A verdict.toml with a custom `cc` verifier running `script`, and pytest needing it.
fn custom_config(script: &str) -> String {
    format!(
        r#"
[[verifier]]
name = "cc"
kind = "build"
command = ["sh", "-c", "{script}"]

[[verifier.pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): (?P<message>.*?)(?: \[(?P<code>-W[^\]]+)\])?$'

[verifiers.pytest]
needs = ["cc"]
"#
    )
}

/// A fixed script printing gcc-style diagnostics and failing.
const FAILING_CC: &str = "echo 'src/a.c:3:5: error: unknown type name foo'; \
    echo 'src/a.c:9:1: warning: unused variable [-Wunused]'; \
    echo 'src/b.c:1:2: error: expected semicolon'; exit 1";

#[test]
fn a_custom_verifier_runs_in_the_pipeline_and_gates_what_needs_it() {
    let project = Project::polyglot();
    project.write("verdict.toml", &custom_config(FAILING_CC));
    let out = project.verdict(&["run", "--only", "cc,eslint,pytest", "--format", "json"]);
    // pytest was skipped: its report is errored, but the verifiers that failed decide the run
    // (a skip is a consequence), so exit 1.
    assert_eq!(out.code, 1, "{}", out.all());
    let report = out.json();
    let cc = verification(&report, "cc");
    assert_eq!(cc["status"], "ran", "{cc:#}");
    assert_eq!(cc["outcome"], "failed", "{cc:#}");
    let diagnostics = cc["report"]["diagnostics"].as_array().expect("diagnostics");
    let errors = diagnostics
        .iter()
        .filter(|d| d["severity"] == "error")
        .count();
    assert_eq!(errors, 2, "{cc:#}");
    assert!(
        diagnostics
            .iter()
            .any(|d| d["file"] == "src/a.c" && d["line"] == 3 && d["column"] == 5),
        "{cc:#}"
    );
    assert!(
        diagnostics
            .iter()
            .any(|d| d["severity"] == "warning" && d["code"] == "-Wunused"),
        "{cc:#}"
    );
    assert_eq!(verification(&report, "eslint")["outcome"], "failed");
    let pytest = verification(&report, "pytest");
    assert_eq!(
        pytest["status"], "skipped",
        "pytest needs cc, which failed: {pytest:#}"
    );
    assert!(pytest.to_string().contains("needs `cc`"), "{pytest:#}");

    // The custom verifier is listed with its origin, also from a subdirectory: verdict.toml is
    // found upwards.
    let list = project.verdict_in("src", &["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    let line = list
        .stdout
        .lines()
        .find(|l| l.contains(" cc "))
        .unwrap_or_else(|| panic!("cc is not listed:\n{}", list.stdout));
    assert!(line.contains("verdict.toml"), "{line}");
    assert!(
        list.stdout
            .lines()
            .any(|l| l.starts_with('✓') && l.split_whitespace().nth(1) == Some("pytest")),
        "from src/, the project root is not the config's directory:\n{}",
        list.stdout
    );

    // Once cc passes, pytest runs.
    let passing = custom_config("echo compiled; exit 0");
    project.write("verdict.toml", &passing);
    let out = project.verdict(&["run", "--only", "cc,pytest", "--format", "json"]);
    assert_eq!(out.code, 1, "pytest's own failure:\n{}", out.all());
    let report = out.json();
    assert_eq!(verification(&report, "cc")["outcome"], "passed");
    assert_eq!(verification(&report, "pytest")["status"], "ran");
    assert_eq!(verification(&report, "pytest")["outcome"], "failed");
}

// ---------------------------------------------------------------------------------------------
// 8. The example plugin

/// Builds the example plugin with the cargo running the tests and returns its library.
fn example_plugin() -> std::path::PathBuf {
    let output = Command::new(env!("CARGO"))
        .current_dir(project::repo())
        .args([
            "build",
            "--message-format=json-render-diagnostics",
            "-p",
            "verdict-plugin-example",
        ])
        .output()
        .expect("cargo starts");
    assert!(
        output.status.success(),
        "cargo build -p verdict-plugin-example failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| {
            m["reason"] == "compiler-artifact" && m["target"]["name"] == "verdict_plugin_example"
        })
        .flat_map(|m| {
            m["filenames"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|f| f.as_str().map(std::path::PathBuf::from))
        })
        .find(|p| {
            p.extension()
                .is_some_and(|e| e == std::env::consts::DLL_EXTENSION)
        })
        .expect("cargo reported the plugin's library")
}

#[test]
fn the_example_plugin_is_listed_and_runs() {
    let built = example_plugin();
    let project = Project::empty();
    project.git_init();
    std::fs::copy(&built, project.path("libexample.so")).expect("copy the plugin");
    project.write("verdict.toml", "plugins = [\"libexample.so\"]\n");
    project.write("notes.txt", "clean line\n");
    project.git(&["add", "notes.txt", "verdict.toml"]);
    project.git(&["commit", "-q", "-m", "start"]);

    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    let line = list
        .stdout
        .lines()
        .find(|l| l.contains("git-diff-check"))
        .unwrap_or_else(|| panic!("the plugin is not listed:\n{}", list.stdout));
    assert!(line.starts_with('✓'), "it applies in a repository: {line}");
    assert!(
        line.contains("libexample.so"),
        "its origin is not shown: {line}"
    );

    let pass = project.verdict(&["run", "--only", "git-diff-check", "--format", "json"]);
    assert_eq!(pass.code, 0, "{}", pass.all());
    assert_eq!(
        verification(&pass.json(), "git-diff-check")["outcome"],
        "passed"
    );

    project.write("notes.txt", "clean line\ntrailing space   \n");
    let fail = project.verdict(&["run", "--only", "git-diff-check", "--format", "json"]);
    assert_eq!(fail.code, 1, "{}", fail.all());
    let report = fail.json();
    let check = verification(&report, "git-diff-check");
    assert_eq!(check["outcome"], "failed", "{check:#}");
    let diagnostics = check["report"]["diagnostics"]
        .as_array()
        .expect("diagnostics");
    assert!(
        diagnostics
            .iter()
            .any(|d| d["file"] == "notes.txt" && d["line"] == 2),
        "{check:#}"
    );
}

// ---------------------------------------------------------------------------------------------
// 9. Ctrl-C

const INTERRUPT_CONFIG: &str = r#"
[[verifier]]
name = "quick"
kind = "lint"
command = ["sh", "-c", "echo all good; exit 0"]

[[verifier]]
name = "hang"
kind = "test"
command = ["sh", "-c", "echo $$ > hang.pid; sleep 60; echo woke"]
"#;

/// Whether `pid` is gone or a zombie.
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Live processes whose process group is `pgid`.
fn group_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // state ppid pgrp …
        if fields.len() > 2 && fields[0] != "Z" && fields[2] == pgid.to_string() {
            members.push(pid);
        }
    }
    members
}

#[test]
fn ctrl_c_stops_the_tools_and_reports_what_finished() {
    stop_with("INT");
}

/// SIGTERM (what CI runners and `timeout` send) stops the tools as Ctrl-C does: none is orphaned.
#[test]
fn sigterm_stops_the_tools_and_reports_what_finished() {
    stop_with("TERM");
}

/// Starts `verdict run` on a quick and a hanging verifier, sends `signal` once the hanging one
/// runs, and checks what verdict reported and that the hanging tool's process group is gone.
fn stop_with(signal: &str) {
    let project = Project::empty();
    project.write("verdict.toml", INTERRUPT_CONFIG);
    let child = Command::new(assert_cmd::cargo::cargo_bin!("verdict"))
        .env("VERDICT_STATE_DIR", ".verdict")
        .args(["run", "--format", "json"])
        .current_dir(project.root())
        .env_remove("GITHUB_ACTIONS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("verdict starts");
    let verdict_pid = child.id();
    let started = Instant::now();
    let pid_file = project.path("hang.pid");
    let hang_pid = loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && let Ok(pid) = text.trim().parse::<u32>()
        {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the hanging verifier never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    // Let the quick verifier finish.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        processes_in(project.root())
            .iter()
            .any(|(pid, _)| *pid == hang_pid),
        "the hanging tool is not seen running in the project"
    );
    let kill = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(verdict_pid.to_string())
        .status()
        .expect("kill runs");
    assert!(kill.success());
    let interrupted = Instant::now();
    let output = child.wait_with_output().expect("verdict ends");
    let took = interrupted.elapsed();
    assert!(
        took < Duration::from_secs(15),
        "verdict took {took:?} to stop after SIG{signal}"
    );
    let out = Out {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_eq!(out.code, 2, "{}", out.all());
    let report = out.json();
    let quick = verification(&report, "quick");
    assert_eq!(quick["outcome"], "passed", "{quick:#}");
    let hang = verification(&report, "hang");
    assert_eq!(hang["outcome"], "errored", "{hang:#}");
    assert!(
        hang.to_string().contains("interrupted") || hang["status"] == "cancelled",
        "{hang:#}"
    );
    let log = hang["log"].as_str().expect("the hanging verifier's log");
    let text = std::fs::read_to_string(project.path(log)).expect("its log");
    assert!(!text.contains("woke"), "the sleep ran to its end: {text}");
    // The shell and its sleep are gone.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !(gone(hang_pid)
        && group_members(hang_pid).is_empty()
        && processes_in(project.root()).is_empty())
    {
        assert!(
            Instant::now() < deadline,
            "after SIG{signal}, the hanging tool {hang_pid} or its group {:?} is still alive",
            group_members(hang_pid)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

// ---------------------------------------------------------------------------------------------
// 10. list and init

#[test]
fn list_and_init_show_and_write_what_is_detected() {
    let project = Project::polyglot();
    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    assert!(list.stdout.starts_with("config: none"), "{}", list.stdout);
    for name in ["tsc", "eslint", "jest", "pytest"] {
        let line = list
            .stdout
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("{name} is not listed:\n{}", list.stdout));
        assert!(line.starts_with('✓'), "{name} does not apply: {line}");
        assert!(line.contains('['), "no origin: {line}");
    }
    for name in ["vitest", "mocha", "cargo-test", "clippy"] {
        let line = list
            .stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} is not listed as not applying:\n{}", list.stdout));
        assert!(line.len() > name.len() + 10, "no reason: {line}");
    }

    let init = project.verdict(&["init"]);
    assert_eq!(init.code, 0, "{}", init.all());
    let written = project.read("verdict.toml");
    for name in ["tsc", "eslint", "jest", "pytest"] {
        assert!(
            written.contains(name),
            "{name} not in verdict.toml:\n{written}"
        );
    }
    let again = project.verdict(&["init"]);
    assert_eq!(again.code, 2, "a second init overwrote: {}", again.all());
    assert!(again.stderr.contains("--force"), "{}", again.stderr);
    assert_eq!(project.read("verdict.toml"), written);
    let forced = project.verdict(&["init", "--force"]);
    assert_eq!(forced.code, 0, "{}", forced.all());

    let relisted = project.verdict(&["list"]);
    assert_eq!(relisted.code, 0, "{}", relisted.all());
    assert!(
        relisted.stdout.starts_with("config: ") && relisted.stdout.contains("verdict.toml"),
        "{}",
        relisted.stdout
    );
    let run = project.verdict(&["run", "--only", "eslint", "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert_eq!(names(&run.json()), ["eslint"]);
}

/// Configured only through `[tool.verdict]` of its pyproject.toml (issue 28), the polyglot example
/// runs as the table says, `verdict list` names the table as the config; a `.config/verdict.toml`
/// beside it then wins, and the pyproject.toml it ignores is named, never dropped in silence.
#[test]
fn tool_verdict_in_pyproject_configures_the_run() {
    let project = Project::polyglot();
    let pyproject = project.read("pyproject.toml");
    project.write(
        "pyproject.toml",
        &format!(
            "{pyproject}\n[tool.verdict.run]\nskip = [\"jest\", \"eslint\"]\n\n\
             [tool.verdict.verifiers.tsc]\nenabled = false\n"
        ),
    );
    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    let config = project.path("pyproject.toml");
    assert!(
        list.stdout
            .starts_with(&format!("config: {}\n", config.display())),
        "{}",
        list.stdout
    );
    let tsc = list
        .stdout
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some("tsc"))
        .unwrap_or_else(|| panic!("tsc is not listed:\n{}", list.stdout));
    assert!(
        tsc.contains("disabled in [tool.verdict] of pyproject.toml"),
        "{tsc}"
    );
    let run = project.verdict(&["run", "--format", "json"]);
    assert_eq!(run.code, 1, "the example's pytest failure: {}", run.all());
    assert_eq!(names(&run.json()), ["pytest"]);

    project.write(".config/verdict.toml", "[run]\nskip = [\"jest\"]\n");
    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    assert!(
        list.stdout.starts_with(&format!(
            "config: {}\nignored: {} (the config above wins)\n",
            project.path(".config/verdict.toml").display(),
            config.display()
        )),
        "{}",
        list.stdout
    );
    assert!(
        list.stderr
            .contains(&format!("ignores {}", config.display())),
        "{}",
        list.stderr
    );
}

/// At the root of npm workspaces only the root's own files decide what applies: the packages'
/// test runners and type checkers are named as not verified, in `verdict list` and on stderr of
/// `verdict run`, rather than left out in silence behind a pass of the root's linter.
#[test]
fn a_monorepo_root_names_the_packages_it_does_not_verify() {
    let project = Project::empty();
    project.write(
        "package.json",
        r#"{"private": true, "workspaces": ["packages/*"]}"#,
    );
    project.write(
        "packages/a/package.json",
        r#"{"name": "a", "scripts": {"test": "jest"}, "devDependencies": {"jest": "^30.0.0"}}"#,
    );
    project.write("packages/a/tsconfig.json", "{}\n");
    project.write(
        "packages/b/package.json",
        r#"{"name": "b", "devDependencies": {"vitest": "^3.2.0"}}"#,
    );
    project.write("packages/notes/readme.md", "not a package\n");

    let list = project.verdict(&["list"]);
    assert_eq!(list.code, 0, "{}", list.all());
    project.filters().bind(|| {
        insta::assert_snapshot!("monorepo_root_list", list.stdout);
    });

    let run = project.verdict(&["run"]);
    assert_eq!(
        run.code,
        2,
        "nothing applies at the root itself: {}",
        run.all()
    );
    assert!(
        !project.path(".verdict").exists(),
        "a run with no verifier leaves the project as it was"
    );
    project.filters().bind(|| {
        insta::assert_snapshot!("monorepo_root_run_stderr", run.stderr);
    });
}

/// eslint prints nothing with `-o`: its log was an empty file, and every report named it as the
/// full log. The JSON report, JUnit's `verdict.log` property and the human summary now name the
/// file that holds eslint's findings.
#[test]
fn eslints_full_log_is_the_file_with_its_findings() {
    let project = Project::empty();
    project.write("package.json", r#"{"name": "links", "private": true}"#);
    project.write(
        "eslint.config.mjs",
        "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error' } }];\n",
    );
    project.write("src/a.js", "const unused = 1;\n");
    project.link_node_modules();
    project.git_init();
    let junit = project.path("junit.xml");
    let junit_arg = format!("junit={}", junit.display());
    let out = project.verdict(&["run", "--format", "json", "--format", &junit_arg]);
    assert_eq!(out.code, 1, "{}", out.all());
    let report = out.json();
    let log = verification(&report, "eslint")["log"]
        .as_str()
        .unwrap_or_else(|| panic!("no log: {}", out.all()))
        .to_owned();
    let text = std::fs::read_to_string(project.root().join(&log)).expect("eslint's full log");
    assert!(
        text.contains("no-unused-vars"),
        "{log} lacks the finding: {text:?}"
    );
    let xml = std::fs::read_to_string(&junit).expect("the JUnit report");
    assert!(
        xml.contains(&format!("name=\"verdict.log\" value=\"{log}\"")),
        "{xml}"
    );
}
