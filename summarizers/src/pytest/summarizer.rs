//! The summarizer: its name and kind, how a pytest log is recognised, and its parser.

use verdict_model::{Kind, LineParser, Summarizer};

use super::TOOL;
use super::lines::{final_counts, is_report_banner};
use super::parser::Parser;

/// Parses pytest output.
#[derive(Debug, Default, Clone, Copy)]
pub struct PytestSummarizer;

impl Summarizer for PytestSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn sniff(&self, sample: &str) -> u8 {
        if sample.contains(" test session starts ")
            || sample.contains("short test summary info")
            || sample.contains("ImportError while loading conftest")
            || sample.contains("ERROR: usage: pytest")
            || (sample.contains("platform ") && sample.contains(", pytest-"))
        {
            return 95;
        }
        if sample.contains("INTERNALERROR> ") {
            return 90;
        }
        // The report's own banners, seen without the session's header: what follows the closing
        // line of a run that prints its summary first, or a log cut above them.
        if sample.lines().take(5_000).any(is_report_banner) {
            return 70;
        }
        // `-q` prints little more than the closing line.
        if sample
            .lines()
            .rev()
            .take(20)
            .any(|l| final_counts(l).is_some())
        {
            return 60;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}
