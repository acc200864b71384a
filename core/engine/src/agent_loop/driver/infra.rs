//! The guard's check of test infrastructure (see [`crate::agent_loop::guard::infra`]): an attempt
//! that passed and changed a runner's configuration, a set-up file or code beside the tests is
//! verified once more with the starting tree's version of those files put back, and its pass
//! counts only if that verification passes too. The files go back in place (the loop holds the
//! workspace), and the attempt's versions are written back afterwards — on a resume too, from the
//! attempt's tree, when the run was stopped in between.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::LoopError;
use super::events::{Event, InfraChange};
use super::recorder::record;
use super::run::Driver;
use super::workspace::blocking;
use crate::agent_loop::guard::infra::{self, Claimed, InfraRules, PutBack};
use crate::agent_loop::guard::{Violation, ViolationKind};
use crate::model::{Kind, KnownFrom, Outcome, Verification};
use crate::snapshot::{SnapshotError, Snapshots, TreeId};
use crate::verifier::Part;

/// A file as the attempt left it, to write back after the verification.
struct Kept {
    path: PathBuf,
    /// Its bytes and permissions; `None` when the attempt had removed it.
    bytes: Option<(Vec<u8>, fs::Permissions)>,
}

impl Driver<'_> {
    /// The reasons the pass of attempt `number` (whose tree is `tree`, and whose verifications
    /// `ran`) does not count because it rests on a change to test infrastructure. `changed`: the
    /// paths changed since the starting tree, when the caller has them. `None`: the verification
    /// was interrupted.
    pub(super) async fn infra_check(
        &self,
        number: u32,
        tree: Option<&TreeId>,
        ran: &[Verification],
        changed: Option<Vec<String>>,
    ) -> Result<Option<Vec<Violation>>, LoopError> {
        if self.spec.policies.allow_infra_edits {
            return Ok(Some(Vec::new()));
        }
        let (Some(snapshots), Some(start), Some(now)) =
            (&self.snapshots, &self.progress.start_tree, tree)
        else {
            return Ok(Some(Vec::new()));
        };
        if start == now {
            return Ok(Some(Vec::new()));
        }
        let tests: BTreeSet<String> = ran
            .iter()
            .filter(|v| v.kind == Kind::Test)
            .map(|v| v.verifier.clone())
            .collect();
        let mut infra = self.verify.infrastructure();
        infra.extend(self.start_infra.iter().cloned());
        let rules = InfraRules::new(&infra, |v| tests.contains(v));
        let (s, a, b) = (Arc::clone(snapshots), start.clone(), now.clone());
        let root = self.spec.root.clone();
        let with_tests = !self.spec.policies.allow_test_edits;
        let (put_backs, tests) =
            blocking(move || plan(&s, &rules, &root, (&a, &b), changed, with_tests)).await?;
        if put_backs.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let files = put_backs
            .iter()
            .chain(&tests)
            .map(|p| InfraChange {
                path: p.path.clone(),
                what: p.what.clone(),
            })
            .collect();
        let event = Event::InfraPutBack {
            attempt: number,
            tree: now.to_string(),
            files,
        };
        record(self.shared, self.run, &[event], |_| Ok(()))?;
        let root = self.spec.root.clone();
        let all: Vec<PutBack> = put_backs.iter().chain(&tests).cloned().collect();
        let kept = write_put_backs(&root, &all);
        let verified = match &kept {
            Ok(_) => Some(
                self.verify_once(None, true, format!("attempt-{number}-infra"))
                    .await,
            ),
            Err(_) => None,
        };
        // The attempt's files go back whatever happened; if that fails, the tree does.
        let restored = match kept {
            Ok(kept) => restore(&kept),
            Err(error) => Err(error),
        };
        if let Err(error) = restored {
            tracing::warn!(%error, "writing back the attempt's test infrastructure failed; restoring its tree");
            let (s, t) = (Arc::clone(snapshots), now.clone());
            blocking(move || s.restore(&t)).await?;
        }
        let verifications = match verified {
            Some(result) => result?,
            None => {
                let message = "the starting tree's test infrastructure could not be put back";
                return Ok(Some(violations(&put_backs, message)));
            }
        };
        if self.is_interrupted(&verifications) {
            let event = Event::InfraRestored {
                attempt: number,
                passed: None,
            };
            record(self.shared, self.run, &[event], |_| Ok(()))?;
            return Ok(None);
        }
        let outcome = self.still_failing(verifications);
        let event = Event::InfraRestored {
            attempt: number,
            passed: Some(outcome.is_none()),
        };
        record(self.shared, self.run, &[event], |_| Ok(()))?;
        Ok(Some(match outcome {
            None => Vec::new(),
            Some(summary) => violations(
                &put_backs,
                &format!("with the starting tree's version put back, {summary}"),
            ),
        }))
    }

    /// What failed in `verifications` beyond the baseline's known failures (with
    /// `new_failures_only`) and beyond tests the baseline did not have, in one line; `None` when
    /// that is nothing. A test the attempt added may need a helper it added beside the tests,
    /// which the check took away: the bug is still there only if a test the starting tree ran
    /// fails.
    fn still_failing(&self, mut verifications: Vec<Verification>) -> Option<String> {
        if self.spec.policies.new_failures_only
            && let Some(known) = self.progress.known()
        {
            known.set_aside(&mut verifications, KnownFrom::Loop);
        }
        let baseline = self.progress.baseline_verifications().unwrap_or_default();
        let listed = |verifier: &str| -> Option<HashSet<&str>> {
            let b = baseline.iter().find(|b| b.verifier == verifier)?;
            let complete = !b.report.tests.is_empty() && b.report.tests_dropped == 0;
            complete.then(|| b.report.tests.iter().map(|t| t.name.as_str()).collect())
        };
        let failing: Vec<&Verification> = verifications
            .iter()
            .filter(|v| match v.outcome() {
                Outcome::Passed => false,
                Outcome::Failed => match listed(&v.verifier) {
                    Some(names) => {
                        v.report.diagnostics_dropped > 0
                            || v.report
                                .errors()
                                .any(|d| d.test.as_deref().is_none_or(|t| names.contains(t)))
                    }
                    None => true,
                },
                _ => true,
            })
            .collect();
        if failing.is_empty() {
            return None;
        }
        Some(
            failing
                .iter()
                .map(|v| said(v))
                .collect::<Vec<_>>()
                .join("; "),
        )
    }

    /// A run stopped while the starting tree's infrastructure was put back: the attempt's tree
    /// comes back before anything else.
    pub(super) async fn restore_put_back(&mut self) -> Result<(), LoopError> {
        let Some((attempt, tree)) = self.progress.put_back.clone() else {
            return Ok(());
        };
        if let Some(snapshots) = &self.snapshots {
            let tree = TreeId::new(tree).map_err(LoopError::Snapshot)?;
            let s = Arc::clone(snapshots);
            blocking(move || s.restore(&tree)).await?;
        }
        let event = Event::InfraRestored {
            attempt,
            passed: None,
        };
        record(self.shared, self.run, &[event], |_| Ok(()))?;
        self.progress.put_back = None;
        Ok(())
    }
}

/// How a verification that did not pass ended, in a few words, the failing tests first (a line
/// cut short in the digest keeps them): `pytest: test_cart.py::test_discount failed (1 failed,
/// 2 passed)`.
fn said(v: &Verification) -> String {
    let report = &v.report;
    let what = match (&report.summary, &report.error) {
        (_, Some(error)) if report.outcome == Outcome::Errored => {
            format!("could not verify: {}", infra_short(error))
        }
        (Some(summary), _) => summary.clone(),
        (None, _) => report.outcome.as_str().to_owned(),
    };
    let mut tests: Vec<&str> = Vec::new();
    for test in report.errors().filter_map(|d| d.test.as_deref()) {
        if !tests.contains(&test) {
            tests.push(test);
        }
    }
    let more = tests.len().saturating_sub(3);
    tests.truncate(3);
    match (tests.is_empty(), more) {
        (true, _) => format!("{}: {what}", v.verifier),
        (false, 0) => format!("{}: {} failed ({what})", v.verifier, tests.join(", ")),
        (false, more) => format!(
            "{}: {} and {more} more failed ({what})",
            v.verifier,
            tests.join(", ")
        ),
    }
}

fn infra_short(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut cut: String = line.chars().take(120).collect();
    if cut.len() < line.len() {
        cut.push('…');
    }
    cut
}

/// One violation per file put back, each naming what the attempt changed in it.
fn violations(put_backs: &[PutBack], why: &str) -> Vec<Violation> {
    put_backs
        .iter()
        .map(|p| {
            let whose = match p.verifiers.as_slice() {
                [] => "test set-up or support file".to_owned(),
                verifiers => format!("{} configuration", verifiers.join(" and ")),
            };
            Violation {
                kind: ViolationKind::InfraChanged,
                file: Some(p.path.clone()),
                line: None,
                message: format!("{}: {whose} {}; {why}", p.path, p.what),
            }
        })
        .collect()
}

/// The files to put back: the changed paths that are infrastructure, and those a test runner's
/// configuration names, with the text each goes back to; and, when there are some and
/// `with_tests`, the changed test files, so that the starting tree's tests run on the attempt's
/// code (unless the task is about the tests, whose changes then stay).
fn plan(
    snapshots: &Snapshots,
    rules: &InfraRules,
    root: &Path,
    (start, now): (&TreeId, &TreeId),
    changed: Option<Vec<String>>,
    with_tests: bool,
) -> Result<(Vec<PutBack>, Vec<PutBack>), SnapshotError> {
    let changed = match changed {
        Some(changed) => changed,
        None => snapshots.changed_paths(start, now)?,
    };
    let mut claimed: Vec<Claimed> = changed.iter().filter_map(|p| rules.claims(p)).collect();
    let candidates = infra::unclaimed(&changed, &claimed);
    if !candidates.is_empty() {
        let named = named_files(snapshots, rules, root, (start, now), &changed, &claimed)?;
        claimed.extend(
            named
                .into_iter()
                .filter(|path| candidates.contains(path))
                .map(|path| Claimed {
                    path,
                    verifiers: Vec::new(),
                    parts: vec![Part::Whole],
                }),
        );
    }
    let infra = put_backs(snapshots, (start, now), &claimed)?;
    if infra.is_empty() || !with_tests {
        return Ok((infra, Vec::new()));
    }
    let tests = put_backs(
        snapshots,
        (start, now),
        &infra::test_files(&changed, &claimed),
    )?;
    Ok((infra, tests))
}

/// What to write back for each of `claimed`, read as the two trees hold them.
fn put_backs(
    snapshots: &Snapshots,
    (start, now): (&TreeId, &TreeId),
    claimed: &[Claimed],
) -> Result<Vec<PutBack>, SnapshotError> {
    if claimed.is_empty() {
        return Ok(Vec::new());
    }
    let paths: Vec<String> = claimed.iter().map(|c| c.path.clone()).collect();
    let old = snapshots.read(start, &paths)?;
    let new = snapshots.read(now, &paths)?;
    Ok(claimed
        .iter()
        .zip(old)
        .zip(new)
        .filter_map(|((c, old), new)| infra::put_back(c, old.as_deref(), new.as_deref()))
        .collect())
}

/// The files of `changed` that are not claimed and that a test runner's configuration names: the
/// root's configuration files, and the changed ones anywhere, read as they were and as they are.
fn named_files(
    snapshots: &Snapshots,
    rules: &InfraRules,
    root: &Path,
    (start, now): (&TreeId, &TreeId),
    changed: &[String],
    claimed: &[Claimed],
) -> Result<BTreeSet<String>, SnapshotError> {
    let candidates = infra::unclaimed(changed, claimed);
    let mut naming = rules.naming_files(&root_files(root));
    for c in claimed.iter().filter(|c| rules.names_files(&c.path)) {
        if !naming.iter().any(|(n, _)| n == &c.path) {
            naming.push((c.path.clone(), c.parts.clone()));
        }
    }
    // An unchanged file is read once, from the workspace; a changed one on both sides.
    let (changed_naming, same): (Vec<_>, Vec<_>) =
        naming.into_iter().partition(|(n, _)| changed.contains(n));
    let mut texts: Vec<(&str, &[Part], Vec<u8>)> = Vec::new();
    if !changed_naming.is_empty() {
        let paths: Vec<String> = changed_naming.iter().map(|(n, _)| n.clone()).collect();
        let old = snapshots.read(start, &paths)?;
        let new = snapshots.read(now, &paths)?;
        for (((file, parts), old), new) in changed_naming.iter().zip(old).zip(new) {
            for bytes in [old, new].into_iter().flatten() {
                texts.push((file, parts, bytes));
            }
        }
    }
    for (file, parts) in &same {
        if let Ok(bytes) = fs::read(root.join(file)) {
            texts.push((file, parts, bytes));
        }
    }
    let mut named = BTreeSet::new();
    for (file, parts, bytes) in texts {
        let text = infra::part_text(&String::from_utf8_lossy(&bytes), parts);
        named.extend(infra::named_in(file, &text, &candidates));
    }
    Ok(named)
}

/// The names of the files at the workspace root.
fn root_files(root: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(root) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .collect()
}

/// Writes each put-back into the workspace, keeping the attempt's version of each file. A path
/// that leaves the workspace or is a symbolic link is not touched. On an error the files written
/// so far are written back before it is returned.
fn write_put_backs(root: &Path, put_backs: &[PutBack]) -> Result<Vec<Kept>, std::io::Error> {
    let mut kept = Vec::new();
    for p in put_backs {
        let relative = Path::new(&p.path);
        if !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            continue;
        }
        let path = root.join(relative);
        let meta = fs::symlink_metadata(&path);
        if meta.as_ref().is_ok_and(|m| !m.is_file()) {
            continue;
        }
        let bytes = match meta {
            Ok(meta) => Some((fs::read(&path)?, meta.permissions())),
            Err(_) => None,
        };
        let result = match &p.content {
            Some(content) => path
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| fs::write(&path, content)),
            None => fs::remove_file(&path),
        };
        kept.push(Kept { path, bytes });
        if let Err(error) = result {
            // Best effort: the caller restores the attempt's tree if this fails too.
            let _ = restore(&kept);
            return Err(error);
        }
    }
    Ok(kept)
}

/// Writes the attempt's versions back.
fn restore(kept: &[Kept]) -> Result<(), std::io::Error> {
    for k in kept {
        match &k.bytes {
            Some((bytes, permissions)) => {
                fs::write(&k.path, bytes)?;
                fs::set_permissions(&k.path, permissions.clone())?;
            }
            None => match fs::remove_file(&k.path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            },
        }
    }
    Ok(())
}
