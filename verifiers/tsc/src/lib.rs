//! The `tsc` verifier: type-checks a TypeScript project with the project's own compiler
//! (`node_modules/.bin/tsc`, TypeScript 5 or the native TypeScript 7).
//!
//! What it runs, and why:
//! - A project with a `tsconfig.json`: `tsc -p tsconfig.json --noEmit --pretty false
//!   --diagnostics`. `--noEmit` checks without writing anything into the project; `--pretty false`
//!   gives one line per diagnostic (`src/a.ts(3,7): error TS2322: …`), which is also what tsc
//!   prints when its output is not a terminal, and what the `tsc` summarizer reads.
//!   `--diagnostics` prints how many files tsc read (`Files:  12`): a clean run prints nothing
//!   else, and a pass needs that evidence — a `tsc` that only exits 0 prints nothing at all.
//! - A project whose `tsconfig.json` has `references` (a "solution" config, often with `"files":
//!   []`), or whose own scripts run `tsc -b`: build mode, `tsc -b tsconfig.json --pretty false
//!   --diagnostics --verbose` (a build that is up to date prints no counts, only `--verbose`'s
//!   list of projects).
//!   Plain `tsc --noEmit` on a solution config checks no file at all and exits 0 — a pass that
//!   verified nothing — so it is never used there. `tsc -b --noEmit` cannot be used either: tsc
//!   rejects it as soon as one project references another (`TS6310: Referenced project … may not
//!   disable emit`), because the referencing project is checked against the declarations its
//!   reference emits. (Projects that set `noEmit` themselves and are referenced only by the
//!   solution config, as `npm create vite` makes them, build fine in build mode.) Build
//!   mode therefore writes what the project's own build writes (its `outDir`s and
//!   `.tsbuildinfo` files), exactly as `tsc -b` in the project's scripts would.
//! - No `tsconfig.json`, but a `package.json` script that runs `tsc -p <config>` (or `tsc -b
//!   <config>`): that config. A project that only depends on `typescript` with no config at all
//!   does not apply: tsc without a config and without files prints its help and checks nothing.
//!
//! Exit codes (measured with TypeScript 5.9 and 7.0): 0 when there is nothing to report; 1 or 2
//! when diagnostics were reported (`tsc --noEmit` exits 2 in TypeScript 5 and 1 in TypeScript 7,
//! build mode the other way round) — and also 1 or 2 for a configuration error (an unknown option,
//! a `tsconfig.json` that is not valid JSON, no inputs). The exit code cannot tell a type error from
//! a broken configuration; the summarizer can: an error without a file, one whose code tsc only
//! reports on an option, or one located in the tsconfig checked or in any file it extends or
//! references (resolved here from the project's files, so `extends: "./config/base.jsonc"` counts
//! too) makes the report errored.

use std::path::{Path, PathBuf};
use std::time::Duration;
use verdict_model::Tool;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Infrastructure, Inputs, VerifierError,
    Workspace,
};
use verdict_model::{Kind, Outcome, Report, Verifier};
use verdict_summarizers::tsc::TscSummarizer;
use verdict_verifier_support::declared::{self, Declared, Purpose};
use verdict_verifier_support::{
    PackageJson, infra, js_monorepo_root, node_bin, node_install_markers, summarize_log,
    summarize_log_as,
};

const NAME: &str = "tsc";

/// How long tsc may run by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The hint shown when the project has no TypeScript compiler installed.
pub const INSTALL_HINT: &str = "npm install --save-dev typescript";

/// All the verifiers of this crate: just [`Tsc`].
pub fn verifiers() -> Vec<Box<dyn Verifier>> {
    vec![Box::new(Tsc::default())]
}

/// The `tsc` verifier (see the crate docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tsc {
    timeout: Duration,
}

impl Default for Tsc {
    fn default() -> Self {
        Tsc {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Tsc {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// What tsc checks in a workspace, as detected from the project's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The config file, relative to the workspace root (`tsconfig.json`).
    pub config: String,
    /// Whether it is checked in build mode (`tsc -b`): the config has project references, or the
    /// project's own scripts build it that way.
    pub build: bool,
    /// What was found, for `verdict list`.
    pub found: String,
}

/// Detects what tsc should check in `workspace`. `Err` says why tsc does not apply.
pub fn project(workspace: &Workspace) -> Result<Project, String> {
    let package = PackageJson::read(workspace);
    let script = declared_invocation(workspace).or_else(|| match &package {
        Ok(Some(package)) => script_invocation(package),
        _ => None,
    });
    // The project the declared command checks wins over the default tsconfig.json.
    let named = script.as_ref().and_then(|s| s.project.clone());
    if workspace.path("tsconfig.json").is_file()
        && named
            .as_deref()
            .is_none_or(|p| p == "tsconfig.json" || p == "." || p == "./tsconfig.json")
    {
        let references = has_references(&workspace.path("tsconfig.json"));
        let script_builds = script.as_ref().is_some_and(|s| s.build);
        let found = if references {
            "tsconfig.json with project references (checked with `tsc -b`)".to_owned()
        } else if let Some(script) = script.as_ref().filter(|s| s.build) {
            format!("tsconfig.json, built with `tsc -b` by {}", script.name)
        } else {
            "tsconfig.json".to_owned()
        };
        return Ok(Project {
            config: "tsconfig.json".to_owned(),
            build: references || script_builds,
            found,
        });
    }
    if let Some(script) = script
        && let Some(config) = &script.project
    {
        let path = workspace.path(config);
        let config = if path.is_dir() && path.join("tsconfig.json").is_file() {
            Path::new(config)
                .join("tsconfig.json")
                .to_string_lossy()
                .into_owned()
        } else if path.is_file() {
            config.clone()
        } else {
            return Err(format!(
                "{} runs tsc on {config}, which does not exist",
                script.name
            ));
        };
        let build = script.build || has_references(&workspace.path(&config));
        return Ok(Project {
            found: format!("{config}, checked by {}", script.name),
            config,
            build,
        });
    }
    match package {
        Err(message) => Err(format!("no tsconfig.json, and {message}")),
        Ok(Some(package)) if package.depends_on("typescript") => Err(
            "package.json depends on typescript, but there is no tsconfig.json for tsc to check \
             (`npx tsc --init` creates one)"
                .to_owned(),
        ),
        Ok(Some(package)) if package.script_running("tsc").is_some() => Err(
            "a package.json script runs tsc, but there is no tsconfig.json for it to check"
                .to_owned(),
        ),
        _ => Err("no tsconfig.json".to_owned()),
    }
}

/// How a `package.json` script runs tsc.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ScriptInvocation {
    /// Where it is declared, for messages: ``the `typecheck` script``.
    name: String,
    /// The project it names with `-p`, `--project`, `-b <path>` or `--build <path>`.
    project: Option<String>,
    /// Whether it runs build mode.
    build: bool,
}

/// How the project's declared command runs tsc (see [`verdict_verifier_support::declared`]).
fn declared_invocation(workspace: &Workspace) -> Option<ScriptInvocation> {
    let declared = Declared::of(workspace);
    let command = declared.for_verifier(NAME)?;
    let mut invocation = ScriptInvocation {
        name: command.origin.clone(),
        project: None,
        build: false,
    };
    let words = command.program_words();
    let mut words = words.iter().skip(1).peekable();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-p" | "--project" => invocation.project = words.next().cloned(),
            "-b" | "--build" => {
                invocation.build = true;
                if let Some(next) = words.peek()
                    && !next.starts_with('-')
                {
                    invocation.project = words.next().cloned();
                }
            }
            other => {
                if let Some(project) = other.strip_prefix("--project=") {
                    invocation.project = Some(project.to_owned());
                }
            }
        }
    }
    Some(invocation)
}

/// The options of the project's declared tsc command (see [`Declared`]) that verdict passes on:
/// all but `owned` in the table of tools and the files it names, which would replace the project's config (the
/// config names the files). `--pretty false` after them keeps the output readable whatever
/// the command said.
fn declared_options(workspace: &Workspace) -> Vec<String> {
    let declared = Declared::of(workspace);
    let Some(command) = declared.for_verifier(NAME) else {
        return Vec::new();
    };
    let mut options = Vec::new();
    let mut words = command.program_words().iter().skip(1).peekable();
    while let Some(word) = words.next() {
        let option = word.split_once('=').map_or(word.as_str(), |(o, _)| o);
        if let Some(&(_, takes_value)) = Tool::Tsc
            .spec()
            .owned
            .iter()
            .find(|(name, _)| *name == option)
        {
            let boolean_value = words
                .peek()
                .is_some_and(|next| *next == "true" || *next == "false");
            if (takes_value || boolean_value) && !word.contains('=') {
                words.next();
            }
        } else if word.starts_with('-') {
            options.push(word.clone());
            // An option's value follows it: `--target es2022`, and `--strict false` for a flag.
            if let Some(next) = words.peek()
                && !word.contains('=')
                && (*next == "true"
                    || *next == "false"
                    || (takes_a_value(option)
                        && !next.starts_with('-')
                        && !next.ends_with(".ts")
                        && !next.ends_with(".tsx")))
            {
                options.push((*next).clone());
                words.next();
            }
        }
    }
    options
}

/// Whether tsc's `option` is followed by a value: any option but the boolean flags, which may
/// be followed by `true`/`false` only.
fn takes_a_value(option: &str) -> bool {
    !matches!(
        option,
        "--strict"
            | "--skipLibCheck"
            | "--noImplicitAny"
            | "--strictNullChecks"
            | "--noUnusedLocals"
            | "--noUnusedParameters"
            | "--noImplicitReturns"
            | "--noFallthroughCasesInSwitch"
            | "--allowJs"
            | "--checkJs"
            | "--esModuleInterop"
            | "--isolatedModules"
            | "--exactOptionalPropertyTypes"
            | "--noUncheckedIndexedAccess"
            | "--incremental"
            | "--declaration"
            | "--composite"
            | "--resolveJsonModule"
            | "--experimentalDecorators"
            | "--verbatimModuleSyntax"
            | "--noImplicitOverride"
            | "--forceConsistentCasingInFileNames"
    )
}

/// The first script that runs tsc, and the project and mode it runs it with. Only the arguments of
/// that one command are read (up to `&&`, `||`, `;` or `|`).
fn script_invocation(package: &PackageJson) -> Option<ScriptInvocation> {
    let name = package.script_running(NAME)?;
    let command = package.scripts.get(name)?.as_str()?;
    let words: Vec<&str> = command.split_whitespace().collect();
    let start = words
        .iter()
        .position(|word| *word == NAME || word.ends_with("/tsc"))?;
    let mut invocation = ScriptInvocation {
        name: format!("the `{name}` script"),
        project: None,
        build: false,
    };
    let mut words = words[start + 1..]
        .iter()
        .take_while(|word| !matches!(**word, "&&" | "||" | ";" | "|"))
        .peekable();
    while let Some(word) = words.next() {
        match *word {
            "-p" | "--project" => {
                invocation.project = words.next().map(|s| (*s).to_owned());
            }
            "-b" | "--build" => {
                invocation.build = true;
                if let Some(next) = words.peek()
                    && !next.starts_with('-')
                {
                    invocation.project = Some((**next).to_owned());
                    words.next();
                }
            }
            _ => {}
        }
    }
    Some(invocation)
}

/// Whether the tsconfig at `path` has a non-empty `references` list. A config that cannot be read
/// or parsed has none here: tsc itself will report what is wrong with it.
fn has_references(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&strip_jsonc(&text)) else {
        return false;
    };
    value
        .get("references")
        .and_then(|r| r.as_array())
        .is_some_and(|r| !r.is_empty())
}

/// How many config files [`config_files`] follows: a chain of `extends` and `references` is
/// rarely longer than a few; the bound only guards against a pathological tree.
const MAX_CONFIG_FILES: usize = 256;

/// The configuration files of the project checked with `config`: the config itself and, followed
/// transitively, every file it `extends` (a path, a list of paths, or a package's config in
/// `node_modules`) and every project it `references` — as paths the way tsc prints them (relative
/// to the workspace root, where tsc runs, with `/`; `../` above the root) and as absolute paths.
/// The `tsc` summarizer takes an error located in one of them for a configuration error, whatever
/// the file is called. A config that cannot be read or parsed ends its branch of the chain: tsc
/// reports what is wrong with it, located in it.
pub fn config_files(workspace: &Workspace, config: &str) -> Vec<String> {
    let root = normalize(&absolute(&workspace.root));
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut queue = vec![normalize(&root.join(config))];
    while let Some(path) = queue.pop() {
        if seen.contains(&path) || seen.len() >= MAX_CONFIG_FILES {
            continue;
        }
        seen.push(path.clone());
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&strip_jsonc(&text)) else {
            continue;
        };
        let dir = path.parent().unwrap_or(&root);
        let extends = match value.get("extends") {
            Some(serde_json::Value::String(one)) => vec![one.as_str()],
            Some(serde_json::Value::Array(many)) => {
                many.iter().filter_map(serde_json::Value::as_str).collect()
            }
            _ => Vec::new(),
        };
        queue.extend(
            extends
                .into_iter()
                .filter_map(|spec| resolve_extends(dir, spec)),
        );
        let references = value
            .get("references")
            .and_then(serde_json::Value::as_array);
        queue.extend(
            references
                .into_iter()
                .flatten()
                .filter_map(|reference| reference.get("path")?.as_str())
                .map(|reference| {
                    let path = normalize(&dir.join(reference));
                    if path.is_dir() {
                        path.join("tsconfig.json")
                    } else {
                        path
                    }
                }),
        );
    }
    let mut files = Vec::with_capacity(seen.len() * 2);
    for path in seen {
        if let Some(relative) = relative_to(&path, &root) {
            files.push(relative);
        }
        files.push(path.to_string_lossy().into_owned());
    }
    files
}

/// The file an `extends` entry of a config in `dir` names: a relative or absolute path (tsc adds
/// `.json` when the file without it does not exist), else a package's config found in the
/// `node_modules` of `dir` or of one of its ancestors (`@tsconfig/node20/tsconfig.json`, or a
/// package whose root holds `tsconfig.json`).
fn resolve_extends(dir: &Path, spec: &str) -> Option<PathBuf> {
    let with_json = |path: PathBuf| {
        if path.is_file() {
            return Some(path);
        }
        let mut name = path.into_os_string();
        name.push(".json");
        let json = PathBuf::from(name);
        json.is_file().then_some(json)
    };
    if spec.starts_with("./") || spec.starts_with("../") || Path::new(spec).is_absolute() {
        return with_json(normalize(&dir.join(spec)));
    }
    dir.ancestors().find_map(|ancestor| {
        let package = ancestor.join("node_modules").join(spec);
        with_json(package.clone()).or_else(|| {
            let config = package.join("tsconfig.json");
            config.is_file().then_some(config)
        })
    })
}

/// `path` without `.` components and with each `..` taking the component before it away, without
/// asking the file system (a `node_modules` symbolic link stays as tsc names it).
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `root`, with `/` and a `..` for each level above it, as tsc prints a file
/// outside its working directory; `None` when they share no prefix at all.
fn relative_to(path: &Path, root: &Path) -> Option<String> {
    let common = path
        .components()
        .zip(root.components())
        .take_while(|(a, b)| a == b)
        .count();
    if common == 0 {
        return None;
    }
    let ups = root.components().count() - common;
    let rest = path
        .components()
        .skip(common)
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    Some(
        std::iter::repeat_n("..".to_owned(), ups)
            .chain(rest)
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Turns the JSON-with-comments of a tsconfig into JSON: drops `//` and `/* */` comments outside
/// strings, and commas before a closing `}` or `]`.
pub fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(escaped) = chars.next() {
                        out.push(escaped);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = '\0';
                for next in chars.by_ref() {
                    if previous == '*' && next == '/' {
                        break;
                    }
                    previous = next;
                }
                out.push(' ');
            }
            '}' | ']' => {
                // A trailing comma: the last non-space character written is a comma.
                let kept = out.trim_end().len();
                if out[..kept].ends_with(',') {
                    out.truncate(kept - 1);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// The directory of the npm package that `bin` (a `node_modules/.bin` entry) belongs to, with
/// symbolic links resolved: the nearest ancestor of its target with a `package.json`.
fn package_dir(bin: &Path) -> Option<PathBuf> {
    let target = std::fs::canonicalize(bin).ok()?;
    target
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("package.json").is_file())
        .map(Path::to_path_buf)
}

/// `path` made absolute against the current directory.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Marks a passed report errored when the command did not end with an exit code declared a pass:
/// whatever the output looked like, a tool that did not say "pass" has not passed.
fn fail_closed(mut report: Report, spec: &CommandSpec, captured: &Captured) -> Report {
    // The shell's or env's line alone is no output of tsc's: the exit code says why.
    if captured.exit == (Exit::Code { code: 127 }) && report.outcome != Outcome::Failed {
        report.outcome = Outcome::Errored;
        report.error = Some(format!(
            "tsc could not start (exit 127: is `node` on PATH?); see {}",
            captured.log_path.display()
        ));
        return report;
    }
    if report.outcome != Outcome::Passed {
        return report;
    }
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code } => format!(
            "tsc exited with {code} but printed no diagnostic that could be read; see {}",
            captured.log_path.display()
        ),
        Exit::Signal { signal } => format!("tsc was killed by signal {signal}"),
        Exit::TimedOut => "tsc timed out and was stopped".to_owned(),
        Exit::Cancelled => "tsc was stopped: the run was interrupted".to_owned(),
        Exit::NotStarted { message } => message.clone(),
    };
    report.outcome = Outcome::Errored;
    report.error = Some(reason);
    report
}

impl Verifier for Tsc {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Type
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        let from_files = || match project(workspace) {
            Ok(project) => Applicability::Applies(project.found),
            Err(reason) => Applicability::DoesNotApply(reason),
        };
        match declared::applicability(workspace, NAME, Purpose::Typecheck, false, from_files) {
            // The declared command names what runs; the project found says what is checked.
            Applicability::Applies(declared) => match project(workspace) {
                Ok(project) if project.found == declared => Applicability::Applies(declared),
                Ok(project) => Applicability::Applies(format!("{declared}; {}", project.found)),
                Err(reason) => Applicability::Applies(format!("{declared}; but {reason}")),
            },
            other => other,
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let project = project(workspace).map_err(|message| VerifierError::Project {
            tool: NAME.to_owned(),
            message,
        })?;
        let program = node_bin(workspace, NAME).ok_or_else(|| VerifierError::NotInstalled {
            tool: NAME.to_owned(),
            hint: INSTALL_HINT.to_owned(),
        })?;
        // `--diagnostics` prints the files read, the evidence a pass needs (a clean run prints
        // nothing else); an up-to-date build prints nothing even then, but `--verbose` lists its
        // projects.
        let mut args: Vec<String> = if project.build {
            // `-b` must come first.
            vec![
                "-b",
                project.config.as_str(),
                "--pretty",
                "false",
                "--diagnostics",
                "--verbose",
            ]
        } else {
            vec![
                "-p",
                project.config.as_str(),
                "--noEmit",
                "--pretty",
                "false",
                "--diagnostics",
            ]
        }
        .into_iter()
        .map(str::to_owned)
        .collect();
        if !project.build {
            // The project's own type check with its options (`--strict`, `--skipLibCheck`):
            // without them tsc could pass what the project's command fails.
            args.extend(declared_options(workspace));
        }
        Ok(CommandSpec {
            // Absolute, as the root may be relative to verdict's directory, not to itself.
            program: absolute(&program),
            args,
            env: Default::default(),
            cwd: absolute(&workspace.root),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1, 2],
            },
            output_files: Vec::new(),
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        // The config checked is the argument after `-p` or `-b`; the files it extends or
        // references are configuration too, whatever they are called, and an error located in
        // one means nothing was checked as configured.
        let config = spec
            .args
            .iter()
            .position(|arg| arg == "-p" || arg == "-b")
            .and_then(|at| spec.args.get(at + 1));
        let report = match config {
            Some(config) => {
                let workspace = Workspace::new(&spec.cwd);
                let summarizer = TscSummarizer.with_config_files(config_files(&workspace, config));
                summarize_log(&summarizer, captured)
            }
            None => summarize_log_as(NAME, captured),
        };
        let mut report = fail_closed(report, spec, captured);
        report.needs_evidence(
            "tsc printed nothing to show it checked any file (no `Files:` count from \
             --diagnostics)",
        );
        report
    }

    /// Every `tsconfig*.json` (a config `extends` and `references` others, in any directory),
    /// and from the declared command the files that declare it and the project it checks (`-p
    /// config/build.json`, `-b packages/app`).
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        let (command, mut infra) = infra::declared(workspace, NAME, infra::tool_configs(NAME));
        let Some(command) = command else {
            return infra;
        };
        let words = command.program_words();
        let mut projects = infra::option_values(words, &["-p", "--project"], false);
        // `tsc -b a b`: the projects follow the option.
        if let Some(at) = words.iter().position(|w| w == "-b" || w == "--build") {
            projects.extend(
                words[at + 1..]
                    .iter()
                    .take_while(|w| !w.starts_with('-'))
                    .cloned(),
            );
        }
        for project in projects {
            if let Some(path) = infra::project_path(workspace, "", &project, &[""]) {
                infra = infra::path(infra, &path);
            } else if let Some(dir) =
                infra::project_dir(workspace, "", &project).filter(|d| !d.is_empty())
            {
                infra = infra::path(infra, &format!("{dir}/tsconfig.json"));
            }
        }
        infra
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        // A package of a monorepo, or a config reaching above the workspace: the files above
        // count too — from the monorepo's or the repository's root, and when there is neither,
        // the result cannot be keyed at all.
        let root = match js_monorepo_root(workspace, NAME) {
            Some(root) => Some(root),
            None if reaches_above(workspace) => Some(repository_root(workspace)?),
            None => None,
        };
        let tool_file = node_bin(workspace, NAME)
            .and_then(|bin| package_dir(&bin))
            .map(|dir| dir.join("package.json"))
            .unwrap_or_else(|| PathBuf::from("node_modules/typescript/package.json"));
        Some(Inputs {
            globs: [
                // Sources tsc may read (`allowJs`, `checkJs`), declarations, and every JSON file:
                // tsconfigs and what they extend, package.json (`types`, `exports`, `imports`),
                // lock files, and modules imported with `resolveJsonModule`.
                "*.ts",
                "*.tsx",
                "*.mts",
                "*.cts",
                "*.js",
                "*.jsx",
                "*.mjs",
                "*.cjs",
                "*.json",
                "!**/node_modules/**",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect(),
            // The declarations of installed packages (`@types/*`, a library's own types) change
            // with every install: the package managers' markers stand for them.
            tool_files: std::iter::once(tool_file)
                .chain(node_install_markers(workspace))
                .collect(),
            root,
        })
    }
}

/// Whether a tsconfig at the workspace root names a path above it (`"extends": "../base.json"`,
/// `"references": [{"path": "../core"}]`, `"include": ["../shared"]`): then the program reads files
/// the workspace does not hold.
fn reaches_above(workspace: &Workspace) -> bool {
    let Ok(entries) = std::fs::read_dir(&workspace.root) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        name.starts_with("tsconfig")
            && name.ends_with(".json")
            && std::fs::read_to_string(entry.path()).is_ok_and(|text| text.contains("\"../"))
    })
}

/// The nearest ancestor of the workspace root (itself included) that is a git repository's root.
fn repository_root(workspace: &Workspace) -> Option<PathBuf> {
    absolute(&workspace.root)
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERIFIER: Tsc = Tsc {
        timeout: DEFAULT_TIMEOUT,
    };

    /// The infrastructure the verifier names in a project of `files`, one line a file (see
    /// `infra::lines`).
    fn check_infrastructure(files: &[(&str, &str)], expect: &[&str]) {
        let dir = tempfile::tempdir().expect("temp dir");
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        assert_eq!(
            verdict_verifier_support::infra::lines(&VERIFIER.infrastructure(&workspace)),
            expect
        );
    }

    #[test]
    fn infrastructure_names_tsconfigs_and_the_checked_project() {
        check_infrastructure(
            &[
                (
                    "package.json",
                    r#"{"scripts": {"typecheck": "tsc -p config/build.json --noEmit && tsc -b packages/app"}}"#,
                ),
                ("config/build.json", "{}"),
                ("packages/app/tsconfig.json", "{}"),
            ],
            &[
                "**/tsconfig*.json",
                "package.json json:scripts.pretypecheck",
                "package.json json:scripts.typecheck",
                "package.json json:scripts.posttypecheck",
                "config/build.json",
            ],
        );
    }

    #[test]
    fn strip_jsonc_drops_comments_and_trailing_commas_but_not_strings() {
        let text = r#"{
  // a comment
  "compilerOptions": { "outDir": "a//b", "rootDir": "q\\\"/*", /* block */ "paths": {"x/*": ["y/*"],}, },
  "references": [{ "path": "./core" },],
}"#;
        let value: serde_json::Value =
            serde_json::from_str(&strip_jsonc(text)).expect("valid JSON after stripping");
        assert_eq!(value["compilerOptions"]["outDir"], "a//b");
        assert_eq!(value["compilerOptions"]["rootDir"], "q\\\"/*");
        assert_eq!(value["compilerOptions"]["paths"]["x/*"][0], "y/*");
        assert_eq!(value["references"][0]["path"], "./core");
    }

    #[test]
    fn config_files_follow_extends_and_references_as_tsc_names_them() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let root = dir.path().join("app");
        let write = |path: &str, text: &str| {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("create a directory");
            std::fs::write(path, text).expect("write a config");
        };
        write(
            "app/tsconfig.json",
            r#"{ "extends": ["./config/base", "@org/tsconfig/strict.json", "pkg"], // a comment
                 "references": [{ "path": "./lib" }, { "path": "../shared/config.json" }] }"#,
        );
        write("app/config/base.jsonc", "{}");
        write("app/config/base.json", r#"{ "extends": "./base.jsonc" }"#);
        write("node_modules/@org/tsconfig/strict.json", "{}");
        write("node_modules/pkg/tsconfig.json", "{}");
        write("app/lib/tsconfig.json", "{ not json");
        write(
            "shared/config.json",
            r#"{ "extends": "../app/tsconfig.json" }"#,
        );
        let mut files: Vec<String> = config_files(&Workspace::new(&root), "tsconfig.json")
            .into_iter()
            .filter(|file| !file.starts_with('/'))
            .collect();
        files.sort();
        assert_eq!(
            files,
            [
                "../node_modules/@org/tsconfig/strict.json",
                "../node_modules/pkg/tsconfig.json",
                "../shared/config.json",
                "config/base.json",
                "config/base.jsonc",
                "lib/tsconfig.json",
                "tsconfig.json",
            ]
        );
    }

    fn scripts(command: &str) -> PackageJson {
        serde_json::from_value(serde_json::json!({ "scripts": { "check": command } }))
            .expect("valid package.json")
    }

    #[test]
    fn script_invocation_reads_project_and_build_mode() {
        let check = |command: &str, project: Option<&str>, build: bool| {
            let invocation = script_invocation(&scripts(command)).expect("a script runs tsc");
            assert_eq!(invocation.project.as_deref(), project, "{command}");
            assert_eq!(invocation.build, build, "{command}");
        };
        check(
            "tsc --noEmit -p tsconfig.app.json",
            Some("tsconfig.app.json"),
            false,
        );
        check("tsc --project web && tsc -p other.json", Some("web"), false);
        check("tsc -b", None, true);
        check(
            "tsc --build packages/tsconfig.json --verbose",
            Some("packages/tsconfig.json"),
            true,
        );
        check("./node_modules/.bin/tsc -p x.json", Some("x.json"), false);
        check("tsc && jest -p y", None, false);
    }
}
