//! The `tap` summarizer: any TAP stream (TAP 13 and 14) of a test runner that has no summarizer
//! of its own — node-tap (`tap`), tape, and any other TAP producer.
//!
//! The stream is read by [`crate::tap_stream`]: each failing test point named by the subtests
//! or the `# name` comment around it and placed by its YAML block, a parent whose subtests failed
//! not counted again. The counts are the tool's totals (node-tap's `# { total: 9, pass: 4, fail:
//! 3, todo: 1, skip: 1 }`, tape's `# pass 7` / `# fail 3`); a producer that prints none is counted
//! from its test points, those with no subtests, and a note says so. A stream is complete with
//! its top-level plan (`1..N`) and that many top-level test points: one that bailed out (`Bail
//! out!`), ended before its plan, or reported fewer points than planned is no pass. An error
//! thrown out of the runner after the stream began (tape stops at a test's uncaught exception:
//! `TypeError: …` and its stack) is a failure of that test, placed at its first frame outside
//! `node_modules`.

use verdict_model::{
    Diagnostic, Evidence, Kind, LineParser, Outcome, Report, Severity, Summarizer,
};

use crate::tap_stream::{Names, Tap};
use crate::text::clip;

const TOOL: &str = "tap";
const MAX_MESSAGE: usize = 300;
/// The lines after an uncaught error in which its stack is looked for.
const MAX_STACK_LINES: u32 = 30;

/// The summarizer for TAP streams.
#[derive(Debug, Default, Clone, Copy)]
pub struct TapSummarizer;

impl Summarizer for TapSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        let mut version = false;
        let mut plan = false;
        let mut points = 0u32;
        for line in sample.lines() {
            if line.starts_with("TAP version 13") || line.starts_with("TAP version 14") {
                version = true;
            } else if line.starts_with("1..") && line[3..].starts_with(|c: char| c.is_ascii_digit())
            {
                plan = true;
            } else {
                // A top-level test point, or a subtest's.
                let point = line.strip_prefix("    ").unwrap_or(line);
                if point.starts_with("ok ") || point.starts_with("not ok ") {
                    points += 1;
                }
            }
        }
        match (version, plan, points) {
            (true, _, 1..) => 80,
            (true, _, 0) => 50,
            (false, true, 2..) => 50,
            _ => 0,
        }
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser {
            report: Report::new(TOOL, Outcome::Passed),
            tap: Tap::new(TOOL, Names::Nested),
            crash: None,
            crashed: false,
        })
    }
}

/// An error thrown out of the runner whose stack is being read.
struct Crash {
    message: String,
    /// The test running when it was thrown.
    test: Option<String>,
    lines: u32,
}

struct Parser {
    report: Report,
    tap: Tap,
    crash: Option<Crash>,
    /// Whether an error was thrown out of the runner.
    crashed: bool,
}

impl Parser {
    /// Reports the error thrown out of the runner, at `place` when its stack gave one.
    fn finish_crash(&mut self, place: Option<(String, u32, Option<u32>)>) {
        let Some(crash) = self.crash.take() else {
            return;
        };
        let mut diagnostic = Diagnostic::new(
            TOOL,
            Kind::Test,
            Severity::Error,
            clip(&crash.message, MAX_MESSAGE),
        )
        .with_detail("thrown out of the test runner, which stopped");
        if let Some(test) = crash.test {
            diagnostic = diagnostic.with_test(test);
        }
        if let Some((file, line, column)) = place {
            diagnostic = diagnostic.at(file, Some(line), column);
        }
        self.crashed = true;
        self.report.push(diagnostic);
    }
}

/// `TypeError: x`, `Error: x`, `AssertionError [ERR_ASSERTION]: x`: an error as Node.js prints
/// one it was not given to catch.
fn is_uncaught(line: &str) -> bool {
    let Some((name, _)) = line.split_once(':') else {
        return false;
    };
    let name = name.split(" [").next().unwrap_or(name);
    name.ends_with("Error") && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '.')
}

impl LineParser for Parser {
    fn line(&mut self, line: &str) {
        if let Some(crash) = self.crash.as_mut() {
            crash.lines += 1;
            if let Some(frame) = line.trim_start().strip_prefix("at ")
                && !frame.contains("node_modules")
                && let Some(place) = frame_place(frame)
            {
                self.finish_crash(Some(place));
                return;
            }
            if crash.lines > MAX_STACK_LINES {
                self.finish_crash(None);
            }
            return;
        }
        if self.tap.line(line, &mut self.report) {
            return;
        }
        if self.tap.seen && is_uncaught(line) {
            self.crash = Some(Crash {
                message: line.trim().to_owned(),
                test: self.tap.current_test(),
                lines: 0,
            });
        }
    }

    fn finish(mut self: Box<Self>) -> Report {
        self.tap.close(&mut self.report);
        self.finish_crash(None);
        let tap = &self.tap;
        let mut report = std::mem::replace(&mut self.report, Report::new(TOOL, Outcome::Passed));
        let (passed, failed, skipped) = tap.leaves;
        if tap.pass.is_some() || tap.fail.is_some() {
            report.counts.tests_passed = tap.pass;
            report.counts.tests_failed = tap.fail;
            report.counts.tests_skipped = tap.skipped;
        } else if passed + failed + skipped > 0 {
            report.counts.tests_passed = Some(passed);
            report.counts.tests_failed = Some(failed + u64::from(self.crashed));
            report.counts.tests_skipped = Some(skipped);
            report.note(
                "the TAP producer printed no totals: the counts are its test points that have \
                 no subtests (and the test an uncaught error stopped)",
            );
        }
        if tap.top_points > 0 {
            report.saw(Evidence::Checked);
        }
        let unfinished = if let Some(reason) = &tap.bailed {
            Some(if reason.is_empty() {
                "the TAP stream bailed out (`Bail out!`)".to_owned()
            } else {
                format!("the TAP stream bailed out: {reason}")
            })
        } else if self.crashed {
            Some("the test runner stopped at an uncaught error".to_owned())
        } else {
            match tap.plan {
                None => Some(
                    "the TAP stream ended before its plan (`1..N`): the run did not finish"
                        .to_owned(),
                ),
                Some(plan) if plan > tap.top_points => Some(format!(
                    "the TAP plan promised {plan} tests and {} were reported",
                    tap.top_points
                )),
                Some(_) => None,
            }
        };
        let named = tap.failures > 0 || self.crashed;
        report.outcome = if named {
            if let Some(unfinished) = unfinished {
                report.note(unfinished);
            }
            Outcome::Failed
        } else if !tap.seen {
            report.error =
                Some("the log holds no TAP stream (`TAP version`, `ok`, `1..N`)".to_owned());
            Outcome::Errored
        } else if let Some(unfinished) = unfinished {
            report.error = Some(unfinished);
            Outcome::Errored
        } else if let Some(n) = tap.fail.filter(|n| *n > 0) {
            report.error = Some(format!(
                "the TAP totals count {n} failing tests, and the stream names none"
            ));
            Outcome::Errored
        } else {
            Outcome::Passed
        };
        report
    }
}

/// The place of a stack frame: `Test.<anonymous> (/app/test/a.js:11:5)` or `/app/test/a.js:11:5`.
fn frame_place(frame: &str) -> Option<(String, u32, Option<u32>)> {
    crate::tap_stream::frame_place(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(log: &str) -> Report {
        TapSummarizer.parse(log.as_bytes())
    }

    #[test]
    fn a_parent_whose_subtests_failed_is_not_counted_again() {
        let report = parse(
            "TAP version 14\n1..1\n# Subtest: outer\n    # Subtest: inner\n        not ok 1 - sums\n          ---\n          at:\n            fileName: test/a.test.js\n            lineNumber: 5\n          ...\n        1..1\n    not ok 1 - inner\n    1..1\nnot ok 1 - outer\n# { total: 1, pass: 0, fail: 1 }\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics.len(), 1);
        let d = &report.diagnostics[0];
        assert_eq!(d.test.as_deref(), Some("outer > inner > sums"));
        assert_eq!(d.message, "test failed");
        assert_eq!(d.location().as_deref(), Some("test/a.test.js:5"));
        assert_eq!(report.counts.tests_failed, Some(1));
        assert_eq!(report.counts.tests_passed, Some(0));
    }

    #[test]
    fn a_failing_parent_with_passing_subtests_is_a_failure() {
        let report = parse(
            "TAP version 14\n# Subtest: a.js\n    ok 1 - fine\n    1..1\nnot ok 1 - a.js\n1..1\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        assert_eq!(report.diagnostics.len(), 1);
        assert_eq!(report.counts.tests_failed, Some(0));
    }

    /// Older node-tap's buffered subtests come after their parent's point, between `{` and `}`.
    #[test]
    fn a_buffered_parent_is_counted_only_for_a_failure_of_its_own() {
        let report = parse(
            "TAP version 13\nnot ok 1 - test/a.js # time=3ms {\n    not ok 1 - sums\n    1..1\n}\n\nnot ok 2 - test/b.js # time=2ms {\n    ok 1 - fine\n    1..1\n}\n\n1..2\n",
        );
        assert_eq!(report.outcome, Outcome::Failed);
        let tests: Vec<&str> = report
            .diagnostics
            .iter()
            .filter_map(|d| d.test.as_deref())
            .collect();
        assert_eq!(tests, ["sums", "test/b.js"]);
        assert_eq!(report.counts.tests_failed, Some(1));
        assert_eq!(report.counts.tests_passed, Some(1));
    }

    #[test]
    fn an_unfinished_stream_is_no_pass() {
        assert_eq!(
            parse("TAP version 13\nok 1 - a\n").outcome,
            Outcome::Errored
        );
        assert_eq!(
            parse("TAP version 13\n1..3\nok 1 - a\n").outcome,
            Outcome::Errored
        );
        let report = parse("TAP version 13\n1..2\nok 1 - a\nBail out! database is down\n");
        assert_eq!(report.outcome, Outcome::Errored);
        assert!(report.error.is_some_and(|e| e.contains("database is down")));
        assert_eq!(
            parse("TAP version 13\n1..1\nok 1 - a\n").outcome,
            Outcome::Passed
        );
        assert_eq!(parse("").outcome, Outcome::Errored);
    }

    #[test]
    fn totals_in_every_shape() {
        let report = parse(
            "TAP version 13\n# a\nok 1 x\nnot ok 2 y # TODO later\n\n1..2\n# tests 2\n# pass  2\n\n# ok\n",
        );
        assert_eq!(report.outcome, Outcome::Passed);
        assert_eq!(report.counts.tests_passed, Some(2));
        let report = parse("TAP version 13\nok 1 x\n1..1\n# total 191, pass 187, fail 0\n");
        assert_eq!(report.counts.tests_passed, Some(187));
        assert_eq!(report.counts.tests_failed, Some(0));
        // A tape test named like a total, before the plan, is a test's name.
        let report = parse(
            "TAP version 13\n# fail 2\nnot ok 1 should be equal\n1..1\n# tests 1\n# pass  0\n# fail  1\n",
        );
        assert_eq!(report.counts.tests_failed, Some(1));
        assert_eq!(
            report.diagnostics[0].test.as_deref(),
            Some("fail 2 > should be equal")
        );
    }

    #[test]
    fn garbage_does_not_panic() {
        for log in [
            "TAP version 13\nnot ok",
            "ok",
            "1..",
            "# {",
            "Error:",
            "TAP version 14\nnot ok 1 -\n  ---\n  at:\n",
            "TAP version 13\nTypeError: x\n    at (",
        ] {
            let _ = parse(log);
        }
    }
}
