//! The digest: Reports → the short text a coding agent receives, within a hard token budget.
//!
//! A digest answers, in a few hundred tokens, "what is wrong and where do I start":
//!
//! ```text
//! tsc: 42 errors in 9 files
//!   src/db.ts:1:20 TS2307 Cannot find module './pool' or its corresponding type declarations.
//!   TS2304 Cannot find name 'foo' ×12 in 4 files: src/a.ts:3, src/b.ts:7, src/c.ts:1, src/d.ts:9
//!   src/api.ts:10:5 TS2345 Argument of type 'string' is not assignable to parameter of type 'number'.
//!   … and 28 more errors in 6 files: src/x.ts, src/y.ts, src/z.ts, src/w.ts, …
//! jest: 3 failed, 12 passed (1 suite failed to run)
//!   src/cart.test.ts — Test suite failed to run: Cannot find module './cart'
//!   cart › adds items — src/cart.test.ts:14 — expect(received).toBe(expected): Expected: 3; Received: 4
//!   … and 2 more failed tests in 1 file: src/price.test.ts
//! eslint: no errors
//! 231/500 tokens · 28 errors, 2 failed tests not shown · full logs: tsc .verdict/tsc.log, jest .verdict/jest.log
//! ```
//!
//! - One headline per failed or errored report, with the tool's own counts ([`crate::Counts`]);
//!   when the tool printed none, counts of the diagnostics, said to be verdict's.
//! - Then items, most actionable first ([`plan`]): root causes, the first error of each file, the
//!   other errors, and only then warnings. Identical messages in several places are one line.
//! - An exact tail under each report for what did not fit, and a last line with the tokens used,
//!   what was left out in all and where the full log is: nothing is dropped silently.
//! - Passing reports get one line each.
//! - Every line is redacted ([`redact`]) before it is counted, and the whole is counted with a real
//!   tokenizer ([`tokens`]); [`fit`] never lets it exceed the budget, degrading gracefully (fewer
//!   items, tails without names, a bare footer, headlines only, a cut headline) as it shrinks.
//! - The same input always gives the same digest: nothing depends on hash order or time.
//!
//! **Invariant:** the digest knows no tool by name: it reads only the model's fields.

mod fit;
mod lines;
mod plan;
pub mod redact;
mod text;
pub mod tokens;

#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::model::Report;

/// Default token budget of a digest.
pub const DEFAULT_BUDGET: usize = 500;

/// How to build a digest.
#[derive(Debug, Clone)]
pub struct Options {
    /// Hard limit in tokens (o200k_base, see [`tokens`]); the digest never exceeds it.
    pub budget: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget: DEFAULT_BUDGET,
        }
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

/// A built digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Digest {
    /// The text, lines separated by `\n`, without a final newline.
    pub text: String,
    /// Its size in tokens (o200k_base); never more than `budget`.
    pub tokens: usize,
    /// The budget it was built for.
    pub budget: usize,
    /// The failures of failed and errored reports the text shows.
    pub shown: Tally,
    /// The failures of failed and errored reports the text leaves out (the tail and the last line
    /// say how many; this is the same number for programs).
    pub omitted: Tally,
    /// Files holding diagnostics that were left out, summed over reports.
    pub omitted_files: u64,
    /// Whether the budget was too small even for the headlines and footer, so that the digest is
    /// only headlines, possibly cut (it then says so).
    pub cut: bool,
}

/// Numbers of failures, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
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
    let plans: Vec<plan::Plan<'_>> = inputs
        .iter()
        .map(|input| plan::Plan::new(input.report, input.log))
        .collect();
    fit::fit(&plans, options.budget)
}
