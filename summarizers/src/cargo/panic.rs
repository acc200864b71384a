//! A test's panic, as a failure block or the output around a loose panic shows it: where it
//! panicked, its message and detail. The nextest summarizer reads nextest's output with it too.

use verdict_model::{Diagnostic, Kind, Severity};

use super::{MAX_DETAIL, MAX_MESSAGE};
use crate::text::{clip, split_location};

/// How many lines of a panic message are kept (the first is the message, the rest the detail).
const MAX_PANIC_LINES: usize = 8;

/// `panicked at `, searched with a prebuilt finder on every line of a failure block.
pub(super) static PANICKED: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("panicked at "));

/// What a failure block (or a loose panic) says. The nextest summarizer reads the output nextest
/// shows of each failing test with it too.
#[derive(Default, Clone)]
pub(crate) struct Panic {
    pub(super) location: Option<(String, u32, Option<u32>)>,
    /// The message lines: the first is the message, the rest the detail.
    pub(super) lines: Vec<String>,
    /// Whether message lines are still being read.
    pub(super) reading: bool,
    /// An old-style (`panicked at 'msg', file:l:c`) message still open across lines.
    quoted: bool,
    /// A fallback message when nothing panicked (`Error: …`, `Test executable failed`).
    fallback: Option<String>,
    /// What a `#[should_panic(expected = …)]` test expected, when it panicked with another
    /// message (libtest's `note: panic did not contain expected string`).
    expected: Option<String>,
    /// Whether the lines of that note are being read.
    in_expected_note: bool,
}

impl Panic {
    /// Feeds one line of a failure block or of the output around a loose panic.
    pub(crate) fn line(&mut self, line: &str) {
        if line.starts_with("note: panic did not contain expected string") {
            // After the panic: `      panic message: "bang"`, ` expected substring: "boom"`.
            self.reading = false;
            self.in_expected_note = true;
            return;
        }
        if self.in_expected_note {
            let trimmed = line.trim();
            if trimmed.starts_with("panic message:") {
                return;
            }
            self.in_expected_note = false;
            if let Some(expected) = trimmed.strip_prefix("expected substring:") {
                self.expected = Some(clip(expected.trim(), MAX_MESSAGE));
                return;
            }
        }
        // libtest of 2016 indented the panic line of a failure block by a tab, and placed it
        // by file and line only (`\tthread 'x' panicked at 'msg', src/x.rs:9`).
        let unindented = line.trim_start_matches(['\t', ' ']);
        if let Some(at) = PANICKED.find(unindented.as_bytes())
            && unindented.starts_with("thread '")
            && self.location.is_none()
            && self.lines.is_empty()
        {
            let rest = &unindented[at + "panicked at ".len()..];
            if let Some(quoted) = rest.strip_prefix('\'') {
                // Before Rust 1.73: `panicked at 'message', src/x.rs:3:5`.
                self.quoted = true;
                self.reading = true;
                self.quoted_line(quoted);
            } else {
                self.location = split_location(rest.trim_end().trim_end_matches(':'))
                    .map(|(f, l, c)| (f.to_owned(), l, c));
                self.reading = true;
            }
            return;
        }
        if self.reading {
            if self.quoted {
                self.quoted_line(line);
                return;
            }
            if line.is_empty()
                || line.starts_with("note: ")
                || line.starts_with("stack backtrace:")
                || line.starts_with("thread '")
            {
                self.reading = false;
                return;
            }
            if self.lines.len() < MAX_PANIC_LINES {
                self.lines.push(line.trim().to_owned());
            }
            return;
        }
        if self.fallback.is_none() && self.lines.is_empty() {
            if let Some(rest) = line.strip_prefix("note: test did not panic as expected") {
                self.fallback = Some("test did not panic as expected".to_owned());
                if let Some(location) = rest.strip_prefix(" at ") {
                    self.location =
                        split_location(location.trim()).map(|(f, l, c)| (f.to_owned(), l, c));
                }
            } else if line.starts_with("Error: ") {
                // A test that returned `Err`: libtest prints the error's Debug form.
                self.fallback = Some(line.to_owned());
            } else if line.starts_with("error") && line.contains(": ") {
                // A doc-test that does not compile shows rustc's diagnostics.
                self.fallback = Some(line.to_owned());
            } else if line.starts_with("Test executable failed") {
                self.fallback = Some(line.to_owned());
            }
        }
    }

    /// Reads one line of an old-style quoted panic message, which ends with `', file:l:c`.
    fn quoted_line(&mut self, line: &str) {
        if let Some((message, location)) = line.rsplit_once("', ")
            && let Some((f, l, c)) = split_location(location.trim())
        {
            if self.lines.len() < MAX_PANIC_LINES {
                self.lines.push(message.trim().to_owned());
            }
            self.location = Some((f.to_owned(), l, c));
            self.quoted = false;
            self.reading = false;
            return;
        }
        if self.lines.len() < MAX_PANIC_LINES {
            self.lines.push(line.trim().to_owned());
        }
    }

    /// The failure of test `name` that this panic explains: its message (else `fallback`), where
    /// it panicked, and the rest of the message as the detail.
    pub(crate) fn test_diagnostic(&self, tool: &str, name: &str, fallback: &str) -> Diagnostic {
        let message = self.message().unwrap_or_else(|| fallback.to_owned());
        let mut d = Diagnostic::new(
            tool,
            Kind::Test,
            Severity::Error,
            clip(&message, MAX_MESSAGE),
        )
        .with_test(name);
        if let Some((file, line, column)) = &self.location {
            d = d.at(file.clone(), Some(*line), *column);
        }
        if let Some(detail) = self.detail() {
            d = d.with_detail(detail);
        }
        d
    }

    /// Whether the panic (or a fallback line) said anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.location.is_none() && self.lines.is_empty() && self.fallback.is_none()
    }

    pub(super) fn message(&self) -> Option<String> {
        self.lines
            .iter()
            .find(|l| !l.is_empty())
            .cloned()
            .or_else(|| self.fallback.clone())
    }

    pub(super) fn detail(&self) -> Option<String> {
        // The panic's message alone reads like any failure: say what the test wanted instead.
        let mismatch = self
            .expected
            .as_ref()
            .map(|expected| format!("panic did not contain expected string {expected}"));
        let first = self.lines.iter().position(|l| !l.is_empty());
        let rest: Vec<&str> = first
            .map(|first| &self.lines[first + 1..])
            .unwrap_or_default()
            .iter()
            .map(|l| l.trim_end_matches(','))
            .filter(|l| !l.is_empty())
            .collect();
        let detail: Vec<&str> = mismatch.as_deref().into_iter().chain(rest).collect();
        if detail.is_empty() {
            None
        } else {
            Some(clip(&detail.join(", "), MAX_DETAIL))
        }
    }
}
