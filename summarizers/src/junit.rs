//! JUnit XML (pytest `--junitxml`, and any other tool that writes it), turned into a
//! [`verdict_model::Report`].
//!
//! The counts are the tool's own: the `tests`, `failures`, `errors` and `skipped` attributes of
//! each `<testsuite>`, summed. Every `<testcase>` with a `<failure>` or `<error>` child becomes a
//! [`Kind::Test`] diagnostic. Passed and skipped cases only count. pytest's passed tests are
//! counted case by case, as its summary line counts them: a case with no problem, or whose only
//! problem is an error in a fixture's tear-down after the test passed — `tests` minus the rest
//! is off by one for each of those, one way in pytest 8 (which counts such a test twice in
//! `tests`) and the other in pytest 9 (once).
//!
//! For pytest (`tool == "pytest"`) a case is named by its node id, as the log parser
//! ([`crate::pytest`]) names it, so that the same failure has the same fingerprint whichever of
//! the two was read. pytest writes a node id into JUnit as `classname` (the file's path with `/`
//! as `.` and no `.py`, then the classes) and `name` (the function and its parameters); the file is
//! the `file` attribute (`junit_family=xunit1`), else the path in the traceback text whose dotted
//! form starts the classname, else the classname up to its first capitalized part. The message,
//! the place (the last line of the test's own file in the traceback) and the detail come from the
//! failure's text, read by the log parser's own block reader. A file that failed to collect is an
//! `<error>` case with an empty classname; pytest's own crash is the case `pytest.internal`.
//!
//! Malformed or truncated XML gives an errored report (with what was read before the fault):
//! the tool did not finish its report, so nothing it says can be trusted as a pass. Memory stays
//! bounded: at most [`MAX_TEXT`] bytes of a failure's text are kept, and a report keeps at most
//! [`verdict_model::model::MAX_DIAGNOSTICS`] diagnostics.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use verdict_model::{Counts, Diagnostic, Kind, Outcome, Report, Severity, TestCase, TestStatus};

use crate::text::clip;

/// The most text of one failure kept for reading its message and place. A traceback longer than
/// this is cut at its start: the exception and the frame that raised it come last.
pub const MAX_TEXT: usize = 64 * 1024;
const MAX_MESSAGE: usize = 300;

/// The most XML [`JunitSummarizer`] holds to parse: a report is parsed whole, so a larger one is
/// an errored report rather than unbounded memory.
pub const MAX_XML: usize = 128 * 1024 * 1024;

/// JUnit XML given to `verdict summarize` (`pytest --junitxml`, `vitest --reporter=junit`, any
/// tool's report): chosen when the input starts as a JUnit document does. The report is named
/// after the tool that wrote it when the document says so (`<testsuites name="pytest tests">`),
/// so that pytest's cases get its node ids; else it is `junit`.
#[derive(Debug, Default, Clone, Copy)]
pub struct JunitSummarizer;

impl verdict_model::Summarizer for JunitSummarizer {
    fn name(&self) -> &'static str {
        "junit"
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        let start = sample.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
        let document = start.starts_with("<?xml") || start.starts_with("<testsuite");
        if document && sample.contains("<testsuite") {
            99
        } else {
            0
        }
    }

    fn parser(&self) -> Box<dyn verdict_model::LineParser> {
        Box::new(Collect {
            xml: Vec::new(),
            too_large: false,
        })
    }
}

/// Holds the document's lines until the end, then parses it whole.
struct Collect {
    xml: Vec<u8>,
    too_large: bool,
}

impl verdict_model::LineParser for Collect {
    fn line(&mut self, line: &str) {
        if self.too_large {
            return;
        }
        if self.xml.len() + line.len() + 1 > MAX_XML {
            self.too_large = true;
            self.xml = Vec::new();
            return;
        }
        self.xml.extend_from_slice(line.as_bytes());
        self.xml.push(b'\n');
    }

    fn finish(self: Box<Self>) -> Report {
        if self.too_large {
            return Report::errored(
                "junit",
                format!(
                    "the JUnit XML is larger than {} MiB; verdict reads reports up to that size",
                    MAX_XML / (1024 * 1024)
                ),
            );
        }
        // The document's own name for the tool that wrote it, in its first lines.
        let head = &self.xml[..self.xml.len().min(4096)];
        let head = String::from_utf8_lossy(head);
        let tool = if head.contains("name=\"pytest") {
            "pytest"
        } else if head.contains("name=\"vitest tests\"") {
            "vitest"
        } else if head.contains("name=\"jest tests\"") {
            "jest"
        } else {
            "junit"
        };
        parse(tool, &self.xml)
    }
}

/// Parses JUnit XML written by `tool`. Never fails: bad XML is an errored report.
pub fn parse(tool: &str, xml: &[u8]) -> Report {
    parse_with_rootdir(tool, xml, None)
}

/// [`parse`], knowing the directory the tool ran in (pytest's rootdir), so that the absolute
/// paths of a traceback become the project's relative ones without guessing.
pub fn parse_with_rootdir(tool: &str, xml: &[u8], rootdir: Option<&str>) -> Report {
    let rootdir = rootdir.map(|r| format!("{}/", r.trim_end_matches('/')));
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().trim_text(false);
    let mut state = State {
        depth: 0,
        seen_suite: false,
        open_suites: 0,
        nested_suites: false,
        case: None,
        sums: Sums::default(),
        cases: CaseCounts::default(),
        report: Report::new(tool, Outcome::Passed),
        collect_errors: 0,
        crashed: 0,
        internal: None,
        rootdir,
        last_passed: None,
    };
    let mut fault = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => state.open(&e, false),
            Ok(Event::Empty(e)) => state.open(&e, true),
            Ok(Event::End(e)) => state.close(AsRef::<str>::as_ref(&e.name())),
            Ok(Event::Text(t)) => state.text(&t.xml10_content()),
            Ok(Event::CData(t)) => state.text(&t),
            Ok(Event::GeneralRef(r)) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    Ok(None) => quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                        .map(str::to_owned),
                    Err(_) => None,
                };
                match resolved {
                    Some(text) => state.text(&text),
                    None => {
                        fault = Some(format!(
                            "unknown entity `&{};` at byte {}",
                            r.xml10_content(),
                            reader.buffer_position()
                        ));
                        break;
                    }
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(error) => {
                fault = Some(format!(
                    "malformed XML at byte {}: {error}",
                    reader.error_position()
                ));
                break;
            }
        }
    }
    if fault.is_none() && state.depth != 0 {
        fault = Some("the XML ends before its elements are closed".to_owned());
    }
    if fault.is_none() && !state.seen_suite {
        fault = Some("no <testsuite> element".to_owned());
    }
    state.finish(fault)
}

/// A `<testcase>` being read.
#[derive(Debug, Default)]
struct Case {
    classname: String,
    name: String,
    file: Option<String>,
    line: Option<u32>,
    /// `failure` or `error`, once one is seen.
    problem: Option<Problem>,
    /// A `<skipped>` child.
    skipped: bool,
    /// The `time` attribute, in milliseconds.
    duration_ms: Option<u64>,
}

#[derive(Debug)]
struct Problem {
    error: bool,
    /// `failed on setup with "…"` / `failed on teardown with "…"` (pytest's fixture errors).
    message: Option<String>,
    text: String,
    /// The element is open: its text is the traceback.
    open: bool,
}

#[derive(Debug, Default)]
struct Sums {
    tests: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
    /// Cases that passed, counted one by one (see the module docs).
    passed_cases: u64,
}

/// The cases themselves, counted one by one: the counts of a report whose suites do not hold
/// every case (Node.js's test runner writes top-level tests as `<testcase>`s of `<testsuites>`).
#[derive(Debug, Default)]
struct CaseCounts {
    tests: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
}

/// What the reader has seen so far. Each failing case becomes a diagnostic as soon as it closes,
/// so that only one case's text is held at a time.
#[derive(Debug)]
struct State {
    depth: usize,
    seen_suite: bool,
    /// The `<testsuite>` elements open around the reader now.
    open_suites: usize,
    /// Whether a `<testsuite>` was seen inside another (Node.js's runner writes one per
    /// `describe`, and counts each nested suite as a test of its parent): the suites' counts
    /// then say nothing exact, and the cases are counted instead.
    nested_suites: bool,
    cases: CaseCounts,
    case: Option<Case>,
    sums: Sums,
    report: Report,
    /// Files that failed to collect (pytest).
    collect_errors: u64,
    /// Tests a pytest-xdist worker crashed in: pytest counts each as failed, its JUnit as an
    /// error.
    crashed: u64,
    /// pytest's own crash, from its `pytest.internal` case.
    internal: Option<String>,
    rootdir: Option<String>,
    /// The classname and name of the last case of a pytest report, when it passed:
    /// pytest-rerunfailures writes each rerun of a test as an empty case just before the test's
    /// final one.
    last_passed: Option<(String, String)>,
}

fn attribute(e: &BytesStart<'_>, name: &str) -> Option<String> {
    e.attributes()
        .filter_map(Result::ok)
        .find(|a| AsRef::<str>::as_ref(&a.key) == name)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })
}

fn number(e: &BytesStart<'_>, name: &str) -> u64 {
    attribute(e, name)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

impl State {
    fn open(&mut self, e: &BytesStart<'_>, empty: bool) {
        if !empty {
            self.depth += 1;
        }
        match AsRef::<str>::as_ref(&e.name()) {
            "testsuite" => {
                self.seen_suite = true;
                if self.open_suites > 0 {
                    self.nested_suites = true;
                }
                if !empty {
                    self.open_suites += 1;
                }
                self.sums.tests += number(e, "tests");
                self.sums.failures += number(e, "failures");
                self.sums.errors += number(e, "errors");
                self.sums.skipped += number(e, "skipped");
            }
            "testcase" => {
                self.close_case();
                let case = Case {
                    classname: attribute(e, "classname").unwrap_or_default(),
                    name: attribute(e, "name").unwrap_or_default(),
                    file: attribute(e, "file").filter(|f| !f.is_empty()),
                    line: attribute(e, "line").and_then(|l| l.trim().parse().ok()),
                    problem: None,
                    skipped: false,
                    duration_ms: attribute(e, "time").and_then(|t| milliseconds(&t)),
                };
                // Set for pytest's reports only.
                if self.last_passed.take().is_some_and(|(classname, name)| {
                    classname == case.classname && name == case.name
                }) {
                    // The case before was a rerun of this test, not a test that passed
                    // (pytest's line: `1 failed, 2 passed, 2 rerun`).
                    self.sums.passed_cases = self.sums.passed_cases.saturating_sub(1);
                    self.cases.tests = self.cases.tests.saturating_sub(1);
                    self.unpush_test();
                }
                if empty {
                    // A passing case: nothing to keep but its name.
                    self.sums.passed_cases += 1;
                    self.cases.tests += 1;
                    let name = self.test_name(&case, "");
                    self.push_test(name, &case, TestStatus::Passed);
                    if self.report.tool == "pytest" {
                        self.last_passed = Some((case.classname, case.name));
                    }
                    return;
                }
                self.case = Some(case);
            }
            "skipped" => {
                if let Some(case) = self.case.as_mut() {
                    case.skipped = true;
                }
            }
            name @ ("failure" | "error") => {
                let Some(case) = self.case.as_mut() else {
                    return;
                };
                // pytest writes one problem per case, but a teardown error can follow a failure:
                // the first one stands for the case.
                if case.problem.is_none() {
                    case.problem = Some(Problem {
                        error: name == "error",
                        message: attribute(e, "message"),
                        text: String::new(),
                        open: !empty,
                    });
                }
            }
            _ => {}
        }
    }

    fn close(&mut self, name: &str) {
        self.depth = self.depth.saturating_sub(1);
        match name {
            "testcase" => self.close_case(),
            "testsuite" => self.open_suites = self.open_suites.saturating_sub(1),
            "failure" | "error" => {
                if let Some(problem) = self.case.as_mut().and_then(|c| c.problem.as_mut()) {
                    problem.open = false;
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, text: &str) {
        let Some(problem) = self
            .case
            .as_mut()
            .and_then(|c| c.problem.as_mut())
            .filter(|p| p.open)
        else {
            return;
        };
        problem.text.push_str(text);
        if problem.text.len() > 2 * MAX_TEXT {
            // Keep the end: the raised exception and its frame are last.
            let mut cut = problem.text.len() - MAX_TEXT;
            while !problem.text.is_char_boundary(cut) {
                cut += 1;
            }
            problem.text.drain(..cut);
        }
    }

    fn close_case(&mut self) {
        let Some(case) = self.case.take() else {
            return;
        };
        self.cases.tests += 1;
        match (&case.problem, case.skipped) {
            (_, true) => self.cases.skipped += 1,
            (Some(problem), false) if problem.error => self.cases.errors += 1,
            (Some(_), false) => self.cases.failures += 1,
            (None, false) => {}
        }
        let teardown_only = case.problem.as_ref().is_some_and(|p| {
            p.error
                && p.message
                    .as_deref()
                    .is_some_and(|m| m.starts_with("failed on teardown with"))
        });
        if !case.skipped && (case.problem.is_none() || teardown_only) {
            // pytest counts a test whose fixture failed in tear-down as passed, and the
            // tear-down as an error besides.
            self.sums.passed_cases += 1;
        }
        if self.report.tool == "pytest" && !case.skipped && case.problem.is_none() {
            self.last_passed = Some((case.classname.clone(), case.name.clone()));
        }
        let Some(problem) = &case.problem else {
            let name = self.test_name(&case, "");
            let status = if case.skipped {
                TestStatus::Skipped
            } else {
                TestStatus::Passed
            };
            self.push_test(name, &case, status);
            return;
        };
        if case.skipped {
            // A skipped case with a failure is one expected to fail (Node.js's `todo`).
            let name = self.test_name(&case, &problem.text);
            self.push_test(name, &case, TestStatus::Skipped);
            return;
        }
        let pytest = self.report.tool == "pytest";
        if pytest && case.classname == "pytest" && case.name == "internal" {
            // pytest's own crash (`INTERNALERROR`), not a test.
            let last = problem
                .text
                .lines()
                .rev()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(str::to_owned);
            self.internal = Some(last.or_else(|| problem.message.clone()).unwrap_or_default());
            return;
        }
        if pytest && case.classname.is_empty() && problem.error {
            // pytest names a file that failed to collect with an empty classname.
            self.collect_errors += 1;
        }
        let crashed = pytest && problem.error && is_xdist_crash(problem);
        if crashed {
            self.crashed += 1;
        }
        // As the counts: a test a pytest-xdist worker crashed in failed (see `finish`).
        let status = if problem.error && !crashed {
            TestStatus::Errored
        } else {
            TestStatus::Failed
        };
        if self.report.diagnostics.len() >= verdict_model::model::MAX_DIAGNOSTICS {
            self.report.diagnostics_dropped += 1;
            let name = self.test_name(&case, &problem.text);
            self.push_test(name, &case, status);
            return;
        }
        let diagnostic = if pytest {
            pytest_diagnostic(&case, problem, self.rootdir.as_deref())
        } else {
            plain_diagnostic(&self.report.tool, &case, problem)
        };
        // The test's name is its diagnostic's, so that a renderer pairs the two; a file that
        // failed to collect has no test name and is named by its file.
        let name = diagnostic
            .test
            .clone()
            .or_else(|| diagnostic.file.clone())
            .unwrap_or_else(|| self.test_name(&case, &problem.text));
        self.push_test(name, &case, status);
        self.report.push(diagnostic);
    }

    /// The name a case's [`TestCase`] gets when it has no diagnostic: as its diagnostic would
    /// name it (pytest's node id, else `classname::name`).
    fn test_name(&self, case: &Case, text: &str) -> String {
        if self.report.tool == "pytest" {
            pytest_node_id(case, text)
        } else if case.classname.is_empty() {
            case.name.clone()
        } else {
            format!("{}::{}", case.classname, case.name)
        }
    }

    fn push_test(&mut self, name: String, case: &Case, status: TestStatus) {
        let file = if self.report.tool == "pytest" {
            // The node id's file, as pytest's own `file` attribute or the guess from it.
            Some(name.split("::").next().unwrap_or(&name).to_owned())
        } else {
            case.file.clone()
        };
        self.report.push_test(TestCase {
            name,
            file,
            status,
            duration_ms: case.duration_ms,
        });
    }

    /// Takes back the last [`TestCase`]: it was a rerun, not a test (see `last_passed`).
    fn unpush_test(&mut self) {
        if self.report.tests_dropped > 0 {
            self.report.tests_dropped -= 1;
        } else {
            self.report.tests.pop();
        }
    }

    fn finish(mut self, fault: Option<String>) -> Report {
        self.close_case();
        let tool = self.report.tool.clone();
        let internal = self.internal.take();
        let mut report = std::mem::replace(&mut self.report, Report::new(&tool, Outcome::Passed));

        // A test a pytest-xdist worker crashed in is written as an error "on setup", but it is the
        // test that failed: pytest's summary counts it so, and so does its diagnostic.
        if self.cases.tests > self.sums.tests || self.nested_suites {
            // The suites do not hold every case, or count their nested suites as tests: count
            // the cases.
            let cases = &self.cases;
            self.sums.tests = cases.tests;
            self.sums.failures = cases.failures;
            self.sums.errors = cases.errors;
            self.sums.skipped = cases.skipped;
        }
        let crashed = self.crashed.min(self.sums.errors);
        self.sums.errors -= crashed;
        self.sums.failures += crashed;
        let sums = &self.sums;
        let passed = if tool == "pytest" {
            sums.passed_cases
        } else {
            sums.tests
                .saturating_sub(sums.failures + sums.errors + sums.skipped)
        };
        report.counts = Counts {
            tests_passed: Some(passed),
            tests_failed: Some(sums.failures),
            tests_skipped: Some(sums.skipped),
            // As the tool's summary line: errors are mentioned only when there are some.
            errors: (sums.errors > 0).then_some(sums.errors),
            suites_errored: (self.collect_errors > 0).then_some(self.collect_errors),
            ..Counts::default()
        };
        let mut parts = vec![format!("{} tests", sums.tests)];
        for (n, label) in [
            (sums.failures, "failed"),
            (passed, "passed"),
            (sums.skipped, "skipped"),
            (sums.errors, "errors"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {label}"));
            }
        }
        report.summary = Some(parts.join(", "));

        let failing = sums.failures + sums.errors > 0 || report.errors().next().is_some();
        report.outcome = if let Some(fault) = fault {
            report.error = Some(format!("unreadable JUnit XML: {fault}"));
            Outcome::Errored
        } else if let Some(internal) = internal {
            report.error = Some(format!("INTERNALERROR: {internal}"));
            Outcome::Errored
        } else if failing {
            Outcome::Failed
        } else if sums.tests == 0 {
            report.error = Some("no tests ran".to_owned());
            Outcome::Errored
        } else {
            Outcome::Passed
        };
        report
    }
}

/// A failing case of any tool: `classname::name`, the `file` and `line` attributes, the message
/// attribute (or the text's first line).
fn plain_diagnostic(tool: &str, case: &Case, problem: &Problem) -> Diagnostic {
    let message = problem
        .message
        .as_deref()
        .and_then(|m| m.lines().map(str::trim).find(|l| !l.is_empty()))
        .or_else(|| problem.text.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or(if problem.error {
            "test errored"
        } else {
            "test failed"
        });
    let mut d = Diagnostic::new(
        tool,
        Kind::Test,
        Severity::Error,
        clip(message, MAX_MESSAGE),
    );
    if let Some(file) = &case.file {
        d = d.at(file.clone(), case.line, None);
    }
    let test = if case.classname.is_empty() {
        case.name.clone()
    } else {
        format!("{}::{}", case.classname, case.name)
    };
    if !test.is_empty() {
        d = d.with_test(test);
    }
    d
}

/// A failing pytest case, named by its node id and read by the log parser's block reader.
fn pytest_diagnostic(case: &Case, problem: &Problem, rootdir: Option<&str>) -> Diagnostic {
    let nodeid = pytest_node_id(case, &problem.text);
    // A fixture's error: pytest prefixes the exception with the phase.
    let message = problem.message.as_deref().map(|m| {
        ["failed on setup with ", "failed on teardown with "]
            .iter()
            .find_map(|prefix| m.strip_prefix(prefix))
            .map(|m| m.trim_matches('"'))
            .unwrap_or(m)
    });
    let message = message
        .and_then(|m| m.lines().next())
        .filter(|m| !m.is_empty());
    let setup = problem.error && nodeid.contains("::") && !is_xdist_crash(problem);
    let mut d = crate::pytest::failure_from_text(&nodeid, setup, &problem.text, message, rootdir);
    // With `--tb=line` or `--tb=no` the text shows no place: the test's own line stands in.
    // pytest writes it 0-based (the line of the `def`, or of its first decorator).
    if d.line.is_none()
        && nodeid.contains("::")
        && let (Some(file), Some(line)) = (&case.file, case.line)
        && d.file.as_ref().is_none_or(|f| f == file)
    {
        d = d.at(file.clone(), Some(line.saturating_add(1)), None);
    }
    d
}

/// Whether a pytest case's problem is pytest-xdist's report of a worker that crashed in it.
fn is_xdist_crash(problem: &Problem) -> bool {
    problem
        .text
        .lines()
        .take(5)
        .any(|l| crate::pytest::xdist_crash(l).is_some())
}

/// A `time` attribute (seconds, `0.004`) in whole milliseconds; `None` when it is no number.
fn milliseconds(seconds: &str) -> Option<u64> {
    let seconds: f64 = seconds.trim().parse().ok()?;
    // A negative or absurd time says nothing; `as` saturates the rest.
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// `tests/test_a.py` → `tests.test_a`, the spelling of a file in a JUnit classname.
fn dotted_module(file: &str) -> String {
    file.strip_suffix(".py").unwrap_or(file).replace('/', ".")
}

/// The node id of a pytest case (see the module docs).
fn pytest_node_id(case: &Case, text: &str) -> String {
    // A file that failed to collect: the name is its module.
    if case.classname.is_empty() {
        let file = case
            .file
            .clone()
            .or_else(|| file_in_text(text, &case.name))
            .unwrap_or_else(|| format!("{}.py", case.name.replace('.', "/")));
        return file;
    }
    let file = case
        .file
        .clone()
        .filter(|f| {
            let module = dotted_module(f);
            case.classname == module || case.classname.starts_with(&format!("{module}."))
        })
        .or_else(|| file_in_text(text, &case.classname))
        .unwrap_or_else(|| guess_file(&case.classname));
    let module = dotted_module(&file);
    let classes = case
        .classname
        .strip_prefix(&module)
        .map(|rest| rest.trim_start_matches('.'))
        .unwrap_or("");
    let mut nodeid = file;
    for class in classes.split('.').filter(|c| !c.is_empty()) {
        nodeid.push_str("::");
        nodeid.push_str(class);
    }
    nodeid.push_str("::");
    nodeid.push_str(&case.name);
    nodeid
}

/// The relative `.py` path in a traceback whose dotted module is `classname` or starts it,
/// preferring the longest.
fn file_in_text(text: &str, classname: &str) -> Option<String> {
    let mut best: Option<String> = None;
    for line in text.lines().take(10_000) {
        let line = line.trim_start_matches(['E', ' ']);
        let path = if let Some(rest) = line.strip_prefix("File \"") {
            rest.split('"').next()
        } else {
            line.find(".py:").map(|at| &line[..at + 3])
        };
        let Some(path) = path.filter(|p| p.ends_with(".py") && !p.contains(' ')) else {
            continue;
        };
        // An absolute path: try each of its tails.
        let mut candidates = vec![path];
        if path.starts_with('/') {
            candidates.extend(path.match_indices('/').map(|(i, _)| &path[i + 1..]));
        }
        for candidate in candidates {
            if candidate.starts_with('/') || candidate.starts_with("..") {
                continue;
            }
            let module = dotted_module(candidate);
            let fits = classname == module || classname.starts_with(&format!("{module}."));
            if fits && best.as_ref().is_none_or(|b| b.len() < candidate.len()) {
                best = Some(candidate.to_owned());
            }
        }
    }
    best
}

/// The file of a classname with no traceback to go by: its parts up to the first capitalized one
/// (pytest collects classes named `Test*`).
fn guess_file(classname: &str) -> String {
    let parts: Vec<&str> = classname.split('.').collect();
    let end = parts
        .iter()
        .skip(1)
        .position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))
        .map_or(parts.len(), |i| i + 1);
    format!("{}.py", parts[..end].join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(classname: &str, name: &str, file: Option<&str>) -> Case {
        Case {
            classname: classname.to_owned(),
            name: name.to_owned(),
            file: file.map(str::to_owned),
            ..Case::default()
        }
    }

    /// pytest-rerunfailures writes each rerun as an empty case before the test's final one: the
    /// reruns were counted as passing tests (4 passed where pytest's line says `1 failed, 2
    /// passed, 2 rerun`).
    #[test]
    fn pytest_reruns_are_not_passing_tests() {
        let xml = concat!(
            r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">"#,
            r#"<testsuite name="pytest" errors="0" failures="1" skipped="0" tests="3">"#,
            r#"<testcase classname="test_x" name="test_a" time="0.001" />"#,
            r#"<testcase classname="test_x" name="test_a" time="0.001"><failure message="assert 1 == 2">"#,
            "def test_a():\n&gt;       assert 1 == 2\nE       assert 1 == 2\n\ntest_x.py:3: AssertionError",
            r#"</failure></testcase><testcase classname="test_x" name="test_b" time="0.000" />"#,
            r#"<testcase classname="test_x" name="test_flaky" time="0.001" />"#,
            r#"<testcase classname="test_x" name="test_flaky" time="0.001" /></testsuite></testsuites>"#,
        );
        let report = parse("pytest", xml.as_bytes());
        assert_eq!(report.counts.tests_passed, Some(2), "{report:#?}");
        assert_eq!(report.counts.tests_failed, Some(1));
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics.len(), 1);
    }

    #[test]
    fn node_ids_from_classname_file_and_text() {
        let c = case(
            "tests.test_a.TestK",
            "test_m[1.5-x]",
            Some("tests/test_a.py"),
        );
        assert_eq!(
            pytest_node_id(&c, ""),
            "tests/test_a.py::TestK::test_m[1.5-x]"
        );
        let c = case("tests.test_a.TestK", "test_m", None);
        assert_eq!(
            pytest_node_id(&c, "tests/test_a.py:3: AssertionError"),
            "tests/test_a.py::TestK::test_m"
        );
        // A directory with a capital letter, found from the traceback.
        let c = case("Pkg.tests.test_a", "test_m", None);
        assert_eq!(
            pytest_node_id(&c, "  File \"/abs/Pkg/tests/test_a.py\", line 3, in test_m"),
            "Pkg/tests/test_a.py::test_m"
        );
        let c = case("tests.test_a.TestK", "test_m", None);
        assert_eq!(pytest_node_id(&c, ""), "tests/test_a.py::TestK::test_m");
        let c = case("", "tests.test_b", None);
        assert_eq!(pytest_node_id(&c, ""), "tests/test_b.py");
    }

    #[test]
    fn malformed_xml_is_errored() {
        for xml in [
            &b""[..],
            b"not xml at all",
            b"<testsuites><testsuite tests=\"1\"><testcase name=\"a\">",
            b"<testsuite tests=\"1\" failures=\"0\"><testcase name=\"a\"></wrong></testsuite>",
            b"<testsuite tests=\"1\"><testcase name=\"a\"><failure>&bogus;</failure></testcase></testsuite>",
            b"<testsuite tests=\"1\"><testcase name=\"\xff\xfe\"/></testsuite>",
        ] {
            let report = parse("pytest", xml);
            assert_eq!(
                report.outcome,
                Outcome::Errored,
                "{}",
                String::from_utf8_lossy(xml)
            );
            assert!(report.error.is_some());
        }
    }

    #[test]
    fn huge_failure_text_is_cut_from_the_start() {
        let mut xml = String::from(
            "<testsuite tests=\"1\" failures=\"1\"><testcase classname=\"t\" name=\"x\"><failure message=\"m\">",
        );
        for _ in 0..100_000 {
            xml.push_str("filler line of a long traceback\n");
        }
        xml.push_str(
            "E   ValueError: the end\n\nt.py:9: ValueError</failure></testcase></testsuite>",
        );
        let report = parse("pytest", xml.as_bytes());
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics[0].message, "ValueError: the end");
        assert_eq!(report.diagnostics[0].location().as_deref(), Some("t.py:9"));
    }

    #[test]
    fn failures_beyond_the_cap_are_counted_not_kept() {
        let n = verdict_model::model::MAX_DIAGNOSTICS + 5;
        let mut xml = format!("<testsuite tests=\"{n}\" failures=\"{n}\">");
        for i in 0..n {
            xml.push_str(&format!(
                "<testcase classname=\"tests.test_a\" name=\"test_{i}\"><failure message=\"m\">E   assert {i} == 0\n\ntests/test_a.py:{i}: AssertionError</failure></testcase>"
            ));
        }
        xml.push_str("</testsuite>");
        let report = parse("pytest", xml.as_bytes());
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(
            report.diagnostics.len(),
            verdict_model::model::MAX_DIAGNOSTICS
        );
        assert_eq!(report.diagnostics_dropped, 5);
        assert_eq!(report.counts.tests_failed, Some(n as u64));
    }

    #[test]
    fn other_tools_name_tests_by_classname_and_name() {
        let report = parse(
            "junit",
            br#"<testsuites><testsuite name="s" tests="2" failures="1" errors="0" skipped="0">
            <testcase classname="com.example.FooTest" name="bar" file="src/Foo.java" line="12">
            <failure message="expected: 1 but was: 2" type="AssertionError">stack</failure></testcase>
            <testcase classname="com.example.FooTest" name="baz"/></testsuite></testsuites>"#,
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.counts.tests_passed, Some(1));
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("com.example.FooTest::bar"));
        assert_eq!(d.location().as_deref(), Some("src/Foo.java:12"));
        assert_eq!(d.message, "expected: 1 but was: 2");
    }
}
