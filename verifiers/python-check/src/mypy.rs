//! The mypy verifier: the type check a Python project declares (a tox or nox environment, a
//! Makefile target, a pre-commit hook, a task runner's script) or configures (`[tool.mypy]` in
//! pyproject.toml, `mypy.ini`, `.mypy.ini`, a `[mypy]` section of setup.cfg).
//!
//! mypy runs from the project's virtualenv (its imports must resolve there) with the project's
//! arguments and `-O json`, one JSON object per error (mypy 1.11 and later; an older mypy, found
//! by its installed version, prints its standard lines instead). The JSON output has no summary,
//! and a clean run prints nothing: `--linecount-report` writes the modules mypy checked to a file,
//! the evidence a pass needs. Exit codes: 0 clean, 1 errors found, 2 a crash, a usage or
//! configuration error, or an error that stopped mypy early (a syntax error, which the summarizer
//! reads as a failure of the code).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_model::tools::{Tool, ToolSpec};
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Infrastructure, Inputs, Verifier,
    VerifierError, Workspace,
};
use verdict_model::{Evidence, Kind, Outcome, Report};
use verdict_summarizers::mypy::MypySummarizer;
use verdict_verifier_support::declared::{self, Purpose};
use verdict_verifier_support::{infra, summarize_log};

use crate::python::{self, Home};

const NAME: &str = "mypy";

/// What verdict knows of mypy: the options it owns, its configuration files, how to install it.
fn spec() -> &'static ToolSpec {
    Tool::Mypy.spec()
}

/// The first mypy with `-O json`.
const JSON_SINCE: (u32, u32) = (1, 11);

/// The directory of the linecount report, under the run directory.
const LINECOUNT_DIR: &str = "mypy-linecount";

/// The mypy verifier.
#[derive(Debug, Clone)]
pub struct Mypy {
    timeout: Duration,
}

impl Default for Mypy {
    fn default() -> Self {
        Mypy {
            timeout: Duration::from_secs(15 * 60),
        }
    }
}

impl Mypy {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Where the project configures mypy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Config {
    /// The file, relative to the root: `mypy.ini`, `pyproject.toml`.
    pub file: &'static str,
    /// Whether it names the files to check (`files = …`), so that mypy needs no paths.
    pub has_files: bool,
}

/// The configuration mypy reads, in mypy's own order of precedence.
pub(crate) fn config(workspace: &Workspace) -> Option<Config> {
    let read = |file: &str| std::fs::read_to_string(workspace.path(file)).ok();
    for file in ["mypy.ini", ".mypy.ini"] {
        if let Some(text) = read(file) {
            return Some(Config {
                file,
                has_files: section_sets(&text, |name| name == "[mypy]", "files"),
            });
        }
    }
    if let Some(text) = read("pyproject.toml")
        && text.lines().any(|l| l.trim() == "[tool.mypy]")
    {
        return Some(Config {
            file: "pyproject.toml",
            has_files: section_sets(&text, |name| name == "[tool.mypy]", "files"),
        });
    }
    if let Some(text) = read("setup.cfg")
        && text.lines().any(|l| l.trim() == "[mypy]")
    {
        return Some(Config {
            file: "setup.cfg",
            has_files: section_sets(&text, |name| name == "[mypy]", "files"),
        });
    }
    None
}

/// Whether the section of an INI or TOML text that `is_section` picks sets `key`.
fn section_sets(text: &str, is_section: impl Fn(&str) -> bool, key: &str) -> bool {
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = is_section(line);
        } else if inside
            && let Some((name, _)) = line.split_once('=')
            && name.trim() == key
        {
            return true;
        }
    }
    false
}

/// The version of the mypy installed beside `program` (`<venv>/bin/mypy`), from its
/// `mypy-X.Y.Z.dist-info` directory; `None` when it cannot be told (a mypy from elsewhere).
pub(crate) fn installed_version(program: &Path) -> Option<(u32, u32)> {
    let venv = program.parent()?.parent()?;
    for lib in std::fs::read_dir(venv.join("lib")).ok()?.flatten() {
        let Ok(entries) = std::fs::read_dir(lib.path().join("site-packages")) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(version) = name
                .to_str()
                .and_then(|n| n.strip_prefix("mypy-"))
                .and_then(|n| n.strip_suffix(".dist-info"))
            else {
                continue;
            };
            let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
            if let (Some(Some(major)), Some(Some(minor))) = (parts.next(), parts.next()) {
                return Some((major, minor));
            }
        }
    }
    None
}

/// The number of modules a linecount report lists (its first line is the total).
fn modules_counted(report: &[u8]) -> usize {
    String::from_utf8_lossy(report)
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.trim_end().ends_with(" total"))
        .count()
}

/// The last lines of the log, for a run that failed with nothing understood.
fn log_tail(captured: &Captured) -> String {
    const TAIL: u64 = 4096;
    let mut text = String::new();
    if let Ok(mut file) = captured.open_log() {
        let start = captured.log_bytes.saturating_sub(TAIL);
        let mut bytes = Vec::new();
        if file.seek(SeekFrom::Start(start)).is_ok() && file.read_to_end(&mut bytes).is_ok() {
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(5)..].join("\n")
}

/// Makes a passed report errored when mypy did not exit 0: whatever it printed, a tool that
/// did not say "pass" has not passed.
fn fail_closed(mut report: Report, spec: &CommandSpec, captured: &Captured) -> Report {
    if report.outcome != Outcome::Passed {
        return report;
    }
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code } => format!(
            "mypy exited with {code} but printed no error that could be read; it ended with:\n{}",
            log_tail(captured)
        ),
        other => python::stopped(NAME, other),
    };
    report.outcome = Outcome::Errored;
    report.error = Some(reason);
    report
}

impl Verifier for Mypy {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Type
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        let from_files = || match config(workspace) {
            Some(config) => Applicability::Applies(format!("{} configures mypy", config.file)),
            None => Applicability::DoesNotApply(
                "no declared command runs mypy and nothing configures it ([tool.mypy] in \
                 pyproject.toml, mypy.ini, .mypy.ini, [mypy] in setup.cfg)"
                    .to_owned(),
            ),
        };
        declared::applicability(workspace, NAME, Purpose::Typecheck, true, from_files)
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let program = python::program(workspace, NAME, Home::Venv, spec().install)?;
        let project_args = python::declared_args(workspace, NAME, spec().owned);
        let json = installed_version(&program).is_none_or(|version| version >= JSON_SINCE);
        // Reports are not supported in mypy's parallel mode, which then rejects the run.
        let parallel = project_args
            .iter()
            .any(|a| a == "-n" || a.starts_with("--num-workers"));
        let mut args = Vec::new();
        let mut output_files = Vec::new();
        if json {
            args.extend(["-O".to_owned(), "json".to_owned()]);
        } else {
            // The standard lines with their summary, whatever the configuration says.
            args.push("--error-summary".to_owned());
        }
        if json && !parallel {
            let dir = python::absolute(&workspace.run_dir.join(LINECOUNT_DIR));
            args.push("--linecount-report".to_owned());
            args.push(dir.to_string_lossy().into_owned());
            output_files.push(dir.join("linecount.txt"));
        }
        let no_targets = project_args.is_empty() && !config(workspace).is_some_and(|c| c.has_files);
        args.extend(project_args);
        if no_targets {
            // Nothing names what to check: the project, as `mypy .` (dot directories such as
            // `.venv` are left out by mypy itself).
            args.push(".".to_owned());
        }
        Ok(CommandSpec {
            program,
            args,
            env: Default::default(),
            cwd: python::absolute(&workspace.root),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1, 2],
            },
            output_files,
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        // One parser reads both: the JSON objects and the standard lines around them (usage and
        // configuration errors are never JSON).
        let mut report = summarize_log(&MypySummarizer, captured);
        if let Some(Some(linecount)) = captured.output_files.first() {
            let modules = modules_counted(linecount);
            if modules > 0 {
                report.saw(Evidence::Checked);
                if report.summary.is_none() && report.outcome == Outcome::Passed {
                    report.summary = Some(format!("mypy checked {modules} module(s)"));
                }
            }
        }
        let mut report = fail_closed(report, spec, captured);
        report.needs_evidence(
            "mypy printed nothing to show it checked any file (no `Success: no issues found` \
             line, no module in its linecount report)",
        );
        report
    }

    /// mypy's configuration files and its sections of shared ones (the tools table's), and the
    /// files that declare its command (with a `--config-file` it names).
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        let (command, mut infra) = infra::declared(workspace, NAME, infra::tool_configs(NAME));
        if let Some(command) = command {
            for file in infra::option_values(command.program_words(), &["--config-file"], false) {
                infra = infra::path(infra, &file);
            }
        }
        infra
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let tool_files = python::venv_bin(&workspace.root)
            .map(|bin| bin.join(NAME))
            .and_then(|program| dist_info(&program))
            .into_iter()
            .collect();
        Some(Inputs {
            globs: [
                "*.py",
                "*.pyi",
                "py.typed",
                "mypy.ini",
                ".mypy.ini",
                "pyproject.toml",
                "setup.cfg",
                // What is installed decides what the imports resolve to.
                "*.lock",
                "requirements*.txt",
                "!.venv/**",
                "!venv/**",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect(),
            tool_files,
            root: None,
        })
    }
}

/// The `METADATA` of the mypy installed beside `program`, which names its version.
fn dist_info(program: &Path) -> Option<PathBuf> {
    let (major, minor) = installed_version(program)?;
    let venv = program.parent()?.parent()?;
    std::fs::read_dir(venv.join("lib"))
        .ok()?
        .flatten()
        .flat_map(|lib| {
            std::fs::read_dir(lib.path().join("site-packages"))
                .into_iter()
                .flatten()
        })
        .flatten()
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(&format!("mypy-{major}.{minor}")) && n.ends_with(".dist-info")
            })
        })
        .map(|dir| dir.join("METADATA"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linecount_report_counts_modules_not_its_total() {
        let report = b"      7       7      2      2 total\n      5       5      1      1 b\n      2       2      1      1 a\n";
        assert_eq!(modules_counted(report), 2);
        assert_eq!(modules_counted(b"      0       0      0      0 total\n"), 0);
        assert_eq!(modules_counted(b""), 0);
    }

    #[test]
    fn the_files_option_is_read_from_the_mypy_section_only() {
        let text = "[tool.black]\nfiles = 1\n\n[tool.mypy]\nstrict = true\n";
        assert!(!section_sets(text, |s| s == "[tool.mypy]", "files"));
        let text = "[tool.mypy]\nfiles = [\"src\"]\n[tool.ruff]\n";
        assert!(section_sets(text, |s| s == "[tool.mypy]", "files"));
    }
}
