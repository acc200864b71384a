//! One failure that several verifiers report: a compile error that `cargo check`, clippy and
//! `cargo test` each print, a type error from tsc and from a build script that runs tsc.
//!
//! The digest shows such a failure once, under the first report that holds it (the run's order),
//! and says which later reports also failed on it; a later report's own lines leave it out, and
//! one line under its headline says how many of its failures are the same as an earlier one's.
//! Every headline keeps its tool's own counts.
//!
//! Only errors are matched (failing tests too). Two are the same when they agree in everything
//! but the tool: file, line, column, code, test and message (read as the model's [`Fingerprint`] reads it, without
//! the tool). The line is part of it here, unlike in the fingerprint: within one run, two errors
//! of one message at two lines are two failures. Each diagnostic matches at most one other, so a
//! message printed twice by both tools is two failures, not four.

use super::text::Map;
use crate::model::{Fingerprint, Outcome, Report, Severity};

/// What one report shares with the others of a digest.
#[derive(Debug, Default)]
pub(super) struct Shared<'a> {
    /// Parallel to the report's diagnostics (empty when none is repeated): whether an earlier
    /// report holds the same diagnostic, so that this one is shown there.
    pub(super) repeated: Vec<bool>,
    /// For diagnostics this report holds first: the later reports' tools that hold them too.
    pub(super) also: Map<usize, Vec<&'a str>>,
    /// The earlier reports' tools that hold this report's repeated diagnostics, in order.
    pub(super) first_in: Vec<&'a str>,
}

impl Shared<'_> {
    /// Whether diagnostic `index` is shown under an earlier report.
    pub(super) fn is_repeated(&self, index: usize) -> bool {
        self.repeated.get(index).copied().unwrap_or(false)
    }
}

/// A diagnostic without its tool.
type Key = (Fingerprint, Option<u32>, Option<u32>, bool);

/// What each of `reports` shares with the earlier ones. Only failing reports take part: a pass's
/// diagnostics are not shown.
pub(super) fn find<'a>(reports: &[&'a Report]) -> Vec<Shared<'a>> {
    let mut shared: Vec<Shared<'a>> = reports.iter().map(|_| Shared::default()).collect();
    let failing = reports
        .iter()
        .filter(|report| report.outcome != Outcome::Passed && !report.diagnostics.is_empty())
        .count();
    if failing < 2 {
        return shared;
    }
    // Every key's holders so far, in order: (report, diagnostic), each the first of its kind.
    let mut holders: Map<Key, Vec<(usize, usize)>> = Map::default();
    for (r, report) in reports.iter().enumerate() {
        if report.outcome == Outcome::Passed {
            continue;
        }
        // How many diagnostics of each key this report has matched so far.
        let mut matched: Map<Key, usize> = Map::default();
        let mut fresh: Vec<(Key, usize)> = Vec::new();
        for (index, d) in report.diagnostics.iter().enumerate() {
            // Warnings stay with each report: a pass can hold them, and they rank last anyway.
            if d.severity != Severity::Error {
                continue;
            }
            let fingerprint = Fingerprint::compute(
                "",
                d.code.as_deref(),
                d.file.as_deref(),
                d.test.as_deref(),
                &d.message,
            );
            let key = (fingerprint, d.line, d.column, d.test_error);
            let nth = matched.entry(key).or_insert(0);
            let holder = holders.get(&key).and_then(|list| list.get(*nth)).copied();
            *nth += 1;
            match holder {
                Some((first, at)) => {
                    let tool = report.tool.as_str();
                    let also = shared[first].also.entry(at).or_default();
                    if !also.contains(&tool) {
                        also.push(tool);
                    }
                    let repeated = &mut shared[r].repeated;
                    if repeated.is_empty() {
                        repeated.resize(report.diagnostics.len(), false);
                    }
                    repeated[index] = true;
                    let first_tool = reports[first].tool.as_str();
                    if !shared[r].first_in.contains(&first_tool) {
                        shared[r].first_in.push(first_tool);
                    }
                }
                None => fresh.push((key, index)),
            }
        }
        // Added after the report is read, so that a report never matches itself.
        for (key, index) in fresh {
            holders.entry(key).or_default().push((r, index));
        }
    }
    shared
}
