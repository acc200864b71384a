//! What the digest says of failing tests and of failures several verifiers share, on real tool
//! output: every failing test is named while the budget allows (grouping only when listing does
//! not fit), and a failure that several verifiers report is shown once, under the first.
//!
//! The runs here are real: pytest, cargo (check, clippy, test) and tsc (alone and through an npm
//! `build` script) on small fixture projects in temporary directories, their output read by the
//! real summarizers.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use verdict_core::digest::{self, Digest};
use verdict_core::{Report, Severity};

const BUDGET: usize = 500;

/// Where `cargo xtask tools` installs the real tools; a missing one fails the test and says
/// what installs it.
fn tool(rel: &str) -> PathBuf {
    let root = std::env::var_os("VERDICT_TOOLS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/verdict-tools"),
        PathBuf::from,
    );
    let path = root.join(rel);
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask tools` first",
        path.display()
    );
    path
}

/// Writes `files` under `dir`.
fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("a file has a directory"))
            .expect("create the fixture's directories");
        std::fs::write(path, text).expect("write the fixture");
    }
}

/// What `command` printed, stdout then stderr, as a verifier's log holds it; it must have run
/// and failed.
fn failing_output(command: &mut Command) -> Vec<u8> {
    let output = command.output().expect("the tool runs");
    assert!(
        !output.status.success(),
        "expected a failing run: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    let mut log = output.stdout;
    log.extend(output.stderr);
    log
}

/// `log` read by the summarizer of `format`, as the verifier `tool` reports it.
fn report(format: &str, tool: &str, log: &[u8]) -> Report {
    let summarizer = verdict_summarizers::by_name(format).expect("a summarizer");
    let mut report = summarizer.parse(log);
    report.tool = tool.to_owned();
    report
}

fn digest_of(reports: &[&Report], budget: usize) -> Digest {
    let inputs: Vec<digest::Input<'_>> = reports
        .iter()
        .map(|report| digest::Input { report, log: None })
        .collect();
    let digest = digest::render(&inputs, &digest::Options::new(budget));
    assert!(digest.tokens <= budget, "over budget:\n{}", digest.text);
    digest
}

/// The names of `report`'s failing tests.
fn test_names(report: &Report) -> Vec<&str> {
    report
        .diagnostics
        .iter()
        .filter(|d| d.is_failed_test())
        .filter_map(|d| d.test.as_deref())
        .collect()
}

/// Whether `text` names test `name`: whole, or as a group names a pytest test (without the
/// file it is in, which its place says).
fn names(text: &str, name: &str) -> bool {
    text.contains(name)
        || name
            .rsplit_once("::")
            .is_some_and(|(_, short)| text.contains(short))
}

#[test]
fn three_failing_tests_two_alike_are_all_named() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write(
        dir.path(),
        &[
            (
                "tests/test_ops.py",
                "def mean(values):\n    return sum(values) / len(values)\n\n\n\
                 def test_add():\n    assert 1 + 1 == 3\n\n\n\
                 def test_div():\n    assert 1 / 0 == 0\n\n\n\
                 def test_mean():\n    assert mean([]) == 0\n",
            ),
            ("pytest.ini", "[pytest]\n"),
        ],
    );
    let log = failing_output(
        Command::new(tool("venv/bin/python"))
            .args(["-m", "pytest", "--color=no", "-p", "no:cacheprovider"])
            .current_dir(dir.path()),
    );
    let report = report("pytest", "pytest", &log);
    let tests = test_names(&report);
    assert_eq!(tests.len(), 3, "{}", String::from_utf8_lossy(&log));
    let digest = digest_of(&[&report], BUDGET);
    let text = &digest.text;
    for name in tests {
        assert!(names(text, name), "{name} is not named:\n{text}");
    }
    // With room to spare, each test has its own line: nothing grouped, nothing left out.
    assert!(!text.contains(" ×"), "grouped with room to spare:\n{text}");
    assert!(digest.omitted.is_zero(), "{text}");
    assert_eq!(text.matches("ZeroDivisionError").count(), 2, "{text}");
    assert!(text.contains("tests/test_ops.py:10"), "{text}");
    assert!(text.contains("tests/test_ops.py:2"), "{text}");
}

#[test]
fn failing_tests_are_named_until_the_budget_is_used() {
    // Seven failures, four of one message: all seven named, well within the budget.
    let (tool, case) = ("mocha", "translate-hover-spec-failing");
    let summarizer = verdict_summarizers::by_name(tool).expect("a summarizer");
    let report = summarizer.parse(&support::log(&format!("wild/{tool}"), case));
    let digest = digest_of(&[&report], BUDGET);
    let tests = test_names(&report);
    assert_eq!(tests.len(), 7);
    for name in &tests {
        assert!(names(&digest.text, name), "{name}:\n{}", digest.text);
    }

    // Fifty-nine failures of one message do not fit one a line: a group, naming as many as fit.
    let (tool, case) = ("pytest", "cognea-verbose-cut-with-failures");
    let summarizer = verdict_summarizers::by_name(tool).expect("a summarizer");
    let report = summarizer.parse(&support::log(&format!("wild/{tool}"), case));
    let digest = digest_of(&[&report], BUDGET);
    let named = test_names(&report)
        .iter()
        .filter(|name| names(&digest.text, name))
        .count();
    assert!(digest.text.contains("×59"), "{}", digest.text);
    assert!(named >= 20, "{named} tests named:\n{}", digest.text);

    // Thirty-two failures in 500 tokens: grouped, with an exact tail, and still within budget.
    let summarizer = verdict_summarizers::by_name("jest").expect("a summarizer");
    let report = summarizer.parse(&support::log("jest", "failing"));
    let digest = digest_of(&[&report], BUDGET);
    assert!(digest.text.contains(" ×"), "{}", digest.text);
    assert!(digest.text.contains("… and "), "{}", digest.text);
}

/// Runs cargo `args` in `dir` with its own target directory, offline.
fn cargo(dir: &Path, args: &[&str]) -> Vec<u8> {
    failing_output(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(args)
            .arg("--offline")
            .env("CARGO_TARGET_DIR", dir.join("target"))
            .env_remove("RUSTFLAGS")
            .current_dir(dir),
    )
}

/// The headline of `report` when digested alone: the tool's own counts.
fn headline(report: &Report) -> String {
    let digest = digest_of(&[report], BUDGET);
    digest.text.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn a_compile_error_three_cargo_verifiers_report_is_shown_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write(
        dir.path(),
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"once\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            (
                "src/lib.rs",
                "pub fn answer() -> u32 {\n    \"forty-two\"\n}\n",
            ),
        ],
    );
    let json = "--message-format=json";
    let check = report(
        "cargo",
        "cargo-check",
        &cargo(dir.path(), &["check", "--all-targets", json]),
    );
    let clippy = report(
        "cargo",
        "clippy",
        &cargo(dir.path(), &["clippy", "--all-targets", json]),
    );
    let test = report(
        "cargo",
        "cargo-test",
        &cargo(dir.path(), &["test", "--no-fail-fast", json]),
    );
    for report in [&check, &clippy, &test] {
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.code.as_deref() == Some("E0308")),
            "{}: {:?}",
            report.tool,
            report.diagnostics
        );
    }
    let digest = digest_of(&[&check, &clippy, &test], BUDGET);
    let text = &digest.text;
    // Once, under the first verifier, saying which others failed on it.
    assert_eq!(text.matches("E0308").count(), 1, "{text}");
    assert!(
        text.contains("(also failed clippy, cargo-test on this)"),
        "{text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    let at = |prefix: &str| lines.iter().position(|line| line.starts_with(prefix));
    let (Some(first), Some(shown)) = (
        at("cargo-check: "),
        lines.iter().position(|l| l.contains("E0308")),
    ) else {
        panic!("no cargo-check section:\n{text}");
    };
    assert!(
        first < shown && at("clippy: ").is_some_and(|c| shown < c),
        "{text}"
    );
    // Every headline keeps the tool's own counts, and the later ones say where theirs are.
    for report in [&check, &clippy, &test] {
        assert!(text.contains(&headline(report)), "{}:\n{text}", report.tool);
    }
    assert!(text.contains("the same as cargo-check"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn a_type_error_tsc_and_a_build_script_report_is_shown_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write(
        dir.path(),
        &[
            (
                "tsconfig.json",
                "{ \"compilerOptions\": { \"strict\": true, \"noEmit\": true }, \"include\": [\"src\"] }\n",
            ),
            (
                "src/index.ts",
                "export const answer: number = \"forty-two\";\n",
            ),
            (
                "package.json",
                "{ \"name\": \"once\", \"private\": true, \"scripts\": { \"build\": \"tsc\" } }\n",
            ),
        ],
    );
    let tsc = tool("node_modules/.bin/tsc");
    let alone = report(
        "tsc",
        "tsc",
        &failing_output(
            Command::new(&tsc)
                .args(["--pretty", "false"])
                .current_dir(dir.path()),
        ),
    );
    // The build script finds tsc on the PATH, as npm puts a project's own binaries there.
    let bin = tsc.parent().expect("tsc is in a directory").to_owned();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("a PATH");
    let build = report(
        "tsc",
        "build",
        &failing_output(
            Command::new("npm")
                .args(["run", "build"])
                .env("PATH", path)
                .current_dir(dir.path()),
        ),
    );
    for report in [&alone, &build] {
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.code.as_deref() == Some("TS2322")),
            "{}: {:?}",
            report.tool,
            report.diagnostics
        );
    }
    let digest = digest_of(&[&alone, &build], BUDGET);
    let text = &digest.text;
    assert_eq!(text.matches("TS2322").count(), 1, "{text}");
    assert!(text.contains("(also failed build on this)"), "{text}");
    for report in [&alone, &build] {
        assert!(text.contains(&headline(report)), "{}:\n{text}", report.tool);
    }
    insta::assert_snapshot!(text);
}
