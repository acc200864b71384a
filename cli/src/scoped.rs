//! Checks narrowed to some files: what each verifier can do with them, shared by the post-edit
//! hook (`hook/post_edit.rs`) and MCP's `verify` with `files`.
//!
//! A verifier narrows in one of three ways, tried in turn: it checks the files alone
//! ([`Verifier::command_for_files`]: eslint, ruff), it runs the tests related to them
//! ([`Verifier::related_tests`]: jest, vitest, pytest), or it checks the whole project and has
//! something to say of them (tsc of TypeScript, clippy of Rust: the table of tools' post-edit
//! use). What can do none of these is not run, and the result says so, rather than run whole: a
//! scoped check answers for its files, never for the project.
//!
//! A scoped run is never cached and leaves the cache alone (no pass stored, none removed, no last
//! report for `--failed-first`): its result is of some files, and a later whole run must not be
//! answered by it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, bail};
use serde_json::Value;
use verdict_core::Tool;
use verdict_core::model::Status;
use verdict_core::pipeline::Entry;
use verdict_core::tools::PostEdit;
use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, Inputs, Related, VerifierError, Workspace,
};
use verdict_core::{Kind, Report, Verification, Verifier};

/// The extensions of the JavaScript files tsc checks when its config allows JavaScript.
const JS_EXTENSIONS: [&str; 4] = ["js", "jsx", "mjs", "cjs"];

/// How the linked verifier `name` is used after an edit, as the table of tools says; a
/// verifier of the project's own is not run after one unless it is marked `fast`.
pub(crate) fn post_edit(name: &str) -> PostEdit {
    Tool::of_verifier(name).map_or(PostEdit::No, |tool| tool.spec().post_edit)
}

/// Whether a verifier that checks the whole project has anything to say about `files`: tsc of
/// TypeScript, and of JavaScript when its config allows it; clippy of Rust; a project's own fast
/// verifier always.
pub(crate) fn concerns(name: &str, files: &[String], workspace: &Workspace) -> bool {
    let any = |extensions: &[&str]| {
        files.iter().any(|file| {
            Path::new(file)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
    };
    match post_edit(name) {
        PostEdit::Project(extensions) => {
            any(extensions)
                || (name == Tool::Tsc.name() && any(&JS_EXTENSIONS) && tsc_checks_js(workspace))
        }
        // It checks files one by one, and was handed none it checks.
        PostEdit::Files => false,
        PostEdit::No => true,
    }
}

/// Whether the project's tsc config (or one it extends or references) sets `allowJs` or
/// `checkJs`: without either, tsc says nothing of a JavaScript file. A config that cannot be read
/// counts as allowing it (tsc runs, and says what is wrong).
#[cfg(feature = "tsc")]
fn tsc_checks_js(workspace: &Workspace) -> bool {
    let Ok(project) = verdict_tsc::project(workspace) else {
        return true;
    };
    verdict_tsc::config_files(workspace, &project.config)
        .iter()
        .filter(|file| Path::new(file).is_absolute())
        .any(|file| {
            let Ok(text) = std::fs::read_to_string(file) else {
                return true;
            };
            let Ok(config) = serde_json::from_str::<Value>(&verdict_tsc::strip_jsonc(&text)) else {
                return true;
            };
            let options = &config["compilerOptions"];
            options["allowJs"] == true || options["checkJs"] == true
        })
}

#[cfg(not(feature = "tsc"))]
fn tsc_checks_js(_workspace: &Workspace) -> bool {
    true
}

/// How a verifier is narrowed to some files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Narrowing {
    /// It checks the files alone ([`Verifier::command_for_files`]).
    Files,
    /// It runs the tests related to them ([`Verifier::related_tests`]).
    RelatedTests,
    /// It checks the whole project (it needs the whole program), which the files are part of.
    Project,
}

impl Narrowing {
    /// How the structured results name it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Narrowing::Files => "files",
            Narrowing::RelatedTests => "related_tests",
            Narrowing::Project => "project",
        }
    }
}

/// A verifier narrowed to some files. Never cached: its result is of those files alone.
pub(crate) struct Narrowed {
    inner: Arc<dyn Verifier>,
    /// The files, or for [`Narrowing::RelatedTests`] the targets (node ids kept).
    targets: Vec<String>,
    to: Narrowing,
}

impl Narrowed {
    /// `inner` narrowed `to` `targets`.
    pub(crate) fn new(inner: Arc<dyn Verifier>, targets: Vec<String>, to: Narrowing) -> Narrowed {
        Narrowed { inner, targets, to }
    }
}

impl Verifier for Narrowed {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn kind(&self) -> Kind {
        self.inner.kind()
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        self.inner.applies(workspace)
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        match self.to {
            Narrowing::Files => self
                .inner
                .command_for_files(workspace, &self.targets)
                .unwrap_or_else(|| self.inner.command(workspace)),
            Narrowing::RelatedTests => match self.inner.related_tests(workspace, &self.targets) {
                Some(Ok(Related::Tests { command, .. })) => Ok(command),
                Some(Ok(Related::Nothing(message))) => Err(VerifierError::Project {
                    tool: self.inner.name().to_owned(),
                    message,
                }),
                Some(Err(error)) => Err(error),
                None => Err(VerifierError::Project {
                    tool: self.inner.name().to_owned(),
                    message: "it cannot run the tests of some files only".to_owned(),
                }),
            },
            Narrowing::Project => self.inner.command(workspace),
        }
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        self.inner.interpret(spec, captured)
    }

    fn inputs(&self, _workspace: &Workspace) -> Option<Inputs> {
        None
    }
}

/// The files a scoped check was asked about, as the project's verifiers take them.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Targets {
    /// Each existing target relative to the root, `/`-separated, node ids (`file::test`) kept.
    pub(crate) targets: Vec<String>,
    /// Their files, each once.
    pub(crate) files: Vec<String>,
    /// What was named but is not checked: the name as given, and why.
    pub(crate) missing: Vec<(String, String)>,
}

/// Resolves `given` (relative to `root`, which is absolute, or absolute inside it; a test's node
/// id `file::test` by its file): a path outside the project is an error naming it; a file that
/// does not exist, or is no file, is kept in [`Targets::missing`] to be said.
pub(crate) fn resolve(root: &Path, given: &[String]) -> Result<Targets> {
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut targets = Targets::default();
    let mut seen = BTreeSet::new();
    for name in given {
        let (file, test) = match name.split_once("::") {
            Some((file, test)) => (file, Some(test)),
            None => (name.as_str(), None),
        };
        let path = Path::new(file);
        let path = normalize(&if path.is_absolute() {
            path.to_path_buf()
        } else {
            root.join(path)
        });
        // Symbolic links resolved where the file exists; a missing one is judged by its name.
        let real = path.canonicalize().ok();
        let inside = match &real {
            Some(real) => real.strip_prefix(&canonical_root).ok(),
            None => path.strip_prefix(root).ok(),
        };
        let Some(relative) = inside.map(slashed) else {
            bail!(
                "`{name}` is outside the project {}: verify checks the project's own files",
                root.display()
            );
        };
        match &real {
            None => targets
                .missing
                .push((name.clone(), "does not exist".to_owned())),
            Some(real) if !real.is_file() => targets
                .missing
                .push((name.clone(), "is not a file".to_owned())),
            Some(_) => {
                let target = match test {
                    Some(test) => format!("{relative}::{test}"),
                    None => relative.clone(),
                };
                if seen.insert(target.clone()) {
                    targets.targets.push(target);
                }
                if !targets.files.contains(&relative) {
                    targets.files.push(relative);
                }
            }
        }
    }
    Ok(targets)
}

/// `path` with its `.` and `..` taken out, by name (a `..` above the root stays at the root).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A relative path with `/` between its parts.
fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A verifier a scoped check does not run, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotRun {
    /// The verifier.
    pub(crate) verifier: String,
    /// Why: `cannot scope to files; run verify without files`.
    pub(crate) reason: String,
}

/// The plan of a scoped check: how each verifier that runs is narrowed, and what does not run.
#[derive(Debug, Default, Clone)]
pub(crate) struct Scoped {
    /// The files asked about.
    pub(crate) targets: Targets,
    /// How each verifier that runs is narrowed.
    pub(crate) narrowed: BTreeMap<String, Narrowing>,
    /// For a test verifier, the targets it runs no test for (a source file pytest cannot map).
    pub(crate) left_out: BTreeMap<String, Vec<String>>,
    /// What does not run, and why.
    pub(crate) not_run: Vec<NotRun>,
}

/// Narrows `entries` to `targets` in `workspace` (see the module docs): the entries that run, and
/// the plan. What an entry needs stays among its needs only when it runs too.
pub(crate) fn narrow(
    entries: &[Entry],
    workspace: &Workspace,
    targets: Targets,
) -> (Vec<Entry>, Scoped) {
    let mut scoped = Scoped {
        targets,
        ..Scoped::default()
    };
    let mut kept = Vec::new();
    for entry in entries {
        let name = entry.verifier.name().to_owned();
        match narrowing(entry, workspace, &scoped.targets) {
            Ok((to, left_out)) => {
                let mut entry = entry.clone();
                let targets = match to {
                    Narrowing::RelatedTests => scoped.targets.targets.clone(),
                    _ => scoped.targets.files.clone(),
                };
                // A related run that finds no test ran nothing: said, never a pass, but not
                // the tool failing either.
                entry.allow_no_tests |= to == Narrowing::RelatedTests;
                entry.verifier = Arc::new(Narrowed::new(Arc::clone(&entry.verifier), targets, to));
                if !left_out.is_empty() {
                    scoped.left_out.insert(name.clone(), left_out);
                }
                scoped.narrowed.insert(name, to);
                kept.push(entry);
            }
            Err(reason) => scoped.not_run.push(NotRun {
                verifier: name,
                reason,
            }),
        }
    }
    for entry in &mut kept {
        entry
            .needs
            .retain(|need| scoped.narrowed.contains_key(need));
    }
    (kept, scoped)
}

/// How `entry` narrows to `targets`, with the targets it leaves out; or why it does not run.
fn narrowing(
    entry: &Entry,
    workspace: &Workspace,
    targets: &Targets,
) -> Result<(Narrowing, Vec<String>), String> {
    let verifier = &entry.verifier;
    let name = verifier.name();
    if targets.files.is_empty() {
        return Err("none of the files exists".to_owned());
    }
    if verifier
        .command_for_files(workspace, &targets.files)
        .is_some()
    {
        return Ok((Narrowing::Files, Vec::new()));
    }
    match verifier.related_tests(workspace, &targets.targets) {
        Some(Ok(Related::Tests { left_out, .. })) => {
            return Ok((Narrowing::RelatedTests, left_out));
        }
        Some(Ok(Related::Nothing(reason))) => return Err(reason),
        // It runs, and says what is wrong (its tool is not installed).
        Some(Err(_)) => return Ok((Narrowing::RelatedTests, Vec::new())),
        None => {}
    }
    match post_edit(name) {
        PostEdit::Project(_) if concerns(name, &targets.files, workspace) => {
            Ok((Narrowing::Project, Vec::new()))
        }
        PostEdit::Project(_) | PostEdit::Files => {
            Err("none of the files is of a kind it checks".to_owned())
        }
        PostEdit::No => Err("cannot scope to files; run verify without files".to_owned()),
    }
}

impl Scoped {
    /// Takes out of `verifications` the test runs narrowed to related tests that ran no test:
    /// none is related to the files, which is no pass; they join [`Scoped::not_run`].
    pub(crate) fn take_empty_runs(&mut self, verifications: &mut Vec<Verification>) {
        verifications.retain(|v| {
            let related = self.narrowed.get(&v.verifier) == Some(&Narrowing::RelatedTests);
            let counts = &v.report.counts;
            let ran = counts.tests_passed.unwrap_or(0) + counts.tests_failed.unwrap_or(0);
            let empty = related
                && v.status == Status::Ran
                && v.outcome() == verdict_core::Outcome::Passed
                && ran == 0;
            if empty {
                self.not_run.push(NotRun {
                    verifier: v.verifier.clone(),
                    reason: "it found no test related to the files".to_owned(),
                });
            }
            !empty
        });
    }

    /// The line the digest ends with: what the check was scoped to, what did not run and why,
    /// and what was named but not checked. It never reads as a whole project's pass.
    pub(crate) fn line(&self) -> String {
        let count = self.targets.files.len();
        let plural = if count == 1 { "" } else { "s" };
        let mut line = format!(
            "verdict: scoped to {count} file{plural} ({}), not the whole project",
            self.targets.targets.join(", ")
        );
        for not_run in &self.not_run {
            line.push_str(&format!(
                "; not run: {} — {}",
                not_run.verifier, not_run.reason
            ));
        }
        for (verifier, left_out) in &self.left_out {
            line.push_str(&format!(
                "; {verifier} ran no test for {} (no test file or node id)",
                left_out.join(", ")
            ));
        }
        for (name, why) in &self.targets.missing {
            line.push_str(&format!("; {name} {why}"));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_inside_the_project_and_say_what_is_missing() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let root = dir.path().canonicalize().expect("a root");
        std::fs::create_dir_all(root.join("src")).expect("mkdir");
        std::fs::write(root.join("src/a.js"), "").expect("write");
        std::fs::write(root.join("test_b.py"), "").expect("write");
        let given: Vec<String> = [
            "src/a.js",
            "./src/../src/a.js",
            &root.join("test_b.py").display().to_string(),
            "test_b.py::test_one",
            "gone.js",
            "src",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let targets = resolve(&root, &given).expect("inside");
        assert_eq!(
            targets.targets,
            ["src/a.js", "test_b.py", "test_b.py::test_one"]
        );
        assert_eq!(targets.files, ["src/a.js", "test_b.py"]);
        assert_eq!(
            targets.missing,
            [
                ("gone.js".to_owned(), "does not exist".to_owned()),
                ("src".to_owned(), "is not a file".to_owned())
            ]
        );
        for outside in ["../x.js", "/etc/passwd", "src/../../x.js"] {
            let error = resolve(&root, &[outside.to_owned()]).expect_err(outside);
            assert!(error.to_string().contains("outside the project"), "{error}");
        }
    }
}
