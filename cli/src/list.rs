//! `verdict list` and `verdict init`: what verdict detects in a project, shown or written down.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use verdict_core::verifier::{Applicability, Workspace};

use crate::config;
use crate::exit::ExitCode;
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

/// What `verdict list` shows: the config file, every known verifier, and the workspace
/// packages a run at this root leaves out.
pub(crate) struct Listing {
    /// The configuration file in force, if any.
    pub(crate) config: Option<PathBuf>,
    /// Files of its directory that would configure verdict but lose to it.
    pub(crate) ignored: Vec<PathBuf>,
    /// Every verifier, in the registry's order.
    pub(crate) verifiers: Vec<Row>,
    /// Workspace packages with verifiers of their own, which a run here does not verify.
    pub(crate) uncovered: Vec<crate::packages::Uncovered>,
    /// The checks the project declares that no verifier runs.
    pub(crate) unrun: Vec<verdict_verifier_support::declared::Unrun>,
    /// The checks that apply but whose tool is not installed here.
    pub(crate) missing: Vec<crate::unverified::Missing>,
}

/// One verifier of a [`Listing`].
pub(crate) struct Row {
    /// Its name (what `--only` takes).
    pub(crate) name: String,
    /// Its kind (`build`, `lint`, `test`, …).
    pub(crate) kind: &'static str,
    /// Whether `verdict run` runs it here.
    pub(crate) runs: bool,
    /// Whether verdict.toml turns it off.
    pub(crate) disabled: bool,
    /// Why it applies or does not.
    pub(crate) reason: String,
    /// Where it comes from (linked in, verdict.toml, a plugin).
    pub(crate) origin: String,
}

/// Every known verifier of the project at `dir`, whether it applies and why.
pub(crate) fn listing(dir: Option<&std::path::Path>) -> Result<Listing> {
    let (root, config) = load_config(dir)?;
    let known = registry::all(&config, &root).map_err(|e| usage(format!("{e:#}")))?;
    let names = known.iter().map(|k| k.verifier.name().to_owned()).collect();
    config
        .check_names(&names)
        .map_err(|e| usage(e.to_string()))?;
    let workspace = config.workspace(&root);
    let mut missing = Vec::new();
    let verifiers = known
        .iter()
        .map(|k| {
            let name = k.verifier.name();
            let enabled = config.verifiers.get(name).and_then(|s| s.enabled);
            let (runs, reason) = match k.verifier.applies(&workspace) {
                _ if enabled == Some(false) => (false, format!("disabled in {}", config.label())),
                Applicability::Applies(reason) => (true, reason),
                Applicability::DoesNotApply(reason) if enabled == Some(true) => {
                    (true, format!("enabled in {} ({reason})", config.label()))
                }
                Applicability::DoesNotApply(reason) => (false, reason),
            };
            if runs {
                missing.extend(crate::unverified::missing(k.verifier.as_ref(), &workspace));
            }
            Row {
                name: name.to_owned(),
                kind: k.verifier.kind().as_str(),
                runs,
                disabled: enabled == Some(false),
                reason,
                origin: k.origin.describe(),
            }
        })
        .collect();
    let uncovered = crate::packages::uncovered(&root, &known);
    let unrun = crate::unverified::unrun(&config, &root);
    Ok(Listing {
        config: config.path.clone(),
        ignored: config.ignored.clone(),
        verifiers,
        uncovered,
        unrun,
        missing,
    })
}

impl Listing {
    /// The text `verdict list` prints.
    pub(crate) fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        match &self.config {
            Some(path) => {
                let _ = writeln!(out, "config: {}", path.display());
                for ignored in &self.ignored {
                    let _ = writeln!(
                        out,
                        "ignored: {} (the config above wins)",
                        ignored.display()
                    );
                }
            }
            None => out.push_str("config: none (everything below is detected)\n"),
        }
        let width = self
            .verifiers
            .iter()
            .map(|r| r.name.len())
            .max()
            .unwrap_or(0);
        for row in &self.verifiers {
            let mark = match (row.disabled, row.runs) {
                (true, _) => "-",
                (false, true) => "✓",
                (false, false) => " ",
            };
            let _ = writeln!(
                out,
                "{mark} {:width$}  {:<7} {}  [{}]",
                row.name, row.kind, row.reason, row.origin
            );
        }
        if !self.uncovered.is_empty() {
            out.push_str(
                "workspace packages (not verified by `verdict run` here; run it in each):\n",
            );
            for package in &self.uncovered {
                let _ = writeln!(out, "  {}: {}", package.dir, package.verifiers.join(", "));
            }
        }
        for check in &self.missing {
            let _ = writeln!(out, "{}", check.line());
        }
        if !self.unrun.is_empty() {
            out.push_str(
                "declared checks not verified (no verifier runs them; to run one, add its \
                 [[verifier]] to verdict.toml):\n",
            );
            for check in &self.unrun {
                let _ = writeln!(out, "  {}:", check.describe());
                for line in check.verifier_toml().lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        out
    }
}

/// Prints every known verifier, where it comes from, and whether it applies and why.
pub(crate) fn list(args: &ListArgs) -> Result<ExitCode> {
    let listing = listing(args.dir.as_deref())?;
    let mut out = std::io::stdout().lock();
    out.write_all(listing.text().as_bytes())?;
    Ok(ExitCode::Success)
}

/// Writes a verdict.toml listing the verifiers detected in the project.
pub(crate) fn init(args: &InitArgs) -> Result<ExitCode> {
    let root = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("failed to read the current directory")?,
    };
    // `--config FILE` (or VERDICT_CONFIG) names the file to write, as it names the file to read.
    let path = match &crate::global::get().config {
        Some((path, _)) => path.clone(),
        None => root.join("verdict.toml"),
    };
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
    Ok(ExitCode::Success)
}
