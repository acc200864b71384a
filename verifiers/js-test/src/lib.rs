//! verdict's JavaScript test verifiers: [`Jest`], [`Vitest`] and [`Mocha`], each run with the
//! project's own binary (`node_modules/.bin/<tool>`), and [`NodeTest`], Node.js's own runner.
//!
//! What they share lives here: detection from the project's files ([`detect`]), the environment
//! that makes the runners' output deterministic, reading a jest-format JSON report together with
//! the human log ([`interpret_json_and_log`]), file paths made relative to the project, and the
//! filters that re-run only what failed ([`Failing`]).
//!
//! Like every verifier crate, this one never spawns a process: it describes commands and reads
//! what they printed.

mod infra;
mod jest;
mod mocha;
pub mod node_test;
mod script;
mod vitest;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use verdict_model::verifier::{Applicability, Captured, CommandSpec, Exit, Workspace};
use verdict_model::{Counts, Diagnostic, Kind, Outcome, Report, Verifier};
use verdict_verifier_support::declared::Purpose;
use verdict_verifier_support::{
    PackageJson, first_file, node_bin, node_install_markers, summarize_log_as,
};

pub use jest::Jest;
pub use mocha::Mocha;
pub use node_test::NodeTest;
pub use vitest::Vitest;

/// How long a test run may take by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// All the verifiers of this crate: [`Jest`], [`Vitest`], [`Mocha`] and [`NodeTest`].
pub fn verifiers() -> Vec<Box<dyn Verifier>> {
    vec![
        Box::new(Jest::default()),
        Box::new(Vitest::default()),
        Box::new(Mocha::default()),
        Box::new(NodeTest::default()),
    ]
}

/// The environment every runner gets: `CI=true` (no watch mode, no interactive prompts, jest
/// refuses to write new snapshots).
pub(crate) fn deterministic_env() -> BTreeMap<String, String> {
    [("CI", "true")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

/// A runner's environment: what the project's test script sets (see [`script`]), then
/// [`deterministic_env`], which a script cannot override. No colour variable: they reach the
/// code under test too (a test of colour support would fail under verdict alone), and jest's and
/// mocha's colour libraries write none to a pipe anyway.
pub(crate) fn runner_env(script: BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut env = script;
    env.extend(deterministic_env());
    env
}

/// [`runner_env`] with `NO_COLOR=1`, for vitest: its colour library (tinyrainbow) turns colour
/// on whenever `CI` is set, pipe or not, and only the variable turns it off for the workers too.
pub(crate) fn runner_env_without_colour(
    script: BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut env = runner_env(script);
    env.insert("NO_COLOR".to_owned(), "1".to_owned());
    env
}

/// `path` made absolute against the current directory: the runners resolve a relative report
/// path against their own working directory (the project root), verdict against its own.
pub(crate) fn absolute(path: &Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The options that run only this shard's part of the tests (jest and vitest read the same):
/// `--shard=INDEX/TOTAL`, and `--passWithNoTests`, so that a shard the runner deals no test file
/// to ends with its JSON report of nothing rather than a `No tests found` error (see
/// [`empty_run`]). None for a whole run.
pub(crate) fn shard_args(workspace: &Workspace) -> Vec<String> {
    match workspace.shard {
        Some(shard) if shard.total > 1 => {
            vec![format!("--shard={shard}"), "--passWithNoTests".to_owned()]
        }
        _ => Vec::new(),
    }
}

/// A narrowed run the runner found no test for: a shard it dealt no test file to (the command
/// ran with `--shard`), or a run of the tests related to some files that none is (jest's
/// `--findRelatedTests`, `vitest related`; jest then prints only `No tests found, exiting with
/// code 0`), which exited 0 with a JSON report that counts no test file and no test. The answer
/// is a pass of nothing, which the pipeline lists as not run in this shard
/// ([`verdict_model::verifier::Sharding::Split`]) and a scoped check as having run nothing; any
/// other run is read as usual.
pub(crate) fn empty_run(tool: &str, spec: &CommandSpec, captured: &Captured) -> Option<Report> {
    let related = spec.args.iter().any(|arg| arg == "--findRelatedTests")
        || spec.args.first().is_some_and(|arg| arg == "related");
    let note = if spec.args.iter().any(|arg| arg.starts_with("--shard=")) {
        format!("{tool} dealt no test file to this shard")
    } else if related {
        format!("{tool} found no test related to the files")
    } else {
        return None;
    };
    if captured.exit != (Exit::Code { code: 0 }) {
        return None;
    }
    let bytes = captured.output_files.first()?.as_ref()?;
    let json: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    let zero = |key: &str| json.get(key).and_then(serde_json::Value::as_u64) == Some(0);
    let results_empty = json
        .get("testResults")
        .and_then(serde_json::Value::as_array)
        .is_some_and(Vec::is_empty);
    if !(zero("numTotalTestSuites") && zero("numTotalTests") && results_empty) {
        return None;
    }
    let mut report = Report::new(tool, Outcome::Passed);
    report.note(note);
    Some(report)
}

/// What says a runner applies to a project.
pub(crate) struct Evidence<'a> {
    /// The runner's name, as a dependency and as a program in scripts.
    pub tool: &'a str,
    /// Other program names its scripts may use (`_mocha`).
    pub programs: &'a [&'a str],
    /// Its config files, in the order they are looked for.
    pub configs: &'a [&'a str],
    /// The key of `package.json` that holds its config (`jest`, `mocha`), if it has one.
    pub package_key: Option<&'a str>,
}

/// Whether a runner applies to `workspace`: `package.json` depends on it, a script runs it, it has
/// a config file, or `package.json` holds its config. The reason names every piece of evidence.
pub(crate) fn detect(workspace: &Workspace, evidence: &Evidence<'_>) -> Applicability {
    match verdict_verifier_support::declared::applicability(
        workspace,
        evidence.tool,
        Purpose::Test,
        false,
        || detect_from_files(workspace, evidence),
    ) {
        // The declared command says what runs; the files say what else points at the runner.
        Applicability::Applies(declared) => {
            // The files' evidence but for the script, which the declared command already names.
            let files = match detect_from_files(workspace, evidence) {
                Applicability::Applies(files) => files
                    .split("; ")
                    .filter(|part| !part.contains(" script runs "))
                    .collect::<Vec<_>>()
                    .join("; "),
                Applicability::DoesNotApply(_) => String::new(),
            };
            if files.is_empty() {
                Applicability::Applies(declared)
            } else {
                Applicability::Applies(format!("{declared}; {files}"))
            }
        }
        other => other,
    }
}

/// Whether a runner applies by its files alone (the project declares no test command): its
/// config file counts only where the runner is a dependency or installed, so that a config left
/// behind by a runner the project no longer has does not select it.
fn detect_from_files(workspace: &Workspace, evidence: &Evidence<'_>) -> Applicability {
    let tool = evidence.tool;
    let mut found = Vec::new();
    let package = PackageJson::read(workspace);
    if let Ok(Some(package)) = &package {
        if package.depends_on(tool) {
            found.push(format!("package.json depends on {tool}"));
        }
        let script = std::iter::once(tool)
            .chain(evidence.programs.iter().copied())
            .find_map(|program| package.script_running(program));
        if let Some(script) = script {
            found.push(format!("the `{script}` script runs {tool}"));
        }
    }
    if let Some(key) = evidence.package_key
        && package_has_key(workspace, key)
    {
        found.push(format!("package.json has a `{key}` config"));
    }
    if let Some(config) = first_file(workspace, evidence.configs) {
        if found.is_empty() && node_bin(workspace, tool).is_none() {
            return Applicability::DoesNotApply(format!(
                "{config} is here, but {tool} is neither a dependency nor installed"
            ));
        }
        found.push(config);
    }
    if !found.is_empty() {
        return Applicability::Applies(found.join("; "));
    }
    let why =
        format!("no {tool} in package.json dependencies or scripts, and no {tool} config file");
    match package {
        Err(message) => Applicability::DoesNotApply(format!("{why} ({message})")),
        Ok(_) => Applicability::DoesNotApply(why),
    }
}

/// Whether `package.json` has a top-level `key`.
fn package_has_key(workspace: &Workspace, key: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(workspace.path("package.json")) else {
        return false;
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .is_some_and(|value| value.get(key).is_some())
}

/// What a JavaScript test run reads, for the result cache: every file of the project that
/// `.gitignore` does not ignore — a test can read any fixture, template or data file, so a list of
/// extensions would replay a pass over a changed input — but for the dependencies and what test
/// runs write themselves (coverage reports), and other languages' environments and build
/// directories a polyglot repository may not ignore (a Python venv, Rust's `target/`); the
/// installed dependencies count through [`tool_files`].
pub(crate) fn source_globs() -> Vec<String> {
    [
        "*",
        "!**/node_modules/**",
        "!.verdict/**",
        "!**/coverage/**",
        "!**/.nyc_output/**",
        "!**/.venv/**",
        "!**/venv/**",
        "!**/__pycache__/**",
        "!**/.pytest_cache/**",
        "!**/target/**",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect()
}

/// The runner's own `package.json` (its version) and the files package managers rewrite on every
/// install, for the result cache.
pub(crate) fn tool_files(workspace: &Workspace, runner: &str) -> Vec<PathBuf> {
    let mut files = vec![
        node_bin(workspace, runner)
            .and_then(|bin| std::fs::canonicalize(bin).ok())
            .and_then(|target| package_json_above(&target))
            .unwrap_or_else(|| PathBuf::from(format!("node_modules/{runner}/package.json"))),
    ];
    files.extend(node_install_markers(workspace));
    files
}

/// The `package.json` of the package under `node_modules` holding `file` (a runner's bin script);
/// `None` for a file that is no package's (pnpm's shell shims in `node_modules/.bin`).
fn package_json_above(file: &Path) -> Option<PathBuf> {
    file.ancestors()
        .skip(1)
        .take_while(|dir| dir.file_name().is_some_and(|name| name != "node_modules"))
        .map(|dir| dir.join("package.json"))
        .find(|candidate| candidate.is_file())
}

/// Makes every diagnostic's file relative to `root` (the runners print absolute paths and
/// `file://` URLs in stack frames), refreshes the fingerprints, and removes `root` from the
/// error message too.
pub(crate) fn relative_files(report: &mut Report, root: &Path) {
    let root = absolute(root);
    let root = root.to_string_lossy();
    let root = root.trim_end_matches('/');
    let mut changed = false;
    for diagnostic in &mut report.diagnostics {
        let Some(file) = &diagnostic.file else {
            continue;
        };
        let bare = file.strip_prefix("file://").unwrap_or(file);
        if let Some(rest) = bare
            .strip_prefix(root)
            .and_then(|rest| rest.strip_prefix('/'))
        {
            diagnostic.file = Some(rest.to_owned());
            changed = true;
        }
    }
    if changed {
        report.refresh_fingerprints();
    }
    if let Some(error) = &mut report.error {
        *error = error.replace(&format!("{root}/"), "");
    }
}

/// Reads a jest-format run: the JSON report the tool wrote (`--json --outputFile`, vitest's JSON
/// reporter) for the tests, and the human log for what only it shows.
///
/// The JSON report has exact names, counts and messages, but it is silent about what happened
/// outside the tests: a config that does not load, `No tests found`, a coverage threshold, vitest's
/// unhandled errors and its `beforeAll`/`afterAll` hooks that threw. So the log is always read as
/// well, and:
/// - with no JSON report (the tool stopped before writing it), the log's report stands — but never
///   as a pass: a run that did not finish has not passed;
/// - a JSON report that does not parse (cut off when the tool was killed) is noted, and the log's
///   report stands on the same terms;
/// - otherwise the JSON report stands, and the log adds to it (see [`merge_log`]): what is no test
///   and no test file (coverage thresholds, unhandled errors), the errors of suites around their
///   tests (vitest's hooks), and what the JSON's failures lack (expected/received values, the
///   message behind vitest 3's `STACK_TRACE_ERROR` placeholder). What the log adds fails the run
///   — unless no test ran at all and nothing failed to load: then the runner itself could not run
///   (a test environment such as jsdom that is not installed), and nothing was verified. The log's
///   error (a config error, `No tests found`) takes over a report with no failing test, and a log
///   with failures behind a JSON report of a pass makes the run errored.
pub(crate) fn interpret_json_and_log(
    tool: &str,
    spec: &CommandSpec,
    captured: &Captured,
) -> Report {
    let cwd = absolute(&spec.cwd);
    let mut log = summarize_log_as(tool, captured);
    relative_files(&mut log, &cwd);
    let json = captured.output_files.first().and_then(Option::as_ref);
    let Some(bytes) = json else {
        log.note(format!(
            "{tool} wrote no JSON report; this report is read from its log"
        ));
        return never_a_pass(
            log,
            format!("{tool} wrote no JSON report, so its run did not finish; see the log"),
        );
    };
    let root = cwd.to_string_lossy();
    let report = verdict_summarizers::jest_json::parse_relative_to(tool, bytes, &root);
    if report.outcome == Outcome::Errored && report.counts == Counts::default() {
        // Not a report at all: the parser says why.
        let why = report.error.unwrap_or_default();
        log.note(why.clone());
        return never_a_pass(log, why);
    }
    merge_log(tool, report, log)
}

/// What the log of a run adds to its JSON report (see [`interpret_json_and_log`]).
fn merge_log(tool: &str, mut report: Report, log: Report) -> Report {
    report.summary = log.summary.clone();
    if report.counts.errors.is_none() {
        report.counts.errors = log.counts.errors;
    }
    let from_json = report.diagnostics_found();
    let ran_tests =
        report.counts.tests_passed.unwrap_or(0) + report.counts.tests_failed.unwrap_or(0) > 0;
    // The log's failures of each test, in the order printed: a test can fail more than once
    // (`expect.soft`), and tests can share a name, so one key may hold several.
    let mut of_test: BTreeMap<(Option<String>, String), Vec<Diagnostic>> = BTreeMap::new();
    let mut outside = Vec::new();
    let mut file_errors = Vec::new();
    for diagnostic in log.diagnostics {
        match (&diagnostic.test, diagnostic.root_cause) {
            (None, false) => outside.push(diagnostic),
            (None, true) => file_errors.push(diagnostic),
            (Some(test), _) => of_test
                .entry((diagnostic.file.clone(), test.clone()))
                .or_default()
                .push(diagnostic),
        }
    }
    pair_with_log(&mut report, &mut of_test);

    let mut added = outside.len() as u64;
    for diagnostic in outside {
        report.push(diagnostic);
    }
    let suites = add_suite_failures(tool, &mut report, of_test, file_errors);
    if suites > 0 {
        let counts = &mut report.counts;
        counts.suites_errored = Some(counts.suites_errored.unwrap_or(0) + suites);
    }
    added += suites;
    for note in log.notes {
        report.note(note);
    }
    if added > 0 && report.outcome != Outcome::Failed {
        if ran_tests || from_json > 0 || suites > 0 {
            report.outcome = Outcome::Failed;
            report.error = None;
        } else {
            // No test ran and no test file failed to load; what the log shows happened outside
            // any test (vitest's unhandled `Cannot find package 'jsdom'`): the runner could not
            // run the tests, which says nothing about the code.
            report.outcome = Outcome::Errored;
            let first = report
                .diagnostics
                .iter()
                .find(|d| d.test.is_none())
                .map_or_else(
                    || "see the log".to_owned(),
                    |d| match &d.detail {
                        Some(detail) => format!("{}; {detail}", d.message),
                        None => d.message.clone(),
                    },
                );
            // The log's own reading names the reason best (vitest's `MISSING DEPENDENCY`).
            report.error = match (log.outcome, log.error) {
                (Outcome::Errored, Some(error)) => Some(error),
                _ => Some(format!("{tool} ran no test: {first}")),
            };
        }
    } else if log.outcome == Outcome::Errored && report.outcome != Outcome::Failed {
        report.outcome = Outcome::Errored;
        report.error = log
            .error
            .or(report.error)
            .or_else(|| Some(format!("{tool}'s log shows an error; see the log")));
    } else if log.outcome == Outcome::Failed && report.outcome == Outcome::Passed {
        // The two readings of one run disagree: neither is trusted for a pass.
        report.outcome = Outcome::Errored;
        report.error = Some(format!(
            "{tool}'s JSON report shows a pass, but its log shows failures; see the log"
        ));
    }
    report
}

/// Adds to `report` the suites the log shows failing that its JSON report has no place for, and
/// answers how many: what is left of the log's test-named failures (`of_test`) that are root
/// causes — vitest's `Failed Suites` named by a describe block (`FAIL  a.test.ts > db`), a
/// `beforeAll` or `afterAll` that threw — and the log's `file_errors` for files the JSON report
/// marked failed without saying why (whose notes saying so then go).
fn add_suite_failures(
    tool: &str,
    report: &mut Report,
    of_test: BTreeMap<(Option<String>, String), Vec<Diagnostic>>,
    file_errors: Vec<Diagnostic>,
) -> u64 {
    let mut suites = 0;
    let mut explained = BTreeSet::new();
    for diagnostic in of_test.into_values().flatten() {
        if diagnostic.root_cause {
            explained.extend(diagnostic.file.clone());
            report.push(diagnostic);
            suites += 1;
        }
    }
    for diagnostic in file_errors {
        let unexplained = diagnostic.file.as_deref().is_some_and(|file| {
            report
                .notes
                .iter()
                .chain(report.error.iter())
                .any(|text| text.contains(&failed_without_reason(tool, file)))
        });
        if unexplained {
            explained.extend(diagnostic.file.clone());
            report.push(diagnostic);
            suites += 1;
        }
    }
    report.notes.retain(|note| {
        !explained
            .iter()
            .any(|file| note.contains(&failed_without_reason(tool, file)))
    });
    suites
}

/// The words [`verdict_summarizers::jest_json`] uses for a file marked failed with no reason.
fn failed_without_reason(tool: &str, file: &str) -> String {
    format!("{tool} marked {file} as failed without a failing test or a message")
}

/// Pairs each failure of the JSON report with the log's failure of the same test, taking from
/// the log what the JSON lacks: vitest's JSON messages carry no expected/received values, vitest
/// 3 reports a time-out as `Error: STACK_TRACE_ERROR` (its log says `Test timed out in 300ms.`),
/// and a failure with no frame in the test file has no line. Within one test the failures pair up
/// by equal message first, then in the order printed — never the last of the log's failures for
/// every one of them. What pairs is removed from `of_test`.
fn pair_with_log(
    report: &mut Report,
    of_test: &mut BTreeMap<(Option<String>, String), Vec<Diagnostic>>,
) {
    let mut paired = Vec::new();
    let mut unpaired = Vec::new();
    for (at, diagnostic) in report.diagnostics.iter().enumerate() {
        let Some(test) = &diagnostic.test else {
            continue;
        };
        let key = (diagnostic.file.clone(), test.clone());
        let Some(logged) = of_test.get_mut(&key) else {
            continue;
        };
        match logged
            .iter()
            .position(|d| !d.root_cause && d.message == diagnostic.message)
        {
            Some(same) => paired.push((at, logged.remove(same))),
            None => unpaired.push((at, key)),
        }
    }
    for (at, key) in unpaired {
        let Some(logged) = of_test.get_mut(&key) else {
            continue;
        };
        if let Some(next) = logged.iter().position(|d| !d.root_cause) {
            paired.push((at, logged.remove(next)));
        }
    }
    for (at, from_log) in paired {
        if let Some(diagnostic) = report.diagnostics.get_mut(at) {
            complete(diagnostic, from_log);
        }
    }
}

/// Fills what `diagnostic` (from the JSON report) lacks from `from_log`, the log's reading of the
/// same failure.
fn complete(diagnostic: &mut Diagnostic, from_log: Diagnostic) {
    if diagnostic.detail.is_none() {
        diagnostic.detail = from_log.detail;
    }
    if diagnostic.line.is_none() && from_log.file == diagnostic.file {
        diagnostic.line = from_log.line;
        diagnostic.column = from_log.column;
    }
    if is_placeholder(&diagnostic.message) && !is_placeholder(&from_log.message) {
        diagnostic.message = from_log.message;
        diagnostic.refresh_fingerprint();
    }
}

/// Whether a JSON report's message says nothing about the failure: vitest 3 and 4 write
/// `Error: STACK_TRACE_ERROR` for a test that timed out, and the parser's own fallback for an
/// empty message is `test failed`.
fn is_placeholder(message: &str) -> bool {
    let message = message.strip_prefix("Error: ").unwrap_or(message);
    matches!(message, "STACK_TRACE_ERROR" | "test failed" | "")
}

/// `report`, made errored when it passed but the command did not end with an exit code the
/// verifier declares a pass: a run stopped at its time-out, killed, or cancelled has not passed,
/// whatever its log showed so far (the pipeline checks this too; a verifier's own reading must
/// not depend on it).
pub(crate) fn fail_closed(
    mut report: Report,
    tool: &str,
    spec: &CommandSpec,
    captured: &Captured,
) -> Report {
    report.needs_evidence(format!(
        "{tool} printed no summary and wrote no report to show it ran any test"
    ));
    let why = match &captured.exit {
        Exit::Code { code } if spec.exit_codes.pass.contains(code) => return report,
        Exit::Code { code } => {
            // Every test passed and the run failed: a threshold, a leak check, a wrapper's
            // error — the lines that say which are the report's.
            if report.outcome == Outcome::Passed {
                verdict_model::exit_reason::explain(&mut report, tool, *code, captured, Kind::Test);
            }
            return report;
        }
        Exit::Signal { signal } => format!("{tool} was killed by signal {signal}"),
        // In the pipeline's own words, which then does not say it twice.
        Exit::TimedOut => format!(
            "{tool} timed out after {} and was stopped",
            verdict_model::verifier::human_duration(spec.timeout)
        ),
        Exit::Cancelled => format!("{tool} was stopped: the run was interrupted"),
        Exit::NotStarted { message } => message.clone(),
    };
    // The run did not end on its own: that is the first thing to say about it.
    match report.outcome {
        Outcome::Passed => never_a_pass(report, why),
        Outcome::Errored => {
            report.error = Some(match report.error.take() {
                Some(error) => format!("{why}; {error}"),
                None => why,
            });
            report
        }
        Outcome::Failed => {
            report.note(why);
            report
        }
    }
}

/// `report`, made errored with `why` if it passed.
fn never_a_pass(mut report: Report, why: String) -> Report {
    if report.outcome == Outcome::Passed {
        report.outcome = Outcome::Errored;
        report.error = Some(why);
    }
    report
}

/// What failed in a previous run, as the test runners' filters need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failing {
    /// The test files to run again: those of the failing tests and the files that did not load.
    /// Empty when some failing test has no file (then every file runs, filtered by name).
    pub files: Vec<String>,
    /// The full names of the failing tests, as the summarizers name them (titles joined with the
    /// runner's separator). Empty when a describe block failed around its tests (a hook that
    /// threw): then the files run whole.
    pub tests: Vec<String>,
}

impl Failing {
    /// What failed in `previous`; `None` when it names nothing to re-run.
    pub fn of(previous: &Report) -> Option<Failing> {
        let mut files = BTreeSet::new();
        let mut tests = BTreeSet::new();
        let mut every_file = false;
        let mut whole_files = false;
        for diagnostic in previous.errors() {
            if diagnostic.root_cause
                && diagnostic.test.is_some()
                && let Some(file) = &diagnostic.file
            {
                // A describe block whose `beforeAll`/`afterAll` threw: its name is no test's, so
                // no name filter selects its tests; its file runs whole.
                files.insert(file.clone());
                whole_files = true;
                continue;
            }
            match (&diagnostic.test, &diagnostic.file) {
                (Some(test), file) => {
                    tests.insert(test.clone());
                    match file {
                        Some(file) => {
                            files.insert(file.clone());
                        }
                        None => every_file = true,
                    }
                }
                (None, Some(file)) if diagnostic.root_cause => {
                    files.insert(file.clone());
                }
                (None, _) => {}
            }
        }
        if tests.is_empty() && files.is_empty() {
            return None;
        }
        if every_file {
            files.clear();
        }
        if whole_files {
            tests.clear();
        }
        Some(Failing {
            files: files.into_iter().map(safe_path_arg).collect(),
            tests: tests.into_iter().collect(),
        })
    }

    /// A JavaScript regular expression that matches exactly the failing tests' full names as the
    /// runner matches them: the test names split on `separator` (how the summarizer joined the
    /// titles), escaped, and joined with `joiner` (a regex: how the runner joins them when it
    /// filters).
    pub fn name_pattern(&self, separator: &str, joiner: &str) -> Option<String> {
        if self.tests.is_empty() {
            return None;
        }
        let names: Vec<String> = self
            .tests
            .iter()
            .map(|test| {
                test.split(separator)
                    .map(escape_regex)
                    .collect::<Vec<_>>()
                    .join(joiner)
            })
            .collect();
        Some(format!("^(?:{})$", names.join("|")))
    }
}

/// The files of a scoped check's targets, each once and in order: a node id
/// (`src/a.test.js::adds`) counts as its file, since the JavaScript runners select tests by
/// file; a path that starts with `-` is written `./-…` so that it cannot be taken for an option.
pub(crate) fn target_files(targets: &[String]) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for target in targets {
        let file = target.split_once("::").map_or(target.as_str(), |(f, _)| f);
        let file = safe_path_arg(file.to_owned());
        if !files.contains(&file) {
            files.push(file);
        }
    }
    files
}

/// A path that cannot be taken for an option.
fn safe_path_arg(path: String) -> String {
    if path.starts_with('-') {
        format!("./{path}")
    } else {
        path
    }
}

/// `text` with every character that means something in a JavaScript regular expression escaped.
pub fn escape_regex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '^'
                | '$'
                | '.'
                | '|'
                | '?'
                | '*'
                | '+'
                | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '/'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use verdict_model::{Kind, Severity};

    fn failing_test(file: Option<&str>, name: &str) -> Diagnostic {
        let mut d =
            Diagnostic::new("jest", Kind::Test, Severity::Error, "expected").with_test(name);
        d.file = file.map(str::to_owned);
        d
    }

    #[test]
    fn regex_metacharacters_are_escaped() {
        assert_eq!(escape_regex("adds (1 + 2) [x]"), r"adds \(1 \+ 2\) \[x\]");
        assert_eq!(escape_regex("a.b|c^$"), r"a\.b\|c\^\$");
    }

    #[test]
    fn failing_names_become_one_anchored_pattern() {
        let mut previous = Report::new("jest", Outcome::Failed);
        previous.push(failing_test(Some("test/a.test.js"), "math › adds (1 + 2)"));
        previous.push(failing_test(Some("test/b.test.js"), "other fails"));
        let failing = Failing::of(&previous).expect("something failed");
        assert_eq!(failing.files, ["test/a.test.js", "test/b.test.js"]);
        assert_eq!(
            failing.name_pattern(" › ", " ").as_deref(),
            Some(r"^(?:math adds \(1 \+ 2\)|other fails)$")
        );
    }

    #[test]
    fn a_test_without_a_file_runs_every_file_and_nothing_failing_is_none() {
        let mut previous = Report::new("jest", Outcome::Failed);
        previous.push(failing_test(None, "a"));
        previous.push(failing_test(Some("-odd.test.js"), "b"));
        let failing = Failing::of(&previous).expect("something failed");
        assert!(failing.files.is_empty());
        assert_eq!(Failing::of(&Report::new("jest", Outcome::Passed)), None);
        let mut cause = Diagnostic::new("jest", Kind::Test, Severity::Error, "no module")
            .at("-x.test.js", None, None)
            .as_root_cause();
        cause.refresh_fingerprint();
        let mut previous = Report::new("jest", Outcome::Failed);
        previous.push(cause);
        let failing = Failing::of(&previous).expect("a file did not load");
        assert_eq!(failing.files, ["./-x.test.js"]);
        assert_eq!(failing.name_pattern(" › ", " "), None);
    }
}
