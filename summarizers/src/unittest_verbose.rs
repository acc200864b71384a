//! unittest's `-v` lines, one per test before the failure blocks: `test_x (tests.test_a.K.test_x)
//! ... ok`. They name every test the run counts, passing ones too, which the cheating guard compares
//! with the baseline's by name.
//!
//! A test's line may be split: a docstring's first line (or a doctest's `Doctest: …`) comes on the
//! next line before ` ... ok`; a test with failing subtests ends its line with ` ... ` and lists
//! each failing subtest indented below. Output a test prints can land between the name and its
//! status: such a line is not read, and the run's list is then short of `Ran N tests` and not kept.

use std::sync::LazyLock;

use regex::Regex;
use verdict_model::{TestCase, TestStatus};

/// `name (id) ... status`, or `name (id)` alone (a description follows), or a subtest's
/// `  name (id) (params) ... status`.
static TEST_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)(\S+) \(([\w.]+)\)(?: \((.*)\))?(?: \.\.\. ?(.*))?$").expect("valid regex")
});

/// The end of a description line: `First line of the docstring ... ok`.
static STATUS_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r" \.\.\. (ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
        .expect("valid regex")
});

/// The tests of one run, as its `-v` lines named them.
#[derive(Default)]
pub(crate) struct Verbose {
    tests: Vec<TestCase>,
    /// A test named and awaiting its status: from a description line, or from subtests.
    open: Option<(String, Option<TestStatus>)>,
    /// A line that looked like part of the listing but was not understood.
    lost: bool,
}

/// A status word as unittest prints it. An error (the test raised) and an unexpected success count
/// as failed, as the run's counts and its diagnostics have them.
fn status(word: &str) -> Option<TestStatus> {
    match word.trim() {
        "ok" => Some(TestStatus::Passed),
        "FAIL" | "ERROR" => Some(TestStatus::Failed),
        "expected failure" => Some(TestStatus::Skipped),
        "unexpected success" => Some(TestStatus::Failed),
        w if w.starts_with("skipped") => Some(TestStatus::Skipped),
        _ => None,
    }
}

/// The test's id: Python 3.11 and later print it whole in the parentheses, earlier ones the
/// class only (`test_x (tests.test_a.K)`), doctests the module (`mean (shop.mathx)`).
fn id(name: &str, inner: &str) -> String {
    if inner == name || inner.ends_with(&format!(".{name}")) {
        inner.to_owned()
    } else {
        format!("{inner}.{name}")
    }
}

/// The worse of two statuses of one test (its subtests').
fn worse(a: Option<TestStatus>, b: TestStatus) -> TestStatus {
    let rank = |s: TestStatus| match s {
        TestStatus::Skipped => 0,
        TestStatus::Passed => 1,
        TestStatus::Failed => 2,
        TestStatus::Errored => 3,
    };
    match a {
        Some(a) if rank(a) >= rank(b) => a,
        _ => b,
    }
}

impl Verbose {
    /// Reads a line before the run's failure blocks.
    pub(crate) fn line(&mut self, line: &str) {
        if let Some(c) = TEST_LINE.captures(line) {
            let indented = !c[1].is_empty();
            let test = id(&c[2], &c[3]);
            let word = c.get(5).map(|m| m.as_str());
            if indented {
                // A subtest of the open test: its status counts for the test.
                match (self.open.as_mut(), word.and_then(status)) {
                    (Some((open, worst)), Some(s)) if *open == test => {
                        *worst = Some(worse(*worst, s))
                    }
                    _ => self.lost = true,
                }
                return;
            }
            self.close();
            match word {
                None => self.open = Some((test, None)),
                Some("") => self.open = Some((test, None)),
                Some(word) => match status(word) {
                    Some(s) => self.push(test, s),
                    None => self.lost = true,
                },
            }
            return;
        }
        if let Some((test, None)) = &self.open
            && let Some(c) = STATUS_END.captures(line)
            && let Some(s) = status(&c[1])
        {
            let test = test.clone();
            self.open = None;
            self.push(test, s);
            return;
        }
        // The rule before `Ran N tests` when no failure block came.
        let rule = line.len() >= 70 && line.bytes().all(|b| b == b'-');
        if !line.trim().is_empty() && !rule {
            self.lost = true;
        }
    }

    fn push(&mut self, name: String, status: TestStatus) {
        self.tests.push(TestCase {
            name,
            file: None,
            status,
            duration_ms: None,
        });
    }

    /// Ends the open test: with its subtests' worst status, or unread.
    fn close(&mut self) {
        match self.open.take() {
            Some((test, Some(s))) => self.push(test, s),
            Some((_, None)) => self.lost = true,
            None => {}
        }
    }

    /// The run's tests, when they are exactly the `ran` tests it counts.
    pub(crate) fn finish(mut self, ran: u64) -> Option<Vec<TestCase>> {
        self.close();
        (!self.lost && self.tests.len() as u64 == ran).then_some(self.tests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(log: &str, ran: u64) -> Option<Vec<(String, TestStatus)>> {
        let mut v = Verbose::default();
        for line in log.lines() {
            v.line(line);
        }
        v.finish(ran)
            .map(|t| t.into_iter().map(|t| (t.name, t.status)).collect())
    }

    #[test]
    fn ids_in_each_python_format() {
        assert_eq!(id("test_x", "tests.a.K.test_x"), "tests.a.K.test_x");
        assert_eq!(id("test_x", "tests.a.K"), "tests.a.K.test_x");
        assert_eq!(id("mean", "shop.mathx"), "shop.mathx.mean");
    }

    #[test]
    fn printed_output_between_name_and_status_drops_the_list() {
        assert!(read("test_x (a.K.test_x) ... hello\nok\n", 1).is_none());
        assert_eq!(
            read("test_x (a.K.test_x) ... ok\n", 1),
            Some(vec![("a.K.test_x".to_owned(), TestStatus::Passed)])
        );
        assert!(read("test_x (a.K.test_x) ... ok\n", 2).is_none());
    }
}
