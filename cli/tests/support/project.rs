//! Projects `verdict` is run on in the end-to-end tests: a copy of a
//! fixture in a temporary directory, wired to the real tools `cargo xtask tools` installs, and the
//! `verdict` binary run inside it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

pub(crate) use verdict_test_support::{path_with_node, tools};

/// What a stop hook's answer tells the agent, whole: the block's `reason`, and after a blank line
/// the `hookSpecificOutput.additionalContext` Claude Code's answer gives what fails in.
pub(crate) fn hook_prompt(answer: &serde_json::Value) -> String {
    let reason = answer["reason"].as_str().unwrap_or_default();
    match answer["hookSpecificOutput"]["additionalContext"].as_str() {
        Some(details) => format!("{reason}\n\n{details}"),
        None => reason.to_owned(),
    }
}

/// The repository root.
pub(crate) fn repo() -> PathBuf {
    verdict_test_support::repo_root()
}

/// Runs git in `dir` with a fixed identity and returns what it printed; fails the test when git
/// fails.
pub(crate) fn git_in(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=verdict",
            "-c",
            "user.email=verdict@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git starts");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Directories a fixture copy leaves out: installs and what earlier runs left behind.
const NOT_COPIED: [&str; 5] = [
    "node_modules",
    ".venv",
    ".verdict",
    ".pytest_cache",
    "__pycache__",
];

fn copy_tree(from: &Path, to: &Path) {
    verdict_test_support::copy_dir_except(from, to, &NOT_COPIED);
}

/// What one `verdict` run did.
#[derive(Debug)]
pub(crate) struct Out {
    /// Its exit code (-1: killed).
    pub(crate) code: i32,
    /// stdout.
    pub(crate) stdout: String,
    /// stderr.
    pub(crate) stderr: String,
}

impl Out {
    /// stdout read as a JSON document.
    pub(crate) fn json(&self) -> serde_json::Value {
        let document = serde_json::from_str(&self.stdout).unwrap_or_else(|error| {
            panic!(
                "stdout is not JSON ({error}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        });
        super::schema::check_if_run_report(&document);
        document
    }

    /// Both streams, for failure messages.
    pub(crate) fn all(&self) -> String {
        format!(
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// A project in a temporary directory.
pub(crate) struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    /// An empty project.
    pub(crate) fn empty() -> Project {
        Project {
            dir: tempfile::Builder::new()
                .prefix("verdict-run-")
                .tempdir()
                .expect("a temporary directory"),
        }
    }

    /// A copy of `examples/polyglot` (tsc, eslint, jest and pytest, each with a deliberate
    /// failure) with the shared tools linked in, in a git repository.
    pub(crate) fn polyglot() -> Project {
        let project = Project::empty();
        copy_tree(&repo().join("examples/polyglot"), project.root());
        project.link_node_modules();
        project.link_venv();
        project.git_init();
        project
    }

    /// The polyglot example with its fixes (`xtask/bench/polyglot-green/`) laid over it.
    pub(crate) fn polyglot_green() -> Project {
        let project = Project::polyglot();
        copy_tree(&repo().join("xtask/bench/polyglot-green"), project.root());
        project
    }

    /// A copy of the fixture `cli/tests/run/<name>`.
    pub(crate) fn fixture(name: &str) -> Project {
        let project = Project::empty();
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/run")
            .join(name);
        assert!(from.is_dir(), "no fixture {}", from.display());
        copy_tree(&from, project.root());
        project
    }

    /// The project's root.
    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The snapshot filters of a run in this project: its root is `[PROJECT]`, durations and
    /// times are placeholders.
    pub(crate) fn filters(&self) -> verdict_test_support::Filters {
        verdict_test_support::filters().path(self.root(), "[PROJECT]")
    }

    /// `root/rel`.
    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Links `node_modules` to the shared install.
    pub(crate) fn link_node_modules(&self) {
        verdict_test_support::link_node_modules(self.root());
    }

    /// Links `.venv` to the shared Python environment.
    pub(crate) fn link_venv(&self) {
        verdict_test_support::link_venv(self.root());
    }

    /// Makes the project a git repository (with nothing committed).
    pub(crate) fn git_init(&self) {
        self.git(&["init", "-q", "."]);
    }

    /// Runs git in the project, with a fixed identity; fails the test when git fails.
    pub(crate) fn git(&self, args: &[&str]) {
        git_in(self.root(), args);
    }

    /// Writes `text` to `root/rel`, creating directories.
    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create a directory");
        }
        std::fs::write(&path, text).expect("write a project file");
    }

    /// The text of `root/rel`.
    pub(crate) fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"))
    }

    /// Runs `verdict ARGS` in the project, with the pinned Node first on PATH and none of the
    /// environment that changes verdict's output (CI variables, NO_COLOR).
    pub(crate) fn verdict(&self, args: &[&str]) -> Out {
        self.verdict_env(args, &[])
    }

    /// [`Project::verdict`] run in the subdirectory `rel`.
    pub(crate) fn verdict_in(&self, rel: &str, args: &[&str]) -> Out {
        self.verdict_at(&self.path(rel), args, &[])
    }

    /// [`Project::verdict`] with extra environment variables.
    pub(crate) fn verdict_env(&self, args: &[&str], env: &[(&str, &str)]) -> Out {
        self.verdict_at(self.root(), args, env)
    }

    fn verdict_at(&self, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
        let mut command = assert_cmd::cargo::cargo_bin_cmd!("verdict");
        command
            .env("VERDICT_STATE_DIR", ".verdict")
            .args(args)
            .current_dir(cwd)
            .env("PATH", path_with_node())
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("NO_COLOR")
            .env_remove("CI")
            .timeout(Duration::from_secs(150));
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.output().expect("verdict starts");
        let out = Out {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        assert!(
            !out.stderr.contains("panicked"),
            "verdict {args:?} panicked:\n{}",
            out.all()
        );
        assert!(
            matches!(out.code, 0..=2),
            "verdict {args:?} ended with {}, not 0, 1 or 2:\n{}",
            out.code,
            out.all()
        );
        self.check_config(&out);
        self.check_json_files(cwd, args);
        out
    }

    /// Every JSON report a run wrote to a file (`--format json=PATH`, or `--format json --output
    /// PATH`) matches the schema, like those read from stdout.
    fn check_json_files(&self, cwd: &Path, args: &[&str]) {
        let mut files = Vec::new();
        let mut json_on_stdout = false;
        let mut output = None;
        for pair in args.windows(2) {
            match pair {
                ["--format", "json"] => json_on_stdout = true,
                ["--format", spec] => files.extend(spec.strip_prefix("json=")),
                ["--output" | "-o", path] => output = Some(*path),
                _ => {}
            }
        }
        files.extend(output.filter(|_| json_on_stdout));
        for file in files.into_iter().filter(|f| *f != "-") {
            let Ok(text) = std::fs::read_to_string(cwd.join(file)) else {
                continue;
            };
            let document: serde_json::Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{file} is not JSON ({e}):\n{text}"));
            super::schema::check_if_run_report(&document);
        }
    }

    /// Every verdict.toml that verdict accepted matches the schema: a file the schema rejects
    /// must be one the run rejected too (its error names the file).
    fn check_config(&self, out: &Out) {
        let Ok(text) = std::fs::read_to_string(self.path("verdict.toml")) else {
            return;
        };
        let errors = super::schema::config_errors(&text);
        assert!(
            errors.is_empty() || (out.code == 2 && out.stderr.contains("verdict.toml")),
            "verdict accepted a verdict.toml that {} rejects:\n{}\n--- verdict.toml\n{text}",
            super::schema::CONFIG_SCHEMA,
            errors.join("\n")
        );
    }
}
