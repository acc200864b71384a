//! What a run leaves unverified, said in `verdict list` and in the digest's `not verified: …`
//! lines, never dropped in silence:
//! - the checks the project declares that no verifier runs — tox environments, nox sessions,
//!   Makefile targets and pre-commit hooks of linters and type checkers that verdict has no
//!   verifier for (see `verdict_verifier_support::declared`'s `Unrun`); a check that a
//!   `[[verifier]]` of verdict.toml runs (the same command) is verified, and not named;
//! - the lint and type checks whose tool is not installed where verdict runs (mypy declared in
//!   a tox environment, absent from the project's virtualenv). Outside CI such a check is set
//!   aside with its install command, and the run goes on; in CI (`CI` set), with `--strict` or
//!   `[run] strict = true`, it is kept, and its missing tool makes the run "could not verify".

use std::path::Path;

use verdict_core::verifier::{VerifierError, Workspace};
use verdict_core::{Kind, Verifier};
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

/// A lint or type check whose tool is not installed where verdict runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Missing {
    /// The verifier's name.
    pub(crate) verifier: String,
    /// The tool's name.
    pub(crate) tool: String,
    /// How to install it.
    pub(crate) hint: String,
}

impl Missing {
    /// The digest's and `verdict list`'s line: `not verified: mypy is not installed — python -m
    /// pip install mypy`.
    pub(crate) fn line(&self) -> String {
        format!(
            "not verified: {} is not installed — {} (in CI, or with --strict, this is \
             \"could not verify\"; `[verifiers.{}] enabled = false` turns it off)",
            self.tool, self.hint, self.verifier
        )
    }
}

/// The check `verifier` when it is a lint or type check whose tool is not installed.
pub(crate) fn missing(verifier: &dyn Verifier, workspace: &Workspace) -> Option<Missing> {
    if !matches!(verifier.kind(), Kind::Lint | Kind::Type) {
        return None;
    }
    match verifier.command(workspace) {
        Err(VerifierError::NotInstalled { tool, hint }) => Some(Missing {
            verifier: verifier.name().to_owned(),
            tool,
            hint,
        }),
        _ => None,
    }
}

/// Whether a check whose tool is missing makes the run "could not verify": `--strict`,
/// `[run] strict = true`, or a CI job (`CI` set to anything but empty, `0` or `false`, as
/// GitHub Actions, GitLab CI and the others set it).
pub(crate) fn strict(flag: bool, config: &Config) -> bool {
    flag || config.run.strict || ci(std::env::var("CI").ok().as_deref())
}

/// Whether the value of `CI` says this is a CI job.
fn ci(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// The digest's lines of what the run leaves unverified, one a line; `None` when nothing is.
pub(crate) fn lines(unrun: &[Unrun], missing: &[Missing]) -> Option<String> {
    let lines: Vec<String> = missing
        .iter()
        .map(Missing::line)
        .chain(line(unrun))
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::ci;

    #[test]
    fn ci_is_any_value_but_empty_zero_or_false() {
        for (value, expect) in [
            (None, false),
            (Some(""), false),
            (Some("0"), false),
            (Some("False"), false),
            (Some("true"), true),
            (Some("1"), true),
            (Some("woodpecker"), true),
        ] {
            assert_eq!(ci(value), expect, "{value:?}");
        }
    }
}
