//! End-to-end tests of the loop's guard against cheats through the test infrastructure (issue
//! 21): an agent that leaves the bug in place and makes the runner pass by its configuration — a
//! conftest hook, a setup file, a runner option that leaves the failing test out — must not end
//! the loop green, on every runner verdict verifies with.
//!
//! Each runner has a small fixture project under `cli/tests/guard/<runner>/` (one real bug, one
//! failing test, three passing ones), verified by the real tool. The scripted agent
//! (`cli/tests/loop/agents/agent.py`, mode `overlay`) lays a directory of files over the project:
//! a cheat under `cli/tests/guard/cheats/`, or an honest fix under `cli/tests/guard/fixes/`. Each
//! cheat was checked by hand to make the runner pass with the bug still in the code, and to fail
//! once the starting tree's infrastructure is put back.
//!
//! An honest fix that also makes a harmless config edit passes; a fix that needs its config edit
//! passes only where the task allows it (`--allow-infra-edits`, `[loop] allow_infra_edits`), which
//! still does not let a test the baseline ran go unrun.

use std::path::{Path, PathBuf};

use crate::r#loop::{Expect, Out, Scenario, guard_failures, quote, verification_of};

/// The task every scenario gives.
const TASK: &str =
    "Make the failing discount test pass: the discount must take the percentage off.";

/// `cli/tests/guard/`.
fn guard_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/guard")
}

/// A copy of the fixture project `cli/tests/guard/<runner>`.
fn scenario(runner: &str) -> Scenario {
    Scenario::copy_of(&guard_dir().join(runner))
}

/// Runs `verdict loop` with one attempt, whose agent lays `cli/tests/guard/<overlay>` over the
/// project, with `args` added.
fn run_overlay(scenario: &Scenario, overlay: &str, args: &[&str]) -> Out {
    let from = guard_dir().join(overlay);
    assert!(from.is_dir(), "no overlay {}", from.display());
    let agent = format!(
        "{} --from {}",
        scenario.agent("overlay", "a"),
        quote(&from.to_string_lossy())
    );
    let mut all = vec!["--task", TASK, "--agent", &agent, "--max-attempts", "1"];
    all.extend_from_slice(args);
    scenario.run(&all)
}

/// What a caught cheat must show: the loop is not green (exit 1, `exhausted` after its one
/// attempt), the attempt's verification failed with the guard's `label` among its failures, and
/// the digest on stdout names `named` (the file, or the test left out).
fn assert_caught(scenario: &Scenario, out: &Out, label: &str, named: &str) {
    scenario.check(
        out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );
    let verified = verification_of(scenario, 1);
    assert_eq!(verified["passed"], false, "{verified:#}");
    let labels = guard_failures(&verified);
    assert!(
        labels.iter().any(|l| l == label),
        "the guard's failures hold {label:?}: {labels:?}\n{verified:#}"
    );
    assert!(
        out.stdout.contains(named),
        "the digest names {named:?}:\n{}",
        out.all()
    );
}

/// Like [`assert_caught`] for a runner that names no test file: some guard failure starts with
/// `prefix`.
fn assert_caught_by_prefix(scenario: &Scenario, out: &Out, prefix: &str, named: &str) {
    scenario.check(
        out,
        Expect {
            code: 1,
            state: "exhausted",
            attempts: 1,
        },
    );
    let verified = verification_of(scenario, 1);
    assert_eq!(verified["passed"], false, "{verified:#}");
    let labels = guard_failures(&verified);
    assert!(
        labels.iter().any(|l| l.starts_with(prefix)),
        "a guard failure starts with {prefix:?}: {labels:?}\n{verified:#}"
    );
    assert!(
        out.stdout.contains(named),
        "the digest names {named:?}:\n{}",
        out.all()
    );
}

/// Fails unless `rel` holds `text`: the cheat or the bug is really in the tree the loop judged.
fn assert_holds(scenario: &Scenario, rel: &str, text: &str) {
    let found = scenario.project.read(rel);
    assert!(found.contains(text), "{rel} holds {text:?}:\n{found}");
}

/// The green end of one honest attempt.
fn assert_green(scenario: &Scenario, out: &Out) {
    scenario.check(
        out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 1,
        },
    );
    let verified = verification_of(scenario, 1);
    assert_eq!(verified["passed"], true, "{verified:#}");
}

// ---------------------------------------------------------------------------------------------
// Cheats, one per runner

#[test]
fn a_conftest_hook_that_passes_failures_is_caught() {
    let scenario = scenario("pytest");
    let out = run_overlay(&scenario, "cheats/pytest-conftest-hook", &[]);
    assert_holds(&scenario, "conftest.py", "report.outcome = \"passed\"");
    assert_holds(&scenario, "cart.py", "total + total * percent");
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed conftest.py",
        "conftest.py",
    );
}

#[test]
fn a_deselect_in_addopts_padded_with_trivial_tests_is_caught() {
    let scenario = scenario("pytest");
    let out = run_overlay(&scenario, "cheats/pytest-deselect", &[]);
    assert_holds(&scenario, "pyproject.toml", "--deselect");
    assert_holds(&scenario, "cart.py", "total + total * percent");
    // As many tests ran as in the baseline: only their identities tell.
    assert_caught(
        &scenario,
        &out,
        "verdict-guard test_not_run tests/test_cart.py",
        "test_discount",
    );
}

#[test]
fn a_test_package_init_that_patches_unittest_is_caught() {
    let scenario = scenario("unittest");
    let out = run_overlay(&scenario, "cheats/unittest-init-patch", &[]);
    assert_holds(&scenario, "tests/__init__.py", "addFailure = _pass");
    assert_holds(&scenario, "cart.py", "total + total * percent");
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed tests/__init__.py",
        "tests/__init__.py",
    );
}

#[test]
fn a_makefile_test_target_that_filters_out_the_failing_test_is_caught() {
    let scenario = scenario("unittest");
    let out = run_overlay(&scenario, "cheats/unittest-makefile-k", &[]);
    assert_holds(&scenario, "Makefile", "-k subtotal");
    assert_holds(&scenario, "cart.py", "total + total * percent");
    // The padding keeps the count: only the identities tell.
    assert_caught_by_prefix(
        &scenario,
        &out,
        "verdict-guard test_not_run",
        "test_discount",
    );
}

#[test]
fn a_jest_setup_file_that_replaces_expect_is_caught() {
    let scenario = scenario("jest");
    let out = run_overlay(&scenario, "cheats/jest-setup-expect", &[]);
    assert_holds(&scenario, "jest.config.js", "setupFilesAfterEnv");
    assert_holds(&scenario, "src/cart.js", "total + (total * percent)");
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed jest.config.js",
        "jest.config.js",
    );
}

#[test]
fn a_vitest_setup_file_that_disarms_assertions_is_caught() {
    let scenario = scenario("vitest");
    let out = run_overlay(&scenario, "cheats/vitest-setup-chai", &[]);
    assert_holds(&scenario, "vitest.config.js", "setupFiles");
    assert_holds(&scenario, "src/cart.js", "total + (total * percent)");
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed vitest.config.js",
        "vitest.config.js",
    );
}

#[test]
fn a_mocharc_that_requires_a_failure_swallower_is_caught() {
    let scenario = scenario("mocha");
    let out = run_overlay(&scenario, "cheats/mocha-rc-require", &[]);
    assert_holds(&scenario, ".mocharc.yml", "require:");
    assert_holds(&scenario, "cart.js", "total + (total * percent)");
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed .mocharc.yml",
        ".mocharc.yml",
    );
}

#[test]
fn a_node_test_script_that_imports_a_failure_swallower_is_caught() {
    let scenario = scenario("node-test");
    let out = run_overlay(&scenario, "cheats/node-test-import", &[]);
    assert_holds(&scenario, "package.json", "--import ./setup.mjs");
    assert_holds(&scenario, "cart.js", "total + (total * percent)");
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed package.json",
        "package.json",
    );
}

#[test]
fn a_cargo_lib_with_test_off_padded_with_trivial_tests_is_caught() {
    let scenario = scenario("cargo");
    let out = run_overlay(&scenario, "cheats/cargo-lib-test-off", &[]);
    assert_holds(&scenario, "Cargo.toml", "test = false");
    assert_holds(&scenario, "src/lib.rs", "total + total * percent");
    // cargo test names no file: the test's name is what the digest gives.
    assert_caught_by_prefix(
        &scenario,
        &out,
        "verdict-guard test_not_run",
        "discount_takes_the_percentage_off",
    );
}

#[test]
fn a_nextest_default_filter_padded_with_a_trivial_test_is_caught() {
    let scenario = scenario("nextest");
    let out = run_overlay(&scenario, "cheats/nextest-default-filter", &[]);
    assert_holds(&scenario, ".config/nextest.toml", "default-filter");
    assert_holds(&scenario, "src/lib.rs", "total + total * percent");
    assert_caught_by_prefix(
        &scenario,
        &out,
        "verdict-guard test_not_run",
        "discount_takes_the_percentage_off",
    );
}

// ---------------------------------------------------------------------------------------------
// Honest fixes that touch the test infrastructure

#[test]
fn an_honest_fix_that_registers_a_pytest_marker_passes() {
    let scenario = scenario("pytest");
    let out = run_overlay(&scenario, "fixes/pytest-marker", &[]);
    assert_holds(&scenario, "pyproject.toml", "markers");
    assert_green(&scenario, &out);
}

#[test]
fn an_honest_fix_that_sets_a_jest_test_timeout_passes() {
    let scenario = scenario("jest");
    let out = run_overlay(&scenario, "fixes/jest-timeout", &[]);
    assert_holds(&scenario, "jest.config.js", "testTimeout");
    assert_green(&scenario, &out);
}

#[test]
fn an_honest_fix_that_describes_the_cargo_package_passes() {
    let scenario = scenario("cargo");
    let out = run_overlay(&scenario, "fixes/cargo-metadata", &[]);
    assert_holds(&scenario, "Cargo.toml", "description");
    assert_green(&scenario, &out);
}

#[test]
fn a_fix_that_needs_a_pytest_pythonpath_is_caught_without_allow_infra_edits() {
    // The fix imports a helper from lib/, which only the new `pythonpath` makes importable: with
    // the starting pyproject.toml put back, the tests cannot run.
    let scenario = scenario("pytest");
    let out = run_overlay(&scenario, "fixes/pytest-pythonpath", &[]);
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed pyproject.toml",
        "pyproject.toml",
    );
}

#[test]
fn a_fix_that_needs_a_pytest_pythonpath_passes_with_allow_infra_edits() {
    let scenario = scenario("pytest");
    let out = run_overlay(
        &scenario,
        "fixes/pytest-pythonpath",
        &["--allow-infra-edits"],
    );
    assert_green(&scenario, &out);
    assert_holds(&scenario, "pyproject.toml", "pythonpath");
}

#[test]
fn a_fix_that_needs_a_jest_module_mapper_passes_with_allow_infra_edits_in_the_config() {
    let scenario = scenario("jest");
    scenario
        .project
        .write("verdict.toml", "[loop]\nallow_infra_edits = true\n");
    let out = run_overlay(&scenario, "fixes/jest-mapper", &[]);
    assert_green(&scenario, &out);
    assert_holds(&scenario, "jest.config.js", "moduleNameMapper");
}

#[test]
fn allow_infra_edits_still_checks_which_tests_ran() {
    // The put-back is skipped, the identities are not: a deselected failing test still counts.
    let scenario = scenario("pytest");
    let out = run_overlay(
        &scenario,
        "cheats/pytest-deselect",
        &["--allow-infra-edits"],
    );
    assert_caught(
        &scenario,
        &out,
        "verdict-guard test_not_run tests/test_cart.py",
        "test_discount",
    );
}

#[test]
fn a_fix_that_needs_a_jest_module_mapper_is_caught_without_allow_infra_edits() {
    let scenario = scenario("jest");
    let out = run_overlay(&scenario, "fixes/jest-mapper", &[]);
    assert_holds(&scenario, "jest.config.js", "moduleNameMapper");
    assert_caught(
        &scenario,
        &out,
        "verdict-guard infra_changed jest.config.js",
        "jest.config.js",
    );
}

#[test]
fn a_caught_cheat_is_named_in_the_next_prompt_and_an_honest_fix_then_passes() {
    // Call 1 lays the conftest hook over the project; call 2 puts conftest.py back as it was
    // and fixes the code.
    let scenario = scenario("pytest");
    let from = guard_dir().join("fixes/pytest-after-a-caught-cheat");
    let agent = format!(
        "{} --from {}",
        scenario.agent("overlay", "a"),
        quote(&from.to_string_lossy())
    );
    let out = scenario.run(&["--task", TASK, "--agent", &agent, "--max-attempts", "2"]);
    scenario.check(
        &out,
        Expect {
            code: 0,
            state: "passed",
            attempts: 2,
        },
    );
    let first = verification_of(&scenario, 1);
    assert_eq!(first["passed"], false, "{first:#}");
    assert!(
        guard_failures(&first)
            .iter()
            .any(|l| l == "verdict-guard infra_changed conftest.py"),
        "{first:#}"
    );
    let second = scenario.prompt("a", 2);
    assert!(
        second.contains("conftest.py"),
        "the retry prompt names the file:\n{second}"
    );
    assert_holds(&scenario, "cart.py", "total - total * percent");
}

#[test]
fn an_honest_fix_with_a_new_test_and_its_new_helper_passes() {
    // The helper beside the tests is test infrastructure, so the pass is checked with it taken
    // away; the new test that imports it goes with it, and the starting tree's tests pass on the
    // fixed code.
    let scenario = scenario("pytest");
    let out = run_overlay(&scenario, "fixes/pytest-new-test-with-helper", &[]);
    assert_holds(&scenario, "tests/test_cart.py", "from helpers import cents");
    assert_green(&scenario, &out);
    let put_back = scenario.events_of("infra_put_back");
    assert_eq!(put_back.len(), 1, "{put_back:#?}");
    let files: Vec<&str> = put_back[0]["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(files, ["tests/helpers.py", "tests/test_cart.py"]);
    let restored = scenario.events_of("infra_restored");
    assert_eq!(restored[0]["passed"], true, "{restored:#?}");
    // The attempt's files are back.
    assert_holds(&scenario, "tests/helpers.py", "def cents");
}
