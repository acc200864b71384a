//! The digest: Reports → the short text a coding agent receives (being written; see issue 2).

use crate::model::Report;

/// Default token budget of a digest.
pub const DEFAULT_BUDGET: usize = 500;

/// How to build a digest.
#[derive(Debug, Clone)]
pub struct Options {
    /// Hard limit in tokens (o200k); the digest never exceeds it.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// The text.
    pub text: String,
    /// Its size in tokens.
    pub tokens: usize,
}

/// Builds the digest of `inputs`.
pub fn render(inputs: &[Input<'_>], options: &Options) -> Digest {
    let _ = options;
    let text = inputs
        .iter()
        .map(|i| format!("{}: {}", i.report.tool, i.report.outcome.as_str()))
        .collect::<Vec<_>>()
        .join("\n");
    Digest { tokens: 0, text }
}
