//! Every verifier this `verdict` knows, whatever its origin: linked in by cargo feature, defined
//! in `verdict.toml` (`[[verifier]]`), or loaded from a plugin library that `verdict.toml` names.
//! All three sit behind `Arc<dyn Verifier>`, so the pipeline treats them alike.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use verdict_core::Verifier;

use crate::config::Config;

/// Where a verifier comes from, shown by `verdict list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    /// Compiled into this binary (the crate's cargo feature).
    Linked(&'static str),
    /// A `[[verifier]]` in verdict.toml.
    Config,
    /// A plugin library, by path.
    Plugin(String),
}

impl Origin {
    pub(crate) fn describe(&self) -> String {
        match self {
            Origin::Linked(feature) => format!("linked (feature `{feature}`)"),
            Origin::Config => "verdict.toml".to_owned(),
            Origin::Plugin(path) => format!("plugin {path}"),
        }
    }
}

/// A known verifier.
pub(crate) struct Known {
    pub(crate) verifier: Arc<dyn Verifier>,
    pub(crate) origin: Origin,
}

/// The verifiers compiled into this binary.
fn linked() -> Vec<Known> {
    let mut known = Vec::new();
    let mut add = |feature: &'static str, verifiers: Vec<Box<dyn Verifier>>| {
        known.extend(verifiers.into_iter().map(|verifier| Known {
            verifier: Arc::from(verifier),
            origin: Origin::Linked(feature),
        }));
    };
    #[cfg(feature = "tsc")]
    add("tsc", verdict_tsc::verifiers());
    #[cfg(feature = "eslint")]
    add("eslint", verdict_eslint::verifiers());
    #[cfg(feature = "js-test")]
    add("js-test", verdict_js_test::verifiers());
    #[cfg(feature = "cargo")]
    add("cargo", verdict_cargo::verifiers());
    #[cfg(feature = "pytest")]
    add("pytest", verdict_pytest::verifiers());
    let _ = &mut add;
    known
}

/// Every verifier: linked, then those of the config, then those of its plugins. A name defined
/// twice is an error naming both origins (a config verifier does not silently replace a linked
/// one).
pub(crate) fn all(config: &Config) -> Result<Vec<Known>> {
    let mut known = linked();
    for definition in &config.custom {
        let verifier = verdict_custom::CustomVerifier::new(definition.clone(), &config.dir)
            .with_context(|| match &config.path {
                Some(path) => format!("invalid [[verifier]] in {}", path.display()),
                None => "invalid [[verifier]]".to_owned(),
            })?;
        known.push(Known {
            verifier: Arc::new(verifier),
            origin: Origin::Config,
        });
    }
    for path in &config.plugins {
        known.extend(load_plugin(path)?);
    }
    for (i, a) in known.iter().enumerate() {
        if let Some(b) = known[..i]
            .iter()
            .find(|b| b.verifier.name() == a.verifier.name())
        {
            bail!(
                "two verifiers are called `{}`: one {}, one {}; rename the one in verdict.toml",
                a.verifier.name(),
                b.origin.describe(),
                a.origin.describe()
            );
        }
    }
    Ok(known)
}

#[cfg(feature = "plugins")]
fn load_plugin(path: &Path) -> Result<Vec<Known>> {
    // SAFETY: loading a library runs its initialisers; verdict.toml names the library, so the
    // project vouches for it exactly as it vouches for the commands it configures. The ABI
    // version is checked before anything else in the library is called (see verdict-plugin-host).
    #[allow(unsafe_code)]
    let plugin = unsafe { verdict_plugin_host::load(path) }
        .with_context(|| format!("failed to load the plugin {}", path.display()))?;
    let origin = Origin::Plugin(path.display().to_string());
    Ok(plugin
        .verifiers()
        .into_iter()
        .map(|verifier| Known {
            verifier: Arc::from(verifier),
            origin: origin.clone(),
        })
        .collect())
}

#[cfg(not(feature = "plugins"))]
fn load_plugin(path: &Path) -> Result<Vec<Known>> {
    bail!(
        "verdict.toml names the plugin {}, but this verdict was built without the `plugins` feature",
        path.display()
    )
}
