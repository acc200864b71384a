//! The `vitest` summarizer (being written; see issue 2).

use verdict_core::{Kind, LineParser, Outcome, Report, Summarizer};

/// Parses vitest output.
#[derive(Debug, Default, Clone, Copy)]
pub struct VitestSummarizer;

impl Summarizer for VitestSummarizer {
    fn name(&self) -> &'static str {
        "vitest"
    }

    fn kind(&self) -> Kind {
        Kind::Custom
    }

    fn sniff(&self, _sample: &str) -> u8 {
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser)
    }
}

struct Parser;

impl LineParser for Parser {
    fn line(&mut self, _line: &str) {}

    fn finish(self: Box<Self>) -> Report {
        Report::new("vitest", Outcome::Passed)
    }
}
