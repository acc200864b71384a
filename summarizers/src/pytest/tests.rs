//! Unit tests of the pytest summarizer on small logs; the captured logs are in `tests/`.

use verdict_model::{Outcome, Report, Summarizer};

use super::PytestSummarizer;
use super::entries::{node_id, short_name, split_entry};
use super::lines::{final_counts, is_report_banner, subtest_failed, subtest_of};

#[test]
fn report_banners_are_pytests_own() {
    assert!(is_report_banner(
        "================== FAILURES ==================="
    ));
    assert!(is_report_banner("=== ERRORS ==="));
    assert!(is_report_banner(
        "____ ERROR collecting tests/test_a.py ____"
    ));
    assert!(!is_report_banner("=== FAILURES in the log ==="));
    assert!(!is_report_banner("==================================="));
    assert!(!is_report_banner("____ ERROR collecting ____"));
    assert!(!is_report_banner("FAILURES"));
}

fn parse(log: &str) -> Report {
    PytestSummarizer.parse(log.as_bytes())
}

#[test]
fn a_log_cut_before_its_summary_never_passes() {
    // A UTF-8 BOM hid the session's rule, and the run died in a test.
    let log = "\u{FEFF}===== test session starts =====\ncollected 3 items\n\ntests/test_a.py::test_x PASSED [ 33%]\ntests/test_a.py::test_y ";
    let report = parse(log);
    assert_eq!(report.outcome, Outcome::Errored);
    assert_eq!(
        report.error.as_deref(),
        Some(
            "the log ends before pytest's summary line, while tests/test_a.py::test_y was running"
        )
    );
    assert_eq!(
        parse("tests/test_a.py::test_x PASSED [ 33%]\n").outcome,
        Outcome::Errored
    );
}

#[test]
fn quiet_closing_line_after_the_warnings_summary() {
    let log = "..  [100%]\n===== warnings summary =====\ntests/test_a.py::test_x\n  /app/a.py:4: DeprecationWarning: old\n    x()\n\n-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html\n2 passed, 1 warning in 0.10s\n";
    let report = parse(log);
    assert_eq!(report.outcome, Outcome::Passed);
    assert_eq!(report.counts.tests_passed, Some(2));
    assert_eq!(report.counts.warnings, Some(1));
}

#[test]
fn old_quiet_runs_are_added_up() {
    // pytest before 6: no short summary, the closing line right after the last block.
    let log = ".   [100%]\n1 passed in 0.12 seconds\n.F   [100%]\n===== FAILURES =====\n_____ test_two _____\n\n>       assert 0\nE       assert 0\n\ntest_b.py:8: AssertionError\n1 failed, 1 passed in 0.12 seconds\n";
    let report = parse(log);
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.tests_passed, Some(2));
    assert_eq!(report.counts.tests_failed, Some(1));
}

#[test]
fn rules_with_a_trailing_space() {
    let log = "===== test session starts ===== \ncollected 1 item\n\ntest_a.py .   \n\n===== 1 passed in 0.22s ===== \n";
    let report = parse(log);
    assert_eq!(report.outcome, Outcome::Passed);
    assert_eq!(report.counts.tests_passed, Some(1));
}

#[test]
fn a_long_title_has_a_short_rule() {
    let log = "===== FAILURES =====\n__ TestVeryLongClassName.test_with_a_long_name ___\n\n>       assert 0\nE       assert 0\n\nsite/lib/python3.12/site-packages/x.py:9: AssertionError\ntests/test_a.py:4: AssertionError\n===== short test summary info =====\nFAILED tests/test_a.py::TestVeryLongClassName::test_with_a_long_name\n===== 1 failed in 0.1s =====\n";
    let report = parse(log);
    assert_eq!(report.errors().count(), 1);
    let d = report.diagnostics.first().expect("a failure");
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("tests/test_a.py"), Some(4))
    );
    // A line of captured output is not a title.
    assert!(parse("__init__\n").diagnostics.is_empty());
}

#[test]
fn a_quoted_log_is_read_without_its_indentation() {
    let log = "Here is a run:\n\n    $ pytest\n    ===== test session starts =====\n    collected 1 item\n\n    test_a.py F    [100%]\n\n    ===== FAILURES =====\n    _____ test_x _____\n\n        def test_x():\n    >       assert 1 == 2\n    E       assert 1 == 2\n\n    test_a.py:2: AssertionError\n    ===== 1 failed in 0.12s =====\n\nThat is all.\n";
    let report = parse(log);
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.counts.tests_failed, Some(1));
    let d = report.diagnostics.first().expect("a failure");
    assert_eq!((d.file.as_deref(), d.line), (Some("test_a.py"), Some(2)));
}

#[test]
fn final_line_with_every_label() {
    let line = "= 2 failed, 5 passed, 1 skipped, 1 xfailed, 1 xpassed, 3 warnings, 1 error, 2 deselected, 1 rerun in 0.12s =";
    assert!(final_counts(line).is_some());
    assert!(final_counts("5 passed, 1 skipped in 0.02s").is_some());
    assert!(final_counts("no tests ran in 0.01s").is_some());
    // pytest before 5.0.
    assert_eq!(
        final_counts("=== 5 passed, 1 skipped in 84.63 seconds ==="),
        Some("5 passed, 1 skipped")
    );
    assert!(final_counts("= 1 passed, 1 pytest-warnings in 0.01 seconds =").is_some());
    // `--collect-only`.
    assert!(final_counts("=== 34 tests collected in 0.05s ===").is_some());
    assert!(final_counts("1 test collected in 0.01s").is_some());
    assert!(final_counts("35 tests collected, 1 error in 0.21s").is_some());
    assert!(final_counts("2/34 tests collected (32 deselected) in 0.03s").is_some());
    assert!(final_counts("no tests collected in 0.01s").is_some());
    assert!(final_counts("= no tests collected (34 deselected) in 0.05s =").is_some());
    assert!(final_counts("==== 3 passed in 61.20s (0:01:01) ====").is_some());
    assert!(final_counts("5 passing (3ms)").is_none());
}

#[test]
fn node_ids_keep_dots_inside_parameters() {
    assert_eq!(
        node_id("tests/a.py", "K.test_m[1.5-x]"),
        "tests/a.py::K::test_m[1.5-x]"
    );
    assert_eq!(short_name("tests/a.py::K::test_m[1.5]"), "K.test_m[1.5]");
    assert_eq!(
        split_entry("tests/a.py::t[a - b] - AssertionError: x"),
        (
            "tests/a.py::t[a - b]".to_owned(),
            Some("AssertionError: x".to_owned())
        )
    );
}

#[test]
fn tb_line_strict_xpass_does_not_take_the_next_failure() {
    // pytest 8: the xpass has its reason in FAILURES but none in the short summary.
    let pytest8 = concat!(
        "rootdir: /r\n=== FAILURES ===\n[XPASS(strict)] strict xfail\n",
        "/r/tests/test_m.py:33: assert 45 == 40\n=== short test summary info ===\n",
        "FAILED tests/test_m.py::test_xpass\n",
        "FAILED tests/test_m.py::test_slow - assert 45 == 40\n=== 2 failed in 0.01s ===\n",
    );
    // pytest 9: the reason twice in FAILURES, and in the short summary.
    let pytest9 = concat!(
        "rootdir: /r\n=== FAILURES ===\n[XPASS(strict)] strict xfail\n",
        "[XPASS(strict)] strict xfail\n/r/tests/test_m.py:33: assert 45 == 40\n",
        "=== short test summary info ===\n",
        "FAILED tests/test_m.py::test_xpass - [XPASS(strict)] strict xfail\n",
        "FAILED tests/test_m.py::test_slow - assert 45 == 40\n=== 2 failed in 0.01s ===\n",
    );
    for log in [pytest8, pytest9] {
        let report = parse(log);
        assert_eq!(report.diagnostics.len(), 2, "{log}");
        let xpass = &report.diagnostics[0];
        assert_eq!(xpass.test.as_deref(), Some("tests/test_m.py::test_xpass"));
        assert_eq!(xpass.message, "[XPASS(strict)] strict xfail");
        assert_eq!(xpass.line, None);
        let slow = &report.diagnostics[1];
        assert_eq!(slow.test.as_deref(), Some("tests/test_m.py::test_slow"));
        assert_eq!(slow.location().as_deref(), Some("tests/test_m.py:33"));
    }
}

#[test]
fn tb_line_pairs_pytest6_cut_summary_entries_by_their_opening() {
    // pytest 6 cuts a short-summary entry to the terminal's width: `division ...`. Read as
    // 30 characters the entries matched no line, and each line took the next entry of its
    // file instead: the messages and places of different tests.
    let report = parse(concat!(
        "rootdir: /r\n=== FAILURES ===\n",
        "/r/app/calc.py:2: ZeroDivisionError: division by zero\n",
        "/r/tests/test_c.py:34: AssertionError: assert 2.5 == 2.0\n",
        "=== short test summary info ===\n",
        "FAILED tests/test_c.py::test_divide - ZeroDivisionError: division ...\n",
        "FAILED tests/test_c.py::test_ids[with [brackets]] - AssertionError: ...\n",
        "=== 2 failed in 0.01s ===\n",
    ));
    let found: Vec<_> = report
        .diagnostics
        .iter()
        .map(|d| (d.test.as_deref(), d.location(), d.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                Some("tests/test_c.py::test_divide"),
                Some("app/calc.py:2".to_owned()),
                "ZeroDivisionError: division by zero"
            ),
            (
                Some("tests/test_c.py::test_ids[with [brackets]]"),
                Some("tests/test_c.py:34".to_owned()),
                "AssertionError: assert 2.5 == 2.0"
            ),
        ]
    );
}

#[test]
fn a_timeout_that_ended_the_run_is_the_failing_test() {
    // pytest-timeout's thread method dumps the stacks and ends the process: no report, no
    // closing line.
    let log = concat!(
        "=== test session starts ===\nrootdir: /r\ncollected 2 items\n\n",
        "tests/test_t.py .++++ Timeout ++++\n",
        "~~~~ Stack of Thread-1 (1) ~~~~\n",
        "  File \"/r/tests/helper.py\", line 3, in serve\n",
        "~~~~ Stack of MainThread (2) ~~~~\n",
        "  File \"/usr/lib/python3.11/threading.py\", line 9, in run\n",
        "  File \"/r/tests/test_t.py\", line 26, in test_hangs\n",
        "    time.sleep(5)\n",
        "++++ Timeout ++++\n",
    );
    let report = parse(log);
    assert_eq!(report.outcome, Outcome::Failed);
    let d = &report.diagnostics[0];
    assert_eq!(d.test.as_deref(), Some("tests/test_t.py::test_hangs"));
    assert_eq!(d.location().as_deref(), Some("tests/test_t.py:26"));
    // With `-v` the node id is printed before the dump.
    let verbose = log.replace(
        "tests/test_t.py .",
        "tests/test_t.py::K::test_hangs[a - b] ",
    );
    let report = parse(&verbose);
    assert_eq!(
        report.diagnostics[0].test.as_deref(),
        Some("tests/test_t.py::K::test_hangs[a - b]")
    );
    // A dump in a test's captured output, of a run that went on to its report, is no
    // failure of its own.
    let finished = format!("{log}=== 1 passed in 1.00s ===\n");
    assert_eq!(parse(&finished).outcome, Outcome::Passed);
}

#[test]
fn coverage_under_its_minimum_fails_a_run_whose_tests_passed() {
    // pytest-cov 4 prints only its `FAIL` line, 5 and later an `ERROR:` line before it too;
    // pytest exits 1, and the closing line says `1 passed`.
    let cov4 = concat!(
        "=== test session starts ===\ncollected 1 item\n\nt.py .\n",
        "TOTAL                21     21     0%\n\n",
        "FAIL Required test coverage of 95% not reached. Total coverage: 0.00%\n",
        "=== 1 passed in 0.09s ===\n",
    );
    let cov7 = concat!(
        "=== test session starts ===\ncollected 1 item\n\nt.py .\n",
        "ERROR: Coverage failure: total of 14 is less than fail-under=95\n",
        "=== tests coverage ===\nTOTAL                21     18    14%\n",
        "FAIL Required test coverage of 95% not reached. Total coverage: 14.29%\n",
        "=== 1 passed in 0.15s ===\n",
    );
    for (log, total) in [(cov4, "0.00%"), (cov7, "14.29%")] {
        let report = parse(log);
        assert_eq!(report.outcome, Outcome::Failed, "{log}");
        assert_eq!(report.error, None);
        assert_eq!(report.diagnostics.len(), 1);
        assert_eq!(
            report.diagnostics[0].message,
            format!("Required test coverage of 95% not reached. Total coverage: {total}")
        );
    }
}

#[test]
fn a_failing_subtest_is_its_tests_failure() {
    // pytest 9 titles the block `K.test_m (i=1)`: read as a test of its own it was
    // `tests/a.py::K::test_m (i=1)`, no node id.
    assert_eq!(
        subtest_failed("SUBFAILED(i=1) tests/a.py::K::t - AssertionError: x"),
        Some("tests/a.py::K::t - AssertionError: x")
    );
    assert_eq!(
        subtest_failed("SUBFAILED(i=1) a.py::t[x) y] - E"),
        Some("a.py::t[x) y] - E")
    );
    assert_eq!(subtest_failed("SUBFAILED(i=1)"), None);
    assert_eq!(subtest_of("K.test_m (i=1)"), Some("K.test_m"));
    assert_eq!(subtest_of("test_m [custom] (i=1)"), Some("test_m"));
    assert_eq!(subtest_of("test_m[a b]"), None);
    let report = parse(concat!(
        "rootdir: /r\n=== FAILURES ===\n___ K.t (i=1) ___\nE   AssertionError: 1\n",
        "tests/a.py:8: AssertionError\n___ K.t (i=2) ___\nE   AssertionError: 2\n",
        "tests/a.py:8: AssertionError\n=== short test summary info ===\n",
        "SUBFAILED(i=1) tests/a.py::K::t - AssertionError: 1\n",
        "SUBFAILED(i=2) tests/a.py::K::t - AssertionError: 2\n",
        "=== 2 failed, 1 passed in 0.04s ===\n",
    ));
    let found: Vec<_> = report
        .diagnostics
        .iter()
        .map(|d| (d.test.as_deref(), d.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (Some("tests/a.py::K::t"), "AssertionError: 1"),
            (Some("tests/a.py::K::t"), "AssertionError: 2")
        ]
    );
}

#[test]
fn short_traceback_names_the_test_file_line() {
    let report = parse(
        "=== FAILURES ===\n___ test_add ___\ntests/test_a.py:4: in test_add\n    helper()\nsrc/m.py:9: in helper\n    raise ValueError('x')\nE   ValueError: x\n=== short test summary info ===\nFAILED tests/test_a.py::test_add - ValueError: x\n=== 1 failed in 0.01s ===\n",
    );
    assert_eq!(report.outcome, Outcome::Failed);
    let d = &report.diagnostics[0];
    assert_eq!(d.test.as_deref(), Some("tests/test_a.py::test_add"));
    assert_eq!(d.location().as_deref(), Some("tests/test_a.py:4"));
    assert_eq!(d.message, "ValueError: x");
}

#[test]
fn no_tests_ran_is_errored() {
    let report = parse("collected 0 items\n\n=== no tests ran in 0.01s ===\n");
    assert_eq!(report.outcome, Outcome::Errored);
}

#[test]
fn garbage_does_not_panic() {
    for log in [
        "=",
        "___",
        "E",
        "E ",
        "FAILED ",
        "ERROR ",
        "x.py:",
        "x.py:1",
        "File \"",
        "File \"x\", line ",
        "[gw0",
        "___ ERROR collecting ___\n",
        "+ Timeout +",
        "++ Timeout ++\n  File \"",
        "=== test session starts ===\n++ Timeout ++\n  File \"x\", line 1, in \n",
    ] {
        let _ = parse(log);
    }
}
