//! The TAP reader: TAP 13 and 14 as Node.js's own test runner (`node --test
//! --test-reporter=tap`), node-tap, tape and other TAP producers write it, shared by the `tap`,
//! `node-test` and `generic` summarizers.
//!
//! Each `not ok N - name` is a failing test (but for `# TODO` and `# SKIP`), placed and explained
//! by its YAML block (node's `location: '/app/a.test.js:8:1'` and `error: …`; node-tap's `at:`
//! with `fileName:` / `lineNumber:` or `file:` / `line:`, its `diff:`, `found:` / `wanted:`;
//! tape's inline `at: Test.<anonymous> (/app/test/a.js:11:5)` and `expected:` / `actual:`).
//! Subtests are indented four spaces and come before the test point that closes them, so a
//! `not ok` whose subtests failed only repeats them and is not counted again (Node.js also says so
//! with `failureType: 'subtestsFailed'`). The totals are the tool's: Node.js's and tape's `# pass
//! N` / `# fail N` lines, node-tap's `# { total: 9, pass: 4, fail: 3, todo: 1, skip: 1 }`, older
//! node-tap's `# failed 3 of 191 tests`; they are read only after the top-level plan, where every
//! producer prints them, so that a tape test called `fail 2` is not a total. The plan (`1..N`)
//! and `Bail out!` say whether the stream is complete.

use verdict_model::{Diagnostic, Kind, Report, Severity};

use crate::text::clip;

const MAX_MESSAGE: usize = 300;
/// The `diff:` lines of a node-tap failure kept in its detail.
const MAX_DIFF_LINES: usize = 12;

/// How test names are made and parents are told apart.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Names {
    /// Node.js's runner: a test point is the test, and a suite failed only through its subtests
    /// says so itself (`failureType: 'subtestsFailed'`).
    Node,
    /// Any producer: a test is named by the subtests (node-tap) or the `# name` comment (tape)
    /// around its assertion, and a failing parent is told from its failing subtests by their
    /// indentation.
    Nested,
}

/// A TAP `not ok` whose YAML block is being read.
struct TapFailure {
    diagnostic: Diagnostic,
    /// The indentation of its `not ok` line; the block is indented further.
    indent: usize,
    /// A test that failed because its subtests did.
    parent: bool,
    /// The key whose indented block continues (`error: |-`, `stack: |-`, `at:`, `diff: |`).
    block: Option<&'static str>,
    place: (Option<String>, Option<u32>, Option<u32>),
    /// tape's `expected:` and `actual:`, node-tap's `wanted:` and `found:`.
    expected: Option<String>,
    actual: Option<String>,
    /// node-tap's `diff:` lines that differ.
    diff: Vec<String>,
    /// The indentation of the YAML block's keys.
    keys: Option<usize>,
    /// node-tap's `tapCaught:`: how an error the test threw was caught.
    caught: Option<String>,
}

/// A TAP reader: what TAP said so far.
pub(crate) struct Tap {
    /// The tool its diagnostics are reported for.
    tool: &'static str,
    names: Names,
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
    /// Test points seen since the last shallower one, with their indentation and whether each
    /// failed: a point's subtests are the deeper ones.
    open_points: Vec<(usize, bool)>,
    /// The `# Subtest: name` comments around the current line, with their indentation.
    subtests: Vec<(usize, String)>,
    /// tape's last `# name` comment: the test its assertions belong to.
    heading: Option<String>,
    /// The top-level plan's count (`1..N`).
    pub(crate) plan: Option<u64>,
    /// The top-level test points.
    pub(crate) top_points: u64,
    /// The test points that are no subtests' parents: passed, failed, skipped or todo.
    pub(crate) leaves: (u64, u64, u64),
    /// The reason of the first `Bail out!`.
    pub(crate) bailed: Option<String>,
    /// Failing buffered tests whose `}` is still to come: their indentation, name, and whether a
    /// subtest of theirs failed.
    buffered: Vec<(usize, String, bool)>,
}

impl Tap {
    /// A reader whose diagnostics are `tool`'s.
    pub(crate) fn new(tool: &'static str, names: Names) -> Tap {
        Tap {
            tool,
            names,
            seen: false,
            open: None,
            pass: None,
            fail: None,
            skipped: None,
            cancelled: None,
            failures: 0,
            open_points: Vec::new(),
            subtests: Vec::new(),
            heading: None,
            plan: None,
            top_points: 0,
            leaves: (0, 0, 0),
            bailed: None,
            buffered: Vec::new(),
        }
    }
}

impl Tap {
    /// Reads `line` as TAP when it is: a test line, a line of an open failure's YAML block, a
    /// plan, a subtest's comment, a bail-out or a total. Returns whether it was.
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
        if let Some(rest) = text.strip_prefix("not ok")
            && (rest.is_empty() || rest.starts_with(' '))
        {
            self.point(rest.trim_start(), indent, false);
            return true;
        }
        if let Some(rest) = text.strip_prefix("ok")
            && (rest.is_empty() || rest.starts_with(' '))
        {
            self.point(rest.trim_start(), indent, true);
            return true;
        }
        if text.starts_with("TAP version ") {
            self.seen = true;
            return true;
        }
        if let Some(reason) = text.strip_prefix("Bail out!") {
            self.seen = true;
            if self.bailed.is_none() {
                self.bailed = Some(clip(reason.trim(), MAX_MESSAGE));
            }
            return true;
        }
        if let Some(count) = plan(text) {
            if indent == 0 && self.plan.is_none() {
                self.plan = Some(count);
            }
            return self.seen || indent == 0;
        }
        if !self.seen {
            return false;
        }
        if text == "}"
            && let Some(at) = self.buffered.iter().rposition(|(at, _, _)| *at == indent)
        {
            let (_, test, subtest_failed) = self.buffered.remove(at);
            if !subtest_failed {
                // A buffered test that failed on its own: a failure of its own.
                self.failures += 1;
                report.push(
                    Diagnostic::new(self.tool, Kind::Test, Severity::Error, "test failed")
                        .with_test(clip(&test, MAX_MESSAGE)),
                );
            }
            return true;
        }
        if let Some(name) = text.strip_prefix("# Subtest:") {
            self.subtests.retain(|(at, _)| *at < indent);
            self.subtests.push((indent, name.trim().to_owned()));
            return true;
        }
        if indent == 0 && self.plan.is_some() && self.totals(text) {
            return true;
        }
        if indent == 0
            && self.names == Names::Nested
            && let Some(name) = text.strip_prefix("# ")
            && !name.starts_with("time=")
        {
            // tape names each test in a comment before its assertions.
            self.heading = Some(name.trim().to_owned());
            return true;
        }
        false
    }

    /// A test point: `rest` is what follows `ok` or `not ok`.
    fn point(&mut self, rest: &str, indent: usize, passed: bool) {
        self.seen = true;
        let (name, directive) = match rest.split_once(" # ") {
            Some((name, directive)) => (name, Some(directive.trim().to_ascii_lowercase())),
            None => match rest.strip_prefix("# ") {
                Some(directive) => ("", Some(directive.trim().to_ascii_lowercase())),
                None => (rest, None),
            },
        };
        let excused = directive
            .as_deref()
            .is_some_and(|d| d.starts_with("todo") || d.starts_with("skip"));
        // Older node-tap's buffered subtests: `ok 1 - name # time=3ms {`, its subtests after
        // it, then `}`.
        let buffered = rest.trim_end().ends_with('{');
        let name = name.trim_end().trim_end_matches('{').trim_end();
        // The points deeper than this one since the last at its depth are its subtests.
        let subtests = self.open_points.iter().any(|(at, _)| *at > indent);
        let subtest_failed = self
            .open_points
            .iter()
            .any(|(at, failed)| *at > indent && *failed);
        // Siblings share one entry: their parent's point needs only whether any of them failed.
        self.open_points.retain(|(at, _)| *at <= indent);
        let failed = !passed && !excused;
        match self.open_points.last_mut() {
            Some((at, sibling_failed)) if *at == indent => *sibling_failed |= failed,
            _ => self.open_points.push((indent, failed)),
        }
        if indent == 0 {
            self.top_points += 1;
        }
        if !passed && !excused {
            for parent in &mut self.buffered {
                parent.2 |= parent.0 < indent;
            }
        }
        if !subtests && !buffered {
            match (passed, excused) {
                (_, true) => self.leaves.2 += 1,
                (true, false) => self.leaves.0 += 1,
                (false, false) => self.leaves.1 += 1,
            }
        }
        // `not ok 2 - name`: the number, then an optional dash.
        let name = name.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
        let name = name.strip_prefix("- ").unwrap_or(name).trim();
        let name = name.strip_prefix('-').unwrap_or(name).trim();
        let around = self.around(indent);
        self.subtests.retain(|(at, _)| *at < indent);
        if passed || excused {
            return;
        }
        if buffered {
            // Its subtests follow: whether it failed only through them is known at its `}`.
            self.buffered.push((indent, test_name(around, name), false));
            return;
        }
        let parent = self.names == Names::Nested && subtest_failed;
        let test = test_name(around, name);
        let diagnostic = Diagnostic::new(self.tool, Kind::Test, Severity::Error, "test failed")
            .with_test(clip(&test, MAX_MESSAGE));
        self.open = Some(TapFailure {
            diagnostic,
            indent,
            parent,
            block: None,
            place: (None, None, None),
            expected: None,
            actual: None,
            diff: Vec::new(),
            keys: None,
            caught: None,
        });
    }

    /// The name of the test a point at `indent` belongs to (`Nested` only): its enclosing
    /// subtests (a file's subtest aside: the place names the file) or tape's last test comment.
    fn around(&self, indent: usize) -> Option<String> {
        if self.names != Names::Nested {
            return None;
        }
        let names: Vec<&str> = self
            .subtests
            .iter()
            .filter(|(at, _)| *at < indent)
            .map(|(_, name)| name.as_str())
            .filter(|name| !is_script_path(name))
            .collect();
        if !names.is_empty() {
            return Some(names.join(" > "));
        }
        if indent == 0 {
            return self.heading.clone();
        }
        None
    }

    /// The test running now: the subtests open around the stream's last line, or tape's last test
    /// comment.
    pub(crate) fn current_test(&self) -> Option<String> {
        let names: Vec<&str> = self
            .subtests
            .iter()
            .map(|(_, name)| name.as_str())
            .filter(|name| !is_script_path(name))
            .collect();
        if names.is_empty() {
            self.heading.clone()
        } else {
            Some(names.join(" > "))
        }
    }

    /// A top-level comment that gives the totals. Returns whether it did.
    fn totals(&mut self, text: &str) -> bool {
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
        if text == "# ok" {
            // tape's end of a run with no failure, which prints no `# fail 0`.
            self.fail.get_or_insert(0);
            return true;
        }
        if total("# tests ").is_some() {
            return true;
        }
        // Older node-tap: `# failed 3 of 191 tests`.
        if let Some(rest) = text.strip_prefix("# failed ")
            && let Some((failed, _)) = rest.split_once(" of ")
            && let Ok(failed) = failed.trim().parse::<u64>()
        {
            self.fail = Some(failed);
            return true;
        }
        // node-tap: `# { total: 9, pass: 4, fail: 3, todo: 1, skip: 1 }`, or without braces and
        // colons.
        let Some(list) = text.strip_prefix('#') else {
            return false;
        };
        let list = list.trim();
        let list = list
            .strip_prefix('{')
            .and_then(|l| l.strip_suffix('}'))
            .unwrap_or(list);
        let mut pairs = Vec::new();
        for pair in list.split(',') {
            let pair = pair.trim();
            let Some((key, n)) = pair.split_once([':', ' ']) else {
                return false;
            };
            let Ok(n) = n.trim().parse::<u64>() else {
                return false;
            };
            pairs.push((key.trim(), n));
        }
        if !pairs.iter().any(|(key, _)| *key == "total") {
            return false;
        }
        for (key, n) in pairs {
            match key {
                "pass" => self.pass = Some(n),
                "fail" => self.fail = Some(n),
                "skip" | "todo" => self.skipped = Some(self.skipped.unwrap_or(0) + n),
                _ => {}
            }
        }
        if self.pass.is_some() && self.fail.is_none() {
            self.fail = Some(0);
        }
        true
    }

    /// Reports the open TAP failure, unless it is a test whose subtests failed.
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
        // node-tap's diff of one value is `-` what was expected, `+` what was found.
        let (mut expected, mut actual) = (open.expected, open.actual);
        let mut diff = open.diff;
        if let [wanted, found] = &diff[..]
            && let (Some(wanted), Some(found)) = (wanted.strip_prefix('-'), found.strip_prefix('+'))
        {
            expected.get_or_insert_with(|| wanted.trim().to_owned());
            actual.get_or_insert_with(|| found.trim().to_owned());
            // The message says all the diff does.
            diff.clear();
        }
        if diagnostic.message == "test failed"
            && let (Some(expected), Some(actual)) = (expected, actual)
        {
            diagnostic.message = clip(
                &format!("expected {expected}, actual {actual}"),
                MAX_MESSAGE,
            );
            diagnostic.refresh_fingerprint();
        }
        if diagnostic.message == "test failed"
            && let Some(caught) = &open.caught
        {
            // node-tap names a test point it caught an error in by the error's message.
            let name = diagnostic.test.as_deref().unwrap_or_default();
            let error = name.rsplit(" > ").next().unwrap_or(name);
            diagnostic.message = clip(&format!("{caught}: {error}"), MAX_MESSAGE);
            diagnostic.refresh_fingerprint();
        }
        if !diff.is_empty() {
            if diagnostic.message == "test failed" {
                let message = format!("diff: {}", diff.join(" / "));
                diagnostic.message = clip(&message, MAX_MESSAGE);
                diagnostic.refresh_fingerprint();
            }
            diagnostic = diagnostic.with_detail(diff.join("\n"));
        }
        // A named failing test is a failure of the code, placed or not.
        self.failures += 1;
        report.push(diagnostic);
    }
}

/// node-tap's own names: the subtests and the assertion, `discount > takes a percentage`.
fn test_name(around: Option<String>, name: &str) -> String {
    match around {
        Some(around) if !name.is_empty() => format!("{around} > {name}"),
        Some(around) => around,
        None => name.to_owned(),
    }
}

/// The count of a plan line (`1..12`, `1..0 # skipped`).
fn plan(text: &str) -> Option<u64> {
    let rest = text.strip_prefix("1..")?;
    let digits = rest
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .filter(|d| !d.is_empty())?;
    let after = rest[digits.len()..].trim_start();
    if !after.is_empty() && !after.starts_with('#') {
        return None;
    }
    digits.parse().ok()
}

/// Whether a subtest's name is a test file's path (node-tap names each file's subtest so).
fn is_script_path(name: &str) -> bool {
    [".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// A YAML scalar without its quotes.
fn unquote(value: &str) -> String {
    let value = value.trim();
    value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
        .unwrap_or(value)
        .replace("''", "'")
}

/// The place of a stack frame: `Test.<anonymous> (/app/test/a.js:11:5)` or `/app/test/a.js:11:5`.
pub(crate) fn frame_place(frame: &str) -> Option<(String, u32, Option<u32>)> {
    let inner = match frame.trim().strip_suffix(')') {
        Some(rest) => &rest[rest.rfind('(')? + 1..],
        None => frame.trim().rsplit(' ').next()?,
    };
    let (file, line, column) = crate::text::split_location(inner)?;
    (!file.starts_with("node:")).then(|| (file.to_owned(), line, column))
}

/// One line of a TAP failure's YAML block (see the module docs for the keys read).
fn tap_yaml(open: &mut TapFailure, text: &str, indent: usize) {
    if text == "---" {
        return;
    }
    // The block of a key is indented past the YAML's keys (two past the `not ok` for Node.js and
    // node-tap, four for tape), whose first line sets their indentation.
    let keys = *open.keys.get_or_insert(indent);
    let top = indent <= keys;
    if top {
        open.block = None;
        tap_yaml_key(open, text);
    } else {
        tap_yaml_block_line(open, text);
    }
}

/// A line inside the block of a YAML key (`error: |-`, `stack: |-`, `at:`, `diff: |-`, the
/// `expected` and `actual` values).
fn tap_yaml_block_line(open: &mut TapFailure, text: &str) {
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
            let (key, value) = text.split_once(':').unwrap_or((text, ""));
            match key {
                "file" | "fileName" => open.place.0 = Some(unquote(value)),
                "line" | "lineNumber" => open.place.1 = value.trim().parse().ok(),
                "column" | "columnNumber" => open.place.2 = value.trim().parse().ok(),
                _ => {}
            }
        }
        Some("diff") => {
            let differs = (text.starts_with('-') && !text.starts_with("---"))
                || (text.starts_with('+') && !text.starts_with("+++"));
            if differs && open.diff.len() < MAX_DIFF_LINES {
                open.diff.push(clip(text, MAX_MESSAGE));
            }
        }
        // A value's first line says enough for the message.
        Some("expected") if open.expected.is_none() => {
            open.expected = Some(clip(text, MAX_MESSAGE / 3));
        }
        Some("actual") if open.actual.is_none() => {
            open.actual = Some(clip(text, MAX_MESSAGE / 3));
        }
        _ => {}
    }
}

/// A top-level `key: value` line of a failure's YAML, which may open the block of its key.
fn tap_yaml_key(open: &mut TapFailure, text: &str) {
    let Some((key, value)) = text.split_once(':') else {
        return;
    };
    let value = value.trim();
    let opens_block = value.starts_with('|') || value.starts_with('>');
    match key {
        "location" => {
            let location = unquote(value);
            if let Some((file, line, column)) = crate::text::split_location(&location) {
                open.place = (Some(file.to_owned()), Some(line), column);
            }
        }
        "failureType" => open.parent |= unquote(value) == "subtestsFailed",
        "error" | "message" if opens_block => open.block = Some("error"),
        "error" | "message" if !value.is_empty() && open.diagnostic.message == "test failed" => {
            open.diagnostic.message = clip(&unquote(value), MAX_MESSAGE);
        }
        "at" if value.is_empty() => open.block = Some("at"),
        // tape: `at: Test.<anonymous> (/app/test/cart.js:11:5)`.
        "at" if open.place.0.is_none() => {
            if let Some((file, line, column)) = frame_place(value) {
                open.place = (Some(file), Some(line), column);
            }
        }
        "tapCaught" => {
            let how = match unquote(value).as_str() {
                "returnedPromiseRejection" => "the test's promise rejected",
                "unhandledRejection" => "an unhandled rejection",
                _ => "an uncaught error",
            };
            open.caught = Some(how.to_owned());
        }
        "stack" if opens_block => open.block = Some("stack"),
        "diff" if opens_block => open.block = Some("diff"),
        "expected" | "wanted" if opens_block => open.block = Some("expected"),
        "actual" | "found" if opens_block => open.block = Some("actual"),
        "expected" | "wanted" if !value.is_empty() => {
            open.expected = Some(clip(&unquote(value), MAX_MESSAGE / 3));
        }
        "actual" | "found" if !value.is_empty() => {
            open.actual = Some(clip(&unquote(value), MAX_MESSAGE / 3));
        }
        _ => {}
    }
}
