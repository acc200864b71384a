//! Tests of the digest as a whole: snapshots of representative digests, the budget under many
//! inputs and budgets, determinism, and redaction in context.
//!
//! The input is the model, so the reports are constructed here; digests of real captured logs are
//! snapshot-tested where the parsers live.

use super::{Digest, Input, Options, render, tokens};
use crate::model::{Diagnostic, Kind, Outcome, Report, Severity};

/// Renders `reports` (each with its log path) within `budget`, and checks what every digest must
/// satisfy: within budget, and the stated token counts exact.
fn check(reports: &[(&Report, Option<&str>)], budget: usize) -> Digest {
    let inputs: Vec<Input<'_>> = reports
        .iter()
        .map(|(report, log)| Input { report, log: *log })
        .collect();
    let digest = render(&inputs, &Options::new(budget));
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

/// A small deterministic generator (SplitMix64), so that the property loops need no dependency
/// and fail the same way every time.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'t>(&mut self, items: &[&'t str]) -> &'t str {
        items[self.below(items.len())]
    }
}

const FILES: &[&str] = &[
    "src/a.ts",
    "src/b.ts",
    "./src/a.ts",
    "src/deeply/nested/directory/structure/with/a/very/long/path/component.tsx",
    "tests/test_ünïcødé.py",
    "src/日本語/ファイル.ts",
    "C:\\work\\app\\src\\main.rs",
];

const MESSAGES: &[&str] = &[
    "Cannot find name 'foo'.",
    "Argument of type 'string' is not assignable to parameter of type 'number'.",
    "expected `u32`, found `&str`",
    "'x' is defined but never used.",
    "assert 1 == 2",
    "Type '{ a: string; }' is not assignable to type 'B'.\n  Property 'b' is missing in type '{ a: string; }' but required in type 'B'.",
    "",
    "🦀 panicked at 'index out of bounds' 🦀",
];

/// A random message: usually an ordinary one, sometimes enormous or full of odd characters.
fn message(rng: &mut Rng) -> String {
    match rng.below(20) {
        0 => "x".repeat(rng.below(20_000)),
        1 => "word ".repeat(rng.below(3_000)),
        2..=3 => (0..rng.below(300))
            .map(|i| char::from_u32(0x20 + (i * 7919 % 0x2FFF) as u32).unwrap_or('?'))
            .collect(),
        _ => rng.pick(MESSAGES).to_owned(),
    }
}

fn random_report(rng: &mut Rng, index: usize) -> Report {
    let tool = [
        "tsc",
        "jest",
        "eslint",
        "cargo",
        "pytest",
        "generic",
        "a-very-long-verifier-name",
    ][rng.below(7)];
    let outcome = match rng.below(10) {
        0..=1 => Outcome::Passed,
        2 => Outcome::Errored,
        _ => Outcome::Failed,
    };
    let mut report = Report::new(tool, outcome);
    if outcome == Outcome::Errored {
        report.error = rng.chance(80).then(|| message(rng));
    }
    let n = match rng.below(6) {
        0 => 0,
        1 => 300 + rng.below(200),
        _ => rng.below(40),
    };
    for i in 0..n {
        let severity = match rng.below(10) {
            0..=2 => Severity::Warning,
            3 => Severity::Info,
            _ => Severity::Error,
        };
        let kind = [
            Kind::Build,
            Kind::Type,
            Kind::Lint,
            Kind::Test,
            Kind::Custom,
        ][rng.below(5)];
        let mut d = Diagnostic::new(tool, kind, severity, message(rng));
        if rng.chance(90) {
            let line = rng.chance(90).then(|| rng.below(5000) as u32 + 1);
            let column = rng.chance(70).then(|| rng.below(200) as u32 + 1);
            d = d.at(rng.pick(FILES), line, column);
        }
        if rng.chance(60) {
            d = d.with_code(["TS2304", "E0308", "no-unused-vars", "F401"][rng.below(4)]);
        }
        if kind == Kind::Test && rng.chance(80) {
            d = d.with_test(format!(
                "suite {index} › case {i} {}",
                "long ".repeat(rng.below(40))
            ));
        }
        if rng.chance(30) {
            d = d.with_detail(message(rng));
        }
        if rng.chance(5) {
            d = d.as_root_cause();
        }
        report.push(d);
    }
    if rng.chance(10) {
        report.diagnostics_dropped = rng.below(100_000) as u64;
    }
    let count = |percent: usize, rng: &mut Rng| rng.chance(percent).then(|| rng.below(500) as u64);
    report.counts.errors = count(50, rng);
    report.counts.warnings = count(30, rng);
    report.counts.files = count(30, rng);
    report.counts.tests_failed = count(30, rng);
    report.counts.tests_passed = count(30, rng);
    report.counts.tests_skipped = count(10, rng);
    report.counts.suites_errored = count(10, rng);
    if rng.chance(2) {
        report.counts.errors = Some(u64::MAX);
    }
    report
}

const BUDGETS: &[usize] = &[
    0, 1, 2, 3, 5, 8, 10, 13, 20, 30, 50, 80, 130, 210, 340, 500, 1000,
];

#[test]
fn the_budget_is_never_exceeded() {
    let mut rng = Rng(2026);
    for case in 0..16 {
        let reports: Vec<Report> = (0..1 + rng.below(5))
            .map(|i| random_report(&mut rng, i))
            .collect();
        let logs: Vec<Option<String>> = (0..reports.len())
            .map(|i| {
                rng.chance(70)
                    .then(|| format!(".verdict/logs/{case}/{i}.log"))
            })
            .collect();
        let inputs: Vec<(&Report, Option<&str>)> = reports
            .iter()
            .zip(&logs)
            .map(|(report, log)| (report, log.as_deref()))
            .collect();
        let mut accounted = None;
        for &budget in BUDGETS {
            let digest = check(&inputs, budget);
            let context = format!("case {case}, budget {budget}:\n{}", digest.text);
            // What is shown and what is left out always add up to the same.
            let mut sum = digest.shown;
            sum += digest.omitted;
            assert_eq!(*accounted.get_or_insert(sum), sum, "{context}");
            // Whatever is left out is said to be, unless only the headlines fit.
            if !digest.omitted.is_zero() && !digest.cut {
                assert!(digest.text.contains("not shown"), "{context}");
            }
            // Warnings only once every error that could be shown is.
            if digest.shown.warnings > 0 {
                let errors: u64 = reports
                    .iter()
                    .filter(|r| r.outcome != Outcome::Passed)
                    .flat_map(|r| &r.diagnostics)
                    .filter(|d| d.severity == Severity::Error)
                    .count() as u64;
                assert_eq!(
                    digest.shown.errors + digest.shown.failed_tests,
                    errors,
                    "{context}"
                );
            }
            // With a sensible budget, every failing report has its headline.
            if budget >= 340 {
                for report in reports.iter().filter(|r| r.outcome != Outcome::Passed) {
                    let headline = format!("{}: ", report.tool);
                    assert!(
                        digest.text.lines().any(|line| line.starts_with(&headline)),
                        "{context}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_same_input_gives_the_same_digest() {
    // Each render builds its hash maps with fresh random keys: equal output shows that nothing
    // shown depends on hash order.
    let mut rng = Rng(7);
    for _ in 0..6 {
        let reports: Vec<Report> = (0..1 + rng.below(4))
            .map(|i| random_report(&mut rng, i))
            .collect();
        let inputs: Vec<Input<'_>> = reports
            .iter()
            .map(|report| Input {
                report,
                log: Some("log"),
            })
            .collect();
        for budget in [40, 500] {
            let first = render(&inputs, &Options::new(budget));
            for _ in 0..3 {
                assert_eq!(render(&inputs, &Options::new(budget)), first);
            }
        }
    }
}

/// Secrets of every kind, as they would sit in a log.
const SECRETS: &[&str] = &[
    "AKIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "glpat-AbCdEf0123456789xyzw",
    "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "sk-proj-AbCdEf0123456789GhIjKlMnOpQrStUv",
    "sk-ant-api03-AbCdEf0123456789_GhIjKlMnOpQrStUv-wxyz",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "AIzaSyA-0123456789abcdefghijklmnopqrstu",
    "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "hunter2hunter2",
    "MIIEowIBAAKCAQEAsecretkeybody",
    "dXNlcjpwYXNzd29yZA==",
];

/// `secret` in the context its rule needs.
fn in_context(secret: &str) -> String {
    match secret {
        s if s.starts_with("wJalr") => format!("aws_secret_access_key={s}"),
        s if s.starts_with("hunter2") => format!("postgres://admin:{s}@db:5432/app"),
        s if s.starts_with("MIIE") => {
            format!("-----BEGIN RSA PRIVATE KEY-----\n{s}\n-----END RSA PRIVATE KEY-----")
        }
        s if s.starts_with("dXNl") => format!("Authorization: Basic {s}"),
        s => s.to_owned(),
    }
}

#[test]
fn secrets_never_reach_the_digest() {
    let mut diagnostics = Vec::new();
    for (i, secret) in SECRETS.iter().enumerate() {
        let text = in_context(secret);
        diagnostics.push(
            error(
                "t",
                &format!("src/{i}.ts"),
                1,
                "E1",
                &format!("request failed: {text}"),
            )
            .with_detail(format!("env: {text}")),
        );
        diagnostics.push(failed_test(
            "t",
            &format!("logs in with {text}"),
            &format!("tests/{i}.test.ts"),
            2,
            &format!("expected {text} to be valid"),
        ));
        let mut grouped = error("t", &format!("src/g{i}.ts"), 3, "E2", &text);
        grouped.severity = Severity::Warning;
        diagnostics.push(grouped.clone());
        diagnostics.push(grouped.at(format!("src/h{i}.ts"), Some(4), None));
    }
    // A file path and a log path holding secrets too.
    diagnostics.push(error(
        "t",
        &format!("https://u:{}@host/x.ts", SECRETS[11]),
        1,
        "E3",
        "m",
    ));
    let mut report = failed("t", diagnostics);
    report.summary = Some(in_context(SECRETS[2]));
    let errored = Report::errored("u", format!("crashed: {}", in_context(SECRETS[5])));
    let log = format!("https://u:{}@logs.example.com/run.log", SECRETS[11]);
    for budget in [30, 80, 200, 500, 2000, 10_000] {
        let digest = check(&[(&report, Some(&log)), (&errored, None)], budget);
        for secret in SECRETS {
            // No piece of it either: a clipped secret must not leak its start.
            let start = &secret[..12];
            assert!(
                !digest.text.contains(start),
                "{secret} leaked at budget {budget}:\n{}",
                digest.text
            );
        }
        if budget >= 2000 {
            assert!(digest.text.contains("[redacted:"), "{}", digest.text);
        }
    }
}

/// The first line of the digest of `report` alone.
fn headline_of(report: &Report) -> String {
    let digest = check(&[(report, None)], 500);
    digest.text.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn headlines_state_the_tools_counts_or_say_they_are_verdicts() {
    let mut tsc = failed("tsc", vec![error("tsc", "a.ts", 1, "TS1", "m")]);
    tsc.counts.errors = Some(42);
    tsc.counts.files = Some(9);
    assert_eq!(headline_of(&tsc), "tsc: 42 errors in 9 files");

    let mut one = failed("tsc", vec![error("tsc", "a.ts", 1, "TS1", "m")]);
    one.counts.errors = Some(1);
    one.counts.files = Some(1);
    assert_eq!(headline_of(&one), "tsc: 1 error in 1 file");

    let mut eslint = lint_errors_and_warnings();
    eslint.counts.errors = Some(5);
    eslint.counts.warnings = Some(2);
    assert_eq!(
        headline_of(&eslint),
        "eslint: 5 errors, 2 warnings in 3 files"
    );

    assert_eq!(
        headline_of(&failing_tests()),
        "jest: 3 failed, 12 passed (1 suite failed to run)"
    );
    let mut in_files = failing_tests();
    in_files.counts.files = Some(11);
    assert_eq!(
        headline_of(&in_files),
        "jest: 3 failed, 12 passed in 11 files (1 suite failed to run)"
    );

    let mut both = failing_tests();
    both.counts.errors = Some(2);
    both.counts.tests_skipped = Some(4);
    assert_eq!(
        headline_of(&both),
        "jest: 3 failed, 12 passed, 4 skipped (1 suite failed to run); 2 errors"
    );

    let mut suites = Report::new("pytest", Outcome::Failed);
    suites.counts.suites_errored = Some(2);
    assert_eq!(headline_of(&suites), "pytest: 2 suites failed to run");

    // No totals from the tool: count, and say so.
    let mut generic = failed(
        "generic",
        vec![
            error("generic", "a.c", 1, "E", "x"),
            error("generic", "b.c", 1, "E", "y"),
            warning("generic", "b.c", 2, "W", "z"),
        ],
    );
    assert_eq!(
        headline_of(&generic),
        "generic: 2 errors, 1 warning in 2 files (counted by verdict; the tool printed no totals)"
    );
    generic.diagnostics_dropped = 500;
    assert_eq!(
        headline_of(&generic),
        "generic: 2 errors, 1 warning, 500 more not itemized in 2 files (counted by verdict; the \
         tool printed no totals)"
    );

    let mut summary_only = Report::new("make", Outcome::Failed);
    summary_only.summary = Some("make: *** [all] Error 2".to_owned());
    assert_eq!(
        headline_of(&summary_only),
        "make: failed — make: *** [all] Error 2"
    );
    assert_eq!(
        headline_of(&Report::new("make", Outcome::Failed)),
        "make: failed; no failure could be itemized, see the full log"
    );
    assert_eq!(
        headline_of(&Report::new("jest", Outcome::Errored)),
        "jest: could not verify — no reason given"
    );
}

#[test]
fn passes_are_one_short_line() {
    let line = |report: &Report| check(&[(report, None)], 500).text;
    assert_eq!(line(&passed_tests("pytest", 128)), "pytest: 128 passed");
    let mut skipped = passed_tests("pytest", 128);
    skipped.counts.tests_skipped = Some(3);
    assert_eq!(line(&skipped), "pytest: 128 passed, 3 skipped");
    assert_eq!(line(&passed_no_errors("tsc")), "tsc: no errors");
    let mut warned = passed_no_errors("eslint");
    warned.counts.warnings = Some(2);
    assert_eq!(line(&warned), "eslint: no errors, 2 warnings");
    assert_eq!(
        line(&Report::new("generic", Outcome::Passed)),
        "generic: no failure found"
    );
    assert_eq!(check(&[], 500).text, "nothing was verified");
}

#[test]
fn every_failing_file_is_named_or_counted() {
    let diagnostics = (0..40)
        .flat_map(|i| {
            let file = format!("src/module{i}/index.ts");
            [
                error(
                    "tsc",
                    &file,
                    1,
                    "TS2322",
                    &format!("Type 'A{i}' is not assignable to type 'B'."),
                ),
                error(
                    "tsc",
                    &file,
                    2,
                    "TS2322",
                    &format!("Type 'C{i}' is not assignable to type 'D'."),
                ),
            ]
        })
        .collect();
    let mut report = failed("tsc", diagnostics);
    report.counts.errors = Some(80);
    report.counts.files = Some(40);
    for budget in [20, 45, 60, 100, 200, 500, 1000] {
        let digest = check(&[(&report, Some("tsc.log"))], budget);
        let items: Vec<&str> = digest
            .text
            .lines()
            .filter(|line| line.starts_with("  ") && !line.starts_with("  …"))
            .collect();
        let named = (0..40)
            .filter(|i| {
                let file = format!("src/module{i}/index.ts");
                items.iter().any(|line| line.contains(&file))
            })
            .count() as u64;
        assert!(
            named + digest.omitted_files >= 40,
            "budget {budget}: {named} named, {} counted:\n{}",
            digest.omitted_files,
            digest.text
        );
        assert_eq!(digest.shown.errors + digest.omitted.errors, 80);
        if let Some(tail) = digest.text.lines().find(|line| line.starts_with("  …")) {
            let files = format!("in {} files", digest.omitted_files);
            assert!(tail.contains(&files), "budget {budget}: {tail}");
        }
    }
}

#[test]
fn ten_thousand_diagnostics_and_more_dropped() {
    let mut report = Report::new("generic", Outcome::Failed);
    for i in 0..12_000u32 {
        let file = format!("src/file{}.c", i % 700);
        let message = if i % 3 == 0 {
            "implicit declaration of function 'foo'".to_owned()
        } else {
            format!("unused variable 'v{i}'")
        };
        let severity = if i % 5 == 0 {
            Severity::Warning
        } else {
            Severity::Error
        };
        // Many codes, so that the diagnostics make many groups: more than the budget can show.
        report.push(
            Diagnostic::new("generic", Kind::Build, severity, message)
                .at(file, Some(i + 1), Some(1))
                .with_code(format!("C{}", i % 97)),
        );
    }
    assert_eq!(report.diagnostics_dropped, 2_000);
    let digest = check(&[(&report, Some("build.log"))], 500);
    assert_eq!(digest.shown.warnings, 0);
    assert_eq!(digest.omitted.other, 2_000);
    let accounted = digest.shown.total() + digest.omitted.total();
    assert_eq!(accounted, 12_000);
    assert!(
        digest.text.contains("2000 other findings"),
        "{}",
        digest.text
    );
    insta::assert_snapshot!(shown(&digest));
}

#[test]
fn absolute_paths_are_shown_relative_to_their_root_stated_once() {
    let report = failed(
        "eslint",
        vec![
            error(
                "eslint",
                "/home/ci/work/app/src/a.js",
                1,
                "no-undef",
                "'x' is not defined.",
            ),
            error(
                "eslint",
                "/home/ci/work/app/src/lib/b.js",
                2,
                "eqeqeq",
                "Expected '==='.",
            ),
            error(
                "eslint",
                "/home/ci/work/app/src/lib/b.js",
                3,
                "eqeqeq",
                "Expected '==='.",
            ),
        ],
    );
    let text = check(&[(&report, None)], 500).text;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "eslint: 3 errors in 2 files (counted by verdict; the tool printed no totals) (paths \
             relative to /home/ci/work/app/src/)",
            "  a.js:1:5 no-undef 'x' is not defined.",
            "  eqeqeq Expected '==='. ×2 in 1 file: lib/b.js:2:5, lib/b.js:3:5",
        ],
        "{text}"
    );

    let windows = failed(
        "tsc",
        vec![
            error("tsc", "C:\\work\\app\\src\\a.ts", 1, "TS1", "m"),
            error("tsc", "C:\\work\\app\\test\\b.ts", 1, "TS2", "n"),
        ],
    );
    let text = check(&[(&windows, None)], 500).text;
    assert!(
        text.contains("(paths relative to C:\\work\\app\\)"),
        "{text}"
    );
    assert!(text.contains("\n  src\\a.ts:1:5 TS1 m"), "{text}");

    // One absolute path, or paths sharing only `/`, are left alone.
    let single = failed("t", vec![error("t", "/srv/app/main.c", 1, "E", "m")]);
    assert!(!check(&[(&single, None)], 500).text.contains("relative to"));
    let apart = failed(
        "t",
        vec![
            error("t", "/srv/a.c", 1, "E", "m"),
            error("t", "/opt/b.c", 1, "E", "m"),
        ],
    );
    assert!(!check(&[(&apart, None)], 500).text.contains("relative to"));

    // mocha names a timed-out test's file absolute and other failures' files relative to the
    // working directory: the root is where the two agree, even with one absolute path.
    let mixed = failed(
        "mocha",
        vec![
            error("mocha", "/w/mocha-test/test/a.spec.js", 1, "E", "timeout"),
            error("mocha", "test/b.spec.js", 5, "E", "assertion"),
        ],
    );
    let text = check(&[(&mixed, None)], 500).text;
    assert!(
        text.contains("(paths relative to /w/mocha-test/)"),
        "{text}"
    );
    assert!(text.contains("\n  test/a.spec.js:1:5 E timeout"), "{text}");
    assert!(
        text.contains("\n  test/b.spec.js:5:5 E assertion"),
        "{text}"
    );
    // A relative path that names no directory of the absolute one anchors nothing.
    let unrelated = failed(
        "t",
        vec![
            error("t", "/srv/app/main.c", 1, "E", "m"),
            error("t", "lib/util.c", 1, "E", "n"),
        ],
    );
    assert!(
        !check(&[(&unrelated, None)], 500)
            .text
            .contains("relative to")
    );
}

/// With the project known, its files are shown relative to it, in places and in messages, and
/// no directory is stated: `(paths relative to …)` was an absolute directory the agent had to
/// strip.
#[test]
fn paths_relative_to_the_project() {
    let report = failed(
        "script:test",
        vec![
            failed_test(
                "node-test",
                "adds",
                "/w/mono/packages/alpha/test/a.test.js",
                3,
                "m",
            ),
            failed_test(
                "node-test",
                "subs",
                "/w/mono/packages/beta/test/b.test.js",
                4,
                "n",
            ),
            error(
                "tsc",
                "/w/mono/packages/alpha/src/x.ts",
                1,
                "TS2307",
                "Cannot find module '/w/mono/packages/alpha/src/db'.",
            ),
            error(
                "eslint",
                "/w/mono/packages/alpha/src/y.ts",
                2,
                "E",
                "see file:///w/mono/packages/alpha/src/z.ts",
            ),
            // Beside the project, as a monorepo package names its sibling.
            error("tsc", "/w/mono/shared/src/s.ts", 5, "TS1", "o"),
            // Elsewhere on the machine: left as printed.
            error("tsc", "/usr/lib/node/x.d.ts", 6, "TS2", "p"),
        ],
    );
    let inputs = [Input {
        report: &report,
        log: None,
    }];
    let options = Options {
        budget: 500,
        project: vec!["/w/mono/packages/".to_owned()],
    };
    let text = render(&inputs, &options).text;
    for expected in [
        "adds — alpha/test/a.test.js:3",
        "subs — beta/test/b.test.js:4",
        "alpha/src/x.ts:1:5 TS2307 Cannot find module 'alpha/src/db'.",
        "alpha/src/y.ts:2:5 E see alpha/src/z.ts",
        "../shared/src/s.ts:5:5 TS1 o",
        "/usr/lib/node/x.d.ts:6:5 TS2 p",
    ] {
        assert!(text.contains(expected), "{expected} in:\n{text}");
    }
    assert!(!text.contains("relative to"), "{text}");
    assert!(!text.contains("/w/mono"), "{text}");

    // A report of paths that are all elsewhere (a log from another machine) still gets the
    // directory they share.
    let foreign = failed(
        "t",
        vec![
            error("t", "/home/ci/app/src/a.c", 1, "E", "m"),
            error("t", "/home/ci/app/src/b.c", 1, "E", "n"),
        ],
    );
    let inputs = [Input {
        report: &foreign,
        log: None,
    }];
    let text = render(&inputs, &options).text;
    assert!(
        text.contains("(paths relative to /home/ci/app/src/)"),
        "{text}"
    );
}

#[test]
fn several_reports_when_tight() {
    let tsc = many_type_errors();
    let jest = failing_tests();
    let eslint = lint_errors_and_warnings();
    let pytest = passed_tests("pytest", 128);
    let inputs = [
        (&tsc, Some(".verdict/logs/tsc.log")),
        (&jest, Some(".verdict/logs/jest.log")),
        (&eslint, Some(".verdict/logs/eslint.log")),
        (&pytest, None),
    ];
    let mut out = String::new();
    for budget in [12, 30, 60, 100, 160] {
        let digest = check(&inputs, budget);
        out.push_str(&format!("== budget {budget}\n{}\n", shown(&digest)));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn an_error_around_a_test_is_counted_once_as_an_error() {
    // pytest's `1 failed, 1 passed, 1 error`: one failing test and one fixture that raised at the
    // set-up of another; the tool counts the second among its errors, not its failed tests.
    let mut report = failed(
        "pytest",
        vec![
            failed_test(
                "pytest",
                "test_a.py::test_sum",
                "test_a.py",
                4,
                "assert 3 == 4",
            ),
            failed_test(
                "pytest",
                "test_a.py::test_db",
                "test_a.py",
                9,
                "RuntimeError: no database",
            )
            .as_test_error(),
        ],
    );
    report.counts.tests_failed = Some(1);
    report.counts.tests_passed = Some(1);
    report.counts.errors = Some(1);
    let digest = check(&[(&report, None)], 500);
    assert_eq!(digest.shown.failed_tests, 1, "{}", digest.text);
    assert_eq!(digest.shown.errors, 1, "{}", digest.text);
    assert_eq!(digest.omitted, Default::default(), "{}", digest.text);
    assert!(!digest.text.contains("more"), "{}", digest.text);
}

#[test]
fn files_the_tool_counted_beyond_what_was_kept_are_counted_by_the_headline() {
    let mut report = failed(
        "eslint",
        vec![
            error("eslint", "src/a.js", 1, "no-undef", "'a' is not defined."),
            error("eslint", "src/b.js", 1, "no-undef", "'b' is not defined."),
        ],
    );
    report.counts.errors = Some(9_000);
    report.counts.files = Some(1_200);
    let digest = check(&[(&report, None)], 500);
    assert!(digest.text.contains("in 1200 files"), "{}", digest.text);
    assert_eq!(digest.omitted_files, 1_198, "{}", digest.text);
}

/// A note the caller gives (what the run did not verify) comes last, and the digest keeps its
/// budget and its exact footer with it, at any budget.
#[test]
fn a_note_comes_last_within_the_budget_and_the_footer_counts_it() {
    let mut report = Report::new("tsc", Outcome::Failed);
    for i in 0..40 {
        report.push(error(
            "tsc",
            &format!("src/f{i}.ts"),
            i + 1,
            "TS2304",
            "Cannot find name 'x'.",
        ));
    }
    let note = "not verified: tox env typing (mypy), tox env style (ruff) — enable with a \
                [[verifier]] in verdict.toml running `tox -e typing`, `tox -e style`";
    for budget in [40, 60, 100, 200, 500, 2000] {
        let inputs = [Input {
            report: &report,
            log: Some(".verdict/runs/1/tsc.log"),
        }];
        let digest = super::render_with_note(&inputs, &Options::new(budget), note);
        assert!(digest.tokens <= budget, "{budget}: {}", digest.text);
        assert_eq!(
            digest.tokens,
            tokens::count(&digest.text),
            "{}",
            digest.text
        );
        assert_eq!(digest.budget, budget);
        let last = digest.text.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("not verified: tox env typing"),
            "{budget}: {}",
            digest.text
        );
        for line in digest.text.lines() {
            if let Some((used, rest)) = line.split_once('/')
                && rest.starts_with(&format!("{budget} tokens"))
            {
                assert_eq!(
                    used.parse::<usize>().ok(),
                    Some(digest.tokens),
                    "{}",
                    digest.text
                );
            }
        }
    }
}

/// A report whose failures were set aside against a baseline keeps the tool's counts and says so,
/// at every budget that shows passing reports: it is never `no errors`, nor a name under
/// `passed:`. A failing one with some set aside says how many are new, and its tail does not count
/// the old ones as left out.
#[test]
fn failures_set_aside_are_said_beside_the_tools_counts() {
    use crate::model::{KnownFrom, SetAside};
    let mut old = Report::new("tsc", Outcome::Passed);
    old.counts.errors = Some(2);
    old.counts.files = Some(1);
    let mut aside = SetAside::new(KnownFrom::Session);
    aside.errors = 2;
    old.set_aside = Some(aside);
    let mut mixed = Report::new("pytest", Outcome::Failed);
    mixed.push(
        Diagnostic::new("pytest", Kind::Test, Severity::Error, "assert 0 == -2")
            .at("tests/test_more.py", Some(4), None)
            .with_test("tests/test_more.py::test_negative"),
    );
    mixed.counts.tests_failed = Some(4);
    mixed.counts.tests_passed = Some(2);
    let mut aside = SetAside::new(KnownFrom::Session);
    aside.tests_failed = 3;
    mixed.set_aside = Some(aside);
    let clean = passed_tests("jest", 5);
    let reports = [(&mixed, None), (&old, None), (&clean, None)];
    let full = check(&reports, 500);
    assert!(
        full.text.contains(
            "pytest: 4 failed, 2 passed (3 of the failures predate this session, 1 is new)"
        ),
        "{}",
        full.text
    );
    assert!(
        full.text
            .contains("tsc: 2 errors in 1 file (all 2 from before this session)"),
        "{}",
        full.text
    );
    assert_eq!(full.omitted.failed_tests, 0, "{}", full.text);
    for budget in (40..500).step_by(20) {
        let digest = check(&reports, budget);
        assert!(!digest.text.contains("no errors"), "{}", digest.text);
        assert!(
            !digest
                .text
                .lines()
                .any(|l| l.starts_with("passed:") && l.contains("tsc")),
            "{}",
            digest.text
        );
    }
}
