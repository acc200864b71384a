//! The digest: Reports → the short text a coding agent receives, within a hard token budget.
//!
//! A digest answers, in a few hundred tokens, "what is wrong and where do I start" (here three
//! failing verifiers and two passing ones, in 500 tokens):
//!
//! ```text
//! tsc: 41 errors in 18 files
//!   src/db/index.ts:1:5 TS2307 Cannot find module './pool' or its corresponding type declarations.
//!   TS2304 Cannot find name 'foo'. ×10 (3 variants) in 5 files, first src/a.ts:3:5, src/a.ts:10:5, src/b.ts:4:5, …
//!   src/feature0/handler.ts:20:5 TS2345 Argument of type '{ id: string; name0: string; }' is not …
//!   … and 28 more errors in 12 files: src/feature2/handler.ts, src/feature3/handler.ts, …
//! jest: 3 failed, 12 passed (1 suite failed to run)
//!   src/checkout.test.ts Test suite failed to run: Cannot find module './checkout' from '…'
//!   expect(received).toBe(expected): Expected: 3, Received: 4 ×2 (2 variants) in 2 files: src/cart.test.ts:14, src/price.test.ts:8
//!   … and 1 more failed test in 1 file: src/cart.test.ts
//! eslint: 3 errors, 7 warnings in 3 files
//!   no-undef 'process' is not defined. ×2 in 2 files: src/app.ts:40:5, src/server.ts:1:1
//!   src/util.ts:9:5 eqeqeq Expected '===' and instead saw '=='.
//!   … and 7 more warnings in 2 files: src/app.ts, src/util.ts
//! pytest: 128 passed
//! cargo: no errors
//! 483/500 tokens · 28 errors, 1 failed test, 7 warnings not shown · full logs in .verdict/logs/: tsc.log, jest.log, eslint.log
//! ```
//!
//! - One headline per failed or errored report, with the tool's own counts ([`crate::Counts`]);
//!   when the tool printed none, counts of the diagnostics, said to be verdict's. Paths are shown
//!   relative to the project ([`Options::project`]), in places and in messages; absolute paths
//!   outside it are shown relative to the directory they share, stated once in the headline.
//! - Then items, most actionable first: root causes, the report's first ten errors and the first
//!   error of each file, the other errors, and only then warnings; across reports, tier by tier,
//!   taking the reports in turn.
//! - Messages of one shape — the same code (or rule) and words, differing at most in quoted
//!   values, numbers and identifiers — are one line, failing tests by the shape of their assertion
//!   alike: the first message, how many there are and how many distinct messages (`×10 (3
//!   variants)`), how many files, and where to start: the first places in the tool's order, as
//!   many as the budget allows (`first src/a.ts:3:5, …`), or all of them (`in 2 files: …`). When
//!   everything is shown and room is left, such a group unfolds: a group of failing tests into
//!   one line per test, else into one line per distinct message, as the tool worded each; a group
//!   that stays lists its tests by name beside their places as far as the room left goes
//!   (`ZeroDivisionError: division by zero ×2: test_div (tests/test_ops.py:13), test_mean
//!   (tests/test_ops.py:17)`). So every failing test is named while the budget allows, and
//!   grouping hides names only when listing does not fit. A single failing test is `name —
//!   file:line — reason`, an error `file:line:col CODE message`.
//! - A failure that several reports hold (a compile error from `cargo check`, clippy and `cargo
//!   test`; a type error from tsc and from a build script running tsc) is shown once, under the
//!   first of them, with `(also failed clippy, cargo-test on this)`; each later report keeps its
//!   headline, the tool's counts, and says `the same as cargo-check: 2 errors` (`shared`).
//! - An exact tail under each report for what did not fit, naming first the files no line above
//!   names, and a last line with the tokens used, what was left out in all and where the full
//!   log is: nothing is dropped silently. [`Digest`] carries the same numbers for programs.
//! - Passing reports get one line each.
//! - A note the caller gives ([`render_with_note`]: what the run did not verify) comes last,
//!   within the same budget.
//! - Every line is redacted ([`redact`]) before it is counted, and counted with a real tokenizer
//!   ([`tokens`]); the digest never exceeds its budget, and degrades step by step as the budget
//!   shrinks: fewer and shorter items, tails that count files instead of naming them, a footer
//!   without the token count and then without the log, the headlines alone, then one line with each
//!   failing verifier's main number, cut with a visible `(cut)` if even that does not fit.
//! - The same input always gives the same digest: nothing shown depends on hash order or time.
//!   Grouping is one pass over each message and a sort: a report of 100 000 diagnostics costs
//!   no more than reading them.
//!
//! **Invariant:** the digest knows no tool by name: it reads only the model's fields.

mod fit;
mod lines;
mod plan;
pub use crate::redact;
mod shared;
mod text;
pub use verdict_tokens as tokens;

#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::model::{Report, Verification};

/// Default token budget of a digest.
pub const DEFAULT_BUDGET: usize = 500;

/// How to build a digest.
#[derive(Debug, Clone)]
pub struct Options {
    /// Hard limit in tokens (o200k_base, see [`tokens`]); the digest never exceeds it.
    pub budget: usize,
    /// The project verified, as the absolute directories (each ending with a separator) its
    /// tools may name it by: the path given and the path with symbolic links resolved. Paths
    /// under it are shown relative to it, those beside it with `../`, in places and in
    /// messages alike. Empty when the project is not known (a log from elsewhere): absolute paths
    /// are then shown relative to the directory they share.
    pub project: Vec<String>,
}

impl Options {
    /// Options for a digest of at most `budget` tokens, its project not known.
    pub fn new(budget: usize) -> Options {
        Options {
            budget,
            project: Vec::new(),
        }
    }

    /// These options with `dir` as the project whose paths are shown relative to it, under each
    /// spelling a tool may print it by; a relative `dir` is taken from the working directory.
    pub fn in_project(mut self, dir: &std::path::Path) -> Options {
        let absolute = std::path::absolute(dir).ok();
        let canonical = std::fs::canonicalize(dir).ok();
        for spelling in absolute.iter().chain(&canonical) {
            let mut text = spelling.to_string_lossy().into_owned();
            if !text.ends_with(std::path::MAIN_SEPARATOR) {
                text.push(std::path::MAIN_SEPARATOR);
            }
            // The root directory itself is no project to shorten paths by.
            if text.len() > 1 && !self.project.contains(&text) {
                self.project.push(text);
            }
        }
        self
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::new(DEFAULT_BUDGET)
    }
}

/// One report and where its full log is.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The report.
    pub report: &'a Report,
    /// Where the full log is, to name in the last line.
    pub log: Option<&'a str>,
}

impl<'a> Input<'a> {
    /// A verifier's report with the path of its log, when it has one.
    pub fn of(verification: &'a Verification) -> Input<'a> {
        Input {
            report: &verification.report,
            log: verification.log.as_deref().filter(|log| !log.is_empty()),
        }
    }
}

/// A built digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Digest {
    /// The text, lines separated by `\n`, without a final newline.
    pub text: String,
    /// Its size in tokens (o200k_base); never more than `budget`.
    pub tokens: usize,
    /// The budget it was built for.
    pub budget: usize,
    /// The failures of failed and errored reports the text shows. A failure several reports
    /// hold, shown once under the first, counts as shown in each of them.
    pub shown: Tally,
    /// The failures of failed and errored reports the text leaves out (the tail and the last line
    /// say how many; this is the same number for programs).
    pub omitted: Tally,
    /// Failing files the text counts without naming them, summed over reports: those holding
    /// diagnostics left out (the tails count them), and those a group counts beyond the places it
    /// lists.
    pub omitted_files: u64,
    /// Whether the budget was too small even for the headlines and footer, so that the digest is
    /// only headlines, possibly cut (it then says so).
    pub cut: bool,
}

/// Numbers of failures, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Tally {
    /// Errors other than failing tests: compiler and linter errors, test files that do not load.
    pub errors: u64,
    /// Failing tests.
    pub failed_tests: u64,
    /// Warnings and notes.
    pub warnings: u64,
    /// Findings the parser counted beyond what it keeps, when the tool printed no totals: their
    /// kind is unknown.
    pub other: u64,
}

impl Tally {
    /// Whether all numbers are zero.
    pub fn is_zero(&self) -> bool {
        self.total() == 0
    }

    /// The sum of all numbers.
    pub fn total(&self) -> u64 {
        self.errors
            .saturating_add(self.failed_tests)
            .saturating_add(self.warnings)
            .saturating_add(self.other)
    }

    fn saturating_sub(self, other: Tally) -> Tally {
        Tally {
            errors: self.errors.saturating_sub(other.errors),
            failed_tests: self.failed_tests.saturating_sub(other.failed_tests),
            warnings: self.warnings.saturating_sub(other.warnings),
            other: self.other.saturating_sub(other.other),
        }
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        // Counts come from the input, which may hold any number: saturate rather than overflow.
        self.errors = self.errors.saturating_add(other.errors);
        self.failed_tests = self.failed_tests.saturating_add(other.failed_tests);
        self.warnings = self.warnings.saturating_add(other.warnings);
        self.other = self.other.saturating_add(other.other);
    }
}

/// Builds the digest of `inputs`, in their order, within `options.budget` tokens.
pub fn render(inputs: &[Input<'_>], options: &Options) -> Digest {
    let reports: Vec<&Report> = inputs.iter().map(|input| input.report).collect();
    let plans: Vec<plan::Plan<'_>> = inputs
        .iter()
        .zip(shared::find(&reports))
        .map(|(input, shared)| {
            plan::Plan::with_shared(input.report, input.log, shared, &options.project)
        })
        .collect();
    fit::fit(&plans, options.budget)
}

/// [`render`] with `note` — one line the caller gives, such as what the run did not verify —
/// after the rest, redacted, within the same budget: the note takes at most a quarter of it
/// (clipped visibly beyond), the reports the remainder. The footer's token count is the whole
/// text's.
pub fn render_with_note(inputs: &[Input<'_>], options: &Options, note: &str) -> Digest {
    let note = redact::redact(&note.replace(['\n', '\r'], " ")).into_owned();
    let note = tokens::clip(&note, (options.budget / 4).max(1)).into_owned();
    // Its own tokens, the newline before it, and one for the footer's count growing a digit.
    let cost = tokens::count(&note) + 2;
    let Some(rest) = options.budget.checked_sub(cost).filter(|rest| *rest > 0) else {
        return render(inputs, options);
    };
    let rest_options = Options {
        budget: rest,
        project: options.project.clone(),
    };
    let mut digest = render(inputs, &rest_options);
    let footer = format!("{}/{rest} tokens", digest.tokens);
    let mut text = format!("{}\n{note}", digest.text);
    if digest.text.contains(&footer) {
        // The count changes the text it counts: settle it in a few rounds (one, nearly always).
        let mut used = digest.tokens + cost;
        for _ in 0..3 {
            text = format!(
                "{}\n{note}",
                digest
                    .text
                    .replacen(&footer, &format!("{used}/{} tokens", options.budget), 1)
            );
            let counted = tokens::count(&text);
            if counted == used {
                break;
            }
            used = counted;
        }
    }
    digest.tokens = tokens::count(&text);
    digest.text = text;
    digest.budget = options.budget;
    digest
}
