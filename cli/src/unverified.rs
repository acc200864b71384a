//! The checks the project declares that no verifier runs — tox environments, nox sessions and
//! Makefile targets of linters and type checkers (see `verdict_verifier_support::declared`'s
//! `Unrun`) — for `verdict list` and the digest's `not verified: …` line. A check that a
//! `[[verifier]]` of verdict.toml runs (the same command) is verified, and not named.

use std::path::Path;

use verdict_verifier_support::declared::{Declared, Unrun};

use crate::config::Config;

/// At most this many checks are named in the digest's line; the rest are counted.
const MAX_NAMED: usize = 5;

/// The declared checks of the project at `root` that no verifier runs.
pub(crate) fn unrun(config: &Config, root: &Path) -> Vec<Unrun> {
    Declared::of(&config.workspace(root))
        .unrun
        .into_iter()
        .filter(|check| !config.custom.iter().any(|d| d.command == check.argv))
        .collect()
}

/// The digest's line: `not verified: tox env typing (mypy), make lint (ruff) — enable with a
/// [[verifier]] in verdict.toml running `tox -e typing`, `make lint` (`verdict list` shows
/// each)`; `None` when every declared check runs.
pub(crate) fn line(unrun: &[Unrun]) -> Option<String> {
    if unrun.is_empty() {
        return None;
    }
    let named = &unrun[..unrun.len().min(MAX_NAMED)];
    let more = match unrun.len() - named.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let checks: Vec<String> = named.iter().map(Unrun::describe).collect();
    let commands: Vec<String> = named
        .iter()
        .map(|check| format!("`{}`", check.argv.join(" ")))
        .collect();
    let each = if unrun.len() == 1 { "it" } else { "each" };
    Some(format!(
        "not verified: {}{more} — enable with a [[verifier]] in verdict.toml running {} \
         (`verdict list` shows {each})",
        checks.join(", "),
        commands.join(", ")
    ))
}
