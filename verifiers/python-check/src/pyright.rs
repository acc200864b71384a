//! The `pyright` verifier: type-checks a Python project with the project's own pyright (the npm
//! package in `node_modules/.bin`, else the PyPI wrapper in its virtualenv, else `PATH`).
//!
//! What it runs, and why:
//! - `pyright <the project's arguments> --outputjson`, in the project's root. The arguments are
//!   those of the command the project declares for pyright (a package.json script, tox, nox, a
//!   Makefile target, pre-commit): its paths, `-p`/`--project`, `--level`, `--pythonpath`,
//!   `--verifytypes` and the rest, without the options verdict owns (the tool table's):
//!   `--outputjson` (added once),
//!   `--watch`/`-w` (never ends), `--verbose` and `--stats` (text that `--outputjson` refuses or
//!   mixes into the report). Without a declared command pyright reads its configuration itself
//!   (`pyrightconfig.json`, `[tool.pyright]`).
//! - The project's virtualenv (`.venv`, `venv`) comes first on `PATH`, as if activated: pyright
//!   resolves imports with the `python` it finds there.
//!
//! Exit codes: 0 no errors, 1 errors reported (or warnings, with `--warnings`: then the warnings
//! fail the run), 2 a fatal error, 3 a configuration file that could
//! not be read or parsed, 4 an illegal command line. Only 0 is a pass and only 1 a failure; 2, 3
//! and 4 are "could not verify" whatever was printed (pyright checks with its defaults after a
//! broken configuration, so its diagnostics are kept, but they are not the project's check).
//!
//! The report is read from the JSON (`summary.filesAnalyzed`, the counts, `generalDiagnostics`),
//! falling back to the text summarizer when the log holds no JSON (an older wrapper, a crash). A
//! pass needs `filesAnalyzed > 0`: a run that analyzed no file verified nothing. Paths in the
//! report are made relative to the project's root.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Infrastructure, Inputs, Part,
    VerifierError, Workspace,
};
use verdict_model::{Kind, Outcome, Report, Tool, Verifier};
use verdict_summarizers::pyright::try_from_json;
use verdict_verifier_support::declared::{self, Purpose};
use verdict_verifier_support::{PackageJson, infra, summarize_log_as};

use crate::python::{self, Home};

const NAME: &str = "pyright";

/// How long pyright may run by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The hint shown when the project has no pyright installed: the tool table's.
pub fn install_hint() -> &'static str {
    Tool::Pyright.spec().install
}

/// The largest log read whole for its JSON report; a larger one is streamed through the text
/// summarizer instead.
const MAX_JSON_LOG: u64 = 256 * 1024 * 1024;

/// How many of the log's last lines an error quotes when nothing in it could be read.
const LAST_LINES: usize = 5;

/// The `pyright` verifier (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pyright {
    timeout: Duration,
}

impl Default for Pyright {
    fn default() -> Self {
        Pyright {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Pyright {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// What configures pyright in `workspace`, for `verdict list`, or why nothing does.
fn configured(workspace: &Workspace) -> Result<String, String> {
    if workspace.path("pyrightconfig.json").is_file() {
        return Ok("pyrightconfig.json".to_owned());
    }
    if has_pyright_table(&workspace.path("pyproject.toml")) {
        return Ok("[tool.pyright] in pyproject.toml".to_owned());
    }
    if let Ok(Some(package)) = PackageJson::read(workspace)
        && let Some(script) = package.script_running(NAME)
    {
        return Ok(format!(
            "the `{script}` script of package.json runs pyright"
        ));
    }
    Err(
        "no pyrightconfig.json, no [tool.pyright] in pyproject.toml, no package.json script \
         running pyright"
            .to_owned(),
    )
}

/// Whether the TOML file at `path` has a `[tool.pyright]` table (or a sub-table of it).
fn has_pyright_table(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| {
        text.lines().any(|line| {
            let line = line.trim_start();
            line.starts_with("[tool.pyright]") || line.starts_with("[tool.pyright.")
        })
    })
}

/// `PATH` with the project's virtualenv first, when it has one: pyright finds `python` there.
fn venv_path(workspace: &Workspace) -> Option<(String, String)> {
    let bin = python::absolute(&python::venv_bin(&workspace.root)?);
    let mut dirs = vec![bin.clone()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    let path = std::env::join_paths(dirs).ok()?.into_string().ok()?;
    let venv = bin.parent()?.to_string_lossy().into_owned();
    Some((path, venv))
}

/// The report of what pyright printed: its JSON, else its text output.
fn read_report(captured: &Captured) -> Report {
    if captured.log_bytes <= MAX_JSON_LOG
        && let Ok(mut file) = captured.open_log()
    {
        let mut bytes = Vec::new();
        if file.read_to_end(&mut bytes).is_ok()
            && let Some(report) = try_from_json(&String::from_utf8_lossy(&bytes))
        {
            return report;
        }
    }
    summarize_log_as(NAME, captured)
}

/// The last non-blank lines of the log, joined, for an error that has nothing better to say.
fn last_lines(captured: &Captured) -> String {
    let Ok(mut file) = captured.open_log() else {
        return String::new();
    };
    let mut bytes = Vec::new();
    // The end is what matters; a huge log is read only in its last part.
    let skip = captured.log_bytes.saturating_sub(64 * 1024);
    if std::io::copy(&mut (&mut file).take(skip), &mut std::io::sink()).is_err()
        || file.read_to_end(&mut bytes).is_err()
    {
        return String::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text
        .lines()
        .rev()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(LAST_LINES)
        .collect();
    lines.reverse();
    lines.join(" | ")
}

/// Makes the report errored when the exit code says pyright did not check as asked, or says a
/// failure the report does not show.
fn fail_closed(mut report: Report, spec: &CommandSpec, captured: &Captured) -> Report {
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code } if spec.exit_codes.fail.contains(code) => {
            if report.outcome != Outcome::Passed {
                return report;
            }
            // `--warnings`: the project fails a run on warnings, and pyright counted some.
            if report.counts.warnings.is_some_and(|n| n > 0) {
                report.outcome = Outcome::Failed;
                report
                    .notes
                    .push("pyright failed the run on its warnings (`--warnings`)".to_owned());
                return report;
            }
            format!("pyright exited with {code} but reported no error that could be read")
        }
        Exit::Code { code: 127 } => "pyright could not start (exit 127: is `node` on PATH?)".into(),
        Exit::Code { code } if report.outcome == Outcome::Errored => {
            // The report already says why (a configuration pyright could not read).
            let error = report.error.take().unwrap_or_default();
            report.error = Some(format!("{error} (exit {code})"));
            return report;
        }
        Exit::Code { code: 2 } => "pyright stopped on a fatal error (exit 2)".to_owned(),
        Exit::Code { code: 3 } => "pyright could not read its configuration (exit 3)".to_owned(),
        Exit::Code { code: 4 } => "pyright rejected its command line (exit 4)".to_owned(),
        Exit::Code { code } => format!("pyright exited with {code}"),
        other => python::stopped(NAME, other),
    };
    let tail = last_lines(captured);
    report.outcome = Outcome::Errored;
    report.error = Some(if tail.is_empty() {
        format!("{reason}; see {}", captured.log_path.display())
    } else {
        format!("{reason}; the log ends: {tail}")
    });
    report
}

/// Makes the report's paths relative to `root`, as the project's files name them.
fn relative_paths(report: &mut Report, root: &Path) {
    let prefix = format!("{}/", root.to_string_lossy().trim_end_matches('/'));
    let mut changed = false;
    for diagnostic in &mut report.diagnostics {
        if let Some(file) = &mut diagnostic.file
            && let Some(relative) = file.strip_prefix(&prefix)
        {
            *file = relative.to_owned();
            changed = true;
        }
    }
    if changed {
        report.refresh_fingerprints();
    }
}

impl Verifier for Pyright {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Type
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        declared::applicability(
            workspace,
            NAME,
            Purpose::Typecheck,
            true,
            || match configured(workspace) {
                Ok(found) => Applicability::Applies(found),
                Err(reason) => Applicability::DoesNotApply(reason),
            },
        )
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let program = python::program(workspace, NAME, Home::Node, install_hint())?;
        let mut args = python::declared_args(workspace, NAME, Tool::Pyright.spec().owned);
        args.push("--outputjson".to_owned());
        let mut env = std::collections::BTreeMap::new();
        // The PyPI wrapper's notices (a newer version exists) are no part of the check.
        env.insert("PYRIGHT_PYTHON_IGNORE_WARNINGS".to_owned(), "1".to_owned());
        if let Some((path, venv)) = venv_path(workspace) {
            env.insert("PATH".to_owned(), path);
            env.insert("VIRTUAL_ENV".to_owned(), venv);
        }
        Ok(CommandSpec {
            program,
            args,
            env,
            cwd: python::absolute(&workspace.root),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: Vec::new(),
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = fail_closed(read_report(captured), spec, captured);
        relative_paths(&mut report, &spec.cwd);
        report.needs_evidence(
            "pyright showed no file it analyzed (`filesAnalyzed` is 0 or missing in its JSON report)",
        );
        report
    }

    /// Every `pyrightconfig.json` (one may extend another), `[tool.pyright]` of pyproject.toml,
    /// the package.json script that runs pyright, and the files that declare its command.
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        // The tool table's configuration files, and any other pyrightconfig.json one extends.
        let mut infra = infra::wholes(infra::tool_configs(NAME), &["**/pyrightconfig.json"]);
        if let Ok(Some(package)) = PackageJson::read(workspace)
            && let Some(script) = package.script_running(NAME)
        {
            let keys = vec!["scripts".to_owned(), script.to_owned()];
            infra = infra::part(infra, "package.json", Part::Json(keys));
        }
        infra::declared(workspace, NAME, infra).1
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let program = python::program(workspace, NAME, Home::Node, install_hint()).ok()?;
        // The npm package's manifest names pyright's version; the PyPI wrapper stands for itself.
        let package = std::fs::canonicalize(&program)
            .ok()
            .and_then(|target| {
                target
                    .ancestors()
                    .skip(1)
                    .find(|dir| dir.join("package.json").is_file())
                    .map(|dir| dir.join("package.json"))
            })
            .unwrap_or(program);
        let mut tool_files = vec![package];
        // The installed packages whose types pyright reads change with every install.
        if let Some(bin) = python::venv_bin(&workspace.root)
            && let Some(venv) = bin.parent()
        {
            tool_files.push(venv.join("pyvenv.cfg"));
        }
        Some(Inputs {
            globs: [
                "*.py",
                "*.pyi",
                "*.toml",
                "*.json",
                "*.lock",
                "requirements*.txt",
                "!/.venv/**",
                "!/venv/**",
                "!**/node_modules/**",
                "!**/__pycache__/**",
                "!/.verdict/**",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect(),
            tool_files,
            root: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pyright_table_is_found_and_a_mention_is_not() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("pyproject.toml");
        std::fs::write(&path, "[tool.ruff]\n# see [tool.pyright] later\n").expect("write");
        assert!(!has_pyright_table(&path));
        std::fs::write(&path, "[project]\n\n[tool.pyright.defineConstant]\n").expect("write");
        assert!(has_pyright_table(&path));
    }
}
