//! Which tests ran, compared with the baseline: by identity where both runs name their tests, by
//! the runners' own counts where they do not.
//!
//! Counting is not enough: a run that leaves out the failing test and adds two trivial ones runs
//! as many tests as the baseline. So for each test verifier present in both verifications whose
//! reports list their tests completely ([`Report::tests`], nothing dropped), every test the
//! baseline ran (passed, failed or errored) must have run again, not skipped; a test missing is a
//! [`ViolationKind::TestNotRun`], those that failed in the baseline named first. New tests stand
//! in for nothing, with three exceptions that the diff explains:
//!
//! - a test whose definition the diff removed, or marked skipped, and the diff checks reported
//!   (`test_removed`, `test_file_removed`, `skip_added`) is not reported twice;
//! - a test the diff renamed (the same body under another name, as [`super::neutered`] pairs
//!   them) counts as run when a new test of its new name ran;
//! - a test the diff moved (its definition removed from its file and a new test of the same name
//!   ran, or its enclosing `describe`, class or module renamed in the same file) counts as run
//!   when that new test ran.
//!
//! Only whether a test ran is judged here, not whether it passed: the guard sees a run that
//! passed, with the baseline's known failures still failing under `new_failures_only`, and with
//! flaky failures set aside in the counts only.
//!
//! Where either report names no tests, the counts stand in: fewer tests run than in the baseline
//! ([`ViolationKind::FewerTests`]), more deselected or more skipped
//! ([`ViolationKind::MoreLeftOut`]).

use std::collections::{BTreeMap, HashSet};

use super::check::{Violation, ViolationKind, at, test_name};
use super::diff::FileDiff;
use super::neutered::{Rename, Sources};
use crate::model::{Kind, Report, TestCase, TestStatus, Verification};

/// How many missing tests are named for one verifier; the rest are counted.
const NAMED: usize = 5;

/// What the attempt's diff says about test definitions, for the tests that no longer run.
pub(super) struct Changes<'a> {
    files: &'a [FileDiff],
    renames: &'a [Rename],
    /// (old path, name) of definitions the diff removed, as leaves (`totals`, `adds items`).
    removed: Vec<(&'a str, String)>,
    /// (path, name) of definitions the diff checks reported removed or skipped; `None` for the
    /// name: the whole file was reported.
    reported: Vec<(&'a str, Option<String>)>,
}

impl<'a> Changes<'a> {
    /// The changes of `files`, given the renames the judgement found and the violations the diff
    /// checks reported.
    pub(super) fn new(
        files: &'a [FileDiff],
        renames: &'a [Rename],
        from_diff: &[Violation],
        sources: &'a Sources,
    ) -> Changes<'a> {
        let mut removed: Vec<(&str, String, u32)> = Vec::new();
        for file in files {
            let Some(old) = file.old.as_deref() else {
                continue;
            };
            let lines: Vec<&str> = file
                .lines
                .iter()
                .filter(|l| !l.added)
                .map(|l| l.text.as_str())
                .collect();
            let numbers = file.lines.iter().filter(|l| !l.added).map(|l| l.line);
            for (i, number) in numbers.enumerate() {
                if let Some(leaf) = defined_at(&lines, i) {
                    removed.push((old, leaf, number));
                }
            }
        }
        let mut reported = Vec::new();
        for v in from_diff {
            let Some(file) = v.file.as_deref() else {
                continue;
            };
            match v.kind {
                ViolationKind::TestFileRemoved => {
                    if let Some(path) = files
                        .iter()
                        .find_map(|f| f.old.as_deref().filter(|o| *o == file))
                    {
                        reported.push((path, None));
                    }
                }
                ViolationKind::TestRemoved => {
                    for (path, leaf, line) in &removed {
                        if *path == file && Some(*line) == v.line {
                            reported.push((*path, Some(leaf.clone())));
                        }
                    }
                }
                // A skip marker added: the test it marks, the first defined from its line on.
                ViolationKind::SkipAdded => {
                    let (Some(path), Some(line)) = (
                        files
                            .iter()
                            .find_map(|f| f.new.as_deref().filter(|n| *n == file)),
                        v.line,
                    ) else {
                        continue;
                    };
                    let Some(text) = sources.get(path) else {
                        continue;
                    };
                    let lines: Vec<&str> = text
                        .lines()
                        .skip(line.saturating_sub(1) as usize)
                        .take(8)
                        .collect();
                    if let Some(leaf) = (0..lines.len()).find_map(|i| defined_at(&lines, i)) {
                        reported.push((path, Some(leaf)));
                    }
                }
                _ => {}
            }
        }
        Changes {
            files,
            renames,
            removed: removed.into_iter().map(|(p, l, _)| (p, l)).collect(),
            reported,
        }
    }

    /// Whether the diff checks reported `test`'s definition removed or skipped already.
    fn reported(&self, test: &Id<'_>) -> bool {
        self.reported.iter().any(|(path, leaf)| {
            test.in_file(path) && leaf.as_deref().is_none_or(|leaf| leaf == test.leaf)
        })
    }

    /// Whether the diff removed `test`'s definition from its file (or deleted or renamed the
    /// file).
    fn moved_out(&self, test: &Id<'_>) -> bool {
        let file_gone = test.file.is_some()
            && self
                .files
                .iter()
                .any(|f| f.old.as_deref().is_some_and(|old| test.in_file(old)) && f.new != f.old);
        file_gone
            || self
                .removed
                .iter()
                .any(|(path, leaf)| test.in_file(path) && *leaf == test.leaf)
    }

    /// Whether `now`, a new test of the same file and leaf, is `then` under an outer name the
    /// diff changed: each part of the old name that is not in the new one is on a removed line of
    /// the file, each new part on an added line.
    fn renamed_around(&self, then: &Id<'_>, now: &Id<'_>) -> bool {
        let (Some(file), true) = (then.file, then.file == now.file) else {
            return false;
        };
        let Some(diff) = self
            .files
            .iter()
            .find(|f| f.new.as_deref().is_some_and(|new| same_path(new, file)))
        else {
            return false;
        };
        let on = |added: bool, part: &str| {
            diff.lines
                .iter()
                .any(|l| l.added == added && l.text.contains(part))
        };
        let (old, new) = (then.outer_parts(), now.outer_parts());
        let gone: Vec<&str> = old.iter().filter(|p| !new.contains(p)).copied().collect();
        let came: Vec<&str> = new.iter().filter(|p| !old.contains(p)).copied().collect();
        !(gone.is_empty() && came.is_empty())
            && gone.iter().all(|p| on(false, p))
            && came.iter().all(|p| on(true, p))
    }

    /// Whether `now` is `then` renamed by the diff.
    fn renamed(&self, then: &Id<'_>, now: &Id<'_>) -> bool {
        then.params == now.params
            && self.renames.iter().any(|r| {
                then.in_file(&r.old_path)
                    && now.in_file(&r.new_path)
                    && then.leaf == r.old_short
                    && now.leaf == r.new_short
            })
    }
}

/// The name of the test that `lines[i]` defines, as a runner names it last: a JavaScript title,
/// a Python function, or for Rust's `#[test]` the function on one of the next lines.
fn defined_at(lines: &[&str], i: usize) -> Option<String> {
    let name = test_name(lines.get(i)?)?;
    match name.strip_prefix("test ") {
        Some(quoted) if quoted.starts_with('"') => Some(quoted.trim_matches('"').to_owned()),
        Some(function) => Some(function.to_owned()),
        None => lines[i + 1..]
            .iter()
            .take(4)
            .find_map(|l| rust_fn(l))
            .map(str::to_owned),
    }
}

/// The function a line of Rust defines.
fn rust_fn(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    let rest = rest.strip_prefix("pub ").unwrap_or(rest);
    let rest = rest.strip_prefix("async ").unwrap_or(rest);
    let rest = rest.strip_prefix("fn ")?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// A test's identity as its runner names it: its file and full name, with the parts the guard
/// pairs it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Id<'a> {
    file: Option<&'a str>,
    name: &'a str,
    /// The last part of the name, parameters aside: `test_total`, `adds items`.
    leaf: &'a str,
    /// The parameters: `[1-2]` of pytest's `test_x[1-2]`, else empty.
    params: &'a str,
}

impl<'a> Id<'a> {
    fn of(test: &'a TestCase) -> Id<'a> {
        let file = test
            .file
            .as_deref()
            .map(|f| f.trim_start_matches("./"))
            .filter(|f| !f.is_empty());
        let name = stable_name(test.name.trim());
        let (head, params) = match name.find('[') {
            Some(i) if name.ends_with(']') => name.split_at(i),
            _ => (name, ""),
        };
        let leaf = parts(head).pop().unwrap_or(head);
        Id {
            file,
            name,
            leaf,
            params,
        }
    }

    /// Whether the test belongs to `path` (a path of the diff), or names no file at all.
    fn in_file(&self, path: &str) -> bool {
        self.file.is_none_or(|file| same_path(path, file))
    }

    /// The parts of the name before its leaf: `describe` titles, a class, a module path.
    fn outer_parts(&self) -> Vec<&'a str> {
        let head = &self.name[..self.name.len() - self.params.len()];
        let mut parts = parts(head);
        parts.pop();
        parts
    }
}

/// The parts of a test's name, outermost first, split where its runner joins them: `::` (pytest's
/// node ids, libtest's module paths, JUnit's `classname::name`), ` › ` (jest), ` > ` (vitest,
/// mocha), else `.` in a name without spaces (unittest's `tests.test_a.TestCart.test_x`). A title
/// with spaces and none of these is one part: `adds 1.5 items`.
fn parts(name: &str) -> Vec<&str> {
    let separator = ["::", " › ", " > "].into_iter().find(|s| name.contains(s));
    let split: Vec<&str> = match separator {
        Some(separator) => name.split(separator).collect(),
        None if !name.contains(' ') => name.split('.').collect(),
        None => vec![name],
    };
    split
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// A doc-test's name without the line it starts at (`src/lib.rs - add (line 8)`): a change above
/// it moves it without changing the test.
fn stable_name(name: &str) -> &str {
    match name.rsplit_once(" (line ") {
        Some((head, tail))
            if tail
                .strip_suffix(')')
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            head
        }
        _ => name,
    }
}

/// Whether two paths name the same file, one perhaps relative to a sub-directory of the other's
/// root (a runner in a package of a monorepo names files from the package).
fn same_path(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_start_matches("./"), b.trim_start_matches("./"));
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

/// Whether a test ran: passed, failed or errored, not skipped.
fn ran(status: TestStatus) -> bool {
    !matches!(status, TestStatus::Skipped)
}

/// Whether a report names every test its tool reported.
fn lists_tests(report: &Report) -> bool {
    !report.tests.is_empty() && report.tests_dropped == 0
}

/// The reasons, from which tests ran, that the pass of `current` does not count: by identity for
/// each test verifier whose reports (here and in the baseline) list their tests, by the runner's
/// counts for the others.
pub(super) fn compare(
    baseline: &[Verification],
    current: &[Verification],
    changes: &Changes<'_>,
) -> Vec<Violation> {
    let mut counted = Vec::new();
    let mut named = Vec::new();
    for now in current.iter().filter(|v| v.kind == Kind::Test) {
        let Some(then) = baseline
            .iter()
            .find(|b| b.kind == Kind::Test && b.verifier == now.verifier)
        else {
            continue;
        };
        if lists_tests(&then.report) && lists_tests(&now.report) {
            named.extend(not_run(&now.verifier, &then.report, &now.report, changes));
        } else {
            counted.extend(fewer_tests(&now.verifier, &then.report, &now.report));
            counted.extend(more_left_out(&now.verifier, &then.report, &now.report));
        }
    }
    counted.extend(named);
    counted
}

/// The tests of `then` that did not run in `now`.
fn not_run(verifier: &str, then: &Report, now: &Report, changes: &Changes<'_>) -> Vec<Violation> {
    // How many times each identity ran (a name can repeat: libtest's binaries, mocha's titles).
    let mut ran_then: BTreeMap<Id<'_>, (usize, bool)> = BTreeMap::new();
    for test in then.tests.iter().filter(|t| ran(t.status)) {
        let entry = ran_then.entry(Id::of(test)).or_default();
        entry.0 += 1;
        entry.1 |= test.status != TestStatus::Passed;
    }
    let mut ran_now: BTreeMap<Id<'_>, usize> = BTreeMap::new();
    let mut skipped_now: HashSet<Id<'_>> = HashSet::new();
    for test in &now.tests {
        if ran(test.status) {
            *ran_now.entry(Id::of(test)).or_default() += 1;
        } else {
            skipped_now.insert(Id::of(test));
        }
    }
    // The tests that ran now and not in the baseline, which a renamed or moved test may be.
    let mut new: Vec<(Id<'_>, bool)> = Vec::new();
    for (id, &n) in &ran_now {
        let before = ran_then.get(id).map_or(0, |(n, _)| *n);
        new.extend(std::iter::repeat_n((*id, false), n.saturating_sub(before)));
    }
    let mut missing: Vec<(Id<'_>, bool)> = Vec::new();
    for (id, &(n, failed)) in &ran_then {
        let after = ran_now.get(id).copied().unwrap_or(0);
        for _ in after..n {
            if changes.reported(id) {
                continue;
            }
            let stand_in = new.iter_mut().find(|(candidate, used)| {
                !*used
                    && (changes.renamed(id, candidate)
                        || (candidate.leaf == id.leaf
                            && candidate.params == id.params
                            && (changes.moved_out(id) || changes.renamed_around(id, candidate))))
            });
            match stand_in {
                Some((_, used)) => *used = true,
                None => missing.push((*id, failed)),
            }
        }
    }
    // Failed in the baseline first: those are the tests the task is about.
    missing.sort_by_key(|(id, failed)| (!failed, *id));
    let mut out: Vec<Violation> = missing
        .iter()
        .take(NAMED)
        .map(|(id, failed)| {
            let what = if skipped_now.contains(id) {
                "skipped"
            } else {
                "did not run"
            };
            let then = if *failed { "failed" } else { "ran" };
            let said = format!(
                "{verifier} {what} `{}`, which {then} in the baseline verification",
                id.name
            );
            Violation {
                kind: ViolationKind::TestNotRun,
                file: id.file.map(str::to_owned),
                line: None,
                message: match id.file {
                    Some(file) => format!("{}: {said}", at(file, None)),
                    None => said,
                },
            }
        })
        .collect();
    if missing.len() > NAMED {
        let more = missing.len() - NAMED;
        let failed = missing[NAMED..].iter().filter(|(_, f)| *f).count();
        out.push(Violation {
            kind: ViolationKind::TestNotRun,
            file: None,
            line: None,
            message: format!(
                "{verifier}: and {more} more test{} of the baseline verification did not run{}",
                if more == 1 { "" } else { "s" },
                if failed > 0 {
                    format!(" ({failed} of them failed there)")
                } else {
                    String::new()
                }
            ),
        });
    }
    out
}

/// Tests run (passed + failed), compared with the baseline.
fn fewer_tests(verifier: &str, then: &Report, now: &Report) -> Option<Violation> {
    let ran = |r: &Report| {
        let c = &r.counts;
        match (c.tests_passed, c.tests_failed) {
            (None, None) => None,
            (p, f) => Some(p.unwrap_or(0) + f.unwrap_or(0)),
        }
    };
    let then = ran(then)?;
    // A verifier that says nothing about how many tests ran is not trusted to have run them all.
    let now = ran(now).unwrap_or(0);
    (now < then).then(|| Violation {
        kind: ViolationKind::FewerTests,
        file: None,
        line: None,
        message: format!(
            "{verifier}: {now} test{} ran, {then} in the baseline verification",
            if now == 1 { "" } else { "s" }
        ),
    })
}

/// The runner's own signals that it left tests out: more deselected (pytest's `-k`, `--deselect`,
/// a nextest filter) or more skipped than in the baseline. A count the tool did not print is
/// none left out, when the same tool printed counts at all.
fn more_left_out(verifier: &str, then: &Report, now: &Report) -> Vec<Violation> {
    let said = |r: &Report| r.counts.tests_passed.is_some() || r.counts.tests_failed.is_some();
    if !said(then) || !said(now) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let pairs = [
        (
            "deselected",
            then.counts.tests_deselected,
            now.counts.tests_deselected,
        ),
        (
            "skipped",
            then.counts.tests_skipped,
            now.counts.tests_skipped,
        ),
    ];
    for (what, before, after) in pairs {
        let (before, after) = (before.unwrap_or(0), after.unwrap_or(0));
        if after > before {
            out.push(Violation {
                kind: ViolationKind::MoreLeftOut,
                file: None,
                line: None,
                message: format!(
                    "{verifier}: {after} test{} {what}, {before} in the baseline verification",
                    if after == 1 { "" } else { "s" }
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(file: Option<&'static str>, name: &'static str) -> Id<'static> {
        let test = Box::leak(Box::new(TestCase {
            name: name.to_owned(),
            file: file.map(str::to_owned),
            status: TestStatus::Passed,
            duration_ms: None,
        }));
        Id::of(test)
    }

    #[test]
    fn identities_take_the_runners_names_apart() {
        let py = id(
            Some("./tests/test_a.py"),
            "tests/test_a.py::TestCart::test_x[1.5-2]",
        );
        assert_eq!(py.file, Some("tests/test_a.py"));
        assert_eq!((py.leaf, py.params), ("test_x", "[1.5-2]"));
        assert_eq!(py.outer_parts(), ["tests/test_a.py", "TestCart"]);
        let js = id(Some("src/cart.test.js"), "cart › totals › adds items");
        assert_eq!(
            (js.leaf, js.outer_parts()),
            ("adds items", vec!["cart", "totals"])
        );
        let mocha = id(None, "money > splits evenly");
        assert_eq!(mocha.leaf, "splits evenly");
        let rs = id(None, "money::tests::parses_cents");
        assert_eq!(rs.leaf, "parses_cents");
        let unittest = id(None, "tests.test_a.TestCart.test_total");
        assert_eq!(unittest.leaf, "test_total");
        assert_eq!(id(None, "adds 1.5 items").leaf, "adds 1.5 items");
        let doc = id(None, "src/lib.rs - add (line 8)");
        assert_eq!(doc.name, "src/lib.rs - add");
        assert_eq!(doc, id(None, "src/lib.rs - add (line 12)"));
    }

    /// A pytest report listing `tests` as `(function, status)` of `tests/test_a.py`.
    fn listing(tests: &[(&str, TestStatus)]) -> Report {
        let mut report = Report::new("pytest", crate::model::Outcome::Passed);
        for (name, status) in tests {
            report.push_test(TestCase {
                name: format!("tests/test_a.py::{name}"),
                file: Some("tests/test_a.py".to_owned()),
                status: *status,
                duration_ms: None,
            });
        }
        report
    }

    #[test]
    fn a_handful_are_named_failed_first_and_the_rest_counted() {
        use TestStatus::{Failed, Passed};
        let then = listing(&[
            ("test_a", Passed),
            ("test_b", Passed),
            ("test_c", Passed),
            ("test_d", Passed),
            ("test_e", Passed),
            ("test_f", Passed),
            ("test_y", Failed),
            ("test_z", Failed),
        ]);
        let now = listing(&[("test_new", Passed)]);
        let none = Sources::new();
        let changes = Changes::new(&[], &[], &[], &none);
        let found = not_run("pytest", &then, &now, &changes);
        let messages: Vec<&str> = found.iter().map(|v| v.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "tests/test_a.py: pytest did not run `tests/test_a.py::test_y`, which failed in the baseline verification",
                "tests/test_a.py: pytest did not run `tests/test_a.py::test_z`, which failed in the baseline verification",
                "tests/test_a.py: pytest did not run `tests/test_a.py::test_a`, which ran in the baseline verification",
                "tests/test_a.py: pytest did not run `tests/test_a.py::test_b`, which ran in the baseline verification",
                "tests/test_a.py: pytest did not run `tests/test_a.py::test_c`, which ran in the baseline verification",
                "pytest: and 3 more tests of the baseline verification did not run",
            ]
        );
        assert!(found.iter().all(|v| v.kind == ViolationKind::TestNotRun));
    }

    #[test]
    fn a_test_that_ran_twice_must_run_twice() {
        use TestStatus::Passed;
        let then = listing(&[("test_a", Passed), ("test_a", Passed)]);
        let now = listing(&[("test_a", Passed), ("test_b", Passed)]);
        let none = Sources::new();
        let changes = Changes::new(&[], &[], &[], &none);
        assert_eq!(not_run("pytest", &then, &now, &changes).len(), 1);
        assert!(not_run("pytest", &then, &then, &changes).is_empty());
    }

    #[test]
    fn paths_agree_from_a_package_root() {
        assert!(same_path("packages/app/src/a.test.js", "src/a.test.js"));
        assert!(same_path("./tests/test_a.py", "tests/test_a.py"));
        assert!(!same_path("tests/test_ab.py", "b.py"));
    }

    #[test]
    fn rust_functions_are_named() {
        assert_eq!(rust_fn("    fn totals() {"), Some("totals"));
        assert_eq!(rust_fn("    async fn fetches() {"), Some("fetches"));
        assert_eq!(rust_fn("    let fn_x = 1;"), None);
    }
}
