//! `cargo xtask schemas`: regenerates the JSON Schemas under `schemas/` from the Rust types that
//! write the `verdict-run/1` report and read verdict.toml (`verdict schema run|config`: the binary
//! owns those types). The CLI's tests fail while a checked-in schema
//! differs from what the types generate, naming this command.

use std::fs;

use anyhow::{Context, Result};

use crate::capture;

/// Each schema: the argument of `verdict schema`, and its file under `schemas/`.
pub(crate) const SCHEMAS: [(&str, &str); 2] = [
    ("run", "verdict-run-1.schema.json"),
    ("config", "verdict-toml.schema.json"),
];

/// Builds verdict and writes every schema.
pub(crate) fn run() -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let dir = capture::repo_root().join("schemas");
    fs::create_dir_all(&dir).with_context(|| format!("failed to create {}", dir.display()))?;
    for (which, file) in SCHEMAS {
        let text = duct::cmd!(
            &cargo,
            "run",
            "--quiet",
            "-p",
            "verdict-cli",
            "--",
            "schema",
            which
        )
        .dir(capture::repo_root())
        .read()
        .with_context(|| format!("`verdict schema {which}` failed"))?;
        let path = dir.join(file);
        fs::write(&path, format!("{}\n", text.trim_end()))
            .with_context(|| format!("failed to write {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
