//! rustc's diagnostics (a header, its location, the code frame and notes; the short format)
//! and cargo's own messages: its summaries and counts, its errors without a location and their
//! `Caused by:` chains.

use verdict_model::{Diagnostic, Kind, Severity};

use super::libtest::FailedTarget;
use super::panic::PANICKED;
use super::parser::{Parser, add};
use super::{MAX_DETAIL, MAX_MESSAGE, TOOL};
use crate::text::{clip, count_of, split_location};

/// `: error` and `: warning`, which follow the location in `--message-format short`.
static SHORT_ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(": error"));

static SHORT_WARNING: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(": warning"));

/// How many errors that cargo printed without a location are kept.
const MAX_UNLOCATED: usize = 20;

/// How many failing test targets are reported.
const MAX_TARGET_FAILURES: usize = 100;

/// A rustc diagnostic being read: its header and whatever of its body has been seen.
pub(super) struct Pending {
    pub(super) severity: Severity,
    pub(super) code: Option<String>,
    pub(super) message: String,
    pub(super) location: Option<(String, u32, Option<u32>)>,
    /// The primary label of the code frame (`expected `u32`, found `&str``).
    pub(super) label: Option<String>,
    /// The first `= note:` / `= help:` / `help:` that says something about this code.
    pub(super) help: Option<String>,
    /// What the linker said went wrong (`undefined symbol: foo`), in the notes of rustc's
    /// `linking with `cc` failed`, which otherwise show only the linker's command line.
    pub(super) linker: Option<String>,
    /// Lines read since the header (the location must be the first).
    pub(super) lines: u32,
}

/// The parts of a failed build script's output that cargo shows under `Caused by:`.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
pub(super) enum ScriptOutput {
    /// Not in a build script's output (cargo's own `Caused by:` lines).
    #[default]
    None,
    /// `--- stdout`: mostly `cargo:` directives and what the script looked at (openssl-sys
    /// prints some sixty lines of them), which would fill the message before the reason.
    Stdout,
    /// `--- stderr`: the reason, usually a panic.
    Stderr,
    /// The panic's backtrace in `--- stderr`.
    Backtrace,
}

/// The lint name in `#[warn(clippy::needless_range_loop)]`, `#[deny(unused)]`,
/// `#[allow(clippy::x)]`, or at the end of a clippy help link.
pub(super) fn lint_name(note: &str) -> Option<&str> {
    if let Some(at) = note.find("rust-clippy/") {
        let rest = &note[at..];
        let name = rest.rsplit_once('#')?.1;
        let name = name.trim_end_matches(|c: char| !c.is_alphanumeric() && c != '_');
        if !name.is_empty() {
            return Some(name);
        }
        return None;
    }
    for open in ["#[warn(", "#[deny(", "#[forbid(", "#[expect(", "#[allow("] {
        if let Some(at) = note.find(open) {
            let rest = &note[at + open.len()..];
            let end = rest.find(')')?;
            return Some(&rest[..end]);
        }
    }
    None
}

/// The part of a lint's message that every occurrence shares: the message without the names it
/// quotes (`function `a` is never used` → `function `` is never used`).
pub(super) fn lint_key(message: &str) -> String {
    let mut key = String::with_capacity(message.len());
    for (i, part) in message.split('`').enumerate() {
        if i % 2 == 0 {
            key.push_str(part);
        }
        key.push('`');
    }
    key
}

/// Whether an error message without a code is a syntax error: the parser's messages.
fn is_syntax_error(message: &str) -> bool {
    message.starts_with("expected ")
        || message.starts_with("unexpected ")
        || message.starts_with("this file contains an unclosed delimiter")
        || message.starts_with("mismatched closing delimiter")
        || message.starts_with("unmatched ")
        || message.starts_with("unterminated ")
        || message.starts_with("unknown start of token")
        || message.starts_with("incorrect close delimiter")
}

/// Whether a rustc code marks a likely root cause: unresolved imports and paths, a module file or
/// crate that cannot be found.
fn is_root_code(code: &str) -> bool {
    matches!(code, "E0432" | "E0433" | "E0583" | "E0463")
}

/// Whether a code is a rustc error code (`E0308`) rather than a lint name.
fn is_error_code(code: &str) -> bool {
    code.len() == 5 && code.starts_with('E') && code[1..].bytes().all(|b| b.is_ascii_digit())
}

/// The number after `due to ` in `could not compile … due to 3 previous errors` (`previous error`
/// without a number is one).
pub(super) fn due_to(line: &str) -> Option<u64> {
    let rest = &line[line.find("due to ")? + "due to ".len()..];
    if rest.starts_with("previous error") {
        return Some(1);
    }
    let digits: &str = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    digits.parse().ok()
}

/// The warning count in `… generated 3 warnings (1 duplicate)`, less the duplicates cargo already
/// reported for another target.
pub(super) fn generated(line: &str) -> Option<u64> {
    let rest = &line[line.find(" generated ")? + " generated ".len()..];
    let digits: &str = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    let n: u64 = digits.parse().ok()?;
    let duplicates = count_of(rest, "duplicate")
        .or_else(|| count_of(rest, "duplicates"))
        .unwrap_or(0);
    Some(n.saturating_sub(duplicates))
}

/// Warnings in `…; 2 warnings emitted` / `1 warning emitted`.
pub(super) fn emitted(line: &str) -> Option<u64> {
    count_of(line, "warnings").or_else(|| count_of(line, "warning"))
}

/// What went wrong in a linker's message: `rust-lld: error: undefined symbol: foo` (lld, the
/// default on x86-64 Linux since Rust 1.90), `/x/src/lib.rs:2: undefined reference to `foo'` (GNU
/// ld), `cannot find -lfoo`, `unable to find library -lfoo` (lld).
fn linker_problem(line: &str) -> Option<&str> {
    // Built once: every line of a diagnostic before its location is looked at.
    static MARKERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 4]> =
        std::sync::LazyLock::new(|| {
            [
                "undefined symbol: ",
                "undefined reference to ",
                "cannot find -l",
                "unable to find library ",
            ]
            .map(memchr::memmem::Finder::new)
        });
    MARKERS
        .iter()
        .find_map(|marker| marker.find(line.as_bytes()))
        .map(|at| line[at..].trim_end())
}

/// Whether a linker's problem is a library missing from the machine (`cannot find -lfoo`,
/// `unable to find library -lfoo`) rather than a symbol missing from the code.
fn is_missing_library(problem: &str) -> bool {
    problem.starts_with("cannot find -l") || problem.starts_with("unable to find library ")
}

/// A diagnostic in `--message-format short`: `src/lib.rs:3:5: error[E0308]: mismatched types`,
/// `src/lib.rs:1:5: warning: unused import: `x``. The location comes first, then the header.
pub(super) fn short_diagnostic(line: &str) -> Option<Pending> {
    let first = *line.as_bytes().first()?;
    if first.is_ascii_whitespace() || first == b'|' || first == b'=' {
        return None;
    }
    let bytes = line.as_bytes();
    let at = SHORT_ERROR
        .find(bytes)
        .into_iter()
        .chain(SHORT_WARNING.find(bytes))
        .min()?;
    let (file, line_no, column) = split_location(&line[..at])?;
    let column = column?;
    if file.contains(' ') && !file.contains(['/', '\\']) {
        return None;
    }
    let header = &line[at + 2..];
    let (severity, rest) = if let Some(rest) = header.strip_prefix("error") {
        (Severity::Error, rest)
    } else {
        (Severity::Warning, header.strip_prefix("warning")?)
    };
    let (code, message) = match rest.strip_prefix('[') {
        Some(rest) => {
            let (code, message) = rest.split_once("]: ")?;
            (Some(code.to_owned()), message)
        }
        None => (None, rest.strip_prefix(": ")?),
    };
    Some(Pending {
        severity,
        code,
        message: message.to_owned(),
        location: Some((file.to_owned(), line_no, Some(column))),
        label: None,
        help: None,
        linker: None,
        lines: 1,
    })
}

/// Notes that every lint carries and that say nothing about this occurrence.
pub(super) fn is_boilerplate(note: &str) -> bool {
    note.starts_with("for further information visit")
        || note.contains("on by default")
        || note.contains("implied by `")
        || note.starts_with("to override `")
        || note.starts_with("the lint level is defined here")
        || note.starts_with("`#[")
}

impl Parser {
    pub(super) fn finish_pending(&mut self) {
        let Some(mut p) = self.pending.take() else {
            return;
        };
        if let Some(code) = p.code.as_deref().filter(|c| !is_error_code(c))
            && self.lint_names.len() < 1000
        {
            let key = lint_key(&p.message);
            self.lint_names
                .entry(key)
                .or_insert_with(|| code.to_owned());
        }
        let Some((file, line, column)) = p.location.take() else {
            if p.severity == Severity::Error {
                match p.linker.as_deref().filter(|l| is_missing_library(l)) {
                    Some(library) => {
                        self.report
                            .missing_library
                            .get_or_insert_with(|| library.to_owned());
                    }
                    None => self.report.other_unlocated = true,
                }
                let message = match p.linker {
                    Some(linker) => format!("{}: {linker}", p.message),
                    None => p.message,
                };
                self.unlocated_error(message);
            }
            // A warning without a location is cargo talking about itself (an unused manifest
            // key, a profile setting); it says nothing about the code.
            return;
        };
        if file.ends_with("Cargo.toml")
            || file.ends_with("Cargo.lock")
            || file.ends_with(".cargo/config.toml")
        {
            // Cargo's own errors point into the manifest: nothing was built.
            if p.severity == Severity::Error && self.report.manifest_error.is_none() {
                self.report.manifest_error = Some(format!("{file}:{line}: {}", p.message));
            }
        }
        if self.report.full() {
            // Beyond the cap a diagnostic is only counted; building it would cost the time.
            self.report.dropped += 1;
            return;
        }
        if p.code.is_none() && !self.lint_names.is_empty() {
            // rustc names a lint only at its first occurrence; later ones share its message.
            p.code = self.lint_names.get(&lint_key(&p.message)).cloned();
        }
        let kind = match p.code.as_deref() {
            Some(code) if !is_error_code(code) => Kind::Lint,
            _ => Kind::Build,
        };
        let root = match p.code.as_deref() {
            Some(code) => is_root_code(code),
            None => p.severity == Severity::Error && is_syntax_error(&p.message),
        };
        let mut d = Diagnostic::new(TOOL, kind, p.severity, clip(&p.message, MAX_MESSAGE)).at(
            file,
            Some(line),
            column,
        );
        if let Some(code) = p.code {
            d = d.with_code(code);
        }
        if let Some(detail) = p.label.or(p.help) {
            d = d.with_detail(clip(&detail, MAX_DETAIL));
        }
        if root {
            d = d.as_root_cause();
        }
        self.report.push(d);
    }

    /// What a line of a `Caused by:` chain adds to its error: a failed build script's output is
    /// read for its reason (its standard error without the backtrace), and the build script's
    /// long path is left out of cargo's `process didn't exit successfully: `…` (exit status: 101)`.
    pub(super) fn caused_by_part(&mut self, line: &str) -> Option<String> {
        let trimmed = line.trim();
        if line.starts_with("   ")
            && trimmed.split(' ').next().is_some_and(|status| {
                matches!(
                    status,
                    "Compiling" | "Checking" | "Building" | "Finished" | "Fresh" | "Downloaded"
                )
            })
        {
            // cargo's status line (right-aligned, so indented by more than the chain's two
            // spaces): the chain has ended.
            self.caused_by = false;
            return None;
        }
        match trimmed {
            "--- stdout" => {
                self.script_output = ScriptOutput::Stdout;
                return None;
            }
            "--- stderr" => {
                self.script_output = ScriptOutput::Stderr;
                return None;
            }
            _ => {}
        }
        match self.script_output {
            ScriptOutput::Stdout | ScriptOutput::Backtrace => None,
            ScriptOutput::Stderr => {
                if trimmed == "stack backtrace:" {
                    self.script_output = ScriptOutput::Backtrace;
                    return None;
                }
                if trimmed.starts_with("note: ") {
                    return None;
                }
                if trimmed.starts_with("thread '")
                    && let Some(at) = PANICKED.find(trimmed.as_bytes())
                {
                    // `thread 'main' (12570) panicked at /…/build/main.rs:207:9:`
                    return Some(trimmed[at..].trim_end_matches(':').to_owned());
                }
                Some(trimmed.to_owned())
            }
            ScriptOutput::None => {
                if let Some(rest) = trimmed.strip_prefix("process didn't exit successfully: `")
                    && let Some((_, status)) = rest.rsplit_once("` (")
                {
                    return Some(format!("process didn't exit successfully ({status}"));
                }
                Some(trimmed.to_owned())
            }
        }
    }

    pub(super) fn unlocated_error(&mut self, message: String) {
        if self.unlocated.len() < MAX_UNLOCATED {
            self.unlocated.push(clip(&message, MAX_MESSAGE));
        }
    }

    /// A line that starts like a diagnostic (`error[E0308]: …`, `warning: …`): cargo's own
    /// summaries and markers are read for their counts, anything else opens a rustc diagnostic.
    /// `false` when the line is not of that shape.
    pub(super) fn header(&mut self, line: &str) -> bool {
        let (severity, rest) = if let Some(rest) = line.strip_prefix("error") {
            (Severity::Error, rest)
        } else if let Some(rest) = line.strip_prefix("warning") {
            (Severity::Warning, rest)
        } else {
            return false;
        };
        let (code, message) = if let Some(rest) = rest.strip_prefix('[') {
            let Some((code, message)) = rest.split_once("]: ") else {
                return false;
            };
            (Some(code.to_owned()), message)
        } else if let Some(message) = rest.strip_prefix(": ") {
            (None, message)
        } else {
            return false;
        };
        self.finish_pending();
        self.caused_by = false;
        // Cargo's own lines that share the shape of a diagnostic.
        let cargos = match severity {
            Severity::Error => self.cargo_error(line, message),
            _ => self.cargo_warning(line, message),
        };
        if !cargos {
            self.pending = Some(Pending {
                severity,
                code,
                message: message.to_owned(),
                location: None,
                label: None,
                help: None,
                linker: None,
                lines: 0,
            });
        }
        true
    }

    /// cargo's and rustc's own `error: …` lines (the compile summary, `aborting due to`, a test
    /// target that failed, an internal compiler error); `true` when the line was one of them.
    fn cargo_error(&mut self, line: &str, message: &str) -> bool {
        // Cargo before 1.36 wrote `Could not compile `x`.`, and `build failed` at the end.
        if message == "build failed" {
            return true;
        }
        if message.starts_with("could not compile `") || message.starts_with("Could not compile `")
        {
            self.report.compile_failed = true;
            if let Some(n) = due_to(message) {
                add(&mut self.report.errors, n);
            }
            if let Some(n) = message.split_once("; ").and_then(|(_, w)| emitted(w)) {
                let target = message["could not compile ".len()..]
                    .split(" due to")
                    .next()
                    .unwrap_or("");
                self.report.target_warned(target, n);
            }
            self.report
                .compile_summary
                .get_or_insert_with(|| line.to_owned());
            return true;
        }
        if message.starts_with("aborting due to") {
            if let Some(n) = due_to(message) {
                add(&mut self.report.rustc_errors, n);
            }
            if let Some(n) = message.split_once("; ").and_then(|(_, w)| emitted(w)) {
                add(&mut self.report.rustc_warnings, n);
            }
            return true;
        }
        if let Some(rest) = message
            .strip_prefix("test failed, to rerun pass `")
            .or_else(|| message.strip_prefix("doctest failed, to rerun pass `"))
        {
            self.target_failed(rest);
            return true;
        }
        if message.ends_with(" targets failed:") || message.ends_with(" target failed:") {
            self.report.test_failed_marker = true;
            return true;
        }
        if message.starts_with("internal compiler error") {
            self.report.ice.get_or_insert_with(|| message.to_owned());
            return true;
        }
        false
    }

    /// `test failed, to rerun pass `--lib``: cargo names a test target that failed (`rest` is
    /// what follows the opening backtick).
    fn target_failed(&mut self, rest: &str) {
        self.report.test_failed_marker = true;
        if self.report.failed_targets.len() < MAX_TARGET_FAILURES {
            // It follows what the binary it names printed, unless that binary was libtest's,
            // whose output ended with its result.
            let output = if std::mem::take(&mut self.libtest_ended) {
                Vec::new()
            } else {
                std::mem::take(&mut self.output).into()
            };
            self.report.failed_targets.push(FailedTarget {
                target: clip(rest.split('`').next().unwrap_or(""), MAX_MESSAGE),
                status: None,
                output,
            });
        }
    }

    /// cargo's and rustc's own `warning: …` lines (a target's warning count, `N warnings
    /// emitted`); `true` when the line was one of them.
    fn cargo_warning(&mut self, line: &str, message: &str) -> bool {
        if message.starts_with('`') && message.contains(" generated ") {
            if let Some(n) = generated(message) {
                let target = message.split(" generated ").next().unwrap_or("");
                self.report.target_warned(target, n);
            }
            self.report
                .warning_summary
                .get_or_insert_with(|| line.to_owned());
            return true;
        }
        if message.ends_with("warnings emitted") || message.ends_with("warning emitted") {
            if let Some(n) = emitted(message) {
                add(&mut self.report.rustc_warnings, n);
            }
            return true;
        }
        message.starts_with("build failed, waiting for other jobs")
    }

    /// A line inside a rustc diagnostic: the location, the code frame, notes.
    pub(super) fn body(&mut self, line: &str) {
        let Some(p) = self.pending.as_mut() else {
            return;
        };
        p.lines += 1;
        let trimmed = line.trim_start();
        if p.location.is_none()
            && p.linker.is_none()
            && let Some(problem) = linker_problem(trimmed)
        {
            p.linker = Some(clip(problem, MAX_DETAIL));
        }
        if let Some(location) = trimmed.strip_prefix("--> ") {
            if p.lines == 1 {
                p.location =
                    split_location(location.trim_end()).map(|(f, l, c)| (f.to_owned(), l, c));
            }
            return;
        }
        if let Some(note) = trimmed
            .strip_prefix("= note: ")
            .or_else(|| trimmed.strip_prefix("= help: "))
        {
            if (p.code.is_none() || p.code.as_deref().is_some_and(|c| !is_error_code(c)))
                && let Some(name) = lint_name(note)
            {
                // The help link names a clippy lint exactly; a `#[warn(…)]` note may name
                // the lint group (`unused`) after the lint itself.
                if p.code.is_none() || note.contains("rust-clippy/") {
                    p.code = Some(if note.contains("rust-clippy/") && !name.contains("::") {
                        format!("clippy::{name}")
                    } else {
                        name.to_owned()
                    });
                }
            }
            if p.help.is_none() && !is_boilerplate(note) {
                p.help = Some(note.to_owned());
            }
            return;
        }
        if p.label.is_none() && trimmed.starts_with('|') {
            // The primary label follows the first run of carets: `|     ^^^ expected `u32``.
            if let Some(at) = trimmed.find('^') {
                let after = trimmed[at..].trim_start_matches('^');
                if let Some(label) = after.strip_prefix(' ')
                    && !label.is_empty()
                {
                    p.label = Some(label.trim().to_owned());
                }
            }
            return;
        }
        if p.help.is_none()
            && let Some(help) = trimmed.strip_prefix("help: ")
        {
            p.help = Some(help.to_owned());
        }
    }
}
