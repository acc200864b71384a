//! Project-specific verifiers defined without code, in `verdict.toml`, in the manner of problem
//! matchers: a command (an argv array, never a shell string), which exit codes mean a pass and
//! which mean failures in the code, and regexes with named groups that turn output lines into
//! diagnostics.
//!
//! ```toml
//! [[verifier]]
//! name = "gcc"
//! kind = "build"
//! command = ["make", "-k"]
//! timeout = "5m"
//! inputs = ["src/**/*.c", "Makefile"]
//!
//! [[verifier.pattern]]
//! regex = '^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning): (?P<message>.*)$'
//! ```
//!
//! How a run is judged (the pipeline checks the same again for every verifier):
//!
//! | exit code                 | what matched                          | outcome  |
//! |---------------------------|---------------------------------------|----------|
//! | in `pass_exit_codes`      | no error line                         | passed (warnings kept) |
//! | in `pass_exit_codes`      | ≥ 1 error line                        | errored: the tool and the patterns disagree |
//! | in `fail_exit_codes`      | ≥ 1 error or warning line, or a summary counting failures | failed |
//! | in `fail_exit_codes`      | nothing                               | errored: "exited 1 but no line matched its patterns; see the log" |
//! | any other code            | anything                              | errored: the tool crashed or rejected its input |
//! | signal, time-out, not started | anything                          | errored |
//!
//! A definition without any pattern reads its log with verdict's generic summarizer (lines like
//! `file:line:col: error: message`), under the same rules.
//!
//! **Invariant:** like every verifier, this crate never spawns a process; it describes the command
//! and reads the log the runner wrote.

pub mod duration;

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::{Regex, RegexSet};
use schemars::JsonSchema;
use serde::Deserialize;
use verdict_model::lines::for_each_line;
use verdict_model::model::{Diagnostic, Kind, Outcome, Report, Severity};
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Inputs, VerifierError, Workspace,
};
use verdict_model::{Verifier, model::MAX_DIAGNOSTICS};

/// The time-out of a custom verifier that sets none (the run's `[run] timeout` and
/// `[verifiers.<name>] timeout` take precedence where set).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The named groups a pattern may use.
pub const GROUPS: &[&str] = &[
    "file", "line", "col", "column", "severity", "code", "message", "test",
];

/// The named groups a summary regex may use.
pub const SUMMARY_GROUPS: &[&str] = &["passed", "failed", "skipped", "errors", "warnings"];

/// A `[[verifier]]` of verdict.toml, as written.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Definition {
    /// Its name: what `--only` takes and reports show. `[a-z0-9][a-z0-9_-]*`.
    pub name: String,
    /// The kind of check it is.
    pub kind: DefinitionKind,
    /// The program and its arguments. A bare program name is looked up on `PATH` when it runs; a
    /// path with a slash (`./scripts/check`) is relative to [`Definition::cwd`]. For a shell, write
    /// `["sh", "-c", "…"]`.
    pub command: Vec<String>,
    /// The working directory, relative to the directory holding verdict.toml (default: that
    /// directory).
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How long it may run (default [`DEFAULT_TIMEOUT`]).
    #[serde(default, deserialize_with = "duration::deserialize_option")]
    #[schemars(with = "Option<duration::Text>")]
    pub timeout: Option<Duration>,
    /// Exit codes that mean it ran and found nothing (default `[0]`).
    #[serde(default = "default_pass")]
    pub pass_exit_codes: Vec<i32>,
    /// Exit codes that mean it ran and found failures in the code (default `[1]`). Any other code
    /// means it could not verify (errored).
    #[serde(default = "default_fail")]
    pub fail_exit_codes: Vec<i32>,
    /// Gitignore-style globs of the files its result depends on, relative to the directory holding
    /// verdict.toml. With none it is never skipped by the cache.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Verifiers that must pass before it starts.
    #[serde(default)]
    pub needs: Vec<String>,
    /// The line patterns, tried in order; the first that matches a line makes it a diagnostic.
    #[serde(default, rename = "pattern")]
    pub patterns: Vec<Pattern>,
    /// An optional regex for the tool's summary line, with named groups among `passed`, `failed`,
    /// `skipped`, `errors`, `warnings` (numbers). The last line it matches becomes the report's
    /// summary and its counts win over counting matched lines.
    #[serde(default)]
    pub summary: Option<String>,
    /// Files (relative to the directory holding verdict.toml) that must all exist for it to apply;
    /// without any it always applies.
    #[serde(default)]
    pub applies_if: Vec<PathBuf>,
}

fn default_pass() -> Vec<i32> {
    vec![0]
}

fn default_fail() -> Vec<i32> {
    vec![1]
}

/// The `kind` of a [`Definition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DefinitionKind {
    /// The code does not build.
    Build,
    /// A type checker.
    Type,
    /// A linter.
    Lint,
    /// A test runner.
    Test,
    /// Anything else (`custom` is accepted too).
    #[serde(alias = "custom")]
    Other,
}

impl DefinitionKind {
    /// The model's kind.
    pub fn kind(self) -> Kind {
        match self {
            DefinitionKind::Build => Kind::Build,
            DefinitionKind::Type => Kind::Type,
            DefinitionKind::Lint => Kind::Lint,
            DefinitionKind::Test => Kind::Test,
            DefinitionKind::Other => Kind::Custom,
        }
    }
}

/// A `[[verifier.pattern]]`: one regex that turns a line into a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pattern {
    /// The regex (Rust `regex` syntax), with named groups among [`GROUPS`]; `message` is required.
    pub regex: String,
    /// The severity when the regex has no `severity` group or it captured nothing (default error).
    #[serde(default)]
    pub severity: Option<PatternSeverity>,
    /// Overrides the definition's kind for diagnostics of this pattern.
    #[serde(default)]
    pub kind: Option<DefinitionKind>,
}

/// A pattern's default severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatternSeverity {
    /// Fails the run.
    Error,
    /// Reported, does not fail a run that exits with a pass code.
    Warning,
    /// Informational.
    Info,
}

impl PatternSeverity {
    fn severity(self) -> Severity {
        match self {
            PatternSeverity::Error => Severity::Error,
            PatternSeverity::Warning => Severity::Warning,
            PatternSeverity::Info => Severity::Info,
        }
    }
}

/// Why a [`Definition`] cannot be used. Each message names the verifier and what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// The name is not `[a-z0-9][a-z0-9_-]*`.
    #[error(
        "invalid verifier name `{0}`: use lowercase letters, digits, `-` and `_`, starting with a letter or digit"
    )]
    Name(String),
    /// `command` is empty or its program is an empty string.
    #[error("verifier `{0}`: `command` is empty; give the program and its arguments as an array")]
    EmptyCommand(String),
    /// `pass_exit_codes` is empty: it could never pass.
    #[error("verifier `{0}`: `pass_exit_codes` is empty, so it could never pass")]
    NoPassCode(String),
    /// An exit code is listed as both a pass and a failure.
    #[error(
        "verifier `{name}`: exit code {code} is in both `pass_exit_codes` and `fail_exit_codes`"
    )]
    OverlappingCodes {
        /// The verifier.
        name: String,
        /// The code in both lists.
        code: i32,
    },
    /// It names itself in `needs`.
    #[error("verifier `{0}` needs itself")]
    NeedsItself(String),
    /// An exit code no process can exit with (a process exits with 0 to 255).
    #[error(
        "verifier `{name}`: exit code {code} in `{list}` is not one a process can exit with (0 to 255)"
    )]
    ExitCodeRange {
        /// The verifier.
        name: String,
        /// `pass_exit_codes` or `fail_exit_codes`.
        list: &'static str,
        /// The code.
        code: i32,
    },
    /// An input glob reaches outside the directory holding verdict.toml, where the cache does not
    /// look: the verifier would be served from the cache after those files changed.
    #[error(
        "verifier `{name}`: input `{glob}` is outside the project; `inputs` are globs relative to the directory holding verdict.toml, without `..`"
    )]
    InputOutside {
        /// The verifier.
        name: String,
        /// The glob.
        glob: String,
    },
    /// A pattern's regex does not compile.
    #[error("verifier `{name}`: pattern {index}: invalid regex: {error}")]
    Regex {
        /// The verifier.
        name: String,
        /// 1-based index of the pattern.
        index: usize,
        /// The regex crate's message.
        error: String,
    },
    /// A pattern has no `message` group.
    #[error("verifier `{name}`: pattern {index} has no `(?P<message>…)` group")]
    NoMessageGroup {
        /// The verifier.
        name: String,
        /// 1-based index of the pattern.
        index: usize,
    },
    /// A pattern or the summary uses a group verdict does not know (likely a typo).
    #[error("verifier `{name}`: {place}: unknown group `{group}`; groups are {expected}")]
    UnknownGroup {
        /// The verifier.
        name: String,
        /// `pattern 2` or `summary`.
        place: String,
        /// The group's name.
        group: String,
        /// The groups allowed there.
        expected: String,
    },
}

/// One compiled pattern.
#[derive(Debug)]
struct Compiled {
    regex: Regex,
    severity: Severity,
    kind: Kind,
}

/// A verifier defined in verdict.toml.
#[derive(Debug)]
pub struct CustomVerifier {
    definition: Definition,
    config_dir: PathBuf,
    /// The file the definition is written in, whose every change misses the cache:
    /// `<config_dir>/verdict.toml` unless [`CustomVerifier::with_config_file`] says otherwise.
    config_file: PathBuf,
    /// Every pattern at once: one pass over a line says which (if any) match.
    set: RegexSet,
    patterns: Vec<Compiled>,
    summary: Option<Regex>,
}

/// Checks a verifier name: `[a-z0-9][a-z0-9_-]*`.
pub fn valid_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b'a'..=b'z' | b'0'..=b'9'))
        && bytes.all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-'))
}

/// Whether an input glob names files outside the directory it is relative to: a `..` component
/// (a leading `/` anchors it at that directory, as in gitignore).
fn escapes(glob: &str) -> bool {
    let glob = glob.strip_prefix('!').unwrap_or(glob);
    glob.split(['/', '\\']).any(|part| part == "..")
}

impl Definition {
    /// Checks everything but the regexes (which [`CustomVerifier::new`] compiles).
    pub fn validate(&self) -> Result<(), DefinitionError> {
        let name = || self.name.clone();
        if !valid_name(&self.name) {
            return Err(DefinitionError::Name(name()));
        }
        if self.command.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(DefinitionError::EmptyCommand(name()));
        }
        if self.pass_exit_codes.is_empty() {
            return Err(DefinitionError::NoPassCode(name()));
        }
        if let Some(&code) = self
            .pass_exit_codes
            .iter()
            .find(|c| self.fail_exit_codes.contains(c))
        {
            return Err(DefinitionError::OverlappingCodes { name: name(), code });
        }
        if self.needs.contains(&self.name) {
            return Err(DefinitionError::NeedsItself(name()));
        }
        for (list, codes) in [
            ("pass_exit_codes", &self.pass_exit_codes),
            ("fail_exit_codes", &self.fail_exit_codes),
        ] {
            if let Some(&code) = codes.iter().find(|c| !(0..=255).contains(*c)) {
                return Err(DefinitionError::ExitCodeRange {
                    name: name(),
                    list,
                    code,
                });
            }
        }
        if let Some(glob) = self.inputs.iter().find(|g| escapes(g)) {
            return Err(DefinitionError::InputOutside {
                name: name(),
                glob: glob.clone(),
            });
        }
        Ok(())
    }
}

impl CustomVerifier {
    /// The file the definition is read from, when it is not `verdict.toml` in `config_dir`
    /// (`.config/verdict.toml`, or a `pyproject.toml` with `[tool.verdict]`): its content keys
    /// the cache as verdict.toml's does.
    #[must_use]
    pub fn with_config_file(mut self, path: &Path) -> Self {
        self.config_file = path.to_path_buf();
        self
    }

    /// Validates `definition` and compiles its regexes. `config_dir` is the directory holding
    /// verdict.toml, against which `cwd`, `applies_if`, `inputs` and `./program` resolve.
    pub fn new(definition: Definition, config_dir: &Path) -> Result<Self, DefinitionError> {
        definition.validate()?;
        let name = &definition.name;
        let mut patterns = Vec::with_capacity(definition.patterns.len());
        for (i, pattern) in definition.patterns.iter().enumerate() {
            let index = i + 1;
            let regex = Regex::new(&pattern.regex).map_err(|e| DefinitionError::Regex {
                name: name.clone(),
                index,
                error: e.to_string(),
            })?;
            check_groups(&regex, GROUPS, name, &format!("pattern {index}"))?;
            if !regex.capture_names().flatten().any(|g| g == "message") {
                return Err(DefinitionError::NoMessageGroup {
                    name: name.clone(),
                    index,
                });
            }
            patterns.push(Compiled {
                regex,
                severity: pattern
                    .severity
                    .map_or(Severity::Error, PatternSeverity::severity),
                kind: pattern.kind.unwrap_or(definition.kind).kind(),
            });
        }
        let set = RegexSet::new(definition.patterns.iter().map(|p| &p.regex)).map_err(|e| {
            DefinitionError::Regex {
                name: name.clone(),
                index: 0,
                error: e.to_string(),
            }
        })?;
        let summary = match &definition.summary {
            Some(text) => {
                let regex = Regex::new(text).map_err(|e| DefinitionError::Regex {
                    name: name.clone(),
                    index: 0,
                    error: format!("in `summary`: {e}"),
                })?;
                check_groups(&regex, SUMMARY_GROUPS, name, "summary")?;
                Some(regex)
            }
            None => None,
        };
        Ok(CustomVerifier {
            definition,
            config_dir: config_dir.to_path_buf(),
            config_file: config_dir.join("verdict.toml"),
            set,
            patterns,
            summary,
        })
    }

    /// The definition it was built from.
    pub fn definition(&self) -> &Definition {
        &self.definition
    }

    fn cwd(&self) -> PathBuf {
        match &self.definition.cwd {
            Some(cwd) => self.config_dir.join(cwd),
            None => self.config_dir.clone(),
        }
    }

    /// Reads the log and judges the run (see the crate docs).
    fn judge(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let program = &self.definition.command[0];
        let code = match &captured.exit {
            Exit::Code { code } => Some(*code),
            _ => None,
        };
        let mut report = match self.read_log(captured) {
            ControlFlow::Continue(report) => report,
            ControlFlow::Break(report) => return report,
        };
        // A failing test is counted once, as a test: TAP's `not ok` lines are tests failed, not
        // errors besides them.
        let errors = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter(|d| report.counts.tests_failed.is_none() || !d.is_failed_test())
            .count() as u64
            + report.diagnostics_dropped;
        let warnings = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .count() as u64;
        let summary_failures = report.counts.tests_failed.unwrap_or(0)
            + report.counts.errors.unwrap_or(0)
            + report.counts.suites_errored.unwrap_or(0);
        if report.counts.errors.is_none() {
            report.counts.errors = Some(errors);
        }
        if report.counts.warnings.is_none() {
            report.counts.warnings = Some(warnings);
        }
        let errored = |mut report: Report, reason: String| {
            report.outcome = Outcome::Errored;
            report.error = Some(reason);
            report
        };
        let Some(code) = code else {
            let reason = match &captured.exit {
                Exit::TimedOut => format!(
                    "{program} timed out after {}s and was stopped",
                    spec.timeout.as_secs()
                ),
                Exit::Cancelled => format!("{program} was stopped: the run was interrupted"),
                Exit::Signal { signal } => format!("{program} was killed by signal {signal}"),
                Exit::NotStarted { message } => message.clone(),
                Exit::Code { .. } => String::new(),
            };
            return errored(report, reason);
        };
        let understood_errors = errors > 0 || report.counts.errors.unwrap_or(0) > 0;
        if self.definition.pass_exit_codes.contains(&code) {
            if understood_errors || summary_failures > 0 {
                let found = errors.max(summary_failures);
                return errored(
                    report,
                    format!(
                        "{program} exited with {code}, which means a pass, but {found} error(s) \
                         matched its patterns; the two disagree, so nothing is verified (fix the \
                         patterns or `pass_exit_codes`)"
                    ),
                );
            }
            report.outcome = Outcome::Passed;
        } else if self.definition.fail_exit_codes.contains(&code) {
            if errors + warnings == 0 && summary_failures == 0 {
                let reason = if self.patterns.is_empty() {
                    format!(
                        "{program} exited {code} but no line of its output looked like an error \
                         or a warning (it has no patterns); see the log"
                    )
                } else {
                    format!("{program} exited {code} but no line matched its patterns; see the log")
                };
                return errored(report, reason);
            }
            report.outcome = Outcome::Failed;
            report.error = None;
        } else {
            return errored(
                report,
                format!(
                    "{program} exited with {code}, which is neither a pass ({}) nor failures in \
                     the code ({}): it may have crashed or rejected its input; see the log",
                    list(&self.definition.pass_exit_codes),
                    list(&self.definition.fail_exit_codes),
                ),
            );
        }
        report
    }

    /// The report of the log before the exit code is weighed: the generic reader's without
    /// patterns, else the patterns' scan. `Break` is the final report of a log that says the tool
    /// crashed or never ran, or that cannot be read.
    fn read_log(&self, captured: &Captured) -> ControlFlow<Report, Report> {
        let name = self.definition.name.as_str();
        if self.patterns.is_empty() {
            let mut report = verdict_verifier_support::summarize_log_as("generic", captured);
            report.tool = name.to_owned();
            for diagnostic in &mut report.diagnostics {
                diagnostic.tool = name.to_owned();
                diagnostic.kind = self.definition.kind.kind();
            }
            report.refresh_fingerprints();
            let unplaced = report.error.as_deref().is_some_and(|error| {
                error == verdict_summarizers::generic::UNPLACED
                    || error == verdict_summarizers::generic::EMPTY
            });
            if unplaced {
                // Nothing in the log the generic reader knows: the command is the project's own,
                // so its exit code decides, as with patterns that match nothing (below).
                let mut empty = Report::new(name, Outcome::Passed);
                empty.notes = report.notes;
                ControlFlow::Continue(empty)
            } else if report.outcome == Outcome::Errored && report.error.is_some() {
                // The generic summarizer read a crash or a tool that never ran.
                ControlFlow::Break(report)
            } else {
                ControlFlow::Continue(report)
            }
        } else {
            match self.scan(captured) {
                Ok(report) => ControlFlow::Continue(report),
                Err(error) => ControlFlow::Break(Report::errored(
                    name,
                    format!("failed to read {}: {error}", captured.log_path.display()),
                )),
            }
        }
    }

    /// Streams the log through the patterns.
    fn scan(&self, captured: &Captured) -> std::io::Result<Report> {
        let name = self.definition.name.as_str();
        let mut report = Report::new(name, Outcome::Passed);
        let mut kept = 0usize;
        let mut summary_line: Option<String> = None;
        let file = captured.open_log()?;
        for_each_line(std::io::BufReader::new(file), |line| {
            if let Some(summary) = &self.summary
                && summary.is_match(line)
            {
                summary_line = Some(line.trim().to_owned());
            }
            let Some(index) = self.set.matches(line).iter().next() else {
                return;
            };
            let pattern = &self.patterns[index];
            let Some(caps) = pattern.regex.captures(line) else {
                return;
            };
            let text = |group: &str| {
                caps.name(group)
                    .map(|m| m.as_str().trim())
                    .filter(|s| !s.is_empty())
            };
            let severity =
                text("severity").map_or(pattern.severity, |s| parse_severity(s, pattern.severity));
            if kept >= MAX_DIAGNOSTICS {
                // Past the cap only errors are counted (warnings are not needed for the outcome).
                if severity == Severity::Error {
                    report.diagnostics_dropped += 1;
                }
                return;
            }
            let message = text("message").unwrap_or("(no message)");
            let mut diagnostic = Diagnostic::new(name, pattern.kind, severity, message);
            if let Some(file) = text("file") {
                let number = |group: &str| text(group).and_then(|n| n.parse::<u32>().ok());
                diagnostic = diagnostic.at(
                    file,
                    number("line"),
                    number("col").or_else(|| number("column")),
                );
            }
            if let Some(code) = text("code") {
                diagnostic = diagnostic.with_code(code);
            }
            if let Some(test) = text("test") {
                diagnostic = diagnostic.with_test(test);
            }
            report.push(diagnostic);
            kept += 1;
        })?;
        if let (Some(regex), Some(line)) = (&self.summary, summary_line) {
            if let Some(caps) = regex.captures(&line) {
                let number = |group: &str| caps.name(group).and_then(|m| m.as_str().parse().ok());
                report.counts.tests_passed = number("passed");
                report.counts.tests_failed = number("failed");
                report.counts.tests_skipped = number("skipped");
                report.counts.errors = number("errors");
                report.counts.warnings = number("warnings");
            }
            report.summary = Some(line);
        }
        Ok(report)
    }
}

fn check_groups(
    regex: &Regex,
    allowed: &[&str],
    name: &str,
    place: &str,
) -> Result<(), DefinitionError> {
    match regex
        .capture_names()
        .flatten()
        .find(|g| !allowed.contains(g))
    {
        Some(group) => Err(DefinitionError::UnknownGroup {
            name: name.to_owned(),
            place: place.to_owned(),
            group: group.to_owned(),
            expected: allowed.join(", "),
        }),
        None => Ok(()),
    }
}

/// A captured severity word; what is not recognised falls back to the pattern's default.
fn parse_severity(text: &str, default: Severity) -> Severity {
    match text.to_ascii_lowercase().as_str() {
        "error" | "err" | "e" | "fatal" | "fatal error" | "failure" | "fail" | "failed" => {
            Severity::Error
        }
        "warning" | "warn" | "w" => Severity::Warning,
        "note" | "info" | "information" | "hint" | "i" | "help" => Severity::Info,
        _ => default,
    }
}

fn list(codes: &[i32]) -> String {
    if codes.is_empty() {
        return "none".to_owned();
    }
    codes
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Verifier for CustomVerifier {
    fn name(&self) -> &str {
        &self.definition.name
    }

    fn kind(&self) -> Kind {
        self.definition.kind.kind()
    }

    fn applies(&self, _workspace: &Workspace) -> Applicability {
        // The file it is defined in, as the user finds it in the project.
        let file = self.config_file.strip_prefix(&self.config_dir).map_or_else(
            |_| self.config_file.display().to_string(),
            |p| p.display().to_string(),
        );
        if self.definition.applies_if.is_empty() {
            return Applicability::Applies(format!("defined in {file}"));
        }
        let missing: Vec<String> = self
            .definition
            .applies_if
            .iter()
            .filter(|p| !self.config_dir.join(p).exists())
            .map(|p| p.display().to_string())
            .collect();
        if missing.is_empty() {
            let found: Vec<String> = self
                .definition
                .applies_if
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            Applicability::Applies(format!("defined in {file}; {}", found.join(", ")))
        } else {
            Applicability::DoesNotApply(format!(
                "defined in {file}, but {} not found",
                missing.join(", ")
            ))
        }
    }

    fn command(&self, _workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let cwd = self.cwd();
        let program = &self.definition.command[0];
        // A path with a slash is relative to the working directory the definition names (Rust
        // leaves a relative program with a changed cwd platform-defined); a bare name is looked
        // up on PATH when it runs.
        let program = if program.contains('/') {
            cwd.join(program)
        } else {
            PathBuf::from(program)
        };
        Ok(CommandSpec {
            program,
            args: self.definition.command[1..].to_vec(),
            env: self.definition.env.clone(),
            cwd,
            timeout: self.definition.timeout.unwrap_or(DEFAULT_TIMEOUT),
            exit_codes: ExitCodes {
                pass: self.definition.pass_exit_codes.clone(),
                fail: self.definition.fail_exit_codes.clone(),
            },
            output_files: Vec::new(),
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        self.judge(spec, captured)
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        if self.definition.inputs.is_empty() {
            return None;
        }
        // Inputs are written relative to verdict.toml; the cache wants them relative to the root.
        let prefix = self
            .config_dir
            .strip_prefix(&workspace.root)
            .ok()?
            .to_string_lossy()
            .into_owned();
        let globs = self
            .definition
            .inputs
            .iter()
            .map(|glob| {
                let (negated, glob) = match glob.strip_prefix('!') {
                    Some(rest) => ("!", rest),
                    None => ("", glob.as_str()),
                };
                let glob = glob.trim_start_matches("./");
                if prefix.is_empty() {
                    format!("{negated}{glob}")
                } else if let Some(anchored) = glob.strip_prefix('/') {
                    format!("{negated}/{prefix}/{anchored}")
                } else if glob.trim_end_matches('/').contains('/') {
                    format!("{negated}{prefix}/{glob}")
                } else {
                    // In gitignore syntax a slash-free glob matches at any depth; keep that
                    // below the config's directory.
                    format!("{negated}{prefix}/**/{glob}")
                }
            })
            .collect();
        // The definition lives in the config file, and a `./script` is part of the tool.
        let mut tool_files = vec![self.config_file.clone()];
        if self.definition.command[0].contains('/') {
            tool_files.push(self.cwd().join(&self.definition.command[0]));
        }
        Some(Inputs {
            globs,
            tool_files,
            root: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn definition(toml_text: &str) -> Definition {
        toml::from_str(toml_text).expect("valid definition")
    }

    fn check_error(toml_text: &str, expect: &str) {
        let error = CustomVerifier::new(definition(toml_text), Path::new("/project"))
            .expect_err("the definition is invalid");
        assert_eq!(error.to_string(), expect);
    }

    #[test]
    fn names() {
        for name in ["a", "gcc", "my-check_2", "0day"] {
            assert!(valid_name(name), "{name}");
        }
        for name in ["", "-a", "_a", "A", "my check", "é", "a.b"] {
            assert!(!valid_name(name), "{name}");
        }
    }

    #[test]
    fn invalid_definitions() {
        check_error(
            "name = 'Bad Name'\nkind = 'lint'\ncommand = ['x']",
            "invalid verifier name `Bad Name`: use lowercase letters, digits, `-` and `_`, starting with a letter or digit",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = []",
            "verifier `x`: `command` is empty; give the program and its arguments as an array",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = ['', 'a']",
            "verifier `x`: `command` is empty; give the program and its arguments as an array",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = ['x']\npass_exit_codes = []",
            "verifier `x`: `pass_exit_codes` is empty, so it could never pass",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = ['x']\nfail_exit_codes = [1, 0]",
            "verifier `x`: exit code 0 is in both `pass_exit_codes` and `fail_exit_codes`",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = ['x']\nneeds = ['build', 'x']",
            "verifier `x` needs itself",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = ['x']\n[[pattern]]\nregex = '(?P<message>.*)'\n[[pattern]]\nregex = '(?P<message>[a-'",
            "verifier `x`: pattern 2: invalid regex: regex parse error:\n    (?P<message>[a-\n                ^\nerror: unclosed character class",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = ['x']\n[[pattern]]\nregex = '(?P<file>\\S+): (?P<msg>.*)'",
            "verifier `x`: pattern 1: unknown group `msg`; groups are file, line, col, column, severity, code, message, test",
        );
        check_error(
            "name = 'x'\nkind = 'lint'\ncommand = ['x']\n[[pattern]]\nregex = '(?P<file>\\S+): .*'",
            "verifier `x`: pattern 1 has no `(?P<message>…)` group",
        );
        check_error(
            "name = 'x'\nkind = 'test'\ncommand = ['x']\nsummary = '(?P<passed>\\d+) passed, (?P<failures>\\d+)'",
            "verifier `x`: summary: unknown group `failures`; groups are passed, failed, skipped, errors, warnings",
        );
    }

    #[test]
    fn command_resolves_relative_programs_against_cwd() {
        let verifier = CustomVerifier::new(
            definition(
                "name = 'x'\nkind = 'other'\ncommand = ['./scripts/check', '--all']\ncwd = 'sub'\ntimeout = '90s'\nenv = { A = '1' }",
            ),
            Path::new("/project"),
        )
        .expect("valid");
        let spec = verifier
            .command(&Workspace::new("/project"))
            .expect("a command");
        assert_eq!(spec.program, PathBuf::from("/project/sub/./scripts/check"));
        assert_eq!(spec.args, vec!["--all".to_owned()]);
        assert_eq!(spec.cwd, PathBuf::from("/project/sub"));
        assert_eq!(spec.timeout, Duration::from_secs(90));
        assert_eq!(spec.env.get("A").map(String::as_str), Some("1"));
        assert_eq!(spec.exit_codes.pass, vec![0]);
        assert_eq!(spec.exit_codes.fail, vec![1]);
        assert_eq!(verifier.kind(), Kind::Custom);

        let bare = CustomVerifier::new(
            definition("name = 'y'\nkind = 'lint'\ncommand = ['make', 'lint']"),
            Path::new("/project"),
        )
        .expect("valid");
        let spec = bare
            .command(&Workspace::new("/project"))
            .expect("a command");
        assert_eq!(spec.program, PathBuf::from("make"));
        assert_eq!(spec.cwd, PathBuf::from("/project"));
        assert_eq!(spec.timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn inputs_are_relative_to_the_root() {
        let verifier = CustomVerifier::new(
            definition(
                "name = 'x'\nkind = 'lint'\ncommand = ['./check']\ninputs = ['src/**/*.c', '!src/gen/**', '*.h', '/Makefile']",
            ),
            Path::new("/project/sub"),
        )
        .expect("valid");
        let inputs = verifier
            .inputs(&Workspace::new("/project"))
            .expect("inputs");
        assert_eq!(
            inputs.globs,
            vec![
                "sub/src/**/*.c",
                "!sub/src/gen/**",
                "sub/**/*.h",
                "/sub/Makefile"
            ]
        );
        assert_eq!(
            inputs.tool_files,
            vec![
                PathBuf::from("/project/sub/verdict.toml"),
                PathBuf::from("/project/sub/./check")
            ]
        );
        let none = CustomVerifier::new(
            definition("name = 'x'\nkind = 'lint'\ncommand = ['x']"),
            Path::new("/project"),
        )
        .expect("valid");
        assert_eq!(none.inputs(&Workspace::new("/project")), None);
    }

    #[test]
    fn unknown_fields_and_kinds_are_rejected() {
        let error = toml::from_str::<Definition>("name = 'x'\nkind = 'lint'\ncomand = ['x']")
            .expect_err("unknown field");
        assert!(
            error.message().contains("unknown field `comand`"),
            "{error}"
        );
        let error = toml::from_str::<Definition>("name = 'x'\nkind = 'style'\ncommand = ['x']")
            .expect_err("unknown kind");
        assert!(
            error.message().contains("unknown variant `style`"),
            "{error}"
        );
        let other: Definition =
            toml::from_str("name = 'x'\nkind = 'custom'\ncommand = ['x']").expect("alias");
        assert_eq!(other.kind, DefinitionKind::Other);
    }

    #[test]
    fn severity_words() {
        assert_eq!(parse_severity("ERROR", Severity::Warning), Severity::Error);
        assert_eq!(parse_severity("warn", Severity::Error), Severity::Warning);
        assert_eq!(parse_severity("note", Severity::Error), Severity::Info);
        assert_eq!(
            parse_severity("bogus", Severity::Warning),
            Severity::Warning
        );
    }
}
