//! The digest scorer: what the digest of every captured and collected log tells an agent, against
//! the log's truth.
//!
//! ```sh
//! cargo run -p verdict-core --example score              # the table, at 500 tokens
//! cargo run -p verdict-core --example score -- --budget 200 --rows rows.tsv
//! ```
//!
//! Each log of `summarizers/testdata/<tool>/` (captured runs of the real tools) and of
//! `summarizers/testdata/wild/<tool>/` (other people's CI logs, truth read by hand) is read as
//! `verdict summarize` reads it (`summarize_all`: detection, sections) and digested within the
//! budget. The truth of a captured log is its report, which the summarizers' tests hold to the
//! tool's structured output, and the tool's exit code; a wild log's is its `.truth.json`. Scored:
//!
//! - **verdict**: the digest's outcome is the truth's (a captured log: never a pass when the tool
//!   exited non-zero, never a failure when it exited 0 — read without its exit code, a log that
//!   shows no evidence may be "could not verify");
//! - **counts**: each count of the truth (failed, passed, errors, warnings) is in the digest;
//! - **files**: the failing files the digest names;
//! - **first ten**: the first ten failures it names with `file:line`;
//! - **tests**: the failing tests it names (the first 20 characters of the name, a pytest name
//!   without its file);
//! - **tokens**: the digest's size, and whether it kept to the budget.
//!
//! It uses only what the digest has offered since before issue 23 (`digest::Options::default()`,
//! `digest::render`), so the same file scores an older commit.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use verdict_core::digest;
use verdict_core::{Outcome, Report, Severity};

fn main() {
    let mut budget = digest::DEFAULT_BUDGET;
    let mut rows_path: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--budget" => {
                budget = args
                    .next()
                    .and_then(|b| b.parse().ok())
                    .expect("--budget takes a number of tokens");
            }
            "--rows" => rows_path = args.next().map(PathBuf::from),
            other => panic!("unknown argument {other}; see the module's documentation"),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../summarizers/testdata");
    let mut total = Score::default();
    let mut rows = String::from(
        "log\tverdict\tcounts\tfiles\tfiles named\tfirst ten\tfirst named\ttests\ttests named\ttokens\n",
    );
    for case in cases(&root) {
        let score = score(&case, budget);
        let _ = writeln!(
            rows,
            "{}\t{}\t{}/{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            case.id,
            if score.verdict_right == 1 {
                "right"
            } else {
                "wrong"
            },
            score.counts_right,
            score.counts,
            score.files,
            score.files_named,
            score.first,
            score.first_named,
            score.tests,
            score.tests_named,
            score.tokens,
        );
        total.add(&score);
    }
    if let Some(path) = rows_path {
        fs::write(&path, &rows).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    println!("{}", total.table(budget));
}

/// One log and its truth.
struct Case {
    /// `jest/failing` or `wild/jest/…`.
    id: String,
    log: Vec<u8>,
    truth: Truth,
}

enum Truth {
    /// A captured run: the tool's exit code; the rest is the report's.
    Captured { exit_code: Option<i64> },
    /// A collected log's `.truth.json`.
    Wild(Value),
}

fn cases(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    for (dir, wild) in [(root.to_path_buf(), false), (root.join("wild"), true)] {
        for tool in sorted_dirs(&dir) {
            if tool == "wild" && !wild {
                continue;
            }
            for stem in sorted_logs(&dir.join(&tool)) {
                let file = |extension: &str| dir.join(&tool).join(format!("{stem}.{extension}"));
                let base = file("log");
                let log = fs::read(&base).expect("a listed log reads");
                let truth = if wild {
                    let bytes = fs::read(file("truth.json"))
                        .unwrap_or_else(|e| panic!("{}: {e}", base.display()));
                    Truth::Wild(serde_json::from_slice(&bytes).expect("truth is JSON"))
                } else {
                    let meta: Value = fs::read(file("meta.json"))
                        .ok()
                        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
                        .unwrap_or(Value::Null);
                    Truth::Captured {
                        exit_code: meta["exit_code"].as_i64(),
                    }
                };
                let prefix = if wild { "wild/" } else { "" };
                cases.push(Case {
                    id: format!("{prefix}{tool}/{stem}"),
                    log,
                    truth,
                });
            }
        }
    }
    cases
}

fn sorted_dirs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let entry = entry.ok()?;
            entry.file_type().ok()?.is_dir().then_some(())?;
            entry.file_name().into_string().ok()
        })
        .collect();
    names.sort();
    names
}

fn sorted_logs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|entry| {
                    let name = entry.ok()?.file_name().into_string().ok()?;
                    name.strip_suffix(".log").map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// What one log's digest scores; summed over logs for the table.
#[derive(Default)]
struct Score {
    logs: u64,
    verdict_right: u64,
    counts: u64,
    counts_right: u64,
    files: u64,
    files_named: u64,
    first: u64,
    first_named: u64,
    tests: u64,
    tests_named: u64,
    /// Logs with at most ten failing tests, and those of them whose every test is named.
    small: u64,
    small_all_named: u64,
    tokens: u64,
    max_tokens: u64,
    over_budget: u64,
}

impl Score {
    fn add(&mut self, other: &Score) {
        self.logs += other.logs;
        self.verdict_right += other.verdict_right;
        self.counts += other.counts;
        self.counts_right += other.counts_right;
        self.files += other.files;
        self.files_named += other.files_named;
        self.first += other.first;
        self.first_named += other.first_named;
        self.tests += other.tests;
        self.tests_named += other.tests_named;
        self.small += other.small;
        self.small_all_named += other.small_all_named;
        self.tokens += other.tokens;
        self.max_tokens = self.max_tokens.max(other.max_tokens);
        self.over_budget += other.over_budget;
    }

    fn table(&self, budget: usize) -> String {
        let mean = self.tokens as f64 / self.logs.max(1) as f64;
        format!(
            "| at {budget} tokens, over {} logs | |\n|---|--:|\n\
             | verdict right | {} of {} |\n\
             | counts stated | {} of {} |\n\
             | failing files named | {} of {} |\n\
             | first ten failures named with `file:line` | {} of {} |\n\
             | failing tests named | {} of {} |\n\
             | logs of at most 10 failing tests, every one named | {} of {} |\n\
             | tokens, mean per digest | {mean:.1} |\n\
             | tokens, largest digest | {} |\n\
             | digests over the budget | {} |",
            self.logs,
            self.verdict_right,
            self.logs,
            self.counts_right,
            self.counts,
            self.files_named,
            self.files,
            self.first_named,
            self.first,
            self.tests_named,
            self.tests,
            self.small_all_named,
            self.small,
            self.max_tokens,
            self.over_budget,
        )
    }
}

/// The truth of one run of a tool: what failed, and the tool's numbers.
#[derive(Default)]
struct Run {
    counts: Vec<u64>,
    files: Vec<String>,
    /// The failures in the log's order: the place (`file:line`) when known.
    places: Vec<Option<String>>,
    tests: Vec<String>,
}

fn score(case: &Case, budget: usize) -> Score {
    let reports = verdict_summarizers::summarize_all(&case.log);
    let log = format!("testdata/{}.log", case.id);
    let inputs: Vec<digest::Input<'_>> = reports
        .iter()
        .map(|report| digest::Input {
            report,
            log: Some(&log),
        })
        .collect();
    // Set after `default()` (not in the initializer), so that the file builds against the
    // older `Options` of a single field as well.
    #[allow(clippy::field_reassign_with_default)]
    let options = {
        let mut options = digest::Options::default();
        options.budget = budget;
        options
    };
    let digest = digest::render(&inputs, &options);
    let text = &digest.text;
    let worst = worst(&reports);
    let (runs, outcome) = match &case.truth {
        Truth::Captured { exit_code } => {
            let runs = reports.iter().map(run_of_report).collect();
            let outcome = match exit_code {
                Some(0) => Some(Outcome::Passed),
                _ => None,
            };
            (runs, outcome)
        }
        Truth::Wild(truth) => {
            let runs: Vec<Run> = match truth["sections"].as_array() {
                Some(sections) => sections.iter().map(run_of_truth).collect(),
                None => vec![run_of_truth(truth)],
            };
            (runs, outcome_of(&truth["outcome"]))
        }
    };
    let verdict_right = match (&case.truth, outcome) {
        // A run that exited 0: anything but a failure. A log alone, without the exit code,
        // may not show a pass was earned (a tool that printed nothing, ran no test).
        (Truth::Captured { .. }, Some(_)) => worst != Outcome::Failed,
        (_, Some(outcome)) => worst == outcome,
        // A run that exited non-zero, or a wild log without an outcome: anything but a pass.
        (_, None) => worst != Outcome::Passed,
    };
    let mut score = Score {
        logs: 1,
        verdict_right: u64::from(verdict_right),
        tokens: digest.tokens as u64,
        max_tokens: digest.tokens as u64,
        over_budget: u64::from(digest.tokens > budget),
        ..Score::default()
    };
    let mut tests = 0;
    let mut tests_named = 0;
    for run in &runs {
        for &count in &run.counts {
            score.counts += 1;
            score.counts_right += u64::from(has_number(text, count));
        }
        for file in &run.files {
            score.files += 1;
            score.files_named += u64::from(names(text, file));
        }
        for place in run.places.iter().take(10).flatten() {
            score.first += 1;
            score.first_named += u64::from(names(text, place));
        }
        for test in &run.tests {
            tests += 1;
            let short: String = test.chars().take(20).collect();
            tests_named += u64::from(text.contains(&short));
        }
    }
    score.tests = tests;
    score.tests_named = tests_named;
    if (1..=10).contains(&tests) {
        score.small = 1;
        score.small_all_named = u64::from(tests_named == tests);
    }
    score
}

fn worst(reports: &[Report]) -> Outcome {
    reports
        .iter()
        .map(|report| report.outcome)
        .max_by_key(|outcome| match outcome {
            Outcome::Passed => 0,
            Outcome::Failed => 1,
            Outcome::Errored => 2,
        })
        .unwrap_or(Outcome::Errored)
}

fn outcome_of(value: &Value) -> Option<Outcome> {
    match value.as_str()? {
        "passed" => Some(Outcome::Passed),
        "failed" => Some(Outcome::Failed),
        "errored" => Some(Outcome::Errored),
        _ => None,
    }
}

/// The truth of a captured run: its report (held to the tool's structured output elsewhere).
fn run_of_report(report: &Report) -> Run {
    let errors = || {
        report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    };
    let files: BTreeSet<&str> = errors().filter_map(|d| d.file.as_deref()).collect();
    let counts = &report.counts;
    Run {
        counts: [
            counts.tests_failed,
            counts.tests_passed,
            counts.errors,
            counts.warnings,
        ]
        .into_iter()
        .flatten()
        .filter(|&n| n > 0)
        .filter(|_| report.outcome != Outcome::Errored)
        .collect(),
        files: files.into_iter().map(str::to_owned).collect(),
        places: errors()
            .map(|d| {
                d.file.as_deref().map(|file| match d.line {
                    Some(line) => format!("{file}:{line}"),
                    None => file.to_owned(),
                })
            })
            .collect(),
        tests: errors()
            .filter(|d| d.is_failed_test())
            .filter_map(|d| d.test.as_deref())
            .map(|name| short_name(name, d_file(report, name)))
            .collect(),
    }
}

/// The file a test's name may start with (pytest's `tests/a.py::test_x`).
fn d_file<'a>(report: &'a Report, name: &str) -> Option<&'a str> {
    report
        .diagnostics
        .iter()
        .find(|d| d.test.as_deref() == Some(name))
        .and_then(|d| d.file.as_deref())
}

fn short_name(name: &str, file: Option<&str>) -> String {
    file.and_then(|file| name.strip_prefix(file))
        .and_then(|rest| rest.strip_prefix("::"))
        .unwrap_or(name)
        .to_owned()
}

/// The truth of one run of a collected log (its `.truth.json`, or a section of it).
fn run_of_truth(truth: &Value) -> Run {
    let counts = ["tests_failed", "tests_passed", "errors", "warnings"]
        .iter()
        .filter_map(|key| truth["counts"][key].as_u64())
        .filter(|&n| n > 0)
        .collect();
    let files = truth["files"]
        .as_array()
        .map(|files| {
            files
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let failures = truth["failures"].as_array().cloned().unwrap_or_default();
    // Lint and type checkers' truth names a rule where a runner's names a test.
    let runner = !matches!(
        truth["tool"].as_str().unwrap_or_default(),
        "eslint" | "tsc" | "generic"
    );
    Run {
        counts,
        files,
        places: failures
            .iter()
            .map(|failure| {
                let file = failure["file"].as_str()?;
                Some(match failure["line"].as_u64() {
                    Some(line) => format!("{file}:{line}"),
                    None => file.to_owned(),
                })
            })
            .collect(),
        tests: failures
            .iter()
            .filter(|_| runner)
            .filter_map(|failure| {
                let name = failure["test"].as_str()?;
                Some(short_name(name, failure["file"].as_str()))
            })
            .collect(),
    }
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

/// Whether the digest names `place` (a path, or `path:line`): as written, or relative to the
/// directory its headline states, and never as the start of a longer number.
fn names(text: &str, place: &str) -> bool {
    let found = |needle: &str| {
        !needle.is_empty()
            && text.match_indices(needle).any(|(at, _)| {
                let after = text[at + needle.len()..].chars().next();
                !after.is_some_and(|c| c.is_ascii_digit())
            })
    };
    if found(place) {
        return true;
    }
    text.lines().any(|line| {
        line.split_once("(paths relative to ")
            .and_then(|(_, rest)| rest.split_once(')'))
            .and_then(|(root, _)| place.strip_prefix(root))
            .is_some_and(found)
    })
}
