//! What a shard of a split run (`verdict run --shard i/n`) does with each verifier: run it here
//! (its part of the tests, or all of it in shard 1), or leave it to another shard.

use super::Entry;
use crate::model::{Kind, Outcome, Report, Status, Verification};
use crate::verifier::{Captured, CommandSpec, Exit, Sharding, Workspace};

/// Where a verifier runs in this shard.
pub(super) enum Place {
    /// Here, with notes on how (a test runner that cannot split runs all its tests in shard 1).
    Here(Vec<String>),
    /// In another shard: why it does not run here.
    Elsewhere(String),
}

/// Where `entry`, whose tool splits its work as `sharding` says, runs in `workspace`'s shard.
/// A whole run (no shard) runs everything here.
pub(super) fn place(entry: &Entry, workspace: &Workspace, sharding: Sharding) -> Place {
    let Some(shard) = workspace.shard else {
        return Place::Here(Vec::new());
    };
    let name = entry.name();
    let kind = entry.verifier.kind();
    let whole = match kind {
        Kind::Test => format!("{name} cannot split its tests, so it runs them all"),
        _ => format!("{name} is no test runner, so it runs"),
    };
    match sharding {
        Sharding::Whole if !shard.is_first() => Place::Elsewhere(format!(
            "not run in shard {shard}: {whole} in shard 1/{}",
            shard.total
        )),
        Sharding::Whole if kind == Kind::Test && shard.total > 1 => Place::Here(vec![format!(
            "{whole} in this shard, shard 1/{}",
            shard.total
        )]),
        Sharding::Whole | Sharding::Split => Place::Here(Vec::new()),
    }
}

/// Whether a finished verifier lets those that need it start: it passed, or it runs in another
/// shard (`not_in_shard`: the shard that runs it answers for it, and `verdict merge` shows both).
pub(super) fn satisfies_needs(verification: &Verification) -> bool {
    verification.outcome() == Outcome::Passed || verification.status == Status::NotInShard
}

/// Whether a test run passed with nothing in it: an exit the verifier declares a pass, no test
/// counted (passed, failed or skipped), and no diagnostic.
pub(super) fn ran_nothing(report: &Report, spec: &CommandSpec, captured: &Captured) -> bool {
    let counts = &report.counts;
    let tests = [
        counts.tests_passed,
        counts.tests_failed,
        counts.tests_skipped,
        counts.tests_xpassed,
        counts.suites_errored,
        counts.errors,
    ];
    matches!(captured.exit, Exit::Code { code } if spec.exit_codes.pass.contains(&code))
        && report.outcome == Outcome::Passed
        && tests.iter().all(|n| n.unwrap_or(0) == 0)
        && report.diagnostics_found() == 0
}
