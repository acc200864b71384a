//! Custom verifiers run for real: small `sh` scripts print compiler-, linter- and test-runner-like
//! lines and exit with chosen codes, through the process runner verdict itself uses, and the
//! report is checked.

use std::path::Path;
use std::time::{Duration, Instant};

use verdict_core::model::{Kind, Outcome, Report, Severity};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Applicability, Runner, Workspace};
use verdict_core::{Verifier, model::MAX_DIAGNOSTICS};
use verdict_custom::{CustomVerifier, Definition};

/// A project in a temp dir with the given files (path, contents); `.sh` files are executable.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, contents) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("dirs");
        std::fs::write(&path, contents).expect("write");
        if path.extension().is_some_and(|e| e == "sh") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    dir
}

fn verifier(root: &Path, definition: &str) -> CustomVerifier {
    let definition: Definition = toml::from_str(definition).expect("a valid definition");
    CustomVerifier::new(definition, root).expect("a valid verifier")
}

/// Runs the verifier in `root` and returns its report (`tests/pipeline.rs` checks that the
/// pipeline's own reconciliation agrees with these judgements).
async fn run(root: &Path, verifier: &CustomVerifier) -> Report {
    let workspace = Workspace::new(root);
    let spec = verifier.command(&workspace).expect("a command");
    let log = workspace.run_dir.join(format!("{}.log", verifier.name()));
    let captured = ProcessRunner::new().run(&spec, &log).await;
    verifier.interpret(&spec, &captured)
}

const GCC_PATTERN: &str = r#"
[[pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): (?P<message>.*?)(?: \[(?P<code>[^\]]+)\])?$'
"#;

fn gcc(command: &str, extra: &str) -> String {
    format!("name = \"cc\"\nkind = \"build\"\ncommand = {command}\n{extra}\n{GCC_PATTERN}")
}

#[tokio::test]
async fn compiler_errors_fail_with_locations_codes_and_counts() {
    let dir = project(&[(
        "build.sh",
        "#!/bin/sh\n\
         echo 'cc -c src/a.c'\n\
         echo \"src/a.c:3:5: error: 'x' undeclared (first use in this function) [-Wimplicit]\" >&2\n\
         echo 'src/a.c:9:1: warning: control reaches end of non-void function [-Wreturn-type]'\n\
         echo 'src/b.c:1:10: note: in expansion of macro'\n\
         echo 'make: *** [Makefile:2: a.o] Error 1' >&2\n\
         exit 1\n",
    )]);
    let verifier = verifier(dir.path(), &gcc(r#"["./build.sh"]"#, ""));
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    assert_eq!(report.error, None);
    assert_eq!(report.counts.errors, Some(1));
    assert_eq!(report.counts.warnings, Some(1));
    assert_eq!(report.diagnostics.len(), 3);
    // Standard error and standard output are two pipes: their lines may interleave either way.
    let with = |severity: Severity| {
        report
            .diagnostics
            .iter()
            .find(|d| d.severity == severity)
            .unwrap_or_else(|| panic!("a diagnostic of {severity:?}: {report:?}"))
    };
    let error = with(Severity::Error);
    assert_eq!(error.tool, "cc");
    assert_eq!(error.kind, Kind::Build);
    assert_eq!(error.severity, Severity::Error);
    assert_eq!(error.location().as_deref(), Some("src/a.c:3:5"));
    assert_eq!(error.code.as_deref(), Some("-Wimplicit"));
    assert_eq!(error.message, "'x' undeclared (first use in this function)");
    assert_eq!(
        with(Severity::Warning).location().as_deref(),
        Some("src/a.c:9:1")
    );
    let note = with(Severity::Info);
    assert_eq!(note.code, None);
    assert_eq!(note.message, "in expansion of macro");
}

#[tokio::test]
async fn warnings_with_a_pass_code_pass() {
    let dir = project(&[]);
    let verifier = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "echo 'src/a.c:9:1: warning: unused variable [-Wunused]'; exit 0"]"#,
            "",
        ),
    );
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Passed, "{report:?}");
    assert_eq!(report.counts.warnings, Some(1));
    assert_eq!(report.counts.errors, Some(0));
}

#[tokio::test]
async fn a_failing_exit_with_nothing_matched_is_errored() {
    let dir = project(&[]);
    let verifier = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "echo 'Segmentation fault (core dumped)' >&2; exit 1"]"#,
            "",
        ),
    );
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some("sh exited 1 but no line matched its patterns; see the log")
    );
}

#[tokio::test]
async fn errors_matched_under_a_pass_code_are_errored() {
    let dir = project(&[]);
    let verifier = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "echo 'src/a.c:1:1: error: broken'; exit 0"]"#,
            "",
        ),
    );
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some(
            "sh exited with 0, which means a pass, but 1 error(s) matched its patterns; the two \
             disagree, so nothing is verified (fix the patterns or `pass_exit_codes`)"
        )
    );
    // What was found is kept for people to read.
    assert_eq!(report.diagnostics.len(), 1);
}

#[tokio::test]
async fn an_undeclared_exit_code_is_errored_and_declared_codes_are_honoured() {
    let dir = project(&[]);
    let crash = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "echo 'src/a.c:1:1: error: broken'; exit 3"]"#,
            "",
        ),
    );
    let report = run(dir.path(), &crash).await;
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some(
            "sh exited with 3, which is neither a pass (0) nor failures in the code (1): it may \
             have crashed or rejected its input; see the log"
        )
    );

    // A tool that says "failures" with 2 and "all clean" with 0 or 5.
    let custom_codes = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "echo 'src/a.c:1:1: error: broken'; exit 2"]"#,
            "pass_exit_codes = [0, 5]\nfail_exit_codes = [2]",
        ),
    );
    let report = run(dir.path(), &custom_codes).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    let clean = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "echo all clean; exit 5"]"#,
            "pass_exit_codes = [0, 5]\nfail_exit_codes = [2]",
        ),
    );
    assert_eq!(run(dir.path(), &clean).await.outcome, Outcome::Passed);
}

#[tokio::test]
async fn a_missing_program_is_errored() {
    let dir = project(&[]);
    let missing = verifier(
        dir.path(),
        &gcc(r#"["verdict-no-such-program-here", "--check"]"#, ""),
    );
    let report = run(dir.path(), &missing).await;
    assert_eq!(report.outcome, Outcome::Errored);
    let error = report.error.expect("a reason");
    assert!(error.contains("verdict-no-such-program-here"), "{error}");

    let missing_script = verifier(dir.path(), &gcc(r#"["./scripts/nope.sh"]"#, ""));
    let report = run(dir.path(), &missing_script).await;
    assert_eq!(report.outcome, Outcome::Errored);
}

#[tokio::test]
async fn a_timeout_stops_the_command_and_is_errored() {
    let dir = project(&[]);
    let slow = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "echo 'src/a.c:1:1: error: early'; sleep 30"]"#,
            "timeout = 1",
        ),
    );
    let started = Instant::now();
    let report = run(dir.path(), &slow).await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some("sh timed out after 1s and was stopped")
    );
    // The error printed before the time-out is still shown.
    assert_eq!(report.diagnostics.len(), 1);
}

#[tokio::test]
async fn cwd_env_and_relative_programs() {
    let dir = project(&[(
        "sub/tools/check.sh",
        "#!/bin/sh\necho \"$(basename \"$PWD\")/x.c:2:1: error: $GREETING\"\nexit 1\n",
    )]);
    let verifier = verifier(
        dir.path(),
        &gcc(
            r#"["./tools/check.sh"]"#,
            "cwd = \"sub\"\nenv = { GREETING = \"hello from env\" }",
        ),
    );
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    assert_eq!(
        report.diagnostics[0].location().as_deref(),
        Some("sub/x.c:2:1")
    );
    assert_eq!(report.diagnostics[0].message, "hello from env");
}

#[tokio::test]
async fn coloured_output_is_matched_after_the_escapes_are_stripped() {
    let dir = project(&[]);
    let verifier = verifier(
        dir.path(),
        &gcc(
            r#"["sh", "-c", "printf '\\033[1msrc/a.c:4:2:\\033[0m \\033[31merror:\\033[0m bad thing\\r\\n'; exit 1"]"#,
            "",
        ),
    );
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    assert_eq!(report.diagnostics[0].message, "bad thing");
    assert_eq!(
        report.diagnostics[0].location().as_deref(),
        Some("src/a.c:4:2")
    );
}

#[tokio::test]
async fn a_test_runner_with_a_summary_line() {
    let definition = r#"
name = "unit"
kind = "test"
command = ["sh", "-c", "echo 'ok test_add'; echo 'FAIL test_sub: expected 1, got 2'; echo 'FAIL test_mul: expected 6, got 5'; echo '3 passed, 2 failed, 1 skipped'; exit 1"]
summary = '^(?P<passed>\d+) passed, (?P<failed>\d+) failed, (?P<skipped>\d+) skipped$'

[[pattern]]
regex = '^FAIL (?P<test>\w+): (?P<message>.*)$'
"#;
    let dir = project(&[]);
    let verifier = verifier(dir.path(), definition);
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    assert_eq!(
        report.summary.as_deref(),
        Some("3 passed, 2 failed, 1 skipped")
    );
    assert_eq!(report.counts.tests_passed, Some(3));
    assert_eq!(report.counts.tests_failed, Some(2));
    assert_eq!(report.counts.tests_skipped, Some(1));
    assert_eq!(report.diagnostics.len(), 2);
    assert_eq!(report.diagnostics[1].test.as_deref(), Some("test_mul"));
    assert_eq!(report.diagnostics[1].kind, Kind::Test);
    assert_eq!(report.diagnostics[1].message, "expected 6, got 5");
}

#[tokio::test]
async fn a_definition_without_patterns_reads_the_log_generically() {
    let dir = project(&[]);
    let definition = |script: &str| {
        format!("name = \"lint\"\nkind = \"lint\"\ncommand = [\"sh\", \"-c\", \"{script}\"]\n")
    };
    let failing = verifier(
        dir.path(),
        &definition("echo 'src/app.py:4:1: error: undefined name foo'; exit 1"),
    );
    let report = run(dir.path(), &failing).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    assert_eq!(report.tool, "lint");
    assert!(
        report
            .diagnostics
            .iter()
            .all(|d| d.tool == "lint" && d.kind == Kind::Lint)
    );
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.file.as_deref() == Some("src/app.py")),
        "{report:?}"
    );

    let passing = verifier(dir.path(), &definition("echo 'all good'; exit 0"));
    assert_eq!(run(dir.path(), &passing).await.outcome, Outcome::Passed);

    let unreadable = verifier(
        dir.path(),
        &definition("echo 'it went wrong somehow'; exit 1"),
    );
    let report = run(dir.path(), &unreadable).await;
    assert_eq!(report.outcome, Outcome::Errored, "{report:?}");
    assert_eq!(
        report.error.as_deref(),
        Some(
            "sh exited 1 but no line of its output looked like an error or a warning (it has no \
             patterns); see the log"
        )
    );
}

#[tokio::test]
async fn a_flood_of_matches_is_counted_beyond_the_cap() {
    let dir = project(&[]);
    let lines = MAX_DIAGNOSTICS as u64 + 2_000;
    let verifier = verifier(
        dir.path(),
        &gcc(
            &format!(
                r#"["sh", "-c", "i=0; while [ $i -lt {lines} ]; do echo \"src/f$i.c:1:1: error: e\"; i=$((i+1)); done; exit 1"]"#
            ),
            "",
        ),
    );
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.diagnostics.len(), MAX_DIAGNOSTICS);
    assert_eq!(report.counts.errors, Some(lines));
    assert_eq!(report.diagnostics_found(), lines);
}

#[test]
fn applies_if_checks_files_next_to_the_config() {
    let dir = project(&[("Makefile", "all:\n")]);
    let workspace = Workspace::new(dir.path());
    let present = verifier(
        dir.path(),
        &gcc(r#"["make"]"#, "applies_if = [\"Makefile\"]"),
    );
    assert_eq!(
        present.applies(&workspace),
        Applicability::Applies("defined in verdict.toml; Makefile".to_owned())
    );
    let absent = verifier(
        dir.path(),
        &gcc(r#"["make"]"#, "applies_if = [\"Makefile\", \"configure\"]"),
    );
    assert_eq!(
        absent.applies(&workspace),
        Applicability::DoesNotApply("defined in verdict.toml, but configure not found".to_owned())
    );
    let always = verifier(dir.path(), &gcc(r#"["make"]"#, ""));
    assert_eq!(
        always.applies(&workspace),
        Applicability::Applies("defined in verdict.toml".to_owned())
    );
}

/// A custom verifier without patterns whose command prints TAP (Node.js's own runner, the
/// machine's `node`): each failing test counts once, as a test, and not again as an error.
#[tokio::test]
async fn tap_failures_are_counted_once_as_failed_tests() {
    let dir = project(&[(
        "t.test.js",
        "const test = require('node:test');\n\
         const assert = require('node:assert');\n\
         test('adds', () => assert.strictEqual(1 + 1, 2));\n\
         test('subtracts', () => assert.strictEqual(2 - 1, 3));\n",
    )]);
    let verifier = verifier(
        dir.path(),
        r#"name = "node-tap"
kind = "test"
command = ["node", "--test", "--test-reporter=tap", "t.test.js"]
"#,
    );
    let report = run(dir.path(), &verifier).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.counts.tests_failed, Some(1), "{report:#?}");
    assert_eq!(report.counts.tests_passed, Some(1), "{report:#?}");
    assert_eq!(report.counts.errors, Some(0), "{report:#?}");
    let failed: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.is_failed_test())
        .collect();
    assert_eq!(failed.len(), 1, "{report:#?}");
    assert_eq!(failed[0].test.as_deref(), Some("subtracts"), "{report:#?}");
}

/// A verifier without patterns whose command prints text no summarizer knows: its exit code
/// decides, as the project's own command's does (once errored, when the generic reader began
/// to refuse logs it cannot place).
#[tokio::test]
async fn plain_output_without_patterns_is_decided_by_the_exit_code() {
    let dir = project(&[]);
    for (command, outcome) in [
        (r#"["sh", "-c", "echo all good; exit 0"]"#, Outcome::Passed),
        (r#"["sh", "-c", "exit 0"]"#, Outcome::Passed),
        (r#"["sh", "-c", "echo broken; exit 1"]"#, Outcome::Errored),
    ] {
        let verifier = verifier(
            dir.path(),
            &format!("name = \"quick\"\nkind = \"lint\"\ncommand = {command}\n"),
        );
        let report = run(dir.path(), &verifier).await;
        assert_eq!(report.outcome, outcome, "{command}: {report:#?}");
    }
}
