//! The JUnit format: JUnit XML with one `<testsuite>` per verifier.
//!
//! - A **test verifier** (jest, vitest, mocha, pytest, cargo-test, …) is a suite whose `tests`,
//!   `failures`, `errors` and `skipped` attributes are the tool's own counts. Its failing tests
//!   are `<testcase>`s with a `<failure>`; test files that could not run (a test diagnostic
//!   without a test name) and errors around a test (a fixture that raised) are `<testcase>`s with
//!   an `<error>`. Passed and skipped tests are only
//!   counted, never listed: a [`crate::Report`] holds their numbers, not their names, and
//!   inventing cases for them would be made-up data. So `tests` is larger than the number of
//!   `<testcase>` elements whenever tests passed — readers that total the attributes (most CI
//!   dashboards) show the true numbers.
//! - **Any other verifier** (a type checker, a linter, a build) is one check: a suite with one
//!   `<testcase>` named after the verifier, failing with its errors listed in the failure's
//!   text when the verifier failed. A linter's thousand findings are not a thousand tests.
//! - A test verifier that **failed outside its tests** (the code does not compile, so no test
//!   ran; or it failed with nothing attributed to a test) gets one `<testcase>` with an `<error>`
//!   listing what it found, so that a suite without test numbers never looks green.
//! - An **errored verifier** adds a `<testcase>` with an `<error>` giving the reason, counted in
//!   `errors` and `tests`: a tool that could not run is never shown as a green suite.
//!
//! Text is escaped by quick-xml's writer, and characters XML 1.0 does not allow (most control
//! characters) are removed first.

use std::fmt::Write as _;
use std::io;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::{RenderInput, counts_phrase, plural, reason};
use crate::model::{Diagnostic, Kind, Outcome, Severity, Verification};

/// Renders the JUnit XML document, with a final newline.
pub fn render(input: &RenderInput<'_>) -> String {
    let suites: Vec<Suite<'_>> = input.verifications.iter().map(Suite::new).collect();
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
}

/// One `<testcase>`.
struct Case {
    name: String,
    classname: String,
    file: Option<String>,
    line: Option<u32>,
    problem: Option<Problem>,
}

/// A case's `<failure>` or `<error>`.
struct Problem {
    element: &'static str,
    kind: String,
    message: String,
    text: String,
}

impl<'a> Suite<'a> {
    fn new(verification: &'a Verification) -> Self {
        let report = &verification.report;
        let mut suite = if verification.kind == Kind::Test {
            Suite::of_tests(verification)
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
                line: None,
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

    /// A test runner's suite: a case per failing test, the tool's counts.
    fn of_tests(verification: &'a Verification) -> Self {
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
            cases.push(test_case(verification, diagnostic, could_not_run));
        }
        let counts = &report.counts;
        let failures = counts.tests_failed.unwrap_or(0).max(listed_failures);
        let mut errors = counts
            .errors
            .unwrap_or(0)
            .max(counts.suites_errored.unwrap_or(0))
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
            cases.push(Case {
                name: format!("{} failed outside its tests", verification.verifier),
                classname: verification.verifier.clone(),
                file: None,
                line: None,
                problem: Some(Problem {
                    element: "error",
                    kind: "failed".to_owned(),
                    message: failed_message(verification),
                    text: listing(report),
                }),
            });
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
            line: None,
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

/// A failing test (or a test file that could not run, or an error around a test) as a case.
fn test_case(verification: &Verification, diagnostic: &Diagnostic, could_not_run: bool) -> Case {
    let name = match &diagnostic.test {
        Some(test) => test.clone(),
        None => match &diagnostic.file {
            Some(file) => format!("{file} could not run"),
            None => "a test file could not run".to_owned(),
        },
    };
    let mut text = String::new();
    if let Some(location) = diagnostic.location() {
        let _ = writeln!(text, "{location}");
    }
    text.push_str(diagnostic.message.trim());
    if let Some(detail) = &diagnostic.detail {
        let _ = write!(text, "\n{}", detail.trim());
    }
    Case {
        name,
        classname: diagnostic
            .file
            .clone()
            .unwrap_or_else(|| verification.verifier.clone()),
        file: diagnostic.file.clone(),
        line: diagnostic.line,
        problem: Some(Problem {
            element: if could_not_run { "error" } else { "failure" },
            kind: diagnostic
                .code
                .clone()
                .unwrap_or_else(|| diagnostic.kind.as_str().to_owned()),
            message: first_line(&diagnostic.message),
            text,
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
            ("skipped", &sum(|s| s.skipped).to_string()),
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
    if let Some(line) = case.line {
        attributes.push(("line", line.to_string()));
    }
    let element = writer
        .create_element("testcase")
        .with_attributes(attributes.iter().map(|(k, v)| (*k, v.as_str())));
    match &case.problem {
        None => {
            element.write_empty()?;
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
