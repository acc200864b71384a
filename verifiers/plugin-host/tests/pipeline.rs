//! Plugin verifiers in verdict's pipeline, beside each other: the example `git-diff-check` finds
//! whitespace errors in a real repository, and a plugin that panics makes its verifier errored
//! without disturbing the other.

// Loading a library is unsafe (it runs the library's code); these tests load ones built here.
#![allow(unsafe_code)]

use crate::support;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use verdict_core::model::{Outcome, Status, overall};
use verdict_core::pipeline::{self, Entry, Options};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Verifier, Workspace};
use verdict_plugin_host::load;

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

fn verifiers(library: &Path) -> Vec<Arc<dyn Verifier>> {
    // SAFETY: the libraries these tests load are built from this repository.
    let plugin = unsafe { load(library) }.unwrap_or_else(|error| panic!("{error}"));
    plugin.verifiers().into_iter().map(Arc::from).collect()
}

#[tokio::test]
async fn plugin_verifiers_run_in_the_pipeline() {
    let libs = tempfile::tempdir().expect("temp dir");
    let mut entries: Vec<Entry> = verifiers(&support::example_plugin(libs.path()))
        .into_iter()
        .chain(verifiers(&support::panicking_plugin(libs.path())))
        .map(Entry::new)
        .collect();
    assert_eq!(entries.len(), 2);

    let repo = tempfile::tempdir().expect("temp dir");
    std::fs::write(repo.path().join("notes.md"), "# notes\n").expect("write");
    git(repo.path(), &["init", "-q"]);
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "start"]);
    std::fs::write(repo.path().join("notes.md"), "# notes \n\ttab\n").expect("write");

    let workspace =
        Workspace::new(repo.path()).with_run_dir(repo.path().join(".verdict/runs/plugin"));
    let runner = ProcessRunner::new()
        .with_env("GIT_CONFIG_GLOBAL", "/dev/null")
        .with_env("GIT_CONFIG_NOSYSTEM", "1");
    let mut events = 0;
    let verifications = pipeline::run(
        &entries,
        &workspace,
        Arc::new(runner.clone()),
        &Options::default(),
        &mut |_| events += 1,
    )
    .await
    .expect("the pipeline starts");
    assert!(events >= 3, "started and finished events: {events}");

    let [diff_check, panics] = verifications.as_slice() else {
        panic!("{verifications:?}")
    };
    assert_eq!(diff_check.verifier, "git-diff-check");
    assert_eq!(diff_check.status, Status::Ran);
    assert_eq!(diff_check.outcome(), Outcome::Failed, "{diff_check:?}");
    assert_eq!(diff_check.report.counts.errors, Some(1));
    let diagnostic = &diff_check.report.diagnostics[0];
    assert_eq!(diagnostic.location().as_deref(), Some("notes.md:1"));
    assert_eq!(diagnostic.code.as_deref(), Some("blank-at-eol"));
    let log = diff_check.log.as_deref().expect("a log");
    assert!(log.ends_with("git-diff-check.log"), "{log}");

    assert_eq!(panics.verifier, "panics");
    assert_eq!(panics.outcome(), Outcome::Errored, "{panics:?}");
    assert!(
        panics
            .report
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("command panicked on purpose"),
        "{panics:?}"
    );
    assert_eq!(overall(&verifications), Outcome::Errored);

    // Without the panicking plugin, and with the file fixed, the run passes.
    entries.truncate(1);
    std::fs::write(repo.path().join("notes.md"), "# notes\n\ttab\n").expect("write");
    let verifications = pipeline::run(
        &entries,
        &workspace,
        Arc::new(runner),
        &Options::default(),
        &mut |_| {},
    )
    .await
    .expect("the pipeline starts");
    assert_eq!(
        overall(&verifications),
        Outcome::Passed,
        "{verifications:?}"
    );
}
