//! The checks of `.pre-commit-config.yaml`: ruff's, mypy's and pyright's hooks become the
//! commands those tools' verifiers run, with the hooks' arguments; a `local` hook is its `entry`;
//! other hooks of known checkers (flake8, black …) are named as not run. Hooks that only tidy
//! files (trailing whitespace, end of file) are not code checks and are left to pre-commit.

use std::path::Path;

use verdict_model::verifier::{InfraFile, Part as InfraPart};
use yaml_rust2::{Yaml, YamlLoader};

use super::checks::{CHECKERS, Found};
use super::quote;

/// The configuration's file name.
const CONFIG: &str = ".pre-commit-config.yaml";

/// Options of ruff's hook that make it fix files; the check runs without them, and what they
/// would fix is reported.
const FIXING: &[&str] = &[
    "--fix",
    "--exit-non-zero-on-fix",
    "--unsafe-fixes",
    "--fix-only",
];

/// The largest configuration read; a bigger one is not a pre-commit configuration.
const MAX_BYTES: u64 = 1024 * 1024;

/// Adds the project's pre-commit hooks that check code to `found`.
pub(super) fn hooks(root: &Path, found: &mut Vec<Found>) {
    let path = root.join(CONFIG);
    if path.metadata().map_or(true, |m| m.len() > MAX_BYTES) {
        return;
    }
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let Ok(documents) = YamlLoader::load_from_str(&text) else {
        return;
    };
    let Some(repos) = documents.first().and_then(|d| d["repos"].as_vec()) else {
        return;
    };
    for repo in repos {
        let local = repo["repo"].as_str() == Some("local");
        for hook in repo["hooks"].as_vec().into_iter().flatten() {
            if let Some(check) = hook_check(root, hook, local) {
                found.push(check);
            }
        }
    }
}

/// The check of one hook, when it checks code.
fn hook_check(root: &Path, hook: &Yaml, local: bool) -> Option<Found> {
    let id = hook["id"].as_str()?;
    let manual = hook["stages"]
        .as_vec()
        .is_some_and(|stages| stages.iter().all(|s| s.as_str() == Some("manual")));
    if manual {
        // `pre-commit run` skips it unless asked for the manual stage.
        return None;
    }
    let args: Vec<String> = hook["args"]
        .as_vec()
        .into_iter()
        .flatten()
        .filter_map(|arg| arg.as_str().map(str::to_owned))
        .collect();
    let mut tools = Vec::new();
    let line = if local {
        let entry = hook["entry"].as_str()?;
        // Other languages build an environment of pre-commit's own to run the entry in.
        let runs_here = matches!(
            hook["language"].as_str(),
            Some("system" | "python" | "unsupported" | "script")
        );
        runs_here.then(|| join(entry, &args))
    } else {
        match id {
            "ruff" | "ruff-check" => {
                let args: Vec<String> = args
                    .into_iter()
                    .filter(|arg| !FIXING.contains(&arg.as_str()))
                    .collect();
                Some(join("ruff check", &args))
            }
            "ruff-format" => Some(join("ruff format --check", &args)),
            "mypy" => Some(mypy_line(root, &args)),
            "pyright" => Some(join("pyright", &args)),
            other if CHECKERS.contains(&other) => {
                tools.push(other.to_owned());
                None
            }
            _ => return None,
        }
    };
    let source = InfraFile {
        glob: CONFIG.to_owned(),
        part: InfraPart::Whole,
    };
    let origin = format!("{CONFIG}'s `{id}` hook");
    let lines: Vec<String> = line.into_iter().collect();
    let mut check = Found::new(
        id,
        "pre-commit hook",
        origin,
        &[],
        "pre-commit",
        lines,
        source,
    );
    check.argv = ["pre-commit", "run", id, "--all-files"]
        .map(str::to_owned)
        .to_vec();
    check.tools = tools;
    Some(check)
}

/// `program` followed by `args`, each quoted for the shell as needed.
fn join(program: &str, args: &[String]) -> String {
    std::iter::once(program.to_owned())
        .chain(args.iter().map(|arg| quote(arg)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// mypy's hook's command. pre-commit hands the hook the Python files it matches; run by
/// itself, mypy needs its targets named, so a hook that names none checks `.` unless mypy's
/// configuration names its `files`.
fn mypy_line(root: &Path, args: &[String]) -> String {
    let names_targets = args.iter().any(|arg| !arg.starts_with('-'));
    if names_targets || mypy_config_names_files(root) {
        join("mypy", args)
    } else {
        let mut args = args.to_vec();
        args.push(".".to_owned());
        join("mypy", &args)
    }
}

/// Whether mypy's configuration sets `files`.
fn mypy_config_names_files(root: &Path) -> bool {
    let sets_files = |text: &str, in_section: &dyn Fn(&str) -> bool| {
        let mut inside = false;
        text.lines().any(|line| {
            let line = line.trim();
            if line.starts_with('[') {
                inside = in_section(line);
                return false;
            }
            inside
                && line
                    .split_once('=')
                    .is_some_and(|(key, _)| key.trim() == "files")
        })
    };
    let ini = |line: &str| line == "[mypy]";
    let toml = |line: &str| line == "[tool.mypy]";
    ["mypy.ini", ".mypy.ini", "setup.cfg"]
        .iter()
        .filter_map(|name| std::fs::read_to_string(root.join(name)).ok())
        .any(|text| sets_files(&text, &ini))
        || std::fs::read_to_string(root.join("pyproject.toml"))
            .is_ok_and(|text| sets_files(&text, &toml))
}
