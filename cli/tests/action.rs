//! Tests of the GitHub Action (`action.yml` and its scripts under `action/`) and of the hooks of
//! the pre-commit framework (`.pre-commit-hooks.yaml`), issue 27 items 5 and 6.
//!
//! The checkers are the real ones, pinned in `xtask/tools/action/requirements.txt` and installed
//! by `cargo xtask tools` into `action-venv`: actionlint lints the repository's workflows (and a
//! `uses: ./` step's inputs against `action.yml`), pre-commit validates the manifest and runs the
//! `verdict-system` hook in a real repository. The action's scripts run as GitHub runs them: the
//! environment variables `action.yml` maps the inputs to, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`
//! and `RUNNER_TEMP` as files, and this build's `verdict` as `verdict-path`.

use crate::support::project::{Out, Project, git_in as git, path_with_node, repo};

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// `name` in the venv of actionlint and pre-commit, which must be installed.
fn checker(name: &str) -> PathBuf {
    verdict_test_support::tool(&format!("action-venv/bin/{name}"))
}

/// Runs `command` to its end and keeps what it printed.
fn finish(command: &mut Command) -> Out {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?} does not start: {e}"));
    Out {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// actionlint on `files` from `root`, one error a line, with the pinned shellcheck for the
/// `run:` scripts; pyflakes is left out (no workflow runs Python inline), so the result does not
/// depend on what else the machine has installed.
fn actionlint(root: &Path, files: &[PathBuf]) -> Out {
    let shellcheck = format!("-shellcheck={}", checker("shellcheck").display());
    finish(
        Command::new(checker("actionlint"))
            .args(["-no-color", "-oneline", "-pyflakes="])
            .arg(shellcheck)
            .args(files)
            .current_dir(root),
    )
}

#[test]
fn the_repository_workflows_pass_actionlint() {
    let root = repo();
    let mut files: Vec<PathBuf> = fs::read_dir(root.join(".github/workflows"))
        .expect(".github/workflows exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    assert!(
        files.iter().any(|f| f.ends_with("verdict.yml")),
        "{files:?}"
    );
    let out = actionlint(&root, &files);
    assert_eq!(out.code, 0, "actionlint found problems:\n{}", out.all());
    assert_eq!(out.stdout, "", "{}", out.all());
}

/// actionlint on `workflows` (file name, text) in a temporary repository holding a copy of
/// `action.yml` at its root, where their `uses: ./` steps find it.
fn lint_beside_the_action(workflows: &[(String, String)]) -> Out {
    let dir = tempfile::tempdir().expect("a temporary directory");
    fs::copy(repo().join("action.yml"), dir.path().join("action.yml")).expect("copy action.yml");
    let folder = dir.path().join(".github/workflows");
    fs::create_dir_all(&folder).expect("create .github/workflows");
    let files: Vec<PathBuf> = workflows
        .iter()
        .map(|(name, text)| {
            let file = folder.join(name);
            fs::write(&file, text).expect("write a workflow");
            file
        })
        .collect();
    git(dir.path(), &["init", "-q", "."]);
    actionlint(dir.path(), &files)
}

#[test]
fn the_action_scripts_pass_shellcheck() {
    let scripts = ["action/install.sh", "action/run.sh"].map(|s| repo().join(s));
    let out = finish(
        Command::new(checker("shellcheck"))
            .args(["--shell=bash", "--external-sources"])
            .args(&scripts),
    );
    assert_eq!(out.code, 0, "shellcheck found problems:\n{}", out.all());
}

#[test]
fn actionlint_reports_a_misspelled_input_of_the_action() {
    let workflow = "on: push\njobs:\n  verdict:\n    runs-on: ubuntu-latest\n    steps:\n      \
                    - uses: actions/checkout@v5\n      - uses: ./\n        with:\n          \
                    budgt: \"300\"\n";
    let out = lint_beside_the_action(&[("typo.yml".to_owned(), workflow.to_owned())]);
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(
        out.stdout
            .contains(r#"input "budgt" is not defined in action"#),
        "{}",
        out.all()
    );
}

/// The workflows of `docs/ci.md` pass actionlint, their steps that use the action checked
/// against `action.yml` (as `uses: ./`).
#[test]
fn the_workflows_in_the_ci_docs_pass_actionlint() {
    let docs = fs::read_to_string(repo().join("docs/ci.md")).expect("read docs/ci.md");
    let workflows: Vec<(String, String)> = docs
        .split("```yaml\n")
        .skip(1)
        .filter_map(|block| block.split_once("```").map(|(yaml, _)| yaml))
        .filter(|yaml| yaml.contains("\njobs:") && yaml.contains("runs-on:"))
        .enumerate()
        .map(|(i, yaml)| {
            let local = yaml.replace("uses: verdict-dev/verdict@v0", "uses: ./");
            (format!("docs-{i}.yml"), local)
        })
        .collect();
    let with_action = workflows
        .iter()
        .filter(|(_, y)| y.contains("uses: ./"))
        .count();
    assert!(
        workflows.len() >= 3 && with_action >= 3,
        "docs/ci.md has {} workflows, {with_action} using the action",
        workflows.len()
    );
    let out = lint_beside_the_action(&workflows);
    assert_eq!(out.code, 0, "actionlint found problems:\n{}", out.all());
}

#[test]
fn the_install_step_refuses_what_it_cannot_use() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let output = dir.path().join("output");
    fs::write(&output, "").expect("create GITHUB_OUTPUT");
    let install = |env: &[(&str, &str)]| {
        finish(
            Command::new("bash")
                .arg(repo().join("action/install.sh"))
                .current_dir(dir.path())
                .env("GITHUB_ACTION_PATH", repo())
                .env("GITHUB_OUTPUT", &output)
                .env("RUNNER_TEMP", dir.path())
                .envs(env.iter().copied()),
        )
    };
    let out = install(&[("INPUT_VERDICT_PATH", "/nowhere/verdict")]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(
        out.stdout
            .contains("/nowhere/verdict is not an executable file"),
        "{}",
        out.all()
    );
    let out = install(&[
        ("INPUT_VERDICT_PATH", ""),
        ("INPUT_VERSION", "1.0 $(touch pwned)"),
    ]);
    assert_eq!(out.code, 2, "{}", out.all());
    assert!(out.stdout.contains("is not a version"), "{}", out.all());
    assert!(
        !dir.path().join("pwned").exists(),
        "an input ran as a command"
    );
    assert!(
        !dir.path().join("verdict-venv").exists(),
        "nothing is installed"
    );
    assert_eq!(fs::read_to_string(&output).expect("read GITHUB_OUTPUT"), "");
}

/// What one use of the action did: the run step's exit code and log, and the files GitHub
/// gives its steps.
struct ActionRun {
    code: i32,
    log: String,
    output: String,
    summary: String,
    runner: tempfile::TempDir,
}

impl ActionRun {
    /// The value of `name` the run step wrote to `$GITHUB_OUTPUT`.
    fn output(&self, name: &str) -> &str {
        let prefix = format!("{name}=");
        self.output
            .lines()
            .rev()
            .find_map(|line| line.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no {name} in GITHUB_OUTPUT:\n{}", self.output))
    }

    /// The SARIF report the step named in `sarif-file`.
    fn sarif(&self) -> Value {
        let path = self.output("sarif-file");
        assert!(
            Path::new(path).starts_with(self.runner.path()),
            "{path} is not under RUNNER_TEMP"
        );
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not JSON ({e})"))
    }
}

/// The environment variable `action.yml` sets to `${{ inputs.<input> }}` in a step: the script
/// is run with the names the YAML really passes.
fn input_variable(action: &str, input: &str) -> String {
    let value = format!(": ${{{{ inputs.{input} }}}}");
    action
        .lines()
        .filter_map(|line| line.trim().strip_suffix(value.as_str()))
        .find(|name| name.starts_with("INPUT_"))
        .unwrap_or_else(|| panic!("action.yml passes no input {input} to a step"))
        .to_owned()
}

/// Runs the action's two steps in `project` as GitHub would, with `inputs` (by their names in
/// `action.yml`) and `verdict-path` set to this build's `verdict`.
fn run_action(project: &Project, inputs: &[(&str, &str)]) -> ActionRun {
    let action = fs::read_to_string(repo().join("action.yml")).expect("read action.yml");
    let runner = tempfile::tempdir().expect("a temporary directory");
    let temp = runner.path().join("temp");
    fs::create_dir(&temp).expect("create RUNNER_TEMP");
    let files = ["install-output", "output", "summary"].map(|f| runner.path().join(f));
    for file in &files {
        fs::write(file, "").expect("create a file of the runner");
    }
    let binary = assert_cmd::cargo::cargo_bin!("verdict");
    // The steps as action.yml writes them: each script, and the install step's output passed on.
    assert!(action.contains("VERDICT: ${{ steps.install.outputs.verdict }}"));
    let step = |script: &str, github_output: &Path, env: &[(String, String)]| {
        let run = format!("run: bash \"$GITHUB_ACTION_PATH/action/{script}\"");
        assert!(action.contains(&run), "action.yml has no step `{run}`");
        let mut command = Command::new("bash");
        command
            .arg(repo().join("action").join(script))
            .current_dir(project.root())
            .env("PATH", path_with_node())
            .env("VERDICT_STATE_DIR", ".verdict")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION_PATH", repo())
            .env("GITHUB_OUTPUT", github_output)
            .env("GITHUB_STEP_SUMMARY", &files[2])
            .env("RUNNER_TEMP", &temp)
            .env_remove("NO_COLOR")
            .envs(env.iter().map(|(k, v)| (k, v)));
        finish(&mut command)
    };
    let path = binary.to_string_lossy().into_owned();
    let install = step(
        "install.sh",
        &files[0],
        &[(input_variable(&action, "verdict-path"), path.clone())],
    );
    assert_eq!(
        install.code,
        0,
        "the install step failed:\n{}",
        install.all()
    );
    let installed = fs::read_to_string(&files[0]).expect("read the install step's output");
    assert_eq!(installed, format!("verdict={path}\n"));
    let mut env = vec![("VERDICT".to_owned(), path)];
    env.extend(
        inputs
            .iter()
            .map(|(name, value)| (input_variable(&action, name), (*value).to_owned())),
    );
    let run = step("run.sh", &files[1], &env);
    ActionRun {
        code: run.code,
        log: run.all(),
        output: fs::read_to_string(&files[1]).expect("read GITHUB_OUTPUT"),
        summary: fs::read_to_string(&files[2]).expect("read GITHUB_STEP_SUMMARY"),
        runner,
    }
}

/// The rule ids of a SARIF report's results, by run.
fn rule_ids(sarif: &Value) -> Vec<String> {
    let mut ids: Vec<String> = sarif["runs"]
        .as_array()
        .expect("SARIF runs")
        .iter()
        .flat_map(|run| run["results"].as_array().cloned().unwrap_or_default())
        .map(|result| result["ruleId"].as_str().unwrap_or("?").to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn the_action_on_the_failing_example_uploads_its_failures_and_fails() {
    let project = Project::polyglot();
    let run = run_action(&project, &[("formats", "junit=reports/junit.xml")]);
    assert_eq!(run.code, 1, "{}", run.log);
    assert_eq!(run.output("exit-code"), "1", "{}", run.output);
    assert_eq!(run.output("category"), "verdict", "{}", run.output);
    let ids = rule_ids(&run.sarif());
    for id in ["TS2322", "no-unused-vars"] {
        assert!(ids.iter().any(|i| i == id), "no {id} in the SARIF: {ids:?}");
    }
    assert!(
        ids.len() >= 5,
        "tsc's two, eslint's, jest's and pytest's: {ids:?}"
    );
    assert!(
        run.summary.contains("verdict: failures found") && run.summary.contains("TS2322"),
        "{}",
        run.summary
    );
    assert!(
        run.log.contains("::error file=src/cart.ts,line=13"),
        "no annotation in the log:\n{}",
        run.log
    );
    let junit = project.read("reports/junit.xml");
    assert!(junit.contains("<testsuites"), "{junit}");
}

#[test]
fn the_action_on_the_green_example_passes_with_its_inputs() {
    let project = Project::polyglot_green();
    let run = run_action(
        &project,
        &[
            ("only", "tsc,pytest"),
            ("shard", "1/2"),
            ("budget", "300"),
            (
                "formats",
                "json=reports/verdict.json\nmarkdown=reports/verdict.md",
            ),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.log);
    assert_eq!(run.output("exit-code"), "0", "{}", run.output);
    assert_eq!(run.output("category"), "verdict/shard-1-of-2");
    let report: Value =
        serde_json::from_str(&project.read("reports/verdict.json")).expect("a JSON report");
    let ran: Vec<&str> = report["verifications"]
        .as_array()
        .expect("verifications")
        .iter()
        .filter_map(|v| v["verifier"].as_str())
        .collect();
    assert_eq!(ran, ["tsc", "pytest"], "{report:#}");
    let sarif = run.sarif();
    let runs = sarif["runs"].as_array().expect("SARIF runs");
    assert_eq!(runs.len(), 2, "a run for tsc and one for pytest: {sarif:#}");
    for sarif_run in runs {
        let category = sarif_run["automationDetails"]["id"].as_str().unwrap_or("");
        assert!(
            category.starts_with("verdict-shard-1-of-2/"),
            "a shard's categories are its own: {category}"
        );
    }
    assert!(rule_ids(&sarif).is_empty(), "{sarif:#}");
    assert!(project.read("reports/verdict.md").contains("verdict"));
    assert!(!run.summary.is_empty(), "no job summary");
}

#[test]
fn inputs_reach_verdict_as_literal_arguments() {
    let project = Project::empty();
    project.write("keep", "still here\n");
    let run = run_action(&project, &[("only", "$(touch pwned)")]);
    assert_eq!(run.code, 2, "{}", run.log);
    assert!(
        run.log.contains("no verifier is called `$(touch pwned)`"),
        "{}",
        run.log
    );
    assert_eq!(run.output("exit-code"), "2");
    assert_eq!(run.output("sarif-file"), "", "verdict wrote no SARIF");

    let run = run_action(&project, &[("args", "; rm -rf keep `touch pwned` *")]);
    assert_eq!(run.code, 2, "{}", run.log);
    assert!(run.log.contains("unexpected argument ';'"), "{}", run.log);

    let run = run_action(&project, &[("strict", "$(touch pwned)")]);
    assert_eq!(run.code, 2, "{}", run.log);
    assert!(run.log.contains("is neither true nor false"), "{}", run.log);

    assert!(!project.path("pwned").exists(), "an input ran as a command");
    assert_eq!(project.read("keep"), "still here\n");
}

#[test]
fn the_hook_manifest_is_valid() {
    let manifest = repo().join(".pre-commit-hooks.yaml");
    let validate = |path: &Path| {
        finish(
            Command::new(checker("pre-commit"))
                .args(["validate-manifest"])
                .arg(path),
        )
    };
    let out = validate(&manifest);
    assert_eq!(out.code, 0, "{}", out.all());
    let text = fs::read_to_string(&manifest).expect("read the manifest");
    assert!(text.contains("language: python") && text.contains("language: system"));
    // The check can fail: a misspelled language is rejected.
    let broken = tempfile::tempdir().expect("a temporary directory");
    let copy = broken.path().join(".pre-commit-hooks.yaml");
    fs::write(&copy, text.replace("language: system", "language: sytem")).expect("write a copy");
    let out = validate(&copy);
    assert_ne!(out.code, 0, "a broken manifest passed:\n{}", out.all());
}

const FAILING_CALC: &str = "def add(a, b):\n    return a - b\n";
const FIXED_CALC: &str = "def add(a, b):\n    return a + b\n";
const TESTS: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n";

/// A git repository holding the hooks' manifest, as pre-commit clones it; returns its commit.
fn hooks_repository(dir: &Path) -> String {
    fs::create_dir_all(dir).expect("create the hooks repository");
    fs::copy(
        repo().join(".pre-commit-hooks.yaml"),
        dir.join(".pre-commit-hooks.yaml"),
    )
    .expect("copy the manifest");
    git(dir, &["init", "-q", "."]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "hooks"]);
    git(dir, &["rev-parse", "HEAD"]).trim().to_owned()
}

#[test]
fn the_pre_commit_hook_fails_a_failing_project_and_passes_a_green_one() {
    let outside = tempfile::tempdir().expect("a temporary directory");
    let hooks = outside.path().join("hooks");
    let rev = hooks_repository(&hooks);
    // verdict on PATH, as the `verdict-system` hook expects it.
    let bin = outside.path().join("bin");
    fs::create_dir(&bin).expect("create bin");
    std::os::unix::fs::symlink(
        assert_cmd::cargo::cargo_bin!("verdict"),
        bin.join("verdict"),
    )
    .expect("link verdict");

    let project = Project::empty();
    project.write("calc.py", FAILING_CALC);
    project.write("tests/test_calc.py", TESTS);
    project.write(
        "pytest.ini",
        "[pytest]\ntestpaths = tests\npythonpath = .\n",
    );
    project.write(".gitignore", ".venv\n.verdict/\n");
    project.write(
        ".pre-commit-config.yaml",
        &format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: verdict-system\n",
            hooks.display()
        ),
    );
    project.link_venv();
    project.git_init();
    project.git(&["add", "."]);

    let mut path = vec![bin];
    path.extend(std::env::split_paths(&path_with_node()));
    let pre_commit = || {
        finish(
            Command::new(checker("pre-commit"))
                .args(["run", "--all-files", "--color", "never"])
                .current_dir(project.root())
                .env("PATH", std::env::join_paths(&path).expect("a PATH"))
                .env("PRE_COMMIT_HOME", outside.path().join("cache"))
                .env("VERDICT_STATE_DIR", ".verdict")
                .env_remove("GITHUB_ACTIONS"),
        )
    };
    let out = pre_commit();
    assert_eq!(out.code, 1, "{}", out.all());
    assert!(
        out.stdout.contains("- hook id: verdict-system") && out.stdout.contains("test_add"),
        "{}",
        out.all()
    );

    project.write("calc.py", FIXED_CALC);
    project.git(&["add", "calc.py"]);
    let out = pre_commit();
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("Passed"), "{}", out.all());
}
