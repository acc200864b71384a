//! Capture cases for `tap`: TAP streams of the test runners that have no summarizer of their own,
//! node-tap (`tap`, TAP 14 with indented subtests, YAML diagnostics and its `# { total: … }`
//! summary) and tape (`tape test/*.js`, TAP 13 with `# tests N` / `# pass N` / `# fail N`).
//!
//! The ground truth is the same run's TAP read by node-tap's own parser, `tap-parser --flat
//! --json` (the stream's events as JSON; flattened, its `complete` event counts and lists the
//! test points that are not subtests), installed with node-tap.
//!
//! Projects (under `xtask/capture/projects/tap/`):
//! - `node-tap-failing`: passing and failing assertions, nested subtests, a test that throws, a
//!   skipped and a todo test, and a file that throws outside any test;
//! - `node-tap-passing`, `tape-passing`: the same shapes, all passing;
//! - `tape-failing`: failing assertions, a failing subtest, skip and todo, and a test whose code
//!   throws, which ends tape's run in the middle of its plan.

use super::{Case, Program, Truth, strings};

/// A run of the pinned `program` with its TAP read by `tap-parser` as the truth.
fn tap(name: &'static str, program: &'static str, args: &[&str]) -> Case {
    let mut case = Case::new("tap", name, name, Program::Node(program), args).truth(
        Truth::Parse("tap-parser", strings(&["--flat", "--json=0"])),
        "json",
    );
    case.truth_how =
        Some("the same run: its output piped into node-tap's `tap-parser --flat --json=0`");
    case
}

/// The tap cases.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        tap("node-tap-failing", "tap", &[]),
        tap("node-tap-passing", "tap", &[]),
        tap("tape-failing", "tape", &["test/*.js"]),
        tap("tape-passing", "tape", &["test/*.js"]),
        tap("tape-crash", "tape", &["test/*.js"]),
    ]
}
