//! The `ruff` verifier: lints a Python project with the project's own ruff.
//!
//! What it runs, and why: `ruff check <the project's arguments> --output-format json -o <run
//! dir>/ruff.json -v`. The JSON is what the [`Report`] is built from (every diagnostic with its
//! rule, file and position); the log keeps what ruff prints besides (its `ruff failed` causes, its
//! warnings), which explains a run without JSON.
//!
//! What shows a pass checked something: ruff's JSON is `[]` whether it checked a thousand files
//! or none (`warning: No Python files found under the given path(s)`, and the run still exits 0).
//! `-v` makes ruff log `Checked 4 files in: 8.5ms` on stderr, which is the evidence a pass needs;
//! its other debug lines only lengthen the log. `--statistics` was the other candidate, but it
//! prints nothing at all on a clean run.
//!
//! `ruff format --check`, when that is what the project declares, is the same verifier's second
//! mode: the formatter has no `-o`, so it runs with `--output-format concise` and the human
//! summarizer reads its lines; its summary (`2 files would be reformatted, 1 file already
//! formatted`) counts the files it checked. `--check` is always added: `ruff format` alone would
//! rewrite the project's files.
//!
//! The project's arguments come from its declared command (a tox or nox environment, a Makefile
//! target, a pre-commit hook, a task runner's script), without the options verdict owns: the
//! output format and file, fixes, watching, statistics, verbosity, and the exit-code switches
//! (`--exit-zero`), since the JSON decides the outcome. Its paths, `--config`, `--select` and
//! the rest stay.
//!
//! After an edit, only the edited Python files are checked, with the project's options but not
//! its paths, and `--force-exclude` so that a file the configuration excludes stays excluded.
//!
//! Exit codes: 0 no violations, 1 violations (or, for the formatter, files it would change), 2
//! abnormal termination (a configuration ruff cannot read, an unknown rule, a bad argument).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use verdict_model::tools::Tool;
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Infrastructure, Inputs, VerifierError,
    Workspace,
};
use verdict_model::{Kind, Outcome, Report, Verifier};
use verdict_summarizers::ruff::from_json;
use verdict_verifier_support::declared::{self, Purpose};
use verdict_verifier_support::{infra, summarize_log_as};

use crate::python::{self, Home};

const NAME: &str = "ruff";

/// How long ruff may run by default (it checks a large project in seconds).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// How to install ruff, shown when the project has none: the table of tools' hint.
pub fn install_hint() -> &'static str {
    Tool::Ruff.spec().install
}

/// The name of the JSON report in the run directory.
pub const REPORT_FILE: &str = "ruff.json";

/// The configuration files ruff reads by name, besides `[tool.ruff]` in pyproject.toml.
pub const CONFIG_FILES: &[&str] = &["ruff.toml", ".ruff.toml"];

/// The options this verifier drops from the declared command beside the table's `owned` ones
/// (the output format and file, statistics, quiet, the exit-code switches), each with whether its
/// value is the next word: the format mode's own words (`--check` is added again, `--diff` would
/// print a diff), `-v` (added again), and the spellings of fixes and watching that the table's
/// `unless` does not already keep out of ruff's check (a command that fixes is no check).
const ALSO_DROPPED: &[(&str, bool)] = &[
    ("--check", false),
    ("--diff", false),
    ("-v", false),
    ("--verbose", false),
    ("--fix", false),
    ("--fix-only", false),
    ("--no-fix-only", false),
    ("--unsafe-fixes", false),
    ("--no-unsafe-fixes", false),
    ("--watch", false),
    ("-w", false),
    ("--show-files", false),
    ("--show-settings", false),
];

/// Every option dropped from the declared command: the table's and [`ALSO_DROPPED`].
fn dropped() -> Vec<(&'static str, bool)> {
    let mut dropped = Tool::Ruff.spec().owned.to_vec();
    dropped.extend_from_slice(ALSO_DROPPED);
    dropped
}

/// ruff's options whose value is the next word, so that it is not read as a path.
const TAKES_VALUE: &[&str] = &[
    "--config",
    "--select",
    "--ignore",
    "--extend-select",
    "--extend-ignore",
    "--per-file-ignores",
    "--extend-per-file-ignores",
    "--exclude",
    "--extend-exclude",
    "--fixable",
    "--unfixable",
    "--extend-fixable",
    "--line-length",
    "--target-version",
    "--dummy-variable-rgx",
    "--cache-dir",
    "--stdin-filename",
    "--extension",
];

/// The extensions of the files ruff checks: an edited file of another kind is not handed to it.
pub const CHECKED_EXTENSIONS: &[&str] = &["py", "pyi", "ipynb"];

/// What ruff is asked to check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `ruff check`: the linter.
    Check,
    /// `ruff format --check`: files the formatter would change.
    Format,
}

/// All the verifiers of this module: just [`Ruff`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruff {
    timeout: Duration,
}

impl Default for Ruff {
    fn default() -> Self {
        Ruff {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Ruff {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// The project's ruff configuration: `ruff.toml`, `.ruff.toml`, or `[tool.ruff]` in
/// pyproject.toml, in the order ruff prefers them in one directory.
pub fn config(workspace: &Workspace) -> Option<String> {
    if let Some(name) = CONFIG_FILES
        .iter()
        .find(|name| workspace.path(name).is_file())
    {
        return Some((*name).to_owned());
    }
    let pyproject = std::fs::read_to_string(workspace.path("pyproject.toml")).ok()?;
    // A table header `[tool.ruff]` or one of its subtables (`[tool.ruff.lint]`); a line scan
    // is enough to find one, and never fails on a file the TOML reader would reject.
    let configured = pyproject.lines().any(|line| {
        let line = line.trim();
        line == "[tool.ruff]" || line.starts_with("[tool.ruff.")
    });
    configured.then(|| "pyproject.toml [tool.ruff]".to_owned())
}

/// The mode and the project's own arguments of its declared ruff command (see the module docs).
fn invocation(workspace: &Workspace) -> (Mode, Vec<String>) {
    let mut args = python::declared_args(workspace, NAME, &dropped());
    let subcommand = args
        .iter()
        .position(|arg| !arg.starts_with('-'))
        .filter(|&at| matches!(args[at].as_str(), "check" | "format"));
    let mode = match subcommand {
        Some(at) if args.remove(at) == "format" => Mode::Format,
        _ => Mode::Check,
    };
    (mode, args)
}

/// The options of the project's arguments, without the paths they name.
fn options_only(args: Vec<String>) -> Vec<String> {
    let mut options = Vec::new();
    let mut words = args.into_iter();
    while let Some(word) = words.next() {
        if !word.starts_with('-') {
            continue;
        }
        let takes_value = !word.contains('=') && TAKES_VALUE.contains(&word.as_str());
        options.push(word);
        if takes_value && let Some(value) = words.next() {
            options.push(value);
        }
    }
    options
}

impl Ruff {
    /// The command of `mode` with the project's `project_args`.
    fn command_for(
        &self,
        workspace: &Workspace,
        mode: Mode,
        project_args: Vec<String>,
    ) -> Result<CommandSpec, VerifierError> {
        let program = python::program(workspace, NAME, Home::VenvThenPath, install_hint())?;
        let (mut args, output_files) = match mode {
            // `--no-fix`: a project's `fix = true` would have ruff edit the files it checks.
            Mode::Check => (vec!["check".to_owned(), "--no-fix".to_owned()], Vec::new()),
            Mode::Format => (vec!["format".to_owned(), "--check".to_owned()], Vec::new()),
        };
        args.extend(project_args);
        let output_files = match mode {
            Mode::Check => {
                // Absolute: ruff runs in the root, which a relative run directory is not
                // relative to.
                let report = python::absolute(&workspace.run_dir.join(REPORT_FILE));
                args.extend(["--output-format", "json", "-o"].map(str::to_owned));
                args.push(report.to_string_lossy().into_owned());
                // The `Checked N files` line: the evidence of a pass (see the module docs).
                args.push("-v".to_owned());
                vec![report]
            }
            Mode::Format => {
                args.extend(["--output-format", "concise"].map(str::to_owned));
                output_files
            }
        };
        Ok(CommandSpec {
            program,
            args,
            env: Default::default(),
            cwd: python::absolute(&workspace.root),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files,
        })
    }
}

impl Verifier for Ruff {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Lint
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        declared::applicability(workspace, NAME, Purpose::Lint, true, || {
            match config(workspace) {
                Some(found) => Applicability::Applies(found),
                None => Applicability::DoesNotApply(
                    "no ruff configuration (ruff.toml, .ruff.toml, [tool.ruff] in pyproject.toml) \
                     and no declared command runs ruff"
                        .to_owned(),
                ),
            }
        })
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let (mode, args) = invocation(workspace);
        self.command_for(workspace, mode, args)
    }

    fn command_for_files(
        &self,
        workspace: &Workspace,
        files: &[String],
    ) -> Option<Result<CommandSpec, VerifierError>> {
        let files: Vec<String> = files
            .iter()
            .filter(|file| {
                Path::new(file)
                    .extension()
                    .is_some_and(|ext| CHECKED_EXTENSIONS.iter().any(|e| ext == *e))
            })
            // A file whose name starts with a dash must not read as an option.
            .map(|file| {
                if file.starts_with('-') {
                    format!("./{file}")
                } else {
                    file.clone()
                }
            })
            .collect();
        if files.is_empty() {
            return None;
        }
        let (mode, args) = invocation(workspace);
        let mut args = options_only(args);
        // A file the configuration excludes stays excluded when it is named.
        args.push("--force-exclude".to_owned());
        args.extend(files);
        Some(self.command_for(workspace, mode, args))
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let log = summarize_log_as(NAME, captured);
        let exit_code = match captured.exit {
            Exit::Code { code } => Some(code),
            _ => None,
        };
        let json = captured
            .output_files
            .first()
            .and_then(|file| file.as_deref())
            .filter(|bytes| bytes.iter().any(|b| !b.is_ascii_whitespace()));
        let mut report = match json {
            // The JSON ruff wrote on an exit it declares normal: the full result, with the log's
            // evidence that files were checked.
            Some(json) if exit_code.is_some_and(|c| c == 0 || c == 1) => {
                let mut report = from_json(&String::from_utf8_lossy(json));
                relativize(&mut report, &spec.cwd);
                report.saw(log.evidence());
                report
            }
            // Otherwise what it printed explains it (`ruff failed`, a bad argument), or, for the
            // formatter, is the result.
            _ => log,
        };
        let missing = if log_tail(captured).contains("No Python files found") {
            "ruff found no Python file to check under the given paths"
        } else {
            "ruff printed nothing to show it checked any file (no `Checked N files` line)"
        };
        report.needs_evidence(missing);
        fail_closed(report, spec, captured)
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let program = python::program(workspace, NAME, Home::VenvThenPath, install_hint()).ok()?;
        Some(Inputs {
            // Every file of the project: ruff lints Python files, notebooks and its own config
            // files, reads configuration from any directory, and honours `.gitignore`.
            globs: [
                "*",
                "!/.venv/**",
                "!/venv/**",
                "!**/.ruff_cache/**",
                "!**/__pycache__/**",
                "!**/.mypy_cache/**",
                "!**/.pytest_cache/**",
                "!**/.tox/**",
                "!**/.nox/**",
                "!**/node_modules/**",
                "!/.git/**",
                "!/.verdict/**",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect(),
            // The program itself: its content is its version.
            tool_files: vec![program],
            root: None,
        })
    }

    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        // The table's configuration files: ruff reads the closest to each file, in any
        // directory.
        let (command, mut infra) = infra::declared(workspace, NAME, infra::tool_configs(NAME));
        if let Some(command) = command {
            // A config file the command names (`--config lint/ruff.toml`); an inline
            // `--config "lint.select = ['E']"` is in the declared command itself.
            for value in infra::option_values(command.program_words(), &["--config"], false) {
                if let Some(path) = infra::project_path(workspace, "", &value, &[""]) {
                    infra = infra::path(infra, &path);
                }
            }
        }
        infra
    }
}

/// Rewrites the absolute paths of ruff's JSON relative to the project root (`cwd`), as its human
/// output prints them, so that locations and fingerprints do not depend on the checkout.
fn relativize(report: &mut Report, cwd: &Path) {
    let mut roots = vec![cwd.to_path_buf()];
    if let Ok(canonical) = std::fs::canonicalize(cwd)
        && canonical != cwd
    {
        roots.push(canonical);
    }
    for diagnostic in &mut report.diagnostics {
        let Some(file) = &diagnostic.file else {
            continue;
        };
        let relative = roots
            .iter()
            .find_map(|root| Path::new(file).strip_prefix(root).ok())
            .map(|path| path.to_string_lossy().into_owned());
        if let Some(relative) = relative {
            diagnostic.file = Some(relative);
        }
    }
    report.refresh_fingerprints();
}

/// How much of the end of the log is read for its last lines.
const TAIL_BYTES: u64 = 16 * 1024;

/// The last [`TAIL_BYTES`] of the log, as text.
fn log_tail(captured: &Captured) -> String {
    let Ok(mut file) = captured.open_log() else {
        return String::new();
    };
    let start = captured.log_bytes.saturating_sub(TAIL_BYTES);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    if file.take(TAIL_BYTES).read_to_end(&mut bytes).is_err() {
        return String::new();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The last lines of the log that say what went wrong (not `-v`'s debug lines), for the reason
/// of a run nothing explains.
fn last_error_lines(captured: &Captured) -> Option<String> {
    let tail = log_tail(captured);
    let lines: Vec<&str> = tail
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.trim().is_empty() && !line.contains("][DEBUG]"))
        .collect();
    let last: Vec<&str> = lines.iter().rev().take(3).rev().copied().collect();
    (!last.is_empty()).then(|| last.join(" / "))
}

/// Makes a report errored when the command did not end as a run that checked something: a pass
/// on an exit ruff does not declare a pass, a failing exit with nothing read, a crash.
fn fail_closed(mut report: Report, spec: &CommandSpec, captured: &Captured) -> Report {
    if report.outcome == Outcome::Errored && report.error.is_some() {
        return report;
    }
    if report.outcome == Outcome::Failed && report.diagnostics_found() > 0 {
        return report;
    }
    let see = |what: String| match last_error_lines(captured) {
        Some(lines) => format!("{what}: {lines}"),
        None => format!("{what}; see {}", captured.log_path.display()),
    };
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code } if spec.exit_codes.fail.contains(code) => see(format!(
            "ruff exited with {code}, which means violations, but none could be read from its \
             output"
        )),
        Exit::Code { code } => see(format!(
            "ruff exited with {code} (a configuration error or a crash)"
        )),
        other => python::stopped(NAME, other),
    };
    report.outcome = Outcome::Errored;
    report.error = Some(reason);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace_with(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&path, text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        (dir, workspace)
    }

    #[test]
    fn the_configuration_is_found_in_each_of_its_places() {
        for (files, expected) in [
            (&[("ruff.toml", "")][..], Some("ruff.toml")),
            (&[(".ruff.toml", "")][..], Some(".ruff.toml")),
            (
                &[(
                    "pyproject.toml",
                    "[project]\nname = \"a\"\n\n[tool.ruff.lint]\nselect = [\"E\"]\n",
                )][..],
                Some("pyproject.toml [tool.ruff]"),
            ),
            (&[("pyproject.toml", "[tool.ruffle]\n")][..], None),
            (&[("setup.py", "")][..], None),
        ] {
            let (_dir, workspace) = workspace_with(files);
            assert_eq!(config(&workspace).as_deref(), expected, "{files:?}");
        }
    }

    #[test]
    fn the_declared_command_gives_the_mode_and_the_projects_arguments() {
        let (_dir, mut workspace) = workspace_with(&[]);
        for (declared, mode, args) in [
            (
                "ruff check src tests --select E,F",
                Mode::Check,
                &["src", "tests", "--select", "E,F"][..],
            ),
            (
                "ruff check --fix-only --output-format=github -o out.txt --exit-zero .",
                Mode::Check,
                &["."][..],
            ),
            (
                "python -m ruff check --config lint.toml",
                Mode::Check,
                &["--config", "lint.toml"][..],
            ),
            ("ruff format --check --diff src", Mode::Format, &["src"][..]),
        ] {
            workspace
                .commands
                .insert(NAME.to_owned(), declared.to_owned());
            let (got_mode, got_args) = invocation(&workspace);
            assert_eq!(got_mode, mode, "{declared}");
            assert_eq!(got_args, args, "{declared}");
        }
    }

    #[test]
    fn only_the_options_of_the_projects_arguments_go_with_edited_files() {
        let args = [
            "src",
            "--select",
            "E,F",
            "--config=x.toml",
            "tests",
            "--preview",
        ];
        assert_eq!(
            options_only(args.map(str::to_owned).to_vec()),
            ["--select", "E,F", "--config=x.toml", "--preview"]
        );
    }

    #[test]
    fn a_spec_names_the_program_found() {
        let (dir, workspace) = workspace_with(&[(".venv/pyvenv.cfg", ""), (".venv/bin/ruff", "")]);
        use std::os::unix::fs::PermissionsExt;
        let ruff = dir.path().join(".venv/bin/ruff");
        std::fs::set_permissions(&ruff, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let spec = Ruff::default().command(&workspace).expect("a command");
        assert_eq!(spec.program, ruff);
        assert_eq!(spec.args[0], "check");
        assert!(spec.args.ends_with(&["-v".to_owned()]), "{:?}", spec.args);
        let edited = [
            "README.md".to_owned(),
            "-odd.py".to_owned(),
            "src/a.py".to_owned(),
        ];
        let spec = Ruff::default()
            .command_for_files(&workspace, &edited)
            .expect("Python files were edited")
            .expect("a command");
        assert_eq!(
            spec.args[..5],
            [
                "check",
                "--no-fix",
                "--force-exclude",
                "./-odd.py",
                "src/a.py"
            ]
        );
        assert!(
            Ruff::default()
                .command_for_files(&workspace, &["README.md".to_owned()])
                .is_none()
        );
    }
}
