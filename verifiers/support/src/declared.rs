//! The commands a project declares it runs to check itself: the `test`, `lint` and type-check
//! scripts of `package.json`, a Makefile's `test` target, tox's test commands and the `test`
//! scripts of pyproject.toml's task runners — each followed down to the commands that really run
//! (`npm run a && npm run b`, `run-s lint:*`, `make test`), its leaves.
//!
//! These are the reference for `verdict run`: a verifier applies where a declared command runs its
//! tool and takes that command's arguments, and a declared command that no verifier covers is run
//! as it is (the `script` verifier). A project that declares none falls back to detection from
//! its config files.
//!
//! Everything here reads files; nothing is run. Scripts are split the way `sh` would split them,
//! without expanding anything. Only `&&` and `;` chains are split into their commands; a script
//! with `||`, a pipe, a background job or a subshell is one command, run by `sh -c` as the package
//! manager would run it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use verdict_model::Tool;
use verdict_model::split::split_command;
use verdict_model::verifier::{Applicability, InfraFile, Part as InfraPart, Workspace};

use crate::PackageJson;
use manager::Manager;

mod checks;
pub mod manager;
mod precommit;
mod scoped;
mod tasks;

pub use checks::Unrun;

/// What a declared command is for, from the script or target that leads to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Purpose {
    /// `test`, a Makefile's `test`, tox's commands.
    Test,
    /// `lint`.
    Lint,
    /// `typecheck`, `type-check`, `types`, `check`, `tsc`.
    Typecheck,
}

impl Purpose {
    /// Its name in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Test => "test",
            Purpose::Lint => "lint",
            Purpose::Typecheck => "type-check",
        }
    }
}

/// One command the project declares, after every indirection was followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// What it is for.
    pub purpose: Purpose,
    /// Where it comes from, for people: ``the `test` script → `test:unit` `` or ``the Makefile's
    /// `test` target``.
    pub origin: String,
    /// The command's words as `sh` would split them (nothing expanded), `NAME=value` assignments
    /// included.
    pub words: Vec<String>,
    /// The command as written, for `sh -c` when it needs a shell.
    pub text: String,
    /// Whether only a shell runs it as the project means it: redirections, variables,
    /// command substitution, `||`, pipes, subshells.
    pub shell: bool,
    /// Whether it has an unquoted glob (`test/*.test.js`), which the shell of `npm run` expands
    /// before the tool sees it: a tool verifier expands it or hands it to a tool that does, and
    /// the command run as it is goes through `sh -c`.
    pub globs: bool,
    /// The commands (indices into [`Declared::commands`]) that run before it in an `&&` chain:
    /// when one of them fails, the project's command never gets to this one.
    pub after: Vec<usize>,
    /// Whether it comes from a Python project's files (Makefile, tox, pyproject), whose commands
    /// expect the project's virtualenv on `PATH`.
    pub python: bool,
    /// Whether it is the workspace root's command scoped to this package (see [`scoped`]): a run
    /// at the root runs it for this package too.
    pub from_workspace_root: bool,
    /// The files, and the parts of them, that declare it: every `package.json` script on the
    /// way to it with npm's `pre`/`post` scripts beside each, the Makefile, tox's `[testenv]`,
    /// noxfile.py, a pyproject task. A change to them changes what the check runs, so they are
    /// part of the infrastructure of the verifier that runs it.
    pub sources: Vec<InfraFile>,
    /// The commands a person types to run the check this command is part of, as the project
    /// declares it (`npm test`, `pnpm run lint`, `make test`, `tox -e typing`), each as argv
    /// words; empty when it has no name of its own (a line of verdict.toml, the workspace
    /// root's command scoped to a package).
    pub run_by: Vec<Vec<String>>,
}

impl Command {
    /// The words from the program on: without the leading `NAME=value` assignments and the
    /// wrappers that only set the environment or find the program (`cross-env`, `env`, `npx`,
    /// `pnpm exec`, `yarn exec`, `dotenv --`).
    pub fn program_words(&self) -> &[String] {
        program_start(&self.words)
    }

    /// The variables the words before the program set (`NODE_ENV=test jest`, `cross-env TZ=UTC`).
    pub fn env(&self) -> BTreeMap<String, String> {
        let start = self.words.len() - self.program_words().len();
        self.words[..start]
            .iter()
            .filter_map(|word| word.split_once('='))
            .filter(|(name, _)| is_variable_name(name))
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect()
    }

    /// The coverage wrapper's words (`nyc --reporter=lcov`, `c8`, `coverage run --source=x`,
    /// `python -m coverage run`) when the command runs a test runner under one; see
    /// [`coverage_wrapper`].
    pub fn wrapper(&self) -> Option<&[String]> {
        let words = self.program_words();
        coverage_wrapper(words).map(|wrapper| &words[..wrapper.len])
    }

    /// The words of the program the command runs, under its coverage wrapper if it has one:
    /// `nyc --reporter=lcov mocha -r x` → `mocha -r x`, `coverage run -m pytest -x` → `python -m
    /// pytest -x`.
    pub fn runner_words(&self) -> Vec<String> {
        let words = self.program_words();
        match coverage_wrapper(words) {
            Some(wrapper) if wrapper.python_module => std::iter::once("python".to_owned())
                .chain(words[wrapper.len..].iter().cloned())
                .collect(),
            Some(wrapper) => words[wrapper.len..].to_vec(),
            None => words.to_vec(),
        }
    }

    /// The name of the linked verifier that runs what this command runs, or `None` when none
    /// does (the command is then run as it is). Under a coverage wrapper (`nyc mocha`, `c8 node
    /// --test`, `coverage run -m pytest`) it is the runner's verifier, for the runners whose
    /// verifiers run the wrapper too (`wraps_coverage` in the table of tools): the wrapper's threshold is
    /// then checked with the tests. Another runner under one (`istanbul cover`, `c8 jest`) is
    /// run as it is.
    pub fn verifier(&self) -> Option<&'static str> {
        self.tool().filter(|verifier| {
            self.wrapper().is_none()
                || Tool::of_verifier(verifier).is_some_and(|tool| tool.spec().wraps_coverage)
        })
    }

    /// The name of the verifier of the tool this command runs, under any coverage wrapper
    /// (`c8 jest` runs jest's), whether or not that verifier runs it; `None` for a shell line.
    pub fn tool(&self) -> Option<&'static str> {
        if self.shell {
            return None;
        }
        tool_verifier(&self.runner_words())
    }
}

/// A coverage wrapper at the start of a command's program words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wrapper {
    /// How many words it takes: the wrapped program starts after them.
    pub len: usize,
    /// Whether what it wraps is a Python module (`coverage run … -m pytest`): the wrapped
    /// command is `python` and the words after the wrapper.
    pub python_module: bool,
}

/// The coverage wrapper `words` start with, if any: `nyc` or `c8` with their options before a
/// test runner (`nyc --reporter=lcov mocha`, `c8 --check-coverage --lines 90 node --test`), or
/// coverage.py's `coverage run` (also `python -m coverage run`) with its options before `-m
/// <module>`. Their report subcommands (`nyc report`, `coverage report`) wrap nothing.
pub fn coverage_wrapper(words: &[String]) -> Option<Wrapper> {
    let program = program_name(words.first()?);
    match program.as_str() {
        "nyc" | "c8" => {
            // The first word after the options that starts a runner; an option's value
            // (`--reporter text`) never does.
            for at in 1..words.len() {
                if words[at].starts_with('-') {
                    continue;
                }
                if tool_verifier(&words[at..]).is_some() {
                    return Some(Wrapper {
                        len: at,
                        python_module: false,
                    });
                }
                if !words[at - 1].starts_with('-') {
                    // A subcommand (`nyc report`) or a program no verifier runs.
                    return None;
                }
            }
            None
        }
        "coverage" => coverage_run_module(words, 1),
        "python" | "python3" if words.get(1).is_some_and(|w| w == "-m") => {
            if words.get(2).is_some_and(|w| w == "coverage") {
                coverage_run_module(words, 3)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `coverage run [options] -m <module>` from `words[at]` on (`run` first): the wrapper ends
/// before `-m`.
fn coverage_run_module(words: &[String], at: usize) -> Option<Wrapper> {
    if words.get(at).is_none_or(|w| w != "run") {
        return None;
    }
    let module = (at + 1..words.len())
        .take_while(|&i| words[i].starts_with('-') || words[i - 1].starts_with('-'))
        .find(|&i| words[i] == "-m" || words[i] == "--module")?;
    words.get(module + 1)?;
    Some(Wrapper {
        len: module,
        python_module: true,
    })
}

/// The tool that `words` (a program and its arguments) run, from the table of tools, and
/// whether its verifier can run the command in its place.
fn invoked_tool(words: &[String]) -> Option<(Tool, bool)> {
    let program = program_name(words.first()?);
    let rest: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    if program == "node"
        && let Some(tool) = node_script_tool(&rest)
    {
        return Some((tool, true));
    }
    let mut line = vec![program.as_str()];
    line.extend(&rest);
    Tool::invoked_by(&line).map(|(tool, invocation)| (tool, invocation.verifier_runs_it))
}

/// The verifier whose tool `words` (a program and its arguments) run.
fn tool_verifier(words: &[String]) -> Option<&'static str> {
    let (tool, by_verifier) = invoked_tool(words)?;
    (by_verifier && tool.spec().linked.is_some()).then(|| tool.name())
}

/// The tool a `node <script>` runs when the script is a tool's own bin script
/// (`node node_modules/jest/bin/jest.js`, `node node_modules/typescript/bin/tsc`).
fn node_script_tool(args: &[&str]) -> Option<Tool> {
    let script = args.iter().find(|word| !word.starts_with('-'))?;
    let package = script.split("node_modules/").nth(1)?.split('/').next()?;
    Tool::of_npm_package(package)
}

/// A program's name: the file name of a path, without a JavaScript extension
/// (`./node_modules/.bin/jest` → `jest`, `node_modules/typescript/bin/tsc` → `tsc`).
pub fn program_name(word: &str) -> String {
    let file = word.rsplit('/').next().unwrap_or(word);
    [".js", ".mjs", ".cjs"]
        .iter()
        .find_map(|extension| file.strip_suffix(extension))
        .unwrap_or(file)
        .to_owned()
}

/// Whether `words` (from the program on) install packages: `pip install`, `python -m pip
/// install`, `uv sync`, `uv pip install`, `poetry install`, `npm ci`. A check's recipe often
/// starts with one; it sets up the environment and checks nothing.
fn installs(words: &[String]) -> bool {
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let (program, rest) = match words.as_slice() {
        [python, "-m", module, rest @ ..]
            if verdict_model::tools::is_python(&program_name(python)) =>
        {
            (module.to_string(), rest)
        }
        [program, rest @ ..] => (program_name(program), rest),
        [] => return false,
    };
    let first = rest.first().copied();
    match program.as_str() {
        "pip" | "pip3" => matches!(first, Some("install")),
        "uv" => matches!(first, Some("sync" | "pip")) && !rest.contains(&"run"),
        "poetry" | "pdm" | "pipenv" => matches!(first, Some("install" | "sync")),
        "npm" | "pnpm" | "yarn" | "bun" => matches!(first, Some("ci" | "install" | "i")),
        _ => false,
    }
}

/// The index of the program in a command's words (see [`Command::program_words`]).
pub fn program_index(words: &[String]) -> usize {
    words.len() - program_start(words).len()
}

/// Where the program starts in a command's words (see [`Command::program_words`]).
fn program_start(words: &[String]) -> &[String] {
    let mut rest = words;
    loop {
        let Some(first) = rest.first() else {
            return rest;
        };
        let name = program_name(first);
        if first
            .split_once('=')
            .is_some_and(|(name, _)| is_variable_name(name))
        {
            rest = &rest[1..];
        } else if matches!(name.as_str(), "cross-env" | "env" | "npx") {
            rest = &rest[1..];
            // npx's own options (`--yes`, `-y`, `--no-install`) come before the program.
            while rest.first().is_some_and(|word| word.starts_with('-')) {
                rest = &rest[1..];
            }
        } else if matches!(name.as_str(), "pnpm" | "yarn" | "bunx")
            && rest.get(1).is_some_and(|word| word == "exec")
        {
            rest = &rest[2..];
        } else if name == "dotenv" {
            match rest.iter().position(|word| word == "--") {
                Some(end) => rest = &rest[end + 1..],
                None => return rest,
            }
        } else {
            return rest;
        }
    }
}

/// Whether `name` is a shell variable's name (`NODE_OPTIONS`, `_x1`), as in `NAME=value`.
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Every command the project declares, in the order the project runs them: `test` first, then
/// `lint`, then the type checks; a Makefile's, tox's or pyproject's test commands when
/// `package.json` declares no test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    /// The commands, in order.
    pub commands: Vec<Command>,
    /// The checks the project declares beside them that verdict does not run: tox
    /// environments, nox sessions and Makefile targets of linters and type checkers.
    pub unrun: Vec<Unrun>,
}

/// The `package.json` scripts that declare a check, with what they are for, in order.
const ENTRY_SCRIPTS: &[(&str, Purpose)] = &[
    ("test", Purpose::Test),
    ("lint", Purpose::Lint),
    ("typecheck", Purpose::Typecheck),
    ("type-check", Purpose::Typecheck),
    ("check-types", Purpose::Typecheck),
    ("types", Purpose::Typecheck),
    ("tsc", Purpose::Typecheck),
    // `check` chains anything (lint, format, types); it says less about types than its name.
    ("check", Purpose::Lint),
];

/// How many commands are read at most: scripts that run each other many times over would
/// otherwise multiply without end.
const MAX_COMMANDS: usize = 1000;

/// How deep script indirections are followed; deeper is a loop.
const MAX_DEPTH: usize = 32;

impl Declared {
    /// What the project at `workspace` declares, with the command lines that `verdict.toml`
    /// gives verifiers (`[verifiers.<name>] command`, in [`Workspace::commands`]) in place of the
    /// first command that runs the same verifier's tool.
    pub fn of(workspace: &Workspace) -> Declared {
        let mut declared = Declared::from_files(&workspace.root);
        for (verifier, line) in &workspace.commands {
            declared.set(verifier, line, workspace);
        }
        declared
    }

    /// What the project's own files declare.
    pub fn from_files(root: &Path) -> Declared {
        let mut builder = Builder::default();
        let package = PackageJson::read(&Workspace::new(root)).ok().flatten();
        let mut has_test = false;
        if let Some(package) = &package {
            let scripts = scripts(package);
            let manager = Manager::of(root);
            for (name, purpose) in ENTRY_SCRIPTS {
                if scripts
                    .get(*name)
                    .is_some_and(|text| !is_npm_placeholder(text))
                {
                    has_test |= *purpose == Purpose::Test;
                    let origin = format!("the `{name}` script");
                    builder.run_by = manager.runs(name);
                    builder.script(root, &scripts, name, *purpose, &origin, &[], 0);
                }
            }
            builder.run_by.clear();
        }
        // A workspace package without a test of its own: the root's, as it runs here, or,
        // when it cannot be scoped to the package, said to be not run.
        let mut root_test = None;
        if !has_test && package.is_some() {
            let scoped = scoped::commands(root);
            has_test = !scoped.is_empty();
            if !has_test {
                root_test = scoped::unscoped(root);
            }
            builder.commands.extend(scoped);
        }
        if !has_test {
            python_entries(root, &mut builder);
        }
        // The lint and type checks of a Python project's tox environments, nox sessions,
        // Makefile targets, pre-commit hooks and task runners: those a verifier runs become
        // commands; the others are said not to be run.
        let mut unrun = checks::add(root, &mut builder);
        let commands = dedup(builder.commands);
        unrun.extend(root_test);
        Declared { commands, unrun }
    }

    /// Whether the project declares any command for `purpose`.
    pub fn declares(&self, purpose: Purpose) -> bool {
        self.commands.iter().any(|c| c.purpose == purpose)
    }

    /// The first declared command that verifier `name` runs (see [`Command::verifier`]).
    pub fn for_verifier(&self, name: &str) -> Option<&Command> {
        self.commands.iter().find(|c| c.verifier() == Some(name))
    }

    /// The declared commands no verifier among `linked` covers: those that run no verifier's
    /// tool, and those that run one whose first command is another (a second jest run with other
    /// options). Each with its index.
    pub fn uncovered<'a>(
        &'a self,
        linked: &'a BTreeSet<String>,
    ) -> impl Iterator<Item = (usize, &'a Command)> + 'a {
        self.commands.iter().enumerate().filter(move |(index, c)| {
            match c.verifier().filter(|name| linked.contains(*name)) {
                None => true,
                Some(name) => {
                    self.commands
                        .iter()
                        .position(|first| first.verifier() == Some(name))
                        != Some(*index)
                }
            }
        })
    }

    /// Puts `line` (from verdict.toml) in place of the first command that runs verifier
    /// `verifier`, or adds it first when there is none. A line that cannot be split is ignored
    /// (verdict.toml's loader has already refused it).
    fn set(&mut self, verifier: &str, line: &str, workspace: &Workspace) {
        let mut builder = Builder::default();
        let scripts = PackageJson::read(workspace)
            .ok()
            .flatten()
            .map(|p| scripts(&p))
            .unwrap_or_default();
        let origin = format!("`command` of [verifiers.{verifier}] in verdict.toml");
        builder.line(
            &workspace.root,
            &scripts,
            line,
            Purpose::Test,
            &origin,
            &[],
            0,
        );
        let Some(command) = builder
            .commands
            .into_iter()
            .find(|c| c.verifier() == Some(verifier))
        else {
            return;
        };
        match self
            .commands
            .iter()
            .position(|c| c.verifier() == Some(verifier))
        {
            Some(at) => {
                let purpose = self.commands[at].purpose;
                let after = std::mem::take(&mut self.commands[at].after);
                // The project's own command still runs the tool the line stands in for.
                let run_by = std::mem::take(&mut self.commands[at].run_by);
                self.commands[at] = Command {
                    purpose,
                    after,
                    run_by,
                    ..command
                };
            }
            None => {
                for existing in &mut self.commands {
                    for index in &mut existing.after {
                        *index += 1;
                    }
                }
                self.commands.insert(0, command);
            }
        }
    }
}

/// Whether verifier `name` (whose tool serves `purpose`) applies to `workspace`, with the
/// project's declared commands as the reference:
/// - a declared command runs its tool: it applies, and says which command;
/// - the project declares commands for `purpose` (from package.json, or for a Python verifier
///   from the Python project's files) and none runs its tool: it does not apply, whatever config
///   file is lying around — the project does not run it;
/// - the project declares none: `fallback`, the verifier's own detection from its files.
pub fn applicability(
    workspace: &Workspace,
    name: &str,
    purpose: Purpose,
    python: bool,
    fallback: impl FnOnce() -> Applicability,
) -> Applicability {
    let declared = Declared::of(workspace);
    if let Some(command) = declared.for_verifier(name) {
        return Applicability::Applies(format!("{} runs `{}`", command.origin, command.text));
    }
    let scope: Vec<&Command> = declared
        .commands
        .iter()
        .filter(|c| c.purpose == purpose && c.python == python)
        .collect();
    if scope.is_empty() {
        return fallback();
    }
    let runs = scope
        .iter()
        .take(3)
        .map(|c| format!("`{}`", c.text))
        .collect::<Vec<_>>()
        .join(", ");
    let never = format!(
        "the project's declared {} commands never run {name} (they run {runs})",
        purpose.as_str()
    );
    match fallback() {
        Applicability::Applies(found) => {
            Applicability::DoesNotApply(format!("{found}, but {never}"))
        }
        Applicability::DoesNotApply(_) => Applicability::DoesNotApply(never),
    }
}

/// Whether a script is the placeholder `npm init` writes (`echo "Error: no test specified" &&
/// exit 1`): the project declares no test with it.
fn is_npm_placeholder(text: &str) -> bool {
    text.contains("Error: no test specified") && text.contains("exit 1")
}

/// The commands with each one the project runs twice (`test` and `check` both run
/// `check:types`) kept once, where it first comes; what ran after a dropped copy runs after the
/// kept one.
fn dedup(commands: Vec<Command>) -> Vec<Command> {
    let mut kept: Vec<Command> = Vec::new();
    // For each original index, its index among the kept commands.
    let mut at: Vec<usize> = Vec::with_capacity(commands.len());
    for command in commands {
        match kept.iter().position(|k| {
            k.words == command.words && k.shell == command.shell && k.text == command.text
        }) {
            Some(same) => {
                // Each check that runs it runs it: `npm run check` as much as `npm test`.
                for run_by in command.run_by {
                    if !kept[same].run_by.contains(&run_by) {
                        kept[same].run_by.push(run_by);
                    }
                }
                at.push(same);
            }
            None => {
                at.push(kept.len());
                kept.push(command);
            }
        }
    }
    for (index, command) in kept.iter_mut().enumerate() {
        let mut after: Vec<usize> = command
            .after
            .iter()
            .filter_map(|&before| at.get(before).copied())
            .filter(|&before| before != index)
            .collect();
        after.sort_unstable();
        after.dedup();
        command.after = after;
    }
    kept
}

/// The string-valued scripts of a package.
fn scripts(package: &PackageJson) -> BTreeMap<String, String> {
    package
        .scripts
        .iter()
        .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
        .collect()
}

/// Collects commands while following indirections.
#[derive(Default)]
struct Builder {
    commands: Vec<Command>,
    /// Scripts being expanded, to stop at a loop.
    active: Vec<String>,
    /// The files declaring what is being expanded (see [`Command::sources`]).
    sources: Vec<InfraFile>,
    /// How a person runs what is being expanded (see [`Command::run_by`]).
    run_by: Vec<Vec<String>>,
}

impl Builder {
    /// Adds the commands of script `name`, with npm's `pre<name>` and `post<name>` around it;
    /// `extra` are arguments given after `--` (`npm run lint -- --fix`), passed to its last
    /// command. Returns the indices of the commands added.
    #[expect(clippy::too_many_arguments, reason = "one recursive walk's state")]
    fn script(
        &mut self,
        root: &Path,
        scripts: &BTreeMap<String, String>,
        name: &str,
        purpose: Purpose,
        origin: &str,
        extra: &[String],
        depth: usize,
    ) -> Vec<usize> {
        if depth > MAX_DEPTH
            || self.active.iter().any(|active| active == name)
            || self.commands.len() >= MAX_COMMANDS
        {
            return Vec::new();
        }
        if !scripts.contains_key(name) {
            return Vec::new();
        }
        self.active.push(name.to_owned());
        let outer = self.sources.len();
        // npm runs `pre<name>` and `post<name>` whenever it runs `<name>`: one added later
        // changes the check as much as an edit to the script does.
        for part in [format!("pre{name}"), name.to_owned(), format!("post{name}")] {
            self.source(InfraFile {
                glob: "package.json".to_owned(),
                part: InfraPart::Json(vec!["scripts".to_owned(), part]),
            });
        }
        let mut added = Vec::new();
        for (part, args) in [
            (format!("pre{name}"), &[][..]),
            (name.to_owned(), extra),
            (format!("post{name}"), &[][..]),
        ] {
            let Some(text) = scripts.get(&part) else {
                continue;
            };
            if is_npm_placeholder(text) {
                continue;
            }
            let origin = if part == name {
                origin.to_owned()
            } else {
                format!("{origin} (its `{part}`)")
            };
            let mut line = text.clone();
            for arg in args {
                line.push(' ');
                line.push_str(&quote(arg));
            }
            let done = self.line(root, scripts, &line, purpose, &origin, &added, depth + 1);
            added.extend(done);
        }
        self.sources.truncate(outer);
        self.active.pop();
        added
    }

    /// Adds `file` to the sources of the commands added from now on, once.
    fn source(&mut self, file: InfraFile) {
        if !self.sources.contains(&file) {
            self.sources.push(file);
        }
    }

    /// Adds the commands of a script's text; `before` are the commands that must pass first.
    #[expect(clippy::too_many_arguments, reason = "one recursive walk's state")]
    fn line(
        &mut self,
        root: &Path,
        scripts: &BTreeMap<String, String>,
        text: &str,
        purpose: Purpose,
        origin: &str,
        before: &[usize],
        depth: usize,
    ) -> Vec<usize> {
        let Some(parts) = chain(text).filter(|parts| !parts.iter().any(changes_the_shell)) else {
            // One command for a shell: `a || b`, a pipe, a subshell, or a chain whose commands
            // share the shell's state (`cd packages/a && jest` runs jest in packages/a).
            return vec![self.push(text, purpose, origin, before, true, false)];
        };
        let mut added = Vec::new();
        let mut needed: Vec<usize> = before.to_vec();
        for part in parts {
            let done = if part.complex {
                vec![self.push(&part.text, purpose, origin, &needed, true, false)]
            } else {
                self.one(root, scripts, &part.text, purpose, origin, &needed, depth)
            };
            added.extend(&done);
            if part.and_then {
                needed.extend(done);
            }
        }
        added
    }

    /// Adds one command of a chain, following it when it runs another script or target.
    #[expect(clippy::too_many_arguments, reason = "one recursive walk's state")]
    fn one(
        &mut self,
        root: &Path,
        scripts: &BTreeMap<String, String>,
        text: &str,
        purpose: Purpose,
        origin: &str,
        before: &[usize],
        depth: usize,
    ) -> Vec<usize> {
        let Ok(words) = split_command(text) else {
            return vec![self.push(text, purpose, origin, before, true, false)];
        };
        let program = program_start(&words);
        let start = words.len() - program.len();
        let assigns = &words[..start];
        // `run-s lint:*` is a glob for npm-run-all, which no file matches for the shell.
        let targets = runs_scripts(program, scripts);
        if targets.is_none() && needs_shell(text) {
            return vec![self.push(text, purpose, origin, before, true, false)];
        }
        if targets.is_none() && installs(program) {
            // Setting up the environment checks nothing: the run is verdict's.
            return Vec::new();
        }
        if let Some(targets) = targets {
            // Variables set before `npm run x` reach x's commands, as they would in a shell.
            let mut added = Vec::new();
            for (name, extra) in targets {
                let origin = format!("{origin} → `{name}`");
                let mut commands_before = before.to_vec();
                commands_before.extend(&added);
                let first = self.commands.len();
                let done = self.script(root, scripts, &name, purpose, &origin, &extra, depth + 1);
                for command in &mut self.commands[first..] {
                    let mut words = assigns.to_vec();
                    words.append(&mut command.words);
                    command.words = words;
                    command.after.extend(commands_before.iter().copied());
                    command.after.sort_unstable();
                    command.after.dedup();
                }
                added.extend(done);
            }
            return added;
        }
        if program
            .first()
            .is_some_and(|word| program_name(word) == "make")
            && let Some(targets) = make_targets(&program[1..])
            && let Some(makefile) = Makefile::read(root)
            && targets.iter().all(|t| makefile.plain(t))
        {
            let mut added = Vec::new();
            for target in targets {
                let origin = format!("{origin} → the Makefile's `{target}` target");
                let mut needed = before.to_vec();
                needed.extend(&added);
                added.extend(makefile.expand(self, root, &target, purpose, &origin, &needed));
            }
            return added;
        }
        vec![self.push(text, purpose, origin, before, false, false)]
    }

    /// Adds a Python project's test commands, each run after those before it: tox runs its
    /// commands in order and stops at the first that fails, as nox's `session.run` raises.
    fn python_sequence(
        &mut self,
        root: &Path,
        lines: &[String],
        purpose: Purpose,
        origin: &str,
        source: InfraFile,
    ) {
        let outer = self.sources.len();
        self.source(source);
        let mut before: Vec<usize> = Vec::new();
        for line in lines {
            let first = self.commands.len();
            let done = self.line(root, &BTreeMap::new(), line, purpose, origin, &before, 1);
            for command in &mut self.commands[first..] {
                command.python = true;
            }
            before.extend(done);
        }
        self.sources.truncate(outer);
    }

    fn push(
        &mut self,
        text: &str,
        purpose: Purpose,
        origin: &str,
        before: &[usize],
        shell: bool,
        python: bool,
    ) -> usize {
        let words = split_command(text).unwrap_or_default();
        self.commands.push(Command {
            purpose,
            origin: origin.to_owned(),
            words,
            text: text.trim().to_owned(),
            shell,
            globs: has_glob(text),
            after: before.to_vec(),
            python,
            from_workspace_root: false,
            sources: self.sources.clone(),
            run_by: self.run_by.clone(),
        });
        self.commands.len() - 1
    }
}

/// The scripts a command runs through a package manager (`npm run a -- --fix`, `npm test`,
/// `pnpm a`, `yarn a`, `run-s a b:*`, `npm-run-all --parallel a b`), each with the arguments
/// given after `--`; `None` when it runs no script.
fn runs_scripts(
    words: &[String],
    scripts: &BTreeMap<String, String>,
) -> Option<Vec<(String, Vec<String>)>> {
    let program = program_name(words.first()?);
    let rest = &words[1..];
    let split_extra = |rest: &[String]| -> (Vec<String>, Vec<String>) {
        match rest.iter().position(|w| w == "--") {
            Some(at) => (rest[..at].to_vec(), rest[at + 1..].to_vec()),
            None => (rest.to_vec(), Vec::new()),
        }
    };
    match program.as_str() {
        "npm" | "pnpm" | "yarn" | "bun" => {
            let (before, extra) = split_extra(rest);
            let mut positional = before.iter().filter(|w| !w.starts_with('-'));
            let first = positional.next()?;
            let name = match first.as_str() {
                "run" | "run-script" => positional.next()?.clone(),
                "test" | "t" | "tst" => "test".to_owned(),
                // pnpm, yarn and bun run a script by its name alone.
                other if program != "npm" && scripts.contains_key(other) => other.to_owned(),
                _ => return None,
            };
            // A workspace-wide run (`--workspaces`, `-r`, `--filter`) is another package's script.
            if before.iter().any(|w| {
                w.starts_with("--workspace")
                    || w.starts_with("--filter")
                    || w == "-r"
                    || w == "--recursive"
                    || w == "-w"
            }) {
                return None;
            }
            scripts.contains_key(&name).then(|| vec![(name, extra)])
        }
        "run-s" | "run-p" | "npm-run-all" => {
            let patterns: Vec<&String> = rest.iter().filter(|w| !w.starts_with('-')).collect();
            if patterns.is_empty() {
                return None;
            }
            let mut names = Vec::new();
            for pattern in patterns {
                let matched: Vec<String> = scripts
                    .keys()
                    .filter(|name| run_all_matches(pattern, name))
                    .cloned()
                    .collect();
                if matched.is_empty() {
                    return None;
                }
                names.extend(matched.into_iter().map(|name| (name, Vec::new())));
            }
            Some(names)
        }
        _ => None,
    }
}

/// npm-run-all's glob: `*` matches within one `:`-separated part, `**` across parts.
fn run_all_matches(pattern: &str, name: &str) -> bool {
    // The tokens of the pattern: `**`, `*`, or a literal byte.
    #[derive(Clone, Copy, PartialEq)]
    enum Token {
        Any,
        AnyInPart,
        Byte(u8),
    }
    let bytes = pattern.as_bytes();
    let mut tokens = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'*' {
            if bytes.get(i + 1) == Some(&b'*') {
                tokens.push(Token::Any);
                i += 2;
            } else {
                tokens.push(Token::AnyInPart);
                i += 1;
            }
        } else {
            tokens.push(Token::Byte(bytes[i]));
            i += 1;
        }
    }
    // `now[j]`: whether the first `j` tokens match the name read so far (one row at a time, so
    // any pattern costs pattern × name steps, never more).
    let name = name.as_bytes();
    let mut now = vec![false; tokens.len() + 1];
    now[0] = true;
    for j in 0..tokens.len() {
        now[j + 1] = now[j] && matches!(tokens[j], Token::Any | Token::AnyInPart);
    }
    for &c in name {
        let mut next = vec![false; tokens.len() + 1];
        for j in 0..tokens.len() {
            next[j + 1] = match tokens[j] {
                Token::Byte(b) => now[j] && b == c,
                // A star takes this byte too (`now[j + 1]`), or matches nothing (`next[j]`).
                Token::Any => now[j + 1] || next[j],
                Token::AnyInPart => (now[j + 1] && c != b':') || next[j],
            };
        }
        now = next;
    }
    now[tokens.len()]
}

/// The targets of a `make` command line (`make test`, `make -s lint test`); `None` with options
/// that change what make reads (`-C dir`, `-f file`).
fn make_targets(args: &[String]) -> Option<Vec<String>> {
    let mut targets = Vec::new();
    for arg in args {
        if arg.starts_with("-C") || arg.starts_with("-f") || arg.starts_with("--directory") {
            return None;
        }
        if !arg.starts_with('-') && !arg.contains('=') {
            targets.push(arg.clone());
        }
    }
    if targets.is_empty() {
        return None;
    }
    Some(targets)
}

/// One command of a chain: its text, whether the next runs only when it passed (`&&`), and
/// whether it is a shell construct of its own (`a || b`, a pipe, a background job).
struct Part {
    text: String,
    and_then: bool,
    complex: bool,
}

/// Splits a script into its `&&`-, `;`- and newline-separated commands. A part with `||`, a pipe
/// or a background `&` is one shell command (`tsc || true; jest` is the shell command `tsc ||
/// true`, then `jest`); `None` when the script has a subshell or braces at its top level, or a
/// quote that never ends: it is one shell command as a whole.
fn chain(text: &str) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut complex = false;
    let mut chars = text.chars().peekable();
    let mut quote: Option<char> = None;
    let mut end = |current: &mut String, complex: &mut bool, and_then: bool| {
        parts.push(Part {
            text: std::mem::take(current).trim().to_owned(),
            and_then,
            complex: std::mem::take(complex),
        });
    };
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            current.push(c);
            if c == '\\' && q == '"' {
                current.extend(chars.next());
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                current.push(c);
            }
            '\\' => {
                current.push(c);
                current.extend(chars.next());
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                end(&mut current, &mut complex, true);
            }
            // `2>&1`, `&>file`: a redirection, not a background job.
            '&' if current.ends_with('>') || chars.peek() == Some(&'>') => current.push(c),
            ';' | '\n' => end(&mut current, &mut complex, false),
            '|' | '&' => {
                complex = true;
                current.push(c);
            }
            '(' | ')' | '{' | '}' => return None,
            c => current.push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    end(&mut current, &mut complex, false);
    let parts: Vec<Part> = parts.into_iter().filter(|p| !p.text.is_empty()).collect();
    (!parts.is_empty()).then_some(parts)
}

/// Whether a part of a chain changes the shell the next parts run in (`cd`, `export`, `source`,
/// `set`, `umask`, an assignment alone), or is a builtin no program stands for (`exit`): the
/// chain then runs as one shell command.
fn changes_the_shell(part: &Part) -> bool {
    let Ok(words) = split_command(&part.text) else {
        return true;
    };
    let Some(first) = words.first() else {
        return false;
    };
    matches!(
        first.as_str(),
        "cd" | "pushd"
            | "popd"
            | "export"
            | "unset"
            | "source"
            | "."
            | "set"
            | "umask"
            | "exit"
            | "shopt"
            | "alias"
            | "trap"
            | "ulimit"
    ) || words.iter().all(|word| {
        word.split_once('=')
            .is_some_and(|(name, _)| is_variable_name(name))
    })
}

/// Whether a command (one part of a chain) means something only a shell gives it: variables,
/// command substitution, redirections, `~`. Globs are apart (see [`has_glob`]).
fn needs_shell(text: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    let mut word_start = true;
    while let Some(c) = chars.next() {
        match quote {
            Some('\'') => {
                if c == '\'' {
                    quote = None;
                }
            }
            Some(_) => match c {
                '"' => quote = None,
                '\\' => {
                    chars.next();
                }
                '$' | '`' => return true,
                _ => {}
            },
            None => match c {
                '\'' | '"' => quote = Some(c),
                '\\' => {
                    chars.next();
                }
                '$' | '`' | '>' | '<' => return true,
                '~' if word_start => return true,
                _ => {}
            },
        }
        word_start = quote.is_none() && c.is_whitespace();
    }
    false
}

/// Whether `text` has a glob character outside quotes (`*`, `?`, `[`).
fn has_glob(text: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => {
                chars.next();
            }
            (None, '*' | '?' | '[') => return true,
            _ => {}
        }
    }
    false
}

/// `word` quoted for a shell line when it needs it.
fn quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A Makefile's rules, as far as plain ones can be read: target, prerequisites, recipe lines.
struct Makefile {
    /// Its file name (`GNUmakefile`, `makefile`, `Makefile`: the first make reads).
    name: &'static str,
    rules: BTreeMap<String, (Vec<String>, Vec<String>)>,
    /// Variables set in the file (`NAME = value`, `:=`, `?=`), for recipes that use them.
    variables: BTreeMap<String, String>,
}

impl Makefile {
    fn read(root: &Path) -> Option<Makefile> {
        let (name, text) = ["GNUmakefile", "makefile", "Makefile"]
            .into_iter()
            .find_map(|name| Some((name, std::fs::read_to_string(root.join(name)).ok()?)))?;
        let mut rules: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
        let mut variables: BTreeMap<String, String> = BTreeMap::new();
        let mut current: Vec<String> = Vec::new();
        let mut continued = String::new();
        for raw in text.lines() {
            if let Some(recipe) = raw.strip_prefix('\t') {
                let line = format!("{continued}{recipe}");
                if let Some(head) = line.strip_suffix('\\') {
                    continued = format!("{head} ");
                    continue;
                }
                continued.clear();
                for target in &current {
                    if let Some(rule) = rules.get_mut(target) {
                        rule.1.push(line.clone());
                    }
                }
                continue;
            }
            continued.clear();
            let line = raw.split('#').next().unwrap_or_default();
            if line.trim().is_empty() {
                continue;
            }
            current.clear();
            if let Some((name, value)) = assignment(line) {
                variables.insert(name, value);
                continue;
            }
            // `target: prerequisites`, but not `VAR := value`.
            let Some((targets, prerequisites)) = line.split_once(':') else {
                continue;
            };
            if prerequisites.starts_with('=') || targets.contains('=') {
                continue;
            }
            let prerequisites: Vec<String> = prerequisites
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            for target in targets.split_whitespace() {
                if target.starts_with('.') {
                    continue;
                }
                current.push(target.to_owned());
                rules
                    .entry(target.to_owned())
                    .or_default()
                    .0
                    .extend(prerequisites.iter().cloned());
            }
        }
        Some(Makefile {
            name,
            rules,
            variables,
        })
    }

    /// A recipe line with make's variable references expanded as make would: a variable the
    /// file sets to a plain value becomes that value, one it never sets becomes nothing (unless
    /// the environment sets it, which a check run does not count on), `$$` is `$`. `None` when
    /// the line calls one of make's functions or uses a variable whose value is not plain.
    fn expand_line(&self, line: &str) -> Option<String> {
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (name, used) = match after.chars().next() {
                Some('$') => {
                    out.push('$');
                    rest = &after[1..];
                    continue;
                }
                Some(open @ ('(' | '{')) => {
                    let close = if open == '(' { ')' } else { '}' };
                    let end = after.find(close)?;
                    (&after[1..end], end + 1)
                }
                // `$@`, `$<`, `$X`: automatic and one-letter variables.
                _ => return None,
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                // A function call (`$(wildcard …)`) or a substitution reference.
                return None;
            }
            match self.variables.get(name) {
                Some(value) if value.contains('$') => return None,
                Some(value) => out.push_str(value),
                None => {}
            }
            rest = &after[used..];
        }
        out.push_str(rest);
        Some(out)
    }

    /// The target that runs the tests: `coverage` when its recipe runs them under coverage.py
    /// (`coverage run -m unittest`, `pytest --cov`), else `test`.
    fn test_target(&self) -> Option<&'static str> {
        let under_coverage = self.rules.get("coverage").is_some_and(|(_, recipe)| {
            recipe.iter().any(|line| {
                let line = self.expand_line(line).unwrap_or_else(|| line.clone());
                split_command(&line).is_ok_and(|words| {
                    coverage_wrapper(program_start(&words)).is_some()
                        || words.iter().any(|w| w.starts_with("--cov"))
                })
            })
        });
        if under_coverage {
            Some("coverage")
        } else {
            self.rules.contains_key("test").then_some("test")
        }
    }

    /// Whether `target` and the targets it needs are plain: recipes without make's variables or
    /// functions, prerequisites that are targets with plain rules (or files, which make only
    /// checks).
    fn plain(&self, target: &str) -> bool {
        self.plain_within(target, 0)
    }

    fn plain_within(&self, target: &str, depth: usize) -> bool {
        let Some((prerequisites, recipe)) = self.rules.get(target) else {
            return false;
        };
        depth <= MAX_DEPTH
            && recipe.iter().all(|line| self.expand_line(line).is_some())
            && prerequisites
                .iter()
                .filter(|p| self.rules.contains_key(*p))
                .all(|p| self.plain_within(p, depth + 1))
    }

    /// Adds the commands of `target`: its prerequisites' first, then its recipe, each recipe line
    /// run by a shell as make runs it (`@` and `-` prefixes dropped).
    fn expand(
        &self,
        builder: &mut Builder,
        root: &Path,
        target: &str,
        purpose: Purpose,
        origin: &str,
        before: &[usize],
    ) -> Vec<usize> {
        let mut added = Vec::new();
        let Some((prerequisites, recipe)) = self.rules.get(target) else {
            return added;
        };
        // Targets and scripts are apart: `npm test` may well run `make test`.
        let key = format!("make {target}");
        if builder.active.contains(&key) || builder.commands.len() >= MAX_COMMANDS {
            return added;
        }
        builder.active.push(key);
        let outer = builder.sources.len();
        builder.source(self.source());
        for prerequisite in prerequisites {
            if self.rules.contains_key(prerequisite) {
                let mut needed = before.to_vec();
                needed.extend(&added);
                let origin = format!("{origin} → `{prerequisite}`");
                added.extend(self.expand(builder, root, prerequisite, purpose, &origin, &needed));
            }
        }
        for line in recipe {
            let Some(line) = self.expand_line(line) else {
                continue;
            };
            let line = line.trim_start().trim_start_matches(['@', '-']).trim();
            if line.is_empty() {
                continue;
            }
            let mut needed = before.to_vec();
            needed.extend(&added);
            let first = builder.commands.len();
            let done = builder.line(root, &BTreeMap::new(), line, purpose, origin, &needed, 1);
            for command in &mut builder.commands[first..] {
                command.python = true;
            }
            added.extend(done);
        }
        builder.sources.truncate(outer);
        builder.active.pop();
        added
    }

    /// The Makefile, whole: a recipe line, a variable or a prerequisite changes what runs.
    fn source(&self) -> InfraFile {
        InfraFile {
            glob: self.name.to_owned(),
            part: InfraPart::Whole,
        }
    }
}

/// A Makefile variable assignment (`NAME = value`, `NAME := value`, `NAME ?= value`,
/// `export NAME = value`), as its name and value.
fn assignment(line: &str) -> Option<(String, String)> {
    let line = line.strip_prefix("export ").unwrap_or(line);
    let at = line.find('=')?;
    let (name, value) = (&line[..at], &line[at + 1..]);
    let name = name.trim_end_matches([':', '?', '+', '!']).trim();
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| (name.to_owned(), value.trim().to_owned()))
}

/// A Python project's test commands: the Makefile's `coverage` target when it runs the tests
/// under coverage (its threshold fails the run as CI runs it), else its `test` target, else
/// tox's `[testenv]` commands, else the `test` script of pyproject.toml's task runners (hatch,
/// poe, pdm).
fn python_entries(root: &Path, builder: &mut Builder) {
    if let Some(makefile) = Makefile::read(root)
        && let Some(target) = makefile.test_target()
    {
        let origin = format!("the Makefile's `{target}` target");
        builder.run_by = vec![vec!["make".to_owned(), target.to_owned()]];
        if makefile.plain(target) {
            makefile.expand(builder, root, target, Purpose::Test, &origin, &[]);
        } else {
            // Not plain: make itself runs it, as the project would.
            builder.source(makefile.source());
            let line = format!("make {target}");
            builder.push(&line, Purpose::Test, &origin, &[], false, true);
            builder.sources.clear();
        }
        builder.run_by.clear();
        return;
    }
    if let Some((commands, origin, source)) = tox_commands(root) {
        builder.python_sequence(root, &commands, Purpose::Test, origin, source);
    } else if let Some((commands, session)) = nox_commands(root) {
        let origin = format!("noxfile.py's `{session}` session");
        let source = InfraFile {
            glob: "noxfile.py".to_owned(),
            part: InfraPart::Whole,
        };
        builder.run_by = vec![["nox", "-s", session.as_str()].map(str::to_owned).to_vec()];
        builder.python_sequence(root, &commands, Purpose::Test, &origin, source);
    } else if let Some((line, origin, source, runner)) = pyproject_test(root) {
        builder.run_by = vec![runner];
        builder.python_sequence(root, &[line], Purpose::Test, &origin, source);
    }
    builder.run_by.clear();
}

/// The commands of tox.ini's `[testenv]` section (`{posargs}` and tox's substitutions removed),
/// with where they come from, or `None` without one.
fn tox_commands(root: &Path) -> Option<(Vec<String>, &'static str, InfraFile)> {
    match std::fs::read_to_string(root.join("tox.ini")) {
        Ok(text) => tox_ini_commands(&text).map(|c| {
            let source = InfraFile {
                glob: "tox.ini".to_owned(),
                part: InfraPart::Ini("testenv".to_owned()),
            };
            (c, "tox.ini's [testenv] commands", source)
        }),
        Err(_) => {
            tox_toml_commands(root).map(|(c, source)| (c, "tox's env_run_base commands", source))
        }
    }
}

/// tox 4's TOML configuration: `env_run_base.commands` of `tox.toml`, else of `[tool.tox]` in
/// pyproject.toml (or its `legacy_tox_ini`, read as tox.ini). Each command is an array of words;
/// `{ replace = "posargs", default = […] }` gives its default.
fn tox_toml_commands(root: &Path) -> Option<(Vec<String>, InfraFile)> {
    let (tox, source) = match std::fs::read_to_string(root.join("tox.toml")) {
        Ok(text) => {
            let source = InfraFile {
                glob: "tox.toml".to_owned(),
                part: InfraPart::Toml(vec!["env_run_base".to_owned()]),
            };
            (toml::from_str::<toml::Table>(&text).ok()?, source)
        }
        Err(_) => {
            let text = std::fs::read_to_string(root.join("pyproject.toml")).ok()?;
            let pyproject: toml::Table = toml::from_str(&text).ok()?;
            let source = InfraFile {
                glob: "pyproject.toml".to_owned(),
                part: InfraPart::Toml(vec!["tool".to_owned(), "tox".to_owned()]),
            };
            (
                pyproject.get("tool")?.get("tox")?.as_table()?.clone(),
                source,
            )
        }
    };
    if let Some(legacy) = tox.get("legacy_tox_ini").and_then(toml::Value::as_str) {
        return tox_ini_commands(legacy).map(|c| (c, source));
    }
    let commands = tox.get("env_run_base")?.get("commands")?.as_array()?;
    let mut lines = Vec::new();
    for command in commands {
        let mut words: Vec<String> = Vec::new();
        for word in command.as_array()? {
            match word {
                toml::Value::String(word) => words.push(quote(word)),
                toml::Value::Table(table)
                    if table.get("replace").and_then(toml::Value::as_str) == Some("posargs") =>
                {
                    let defaults = table.get("default").and_then(toml::Value::as_array);
                    words.extend(
                        defaults
                            .into_iter()
                            .flatten()
                            .filter_map(toml::Value::as_str)
                            .map(quote),
                    );
                }
                // Another substitution (an environment variable, a reference): not plain.
                _ => return None,
            }
        }
        let line = tox_substitute(&words.join(" "));
        if !line.is_empty() {
            lines.push(line);
        }
    }
    (!lines.is_empty()).then_some((lines, source))
}

/// The commands of a tox.ini's `[testenv]` section, substituted (see [`tox_substitute`]).
fn tox_ini_commands(text: &str) -> Option<Vec<String>> {
    tox_ini_section_commands(text, "testenv")
}

/// The commands of tox.ini's section `[<section>]`, substituted (see [`tox_substitute`]).
fn tox_ini_section_commands(text: &str, section: &str) -> Option<Vec<String>> {
    let header = format!("[{section}]");
    let mut in_testenv = false;
    let mut in_commands = false;
    let mut commands = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            in_testenv = trimmed == header;
            in_commands = false;
            continue;
        }
        if !in_testenv || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if !indented {
            in_commands = false;
            if let Some((key, value)) = trimmed.split_once('=')
                && key.trim() == "commands"
            {
                in_commands = true;
                commands.push(value.trim().to_owned());
            }
        } else if in_commands {
            commands.push(trimmed.to_owned());
        }
    }
    let commands: Vec<String> = commands
        .into_iter()
        .map(|c| tox_substitute(&c))
        .filter(|c| !c.is_empty())
        .collect();
    (!commands.is_empty()).then_some(commands)
}

/// A tox command as it runs in its environment: `{posargs}` (and `{posargs:default}`) replaced
/// by its default, `{toxinidir}` by the project root, `{envpython}` by `python`, a word with any
/// other substitution (`--basetemp={envtmpdir}`: directories tox makes) left out, and a leading
/// `-` (ignore the exit code) dropped.
fn tox_substitute(command: &str) -> String {
    let command = command.trim().trim_start_matches('-').trim_start();
    let Ok(words) = split_command(command) else {
        return command.to_owned();
    };
    let mut out: Vec<String> = Vec::new();
    for word in words {
        let mut text = String::new();
        let mut rest = word.as_str();
        let mut known = true;
        while let Some(open) = rest.find('{') {
            text.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                text.push_str(&rest[open..]);
                rest = "";
                break;
            };
            let name = &after[..close];
            match name.split_once(':') {
                Some(("posargs", default)) => text.push_str(default),
                _ => match name {
                    "posargs" => {}
                    "toxinidir" | "tox_root" => text.push('.'),
                    "envpython" | "env_python" => text.push_str("python"),
                    _ => known = false,
                },
            }
            rest = &after[close + 1..];
        }
        text.push_str(rest);
        if !known {
            continue;
        }
        // `{posargs:tests docs}` gives several words.
        out.extend(
            split_command(&text)
                .unwrap_or_default()
                .into_iter()
                .filter(|w| !w.is_empty()),
        );
    }
    out.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

/// The commands of noxfile.py's `test` (else `tests`) session, as far as they are plain: each
/// `session.run(…)` whose arguments are string literals, `sys.executable` (the session's
/// `python`) or `*session.posargs` (nothing); a session that only `session.notify`s another is
/// followed to it. `None` when there is no such session or a call is not plain.
fn nox_commands(root: &Path) -> Option<(Vec<String>, String)> {
    let text = std::fs::read_to_string(root.join("noxfile.py")).ok()?;
    let sessions = nox_sessions(&text);
    let mut name = ["test", "tests"]
        .into_iter()
        .find(|name| sessions.contains_key(*name))?
        .to_owned();
    for _ in 0..MAX_DEPTH {
        let body = sessions.get(&name)?;
        let calls = python_calls(body, "session.run(");
        if calls.is_empty() {
            // `session.notify("test")` hands the work to another session.
            let notified = python_calls(body, "session.notify(");
            let target = notified.first()?.as_ref()?.first()?.clone();
            name = target;
            continue;
        }
        let mut commands = Vec::new();
        for call in calls {
            let words = call?;
            if words.is_empty() {
                return None;
            }
            commands.push(words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" "));
        }
        return Some((commands, name));
    }
    None
}

/// The bodies of noxfile.py's sessions (functions under a `@nox.session` decorator, also
/// `@session` after `from nox import session`), by name: the function's, or the decorator's
/// `name="…"`. A decorator may span several lines (`@nox.session(\n    python=[…],\n)`).
fn nox_sessions(text: &str) -> BTreeMap<String, String> {
    let mut sessions = BTreeMap::new();
    let mut lines = text.lines().peekable();
    // The decorator's text while it is read, and whether one was seen before the `def`.
    let mut decorator: Option<String> = None;
    let mut depth: i32 = 0;
    while let Some(line) = lines.next() {
        if depth > 0 {
            if let Some(text) = decorator.as_mut() {
                text.push_str(line);
            }
            depth += paren_balance(line);
            continue;
        }
        if line.starts_with("@nox.session") || line.starts_with("@session") {
            decorator = Some(line.to_owned());
            depth = paren_balance(line);
            continue;
        }
        let Some(rest) = line.strip_prefix("def ") else {
            if !line.starts_with('@') && !line.trim().is_empty() {
                decorator = None;
            }
            continue;
        };
        let Some(decorator) = decorator.take() else {
            continue;
        };
        let function: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let name = decorator_name(&decorator).unwrap_or(function);
        let mut body = String::new();
        while let Some(next) = lines.peek() {
            if !next.is_empty() && !next.starts_with([' ', '\t']) {
                break;
            }
            body.push_str(next);
            body.push('\n');
            lines.next();
        }
        sessions.insert(name, body);
    }
    sessions
}

/// How many more `(` than `)` a line has, outside nothing cleverer than counting.
fn paren_balance(line: &str) -> i32 {
    line.chars().fold(0, |depth, c| match c {
        '(' => depth + 1,
        ')' => depth - 1,
        _ => depth,
    })
}

/// The `name="…"` a `@nox.session(…)` decorator gives its session.
fn decorator_name(decorator: &str) -> Option<String> {
    let at = decorator.find("name=")?;
    // Not `venv_name=` or another keyword ending in `name`.
    if decorator[..at]
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    let rest = decorator[at + "name=".len()..].trim_start();
    let quote = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let inner = &rest[1..];
    Some(inner[..inner.find(quote)?].to_owned())
}

/// The arguments of each call to `function` in `body`, or `None` for a call with an argument
/// that is not a string literal, `sys.executable` or `*session.posargs`.
fn python_calls(body: &str, function: &str) -> Vec<Option<Vec<String>>> {
    let mut calls = Vec::new();
    let mut rest = body;
    while let Some(at) = rest.find(function) {
        let after = &rest[at + function.len()..];
        let mut depth = 1;
        let mut end = None;
        let mut quote: Option<char> = None;
        for (i, c) in after.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '\'' | '"') => quote = Some(c),
                (None, '(' | '[') => depth += 1,
                (None, ')' | ']') => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            break;
        };
        calls.push(python_args(&after[..end]));
        rest = &after[end..];
    }
    calls
}

/// A call's arguments as words (see [`python_calls`]).
fn python_args(args: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    for arg in args.split(',') {
        let arg = arg.trim();
        if arg.is_empty() || arg == "*session.posargs" {
            continue;
        }
        if arg == "sys.executable" {
            words.push("python".to_owned());
            continue;
        }
        let quoted = arg.len() >= 2
            && ((arg.starts_with('"') && arg.ends_with('"'))
                || (arg.starts_with('\'') && arg.ends_with('\'')));
        let inner = &arg[1..arg.len().saturating_sub(1)];
        if !quoted || inner.contains(['"', '\'', '\\']) {
            return None;
        }
        words.push(inner.to_owned());
    }
    Some(words)
}

/// The `test` script of pyproject.toml's task runner, with where it comes from.
fn pyproject_test(root: &Path) -> Option<(String, String, InfraFile, Vec<String>)> {
    let text = std::fs::read_to_string(root.join("pyproject.toml")).ok()?;
    let value: toml::Table = toml::from_str(&text).ok()?;
    let tool = value.get("tool")?.as_table()?;
    let places: [(&[&str], &str, &[&str]); 4] = [
        (
            &["hatch", "envs", "default", "scripts", "test"],
            "[tool.hatch.envs.default.scripts] test",
            &["hatch", "run", "test"],
        ),
        (
            &["poe", "tasks", "test"],
            "[tool.poe.tasks] test",
            &["poe", "test"],
        ),
        (
            &["pdm", "scripts", "test"],
            "[tool.pdm.scripts] test",
            &["pdm", "run", "test"],
        ),
        (
            &["taskipy", "tasks", "test"],
            "[tool.taskipy.tasks] test",
            &["task", "test"],
        ),
    ];
    for (path, origin, runner) in places {
        let mut at = tool.get(path[0]);
        for key in &path[1..] {
            at = at.and_then(|v| v.get(*key));
        }
        let line = match at {
            Some(toml::Value::String(line)) => line.clone(),
            Some(toml::Value::Table(table)) => table
                .get("cmd")
                .or_else(|| table.get("shell"))
                .and_then(|v| v.as_str())?
                .to_owned(),
            _ => continue,
        };
        let line = line.replace("{args}", "").trim().to_owned();
        let source = InfraFile {
            glob: "pyproject.toml".to_owned(),
            part: InfraPart::Toml(
                std::iter::once("tool")
                    .chain(path.iter().copied())
                    .map(str::to_owned)
                    .collect(),
            ),
        };
        let runner = runner.iter().map(|w| (*w).to_owned()).collect();
        return Some((line, format!("pyproject.toml's {origin}"), source, runner));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("write");
        }
        dir
    }

    /// Each command as `origin: text [verifier] after`.
    fn check(files: &[(&str, &str)], expect: &[&str]) {
        let dir = project(files);
        let declared = Declared::from_files(dir.path());
        let got: Vec<String> = declared
            .commands
            .iter()
            .map(|c| {
                format!(
                    "{}: {}{} [{}] {:?}",
                    c.origin,
                    c.text,
                    if c.shell { " (sh)" } else { "" },
                    c.verifier().unwrap_or("-"),
                    c.after
                )
            })
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn chains_and_npm_run_are_followed_with_their_order() {
        check(
            &[(
                "package.json",
                r#"{"scripts": {"test": "npm run test:nodejs && npm run test:edge",
                "test:nodejs": "jest --env node", "test:edge": "TZ=UTC jest --env edge --no-coverage",
                "lint": "eslint ./src --ext .ts"}}"#,
            )],
            &[
                "the `test` script → `test:nodejs`: jest --env node [jest] []",
                "the `test` script → `test:edge`: TZ=UTC jest --env edge --no-coverage [jest] [0]",
                "the `lint` script: eslint ./src --ext .ts [eslint] []",
            ],
        );
    }

    #[test]
    fn pre_scripts_run_first_and_run_all_globs_match() {
        check(
            &[(
                "package.json",
                r#"{"scripts": {"pretest": "tsc", "test": "run-s check:* unit",
                "check:types": "tsc --noEmit", "check:lint": "eslint .", "check:a:b": "x",
                "unit": "node --test"}}"#,
            )],
            &[
                "the `test` script (its `pretest`): tsc [tsc] []",
                "the `test` script → `check:lint`: eslint . [eslint] [0]",
                "the `test` script → `check:types`: tsc --noEmit [tsc] [0, 1]",
                "the `test` script → `unit`: node --test [node-test] [0, 1, 2]",
            ],
        );
    }

    #[test]
    fn shell_lines_and_wrappers() {
        check(
            &[(
                "package.json",
                r#"{"scripts": {"test": "nyc mocha || exit 1", "lint": "standard && istanbul cover node_modules/mocha/bin/_mocha -- -R spec",
                "typecheck": "tsc -p . > out.txt"}}"#,
            )],
            &[
                "the `test` script: nyc mocha || exit 1 (sh) [-] []",
                "the `lint` script: standard [-] []",
                "the `lint` script: istanbul cover node_modules/mocha/bin/_mocha -- -R spec [-] [1]",
                "the `typecheck` script: tsc -p . > out.txt (sh) [-] []",
            ],
        );
    }

    #[test]
    fn a_part_with_or_is_a_shell_command_of_its_own() {
        check(
            &[(
                "package.json",
                r#"{"scripts": {"test": "tsc --noEmit || true; jest -c j.js && echo ok | cat"}}"#,
            )],
            &[
                "the `test` script: tsc --noEmit || true (sh) [-] []",
                "the `test` script: jest -c j.js [jest] []",
                "the `test` script: echo ok | cat (sh) [-] [1]",
            ],
        );
    }

    #[test]
    fn a_chain_that_changes_the_shell_is_one_command_and_npms_placeholder_none() {
        check(
            &[(
                "package.json",
                r#"{"scripts": {"test": "cd packages/a && jest", "lint": "export X=1; eslint ."}}"#,
            )],
            &[
                "the `test` script: cd packages/a && jest (sh) [-] []",
                "the `lint` script: export X=1; eslint . (sh) [-] []",
            ],
        );
        check(
            &[(
                "package.json",
                r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1", "lint": "eslint ."}}"#,
            )],
            &["the `lint` script: eslint . [eslint] []"],
        );
    }

    #[test]
    fn a_command_two_scripts_run_is_declared_once() {
        check(
            &[(
                "package.json",
                r#"{"scripts": {"test": "node --test && npm run types", "check": "npm run lint && npm run types",
                "types": "tsd && tsc -p tsconfig.ts.json", "lint": "eslint ."}}"#,
            )],
            &[
                "the `test` script: node --test [node-test] []",
                "the `test` script → `types`: tsd [-] [0]",
                "the `test` script → `types`: tsc -p tsconfig.ts.json [tsc] [0, 1]",
                "the `lint` script: eslint . [eslint] []",
            ],
        );
    }

    #[test]
    fn tox_4_toml_configuration_in_pyproject() {
        check(
            &[(
                "pyproject.toml",
                "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n\n[tool.tox.env_run_base]\ncommands = [[\n    \"pytest\", \"-v\", \"--tb=short\", \"--basetemp={env_tmp_dir}\",\n    {replace = \"posargs\", default = [], extend = true},\n]]\n",
            )],
            &["tox's env_run_base commands: pytest -v --tb=short [pytest] []"],
        );
    }

    #[test]
    fn make_test_and_node_bin_scripts() {
        check(
            &[
                (
                    "package.json",
                    r#"{"scripts": {"test": "make test && npm run test-typings",
                    "test-typings": "node_modules/typescript/bin/tsc -p tsconfig.json"}}"#,
                ),
                (
                    "Makefile",
                    "TESTS = $(wildcard test/*.js)\n\ntest: lint\n\t@node test/run.js\n\nlint:\n\t./node_modules/.bin/eslint index.js\n",
                ),
            ],
            &[
                "the `test` script → the Makefile's `test` target → `lint`: ./node_modules/.bin/eslint index.js [eslint] []",
                "the `test` script → the Makefile's `test` target: node test/run.js [-] [0]",
                "the `test` script → `test-typings`: node_modules/typescript/bin/tsc -p tsconfig.json [tsc] [0, 1]",
            ],
        );
    }

    #[test]
    fn python_projects_makefile_tox_and_pyproject() {
        check(
            &[("Makefile", ".PHONY: test\ntest:\n\tpython -m unittest -v\n")],
            &["the Makefile's `test` target: python -m unittest -v [unittest] []"],
        );
        // A variable the Makefile never sets is empty; one it sets is its value; a function
        // call leaves the target to make itself.
        check(
            &[(
                "Makefile",
                "PY := python3\n.PHONY: test\ntest:\n\t$(PY) -m unittest -v ${tests}\n",
            )],
            &["the Makefile's `test` target: python3 -m unittest -v [unittest] []"],
        );
        check(
            &[("Makefile", "test:\n\tpytest $(wildcard tests/*.py)\n")],
            &["the Makefile's `test` target: make test [-] []"],
        );
        check(
            &[(
                "tox.ini",
                "[tox]\nenvlist = py3\n\n[testenv]\ndeps = pytest\ncommands =\n    pytest -v --basetemp={envtmpdir} {posargs:tests}\n    python -m doctest README.md\n",
            )],
            &[
                "tox.ini's [testenv] commands: pytest -v tests [pytest] []",
                "tox.ini's [testenv] commands: python -m doctest README.md [-] [0]",
            ],
        );
        check(
            &[(
                "noxfile.py",
                "import sys\n\nimport nox\n\n\n@nox.session\ndef check(session):\n    session.run(\"ruff\", \"check\")\n\n\n@nox.session\ndef test(session: nox.Session) -> None:\n    session.install(\"-e\", \".\")\n    session.run(sys.executable, \"-m\", \"unittest\", \"-v\", *session.posargs)\n\n\n@nox.session(python=[\"3.12\"])\ndef tests(session):\n    session.notify(\"test\")\n",
            )],
            &[
                "noxfile.py's `test` session: python -m unittest -v [unittest] []",
                // The `check` session's ruff is a lint check of its own.
                "noxfile.py's `check` session: ruff check [ruff] []",
            ],
        );
        check(
            &[(
                "noxfile.py",
                "import nox\n\n@nox.session(python=[\"3.12\"])\ndef tests(session):\n    session.notify(\"unit\")\n\n@nox.session\ndef unit(session):\n    session.run(\n        \"pytest\",\n        \"--cov\",\n    )\n    session.run(\"coverage\", \"report\", \"--fail-under=90\")\n",
            )],
            &[
                "noxfile.py's `unit` session: pytest --cov [pytest] []",
                "noxfile.py's `unit` session: coverage report --fail-under=90 [-] [0]",
            ],
        );
        check(
            &[(
                "pyproject.toml",
                "[tool.hatch.envs.default.scripts]\ntest = \"pytest {args}\"\n",
            )],
            &["pyproject.toml's [tool.hatch.envs.default.scripts] test: pytest [pytest] []"],
        );
    }

    #[test]
    fn loops_and_missing_scripts_end() {
        check(
            &[(
                "package.json",
                r#"{"scripts": {"test": "npm run a", "a": "npm run test && npm run nope"}}"#,
            )],
            &["the `test` script → `a`: npm run nope [-] []"],
        );
    }

    /// The sources of each command, as `glob part`.
    fn sources(files: &[(&str, &str)]) -> Vec<Vec<String>> {
        let dir = project(files);
        Declared::from_files(dir.path())
            .commands
            .iter()
            .map(|c| {
                c.sources
                    .iter()
                    .map(|s| format!("{} {:?}", s.glob, s.part))
                    .collect()
            })
            .collect()
    }

    /// Each command as `text ← how the project runs it`.
    fn run_by(files: &[(&str, &str)]) -> Vec<String> {
        let dir = project(files);
        Declared::from_files(dir.path())
            .commands
            .iter()
            .map(|c| {
                let run_by: Vec<String> = c.run_by.iter().map(|argv| argv.join(" ")).collect();
                format!("{} <- {}", c.text, run_by.join(" | "))
            })
            .collect()
    }

    #[test]
    fn each_command_knows_the_projects_command_that_runs_it() {
        // Through scripts, with the package manager of the lock file; a command two scripts
        // run is run by both.
        assert_eq!(
            run_by(&[
                (
                    "package.json",
                    r#"{"scripts": {"test": "npm run unit", "unit": "jest", "lint": "eslint .",
                    "check": "npm run lint && tsc --noEmit", "build": "tsc -p ."}}"#,
                ),
                ("pnpm-lock.yaml", "lockfileVersion: '9.0'\n"),
            ]),
            [
                "jest <- pnpm test | pnpm run test",
                "eslint . <- pnpm lint | pnpm run lint | pnpm check | pnpm run check",
                "tsc --noEmit <- pnpm check | pnpm run check",
            ]
        );
        assert_eq!(
            run_by(&[("Makefile", "test:\n\tpytest -q\n")]),
            ["pytest -q <- make test"]
        );
        assert_eq!(
            run_by(&[(
                "tox.ini",
                "[testenv]\ncommands = pytest\n\n[testenv:typing]\ncommands = mypy src\n",
            )]),
            ["pytest <- ", "mypy src <- tox -e typing"]
        );
        assert_eq!(
            run_by(&[(
                "pyproject.toml",
                "[tool.poe.tasks]\ntest = \"pytest -x\"\nlint = \"ruff check .\"\n",
            )]),
            ["pytest -x <- poe test", "ruff check . <- poe lint"]
        );
    }

    #[test]
    fn each_command_names_the_files_that_declare_it() {
        let scripts = |name: &str| format!("package.json Json([\"scripts\", \"{name}\"])");
        assert_eq!(
            sources(&[(
                "package.json",
                r#"{"scripts": {"test": "npm run test:unit", "test:unit": "jest"}}"#,
            )]),
            [[
                scripts("pretest"),
                scripts("test"),
                scripts("posttest"),
                scripts("pretest:unit"),
                scripts("test:unit"),
                scripts("posttest:unit"),
            ]]
        );
        assert_eq!(
            sources(&[("Makefile", "test:\n\tpytest -q\n")]),
            [["Makefile Whole"]]
        );
        assert_eq!(
            sources(&[("tox.ini", "[testenv]\ncommands = pytest {posargs}\n")]),
            [["tox.ini Ini(\"testenv\")"]]
        );
        assert_eq!(
            sources(&[("pyproject.toml", "[tool.poe.tasks]\ntest = \"pytest -x\"\n")]),
            [["pyproject.toml Toml([\"tool\", \"poe\", \"tasks\", \"test\"])"]]
        );
        assert_eq!(
            sources(&[(
                "noxfile.py",
                "import nox\n@nox.session\ndef tests(session):\n    session.run(\"pytest\")\n"
            )]),
            [["noxfile.py Whole"]]
        );
    }

    #[test]
    fn program_words_skip_the_environment_wrappers() {
        let command = |text: &str| Command {
            purpose: Purpose::Test,
            origin: String::new(),
            words: split_command(text).expect("splits"),
            text: text.to_owned(),
            shell: false,
            globs: false,
            after: Vec::new(),
            python: false,
            from_workspace_root: false,
            sources: Vec::new(),
            run_by: Vec::new(),
        };
        let c = command("NODE_ENV=test cross-env TZ=UTC npx --yes vitest run");
        assert_eq!(c.program_words(), ["vitest", "run"]);
        assert_eq!(c.verifier(), Some("vitest"));
        assert_eq!(
            c.env().into_iter().collect::<Vec<_>>(),
            [
                ("NODE_ENV".to_owned(), "test".to_owned()),
                ("TZ".to_owned(), "UTC".to_owned())
            ]
        );
        assert_eq!(command("python3 -m pytest -x").verifier(), Some("pytest"));
        assert_eq!(command("cargo nextest run").verifier(), Some("cargo-test"));
        assert_eq!(
            command("node --import tsx --test src/").verifier(),
            Some("node-test")
        );
        assert_eq!(command("node test.js").verifier(), None);
        // Under a coverage wrapper, the runner's verifier runs it (through the wrapper).
        for (text, verifier, wrapper) in [
            ("c8 node --test", Some("node-test"), "c8"),
            ("nyc mocha", Some("mocha"), "nyc"),
            (
                "nyc --reporter=lcov --reporter text mocha -r x",
                Some("mocha"),
                "nyc --reporter=lcov --reporter text",
            ),
            (
                "c8 --check-coverage --lines 90 mocha",
                Some("mocha"),
                "c8 --check-coverage --lines 90",
            ),
            ("coverage run -m pytest", Some("pytest"), "coverage run"),
            (
                "coverage run --source x -m unittest -v",
                Some("unittest"),
                "coverage run --source x",
            ),
            (
                "python -m coverage run -m pytest",
                Some("pytest"),
                "python -m coverage run",
            ),
            ("c8 jest", None, "c8"),
        ] {
            let c = command(text);
            assert_eq!(c.verifier(), verifier, "{text}");
            assert_eq!(
                c.wrapper().map(|w| w.join(" ")).as_deref(),
                Some(wrapper),
                "{text}"
            );
        }
        assert_eq!(
            command("coverage run --source x -m pytest -x").runner_words(),
            ["python", "-m", "pytest", "-x"]
        );
        for text in [
            "nyc report",
            "coverage report --fail-under=90",
            "coverage run setup.py",
        ] {
            assert_eq!(command(text).wrapper(), None, "{text}");
            assert_eq!(command(text).verifier(), None, "{text}");
        }
    }

    #[test]
    fn scripts_that_run_each_other_many_times_stay_bounded() {
        let mut scripts = serde_json::Map::new();
        for level in 0..12 {
            let next = format!("s{}", level + 1);
            scripts.insert(
                format!("s{level}"),
                format!("npm run {next} && npm run {next} && npm run {next} && npm run {next}")
                    .into(),
            );
        }
        scripts.insert("s12".into(), "eslint .".into());
        scripts.insert("test".into(), "npm run s0".into());
        let package = serde_json::json!({ "scripts": scripts }).to_string();
        let dir = project(&[("package.json", &package)]);
        let declared = Declared::from_files(dir.path());
        // Every run of `eslint .` is the same command, declared once.
        assert_eq!(declared.commands.len(), 1);
    }

    #[test]
    fn run_all_globs() {
        assert!(run_all_matches("lint:*", "lint:js"));
        assert!(!run_all_matches("lint:*", "lint:js:fix"));
        assert!(run_all_matches("lint:**", "lint:js:fix"));
        assert!(!run_all_matches("lint:*", "lintx"));
        assert!(run_all_matches("*:*", "a:b"));
        assert!(!run_all_matches("*", "a:b"));
        assert!(run_all_matches("**", "a:b:c"));
        assert!(run_all_matches("t*t", "test"));
        // A pattern of many stars costs no more than its length times the name's.
        let stars = "*".repeat(61);
        assert!(!run_all_matches(&format!("{stars}x"), &"a".repeat(200)));
    }
}
