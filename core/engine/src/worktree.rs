//! Which git work tree a directory is in, and where git keeps that work tree's files, read from
//! the `.git` entry the way `git rev-parse --show-toplevel --git-dir --git-common-dir` reads it,
//! without spawning git (the hook and every run ask, and a process costs milliseconds).
//!
//! A checkout's `.git` is a directory, which is its git directory. A linked work tree's (`git
//! worktree add`) or a submodule's `.git` is a file, `gitdir: <path>`, a path that git writes
//! absolute and that may be relative to the directory holding the file. A linked work tree's git
//! directory (`<repo>/.git/worktrees/<name>`) names the repository's own in its `commondir` file;
//! two work trees are of the same repository when their common directories are the same.

use std::path::{Path, PathBuf};

/// A git work tree and where git keeps its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkTree {
    /// The top directory of the work tree (the one holding `.git`).
    pub top: PathBuf,
    /// Its own git directory: `<top>/.git` for a checkout, `<repo>/.git/worktrees/<name>` for a
    /// linked work tree.
    pub git_dir: PathBuf,
    /// The repository's git directory, shared by all its work trees.
    pub common_dir: PathBuf,
}

impl WorkTree {
    /// The work tree `dir` is in: the nearest directory at or above it holding `.git`. `None`
    /// outside a repository, or when that `.git` is a file that names no git directory there is.
    pub fn find(dir: &Path) -> Option<WorkTree> {
        let top = dir.ancestors().find(|d| d.join(".git").exists())?;
        WorkTree::at(top)
    }

    /// The work tree whose top is `top` (which holds `.git`).
    pub fn at(top: &Path) -> Option<WorkTree> {
        let dot_git = top.join(".git");
        let meta = std::fs::metadata(&dot_git).ok()?;
        let git_dir = if meta.is_dir() {
            dot_git
        } else {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let named = text
                .lines()
                .find_map(|line| line.strip_prefix("gitdir:"))?
                .trim();
            if named.is_empty() {
                return None;
            }
            // A relative path is taken from the directory holding the `.git` file.
            let dir = top.join(named);
            if !dir.is_dir() {
                return None;
            }
            dir
        };
        let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(text) if !text.trim().is_empty() => git_dir.join(text.trim()),
            _ => git_dir.clone(),
        };
        Some(WorkTree {
            top: top.to_path_buf(),
            git_dir: normalize(&git_dir),
            common_dir: normalize(&common_dir),
        })
    }

    /// Whether `other` is another work tree of the same repository (a linked work tree of it, or
    /// its main checkout).
    pub fn is_sibling_of(&self, other: &WorkTree) -> bool {
        same(&self.common_dir, &other.common_dir) && !same(&self.top, &other.top)
    }
}

/// `path` with its symbolic links resolved when it exists, so that two spellings of one directory
/// compare equal; else `path` with its `.` and `..` components removed.
fn normalize(path: &Path) -> PathBuf {
    if let Ok(real) = path.canonicalize() {
        return real;
    }
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether two paths name the same directory.
fn same(a: &Path, b: &Path) -> bool {
    normalize(a) == normalize(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkout_and_a_linked_work_tree_read_from_their_dot_git() {
        let temp = tempfile::tempdir().expect("a temp dir");
        let repo = temp.path().join("repo");
        let linked_git = repo.join(".git/worktrees/wt");
        std::fs::create_dir_all(&linked_git).expect("mkdir");
        std::fs::write(linked_git.join("commondir"), "../..\n").expect("commondir");
        let wt = temp.path().join("wt");
        std::fs::create_dir_all(wt.join("src")).expect("mkdir");
        // Relative, as `git worktree add --relative-paths` writes it.
        std::fs::write(wt.join(".git"), "gitdir: ../repo/.git/worktrees/wt\n").expect(".git");

        let main = WorkTree::find(&repo).expect("the checkout");
        assert_eq!(main.git_dir, normalize(&repo.join(".git")));
        assert_eq!(main.common_dir, main.git_dir);
        let linked = WorkTree::find(&wt.join("src")).expect("the linked work tree");
        assert_eq!(linked.top, wt);
        assert_eq!(linked.git_dir, normalize(&linked_git));
        assert_eq!(linked.common_dir, main.git_dir);
        assert!(linked.is_sibling_of(&main));
        assert!(!linked.is_sibling_of(&linked));

        // A `.git` file that names nothing there is no work tree.
        std::fs::write(wt.join(".git"), "gitdir: ../nowhere\n").expect(".git");
        assert_eq!(WorkTree::find(&wt), None);
        std::fs::write(wt.join(".git"), "garbage\n").expect(".git");
        assert_eq!(WorkTree::find(&wt), None);
    }
}
