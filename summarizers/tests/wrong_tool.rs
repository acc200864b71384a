//! Every captured log read as another tool's (`verdict summarize --tool T` with the wrong T):
//! a log that shows a failure is never a pass. A summarizer passes only what shows its own tool
//! ran ([`verdict_model::Report::evidence`]); another tool's log is could not verify (issue 20:
//! `--tool tsc` on a failing pytest log said `tsc: no errors`).

use verdict_model::Outcome;

use crate::support::{case_names, exit_code, log};

/// The folders of `testdata/` with the summarizer that reads their logs.
const FOLDERS: &[(&str, &str)] = &[
    ("cargo", "cargo"),
    ("eslint", "eslint"),
    ("jest", "jest"),
    ("mocha", "mocha"),
    ("mypy", "mypy"),
    ("nextest", "nextest"),
    ("node-test", "node-test"),
    ("pyright", "pyright"),
    ("pytest", "pytest"),
    ("ruff", "ruff"),
    ("tap", "tap"),
    ("tsc", "tsc"),
    ("unittest", "unittest"),
    ("vitest", "vitest"),
];

#[test]
fn a_failing_log_read_as_another_tools_is_never_a_pass() {
    let mut passed = Vec::new();
    let mut checked = 0;
    for (folder, tool) in FOLDERS {
        for case in case_names(folder) {
            if exit_code(folder, &case).is_none_or(|code| code == 0) {
                continue;
            }
            let bytes = log(folder, &case);
            for summarizer in verdict_summarizers::all() {
                let name = summarizer.name();
                if name == *tool || name == "generic" {
                    continue;
                }
                checked += 1;
                let report = summarizer.parse(&bytes);
                if report.outcome == Outcome::Passed {
                    passed.push(format!("{folder}/{case} read as {name}"));
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} pairs checked");
    assert!(
        passed.is_empty(),
        "{} failing logs passed as another tool's:\n{}",
        passed.len(),
        passed.join("\n")
    );
}

#[test]
fn the_issues_examples_are_could_not_verify() {
    for (folder, case, tool) in [
        ("pytest", "failing", "tsc"),
        ("jest", "failing", "cargo"),
        ("mocha", "failing", "eslint"),
    ] {
        let summarizer = verdict_summarizers::by_name(tool).expect("a summarizer");
        let report = summarizer.parse(&log(folder, case));
        assert_eq!(
            report.outcome,
            Outcome::Errored,
            "{folder}/{case} as {tool}: {report:?}"
        );
        let error = report.error.unwrap_or_default();
        assert!(
            error.contains(&format!("nothing in the log is {tool}'s output")),
            "{folder}/{case} as {tool}: {error}"
        );
    }
}

#[test]
fn an_empty_log_passes_only_for_the_tools_silent_on_success() {
    for summarizer in verdict_summarizers::all() {
        let report = summarizer.parse(b"");
        let silent = matches!(summarizer.name(), "tsc" | "eslint");
        assert_eq!(
            report.outcome == Outcome::Passed,
            silent,
            "{}: {report:?}",
            summarizer.name()
        );
    }
}
