//! The summarizer of each tool format: pure parsers from raw output to a [`Report`].
//!
//! One module per format. Each implements [`Summarizer`] for the human-readable output a CI log
//! shows (and, where a tool has one, its machine-readable output too). [`all`] lists them in a fixed
//! order, [`by_name`] finds one for `--tool`, and [`detect`] picks one from a sample of the log.
//!
//! **Invariant:** nothing here runs a process or touches the file system; every parser is a pure
//! function of the text it is fed.

pub mod cargo;
pub mod ending;
pub mod eslint;
pub mod generic;
pub mod jest;
pub mod jest_json;
pub mod junit;
pub mod mocha;
pub mod mypy;
pub mod nextest;
pub mod node_test;
pub mod pyright;
pub mod pytest;
pub mod ruff;
pub mod sections;
pub mod tap;
pub mod tsc;
pub mod unittest;
pub mod vitest;

mod document;
mod js_test;
mod tap_stream;
mod text;
mod unittest_verbose;

use ending::Checked;
use verdict_model::{Report, Summarizer};

/// Every summarizer, the generic fallback last, each behind the check of how the log ended
/// ([`ending::Checked`]).
pub fn all() -> &'static [&'static dyn Summarizer] {
    static ALL: [&dyn Summarizer; 16] = [
        &Checked(junit::JunitSummarizer),
        &Checked(tsc::TscSummarizer),
        &Checked(mypy::MypySummarizer),
        &Checked(eslint::EslintSummarizer),
        &Checked(ruff::RuffSummarizer),
        &Checked(pyright::PyrightSummarizer),
        &Checked(jest::JestSummarizer),
        &Checked(vitest::VitestSummarizer),
        &Checked(mocha::MochaSummarizer),
        &Checked(nextest::NextestSummarizer),
        &Checked(cargo::CargoSummarizer),
        &Checked(pytest::PytestSummarizer),
        &Checked(node_test::NodeTestSummarizer),
        &Checked(tap::TapSummarizer),
        &Checked(unittest::UnittestSummarizer),
        GENERIC,
    ];
    &ALL
}

/// The generic fallback, behind the same check.
const GENERIC: &dyn Summarizer = &Checked(generic::GenericSummarizer);

/// The names `--tool` accepts, in [`all`]'s order.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|s| s.name()).collect()
}

/// The summarizer called `name`.
pub fn by_name(name: &str) -> Option<&'static dyn Summarizer> {
    all().iter().copied().find(|s| s.name() == name)
}

/// The least confidence at which a specific summarizer is preferred over the generic one.
pub const MIN_CONFIDENCE: u8 = 30;

/// What [`detect`] chose and how sure it was.
#[derive(Clone, Copy)]
pub struct Detection {
    /// The summarizer chosen (the generic one when no other was sure enough).
    pub summarizer: &'static dyn Summarizer,
    /// Its confidence, 0–100.
    pub confidence: u8,
}

/// Picks the summarizer for a log from a sample of its cleaned text (see
/// [`verdict_model::lines::clean`]). Ties go to the earlier summarizer in [`all`], so the choice is
/// deterministic.
pub fn detect(sample: &str) -> Detection {
    let mut best = Detection {
        summarizer: GENERIC,
        confidence: 0,
    };
    for summarizer in all() {
        if summarizer.name() == "generic" {
            continue;
        }
        let confidence = summarizer.sniff(sample).min(100);
        if confidence > best.confidence {
            best = Detection {
                summarizer: *summarizer,
                confidence,
            };
        }
    }
    if best.confidence < MIN_CONFIDENCE {
        best.summarizer = GENERIC;
    }
    best
}

/// Parses `log` with the summarizer [`detect`] picks from its start and end. For logs held in
/// memory; the CLI streams large inputs instead.
pub fn summarize(log: &[u8]) -> Report {
    let mut report = detect(&sample(log)).summarizer.parse(log);
    report.redact();
    report
}

/// Parses `log` into one report per tool run it holds, in the order of the log. For logs held in
/// memory, like [`summarize`].
pub fn summarize_all(log: &[u8]) -> Vec<Report> {
    sections::summarize_all(log)
}

/// The cleaned sample [`detect`] is shown for a log held in memory: its first [`SAMPLE_BYTES`], and
/// its last [`SAMPLE_BYTES`] when it is longer (summary lines come last).
pub fn sample(log: &[u8]) -> String {
    if log.len() <= 2 * SAMPLE_BYTES {
        return verdict_model::lines::clean(log);
    }
    let mut text = verdict_model::lines::clean(&log[..SAMPLE_BYTES]);
    text.push_str(&verdict_model::lines::clean(
        &log[log.len() - SAMPLE_BYTES..],
    ));
    text
}

/// How much of the start of a log (and of its end, when it can be read) [`detect`] is shown.
pub const SAMPLE_BYTES: usize = 256 * 1024;
