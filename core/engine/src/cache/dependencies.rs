//! The installed dependencies of a project, through their package managers' metadata, for every
//! verifier's key: what the walk leaves out of `node_modules/` and `.venv/` is keyed here.
//!
//! Each verifier names the tool files of its own tool; these are the project's, whichever
//! verifier runs (a configured command that imports a package, a test that runs a tool of the
//! virtualenv). An install, upgrade or removal through the package manager rewrites them.

use std::fs;
use std::path::{Path, PathBuf};

/// Files that npm, pnpm and yarn rewrite on every install, per `node_modules`.
const NODE_MARKERS: [&str; 4] = [
    ".package-lock.json",
    ".modules.yaml",
    ".yarn-state.yml",
    ".yarn-integrity",
];

/// Virtualenv folders looked for at the root.
const VENVS: [&str; 2] = [".venv", "venv"];

/// The metadata files of what is installed for the project at `root` (those that exist): the
/// package managers' markers in `node_modules` here and in the folders above (a monorepo hoists),
/// Yarn's `.pnp.cjs`, `Cargo.lock` and the rust-toolchain files, and each root virtualenv's
/// `pyvenv.cfg` and installed packages' `RECORD`s. Ancestors are read up to the repository's root.
pub(super) fn dependency_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in root.ancestors() {
        let modules = dir.join("node_modules");
        for marker in NODE_MARKERS {
            push_if_file(&mut files, modules.join(marker));
        }
        for name in [
            ".pnp.cjs",
            "Cargo.lock",
            "rust-toolchain",
            "rust-toolchain.toml",
        ] {
            push_if_file(&mut files, dir.join(name));
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    for venv in VENVS {
        venv_files(&root.join(venv), &mut files);
    }
    files
}

fn push_if_file(files: &mut Vec<PathBuf>, path: PathBuf) {
    if path.is_file() {
        files.push(path);
    }
}

/// `pyvenv.cfg` and the `RECORD` of every package in the virtualenv's `site-packages`.
fn venv_files(venv: &Path, files: &mut Vec<PathBuf>) {
    let config = venv.join("pyvenv.cfg");
    if !config.is_file() {
        return;
    }
    files.push(config);
    let Ok(versions) = fs::read_dir(venv.join("lib")) else {
        return;
    };
    let mut site_packages: Vec<PathBuf> = versions
        .flatten()
        .map(|entry| entry.path().join("site-packages"))
        .filter(|dir| dir.is_dir())
        .collect();
    site_packages.sort();
    for dir in site_packages {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        let mut records: Vec<PathBuf> = entries
            .flatten()
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".dist-info"))
            .map(|entry| entry.path().join("RECORD"))
            .collect();
        records.sort();
        files.extend(records);
    }
}
