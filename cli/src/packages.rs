//! The packages of a JavaScript monorepo seen from its root: what `verdict run` and `verdict list`
//! at the root do not cover.
//!
//! At the root of npm, yarn or pnpm workspaces the root's own files decide what applies (often
//! only a linter), while each package has its own test runner and type checker. A run there that
//! passed would say nothing of the packages' tests, so verdict names the packages whose verifiers
//! it did not run, and how to run them.

use std::path::{Path, PathBuf};

use verdict_core::verifier::{Applicability, Workspace};

use std::collections::BTreeSet;

use verdict_verifier_support::declared::Declared;

use crate::registry::{Known, Origin};

/// At most this many packages are looked at: a note, not a crawl of a giant monorepo.
const MAX_PACKAGES: usize = 200;

/// A workspace package and the verifiers that apply in it but did not run at the root.
pub(crate) struct Uncovered {
    /// The package's directory, relative to the root.
    pub(crate) dir: String,
    /// The names of its verifiers.
    pub(crate) verifiers: Vec<String>,
}

/// The workspace packages under `root` and the verifiers that apply in each, which a run at the
/// root does not cover (its test runners and type checker read the root's config, not the
/// packages'; an eslint that applies at the root lints the packages' files too). Not named: the
/// root's own scripts (they run here, not there), a package's test runner whose command is the
/// root's scoped to it (the root runs it for every package), and tsc in a package the root's
/// `tsc --build` references.
pub(crate) fn uncovered(root: &Path, known: &[Known]) -> Vec<Uncovered> {
    let dirs = packages(root);
    if dirs.is_empty() {
        return Vec::new();
    }
    let at_root = Workspace::new(root);
    let root_lints = known.iter().any(|k| {
        k.verifier.name() == "eslint"
            && matches!(k.verifier.applies(&at_root), Applicability::Applies(_))
    });
    let root_builds = known.iter().any(|k| {
        k.verifier.name() == "tsc"
            && matches!(k.verifier.applies(&at_root), Applicability::Applies(_))
    }) && Declared::from_files(root)
        .for_verifier("tsc")
        .is_some_and(|c| c.words.iter().any(|w| w == "-b" || w == "--build"));
    let references = std::fs::read_to_string(root.join("tsconfig.json")).unwrap_or_default();
    let mut found = Vec::new();
    for dir in dirs {
        let workspace = Workspace::new(&dir);
        let relative = dir.strip_prefix(root).unwrap_or(&dir).display().to_string();
        let declared = Declared::from_files(&dir);
        let mut verifiers: Vec<String> = known
            .iter()
            .filter(|k| !matches!(k.origin, Origin::Script))
            .filter(|k| matches!(k.verifier.applies(&workspace), Applicability::Applies(_)))
            .map(|k| k.verifier.name().to_owned())
            .filter(|name| !(root_lints && name == "eslint"))
            .filter(|name| {
                !declared
                    .for_verifier(name)
                    .is_some_and(|c| c.from_workspace_root)
            })
            .filter(|name| !(root_builds && name == "tsc" && referenced(&references, &relative)))
            .collect();
        // The package's own declared commands that no verifier covers run as its scripts.
        let linked: BTreeSet<String> = known
            .iter()
            .filter(|k| !matches!(k.origin, Origin::Script))
            .map(|k| k.verifier.name().to_owned())
            .collect();
        verifiers.extend(
            declared
                .uncovered(&linked)
                .filter(|(_, c)| !c.from_workspace_root)
                .map(|(_, c)| format!("its own `{}`", c.text)),
        );
        if !verifiers.is_empty() {
            found.push(Uncovered {
                dir: relative,
                verifiers,
            });
        }
    }
    found
}

/// Whether a tsconfig.json's text references the package at `relative` (`{"path":
/// "packages/a"}`).
fn referenced(tsconfig: &str, relative: &str) -> bool {
    tsconfig.contains(&format!("\"{relative}\"")) || tsconfig.contains(&format!("\"./{relative}\""))
}

/// The note for people: `packages/a (jest, tsc) and packages/b (vitest) are workspace packages …`.
pub(crate) fn note(uncovered: &[Uncovered]) -> Option<String> {
    let first = uncovered.first()?;
    let shown: Vec<String> = uncovered
        .iter()
        .take(5)
        .map(|u| format!("{} ({})", u.dir, u.verifiers.join(", ")))
        .collect();
    let more = uncovered.len().saturating_sub(shown.len());
    let list = if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    };
    Some(format!(
        "workspace packages with verifiers of their own were not verified by this run: {list}; \
         run verdict in each (`verdict run -C {}`)",
        first.dir
    ))
}

/// The package directories that the root's `package.json` `workspaces` (an array, or yarn's
/// `{"packages": […]}`) or `pnpm-workspace.yaml` declare, each holding a `package.json`. Patterns
/// are a path, `dir/*` (its subdirectories) or `dir/**` (taken as `dir/*`); `!` patterns exclude.
fn packages(root: &Path) -> Vec<PathBuf> {
    let mut patterns = Vec::new();
    if let Ok(text) = std::fs::read_to_string(root.join("package.json"))
        && let Ok(package) = serde_json::from_str::<serde_json::Value>(&text)
    {
        let list = match package.get("workspaces") {
            Some(serde_json::Value::Array(list)) => Some(list),
            Some(serde_json::Value::Object(object)) => {
                object.get("packages").and_then(|p| p.as_array())
            }
            _ => None,
        };
        patterns.extend(
            list.into_iter()
                .flatten()
                .filter_map(|p| p.as_str().map(str::to_owned)),
        );
    }
    if let Ok(text) = std::fs::read_to_string(root.join("pnpm-workspace.yaml")) {
        patterns.extend(pnpm_patterns(&text));
    }
    let (excluded, included): (Vec<String>, Vec<String>) =
        patterns.into_iter().partition(|p| p.starts_with('!'));
    let excluded: Vec<PathBuf> = excluded
        .iter()
        .map(|p| {
            root.join(
                p.trim_start_matches('!')
                    .trim_end_matches("/*")
                    .trim_end_matches("/**"),
            )
        })
        .collect();
    let mut dirs = Vec::new();
    for pattern in included {
        let pattern = pattern.trim_start_matches("./");
        let parent = pattern
            .strip_suffix("/**")
            .or_else(|| pattern.strip_suffix("/*"));
        match parent {
            Some(parent) => {
                let Ok(entries) = std::fs::read_dir(root.join(parent)) else {
                    continue;
                };
                let mut children: Vec<PathBuf> = entries
                    .flatten()
                    .map(|entry| entry.path())
                    .filter(|path| path.is_dir())
                    .collect();
                children.sort();
                dirs.extend(children);
            }
            None if !pattern.contains('*') => dirs.push(root.join(pattern)),
            None => {}
        }
    }
    dirs.retain(|dir| {
        dir.join("package.json").is_file()
            && !excluded.iter().any(|x| dir.starts_with(x))
            && dir.as_path() != root
    });
    dirs.dedup();
    dirs.truncate(MAX_PACKAGES);
    dirs
}

/// The patterns under `packages:` in a `pnpm-workspace.yaml` (a list of quoted or bare strings).
fn pnpm_patterns(text: &str) -> Vec<String> {
    let mut patterns = Vec::new();
    let mut in_packages = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if !line.starts_with([' ', '\t', '-']) && !trimmed.is_empty() {
            in_packages = trimmed.starts_with("packages:");
            continue;
        }
        if in_packages && let Some(item) = trimmed.strip_prefix('-') {
            let item = item.trim().trim_matches(|c| c == '\'' || c == '"');
            if !item.is_empty() {
                patterns.push(item.to_owned());
            }
        }
    }
    patterns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pnpm_workspace_patterns() {
        let text = "packages:\n  - 'packages/*'\n  - \"apps/web\"\n  - '!packages/legacy'\ncatalog:\n  - no\n";
        assert_eq!(
            pnpm_patterns(text),
            ["packages/*", "apps/web", "!packages/legacy"]
        );
    }

    #[test]
    fn npm_workspaces_expand_to_the_packages_that_exist() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        std::fs::write(
            root.join("package.json"),
            r#"{"workspaces": ["packages/*", "tools/cli", "!packages/old"]}"#,
        )
        .expect("writes");
        for package in ["packages/a", "packages/b", "packages/old", "tools/cli"] {
            std::fs::create_dir_all(root.join(package)).expect("creates");
            std::fs::write(root.join(package).join("package.json"), "{}").expect("writes");
        }
        std::fs::create_dir_all(root.join("packages/not-a-package")).expect("creates");
        let found: Vec<String> = packages(root)
            .iter()
            .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
            .collect();
        assert_eq!(found, ["packages/a", "packages/b", "tools/cli"]);
    }
}
