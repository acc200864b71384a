//! Snapshots of a workspace for the retry loop: did an attempt change anything, what did it change
//! (the unified diff the cheating guard reads), and putting the starting state back (`--reset`);
//! for the session-start hook, a tree written out into a directory of its own
//! ([`Snapshots::export`]).
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
//! (`.verdict-nested-repository`, a path that does not exist): a directory the index holds entries
//! under is walked as a plain directory, and `add -A` then stages its files and drops the
//! placeholder. A restore writes its files back like any other; the nested repository's own
//! history, index and branches are not part of a snapshot and are never touched.
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

mod diff;
mod error;
mod export;
mod git;
mod lock;
mod read;
mod restore;
mod store;
mod take;
mod tree;

pub use diff::DIFF_LIMIT;
pub use error::SnapshotError;
pub use store::Snapshots;
pub use tree::{Diff, Restored, TreeId};
