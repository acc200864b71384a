//! pytest-timeout's dump of the threads' stacks, and the failure of the test it stopped the run
//! in.

use verdict_model::{Diagnostic, Kind, Severity};

use super::TOOL;
use super::entries::entry_file;
use super::lines::{project_path, python_frame, same_file};
use super::parser::Parser;

/// A test that ran past pytest-timeout's limit, as the plugin's dump of the threads' stacks shows
/// it. With `--timeout-method=thread` (the default where there is no `SIGALRM`, and pytest-timeout's
/// fallback) the plugin ends the whole process after the dump: the log stops there, with no
/// failure report and no closing line, and this is all that says what failed.
#[derive(Debug, Default)]
pub(super) struct Timeout {
    /// The node id `-v` printed before the dump (`tests/a.py::test_x `), or the file of the
    /// progress line it interrupted (`tests/a.py ..F`).
    pub(super) nodeid: Option<String>,
    pub(super) file: Option<String>,
    /// The dump is in the main thread's stack, where the test runs.
    in_main: bool,
    /// The deepest frame in the project of the main thread, and of any other thread: the place
    /// and function.
    main: Option<(String, u32, String)>,
    other: Option<(String, u32, String)>,
}

/// `+++++ Timeout +++++`, the rule pytest-timeout opens and closes its dump of the threads' stacks
/// with, after what the line already held (`-v`'s node id, the progress line's file and dots):
/// that text.
fn timeout_rule(line: &str) -> Option<&str> {
    if line.as_bytes().last() != Some(&b'+') {
        return None;
    }
    let at = line.find("+ Timeout +")?;
    let before = line[..at].trim_end_matches('+');
    line[at..]
        .bytes()
        .all(|b| b == b'+' || b == b' ' || b"Timeout".contains(&b))
        .then_some(before)
}

/// `File "path", line 12, in test_x` → the function, `test_x`.
fn frame_function(text: &str) -> Option<&str> {
    let (_, function) = text.rsplit_once(", in ")?;
    let function = function.trim();
    (!function.is_empty()).then_some(function)
}

impl Parser {
    /// Reads pytest-timeout's dump of the threads' stacks; `true` for the lines that belong to it.
    pub(super) fn timeout_line(&mut self, line: &str) -> bool {
        if let Some(before) = timeout_rule(line) {
            if self.in_timeout_dump {
                self.in_timeout_dump = false;
                return true;
            }
            self.in_timeout_dump = true;
            let before = before.trim();
            let mut timeout = Timeout::default();
            if before.contains("::") {
                timeout.nodeid = Some(before.to_owned());
            } else if let Some(file) = before.split(' ').next().filter(|f| f.ends_with(".py")) {
                timeout.file = Some(file.to_owned());
            }
            self.timeout = Some(timeout);
            return true;
        }
        if !self.in_timeout_dump {
            return false;
        }
        let Some(timeout) = self.timeout.as_mut() else {
            return true;
        };
        if line.starts_with('~') && line.contains(" Stack of ") {
            timeout.in_main = line.contains(" Stack of MainThread ");
        } else if let Some((file, n)) = python_frame(line.trim_start())
            && let Some(file) = project_path(file, self.rootdir.as_deref())
        {
            let function = frame_function(line).unwrap_or_default().to_owned();
            let frame = Some((file, n, function));
            if timeout.in_main {
                timeout.main = frame;
            } else {
                timeout.other = frame;
            }
        }
        true
    }

    /// The failure of a test that pytest-timeout stopped the whole run in: the log ends in the
    /// plugin's dump, with no report of pytest's.
    pub(super) fn timeout_diagnostic(&mut self) -> Option<Diagnostic> {
        let timeout = self.timeout.take()?;
        let (place, function) = match timeout.main.or(timeout.other) {
            Some((file, line, function)) => (Some((file, line)), Some(function)),
            None => (None, None),
        };
        // Without `-v` the node id is the progress line's file and the test function the stack
        // shows (a class or parameters of its own are not in the log).
        let test = timeout.nodeid.or_else(|| {
            let file = timeout.file?;
            let function = function.filter(|f| f.starts_with("test"))?;
            place
                .as_ref()
                .is_some_and(|(f, _)| same_file(f, &file))
                .then(|| format!("{file}::{function}"))
        });
        let mut d = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Error,
            "Timeout: the test ran past its time limit and pytest-timeout ended the run",
        );
        let test_file = test.as_deref().map(entry_file).map(str::to_owned);
        match (place, test_file) {
            (Some((file, line)), _) => d = d.at(file, Some(line), None),
            (None, Some(file)) => d = d.at(file, None, None),
            (None, None) => {}
        }
        if let Some(test) = test {
            d = d.with_test(test);
        }
        Some(d)
    }
}
