//! TAP, as Node.js's own test runner (`node --test --test-reporter=tap`) and other TAP producers
//! write it, read for the `node-test` and `generic` summarizers.
//!
//! Each `not ok N - name` is a failing test (but for `# TODO` and `# SKIP`), placed and explained
//! by its YAML block (`location: '/app/a.test.js:8:1'`, `error: …`); a suite that failed only
//! because its subtests did (`failureType: 'subtestsFailed'`) is not counted again; the `# pass N`
//! / `# fail N` / `# skipped N` / `# todo N` / `# cancelled N` totals are the counts.

use verdict_model::{Diagnostic, Kind, Report, Severity};

use crate::text::clip;

const MAX_MESSAGE: usize = 300;

/// A TAP `not ok` whose YAML block is being read.
struct TapFailure {
    diagnostic: Diagnostic,
    /// The indentation of its `not ok` line; the block is indented further.
    indent: usize,
    /// A suite that failed because its subtests did.
    parent: bool,
    /// The key whose indented block continues (`error: |-`, `stack: |-`, `at:`).
    block: Option<&'static str>,
    place: (Option<String>, Option<u32>, Option<u32>),
}

/// A TAP reader: what TAP said so far.
pub(crate) struct Tap {
    /// The tool its diagnostics are reported for.
    tool: &'static str,
    /// Whether a TAP line was seen.
    pub(crate) seen: bool,
    open: Option<TapFailure>,
    /// The `# pass N` total.
    pub(crate) pass: Option<u64>,
    /// The `# fail N` total.
    pub(crate) fail: Option<u64>,
    /// The `# skipped N` and `# todo N` totals.
    pub(crate) skipped: Option<u64>,
    /// The `# cancelled N` total (Node.js).
    pub(crate) cancelled: Option<u64>,
    /// The failing tests reported so far.
    pub(crate) failures: u64,
}

impl Tap {
    /// A reader whose diagnostics are `tool`'s.
    pub(crate) fn new(tool: &'static str) -> Tap {
        Tap {
            tool,
            seen: false,
            open: None,
            pass: None,
            fail: None,
            skipped: None,
            cancelled: None,
            failures: 0,
        }
    }
}

impl Tap {
    /// Reads `line` as TAP when it is: a test line, a line of an open failure's YAML block, or a
    /// total. Returns whether it was.
    pub(crate) fn line(&mut self, line: &str, report: &mut Report) -> bool {
        let text = line.trim_start();
        let indent = line.len() - text.len();
        if let Some(open) = self.open.as_mut() {
            if text.is_empty() {
                return true;
            }
            if indent > open.indent {
                // The YAML block ends with `...` at its own indentation; deeper, a `...` is a
                // line of a value (an assertion diff's elided lines).
                if text == "..." && indent <= open.indent + 2 {
                    self.close(report);
                } else {
                    tap_yaml(open, text, indent);
                }
                return true;
            }
            self.close(report);
        }
        if let Some(rest) = text.strip_prefix("not ok ") {
            self.seen = true;
            let (name, directive) = match rest.split_once(" # ") {
                Some((name, directive)) => (name, Some(directive.trim().to_ascii_lowercase())),
                None => (rest, None),
            };
            if directive.is_some_and(|d| d.starts_with("todo") || d.starts_with("skip")) {
                return true;
            }
            // `not ok 2 - name`: the number, then an optional dash.
            let name = name.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
            let name = name.strip_prefix("- ").unwrap_or(name).trim();
            let diagnostic = Diagnostic::new(self.tool, Kind::Test, Severity::Error, "test failed")
                .with_test(clip(name, MAX_MESSAGE));
            self.open = Some(TapFailure {
                diagnostic,
                indent,
                parent: false,
                block: None,
                place: (None, None, None),
            });
            return true;
        }
        if text.starts_with("ok ") || text.starts_with("TAP version ") {
            self.seen = true;
            return true;
        }
        if self.seen && indent == 0 {
            let total = |key: &str| {
                text.strip_prefix(key)
                    .and_then(|n| n.trim().parse::<u64>().ok())
            };
            if let Some(n) = total("# pass ") {
                self.pass = Some(n);
                return true;
            }
            if let Some(n) = total("# fail ") {
                self.fail = Some(n);
                return true;
            }
            if let Some(n) = total("# skipped ").or_else(|| total("# skip ")) {
                self.skipped = Some(self.skipped.unwrap_or(0) + n);
                return true;
            }
            if let Some(n) = total("# cancelled ") {
                self.cancelled = Some(n);
                return true;
            }
            if let Some(n) = total("# todo ") {
                self.skipped = Some(self.skipped.unwrap_or(0) + n);
                return true;
            }
        }
        false
    }

    /// Reports the open TAP failure, unless it is a suite whose subtests failed.
    pub(crate) fn close(&mut self, report: &mut Report) {
        let Some(open) = self.open.take() else {
            return;
        };
        if open.parent {
            return;
        }
        let mut diagnostic = open.diagnostic;
        let (file, line, column) = open.place;
        if let Some(file) = file {
            diagnostic = diagnostic.at(file, line, column);
        }
        // A named failing test is a failure of the code, placed or not.
        self.failures += 1;
        report.push(diagnostic);
    }
}

/// One line of a TAP failure's YAML block (Node.js: `location: '/a/b.test.js:8:1'`, `error: |-`
/// with the message on the lines below, `failureType: 'subtestsFailed'`; node-tap: `at:` with
/// `file:` and `line:` below it).
fn tap_yaml(open: &mut TapFailure, text: &str, indent: usize) {
    let unquote = |value: &str| {
        let value = value.trim();
        value
            .strip_prefix('\'')
            .and_then(|v| v.strip_suffix('\''))
            .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
            .unwrap_or(value)
            .replace("''", "'")
    };
    // The block of a key at the YAML's own indentation (two past the `not ok`) is more indented.
    let top = indent <= open.indent + 2;
    if !top {
        match open.block {
            Some("error") => {
                if open.diagnostic.message == "test failed" {
                    open.diagnostic.message = clip(text, MAX_MESSAGE);
                } else if open.diagnostic.message.len() < MAX_MESSAGE {
                    let separator = if open.diagnostic.message.ends_with(':') {
                        " "
                    } else {
                        ": "
                    };
                    let joined = format!("{}{separator}{text}", open.diagnostic.message);
                    open.diagnostic.message = clip(&joined, MAX_MESSAGE);
                }
            }
            // The first frame in the test's own file is the line that threw (the location is
            // where the test was declared).
            Some("stack") => {
                if let Some(file) = open.place.0.clone()
                    && let Some(at) = text.find(&format!("{file}:"))
                {
                    let rest = &text[at..];
                    let rest = rest.split(')').next().unwrap_or(rest);
                    if let Some((_, line, column)) = crate::text::split_location(rest) {
                        open.place = (Some(file), Some(line), column);
                        open.block = Some("stack-done");
                    }
                }
            }
            Some("at") => {
                if let Some(file) = text.strip_prefix("file:") {
                    open.place.0 = Some(unquote(file));
                } else if let Some(line) = text.strip_prefix("line:") {
                    open.place.1 = line.trim().parse().ok();
                } else if let Some(column) = text.strip_prefix("column:") {
                    open.place.2 = column.trim().parse().ok();
                }
            }
            _ => {}
        }
        return;
    }
    open.block = None;
    let Some((key, value)) = text.split_once(':') else {
        return;
    };
    let value = value.trim();
    match key {
        "location" => {
            let location = unquote(value);
            if let Some((file, line, column)) = crate::text::split_location(&location) {
                open.place = (Some(file.to_owned()), Some(line), column);
            }
        }
        "failureType" => open.parent = unquote(value) == "subtestsFailed",
        "error" | "message" if value.starts_with('|') || value.starts_with('>') => {
            open.block = Some("error");
        }
        "error" | "message" if !value.is_empty() && open.diagnostic.message == "test failed" => {
            open.diagnostic.message = clip(&unquote(value), MAX_MESSAGE);
        }
        "at" if value.is_empty() => open.block = Some("at"),
        "stack" if value.starts_with('|') || value.starts_with('>') => open.block = Some("stack"),
        _ => {}
    }
}
