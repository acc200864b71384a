//! The digest of every captured log, end to end: parsing and the digest together (detection is
//! checked per log in `verdict-summarizers`' tests).
//!
//! For each `summarizers/testdata/<tool>/<case>.log` this checks what the issue promises of the
//! digest an agent receives: a log whose tool exited non-zero is never a pass; a failing log's
//! digest states the tool's exact counts in its headline, names or counts every failing file, and
//! stays within the token budget; a passing log's digest is one line.
//! The digests themselves are snapshot-tested. Over all failing logs, the digests name on average
//! at least [`support::FILES_NAMED`] of the files with errors and [`support::FIRST_TEN_NAMED`] of the first ten
//! errors with `file:line` (a table per log is printed with `--nocapture`).

use crate::support;

use std::collections::BTreeSet;

use verdict_core::digest::{self, tokens};
use verdict_core::{Outcome, Report, Severity};

const BUDGET: usize = 500;

/// One captured case: the log and what `meta.json` says of it.
struct Case {
    tool: String,
    name: String,
    log: Vec<u8>,
    exit_code: Option<i64>,
}

fn cases() -> Vec<Case> {
    verdict_summarizers::names()
        .into_iter()
        // JUnit files are kept as the truth of the runs that wrote them, not as logs of their own.
        .filter(|tool| support::testdata(tool).is_dir())
        .flat_map(|tool| {
            support::case_names(tool).into_iter().map(move |name| Case {
                tool: tool.to_owned(),
                log: support::log(tool, &name),
                exit_code: support::exit_code(tool, &name),
                name,
            })
        })
        .collect()
}

/// Whether `number` appears in `text` as a whole number (not inside a longer one).
fn has_number(text: &str, number: u64) -> bool {
    let needle = number.to_string();
    text.match_indices(&needle).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + needle.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_digit()) && !after.is_some_and(|c| c.is_ascii_digit())
    })
}

/// The checks of one case; returns the problems found (empty when all hold).
fn check(case: &Case, report: &Report, digest: &digest::Digest) -> Vec<String> {
    let mut problems = Vec::new();
    if digest.tokens > BUDGET || tokens::count(&digest.text) > BUDGET {
        problems.push(format!(
            "digest has {} tokens, over the budget of {BUDGET}",
            tokens::count(&digest.text)
        ));
    }
    if case.exit_code.is_some_and(|code| code != 0) && report.outcome == Outcome::Passed {
        problems.push(format!(
            "the tool exited {:?} but the report is a pass",
            case.exit_code
        ));
    }
    match report.outcome {
        Outcome::Passed => {
            if digest.text.lines().count() != 1 {
                problems.push("a pass should be one line".to_owned());
            }
        }
        Outcome::Failed => {
            let headline = digest.text.lines().next().unwrap_or_default();
            let counts = &report.counts;
            for (label, count) in [
                ("tests_failed", counts.tests_failed),
                ("tests_passed", counts.tests_passed),
                ("errors", counts.errors),
                ("files", counts.files),
            ] {
                if let Some(n) = count.filter(|&n| n > 0)
                    && !has_number(headline, n)
                {
                    problems.push(format!("headline {headline:?} lacks {label} = {n}"));
                }
            }
            let files: BTreeSet<&str> = report
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .filter_map(|d| d.file.as_deref())
                .collect();
            // Absolute paths are shown relative to a root the headline states once.
            let root = headline
                .split_once("(paths relative to ")
                .and_then(|(_, rest)| rest.split_once(')'))
                .map(|(root, _)| root);
            let named = files
                .iter()
                .filter(|file| {
                    let relative = root.and_then(|root| file.strip_prefix(root));
                    digest.text.contains(**file)
                        || relative.is_some_and(|relative| digest.text.contains(relative))
                })
                .count();
            if (named as u64).saturating_add(digest.omitted_files) < files.len() as u64 {
                problems.push(format!(
                    "{} failing files, {named} named and {} counted",
                    files.len(),
                    digest.omitted_files
                ));
            }
        }
        Outcome::Errored => {
            if !digest.text.contains(&report.tool) {
                problems.push("an errored digest should name the tool".to_owned());
            }
        }
    }
    problems
}

/// The digest of one captured log: the checks, then its snapshot.
fn check_log(tool: &str, name: &str) {
    let case = Case {
        tool: tool.to_owned(),
        name: name.to_owned(),
        log: support::log(tool, name),
        exit_code: support::exit_code(tool, name),
    };
    let summarizer = verdict_summarizers::by_name(tool).expect("folder is a summarizer name");
    let report = summarizer.parse(&case.log);
    let log_name = format!("testdata/{tool}/{name}.log");
    let input = digest::Input {
        report: &report,
        log: Some(&log_name),
    };
    let digest = digest::render(&[input], &digest::Options::new(BUDGET));
    let problems = check(&case, &report, &digest);
    assert!(
        problems.is_empty(),
        "{tool}/{name}: {}",
        problems.join("\n")
    );
    insta::assert_snapshot!(format!("{tool}__{name}"), digest.text);
}

/// The tools with captured logs, each a module of [`logs`].
const TOOLS: [&str; 15] = [
    "cargo",
    "eslint",
    "generic",
    "jest",
    "mocha",
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

#[test]
fn every_tool_with_captured_logs_has_its_tests() {
    let cases = cases();
    assert!(
        cases.len() >= 50,
        "expected the captured logs, found {}",
        cases.len()
    );
    let tools: BTreeSet<&str> = cases.iter().map(|case| case.tool.as_str()).collect();
    assert_eq!(tools, BTreeSet::from(TOOLS), "a module of `logs` per tool");
}

/// One test per captured log, a module per tool: its digest is honest and within budget.
mod logs {
    mod cargo {
        crate::support::logs::cargo!(crate::digests::check_log);
    }
    mod eslint {
        crate::support::logs::eslint!(crate::digests::check_log);
    }
    mod generic {
        crate::support::logs::generic!(crate::digests::check_log);
    }
    mod jest {
        crate::support::logs::jest!(crate::digests::check_log);
    }
    mod mocha {
        crate::support::logs::mocha!(crate::digests::check_log);
    }
    mod mypy {
        crate::support::logs::mypy!(crate::digests::check_log);
    }
    mod nextest {
        crate::support::logs::nextest!(crate::digests::check_log);
    }
    mod node_test {
        crate::support::logs::node_test!(crate::digests::check_log);
    }
    mod pyright {
        crate::support::logs::pyright!(crate::digests::check_log);
    }
    mod ruff {
        crate::support::logs::ruff!(crate::digests::check_log);
    }
    mod pytest {
        crate::support::logs::pytest!(crate::digests::check_log);
    }
    mod tap {
        crate::support::logs::tap!(crate::digests::check_log);
    }
    mod tsc {
        crate::support::logs::tsc!(crate::digests::check_log);
    }
    mod unittest {
        crate::support::logs::unittest!(crate::digests::check_log);
    }
    mod vitest {
        crate::support::logs::vitest!(crate::digests::check_log);
    }
}

/// What one failing log's digest names of its report: files, and the first ten errors' places.
struct Named {
    files: usize,
    files_named: usize,
    first: usize,
    first_named: usize,
    /// The first of the first ten places not named, to show in the table.
    missed: Vec<String>,
}

fn named(report: &Report, text: &str) -> Named {
    let errors = || {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    };
    let files: BTreeSet<&str> = errors().filter_map(|d| d.file.as_deref()).collect();
    let places: Vec<String> = errors()
        .take(10)
        .filter_map(|d| {
            let file = d.file.as_deref()?;
            Some(match d.line {
                Some(line) => format!("{file}:{line}"),
                None => file.to_owned(),
            })
        })
        .collect();
    Named {
        files: files.len(),
        files_named: files
            .iter()
            .filter(|file| support::digest_names(text, file))
            .count(),
        first: places.len(),
        first_named: places
            .iter()
            .filter(|place| support::digest_names(text, place))
            .count(),
        missed: places
            .iter()
            .filter(|place| !support::digest_names(text, place))
            .take(3)
            .cloned()
            .collect(),
    }
}

#[test]
fn digests_of_failing_logs_name_their_files_and_first_errors() {
    let mut files = Vec::new();
    let mut first = Vec::new();
    let mut table = String::new();
    for case in cases() {
        let summarizer =
            verdict_summarizers::by_name(&case.tool).expect("folder is a summarizer name");
        let report = summarizer.parse(&case.log);
        if report.outcome != Outcome::Failed {
            continue;
        }
        let log_name = format!("testdata/{}/{}.log", case.tool, case.name);
        let input = digest::Input {
            report: &report,
            log: Some(&log_name),
        };
        let digest = digest::render(&[input], &digest::Options::new(BUDGET));
        let n = named(&report, &digest.text);
        if n.files > 0 {
            files.push(n.files_named as f64 / n.files as f64);
        }
        if n.first > 0 {
            first.push(n.first_named as f64 / n.first as f64);
        }
        table.push_str(&format!(
            "{}/{}: files {}/{}, first ten {}/{}",
            case.tool, case.name, n.files_named, n.files, n.first_named, n.first
        ));
        if !n.missed.is_empty() {
            table.push_str(&format!(" (not named: {})", n.missed.join(", ")));
        }
        table.push('\n');
    }
    support::assert_means(&files, &first, &table);
}
