//! The `node-test` verifier: Node.js's own test runner (`node --test`), for projects whose
//! declared tests run it.
//!
//! It applies where a `package.json` script runs `node … --test …` (see [`declared_command`]), and
//! runs the `node` on `PATH` — the one `npm test` runs — with that command's own options and
//! paths, and two reporters in the same run:
//! `--test-reporter=spec --test-reporter-destination=stdout` for the log people read (each
//! failure's place and its stack, what the tests printed), and `--test-reporter=junit
//! --test-reporter-destination=<run_dir>/node-test.xml` for the exact names and counts.
//!
//! What is taken from the script: `NAME=value` words before `node` (its environment), and every
//! word after it but the reporters and their destinations, watch mode and `--test` itself:
//! `--import`/`--require`, `--experimental-*` flags, `--test-concurrency`, `--test-name-pattern`,
//! `--test-only`, coverage thresholds, and the paths. A glob the shell would expand (`node --test
//! test/*.test.js`, unquoted) is expanded here as `sh` would, since no shell runs; a quoted one is
//! passed to node as written (Node.js 21 and later expand it themselves).
//!
//! Node.js 20 or later is needed: Node.js 18 has no `junit` reporter. Its version is not asked
//! (verifier crates never spawn a process): an older node fails to load the reporter, writes no
//! JUnit report, and the run is errored.
//!
//! Reading it, fail-closed: the JUnit report decides the counts and which tests failed; the log
//! (read by the `node-test` summarizer) adds each failure's file and line and anything that
//! failed outside a test. With no JUnit report the log alone is read, and a log that cannot be
//! read with a failing exit is errored, never a pass. A test file that crashed (`process.abort()`,
//! a syntax error) is a failing test named by its file. Exit codes: 0 passed, 1 failures.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use verdict_model::Tool;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, ExitCodes, Infrastructure, Inputs, Sharding,
    VerifierError, Workspace,
};
use verdict_model::{Kind, Outcome, Report, Severity, Verifier};
use verdict_verifier_support::declared::{Declared, coverage_wrapper, is_variable_name};
use verdict_verifier_support::{js_monorepo_root, node_install_markers, on_path, summarize_log};

use crate::{DEFAULT_TIMEOUT, Failing, escape_regex};

const NAME: &str = "node-test";

/// The JUnit file node writes, in the run directory.
pub const JUNIT_FILE: &str = "node-test.xml";

/// The hint shown when there is no `node` on `PATH`.
pub const INSTALL_HINT: &str = "install Node.js 20 or later (https://nodejs.org)";

/// How the verifier joins the names of the suites (`describe`) around a test and the test's own.
pub const SEPARATOR: &str = " > ";

/// The most failing tests [`NodeTest::rerun_failed`] names in a pattern; with more, the whole
/// suite is run again.
pub const MAX_RERUN_TESTS: usize = 200;

/// The `node-test` verifier (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTest {
    timeout: Duration,
}

impl Default for NodeTest {
    fn default() -> Self {
        NodeTest {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl NodeTest {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// A word of a script, as `sh` splits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word with its quotes removed.
    pub text: String,
    /// Whether it has a glob character outside quotes, which `sh` would expand.
    pub glob: bool,
}

/// The `node --test` command a project declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredCommand {
    /// Where it is declared, for people: ``the `test` script → `test:unit` ``.
    pub script: String,
    /// The variables set before `node`.
    pub env: BTreeMap<String, String>,
    /// node's arguments after the program, `--test` included.
    pub args: Vec<Word>,
}

/// The `node --test` command the project declares: the first of its declared commands that runs
/// node's test runner; `None` when none does.
pub fn declared_command(workspace: &Workspace) -> Option<DeclaredCommand> {
    // The shared reading of what the project declares (see
    // `verdict_verifier_support::declared`): `npm run` and chains followed, verdict.toml's
    // `command` in place of the project's.
    let declared = Declared::of(workspace);
    let command = declared.for_verifier(NAME)?;
    let (mut env, args) = node_test_command(&command.text)?;
    // Variables an outer `NAME=value npm run test:unit` set reach the command too.
    for (name, value) in command.env() {
        env.entry(name).or_insert(value);
    }
    Some(DeclaredCommand {
        script: command.origin.clone(),
        env,
        args,
    })
}

/// The first command of `script` that runs `node … --test`: its environment and node's words.
pub fn node_test_command(script: &str) -> Option<(BTreeMap<String, String>, Vec<Word>)> {
    for command in split_script(script) {
        let mut env = BTreeMap::new();
        let mut words = command.as_slice();
        // `NAME=value` words, and the `cross-env`/`env` that set them.
        while let Some(first) = words.first() {
            if let Some((name, value)) = first.text.split_once('=')
                && is_variable_name(name)
            {
                env.insert(name.to_owned(), value.to_owned());
            } else if !matches!(first.text.as_str(), "cross-env" | "env") {
                break;
            }
            words = &words[1..];
        }
        // A coverage wrapper's words (`c8 --check-coverage node --test`): node's come after.
        let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();
        if let Some(wrapper) = coverage_wrapper(&texts).filter(|w| !w.python_module) {
            words = &words[wrapper.len..];
        }
        let Some((program, args)) = words.split_first() else {
            continue;
        };
        let name = program.text.rsplit('/').next().unwrap_or(&program.text);
        if name == "node" && runs_tests(args) {
            return Some((env, args.to_vec()));
        }
    }
    None
}

/// Whether node's arguments have `--test` among its own options (before the script it runs).
fn runs_tests(args: &[Word]) -> bool {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word.text == "--test" {
            return true;
        }
        if !word.text.starts_with('-') {
            return false;
        }
        if takes_value(&word.text) {
            words.next();
        }
    }
    false
}

/// node's options that take their value as the next word (`--import tsx`).
fn takes_value(option: &str) -> bool {
    matches!(
        option,
        "-r" | "--require"
            | "--import"
            | "--loader"
            | "--experimental-loader"
            | "--env-file"
            | "-C"
            | "--conditions"
            | "--input-type"
            | "--test-name-pattern"
            | "--test-skip-pattern"
            | "--test-concurrency"
            | "--test-timeout"
            | "--test-shard"
            | "--test-reporter"
            | "--test-reporter-destination"
            | "--test-coverage-include"
            | "--test-coverage-exclude"
            | "--watch-path"
            | "--disable-warning"
            | "--title"
    )
}

/// The script's node arguments that verdict keeps, split into options (with their values) and
/// the paths after them; unquoted globs expanded from `cwd` as `sh` would.
fn kept_args(args: &[Word], cwd: &Path) -> (Vec<String>, Vec<String>) {
    let mut options = Vec::new();
    let mut paths = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        if !text.starts_with('-') || text == "-" {
            if word.glob {
                paths.extend(verdict_verifier_support::glob::expand(cwd, text));
            } else {
                paths.push(text.to_owned());
            }
            continue;
        }
        let (option, inline) = match text.split_once('=') {
            Some((option, _)) => (option, true),
            None => (text, false),
        };
        let value = (!inline && takes_value(option))
            .then(|| words.next())
            .flatten();
        if Tool::NodeTest
            .spec()
            .owned
            .iter()
            .any(|(dropped, _)| *dropped == option)
        {
            continue;
        }
        options.push(text.to_owned());
        if let Some(value) = value {
            options.push(value.text.clone());
        }
    }
    (options, paths)
}

impl NodeTest {
    /// `node --test` with verdict's reporters, the script's options, `extra` options, and
    /// `paths` (the script's when `None`).
    fn spec(
        &self,
        workspace: &Workspace,
        extra: Vec<String>,
        paths: Option<Vec<String>>,
    ) -> Result<CommandSpec, VerifierError> {
        self.spec_with(workspace, extra, paths, on_path("node"))
    }

    /// [`NodeTest::spec`] with the `node` found (or not).
    fn spec_with(
        &self,
        workspace: &Workspace,
        extra: Vec<String>,
        paths: Option<Vec<String>>,
        node: Option<PathBuf>,
    ) -> Result<CommandSpec, VerifierError> {
        let declared = declared_command(workspace).ok_or_else(|| VerifierError::Project {
            tool: NAME.to_owned(),
            message: "no package.json script runs `node --test`".to_owned(),
        })?;
        let program = node.ok_or_else(|| VerifierError::NotInstalled {
            tool: "node".to_owned(),
            hint: INSTALL_HINT.to_owned(),
        })?;
        let junit = crate::absolute(&workspace.run_dir.join(JUNIT_FILE));
        let (options, script_paths) = kept_args(&declared.args, &workspace.root);
        let mut args: Vec<String> = vec![
            "--test".to_owned(),
            "--test-reporter=spec".to_owned(),
            "--test-reporter-destination=stdout".to_owned(),
            "--test-reporter=junit".to_owned(),
            format!("--test-reporter-destination={}", junit.to_string_lossy()),
        ];
        args.extend(options);
        args.extend(extra);
        if paths.is_none()
            && let Some(shard) = workspace.shard.filter(|shard| shard.total > 1)
        {
            // Node.js's own split of the test files (20.5 and later).
            args.push(format!("--test-shard={shard}"));
        }
        args.extend(paths.unwrap_or(script_paths));
        Ok(CommandSpec {
            program,
            args,
            // Only what the project's command sets: its tests run with the environment `npm
            // test` gives them. verdict's colour variables (`NO_COLOR`, `FORCE_COLOR=0`) would
            // reach the code under test, and a test of colour support then fails under verdict
            // alone (commander's do); node's reporters write no colour to a pipe anyway.
            env: declared.env,
            cwd: workspace.root.clone(),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: vec![junit],
        })
    }
}

impl Verifier for NodeTest {
    /// The files that declare its command and those node loads with it (`--import`,
    /// `--require`, `--loader`, `--env-file`, also in `NODE_OPTIONS`), with its coverage
    /// wrapper's configuration. Its reporters are verdict's own, never the project's.
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        crate::infra::of(
            workspace,
            &crate::infra::Names {
                tool: NAME,
                file_options: &[],
                dir_options: &[],
            },
        )
    }

    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        match declared_command(workspace) {
            Some(command) => {
                Applicability::Applies(format!("{} runs `node --test`", command.script))
            }
            None => Applicability::DoesNotApply("no package.json script runs `node --test`".into()),
        }
    }

    /// `node --test` as the project runs it: through its coverage wrapper (`c8 node --test`),
    /// whose threshold then fails the run too; a narrowed re-run goes without it.
    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let spec = self.spec(workspace, Vec::new(), None)?;
        verdict_verifier_support::coverage::wrap(spec, workspace, NAME)
    }

    /// Split with Node.js's own `--test-shard=INDEX/TOTAL`; a shard it deals no file to runs no
    /// test, which the pipeline lists as not run in that shard.
    fn sharding(&self, _workspace: &Workspace) -> Sharding {
        Sharding::Split
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let log = verdict_summarizers::by_name(NAME).map(|s| summarize_log(s, captured));
        let report = match captured.output_files.first() {
            Some(Some(xml)) => {
                let junit = read_junit(xml, &spec.cwd);
                if junit.outcome == Outcome::Errored {
                    from_log(log, junit.error.as_deref().unwrap_or("unreadable"))
                } else {
                    merge(junit, log, &spec.cwd)
                }
            }
            _ => from_log(
                log,
                "node wrote no JUnit report (Node.js 20 or later writes one)",
            ),
        };
        let mut report = report;
        report.tool = NAME.to_owned();
        crate::relative_files(&mut report, &spec.cwd);
        verdict_verifier_support::coverage::add_wrapper_failures(&mut report, spec, captured);
        crate::fail_closed(report, NAME, spec, captured)
    }

    /// Every file of the project (tests may read any fixture), and, as tool files, the `node`
    /// that runs them and what package managers rewrite on every install.
    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let node = on_path("node")?;
        let mut tool_files = vec![std::fs::canonicalize(&node).unwrap_or(node)];
        tool_files.extend(node_install_markers(workspace));
        Some(Inputs {
            globs: crate::source_globs(),
            tool_files,
            root: js_monorepo_root(workspace, "node"),
        })
    }

    /// The failing tests by `--test-name-pattern`, in the files they failed in when every one
    /// has a file; a test file that failed as a whole (it crashed, it did not load) is re-run
    /// whole, with the other failing files. `None` when the previous run names nothing to re-run,
    /// or too many tests.
    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let failing = Failing::of(previous)?;
        if failing.tests.len() > MAX_RERUN_TESTS {
            return None;
        }
        let whole_files = failing.tests.iter().any(|test| is_file_name(test));
        let paths = (!failing.files.is_empty()).then(|| failing.files.clone());
        if whole_files {
            // A name filter would skip the crashed file's other tests: its files run whole.
            return paths.and_then(|paths| self.spec(workspace, Vec::new(), Some(paths)).ok());
        }
        let pattern = name_pattern(&failing.tests)?;
        self.spec(
            workspace,
            vec![format!("--test-name-pattern={pattern}")],
            paths,
        )
        .ok()
    }
}

/// A pattern for `--test-name-pattern` that selects each of `tests` (named with [`SEPARATOR`]):
/// Node.js 20 matches it against a test's own name, later versions against the names of its
/// suites and its own joined with spaces; both are in it.
fn name_pattern(tests: &[String]) -> Option<String> {
    let mut names = Vec::new();
    for test in tests {
        let titles: Vec<String> = test.split(SEPARATOR).map(escape_regex).collect();
        let own = titles.last()?.clone();
        if titles.len() > 1 {
            names.push(titles.join(" "));
        }
        if !names.contains(&own) {
            names.push(own);
        }
    }
    (!names.is_empty()).then(|| format!("^(?:{})$", names.join("|")))
}

/// Whether a test name is a file's: node names a test file that failed as a whole by its path.
fn is_file_name(test: &str) -> bool {
    [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"]
        .iter()
        .any(|extension| test.ends_with(extension))
        && !test.contains(SEPARATOR)
}

/// The log's report when there is no JUnit report to read (`why`): never a pass made of
/// nothing.
fn from_log(log: Option<Report>, why: &str) -> Report {
    match log {
        Some(mut report) => {
            report.note(format!("{why}; the report is read from the log"));
            report
        }
        None => Report::errored(NAME, format!("{why}, and no summarizer reads node's log")),
    }
}

/// The JUnit report, with the log's places and what only the log has added.
///
/// The JUnit report's names and counts stand; a failing test's file and line come from the log
/// where the report has none. A failure the log has and the report does not (an error outside
/// any test) is added, and a log that could not be read is noted: the report alone still fails
/// closed. The log names a test by its own name (its suites are not in node's closing list of
/// failures) and a test file by its absolute path; [`same_test`] pairs them.
fn merge(mut report: Report, log: Option<Report>, cwd: &Path) -> Report {
    let Some(log) = log else {
        return report;
    };
    let root = crate::absolute(cwd);
    let root = format!("{}/", root.to_string_lossy().trim_end_matches('/'));
    let mut changed = false;
    for d in &mut report.diagnostics {
        let Some(test) = d.test.as_deref() else {
            continue;
        };
        if d.file.is_some() && d.line.is_some() {
            continue;
        }
        let place = log.diagnostics.iter().find_map(|l| {
            let same = l.test.as_deref().is_some_and(|t| same_test(test, t, &root));
            same.then_some((l.file.as_deref()?, l.line))
        });
        if let Some((file, line)) = place {
            d.file = Some(file.to_owned());
            d.line = line;
            changed = true;
        }
    }
    if changed {
        report.refresh_fingerprints();
    }
    let extra: Vec<_> = log
        .diagnostics
        .iter()
        .filter(|l| l.severity == Severity::Error)
        .filter(|l| {
            !report.diagnostics.iter().any(|d| match (&d.test, &l.test) {
                (Some(ours), Some(theirs)) => same_test(ours, theirs, &root),
                (None, None) => d.message == l.message,
                _ => false,
            })
        })
        .cloned()
        .collect();
    for d in extra {
        report.push(d);
        if report.outcome == Outcome::Passed {
            report.outcome = Outcome::Failed;
        }
    }
    if log.outcome == Outcome::Errored
        && let Some(error) = log.error
    {
        report.note(format!("node's log could not be read in full: {error}"));
    }
    if report.summary.is_none() {
        report.summary = log.summary;
    }
    report
}

/// Whether the log's name `theirs` is the test the JUnit report names `ours`: the same, its own
/// name at the end of ours (`strings > uppercases wrong` and `uppercases wrong`), or a test file's
/// absolute path under `root` where ours is relative.
fn same_test(ours: &str, theirs: &str, root: &str) -> bool {
    ours == theirs
        || ours.ends_with(&format!("{SEPARATOR}{theirs}"))
        || theirs.strip_prefix(root) == Some(ours)
}

/// node's JUnit report, read by the `junit` summarizer, with each failing test named as the
/// verifier names it: the names of the suites around it and its own, joined with [`SEPARATOR`]
/// (node writes every case with the classname `test`), and a test file that failed as a whole
/// by its path relative to `cwd`, with how it ended.
fn read_junit(xml: &[u8], cwd: &Path) -> Report {
    let mut report = verdict_summarizers::junit::parse(NAME, &with_a_suite(xml));
    if report.outcome == Outcome::Errored {
        return report;
    }
    let cases = failing_cases(xml);
    let failing: Vec<usize> = report
        .diagnostics
        .iter()
        .enumerate()
        .filter(|(_, d)| d.kind == Kind::Test && d.severity == Severity::Error)
        .map(|(i, _)| i)
        .collect();
    // The two readings walk the same document in order; should they ever disagree, the
    // summarizer's names stay.
    if failing.len() != cases.len() {
        report.note("node's JUnit report was read two ways that disagree; its names are kept");
        return report;
    }
    let root = crate::absolute(cwd);
    let root = format!("{}/", root.to_string_lossy().trim_end_matches('/'));
    for (index, (name, text)) in failing.into_iter().zip(cases) {
        let Some(d) = report.diagnostics.get_mut(index) else {
            continue;
        };
        let name = name.strip_prefix(&root).unwrap_or(&name).to_owned();
        if is_file_name(&name) {
            // A test file that failed as a whole: its process crashed or exited, or it did not
            // load.
            d.file = Some(name.clone());
            d.line = None;
            if let Some(how) = how_a_file_ended(&text) {
                d.message = format!("the test file {how}");
            }
        } else if let Some((file, line)) = place_in_stack(&text, &root) {
            d.file = Some(file);
            d.line = Some(line);
        }
        if d.detail.is_none() {
            d.detail = failure_detail(&text, &root);
        }
        d.test = Some(name);
    }
    // Every test is named as its failure is: the suites around it, then its own name.
    let names = case_names(xml);
    if names.len() == report.tests.len() && report.tests_dropped == 0 {
        for (test, name) in report.tests.iter_mut().zip(names) {
            test.name = name.strip_prefix(&root).unwrap_or(&name).to_owned();
        }
    } else {
        report.tests.clear();
        report.tests_dropped = 0;
    }
    report.refresh_fingerprints();
    report
}

/// The name of every `<testcase>` of node's report, in order, as [`failing_cases`] names them.
fn case_names(xml: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(xml);
    let mut names = Vec::new();
    each_tag(&text, |tag| {
        if tag.element == "testcase" {
            names.push(tag.case_name());
        }
    });
    names
}

/// One tag of a JUnit document as [`each_tag`] reads it.
struct Tag<'t> {
    /// Between `<` and `>`.
    text: &'t str,
    /// Its element's name; empty for a closing tag.
    element: &'t str,
    /// Whether it is `<… />`.
    self_closing: bool,
    /// What follows the tag, up to the end of the document.
    after: &'t str,
    /// The `name`s of the `<testsuite>`s open around it.
    suites: &'t [String],
}

impl Tag<'_> {
    /// The full name of the `<testcase>` this tag opens: the `name`s of the suites around it and
    /// its own, joined with [`SEPARATOR`].
    fn case_name(&self) -> String {
        let mut full = self.suites.to_vec();
        full.push(attribute(self.text, "name"));
        full.join(SEPARATOR)
    }
}

/// Calls `visit` with each tag of `text` in order, keeping count of the `<testsuite>`s open.
/// Reads the document as text; what it cannot read it passes over.
fn each_tag(text: &str, mut visit: impl FnMut(&Tag<'_>)) {
    let mut suites: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let end = rest.find('>').unwrap_or(rest.len());
        let tag = &rest[..end];
        let self_closing = tag.ends_with('/');
        let element = tag
            .split(|c: char| c.is_whitespace() || c == '/')
            .next()
            .unwrap_or("");
        visit(&Tag {
            text: tag,
            element,
            self_closing,
            after: rest.get(end + 1..).unwrap_or(""),
            suites: &suites,
        });
        if element == "testsuite" && !self_closing {
            suites.push(attribute(tag, "name"));
        } else if element.is_empty()
            && tag.starts_with("/testsuite")
            && !tag.starts_with("/testsuites")
        {
            suites.pop();
        }
    }
}

/// node's report with its cases in one nameless `<testsuite>` when it has none: node writes the
/// tests outside any `describe` as cases of `<testsuites>` itself, and a report with no suite is
/// not read as JUnit.
fn with_a_suite(xml: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    let has_suite = xml
        .windows(11)
        .any(|w| w == b"<testsuite " || w == b"<testsuite>");
    let open = xml.windows(12).position(|w| w == b"<testsuites>");
    let close = xml.windows(13).rposition(|w| w == b"</testsuites>");
    match (has_suite, open, close) {
        (false, Some(open), Some(close)) if open < close => {
            let mut wrapped = Vec::with_capacity(xml.len() + 32);
            wrapped.extend_from_slice(&xml[..open + 12]);
            wrapped.extend_from_slice(b"<testsuite name=\"\">");
            wrapped.extend_from_slice(&xml[open + 12..close]);
            wrapped.extend_from_slice(b"</testsuite>");
            wrapped.extend_from_slice(&xml[close..]);
            std::borrow::Cow::Owned(wrapped)
        }
        _ => std::borrow::Cow::Borrowed(xml),
    }
}

/// How a test file's process ended, from node's `{ …, exitCode: 1, signal: null }` or
/// `{ …, exitCode: null, signal: 'SIGABRT' }`.
fn how_a_file_ended(text: &str) -> Option<String> {
    let value = |key: &str| {
        let rest = text.split(key).nth(1)?;
        let value = rest
            .split([',', '}', '\n'])
            .next()?
            .trim()
            .trim_matches('\'');
        (!value.is_empty() && value != "null").then(|| value.to_owned())
    };
    if let Some(signal) = value("signal: ") {
        return Some(format!("crashed: its process was killed by {signal}"));
    }
    value("exitCode: ").map(|code| format!("failed: its process exited with code {code}"))
}

/// How much of a failure's text [`failing_cases`] keeps.
const MAX_FAILURE_TEXT: usize = 8 * 1024;

/// The failing `<testcase>`s of node's JUnit report, in order: each one's full name (the `name`s
/// of the `<testsuite>`s around it and its own, joined with [`SEPARATOR`]) and the start of its
/// failure's text. Reads the document as text; what it cannot read it leaves out (then
/// [`read_junit`] keeps the summarizer's names).
fn failing_cases(xml: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(xml);
    let mut cases = Vec::new();
    let mut case: Option<String> = None;
    let mut failure: Option<String> = None;
    each_tag(&text, |tag| match tag.element {
        "testcase" if !tag.self_closing => {
            case = Some(tag.case_name());
            failure = None;
        }
        "failure" | "error" if case.is_some() && failure.is_none() => {
            let body = &tag.after[..tag.after.find('<').unwrap_or(tag.after.len())];
            let mut cut = body.len().min(MAX_FAILURE_TEXT);
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            failure = Some(unescape(body[..cut].trim()));
        }
        "" if tag.text.starts_with("/testcase") => {
            if let (Some(name), Some(text)) = (case.take(), failure.take()) {
                cases.push((name, text));
            }
        }
        _ => {}
    });
    cases
}

/// Where a failure's stack first points into the project (`root`): the file, relative, and its
/// line; frames in `node_modules` and node's own are left out.
fn place_in_stack(text: &str, root: &str) -> Option<(String, u32)> {
    text.match_indices(root).find_map(|(at, _)| {
        let rest = &text[at + root.len()..];
        let end = rest.find([')', ' ', '\n']).unwrap_or(rest.len());
        let mut parts = rest[..end].rsplitn(3, ':');
        let _column = parts.next()?.parse::<u32>().ok()?;
        let line = parts.next()?.parse::<u32>().ok()?;
        let file = parts.next()?;
        (!file.contains("node_modules/")).then(|| (file.to_owned(), line))
    })
}

/// What a failure's text says beyond its message: the error node caught (`cause: …`), at most a
/// few lines of it, with only the stack frames in the project (`root`, left out of their paths).
fn failure_detail(text: &str, root: &str) -> Option<String> {
    let cause = text.split_once("cause: ").map_or(text, |(_, cause)| cause);
    let lines: Vec<String> = cause
        .lines()
        .map(|line| line.strip_prefix("  ").unwrap_or(line))
        // The error's own properties (`code: 'ERR_ASSERTION'`, `actual: 4`) end what is shown.
        .take_while(|line| {
            let line = line.trim();
            line != "}" && !line.starts_with("generatedMessage:") && !line.starts_with("code: ")
        })
        .filter(|line| {
            !line.trim_start().starts_with("at ")
                || (line.contains(root) && !line.contains("node_modules/"))
        })
        .take(16)
        .map(|line| line.replace(root, ""))
        .collect();
    let detail = lines.join("\n").trim().to_owned();
    (!detail.is_empty()).then_some(detail)
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#10;", "\n")
        .replace("&amp;", "&")
}

/// The unescaped value of `name="…"` in a start tag.
fn attribute(tag: &str, name: &str) -> String {
    let key = format!("{name}=\"");
    tag.match_indices(&key)
        .find(|(at, _)| *at == 0 || tag[..*at].ends_with(char::is_whitespace))
        .and_then(|(at, _)| tag[at + key.len()..].split('"').next())
        .map(unescape)
        .unwrap_or_default()
}

/// Reads a quoted part of a word after its opening `quote` into `word`, as `sh` does: nothing is
/// special between single quotes, a backslash escapes `"`, `\\`, `$` and `` ` `` between double
/// ones. Whether the quote was closed.
fn read_quoted(
    quote: char,
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    word: &mut String,
) -> bool {
    while let Some(q) = chars.next() {
        match q {
            _ if q == quote => return true,
            '\\' if quote == '"'
                && chars
                    .peek()
                    .is_some_and(|n| matches!(n, '"' | '\\' | '$' | '`')) =>
            {
                word.extend(chars.next());
            }
            other => word.push(other),
        }
    }
    false
}

/// The commands of a script, split as `sh` splits them (quotes and backslashes honoured, nothing
/// expanded): commands end at `&&`, `||`, `;`, `|` and `&` outside quotes, and a command ends at
/// its first redirection. A script whose quotes do not close gives what was read before.
pub fn split_script(script: &str) -> Vec<Vec<Word>> {
    let mut commands = Vec::new();
    let mut command: Vec<Word> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut glob = false;
    let mut redirected = false;
    let mut chars = script.chars().peekable();
    let end_word = |command: &mut Vec<Word>,
                    word: &mut String,
                    in_word: &mut bool,
                    glob: &mut bool,
                    redirected: bool| {
        if *in_word && !redirected {
            command.push(Word {
                text: std::mem::take(word),
                glob: *glob,
            });
        }
        word.clear();
        *in_word = false;
        *glob = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                end_word(&mut command, &mut word, &mut in_word, &mut glob, redirected);
            }
            '&' | '|' | ';' => {
                end_word(&mut command, &mut word, &mut in_word, &mut glob, redirected);
                while chars.peek().is_some_and(|next| matches!(next, '&' | '|')) {
                    chars.next();
                }
                commands.push(std::mem::take(&mut command));
                redirected = false;
            }
            '<' | '>' => {
                // `2>` and `>` end the words node gets.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                }
                end_word(&mut command, &mut word, &mut in_word, &mut glob, redirected);
                redirected = true;
            }
            '\'' | '"' => {
                in_word = true;
                if !read_quoted(c, &mut chars, &mut word) {
                    return commands;
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            '*' | '?' | '[' => {
                in_word = true;
                glob = true;
                word.push(c);
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    end_word(&mut command, &mut word, &mut in_word, &mut glob, redirected);
    commands.push(command);
    commands.retain(|command| !command.is_empty());
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(words: &[Word]) -> Vec<&str> {
        words.iter().map(|w| w.text.as_str()).collect()
    }

    #[test]
    fn the_node_test_command_is_found_in_a_chain_with_its_environment() {
        let (env, args) = node_test_command(
            "npm run build && NODE_ENV=test node --import tsx --test --test-reporter dot 'test/**/*.test.ts' > out.txt",
        )
        .expect("a node --test command");
        assert_eq!(env["NODE_ENV"], "test");
        assert_eq!(
            texts(&args),
            [
                "--import",
                "tsx",
                "--test",
                "--test-reporter",
                "dot",
                "test/**/*.test.ts"
            ]
        );
        assert!(!args[5].glob, "quoted: node's to expand");
        let (_, args) = node_test_command("cross-env TZ=UTC node --test test/*.test.js")
            .expect("a node --test command");
        assert!(args[1].glob, "unquoted: the shell's to expand");
        // `node` running a script that takes `--test` is no test run.
        assert_eq!(node_test_command("node scripts/run.js --test"), None);
        assert_eq!(node_test_command("node --import tsx scripts/run.js"), None);
        assert_eq!(node_test_command("jest --test"), None);
        assert_eq!(node_test_command("echo 'unclosed && node --test"), None);
    }

    #[test]
    fn verdicts_reporters_replace_the_scripts_and_watch_mode_is_dropped() {
        let (_, args) = node_test_command(
            "node --test --watch --test-reporter=tap --test-reporter-destination out.tap --test-concurrency 1 --experimental-test-coverage --test-name-pattern \"adds .*\" test/",
        )
        .expect("a node --test command");
        let (options, paths) = kept_args(&args, Path::new("."));
        assert_eq!(
            options,
            [
                "--test-concurrency",
                "1",
                "--experimental-test-coverage",
                "--test-name-pattern",
                "adds .*"
            ]
        );
        assert_eq!(paths, ["test/"]);
    }

    #[test]
    fn re_runs_name_each_test_for_old_and_new_node() {
        let tests = ["strings > uppercases (1)".to_owned(), "adds".to_owned()];
        assert_eq!(
            name_pattern(&tests).as_deref(),
            Some(r"^(?:strings uppercases \(1\)|uppercases \(1\)|adds)$")
        );
        assert!(is_file_name("test/crash.test.js"));
        assert!(!is_file_name("suite > test/crash.test.js"));
    }

    #[test]
    fn no_node_on_path_is_not_installed_with_the_version_needed() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"scripts": {"test": "node --test"}}"#,
        )
        .expect("write");
        let workspace = Workspace::new(dir.path());
        let error = NodeTest::default()
            .spec_with(&workspace, Vec::new(), None, None)
            .expect_err("no node");
        assert!(matches!(error, VerifierError::NotInstalled { .. }));
        assert!(error.to_string().contains("Node.js 20 or later"), "{error}");
        let spec = NodeTest::default()
            .spec_with(&workspace, Vec::new(), None, Some("node".into()))
            .expect("a command");
        assert_eq!(spec.args[0], "--test");
        assert!(spec.args[4].starts_with("--test-reporter-destination=/"));
        assert!(spec.args[4].ends_with("node-test.xml"));
        assert_eq!(spec.output_files.len(), 1);
    }

    #[test]
    fn the_logs_names_pair_with_the_reports() {
        let root = "/work/p/";
        assert!(same_test("adds", "adds", root));
        assert!(same_test(
            "strings > uppercases wrong",
            "uppercases wrong",
            root
        ));
        assert!(same_test(
            "test/crash.test.js",
            "/work/p/test/crash.test.js",
            root
        ));
        assert!(!same_test("strings > uppercases wrong", "wrong", root));
        assert!(!same_test("adds", "adds wrong", root));
    }

    #[test]
    fn a_crashed_file_says_how_its_process_ended() {
        assert_eq!(
            how_a_file_ended(
                "[Error: test failed] { code: 'ERR_TEST_FAILURE', failureType: 'testCodeFailure', cause: 'test failed', exitCode: null, signal: 'SIGABRT' }"
            )
            .as_deref(),
            Some("crashed: its process was killed by SIGABRT")
        );
        assert_eq!(
            how_a_file_ended("{ cause: 'test failed', exitCode: 1, signal: null }").as_deref(),
            Some("failed: its process exited with code 1")
        );
        assert_eq!(how_a_file_ended("assertion failed"), None);
    }
}
