//! An example verdict plugin: `git-diff-check`, whitespace errors in the changes not yet committed.
//!
//! It describes `git diff --check HEAD` (or against the revision in `VERDICT_GIT_DIFF_CHECK_BASE`,
//! e.g. `origin/main` in CI) and reads what git prints:
//!
//! ```text
//! src/a.rs:3: trailing whitespace.
//! +let x = 1;   
//! src/a.rs:9: new blank line at EOF.
//! ```
//!
//! git exits 2 when it found whitespace errors and 0 when there were none. The check covers
//! tracked files only: a new file counts once it is added to the index (`git add -N` is enough).
//! Which errors git flags follows the project's `core.whitespace` and `.gitattributes`.
//!
//! Like every verifier, it never spawns a process: verdict runs the command and hands the log back.
//! Build it with `cargo xtask plugin` and name the library in `verdict.toml`.

use std::collections::BTreeSet;
use std::sync::LazyLock;
use std::time::Duration;

use regex::Regex;
use verdict_model::lines::for_each_line;
use verdict_model::model::{Diagnostic, Kind, Outcome, Report, Severity};
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Verifier, VerifierError, Workspace,
};

/// The environment variable naming the revision to compare the working tree with (default `HEAD`).
pub const BASE_VARIABLE: &str = "VERDICT_GIT_DIFF_CHECK_BASE";

/// The verifier's name.
const NAME: &str = "git-diff-check";

verdict_plugin_abi::export!(GitDiffCheck::from_env());

/// `git diff --check`: whitespace errors (trailing whitespace, a space before a tab in an indent,
/// blank lines added at the end of a file, leftover conflict markers) in the changes against a base
/// revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitDiffCheck {
    /// The revision the working tree is compared with.
    base: String,
}

impl GitDiffCheck {
    /// Compares with `base` (a revision git understands: `HEAD`, `origin/main`, a commit).
    pub fn new(base: impl Into<String>) -> Self {
        GitDiffCheck { base: base.into() }
    }

    /// Compares with the revision in [`BASE_VARIABLE`], or `HEAD`.
    pub fn from_env() -> Self {
        match std::env::var(BASE_VARIABLE) {
            Ok(base) if !base.trim().is_empty() => GitDiffCheck::new(base.trim()),
            _ => GitDiffCheck::new("HEAD"),
        }
    }
}

impl Verifier for GitDiffCheck {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Lint
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        match workspace
            .root
            .ancestors()
            .find(|dir| dir.join(".git").exists())
        {
            Some(dir) if dir == workspace.root => Applicability::Applies(".git".to_owned()),
            Some(dir) => Applicability::Applies(format!("{}", dir.join(".git").display())),
            None => Applicability::DoesNotApply(
                "not in a git repository (no .git here or above)".to_owned(),
            ),
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        // A revision starting with `-` would be read as an option.
        if self.base.starts_with('-') {
            return Err(VerifierError::Project {
                tool: NAME.to_owned(),
                message: format!("{BASE_VARIABLE}=`{}` is not a revision", self.base),
            });
        }
        let args = [
            "--no-pager",
            // Colour and quoted paths would change the lines this verifier parses.
            "-c",
            "color.ui=never",
            "-c",
            "core.quotepath=off",
            "diff",
            "--no-ext-diff",
            "--check",
            &self.base,
            "--",
        ];
        Ok(CommandSpec {
            program: "git".into(),
            args: args.iter().map(|arg| (*arg).to_owned()).collect(),
            // git translates its messages; the parser reads the English ones.
            env: [("LC_ALL".to_owned(), "C".to_owned())].into(),
            cwd: workspace.root.clone(),
            timeout: Duration::from_secs(120),
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![2],
            },
            output_files: Vec::new(),
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let code = match &captured.exit {
            Exit::Code { code } => *code,
            Exit::NotStarted { message } => {
                return Report::errored(
                    NAME,
                    format!("failed to start git: {message} (is git installed?)"),
                );
            }
            Exit::Signal { signal } => {
                return Report::errored(NAME, format!("git was killed by signal {signal}"));
            }
            Exit::TimedOut => {
                return Report::errored(
                    NAME,
                    format!("git timed out after {} s", spec.timeout.as_secs()),
                );
            }
            Exit::Cancelled => return Report::errored(NAME, "cancelled"),
        };
        let parsed = match captured.open_log() {
            Ok(log) => match parse(log) {
                Ok(parsed) => parsed,
                Err(error) => {
                    return Report::errored(NAME, format!("failed to read git's output: {error}"));
                }
            },
            Err(error) => {
                return Report::errored(
                    NAME,
                    format!(
                        "failed to open the log {}: {error}",
                        captured.log_path.display()
                    ),
                );
            }
        };
        report(&spec.exit_codes, code, parsed)
    }
}

/// What git printed.
#[derive(Debug, Default)]
struct Parsed {
    diagnostics: Vec<Diagnostic>,
    /// Lines that were neither a whitespace error nor the offending line (git's own errors).
    other: Vec<String>,
}

/// `path:line: message.` — the greedy path makes the last `:<digits>: ` the separator, so a path
/// holding one still parses.
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::unwrap_used)] // A constant pattern, checked by every test.
    Regex::new(r"^(.+):([0-9]+): (.+)$").unwrap()
});

fn parse(log: impl std::io::Read) -> std::io::Result<Parsed> {
    let mut parsed = Parsed::default();
    for_each_line(log, |line| {
        if let Some(captures) = ERROR_LINE.captures(line) {
            let (file, number, message) = (&captures[1], &captures[2], &captures[3]);
            let message = message.trim_end_matches('.');
            let mut diagnostic = Diagnostic::new(NAME, Kind::Lint, Severity::Error, message).at(
                file,
                number.parse().ok(),
                None,
            );
            if let Some(code) = code(message) {
                diagnostic = diagnostic.with_code(code);
            }
            parsed.diagnostics.push(diagnostic);
        } else if let Some(offending) = line.strip_prefix('+') {
            // The offending line follows its error; show its whitespace.
            if let Some(last) = parsed.diagnostics.last_mut()
                && last.detail.is_none()
            {
                *last = last.clone().with_detail(visible_whitespace(offending));
            }
        } else if !line.trim().is_empty() && parsed.other.len() < 20 {
            parsed.other.push(line.to_owned());
        }
    })?;
    Ok(parsed)
}

fn report(exit_codes: &ExitCodes, code: i32, parsed: Parsed) -> Report {
    let passing = exit_codes.pass.contains(&code);
    let failing = exit_codes.fail.contains(&code);
    if !passing && !failing {
        let said = if parsed.other.is_empty() {
            "and printed no error".to_owned()
        } else {
            parsed.other.join("\n")
        };
        return Report::errored(NAME, format!("git exited with code {code}: {said}"));
    }
    if failing && parsed.diagnostics.is_empty() {
        return Report::errored(
            NAME,
            format!("git exited with code {code} but printed no whitespace error it could read"),
        );
    }
    let files: BTreeSet<&str> = parsed
        .diagnostics
        .iter()
        .filter_map(|d| d.file.as_deref())
        .collect();
    let errors = parsed.diagnostics.len() as u64;
    let files = files.len() as u64;
    let outcome = if errors == 0 {
        Outcome::Passed
    } else {
        Outcome::Failed
    };
    let mut report = Report::new(NAME, outcome);
    report.counts.errors = Some(errors);
    report.counts.files = Some(files);
    if errors > 0 {
        let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        report.summary = Some(format!(
            "{} in {}",
            plural(errors, "whitespace error"),
            plural(files, "file")
        ));
    }
    if passing && errors > 0 {
        report.note(format!(
            "git exited with code {code} although it printed whitespace errors"
        ));
    }
    for line in parsed.other {
        report.note(format!("unrecognised line: {line}"));
    }
    for diagnostic in parsed.diagnostics {
        report.push(diagnostic);
    }
    report
}

/// git's `core.whitespace` class for each message it prints (one line may have several, joined by
/// `, `).
fn code(message: &str) -> Option<String> {
    let classes: Option<Vec<&str>> = message
        .split(", ")
        .map(|part| match part {
            "trailing whitespace" => Some("blank-at-eol"),
            "space before tab in indent" => Some("space-before-tab"),
            "indent with spaces" => Some("indent-with-non-tab"),
            "tab in indent" => Some("tab-in-indent"),
            "new blank line at EOF" => Some("blank-at-eof"),
            "leftover conflict marker" => Some("conflict-marker"),
            _ => None,
        })
        .collect();
    classes.map(|classes| classes.join(","))
}

/// The line with its whitespace errors made visible (tabs as `→`, spaces as `·`) in the trailing
/// whitespace and in an indent holding a tab; other spaces stay as they are.
fn visible_whitespace(line: &str) -> String {
    let show = |c: char| match c {
        '\t' => '→',
        ' ' => '·',
        c => c,
    };
    let body = line.trim_end_matches([' ', '\t']);
    let trailing = &line[body.len()..];
    let text = body.trim_start_matches([' ', '\t']);
    let indent = &body[..body.len() - text.len()];
    let mut shown = String::with_capacity(line.len() + 8);
    if indent.contains('\t') {
        shown.extend(indent.chars().map(show));
    } else {
        shown.push_str(indent);
    }
    shown.push_str(&text.replace('\t', "→"));
    shown.extend(trailing.chars().map(show));
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(code: i32, log: &str, expect: &str) {
        let spec = GitDiffCheck::new("HEAD")
            .command(&Workspace::new("/p"))
            .expect("a command");
        let parsed = parse(log.as_bytes()).expect("reads");
        let report = report(&spec.exit_codes, code, parsed);
        let mut shown = report.outcome.as_str().to_owned();
        if let Some(summary) = &report.summary {
            shown += &format!(" | {summary}");
        }
        if let Some(error) = &report.error {
            shown += &format!(" | {error}");
        }
        for d in &report.diagnostics {
            shown += &format!(
                "\n{} {} {}",
                d.location().unwrap_or_default(),
                d.code.as_deref().unwrap_or("-"),
                d.detail.as_deref().unwrap_or("-")
            );
        }
        assert_eq!(shown, expect);
    }

    #[test]
    fn whitespace_errors_with_their_classes_and_lines() {
        check(
            2,
            "src/a b.rs:1: trailing whitespace.\n+let x = 1;  \nf:2:x.txt:4: space before tab in indent.\n+ \tc\nf.txt:7: new blank line at EOF.\n",
            "failed | 3 whitespace errors in 3 files\n\
             src/a b.rs:1 blank-at-eol let x = 1;··\n\
             f:2:x.txt:4 space-before-tab ·→c\n\
             f.txt:7 blank-at-eof -",
        );
    }

    #[test]
    fn several_errors_on_one_line() {
        check(
            2,
            "a.txt:3: trailing whitespace, space before tab in indent.\n+ \tx \n",
            "failed | 1 whitespace error in 1 file\na.txt:3 blank-at-eol,space-before-tab ·→x·",
        );
    }

    #[test]
    fn nothing_printed_and_exit_0_is_a_pass() {
        check(0, "", "passed");
    }

    #[test]
    fn exit_2_with_nothing_understood_is_errored() {
        check(
            2,
            "something else\n",
            "errored | git exited with code 2 but printed no whitespace error it could read",
        );
    }

    #[test]
    fn a_git_error_is_errored_with_its_message() {
        check(
            128,
            "fatal: ambiguous argument 'HEAD': unknown revision or path not in the working tree.\n",
            "errored | git exited with code 128: fatal: ambiguous argument 'HEAD': unknown revision or path not in the working tree.",
        );
    }

    #[test]
    fn a_base_that_looks_like_an_option_is_refused() {
        let error = GitDiffCheck::new("--output=/tmp/x")
            .command(&Workspace::new("/p"))
            .expect_err("refused");
        assert!(error.to_string().contains("is not a revision"), "{error}");
    }

    #[test]
    fn applies_only_inside_a_git_repository() {
        let dir = tempfile::tempdir().expect("temp dir");
        let verifier = GitDiffCheck::new("HEAD");
        let outside = verifier.applies(&Workspace::new(dir.path()));
        // A temp dir can itself sit in a repository on some machines; only check when it does not.
        if !dir.path().ancestors().any(|d| d.join(".git").exists()) {
            assert!(
                matches!(outside, Applicability::DoesNotApply(_)),
                "{outside:?}"
            );
        }
        std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
        let inside = verifier.applies(&Workspace::new(dir.path().join("sub")));
        assert_eq!(
            inside,
            Applicability::Applies(format!("{}", dir.path().join(".git").display()))
        );
    }

    #[test]
    fn not_started_is_errored() {
        let verifier = GitDiffCheck::new("HEAD");
        let spec = verifier.command(&Workspace::new("/p")).expect("a command");
        let captured = Captured {
            exit: Exit::NotStarted {
                message: "No such file or directory".into(),
            },
            log_path: "/nonexistent".into(),
            log_bytes: 0,
            log_cut: 0,
            output_files: vec![],
            duration: Duration::ZERO,
        };
        let report = verifier.interpret(&spec, &captured);
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(report.error.as_deref().unwrap_or("").contains("git"));
    }
}
