//! What verdict's verifier crates share: reading a project's `package.json`, finding the project's
//! own binaries (`node_modules/.bin`, a virtualenv), and summarizing a captured log with one of the
//! summarizers.
//!
//! Everything here only reads files; nothing spawns a process (see `verdict_model::verifier`).
//! [`declared`] reads the commands the project declares it runs to check itself; [`infra`] names
//! the files that decide how a verifier's tool runs (its infrastructure).

pub mod coverage;
pub mod declared;
pub mod glob;
pub mod infra;

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use verdict_model::verifier::{Captured, Workspace};
use verdict_model::{Report, Summarizer};

/// The parts of a `package.json` that detection needs.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageJson {
    /// `dependencies`.
    #[serde(default)]
    pub dependencies: BTreeMap<String, serde_json::Value>,
    /// `devDependencies`.
    #[serde(default)]
    pub dev_dependencies: BTreeMap<String, serde_json::Value>,
    /// `scripts`.
    #[serde(default)]
    pub scripts: BTreeMap<String, serde_json::Value>,
}

impl PackageJson {
    /// Reads `package.json` at the workspace root: `Ok(None)` when there is none, `Err` with a
    /// message when it is not valid JSON.
    pub fn read(workspace: &Workspace) -> Result<Option<PackageJson>, String> {
        let path = workspace.path("package.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(format!("failed to read {}: {error}", path.display())),
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| format!("{} is not valid JSON: {error}", path.display()))
    }

    /// Whether `name` is a dependency or a dev dependency.
    pub fn depends_on(&self, name: &str) -> bool {
        self.dependencies.contains_key(name) || self.dev_dependencies.contains_key(name)
    }

    /// The name of the first script whose command runs `program` as a word (`"test": "jest
    /// --ci"` runs `jest`).
    pub fn script_running(&self, program: &str) -> Option<&str> {
        self.scripts.iter().find_map(|(name, command)| {
            let command = command.as_str()?;
            command
                .split(|c: char| c.is_whitespace() || matches!(c, '&' | '|' | ';' | '(' | ')'))
                .any(|word| word == program || word.ends_with(&format!("/{program}")))
                .then_some(name.as_str())
        })
    }
}

/// The project's own copy of a Node.js binary: `node_modules/.bin/<name>` in the workspace root
/// or the nearest ancestor that has one (npm workspaces hoist binaries to the repository root).
pub fn node_bin(workspace: &Workspace, name: &str) -> Option<PathBuf> {
    workspace
        .root
        .ancestors()
        .map(|dir| dir.join("node_modules").join(".bin").join(name))
        .find(|path| path.is_file())
}

/// The files a Node.js package manager rewrites whenever it installs, upgrades or removes a
/// package, for every `node_modules` from the workspace root upwards (npm workspaces hoist them to
/// the repository root): npm's hidden lock file, pnpm's `.modules.yaml`, yarn's state files, and
/// Plug'n'Play's `.pnp.cjs`. Counted in the result cache's key as tool files, so that a dependency
/// upgraded under an unchanged project is run again rather than replayed from an old pass.
pub fn node_install_markers(workspace: &Workspace) -> Vec<PathBuf> {
    let mut markers = Vec::new();
    for dir in workspace.root.ancestors() {
        let modules = dir.join("node_modules");
        if modules.is_dir() {
            for name in [
                ".package-lock.json",
                ".modules.yaml",
                ".yarn-state.yml",
                ".yarn-integrity",
            ] {
                markers.push(modules.join(name));
            }
        }
        let pnp = dir.join(".pnp.cjs");
        if pnp.is_file() {
            markers.push(pnp);
        }
    }
    markers
}

/// The root of the JavaScript monorepo the workspace is a package of, when it is one: the nearest
/// ancestor that declares workspaces (`workspaces` in package.json, `pnpm-workspace.yaml`,
/// `lerna.json`, `nx.json`, `turbo.json`, `rush.json`), else the nearest ancestor whose
/// `node_modules/.bin` holds `tool` (hoisted there by npm or yarn workspaces). A package imports
/// its siblings, so the result cache walks from here. `None` when the workspace is no package of
/// a larger project.
pub fn js_monorepo_root(workspace: &Workspace, tool: &str) -> Option<PathBuf> {
    let declares_workspaces = |dir: &Path| {
        [
            "pnpm-workspace.yaml",
            "lerna.json",
            "nx.json",
            "turbo.json",
            "rush.json",
        ]
        .iter()
        .any(|name| dir.join(name).is_file())
            || std::fs::read_to_string(dir.join("package.json"))
                .ok()
                .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
                .is_some_and(|package| package.get("workspaces").is_some())
    };
    let above = || workspace.root.ancestors().skip(1);
    above()
        .find(|dir| declares_workspaces(dir))
        .or_else(|| above().find(|dir| dir.join("node_modules/.bin").join(tool).is_file()))
        .map(Path::to_path_buf)
}

/// The first of `names` that exists as a file in the workspace root.
pub fn first_file(workspace: &Workspace, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find(|name| workspace.path(name).is_file())
        .map(|name| (*name).to_owned())
}

/// `name` found on `PATH`, as a shell would find it (without running anything).
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Streams the captured log through `summarizer`. A log that cannot be read gives an errored
/// report naming it.
pub fn summarize_log(summarizer: &dyn Summarizer, captured: &Captured) -> Report {
    let file = match captured.open_log() {
        Ok(file) => file,
        Err(error) => {
            return Report::errored(
                summarizer.name(),
                format!("failed to read {}: {error}", captured.log_path.display()),
            );
        }
    };
    match summarizer.parse_reader(&mut BufReader::new(file)) {
        Ok((report, _stats)) => report,
        Err(error) => Report::errored(
            summarizer.name(),
            format!("failed to read {}: {error}", captured.log_path.display()),
        ),
    }
}

/// Streams the captured log through the summarizer called `name` (one of
/// `verdict_summarizers::names()`).
pub fn summarize_log_as(name: &str, captured: &Captured) -> Report {
    match verdict_summarizers::by_name(name) {
        Some(summarizer) => summarize_log(summarizer, captured),
        None => Report::errored(name, format!("no summarizer called {name}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_running_matches_whole_words_only() {
        let package: PackageJson = serde_json::from_str(
            r#"{"scripts": {"lint": "eslint-config-check", "test": "tsc -p . && ./node_modules/.bin/jest --ci"}}"#,
        )
        .expect("valid JSON");
        assert_eq!(package.script_running("jest"), Some("test"));
        assert_eq!(package.script_running("tsc"), Some("test"));
        assert_eq!(package.script_running("eslint"), None);
    }
}
