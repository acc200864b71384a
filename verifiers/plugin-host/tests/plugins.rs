//! Loads real plugins: the example `git-diff-check` run for real on temporary git repositories
//! through `ProcessRunner`, a plugin whose functions panic, and misbehaving libraries that must each
//! fail to load with their own error.

// Loading a library is unsafe (it runs the library's code); these tests load ones built here.
#![allow(unsafe_code)]

use crate::support;

use std::path::Path;
use std::process::Command;

use verdict_core::model::{Kind, Outcome, Report};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Applicability, Runner, Verifier, VerifierError, Workspace};
use verdict_plugin_abi::wire::VerifierInfo;
use verdict_plugin_host::{LoadError, Plugin, load};

fn load_ok(path: &Path) -> Plugin {
    // SAFETY: the libraries these tests load are built from this repository.
    unsafe { load(path) }.unwrap_or_else(|error| panic!("{error}"))
}

fn load_err(path: &Path) -> LoadError {
    // SAFETY: as above; the raw fixtures misbehave only in the ways their features say.
    match unsafe { load(path) } {
        Ok(plugin) => panic!("{} loaded: {plugin:?}", path.display()),
        Err(error) => error,
    }
}

/// Runs git in `dir` for setting up a repository (the verifier's own git runs through the runner).
fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.name=verdict",
            "-c",
            "user.email=verdict@example.com",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("git starts");
    assert!(status.success(), "git {args:?} failed");
}

/// A repository with `clean.txt` and `src/lib.txt` committed.
fn repository(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::write(dir.join("clean.txt"), "one\ntwo\n").expect("write");
    std::fs::write(dir.join("src/lib.txt"), "fn a() {\n\tb();\n}\n").expect("write");
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "start"]);
}

/// Runs `verifier` on `root` the way the pipeline does: command, runner, interpret.
async fn run(verifier: &dyn Verifier, root: &Path) -> Report {
    let workspace = Workspace::new(root).with_run_dir(root.join(".verdict/runs/test"));
    std::fs::create_dir_all(&workspace.run_dir).expect("run dir");
    let runner = ProcessRunner::new()
        .with_env("GIT_CONFIG_GLOBAL", "/dev/null")
        .with_env("GIT_CONFIG_NOSYSTEM", "1");
    let spec = verifier.command(&workspace).expect("a command");
    let log = workspace.run_dir.join(format!("{}.log", verifier.name()));
    let captured = runner.run(&spec, &log).await;
    verifier.interpret(&spec, &captured)
}

/// One line per diagnostic: location, code, detail.
fn lines(report: &Report) -> Vec<String> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {}: {}",
                d.location().unwrap_or_default(),
                d.code.as_deref().unwrap_or("-"),
                d.message,
                d.detail.as_deref().unwrap_or("-"),
            )
        })
        .collect()
}

#[tokio::test]
async fn example_plugin_finds_whitespace_errors_in_a_real_repository() {
    let libs = tempfile::tempdir().expect("temp dir");
    let plugin = load_ok(&support::example_plugin(libs.path()));
    assert_eq!(plugin.abi_version(), 1);
    assert_eq!(
        plugin.describe(),
        [VerifierInfo {
            name: "git-diff-check".into(),
            kind: Kind::Lint
        }]
    );
    let verifiers = plugin.verifiers();
    let [verifier] = verifiers.as_slice() else {
        panic!("one verifier")
    };
    assert_eq!(
        (verifier.name(), verifier.kind()),
        ("git-diff-check", Kind::Lint)
    );

    let repo = tempfile::tempdir().expect("temp dir");
    repository(repo.path());
    let workspace = Workspace::new(repo.path());
    assert_eq!(
        verifier.applies(&workspace),
        Applicability::Applies(".git".into())
    );
    let spec = verifier.command(&workspace).expect("a command");
    assert_eq!(spec.program, Path::new("git"));
    assert!(spec.args.iter().any(|arg| arg == "--check"), "{spec:?}");
    assert_eq!(spec.cwd, repo.path());
    assert_eq!(spec.exit_codes.fail, [2]);
    assert_eq!(verifier.inputs(&workspace), None);
    assert_eq!(
        verifier.rerun_failed(&workspace, &Report::new("x", Outcome::Failed)),
        None
    );

    // Nothing changed since the commit: a pass.
    let report = run(&**verifier, repo.path()).await;
    assert_eq!(report.outcome, Outcome::Passed, "{report:?}");
    assert!(report.diagnostics.is_empty());

    // Three whitespace errors in two files.
    std::fs::write(repo.path().join("clean.txt"), "one  \ntwo\n\n").expect("write");
    std::fs::write(repo.path().join("src/lib.txt"), "fn a() {\n \tb();\n}\n").expect("write");
    let report = run(&**verifier, repo.path()).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:?}");
    assert_eq!(report.counts.errors, Some(3));
    assert_eq!(report.counts.files, Some(2));
    assert_eq!(
        report.summary.as_deref(),
        Some("3 whitespace errors in 2 files")
    );
    assert_eq!(
        lines(&report),
        [
            "clean.txt:1 blank-at-eol trailing whitespace: one··",
            "clean.txt:3 blank-at-eof new blank line at EOF: -",
            "src/lib.txt:2 space-before-tab space before tab in indent: ·→b();",
        ]
    );
    // The fingerprints were computed by the host and tell the diagnostics apart.
    assert_ne!(
        report.diagnostics[0].fingerprint,
        report.diagnostics[1].fingerprint
    );

    // The default `verify` goes through the same table functions.
    let log = repo.path().join("verify.log");
    let verified = verifier
        .verify(&workspace, &ProcessRunner::new(), &log)
        .await;
    assert_eq!(verified.outcome, Outcome::Failed);
    assert_eq!(verified.counts.errors, Some(3));
}

#[test]
fn a_plugin_verifier_is_called_from_many_threads_at_once() {
    let libs = tempfile::tempdir().expect("temp dir");
    let plugin = load_ok(&support::example_plugin(libs.path()));
    let verifier: std::sync::Arc<dyn Verifier> = plugin.verifiers().remove(0).into();
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let verifier = std::sync::Arc::clone(&verifier);
            std::thread::spawn(move || {
                let root = format!("/project-{i}");
                (0..50)
                    .map(|_| verifier.command(&Workspace::new(&root)).expect("a command"))
                    .all(|spec| spec.cwd == Path::new(&root))
            })
        })
        .collect();
    for thread in threads {
        assert!(thread.join().expect("no panic"));
    }
}

#[tokio::test]
async fn example_plugin_reports_git_errors_as_errored() {
    let libs = tempfile::tempdir().expect("temp dir");
    let plugin = load_ok(&support::example_plugin(libs.path()));
    let verifier = plugin.verifiers().remove(0);
    // A repository without a commit has no HEAD to compare with.
    let repo = tempfile::tempdir().expect("temp dir");
    git(repo.path(), &["init", "-q"]);
    std::fs::write(repo.path().join("a.txt"), "x  \n").expect("write");
    let report = run(&*verifier, repo.path()).await;
    assert_eq!(report.outcome, Outcome::Errored, "{report:?}");
    let error = report.error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with("git exited with code 128: fatal:") && error.contains("HEAD"),
        "{error}"
    );
}

#[tokio::test]
async fn example_plugin_without_git_is_errored() {
    let libs = tempfile::tempdir().expect("temp dir");
    let plugin = load_ok(&support::example_plugin(libs.path()));
    let verifier = plugin.verifiers().remove(0);
    let repo = tempfile::tempdir().expect("temp dir");
    let workspace = Workspace::new(repo.path());
    let mut spec = verifier.command(&workspace).expect("a command");
    spec.program = "verdict-no-such-git".into();
    let captured = ProcessRunner::new()
        .run(&spec, &repo.path().join("git.log"))
        .await;
    let report = verifier.interpret(&spec, &captured);
    assert_eq!(report.outcome, Outcome::Errored, "{report:?}");
    assert!(
        report
            .error
            .as_deref()
            .unwrap_or_default()
            .starts_with("failed to start git:"),
        "{report:?}"
    );
}

#[test]
fn panics_in_a_plugin_are_caught_and_reported() {
    let libs = tempfile::tempdir().expect("temp dir");
    let plugin = load_ok(&support::panicking_plugin(libs.path()));
    let verifier = plugin.verifiers().remove(0);
    assert_eq!((verifier.name(), verifier.kind()), ("panics", Kind::Custom));
    let workspace = Workspace::new(libs.path());

    match verifier.applies(&workspace) {
        Applicability::Applies(reason) => assert!(
            reason.starts_with("could not tell, running it: plugin ")
                && reason.contains(
                    "failed in `applies` of panics: the plugin panicked: applies panicked on purpose (at verifiers/plugin-host/tests/fixtures/panicking-plugin/src/lib.rs:"
                ),
            "{reason}"
        ),
        other => panic!("{other:?}"),
    }
    match verifier.command(&workspace) {
        Err(VerifierError::Project { tool, message }) => {
            assert_eq!(tool, "panics");
            assert!(
                message.contains("the plugin panicked: command panicked on purpose (at "),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let spec = verdict_core::verifier::CommandSpec {
        program: "true".into(),
        args: vec![],
        env: Default::default(),
        cwd: libs.path().to_path_buf(),
        timeout: std::time::Duration::from_secs(5),
        exit_codes: Default::default(),
        output_files: vec![],
    };
    let captured = verdict_core::verifier::Captured {
        exit: verdict_core::verifier::Exit::Code { code: 0 },
        log_path: libs.path().join("none.log"),
        log_bytes: 0,
        log_cut: 0,
        output_files: vec![],
        duration: std::time::Duration::ZERO,
    };
    // A panic with a `String` payload, caught: an errored report, never a pass.
    let report = verifier.interpret(&spec, &captured);
    assert_eq!(report.outcome, Outcome::Errored);
    assert!(
        report
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("the plugin panicked: interpret panicked on purpose (at "),
        "{report:?}"
    );
    // The plugin still works after panicking.
    assert!(matches!(
        verifier.command(&workspace),
        Err(VerifierError::Project { .. })
    ));
}

#[test]
fn a_file_that_is_not_a_library_fails_to_load_with_the_loader_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("libnot-a-plugin.so");
    std::fs::write(&path, "this is text, not a shared object\n").expect("write");
    match load_err(&path) {
        LoadError::Open { path: p, message } => {
            assert_eq!(p, path);
            // glibc says "invalid ELF header" or "file too short"; either names the file.
            assert!(message.contains("libnot-a-plugin.so"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match load_err(&dir.path().join("libmissing.so")) {
        LoadError::Open { message, .. } => {
            assert!(message.contains("No such file"), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_library_without_the_symbols_is_not_a_plugin() {
    // libm is on every glibc system and exports nothing of ours; a bare name is looked up on the
    // loader's search path.
    let error = load_err(Path::new("libm.so.6"));
    assert!(
        matches!(
            error,
            LoadError::MissingSymbol {
                symbol: "verdict_plugin_abi_version",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        error.to_string().starts_with(
            "libm.so.6 is not a verdict plugin: it has no symbol `verdict_plugin_abi_version`"
        ),
        "{error}"
    );

    let dir = tempfile::tempdir().expect("temp dir");
    let error = load_err(&support::raw_plugin("no-vtable", dir.path()));
    assert!(
        matches!(
            error,
            LoadError::MissingSymbol {
                symbol: "verdict_plugin_vtable",
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn a_wrong_abi_version_names_both_sides() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = support::raw_plugin("abi-2", dir.path());
    let error = load_err(&path);
    assert_eq!(
        error.to_string(),
        format!(
            "plugin {} speaks ABI 2, verdict accepts 1..=1",
            path.display()
        )
    );
    assert!(matches!(error, LoadError::WrongVersion { found: 2, .. }));
}

#[test]
fn a_table_smaller_than_the_abi_needs_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let error = load_err(&support::raw_plugin("small-vtable", dir.path()));
    match error {
        LoadError::VTableTooSmall {
            found,
            needed,
            version,
            ..
        } => {
            assert_eq!((found, version), (16, 1));
            assert_eq!(needed, verdict_plugin_abi::VTABLE_V1_SIZE);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_json_names_the_function() {
    let dir = tempfile::tempdir().expect("temp dir");
    let error = load_err(&support::raw_plugin("bad-json", dir.path()));
    assert!(
        matches!(
            error,
            LoadError::InvalidJson {
                function: "describe",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("returned invalid JSON from `describe`: expected value"),
        "{error}"
    );
}

#[test]
fn an_undefined_status_with_a_payload_that_is_not_json_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let error = load_err(&support::raw_plugin("bad-status", dir.path()));
    assert!(
        error
            .to_string()
            .contains("`describe` failed (status 7) with an error that is not JSON"),
        "{error}"
    );
}
