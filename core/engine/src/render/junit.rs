//! The JUnit format: JUnit XML with one `<testsuite>` per verifier.
//!
//! CI dashboards (GitLab, Jenkins, Buildkite) count the `<testcase>` elements they read, not a
//! suite's attributes, so the document lists what it counts:
//!
//! - A **test verifier whose tool named its tests** ([`crate::Report::tests`]: jest, vitest and
//!   mocha's reports, pytest's JUnit, libtest and nextest lines) is a suite with a `<testcase>`
//!   for every test, passing ones too: `<failure>` for a failed test, `<error>` for one that
//!   errored around its check (a fixture), `<skipped/>` for a skipped, pending or todo one. A
//!   failure's message and text are those of the test's diagnostics (same name). Failing test
//!   diagnostics that name no listed test (a test file that could not run, a test binary that
//!   crashed) are cases of their own, as below.
//! - A **test verifier whose tool named no tests** (a log that prints only failures) has a case
//!   per failing test, and test files that could not run (a test diagnostic without a test
//!   name) and errors around a test are `<testcase>`s with an `<error>`; its `tests`, `failures`,
//!   `errors` and `skipped` attributes are the tool's own counts, since inventing cases for tests
//!   the tool did not name would be made-up data.
//! - **Any other verifier** (a type checker, a linter, a build) is one check: a suite with one
//!   `<testcase>` named after the verifier, failing with its errors listed in the failure's
//!   text when the verifier failed. A linter's thousand findings are not a thousand tests.
//! - A test verifier that **failed outside its tests** (the code does not compile, so no test
//!   ran; or it failed with nothing attributed to a test) gets one `<testcase>` with an `<error>`
//!   listing what it found, so that a suite without test numbers never looks green.
//! - An **errored verifier** adds a `<testcase>` with an `<error>` giving the reason, counted in
//!   `errors` and `tests`: a tool that could not run is never shown as a green suite.
//!
//! Where the tests are listed, a suite's `tests`, `failures`, `errors` and `skipped` are its
//! children, counted; `<testsuites>` sums them. A case's `classname` is its test file where the
//! tool gave one (GitLab shows it as the suite), else the verifier; `(classname, name)` pairs are
//! made unique (GitLab keeps only the first of a pair), and `file` is a path. The attributes are
//! those of Jenkins' JUnit schema, plus a case's `file`, which GitLab reads.
//!
//! Text is escaped by quick-xml's writer, and characters XML 1.0 does not allow (most control
//! characters) are removed first.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::{RenderInput, counts_phrase, plural, reason};
use crate::model::{Diagnostic, Kind, Outcome, Severity, TestCase, TestStatus, Verification};

/// Renders the JUnit XML document, with a final newline.
pub fn render(input: &RenderInput<'_>) -> String {
    let mut suites: Vec<Suite<'_>> = input
        .verifications
        .iter()
        .map(|verification| Suite::new(input, verification))
        .collect();
    unique_names(suites.iter_mut().flat_map(|suite| suite.cases.iter_mut()));
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into a Vec cannot fail.
    let _ = write_document(&mut writer, &suites, input);
    let mut text = String::from_utf8(writer.into_inner()).unwrap_or_default();
    text.push('\n');
    text
}

/// A suite's numbers and cases, worked out before writing.
struct Suite<'a> {
    verification: &'a Verification,
    tests: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
    cases: Vec<Case>,
    /// Tests the report only counted ([`crate::Report::tests_dropped`]).
    tests_dropped: u64,
}

/// One `<testcase>`.
struct Case {
    name: String,
    classname: String,
    file: Option<String>,
    /// Seconds, as JUnit writes them.
    time: Option<f64>,
    problem: Option<Problem>,
}

/// A case's `<failure>`, `<error>` or `<skipped>`.
struct Problem {
    element: &'static str,
    kind: String,
    message: String,
    text: String,
}

impl<'a> Suite<'a> {
    fn new(input: &RenderInput<'_>, verification: &'a Verification) -> Self {
        let report = &verification.report;
        let listed = !report.tests.is_empty() || report.tests_dropped > 0;
        let mut suite = if verification.kind == Kind::Test && listed {
            Suite::of_listed_tests(input, verification)
        } else if verification.kind == Kind::Test {
            Suite::of_tests(input, verification)
        } else {
            Suite::of_check(verification)
        };
        if report.outcome == Outcome::Errored {
            suite.errors += 1;
            suite.tests += 1;
            let why = reason(verification);
            suite.cases.push(Case {
                name: format!("{} could not verify", verification.verifier),
                classname: verification.verifier.clone(),
                file: None,
                time: None,
                problem: Some(Problem {
                    element: "error",
                    kind: "errored".to_owned(),
                    message: first_line(&why),
                    text: why,
                }),
            });
        }
        suite
    }

    /// A test runner's suite whose tool named its tests: a case for each, and one for each
    /// failing test diagnostic that names none of them; the counts are the cases'.
    fn of_listed_tests(input: &RenderInput<'_>, verification: &'a Verification) -> Self {
        let report = &verification.report;
        let failing: Vec<&Diagnostic> = report
            .diagnostics
            .iter()
            .filter(|d| d.kind == Kind::Test && d.severity == Severity::Error)
            .collect();
        // The diagnostics of each name: a failing test's by its test name, a file that could
        // not run by its file (pytest names such a test case by its file).
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (index, diagnostic) in failing.iter().enumerate() {
            let key = diagnostic.test.as_deref().or(diagnostic.file.as_deref());
            if let Some(key) = key {
                by_name.entry(key).or_default().push(index);
            }
        }
        let mut used = vec![false; failing.len()];
        let mut cases = Vec::with_capacity(report.tests.len() + 1);
        for test in &report.tests {
            let mine: Vec<&Diagnostic> = match test.status {
                TestStatus::Failed | TestStatus::Errored => {
                    let indices = by_name
                        .get(test.name.as_str())
                        .map_or(&[][..], Vec::as_slice);
                    // A name shared by tests of several files: the diagnostics of this one's.
                    let same_file: Vec<usize> = indices
                        .iter()
                        .copied()
                        .filter(|&i| {
                            !used[i] && test.file.is_some() && failing[i].file == test.file
                        })
                        .collect();
                    let chosen = if same_file.is_empty() {
                        indices.iter().copied().filter(|&i| !used[i]).collect()
                    } else {
                        same_file
                    };
                    chosen
                        .into_iter()
                        .map(|i| {
                            used[i] = true;
                            failing[i]
                        })
                        .collect()
                }
                TestStatus::Passed | TestStatus::Skipped => Vec::new(),
            };
            cases.push(listed_case(input, verification, test, &mine));
        }
        // Failing test diagnostics no listed test stands for: a test file that could not run,
        // a crashed test binary, a failure the tool reported twice under two names.
        for (index, diagnostic) in failing.iter().enumerate() {
            if !used[index] {
                cases.push(test_case(
                    input,
                    verification,
                    diagnostic,
                    !diagnostic.is_failed_test(),
                ));
            }
        }
        let other = report
            .diagnostics
            .iter()
            .any(|d| d.kind != Kind::Test && d.severity == Severity::Error);
        let has_problem = cases
            .iter()
            .any(|c| c.problem.as_ref().is_some_and(|p| p.element != "skipped"));
        let unexplained = report.outcome == Outcome::Failed && !has_problem;
        if other || unexplained {
            cases.push(outside_case(verification));
        }
        let count = |element: &str| {
            cases
                .iter()
                .filter(|c| c.problem.as_ref().is_some_and(|p| p.element == element))
                .count() as u64
        };
        Suite {
            verification,
            tests: cases.len() as u64,
            failures: count("failure"),
            errors: count("error"),
            skipped: count("skipped"),
            tests_dropped: report.tests_dropped,
            cases,
        }
    }

    /// A test runner's suite whose tool named no tests: a case per failing test, the tool's
    /// counts.
    fn of_tests(input: &RenderInput<'_>, verification: &'a Verification) -> Self {
        let report = &verification.report;
        let mut cases = Vec::new();
        let mut listed_failures = 0u64;
        let mut listed_errors = 0u64;
        for diagnostic in report
            .diagnostics
            .iter()
            .filter(|d| d.kind == Kind::Test && d.severity == Severity::Error)
        {
            let could_not_run = !diagnostic.is_failed_test();
            if could_not_run {
                listed_errors += 1;
            } else {
                listed_failures += 1;
            }
            cases.push(test_case(input, verification, diagnostic, could_not_run));
        }
        let counts = &report.counts;
        // The failures a baseline already had are in the tool's counts but are no cases here:
        // the suite counts the new ones, and its `verdict.set_aside` property the others.
        let aside = report.set_aside;
        let less = |n: Option<u64>, by: fn(&crate::model::SetAside) -> u64| {
            n.unwrap_or(0).saturating_sub(aside.as_ref().map_or(0, by))
        };
        let failures = less(counts.tests_failed, |a| a.tests_failed).max(listed_failures);
        let mut errors = less(counts.errors, |a| a.errors)
            .max(less(counts.suites_errored, |a| a.suites_errored))
            .max(listed_errors);
        let skipped = counts.tests_skipped.unwrap_or(0);
        // Errors that are not failing tests (code that does not compile, so no test ran) are one
        // error case: the suite must not look green for want of test numbers.
        let other = report
            .diagnostics
            .iter()
            .any(|d| d.kind != Kind::Test && d.severity == Severity::Error);
        let unexplained = report.outcome == Outcome::Failed && failures == 0 && errors == 0;
        if other || unexplained {
            errors += 1;
            cases.push(outside_case(verification));
        }
        let tests = counts
            .tests_passed
            .unwrap_or(0)
            .saturating_add(failures)
            .saturating_add(errors)
            .saturating_add(skipped);
        Suite {
            verification,
            tests,
            failures,
            errors,
            skipped,
            cases,
            tests_dropped: 0,
        }
    }

    /// Any other verifier's suite: one case, failed when the verifier failed (none when it
    /// could not verify: the errored case stands for it).
    fn of_check(verification: &'a Verification) -> Self {
        let report = &verification.report;
        let mut suite = Suite {
            verification,
            tests: 0,
            failures: 0,
            errors: 0,
            skipped: 0,
            cases: Vec::new(),
            tests_dropped: 0,
        };
        if report.outcome == Outcome::Errored {
            return suite;
        }
        let problem = (report.outcome == Outcome::Failed).then(|| Problem {
            element: "failure",
            kind: verification.kind.as_str().to_owned(),
            message: failed_message(verification),
            text: listing(report),
        });
        suite.failures = u64::from(problem.is_some());
        suite.tests = 1;
        suite.cases.push(Case {
            name: verification.verifier.clone(),
            classname: verification.verifier.clone(),
            file: None,
            time: None,
            problem,
        });
        suite
    }
}

/// `eslint failed: 3 errors`, or `eslint failed` without counts.
fn failed_message(verification: &Verification) -> String {
    let headline = counts_phrase(verification.kind, &verification.report);
    if headline.is_empty() {
        format!("{} failed", verification.verifier)
    } else {
        format!("{} failed: {headline}", verification.verifier)
    }
}

/// The case of a test verifier that failed outside its tests.
fn outside_case(verification: &Verification) -> Case {
    Case {
        name: format!("{} failed outside its tests", verification.verifier),
        classname: verification.verifier.clone(),
        file: None,
        time: None,
        problem: Some(Problem {
            element: "error",
            kind: "failed".to_owned(),
            message: failed_message(verification),
            text: listing(&verification.report),
        }),
    }
}

/// A path as the document writes it, in `file` and in a `classname` taken from a file; `None`
/// for one that is no path in the repository (absolute, or above it), which GitLab cannot link.
/// Every path goes through here, so that one place decides how paths are written.
fn file_path(input: &RenderInput<'_>, path: &str) -> Option<String> {
    input.path_in_repo(path)
}

/// A test the tool named, with the diagnostics of its failure (none when it passed or was
/// skipped, or when its diagnostic was dropped from a full report).
fn listed_case(
    input: &RenderInput<'_>,
    verification: &Verification,
    test: &TestCase,
    diagnostics: &[&Diagnostic],
) -> Case {
    let file = test.file.as_deref().and_then(|file| file_path(input, file));
    let problem = match test.status {
        TestStatus::Passed => None,
        TestStatus::Skipped => Some(Problem {
            element: "skipped",
            kind: String::new(),
            message: String::new(),
            text: String::new(),
        }),
        TestStatus::Failed | TestStatus::Errored => {
            let element = if test.status == TestStatus::Failed {
                "failure"
            } else {
                "error"
            };
            let mut problem = Problem {
                element,
                kind: "test".to_owned(),
                message: if element == "failure" {
                    "test failed".to_owned()
                } else {
                    "test errored".to_owned()
                },
                text: String::new(),
            };
            if let Some(first) = diagnostics.first() {
                problem.kind = kind_of(first);
                problem.message = first_line(&first.message);
            }
            for (i, diagnostic) in diagnostics.iter().enumerate() {
                if i > 0 {
                    problem.text.push_str("\n\n");
                }
                problem.text.push_str(&failure_text(input, diagnostic));
            }
            Some(problem)
        }
    };
    Case {
        name: test.name.clone(),
        classname: file
            .clone()
            .unwrap_or_else(|| verification.verifier.clone()),
        file,
        time: test.duration_ms.map(|ms| ms as f64 / 1000.0),
        problem,
    }
}

/// A failure's text: its place, message and detail.
fn failure_text(input: &RenderInput<'_>, diagnostic: &Diagnostic) -> String {
    let mut text = String::new();
    if let Some(file) = &diagnostic.file {
        let file = file_path(input, file).unwrap_or_else(|| file.clone());
        let _ = match (diagnostic.line, diagnostic.column) {
            (Some(line), Some(column)) => writeln!(text, "{file}:{line}:{column}"),
            (Some(line), None) => writeln!(text, "{file}:{line}"),
            _ => writeln!(text, "{file}"),
        };
    }
    text.push_str(diagnostic.message.trim());
    if let Some(detail) = &diagnostic.detail {
        let _ = write!(text, "\n{}", detail.trim());
    }
    text
}

/// A failure's `type`: the diagnostic's code, else its kind.
fn kind_of(diagnostic: &Diagnostic) -> String {
    diagnostic
        .code
        .clone()
        .unwrap_or_else(|| diagnostic.kind.as_str().to_owned())
}

/// Makes every `(classname, name)` pair of the document unique, ` (2)`, ` (3)` … added to the
/// later ones: GitLab keys a case by the pair, whatever its suite, and keeps only the first of a
/// key.
fn unique_names<'c>(cases: impl Iterator<Item = &'c mut Case>) {
    let mut seen: HashSet<(String, String)> = HashSet::new();
    for case in cases {
        if seen.insert((case.classname.clone(), case.name.clone())) {
            continue;
        }
        let mut n = 2u64;
        let name = loop {
            let candidate = format!("{} ({n})", case.name);
            if !seen.contains(&(case.classname.clone(), candidate.clone())) {
                break candidate;
            }
            n += 1;
        };
        seen.insert((case.classname.clone(), name.clone()));
        case.name = name;
    }
}

/// A failing test (or a test file that could not run, or an error around a test) as a case.
fn test_case(
    input: &RenderInput<'_>,
    verification: &Verification,
    diagnostic: &Diagnostic,
    could_not_run: bool,
) -> Case {
    let name = match &diagnostic.test {
        Some(test) => test.clone(),
        None => match &diagnostic.file {
            Some(file) => format!(
                "{} could not run",
                file_path(input, file).unwrap_or_else(|| file.clone())
            ),
            None => "a test file could not run".to_owned(),
        },
    };
    let file = diagnostic
        .file
        .as_deref()
        .and_then(|file| file_path(input, file));
    Case {
        name,
        classname: file
            .clone()
            .unwrap_or_else(|| verification.verifier.clone()),
        file,
        time: None,
        problem: Some(Problem {
            element: if could_not_run { "error" } else { "failure" },
            kind: kind_of(diagnostic),
            message: first_line(&diagnostic.message),
            text: failure_text(input, diagnostic),
        }),
    }
}

/// The errors (then warnings) of a non-test report, one per line, for a failure's text.
fn listing(report: &crate::Report) -> String {
    let mut text = String::new();
    for diagnostic in super::ranked(report) {
        let location = diagnostic.location().unwrap_or_default();
        let code = diagnostic.code.as_deref().unwrap_or("");
        let line = [
            location.as_str(),
            diagnostic.severity.as_str(),
            code,
            diagnostic.message.trim(),
        ]
        .iter()
        .filter(|part| !part.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
        let _ = writeln!(text, "{line}");
    }
    if report.diagnostics_dropped > 0 {
        let _ = writeln!(
            text,
            "… and {} more (see the full log)",
            plural(report.diagnostics_dropped, "finding", "findings")
        );
    }
    text
}

fn write_document(
    writer: &mut Writer<Vec<u8>>,
    suites: &[Suite<'_>],
    input: &RenderInput<'_>,
) -> io::Result<()> {
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let sum = |f: fn(&Suite<'_>) -> u64| suites.iter().map(f).fold(0u64, u64::saturating_add);
    let total_time: f64 = input
        .verifications
        .iter()
        .map(|v| v.duration.as_secs_f64())
        .sum();
    writer
        .create_element("testsuites")
        .with_attributes([
            ("name", "verdict"),
            ("tests", &sum(|s| s.tests).to_string()),
            ("failures", &sum(|s| s.failures).to_string()),
            ("errors", &sum(|s| s.errors).to_string()),
            ("time", &format!("{total_time:.3}")),
        ])
        .write_inner_content(|writer| {
            for suite in suites {
                write_suite(writer, suite)?;
            }
            Ok(())
        })?;
    Ok(())
}

fn write_suite(writer: &mut Writer<Vec<u8>>, suite: &Suite<'_>) -> io::Result<()> {
    let verification = suite.verification;
    let element = writer.create_element("testsuite").with_attributes([
        ("name", clean(&verification.verifier).as_str()),
        ("tests", &suite.tests.to_string()),
        ("failures", &suite.failures.to_string()),
        ("errors", &suite.errors.to_string()),
        ("skipped", &suite.skipped.to_string()),
        (
            "time",
            &format!("{:.3}", verification.duration.as_secs_f64()),
        ),
    ]);
    element.write_inner_content(|writer| {
        writer
            .create_element("properties")
            .write_inner_content(|writer| {
                let mut property = |name: &str, value: &str| {
                    writer
                        .create_element("property")
                        .with_attributes([("name", name), ("value", clean(value).as_str())])
                        .write_empty()
                        .map(|_| ())
                };
                property("verdict.kind", verification.kind.as_str())?;
                property("verdict.status", verification.status.as_str())?;
                property("verdict.outcome", verification.outcome().as_str())?;
                if let Some(log) = &verification.log {
                    property("verdict.log", log)?;
                }
                if let Some(aside) = &verification.report.set_aside {
                    // The failures a baseline already had are not cases of their own.
                    let old = aside.failures() + aside.warnings;
                    property(
                        "verdict.set_aside",
                        &format!("{old} {}", aside.from.before()),
                    )?;
                }
                if suite.tests_dropped > 0 {
                    // More tests than a report keeps: counted by the tool, not listed here.
                    property("verdict.tests_not_listed", &suite.tests_dropped.to_string())?;
                }
                Ok(())
            })?;
        for case in &suite.cases {
            write_case(writer, case)?;
        }
        if let Some(summary) = &verification.report.summary {
            writer
                .create_element("system-out")
                .write_text_content(BytesText::new(&clean(summary)))?;
        }
        Ok(())
    })?;
    Ok(())
}

fn write_case(writer: &mut Writer<Vec<u8>>, case: &Case) -> io::Result<()> {
    let name = clean(&case.name);
    let classname = clean(&case.classname);
    let mut attributes: Vec<(&str, String)> = vec![("name", name), ("classname", classname)];
    if let Some(file) = &case.file {
        attributes.push(("file", clean(file)));
    }
    if let Some(time) = case.time {
        attributes.push(("time", format!("{time:.3}")));
    }
    let element = writer
        .create_element("testcase")
        .with_attributes(attributes.iter().map(|(k, v)| (*k, v.as_str())));
    match &case.problem {
        None => {
            element.write_empty()?;
        }
        Some(problem) if problem.element == "skipped" => {
            element.write_inner_content(|writer| {
                writer.create_element("skipped").write_empty()?;
                Ok(())
            })?;
        }
        Some(problem) => {
            element.write_inner_content(|writer| {
                writer
                    .create_element(problem.element)
                    .with_attributes([
                        ("message", clean(&problem.message).as_str()),
                        ("type", clean(&problem.kind).as_str()),
                    ])
                    .write_text_content(BytesText::new(&clean(&problem.text)))?;
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// The first non-blank line (attribute values lose their line breaks in XML readers).
fn first_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_owned()
}

/// Removes the characters XML 1.0 does not allow: controls other than tab, LF and CR, and
/// U+FFFE/U+FFFF. (Rust strings hold no lone surrogates, the other excluded range.)
fn clean(text: &str) -> String {
    text.chars()
        .filter(|&c| {
            matches!(c, '\t' | '\n' | '\r') || (c >= '\u{20}' && c != '\u{FFFE}' && c != '\u{FFFF}')
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_removes_what_xml_forbids() {
        assert_eq!(clean("a\u{0}b\u{1b}[31mc\td\u{FFFF}é🎉"), "ab[31mc\tdé🎉");
    }
}
