//! `cargo xtask tools`: installs the real tools the test suite runs — the pinned npm tools with
//! the Node.js they need, and a Python venv with pytest — into `target/verdict-tools/`, outside
//! the tracked tree. `cargo xtask test` calls it first and hands the path to the tests in
//! `VERDICT_TOOLS`.
//!
//! The versions are the ones `cargo xtask capture` pins (`xtask/capture/package.json`, its lock
//! file, and `xtask/capture/requirements.txt`), so the tests run the same tools the captured logs
//! came from. Each install is skipped when its pins are unchanged since the last one.

use std::fs;
use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::capture;

/// Where the tools go: `target/verdict-tools` in the repository.
pub(crate) fn root() -> PathBuf {
    capture::repo_root().join("target/verdict-tools")
}

/// Installs everything; returns the root.
pub(crate) fn install() -> Result<PathBuf> {
    let root = root();
    fs::create_dir_all(&root).with_context(|| format!("failed to create {}", root.display()))?;
    capture::install_node(&root)?;
    capture::install_python(&root)?;
    Ok(root)
}
