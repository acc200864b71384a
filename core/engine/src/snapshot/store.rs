//! The store: a private bare repository in verdict's directory ([`paths::dir`]), its own index,
//! and the git commands run on it with nothing of the caller's git environment.

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use super::error::SnapshotError;
use super::git::{Captured, run};
use crate::paths;

/// Directories that are never source, excluded from every snapshot (besides the workspace's own
/// `.gitignore` files). `.verdict/` holds the snapshots themselves.
const EXCLUDES: &str = "\
# Written by verdict: paths that are never part of a workspace snapshot.
.verdict/
.git/
node_modules/
.venv/
__pycache__/
.pytest_cache/
.mypy_cache/
";

/// Attributes that make a snapshot hold a file's bytes exactly as they are on disk, whatever the
/// workspace's `.gitattributes` asks for: no end-of-line conversion, no clean/smudge filter (git
/// LFS among them), no `$Id$` expansion, no re-encoding. A restore then writes back the same bytes.
const ATTRIBUTES: &str = "\
# Written by verdict: snapshots store and restore files byte for byte.
* -text -filter -ident -working-tree-encoding
";

/// Configuration given on every git command line; it outranks anything in a config file.
const CONFIG: &[&str] = &[
    // Bytes in, the same bytes out (with `info/attributes`).
    "core.autocrlf=false",
    "core.safecrlf=false",
    // A repository config written by someone else must not start a process of its choosing.
    // Hooks need no such setting: none of the commands used here runs one.
    "core.fsmonitor=false",
    // Only the workspace's own ignore files count, not the user's global one.
    "core.excludesFile=/dev/null",
    "core.attributesFile=/dev/null",
    // Paths in the diff are quoted the way the guard's parser unquotes them.
    "core.quotePath=true",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "advice.addEmbeddedRepo=false",
    "gc.auto=0",
];

/// The identity and date of the commits that pin trees: fixed, so pinning a tree again under the
/// same name changes nothing.
const IDENTITY: &[(&str, &str)] = &[
    ("GIT_AUTHOR_NAME", "verdict"),
    ("GIT_AUTHOR_EMAIL", "verdict@localhost"),
    ("GIT_AUTHOR_DATE", "946684800 +0000"),
    ("GIT_COMMITTER_NAME", "verdict"),
    ("GIT_COMMITTER_EMAIL", "verdict@localhost"),
    ("GIT_COMMITTER_DATE", "946684800 +0000"),
];

/// The snapshot store of one workspace.
#[derive(Debug)]
pub struct Snapshots {
    pub(super) root: PathBuf,
    pub(super) git_dir: PathBuf,
    pub(super) index: PathBuf,
    pub(super) restore_index: PathBuf,
    pub(super) lock: PathBuf,
    /// Serialises the operations of this process; the lock file serialises processes.
    pub(super) serial: Mutex<()>,
}

impl Snapshots {
    /// The snapshot store of the workspace at `root`, created on first use.
    pub fn open(root: &Path) -> Result<Snapshots, SnapshotError> {
        let root = root.canonicalize().map_err(|source| SnapshotError::Io {
            action: "open workspace",
            path: root.to_owned(),
            source,
        })?;
        create_dir_all(&paths::dir(&root))?;
        let snapshots = Snapshots {
            git_dir: paths::snapshots(&root, "git"),
            index: paths::snapshots(&root, "index"),
            restore_index: paths::snapshots(&root, "restore.index"),
            lock: paths::snapshots(&root, "lock"),
            serial: Mutex::new(()),
            root,
        };
        snapshots.init()?;
        Ok(snapshots)
    }

    /// The workspace root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Creates the private repository if it is missing and writes its exclude and attribute files.
    pub(super) fn init(&self) -> Result<(), SnapshotError> {
        let _lock = self.lock()?;
        if !self.git_dir.join("HEAD").is_file() {
            let mut init = self.command(None);
            // No template: the sample hooks and description of a template are of no use here.
            init.args(["init", "--bare", "-q", "--template="])
                .arg(&self.git_dir);
            run(init, "git init --bare -q --template=", None, None)?;
        }
        // Written every time, so that a newer verdict's lists replace an older one's.
        let info = self.git_dir.join("info");
        create_dir_all(&info)?;
        // verdict's own directory, when `VERDICT_STATE_DIR` puts it in the tree under another
        // name than `.verdict/`.
        let mut excludes = EXCLUDES.to_owned();
        for name in paths::in_tree_names().iter().skip(1) {
            excludes.push_str(&format!("{}/\n", name.to_string_lossy()));
        }
        write(&info.join("exclude"), &excludes)?;
        write(&info.join("attributes"), ATTRIBUTES)?;
        // An index written by an older verdict may hold nested repositories as submodule
        // commits, which `add -A` would keep as they are; it is rebuilt instead (a cache only).
        if self.index.is_file() {
            let staged = self.git(&["ls-files", "--stage", "-z"], None, None)?;
            let gitlink = staged
                .stdout
                .split(|&b| b == 0)
                .any(|entry| entry.starts_with(b"160000 "));
            if gitlink {
                fs::remove_file(&self.index).map_err(|source| SnapshotError::Io {
                    action: "remove",
                    path: self.index.clone(),
                    source,
                })?;
            }
        }
        Ok(())
    }

    pub(super) fn git(
        &self,
        args: &[&str],
        index: Option<&Path>,
        limit: Option<usize>,
    ) -> Result<Captured, SnapshotError> {
        self.git_with(args, index, None, limit)
    }

    pub(super) fn git_with(
        &self,
        args: &[&str],
        index: Option<&Path>,
        input: Option<Vec<u8>>,
        limit: Option<usize>,
    ) -> Result<Captured, SnapshotError> {
        let mut command = self.command(Some(index.unwrap_or(&self.index)));
        command.args(args);
        let name = format!("git {}", args.join(" "));
        run(command, &name, input, limit)
    }

    /// A git command on the private repository and the workspace, with nothing of the caller's
    /// environment that could send it elsewhere. `index` is `None` only for `git init`.
    pub(super) fn command(&self, index: Option<&Path>) -> Command {
        let mut command = Command::new("git");
        for (key, _) in std::env::vars_os() {
            // Every `GIT_*` variable goes (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
            // GIT_OBJECT_DIRECTORY, GIT_NAMESPACE, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF …),
            // except the one that says where git's own programs are.
            if key.as_bytes().starts_with(b"GIT_") && key != "GIT_EXEC_PATH" {
                command.env_remove(key);
            }
        }
        if let Some(index) = index {
            let mut git_dir = OsString::from("--git-dir=");
            git_dir.push(&self.git_dir);
            let mut work_tree = OsString::from("--work-tree=");
            work_tree.push(&self.root);
            command.arg(git_dir).arg(work_tree);
            command.env("GIT_INDEX_FILE", index);
        }
        for setting in CONFIG {
            command.args(["-c", setting]);
        }
        command
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .envs(IDENTITY.iter().copied());
        command
    }
}

pub(super) fn create_dir_all(path: &Path) -> Result<(), SnapshotError> {
    fs::create_dir_all(path).map_err(|source| SnapshotError::Io {
        action: "create",
        path: path.to_owned(),
        source,
    })
}

pub(super) fn write(path: &Path, contents: &str) -> Result<(), SnapshotError> {
    fs::write(path, contents).map_err(|source| SnapshotError::Io {
        action: "write",
        path: path.to_owned(),
        source,
    })
}
