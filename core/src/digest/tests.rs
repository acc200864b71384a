//! Tests of the digest as a whole: snapshots of representative digests, the budget under many
//! inputs and budgets, determinism, and redaction in context.
//!
//! The input is the model, so the reports are constructed here; digests of real captured logs are
//! snapshot-tested where the parsers live.

use super::{Digest, Input, Options, render, tokens};
use crate::model::{Diagnostic, Kind, Outcome, Report, Severity};

/// Renders `reports` (each with its log path) within `budget`, and checks what every digest must
/// satisfy: within budget, the stated token count exact, headlines present when there is room.
fn check(reports: &[(&Report, Option<&str>)], budget: usize) -> Digest {
    let inputs: Vec<Input<'_>> = reports
        .iter()
        .map(|(report, log)| Input { report, log: *log })
        .collect();
    let digest = render(&inputs, &Options { budget });
    assert!(
        digest.tokens <= budget,
        "{} tokens over a budget of {budget}:\n{}",
        digest.tokens,
        digest.text
    );
    assert_eq!(
        digest.tokens,
        tokens::count(&digest.text),
        "{}",
        digest.text
    );
    assert_eq!(digest.budget, budget);
    if let Some(footer) = digest.text.lines().last()
        && let Some((used, _)) = footer.split_once('/')
        && let Ok(used) = used.parse::<usize>()
    {
        assert_eq!(
            used, digest.tokens,
            "the footer states the size:\n{}",
            digest.text
        );
    }
    let again = render(&inputs, &Options { budget });
    assert_eq!(again, digest, "the same input gives the same digest");
    digest
}

/// The text of the digest, with its numbers, for snapshots.
fn shown(digest: &Digest) -> String {
    format!(
        "{}\n---\ntokens {}/{} · shown {:?} · omitted {:?} in {} files · cut {}",
        digest.text,
        digest.tokens,
        digest.budget,
        digest.shown,
        digest.omitted,
        digest.omitted_files,
        digest.cut
    )
}

fn error(tool: &str, file: &str, line: u32, code: &str, message: &str) -> Diagnostic {
    Diagnostic::new(tool, Kind::Type, Severity::Error, message)
        .at(file, Some(line), Some(5))
        .with_code(code)
}

fn warning(tool: &str, file: &str, line: u32, code: &str, message: &str) -> Diagnostic {
    Diagnostic::new(tool, Kind::Lint, Severity::Warning, message)
        .at(file, Some(line), Some(1))
        .with_code(code)
}

fn failed_test(tool: &str, name: &str, file: &str, line: u32, message: &str) -> Diagnostic {
    Diagnostic::new(tool, Kind::Test, Severity::Error, message)
        .at(file, Some(line), Some(3))
        .with_test(name)
}

fn failed(tool: &str, diagnostics: Vec<Diagnostic>) -> Report {
    let mut report = Report::new(tool, Outcome::Failed);
    report.diagnostics = diagnostics;
    report
}

/// A type checker's run with many errors over many files: a root cause, a message repeated over
/// files, and long messages.
fn many_type_errors() -> Report {
    let mut diagnostics = vec![
        error(
            "tsc",
            "src/db/index.ts",
            1,
            "TS2307",
            "Cannot find module './pool' or its corresponding type declarations.",
        )
        .as_root_cause(),
    ];
    for (i, file) in ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts", "src/e.ts"]
        .iter()
        .enumerate()
    {
        diagnostics.push(error(
            "tsc",
            file,
            3 + i as u32,
            "TS2304",
            "Cannot find name 'foo'.",
        ));
        diagnostics.push(error(
            "tsc",
            file,
            10 + i as u32,
            "TS2304",
            "Cannot find name 'foo'.",
        ));
    }
    for i in 0..30 {
        let file = format!("src/feature{}/handler.ts", i % 12);
        diagnostics.push(error(
            "tsc",
            &file,
            20 + i,
            "TS2345",
            &format!(
                "Argument of type '{{ id: string; name{i}: string; }}' is not assignable to \
                 parameter of type 'User'.\n  Property 'email' is missing in type '{{ id: string; \
                 }}' but required in type 'User'."
            ),
        ));
    }
    let mut report = failed("tsc", diagnostics);
    report.counts.errors = Some(41);
    report.counts.files = Some(18);
    report.summary = Some("Found 41 errors in 18 files.".to_owned());
    report
}

/// A test runner's run: failing tests with expected/received, and a suite that failed to run.
fn failing_tests() -> Report {
    let mut report = failed(
        "jest",
        vec![
            failed_test(
                "jest",
                "cart › adds items",
                "src/cart.test.ts",
                14,
                "expect(received).toBe(expected) // Object.is equality",
            )
            .with_detail("Expected: 3\nReceived: 4"),
            failed_test(
                "jest",
                "cart › removes items",
                "src/cart.test.ts",
                30,
                "expect(received).toEqual(expected) // deep equality",
            )
            .with_detail("- Expected  - 1\n+ Received  + 1\n\n-   \"qty\": 0,\n+   \"qty\": 1,"),
            failed_test(
                "jest",
                "price › rounds to cents",
                "src/price.test.ts",
                8,
                "expect(received).toBeCloseTo(expected, 2)",
            )
            .with_detail("Expected: 10.99\nReceived: 10.989"),
            Diagnostic::new(
                "jest",
                Kind::Test,
                Severity::Error,
                "Test suite failed to run: Cannot find module './checkout' from 'src/checkout.test.ts'",
            )
            .at("src/checkout.test.ts", None, None)
            .as_root_cause(),
        ],
    );
    report.counts.tests_failed = Some(3);
    report.counts.tests_passed = Some(12);
    report.counts.suites_errored = Some(1);
    report
}

/// A linter's run with errors and warnings mixed.
fn lint_errors_and_warnings() -> Report {
    let mut diagnostics = Vec::new();
    for i in 0..6 {
        diagnostics.push(warning(
            "eslint",
            "src/app.ts",
            i + 1,
            "no-unused-vars",
            &format!("'unused{i}' is defined but never used."),
        ));
    }
    diagnostics.push(error(
        "eslint",
        "src/app.ts",
        40,
        "no-undef",
        "'process' is not defined.",
    ));
    diagnostics.push(warning(
        "eslint",
        "src/util.ts",
        2,
        "prefer-const",
        "'x' is never reassigned. Use 'const' instead.",
    ));
    diagnostics.push(error(
        "eslint",
        "src/util.ts",
        9,
        "eqeqeq",
        "Expected '===' and instead saw '=='.",
    ));
    diagnostics.push(error(
        "eslint",
        "src/server.ts",
        1,
        "no-undef",
        "'process' is not defined.",
    ));
    let mut report = failed("eslint", diagnostics);
    report.counts.errors = Some(3);
    report.counts.warnings = Some(7);
    report.counts.files = Some(3);
    report
}

fn passed_tests(tool: &str, passed: u64) -> Report {
    let mut report = Report::new(tool, Outcome::Passed);
    report.counts.tests_passed = Some(passed);
    report
}

fn passed_no_errors(tool: &str) -> Report {
    let mut report = Report::new(tool, Outcome::Passed);
    report.counts.errors = Some(0);
    report
}

#[test]
fn one_tool_with_many_errors_over_many_files() {
    let report = many_type_errors();
    let digest = check(&[(&report, Some(".verdict/logs/tsc.log"))], 500);
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn failing_tests_with_expected_and_received() {
    let report = failing_tests();
    let digest = check(&[(&report, Some(".verdict/logs/jest.log"))], 500);
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn errors_before_warnings() {
    let report = lint_errors_and_warnings();
    let digest = check(&[(&report, None)], 500);
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn errors_before_warnings_when_tight() {
    let report = lint_errors_and_warnings();
    let digest = check(&[(&report, None)], 70);
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn several_reports_share_the_budget() {
    let tsc = many_type_errors();
    let jest = failing_tests();
    let eslint = lint_errors_and_warnings();
    let pytest = passed_tests("pytest", 128);
    let cargo = passed_no_errors("cargo");
    let digest = check(
        &[
            (&tsc, Some(".verdict/logs/tsc.log")),
            (&jest, Some(".verdict/logs/jest.log")),
            (&eslint, Some(".verdict/logs/eslint.log")),
            (&pytest, Some(".verdict/logs/pytest.log")),
            (&cargo, None),
        ],
        500,
    );
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn errored() {
    let report = Report::errored(
        "jest",
        "Error: Cannot find module 'ts-jest' from 'jest.config.js'",
    );
    let digest = check(&[(&report, Some("jest.log"))], 500);
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn all_passed() {
    let pytest = passed_tests("pytest", 128);
    let tsc = passed_no_errors("tsc");
    let generic = Report::new("generic", Outcome::Passed);
    let digest = check(&[(&pytest, None), (&tsc, None), (&generic, None)], 500);
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn tiny_budget() {
    let report = many_type_errors();
    let log = Some(".verdict/logs/tsc.log");
    let mut out = String::new();
    for budget in [10, 20, 30, 45, 60] {
        let digest = check(&[(&report, log)], budget);
        out.push_str(&format!("== budget {budget}\n{}\n", shown(&digest)));
    }
    insta::assert_snapshot!(out);
}
