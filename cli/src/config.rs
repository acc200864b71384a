//! `verdict.toml`: the project's configuration, found from the working directory upwards to the
//! repository root, as `verdict.toml`, `.config/verdict.toml` or the `[tool.verdict]` table of
//! `pyproject.toml` (the same schema in each; see [`discover`] for which one is used).
//!
//! Everything works without the file (verifiers are detected from the project's own files); the
//! file changes run defaults (`[run]`), settings of any verifier (`[verifiers.<name>]`), adds
//! verifiers defined without code (`[[verifier]]`, see `verdict_custom`), names plugin
//! libraries (`plugins`), and describes the coding agents (`[[agent]]`) and retry policies
//! (`[loop]`) of `verdict loop`. The full reference with examples is `docs/config.md`.
//!
//! The schema is strict: every table denies unknown keys, and no `untagged`/`flatten` is used, so
//! that every mistake gets a precise message. Every error names the file, the line and the key:
//! `verdict.toml:7: unknown key `timout` in [verifiers.tsc] (expected one of: enabled, …)`.
//! The line comes from the span serde's error carries; the dotted key path from a second, spanned
//! parse of the same text (`toml::de::DeTable`), which also locates the keys of errors found after
//! deserializing (a regex that does not compile, a verifier that needs itself).
//!
//! `[[agent]]` and `[loop]` are deserialized straight into verdict-core's own types
//! ([`AgentConfig`], [`LoopConfig`]) as part of the file, rather than kept as a raw table and
//! parsed afterwards, so that their serde errors carry spans like every other table's. What serde
//! cannot check — an agent that does not describe one, a policy value out of range, a `[loop]
//! agents` name that is neither an `[[agent]]` nor a preset — is checked right after, at load
//! time, so a mistake stops `verdict run` as early as it would stop `verdict loop`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};
use verdict_core::agent_loop::agent::{AgentConfig, AgentError, presets};
use verdict_core::agent_loop::policy::{LoopConfig, Policies, PolicyError};
use verdict_core::verifier::Workspace;
use verdict_custom::{CustomVerifier, Definition, DefinitionError, duration};
use verdict_verifier_support::declared::Declared;

/// The file name looked for.
pub(crate) const FILE_NAME: &str = "verdict.toml";

/// Where a configuration is looked for in each directory, the first found winning: verdict's own
/// file, then the same file kept out of sight (as nextest's `.config/nextest.toml`), then the
/// `[tool.verdict]` table of a Python project's `pyproject.toml` (as ruff's and mypy's).
const CANDIDATES: [&str; 3] = [FILE_NAME, ".config/verdict.toml", PYPROJECT];

/// The Python project file whose `[tool.verdict]` table configures verdict.
const PYPROJECT: &str = "pyproject.toml";

/// verdict's configuration: the file's contents with defaults filled in, paths resolved.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Config {
    /// The file it was read from; `None` when there is none (everything is detected).
    pub(crate) path: Option<PathBuf>,
    /// Other files of the same directory that would configure verdict, ignored because
    /// [`Config::path`] wins over them (see [`discover`]).
    pub(crate) ignored: Vec<PathBuf>,
    /// The directory relative paths in the file resolve against: the file's directory, or (with no
    /// file) the repository root, or the start directory outside a repository.
    pub(crate) dir: PathBuf,
    /// The project, when it is not [`Config::dir`]: a file named by `--config` or `VERDICT_CONFIG`
    /// configures the project it is used in (the repository root, else the start directory),
    /// wherever the file itself is.
    pub(crate) project: Option<PathBuf>,
    /// `[run]`: defaults for `verdict run`.
    pub(crate) run: RunSettings,
    /// `[verifiers.<name>]`: settings of any verifier, linked, plugin or custom.
    pub(crate) verifiers: BTreeMap<String, VerifierSettings>,
    /// `[[verifier]]`: verifiers defined in the file.
    pub(crate) custom: Vec<Definition>,
    /// `plugins`: plugin libraries, resolved against [`Config::dir`].
    pub(crate) plugins: Vec<PathBuf>,
    /// `[[agent]]`: coding agents `verdict loop` can drive, each checked with
    /// [`AgentConfig::to_spec`] and with a name no other table has.
    #[allow(dead_code)] // Read by `verdict loop`.
    pub(crate) agents: Vec<AgentConfig>,
    /// `[loop]`: the retry loop's settings as written (the default when absent), already checked
    /// with [`Policies::with_config`]; its `agents` name `[[agent]]` tables or presets.
    #[allow(dead_code)] // Read by `verdict loop`.
    pub(crate) retry_loop: LoopConfig,
    /// Every verifier name the file gives (`[verifiers.<name>]`, `[run] only` and `skip`), with
    /// its line, for [`Config::check_names`] once the known verifiers are gathered.
    pub(crate) names: Vec<(String, usize)>,
}

/// `[run]`: defaults for `verdict run`; its command-line flags win.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunSettings {
    /// How many verifiers run at once (default: the number of cores).
    #[serde(default)]
    pub(crate) jobs: Option<usize>,
    /// Stop starting verifiers after the first that does not pass.
    #[serde(default)]
    pub(crate) fail_fast: bool,
    /// The digest's token budget.
    #[serde(default)]
    pub(crate) budget: Option<usize>,
    /// The time-out of every verifier that sets none of its own.
    #[serde(default, deserialize_with = "duration::deserialize_option")]
    #[schemars(with = "Option<duration::Text>")]
    pub(crate) timeout: Option<Duration>,
    /// Run only these verifiers (unless `--only` is given).
    #[serde(default)]
    pub(crate) only: Vec<String>,
    /// Never run these (added to `--skip`).
    #[serde(default)]
    pub(crate) skip: Vec<String>,
    /// A lint or type check whose tool is not installed makes the run "could not verify",
    /// as in CI, instead of a `not verified` line (as `--strict`).
    #[serde(default)]
    pub(crate) strict: bool,
}

/// `[verifiers.<name>]`: settings for one verifier, whatever its origin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct VerifierSettings {
    /// `true` runs it even where it was not detected; `false` never runs it unless `--only`
    /// names it; unset follows detection.
    #[serde(default)]
    pub(crate) enabled: Option<bool>,
    /// Its time-out, over `[run] timeout` and its own default.
    #[serde(default, deserialize_with = "duration::deserialize_option")]
    #[schemars(with = "Option<duration::Text>")]
    pub(crate) timeout: Option<Duration>,
    /// Verifiers that must pass before it starts. Set (even to `[]`), it replaces the order the
    /// project's `&&` chains give this verifier.
    #[serde(default)]
    pub(crate) needs: Option<Vec<String>>,
    /// For test verifiers: whether a run that ran no test, or skipped every test, may pass.
    #[serde(default)]
    pub(crate) allow_no_tests: bool,
    /// Extra environment for its command.
    #[serde(default)]
    pub(crate) env: BTreeMap<String, String>,
    /// Arguments appended to its command, after those verdict and the project's command give.
    #[serde(default)]
    pub(crate) args: Vec<String>,
    /// The command line the verifier takes its tool's arguments, paths and environment from, in
    /// place of the one the project's files declare (`eslint ./src --ext .ts`, or `npm run
    /// lint:src`, which is followed); split as a shell would, never run by one.
    #[serde(default)]
    pub(crate) command: Option<String>,
    /// The files and directories the tool checks, in place of those its command names.
    #[serde(default)]
    pub(crate) paths: Vec<String>,
    /// The directory its command runs in, relative to the project root.
    #[serde(default)]
    pub(crate) cwd: Option<PathBuf>,
    /// Whether the post-edit hook runs it after each edit (`verdict hook <harness> --event
    /// post-edit`): unset follows the default (tsc, eslint and clippy are fast, the rest not).
    #[serde(default)]
    pub(crate) fast: Option<bool>,
}

/// The file as written (with spans where later checks need lines).
#[derive(Default, Deserialize, JsonSchema)]
#[schemars(title = "verdict.toml")]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    run: RunSettings,
    #[serde(default)]
    verifiers: BTreeMap<String, VerifierSettings>,
    #[serde(default)]
    verifier: Vec<Definition>,
    #[serde(default)]
    #[schemars(with = "Vec<PathBuf>")]
    plugins: Vec<Spanned<PathBuf>>,
    #[serde(default, rename = "loop")]
    retry_loop: LoopConfig,
    #[serde(default)]
    agent: Vec<AgentConfig>,
}

/// `pyproject.toml` as verdict reads it: its `[tool.verdict]` table, every other key ignored.
#[derive(Deserialize)]
struct Pyproject {
    #[serde(default)]
    tool: PyprojectTools,
}

/// The `[tool]` table of `pyproject.toml`.
#[derive(Default, Deserialize)]
struct PyprojectTools {
    #[serde(default)]
    verdict: Option<File>,
}

/// Why the configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    /// The file exists but cannot be read.
    #[error("failed to read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file named by `--config` or `VERDICT_CONFIG` does not exist.
    #[error("the config file {} named by {named_by} does not exist", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
        /// `--config` or `VERDICT_CONFIG`.
        named_by: &'static str,
    },
    /// The file is not valid TOML, or a key or value is wrong.
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the key or value at fault.
        line: usize,
        /// The dotted path of the key at fault (`verifiers.tsc.timout`, `verifier[2].pattern[1].regex`),
        /// when known; for tools that point at the key rather than print the message.
        #[allow(dead_code)]
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
}

impl Config {
    /// The project's root directory as the configuration places it: [`Config::project`], else
    /// [`Config::dir`].
    pub(crate) fn project_dir(&self) -> &Path {
        self.project.as_deref().unwrap_or(&self.dir)
    }

    /// The configuration in force as the user reads it: `verdict.toml`, `.config/verdict.toml`
    /// or `[tool.verdict] of pyproject.toml` (`verdict.toml` when there is none).
    pub(crate) fn label(&self) -> String {
        self.path
            .as_deref()
            .map_or_else(|| FILE_NAME.to_owned(), label)
    }

    /// The note saying which files of the configuration's directory were ignored, if any.
    pub(crate) fn ignored_note(&self) -> Option<String> {
        let used = self.path.as_ref()?;
        if self.ignored.is_empty() {
            return None;
        }
        let ignored: Vec<String> = self
            .ignored
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        Some(format!(
            "verdict: note: reads {} and ignores {} (in one directory, verdict.toml wins over \
             .config/verdict.toml, which wins over [tool.verdict] of pyproject.toml)",
            used.display(),
            ignored.join(" and ")
        ))
    }

    /// The configuration when there is no file: every setting at its default.
    pub(crate) fn default_for(dir: &Path) -> Config {
        Config {
            path: None,
            ignored: Vec::new(),
            dir: dir.to_path_buf(),
            project: None,
            run: RunSettings::default(),
            verifiers: BTreeMap::new(),
            custom: Vec::new(),
            plugins: Vec::new(),
            agents: Vec::new(),
            retry_loop: LoopConfig::default(),
            names: Vec::new(),
        }
    }

    /// Checks that every verifier the file names is one of `known`: a typo in a table's name
    /// would otherwise configure nothing, without a word.
    pub(crate) fn check_names(&self, known: &BTreeSet<String>) -> Result<(), ConfigError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        match self.names.iter().find(|(name, _)| !known.contains(name)) {
            None => Ok(()),
            Some((name, line)) => Err(ConfigError::Invalid {
                path: path.clone(),
                line: *line,
                key: None,
                message: format!(
                    "no verifier is called `{name}`; known verifiers: {}",
                    known.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            }),
        }
    }

    /// The workspace at `root` as the configuration shapes it: the command lines verdict.toml
    /// gives verifiers (`command`, and `paths` in place of the command's own paths).
    pub(crate) fn workspace(&self, root: &Path) -> Workspace {
        let mut workspace = Workspace::new(root);
        let declared = Declared::from_files(root);
        for (name, settings) in &self.verifiers {
            let line = match (&settings.command, settings.paths.is_empty()) {
                (Some(command), true) => command.clone(),
                (command, false) => {
                    let base = command
                        .clone()
                        .or_else(|| declared.for_verifier(name).map(|c| c.text.clone()));
                    with_paths(base.as_deref().unwrap_or(name), &settings.paths)
                }
                (None, true) => continue,
            };
            workspace.commands.insert(name.clone(), line);
        }
        workspace
    }

    /// The time-out of verifier `name` that the configuration sets, in order of precedence:
    /// `[verifiers.<name>] timeout`, then the `timeout` of a `[[verifier]]` of that name, then
    /// `[run] timeout`. `None` leaves the verifier's own default.
    pub(crate) fn timeout_for(&self, name: &str) -> Option<Duration> {
        self.verifiers
            .get(name)
            .and_then(|s| s.timeout)
            .or_else(|| {
                self.custom
                    .iter()
                    .find(|d| d.name == name)
                    .and_then(|d| d.timeout)
            })
            .or(self.run.timeout)
    }
}

/// `line` with its positional words (those that are neither options nor, by their place right
/// after an option, an option's value) replaced by `paths`, each quoted for the splitter.
fn with_paths(line: &str, paths: &[String]) -> String {
    let Ok(words) = verdict_core::agent_loop::agent::split_command(line) else {
        return line.to_owned();
    };
    let program = verdict_verifier_support::declared::program_index(&words);
    let mut kept: Vec<String> = Vec::new();
    let mut after_option = false;
    for (index, word) in words.iter().enumerate() {
        let positional = index > program && !word.starts_with('-') && !after_option;
        after_option = word.starts_with('-') && !word.contains('=');
        if !positional {
            kept.push(word.clone());
        }
    }
    kept.extend(paths.iter().cloned());
    kept.iter()
        .map(|word| format!("'{}'", word.replace('\'', r"'\''")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Finds verdict.toml from `start` upwards, stopping at the repository root (the first directory
/// holding `.git`, a directory or a file) and never looking beyond it. Outside any repository only
/// `start` itself is looked at, so that a stray file in a home directory is never picked up. No file
/// gives the defaults, with [`Config::dir`] at the repository root (or `start`).
///
/// Each directory may hold the configuration as `verdict.toml`, `.config/verdict.toml` or the
/// `[tool.verdict]` table of `pyproject.toml` (a pyproject.toml without the table does not count).
/// The nearest directory holding any of them wins; within it, that order is the precedence, and
/// the files that lose are kept in [`Config::ignored`] and named in a note on stderr.
///
/// A file named by `--config` or `VERDICT_CONFIG` is read instead of looking for one: it must
/// exist, and its [`Config::project`] is the repository root of `start` (or `start`).
pub(crate) fn discover(start: &Path) -> Result<Config, ConfigError> {
    let config = find(start)?;
    // Never silently: the files that lost to the one used are named, once per process.
    static NOTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if let Some(note) = config.ignored_note()
        && !NOTED.swap(true, std::sync::atomic::Ordering::Relaxed)
    {
        eprintln!("{note}");
    }
    // verdict's files left in the tree by an older verdict go where the project's tools do not
    // look, once, said on stderr (stdout may carry a protocol).
    if let Some(note) = verdict_core::paths::migrate(config.project_dir()) {
        eprintln!("{note}");
    }
    Ok(config)
}

/// [`discover`] without moving anything.
fn find(start: &Path) -> Result<Config, ConfigError> {
    let start = if start.is_absolute() {
        start.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(start))
            .unwrap_or_else(|_| start.to_path_buf())
    };
    let root = start.ancestors().find(|dir| dir.join(".git").exists());
    if let Some((path, source)) = &crate::global::get().config {
        if !path.is_file() {
            return Err(ConfigError::Missing {
                path: path.clone(),
                named_by: source.describe(),
            });
        }
        let mut config = load(path)?;
        config.project = Some(root.unwrap_or(&start).to_path_buf());
        return Ok(config);
    }
    let Some(root) = root else {
        return match load_first(&start)? {
            Some(config) => Ok(config),
            None => Ok(Config::default_for(&start)),
        };
    };
    for dir in start.ancestors() {
        if let Some(config) = load_first(dir)? {
            return Ok(config);
        }
        if dir == root {
            break;
        }
    }
    Ok(Config::default_for(root))
}

/// The configuration `dir` holds, by [`CANDIDATES`]' precedence, with the others it holds ignored.
fn load_first(dir: &Path) -> Result<Option<Config>, ConfigError> {
    let mut found = CANDIDATES
        .iter()
        .map(|name| dir.join(name))
        .filter(|path| configures(path));
    let Some(used) = found.next() else {
        return Ok(None);
    };
    let mut config = load(&used)?;
    config.ignored = found.collect();
    Ok(Some(config))
}

/// Whether the file at `path` configures verdict: it exists and, for pyproject.toml, holds a
/// `[tool.verdict]` table.
fn configures(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    if !is_pyproject(path) {
        return true;
    }
    let Ok(text) = std::fs::read_to_string(path) else {
        // Unreadable, it counts: loading it says why it cannot be used.
        return true;
    };
    if !text.contains("verdict") {
        return false;
    }
    match text.parse::<toml::Table>() {
        Ok(table) => table
            .get("tool")
            .and_then(toml::Value::as_table)
            .is_some_and(|tool| tool.contains_key("verdict")),
        // An invalid file that seems to hold the table counts, so that its error is reported
        // rather than the table skipped without a word.
        Err(_) => text.contains("tool.verdict"),
    }
}

fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|name| name == PYPROJECT)
}

/// `path` as the user knows the configuration it holds (see [`Config::label`]).
fn label(path: &Path) -> String {
    let in_config_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == ".config");
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    if is_pyproject(path) {
        format!("[tool.verdict] of {name}")
    } else if in_config_dir {
        format!(".config/{name}")
    } else {
        name
    }
}

/// The JSON Schema of verdict.toml, as the file is read (`schemas/verdict-toml.schema.json`).
pub(crate) fn json_schema() -> schemars::Schema {
    let mut schema = schemars::schema_for!(File);
    schema.insert("title".to_owned(), "verdict.toml".into());
    schema.insert(
        "description".to_owned(),
        "verdict's configuration file; docs/config.md describes every key.".into(),
    );
    schema
}

/// Reads and checks the file at `path`.
pub(crate) fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut dir = path
        .parent()
        .map(Path::to_path_buf)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| PathBuf::from("."));
    // `.config/verdict.toml` configures the directory holding `.config`, as nextest's does.
    if dir.file_name().is_some_and(|name| name == ".config")
        && let Some(project) = dir.parent().filter(|p| !p.as_os_str().is_empty())
    {
        dir = project.to_path_buf();
    }
    parse(&text, path, &dir)
}

/// Parses the text of a config file at `path`, resolving relative paths against `dir`; of a
/// `pyproject.toml`, its `[tool.verdict]` table, errors naming its lines and its full keys.
fn parse(text: &str, path: &Path, dir: &Path) -> Result<Config, ConfigError> {
    let invalid =
        |span: Option<Range<usize>>, key: Option<String>, message: String| ConfigError::Invalid {
            path: path.to_path_buf(),
            line: span.map_or(1, |s| line_of(text, s.start)),
            key,
            message,
        };
    // A spanned parse first: syntax errors come out of it, and it locates keys afterwards.
    let document = DeTable::parse(text).map_err(|e| {
        invalid(
            e.span(),
            None,
            format!("invalid TOML: {}", first_line(e.message())),
        )
    })?;
    let pyproject = is_pyproject(path);
    let prefix = if pyproject {
        KeyPath::keys(&["tool", "verdict"])
    } else {
        KeyPath::default()
    };
    let keys = KeyIndex::new(document.get_ref(), prefix);
    let serde_error = |e: toml::de::Error| {
        let key = e.span().and_then(|span| keys.at(span.start));
        let message = describe(e.message(), key.as_ref());
        invalid(e.span(), key.map(|k| k.dotted()), message)
    };
    let file: File = if pyproject {
        let tools = toml::from_str::<Pyproject>(text).map_err(serde_error)?.tool;
        tools.verdict.ok_or_else(|| {
            invalid(
                None,
                None,
                "no [tool.verdict] table to configure verdict".to_owned(),
            )
        })?
    } else {
        toml::from_str(text).map_err(serde_error)?
    };

    // Checks serde cannot make, each located at its key (its full key in a pyproject.toml).
    let located = |path: KeyPath, message: String| {
        let span = keys.span(&path);
        invalid(span, Some(keys.full(&path).dotted()), message)
    };
    check_settings(&file, &located)?;
    check_definitions(&file, &keys, text, dir, &located)?;
    check_agents(&file, &keys, text, &located)?;
    check_loop(&file, &keys, &located)?;
    let names = named_verifiers(&file, &keys, text);
    let plugins = file
        .plugins
        .into_iter()
        .map(|p| {
            let p = p.into_inner();
            if p.is_absolute() { p } else { dir.join(p) }
        })
        .collect();
    Ok(Config {
        path: Some(path.to_path_buf()),
        ignored: Vec::new(),
        dir: dir.to_path_buf(),
        project: None,
        run: file.run,
        verifiers: file.verifiers,
        custom: file.verifier,
        plugins,
        agents: file.agent,
        retry_loop: file.retry_loop,
        names,
    })
}

/// Checks of `[run]` and `[verifiers.<name>]` that serde cannot make.
fn check_settings(
    file: &File,
    located: &impl Fn(KeyPath, String) -> ConfigError,
) -> Result<(), ConfigError> {
    if file.run.jobs == Some(0) {
        return Err(located(
            KeyPath::keys(&["run", "jobs"]),
            "`jobs` must be at least 1".to_owned(),
        ));
    }
    if file
        .run
        .budget
        .is_some_and(|b| crate::budget::check(b).is_err())
    {
        return Err(located(
            KeyPath::keys(&["run", "budget"]),
            "`budget` must be at least 1 token".to_owned(),
        ));
    }
    for (name, settings) in &file.verifiers {
        if let Some(command) = &settings.command
            && let Err(error) = verdict_core::agent_loop::agent::split_command(command)
        {
            return Err(located(
                KeyPath::keys(&["verifiers", name, "command"]),
                format!("`command` of verifier `{name}` cannot be split into words: {error}"),
            ));
        }
        if settings.needs.iter().flatten().any(|need| need == name) {
            return Err(located(
                KeyPath::keys(&["verifiers", name, "needs"]),
                format!("verifier `{name}` needs itself"),
            ));
        }
    }
    Ok(())
}

/// Every verifier name the file gives, with its line: `[verifiers.<name>]` tables and the entries
/// of `[run] only` and `skip` (checked by [`Config::check_names`]).
fn named_verifiers(file: &File, keys: &KeyIndex, text: &str) -> Vec<(String, usize)> {
    let line = |path: KeyPath| keys.span(&path).map_or(1, |s| line_of(text, s.start));
    let listed = |list: &'static str, names: &[String]| {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), line(KeyPath::keys(&["run", list]).index(i))))
            .collect::<Vec<_>>()
    };
    file.verifiers
        .keys()
        .map(|name| (name.clone(), line(KeyPath::keys(&["verifiers", name]))))
        .chain(listed("only", &file.run.only))
        .chain(listed("skip", &file.run.skip))
        .collect()
}

/// The `[[verifier]]` definitions: names given once, each a valid custom verifier; an error
/// is located at the key that is wrong.
fn check_definitions(
    file: &File,
    keys: &KeyIndex,
    text: &str,
    dir: &Path,
    located: &impl Fn(KeyPath, String) -> ConfigError,
) -> Result<(), ConfigError> {
    for (i, definition) in file.verifier.iter().enumerate() {
        let at = |key: &str| KeyPath::keys(&["verifier"]).index(i).key(key);
        if let Some(first) = file.verifier[..i]
            .iter()
            .position(|d| d.name == definition.name)
        {
            let first_line = keys
                .span(&KeyPath::keys(&["verifier"]).index(first).key("name"))
                .map_or(1, |s| line_of(text, s.start));
            return Err(located(
                at("name"),
                format!(
                    "duplicate verifier name `{}` in [[verifier]] (first defined on line {first_line})",
                    definition.name
                ),
            ));
        }
        if let Err(error) = CustomVerifier::new(definition.clone(), dir) {
            let key = match &error {
                DefinitionError::Name(_) => at("name"),
                DefinitionError::EmptyCommand(_) => at("command"),
                DefinitionError::NoPassCode(_) => at("pass_exit_codes"),
                DefinitionError::OverlappingCodes { .. } => at("fail_exit_codes"),
                DefinitionError::NeedsItself(_) => at("needs"),
                DefinitionError::ExitCodeRange { list, .. } => at(list),
                DefinitionError::InputOutside { .. } => at("inputs"),
                DefinitionError::Regex { index: 0, .. } => at("summary"),
                DefinitionError::Regex { index, .. }
                | DefinitionError::NoMessageGroup { index, .. } => {
                    at("pattern").index(index - 1).key("regex")
                }
                DefinitionError::UnknownGroup { place, .. } => match place
                    .strip_prefix("pattern ")
                    .and_then(|n| n.parse::<usize>().ok())
                {
                    Some(index) => at("pattern").index(index - 1).key("regex"),
                    None => at("summary"),
                },
            };
            return Err(located(key, error.to_string()));
        }
    }
    Ok(())
}

/// Checks every `[[agent]]` table: it describes an agent ([`AgentConfig::to_spec`]), and no other
/// table has its name (the name given, else the preset's or the program's).
fn check_agents(
    file: &File,
    keys: &KeyIndex,
    text: &str,
    located: &impl Fn(KeyPath, String) -> ConfigError,
) -> Result<(), ConfigError> {
    // Each name seen so far, with the line where it is given (its `name` key, else the table).
    let mut seen: Vec<(String, usize)> = Vec::new();
    for (i, agent) in file.agent.iter().enumerate() {
        let table = KeyPath::keys(&["agent"]).index(i);
        let at = |key: &str| table.clone().key(key);
        let spec = agent.to_spec().map_err(|error| {
            let (path, message) = match error {
                AgentError::UnknownPreset { .. } => (at("preset"), error.to_string()),
                AgentError::Command { .. } => (at("command"), error.to_string()),
                AgentError::Pattern { kind, .. } => (at("patterns").key(kind), error.to_string()),
                // A table that names no program, or too many ways to run one, or a zero time-out:
                // its own message, at its header. The name is empty when none was given.
                AgentError::Config { name, reason } if name.is_empty() => {
                    (table.clone(), format!("invalid [[agent]]: {reason}"))
                }
                AgentError::Config { name, reason } => {
                    (table.clone(), format!("invalid agent `{name}`: {reason}"))
                }
            };
            located(path, message)
        })?;
        let name_path = if agent.name.is_some() {
            at("name")
        } else {
            table.clone()
        };
        let line = keys.span(&name_path).map_or(1, |s| line_of(text, s.start));
        if let Some((_, first)) = seen.iter().find(|(name, _)| *name == spec.name) {
            return Err(located(
                name_path,
                format!(
                    "duplicate agent name `{}` in [[agent]] (first defined on line {first})",
                    spec.name
                ),
            ));
        }
        seen.push((spec.name, line));
    }
    Ok(())
}

/// Checks `[loop]`: the defaults with it laid over them resolve ([`Policies::with_config`]), and
/// each of its `agents` is an `[[agent]]` name or a preset.
fn check_loop(
    file: &File,
    keys: &KeyIndex,
    located: &impl Fn(KeyPath, String) -> ConfigError,
) -> Result<(), ConfigError> {
    if let Err(error) = Policies::with_config(&file.retry_loop) {
        return Err(match error {
            PolicyError::Invalid { key, problem } => {
                let mut path = KeyPath::keys(&["loop"]);
                for part in key.split('.') {
                    path = path.key(part);
                }
                // A key the table does not write comes from the embedded defaults, which a test
                // keeps valid; should it happen anyway, the `[loop]` header is the place to look.
                let path = if keys.span(&path).is_some() {
                    path
                } else {
                    KeyPath::keys(&["loop"])
                };
                located(path, format!("`loop.{key}` {problem}"))
            }
            PolicyError::Parse(error) => located(
                KeyPath::keys(&["loop"]),
                format!("invalid [loop] table: {}", first_line(error.message())),
            ),
        });
    }
    let Some(agents) = &file.retry_loop.agents else {
        return Ok(());
    };
    let mut known: Vec<String> = file
        .agent
        .iter()
        // Every table resolved in `check_agents`, which runs first.
        .filter_map(|agent| agent.to_spec().ok().map(|spec| spec.name))
        .chain(presets::preset_names().map(str::to_owned))
        .collect();
    known.sort();
    known.dedup();
    for (i, name) in agents.iter().enumerate() {
        if !known.contains(name) {
            return Err(located(
                KeyPath::keys(&["loop", "agents"]).index(i),
                format!(
                    "unknown agent `{name}` in `loop.agents`; known agents ([[agent]] names and \
                     presets): {}",
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Rewrites serde's message in the file's terms: keys, tables, what is expected.
fn describe(message: &str, key: Option<&KeyPath>) -> String {
    let message = first_line(message);
    let table = key.map_or_else(|| "the top level".to_owned(), KeyPath::table);
    if let Some(rest) = message.strip_prefix("unknown field `") {
        // serde: "unknown field `x`, expected one of `a`, `b`" / "expected `a` or `b`" /
        // "expected `a`" / "there are no fields".
        let (field, expected) = rest.split_once('`').unwrap_or((rest, ""));
        let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        return if names.is_empty() {
            format!("unknown key `{field}` in {table}")
        } else {
            format!(
                "unknown key `{field}` in {table} (expected one of: {})",
                names.join(", ")
            )
        };
    }
    if let Some(rest) = message.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or(rest);
        // The span of a missing field is its table; the key path ends at the table.
        let table = key.map_or_else(|| "the top level".to_owned(), KeyPath::as_table);
        return format!("missing key `{field}` in {table}");
    }
    match key {
        Some(key) => format!("`{}`: {message}", key.dotted()),
        None => message.to_owned(),
    }
}

fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or(message).trim()
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// One step of a key path: a key, or an index into an array (of tables).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A dotted key path: `verifiers.tsc.timeout`, `verifier[1].pattern[0].regex`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct KeyPath(Vec<Step>);

impl KeyPath {
    fn keys(keys: &[&str]) -> KeyPath {
        KeyPath(keys.iter().map(|k| Step::Key((*k).to_owned())).collect())
    }

    fn key(mut self, key: &str) -> KeyPath {
        self.0.push(Step::Key(key.to_owned()));
        self
    }

    fn index(mut self, index: usize) -> KeyPath {
        self.0.push(Step::Index(index));
        self
    }

    fn dotted(&self) -> String {
        let mut out = String::new();
        for step in &self.0 {
            match step {
                Step::Key(key) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&quote_key(key));
                }
                Step::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
            }
        }
        out
    }

    /// The table holding the key at the end of this path, as its header reads: `[verifiers.tsc]`,
    /// `[[verifier]]`, `[[verifier.pattern]]`, or `the top level`.
    fn table(&self) -> String {
        let mut parent = self.clone();
        parent.0.pop();
        parent.as_table()
    }

    /// This path itself as a table header.
    fn as_table(&self) -> String {
        if self.0.is_empty() {
            return "the top level".to_owned();
        }
        let names: Vec<String> = self
            .0
            .iter()
            .filter_map(|s| match s {
                Step::Key(k) => Some(quote_key(k)),
                Step::Index(_) => None,
            })
            .collect();
        if matches!(self.0.last(), Some(Step::Index(_))) {
            format!("[[{}]]", names.join("."))
        } else {
            format!("[{}]", names.join("."))
        }
    }
}

/// A key as TOML writes it: bare when it can be, quoted otherwise.
fn quote_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        key.to_owned()
    } else {
        format!("{key:?}")
    }
}

/// Every key of the document with the span of the key and of its value.
struct KeyIndex {
    entries: Vec<(KeyPath, Range<usize>, Range<usize>)>,
    /// Where verdict's configuration sits in the document: nowhere (the top level) in
    /// verdict.toml, `tool.verdict` in pyproject.toml.
    prefix: KeyPath,
}

impl KeyIndex {
    fn new(table: &DeTable<'_>, prefix: KeyPath) -> KeyIndex {
        let mut index = KeyIndex {
            entries: Vec::new(),
            prefix,
        };
        index.walk_table(table, &KeyPath::default());
        index
    }

    /// The full path in the document of `path`, a path in verdict's configuration.
    fn full(&self, path: &KeyPath) -> KeyPath {
        let mut full = self.prefix.clone();
        full.0.extend(path.0.iter().cloned());
        full
    }

    fn walk_table(&mut self, table: &DeTable<'_>, prefix: &KeyPath) {
        for (key, value) in table {
            let path = prefix.clone().key(key.get_ref());
            self.entries.push((path.clone(), key.span(), value.span()));
            self.walk_value(value.get_ref(), &path);
        }
    }

    fn walk_value(&mut self, value: &DeValue<'_>, path: &KeyPath) {
        match value {
            DeValue::Table(table) => self.walk_table(table, path),
            DeValue::Array(array) => {
                for (i, item) in array.iter().enumerate() {
                    let item_path = path.clone().index(i);
                    self.entries
                        .push((item_path.clone(), item.span(), item.span()));
                    self.walk_value(item.get_ref(), &item_path);
                }
            }
            _ => {}
        }
    }

    /// The deepest key whose key or value holds `offset`.
    fn at(&self, offset: usize) -> Option<KeyPath> {
        self.entries
            .iter()
            .filter(|(_, key, value)| key.contains(&offset) || value.contains(&offset))
            .max_by_key(|(path, _, _)| path.0.len())
            .map(|(path, _, _)| path.clone())
    }

    /// Where `path` is written (its key), for errors found after deserializing; for an array item,
    /// the item.
    fn span(&self, path: &KeyPath) -> Option<Range<usize>> {
        let path = self.full(path);
        self.entries
            .iter()
            .find(|(p, _, _)| *p == path)
            .map(|(_, key, _)| key.clone())
    }
}

/// The text `verdict init` writes: the detected verifiers (name, reason) as `[verifiers.<name>]`
/// tables with their reasons in comments, every `[run]` setting commented out at its default, and a
/// commented example `[[verifier]]`. It parses back as a valid config.
pub(crate) fn render_init(detected: &[(String, String)]) -> String {
    let mut out = String::new();
    out.push_str(
        "# verdict.toml, written by `verdict init`. Reference: docs/config.md in verdict's repository.\n\
         #\n\
         # Everything here is optional: without this file verdict detects the same verifiers from\n\
         # the project's own files. Keys not listed in the reference are errors.\n\
         \n\
         [run]\n\
         # jobs = 2            # verifiers run at once (default: the number of cores)\n\
         # fail_fast = false   # stop starting verifiers after the first that does not pass\n\
         # budget = 500        # the digest's token budget\n\
         # timeout = \"10m\"     # time-out of every verifier that sets none\n\
         # only = []           # run only these (unless --only is given)\n\
         # skip = []           # never run these\n",
    );
    if detected.is_empty() {
        out.push_str(
            "\n# No verifier was detected in this project. Add one below, or settings for a\n\
             # verifier by name:\n\
             # [verifiers.tsc]\n\
             # enabled = true\n",
        );
    } else {
        out.push_str("\n# Detected in this project (`verdict list` shows the same):\n");
    }
    for (name, reason) in detected {
        let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
        let _ = write!(
            out,
            "\n# {reason}\n\
             [verifiers.{}]\n\
             enabled = true\n\
             # timeout = \"5m\"\n\
             # needs = []\n\
             # env = {{ }}\n",
            quote_key(name)
        );
        if !name.starts_with("script:") {
            out.push_str(
                "# args = []           # appended to its command\n                 # command = \"\"        # the command line to take its arguments from, in place of the project's\n",
            );
        }
        if is_test_verifier(name) {
            out.push_str(
                "# allow_no_tests = false   # a run with no test, or every test skipped, is not a pass\n",
            );
        }
    }
    out.push_str(INIT_EXAMPLE);
    out
}

/// Whether a linked verifier of this name runs tests (only shown as a hint in `verdict init`).
fn is_test_verifier(name: &str) -> bool {
    verdict_core::Tool::of_verifier(name).is_some_and(|tool| tool.spec().is_test_runner())
}

/// The commented example of a project-specific verifier that `verdict init` writes.
const INIT_EXAMPLE: &str = r#"
# A project-specific verifier, defined without code. Uncomment and adapt:
#
# [[verifier]]
# name = "shellcheck"
# kind = "lint"                        # build | type | lint | test | other
# command = ["shellcheck", "-f", "gcc", "scripts/deploy.sh"]   # an argv array, never a shell string
# timeout = "2m"
# pass_exit_codes = [0]
# fail_exit_codes = [1]                # any other exit code: could not verify
# inputs = ["scripts/**/*.sh"]         # unchanged since the last pass: skipped (cached)
# applies_if = ["scripts/deploy.sh"]
#
# [[verifier.pattern]]
# regex = '^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<severity>error|warning|note): (?P<message>.*?)(?: \[(?P<code>SC\d+)\])?$'
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text` as the file `<dir>/verdict.toml` and returns the error message.
    fn check_error(text: &str, expect: &str) {
        let dir = Path::new("/project");
        let error = parse(text, &dir.join(FILE_NAME), dir).expect_err("the config is invalid");
        assert_eq!(error.to_string(), expect);
    }

    fn check(text: &str) -> Config {
        let dir = Path::new("/project");
        parse(text, &dir.join(FILE_NAME), dir).expect("the config is valid")
    }

    #[test]
    fn empty_file_is_the_defaults() {
        let config = check("");
        assert_eq!(config.path, Some(PathBuf::from("/project/verdict.toml")));
        assert_eq!(config.run, RunSettings::default());
        assert!(config.verifiers.is_empty() && config.custom.is_empty());
        assert!(config.plugins.is_empty() && config.agents.is_empty());
        assert_eq!(config.retry_loop, LoopConfig::default());
    }

    #[test]
    fn full_file() {
        let config = check(
            r#"
plugins = ["target/libplugin.so", "/opt/verdict/libother.so"]

[run]
jobs = 2
fail_fast = true
budget = 800
timeout = "10m"
only = ["tsc"]
skip = ["eslint"]

[verifiers.tsc]
enabled = true
timeout = 300
needs = ["build"]
env = { NODE_OPTIONS = "--max-old-space-size=4096" }

[verifiers.pytest]
allow_no_tests = true

[[verifier]]
name = "build"
kind = "build"
command = ["make"]
timeout = "1m30s"

[[verifier.pattern]]
regex = '^(?P<file>[^:]+):(?P<line>\d+): (?P<message>.*)$'

[loop]
max_attempts = 3
"#,
        );
        assert_eq!(config.run.jobs, Some(2));
        assert!(config.run.fail_fast);
        assert_eq!(config.run.budget, Some(800));
        assert_eq!(config.run.timeout, Some(Duration::from_secs(600)));
        assert_eq!(config.run.only, vec!["tsc"]);
        assert_eq!(config.run.skip, vec!["eslint"]);
        let tsc = &config.verifiers["tsc"];
        assert_eq!(tsc.enabled, Some(true));
        assert_eq!(tsc.timeout, Some(Duration::from_secs(300)));
        assert_eq!(tsc.needs, Some(vec!["build".to_owned()]));
        assert_eq!(
            tsc.env.get("NODE_OPTIONS").map(String::as_str),
            Some("--max-old-space-size=4096")
        );
        assert!(config.verifiers["pytest"].allow_no_tests);
        assert_eq!(config.custom.len(), 1);
        assert_eq!(config.custom[0].timeout, Some(Duration::from_secs(90)));
        assert_eq!(
            config.plugins,
            vec![
                PathBuf::from("/project/target/libplugin.so"),
                PathBuf::from("/opt/verdict/libother.so")
            ]
        );
        assert_eq!(config.retry_loop.max_attempts, Some(3));
        // Precedence of time-outs: the verifier's settings, its definition, then [run].
        assert_eq!(config.timeout_for("tsc"), Some(Duration::from_secs(300)));
        assert_eq!(config.timeout_for("build"), Some(Duration::from_secs(90)));
        assert_eq!(config.timeout_for("eslint"), Some(Duration::from_secs(600)));
    }

    #[test]
    fn unknown_keys_name_the_line_key_and_table() {
        check_error(
            "[verifiers.tsc]\nenabled = true\ntimout = \"5m\"\n",
            "/project/verdict.toml:3: unknown key `timout` in [verifiers.tsc] (expected one of: enabled, timeout, needs, allow_no_tests, env, args, command, paths, cwd, fast)",
        );
        check_error(
            "\n[run]\njob = 2\n",
            "/project/verdict.toml:3: unknown key `job` in [run] (expected one of: jobs, fail_fast, budget, timeout, only, skip, strict)",
        );
        check_error(
            "plugin = []\n",
            "/project/verdict.toml:1: unknown key `plugin` in the top level (expected one of: run, verifiers, verifier, plugins, loop, agent)",
        );
        check_error(
            "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = [\"a\"]\n\n[[verifier]]\nname = \"b\"\nkind = \"lint\"\ncommand = [\"b\"]\n[[verifier.pattern]]\nregex = '(?P<message>.*)'\nseverty = \"warning\"\n",
            "/project/verdict.toml:12: unknown key `severty` in [[verifier.pattern]] (expected one of: regex, severity, kind)",
        );
        check_error(
            "[verifiers.eslint]\nenv = { A = \"1\" }\n[verifiers.tsc]\nenabled = true\nneeds = []\nwhatever = 1\n",
            "/project/verdict.toml:6: unknown key `whatever` in [verifiers.tsc] (expected one of: enabled, timeout, needs, allow_no_tests, env, args, command, paths, cwd, fast)",
        );
    }

    #[test]
    fn bad_values_name_the_line_and_key() {
        check_error(
            "[run]\ntimeout = \"-5s\"\n",
            "/project/verdict.toml:2: `run.timeout`: invalid duration `-5s`; expected a whole number of seconds or a string like \"90s\", \"5m\", \"1m30s\"",
        );
        check_error(
            "[verifiers.jest]\ntimeout = -30\n",
            "/project/verdict.toml:2: `verifiers.jest.timeout`: invalid duration -30: it must be more than zero seconds",
        );
        check_error(
            "[run]\nfail_fast = \"yes\"\n",
            "/project/verdict.toml:2: `run.fail_fast`: invalid type: string \"yes\", expected a boolean",
        );
        check_error(
            "[run]\njobs = -1\n",
            "/project/verdict.toml:2: `run.jobs`: invalid value: integer `-1`, expected usize",
        );
        check_error(
            "[run]\njobs = 0\n",
            "/project/verdict.toml:2: `jobs` must be at least 1",
        );
        check_error(
            "[run]\nbudget = 0\n",
            "/project/verdict.toml:2: `budget` must be at least 1 token",
        );
        check_error(
            "[[verifier]]\nname = \"x\"\nkind = \"style\"\ncommand = [\"x\"]\n",
            "/project/verdict.toml:3: `verifier[0].kind`: unknown variant `style`, expected one of `build`, `type`, `lint`, `test`, `custom`, `other`",
        );
        check_error(
            "[[verifier]]\nname = \"x\"\nkind = \"lint\"\ncommand = \"make lint\"\n",
            "/project/verdict.toml:4: `verifier[0].command`: invalid type: string \"make lint\", expected a sequence",
        );
        check_error(
            "[[verifier]]\nname = \"x\"\nkind = \"lint\"\n",
            "/project/verdict.toml:1: missing key `command` in [[verifier]]",
        );
        check_error(
            "[[verifier]]\nname = \"x\"\nkind = \"lint\"\ncommand = [\"x\"]\n\n[[verifier]]\nname = \"y\"\ncommand = [\"y\"]\n",
            "/project/verdict.toml:6: missing key `kind` in [[verifier]]",
        );
        check_error(
            "[verifiers.tsc]\nenabled = true\nenv = { A = \"1\", B = 2 }\n",
            "/project/verdict.toml:3: `verifiers.tsc.env.B`: invalid type: integer `2`, expected a string",
        );
        check_error(
            "[verifiers.tsc]\nenabled = true\nneeds = [\"tsc\"]\n",
            "/project/verdict.toml:3: verifier `tsc` needs itself",
        );
    }

    #[test]
    fn invalid_toml_names_the_line() {
        check_error(
            "[run]\njobs = 2\nbudget = \n",
            "/project/verdict.toml:3: invalid TOML: string values must be quoted, expected literal string",
        );
        check_error(
            "[run]\njobs = 2\n[run]\n",
            "/project/verdict.toml:3: invalid TOML: duplicate key",
        );
    }

    #[test]
    fn a_name_that_is_no_verifier_is_an_error_at_its_line() {
        let known: BTreeSet<String> = ["eslint", "tsc"].map(String::from).into();
        let config = check("[verifiers.tsc]\nenabled = true\n\n[verifiers.tcs]\nenabled = false\n");
        let error = config.check_names(&known).expect_err("a typo");
        assert_eq!(
            error.to_string(),
            "/project/verdict.toml:4: no verifier is called `tcs`; known verifiers: eslint, tsc"
        );
        let config = check("[run]\nonly = [\"tsc\"]\nskip = [\n  \"eslint\",\n  \"esling\",\n]\n");
        let error = config.check_names(&known).expect_err("a typo");
        assert!(
            error
                .to_string()
                .starts_with("/project/verdict.toml:5: no verifier is called `esling`"),
            "{error}"
        );
        check("[verifiers.tsc]\n[run]\nskip = [\"eslint\"]\n")
            .check_names(&known)
            .expect("known names");
    }

    #[test]
    fn custom_verifier_errors_name_the_line() {
        let head = "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = [\"a\"]\n\n";
        check_error(
            &format!("{head}[[verifier]]\nname = \"a\"\nkind = \"test\"\ncommand = [\"b\"]\n"),
            "/project/verdict.toml:7: duplicate verifier name `a` in [[verifier]] (first defined on line 2)",
        );
        check_error(
            "[[verifier]]\nname = \"My Check\"\nkind = \"lint\"\ncommand = [\"a\"]\n",
            "/project/verdict.toml:2: invalid verifier name `My Check`: use lowercase letters, digits, `-` and `_`, starting with a letter or digit",
        );
        check_error(
            "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = []\n",
            "/project/verdict.toml:4: verifier `a`: `command` is empty; give the program and its arguments as an array",
        );
        check_error(
            "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = [\"a\"]\nneeds = [\"a\"]\n",
            "/project/verdict.toml:5: verifier `a` needs itself",
        );
        check_error(
            "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = [\"a\"]\nfail_exit_codes = [0, 1]\n",
            "/project/verdict.toml:5: verifier `a`: exit code 0 is in both `pass_exit_codes` and `fail_exit_codes`",
        );
        check_error(
            "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = [\"a\"]\npass_exit_codes = [0, 256, -1]\n",
            "/project/verdict.toml:5: verifier `a`: exit code 256 in `pass_exit_codes` is not one a process can exit with (0 to 255)",
        );
        check_error(
            "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = [\"a\"]\nfail_exit_codes = [-1]\n",
            "/project/verdict.toml:5: verifier `a`: exit code -1 in `fail_exit_codes` is not one a process can exit with (0 to 255)",
        );
        check_error(
            "[[verifier]]\nname = \"a\"\nkind = \"lint\"\ncommand = [\"a\"]\ninputs = [\"src/**\", \"!../vendor/**\"]\n",
            "/project/verdict.toml:5: verifier `a`: input `!../vendor/**` is outside the project; `inputs` are globs relative to the directory holding verdict.toml, without `..`",
        );
        check_error(
            &format!(
                "{head}[[verifier.pattern]]\nregex = '(?P<message>.*)'\n\n[[verifier.pattern]]\nregex = '(?P<file>[a-'\n"
            ),
            "/project/verdict.toml:10: verifier `a`: pattern 2: invalid regex: regex parse error:\n    (?P<file>[a-\n             ^\nerror: unclosed character class",
        );
        check_error(
            &format!("{head}[[verifier.pattern]]\nregex = '(?P<file>\\S+): (?P<text>.*)'\n"),
            "/project/verdict.toml:7: verifier `a`: pattern 1: unknown group `text`; groups are file, line, col, column, severity, code, message, test",
        );
        check_error(
            &format!("{head}[[verifier.pattern]]\nregex = '(?P<file>\\S+): .*'\n"),
            "/project/verdict.toml:7: verifier `a`: pattern 1 has no `(?P<message>…)` group",
        );
    }

    #[test]
    fn agents_and_loop() {
        let config = check(
            r#"
[[agent]]
preset = "claude"
timeout = 600
env = { ANTHROPIC_MODEL = "claude-sonnet-4-5" }
patterns.quota = ["(?i)usage limit reached"]

[[agent]]
name = "codex-fallback"
argv = ["codex", "exec", "--sandbox", "workspace-write", "-"]

[[agent]]
command = "/opt/bin/aider --yes-always --message {prompt}"

[loop]
max_attempts = 5
agents = ["claude", "codex-fallback", "aider", "gemini"]
guidance = "Keep the public API."
protected = [".github/**"]
on_repeat = "block"
escalate_command = ["notify-send", "verdict"]

[loop.policy.lint]
action = "block"
delays = ["1s", "2m"]
"#,
        );
        let names: Vec<String> = config
            .agents
            .iter()
            .map(|agent| agent.to_spec().expect("checked at load").name)
            .collect();
        assert_eq!(names, ["claude", "codex-fallback", "aider"]);
        assert_eq!(config.agents[0].timeout, Some(600));
        let agents = config.retry_loop.agents.clone().unwrap_or_default();
        assert_eq!(agents, ["claude", "codex-fallback", "aider", "gemini"]);
        let policies = Policies::with_config(&config.retry_loop).expect("checked at load");
        assert_eq!(policies.max_attempts, 5);
        assert_eq!(
            policies.escalate_command,
            Some(vec!["notify-send".to_owned(), "verdict".to_owned()])
        );
        let lint = policies.policy(verdict_core::agent_loop::classify::Category::Lint);
        assert_eq!(
            lint.action,
            verdict_core::agent_loop::policy::RecoveryAction::Block
        );
        assert_eq!(
            lint.delays,
            [Duration::from_secs(1), Duration::from_secs(120)]
        );
        // Keys the table leaves out keep the embedded defaults.
        assert_eq!(
            lint.max_attempts,
            Policies::defaults()
                .policy(verdict_core::agent_loop::classify::Category::Lint)
                .max_attempts
        );
    }

    #[test]
    fn agent_errors_name_the_line_and_key() {
        check_error(
            "[[agent]]\npreset = \"claude\"\n\n[[agent]]\nname = \"x\"\nargv = [\"x\"]\nprompt = \"{prompt}\"\n",
            "/project/verdict.toml:7: unknown key `prompt` in [[agent]] (expected one of: name, preset, command, argv, env, timeout, patterns)",
        );
        check_error(
            "[[agent]]\nname = \"mine\"\npreset = \"cursor\"\n",
            "/project/verdict.toml:3: no agent preset named `cursor` (presets: aider, claude, codex, gemini)",
        );
        check_error(
            "[run]\njobs = 1\n\n[[agent]]\ntimeout = 60\n",
            "/project/verdict.toml:4: invalid [[agent]]: give one of `preset`, `command` or `argv`",
        );
        check_error(
            "[[agent]]\nname = \"both\"\npreset = \"claude\"\ncommand = \"claude -p\"\n",
            "/project/verdict.toml:1: invalid agent `both`: give only one of `preset`, `command` and `argv`",
        );
        check_error(
            "[[agent]]\ncommand = \"aider --message \\\"{prompt}\"\n",
            "/project/verdict.toml:2: invalid agent command `aider --message \"{prompt}`: a double quote is never closed",
        );
        check_error(
            "[[agent]]\npreset = \"codex\"\npatterns.auth = [\"(\"]\n",
            "/project/verdict.toml:3: invalid auth pattern `(`: regex parse error:\n    (\n    ^\nerror: unclosed group",
        );
        check_error(
            "[[agent]]\npreset = \"codex\"\npatterns.bogus = [\"x\"]\n",
            "/project/verdict.toml:3: `agent[0].patterns.bogus`: unknown variant `bogus`, expected one of `auth`, `quota`, `model_unavailable`, `turn_limit`, `rate_limited`, `overloaded`, `server_error`, `network`",
        );
        check_error(
            "[[agent]]\npreset = \"claude\"\ntimeout = \"30m\"\n",
            "/project/verdict.toml:3: `agent[0].timeout`: invalid type: string \"30m\", expected u64",
        );
    }

    #[test]
    fn duplicate_agent_names_name_both_lines() {
        // Named by the preset, twice.
        check_error(
            "[[agent]]\npreset = \"claude\"\n\n[[agent]]\npreset = \"claude\"\ntimeout = 60\n",
            "/project/verdict.toml:4: duplicate agent name `claude` in [[agent]] (first defined on line 1)",
        );
        // Named by `name` the second time, by the program's file name the first.
        check_error(
            "[[agent]]\ncommand = \"/usr/local/bin/aider --message {prompt}\"\n\n[[agent]]\nname = \"aider\"\npreset = \"aider\"\n",
            "/project/verdict.toml:5: duplicate agent name `aider` in [[agent]] (first defined on line 1)",
        );
        // Another name for the same preset is fine.
        let config = check(
            "[[agent]]\npreset = \"claude\"\n\n[[agent]]\nname = \"claude-slow\"\npreset = \"claude\"\ntimeout = 7200\n",
        );
        assert_eq!(config.agents.len(), 2);
    }

    #[test]
    fn loop_errors_name_the_line_and_key() {
        check_error(
            "[loop]\nmax_attempts = 3\nattempts = 3\n",
            "/project/verdict.toml:3: unknown key `attempts` in [loop] (expected one of: max_attempts, agents, guidance, protected, new_failures_only, allow_test_edits, allow_infra_edits, session_failures, on_repeat, escalate_command, policy)",
        );
        check_error(
            "[loop]\nmax_attempts = 0\n",
            "/project/verdict.toml:2: `loop.max_attempts` is 0 (it counts attempts: at least 1)",
        );
        check_error(
            "[loop.policy.lint]\nmax_attempts = 2\naction = \"retry\"\n",
            "/project/verdict.toml:3: `loop.policy.lint.action`: unknown variant `retry`, expected one of `retry_with_guidance`, `refresh_requirements`, `escalate`, `block`",
        );
        check_error(
            "[loop.policy.typo]\naction = \"block\"\n",
            "/project/verdict.toml:1: unknown key `typo` in [loop.policy] (expected one of: code_error, test_failure, lint, transient, timeout, resource_exhaustion, dependency_missing, flaky, unknown)",
        );
        check_error(
            "[loop]\nmax_attempts = 4\n\n[loop.policy.transient]\ndelays = [\"30s\", \"5 minutes\"]\n",
            "/project/verdict.toml:5: `loop.policy.transient.delays` holds `5 minutes`, not a number with a unit (500ms, 30s, 2m, 1h)",
        );
        check_error(
            "[loop.policy.flaky]\ndelays = []\n",
            "/project/verdict.toml:2: `loop.policy.flaky.delays` is empty (give at least one, e.g. [\"0s\"])",
        );
        check_error(
            "[loop]\non_repeat = \"ignore\"\n",
            "/project/verdict.toml:2: `loop.on_repeat`: unknown variant `ignore`, expected one of `escalate`, `block`, `retry`",
        );
        // These loaded without a word, and failed (or did nothing) only when the loop got there.
        check_error(
            "[loop]\nmax_attempts = 3\nprotected = [\"tests/**\", \"[unclosed\"]\n",
            "/project/verdict.toml:3: `loop.protected` holds `[unclosed`, not a valid glob: unclosed character class; missing ']'",
        );
        check_error(
            "[loop]\nescalate_command = []\n",
            "/project/verdict.toml:2: `loop.escalate_command` is empty (give the program and its arguments, e.g. [\"notify-send\", \"verdict\"], or leave the key out)",
        );
    }

    #[test]
    fn loop_agents_must_be_known() {
        check_error(
            "[[agent]]\nname = \"mine\"\ncommand = \"my-agent {prompt}\"\n\n[loop]\nagents = [\n  \"mine\",\n  \"claude-code\",\n]\n",
            "/project/verdict.toml:8: unknown agent `claude-code` in `loop.agents`; known agents ([[agent]] names and presets): aider, claude, codex, gemini, mine",
        );
        // A preset needs no table.
        let config = check("[loop]\nagents = [\"codex\", \"claude\"]\n");
        assert_eq!(
            config.retry_loop.agents,
            Some(vec!["codex".to_owned(), "claude".to_owned()])
        );
    }

    /// docs/config.md shows each preset's exact argv and each category's default policy, as the
    /// embedded files have them.
    #[test]
    fn the_reference_shows_the_presets_and_the_default_policies() {
        let docs = include_str!("../../docs/config.md");
        // The first row of a table after `section` that starts with `first`.
        let row = |section: &str, first: &str| -> Vec<String> {
            let start = docs
                .find(section)
                .unwrap_or_else(|| panic!("no `{section}`"));
            let line = docs[start..]
                .lines()
                .find(|line| line.starts_with(&format!("| `{first}` |")))
                .unwrap_or_else(|| panic!("docs/config.md has no row for `{first}`"));
            line.split('|')
                .map(|cell| cell.trim().trim_matches('`').to_owned())
                .filter(|cell| !cell.is_empty())
                .collect()
        };
        for name in presets::preset_names() {
            let argv = presets::preset(name).map(|argv| argv.join(" "));
            assert_eq!(
                row("### Presets", name).get(1).cloned(),
                argv,
                "preset {name}"
            );
        }
        let defaults = Policies::defaults();
        for category in verdict_core::agent_loop::classify::Category::ALL {
            let policy = defaults.policy(category);
            let delays: Vec<String> = policy
                .delays
                .iter()
                .map(|d| match d.as_secs() {
                    s if s >= 60 && s % 60 == 0 => format!("\"{}m\"", s / 60),
                    s => format!("\"{s}s\""),
                })
                .collect();
            let action = serde_json::to_value(policy.action).expect("an action serializes");
            assert_eq!(
                row("| category | `max_attempts`", &category.to_string()),
                [
                    category.to_string(),
                    policy.max_attempts.to_string(),
                    format!("[{}]", delays.join(", ")),
                    action.as_str().unwrap_or_default().to_owned(),
                    policy.refresh_after.to_string(),
                ],
                "category {category}"
            );
        }
    }

    #[test]
    fn discovery_stops_at_the_repository_root() {
        let temp = tempfile::tempdir().expect("temp dir");
        let outer = temp.path();
        // A config above the repository must never be found.
        std::fs::write(outer.join(FILE_NAME), "[run]\njobs = 9\n").expect("write");
        let repo = outer.join("repo");
        let deep = repo.join("a").join("b");
        std::fs::create_dir_all(&deep).expect("dirs");
        std::fs::create_dir(repo.join(".git")).expect(".git");

        let config = discover(&deep).expect("no config is fine");
        assert_eq!(config.path, None);
        assert_eq!(config.dir, repo);
        assert_eq!(config.run.jobs, None);

        // One in the repository root is found from below, and relative paths resolve there.
        std::fs::write(repo.join(FILE_NAME), "plugins = [\"lib/libp.so\"]\n").expect("write");
        let config = discover(&deep).expect("valid");
        assert_eq!(config.path, Some(repo.join(FILE_NAME)));
        assert_eq!(config.dir, repo);
        assert_eq!(config.plugins, vec![repo.join("lib").join("libp.so")]);

        // The nearest one wins.
        std::fs::write(repo.join("a").join(FILE_NAME), "plugins = [\"p.so\"]\n").expect("write");
        let config = discover(&deep).expect("valid");
        assert_eq!(config.path, Some(repo.join("a").join(FILE_NAME)));
        assert_eq!(config.plugins, vec![repo.join("a").join("p.so")]);

        // A `.git` file (a worktree or submodule) marks a root too.
        let sub = repo.join("a").join("b");
        std::fs::write(sub.join(".git"), "gitdir: ../../.git/modules/b\n").expect(".git file");
        let config = discover(&sub).expect("no config");
        assert_eq!(config.path, None);
        assert_eq!(config.dir, sub);

        // Outside any repository only the start directory is looked at.
        let loose = tempfile::tempdir().expect("temp dir");
        let below = loose.path().join("x");
        std::fs::create_dir(&below).expect("dir");
        std::fs::write(loose.path().join(FILE_NAME), "[run]\njobs = 3\n").expect("write");
        let config = discover(&below).expect("no config");
        assert_eq!((config.path, config.dir), (None, below));
        let config = discover(loose.path()).expect("valid");
        assert_eq!(config.run.jobs, Some(3));
    }

    #[test]
    fn discovery_reads_each_location_by_its_precedence() {
        let temp = tempfile::tempdir().expect("temp dir");
        let repo = temp.path();
        std::fs::create_dir(repo.join(".git")).expect(".git");
        let deep = repo.join("src");
        std::fs::create_dir(&deep).expect("dir");
        let pyproject = repo.join(PYPROJECT);
        let hidden = repo.join(".config").join(FILE_NAME);
        let plain = repo.join(FILE_NAME);

        // A pyproject.toml without [tool.verdict] does not count.
        std::fs::write(
            &pyproject,
            "[project]\nname = \"x\"\n[tool.ruff]\nline-length = 90\n",
        )
        .expect("write");
        assert_eq!(discover(&deep).expect("no config").path, None);

        // [tool.verdict]: the table is verdict.toml's schema, paths resolve beside pyproject.toml.
        std::fs::write(
            &pyproject,
            "[project]\nname = \"x\"\n[tool.verdict]\nplugins = [\"p.so\"]\n[tool.verdict.run]\njobs = 2\n",
        )
        .expect("write");
        let config = discover(&deep).expect("valid");
        assert_eq!(config.path, Some(pyproject.clone()));
        assert_eq!((config.run.jobs, config.dir.as_path()), (Some(2), repo));
        assert_eq!(config.plugins, vec![repo.join("p.so")]);
        assert_eq!(config.label(), "[tool.verdict] of pyproject.toml");
        assert_eq!(config.ignored_note(), None);

        // .config/verdict.toml wins over it and configures the directory holding `.config`.
        std::fs::create_dir(repo.join(".config")).expect("dir");
        std::fs::write(&hidden, "plugins = [\"q.so\"]\n").expect("write");
        let config = discover(&deep).expect("valid");
        assert_eq!(config.path, Some(hidden.clone()));
        assert_eq!((config.run.jobs, config.dir.as_path()), (None, repo));
        assert_eq!(config.plugins, vec![repo.join("q.so")]);
        assert_eq!(config.ignored, vec![pyproject.clone()]);
        assert_eq!(config.label(), ".config/verdict.toml");

        // verdict.toml wins over both; the note names the file used and those ignored.
        std::fs::write(&plain, "[run]\njobs = 5\n").expect("write");
        let config = discover(&deep).expect("valid");
        assert_eq!(
            (config.path.as_ref(), config.run.jobs),
            (Some(&plain), Some(5))
        );
        assert_eq!(config.ignored, vec![hidden.clone(), pyproject.clone()]);
        assert_eq!(
            config.ignored_note(),
            Some(format!(
                "verdict: note: reads {} and ignores {} and {} (in one directory, verdict.toml wins \
                 over .config/verdict.toml, which wins over [tool.verdict] of pyproject.toml)",
                plain.display(),
                hidden.display(),
                pyproject.display()
            ))
        );

        // The nearest directory holding any of them wins, whatever the kinds.
        std::fs::write(deep.join(PYPROJECT), "[tool.verdict.run]\njobs = 7\n").expect("write");
        let config = discover(&deep).expect("valid");
        assert_eq!((config.run.jobs, config.dir), (Some(7), deep.clone()));
        assert!(config.ignored.is_empty());
    }

    /// A `[[verifier]]` defined in pyproject.toml is cached on that file, as one in verdict.toml
    /// is on verdict.toml: editing its definition must miss the cache.
    #[test]
    fn a_verifier_defined_in_pyproject_keys_the_cache_on_pyproject() {
        let temp = tempfile::tempdir().expect("temp dir");
        let repo = temp.path();
        std::fs::create_dir(repo.join(".git")).expect(".git");
        std::fs::write(
            repo.join(PYPROJECT),
            "[[tool.verdict.verifier]]\nname = \"shellcheck\"\nkind = \"lint\"\n\
             command = [\"shellcheck\", \"run.sh\"]\ninputs = [\"*.sh\"]\n",
        )
        .expect("write");
        let config = discover(repo).expect("valid");
        let known = crate::registry::all(&config, repo).expect("the registry");
        let custom = known
            .iter()
            .find(|k| k.verifier.name() == "shellcheck")
            .expect("the verifier defined in pyproject.toml");
        assert_eq!(custom.origin.describe(), "[tool.verdict] of pyproject.toml");
        let workspace = config.workspace(repo);
        assert_eq!(
            custom.verifier.applies(&workspace),
            verdict_core::verifier::Applicability::Applies("defined in pyproject.toml".to_owned())
        );
        let inputs = custom.verifier.inputs(&workspace).expect("inputs");
        assert_eq!(inputs.tool_files, vec![repo.join(PYPROJECT)]);
    }

    #[test]
    fn an_invalid_tool_verdict_names_pyproject_its_line_and_full_key() {
        let dir = Path::new("/project");
        let path = dir.join(PYPROJECT);
        let error = |text: &str| {
            parse(text, &path, dir)
                .expect_err("the config is invalid")
                .to_string()
        };
        let head = "[project]\nname = \"x\"\n\n[tool.verdict.verifiers.tsc]\n";
        assert_eq!(
            error(&format!("{head}timout = \"5s\"\n")),
            "/project/pyproject.toml:5: unknown key `timout` in [tool.verdict.verifiers.tsc] (expected one of: enabled, timeout, needs, allow_no_tests, env, args, command, paths, cwd, fast)"
        );
        assert_eq!(
            error("[tool.verdict.run]\njobs = 0\n"),
            "/project/pyproject.toml:2: `jobs` must be at least 1"
        );
        assert_eq!(
            error("[tool.verdict.run]\nfail_fast = \"yes\"\n"),
            "/project/pyproject.toml:2: `tool.verdict.run.fail_fast`: invalid type: string \"yes\", expected a boolean"
        );
        // Named by --config, a pyproject.toml without the table is an error, not the defaults.
        assert_eq!(
            error("[tool.ruff]\nline-length = 90\n"),
            "/project/pyproject.toml:1: no [tool.verdict] table to configure verdict"
        );
        // Other tools' tables are theirs: unknown keys there are no error.
        let config = parse(
            "[tool.ruff]\nwhatever = 1\n[tool.verdict.verifiers.tsc]\nenabled = false\n",
            &path,
            dir,
        )
        .expect("valid");
        assert_eq!(config.verifiers["tsc"].enabled, Some(false));
        assert_eq!(config.names, vec![("tsc".to_owned(), 3)]);
    }

    #[test]
    fn load_reports_an_unreadable_file_and_names_the_file() {
        let temp = tempfile::tempdir().expect("temp dir");
        let path = temp.path().join(FILE_NAME);
        let error = load(&path).expect_err("missing");
        assert!(
            error
                .to_string()
                .starts_with(&format!("failed to read {}: ", path.display())),
            "{error}"
        );
        std::fs::write(&path, "[run]\nfail_fast = 1\n").expect("write");
        let error = load(&path).expect_err("invalid");
        assert_eq!(
            error.to_string(),
            format!(
                "{}:2: `run.fail_fast`: invalid type: integer `1`, expected a boolean",
                path.display()
            )
        );
    }

    #[test]
    fn init_output_parses_back() {
        let detected = vec![
            ("tsc".to_owned(), "tsconfig.json".to_owned()),
            (
                "jest".to_owned(),
                "package.json depends on jest\nand has a test script".to_owned(),
            ),
            ("cargo-check".to_owned(), "Cargo.toml".to_owned()),
            ("acme.check".to_owned(), "plugin says: always".to_owned()),
        ];
        let text = render_init(&detected);
        let config = check(&text);
        assert_eq!(
            config.verifiers.keys().collect::<Vec<_>>(),
            vec!["acme.check", "cargo-check", "jest", "tsc"]
        );
        assert!(text.contains("[verifiers.\"acme.check\"]\n"));
        assert!(config.verifiers.values().all(|s| s.enabled == Some(true)));
        assert!(text.contains("# package.json depends on jest and has a test script\n"));
        assert!(config.custom.is_empty());

        // Uncommenting every line gives a valid config with the example verifier.
        let uncommented: String = text
            .lines()
            .map(|line| {
                let line = line.strip_prefix("# ").unwrap_or(line);
                if line.starts_with("A project-specific")
                    || line.starts_with("No verifier")
                    || line.starts_with("verifier by name")
                    || line.starts_with("verdict.toml, written")
                    || line.starts_with("Everything here")
                    || line.starts_with("the project's own")
                    || line.starts_with("Detected in")
                    || line.starts_with("tsconfig")
                    || line.starts_with("package.json")
                    || line.starts_with("Cargo.toml")
                    || line.starts_with("plugin says")
                    || line == "#"
                {
                    String::new()
                } else {
                    format!("{line}\n")
                }
            })
            .collect();
        let config = check(&uncommented);
        assert_eq!(config.custom.len(), 1);
        assert_eq!(config.custom[0].name, "shellcheck");
        assert_eq!(config.run.jobs, Some(2));
        assert!(!config.verifiers["jest"].allow_no_tests);

        // With nothing detected it still parses.
        let empty = check(&render_init(&[]));
        assert!(empty.verifiers.is_empty());
    }
}
