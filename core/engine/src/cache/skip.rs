//! What the walk over a verifier's inputs leaves out: git's and verdict's own directories always,
//! and the dependency, build and tool-cache directories the project ignores.
//!
//! Files the project ignores count otherwise: a gitignored fixture, a `.env` or a generated file
//! that the tests read changes their result as much as a tracked one. The directories below do
//! not, or not file by file: what is installed in them is keyed through the package managers'
//! metadata (each verifier's tool files), and what the tools write there (build output, caches
//! of earlier runs) is rewritten by the runs themselves, so keying on it would make every run
//! look changed by the one before.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Directories (and a few files) left out where the project ignores them: installed
/// dependencies, build output and tool caches. A tracked one counts as any other file.
/// `dist/` and `build/` are not among them: tests import what a build wrote there, and a stale
/// build changes their result.
pub const SKIPPED_WHEN_IGNORED: &[&str] = &[
    "node_modules",
    "target",
    ".venv",
    "venv",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".tox",
    ".nox",
    ".nyc_output",
    "coverage",
    "htmlcov",
    ".coverage",
    ".eslintcache",
];

/// Whether an entry of this name is never an input: git's directory and verdict's own in the
/// tree (`state_names`, from [`crate::paths::in_tree_names`]), which every run rewrites.
pub(super) fn always_skipped(name: &OsStr, state_names: &[OsString]) -> bool {
    name == ".git" || state_names.iter().any(|n| n == name)
}

/// Whether an entry of this name is skipped when the project ignores it.
pub(super) fn skipped_when_ignored(name: &OsStr) -> bool {
    SKIPPED_WHEN_IGNORED.iter().any(|skipped| name == *skipped)
}

/// The project's ignore rules, read only for the few entries [`skipped_when_ignored`] names: the
/// `.gitignore` and `.ignore` files from the entry's folder up to the repository's root,
/// `.git/info/exclude`, and git's global excludes file.
pub(super) struct Ignores {
    /// The matcher of each folder's `.gitignore` and `.ignore`, `None` when it has neither.
    folders: Mutex<HashMap<PathBuf, Option<Arc<Gitignore>>>>,
    /// `.git/info/exclude` of the repository holding the walk's root, with its root.
    exclude: Option<Gitignore>,
    /// Git's global excludes file, read the first time it is needed.
    global: OnceLock<Gitignore>,
}

impl Ignores {
    pub(super) fn new(root: &Path) -> Ignores {
        let exclude = root
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .and_then(|repo| {
                let mut builder = GitignoreBuilder::new(repo);
                builder.add(repo.join(".git/info/exclude"));
                builder.build().ok()
            });
        Ignores {
            folders: Mutex::new(HashMap::new()),
            exclude,
            global: OnceLock::new(),
        }
    }

    /// Whether the project ignores `path` (a directory when `is_dir`). The nearest folder whose
    /// rules decide wins, as in git; a negation (`!keep/`) un-ignores.
    pub(super) fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        // A tool cache that ignores itself: pytest, mypy and ruff write a `.gitignore` of `*`
        // into their caches.
        if is_dir && ignores_itself(path) {
            return true;
        }
        for folder in path.ancestors().skip(1) {
            if let Some(matcher) = self.folder(folder)
                && let Ok(relative) = path.strip_prefix(folder)
            {
                match matcher.matched_path_or_any_parents(relative, is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
            if folder.join(".git").exists() {
                break;
            }
        }
        if let Some(exclude) = &self.exclude
            && let Ok(relative) = path.strip_prefix(exclude.path())
        {
            match exclude.matched_path_or_any_parents(relative, is_dir) {
                Match::Ignore(_) => return true,
                Match::Whitelist(_) => return false,
                Match::None => {}
            }
        }
        // The global excludes file has no root of its own: its patterns are matched by name.
        if let Some(name) = path.file_name() {
            let global = self.global.get_or_init(|| Gitignore::global().0);
            return global.matched(Path::new(name), is_dir).is_ignore();
        }
        false
    }

    fn folder(&self, folder: &Path) -> Option<Arc<Gitignore>> {
        let mut folders = self.folders.lock().unwrap_or_else(|e| e.into_inner());
        folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| {
                let mut builder = GitignoreBuilder::new(folder);
                let mut any = false;
                for name in [".gitignore", ".ignore"] {
                    let file = folder.join(name);
                    if file.is_file() {
                        any |= builder.add(file).is_none();
                    }
                }
                any.then(|| builder.build().ok().map(Arc::new)).flatten()
            })
            .clone()
    }
}

/// Whether the directory's own `.gitignore` ignores everything in it (a line `*`).
fn ignores_itself(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(".gitignore"))
        .is_ok_and(|text| text.lines().any(|line| line.trim() == "*"))
}
