//! The tsc verifier on fixture projects, with the real compiler (`cargo xtask tools` installs it):
//! detection, the command it builds, and what it makes of what tsc printed.
//!
//! Each fixture under `tests/fixtures/` is copied to a temporary directory and given a
//! `node_modules` link to the shared tool install, so nothing is ever installed into the repository.

use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Exit, Runner, VerifierError, Workspace,
};
use verdict_core::{Kind, Outcome, Report, Severity, Verifier};
use verdict_test_support::{copy_dir, node_runner as runner};
use verdict_tsc::Tsc;

/// The shared tool install: `$VERDICT_TOOLS`, else `<repo>/target/verdict-tools`.
fn tools() -> PathBuf {
    verdict_test_support::tool("node_modules/typescript/package.json");
    verdict_test_support::tools()
}

/// A fixture project copied to a temporary directory.
struct Fixture {
    _dir: tempfile::TempDir,
    workspace: Workspace,
}

/// Copies `tests/fixtures/<name>`; `node_modules` links to the shared install when `installed`.
fn fixture(name: &str, installed: bool) -> Fixture {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
        &root,
    );
    if installed {
        std::os::unix::fs::symlink(tools().join("node_modules"), root.join("node_modules"))
            .expect("link node_modules");
    }
    let run_dir = root.join(".verdict/runs/test");
    std::fs::create_dir_all(&run_dir).expect("create the run directory");
    Fixture {
        workspace: Workspace::new(&root).with_run_dir(run_dir),
        _dir: dir,
    }
}

/// Builds the command, runs it for real and interprets what it printed.
async fn run(verifier: &Tsc, fixture: &Fixture) -> (CommandSpec, Captured, Report) {
    let spec = verifier
        .command(&fixture.workspace)
        .expect("the command can be built");
    let log = fixture.workspace.run_dir.join("tsc.log");
    let captured = runner().run(&spec, &log).await;
    let report = verifier.interpret(&spec, &captured);
    (spec, captured, report)
}

/// Checks the outcome and the exact list of errors: (file, line, code), in tsc's order.
fn check(report: &Report, outcome: Outcome, errors: &[(&str, u32, &str)]) {
    assert_eq!(report.outcome, outcome, "{report:#?}");
    let found: Vec<(&str, u32, &str)> = report
        .diagnostics
        .iter()
        .map(|d| {
            assert_eq!(d.severity, Severity::Error, "{d:?}");
            assert_eq!(d.kind, Kind::Type, "{d:?}");
            (
                d.file.as_deref().unwrap_or(""),
                d.line.unwrap_or(0),
                d.code.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(found, errors, "{report:#?}");
}

fn args(spec: &CommandSpec) -> Vec<&str> {
    spec.args.iter().map(String::as_str).collect()
}

const FAILING: &[(&str, u32, &str)] = &[
    ("src/main.ts", 2, "TS2307"),
    ("src/main.ts", 4, "TS2322"),
    ("src/main.ts", 5, "TS2552"),
    ("src/math.ts", 5, "TS2322"),
    ("src/math.ts", 8, "TS2362"),
];

#[tokio::test]
async fn failing_project_reports_every_error_with_file_line_and_code() {
    let fixture = fixture("failing", true);
    let tsc = Tsc::default();
    assert_eq!(
        tsc.applies(&fixture.workspace),
        Applicability::Applies(
            "the `typecheck` script runs `tsc --noEmit`; tsconfig.json".to_owned()
        )
    );
    let (spec, captured, report) = run(&tsc, &fixture).await;
    assert_eq!(
        args(&spec),
        [
            "-p",
            "tsconfig.json",
            "--noEmit",
            "--pretty",
            "false",
            "--diagnostics"
        ]
    );
    assert_eq!(
        spec.program,
        fixture.workspace.path("node_modules/.bin/tsc")
    );
    assert_eq!(spec.cwd, fixture.workspace.root);
    assert_eq!(spec.timeout, Duration::from_secs(600));
    assert_eq!(captured.exit, Exit::Code { code: 2 });
    check(&report, Outcome::Failed, FAILING);
    assert_eq!(report.counts.errors, Some(5));
    assert_eq!(report.counts.files, Some(2));
    let missing_module = &report.diagnostics[0];
    assert!(missing_module.root_cause, "{missing_module:?}");
    assert!(
        missing_module.message.contains("./nowhere.js"),
        "{missing_module:?}"
    );
    // --noEmit: nothing was written next to the sources.
    assert!(!fixture.workspace.path("src/math.js").exists());
}

#[tokio::test]
async fn passing_project_passes() {
    let fixture = fixture("passing", true);
    let (_, captured, report) = run(&Tsc::default(), &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    check(&report, Outcome::Passed, &[]);
}

#[tokio::test]
async fn tsconfig_with_a_syntax_error_is_errored_not_failed() {
    let fixture = fixture("broken-config", true);
    let (_, captured, report) = run(&Tsc::default(), &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 2 });
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or("");
    assert!(
        error.contains("tsconfig.json") && error.contains("TS1005"),
        "{error}"
    );
}

#[tokio::test]
async fn unknown_compiler_option_is_errored_with_tsc_message() {
    let fixture = fixture("bad-option", true);
    let (_, _, report) = run(&Tsc::default(), &fixture).await;
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or("");
    assert!(
        error.contains("TS5025") && error.contains("stirct"),
        "{error}"
    );
}

#[tokio::test]
async fn config_error_in_an_extended_config_not_named_tsconfig_is_errored_not_failed() {
    // `tsconfig.json` extends `./config/base.jsonc`, which sets `"moduleResolution": "bogus"`:
    // tsc locates its TS6046 in the base, which was taken for code by its name.
    let fixture = fixture("extends-bad-option", true);
    let (_, captured, report) = run(&Tsc::default(), &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 2 });
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    let error = report.error.as_deref().unwrap_or("");
    assert!(
        error.starts_with("config/base.jsonc:2:") && error.contains("TS6046"),
        "{error}"
    );
}

#[tokio::test]
async fn syntax_error_in_an_extended_config_not_named_tsconfig_is_errored_not_failed() {
    // `extends` is a list here, and `./config/base` is resolved to `config/base.json` as tsc
    // does; a syntax error there has a code (TS1005) that code has too, so only the `extends`
    // chain tells it apart.
    let fixture = fixture("extends-broken-config", true);
    let (_, captured, report) = run(&Tsc::default(), &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 2 });
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert_eq!(
        report.error.as_deref(),
        Some("config/base.json:4:5: TS1005: ',' expected.")
    );
}

#[tokio::test]
async fn project_references_are_checked_in_build_mode() {
    let fixture = fixture("references", true);
    let tsc = Tsc::default();
    match tsc.applies(&fixture.workspace) {
        Applicability::Applies(reason) => assert!(reason.contains("references"), "{reason}"),
        other => panic!("tsc should apply: {other:?}"),
    }
    let (spec, captured, report) = run(&tsc, &fixture).await;
    assert_eq!(
        args(&spec),
        [
            "-b",
            "tsconfig.json",
            "--pretty",
            "false",
            "--diagnostics",
            "--verbose"
        ]
    );
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    // Plain `tsc --noEmit` on this solution config checks nothing and exits 0; build mode finds
    // the errors of both referenced projects.
    check(
        &report,
        Outcome::Failed,
        &[("core/index.ts", 5, "TS2322"), ("app/main.ts", 3, "TS2322")],
    );
}

/// A build that is up to date prints no `--diagnostics` counts, only `--verbose`'s list of its
/// projects: that list is the evidence of its pass (issue 20: a pass needs evidence that tsc
/// checked something, and the first build's counts are gone by the second).
#[tokio::test]
async fn an_up_to_date_build_still_passes_on_its_list_of_projects() {
    let fixture = fixture("references-passing", true);
    let tsc = Tsc::default();
    for run_number in 1..=2 {
        let (_, captured, report) = run(&tsc, &fixture).await;
        assert_eq!(captured.exit, Exit::Code { code: 0 }, "run {run_number}");
        let mut report = report;
        // As the pipeline reads it: a pass needs the evidence.
        report = verdict_core::pipeline::reconcile(
            report,
            &tsc.command(&fixture.workspace).expect("the command"),
            &captured,
            Kind::Type,
            false,
        );
        check(&report, Outcome::Passed, &[]);
        let log = std::fs::read_to_string(&captured.log_path).expect("the log");
        assert!(
            log.contains("Projects in this build:"),
            "run {run_number}: {log}"
        );
        if run_number == 2 {
            assert!(log.contains("is up to date"), "{log}");
            assert!(!log.contains("Files:"), "{log}");
        }
    }
}

#[tokio::test]
async fn project_named_by_a_script_is_used_without_tsconfig_json() {
    let fixture = fixture("script-project", true);
    let tsc = Tsc::default();
    assert_eq!(
        tsc.applies(&fixture.workspace),
        Applicability::Applies(
            "the `check` script runs `tsc -p tsconfig.app.json`; tsconfig.app.json, checked by \
             the `check` script"
                .to_owned()
        )
    );
    let (spec, _, report) = run(&tsc, &fixture).await;
    assert_eq!(
        args(&spec),
        [
            "-p",
            "tsconfig.app.json",
            "--noEmit",
            "--pretty",
            "false",
            "--diagnostics"
        ]
    );
    check(&report, Outcome::Failed, &[("src/app.ts", 1, "TS2322")]);
}

#[tokio::test]
async fn not_installed_is_errored_with_an_install_hint() {
    let fixture = fixture("not-installed", false);
    let tsc = Tsc::default();
    // It applies (the project has a tsconfig.json) but cannot run.
    assert!(matches!(
        tsc.applies(&fixture.workspace),
        Applicability::Applies(_)
    ));
    match tsc.command(&fixture.workspace) {
        Err(VerifierError::NotInstalled { tool, hint }) => {
            assert_eq!(tool, "tsc");
            assert_eq!(hint, "npm install --save-dev typescript");
        }
        other => panic!("expected NotInstalled, got {other:?}"),
    }
    let log = fixture.workspace.run_dir.join("tsc.log");
    let report = tsc.verify(&fixture.workspace, &runner(), &log).await;
    assert_eq!(report.outcome, Outcome::Errored);
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("npm install --save-dev typescript")),
        "{report:#?}"
    );
}

#[tokio::test]
async fn timed_out_run_is_never_a_pass() {
    let fixture = fixture("passing", true);
    let tsc = Tsc::default().with_timeout(Duration::from_millis(1));
    let (_, captured, report) = run(&tsc, &fixture).await;
    assert_eq!(captured.exit, Exit::TimedOut);
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("timed out"))
    );
}

#[test]
fn detection_without_a_tsconfig() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let workspace = Workspace::new(dir.path());
    let tsc = Tsc::default();
    assert_eq!(
        tsc.applies(&workspace),
        Applicability::DoesNotApply("no tsconfig.json".to_owned())
    );
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"devDependencies": {"typescript": "5.9.3"}}"#,
    )
    .expect("write package.json");
    match tsc.applies(&workspace) {
        Applicability::DoesNotApply(reason) => {
            assert!(reason.contains("depends on typescript"), "{reason}")
        }
        other => panic!("tsc checks nothing without a config: {other:?}"),
    }
    // The command says the same, rather than running tsc to print its help.
    assert!(matches!(
        tsc.command(&workspace),
        Err(VerifierError::Project { .. })
    ));
    std::fs::write(dir.path().join("package.json"), "{ not json").expect("write package.json");
    match tsc.applies(&workspace) {
        Applicability::DoesNotApply(reason) => {
            assert!(reason.contains("not valid JSON"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn inputs_name_the_sources_and_the_installed_compiler() {
    let fixture = fixture("failing", true);
    let inputs = Tsc::default()
        .inputs(&fixture.workspace)
        .expect("tsc knows its inputs");
    for glob in ["*.ts", "*.tsx", "*.json", "!**/node_modules/**"] {
        assert!(inputs.globs.iter().any(|g| g == glob), "{glob}: {inputs:?}");
    }
    let [tool_file, ..] = inputs.tool_files.as_slice() else {
        panic!("the compiler's package.json first: {inputs:?}");
    };
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tool_file).expect("the tool file exists"))
            .expect("valid JSON");
    assert_eq!(package["name"], "typescript");
    // tsc re-checks the whole program: there is no narrower re-run.
    assert_eq!(
        Tsc::default().rerun_failed(&fixture.workspace, &Report::new("tsc", Outcome::Failed)),
        None
    );
}

/// TypeScript 7 (the native compiler) exits 1 rather than 2 and prints the same diagnostics.
#[tokio::test]
async fn typescript7_reports_the_same_errors() {
    let fixture = fixture("failing", false);
    let node_modules = fixture.workspace.path("node_modules");
    std::fs::create_dir_all(node_modules.join(".bin")).expect("create node_modules/.bin");
    std::os::unix::fs::symlink(
        tools().join("node_modules/typescript7"),
        node_modules.join("typescript"),
    )
    .expect("link typescript");
    std::os::unix::fs::symlink("../typescript/bin/tsc", node_modules.join(".bin/tsc"))
        .expect("link the tsc bin");
    let tsc = Tsc::default();
    let (_, captured, report) = run(&tsc, &fixture).await;
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    check(&report, Outcome::Failed, FAILING);
    let inputs = tsc.inputs(&fixture.workspace).expect("inputs");
    let version = std::fs::read_to_string(&inputs.tool_files[0]).expect("tool file");
    assert!(version.contains("\"version\": \"7."), "{version}");
}

/// `node_modules/.bin/tsc` is a script run by `node`: without `node` on `PATH` it cannot start.
#[tokio::test]
async fn node_missing_from_path_is_errored_with_a_hint() {
    let fixture = fixture("passing", true);
    let tsc = Tsc::default();
    let spec = tsc.command(&fixture.workspace).expect("the command");
    let empty = tempfile::tempdir().expect("an empty directory for PATH");
    let runner = ProcessRunner::new().with_env("PATH", empty.path().to_string_lossy());
    let captured = runner
        .run(&spec, &fixture.workspace.run_dir.join("tsc.log"))
        .await;
    assert_eq!(captured.exit, Exit::Code { code: 127 });
    let report = tsc.interpret(&spec, &captured);
    assert_eq!(report.outcome, Outcome::Errored, "{report:#?}");
    assert!(
        report
            .error
            .as_deref()
            .is_some_and(|e| e.contains("`node` on PATH")),
        "{report:#?}"
    );
}

/// `verdict run some/dir` gives a root relative to verdict's directory; tsc runs inside it, so
/// its program and working directory must not be relative to anything.
#[tokio::test]
async fn relative_workspace_root_still_finds_tsc() {
    let fixture = fixture("failing", true);
    let cwd = std::env::current_dir().expect("the current directory");
    let from: Vec<_> = cwd.components().collect();
    let target: Vec<_> = fixture.workspace.root.components().collect();
    let common = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut root = PathBuf::new();
    for _ in common..from.len() {
        root.push("..");
    }
    root.extend(&target[common..]);
    let workspace = Workspace::new(&root).with_run_dir(root.join(".verdict/runs/test"));
    let tsc = Tsc::default();
    let spec = tsc.command(&workspace).expect("the command");
    assert!(
        spec.program.is_absolute() && spec.cwd.is_absolute(),
        "{spec:?}"
    );
    let captured = runner()
        .run(&spec, &workspace.run_dir.join("tsc.log"))
        .await;
    check(&tsc.interpret(&spec, &captured), Outcome::Failed, FAILING);
}

#[test]
fn the_crate_registers_one_type_verifier_named_tsc() {
    let verifiers = verdict_tsc::verifiers();
    let named: Vec<(&str, Kind)> = verifiers.iter().map(|v| (v.name(), v.kind())).collect();
    assert_eq!(named, [("tsc", Kind::Type)]);
}

/// The layout `npm create vite` makes: a solution tsconfig.json referencing an app and a node
/// config that both set `noEmit`, built with `tsc -b`. A second run, with the build info of the
/// first on disk, still reports the errors (nothing is "up to date" while errors remain).
#[tokio::test]
async fn vite_style_solution_with_no_emit_references_is_checked_twice_alike() {
    let fixture = fixture("vite-solution", true);
    let tsc = Tsc::default();
    let expected = [
        ("src/main.ts", 1, "TS2322"),
        ("tools/config.ts", 1, "TS2322"),
    ];
    for _ in 0..2 {
        let (spec, captured, report) = run(&tsc, &fixture).await;
        assert_eq!(
            args(&spec),
            [
                "-b",
                "tsconfig.json",
                "--pretty",
                "false",
                "--diagnostics",
                "--verbose"
            ]
        );
        assert_eq!(captured.exit, Exit::Code { code: 1 });
        check(&report, Outcome::Failed, &expected);
    }
    assert!(
        fixture
            .workspace
            .path(".tmp/tsconfig.app.tsbuildinfo")
            .is_file()
    );
}

/// `"typecheck": "tsc --noEmit --noImplicitAny --pretty"`: the script's option makes an implicit
/// `any` an error that the tsconfig alone does not, so the verifier passes it on (and not
/// `--pretty`, whose output it does not read), and fails where `npm run typecheck` fails.
#[tokio::test]
async fn options_of_the_declared_type_check_are_passed_on() {
    let fixture = fixture("script-options", true);
    let (spec, _captured, report) = run(&Tsc::default(), &fixture).await;
    assert!(
        spec.args.iter().any(|a| a == "--noImplicitAny"),
        "{:?}",
        spec.args
    );
    assert_eq!(
        spec.args.iter().filter(|a| *a == "--pretty").count(),
        1,
        "{:?}",
        spec.args
    );
    check(&report, Outcome::Failed, &[("src/index.ts", 2, "TS7006")]);
}
