//! The test runner of `cargo xtask test`: cargo-nextest, which runs every test in a process of its
//! own with the test binaries side by side, re-runs a failed test, and names a test that passed
//! only on a re-run as FLAKY (the default profile in `.config/nextest.toml`).
//!
//! A `cargo-nextest` on `PATH` or in the cargo home is used when it is at least the pinned
//! version; else the pinned version is installed from crates.io with `cargo install --locked`
//! into `target/verdict-tools/cargo-nextest/`, beside the other tools the tests run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The version installed when none fits; `.config/nextest.toml` requires at least this one.
const VERSION: &str = "0.9.143";

/// A cargo-nextest of at least [`VERSION`]: one already installed, else the pinned one installed
/// now under `tools`. Returns the executable.
pub(crate) fn install(tools: &Path) -> Result<PathBuf> {
    let root = tools.join("cargo-nextest");
    let pinned = root.join("bin").join("cargo-nextest");
    let candidates = std::iter::once(pinned.clone()).chain(installed());
    for program in candidates {
        if version(&program).is_some_and(|v| v >= parse(VERSION).unwrap_or_default()) {
            return Ok(program);
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let root_arg = root.display().to_string();
    let args = [
        "install",
        "cargo-nextest",
        "--locked",
        "--version",
        VERSION,
        "--root",
        &root_arg,
    ];
    eprintln!("$ cargo {}", args.join(" "));
    duct::cmd(&cargo, args)
        .stdout_to_stderr()
        .run()
        .context("failed to install cargo-nextest")?;
    match version(&pinned) {
        Some(_) => Ok(pinned),
        None => bail!("{} does not run after its install", pinned.display()),
    }
}

/// Every `cargo-nextest` on `PATH`, then in the cargo home.
fn installed() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect())
        .unwrap_or_default();
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")));
    dirs.extend(cargo_home.map(|home| home.join("bin")));
    dirs.into_iter()
        .map(|dir| dir.join("cargo-nextest"))
        .filter(|program| program.is_file())
        .collect()
}

/// The version `program` reports (`cargo-nextest 0.9.143 (…)`), if it runs.
fn version(program: &Path) -> Option<(u64, u64, u64)> {
    if !program.is_file() {
        return None;
    }
    let out = duct::cmd(program, ["nextest", "--version"])
        .stderr_null()
        .read()
        .ok()?;
    let word = out.lines().next()?.split_whitespace().nth(1)?;
    parse(word)
}

/// `0.9.143` as numbers (a pre-release suffix is ignored).
fn parse(version: &str) -> Option<(u64, u64, u64)> {
    let core = version.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// `PATH` with `program`'s directory first, so that the tests that run cargo-nextest on fixture
/// projects find the same one.
pub(crate) fn path_with(program: &Path) -> Result<OsString> {
    let mut dirs: Vec<PathBuf> = program
        .parent()
        .map(Path::to_path_buf)
        .into_iter()
        .collect();
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).context("failed to build PATH")
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn versions_compare_as_numbers() {
        assert_eq!(parse("0.9.143"), Some((0, 9, 143)));
        assert_eq!(parse("0.9.150-rc.1"), Some((0, 9, 150)));
        assert!(parse("0.9.99") < parse("0.9.143"));
        assert_eq!(parse("0.9"), None);
    }
}
