//! Custom verifiers in verdict's pipeline: its reconciliation of exit codes with reports agrees
//! with the verifier's own judgement, and `needs` orders custom verifiers like any other.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use verdict_core::Verifier;
use verdict_core::model::{Outcome, Status};
use verdict_core::pipeline::{self, Entry, Options};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{Runner, Workspace};
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

const GCC_PATTERN: &str = r#"
[[pattern]]
regex = '^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): (?P<message>.*?)(?: \[(?P<code>[^\]]+)\])?$'
"#;

fn gcc(command: &str, extra: &str) -> String {
    format!("name = \"cc\"\nkind = \"build\"\ncommand = {command}\n{extra}\n{GCC_PATTERN}")
}

/// For every way a run can end, the verifier's outcome and the pipeline's reconciliation agree.
#[tokio::test]
async fn the_pipeline_agrees_with_the_verifier() {
    let dir = project(&[]);
    let cases = [
        ("echo 'a.c:1:1: error: e'; exit 1", "", Outcome::Failed),
        ("echo 'a.c:1:1: warning: w'; exit 0", "", Outcome::Passed),
        ("echo 'a.c:1:1: warning: w'; exit 1", "", Outcome::Failed),
        ("echo 'a.c:1:1: error: e'; exit 0", "", Outcome::Errored),
        ("echo crashed; exit 1", "", Outcome::Errored),
        ("echo 'a.c:1:1: error: e'; exit 7", "", Outcome::Errored),
        ("kill -9 $$", "", Outcome::Errored),
        ("sleep 20", "timeout = 1", Outcome::Errored),
    ];
    for (script, extra, expect) in cases {
        let verifier = verifier(
            dir.path(),
            &gcc(&format!("[\"sh\", \"-c\", {script:?}]"), extra),
        );
        let workspace = Workspace::new(dir.path());
        let spec = verifier.command(&workspace).expect("a command");
        let log = workspace.run_dir.join("cc.log");
        let captured = ProcessRunner::new().run(&spec, &log).await;
        let report = verifier.interpret(&spec, &captured);
        assert_eq!(report.outcome, expect, "{script}: {report:?}");
        let reconciled =
            pipeline::reconcile(report.clone(), &spec, &captured, verifier.kind(), false);
        assert_eq!(reconciled.outcome, expect, "{script}: {reconciled:?}");
    }
}

/// Two custom verifiers in the pipeline: `lint` needs `build`, which fails, so `lint` is skipped
/// and never runs (its script would leave a marker file).
#[tokio::test]
async fn custom_verifiers_run_in_the_pipeline_with_needs() {
    let dir = project(&[
        (
            "build.sh",
            "#!/bin/sh\necho 'src/main.c:7:3: error: expected ; [-Wsyntax]'\nexit 1\n",
        ),
        ("lint.sh", "#!/bin/sh\ntouch lint-ran\nexit 0\n"),
        ("ok.sh", "#!/bin/sh\necho fine\nexit 0\n"),
    ]);
    let root = dir.path();
    let entry = |definition: &str, needs: &[&str]| {
        let mut entry = Entry::new(Arc::new(verifier(root, definition)));
        entry.needs = needs.iter().map(|n| (*n).to_owned()).collect();
        entry
    };
    let entries = vec![
        entry(&gcc(r#"["./build.sh"]"#, ""), &[]),
        entry(
            "name = \"lint\"\nkind = \"lint\"\ncommand = [\"./lint.sh\"]",
            &["cc"],
        ),
        entry(
            "name = \"other\"\nkind = \"other\"\ncommand = [\"./ok.sh\"]",
            &[],
        ),
    ];
    let workspace = Workspace::new(root).with_run_dir(root.join(".verdict/runs/test"));
    let runner: Arc<dyn Runner> = Arc::new(ProcessRunner::new());
    let verifications = pipeline::run(
        &entries,
        &workspace,
        runner,
        &Options::default(),
        &mut |_| {},
    )
    .await
    .expect("a valid pipeline");
    let by_name = |name: &str| {
        verifications
            .iter()
            .find(|v| v.verifier == name)
            .unwrap_or_else(|| panic!("{name} is in the run"))
    };
    let cc = by_name("cc");
    assert_eq!((cc.status, cc.outcome()), (Status::Ran, Outcome::Failed));
    assert_eq!(cc.report.diagnostics[0].code.as_deref(), Some("-Wsyntax"));
    let log = cc.log.as_deref().expect("a log");
    assert!(
        root.join(log).is_file() || PathBuf::from(log).is_file(),
        "{log}"
    );
    let lint = by_name("lint");
    assert_eq!(
        (lint.status, lint.outcome()),
        (Status::Skipped, Outcome::Errored)
    );
    assert!(
        !root.join("lint-ran").exists(),
        "lint ran although cc failed"
    );
    let other = by_name("other");
    assert_eq!(
        (other.status, other.outcome()),
        (Status::Ran, Outcome::Passed)
    );
}

/// A custom verifier with `inputs` is skipped while they are unchanged since it passed, and runs
/// again when one changes (or when verdict.toml does).
#[tokio::test]
async fn inputs_make_a_passing_custom_verifier_cacheable() {
    let dir = project(&[
        ("src/a.c", "int main(void) { return 0; }\n"),
        ("check.sh", "#!/bin/sh\necho checked >> runs.txt\nexit 0\n"),
        ("verdict.toml", "# the definition lives here\n"),
    ]);
    let root = dir.path();
    let entries = vec![Entry::new(Arc::new(verifier(
        root,
        "name = \"check\"\nkind = \"lint\"\ncommand = [\"./check.sh\"]\ninputs = [\"src/**/*.c\"]",
    )))];
    let run = |n: u32| {
        let entries = &entries;
        async move {
            let workspace =
                Workspace::new(root).with_run_dir(root.join(format!(".verdict/runs/{n}")));
            let options = Options {
                cache: Some(verdict_core::cache::Cache::open(
                    root.join(".verdict/cache"),
                )),
                ..Options::default()
            };
            let runner: Arc<dyn Runner> = Arc::new(ProcessRunner::new());
            let verifications = pipeline::run(entries, &workspace, runner, &options, &mut |_| {})
                .await
                .expect("a valid pipeline");
            (verifications[0].status, verifications[0].outcome())
        }
    };
    let runs = || {
        std::fs::read_to_string(root.join("runs.txt"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    assert_eq!(run(1).await, (Status::Ran, Outcome::Passed));
    assert_eq!(run(2).await, (Status::Cached, Outcome::Passed));
    assert_eq!(runs(), 1);
    std::fs::write(root.join("src/a.c"), "int main(void) { return 1; }\n").expect("edit");
    assert_eq!(run(3).await, (Status::Ran, Outcome::Passed));
    assert_eq!(runs(), 2);
    std::fs::write(root.join("verdict.toml"), "# edited\n").expect("edit");
    assert_eq!(run(4).await, (Status::Ran, Outcome::Passed));
    assert_eq!(run(5).await, (Status::Cached, Outcome::Passed));
    assert_eq!(runs(), 3);
}
