//! `verdict list` and `verdict init`: what verdict detects in a project, shown or written down.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use verdict_core::verifier::{Applicability, Workspace};

use crate::config;
use crate::registry;
use crate::run::{load_config, usage};

/// Arguments of `verdict list`.
#[derive(clap::Args)]
pub(crate) struct ListArgs {
    /// The project [default: the directory of verdict.toml, else the current one]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Arguments of `verdict init`.
#[derive(clap::Args)]
pub(crate) struct InitArgs {
    /// Replace an existing verdict.toml
    #[arg(long)]
    force: bool,

    /// The project [default: the current directory]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints every known verifier, where it comes from, and whether it applies and why.
pub(crate) fn list(args: &ListArgs) -> Result<u8> {
    let (root, config) = load_config(args.dir.as_deref())?;
    let known = registry::all(&config, &root).map_err(|e| usage(format!("{e:#}")))?;
    let workspace = config.workspace(&root);
    let mut out = std::io::stdout().lock();
    match &config.path {
        Some(path) => writeln!(out, "config: {}", path.display())?,
        None => writeln!(out, "config: none (everything below is detected)")?,
    }
    let width = known
        .iter()
        .map(|k| k.verifier.name().len())
        .max()
        .unwrap_or(0);
    for k in &known {
        let name = k.verifier.name();
        let disabled = config.verifiers.get(name).and_then(|s| s.enabled) == Some(false);
        let (mark, reason) = match k.verifier.applies(&workspace) {
            _ if disabled => ("-", "disabled in verdict.toml".to_owned()),
            Applicability::Applies(reason) => ("✓", reason),
            Applicability::DoesNotApply(reason) => {
                if config.verifiers.get(name).and_then(|s| s.enabled) == Some(true) {
                    ("✓", format!("enabled in verdict.toml ({reason})"))
                } else {
                    (" ", reason)
                }
            }
        };
        writeln!(
            out,
            "{mark} {name:width$}  {:<7} {reason}  [{}]",
            k.verifier.kind().as_str(),
            k.origin.describe()
        )?;
    }
    let uncovered = crate::packages::uncovered(&root, &known);
    if !uncovered.is_empty() {
        writeln!(
            out,
            "workspace packages (not verified by `verdict run` here; run it in each):"
        )?;
        for package in &uncovered {
            writeln!(out, "  {}: {}", package.dir, package.verifiers.join(", "))?;
        }
    }
    Ok(0)
}

/// Writes a verdict.toml listing the verifiers detected in the project.
pub(crate) fn init(args: &InitArgs) -> Result<u8> {
    let root = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("failed to read the current directory")?,
    };
    let path = root.join("verdict.toml");
    if path.exists() && !args.force {
        bail!(usage(format!(
            "{} exists; `verdict init --force` replaces it",
            path.display()
        )));
    }
    // Detect with the built-in verifiers only: the file being written is the config.
    let known = registry::all(&config::Config::default_for(&root), &root)
        .map_err(|e| usage(format!("{e:#}")))?;
    let workspace = Workspace::new(&root);
    let detected: Vec<(String, String)> = known
        .iter()
        .filter_map(|k| match k.verifier.applies(&workspace) {
            Applicability::Applies(reason) => Some((k.verifier.name().to_owned(), reason)),
            Applicability::DoesNotApply(_) => None,
        })
        .collect();
    let text = config::render_init(&detected);
    std::fs::write(&path, text).with_context(|| format!("failed to write {}", path.display()))?;
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "wrote {} with {} detected verifier{}{}",
        path.display(),
        detected.len(),
        if detected.len() == 1 { "" } else { "s" },
        if detected.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                detected
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    )?;
    Ok(0)
}
