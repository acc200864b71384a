//! Splitting a pytest run across shards by test file (pytest has no sharding of its own).
//!
//! verdict lists the test files as pytest would collect them — from the paths the project's
//! command names, else the `testpaths` of its configuration, else the root; files matching
//! `python_files` (default `test_*.py` and `*_test.py`); directories matching `norecursedirs`
//! (pytest's default list) and virtualenvs left out — and deals them to the shards with
//! [`Shard::split`], by the durations of an earlier run where they are known. Each shard then runs
//! pytest on its own files, named on the command line (which makes pytest ignore `testpaths`).
//!
//! Listing the files here rather than with `pytest --collect-only` keeps the verifier a
//! description of one command; a plugin that collects other files (doctests, notebooks) is not
//! seen, and those files run in no shard.

use std::collections::BTreeSet;
use std::path::Path;

use verdict_model::verifier::{Shard, Workspace};

/// pytest's default `norecursedirs`.
const NORECURSEDIRS: &[&str] = &[
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
];

/// pytest's default `python_files`.
const PYTHON_FILES: &[&str] = &["test_*.py", "*_test.py"];

/// The most directory entries read while listing, so that a huge tree cannot stall a run.
const MAX_ENTRIES: usize = 200_000;

/// The options of pytest whose value is the next word: a path after one of them is no test path.
const TAKES_VALUE: &[&str] = &[
    "-k",
    "-m",
    "-p",
    "-c",
    "-o",
    "-W",
    "--rootdir",
    "--ignore",
    "--ignore-glob",
    "--deselect",
    "--confcutdir",
    "--basetemp",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--junit-prefix",
    "--log-file",
    "--durations",
    "--maxfail",
    "--tb",
    "-n",
    "--dist",
];

/// The declared arguments without their test paths, and those paths (relative to the root):
/// the words that name an existing file or directory and are no option's value.
pub(crate) fn take_paths(workspace: &Workspace, args: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut rest = Vec::new();
    let mut paths = Vec::new();
    let mut value_next = false;
    for arg in args {
        let is_value = std::mem::take(&mut value_next);
        if arg.starts_with('-') {
            value_next = !arg.contains('=') && TAKES_VALUE.contains(&arg.as_str());
            rest.push(arg);
        } else if !is_value && workspace.path(&arg).exists() {
            paths.push(arg);
        } else {
            rest.push(arg);
        }
    }
    (rest, paths)
}

/// This shard's test files (relative to the root, sorted), from `paths` (the command's own test
/// paths; empty: the configuration's `testpaths`, else the root).
pub(crate) fn files_for(workspace: &Workspace, shard: Shard, paths: &[String]) -> Vec<String> {
    let all = test_files(workspace, paths);
    shard.split(&all, &workspace.test_durations)
}

/// Every test file pytest would collect from `paths` (see the module docs), relative to the
/// root, sorted.
pub(crate) fn test_files(workspace: &Workspace, paths: &[String]) -> Vec<String> {
    let python_files = ini_list(workspace, "python_files")
        .unwrap_or_else(|| PYTHON_FILES.iter().map(|p| (*p).to_owned()).collect());
    let norecurse = ini_list(workspace, "norecursedirs")
        .unwrap_or_else(|| NORECURSEDIRS.iter().map(|p| (*p).to_owned()).collect());
    let starts: Vec<String> = if !paths.is_empty() {
        paths.to_vec()
    } else {
        ini_list(workspace, "testpaths")
            .map(|paths| {
                paths
                    .into_iter()
                    .filter(|p| workspace.path(p).exists())
                    .collect::<Vec<_>>()
            })
            .filter(|paths| !paths.is_empty())
            .unwrap_or_else(|| vec![String::new()])
    };
    let mut found = BTreeSet::new();
    let mut read = 0;
    for start in starts {
        let start = start.trim_end_matches('/').to_owned();
        let path = workspace.path(&start);
        if path.is_file() {
            // A file named on the command line is collected whatever its name.
            found.insert(start);
            continue;
        }
        walk(
            &path,
            &start,
            &python_files,
            &norecurse,
            &mut found,
            &mut read,
        );
    }
    found.into_iter().collect()
}

fn walk(
    dir: &Path,
    shown: &str,
    python_files: &[String],
    norecurse: &[String],
    found: &mut BTreeSet<String>,
    read: &mut usize,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        *read += 1;
        if *read > MAX_ENTRIES {
            return;
        }
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let rel = if shown.is_empty() {
            name.clone()
        } else {
            format!("{shown}/{name}")
        };
        if kind.is_file() && python_files.iter().any(|p| fnmatch(p, &name)) {
            found.insert(rel);
        } else if kind.is_dir()
            && !norecurse.iter().any(|p| fnmatch(p, &name))
            && !name.ends_with(".egg-info")
            && name != "__pycache__"
            // pytest leaves virtualenvs out (`collect_in_virtualenv = false`).
            && !entry.path().join("pyvenv.cfg").exists()
        {
            dirs.push((entry.path(), rel));
        }
    }
    dirs.sort();
    for (path, rel) in dirs {
        walk(&path, &rel, python_files, norecurse, found, read);
    }
}

/// Whether the file at `path` (relative to the root) is one pytest collects as a test file:
/// its name matches the configuration's `python_files` (default `test_*.py`, `*_test.py`).
pub(crate) fn is_test_file(workspace: &Workspace, path: &str) -> bool {
    let python_files = ini_list(workspace, "python_files")
        .unwrap_or_else(|| PYTHON_FILES.iter().map(|p| (*p).to_owned()).collect());
    let name = path.rsplit('/').next().unwrap_or(path);
    python_files.iter().any(|p| fnmatch(p, name))
}

/// Whether the run collects doctests (`--doctest-modules`, `--doctest-glob`) in the declared
/// arguments or the configuration's `addopts`.
pub(crate) fn collects_doctests(workspace: &Workspace, args: &[String]) -> bool {
    let addopts = ini_list(workspace, "addopts").unwrap_or_default();
    args.iter()
        .chain(&addopts)
        .any(|arg| arg.starts_with("--doctest-modules") || arg.starts_with("--doctest-glob"))
}

/// Whether `name` matches the shell-style pattern (`*`, `?`), as Python's `fnmatch` does.
fn fnmatch(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some(('*', rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
            Some(('?', rest)) => !n.is_empty() && go(rest, &n[1..]),
            Some((c, rest)) => n.first() == Some(c) && go(rest, &n[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}

/// The value of `key` in pytest's configuration, split on whitespace: the first of `pytest.ini`
/// (`[pytest]`), `pyproject.toml` (`[tool.pytest.ini_options]`), `tox.ini` (`[pytest]`) and
/// `setup.cfg` (`[tool:pytest]`) that configures pytest, as pytest looks for them.
fn ini_list(workspace: &Workspace, key: &str) -> Option<Vec<String>> {
    let read = |file: &str| std::fs::read_to_string(workspace.path(file)).ok();
    if let Some(text) = read("pytest.ini") {
        return ini_value(&text, "pytest", key);
    }
    if let Some(text) = read("pyproject.toml")
        && let Ok(value) = text.parse::<toml::Table>()
        && let Some(options) = value
            .get("tool")
            .and_then(|t| t.get("pytest"))
            .and_then(|t| t.get("ini_options"))
    {
        return match options.get(key)? {
            toml::Value::String(text) => Some(text.split_whitespace().map(str::to_owned).collect()),
            toml::Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(toml::Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            ),
            _ => None,
        };
    }
    for (file, section) in [("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")] {
        if let Some(text) = read(file)
            && text
                .lines()
                .any(|line| line.trim() == format!("[{section}]"))
        {
            return ini_value(&text, section, key);
        }
    }
    None
}

/// `key` of `[section]` in an ini text, with its indented continuation lines, split on
/// whitespace.
fn ini_value(text: &str, section: &str, key: &str) -> Option<Vec<String>> {
    let mut in_section = false;
    let mut value: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            if value.is_some() {
                break;
            }
            in_section = trimmed == format!("[{section}]");
            continue;
        }
        if !in_section || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if let Some(current) = &mut value {
            if line.starts_with([' ', '\t']) && !trimmed.is_empty() {
                current.push(' ');
                current.push_str(trimmed);
                continue;
            }
            break;
        }
        if let Some((name, rest)) = trimmed.split_once(['=', ':'])
            && name.trim() == key
        {
            value = Some(rest.trim().to_owned());
        }
    }
    value.map(|v| v.split_whitespace().map(str::to_owned).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::workspace_with as project;

    #[test]
    fn files_are_listed_as_pytest_collects_them() {
        let (_dir, workspace) = project(&[
            ("pytest.ini", "[pytest]\ntestpaths =\n    tests\n    more\n"),
            ("tests/test_a.py", ""),
            ("tests/b_test.py", ""),
            ("tests/helper.py", ""),
            ("tests/sub/test_c.py", ""),
            ("tests/build/test_built.py", ""),
            ("tests/.hidden/test_h.py", ""),
            ("tests/env/pyvenv.cfg", ""),
            ("tests/env/test_venv.py", ""),
            ("more/test_d.py", ""),
            ("elsewhere/test_e.py", ""),
        ]);
        assert_eq!(
            test_files(&workspace, &[]),
            [
                "more/test_d.py",
                "tests/b_test.py",
                "tests/sub/test_c.py",
                "tests/test_a.py"
            ]
        );
        // The command's own paths win over testpaths.
        assert_eq!(
            test_files(&workspace, &["elsewhere".to_owned()]),
            ["elsewhere/test_e.py"]
        );
    }

    #[test]
    fn python_files_from_pyproject_change_what_counts() {
        let (_dir, workspace) = project(&[
            (
                "pyproject.toml",
                "[tool.pytest.ini_options]\npython_files = [\"check_*.py\"]\n",
            ),
            ("check_one.py", ""),
            ("test_two.py", ""),
        ]);
        assert_eq!(test_files(&workspace, &[]), ["check_one.py"]);
    }

    #[test]
    fn paths_are_taken_from_the_arguments_but_not_option_values() {
        let (_dir, workspace) = project(&[("tests/test_a.py", ""), ("slow", "")]);
        let args = ["-m", "slow", "tests", "--cov=pkg", "-q"]
            .map(str::to_owned)
            .to_vec();
        let (rest, paths) = take_paths(&workspace, args);
        assert_eq!(rest, ["-m", "slow", "--cov=pkg", "-q"]);
        assert_eq!(paths, ["tests"]);
    }

    #[test]
    fn doctests_in_addopts_are_seen() {
        let (_dir, workspace) = project(&[(
            "setup.cfg",
            "[metadata]\nname = x\n\n[tool:pytest]\naddopts = -q\n    --doctest-modules\n",
        )]);
        assert!(collects_doctests(&workspace, &[]));
        let (_dir, workspace) = project(&[("pytest.ini", "[pytest]\naddopts = -q\n")]);
        assert!(!collects_doctests(&workspace, &[]));
        assert!(collects_doctests(
            &workspace,
            &["--doctest-glob=*.md".to_owned()]
        ));
    }

    #[test]
    fn fnmatch_matches_like_python() {
        assert!(fnmatch("test_*.py", "test_a.py"));
        assert!(fnmatch("*_test.py", "a_test.py"));
        assert!(!fnmatch("test_*.py", "a_test.py"));
        assert!(fnmatch(".*", ".git"));
        assert!(fnmatch("*.egg", "x.egg"));
        assert!(fnmatch("t?st", "test"));
    }
}
