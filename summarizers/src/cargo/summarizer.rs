//! The summarizer: its name and kind, how a cargo log is recognised, and its parser.

use verdict_model::{Kind, LineParser, Summarizer};

use super::TOOL;
use super::parser::Parser;

/// Parses cargo output.
#[derive(Debug, Default, Clone, Copy)]
pub struct CargoSummarizer;

impl Summarizer for CargoSummarizer {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn kind(&self) -> Kind {
        Kind::Build
    }

    fn sniff(&self, sample: &str) -> u8 {
        // Markers no other supported tool prints: rustc's error codes with their location arrow,
        // cargo's summaries, libtest's result line and cargo's JSON messages.
        if sample.contains("could not compile `")
            || sample.contains("{\"reason\":\"compiler-")
            || (sample.contains("test result: ") && sample.contains("running "))
            || (sample.contains("error[E") && sample.contains("--> "))
        {
            return 95;
        }
        if sample.contains("   Compiling ")
            || sample.contains("    Finished `")
            || sample.contains("    Checking ")
            || sample.contains("     Running ")
        {
            return 80;
        }
        // Cargo's own errors, printed before anything is built.
        if sample.contains("` (lib) generated ")
            || sample.contains("could not find `Cargo.toml`")
            || sample.contains("--> Cargo.toml:")
            || sample.contains("failed to load manifest")
            || sample.contains("failed to parse manifest")
        {
            return 80;
        }
        // cargo could not reach its registry: nothing was built.
        if sample.contains("error: Unable to update registry `")
            || sample.contains("warning: spurious network error (")
            || (sample.contains("    Updating `") && sample.contains("` index"))
        {
            return 80;
        }
        0
    }

    fn parser(&self) -> Box<dyn LineParser> {
        Box::new(Parser::default())
    }
}
