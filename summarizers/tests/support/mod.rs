//! What every parser test needs: the captured cases of a tool under `testdata/<tool>/`, and the
//! rules that hold for every tool (a non-zero exit is never a pass, an errored report says why).
//!
//! One test per captured log: [`captured_logs!`] makes them from the lists in [`logs`].
#![allow(dead_code)]

pub(crate) mod logs;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use verdict_model::{Outcome, Report};

// One test per captured log comes from a macro over a list kept by hand rather than from a
// build script reading `testdata/`: a build script belongs to the whole package, so adding a log
// would rebuild the library and every crate that depends on it. The list's own test fails when a
// log has none, so no log goes unchecked.

mod listing;

pub(crate) use listing::*;

/// `testdata/<tool>/`.
pub(crate) fn testdata(tool: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(tool)
}

/// The names of every captured case of `tool` (the stems of its `.log` files), sorted; fails when
/// there are none, so that a missing capture cannot pass unnoticed.
pub(crate) fn case_names(tool: &str) -> Vec<String> {
    let dir = testdata(tool);
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".log").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no captured logs in {}", dir.display());
    names
}

/// The captured log of a case.
pub(crate) fn log(tool: &str, case: &str) -> Vec<u8> {
    let path = testdata(tool).join(format!("{case}.log"));
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The meta file of a case, as `cargo xtask capture` wrote it.
pub(crate) fn meta(tool: &str, case: &str) -> Value {
    let path = testdata(tool).join(format!("{case}.meta.json"));
    let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The tool's exit code in the captured run.
pub(crate) fn exit_code(tool: &str, case: &str) -> Option<i64> {
    meta(tool, case)["exit_code"].as_i64()
}

/// The ground truth of a case (`<case>.truth.<ext>`), when the tool wrote one.
pub(crate) fn truth(tool: &str, case: &str, ext: &str) -> Option<Vec<u8>> {
    fs::read(testdata(tool).join(format!("{case}.truth.{ext}"))).ok()
}

/// The rules every tool's report keeps: exit 0 is a pass (but for a run that exited early), any
/// other exit is not, and an errored report gives its reason.
pub(crate) fn check_outcome(case: &str, exit_code: Option<i64>, report: &Report) {
    // A process that exits 0 in the middle of its tests (`process.exit(0)` in a test) ran the
    // rest of them never: could not verify.
    if exit_code == Some(0) && case.contains("exits-early") {
        assert_eq!(
            report.outcome,
            Outcome::Errored,
            "{case}: the run did not finish"
        );
    } else if exit_code == Some(0) {
        assert_eq!(report.outcome, Outcome::Passed, "{case}: exit 0 is a pass");
    } else {
        assert_ne!(
            report.outcome,
            Outcome::Passed,
            "{case}: exit {exit_code:?} is no pass"
        );
    }
    if report.outcome == Outcome::Errored {
        assert!(report.error.is_some(), "{case}: errored without a reason");
    }
}

/// The line of the first `at … (path:line:col)` stack frame of `message` in `file` (relative to
/// the project), as the JSON reports of the JavaScript test runners print them with absolute
/// paths; frames in `node_modules` do not count.
pub(crate) fn frame_line_in(message: &str, file: &str) -> Option<u32> {
    message.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("at ")?;
        let location = match rest.strip_suffix(')') {
            Some(inner) => &inner[inner.rfind(" (")? + 2..],
            None => rest,
        };
        let mut parts = location.rsplitn(3, ':');
        let _column = parts.next()?;
        let line: u32 = parts.next()?.parse().ok()?;
        let path = parts.next()?;
        let in_file = path == file || path.ends_with(&format!("/{file}"));
        (in_file && !path.contains("node_modules")).then_some(line)
    })
}

/// Checks every failing test of a jest-format JSON report (jest's `--json`, and vitest's JSON
/// reporter, which writes the same shape) against the report: a diagnostic for each, named by the
/// describe titles and the title joined with `separator`, in its file, at the line of its first
/// stack frame there; a root cause for each suite that failed to load; and no other test
/// diagnostics.
pub(crate) fn check_jest_format_tests(
    case: &str,
    report: &verdict_model::Report,
    truth: &Value,
    separator: &str,
) {
    let mut failing_tests = 0;
    for suite in truth["testResults"].as_array().expect("testResults") {
        let path = suite["name"].as_str().expect("suite name");
        let matches_file = |file: &Option<String>| {
            file.as_deref()
                .is_some_and(|file| path.ends_with(&format!("/{file}")))
        };
        let assertions = suite["assertionResults"].as_array().expect("assertions");
        let message = suite["message"].as_str().unwrap_or("");
        if assertions.is_empty() && suite["status"] == "failed" && !message.is_empty() {
            assert!(
                report
                    .diagnostics
                    .iter()
                    .any(|d| d.root_cause && d.test.is_none() && matches_file(&d.file)),
                "{case}: no root cause for the suite {path}"
            );
        }
        for test in assertions.iter().filter(|t| t["status"] == "failed") {
            failing_tests += 1;
            let mut titles: Vec<&str> = test["ancestorTitles"]
                .as_array()
                .expect("ancestorTitles")
                .iter()
                .map(|t| t.as_str().expect("a title"))
                .collect();
            // vitest's report of a `--typecheck` type test names its file as its first
            // ancestor, which its log does not.
            if titles
                .first()
                .is_some_and(|first| path.ends_with(&format!("/{first}")))
            {
                titles.remove(0);
            }
            titles.push(test["title"].as_str().expect("title"));
            let name = titles.join(separator);
            let diagnostic = report
                .diagnostics
                .iter()
                .find(|d| d.test.as_deref() == Some(&name) && matches_file(&d.file))
                .unwrap_or_else(|| panic!("{case}: no diagnostic for `{name}` in {path}"));
            let file = diagnostic.file.as_deref().expect("a file");
            let failure = test["failureMessages"][0].as_str().unwrap_or("");
            let failure = verdict_model::lines::clean(failure.as_bytes());
            if let Some(line) = frame_line_in(&failure, file) {
                assert_eq!(diagnostic.line, Some(line), "{case}: line of `{name}`");
            }
        }
    }
    let reported = report
        .diagnostics
        .iter()
        .filter(|d| d.test.is_some())
        .count();
    assert_eq!(
        reported, failing_tests,
        "{case}: one diagnostic per failing test"
    );
}

/// Parses a case of a test runner whose ground truth is a JSON report, with the checks every such
/// runner shares: the outcome rules, then `check_against_truth` when the tool wrote a report, or —
/// when it wrote none but the code failed — a root cause that explains why. Returns the report for
/// the caller to snapshot (insta names snapshots after the calling test file).
pub(crate) fn check_json_case(
    tool: &str,
    case: &str,
    summarizer: &dyn verdict_model::Summarizer,
    check_against_truth: fn(&str, &Report, &Value),
) -> Report {
    let report = summarizer.parse(&log(tool, case));
    check_outcome(case, exit_code(tool, case), &report);
    match truth(tool, case, "json") {
        Some(bytes) => {
            let truth: Value = serde_json::from_slice(&bytes).expect("truth is JSON");
            check_against_truth(case, &report, &truth);
        }
        None if report.outcome == Outcome::Failed => assert!(
            report.diagnostics.iter().any(|d| d.root_cause),
            "{case}: a failure without a report must come from a root cause"
        ),
        None => {}
    }
    report
}

/// The value of attribute `name` of an XML element of a JUnit report (empty when it has none).
pub(crate) fn xml_attr(e: &quick_xml::events::BytesStart<'_>, name: &str) -> String {
    e.attributes()
        .filter_map(Result::ok)
        .find(|a| AsRef::<str>::as_ref(&a.key) == name)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })
        .unwrap_or_default()
}

/// The name of the summarizer `detect` picks for a captured log.
pub(crate) fn detected(tool: &str, case: &str) -> &'static str {
    let log = log(tool, case);
    verdict_summarizers::detect(&verdict_summarizers::sample(&log))
        .summarizer
        .name()
}

/// What every captured log of a tool must give, whichever tool: detected as its tool, read as one
/// section of it with the same report as the whole log, and not split by a shell echo in the
/// middle of it.
pub(crate) fn check_sections(tool: &str, case: &str) {
    let log = log(tool, case);
    let detection = verdict_summarizers::detect(&verdict_summarizers::sample(&log));
    let chosen = detection.summarizer.name();
    // A log with nothing in it (tsc and eslint print nothing on success) cannot name its tool; the
    // generic summarizer calls it a pass, which is the same verdict.
    let blank = log.iter().all(u8::is_ascii_whitespace);
    assert!(
        chosen == tool || blank && chosen == "generic",
        "{tool}/{case}: detected as {chosen} ({}%)",
        detection.confidence
    );

    assert_ne!(chosen, "junit", "{tool}/{case}: a log is no JUnit file");

    let reports = verdict_summarizers::summarize_all(&log);
    let tools: Vec<&str> = reports.iter().map(|r| r.tool.as_str()).collect();
    assert!(
        tools == [tool] || blank && tools == ["generic"],
        "{tool}/{case}: read as {tools:?}"
    );
    let summarizer = verdict_summarizers::by_name(tool).expect("a summarizer");
    if !blank {
        assert!(
            reports[0] == summarizer.parse(&log),
            "{tool}/{case}: the section's report differs from the whole log's"
        );
    }

    // A test that prints a shell session puts `$ command` lines in the tool's output. A log of a
    // line or two is all reporter output; its tool is told by its shape alone.
    let lines: Vec<&[u8]> = log.split_inclusive(|&b| b == b'\n').collect();
    if blank || log.first() == Some(&b'{') || lines.len() < 3 {
        return;
    }
    let mut echoed = Vec::with_capacity(log.len() + 16);
    for (i, line) in lines.iter().enumerate() {
        echoed.extend_from_slice(line);
        if i == lines.len() / 2 {
            if !line.ends_with(b"\n") {
                echoed.push(b'\n');
            }
            echoed.extend_from_slice(b"$ ls -la\n");
        }
    }
    let reports = verdict_summarizers::summarize_all(&echoed);
    let whole = summarizer.parse(&echoed);
    let got: Vec<String> = reports
        .iter()
        .map(|r| format!("{} {:?}", r.tool, r.outcome))
        .collect();
    assert!(
        reports.len() == 1 && reports[0].outcome == whole.outcome,
        "{tool}/{case}: with a shell echo {got:?}, whole log {:?}",
        whole.outcome
    );
}
