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
//! Each case's digest must name or count every failing file and keep to the budget (detection, the
//! outcome and the counts are checked against the truth per log in `verdict-summarizers`' tests).
//! Over all cases, the digest names on average at least [`support::FILES_NAMED`] of the failing files and
//! [`support::FIRST_TEN_NAMED`] of the first ten failures with file and line.

use crate::support;

use std::fs;
use std::path::PathBuf;

use serde_json::Value;
use verdict_core::Report;
use verdict_core::digest::{self, tokens};

const BUDGET: usize = 500;

fn wild() -> PathBuf {
    support::testdata("wild")
}

/// One collected log with its truth.
struct Case {
    /// `<tool>/<case>`.
    id: String,
    tool: String,
    log: Vec<u8>,
    truth: Value,
}

fn cases() -> Vec<Case> {
    let mut tools: Vec<String> = fs::read_dir(wild())
        .expect("testdata/wild")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.is_dir())
        .filter_map(|p| Some(p.file_name()?.to_str()?.to_owned()))
        .collect();
    tools.sort();
    tools
        .iter()
        .flat_map(|tool| {
            support::case_names(&format!("wild/{tool}"))
                .into_iter()
                .map(move |name| case(tool, &name))
        })
        .collect()
}

/// The case `name` of `tool`'s folder.
fn case(tool: &str, name: &str) -> Case {
    let dir = wild().join(tool);
    let read = |ext: &str| {
        let path = dir.join(format!("{name}.{ext}"));
        fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let truth: Value = serde_json::from_slice(&read("truth.json"))
        .unwrap_or_else(|e| panic!("{tool}/{name}.truth.json: {e}"));
    let meta: Value = serde_json::from_slice(&read("meta.json"))
        .unwrap_or_else(|e| panic!("{tool}/{name}.meta.json: {e}"));
    assert!(
        meta["source"].as_str().is_some_and(|s| !s.is_empty()),
        "{tool}/{name}.meta.json names no source"
    );
    Case {
        id: format!("{tool}/{name}"),
        tool: tool.to_owned(),
        log: read("log"),
        truth,
    }
}

/// The truth of each run in a case: its sections, or the case itself.
fn runs(case: &Case) -> Vec<(String, &Value)> {
    match case.truth["sections"].as_array() {
        Some(sections) => sections
            .iter()
            .map(|s| (s["tool"].as_str().expect("a section's tool").to_owned(), s))
            .collect(),
        None => vec![(case.tool.clone(), &case.truth)],
    }
}

fn strings<'a>(value: &'a Value, key: &str) -> Vec<&'a str> {
    value[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// What one case's digest shows of its truth.
struct Measure {
    files: usize,
    files_named: usize,
    first: usize,
    first_named: usize,
}

fn measure(case: &Case, text: &str) -> Measure {
    let mut m = Measure {
        files: 0,
        files_named: 0,
        first: 0,
        first_named: 0,
    };
    let named = |path: &str| support::digest_names(text, path);
    for (_, run) in runs(case) {
        for file in strings(run, "files") {
            m.files += 1;
            m.files_named += usize::from(named(file));
        }
        let failures = run["failures"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for failure in failures.iter().take(10) {
            let Some(file) = failure["file"].as_str() else {
                continue;
            };
            m.first += 1;
            let place = match failure["line"].as_u64() {
                Some(line) => format!("{file}:{line}"),
                None => file.to_owned(),
            };
            m.first_named += usize::from(named(&place));
        }
    }
    m
}

/// The reports verdict makes of a case's log.
fn reports(case: &Case) -> Vec<Report> {
    verdict_summarizers::summarize_all(&case.log)
}

fn render(reports: &[Report], log: &str) -> digest::Digest {
    let inputs: Vec<digest::Input<'_>> = reports
        .iter()
        .map(|report| digest::Input {
            report,
            log: Some(log),
        })
        .collect();
    digest::render(&inputs, &digest::Options::new(BUDGET))
}

/// The digest's checks every case must pass (its truth is checked in `verdict-summarizers`' tests);
/// returns the problems found.
fn check(case: &Case, digest: &digest::Digest) -> Vec<String> {
    let mut problems = Vec::new();
    if digest.tokens > BUDGET || tokens::count(&digest.text) > BUDGET {
        problems.push(format!("digest over the budget of {BUDGET}"));
    }
    let m = measure(case, &digest.text);
    if (m.files_named as u64).saturating_add(digest.omitted_files) < m.files as u64 {
        problems.push(format!(
            "{} failing files, {} named and {} counted",
            m.files, m.files_named, digest.omitted_files
        ));
    }
    problems
}

/// The digest of one wild log (`folder` is `wild/<tool>`): the checks, then its snapshot.
fn check_log(folder: &str, name: &str) {
    let case = case(folder.trim_start_matches("wild/"), name);
    let reports = reports(&case);
    let digest = render(&reports, &format!("testdata/wild/{}.log", case.id));
    let problems = check(&case, &digest);
    assert!(problems.is_empty(), "{}: {}", case.id, problems.join("\n"));
    insta::assert_snapshot!(case.id.replace('/', "__"), digest.text);
}

#[test]
fn every_wild_folder_has_its_tests() {
    let tools: Vec<String> = cases().into_iter().map(|case| case.tool).collect();
    let mut tools: Vec<&str> = tools.iter().map(String::as_str).collect();
    tools.dedup();
    let listed = [
        "cargo",
        "eslint",
        "generic",
        "jest",
        "mocha",
        "multi",
        "mypy",
        "nextest",
        "node-test",
        "pyright",
        "pytest",
        "ruff",
        "tap",
        "tsc",
        "unittest",
        "vitest",
    ];
    assert_eq!(
        tools, listed,
        "a module of `logs` per folder of testdata/wild/"
    );
}

/// One test per wild log, a module per tool folder: its digest is honest and within budget.
mod logs {
    mod cargo {
        crate::support::logs::wild_cargo!(crate::wild::check_log);
    }
    mod eslint {
        crate::support::logs::wild_eslint!(crate::wild::check_log);
    }
    mod generic {
        crate::support::logs::wild_generic!(crate::wild::check_log);
    }
    mod jest {
        crate::support::logs::wild_jest!(crate::wild::check_log);
    }
    mod mocha {
        crate::support::logs::wild_mocha!(crate::wild::check_log);
    }
    mod mypy {
        crate::support::logs::wild_mypy!(crate::wild::check_log);
    }
    mod multi {
        crate::support::logs::wild_multi!(crate::wild::check_log);
    }
    mod nextest {
        crate::support::logs::wild_nextest!(crate::wild::check_log);
    }
    mod node_test {
        crate::support::logs::wild_node_test!(crate::wild::check_log);
    }
    mod pyright {
        crate::support::logs::wild_pyright!(crate::wild::check_log);
    }
    mod pytest {
        crate::support::logs::wild_pytest!(crate::wild::check_log);
    }
    mod tap {
        crate::support::logs::wild_tap!(crate::wild::check_log);
    }
    mod ruff {
        crate::support::logs::wild_ruff!(crate::wild::check_log);
    }
    mod tsc {
        crate::support::logs::wild_tsc!(crate::wild::check_log);
    }
    mod unittest {
        crate::support::logs::wild_unittest!(crate::wild::check_log);
    }
    mod vitest {
        crate::support::logs::wild_vitest!(crate::wild::check_log);
    }
}

#[test]
fn digests_of_wild_logs_name_the_failing_files_and_the_first_failures() {
    let cases = cases();
    let mut files = Vec::new();
    let mut first = Vec::new();
    let mut table = String::new();
    for case in &cases {
        let reports = reports(case);
        let digest = render(&reports, "wild.log");
        let m = measure(case, &digest.text);
        if m.files > 0 {
            files.push(m.files_named as f64 / m.files as f64);
        }
        if m.first > 0 {
            first.push(m.first_named as f64 / m.first as f64);
        }
        table.push_str(&format!(
            "{}: files {}/{}, first ten {}/{}\n",
            case.id, m.files_named, m.files, m.first_named, m.first
        ));
    }
    support::assert_means(&files, &first, &table);
}
