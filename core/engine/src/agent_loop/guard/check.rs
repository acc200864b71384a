//! The guard itself: its checks of the verifications and of the diff line by line, and its
//! reasons as a failed verification.
//!
//! A pass does not count when the agent made it by deleting, skipping or emptying tests rather
//! than by fixing the code: a test the baseline verification ran did not run, or fewer ran, or
//! more were left out ([`super::identity`]); test functions or
//! test files were removed in the attempt's diff; new skip, only or expected-failure markers were
//! added; assertions were removed; tests were neutered ([`super::neutered`]); or paths under the
//! configured protected globs changed. Each [`Violation`] names the file and line of the diff
//! where it was seen, so the driver can put it in the digest as a failed verification.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::LazyLock;

use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexSet};
use serde::Serialize;

use super::diff::{DiffLine, FileDiff, parse_diff};
use super::identity::{self, Changes};
use super::neutered::{self, Context, Sources};
use crate::model::{Diagnostic, Kind, Outcome, Report, Severity, Status, Verification};

/// Why a protected glob could not be used.
#[derive(Debug, thiserror::Error)]
#[error("invalid protected glob `{glob}`: {source}")]
pub struct GuardError {
    /// The glob as configured.
    pub glob: String,
    /// What is wrong with it.
    #[source]
    pub source: globset::Error,
}

/// What sort of cheating a [`Violation`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// A verifier ran fewer tests than in the baseline verification.
    FewerTests,
    /// A test function was removed.
    TestRemoved,
    /// A test file was deleted (or renamed to a name that is not a test file's).
    TestFileRemoved,
    /// A marker that skips a test, runs only some, or expects a test to fail was added
    /// (`it.skip`, `.only`, `@pytest.mark.xfail`, `#[ignore]`, `#[should_panic]` …).
    SkipAdded,
    /// More assertions were removed from a test file than added to it: a test emptied.
    AssertionsRemoved,
    /// A protected path changed.
    ProtectedChanged,
    /// A test now returns before its assertions.
    EarlyReturn,
    /// A test's body was reduced to nothing, `pass` or `...`.
    EmptyBody,
    /// A test's assertions were replaced by constant truths (`assert True`).
    ConstantAssertion,
    /// A test's assertion now sits in code that catches its failure and drops it.
    SwallowedAssertion,
    /// A test that asserted something asserts nothing any more.
    AssertionsGone,
    /// An assertion's expected value changed while the code it tests did not.
    ExpectedRewritten,
    /// A test the baseline verification ran did not run (or was skipped) in the attempt's.
    TestNotRun,
    /// The runner left out more tests than in the baseline verification (pytest's `deselected`,
    /// a nextest filter) or skipped more, where it does not name them.
    MoreLeftOut,
    /// The tests passed only with the attempt's change to a verifier's infrastructure: with the
    /// starting tree's version put back, they did not.
    InfraChanged,
}

/// One reason a pass does not count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// What sort of cheating.
    pub kind: ViolationKind,
    /// The file, as the diff names it (the old name for what was removed); `None` for
    /// [`ViolationKind::FewerTests`].
    pub file: Option<String>,
    /// The line: in the old file for what was removed, in the new file for what was added.
    pub line: Option<u32>,
    /// One line for the digest: `src/cart.test.js:14: test "adds items" removed`.
    pub message: String,
}

/// The cheating guard, configured with the protected globs.
#[derive(Debug, Clone)]
pub struct Guard {
    protected: GlobSet,
    allow_test_edits: bool,
}

/// A test definition in JavaScript or TypeScript, with its name.
static JS_TEST: LazyLock<Regex> = LazyLock::new(|| {
    regex(r#"^\s*[xf]?(?:it|test)(?:\.\w+)*\s*\(\s*(?:'([^']*)'|"([^"]*)"|`([^`]*)`)"#)
});

/// A Python test function, with its name.
static PY_TEST: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\("));

/// A Rust test attribute.
static RUST_TEST: LazyLock<Regex> = LazyLock::new(|| regex(r"^\s*#\[(?:\w+::)*test(?:\(.*\))?\]"));

/// A line that asserts something in a test.
static ASSERTION: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"\b(?:expect|assert|assert_eq|assert_ne|assert!|assert_eq!|assert_ne!|assertEqual|assertTrue|assertFalse|assertRaises|assertIn|assertIs|assertIsNone)\b\s*!?\s*[(.]|^\s*assert\s",
    )
});

/// Markers that skip tests or run only some of them, in JavaScript and TypeScript (Jest, Vitest,
/// Mocha, Jasmine). Focus and exclusion functions must not follow a `.`: `model.fit(` is not `fit(`.
static JS_SKIPS: LazyLock<RegexSet> = LazyLock::new(|| {
    regex_set(&[
        r"\b(?:it|test|describe|context|suite|specify)(?:\.concurrent)?\.(?:skip|only|skipIf|runIf|fails|failing)\b",
        r"(?:^|[^.\w$])(?:xit|xtest|xdescribe|xcontext|xspecify|fit|fdescribe|fcontext)\s*\(",
        r"\bthis\.skip\s*\(",
        // node:test's options: `test('x', { skip: true }, …)`.
        r#"\{\s*(?:skip|todo)\s*:\s*(?:true\b|['"`])"#,
    ])
});

/// Markers that skip tests in Python (pytest, unittest).
static PY_SKIPS: LazyLock<RegexSet> = LazyLock::new(|| {
    regex_set(&[
        r"@(?:pytest\.)?mark\.(?:skip|skipif|xfail)\b",
        r"^\s*pytestmark\s*=.*\bmark\.(?:skip|skipif|xfail)\b",
        r"\bpytest\.(?:skip|xfail|importorskip)\s*\(",
        r"@(?:unittest\.)?(?:skip|skipIf|skipUnless|expectedFailure)\b",
        r"\braise\s+(?:unittest\.)?SkipTest\b",
        r"\bself\.skipTest\s*\(",
    ])
});

/// Markers that skip tests in Rust.
static RS_SKIPS: LazyLock<RegexSet> = LazyLock::new(|| regex_set(&[r"#\[ignore\b"]));

/// The skip markers of the language of `path`, if it is one verdict knows.
fn skip_markers(path: &str) -> Option<&'static RegexSet> {
    let extension = path.rsplit_once('.').map(|(_, e)| e)?;
    match extension {
        "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => Some(&JS_SKIPS),
        "py" => Some(&PY_SKIPS),
        "rs" => Some(&RS_SKIPS),
        _ => None,
    }
}

fn regex_set(patterns: &[&str]) -> RegexSet {
    // The patterns are constants of this module; a test compiles every set.
    RegexSet::new(patterns).expect("guard patterns are valid regexes")
}

fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this module; a test compiles every one.
    Regex::new(pattern).expect("guard patterns are valid regexes")
}

impl Guard {
    /// A guard with the given protected globs (gitignore-like globs matched against paths relative
    /// to the workspace root, `/` separated: `.github/**`, `tests/fixtures/**`, `*.snap`).
    pub fn new<S: AsRef<str>>(protected: &[S]) -> Result<Guard, GuardError> {
        let mut builder = GlobSetBuilder::new();
        for glob in protected {
            let glob = glob.as_ref();
            builder.add(Glob::new(glob).map_err(|source| GuardError {
                glob: glob.to_owned(),
                source,
            })?);
        }
        let protected = builder.build().map_err(|source| GuardError {
            glob: protected
                .iter()
                .map(|g| g.as_ref())
                .collect::<Vec<_>>()
                .join(", "),
            source,
        })?;
        Ok(Guard {
            protected,
            allow_test_edits: false,
        })
    }

    /// The guard for a task that is about the tests (`[loop] allow_test_edits`): an assertion
    /// whose expected value changed, and assertions removed from a test file, then count as the
    /// task's work. A test made unable to fail (an early return, an empty body, a constant truth,
    /// a swallowed assertion, no assertion left, a skip or expected-failure marker) still does not.
    pub fn allow_test_edits(mut self, allow: bool) -> Guard {
        self.allow_test_edits = allow;
        self
    }

    /// The reasons the pass of `current` does not count, given the `baseline` verification of the
    /// starting tree (if one ran), the attempt's unified `diff`, and the new text of the changed
    /// files the guard reads ([`files_to_read`]). A changed test file missing from `sources` (or
    /// whose text does not agree with the diff) is judged by the diff's lines alone: its tests
    /// are not read whole, so neutered tests in it are not seen. Empty: the pass counts.
    ///
    /// Ordered: the tests that ran (counts first, then tests by name, [`super::identity`]), then
    /// the diff's by file and line.
    pub fn check(
        &self,
        baseline: Option<&[Verification]>,
        current: &[Verification],
        diff: &str,
        sources: &Sources,
    ) -> Vec<Violation> {
        let files = parse_diff(diff);
        let context = Context::new(self.allow_test_edits, baseline, &files);
        let judged = neutered::judge(&files, sources, &context);
        let mut from_diff = Vec::new();
        self.protected_changes(&files, &mut from_diff);
        removed_test_files(&files, &added_tests(&files), &mut from_diff);
        removed_tests(&files, &judged.renamed, &mut from_diff);
        added_skips(&files, &mut from_diff);
        if !self.allow_test_edits {
            // A test reported as neutered says more than its file's count of assertions.
            let neutered: HashSet<&str> = judged
                .violations
                .iter()
                .filter_map(|v| v.file.as_deref())
                .collect();
            let mut removed = Vec::new();
            removed_assertions(&files, &mut removed);
            from_diff.extend(
                removed
                    .into_iter()
                    .filter(|v| v.file.as_deref().is_none_or(|f| !neutered.contains(f))),
            );
        }
        from_diff.extend(judged.violations);
        from_diff.sort_by(|a, b| (&a.file, a.line, a.kind).cmp(&(&b.file, b.line, b.kind)));
        let mut violations = match baseline {
            Some(baseline) => {
                let changes = Changes::new(&files, &judged.renames, &from_diff, sources);
                identity::compare(baseline, current, &changes)
            }
            None => Vec::new(),
        };
        violations.extend(from_diff);
        violations
    }

    fn protected_changes(&self, files: &[FileDiff], out: &mut Vec<Violation>) {
        if self.protected.is_empty() {
            return;
        }
        for file in files {
            let hit = [file.new.as_deref(), file.old.as_deref()]
                .into_iter()
                .flatten()
                .find(|path| self.protected.is_match(path));
            if let Some(path) = hit {
                let line = file.lines.first().map(|l| l.line);
                out.push(Violation {
                    kind: ViolationKind::ProtectedChanged,
                    file: Some(path.to_owned()),
                    line,
                    message: format!("{}: protected path changed", at(path, line)),
                });
            }
        }
    }
}

/// The violations as a failed verification named `guard`, for the run's results and the digest
/// (a pass that does not count is a failed verification, issue 4 item 6b). Each violation is an
/// error diagnostic of tool `verdict-guard` with its kind as the code, so failure sets and the
/// same-failure rule see them like any other failure. `None` when there is no violation.
pub fn as_verification(violations: &[Violation]) -> Option<Verification> {
    if violations.is_empty() {
        return None;
    }
    let mut report = Report::new("verdict-guard", Outcome::Failed);
    for v in violations {
        let message = match (&v.file, v.line) {
            (Some(file), line) => v
                .message
                .strip_prefix(&at(file, line))
                .and_then(|m| m.strip_prefix(": "))
                .unwrap_or(&v.message)
                .to_owned(),
            (None, _) => v.message.clone(),
        };
        let mut d = Diagnostic::new("verdict-guard", Kind::Test, Severity::Error, message)
            .with_code(v.kind.as_str());
        if let Some(file) = &v.file {
            d = d.at(file.clone(), v.line, None);
        }
        if matches!(
            v.kind,
            ViolationKind::FewerTests
                | ViolationKind::TestFileRemoved
                | ViolationKind::InfraChanged
        ) {
            d = d.as_root_cause();
        }
        if v.kind == ViolationKind::InfraChanged {
            d = d.with_detail(INFRA);
        } else if v.kind.changes_tests() {
            d = d.with_detail(FORBIDDEN);
        } else if matches!(
            v.kind,
            ViolationKind::TestNotRun | ViolationKind::MoreLeftOut
        ) {
            d = d.with_detail(LEFT_OUT);
        }
        report.push(d);
    }
    report.counts.errors = Some(violations.len() as u64);
    report.summary = Some(format!(
        "{} reason{} the pass does not count",
        violations.len(),
        if violations.len() == 1 { "" } else { "s" }
    ));
    Some(Verification {
        verifier: "guard".to_owned(),
        kind: Kind::Test,
        status: Status::Ran,
        report,
        command: None,
        log: None,
        duration: std::time::Duration::ZERO,
        notes: Vec::new(),
    })
}

/// What the digest says under each change made to tests: the agent reads it in its next prompt.
const FORBIDDEN: &str = "the task forbids making tests pass by changing them; fix the code";

/// What the digest says under a change to test infrastructure that the tests' pass rests on.
const INFRA: &str =
    "the tests must pass with the project's own test setup; fix the code, not how the tests run";

/// What the digest says under a test left out: new tests do not stand in for it.
const LEFT_OUT: &str = "every test the baseline ran must run again; new tests make up for none";

impl ViolationKind {
    /// Whether this is a change made to tests (not a count, not a protected path).
    pub fn changes_tests(self) -> bool {
        !matches!(
            self,
            ViolationKind::FewerTests
                | ViolationKind::ProtectedChanged
                | ViolationKind::TestNotRun
                | ViolationKind::MoreLeftOut
        )
    }

    /// The snake_case name, also the code of the guard's diagnostics.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::FewerTests => "fewer_tests",
            ViolationKind::TestRemoved => "test_removed",
            ViolationKind::TestFileRemoved => "test_file_removed",
            ViolationKind::SkipAdded => "skip_added",
            ViolationKind::AssertionsRemoved => "assertions_removed",
            ViolationKind::ProtectedChanged => "protected_changed",
            ViolationKind::EarlyReturn => "early_return",
            ViolationKind::EmptyBody => "empty_body",
            ViolationKind::ConstantAssertion => "constant_assertion",
            ViolationKind::SwallowedAssertion => "swallowed_assertion",
            ViolationKind::AssertionsGone => "assertions_gone",
            ViolationKind::ExpectedRewritten => "expected_rewritten",
            ViolationKind::TestNotRun => "test_not_run",
            ViolationKind::MoreLeftOut => "more_left_out",
            ViolationKind::InfraChanged => "infra_changed",
        }
    }
}

/// `file:line`, or `file`.
pub(super) fn at(file: &str, line: Option<u32>) -> String {
    match line {
        Some(line) => format!("{file}:{line}"),
        None => file.to_owned(),
    }
}

/// A file whose name marks it as tests.
pub(super) fn is_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let in_dir = |dir: &str| path.split('/').any(|part| part == dir);
    let js = [".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts"];
    let stem_js = js.iter().find_map(|ext| name.strip_suffix(ext));
    if let Some(stem) = stem_js
        && (stem.ends_with(".test") || stem.ends_with(".spec") || in_dir("__tests__"))
    {
        return true;
    }
    if let Some(stem) = name.strip_suffix(".py") {
        return stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest";
    }
    if name.ends_with(".rs") {
        return in_dir("tests") || name.ends_with("_test.rs") || name == "tests.rs";
    }
    name.ends_with("_test.go")
}

/// How many times each test definition appears on added lines anywhere in the diff.
fn added_tests(files: &[FileDiff]) -> HashMap<String, usize> {
    let mut added: HashMap<String, usize> = HashMap::new();
    for file in files {
        for line in file.lines.iter().filter(|l| l.added) {
            if let Some(name) = test_name(&line.text) {
                *added.entry(name).or_default() += 1;
            }
        }
    }
    added
}

fn removed_test_files(
    files: &[FileDiff],
    added: &HashMap<String, usize>,
    out: &mut Vec<Violation>,
) {
    for file in files {
        let Some(old) = file.old.as_deref().filter(|old| is_test_file(old)) else {
            continue;
        };
        let message = match file.new.as_deref() {
            None => {
                // Every test of the deleted file defined again elsewhere: the file moved (git pairs
                // a rename only when the contents are similar enough).
                let mut names = file
                    .lines
                    .iter()
                    .filter(|l| !l.added)
                    .filter_map(|l| test_name(&l.text))
                    .filter(|name| name != "#[test]")
                    .peekable();
                if names.peek().is_some() && names.all(|name| added.contains_key(&name)) {
                    continue;
                }
                format!("{old}: test file deleted")
            }
            Some(new) if !is_test_file(new) => {
                format!("{old}: test file renamed to {new}, which is not a test file")
            }
            Some(_) => continue,
        };
        out.push(Violation {
            kind: ViolationKind::TestFileRemoved,
            file: Some(old.to_owned()),
            line: None,
            message,
        });
    }
}

/// The name of the test a line defines, for JavaScript and Python; `#[test]` for Rust's attribute.
pub(super) fn test_name(line: &str) -> Option<String> {
    if let Some(c) = JS_TEST.captures(line) {
        let name = c.get(1).or(c.get(2)).or(c.get(3))?;
        return Some(format!("test \"{}\"", name.as_str()));
    }
    if let Some(c) = PY_TEST.captures(line) {
        return Some(format!("test {}", &c[1]));
    }
    if RUST_TEST.is_match(line) {
        return Some("#[test]".to_owned());
    }
    None
}

/// Test definitions on removed lines that were not added back anywhere in the diff (a test moved
/// to another file, or re-indented, is not removed; nor is one `renamed`: its old definition's
/// lines, with the same body under a new name). Deleted test files are reported whole instead.
fn removed_tests(files: &[FileDiff], renamed: &HashSet<(String, u32)>, out: &mut Vec<Violation>) {
    let mut added = added_tests(files);
    for file in files {
        let Some(old) = file.old.as_deref() else {
            continue;
        };
        // A deleted test file, or one renamed to a name that is not a test file's, is reported whole.
        let reported_whole =
            is_test_file(old) && file.new.as_deref().is_none_or(|new| !is_test_file(new));
        if reported_whole {
            continue;
        }
        for line in file.lines.iter().filter(|l| !l.added) {
            let Some(name) = test_name(&line.text) else {
                continue;
            };
            if renamed.contains(&(old.to_owned(), line.line)) {
                continue;
            }
            match added.get_mut(&name) {
                Some(n) if *n > 0 => *n -= 1,
                _ => out.push(Violation {
                    kind: ViolationKind::TestRemoved,
                    file: Some(old.to_owned()),
                    line: Some(line.line),
                    message: format!("{}: {name} removed", at(old, Some(line.line))),
                }),
            }
        }
    }
}

/// Skip and only markers on added lines that were not on removed lines of the same file.
fn added_skips(files: &[FileDiff], out: &mut Vec<Violation>) {
    for file in files {
        let Some(new) = file.new.as_deref() else {
            continue;
        };
        let Some(markers) = skip_markers(new) else {
            continue;
        };
        let mut removed: BTreeMap<&str, usize> = BTreeMap::new();
        for line in file.lines.iter().filter(|l| !l.added) {
            if markers.is_match(&line.text) {
                *removed.entry(line.text.trim()).or_default() += 1;
            }
        }
        for line in file.lines.iter().filter(|l| l.added) {
            if !markers.is_match(&line.text) {
                continue;
            }
            match removed.get_mut(line.text.trim()) {
                Some(n) if *n > 0 => *n -= 1,
                _ => out.push(Violation {
                    kind: ViolationKind::SkipAdded,
                    file: Some(new.to_owned()),
                    line: Some(line.line),
                    message: format!(
                        "{}: skip or only marker added: {}",
                        at(new, Some(line.line)),
                        shorten(line.text.trim(), 80)
                    ),
                }),
            }
        }
    }
}

/// Test files that lost more assertions than they gained, when the test files of the diff lost
/// more than they gained in all (a test moved from one file to another is not emptied); reported at
/// the first removed assertion beyond those added back. Deleted test files are reported whole.
fn removed_assertions(files: &[FileDiff], out: &mut Vec<Violation>) {
    let is_assertion = |l: &&DiffLine| ASSERTION.is_match(&l.text);
    let mut per_file = Vec::new();
    let mut net_total: i64 = 0;
    for file in files {
        let in_test_file = |path: Option<&str>| path.is_some_and(is_test_file);
        let counted = in_test_file(file.old.as_deref()) || in_test_file(file.new.as_deref());
        if !counted {
            continue;
        }
        let added = file
            .lines
            .iter()
            .filter(|l| l.added)
            .filter(is_assertion)
            .count();
        let removed: Vec<&DiffLine> = file
            .lines
            .iter()
            .filter(|l| !l.added)
            .filter(is_assertion)
            .collect();
        net_total += removed.len() as i64 - added as i64;
        // A removed test takes its assertions with it and is reported as removed already: count
        // one assertion of each as accounted for.
        let tests = |added: bool| {
            file.lines
                .iter()
                .filter(|l| l.added == added && test_name(&l.text).is_some())
                .count()
        };
        let accounted = added + tests(false).saturating_sub(tests(true));
        if let (Some(old), Some(_)) = (file.old.as_deref(), file.new.as_deref())
            && removed.len() > accounted
        {
            per_file.push((old, removed[accounted].line, removed.len() - accounted));
        }
    }
    if net_total <= 0 {
        return;
    }
    for (old, line, net) in per_file {
        out.push(Violation {
            kind: ViolationKind::AssertionsRemoved,
            file: Some(old.to_owned()),
            line: Some(line),
            message: format!(
                "{}: {net} assertion{} removed from a test file",
                at(old, Some(line)),
                if net == 1 { "" } else { "s" }
            ),
        });
    }
}

pub(super) fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_compile() {
        LazyLock::force(&JS_TEST);
        LazyLock::force(&PY_TEST);
        LazyLock::force(&RUST_TEST);
        LazyLock::force(&JS_SKIPS);
        LazyLock::force(&PY_SKIPS);
        LazyLock::force(&RS_SKIPS);
        LazyLock::force(&ASSERTION);
    }

    #[test]
    fn skip_markers_are_read_in_their_language_only() {
        let js = skip_markers("a.test.ts").expect("js");
        for line in [
            "  it.skip('x', () => {",
            "describe.only('y', f)",
            "  xit('z', f)",
            "fit('w', f)",
            "test.concurrent.skip('v', f)",
        ] {
            assert!(js.is_match(line), "{line}");
        }
        for line in [
            "  model.fit(data)",
            "  const xit = 1;",
            "  it('skips nothing', f)",
            "  test.todo('later')",
        ] {
            assert!(!js.is_match(line), "{line}");
        }
        let py = skip_markers("tests/test_a.py").expect("py");
        assert!(py.is_match("@pytest.mark.skip(reason='x')"));
        assert!(py.is_match("    pytest.skip('later')"));
        assert!(!py.is_match("    model.fit(x)"));
        assert!(
            skip_markers("src/lib.rs")
                .expect("rs")
                .is_match("    #[ignore = \"slow\"]")
        );
        assert!(skip_markers("README.md").is_none());
    }

    #[test]
    fn assertions_are_recognised() {
        for line in [
            "    expect(x).toBe(1);",
            "    assert total() == 3",
            "        assert_eq!(a, b);",
            "        self.assertEqual(a, b)",
            "    assert.strictEqual(a, b);",
        ] {
            assert!(ASSERTION.is_match(line), "{line}");
        }
        for line in [
            "    const expected = 3;",
            "    # assertions below",
            "    assertion_count += 1",
        ] {
            assert!(!ASSERTION.is_match(line), "{line}");
        }
    }

    #[test]
    fn test_files_are_recognised() {
        for path in [
            "src/cart.test.ts",
            "a/b.spec.jsx",
            "src/__tests__/x.js",
            "tests/test_a.py",
            "pkg/a_test.py",
            "tests/it.rs",
            "x/y_test.go",
        ] {
            assert!(is_test_file(path), "{path}");
        }
        for path in ["src/cart.ts", "src/testing.py", "src/lib.rs", "README.md"] {
            assert!(!is_test_file(path), "{path}");
        }
    }
}
