//! Names the build in `VERDICT_VERSION`: the crate's version, then the commit it was built from
//! when that is known, as `0.1.0 (0123456789ab)`. `verdict --version` prints it, and the caches
//! key on it, so that a pass recorded by one build is never replayed by another.
//!
//! The commit comes from `VERDICT_BUILD_COMMIT` (a release built from a source archive has no
//! `.git`), else from git when the crate sits in verdict's own checkout.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-env-changed=VERDICT_BUILD_COMMIT");
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets CARGO_PKG_VERSION");
    let commit = std::env::var("VERDICT_BUILD_COMMIT")
        .ok()
        .filter(|commit| !commit.trim().is_empty())
        .or_else(git_commit);
    let full = match commit {
        Some(commit) => format!("{version} ({})", commit.trim()),
        None => version,
    };
    println!("cargo::rustc-env=VERDICT_VERSION={full}");
}

/// `HEAD`'s commit, shortened to 12 digits, when the workspace root is the top of a git checkout.
fn git_commit() -> Option<String> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let root = manifest.parent()?;
    // A crate unpacked inside some other repository must not take that repository's commit.
    let top = git(root, &["rev-parse", "--show-toplevel"])?;
    if Path::new(&top).canonicalize().ok()? != root.canonicalize().ok()? {
        return None;
    }
    // Build again when HEAD moves: a commit, a checkout, a branch updated by a fetch.
    let git_dir = git(root, &["rev-parse", "--absolute-git-dir"])?;
    let common_dir = git(root, &["rev-parse", "--git-common-dir"])?;
    let common_dir = root.join(common_dir);
    let mut watched = vec![
        Path::new(&git_dir).join("HEAD"),
        common_dir.join("packed-refs"),
    ];
    if let Some(branch) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common_dir.join(branch));
    }
    for path in watched.iter().filter(|path| path.exists()) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    git(root, &["rev-parse", "--short=12", "HEAD"])
}

/// What `git ARGS` prints in `dir`, trimmed, when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}
