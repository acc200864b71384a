//! cargo's JSON formats: `--message-format=json` compiler messages and libtest's `--format json`
//! events.

use serde::Deserialize;
use verdict_model::{Severity, TestCase, TestStatus};

use super::compiler::{Pending, due_to, is_boilerplate, lint_name};
use super::panic::Panic;
use super::parser::{Parser, add};

/// The levels of a JSON compiler message that count as diagnostics.
static LEVEL_ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("\"level\":\"error\""));

static LEVEL_WARNING: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("\"level\":\"warning\""));

impl Parser {
    /// A line of cargo's JSON message format.
    pub(super) fn json_line(&mut self, line: &str) {
        if line.starts_with("{\"reason\":\"build-finished\"") {
            if line.contains("\"success\":false") {
                self.report.build_failed_json = true;
            }
            self.report.build_finished_json = true;
            return;
        }
        if !line.starts_with("{\"reason\":\"compiler-message\"") {
            return;
        }
        if self.report.full() {
            // Beyond the cap a message is only counted; reading its JSON would cost the time.
            let bytes = line.as_bytes();
            if LEVEL_ERROR.find(bytes).is_some() || LEVEL_WARNING.find(bytes).is_some() {
                self.report.dropped += 1;
            }
            return;
        }
        let Ok(json) = serde_json::from_str::<JsonLine>(line) else {
            if self.report.notes.len() < 5 {
                self.report.notes.push(
                    "a compiler message in JSON could not be read (cut at 64 KiB?)".to_owned(),
                );
            }
            return;
        };
        let Some(m) = json.message else {
            return;
        };
        let severity = match m.level.as_str() {
            "error" | "error: internal compiler error" => Severity::Error,
            "warning" => Severity::Warning,
            _ => return,
        };
        let code = m.code.map(|c| c.code);
        if m.message.starts_with("aborting due to") {
            if let Some(n) = due_to(&m.message) {
                add(&mut self.report.rustc_errors, n);
            }
            return;
        }
        let primary = m.spans.iter().find(|s| s.is_primary);
        let Some(span) = primary else {
            if severity == Severity::Warning
                && (m.message.ends_with("warnings emitted")
                    || m.message.ends_with("warning emitted"))
            {
                return;
            }
            if severity == Severity::Error {
                self.unlocated_error(m.message);
            }
            return;
        };
        // A span inside a macro of another crate (std's `assert_eq!`) is shown by rustc at the
        // macro's call in the user's code: follow the expansion back to it.
        let mut shown = span;
        let mut depth = 0;
        while is_foreign(&shown.file_name) && depth < 16 {
            match shown.expansion.as_deref() {
                Some(expansion) => shown = &expansion.span,
                None => break,
            }
            depth += 1;
        }
        let location = Some((
            shown.file_name.clone(),
            shown.line_start,
            Some(shown.column_start),
        ));
        let label = span.label.clone().filter(|l| !l.is_empty());
        let help = m
            .children
            .iter()
            .find(|c| !is_boilerplate(&c.message))
            .map(|c| c.message.clone());
        let code = code.or_else(|| {
            m.children
                .iter()
                .find_map(|c| lint_name(&c.message).map(str::to_owned))
        });
        self.finish_pending();
        self.pending = Some(Pending {
            severity,
            code,
            message: m.message,
            location,
            label,
            help,
            linker: None,
            lines: 1,
        });
        self.finish_pending();
    }

    /// A line of libtest's JSON format (`--format json`).
    pub(super) fn libtest_json_line(&mut self, line: &str) {
        let Ok(event) = serde_json::from_str::<TestEvent>(line) else {
            return;
        };
        match (event.kind.as_str(), event.event.as_str()) {
            ("test", "ok" | "ignored" | "failed") if event.name.is_some() => {
                let name = event.name.unwrap_or_default();
                let status = match event.event.as_str() {
                    "ok" => TestStatus::Passed,
                    "ignored" => TestStatus::Skipped,
                    _ => TestStatus::Failed,
                };
                self.keep_test(TestCase {
                    name: name.clone(),
                    file: None,
                    status,
                    duration_ms: None,
                });
                if status != TestStatus::Failed {
                    return;
                }
                self.test_failed(&name);
                let mut panic = Panic::default();
                for l in event.stdout.as_deref().unwrap_or("").lines() {
                    panic.line(l);
                }
                self.report_test(&name, &panic);
            }
            ("suite", "ok" | "failed") => {
                add(&mut self.report.passed, event.passed.unwrap_or(0));
                add(&mut self.report.failed, event.failed.unwrap_or(0));
                add(&mut self.report.ignored, event.ignored.unwrap_or(0));
                if let Some(n) = event.filtered_out.filter(|&n| n > 0) {
                    add(&mut self.report.filtered, n);
                }
            }
            _ => {}
        }
    }
}

/// One line of `--message-format=json`; only what is read.
#[derive(Deserialize)]
struct JsonLine {
    pub(super) message: Option<JsonMessage>,
}

#[derive(Deserialize)]
struct JsonMessage {
    level: String,
    pub(super) message: String,
    pub(super) code: Option<JsonCode>,
    #[serde(default)]
    spans: Vec<JsonSpan>,
    #[serde(default)]
    children: Vec<JsonChild>,
}

#[derive(Deserialize)]
struct JsonCode {
    pub(super) code: String,
}

#[derive(Deserialize)]
struct JsonSpan {
    file_name: String,
    line_start: u32,
    column_start: u32,
    #[serde(default)]
    is_primary: bool,
    pub(super) label: Option<String>,
    expansion: Option<Box<JsonExpansion>>,
}

#[derive(Deserialize)]
struct JsonExpansion {
    span: JsonSpan,
}

/// Whether a span's file is outside the package: the standard library's sources, another crate's.
fn is_foreign(file: &str) -> bool {
    file.starts_with('/') || file.starts_with('<') || file.contains(".cargo/registry/")
}

#[derive(Deserialize)]
struct JsonChild {
    pub(super) message: String,
}

/// One event of libtest's JSON format; only what is read.
#[derive(Deserialize)]
struct TestEvent {
    #[serde(rename = "type")]
    pub(super) kind: String,
    event: String,
    pub(super) name: Option<String>,
    stdout: Option<String>,
    pub(super) passed: Option<u64>,
    pub(super) failed: Option<u64>,
    pub(super) ignored: Option<u64>,
    filtered_out: Option<u64>,
}
