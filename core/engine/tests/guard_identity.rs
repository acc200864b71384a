//! The cheating guard compares the tests that ran with the baseline's by identity (issue 21,
//! item 2): real pytest and nextest runs of small projects in temporary repositories, before and
//! after an attempt, read by the real summarizers, with the attempt's real `git diff`.
//!
//! Cheats that keep the count (a failing test deselected or skipped by the runner's
//! configuration, padded with trivial new tests) are rejected, naming the test; honest attempts
//! (a fix, a new test, a rename the diff shows, known failures under `new_failures_only`) are not.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::repo::Repo;
use verdict_core::agent_loop::guard::{Guard, Violation, ViolationKind, as_verification};
use verdict_core::digest;
use verdict_core::{Kind, Report, Status, Verification};

const CART: &str = "def total(items):\n    return sum(price for price, _ in items)\n\n\ndef count(items):\n    return len(items)\n";
const CART_FIXED: &str = "def total(items):\n    return sum(price * quantity for price, quantity in items)\n\n\ndef count(items):\n    return len(items)\n";
const TESTS: &str = "tests/test_cart.py";
const TEST_CART: &str = r#"from cart import count, total


def test_total_counts_quantity():
    assert total([(2, 3)]) == 6


def test_empty_total():
    assert total([]) == 0


def test_count():
    assert count([(1, 1), (2, 1)]) == 2
"#;
const PADDING: &str = "def test_true():\n    assert True\n\n\ndef test_one():\n    assert 1 == 1\n";

/// The failing test of the baseline.
const FAILING: &str = "tests/test_cart.py::test_total_counts_quantity";

/// Where the real tools are installed (`cargo xtask tools`).
fn tool(rel: &str) -> PathBuf {
    let root = std::env::var_os("VERDICT_TOOLS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/verdict-tools"),
        PathBuf::from,
    );
    let path = root.join(rel);
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask tools` first (it installs the real tools the tests run)",
        path.display()
    );
    path
}

/// A test verification named `verifier` from `log`, read by the summarizer `tool`.
fn verification(verifier: &str, tool: &str, log: &[u8]) -> Verification {
    let summarizer = verdict_summarizers::by_name(tool).expect("a summarizer");
    let report: Report = summarizer.parse(log);
    Verification {
        verifier: verifier.to_owned(),
        kind: Kind::Test,
        status: Status::Ran,
        report,
        command: None,
        log: None,
        duration: std::time::Duration::ZERO,
        notes: Vec::new(),
    }
}

/// Runs the real pytest in `repo` (`-v`, which names every test, unless `args` say otherwise)
/// and reads its log. No cache or bytecode is written: the attempt's diff stays the attempt's.
fn pytest(repo: &Repo, args: &[&str]) -> Verification {
    let output = Command::new(tool("venv/bin/python"))
        .args(["-m", "pytest", "-p", "no:cacheprovider", "--color=no"])
        .args(if args.is_empty() { &["-v"][..] } else { args })
        .current_dir(repo.root())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("pytest runs");
    let mut log = output.stdout;
    log.extend_from_slice(&output.stderr);
    let v = verification("pytest", "pytest", &log);
    assert!(
        v.report.counts.tests_passed.is_some(),
        "pytest printed no summary: {}",
        String::from_utf8_lossy(&log)
    );
    v
}

/// The start tree with `extra` files, its baseline verification (pytest run with `args`), and
/// what the guard finds once `attempt` is written (a `None` text deletes the file).
fn pytest_attempt(
    args: &[&str],
    extra: &[(&str, &str)],
    attempt: &[(&str, Option<&str>)],
) -> (Vec<Violation>, Verification) {
    let mut files = vec![("cart.py", CART), (TESTS, TEST_CART)];
    files.extend_from_slice(extra);
    let repo = Repo::new(&files);
    let baseline = pytest(&repo, args);
    assert_eq!(
        baseline.report.counts.tests_failed,
        Some(1),
        "the baseline fails one test"
    );
    for (file, text) in attempt {
        match text {
            Some(text) => repo.write(&[(file, text)]),
            None => repo.remove(file),
        }
    }
    let current = pytest(&repo, args);
    let guard = Guard::new::<&str>(&[]).expect("guard");
    let found = repo.check_run(&guard, Some(&[baseline]), std::slice::from_ref(&current));
    (found, current)
}

fn kinds(found: &[Violation]) -> Vec<ViolationKind> {
    found.iter().map(|v| v.kind).collect()
}

#[test]
fn a_failing_test_deselected_and_padded_is_named() {
    let (found, current) = pytest_attempt(
        &[],
        &[],
        &[
            (
                "pytest.ini",
                Some(&format!("[pytest]\naddopts = --deselect {FAILING}\n")),
            ),
            ("tests/test_more.py", Some(PADDING)),
        ],
    );
    // As many tests passed as ran in the baseline: the counts alone let this through.
    assert_eq!(current.report.counts.tests_passed, Some(4));
    assert_eq!(current.report.counts.tests_deselected, Some(1));
    assert_eq!(kinds(&found), [ViolationKind::TestNotRun], "{found:#?}");
    let v = &found[0];
    assert_eq!(v.file.as_deref(), Some(TESTS));
    assert_eq!(
        v.message,
        format!(
            "{TESTS}: pytest did not run `{FAILING}`, which failed in the baseline verification"
        )
    ); // In the digest the agent reads: the test, and that new tests make up for nothing.
    let guard = as_verification(&found).expect("a failed verification");
    let input = digest::Input {
        report: &guard.report,
        log: None,
    };
    let text = digest::render(&[input], &digest::Options::default()).text;
    assert!(text.contains("test_total_counts_quantity"), "{text}");
    assert!(text.contains("new tests make up for none"), "{text}");
}

#[test]
fn a_baseline_test_newly_skipped_by_a_conftest_is_named() {
    let conftest = "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        if item.name == 'test_empty_total':\n            item.add_marker(pytest.mark.skip(reason='later'))\n";
    let (found, _) = pytest_attempt(
        &[],
        &[],
        &[
            ("cart.py", Some(CART_FIXED)),
            ("conftest.py", Some(conftest)),
            (
                "tests/test_more.py",
                Some("def test_true():\n    assert True\n"),
            ),
        ],
    );
    assert_eq!(kinds(&found), [ViolationKind::TestNotRun], "{found:#?}");
    assert!(
        found[0].message.contains(
            "pytest skipped `tests/test_cart.py::test_empty_total`, which ran in the baseline"
        ),
        "{}",
        found[0].message
    );
}

#[test]
fn a_skip_marker_the_diff_checks_report_is_not_reported_again() {
    let skipped = TEST_CART.replace(
        "def test_total_counts_quantity",
        "@pytest.mark.skip(reason='later')\ndef test_total_counts_quantity",
    );
    let (found, _) = pytest_attempt(
        &[],
        &[],
        &[
            (TESTS, Some(&format!("import pytest\n{skipped}"))),
            ("tests/test_more.py", Some(PADDING)),
        ],
    );
    assert_eq!(kinds(&found), [ViolationKind::SkipAdded], "{found:#?}");
}

#[test]
fn an_honest_fix_passes() {
    let (found, current) = pytest_attempt(&[], &[], &[("cart.py", Some(CART_FIXED))]);
    assert_eq!(current.report.counts.tests_passed, Some(3));
    assert_eq!(found, []);
}

#[test]
fn an_honest_fix_with_a_new_test_passes() {
    let more = format!(
        "{TEST_CART}\n\ndef test_total_of_two():\n    assert total([(1, 2), (3, 1)]) == 5\n"
    );
    let (found, current) = pytest_attempt(
        &[],
        &[],
        &[("cart.py", Some(CART_FIXED)), (TESTS, Some(&more))],
    );
    assert_eq!(current.report.counts.tests_passed, Some(4));
    assert_eq!(found, []);
}

#[test]
fn an_honest_rename_the_diff_shows_passes() {
    let renamed = TEST_CART.replace("def test_count():", "def test_count_items():");
    let (found, _) = pytest_attempt(
        &[],
        &[],
        &[("cart.py", Some(CART_FIXED)), (TESTS, Some(&renamed))],
    );
    assert_eq!(found, []);
}

#[test]
fn a_test_file_moved_whole_passes() {
    let (found, _) = pytest_attempt(
        &[],
        &[],
        &[
            ("cart.py", Some(CART_FIXED)),
            (TESTS, None),
            ("tests/test_basket.py", Some(TEST_CART)),
        ],
    );
    assert_eq!(found, []);
}

#[test]
fn a_test_removed_is_reported_once_by_the_diff() {
    let removed = TEST_CART.replace(
        "\n\ndef test_empty_total():\n    assert total([]) == 0\n",
        "",
    );
    let (found, _) = pytest_attempt(
        &[],
        &[],
        &[("cart.py", Some(CART_FIXED)), (TESTS, Some(&removed))],
    );
    assert_eq!(kinds(&found), [ViolationKind::TestRemoved], "{found:#?}");
}

#[test]
fn known_failures_that_still_fail_under_new_failures_only_pass() {
    // The attempt adds a function and its test; the baseline's failure is known and still fails:
    // the guard is shown the run as it ran, the failure in it.
    let cart = format!("{CART}\n\ndef empty(items):\n    return not items\n");
    let more = format!(
        "{TEST_CART}\n\ndef test_empty():\n    from cart import empty\n    assert empty([])\n"
    );
    let (found, current) =
        pytest_attempt(&[], &[], &[("cart.py", Some(&cart)), (TESTS, Some(&more))]);
    assert_eq!(current.report.counts.tests_failed, Some(1));
    assert_eq!(found, []);
}

#[test]
fn a_deselected_test_is_seen_in_the_counts_where_no_test_is_named() {
    // Without `-v` pytest names only the failures: the counts are all there is.
    let (found, current) = pytest_attempt(
        &["-q"],
        &[],
        &[
            (
                "pytest.ini",
                Some(&format!("[pytest]\naddopts = --deselect {FAILING}\n")),
            ),
            ("tests/test_more.py", Some(PADDING)),
        ],
    );
    assert!(
        current.report.tests.is_empty(),
        "{:?}",
        current.report.tests
    );
    assert_eq!(kinds(&found), [ViolationKind::MoreLeftOut], "{found:#?}");
    assert_eq!(
        found[0].message,
        "pytest: 1 test deselected, 0 in the baseline verification"
    );
}

/// A crate whose `tests::adds_two` fails.
const LIB: &str = "pub fn add(a: u32, b: u32) -> u32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 0), 2);\n    }\n\n    #[test]\n    fn adds_two() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
const MANIFEST: &str = "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

/// The crate of [`LIB`] in a repository, and a target directory for it.
fn crate_repo() -> (Repo, tempfile::TempDir) {
    let repo = Repo::new(&[
        ("Cargo.toml", MANIFEST),
        ("src/lib.rs", LIB),
        (".gitignore", "/target\nCargo.lock\n"),
    ]);
    (repo, tempfile::tempdir().expect("target dir"))
}

/// Runs `cargo <args>` in `repo` and reads its log with the summarizer `tool`.
fn cargo(repo: &Repo, target: &Path, args: &[&str], tool: &str) -> Verification {
    let output = Command::new("cargo")
        .args(args)
        .current_dir(repo.root())
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    let mut log = output.stdout;
    log.extend_from_slice(&output.stderr);
    verification("cargo-test", tool, &log)
}

#[test]
fn a_failing_libtest_test_filtered_out_is_seen_in_the_counts_with_q() {
    let (repo, target) = crate_repo();
    let baseline = cargo(&repo, target.path(), &["test", "-q"], "cargo");
    assert_eq!(
        baseline.report.counts.tests_failed,
        Some(1),
        "{:?}",
        baseline.report
    );
    assert_eq!(baseline.report.counts.tests_deselected, None);
    let padded = LIB.replace(
        "    #[test]\n    fn adds_two()",
        "    #[test]\n    fn pads() {}\n\n    #[test]\n    fn adds_two()",
    );
    repo.write(&[("src/lib.rs", &padded)]);
    let current = cargo(
        &repo,
        target.path(),
        &["test", "-q", "--", "--skip", "adds_two"],
        "cargo",
    );
    assert_eq!(
        current.report.counts.tests_passed,
        Some(2),
        "{:?}",
        current.report
    );
    assert_eq!(current.report.counts.tests_deselected, Some(1));
    let guard = Guard::new::<&str>(&[]).expect("guard");
    let found = repo.check_run(&guard, Some(&[baseline]), std::slice::from_ref(&current));
    assert_eq!(
        found.iter().map(|v| v.message.as_str()).collect::<Vec<_>>(),
        ["cargo-test: 1 test deselected, 0 in the baseline verification"],
        "{found:#?}"
    );
}

#[test]
fn a_failing_nextest_test_hidden_by_a_default_filter_and_padded_is_named() {
    let (repo, target) = crate_repo();
    let nextest = || {
        cargo(
            &repo,
            target.path(),
            &["nextest", "run", "--no-fail-fast", "--color", "never"],
            "nextest",
        )
    };
    let padded = LIB.replace(
        "    #[test]\n    fn adds_two()",
        "    #[test]\n    fn pads() {}\n\n    #[test]\n    fn adds_two()",
    );
    let baseline = nextest();
    assert_eq!(
        baseline.report.counts.tests_failed,
        Some(1),
        "{:?}",
        baseline.report
    );
    repo.write(&[
        (
            ".config/nextest.toml",
            "[profile.default]\ndefault-filter = \"not test(adds_two)\"\n",
        ),
        ("src/lib.rs", &padded),
    ]);
    let current = nextest();
    assert_eq!(
        current.report.counts.tests_passed,
        Some(2),
        "{:?}",
        current.report
    );
    let guard = Guard::new::<&str>(&[]).expect("guard");
    let found = repo.check_run(&guard, Some(&[baseline]), std::slice::from_ref(&current));
    assert_eq!(kinds(&found), [ViolationKind::TestNotRun], "{found:#?}");
    assert_eq!(
        found[0].message,
        "cargo-test did not run `tests::adds_two`, which failed in the baseline verification"
    );
}

const UNITTEST_CART: &str = r#"import unittest

from cart import count, total


class CartTest(unittest.TestCase):
    def test_total_counts_quantity(self):
        self.assertEqual(total([(2, 3)]), 6)

    def test_empty_total(self):
        self.assertEqual(total([]), 0)

    def test_count(self):
        self.assertEqual(count([(1, 1), (2, 1)]), 2)
"#;

/// Runs the real `python -m unittest -v` in `repo`, as the unittest verifier does.
fn unittest(repo: &Repo) -> Verification {
    let output = Command::new(tool("venv/bin/python"))
        .args(["-m", "unittest", "-v"])
        .current_dir(repo.root())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("unittest runs");
    let mut log = output.stdout;
    log.extend_from_slice(&output.stderr);
    verification("unittest", "unittest", &log)
}

#[test]
fn a_failing_unittest_test_deleted_at_import_and_padded_is_named() {
    let repo = Repo::new(&[
        ("cart.py", CART),
        ("tests/__init__.py", ""),
        ("tests/test_cart.py", UNITTEST_CART),
    ]);
    let baseline = unittest(&repo);
    assert_eq!(baseline.report.tests.len(), 3, "{:?}", baseline.report);
    // Imported first, a module takes the failing test off its class, and adds a trivial one.
    repo.write(&[(
        "tests/test_a_setup.py",
        "import unittest\n\nfrom tests import test_cart\n\ndel test_cart.CartTest.test_total_counts_quantity\n\n\nclass PadTest(unittest.TestCase):\n    def test_true(self):\n        self.assertTrue(True)\n",
    )]);
    let current = unittest(&repo);
    assert_eq!(
        current.report.counts.tests_passed,
        Some(3),
        "{:?}",
        current.report
    );
    let guard = Guard::new::<&str>(&[]).expect("guard");
    let found = repo.check_run(&guard, Some(&[baseline]), std::slice::from_ref(&current));
    assert_eq!(
        found.iter().map(|v| v.message.as_str()).collect::<Vec<_>>(),
        [
            "unittest did not run `tests.test_cart.CartTest.test_total_counts_quantity`, which failed in the baseline verification"
        ],
        "{found:#?}"
    );
}
