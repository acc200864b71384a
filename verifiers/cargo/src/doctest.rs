//! `cargo-doctest`: the doc-tests nextest leaves out.
//!
//! nextest runs each test binary's tests, and rustdoc builds no such binary for doc-tests: where
//! `cargo-test` runs `cargo nextest run` (the project configures nextest), a broken example in a
//! doc comment would pass unseen. nextest's documentation advises running `cargo test --doc`
//! beside it, and this verifier does: `cargo test --doc --workspace --no-fail-fast
//! --message-format=json`, read by the `cargo` summarizer like `cargo test`.
//!
//! It applies exactly where nextest replaces `cargo test` and a library of the workspace has doc
//! examples: a library without any would run no doc-test, which is no pass, and `cargo test
//! --doc` without a library is an error. A library is the root package's or a member's (the
//! `members` of `[workspace]`, a trailing `/*` expanded) with `src/lib.rs` or a `[lib]` table,
//! unless it sets `doctest = false`; it has doc examples when a `.rs` file under its source
//! directory has a fence (```` ``` ````) in a `///` or `//!` comment, or takes its docs from a
//! file (`#![doc = include_str!("../README.md")]`), which may hold them.

use std::path::{Path, PathBuf};

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Infrastructure, Inputs, VerifierError, Workspace,
};
use verdict_model::{Kind, Report, Verifier};

use crate::{Command, DEFAULT_TIMEOUT, nextest, nextest_config, project};

/// The verifier's name.
pub const NAME: &str = "cargo-doctest";

/// How many `.rs` files are read, at most, to find a doc example.
const MAX_FILES: usize = 5_000;

/// `cargo-doctest`: `cargo test --doc` where nextest runs the other tests (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CargoDoctest {
    timeout: std::time::Duration,
}

impl Default for CargoDoctest {
    fn default() -> Self {
        CargoDoctest {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl CargoDoctest {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// Why `cargo-doctest` applies to the project at `root`, or why not.
pub fn applicability(root: &Path) -> Result<String, String> {
    if nextest_config(root).is_none() {
        return Err(format!(
            "the tests run with `cargo test`, which runs the doc-tests too (no {})",
            nextest::CONFIG_FILE
        ));
    }
    let libraries = libraries(root);
    if libraries.is_empty() {
        return Err(format!(
            "nextest runs the tests ({}), and no library has doc-tests to run",
            nextest::CONFIG_FILE
        ));
    }
    match libraries.iter().find_map(|lib| doc_example(lib)) {
        Some(file) => Ok(format!(
            "nextest runs the tests ({}) and cannot run doc-tests; {} has doc examples",
            nextest::CONFIG_FILE,
            file.strip_prefix(root).unwrap_or(&file).display()
        )),
        None => Err(format!(
            "nextest runs the tests ({}), and no library has a doc example",
            nextest::CONFIG_FILE
        )),
    }
}

/// The source directories of the libraries of the package or workspace at `root` whose
/// doc-tests cargo runs.
fn libraries(root: &Path) -> Vec<PathBuf> {
    let Some(manifest) = read_manifest(root) else {
        return Vec::new();
    };
    let mut packages = vec![root.to_path_buf()];
    if let Some(members) = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
    {
        for member in members.iter().filter_map(toml::Value::as_str) {
            match member.strip_suffix("/*") {
                Some(parent) => {
                    let Ok(entries) = std::fs::read_dir(root.join(parent)) else {
                        continue;
                    };
                    let mut dirs: Vec<PathBuf> = entries
                        .filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|p| p.join("Cargo.toml").is_file())
                        .collect();
                    dirs.sort();
                    packages.extend(dirs);
                }
                None => packages.push(root.join(member)),
            }
        }
    }
    packages
        .into_iter()
        .filter_map(|dir| library_of(&dir))
        .collect()
}

/// The source directory of the library of the package at `dir`, when it has one with doc-tests.
fn library_of(dir: &Path) -> Option<PathBuf> {
    let manifest = read_manifest(dir)?;
    manifest.get("package")?;
    let lib = manifest.get("lib");
    if lib
        .and_then(|l| l.get("doctest"))
        .and_then(toml::Value::as_bool)
        == Some(false)
    {
        return None;
    }
    let path = match lib
        .and_then(|l| l.get("path"))
        .and_then(toml::Value::as_str)
    {
        Some(path) => dir.join(path),
        None => dir.join("src/lib.rs"),
    };
    path.is_file()
        .then(|| path.parent().unwrap_or(dir).to_path_buf())
}

fn read_manifest(dir: &Path) -> Option<toml::Table> {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()?
        .parse::<toml::Table>()
        .ok()
}

/// The first `.rs` file under `dir` with a doc example, or docs taken from a file.
fn doc_example(dir: &Path) -> Option<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut read = 0;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                read += 1;
                if read > MAX_FILES {
                    return None;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                if has_doc_example(&text) {
                    return Some(path);
                }
            }
        }
    }
    None
}

/// Whether Rust source `text` has a fenced block in a doc comment, or docs from a file.
fn has_doc_example(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        ((line.starts_with("///") || line.starts_with("//!")) && line.contains("```"))
            || (line.starts_with("#![doc") || line.starts_with("#[doc"))
                && line.contains("include_str!")
    })
}

impl Verifier for CargoDoctest {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        if let Err(reason) = project(workspace) {
            return Applicability::DoesNotApply(reason);
        }
        match applicability(&workspace.root) {
            Ok(found) => Applicability::Applies(found),
            Err(reason) => Applicability::DoesNotApply(reason),
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let args = [
            "test",
            "--doc",
            "--workspace",
            "--no-fail-fast",
            "--message-format=json",
        ]
        .map(str::to_owned)
        .to_vec();
        Command::Test.spec(workspace, self.timeout, args)
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = Command::Test.interpret(spec, captured);
        report.tool = NAME.to_owned();
        report
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        Command::Test.inputs(workspace)
    }

    /// `cargo test`'s (`[lib] doctest = false` turns its tests off), read from the project's
    /// declared `cargo test` command.
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        crate::infra::test(workspace, Command::Test.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("create");
            std::fs::write(path, text).expect("write");
        }
        dir
    }

    const PACKAGE: &str = "[package]\nname = \"a\"\nversion = \"0.1.0\"\n";
    const EXAMPLE: &str = "/// ```\n/// assert!(true);\n/// ```\npub fn a() {}\n";
    const NEXTEST: (&str, &str) = (".config/nextest.toml", "[profile.default]\n");

    #[test]
    fn applies_where_nextest_runs_the_tests_of_a_library_with_doc_examples() {
        let applies = |files: &[(&str, &str)]| applicability(project(files).path());
        let found =
            applies(&[("Cargo.toml", PACKAGE), ("src/lib.rs", EXAMPLE), NEXTEST]).expect("applies");
        assert!(found.contains("src/lib.rs has doc examples"), "{found}");
        // `cargo test` runs the doc-tests itself.
        let reason = applies(&[("Cargo.toml", PACKAGE), ("src/lib.rs", EXAMPLE)])
            .expect_err("cargo test runs them");
        assert!(reason.contains("runs the doc-tests too"), "{reason}");
        // No library, no example, or doc-tests turned off: nothing to run.
        for files in [
            &[("Cargo.toml", PACKAGE), ("src/main.rs", EXAMPLE), NEXTEST][..],
            &[
                ("Cargo.toml", PACKAGE),
                ("src/lib.rs", "pub fn a() {}\n"),
                NEXTEST,
            ],
            &[
                (
                    "Cargo.toml",
                    "[package]\nname = \"a\"\n[lib]\ndoctest = false\n",
                ),
                ("src/lib.rs", EXAMPLE),
                NEXTEST,
            ],
        ] {
            assert!(applies(files).is_err(), "{files:?}");
        }
        // A member's library, through the workspace's `members` glob.
        let found = applies(&[
            ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
            ("crates/b/Cargo.toml", PACKAGE),
            ("crates/b/src/lib.rs", EXAMPLE),
            NEXTEST,
        ])
        .expect("applies");
        assert!(found.contains("crates/b/src/lib.rs"), "{found}");
    }

    #[test]
    fn doc_examples_are_fences_in_doc_comments_or_docs_from_a_file() {
        assert!(has_doc_example("/// ```\n/// assert!(true);\n/// ```\n"));
        assert!(has_doc_example("    //! ```rust\n"));
        assert!(has_doc_example(
            "#![doc = include_str!(\"../README.md\")]\n"
        ));
        assert!(!has_doc_example("// ```\nfn a() {}\n"));
        assert!(!has_doc_example("/// Adds two numbers.\npub fn add() {}\n"));
    }
}
