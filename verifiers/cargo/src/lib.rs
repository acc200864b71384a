//! The cargo verifiers: `cargo-check` ([`CargoCheck`]), `clippy` ([`Clippy`]), `cargo-test`
//! ([`CargoTest`]) and, where nextest runs the tests, `cargo-doctest` ([`CargoDoctest`]: the
//! doc-tests nextest cannot run) on a Rust project, a package or a workspace.
//!
//! They apply to a workspace whose root holds a `Cargo.toml` with a `[package]` or a
//! `[workspace]` table, and they run the `cargo` on `PATH` (the rustup proxy, so that the
//! project's `rust-toolchain.toml` picks the toolchain), else `~/.cargo/bin/cargo`.
//!
//! What they run, and why:
//! - `cargo check --workspace --all-targets --message-format=json`: every member, tests and
//!   examples included. The JSON messages are exact (file, line, column, code, level) where the
//!   human format must be read back from its layout, and each one carries rustc's own rendering,
//!   so the log stays readable; cargo's own errors (a bad manifest, a missing dependency) still
//!   come on standard error in its human format. The `cargo` summarizer reads both.
//! - `cargo clippy --workspace --all-targets --message-format=json`: warnings are reported (as
//!   warnings) but do not fail the verifier; errors do. A project that wants warnings to fail
//!   says so itself (`[lints.clippy] … = "deny"`, `#![deny(clippy::…)]`, `-D warnings` in
//!   `.cargo/config.toml`), and clippy then reports them as errors. verdict does not add
//!   `-D warnings`: it would also make clippy stop at the first crate with a warning, hiding the
//!   rest.
//! - `cargo test --workspace --no-fail-fast --message-format=json`: the build part in JSON, so a
//!   test that does not compile is exact; libtest's human output (`test x ... FAILED`, the panic,
//!   `test result:` per binary) for the tests, which is what the summarizer reads. No
//!   `--all-targets`, which would skip doc-tests. `--no-fail-fast` runs every test binary even
//!   after one fails, so all the failures are reported at once. A project that configures
//!   cargo-nextest (`.config/nextest.toml`) runs its tests with `cargo nextest run` instead
//!   (see [`nextest`]).
//!
//! Every command runs with `CARGO_TERM_COLOR=never` and the project's own target directory:
//! sharing it keeps a second run fast (check, clippy and test running at once serialize on
//! cargo's build-directory lock, which is fine).
//!
//! Exit codes: 0 pass, 101 failures (a compile error, a denied lint, a failing test); cargo's own
//! errors also exit 101, and the summarizer tells those apart (errored, never a pass). A test
//! binary killed by a signal (the code under test called `abort()`, overflowed its stack) or a
//! `harness = false` target that exits non-zero is a failure of that target, named by the target
//! cargo gives for re-running it (the summarizer reads it from cargo's output). The same compiler
//! diagnostic reported once per target (a library checked as itself and as its tests) is
//! reported once. Run in one member of a workspace, the verifiers still build the workspace
//! (`--workspace`), and the paths rustc and the tests print from the workspace root are made
//! relative to the member (see [`workspace_root_above`]).
//!
//! Inputs for the cache: every file of the project that its `.gitignore` does not ignore (but
//! `target/`), since a build reads more than Rust sources and manifests (`include_str!` of a
//! data file, a test's fixtures, a build script's inputs). A project whose manifests name a path
//! outside its root (a `path` dependency, a `[patch]`, a workspace member or the workspace
//! itself) has no cache: what is out there is not hashed, so no pass can be replayed for it. The
//! toolchain counts too (see [`toolchain_files`]): a `rustup update`, a toolchain file or a cargo
//! config above the project runs the verifiers again. Not seen: the environment a build script
//! reads (`rerun-if-env-changed`) and files a build script or a macro reads outside the project.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Infrastructure, Inputs, Sharding,
    VerifierError, Workspace,
};
use verdict_model::{Kind, Outcome, Report, Severity, Verifier};
use verdict_verifier_support::declared::Declared;
use verdict_verifier_support::summarize_log_as;

pub mod doctest;
mod infra;
pub mod nextest;

pub use doctest::CargoDoctest;
pub use nextest::{NEXTEST_HINT, NextestConfig, nextest_config};

/// How long a cargo command may run by default: a cold build of a large workspace is slow.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The hint shown when cargo cannot be found.
pub const INSTALL_HINT: &str = "install Rust with rustup (https://rustup.rs), then make sure \
                                `cargo` is on PATH";

/// The hint shown when cargo has no clippy.
pub const CLIPPY_HINT: &str = "rustup component add clippy";

/// The most failing tests [`CargoTest::rerun_failed`] names on a command line; with more, the
/// whole suite is run again.
pub const MAX_RERUN_TESTS: usize = 500;

/// All the verifiers of this crate: [`CargoCheck`], [`Clippy`], [`CargoTest`] and
/// [`CargoDoctest`].
pub fn verifiers() -> Vec<Box<dyn Verifier>> {
    vec![
        Box::new(CargoCheck::default()),
        Box::new(Clippy::default()),
        Box::new(CargoTest::default()),
        Box::new(CargoDoctest::default()),
    ]
}

/// Whether a cargo verifier applies to `workspace`: `Ok` with what was found, `Err` with what is
/// missing.
pub fn project(workspace: &Workspace) -> Result<String, String> {
    let path = workspace.path("Cargo.toml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err("no Cargo.toml".to_owned());
        }
        Err(error) => return Err(format!("failed to read {}: {error}", path.display())),
    };
    // A table header on its own line; cargo itself reports anything malformed.
    let tables: Vec<&str> = text
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| *line == "[package]" || *line == "[workspace]")
        .collect();
    match (
        tables.contains(&"[package]"),
        tables.contains(&"[workspace]"),
    ) {
        (true, true) => Ok("Cargo.toml (a package and its workspace)".to_owned()),
        (true, false) => Ok("Cargo.toml (a package)".to_owned()),
        (false, true) => Ok("Cargo.toml (a workspace)".to_owned()),
        (false, false) => Err("Cargo.toml has no [package] or [workspace] table".to_owned()),
    }
}

/// The `cargo` to run: the one on `PATH` (rustup's proxy honours `rust-toolchain.toml`), else
/// rustup's default install location (`$CARGO_HOME/bin`, `~/.cargo/bin`).
pub fn cargo_program() -> Option<PathBuf> {
    find_cargo(
        std::env::var_os("PATH"),
        std::env::var_os("CARGO_HOME").map(PathBuf::from),
        std::env::var_os("HOME").map(PathBuf::from),
    )
}

/// [`cargo_program`] given the values of `PATH`, `CARGO_HOME` and `HOME`.
pub fn find_cargo(
    path: Option<OsString>,
    cargo_home: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    find_program("cargo", path, cargo_home, home)
}

/// The program `name` on `path`, else in `$CARGO_HOME/bin` (`~/.cargo/bin`), where rustup puts
/// cargo and `cargo install` its subcommands.
fn find_program(
    name: &str,
    path: Option<OsString>,
    cargo_home: Option<PathBuf>,
    home: Option<PathBuf>,
) -> Option<PathBuf> {
    let on_path = path.and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| is_executable(candidate))
    });
    on_path.or_else(|| {
        let program = cargo_home
            .or_else(|| home.map(|home| home.join(".cargo")))?
            .join("bin")
            .join(name);
        is_executable(&program).then_some(program)
    })
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Which cargo command a verifier runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    Check,
    Clippy,
    Test,
}

impl Command {
    fn name(self) -> &'static str {
        match self {
            Command::Check => "cargo-check",
            Command::Clippy => "clippy",
            Command::Test => "cargo-test",
        }
    }

    fn kind(self) -> Kind {
        match self {
            Command::Check => Kind::Build,
            Command::Clippy => Kind::Lint,
            Command::Test => Kind::Test,
        }
    }

    fn args(self) -> Vec<String> {
        let args: &[&str] = match self {
            Command::Check => &[
                "check",
                "--workspace",
                "--all-targets",
                "--message-format=json",
            ],
            Command::Clippy => &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--message-format=json",
            ],
            Command::Test => &[
                "test",
                "--workspace",
                "--no-fail-fast",
                "--message-format=json",
            ],
        };
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    /// [`Command::args`] with what the project's declared command for this verifier adds (see
    /// [`Declared`]): its feature and target selection (`--all-features`, `--features x`, `-p
    /// crate`, `--release`), and with `harness` what follows its `--` (`-D warnings` for
    /// clippy, libtest's `--include-ignored`). Options verdict sets itself, or that would change
    /// what it reads or make cargo write to the tree (`--fix`), are left out.
    fn args_for(self, workspace: &Workspace, harness: bool) -> Vec<String> {
        let mut args = self.args();
        let declared = Declared::of(workspace);
        let Some(command) = declared.for_verifier(self.name()) else {
            return args;
        };
        let words = command.program_words();
        // `cargo test …` (not `cargo nextest run`, whose verifier reads its own config).
        if words.get(1).map(String::as_str) != Some(args[0].as_str()) {
            return args;
        }
        let (options, after) = match words[2..].iter().position(|w| w == "--") {
            Some(at) => (&words[2..2 + at], &words[3 + at..]),
            None => (&words[2..], &[][..]),
        };
        let mut kept = Vec::new();
        let mut rest = options.iter();
        while let Some(word) = rest.next() {
            let option = word.split_once('=').map_or(word.as_str(), |(o, _)| o);
            match option {
                "--workspace" | "--all" | "--all-targets" | "--no-fail-fast" | "--fix"
                | "--allow-dirty" | "--allow-staged" | "-q" | "--quiet" | "-v" | "--verbose" => {}
                "--message-format" | "--color" => {
                    if !word.contains('=') {
                        rest.next();
                    }
                }
                _ => kept.push(word.clone()),
            }
        }
        if kept.iter().any(|w| w == "-p" || w.starts_with("--package")) {
            // A package named by the project's command is what it checks, not the workspace.
            args.retain(|a| a != "--workspace");
        }
        args.extend(kept);
        if harness && !after.is_empty() {
            args.push("--".to_owned());
            args.extend(after.iter().cloned());
        }
        args
    }

    fn spec(
        self,
        workspace: &Workspace,
        timeout: Duration,
        args: Vec<String>,
    ) -> Result<CommandSpec, VerifierError> {
        self.spec_with(workspace, timeout, args, cargo_program())
    }

    /// [`Command::spec`] with the cargo found (or not).
    fn spec_with(
        self,
        workspace: &Workspace,
        timeout: Duration,
        args: Vec<String>,
        cargo: Option<PathBuf>,
    ) -> Result<CommandSpec, VerifierError> {
        project(workspace).map_err(|message| VerifierError::Project {
            tool: self.name().to_owned(),
            message,
        })?;
        let program = cargo.ok_or_else(|| VerifierError::NotInstalled {
            tool: "cargo".to_owned(),
            hint: INSTALL_HINT.to_owned(),
        })?;
        Ok(CommandSpec {
            program,
            args,
            env: [("CARGO_TERM_COLOR".to_owned(), "never".to_owned())]
                .into_iter()
                .collect(),
            cwd: workspace.root.clone(),
            timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![101],
            },
            output_files: Vec::new(),
        })
    }

    fn interpret(self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = summarize_log_as("cargo", captured);
        // Three verifiers read cargo's output: the report says which one this is.
        report.tool = self.name().to_owned();
        if self == Command::Clippy
            && report.outcome == Outcome::Errored
            && report
                .error
                .as_deref()
                .is_some_and(|e| e.contains("no such command: `clippy`"))
        {
            report.error = Some(format!("clippy is not installed: {CLIPPY_HINT}"));
        }
        relative_to_project(&mut report, &spec.cwd);
        dedupe(&mut report);
        fail_closed(self, report, spec, captured)
    }

    /// Every file of the project but the build directory; `None` (no cache) when its manifests
    /// name a path outside it.
    fn inputs(self, workspace: &Workspace) -> Option<Inputs> {
        if names_paths_outside(&workspace.root) {
            return None;
        }
        Some(Inputs {
            // The walk leaves out what `.gitignore` ignores, `.git/` and `.verdict/`.
            globs: vec!["*".to_owned(), "!/target/**".to_owned()],
            tool_files: toolchain_files(
                &workspace.root,
                std::env::var_os("CARGO_HOME").map(PathBuf::from),
                std::env::var_os("RUSTUP_HOME").map(PathBuf::from),
                std::env::var_os("HOME").map(PathBuf::from),
                cargo_program(),
            ),
            root: None,
        })
    }
}

/// The files outside the project that say which toolchain builds it and how, for the result cache:
/// a `rustup update` that brings a new clippy with new lints, a toolchain file or a cargo config in
/// a folder above the project, a component added. Missing ones count as absent.
///
/// - `rust-toolchain.toml`, `rust-toolchain` and `.cargo/config.toml` (or `.cargo/config`) in the
///   project's folder and every folder above it, and cargo's own config in `$CARGO_HOME`;
/// - rustup's settings (the default toolchain, directory overrides) and, of every installed
///   toolchain, its channel manifest (rewritten by each update) and its list of components;
/// - a cargo that rustup does not manage (a distribution's `/usr/bin/cargo`): the program itself
///   and the `rustc` beside it. The cache's stat table keeps this cheap after the first run.
pub fn toolchain_files(
    root: &Path,
    cargo_home: Option<PathBuf>,
    rustup_home: Option<PathBuf>,
    home: Option<PathBuf>,
    cargo: Option<PathBuf>,
) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    for dir in root.ancestors() {
        for name in [
            "rust-toolchain.toml",
            "rust-toolchain",
            ".cargo/config.toml",
            ".cargo/config",
        ] {
            files.push(dir.join(name));
        }
    }
    let cargo_home = cargo_home.or_else(|| home.as_ref().map(|home| home.join(".cargo")));
    if let Some(cargo_home) = &cargo_home {
        files.push(cargo_home.join("config.toml"));
        files.push(cargo_home.join("config"));
    }
    let rustup_home = rustup_home.or_else(|| home.as_ref().map(|home| home.join(".rustup")));
    if let Some(rustup_home) = &rustup_home {
        files.push(rustup_home.join("settings.toml"));
        let mut toolchains: Vec<PathBuf> = std::fs::read_dir(rustup_home.join("toolchains"))
            .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
            .unwrap_or_default();
        toolchains.sort();
        for toolchain in toolchains {
            let rustlib = toolchain.join("lib").join("rustlib");
            files.push(rustlib.join("multirust-channel-manifest.toml"));
            files.push(rustlib.join("components"));
        }
    }
    // rustup's proxies live in `$CARGO_HOME/bin`; any other cargo is its own toolchain.
    let managed = |program: &Path| {
        cargo_home
            .as_ref()
            .is_some_and(|cargo_home| program.starts_with(cargo_home.join("bin")))
            || rustup_home
                .as_ref()
                .is_some_and(|rustup_home| program.starts_with(rustup_home))
    };
    if let Some(cargo) = cargo
        && !managed(&cargo)
    {
        let real = std::fs::canonicalize(&cargo).unwrap_or(cargo);
        if !managed(&real) {
            if let Some(dir) = real.parent() {
                files.push(dir.join("rustc"));
            }
            files.push(real);
        }
    }
    files
}

/// How many manifests [`names_paths_outside`] reads before it gives up (and says yes).
const MAX_MANIFESTS: usize = 1000;

/// Whether the project at `root` may build from files outside it: a manifest (the root's, or one
/// it leads to by a path) has a string that, taken as a path from its directory, leads out of
/// `root` — a `path` dependency, a `[patch]`, a workspace member glob, `package.workspace`.
///
/// Every string of a manifest is taken as a path, not only the keys known to be paths: a
/// description that happens to read `../x` costs only the cache, and a key cargo adds later is
/// covered. Any doubt (a manifest that cannot be read, too many of them) is a yes.
pub fn names_paths_outside(root: &Path) -> bool {
    let Ok(root) = root.canonicalize() else {
        return true;
    };
    let mut queue = vec![root.clone()];
    let mut seen = HashSet::new();
    while let Some(dir) = queue.pop() {
        if !seen.insert(dir.clone()) {
            continue;
        }
        if seen.len() > MAX_MANIFESTS {
            return true;
        }
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            return true;
        };
        for value in toml_strings(&text) {
            match resolve(&root, &dir, &value) {
                Resolved::Outside => return true,
                Resolved::Inside(found) => queue.extend(found),
            }
        }
    }
    false
}

/// Where a manifest's string leads, taken as a path from the manifest's directory.
enum Resolved {
    Outside,
    /// Inside the root, with the package directories it names (a member, a path dependency).
    Inside(Vec<PathBuf>),
}

/// Resolves `value` from `dir`, both inside the canonical `root`.
fn resolve(root: &Path, dir: &Path, value: &str) -> Resolved {
    // A glob (`crates/*`) is judged by its literal part, and names the packages in it.
    let (literal, glob) = match value.find(['*', '?', '[']) {
        Some(at) => (
            &value[..value[..at].rfind('/').map_or(0, |slash| slash)],
            true,
        ),
        None => (value, false),
    };
    let Some(path) = normalize(&dir.join(literal)) else {
        return Resolved::Outside;
    };
    if !path.starts_with(root) {
        return Resolved::Outside;
    }
    // What exists is judged by where it really is: a symbolic link may lead out.
    let Ok(real) = path.canonicalize() else {
        // Nothing there: a version, a description, a name.
        return Resolved::Inside(Vec::new());
    };
    if !real.starts_with(root) {
        return Resolved::Outside;
    }
    if !real.is_dir() {
        return Resolved::Inside(Vec::new());
    }
    let packages = if glob {
        std::fs::read_dir(&real)
            .into_iter()
            .flatten()
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.join("Cargo.toml").is_file())
            .filter_map(|path| path.canonicalize().ok())
            .filter(|path| path.starts_with(root))
            .collect()
    } else if real.join("Cargo.toml").is_file() {
        vec![real]
    } else {
        Vec::new()
    };
    Resolved::Inside(packages)
}

/// `path` with `.` and `..` taken out, without asking the file system; `None` when it climbs
/// above the file system's root.
fn normalize(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// The contents of the string literals of a TOML document (basic, literal and multi-line; keys
/// and values alike), comments left out. Escapes are kept as they are written: a path with an
/// escape in it is still judged by its `..` and `/`.
fn toml_strings(text: &str) -> Vec<String> {
    let mut strings = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(['"', '\'', '#']) {
        let quote = &rest[at..];
        if quote.starts_with('#') {
            // A comment runs to the end of the line.
            rest = quote.find('\n').map_or("", |end| &quote[end..]);
            continue;
        }
        let (delimiter, basic) = if quote.starts_with("\"\"\"") {
            ("\"\"\"", true)
        } else if quote.starts_with("'''") {
            ("'''", false)
        } else if quote.starts_with('"') {
            ("\"", true)
        } else {
            ("'", false)
        };
        let body = &quote[delimiter.len()..];
        let mut end = None;
        let mut search = 0;
        while let Some(found) = body[search..].find(delimiter) {
            let candidate = search + found;
            // In a basic string, a quote after an odd number of backslashes is escaped.
            let backslashes = body[..candidate]
                .bytes()
                .rev()
                .take_while(|&b| b == b'\\')
                .count();
            if basic && backslashes % 2 == 1 {
                search = candidate + 1;
                continue;
            }
            end = Some(candidate);
            break;
        }
        let Some(end) = end else {
            // An unterminated string: take the rest, cargo will say what is wrong.
            strings.push(body.to_owned());
            break;
        };
        strings.push(body[..end].to_owned());
        rest = &body[end + delimiter.len()..];
    }
    strings
}

/// Drops the copies of a compiler diagnostic reported once per target.
///
/// cargo compiles a library more than once — as itself and as its unit tests with
/// `--all-targets` or `cargo test` — and rustc reports each of its problems once per compilation,
/// identically. Only the first of each (same severity, code, place and message) is kept, and the
/// copies are taken off the error and warning counts, which cargo sums over the compilations.
/// Failing tests are never merged: two binaries may have tests of the same name.
pub fn dedupe(report: &mut Report) {
    let mut seen = HashSet::new();
    let (mut errors, mut warnings) = (0u64, 0u64);
    report.diagnostics.retain(|d| {
        if d.kind == Kind::Test {
            return true;
        }
        let key = (
            d.severity,
            d.code.clone(),
            d.file.clone(),
            d.line,
            d.column,
            d.message.clone(),
        );
        if seen.insert(key) {
            return true;
        }
        match d.severity {
            Severity::Error => errors += 1,
            Severity::Warning => warnings += 1,
            Severity::Info => {}
        }
        false
    });
    // cargo may stop a compilation after rustc printed its diagnostics but before cargo printed
    // its `could not compile … due to N previous errors` line: never count fewer than are shown.
    let kept = |severity: Severity| {
        report
            .diagnostics
            .iter()
            .filter(|d| d.kind != Kind::Test && d.severity == severity)
            .count() as u64
    };
    let (kept_errors, kept_warnings) = (kept(Severity::Error), kept(Severity::Warning));
    if let Some(n) = report.counts.errors.as_mut() {
        *n = n.saturating_sub(errors).max(kept_errors);
    }
    if let Some(n) = report.counts.warnings.as_mut() {
        *n = n.saturating_sub(warnings).max(kept_warnings);
    }
}

/// The root of the cargo workspace `dir` is a member of, when that is above `dir`: the nearest
/// ancestor whose `Cargo.toml` has a `[workspace]` table. `None` when `dir` is its own workspace
/// (or its manifest says so with a `[workspace]` table of its own).
pub fn workspace_root_above(dir: &Path) -> Option<PathBuf> {
    let has_workspace_table = |manifest: &Path| {
        std::fs::read_to_string(manifest).is_ok_and(|text| {
            text.lines()
                .any(|line| line.split('#').next().unwrap_or("").trim() == "[workspace]")
        })
    };
    if has_workspace_table(&dir.join("Cargo.toml")) {
        return None;
    }
    dir.ancestors()
        .skip(1)
        .find(|ancestor| has_workspace_table(&ancestor.join("Cargo.toml")))
        .map(Path::to_path_buf)
}

/// Makes the report's paths relative to the project verdict runs in (`cwd`) when that is a member
/// of a workspace above it. rustc runs from the workspace root, so its diagnostics and the panics
/// of tests name `crates/app/src/lib.rs` where the project's own files are `src/lib.rs`: such a
/// path becomes relative to the project, and one in another member becomes absolute (never a
/// path that would name the wrong file). A path is only rewritten when it names a file under
/// the workspace root and none under the project.
fn relative_to_project(report: &mut Report, cwd: &Path) {
    let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let cwd = cwd.as_path();
    let Some(root) = workspace_root_above(cwd) else {
        return;
    };
    let mut changed = false;
    for diagnostic in &mut report.diagnostics {
        let Some(file) = diagnostic.file.as_deref() else {
            continue;
        };
        let path = Path::new(file);
        if path.is_absolute() || cwd.join(path).exists() || !root.join(path).exists() {
            continue;
        }
        let full = root.join(path);
        let shown = match full.strip_prefix(cwd) {
            Ok(inside) => inside.to_string_lossy().into_owned(),
            Err(_) => full.to_string_lossy().into_owned(),
        };
        diagnostic.file = Some(shown);
        changed = true;
    }
    if changed {
        report.refresh_fingerprints();
    }
}

/// Marks a passed report errored when cargo did not exit with a code declared a pass: whatever
/// the output looked like, a cargo that did not say "pass" has not passed.
fn fail_closed(
    command: Command,
    mut report: Report,
    spec: &CommandSpec,
    captured: &Captured,
) -> Report {
    let name = command.name();
    // cargo ends every build it finishes with `Finished` (and, with JSON messages, a
    // `build-finished` message); libtest's `test result:` lines come after it.
    report.needs_evidence(format!(
        "{name} printed no `Finished` line or `build-finished` message to show cargo built \
         anything"
    ));
    let stopped = match &captured.exit {
        Exit::Signal { signal } => Some(format!("{name} was killed by signal {signal}")),
        Exit::TimedOut => Some(format!("{name} timed out and was stopped")),
        Exit::Cancelled => Some(format!("{name} was stopped: the run was interrupted")),
        Exit::Code { .. } | Exit::NotStarted { .. } => None,
    };
    if report.outcome == Outcome::Errored
        && let Some(stopped) = stopped
    {
        // A cargo stopped from outside stopped its test binary mid-run too: that, not the
        // unfinished output, is why.
        report.error = Some(match report.error.take() {
            Some(error) => format!("{stopped}; {error}"),
            None => stopped,
        });
        return report;
    }
    if report.outcome != Outcome::Passed {
        return report;
    }
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code } => {
            // Nothing itemized and the run failed (a coverage tool's `--fail-under`, a build
            // script's error): the lines that say why are the report's.
            verdict_model::exit_reason::explain(&mut report, name, *code, captured, command.kind());
            return report;
        }
        Exit::Signal { signal } => format!("{name} was killed by signal {signal}"),
        Exit::TimedOut => format!("{name} timed out and was stopped"),
        Exit::Cancelled => format!("{name} was stopped: the run was interrupted"),
        Exit::NotStarted { message } => format!("failed to start cargo: {message}"),
    };
    report.outcome = Outcome::Errored;
    report.error = Some(reason);
    report
}

macro_rules! cargo_verifier {
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $ty {
            timeout: Duration,
        }

        impl Default for $ty {
            fn default() -> Self {
                $ty {
                    timeout: DEFAULT_TIMEOUT,
                }
            }
        }

        impl $ty {
            /// The same verifier with another time-out.
            pub fn with_timeout(mut self, timeout: Duration) -> Self {
                self.timeout = timeout;
                self
            }
        }
    };
}

cargo_verifier!(
    /// `cargo-check`: `cargo check` on every target of every member (see the crate docs).
    CargoCheck
);
cargo_verifier!(
    /// `clippy`: `cargo clippy` on every target of every member; warnings are reported, errors
    /// fail (see the crate docs).
    Clippy
);
cargo_verifier!(
    /// `cargo-test`: `cargo test` on every member, not stopping at the first failing binary (see
    /// the crate docs).
    CargoTest
);

impl Verifier for CargoCheck {
    fn name(&self) -> &str {
        Command::Check.name()
    }

    fn kind(&self) -> Kind {
        Command::Check.kind()
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        applicability(workspace)
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        Command::Check.spec(
            workspace,
            self.timeout,
            Command::Check.args_for(workspace, true),
        )
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        Command::Check.interpret(spec, captured)
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        Command::Check.inputs(workspace)
    }

    /// See [`infra::check`].
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        infra::check(workspace, self.name())
    }
}

impl Verifier for Clippy {
    fn name(&self) -> &str {
        Command::Clippy.name()
    }

    fn kind(&self) -> Kind {
        Command::Clippy.kind()
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        applicability(workspace)
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        Command::Clippy.spec(
            workspace,
            self.timeout,
            Command::Clippy.args_for(workspace, true),
        )
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        Command::Clippy.interpret(spec, captured)
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        Command::Clippy.inputs(workspace)
    }

    /// See [`infra::clippy`].
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        infra::clippy(workspace, self.name())
    }
}

impl CargoTest {
    /// `cargo nextest run` and `extra` arguments, for a project that configures nextest; never
    /// `cargo test` in its place when `nextest` (the program found, or not) is missing.
    fn nextest_spec(
        &self,
        workspace: &Workspace,
        config: &NextestConfig,
        extra: Vec<String>,
        nextest: Option<PathBuf>,
    ) -> Result<CommandSpec, VerifierError> {
        let mut args = nextest::args();
        args.extend(extra);
        let mut spec = Command::Test.spec(workspace, self.timeout, args)?;
        if nextest.is_none() {
            return Err(VerifierError::NotInstalled {
                tool: "cargo-nextest".to_owned(),
                hint: format!(
                    "`{NEXTEST_HINT}` (the project runs its tests with nextest: {})",
                    nextest::CONFIG_FILE
                ),
            });
        }
        spec.exit_codes.fail = vec![100, 101];
        spec.output_files = config.junit.iter().cloned().collect();
        Ok(spec)
    }

    /// What `cargo nextest run` printed (and the JUnit report its profile writes).
    fn interpret_nextest(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = summarize_log_as("nextest", captured);
        report.tool = Command::Test.name().to_owned();
        if report.outcome == Outcome::Errored
            && report
                .error
                .as_deref()
                .is_some_and(|e| e.contains("no such command: `nextest`"))
        {
            report.error = Some(format!("cargo-nextest is not installed: {NEXTEST_HINT}"));
        }
        relative_to_project(&mut report, &spec.cwd);
        dedupe(&mut report);
        let mut report = nextest::merge_junit(report, captured.output_files.first());
        if spec.args.iter().any(|arg| arg == "--partition") {
            report = partition_counts(report, captured);
        }
        let mut report = fail_closed(Command::Test, report, spec, captured);
        report.needs_evidence("cargo nextest printed no summary to show it ran any test");
        report
    }
}

/// A report of one partition of a nextest run (a shard): nextest counts the tests of the other
/// partitions as skipped, so the skipped count says nothing of this one and is dropped (its
/// `#[ignore]`d tests are then not counted either). A partition nextest dealt no test, exiting 0
/// (`--no-tests=pass`), is a pass of nothing, which the pipeline lists as not run in this shard.
fn partition_counts(mut report: Report, captured: &Captured) -> Report {
    if report.counts.tests_skipped.take().is_some() {
        report.note(
            "nextest counts the other shards' tests as skipped; this shard's skipped tests are \
             not counted",
        );
    }
    let ran = report.counts.tests_passed.unwrap_or(0) + report.counts.tests_failed.unwrap_or(0);
    if ran == 0
        && captured.exit == (Exit::Code { code: 0 })
        && report.diagnostics_found() == 0
        && report.counts.suites_errored.unwrap_or(0) == 0
    {
        let mut empty = Report::new(&report.tool, Outcome::Passed);
        empty.summary = report.summary;
        empty.note("nextest dealt no test to this shard");
        return empty;
    }
    report
}

impl Verifier for CargoTest {
    fn name(&self) -> &str {
        Command::Test.name()
    }

    fn kind(&self) -> Kind {
        Command::Test.kind()
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        match (applicability(workspace), nextest_config(&workspace.root)) {
            (Applicability::Applies(found), Some(config)) => {
                // nextest runs no doc-test: say who does, or that there are none.
                let doctests = match doctest::applicability(&workspace.root) {
                    Ok(_) => format!("doc-tests run by {}", doctest::NAME),
                    Err(_) => "no doc-tests to run".to_owned(),
                };
                Applicability::Applies(format!(
                    "{found}; tests run with cargo nextest ({}, profile {}), which cannot run \
                     doc-tests: {doctests}",
                    nextest::CONFIG_FILE,
                    config.profile
                ))
            }
            (applicability, _) => applicability,
        }
    }

    /// Split with nextest's own `--partition count:INDEX/TOTAL` where the project runs its tests
    /// with nextest. `cargo test` has no way to split them (its filters are by name, not by
    /// count): it runs them all in the first shard.
    fn sharding(&self, workspace: &Workspace) -> Sharding {
        match nextest_config(&workspace.root) {
            Some(_) => Sharding::Split,
            None => Sharding::Whole,
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        match nextest_config(&workspace.root) {
            Some(config) => {
                let partition = match workspace.shard {
                    // `--no-tests=pass`: a partition nextest deals no test ends as a pass of
                    // nothing, which the pipeline lists as not run in this shard.
                    Some(shard) if shard.total > 1 => vec![
                        "--partition".to_owned(),
                        format!("count:{shard}"),
                        "--no-tests=pass".to_owned(),
                    ],
                    _ => Vec::new(),
                };
                self.nextest_spec(workspace, &config, partition, nextest::nextest_program())
            }
            None => Command::Test.spec(
                workspace,
                self.timeout,
                Command::Test.args_for(workspace, true),
            ),
        }
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        if nextest::runs_nextest(&spec.args) {
            self.interpret_nextest(spec, captured)
        } else {
            Command::Test.interpret(spec, captured)
        }
    }

    /// As `cargo test`'s, with nextest's program and configuration as tool files when the project
    /// configures it (a new nextest may run the same tests differently).
    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let mut inputs = Command::Test.inputs(workspace)?;
        if let Some(config) = nextest_config(&workspace.root) {
            inputs.tool_files.push(config.file);
            inputs.tool_files.extend(nextest::nextest_program());
        }
        Some(inputs)
    }

    /// See [`infra::test`].
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        infra::test(workspace, self.name())
    }

    /// `cargo test … -- --exact <name>…` with the failing tests' full names (libtest takes
    /// several filters; a binary that has none of them runs nothing and passes). `None` when the
    /// previous run names no failing test (it failed to compile, say), too many, or one that no
    /// filter can name: a doc-test, or a whole target that failed.
    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let names = failing_tests(previous);
        if names.is_empty() || names.len() > MAX_RERUN_TESTS {
            return None;
        }
        // A failure of a whole target (a crash, a `harness = false` target) is named by cargo's
        // target flags (`--lib`), which are no test filter. A doc-test's name
        // (`src/lib.rs - inc (line 3)`) cannot be one either: rustdoc splits its test arguments
        // at whitespace, so no filter matches it exactly and the pieces match other doc-tests.
        // Either way only the full run reruns it; a partial re-run would drop it from the report.
        if names
            .iter()
            .any(|name| name.starts_with('-') || name.contains(char::is_whitespace))
        {
            return None;
        }
        if let Some(config) = nextest_config(&workspace.root) {
            // nextest names no doc-test, and reruns each failing test by its exact name.
            let filter = nextest::filterset(&names)?;
            let extra = vec!["-E".to_owned(), filter];
            return self
                .nextest_spec(workspace, &config, extra, nextest::nextest_program())
                .ok();
        }
        let mut args = Command::Test.args_for(workspace, false);
        args.push("--".to_owned());
        args.push("--exact".to_owned());
        args.extend(names);
        Command::Test.spec(workspace, self.timeout, args).ok()
    }
}

/// The distinct names of the failing tests in `report`, in order.
pub fn failing_tests(report: &Report) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for name in report
        .diagnostics
        .iter()
        .filter(|d| d.kind == Kind::Test)
        .filter_map(|d| d.test.as_deref())
    {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    names
}

fn applicability(workspace: &Workspace) -> Applicability {
    match project(workspace) {
        Ok(found) => Applicability::Applies(found),
        Err(reason) => Applicability::DoesNotApply(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_model::Diagnostic;

    fn workspace_with(manifest: Option<&str>) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("temp dir");
        if let Some(manifest) = manifest {
            std::fs::write(dir.path().join("Cargo.toml"), manifest).expect("write");
        }
        let workspace = Workspace::new(dir.path());
        (dir, workspace)
    }

    #[test]
    fn applies_to_a_package_or_a_workspace_only() {
        let cases = [
            (Some("[package]\nname = \"a\"\n"), true),
            (Some("[workspace]\nmembers = [\"a\"]\n"), true),
            (Some("# [package]\n[dependencies]\n"), false),
            (None, false),
        ];
        for (manifest, applies) in cases {
            let (_dir, workspace) = workspace_with(manifest);
            // cargo-doctest needs nextest's config besides (its own tests say when it applies).
            for verifier in verifiers()
                .into_iter()
                .filter(|v| v.name() != doctest::NAME)
            {
                assert_eq!(
                    matches!(verifier.applies(&workspace), Applicability::Applies(_)),
                    applies,
                    "{manifest:?}"
                );
            }
        }
    }

    #[test]
    fn commands_ask_for_json_and_no_colour() {
        let (_dir, workspace) = workspace_with(Some("[package]\nname = \"a\"\n"));
        let check = CargoCheck::default()
            .command(&workspace)
            .expect("cargo found");
        assert_eq!(check.args[0], "check");
        assert!(check.args.contains(&"--message-format=json".to_owned()));
        assert_eq!(check.env["CARGO_TERM_COLOR"], "never");
        assert_eq!(check.exit_codes.fail, vec![101]);
        let test = CargoTest::default()
            .command(&workspace)
            .expect("cargo found");
        assert!(test.args.contains(&"--no-fail-fast".to_owned()));
        assert!(!test.args.contains(&"--all-targets".to_owned()));
    }

    #[test]
    fn cargo_is_found_on_path_then_in_cargo_home_else_not_installed() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let make = |relative: &str| {
            let path = dir.path().join(relative);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&path, "").expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            path
        };
        let on_path = make("bin/cargo");
        let in_home = make("home/.cargo/bin/cargo");
        let path = Some(OsString::from(dir.path().join("bin")));
        let home = Some(dir.path().join("home"));
        assert_eq!(find_cargo(path, None, home.clone()), Some(on_path));
        let empty = Some(OsString::from(dir.path().join("empty")));
        assert_eq!(find_cargo(empty.clone(), None, home), Some(in_home));
        assert_eq!(
            find_cargo(empty, Some(dir.path().join("nowhere")), None),
            None
        );

        // With no cargo anywhere, the command is not built: NotInstalled, with the hint.
        let (_dir, workspace) = workspace_with(Some("[package]\nname = \"a\"\n"));
        let error = Command::Check
            .spec_with(&workspace, DEFAULT_TIMEOUT, Vec::new(), None)
            .expect_err("no cargo");
        assert!(matches!(error, VerifierError::NotInstalled { .. }));
        assert!(error.to_string().contains("rustup"), "{error}");
    }

    #[test]
    fn a_project_configuring_nextest_without_it_installed_is_not_tested_with_cargo_test() {
        let (dir, workspace) = workspace_with(Some("[package]\nname = \"a\"\n"));
        std::fs::create_dir_all(dir.path().join(".config")).expect("mkdir");
        std::fs::write(dir.path().join(nextest::CONFIG_FILE), "").expect("write");
        let config = nextest_config(&workspace.root).expect("configured");
        let test = CargoTest::default();
        let error = test
            .nextest_spec(&workspace, &config, Vec::new(), None)
            .expect_err("no cargo-nextest");
        assert!(matches!(error, VerifierError::NotInstalled { .. }));
        assert!(
            error
                .to_string()
                .contains("cargo install cargo-nextest --locked"),
            "{error}"
        );
        let spec = test
            .nextest_spec(
                &workspace,
                &config,
                Vec::new(),
                Some("cargo-nextest".into()),
            )
            .expect("cargo-nextest found");
        assert_eq!(spec.args[..2], ["nextest", "run"]);
        assert_eq!(spec.exit_codes.fail, [100, 101]);
        assert!(spec.output_files.is_empty());
        // The program cargo would run is found on PATH or in $CARGO_HOME/bin.
        use std::os::unix::fs::PermissionsExt;
        let bin = dir.path().join("home/.cargo/bin/cargo-nextest");
        std::fs::create_dir_all(bin.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&bin, "").expect("write");
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let empty = Some(OsString::from(dir.path().join("empty")));
        assert_eq!(
            nextest::find_nextest(empty.clone(), None, Some(dir.path().join("home"))),
            Some(bin)
        );
        assert_eq!(nextest::find_nextest(empty, None, None), None);
    }

    #[test]
    fn dedupe_keeps_one_of_each_and_never_counts_fewer_than_it_shows() {
        let error = || {
            Diagnostic::new("cargo", Kind::Build, Severity::Error, "mismatched types")
                .at("src/lib.rs", Some(10), Some(5))
                .with_code("E0308")
        };
        let mut report = Report::new("cargo", Outcome::Failed);
        report.push(error());
        report.push(error());
        report.push(error().at("src/lib.rs", Some(11), Some(5)));
        // Two compilations, both summarized: 2 + 1 errors.
        report.counts.errors = Some(3);
        let mut both = report.clone();
        dedupe(&mut both);
        assert_eq!(both.diagnostics.len(), 2);
        assert_eq!(both.counts.errors, Some(2));
        // The second compilation stopped before cargo summarized it.
        report.counts.errors = Some(1);
        dedupe(&mut report);
        assert_eq!(report.counts.errors, Some(2));
    }

    #[test]
    fn a_cargo_without_clippy_is_errored_with_the_install_hint() {
        let (dir, workspace) = workspace_with(Some("[package]\nname = \"a\"\n"));
        let log = dir.path().join("clippy.log");
        // What cargo 1.95 prints when the clippy component is missing.
        std::fs::write(
            &log,
            "error: no such command: `clippy`\n\nhelp: view all installed commands with `cargo --list`\n",
        )
        .expect("write");
        let captured = Captured {
            exit: Exit::Code { code: 101 },
            log_bytes: 0,
            log_cut: 0,
            log_path: log,
            output_files: Vec::new(),
            duration: Duration::ZERO,
        };
        let clippy = Clippy::default();
        let spec = clippy.command(&workspace).expect("cargo found");
        let report = clippy.interpret(&spec, &captured);
        assert_eq!(report.outcome, Outcome::Errored);
        assert_eq!(
            report.error.as_deref(),
            Some("clippy is not installed: rustup component add clippy")
        );
    }

    #[test]
    fn manifests_naming_paths_outside_the_project_turn_the_cache_off() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("project");
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        std::fs::create_dir_all(dir.path().join("outside")).expect("mkdir");
        std::fs::write(dir.path().join("outside/Cargo.toml"), "[package]\n").expect("write");
        let package = "[package]\nname = \"a\"\n";
        // (root manifest, a member's manifest, whether something outside is named)
        let cases = [
            // Inside: a member glob, a path dependency, an escaped quote, a comment, a readme
            // one level up from a member (still inside).
            (
                "[workspace]\nmembers = [\"crates/*\"] # \"../x\"\n",
                "[package]\nreadme = \"../../README.md\"\ndescription = \"say \\\"hi\\\"\"\n[dependencies]\nb = { path = \"../b\" }\n",
                false,
            ),
            (
                &*format!("{package}[dependencies]\nshared = {{ path = \"../outside\" }}\n"),
                package,
                true,
            ),
            (
                &*format!("{package}[patch.crates-io]\nserde = {{ path = '../outside' }}\n"),
                package,
                true,
            ),
            ("[workspace]\nmembers = [\n  \"../*\",\n]\n", package, true),
            // A member that depends on something outside.
            (
                "[workspace]\nmembers = [\"crates/a\"]\n",
                "[dependencies]\nx = { path = \"../../../outside\" }\n",
                true,
            ),
            (
                &*format!("{package}[dependencies]\nx = {{ path = \"/usr/lib\" }}\n"),
                package,
                true,
            ),
        ];
        for (manifest, member, outside) in cases {
            let _ = std::fs::remove_dir_all(&root);
            write("Cargo.toml", manifest);
            write("crates/a/Cargo.toml", member);
            write("crates/b/Cargo.toml", package);
            assert_eq!(names_paths_outside(&root), outside, "{manifest}\n{member}");
            let workspace = Workspace::new(&root);
            assert_eq!(CargoTest::default().inputs(&workspace).is_none(), outside);
        }
        // A symbolic link inside the project that leads out of it.
        let _ = std::fs::remove_dir_all(&root);
        write(
            "Cargo.toml",
            &format!("{package}[dependencies]\nx = {{ path = \"vendor/x\" }}\n"),
        );
        std::fs::create_dir_all(root.join("vendor")).expect("mkdir");
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("vendor/x"))
            .expect("symlink");
        assert!(names_paths_outside(&root));
    }

    #[test]
    fn inputs_are_every_project_file_but_the_build_directory() {
        let (_dir, workspace) = workspace_with(Some("[package]\nname = \"a\"\n"));
        let inputs = CargoCheck::default()
            .inputs(&workspace)
            .expect("a project that names nothing outside has inputs");
        assert_eq!(inputs.globs, ["*", "!/target/**"]);
    }

    #[test]
    fn toolchain_files_cover_configs_above_rustup_updates_and_other_cargos() {
        let dir = tempfile::tempdir().expect("temp dir");
        let project = dir.path().join("repo/crate");
        let rustup = dir.path().join("rustup");
        let cargo_home = dir.path().join("cargo-home");
        let stable = rustup.join("toolchains/stable-x86_64-unknown-linux-gnu");
        std::fs::create_dir_all(&project).expect("mkdir");
        std::fs::create_dir_all(&stable).expect("mkdir");
        let files = toolchain_files(
            &project,
            Some(cargo_home.clone()),
            Some(rustup.clone()),
            None,
            Some(cargo_home.join("bin/cargo")),
        );
        for expected in [
            project.join("rust-toolchain.toml"),
            dir.path().join("repo/.cargo/config.toml"),
            dir.path().join("rust-toolchain"),
            cargo_home.join("config.toml"),
            rustup.join("settings.toml"),
            stable.join("lib/rustlib/multirust-channel-manifest.toml"),
            stable.join("lib/rustlib/components"),
        ] {
            assert!(
                files.contains(&expected),
                "{} not in {files:?}",
                expected.display()
            );
        }
        // rustup's proxy is not the toolchain; a distribution's cargo is, with its rustc.
        assert!(!files.iter().any(|f| f.ends_with("bin/cargo")));
        let system = dir.path().join("usr/bin");
        std::fs::create_dir_all(&system).expect("mkdir");
        std::fs::write(system.join("cargo"), "").expect("write");
        let files = toolchain_files(
            &project,
            Some(cargo_home),
            Some(rustup),
            None,
            Some(system.join("cargo")),
        );
        let system = std::fs::canonicalize(&system).expect("canonical");
        assert!(files.contains(&system.join("cargo")), "{files:?}");
        assert!(files.contains(&system.join("rustc")), "{files:?}");
    }

    #[test]
    fn rerun_names_each_failing_test_once() {
        let (_dir, workspace) = workspace_with(Some("[package]\nname = \"a\"\n"));
        let mut report = Report::new("cargo", Outcome::Failed);
        for name in ["tests::a", "tests::b", "tests::a"] {
            report.push(
                Diagnostic::new("cargo", Kind::Test, Severity::Error, "panicked").with_test(name),
            );
        }
        let spec = CargoTest::default()
            .rerun_failed(&workspace, &report)
            .expect("a rerun");
        let tail: Vec<&str> = spec.args.iter().map(String::as_str).rev().take(4).collect();
        assert_eq!(tail, ["tests::b", "tests::a", "--exact", "--"]);
        let empty = Report::new("cargo", Outcome::Failed);
        assert_eq!(CargoTest::default().rerun_failed(&workspace, &empty), None);
        // A doc-test or a failed target among the failures: the full run, not a partial one.
        for other in ["src/lib.rs - inc (line 3)", "--lib", "-p c --test custom"] {
            let mut with = report.clone();
            with.push(
                Diagnostic::new("cargo", Kind::Test, Severity::Error, "failed").with_test(other),
            );
            assert_eq!(
                CargoTest::default().rerun_failed(&workspace, &with),
                None,
                "{other}"
            );
        }
    }
}
