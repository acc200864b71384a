//! `cargo xtask plugin [--release]`: builds the example verifier plugin
//! (`verifiers/plugin-example`, the `git-diff-check` verifier) as a shared library and prints its
//! path, ready to be named in `verdict.toml`.
//!
//! The path is taken from cargo's own account of what it built (`--message-format=json`), so it is
//! right whatever the target directory or profile.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use crate::capture;

/// Builds the example plugin and returns the library's path.
pub(crate) fn build(release: bool) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut args = vec![
        "build",
        "-p",
        "verdict-plugin-example",
        "--message-format=json-render-diagnostics",
    ];
    if release {
        args.push("--release");
    }
    eprintln!("$ cargo {}", args.join(" "));
    // cargo's progress and diagnostics go to stderr as usual; its JSON messages come on stdout.
    let stdout = duct::cmd(&cargo, &args)
        .dir(capture::repo_root())
        .read()
        .context("cargo build -p verdict-plugin-example failed")?;
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact"
            || message["target"]["name"] != "verdict_plugin_example"
        {
            continue;
        }
        let library = message["filenames"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|name| name.as_str())
            .find(|name| name.ends_with(std::env::consts::DLL_SUFFIX));
        if let Some(library) = library {
            return Ok(PathBuf::from(library));
        }
    }
    bail!("cargo built verdict-plugin-example but reported no shared library")
}
