//! The `script` verifier: a command the project declares it runs to check itself (a
//! `package.json` script's command, a Makefile recipe line, a tox command) that no tool verifier
//! covers — `node test/run.js`, `standard`, `nyc mocha`, a second jest run with other options —
//! run as the project runs it, so that nothing the project checks passes silently.
//!
//! The command runs as its package manager would run it: a plain command from its argv (the
//! program looked up in `node_modules/.bin`, the project's virtualenv, then `PATH`), a line that
//! needs a shell (`a || b`, redirections, variables, globs) through `sh -c` with exactly the
//! project's text — never a line of verdict's own making. `node_modules/.bin` (and for a Python
//! project's commands its virtualenv's `bin`) comes first on `PATH`, as `npm run` and an activated
//! virtualenv put them; `CI=true` keeps watchers and prompts away.
//!
//! The exit code decides. The output is read by the summarizer that recognises it (a mocha run
//! under a coverage wrapper reads as mocha), else only the exit code speaks: a failing command
//! with nothing understood is a failure of the project's own check, named with its command and
//! the end of its log. A recognised test runner's log that shows no test ran is never a pass.
//!
//! Like every verifier crate, this one never spawns a process.

mod sections;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Infrastructure, Inputs, VerifierError,
    Workspace,
};
use verdict_model::{Diagnostic, Kind, Outcome, Report, Severity, Tool, Verifier, exit_reason};
use verdict_verifier_support::declared::{Command, Purpose};
use verdict_verifier_support::{infra, node_bin, summarize_log};

/// How long a script may run by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// How much of the log's start is read to recognise the tool that wrote it.
const SAMPLE_BYTES: u64 = 64 * 1024;

/// How much of the log's end a failure with nothing understood carries.
const TAIL_BYTES: u64 = 2 * 1024;

/// Whether `summarizer` reads a test runner's log, which counts tests.
fn is_test_runner(summarizer: &str) -> bool {
    Tool::ALL
        .iter()
        .map(|tool| tool.spec())
        .any(|spec| spec.is_test_runner() && spec.summarizers().any(|s| s == summarizer))
}

/// A declared command run as it is (see the crate docs).
#[derive(Debug, Clone)]
pub struct ScriptVerifier {
    name: String,
    command: Command,
    timeout: Duration,
}

impl ScriptVerifier {
    /// The verifier called `name` that runs `command`.
    pub fn new(name: impl Into<String>, command: Command) -> Self {
        ScriptVerifier {
            name: name.into(),
            command,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The command it runs.
    pub fn command(&self) -> &Command {
        &self.command
    }
}

/// The verifier name for `command`: `script:` and the script or target it comes from (the last
/// name in its origin: `test:edge`, `test`), or `script:tox`.
pub fn base_name(command: &Command) -> String {
    let last = command
        .origin
        .rsplit('`')
        .nth(1)
        .filter(|name| !name.trim().is_empty())
        .map(|name| {
            name.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.') {
                        c
                    } else {
                        '-'
                    }
                })
                .collect::<String>()
        });
    let base = match last {
        Some(name) => name,
        None if command.origin.contains("tox") => "tox".to_owned(),
        None => "command".to_owned(),
    };
    format!("script:{base}")
}

impl ScriptVerifier {
    /// `PATH` as the package manager puts it: the project's `node_modules/.bin` directories (the
    /// workspace's and its ancestors'), a Python command's virtualenv, then verdict's own `PATH`.
    fn path(&self, workspace: &Workspace) -> OsString {
        let mut dirs: Vec<PathBuf> = workspace
            .root
            .ancestors()
            .map(|dir| dir.join("node_modules").join(".bin"))
            .filter(|dir| dir.is_dir())
            .collect();
        if let Some(venv) = venv_bin(&workspace.root) {
            dirs.insert(0, venv);
        }
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        std::env::join_paths(dirs).unwrap_or_default()
    }

    /// The program of a plain command: a bare name found in `node_modules/.bin` or the
    /// virtualenv, a relative path resolved against the root, else the name for `PATH`.
    fn program(&self, workspace: &Workspace, word: &str) -> PathBuf {
        if word.contains('/') {
            return workspace.path(word);
        }
        if let Some(bin) = node_bin(workspace, word) {
            return bin;
        }
        if let Some(venv) = venv_bin(&workspace.root) {
            let candidate = venv.join(word);
            if candidate.is_file() {
                return candidate;
            }
        }
        PathBuf::from(word)
    }
}

/// The `bin` directory of the project's virtualenv (`.venv`, `venv`), if it has one.
fn venv_bin(root: &Path) -> Option<PathBuf> {
    [".venv", "venv", "env"]
        .iter()
        .map(|name| root.join(name).join("bin"))
        .find(|bin| bin.join("python").exists())
}

/// Whether `words` run one of coverage.py's reports (`coverage report --fail-under=90`, `python
/// -m coverage xml`), whose exit code 2 says the total is under the threshold.
fn reports_coverage(words: &[String]) -> bool {
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let rest = match words.as_slice() {
        [program, rest @ ..] if program.rsplit('/').next() == Some("coverage") => rest,
        [program, "-m", "coverage", rest @ ..]
            if program
                .rsplit('/')
                .next()
                .is_some_and(|p| p.starts_with("python")) =>
        {
            rest
        }
        _ => return false,
    };
    rest.first()
        .is_some_and(|sub| matches!(*sub, "report" | "html" | "xml" | "json" | "lcov"))
}

#[async_trait::async_trait]
impl Verifier for ScriptVerifier {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> Kind {
        match self.command.purpose {
            Purpose::Lint => Kind::Lint,
            Purpose::Typecheck => Kind::Type,
            // Not `Test`: a command whose output no summarizer reads cannot count its tests, and
            // the pipeline's "no test ran" check would fail every one. The interpretation checks
            // the logs that do count them.
            Purpose::Test => Kind::Custom,
        }
    }

    fn applies(&self, _workspace: &Workspace) -> Applicability {
        Applicability::Applies(format!(
            "{} runs `{}`, which no verifier covers; run as it is",
            self.command.origin, self.command.text
        ))
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        // A glob is the shell's to expand, as `npm run` would.
        let (program, args) = if self.command.shell || self.command.globs {
            (
                PathBuf::from("sh"),
                vec!["-c".to_owned(), self.command.text.clone()],
            )
        } else {
            let words = self.command.program_words();
            let Some(first) = words.first() else {
                return Err(VerifierError::Project {
                    tool: self.name.clone(),
                    message: format!("{} declares an empty command", self.command.origin),
                });
            };
            env.extend(self.command.env());
            (self.program(workspace, first), words[1..].to_vec())
        };
        env.insert(
            "PATH".to_owned(),
            self.path(workspace).to_string_lossy().into_owned(),
        );
        env.insert("CI".to_owned(), "true".to_owned());
        let make = program.file_name().is_some_and(|name| name == "make");
        // coverage.py's reports exit with 2 when the total is under `--fail-under`.
        let coverage_report = !self.command.shell && reports_coverage(self.command.program_words());
        Ok(CommandSpec {
            program,
            args,
            env,
            cwd: std::path::absolute(&workspace.root).unwrap_or_else(|_| workspace.root.clone()),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                // make reports a failed recipe with 2.
                fail: if make || coverage_report {
                    vec![1, 2]
                } else {
                    vec![1]
                },
            },
            output_files: Vec::new(),
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let (mut report, recognised, runners) = self.read(captured);
        let code = match captured.exit {
            Exit::Code { code } => code,
            // Signals, time-outs and starts that failed are the pipeline's to report.
            _ => return report,
        };
        if spec.exit_codes.fail.contains(&code) && report.outcome == Outcome::Passed {
            // The project's own check failed; what it printed is not understood beyond the
            // lines that say why (a coverage threshold, an error it printed last).
            report.outcome = Outcome::Failed;
            let reason = captured
                .open_log()
                .map(exit_reason::read)
                .unwrap_or_default();
            if !reason.thresholds.is_empty() {
                for line in &reason.thresholds {
                    let mut diagnostic =
                        Diagnostic::new(&self.name, self.kind(), Severity::Error, line);
                    diagnostic.code = Some("threshold".to_owned());
                    report.push(diagnostic);
                }
                return report;
            }
            let mut message = format!(
                "`{}` ({}) failed with exit code {code}",
                self.command.text, self.command.origin
            );
            if let Some(errors) = reason.one_line() {
                message.push_str(&format!(": {errors}"));
            }
            let mut diagnostic = Diagnostic::new(&self.name, self.kind(), Severity::Error, message);
            let tail = read_tail(captured);
            if !tail.trim().is_empty() {
                diagnostic = diagnostic.with_detail(tail);
            }
            report.push(diagnostic);
        } else if code == 0 && report.outcome == Outcome::Passed {
            let tests =
                report.counts.tests_passed.unwrap_or(0) + report.counts.tests_failed.unwrap_or(0);
            if runners && tests == 0 {
                report.outcome = Outcome::Errored;
                report.error = Some(format!(
                    "`{}` ({}) ran no test; a run that tests nothing is not a pass",
                    self.command.text, self.command.origin
                ));
            } else if !recognised {
                report.note(format!(
                    "no summarizer recognised the output of `{}`; its exit code 0 decided",
                    self.command.text
                ));
            }
        }
        report
    }

    fn inputs(&self, _workspace: &Workspace) -> Option<Inputs> {
        // A script may read anything, network included; it is never replayed from the cache.
        None
    }

    /// The files that declare the command, the project's own program or script it runs
    /// (`./scripts/test.sh`, `node test/run.js`), the modules and configs it names with the
    /// options most runners share (`--require`, `--import`, `--config`), its coverage
    /// wrapper's configuration, and what the tool it runs reads by name when it runs one in a
    /// way the tool's verifier does not (`c8 jest`, a second jest run: `jest.config.*`).
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        let configs = self
            .command
            .tool()
            .map(infra::tool_configs)
            .unwrap_or_default();
        let mut infra = self
            .command
            .sources
            .iter()
            .cloned()
            .fold(configs, infra::add);
        if self.command.shell {
            // What a shell line runs is not read word by word.
            return infra;
        }
        let words = self.command.runner_words();
        let mut files: Vec<String> = Vec::new();
        if let Some((program, args)) = words.split_first() {
            files.push(program.clone());
            let name = program.rsplit('/').next().unwrap_or(program);
            // An interpreter's script: the first word that is no option (`node test/run.js`).
            if matches!(
                name,
                "node" | "sh" | "bash" | "python" | "python3" | "tsx" | "ts-node"
            ) && let Some(script) = first_operand(args)
            {
                files.push(script.to_owned());
            }
        }
        files.extend(infra::option_values(
            &words,
            &[
                "-r",
                "--require",
                "--import",
                "--loader",
                "--experimental-loader",
                "--config",
                "--file",
            ],
            false,
        ));
        for file in files {
            if let Some(path) = infra::project_path(
                workspace,
                "",
                &file,
                &["", ".js", ".cjs", ".mjs", ".ts", ".py", ".sh"],
            ) {
                infra = infra::path(infra, &path);
            }
        }
        infra::coverage_wrapper(infra, &self.command)
    }
}

impl ScriptVerifier {
    /// The report of what the command printed: each part of a log of several tools (see
    /// [`sections`]) read by the summarizer that recognises it, or the whole log by the one
    /// that recognises its start; a passing report of the script's own when none does. Also
    /// whether any summarizer recognised the output, and whether it was a test runner's.
    fn read(&self, captured: &Captured) -> (Report, bool, bool) {
        if captured.log_bytes <= sections::MAX_SPLIT_BYTES {
            let mut bytes = Vec::new();
            if let Ok(file) = captured.open_log() {
                let _ = file.take(sections::MAX_SPLIT_BYTES).read_to_end(&mut bytes);
            }
            let text = String::from_utf8_lossy(&bytes);
            let parts = sections::split(&text);
            if parts.len() > 1 {
                let reports: Vec<Report> = parts.into_iter().filter_map(sections::read).collect();
                let runners = reports.iter().any(|r| is_test_runner(&r.tool));
                return if reports.is_empty() {
                    (Report::new(&self.name, Outcome::Passed), false, false)
                } else {
                    (sections::merge(&self.name, reports), true, runners)
                };
            }
        }
        let sample = read_head(captured);
        let detection = verdict_summarizers::detect(&sample);
        let recognised = detection.summarizer.name() != "generic"
            && detection.confidence >= verdict_summarizers::MIN_CONFIDENCE;
        if !recognised {
            return (Report::new(&self.name, Outcome::Passed), false, false);
        }
        let mut report = summarize_log(detection.summarizer, captured);
        report.note(format!("read as {}'s output", detection.summarizer.name()));
        // The report is the script's: its headline must not pass for the tool verifier's (a
        // second jest run beside the `jest` verifier's).
        report.tool.clone_from(&self.name);
        let runner = is_test_runner(detection.summarizer.name());
        (report, true, runner)
    }
}

/// The first word of an interpreter's arguments that is neither an option nor an option's value
/// (`node -r ./spy.cjs test/run.js` → `test/run.js`); `None` for `python -m module`.
fn first_operand(args: &[String]) -> Option<&str> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if !word.starts_with('-') {
            return Some(word);
        }
        match word.as_str() {
            "-m" | "-c" => return None,
            "-r"
            | "--require"
            | "--import"
            | "--loader"
            | "--experimental-loader"
            | "--env-file"
            | "-C"
            | "--conditions" => {
                words.next();
            }
            _ => {}
        }
    }
    None
}

/// The log's first [`SAMPLE_BYTES`], cleaned as the summarizers see lines.
fn read_head(captured: &Captured) -> String {
    let mut bytes = Vec::new();
    if let Ok(file) = captured.open_log() {
        let _ = file.take(SAMPLE_BYTES).read_to_end(&mut bytes);
    }
    verdict_model::lines::clean(&bytes)
}

/// The log's last [`TAIL_BYTES`], from a line start, cleaned.
fn read_tail(captured: &Captured) -> String {
    let mut bytes = Vec::new();
    if let Ok(mut file) = captured.open_log() {
        // The file's length: `log_bytes`, unless the log changed since.
        let len = file.metadata().map_or(captured.log_bytes, |m| m.len());
        let start = len.saturating_sub(TAIL_BYTES);
        if file.seek(SeekFrom::Start(start)).is_ok() {
            let _ = file.take(TAIL_BYTES).read_to_end(&mut bytes);
        }
        if start > 0
            && let Some(newline) = bytes.iter().position(|&b| b == b'\n')
        {
            bytes.drain(..=newline);
        }
    }
    verdict_model::lines::clean(&bytes).trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use verdict_verifier_support::declared::Declared;

    use super::*;

    /// The infrastructure of the script verifier of each declared command of a project of
    /// `files` that no verifier covers, one line a file (see `infra::lines`).
    fn check(files: &[(&str, &str)], expect: &[&[&str]]) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        let got: Vec<Vec<String>> = Declared::of(&workspace)
            .commands
            .into_iter()
            .filter(|command| command.verifier().is_none())
            .map(|command| {
                let verifier = ScriptVerifier::new(base_name(&command), command);
                infra::lines(&verifier.infrastructure(&workspace))
            })
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn infrastructure_names_the_declaration_and_the_scripts_it_runs() {
        check(
            &[
                (
                    "package.json",
                    r#"{"scripts": {"test": "node --require ./test/spy.cjs test/run.js && ./scripts/e2e.sh --fast"}}"#,
                ),
                ("test/run.js", ""),
                ("scripts/e2e.sh", ""),
            ],
            &[
                &[
                    "package.json json:scripts.pretest",
                    "package.json json:scripts.test",
                    "package.json json:scripts.posttest",
                    "test/run.js",
                    "test/spy.cjs",
                ],
                &[
                    "package.json json:scripts.pretest",
                    "package.json json:scripts.test",
                    "package.json json:scripts.posttest",
                    "scripts/e2e.sh",
                ],
            ],
        );
        check(
            &[("Makefile", "test:\n\tsh -c 'exit 0' || true\n")],
            &[&["Makefile"]],
        );
        // jest under c8, which its verifier does not run: jest's own files count.
        check(
            &[("package.json", r#"{"scripts": {"test": "c8 jest"}}"#)],
            &[&[
                "jest.config.*",
                "babel.config.*",
                "**/.babelrc",
                "**/.babelrc.*",
                "package.json json:jest",
                "package.json json:babel",
                "package.json json:scripts.pretest",
                "package.json json:scripts.test",
                "package.json json:scripts.posttest",
                ".c8rc",
                ".c8rc.json",
                ".nycrc",
                ".nycrc.json",
                "package.json json:c8",
            ]],
        );
    }
}
