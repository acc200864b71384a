//! The `verdict` binary: the command line over verdict's core and summarizers.
//!
//! **Invariant:** only this crate prints to stdout or stderr, and only this crate decides exit
//! codes:
//! - 0: the log shows a pass;
//! - 1: it shows failures in the code (including code that does not compile and test files that
//!   cannot load);
//! - 2: nothing could be verified (the tool's config is invalid, it crashed, it ran no test, the
//!   log shows a failure that cannot be parsed), or verdict's own command line is wrong.

mod summarize;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code when nothing could be verified or the command line is wrong.
const EXIT_ERROR: u8 = 2;

const ABOUT: &str =
    "Turn the output of code verifiers into a short, exact digest for coding agents and CI";

const EXAMPLES: &str = "\
Examples:
  npx tsc --noEmit 2>&1 | verdict summarize
  verdict summarize --tool pytest --budget 300 pytest.log
  cargo test 2>&1 | verdict summarize --format json

Exit codes:
  0  the log shows a pass
  1  the log shows failures in the code (errors, failing tests, test files that cannot load)
  2  nothing could be verified (invalid config, a crash, no tests ran, an unparseable failure)
     or the command line is wrong";

#[derive(Parser)]
#[command(name = "verdict", version, about = ABOUT, after_help = EXAMPLES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Summarize a verifier's log into a token-budgeted digest.
    Summarize(summarize::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            // clap prints help and version to stdout with success, usage errors to stderr with 2.
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { EXIT_ERROR } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Summarize(args) => summarize::run(&args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(io::stderr(), "verdict: error: {error:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// A reader of our output went away (`verdict … | head`): not an error, as in ripgrep.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<io::Error>())
        .any(|e| e.kind() == io::ErrorKind::BrokenPipe)
}
