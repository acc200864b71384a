//! The pipeline's `--failed-first` flow with real processes: a narrowed re-run that cannot verify
//! (its filter matched no test) gives way to the full run instead of deciding the result.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use verdict_core::cache::Cache;
use verdict_core::model::{Diagnostic, Kind, Outcome, Report, Severity};
use verdict_core::pipeline::{self, Entry, Options};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Verifier, Workspace,
};

/// A test verifier whose full run is `sh run.sh` (exit 0 passes, 1 fails one test) and whose
/// re-run of the failures is `sh rerun.sh`; exit 5 means it ran no test.
struct Scripted {
    root: PathBuf,
}

impl Scripted {
    fn spec(&self, script: &str) -> CommandSpec {
        CommandSpec {
            program: PathBuf::from("sh"),
            args: vec![script.to_owned()],
            env: Default::default(),
            cwd: self.root.clone(),
            timeout: Duration::from_secs(30),
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1, 5],
            },
            output_files: Vec::new(),
        }
    }
}

impl Verifier for Scripted {
    fn name(&self) -> &str {
        "scripted"
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn applies(&self, _workspace: &Workspace) -> Applicability {
        Applicability::Applies("always".to_owned())
    }

    fn command(
        &self,
        _workspace: &Workspace,
    ) -> Result<CommandSpec, verdict_core::verifier::VerifierError> {
        Ok(self.spec("run.sh"))
    }

    fn interpret(&self, _spec: &CommandSpec, captured: &Captured) -> Report {
        match captured.exit {
            Exit::Code { code: 0 } => {
                let mut report = Report::new("scripted", Outcome::Passed);
                report.counts.tests_passed = Some(2);
                report
            }
            Exit::Code { code: 1 } => {
                let mut report = Report::new("scripted", Outcome::Failed);
                report.counts.tests_failed = Some(1);
                report.counts.tests_passed = Some(1);
                report.push(
                    Diagnostic::new("scripted", Kind::Test, Severity::Error, "boom")
                        .with_test("suite::flaky_name"),
                );
                report
            }
            _ => {
                let mut report = Report::new("scripted", Outcome::Errored);
                report.error = Some("ran no test".to_owned());
                report
            }
        }
    }

    fn rerun_failed(&self, _workspace: &Workspace, _previous: &Report) -> Option<CommandSpec> {
        Some(self.spec("rerun.sh"))
    }
}

async fn run(root: &Path, failed_first: bool) -> verdict_core::model::Verification {
    let workspace = Workspace::new(root).with_run_dir(root.join(".verdict/runs/r"));
    let entries = [Entry::new(Arc::new(Scripted {
        root: root.to_path_buf(),
    }))];
    let options = Options {
        jobs: 1,
        fail_fast: false,
        cache: Some(Cache::in_workspace(&workspace)),
        run_all: true,
        failed_first,
        interrupted: None,
    };
    let mut verifications = pipeline::run(
        &entries,
        &workspace,
        Arc::new(ProcessRunner::new()),
        &options,
        &mut |_| {},
    )
    .await
    .expect("the pipeline runs");
    verifications.remove(0)
}

#[tokio::test]
async fn a_rerun_that_ran_no_test_gives_way_to_the_full_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(root.join("run.sh"), "exit 1\n").expect("writes");
    std::fs::write(root.join("rerun.sh"), "exit 5\n").expect("writes");
    let first = run(root, false).await;
    assert_eq!(first.report.outcome, Outcome::Failed, "{first:?}");

    // The failing test was renamed: its filter now matches nothing, and the full run passes.
    std::fs::write(root.join("run.sh"), "exit 0\n").expect("writes");
    let again = run(root, true).await;
    assert_eq!(again.report.outcome, Outcome::Passed, "{again:?}");
    assert_eq!(again.report.counts.tests_passed, Some(2));
    let notes = again.notes.join("; ");
    assert!(
        notes.contains("re-ran 1 failed test first, but that run could not verify")
            && notes.contains("ran in full"),
        "{notes}"
    );

    // A re-run that still fails decides, and the full run is skipped.
    std::fs::write(root.join("run.sh"), "exit 1\n").expect("writes");
    assert_eq!(run(root, false).await.report.outcome, Outcome::Failed);
    std::fs::write(root.join("rerun.sh"), "exit 1\n").expect("writes");
    std::fs::write(root.join("run.sh"), "exit 0\n").expect("writes");
    let still = run(root, true).await;
    assert_eq!(still.report.outcome, Outcome::Failed, "{still:?}");
    assert!(
        still.notes.join("; ").contains("they still fail"),
        "{still:?}"
    );
}
