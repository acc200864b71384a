//! The `eslint` verifier: lints a JavaScript or TypeScript project with the project's own eslint
//! (`node_modules/.bin/eslint`).
//!
//! What it runs, and why: `eslint -f json -o <run dir>/eslint.json .` in the project root. The JSON
//! report is what the [`Report`] is built from (every message with its rule, severity and
//! position); what eslint prints besides (its crash banner, deprecation warnings) stays in the log,
//! which is read when there is no report.
//!
//! Configuration formats, and what each eslint major does with them:
//! - A flat config (`eslint.config.{js,mjs,cjs,ts,mts,cts}`), looked up from the project root
//!   upwards as eslint does: the normal case for eslint 9 and 10. eslint 8 gets
//!   `ESLINT_USE_FLAT_CONFIG=true`, without which it looks for one only under the name
//!   `eslint.config.js` (8.57) or not at all (older 8.x).
//! - Only a legacy config (`.eslintrc.*`, or `eslintConfig` in package.json): eslint 8 reads it by
//!   default. eslint 9 ignores it — it fails with "couldn't find an eslint.config.(js|mjs|cjs)
//!   file" — unless `ESLINT_USE_FLAT_CONFIG=false` is set, so the verifier sets it (and says so in
//!   [`Verifier::applies`]): the project's lint rules are in that file, and linting with them is
//!   what the project asked for. eslint 10 removed eslintrc support altogether, so there the
//!   command cannot be built and the run is errored with the migration hint.
//! - No config at all, but eslint is a dependency: it applies, and eslint's own error ("couldn't
//!   find a config file") makes the run errored — a project that depends on eslint and cannot run
//!   it has not passed its lint.
//!
//! The project's own lint script: when the `package.json` script that runs eslint passes
//! `--max-warnings N` (or `--max-warnings=N`) or `--quiet` to it, so does the verifier — the
//! script is read as a shell would split it into words (nothing is run or expanded), and only the
//! words of the eslint command itself count (up to `&&`, `||`, `;` or `|`). With `--max-warnings
//! N`, more than N warnings fail the run as they fail the script (`3 warnings, more than
//! --max-warnings 0 allows`); with `--quiet`, warnings are neither reported nor shown, and with
//! both, eslint still counts them against N (the failure then cannot say how many there were).
//!
//! Exit codes: 0 no errors (warnings alone pass, up to `--max-warnings`), 1 lint errors or too many
//! warnings (`ESLint found too many warnings (maximum: N).` in the log), 2 a configuration error or
//! a crash (the log then holds eslint's `Oops! Something went wrong! :(` and the reason).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;
use verdict_model::Tool;

use verdict_model::split::split_command;
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Exit, ExitCodes, Infrastructure, Inputs, VerifierError,
    Workspace,
};
use verdict_model::{Diagnostic, Kind, Outcome, Report, Severity, Summarizer, Verifier};
use verdict_summarizers::eslint::EslintSummarizer;
use verdict_verifier_support::declared::{self, Declared, Purpose};
use verdict_verifier_support::{
    PackageJson, infra, js_monorepo_root, node_bin, node_install_markers, summarize_log_as,
};

const NAME: &str = "eslint";

/// How long eslint may run by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// The hint shown when the project has no eslint installed.
pub const INSTALL_HINT: &str = "npm install --save-dev eslint";

/// The flat config file names eslint looks for, in its order.
pub const FLAT_CONFIGS: &[&str] = &[
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
    "eslint.config.mts",
    "eslint.config.cts",
];

/// The legacy (eslintrc) config file names.
pub const LEGACY_CONFIGS: &[&str] = &[
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.yaml",
    ".eslintrc.yml",
    ".eslintrc.json",
    ".eslintrc",
];

/// The extensions of the files eslint lints by default or through the usual plugins: an edited
/// file of another kind is not handed to it.
pub const LINTED_EXTENSIONS: &[&str] = &[
    "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte", "astro",
];

/// The environment variable that makes eslint 9 read a legacy config.
pub const USE_FLAT_CONFIG: &str = "ESLINT_USE_FLAT_CONFIG";

/// The name of the JSON report in the run directory.
pub const REPORT_FILE: &str = "eslint.json";

/// All the verifiers of this crate: just [`Eslint`].
pub fn verifiers() -> Vec<Box<dyn Verifier>> {
    vec![Box::new(Eslint::default())]
}

/// The `eslint` verifier (see the crate docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eslint {
    timeout: Duration,
}

impl Default for Eslint {
    fn default() -> Self {
        Eslint {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Eslint {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// The eslint configuration a workspace has, as eslint would find it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Config {
    /// A flat config: its path relative to the root (`eslint.config.mjs`, `../eslint.config.js`).
    Flat(String),
    /// Only a legacy eslintrc config: its path relative to the root, or `package.json (eslintConfig)`.
    Legacy(String),
    /// None found.
    Missing,
}

/// Finds the configuration eslint would use for `workspace`: a flat config in the root or an
/// ancestor first (as eslint 9 looks for one), else a legacy config in the root or an ancestor.
/// The file is named relative to the root (`../../eslint.config.js` for a monorepo's).
pub fn config(workspace: &Workspace) -> Config {
    let shown = |depth: usize, name: &str| format!("{}{name}", "../".repeat(depth));
    for (depth, dir) in workspace.root.ancestors().enumerate() {
        if let Some(name) = FLAT_CONFIGS.iter().find(|n| dir.join(n).is_file()) {
            return Config::Flat(shown(depth, name));
        }
    }
    for (depth, dir) in workspace.root.ancestors().enumerate() {
        if let Some(name) = LEGACY_CONFIGS.iter().find(|n| dir.join(n).is_file()) {
            return Config::Legacy(shown(depth, name));
        }
        if has_eslint_config_key(&dir.join("package.json")) {
            return Config::Legacy(format!("{} (eslintConfig)", shown(depth, "package.json")));
        }
    }
    Config::Missing
}

fn has_eslint_config_key(package_json: &Path) -> bool {
    std::fs::read_to_string(package_json)
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|value| value.get("eslintConfig").is_some())
}

/// The eslint package a `node_modules/.bin/eslint` entry runs: its directory and major version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The `.bin` entry.
    pub bin: PathBuf,
    /// The package's directory (links resolved), when it could be found.
    pub package_dir: Option<PathBuf>,
    /// Its version, when its package.json could be read.
    pub version: Option<String>,
}

impl Installed {
    /// Finds the project's eslint.
    pub fn find(workspace: &Workspace) -> Option<Installed> {
        let bin = node_bin(workspace, NAME)?;
        let package_dir = std::fs::canonicalize(&bin).ok().and_then(|target| {
            target
                .ancestors()
                .skip(1)
                .find(|dir| dir.join("package.json").is_file())
                .map(Path::to_path_buf)
        });
        let version = package_dir.as_ref().and_then(|dir| {
            let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
            let value: serde_json::Value = serde_json::from_str(&text).ok()?;
            value.get("version")?.as_str().map(str::to_owned)
        });
        Some(Installed {
            bin,
            package_dir,
            version,
        })
    }

    /// The major version, when known.
    pub fn major(&self) -> Option<u32> {
        self.version.as_deref()?.split('.').next()?.parse().ok()
    }
}

/// What the project's own lint script passes to eslint that changes when it fails or what it
/// reports (see the crate docs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptOptions {
    /// `--max-warnings N`: more than N warnings fail. `None` without it, or with a negative N
    /// (eslint's own default, -1, means no limit).
    pub max_warnings: Option<u64>,
    /// `--quiet`: warnings are not reported.
    pub quiet: bool,
}

impl ScriptOptions {
    /// The options of the first `package.json` script that runs eslint; none when there is no
    /// such script, or when it cannot be split into words (an unterminated quote).
    pub fn of(workspace: &Workspace) -> ScriptOptions {
        if let Some(command) = Declared::of(workspace).for_verifier(NAME) {
            return ScriptOptions::parse(&command.text);
        }
        let Ok(Some(package)) = PackageJson::read(workspace) else {
            return ScriptOptions::default();
        };
        package
            .script_running(NAME)
            .and_then(|name| package.scripts.get(name)?.as_str())
            .map(ScriptOptions::parse)
            .unwrap_or_default()
    }

    /// Reads the options of the eslint command in a script's command line.
    fn parse(command: &str) -> ScriptOptions {
        let mut options = ScriptOptions::default();
        let Ok(words) = split_command(command) else {
            return options;
        };
        let Some(start) = words.iter().position(|word| {
            word == NAME || word.ends_with("/eslint") || word.ends_with("/eslint.js")
        }) else {
            return options;
        };
        let mut words = words[start + 1..]
            .iter()
            .take_while(|word| !matches!(word.as_str(), "&&" | "||" | ";" | "|"));
        while let Some(word) = words.next() {
            let value = match word.as_str() {
                "--max-warnings" => words.next().map(String::as_str),
                "--quiet" => {
                    options.quiet = true;
                    continue;
                }
                other => other.strip_prefix("--max-warnings="),
            };
            // The last one given wins, as in eslint's own option parsing.
            if let Some(value) = value {
                options.max_warnings = value
                    .parse::<i64>()
                    .ok()
                    .and_then(|n| u64::try_from(n).ok());
            }
        }
        options
    }
}

/// eslint's options whose value is the next word, so that it is not read as a path.
const TAKES_VALUE: &[&str] = &[
    "-c",
    "--config",
    "--ext",
    "--env",
    "--global",
    "--parser",
    "--parser-options",
    "--plugin",
    "--rule",
    "--rulesdir",
    "--ignore-path",
    "--ignore-pattern",
    "--resolve-plugins-relative-to",
    "--cache-strategy",
    "--report-unused-disable-directives-severity",
    "--flag",
    "--stats",
];

/// What the project's declared eslint command lints and how: its options (but verdict's own,
/// see `owned` in the table of tools; `--max-warnings` and `--quiet` go through [`ScriptOptions`]) and the paths
/// it lints — `.` when it names none.
fn declared_invocation(workspace: &Workspace) -> (Vec<String>, Vec<String>) {
    let declared = Declared::of(workspace);
    let Some(command) = declared.for_verifier(NAME) else {
        return (Vec::new(), vec![".".to_owned()]);
    };
    let (mut options, mut targets) = (Vec::new(), Vec::new());
    let mut words = command.program_words().iter().skip(1);
    while let Some(word) = words.next() {
        let option = word.split_once('=').map_or(word.as_str(), |(o, _)| o);
        if let Some(&(_, takes_value)) = Tool::Eslint
            .spec()
            .owned
            .iter()
            .find(|(name, _)| *name == option)
        {
            if takes_value && !word.contains('=') {
                words.next();
            }
        } else if word.starts_with('-') {
            options.push(word.clone());
            if TAKES_VALUE.contains(&option)
                && !word.contains('=')
                && let Some(value) = words.next()
            {
                options.push(value.clone());
            }
        } else {
            targets.push(word.clone());
        }
    }
    if targets.is_empty() {
        targets.push(".".to_owned());
    }
    (options, targets)
}

/// The `--max-warnings` a command passes to eslint.
fn max_warnings(spec: &CommandSpec) -> Option<u64> {
    let at = spec.args.iter().position(|arg| arg == "--max-warnings")?;
    spec.args.get(at + 1)?.parse().ok()
}

/// How much of a log [`log_says_too_many_warnings`] reads: with `-o`, eslint prints little besides
/// its own messages.
const MAX_LOG_SCAN: u64 = 1024 * 1024;

/// Whether eslint printed that the warnings were more than `--max-warnings` allows.
fn log_says_too_many_warnings(captured: &Captured) -> bool {
    use std::io::{BufRead, BufReader, Read};
    let Ok(file) = captured.open_log() else {
        return false;
    };
    BufReader::new(file.take(MAX_LOG_SCAN))
        .split(b'\n')
        .map_while(Result::ok)
        .any(|line| line.starts_with(b"ESLint found too many warnings"))
}

/// Fails a report without errors whose warnings are more than the command's `--max-warnings`
/// allows, as eslint's exit code 1 and the project's own script do: the reason is one error in
/// the report, so that the digest shows why the run failed and not only the warnings.
fn enforce_max_warnings(report: &mut Report, spec: &CommandSpec, captured: &Captured) {
    let Some(max) = max_warnings(spec) else {
        return;
    };
    if report.outcome != Outcome::Passed || captured.exit != (Exit::Code { code: 1 }) {
        return;
    }
    let warnings = report.counts.warnings.unwrap_or(0);
    let message = if warnings > max {
        let noun = if warnings == 1 { "warning" } else { "warnings" };
        format!("{warnings} {noun}, more than --max-warnings {max} allows")
    } else if log_says_too_many_warnings(captured) {
        // `--quiet` keeps the warnings out of the report, but eslint still counted them.
        format!("more warnings than --max-warnings {max} allows (--quiet leaves them unreported)")
    } else {
        // An exit of 1 that nothing explains: left to `fail_closed`.
        return;
    };
    report.outcome = Outcome::Failed;
    let mut diagnostic = Diagnostic::new(NAME, Kind::Lint, Severity::Error, message.clone());
    diagnostic.root_cause = true;
    report.push(diagnostic);
    report.summary.get_or_insert(message);
}

/// `path` made absolute against the current directory (a relative workspace root names a path
/// from there, but the tool runs elsewhere).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Marks a passed report errored when the command did not end with an exit code declared a pass.
fn fail_closed(mut report: Report, spec: &CommandSpec, captured: &Captured) -> Report {
    // Its JSON report, one result per file, is what shows eslint linted something.
    report.needs_evidence("eslint wrote no JSON report to show it linted any file");
    // The shell's or env's line alone is no output of eslint's: the exit code says why.
    if captured.exit == (Exit::Code { code: 127 }) && report.outcome != Outcome::Failed {
        report.outcome = Outcome::Errored;
        report.error = Some(format!(
            "eslint could not start (exit 127: is `node` on PATH?); see {}",
            captured.log_path.display()
        ));
        return report;
    }
    if report.outcome != Outcome::Passed {
        return report;
    }
    let reason = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code } if spec.exit_codes.fail.contains(code) => format!(
            "eslint exited with {code}, which means lint errors, but none could be read from its \
             report; see {}",
            captured.log_path.display()
        ),
        Exit::Code { code } => format!(
            "eslint exited with {code} (a configuration error or a crash); see {}",
            captured.log_path.display()
        ),
        Exit::Signal { signal } => format!("eslint was killed by signal {signal}"),
        Exit::TimedOut => "eslint timed out and was stopped".to_owned(),
        Exit::Cancelled => "eslint was stopped: the run was interrupted".to_owned(),
        Exit::NotStarted { message } => message.clone(),
    };
    report.outcome = Outcome::Errored;
    report.error = Some(reason);
    report
}

/// Rewrites the absolute paths of eslint's JSON report relative to the project root (`cwd`), so
/// that locations and fingerprints do not depend on where the project is checked out.
fn relativize(report: &mut Report, cwd: &Path) {
    let mut roots = vec![cwd.to_path_buf()];
    if let Ok(canonical) = std::fs::canonicalize(cwd)
        && canonical != cwd
    {
        roots.push(canonical);
    }
    let mut changed = false;
    for diagnostic in &mut report.diagnostics {
        let Some(file) = &diagnostic.file else {
            continue;
        };
        let relative = roots
            .iter()
            .find_map(|root| Path::new(file).strip_prefix(root).ok())
            .map(|path| path.to_string_lossy().into_owned());
        if let Some(relative) = relative {
            diagnostic.file = Some(relative);
            changed = true;
        }
    }
    if changed {
        report.refresh_fingerprints();
    }
}

impl Eslint {
    /// The command that lints `targets` (paths relative to the root, or `.`).
    fn command_for(
        &self,
        workspace: &Workspace,
        targets: &[String],
        rerun: bool,
    ) -> Result<CommandSpec, VerifierError> {
        let installed = Installed::find(workspace).ok_or_else(|| VerifierError::NotInstalled {
            tool: NAME.to_owned(),
            hint: INSTALL_HINT.to_owned(),
        })?;
        let mut env = std::collections::BTreeMap::new();
        let config = config(workspace);
        let flat = match &config {
            // eslint 8 looks for a flat config only when told to (before 8.57) or only under the
            // name eslint.config.js; the variable makes it use one under any name it knows.
            Config::Flat(_) if installed.major() == Some(8) => {
                env.insert(USE_FLAT_CONFIG.to_owned(), "true".to_owned());
                true
            }
            Config::Flat(_) | Config::Missing => true,
            Config::Legacy(file) => match installed.major() {
                Some(major) if major >= 10 => {
                    return Err(VerifierError::Project {
                        tool: NAME.to_owned(),
                        message: format!(
                            "eslint {} no longer reads legacy configs such as {file} (eslintrc \
                             support was removed in eslint 10); migrate it to eslint.config.js: \
                             https://eslint.org/docs/latest/use/configure/migration-guide",
                            installed.version.as_deref().unwrap_or("10")
                        ),
                    });
                }
                Some(9) => {
                    env.insert(USE_FLAT_CONFIG.to_owned(), "false".to_owned());
                    false
                }
                // eslint 8 and older read eslintrc by default; an unknown version is treated
                // the same way, and eslint will say if it disagrees.
                _ => false,
            },
        };
        // Absolute paths: eslint runs in the root, which a relative run directory is not
        // relative to.
        let report = absolute(&workspace.run_dir.join(REPORT_FILE));
        let mut args = vec![
            "-f".to_owned(),
            "json".to_owned(),
            "-o".to_owned(),
            report.to_string_lossy().into_owned(),
        ];
        // What the project's own lint script asks for: the same limit on warnings, and the same
        // silence about them.
        let options = ScriptOptions::of(workspace);
        let (declared_options, _) = declared_invocation(workspace);
        if let Some(max) = options.max_warnings {
            args.extend(["--max-warnings".to_owned(), max.to_string()]);
        }
        if options.quiet {
            args.push("--quiet".to_owned());
        }
        // The rest of the project's own command: its config, extensions and ignore files.
        args.extend(declared_options);
        if rerun {
            // A file fixed by deleting it is not an error, and neither is one the config now
            // ignores (that flag only exists with flat configs).
            args.push("--no-error-on-unmatched-pattern".to_owned());
            if flat {
                args.push("--no-warn-ignored".to_owned());
            }
        }
        // A file whose name starts with a dash must not read as an option.
        args.extend(targets.iter().map(|target| {
            if target.starts_with('-') {
                format!("./{target}")
            } else {
                target.clone()
            }
        }));
        Ok(CommandSpec {
            program: absolute(&installed.bin),
            args,
            env,
            cwd: absolute(&workspace.root),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: vec![report],
        })
    }
}

impl Verifier for Eslint {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Lint
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        match declared::applicability(workspace, NAME, Purpose::Lint, false, || {
            applies_by_files(workspace)
        }) {
            // The declared command says what runs; the files say which config it reads.
            Applicability::Applies(declared) => match applies_by_files(workspace) {
                Applicability::Applies(files) if files != declared => {
                    Applicability::Applies(format!("{declared}; {files}"))
                }
                Applicability::Applies(_) => Applicability::Applies(declared),
                Applicability::DoesNotApply(_) => Applicability::Applies(declared),
            },
            other => other,
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let (_, targets) = declared_invocation(workspace);
        self.command_for(workspace, &targets, false)
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let json = captured
            .output_files
            .first()
            .and_then(|file| file.as_deref())
            .filter(|bytes| bytes.iter().any(|b| !b.is_ascii_whitespace()));
        let exit_code = match captured.exit {
            Exit::Code { code } => Some(code),
            _ => None,
        };
        let mut report = match json {
            // A report eslint wrote on an exit it declares normal: the full result.
            Some(json) if exit_code.is_some_and(|c| c == 0 || c == 1) => {
                EslintSummarizer.parse(json)
            }
            // Otherwise what it printed explains it (a crash, a config error).
            _ => {
                let mut report = summarize_log_as(NAME, captured);
                // A pass without a report is no pass; any other exit is explained below.
                if json.is_none()
                    && exit_code.is_some_and(|c| spec.exit_codes.pass.contains(&c))
                    && report.outcome == Outcome::Passed
                {
                    report.outcome = Outcome::Errored;
                    report.error = Some(format!(
                        "eslint wrote no report to {}; see {}",
                        spec.output_files
                            .first()
                            .map_or_else(|| "its output file".into(), |p| p.display().to_string()),
                        captured.log_path.display()
                    ));
                }
                report
            }
        };
        relativize(&mut report, &spec.cwd);
        enforce_max_warnings(&mut report, spec, captured);
        fail_closed(report, spec, captured)
    }

    /// Its configuration in every form eslint reads (a flat config, which eslint 10 looks up
    /// from each file's directory; the legacy `.eslintrc*` and `eslintConfig`, which cascade by
    /// directory), its ignore files, and from the declared command the files that declare it
    /// and those it names (`-c`, `--ignore-path`, a `--rulesdir` of the project's rules).
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        let infra = infra::tool_configs(NAME);
        let (command, mut infra) = infra::declared(workspace, NAME, infra);
        let Some(command) = command else {
            return infra;
        };
        let words = command.program_words();
        for file in infra::option_values(words, &["-c", "--config", "--ignore-path"], false) {
            if let Some(path) = infra::project_path(workspace, "", &file, &[""]) {
                infra = infra::path(infra, &path);
            }
        }
        for dir in infra::option_values(words, &["--rulesdir"], false) {
            if let Some(dir) = infra::project_dir(workspace, "", &dir).filter(|d| !d.is_empty()) {
                infra = infra::wholes(infra, &[&format!("{}/**", infra::escape(&dir))]);
            }
        }
        infra
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let tool_file = Installed::find(workspace)
            .and_then(|installed| installed.package_dir)
            .map(|dir| dir.join("package.json"))
            .unwrap_or_else(|| PathBuf::from("node_modules/eslint/package.json"));
        // Plugins, parsers and shared configs are installed packages: the package managers'
        // markers change with every install.
        let mut tool_files = vec![tool_file];
        tool_files.extend(node_install_markers(workspace));
        // A config above the root (a monorepo's) is read too; the globs only see the root.
        match config(workspace) {
            Config::Flat(file) | Config::Legacy(file) if file.starts_with("../") => {
                let file = file.trim_end_matches(" (eslintConfig)");
                tool_files.push(PathBuf::from(file));
            }
            _ => {}
        }
        Some(Inputs {
            globs: [
                // What eslint lints by default and what plugins commonly add, its configs, the
                // ignore file, and package.json (eslintConfig, and the `type` that decides how
                // .js files are parsed).
                "*.js",
                "*.jsx",
                "*.mjs",
                "*.cjs",
                "*.ts",
                "*.tsx",
                "*.mts",
                "*.cts",
                "*.vue",
                "*.svelte",
                "*.astro",
                "*.json",
                "*.jsonc",
                "*.md",
                "*.yaml",
                "*.yml",
                ".eslintrc",
                ".eslintignore",
                "!**/node_modules/**",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect(),
            tool_files,
            root: js_monorepo_root(workspace, "eslint"),
        })
    }

    fn command_for_files(
        &self,
        workspace: &Workspace,
        files: &[String],
    ) -> Option<Result<CommandSpec, VerifierError>> {
        let files: Vec<String> = files
            .iter()
            .filter(|file| {
                Path::new(file)
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| LINTED_EXTENSIONS.contains(&e))
            })
            .cloned()
            .collect();
        if files.is_empty() {
            return None;
        }
        // As a re-run: a file the config ignores is no error, and no warning either.
        Some(self.command_for(workspace, &files, true))
    }

    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let files: BTreeSet<String> = previous
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .filter_map(|d| d.file.clone())
            .filter(|file| workspace.path(file).is_file())
            .collect();
        if files.is_empty() {
            return None;
        }
        let files: Vec<String> = files.into_iter().collect();
        self.command_for(workspace, &files, true).ok()
    }
}

/// Whether eslint applies by the project's files alone: its config, or eslint as a dependency.
fn applies_by_files(workspace: &Workspace) -> Applicability {
    let depends = match PackageJson::read(workspace) {
        Ok(Some(package)) => package.depends_on(NAME) || package.script_running(NAME).is_some(),
        Ok(None) => false,
        Err(message) => {
            return match config(workspace) {
                Config::Missing => {
                    Applicability::DoesNotApply(format!("no eslint config, and {message}"))
                }
                Config::Flat(file) | Config::Legacy(file) => Applicability::Applies(file),
            };
        }
    };
    match config(workspace) {
        Config::Flat(file) => Applicability::Applies(file),
        Config::Legacy(file) => {
            let major = Installed::find(workspace).and_then(|i| i.major());
            Applicability::Applies(match major {
                Some(major) if major >= 10 => format!(
                    "{file}, a legacy config that eslint {major} cannot read (migrate it to \
                     eslint.config.js)"
                ),
                Some(9) => format!(
                    "{file}, a legacy config: eslint 9 reads it only with \
                     {USE_FLAT_CONFIG}=false, which verdict sets"
                ),
                _ => format!("{file} (a legacy config)"),
            })
        }
        Config::Missing if depends => Applicability::Applies(
            "package.json depends on eslint (but no eslint config was found)".to_owned(),
        ),
        Config::Missing => Applicability::DoesNotApply(
            "no eslint.config.* or .eslintrc*, and package.json does not use eslint".to_owned(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VERIFIER: Eslint = Eslint {
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
    fn infrastructure_names_configs_and_what_the_lint_script_names() {
        check_infrastructure(
            &[
                (
                    "package.json",
                    r#"{"scripts": {"lint": "eslint -c config/strict.mjs --rulesdir rules --ignore-path .gitignore src"}}"#,
                ),
                ("config/strict.mjs", "export default [];"),
                ("rules/no-x.js", ""),
                (".gitignore", "dist\n"),
            ],
            &[
                "**/eslint.config.*",
                "**/.eslintrc",
                "**/.eslintrc.*",
                ".eslintignore",
                "**/package.json json:eslintConfig",
                "package.json json:eslintIgnore",
                "package.json json:scripts.prelint",
                "package.json json:scripts.lint",
                "package.json json:scripts.postlint",
                "config/strict.mjs",
                ".gitignore",
                "rules/**",
            ],
        );
    }

    #[test]
    fn script_options_are_read_from_the_eslint_command_only() {
        let check = |command: &str, max_warnings: Option<u64>, quiet: bool| {
            assert_eq!(
                ScriptOptions::parse(command),
                ScriptOptions {
                    max_warnings,
                    quiet
                },
                "{command}"
            );
        };
        check("eslint --max-warnings 0 .", Some(0), false);
        check("eslint --max-warnings=12 --quiet src", Some(12), true);
        check("eslint --max-warnings 3 --max-warnings 5 .", Some(5), false);
        // eslint's own default: no limit.
        check("eslint --max-warnings -1 .", None, false);
        check(
            "node ./node_modules/eslint/bin/eslint.js --quiet .",
            None,
            true,
        );
        check("eslint 'src/**/*.js' --max-warnings \"0\"", Some(0), false);
        // Another command's options are not eslint's.
        check("eslint . && prettier --quiet --check .", None, false);
        check("tsc --noEmit; eslint .", None, false);
        check("eslint 'unterminated --max-warnings 0", None, false);
    }
}
