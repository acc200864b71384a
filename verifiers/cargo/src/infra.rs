//! The infrastructure of the cargo verifiers (see `Verifier::infrastructure`): the parts of the
//! manifests that decide which targets build and which tests run, cargo's configuration,
//! nextest's and clippy's (named in `verdict_verifier_support::infra::tool_configs`, which the
//! `script` verifier reads too), and the files that declare the project's command.

use verdict_model::verifier::{Infrastructure, Workspace};
use verdict_verifier_support::infra;

/// What every cargo verifier shares: the manifests' keys that decide which targets build and
/// which tests run (never a whole `Cargo.toml`: an honest fix often adds a dependency), cargo's
/// configuration (`rustflags`, a `[target] runner`), with the files that declare the command of
/// verifier `name`.
fn common(workspace: &Workspace, name: &str) -> (Option<Vec<String>>, Infrastructure) {
    let (command, infra) = infra::declared(workspace, name, infra::tool_configs(name));
    (command.map(|c| c.program_words().to_vec()), infra)
}

/// `cargo test`'s (and nextest's): with nextest's configuration, whose presence alone makes
/// the tests run under nextest, and a `--config-file` or `--tool-config-file` of the command.
pub(crate) fn test(workspace: &Workspace, name: &str) -> Infrastructure {
    let (words, mut infra) = common(workspace, name);
    let words = words.unwrap_or_default();
    let configs = infra::option_values(&words, &["--config-file"], false)
        .into_iter()
        .chain(
            infra::option_values(&words, &["--tool-config-file"], false)
                .into_iter()
                .filter_map(|value| Some(value.split_once(':')?.1.to_owned())),
        );
    for config in configs {
        if let Some(path) = infra::project_path(workspace, "", &config, &[""]) {
            infra = infra::path(infra, &path);
        }
    }
    infra
}

/// `cargo check`'s.
pub(crate) fn check(workspace: &Workspace, name: &str) -> Infrastructure {
    common(workspace, name).1
}

/// clippy's: with its own configuration (thresholds, disallowed names).
pub(crate) fn clippy(workspace: &Workspace, name: &str) -> Infrastructure {
    common(workspace, name).1
}

#[cfg(test)]
mod tests {
    use verdict_model::Verifier;

    use super::*;

    /// The infrastructure `verifier` names in a project of `files` (see `infra::lines`), but
    /// for what every cargo verifier names in every project.
    fn check(verifier: &dyn Verifier, files: &[(&str, &str)], expect: &[&str]) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        let every = infra::lines(&infra::tool_configs("cargo-check"));
        let got: Vec<String> = infra::lines(&verifier.infrastructure(&workspace))
            .into_iter()
            .filter(|line| !every.contains(line))
            .collect();
        assert_eq!(got, expect);
    }

    const MANIFEST: &str = "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

    #[test]
    fn cargo_verifiers_name_manifest_keys_and_their_configs() {
        let every = infra::lines(&infra::tool_configs("cargo-check"));
        for line in [
            "**/Cargo.toml toml:test",
            "**/Cargo.toml toml:package.auto*",
            "**/Cargo.toml toml:profile",
            "**/Cargo.toml toml:workspace.members",
            ".cargo/config.toml",
        ] {
            assert!(every.contains(&line.to_owned()), "{line} in {every:?}");
        }
        assert!(!every.iter().any(|line| line == "**/Cargo.toml"));
        check(
            &crate::CargoTest::default(),
            &[
                ("Cargo.toml", MANIFEST),
                (
                    "Makefile",
                    "test:\n\tcargo nextest run --config-file ci/nextest.toml\n",
                ),
                ("ci/nextest.toml", ""),
            ],
            &[".config/nextest.toml", "Makefile", "ci/nextest.toml"],
        );
        check(
            &crate::CargoDoctest::default(),
            &[("Cargo.toml", MANIFEST)],
            &[".config/nextest.toml"],
        );
        check(
            &crate::Clippy::default(),
            &[
                ("Cargo.toml", MANIFEST),
                ("Makefile", "lint:\n\tcargo clippy -- -D warnings\n"),
            ],
            // The Makefile's `lint` target is the project's clippy command.
            &["**/clippy.toml", "**/.clippy.toml", "Makefile"],
        );
        check(
            &crate::CargoCheck::default(),
            &[("Cargo.toml", MANIFEST)],
            &[],
        );
    }
}
