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
    /// A `[[verifier]]` of the configuration, by its label (`verdict.toml`, `[tool.verdict] of
    /// pyproject.toml`, see [`Config::label`]).
    Config(String),
    /// A plugin library, by path.
    Plugin(String),
    /// A command the project declares that no other verifier covers, run as it is.
    Script,
}

impl Origin {
    pub(crate) fn describe(&self) -> String {
        match self {
            Origin::Linked(feature) => format!("linked (feature `{feature}`)"),
            Origin::Config(label) => label.clone(),
            Origin::Plugin(path) => format!("plugin {path}"),
            Origin::Script => "the project's own command".to_owned(),
        }
    }
}

/// A known verifier.
pub(crate) struct Known {
    pub(crate) verifier: Arc<dyn Verifier>,
    pub(crate) origin: Origin,
    /// Verifiers that must pass before it starts, because the project's command runs it after
    /// theirs in an `&&` chain.
    pub(crate) needs: Vec<String>,
    /// The project's own commands that run what it verifies, as a person types them (`npm
    /// test`, `pnpm run lint`, `make test`), each as argv words: the loop allows them to Claude
    /// Code beside the verifier's own command.
    pub(crate) run_by: Vec<Vec<String>>,
}

/// The verifiers compiled into this binary.
fn linked() -> Vec<Known> {
    let mut known = Vec::new();
    let mut add = |feature: &'static str, verifiers: Vec<Box<dyn Verifier>>| {
        known.extend(verifiers.into_iter().map(|verifier| Known {
            verifier: Arc::from(verifier),
            origin: Origin::Linked(feature),
            needs: Vec::new(),
            run_by: Vec::new(),
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
    #[cfg(feature = "python-check")]
    add("python-check", verdict_python_check::verifiers());
    let _ = &mut add;
    known
}

/// Every verifier: linked, then those of the config, then those of its plugins, then a `script`
/// verifier for each command the project at `root` declares that none of them covers (see
/// [`scripts`]). A name defined twice is an error naming both origins (a config verifier does not
/// silently replace a linked one).
pub(crate) fn all(config: &Config, root: &Path) -> Result<Vec<Known>> {
    let mut known = linked();
    for definition in &config.custom {
        let mut verifier = verdict_custom::CustomVerifier::new(definition.clone(), &config.dir)
            .with_context(|| match &config.path {
                Some(path) => format!("invalid [[verifier]] in {}", path.display()),
                None => "invalid [[verifier]]".to_owned(),
            })?;
        // Its definition's file keys the cache, wherever the configuration is kept.
        if let Some(path) = &config.path {
            verifier = verifier.with_config_file(path);
        }
        known.push(Known {
            verifier: Arc::new(verifier),
            origin: Origin::Config(config.label()),
            needs: Vec::new(),
            run_by: Vec::new(),
        });
    }
    for path in &config.plugins {
        known.extend(load_plugin(path)?);
    }
    scripts(&mut known, config, root);
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

/// Adds a `script` verifier for each declared command of the project at `root` that no known
/// verifier covers, and sets the order of a chain's commands: a command (tool verifier or
/// script) that the project runs after others with `&&` needs their verifiers. Each verifier of
/// a declared command learns the project's commands that run it ([`Known::run_by`]).
#[cfg(feature = "script")]
fn scripts(known: &mut Vec<Known>, config: &Config, root: &Path) {
    use std::collections::BTreeSet;
    use verdict_verifier_support::declared::Declared;

    let workspace = config.workspace(root);
    let declared = Declared::of(&workspace);
    let names: BTreeSet<String> = known.iter().map(|k| k.verifier.name().to_owned()).collect();
    // The verifier each declared command becomes.
    let mut of_command: Vec<Option<String>> = vec![None; declared.commands.len()];
    for (index, command) in declared.commands.iter().enumerate() {
        if let Some(name) = command.verifier().filter(|n| names.contains(*n))
            && declared.for_verifier(name) == Some(command)
        {
            of_command[index] = Some(name.to_owned());
        }
    }
    let mut taken = names;
    for (index, command) in declared.uncovered(&known_names(known)) {
        let base = verdict_script::base_name(command);
        let name = (1..)
            .map(|n| {
                if n == 1 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                }
            })
            .find(|name| !taken.contains(name))
            .unwrap_or(base);
        taken.insert(name.clone());
        of_command[index] = Some(name.clone());
        known.push(Known {
            verifier: Arc::new(verdict_script::ScriptVerifier::new(name, command.clone())),
            origin: Origin::Script,
            needs: Vec::new(),
            run_by: Vec::new(),
        });
    }
    // Only scripts and runners under a coverage wrapper become needs: a tool verifier checks
    // without side effects (tsc with `--noEmit`, eslint without `--fix`), so what runs after it
    // does not depend on it and is better run beside it, while a script may build what later
    // commands use, and a wrapper writes the data a later `coverage report` reads.
    let scripts_at: BTreeSet<usize> = declared
        .uncovered(&known_names(known))
        .map(|(i, _)| i)
        .chain(
            declared
                .commands
                .iter()
                .enumerate()
                .filter(|(_, c)| c.wrapper().is_some())
                .map(|(i, _)| i),
        )
        .collect();
    for (index, command) in declared.commands.iter().enumerate() {
        let Some(name) = &of_command[index] else {
            continue;
        };
        let needs: Vec<String> = command
            .after
            .iter()
            .filter(|before| scripts_at.contains(before))
            .filter_map(|&before| of_command.get(before).cloned().flatten())
            .filter(|need| need != name)
            .collect();
        if let Some(entry) = known.iter_mut().find(|k| k.verifier.name() == name) {
            for need in needs {
                if !entry.needs.contains(&need) {
                    entry.needs.push(need);
                }
            }
            for run_by in &command.run_by {
                if !entry.run_by.contains(run_by) {
                    entry.run_by.push(run_by.clone());
                }
            }
        }
    }
}

#[cfg(feature = "script")]
fn known_names(known: &[Known]) -> std::collections::BTreeSet<String> {
    known.iter().map(|k| k.verifier.name().to_owned()).collect()
}

#[cfg(not(feature = "script"))]
fn scripts(_known: &mut Vec<Known>, _config: &Config, _root: &Path) {}

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
            needs: Vec::new(),
            run_by: Vec::new(),
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

#[cfg(test)]
mod tests {
    //! Every place that knows tools by name agrees with the table of tools
    //! (`verdict_core::tools`): a tool half-added — a table entry without its verifier or
    //! summarizer, a verifier without an entry — fails here.

    use std::collections::BTreeMap;

    use verdict_core::Tool;
    use verdict_core::tools::PostEdit;
    use verdict_core::verifier::Workspace;
    use verdict_verifier_support::declared::Declared;

    use super::{Origin, linked};

    /// The command line of an invocation, with an argument where a tool needs one.
    fn line(invocation: &verdict_core::tools::Invocation) -> String {
        let mut words = vec![invocation.program.to_owned()];
        words.extend(invocation.then.iter().map(|w| (*w).to_owned()));
        words.extend(invocation.requires_one_of.first().map(|w| (*w).to_owned()));
        words.join(" ")
    }

    #[test]
    fn every_place_agrees_with_the_table_of_tools() {
        let linked: BTreeMap<String, (Origin, verdict_core::Kind)> = linked()
            .into_iter()
            .map(|k| (k.verifier.name().to_owned(), (k.origin, k.verifier.kind())))
            .collect();
        let dir = tempfile::tempdir().expect("temp dir");
        for tool in Tool::ALL {
            let spec = tool.spec();
            // The summarizers it names exist.
            for name in spec.summarizers() {
                assert!(
                    verdict_summarizers::by_name(name).is_some(),
                    "{}: no summarizer `{name}`",
                    spec.name
                );
            }
            // Its verifier is linked in by the feature the table names, of the table's kind.
            if let Some(feature) = spec.linked {
                let (origin, kind) = linked
                    .get(spec.name)
                    .unwrap_or_else(|| panic!("{}: no linked verifier of that name", spec.name));
                assert_eq!(*origin, Origin::Linked(feature), "{}", spec.name);
                assert_eq!(*kind, spec.kind, "{}", spec.name);
            } else {
                assert_eq!(
                    spec.post_edit,
                    PostEdit::No,
                    "{}: used after an edit, but no verifier runs it",
                    spec.name
                );
            }
            for invocation in spec.invocations {
                let line = line(invocation);
                // The log splitter reads what it prints with the right summarizer.
                assert_eq!(
                    verdict_summarizers::sections::command_tool(&line),
                    Some(invocation.prints.unwrap_or(spec.summarizer)),
                    "the log splitter on `{line}`"
                );
                // The declared-command reader hands the command to the tool's verifier.
                let mut workspace = Workspace::new(dir.path());
                workspace
                    .commands
                    .insert(spec.name.to_owned(), line.clone());
                let declared = Declared::of(&workspace);
                let runs = spec.linked.is_some() && invocation.verifier_runs_it;
                assert_eq!(
                    declared.for_verifier(spec.name).is_some(),
                    runs,
                    "the declared-command reader on `{line}`"
                );
            }
            // Its configuration files count as the infrastructure of its checks.
            let infra = verdict_verifier_support::infra::tool_configs(spec.name);
            assert!(
                spec.configs.is_empty() || !infra.files.is_empty(),
                "{}: its configuration files are not infrastructure",
                spec.name
            );
        }
        // Every linked verifier is in the table.
        for (name, (origin, _)) in &linked {
            let Origin::Linked(feature) = origin else {
                continue;
            };
            let tool = Tool::of_verifier(name)
                .unwrap_or_else(|| panic!("the linked verifier {name} is not in the table"));
            assert_eq!(tool.spec().linked, Some(*feature), "{name}");
        }
    }
}
