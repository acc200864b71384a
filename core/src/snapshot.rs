//! Snapshots of a workspace for the retry loop: did an attempt change anything, what did it change
//! (the unified diff the cheating guard reads), and putting the starting state back (`--reset`).
//!
//! A snapshot is a git tree in a private bare repository, `<root>/.verdict/snapshots.git`, written
//! through a private index, `<root>/.verdict/snapshots.index`. Every git command runs with
//! `--git-dir` pointing there and `--work-tree` at the root, so it works the same whether or not
//! the workspace is itself a git repository, and the user's own repository (its HEAD, index,
//! branches, stash, config) is never read or written. The index is kept between calls: git's stat
//! cache means a second snapshot of a large tree only `stat`s unchanged files. A [`TreeId`] is a
//! plain string, so the loop stores it in its database and `--resume` finds the same tree after
//! the process was killed; [`Snapshots::pin`] gives it a ref so no `git gc` ever drops it.
//!
//! What a snapshot holds: every file git would see as untracked or tracked under the root, with
//! its bytes exactly (no line-ending conversion, no clean/smudge filter: `info/attributes` of the
//! private repository turns them off), its executable bit, and symlinks as links. What it leaves
//! out: files ignored by the workspace's own `.gitignore` files (at or below the root), and
//! `.verdict/`, `node_modules/`, `.venv/`, `__pycache__/`, `.pytest_cache/`, `.mypy_cache/` and
//! `.git/` anywhere (the private repository's `info/exclude`). Ignored files are neither compared
//! nor restored nor removed. The user's global git configuration and global ignore file are not
//! read, so a snapshot does not depend on whose machine takes it. Directories are not recorded, so
//! an empty directory is neither compared nor restored.
//!
//! A nested git repository (a directory with its own `.git`: a vendored library, a submodule's
//! checkout) is snapshotted as ordinary files, its own `.gitignore` honoured and its `.git` left
//! out. `git add` alone would record it as a submodule's commit — blind to every uncommitted
//! change in it, and failing outright on a repository without a commit — so before it runs, each
//! nested repository `git ls-files --others` reports gets a placeholder entry in the private index
//! ([`NESTED_SEED`], a path that does not exist): a directory the index holds entries under is
//! walked as a plain directory, and `add -A` then stages its files and drops the placeholder. A
//! restore writes its files back like any other; the nested repository's own history, index and
//! branches are not part of a snapshot and are never touched.
//!
//! Each operation holds a lock (`.verdict/snapshots.lock`, holding the owner's pid and start
//! time) so that two processes never share the index; a lock whose owner is gone is taken over,
//! and with it any `index.lock` git left behind when it was killed.
//!
//! Git runs from `std::process::Command` with an argv (never a shell), stdin, stdout and stderr
//! piped and drained on their own threads, and an environment cleared of every `GIT_*` variable
//! that could redirect it. The module is synchronous; the loop calls it through `spawn_blocking`.
//! It is the one place besides [`crate::process`] that spawns a process: git plumbing that runs
//! for milliseconds, in the workspace, with nothing to time out, cancel or log — the runner's
//! process groups and run logs would add nothing but an async boundary.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The most of a diff [`Snapshots::diff`] returns; the rest is cut at a line boundary.
pub const DIFF_LIMIT: usize = 8 * 1024 * 1024;

/// How long an operation waits for another process's lock before giving up.
const LOCK_WAIT: Duration = Duration::from_secs(30);
/// How often a held lock is looked at again.
const LOCK_POLL: Duration = Duration::from_millis(20);
/// The most of git's stderr kept for an error message.
const STDERR_LIMIT: usize = 64 * 1024;
/// How many lines of git's stderr an error message quotes.
const STDERR_LINES: usize = 5;
/// How many differing paths a failed restore names.
const RESTORE_PATHS: usize = 10;

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

/// Why a snapshot operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// `git` could not be started.
    #[error("git is needed for snapshots: {0}")]
    GitMissing(#[source] io::Error),
    /// A git command failed.
    #[error("`{command}` failed ({status}): {stderr}")]
    Git {
        /// The command, without the options every call shares (`git add -A`).
        command: String,
        /// How it ended (`exit status 128`).
        status: String,
        /// The first lines of what it printed on stderr.
        stderr: String,
    },
    /// A git command printed something this module does not understand.
    #[error("unexpected output from `{command}`: {output}")]
    Output {
        /// The command.
        command: String,
        /// What it printed (the start of it).
        output: String,
    },
    /// A file of the workspace or of the snapshot store could not be read or written.
    #[error("failed to {action} {path}: {source}", path = .path.display())]
    Io {
        /// What was being done (`remove`, `create`).
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// Not a tree id.
    #[error("invalid tree id `{0}`: expected 40 or 64 hexadecimal digits")]
    InvalidTreeId(String),
    /// Not a name [`Snapshots::pin`] accepts.
    #[error(
        "invalid pin name `{0}`: expected `/`-separated parts of letters, digits, `_`, `-` and `.`"
    )]
    InvalidName(String),
    /// The tree is not in the snapshot store.
    #[error("no snapshot tree {tree} in {git_dir}", git_dir = .git_dir.display())]
    UnknownTree {
        /// The tree asked for.
        tree: TreeId,
        /// The private repository looked in.
        git_dir: PathBuf,
    },
    /// After a restore the workspace still differs from the tree.
    #[error("restoring tree {tree} left these paths different: {}", .paths.join(", "))]
    RestoreIncomplete {
        /// The tree that was restored.
        tree: TreeId,
        /// Some of the paths that still differ.
        paths: Vec<String>,
    },
    /// Another process held the snapshot lock for too long.
    #[error(
        "snapshots are locked by process {pid} ({lock}); remove the file if no verdict runs there",
        lock = .lock.display()
    )]
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// The pid written in it.
        pid: i32,
    },
}

/// The id of a snapshot: a git tree id (40 hexadecimal digits, or 64 in a SHA-256 repository),
/// stored by the loop as a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct TreeId(String);

impl TreeId {
    /// Checks that `id` is a full tree id (hexadecimal, either case; kept in lower case).
    pub fn new(id: String) -> Result<TreeId, SnapshotError> {
        let valid = matches!(id.len(), 40 | 64) && id.bytes().all(|b| b.is_ascii_hexdigit());
        if !valid {
            return Err(SnapshotError::InvalidTreeId(id));
        }
        Ok(TreeId(id.to_ascii_lowercase()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TreeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for TreeId {
    type Error = SnapshotError;

    fn try_from(id: String) -> Result<TreeId, SnapshotError> {
        TreeId::new(id)
    }
}

impl From<TreeId> for String {
    fn from(id: TreeId) -> String {
        id.0
    }
}

/// A unified diff between two snapshots, as `git diff` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// The diff (`diff --git a/… b/…` headers, `@@` hunks; bytes that are not UTF-8 replaced).
    /// When [`Diff::truncated`], it ends at the last whole line within [`DIFF_LIMIT`].
    pub text: String,
    /// Whether the diff was longer than [`DIFF_LIMIT`] and cut.
    pub truncated: bool,
}

/// What [`Snapshots::restore`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Restored {
    /// Paths written back: changed, deleted or changed in type since the tree.
    pub restored: usize,
    /// Paths removed: added since the tree.
    pub removed: usize,
}

/// The snapshot store of one workspace.
#[derive(Debug)]
pub struct Snapshots {
    root: PathBuf,
    git_dir: PathBuf,
    index: PathBuf,
    restore_index: PathBuf,
    lock: PathBuf,
    /// Serialises the operations of this process; the lock file serialises processes.
    serial: Mutex<()>,
}

impl Snapshots {
    /// The snapshot store of the workspace at `root`, created on first use.
    pub fn open(root: &Path) -> Result<Snapshots, SnapshotError> {
        let root = root.canonicalize().map_err(|source| SnapshotError::Io {
            action: "open workspace",
            path: root.to_owned(),
            source,
        })?;
        let dir = root.join(".verdict");
        create_dir_all(&dir)?;
        let snapshots = Snapshots {
            git_dir: dir.join("snapshots.git"),
            index: dir.join("snapshots.index"),
            restore_index: dir.join("snapshots.restore.index"),
            lock: dir.join("snapshots.lock"),
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

    /// A snapshot of the workspace as it is now. The same content gives the same id.
    pub fn take(&self) -> Result<TreeId, SnapshotError> {
        let _lock = self.lock()?;
        self.take_locked()
    }

    /// Gives `tree` the ref `refs/verdict/<name>` (through a commit), so that it is kept for as
    /// long as the store exists, whatever `git gc` runs. Pinning again under a name moves it.
    pub fn pin(&self, tree: &TreeId, name: &str) -> Result<(), SnapshotError> {
        if !valid_pin_name(name) {
            return Err(SnapshotError::InvalidName(name.to_owned()));
        }
        let _lock = self.lock()?;
        self.check_tree(tree)?;
        let message = format!("verdict snapshot {name}");
        let commit = self.git(&["commit-tree", tree.as_str(), "-m", &message], None, None)?;
        let commit = String::from_utf8_lossy(&commit.stdout).trim().to_owned();
        let reference = format!("refs/verdict/{name}");
        self.git(&["update-ref", &reference, &commit], None, None)?;
        Ok(())
    }

    /// The unified diff from `from` to `to` (renames detected), at most [`DIFF_LIMIT`] bytes of it.
    pub fn diff(&self, from: &TreeId, to: &TreeId) -> Result<Diff, SnapshotError> {
        let _lock = self.lock()?;
        self.check_tree(from)?;
        self.check_tree(to)?;
        let output = self.git(
            &[
                "diff-tree",
                "-r",
                "-p",
                "-M",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                from.as_str(),
                to.as_str(),
            ],
            None,
            Some(DIFF_LIMIT),
        )?;
        let mut bytes = output.stdout;
        if output.truncated {
            let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            bytes.truncate(end);
        }
        Ok(Diff {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            truncated: output.truncated,
        })
    }

    /// The paths (`/`-separated, relative to the root; bytes that are not UTF-8 replaced) that
    /// differ between `from` and `to`: added, deleted, or changed in content, mode or type.
    pub fn changed_paths(&self, from: &TreeId, to: &TreeId) -> Result<Vec<String>, SnapshotError> {
        let _lock = self.lock()?;
        self.changed_paths_locked(from, to)
    }

    /// Makes the workspace equal `tree`: files changed or deleted since come back (content,
    /// executable bit, symlinks as symlinks), files added since are removed together with the
    /// directories they leave empty. Ignored files are not touched. Checks the result with a new
    /// snapshot and fails naming what still differs.
    pub fn restore(&self, tree: &TreeId) -> Result<Restored, SnapshotError> {
        let _lock = self.lock()?;
        self.check_tree(tree)?;
        let now = self.take_locked()?;
        if now == *tree {
            return Ok(Restored::default());
        }
        let raw = self.git(
            &[
                "diff-tree",
                "-r",
                "-z",
                "--raw",
                "--no-renames",
                tree.as_str(),
                now.as_str(),
            ],
            None,
            None,
        )?;
        let changes = parse_raw(&raw.stdout).ok_or_else(|| SnapshotError::Output {
            command: "git diff-tree -r -z --raw".to_owned(),
            output: String::from_utf8_lossy(&raw.stdout[..raw.stdout.len().min(200)]).into_owned(),
        })?;

        // Whatever stands where the tree has something else goes first: a file where the tree
        // has a directory, a symlink where it has a directory of files.
        let mut removed = 0;
        let mut checkout = Vec::new();
        let mut emptied = BTreeSet::new();
        for change in &changes {
            let path = Path::new(OsStr::from_bytes(&change.path));
            match change.status {
                b'A' => {
                    self.remove(path, change.now_mode)?;
                    removed += 1;
                    emptied.extend(path.ancestors().skip(1).map(Path::to_owned));
                }
                b'T' => {
                    self.remove(path, change.now_mode)?;
                    checkout.push(change.path.as_slice());
                }
                b'D' | b'M' => checkout.push(change.path.as_slice()),
                _ => {
                    return Err(SnapshotError::Output {
                        command: "git diff-tree -r -z --raw".to_owned(),
                        output: format!("status {}", char::from(change.status)),
                    });
                }
            }
        }
        // Deepest first, so a parent is tried once its children are gone; a directory still
        // holding something (an ignored file) stays.
        let mut emptied: Vec<PathBuf> = emptied
            .into_iter()
            .filter(|dir| !dir.as_os_str().is_empty())
            .collect();
        emptied.sort_by_key(|dir| std::cmp::Reverse(dir.components().count()));
        for dir in emptied {
            let _ = fs::remove_dir(self.root.join(dir));
        }

        if !checkout.is_empty() {
            // A separate index holding the tree, so the stat cache of the snapshot index is kept.
            let _ = fs::remove_file(&self.restore_index);
            let index = Some(self.restore_index.as_path());
            self.git(&["read-tree", tree.as_str()], index, None)?;
            let mut input = Vec::new();
            for path in &checkout {
                input.extend_from_slice(path);
                input.push(0);
            }
            let result = self.git_with(
                &["checkout-index", "-f", "-z", "--stdin"],
                index,
                Some(input),
                None,
            );
            let _ = fs::remove_file(&self.restore_index);
            result?;
        }

        let after = self.take_locked()?;
        if after != *tree {
            let mut paths = self.changed_paths_locked(tree, &after)?;
            paths.truncate(RESTORE_PATHS);
            return Err(SnapshotError::RestoreIncomplete {
                tree: tree.clone(),
                paths,
            });
        }
        Ok(Restored {
            restored: checkout.len(),
            removed,
        })
    }

    /// Creates the private repository if it is missing and writes its exclude and attribute files.
    fn init(&self) -> Result<(), SnapshotError> {
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
        write(&info.join("exclude"), EXCLUDES)?;
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

    fn take_locked(&self) -> Result<TreeId, SnapshotError> {
        self.open_nested_repositories()?;
        self.git(&["add", "-A", "--", "."], None, None)?;
        let output = self.git(&["write-tree"], None, None)?;
        let id = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        TreeId::new(id).map_err(|e| SnapshotError::Output {
            command: "git write-tree".to_owned(),
            output: e.to_string(),
        })
    }

    /// Gives each nested repository the private index does not hold files of a placeholder entry,
    /// so that the `add -A` that follows stages its files instead of a submodule's commit (see the
    /// module docs). Nested repositories inside those show up once their parent is opened.
    fn open_nested_repositories(&self) -> Result<(), SnapshotError> {
        let mut empty_blob: Option<String> = None;
        for _ in 0..NESTED_DEPTH {
            let others = self.git(
                &["ls-files", "--others", "--exclude-standard", "-z"],
                None,
                None,
            )?;
            // Git lists a nested repository as its directory, with a trailing slash; untracked
            // files and the files of plain untracked directories are listed one by one.
            let nested: Vec<&[u8]> = others
                .stdout
                .split(|&b| b == 0)
                .filter(|path| path.ends_with(b"/"))
                .collect();
            if nested.is_empty() {
                return Ok(());
            }
            let blob = match &empty_blob {
                Some(blob) => blob.clone(),
                None => {
                    let output = self.git_with(
                        &["hash-object", "-w", "--stdin"],
                        None,
                        Some(Vec::new()),
                        None,
                    )?;
                    let blob = String::from_utf8_lossy(&output.stdout).trim().to_owned();
                    empty_blob = Some(blob.clone());
                    blob
                }
            };
            let mut input = Vec::new();
            for dir in nested {
                input.extend_from_slice(format!("100644 {blob}\t").as_bytes());
                input.extend_from_slice(dir);
                input.extend_from_slice(NESTED_SEED.as_bytes());
                input.push(0);
            }
            self.git_with(
                &["update-index", "-z", "--index-info"],
                None,
                Some(input),
                None,
            )?;
        }
        Ok(())
    }

    fn changed_paths_locked(
        &self,
        from: &TreeId,
        to: &TreeId,
    ) -> Result<Vec<String>, SnapshotError> {
        self.check_tree(from)?;
        self.check_tree(to)?;
        let output = self.git(
            &[
                "diff-tree",
                "-r",
                "-z",
                "--name-only",
                "--no-renames",
                from.as_str(),
                to.as_str(),
            ],
            None,
            None,
        )?;
        Ok(output
            .stdout
            .split(|&b| b == 0)
            .filter(|path| !path.is_empty())
            .map(|path| String::from_utf8_lossy(path).into_owned())
            .collect())
    }

    /// Fails with [`SnapshotError::UnknownTree`] unless `tree` is a tree of the store.
    fn check_tree(&self, tree: &TreeId) -> Result<(), SnapshotError> {
        let kind = self.git(&["cat-file", "-t", tree.as_str()], None, None);
        match kind {
            Ok(output) if output.stdout.trim_ascii() == b"tree" => Ok(()),
            Ok(_) | Err(SnapshotError::Git { .. }) => Err(SnapshotError::UnknownTree {
                tree: tree.clone(),
                git_dir: self.git_dir.clone(),
            }),
            Err(error) => Err(error),
        }
    }

    /// Removes what stands at `path` now: a file or symlink, or a nested repository (a directory).
    fn remove(&self, path: &Path, mode: u32) -> Result<(), SnapshotError> {
        let full = self.root.join(path);
        let result = if mode == GITLINK {
            fs::remove_dir_all(&full)
        } else {
            fs::remove_file(&full)
        };
        match result {
            Err(source) if source.kind() != io::ErrorKind::NotFound => Err(SnapshotError::Io {
                action: "remove",
                path: full,
                source,
            }),
            _ => Ok(()),
        }
    }

    fn git(
        &self,
        args: &[&str],
        index: Option<&Path>,
        limit: Option<usize>,
    ) -> Result<Captured, SnapshotError> {
        self.git_with(args, index, None, limit)
    }

    fn git_with(
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
    fn command(&self, index: Option<&Path>) -> Command {
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

    /// Takes the lock of the store: this process's mutex, then the lock file, waiting for another
    /// process that holds it and taking over one whose owner is gone.
    fn lock(&self) -> Result<StoreLock<'_>, SnapshotError> {
        static TEMP: AtomicU64 = AtomicU64::new(0);
        let serial = self.serial.lock().unwrap_or_else(PoisonError::into_inner);
        let pid = std::process::id();
        let start = crate::state::process_start_time(pid as i32).unwrap_or(0);
        let deadline = Instant::now() + LOCK_WAIT;
        let dir = self.lock.parent().unwrap_or(&self.root);
        loop {
            // Written whole under a name of its own, then linked into place: the lock file is
            // never seen empty or half written.
            let temp = dir.join(format!(
                "snapshots.lock.{pid}.{}",
                TEMP.fetch_add(1, Ordering::Relaxed)
            ));
            write(&temp, &format!("{pid} {start}\n"))?;
            let linked = fs::hard_link(&temp, &self.lock);
            let _ = fs::remove_file(&temp);
            match linked {
                Ok(()) => break,
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
                Err(source) => {
                    return Err(SnapshotError::Io {
                        action: "create",
                        path: self.lock.clone(),
                        source,
                    });
                }
            }
            let text = match fs::read_to_string(&self.lock) {
                Ok(text) => text,
                // Released meanwhile: try again at once.
                Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(SnapshotError::Io {
                        action: "read",
                        path: self.lock.clone(),
                        source,
                    });
                }
            };
            // A lock file is linked into place whole, so one that cannot be read as a pid was
            // damaged (a crash before its data reached the disk) and is as stale as one whose
            // owner is gone. Two processes taking over the same stale lock at the same moment
            // could both succeed; that needs two loops on one workspace right after a crash.
            let owner = parse_lock(&text);
            let Some(owner) = owner.filter(|&(pid, start)| alive(pid, start)) else {
                if Instant::now() > deadline {
                    return Err(SnapshotError::Busy {
                        lock: self.lock.clone(),
                        pid: owner.map_or(0, |(pid, _)| pid),
                    });
                }
                let _ = fs::remove_file(&self.lock);
                continue;
            };
            if Instant::now() > deadline {
                return Err(SnapshotError::Busy {
                    lock: self.lock.clone(),
                    pid: owner.0,
                });
            }
            thread::sleep(LOCK_POLL);
        }
        // Holding the lock, nobody else uses the indexes: a lock git left on them was left by a
        // git that was killed, and would make every later call fail.
        for index in [&self.index, &self.restore_index] {
            let mut stale = index.clone().into_os_string();
            stale.push(".lock");
            let _ = fs::remove_file(stale);
        }
        Ok(StoreLock {
            path: &self.lock,
            _serial: serial,
        })
    }
}

/// The held lock of a store; dropping it releases it.
struct StoreLock<'a> {
    path: &'a Path,
    _serial: MutexGuard<'a, ()>,
}

impl Drop for StoreLock<'_> {
    fn drop(&mut self) {
        let _ = fs::remove_file(self.path);
    }
}

/// The pid and start time written in a lock file.
fn parse_lock(text: &str) -> Option<(i32, u64)> {
    let mut fields = text.split_whitespace();
    let pid = fields.next()?.parse().ok()?;
    let start = fields.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    Some((pid, start))
}

/// Whether the process that wrote a lock still runs (a later process given the same pid, told
/// apart by its start time where `/proc` has it, does not count).
fn alive(pid: i32, start: u64) -> bool {
    let Some(process) = rustix::process::Pid::from_raw(pid) else {
        return false;
    };
    match rustix::process::test_kill_process(process) {
        Ok(()) | Err(rustix::io::Errno::PERM) => {}
        Err(_) => return false,
    }
    match crate::state::process_start_time(pid) {
        Some(now) if start != 0 => now == start,
        _ => true,
    }
}

/// A name for `refs/verdict/<name>`: `/`-separated parts of `[A-Za-z0-9_.-]`, none empty, none
/// starting with `.` or ending with `.lock`.
fn valid_pin_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('/').all(|part| {
            !part.is_empty()
                && !part.starts_with('.')
                && !part.ends_with(".lock")
                && !part.contains("..")
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        })
}

/// The mode git gives a nested repository (a submodule's commit).
const GITLINK: u32 = 0o160000;

/// The name of the placeholder entry that makes git walk a nested repository as a plain directory
/// (see the module docs). It never exists on disk, so the `add -A` that follows removes it.
const NESTED_SEED: &str = ".verdict-nested-repository";

/// How deep nested repositories inside nested repositories are opened up.
const NESTED_DEPTH: usize = 16;

/// One line of `git diff-tree -r -z --raw --no-renames <tree> <now>`.
#[derive(Debug)]
struct RawChange {
    /// The mode in the workspace now (0: absent).
    now_mode: u32,
    /// `A`, `D`, `M` or `T`, from the tree to now.
    status: u8,
    path: Vec<u8>,
}

/// Reads `:<mode> <mode> <id> <id> <status>\0<path>\0` records; `None` on anything else.
fn parse_raw(output: &[u8]) -> Option<Vec<RawChange>> {
    let mut fields = output.split(|&b| b == 0);
    let mut changes = Vec::new();
    while let Some(meta) = fields.next() {
        if meta.is_empty() {
            continue;
        }
        let meta = std::str::from_utf8(meta.strip_prefix(b":")?).ok()?;
        let parts: Vec<&str> = meta.split(' ').collect();
        let [_, now_mode, _, _, status] = parts.as_slice() else {
            return None;
        };
        let now_mode = u32::from_str_radix(now_mode, 8).ok()?;
        let status = *status.as_bytes().first()?;
        let path = fields.next()?.to_vec();
        changes.push(RawChange {
            now_mode,
            status,
            path,
        });
    }
    Some(changes)
}

/// What a git command printed on stdout.
struct Captured {
    stdout: Vec<u8>,
    /// Whether stdout was cut at the limit (the command was then stopped).
    truncated: bool,
}

/// Runs `command` (named `name` in errors), feeding it `input`, keeping at most `limit` bytes of
/// its stdout. Stdin and stderr are served by threads of their own, so a full pipe never blocks.
fn run(
    mut command: Command,
    name: &str,
    input: Option<Vec<u8>>,
    limit: Option<usize>,
) -> Result<Captured, SnapshotError> {
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|source| {
        if source.kind() == io::ErrorKind::NotFound {
            SnapshotError::GitMissing(source)
        } else {
            SnapshotError::Io {
                action: "start",
                path: PathBuf::from("git"),
                source,
            }
        }
    })?;
    let writer = match (input, child.stdin.take()) {
        (Some(input), Some(mut stdin)) => Some(thread::spawn(move || {
            // A git that stops reading early is reported by its exit status, not here.
            let _ = stdin.write_all(&input);
        })),
        _ => None,
    };
    let reader = child.stderr.take().map(|stderr| {
        thread::spawn(move || {
            let mut kept = Vec::new();
            let mut stderr = stderr;
            let _ = (&mut stderr)
                .take(STDERR_LIMIT as u64)
                .read_to_end(&mut kept);
            // The rest is read and dropped: a git blocked on a full pipe would never exit.
            let _ = io::copy(&mut stderr, &mut io::sink());
            kept
        })
    });
    let mut stdout = Vec::new();
    let mut truncated = false;
    if let Some(out) = child.stdout.take() {
        let cap = limit.map_or(u64::MAX, |l| l as u64 + 1);
        let read = out.take(cap).read_to_end(&mut stdout);
        if let Some(limit) = limit
            && stdout.len() > limit
        {
            stdout.truncate(limit);
            truncated = true;
            let _ = child.kill();
        }
        read.map_err(|source| SnapshotError::Io {
            action: "read the output of",
            path: PathBuf::from(name),
            source,
        })?;
    }
    let status = child.wait().map_err(|source| SnapshotError::Io {
        action: "wait for",
        path: PathBuf::from(name),
        source,
    })?;
    if let Some(writer) = writer {
        let _ = writer.join();
    }
    let stderr = reader.and_then(|r| r.join().ok()).unwrap_or_default();
    if !status.success() && !truncated {
        let stderr = String::from_utf8_lossy(&stderr);
        let lines: Vec<&str> = stderr
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(STDERR_LINES)
            .collect();
        return Err(SnapshotError::Git {
            command: name.to_owned(),
            status: status.to_string(),
            stderr: if lines.is_empty() {
                "nothing on stderr".to_owned()
            } else {
                lines.join(" / ")
            },
        });
    }
    Ok(Captured { stdout, truncated })
}

fn create_dir_all(path: &Path) -> Result<(), SnapshotError> {
    fs::create_dir_all(path).map_err(|source| SnapshotError::Io {
        action: "create",
        path: path.to_owned(),
        source,
    })
}

fn write(path: &Path, contents: &str) -> Result<(), SnapshotError> {
    fs::write(path, contents).map_err(|source| SnapshotError::Io {
        action: "write",
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_ids_are_checked_and_lowercased() {
        let upper = "4B825DC642CB6EB9A060E54BF8D69288FBEE4904".to_owned();
        let id = TreeId::new(upper).expect("valid");
        assert_eq!(id.as_str(), "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
        assert!(TreeId::new("4b825dc".to_owned()).is_err());
        assert!(TreeId::new("z".repeat(40)).is_err());
        assert!(TreeId::new("a".repeat(64)).is_ok());
        let json = serde_json::to_string(&id).expect("serializes");
        assert_eq!(json, "\"4b825dc642cb6eb9a060e54bf8d69288fbee4904\"");
        assert!(serde_json::from_str::<TreeId>("\"nope\"").is_err());
    }

    #[test]
    fn pin_names() {
        assert!(valid_pin_name("runs/12/start"));
        assert!(valid_pin_name("start-1.x"));
        for bad in [
            "", "a//b", ".a", "a/.b", "a.lock", "a..b", "a b", "a~1", "/a", "a/",
        ] {
            assert!(!valid_pin_name(bad), "{bad}");
        }
    }

    #[test]
    fn raw_records() {
        let z = b":000000 100644 0000 1111 A\0new file\0:100644 100755 1111 2222 M\0x\0";
        let changes = parse_raw(z).expect("parses");
        assert_eq!(changes.len(), 2);
        assert_eq!(changes[0].status, b'A');
        assert_eq!(changes[0].path, b"new file");
        assert_eq!(changes[1].now_mode, 0o100755);
        assert!(parse_raw(b"garbage\0x\0").is_none());
    }
}
