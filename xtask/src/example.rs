//! `cargo xtask example`: installs what the example project needs (its npm packages from its own
//! lock file, and a `.venv` with pytest), then runs `verdict run` on it — the README's main job.
//!
//! The example, `examples/polyglot/`, has deliberate failures in TypeScript (tsc), JavaScript
//! (eslint, jest) and Python (pytest), so the run exits 1 and the digest shows each of them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::capture;

/// The example project.
pub(crate) fn dir() -> PathBuf {
    capture::repo_root().join("examples/polyglot")
}

/// Installs the example's tools (each skipped when its pins are unchanged since the last install).
pub(crate) fn install(dir: &Path) -> Result<()> {
    let lock = fs::read(dir.join("package-lock.json")).context("read the example's lock file")?;
    let stamp = dir.join("node_modules/.verdict-lock");
    if fs::read(&stamp).ok().as_deref() != Some(&lock[..]) {
        eprintln!(
            "installing the example's npm packages into {}",
            dir.display()
        );
        duct::cmd!("npm", "install", "--no-audit", "--no-fund")
            .dir(dir)
            .stdout_to_stderr()
            .run()
            .context("npm install failed (is Node.js with npm installed?)")?;
        fs::write(stamp, lock)?;
    }
    capture::install_venv(&dir.join("requirements.txt"), &dir.join(".venv"))
}

/// Installs, then runs `verdict run` (release build) with `args`, and returns its exit code.
pub(crate) fn run(args: &[String]) -> Result<ExitCode> {
    let dir = dir();
    install(&dir)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut argv: Vec<String> = [
        "run",
        "--quiet",
        "--release",
        "-p",
        "verdict-cli",
        "--",
        "run",
        "-C",
    ]
    .map(str::to_owned)
    .to_vec();
    argv.push(dir.to_string_lossy().into_owned());
    argv.extend(args.iter().cloned());
    let status = duct::cmd(&cargo, &argv)
        .dir(capture::repo_root())
        .unchecked()
        .run()
        .context("failed to run verdict")?
        .status;
    Ok(ExitCode::from(
        status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(2),
    ))
}
