//! The cheating guard against neutered tests (issue 9, item 6), over real `git diff` output of
//! real files in temporary repositories: each shape that makes a test unable to fail, in Python,
//! JavaScript/TypeScript and Rust, is caught at its line; honest changes (the code fixed, a test
//! renamed, added or made stricter, an expected value changed together with the code) are not;
//! and `allow_test_edits` lets a rewritten expected value through but not a neutered test.

use crate::support::repo;

use repo::Repo;
use verdict_core::agent_loop::guard::{Guard, ViolationKind, as_verification};
use verdict_core::{Diagnostic, Kind, Outcome, Report, Severity, Status, Verification};

use ViolationKind::{
    AssertionsGone, ConstantAssertion, EarlyReturn, EmptyBody, ExpectedRewritten, SkipAdded,
    SwallowedAssertion,
};

const PY_FILE: &str = "tests/test_cart.py";
const PY_CODE: &str = "cart.py";
const PY_TEST: &str = r#"from cart import discount, total


def test_total():
    assert total([1, 2]) == 3


def test_discount():
    price = discount(200, 10)
    assert price == 180
"#;
const PY_CART: &str = "def total(items):\n    return sum(items)\n\n\ndef discount(total, percent):\n    return total + total * percent / 100\n";

const JS_FILE: &str = "src/cart.test.js";
const JS_CODE: &str = "src/cart.js";
const JS_TEST: &str = r#"const { discount, total } = require("./cart");

describe("cart", () => {
  it("totals", () => {
    expect(total([1, 2])).toBe(3);
  });

  test("discounts", () => {
    const price = discount(200, 10);
    expect(price).toBe(180);
  });
});
"#;
const JS_CART: &str = "exports.total = (items) => items.reduce((a, b) => a + b, 0);\nexports.discount = (total, percent) => total + (total * percent) / 100;\n";

const TS_FILE: &str = "src/cart.spec.ts";
const TS_TEST: &str = r#"import { discount } from "./cart";

describe("cart", () => {
  it("discounts", (): void => {
    const price: number = discount(200, 10);
    expect(price).toEqual(180);
  });
});
"#;

const RS_FILE: &str = "src/lib.rs";
const RS_LIB: &str = r#"pub fn discount(total: u32, percent: u32) -> u32 {
    total + total * percent / 100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals() {
        assert_eq!(discount(100, 0), 100);
    }

    #[test]
    fn discounts() {
        let price = discount(200, 10);
        assert_eq!(price, 180);
    }
}
"#;

/// The violations `(kind, line)` the guard finds when `file`, committed as `before` (beside
/// `others`), becomes `after`.
fn check_with(
    guard: &Guard,
    file: &str,
    before: &str,
    after: &str,
    others: &[(&str, &str)],
    baseline: Option<&[Verification]>,
) -> Vec<(ViolationKind, u32)> {
    let mut files = vec![(file, before)];
    files.extend_from_slice(others);
    let repo = Repo::new(&files);
    assert_ne!(before, after, "the attempt changes the file");
    repo.write(&[(file, after)]);
    repo.check(guard, baseline)
        .into_iter()
        .map(|v| {
            assert_eq!(v.file.as_deref(), Some(file), "{v:?}");
            let line = v.line.expect("a line");
            assert!(v.message.starts_with(&format!("{file}:{line}: ")), "{v:?}");
            (v.kind, line)
        })
        .collect()
}

fn guard() -> Guard {
    Guard::new::<&str>(&[]).expect("guard")
}

fn py(after: &str) -> Vec<(ViolationKind, u32)> {
    check_with(
        &guard(),
        PY_FILE,
        PY_TEST,
        after,
        &[(PY_CODE, PY_CART)],
        None,
    )
}

fn js(after: &str) -> Vec<(ViolationKind, u32)> {
    check_with(
        &guard(),
        JS_FILE,
        JS_TEST,
        after,
        &[(JS_CODE, JS_CART)],
        None,
    )
}

fn rs(after: &str) -> Vec<(ViolationKind, u32)> {
    check_with(&guard(), RS_FILE, RS_LIB, after, &[], None)
}

/// `text` with `from` replaced once, which must be there.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} not in the fixture");
    text.replacen(from, to, 1)
}

// ---------------------------------------------------------------------------------------------
// Python

#[test]
fn python_early_return() {
    let after = edit(
        PY_TEST,
        "    price = discount",
        "    return\n    price = discount",
    );
    assert_eq!(py(&after), [(EarlyReturn, 9)]);
}

#[test]
fn python_body_reduced_to_pass_or_ellipsis() {
    let body = "    price = discount(200, 10)\n    assert price == 180\n";
    assert_eq!(py(&edit(PY_TEST, body, "    pass\n")), [(EmptyBody, 8)]);
    let docstring = "    \"\"\"Checked by hand.\"\"\"\n    ...\n";
    assert_eq!(py(&edit(PY_TEST, body, docstring)), [(EmptyBody, 8)]);
}

#[test]
fn python_constant_truths() {
    for truth in [
        "assert True",
        "assert 1 == 1",
        "assert price == price",
        "assert 'ok'",
    ] {
        let after = edit(PY_TEST, "assert price == 180", truth);
        assert_eq!(py(&after), [(ConstantAssertion, 10)], "{truth}");
    }
    // unittest's own.
    let unit = "import unittest\n\nfrom cart import discount\n\n\nclass TestCart(unittest.TestCase):\n    def test_discount(self):\n        self.assertEqual(discount(200, 10), 180)\n";
    let after = edit(
        unit,
        "self.assertEqual(discount(200, 10), 180)",
        "self.assertTrue(True)",
    );
    let found = check_with(&guard(), PY_FILE, unit, &after, &[(PY_CODE, PY_CART)], None);
    assert_eq!(found, [(ConstantAssertion, 8)]);
}

#[test]
fn python_assertion_swallowed_by_try_except() {
    let after = edit(
        PY_TEST,
        "    assert price == 180\n",
        "    try:\n        assert price == 180\n    except AssertionError:\n        pass\n",
    );
    assert_eq!(py(&after), [(SwallowedAssertion, 11)]);
    let bare = edit(
        PY_TEST,
        "    assert price == 180\n",
        "    try:\n        assert price == 180\n    except:\n        print('close enough')\n",
    );
    assert_eq!(py(&bare), [(SwallowedAssertion, 11)]);
}

#[test]
fn python_assertions_removed_from_a_test_that_still_runs_code() {
    let after = edit(PY_TEST, "    assert price == 180\n", "    print(price)\n");
    assert_eq!(py(&after), [(AssertionsGone, 8)]);
}

#[test]
fn python_expected_value_rewritten_to_the_received_one() {
    let after = edit(PY_TEST, "assert price == 180", "assert price == 220.0");
    assert_eq!(py(&after), [(ExpectedRewritten, 10)]);
    // With the baseline's failure of that test, the message says the value is what it received.
    let baseline = failing_baseline("tests/test_cart.py::test_discount", "assert 220.0 == 180");
    let repo = Repo::new(&[(PY_FILE, PY_TEST), (PY_CODE, PY_CART)]);
    repo.write(&[(PY_FILE, &after)]);
    let found = repo.check(&guard(), Some(std::slice::from_ref(&baseline)));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].message,
        "tests/test_cart.py:10: test_discount: the expected value changed from 180 to 220.0, \
         what the failing run received, while the code it tests did not change (it failed in the \
         baseline)"
    );
}

#[test]
fn python_skip_and_expected_failure_markers() {
    let def = "def test_discount():";
    for marker in [
        "@pytest.mark.skipif(True, reason=\"later\")",
        "@pytest.mark.xfail",
        "@mark.xfail(strict=False)",
        "@unittest.expectedFailure",
        "@unittest.skipIf(True, \"flaky\")",
    ] {
        let after = edit(PY_TEST, def, &format!("{marker}\n{def}"));
        assert_eq!(py(&after), [(SkipAdded, 8)], "{marker}");
    }
    let module = edit(
        PY_TEST,
        "from cart import",
        "import pytest\n\npytestmark = pytest.mark.skip\n\nfrom cart import",
    );
    assert_eq!(py(&module), [(SkipAdded, 3)]);
}

// ---------------------------------------------------------------------------------------------
// JavaScript and TypeScript

#[test]
fn javascript_early_return() {
    let after = edit(JS_TEST, "    const price", "    return;\n    const price");
    assert_eq!(js(&after), [(EarlyReturn, 9)]);
    // Without a semicolon the line end ends the `return` all the same.
    let asi = edit(JS_TEST, "    const price", "    return\n    const price");
    assert_eq!(js(&asi), [(EarlyReturn, 9)]);
}

#[test]
fn javascript_body_reduced_to_nothing() {
    let body = "test(\"discounts\", () => {\n    const price = discount(200, 10);\n    expect(price).toBe(180);\n  });";
    assert_eq!(
        js(&edit(JS_TEST, body, "test(\"discounts\", () => {});")),
        [(EmptyBody, 8)]
    );
}

#[test]
fn javascript_constant_truths() {
    for truth in [
        "expect(true).toBe(true)",
        "expect(1).toEqual(1)",
        "expect(\"ok\").toBeTruthy()",
        "assert.strictEqual(180, 180)",
    ] {
        let after = edit(JS_TEST, "expect(price).toBe(180)", truth);
        assert_eq!(js(&after), [(ConstantAssertion, 10)], "{truth}");
    }
}

#[test]
fn javascript_assertion_swallowed_by_try_catch() {
    let after = edit(
        JS_TEST,
        "    expect(price).toBe(180);\n",
        "    try {\n      expect(price).toBe(180);\n    } catch (e) {\n      console.log(e);\n    }\n",
    );
    assert_eq!(js(&after), [(SwallowedAssertion, 11)]);
}

#[test]
fn javascript_expected_value_rewritten() {
    let after = edit(JS_TEST, "toBe(180)", "toBe(220)");
    assert_eq!(js(&after), [(ExpectedRewritten, 10)]);
}

#[test]
fn javascript_skip_and_expected_failure_markers() {
    for (from, to) in [
        ("test(\"discounts\"", "test.skip(\"discounts\""),
        ("test(\"discounts\"", "test.failing(\"discounts\""),
        ("test(\"discounts\"", "it.fails(\"discounts\""),
        (
            "test(\"discounts\", ",
            "test(\"discounts\", { skip: true }, ",
        ),
        ("test(\"discounts\"", "xit(\"discounts\""),
    ] {
        let after = edit(JS_TEST, from, to);
        assert_eq!(js(&after), [(SkipAdded, 8)], "{to}");
    }
}

#[test]
fn typescript_early_return_and_constant_truth() {
    let ts = |after: &str| {
        check_with(
            &guard(),
            TS_FILE,
            TS_TEST,
            after,
            &[(
                "src/cart.ts",
                "export const discount = (t: number, p: number): number => t + (t * p) / 100;\n",
            )],
            None,
        )
    };
    let early = edit(TS_TEST, "    const price", "    return;\n    const price");
    assert_eq!(ts(&early), [(EarlyReturn, 5)]);
    let constant = edit(
        TS_TEST,
        "expect(price).toEqual(180)",
        "expect(1).toEqual(1)",
    );
    assert_eq!(ts(&constant), [(ConstantAssertion, 6)]);
    let swallowed = edit(
        TS_TEST,
        "    expect(price).toEqual(180);\n",
        "    try { expect(price).toEqual(180); } catch {}\n",
    );
    assert_eq!(ts(&swallowed), [(SwallowedAssertion, 6)]);
}

// ---------------------------------------------------------------------------------------------
// Rust

#[test]
fn rust_early_return() {
    let after = edit(
        RS_LIB,
        "        let price",
        "        return;\n        let price",
    );
    assert_eq!(rs(&after), [(EarlyReturn, 16)]);
}

#[test]
fn rust_body_reduced_to_nothing() {
    let body = "    fn discounts() {\n        let price = discount(200, 10);\n        assert_eq!(price, 180);\n    }\n";
    assert_eq!(
        rs(&edit(RS_LIB, body, "    fn discounts() {}\n")),
        [(EmptyBody, 15)]
    );
}

#[test]
fn rust_constant_truths() {
    for truth in [
        "assert!(true)",
        "assert_eq!(1, 1)",
        "assert_eq!(price, price)",
    ] {
        let after = edit(RS_LIB, "assert_eq!(price, 180)", truth);
        assert_eq!(rs(&after), [(ConstantAssertion, 17)], "{truth}");
    }
}

#[test]
fn rust_assertion_swallowed_by_catch_unwind_or_let_underscore() {
    let unwind = edit(
        RS_LIB,
        "assert_eq!(price, 180);",
        "let _ = std::panic::catch_unwind(|| assert_eq!(price, 180));",
    );
    assert_eq!(rs(&unwind), [(SwallowedAssertion, 17)]);
    let closure = edit(
        RS_LIB,
        "assert_eq!(price, 180);",
        "let _check = || assert_eq!(price, 180);",
    );
    assert_eq!(rs(&closure), [(SwallowedAssertion, 17)]);
}

#[test]
fn rust_expected_value_rewritten() {
    let after = edit(RS_LIB, "assert_eq!(price, 180)", "assert_eq!(price, 220)");
    assert_eq!(rs(&after), [(ExpectedRewritten, 17)]);
}

#[test]
fn rust_ignore_and_should_panic() {
    let fn_line = "    #[test]\n    fn discounts() {";
    let ignored = edit(
        RS_LIB,
        fn_line,
        "    #[test]\n    #[ignore]\n    fn discounts() {",
    );
    assert_eq!(rs(&ignored), [(SkipAdded, 15)]);
    let panics = edit(
        RS_LIB,
        fn_line,
        "    #[test]\n    #[should_panic]\n    fn discounts() {",
    );
    assert_eq!(rs(&panics), [(SkipAdded, 15)]);
    let compiled_out = edit(
        RS_LIB,
        fn_line,
        "    #[test]\n    #[cfg(any())]\n    fn discounts() {",
    );
    assert_eq!(rs(&compiled_out), [(SkipAdded, 15)]);
}

// ---------------------------------------------------------------------------------------------
// Honest changes, and the setting for tasks that are about the tests

#[test]
fn honest_fixes_are_not_flagged() {
    // The code fixed, the tests untouched.
    let fixed_py = PY_CART.replace("total + total * percent", "total - total * percent");
    let repo = Repo::new(&[(PY_FILE, PY_TEST), (PY_CODE, PY_CART)]);
    repo.write(&[(PY_CODE, &fixed_py)]);
    assert_eq!(repo.check(&guard(), None), []);
    // A test renamed (same body), a test added, an assertion made stricter.
    let renamed = edit(
        PY_TEST,
        "def test_discount():",
        "def test_discount_takes_percent_off():",
    );
    assert_eq!(py(&renamed), []);
    let added =
        format!("{PY_TEST}\n\ndef test_no_discount():\n    assert discount(200, 0) == 200\n");
    assert_eq!(py(&added), []);
    let weak = edit(PY_TEST, "assert price == 180", "assert price > 0");
    let found = check_with(
        &guard(),
        PY_FILE,
        &weak,
        PY_TEST,
        &[(PY_CODE, PY_CART)],
        None,
    );
    assert_eq!(found, []);
    let stricter = edit(
        PY_TEST,
        "    assert price == 180\n",
        "    assert price == 180\n    assert isinstance(price, float)\n",
    );
    assert_eq!(py(&stricter), []);

    let renamed = edit(
        JS_TEST,
        "test(\"discounts\"",
        "test(\"takes the percent off\"",
    );
    assert_eq!(js(&renamed), []);
    let stricter = edit(
        JS_TEST,
        "expect(price).toBe(180);",
        "expect(price).toBe(180);\n    expect(typeof price).toBe(\"number\");",
    );
    assert_eq!(js(&stricter), []);
    let weak_js = edit(
        JS_TEST,
        "expect(price).toBe(180)",
        "expect(price).toBeTruthy()",
    );
    let found = check_with(
        &guard(),
        JS_FILE,
        &weak_js,
        JS_TEST,
        &[(JS_CODE, JS_CART)],
        None,
    );
    assert_eq!(found, []);

    let renamed = edit(
        RS_LIB,
        "fn discounts()",
        "fn discount_takes_the_percent_off()",
    );
    assert_eq!(rs(&renamed), []);
    let added = edit(
        RS_LIB,
        "\n}\n",
        "\n\n    #[test]\n    #[should_panic]\n    fn overflows() {\n        discount(u32::MAX, 100);\n    }\n}\n",
    );
    assert_eq!(rs(&added), []);
    let weak_rs = edit(RS_LIB, "assert_eq!(price, 180)", "assert!(price > 0)");
    assert_eq!(
        check_with(&guard(), RS_FILE, &weak_rs, RS_LIB, &[], None),
        []
    );
}

#[test]
fn an_expected_value_changed_with_the_code_it_tests_is_not_a_rewrite() {
    // The task changed what `discount` returns, and the agent changed the code and the test.
    let repo = Repo::new(&[(PY_FILE, PY_TEST), (PY_CODE, PY_CART)]);
    let code = PY_CART.replace(
        "total + total * percent / 100",
        "round(total * (1 - percent / 100), 2)",
    );
    repo.write(&[
        (PY_CODE, &code),
        (
            PY_FILE,
            &edit(PY_TEST, "assert price == 180", "assert price == 180.0"),
        ),
    ]);
    assert_eq!(repo.check(&guard(), None), []);
}

#[test]
fn allow_test_edits_lets_a_rewritten_expected_value_through_but_not_a_neutered_test() {
    let allowed = guard().allow_test_edits(true);
    for (file, before, after, others) in [
        (
            PY_FILE,
            PY_TEST,
            edit(PY_TEST, "== 180", "== 220.0"),
            [(PY_CODE, PY_CART)],
        ),
        (
            JS_FILE,
            JS_TEST,
            edit(JS_TEST, "toBe(180)", "toBe(220)"),
            [(JS_CODE, JS_CART)],
        ),
        (
            RS_FILE,
            RS_LIB,
            edit(RS_LIB, "price, 180", "price, 220"),
            [("README.md", "lib\n")],
        ),
    ] {
        assert_eq!(
            check_with(&guard(), file, before, &after, &others, None),
            [(
                ExpectedRewritten,
                if file == JS_FILE {
                    10
                } else if file == RS_FILE {
                    17
                } else {
                    10
                }
            )]
        );
        assert_eq!(
            check_with(&allowed, file, before, &after, &others, None),
            [],
            "{file}"
        );
    }
    // Assertions dropped from a file count as the task's work too; a test left unable to fail
    // does not.
    let dropped = "def test_a():\n    assert f(1) == 1\n    assert f(2) == 2\n";
    let one_left = "def test_a():\n    assert f(1) == 1\n";
    let found = check_with(&guard(), PY_FILE, dropped, one_left, &[], None);
    assert_eq!(found, [(ViolationKind::AssertionsRemoved, 3)]);
    assert_eq!(
        check_with(&allowed, PY_FILE, dropped, one_left, &[], None),
        []
    );
    let early = edit(
        PY_TEST,
        "    price = discount",
        "    return\n    price = discount",
    );
    assert_eq!(
        check_with(
            &allowed,
            PY_FILE,
            PY_TEST,
            &early,
            &[(PY_CODE, PY_CART)],
            None
        ),
        [(EarlyReturn, 9)]
    );
    let constant = edit(RS_LIB, "assert_eq!(price, 180)", "assert!(true)");
    assert_eq!(
        check_with(&allowed, RS_FILE, RS_LIB, &constant, &[], None),
        [(ConstantAssertion, 17)]
    );
}

#[test]
fn the_digest_names_the_neutered_test_its_shape_and_that_the_task_forbids_it() {
    let repo = Repo::new(&[(PY_FILE, PY_TEST), (PY_CODE, PY_CART)]);
    repo.write(&[(
        PY_FILE,
        &edit(
            PY_TEST,
            "    price = discount",
            "    return\n    price = discount",
        ),
    )]);
    let baseline = failing_baseline("tests/test_cart.py::test_discount", "assert 220.0 == 180");
    let found = repo.check(&guard(), Some(std::slice::from_ref(&baseline)));
    let verification = as_verification(&found).expect("a violation");
    let input = verdict_core::digest::Input {
        report: &verification.report,
        log: None,
    };
    let text =
        verdict_core::digest::render(&[input], &verdict_core::digest::Options::default()).text;
    for part in [
        "tests/test_cart.py:9",
        "test_discount can no longer fail: it returns before its assertions",
        "(it failed in the baseline)",
        "the task forbids making tests pass by changing them",
    ] {
        assert!(text.contains(part), "{part:?} not in:\n{text}");
    }
    assert_eq!(
        verification.report.diagnostics[0].code.as_deref(),
        Some("early_return")
    );
}

/// A baseline verification in which `test` failed with `message`.
fn failing_baseline(test: &str, message: &str) -> Verification {
    let mut report = Report::new("pytest", Outcome::Failed);
    let file = test.split("::").next().unwrap_or(test);
    report.push(
        Diagnostic::new("pytest", Kind::Test, Severity::Error, message)
            .at(file, Some(11), None)
            .with_test(test),
    );
    report.counts.tests_failed = Some(1);
    report.counts.tests_passed = Some(1);
    Verification {
        verifier: "pytest".to_owned(),
        kind: Kind::Test,
        status: Status::Ran,
        report,
        command: None,
        log: None,
        duration: std::time::Duration::ZERO,
        notes: Vec::new(),
    }
}

#[test]
fn allow_test_edits_is_off_by_default_and_read_from_the_loop_table() {
    use verdict_core::agent_loop::policy::Policies;
    assert!(!Policies::defaults().allow_test_edits);
    let on = Policies::from_toml("allow_test_edits = true").expect("valid");
    assert!(on.allow_test_edits);
    assert_eq!(on.max_attempts, Policies::defaults().max_attempts);
    let wrong = Policies::from_toml("allow_test_edits = \"yes\"").expect_err("not a boolean");
    assert!(wrong.to_string().contains("allow_test_edits"), "{wrong}");
}
