//! The logs from the wild: output that other people's tools wrote, collected from public sources,
//! with ground truth read from each log by hand.
//!
//! A case is `testdata/wild/<tool>/<case>.log` (byte-exact, whatever its encoding), its
//! `<case>.meta.json` (where it comes from) and its `<case>.truth.json`:
//!
//! ```json
//! {
//!   "outcome": "failed",
//!   "counts": { "tests_failed": 2, "tests_passed": 40 },
//!   "files": ["src/a.test.ts"],
//!   "failures": [{ "file": "src/a.test.ts", "line": 12, "test": "adds", "message": "expected 3" }],
//!   "sections": [{ "tool": "eslint", "outcome": "failed", "counts": { "errors": 1 } }]
//! }
//! ```
//!
//! `outcome` is `passed`, `failed` or `errored` (the tool crashed or never ran). `counts` holds the
//! tool's own numbers, or the errors counted by hand where it prints none. `files` lists every failing
//! file and `failures` every failing test or error in the order of the log, with its file and line
//! where the log gives them. `sections` is present when the log holds several tools' runs (folder
//! `multi/`): one per run, in order, each with the same fields. `<tool>` is the summarizer that
//! should recognise the log.
//!
//! Each case must hold, one test each: detected as its tool, never a pass where the log shows a
//! failure or a crash, the truth's outcome and counts. What the digest makes of them is checked
//! with the digest, in `verdict-core`'s tests.

use std::fs;
use std::path::Path;

use serde_json::Value;
use verdict_model::{Outcome, Report};

use crate::support;

/// The truth of a case, after checking its meta file names a source.
fn truth(folder: &str, case: &str) -> Value {
    let dir = support::testdata(folder);
    let read = |ext: &str| {
        let path = dir.join(format!("{case}.{ext}"));
        fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let meta: Value = serde_json::from_slice(&read("meta.json"))
        .unwrap_or_else(|e| panic!("{folder}/{case}.meta.json: {e}"));
    assert!(
        meta["source"].as_str().is_some_and(|s| !s.is_empty()),
        "{folder}/{case}.meta.json names no source"
    );
    serde_json::from_slice(&read("truth.json"))
        .unwrap_or_else(|e| panic!("{folder}/{case}.truth.json: {e}"))
}

fn outcome(text: &str) -> Outcome {
    match text {
        "passed" => Outcome::Passed,
        "failed" => Outcome::Failed,
        "errored" => Outcome::Errored,
        other => panic!("unknown outcome `{other}` in a truth file"),
    }
}

/// The count called `name` of a report.
fn count(report: &Report, name: &str) -> Option<u64> {
    let c = &report.counts;
    match name {
        "tests_passed" => c.tests_passed,
        "tests_failed" => c.tests_failed,
        "tests_skipped" => c.tests_skipped,
        "tests_xfailed" => c.tests_xfailed,
        "tests_xpassed" => c.tests_xpassed,
        "tests_deselected" => c.tests_deselected,
        "suites_errored" => c.suites_errored,
        "errors" => c.errors,
        "warnings" => c.warnings,
        "files" => c.files,
        other => panic!("unknown count `{other}` in a truth file"),
    }
}

/// The truth of each run in a case: its sections, or the case itself.
fn runs<'a>(tool: &str, truth: &'a Value) -> Vec<(String, &'a Value)> {
    match truth["sections"].as_array() {
        Some(sections) => sections
            .iter()
            .map(|s| (s["tool"].as_str().expect("a section's tool").to_owned(), s))
            .collect(),
        None => vec![(tool.to_owned(), truth)],
    }
}

/// The checks of one case of `folder` (`wild/<tool>`); all problems are reported together.
fn check_log(folder: &str, case: &str) {
    let tool = Path::new(folder)
        .file_name()
        .and_then(|name| name.to_str())
        .expect("a tool folder");
    let truth = truth(folder, case);
    let log = support::log(folder, case);
    let reports = verdict_summarizers::summarize_all(&log);
    let mut problems = Vec::new();
    let runs = runs(tool, &truth);
    if truth["sections"].is_null() {
        let chosen = verdict_summarizers::detect(&verdict_summarizers::sample(&log));
        if chosen.summarizer.name() != tool {
            problems.push(format!(
                "detected as {} ({}%)",
                chosen.summarizer.name(),
                chosen.confidence
            ));
        }
    }
    if runs.len() != reports.len() {
        let tools: Vec<&str> = reports.iter().map(|r| r.tool.as_str()).collect();
        problems.push(format!(
            "{} runs in the truth, reports {tools:?}",
            runs.len()
        ));
    }
    for ((tool, run), report) in runs.iter().zip(&reports) {
        let expected = outcome(run["outcome"].as_str().expect("an outcome"));
        if report.outcome != expected {
            let why = report.error.as_deref().unwrap_or_default();
            problems.push(format!(
                "{tool}: {:?} where the log shows {expected:?} {why}",
                report.outcome
            ));
        }
        if &report.tool != tool {
            problems.push(format!("{tool}: the report is {}'s", report.tool));
        }
        if let Some(counts) = run["counts"].as_object() {
            for (name, value) in counts {
                let got = count(report, name);
                if got != value.as_u64() {
                    problems.push(format!("{tool}: {name} is {got:?}, the log says {value}"));
                }
            }
        }
    }
    let worst = reports.iter().map(|r| r.outcome).max_by_key(|o| match o {
        Outcome::Passed => 0,
        Outcome::Failed => 1,
        Outcome::Errored => 2,
    });
    let truth_worst = runs
        .iter()
        .map(|(_, run)| outcome(run["outcome"].as_str().unwrap_or("errored")))
        .any(|o| o != Outcome::Passed);
    if truth_worst && worst == Some(Outcome::Passed) {
        problems.push("a pass where the log shows a failure or a crash".to_owned());
    }
    assert!(
        problems.is_empty(),
        "{folder}/{case}: {}",
        problems.join("\n")
    );
}

#[test]
fn the_wild_corpus_is_big_and_varied() {
    let mut tools: Vec<String> = fs::read_dir(support::testdata("wild"))
        .expect("testdata/wild")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    tools.sort();
    let mut cases = Vec::new();
    for tool in &tools {
        let folder = format!("wild/{tool}");
        for case in support::case_names(&folder) {
            let outcome = truth(&folder, &case)["outcome"].as_str().map(str::to_owned);
            cases.push((tool.clone(), outcome));
        }
    }
    let count = |o: &str| {
        cases
            .iter()
            .filter(|(_, outcome)| outcome.as_deref() == Some(o))
            .count()
    };
    assert!(cases.len() >= 60, "{} wild logs, want 60", cases.len());
    assert!(
        count("passed") >= 8,
        "{} passing logs, want 8",
        count("passed")
    );
    assert!(
        count("errored") >= 8,
        "{} crashing logs, want 8",
        count("errored")
    );
    for tool in verdict_summarizers::names() {
        if matches!(tool, "junit" | "generic") {
            continue;
        }
        assert!(
            cases.iter().any(|(t, _)| t == tool),
            "no wild log of {tool}"
        );
    }
}

/// One test per wild log, a module per tool folder.
mod logs {
    mod cargo {
        crate::support::logs::wild_cargo!(super::super::check_log);
    }
    mod eslint {
        crate::support::logs::wild_eslint!(super::super::check_log);
    }
    mod generic {
        crate::support::logs::wild_generic!(super::super::check_log);
    }
    mod jest {
        crate::support::logs::wild_jest!(super::super::check_log);
    }
    mod mocha {
        crate::support::logs::wild_mocha!(super::super::check_log);
    }
    mod mypy {
        crate::support::logs::wild_mypy!(super::super::check_log);
    }
    mod multi {
        crate::support::logs::wild_multi!(super::super::check_log);
    }
    mod nextest {
        crate::support::logs::wild_nextest!(super::super::check_log);
    }
    mod node_test {
        crate::support::logs::wild_node_test!(super::super::check_log);
    }
    mod pyright {
        crate::support::logs::wild_pyright!(super::super::check_log);
    }
    mod pytest {
        crate::support::logs::wild_pytest!(super::super::check_log);
    }
    mod tap {
        crate::support::logs::wild_tap!(super::super::check_log);
    }
    mod ruff {
        crate::support::logs::wild_ruff!(super::super::check_log);
    }
    mod tsc {
        crate::support::logs::wild_tsc!(super::super::check_log);
    }
    mod unittest {
        crate::support::logs::wild_unittest!(super::super::check_log);
    }
    mod vitest {
        crate::support::logs::wild_vitest!(super::super::check_log);
    }
}
