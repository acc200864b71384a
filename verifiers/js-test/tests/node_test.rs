//! The `node-test` verifier run for real, with the `node` on `PATH` (Node.js 20 or later), on the
//! fixture projects `tests/fixtures/node-test-*`: a passing project whose script names its files
//! with a glob the shell expands, a failing one (failures at the top level and in a `describe`, a
//! thrown error, skipped and todo tests), and one whose test file aborts its process.
//!
//! The ground truth is the JUnit report node writes in the same run, read here on its own; and
//! each project's own `test` script, run as npm runs it (`sh -c`), must agree with the verifier
//! on pass or fail.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use tempfile::TempDir;
use verdict_core::pipeline::{self, Entry, Options};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Runner, Workspace,
};
use verdict_core::{Kind, Outcome, Report, Verifier};
use verdict_js_test::NodeTest;
use verdict_test_support::copy_dir;

/// A copy of `fixtures/<name>` in a temporary directory, and its workspace.
fn project(name: &str) -> (TempDir, Workspace) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    assert!(source.is_dir(), "no fixture {}", source.display());
    assert!(
        verdict_verifier_support::on_path("node").is_some(),
        "node is missing: install Node.js 20 or later"
    );
    let dir = tempfile::Builder::new()
        .prefix("verdict-node-test-")
        .tempdir()
        .expect("a temporary directory");
    copy_dir(&source, dir.path());
    let workspace = Workspace::new(dir.path()).with_run_dir(dir.path().join(".verdict/runs/test"));
    std::fs::create_dir_all(&workspace.run_dir).expect("create the run directory");
    (dir, workspace)
}

/// What one run gave.
struct Run {
    spec: CommandSpec,
    captured: Captured,
    report: Report,
}

async fn run_spec(workspace: &Workspace, spec: CommandSpec, log: &str) -> Run {
    let captured = ProcessRunner::new()
        .run(&spec, &workspace.run_dir.join(log))
        .await;
    let report = NodeTest::default().interpret(&spec, &captured);
    Run {
        spec,
        captured,
        report,
    }
}

async fn run(workspace: &Workspace) -> Run {
    let spec = NodeTest::default()
        .command(workspace)
        .expect("the command can be built");
    run_spec(workspace, spec, "node-test.log").await
}

fn code(captured: &Captured) -> Option<i32> {
    match captured.exit {
        Exit::Code { code } => Some(code),
        _ => None,
    }
}

/// Whether the project's own `test` script passes, run as npm runs it.
async fn project_passes(workspace: &Workspace) -> bool {
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace.path("package.json")).expect("package.json"),
    )
    .expect("valid JSON");
    let script = package["scripts"]["test"].as_str().expect("a test script");
    let spec = CommandSpec {
        program: "sh".into(),
        args: vec!["-c".to_owned(), script.to_owned()],
        env: BTreeMap::new(),
        cwd: workspace.root.clone(),
        timeout: std::time::Duration::from_secs(120),
        exit_codes: ExitCodes {
            pass: vec![0],
            fail: vec![1],
        },
        output_files: Vec::new(),
    };
    let captured = ProcessRunner::new()
        .run(&spec, &workspace.run_dir.join("npm-test.log"))
        .await;
    code(&captured) == Some(0)
}

/// node's JUnit report, read on its own: each case's full name (suite names and its own, joined
/// with ` > `) and whether it failed, and the counts of its closing comments.
struct Truth {
    failing: Vec<String>,
    counts: BTreeMap<String, u64>,
}

fn attr(tag: &str, name: &str) -> String {
    let key = format!(" {name}=\"");
    tag.find(&key)
        .map(|at| &tag[at + key.len()..])
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("")
        .replace("&apos;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn read_truth(xml: &[u8], root: &Path) -> Truth {
    let xml = String::from_utf8_lossy(xml);
    let mut suites: Vec<String> = Vec::new();
    let mut failing = Vec::new();
    let mut open_case: Option<String> = None;
    for piece in xml.split('<').skip(1) {
        let tag = piece.split('>').next().unwrap_or("");
        if tag.starts_with("testsuite ") {
            suites.push(attr(tag, "name"));
        } else if tag == "/testsuite" {
            suites.pop();
        } else if tag.starts_with("testcase ") {
            let mut name = suites.clone();
            name.push(attr(tag, "name"));
            open_case = (!tag.ends_with('/')).then(|| name.join(" > "));
        } else if tag.starts_with("failure") {
            failing.extend(open_case.take());
        }
    }
    let counts = xml
        .split("<!-- ")
        .skip(1)
        .filter_map(|comment| {
            let (key, value) = comment.split(" -->").next()?.split_once(' ')?;
            Some((key.to_owned(), value.parse().ok()?))
        })
        .collect();
    let root = format!("{}/", root.display());
    let failing = failing
        .into_iter()
        .map(|name: String| name.strip_prefix(&root).unwrap_or(&name).to_owned())
        .collect();
    Truth { failing, counts }
}

fn failing(report: &Report) -> Vec<String> {
    let mut names: Vec<String> = report
        .diagnostics
        .iter()
        .filter(|d| d.kind == Kind::Test)
        .filter_map(|d| d.test.clone())
        .collect();
    names.sort();
    names
}

/// The report agrees with node's JUnit report of the same run: the failing tests by name, and
/// the counts.
fn check_against_junit(run: &Run, root: &Path) -> Truth {
    let xml = run.captured.output_files[0]
        .as_deref()
        .expect("node wrote its JUnit report");
    let truth = read_truth(xml, root);
    let mut expected = truth.failing.clone();
    expected.sort();
    assert_eq!(failing(&run.report), expected, "{:#?}", run.report);
    let counts = &run.report.counts;
    assert_eq!(counts.tests_failed.unwrap_or(0), truth.counts["fail"]);
    assert_eq!(counts.tests_passed, Some(truth.counts["pass"]));
    assert_eq!(
        counts.tests_skipped.unwrap_or(0),
        truth.counts["skipped"] + truth.counts["todo"]
    );
    truth
}

#[tokio::test]
async fn a_passing_project_passes_with_its_scripts_files_only() {
    let (_dir, workspace) = project("node-test-passing");
    match NodeTest::default().applies(&workspace) {
        Applicability::Applies(why) => assert!(why.contains("`test` script"), "{why}"),
        other => panic!("{other:?}"),
    }
    let run = run(&workspace).await;
    // The unquoted glob expanded as the shell would: helper.js is no test file.
    assert_eq!(
        run.spec.args[run.spec.args.len() - 2..],
        ["test/async.test.js", "test/math.test.js"]
    );
    assert_eq!(code(&run.captured), Some(0), "{:#?}", run.report);
    assert_eq!(run.report.outcome, Outcome::Passed, "{:#?}", run.report);
    let truth = check_against_junit(&run, &workspace.root);
    assert_eq!(truth.counts["pass"], 3);
    assert!(project_passes(&workspace).await);
    // The cache hashes every project file and the node that ran them.
    let inputs = NodeTest::default()
        .inputs(&workspace)
        .expect("inputs with node on PATH");
    assert!(inputs.globs.contains(&"*".to_owned()));
    let node = verdict_verifier_support::on_path("node").expect("node");
    let node = std::fs::canonicalize(&node).unwrap_or(node);
    assert!(inputs.tool_files.contains(&node), "{:?}", inputs.tool_files);
}

#[tokio::test]
async fn failing_tests_are_those_of_nodes_junit_report_and_rerun_by_name() {
    let (_dir, workspace) = project("node-test-failing");
    let run = run(&workspace).await;
    assert_eq!(code(&run.captured), Some(1));
    assert_eq!(run.report.outcome, Outcome::Failed, "{:#?}", run.report);
    let truth = check_against_junit(&run, &workspace.root);
    assert_eq!(
        truth.failing,
        [
            "adds wrong",
            "strings > uppercases wrong",
            "throws an error"
        ]
    );
    assert!(!project_passes(&workspace).await);
    let wrong = run
        .report
        .diagnostics
        .iter()
        .find(|d| d.test.as_deref() == Some("adds wrong"))
        .expect("adds wrong");
    assert!(wrong.message.contains("4 !== 5"), "{wrong:?}");
    // Where the assertion failed, from the stack node reports.
    assert_eq!(
        (wrong.file.as_deref(), wrong.line),
        (Some("test/math.test.js"), Some(9))
    );

    // Without the JUnit report (an older node, a report cut short), the log alone still fails
    // the run with the same failures, by their own names.
    let mut log_only = run.captured.clone();
    log_only.output_files = vec![None];
    let from_log = NodeTest::default().interpret(&run.spec, &log_only);
    assert_eq!(from_log.outcome, Outcome::Failed, "{from_log:#?}");
    assert_eq!(from_log.counts.tests_failed, run.report.counts.tests_failed);
    assert_eq!(
        failing(&from_log),
        ["adds wrong", "throws an error", "uppercases wrong"]
    );

    // The re-run selects the three failing tests by name, and nothing else runs.
    let rerun = NodeTest::default()
        .rerun_failed(&workspace, &run.report)
        .expect("a re-run");
    assert!(
        rerun
            .args
            .iter()
            .any(|a| a.starts_with("--test-name-pattern=")),
        "{:?}",
        rerun.args
    );
    let again = run_spec(&workspace, rerun, "node-test-rerun.log").await;
    assert_eq!(failing(&again.report), failing(&run.report));
    assert_eq!(
        again.report.counts.tests_passed,
        Some(0),
        "{:#?}",
        again.report
    );
}

#[tokio::test]
async fn a_test_file_that_aborts_is_a_failure_named_by_its_file() {
    let (_dir, workspace) = project("node-test-crash");
    let run = run(&workspace).await;
    assert_eq!(code(&run.captured), Some(1));
    assert_eq!(run.report.outcome, Outcome::Failed, "{:#?}", run.report);
    let truth = check_against_junit(&run, &workspace.root);
    assert_eq!(truth.failing, ["test/crash.test.js"]);
    let crash = &run.report.diagnostics[0];
    assert_eq!(crash.file.as_deref(), Some("test/crash.test.js"));
    assert!(crash.message.contains("SIGABRT"), "{crash:?}");
    assert!(!project_passes(&workspace).await);
    // Its re-run runs the crashed file whole.
    let rerun = NodeTest::default()
        .rerun_failed(&workspace, &run.report)
        .expect("a re-run");
    assert_eq!(
        rerun.args.last().map(String::as_str),
        Some("test/crash.test.js")
    );
    assert!(
        !rerun
            .args
            .iter()
            .any(|a| a.starts_with("--test-name-pattern"))
    );
}

#[tokio::test]
async fn no_junit_report_and_an_unreadable_log_is_never_a_pass() {
    let (_dir, workspace) = project("node-test-passing");
    // A node that fails before it runs anything (an unknown option): exit 9, no report.
    let mut spec = NodeTest::default()
        .command(&workspace)
        .expect("the command can be built");
    spec.args.insert(1, "--no-such-option".to_owned());
    let run = run_spec(&workspace, spec, "node-test-bad.log").await;
    assert_eq!(run.captured.output_files, [None]);
    assert_eq!(run.report.outcome, Outcome::Errored, "{:#?}", run.report);
}

#[tokio::test]
async fn the_pipeline_agrees_with_the_projects_own_test_script() {
    for (name, outcome) in [
        ("node-test-passing", Outcome::Passed),
        ("node-test-failing", Outcome::Failed),
        ("node-test-crash", Outcome::Failed),
    ] {
        let (_dir, workspace) = project(name);
        let entries = vec![Entry::new(Arc::new(NodeTest::default()))];
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
        assert_eq!(
            verifications[0].outcome(),
            outcome,
            "{name}: {:#?}",
            verifications[0]
        );
        assert_eq!(
            project_passes(&workspace).await,
            outcome == Outcome::Passed,
            "{name}"
        );
    }
}
