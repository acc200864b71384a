//! The `cargo` summarizer: rustc's diagnostics, clippy's lints, libtest's results and cargo's own
//! errors, in the human format a CI log shows and in the JSON formats (`--message-format=json`,
//! libtest's `--format json`).
//!
//! What a cargo log holds, and how each part is read:
//! - rustc diagnostics: a header (`error[E0308]: mismatched types`, `warning: unused variable: `x``,
//!   `error: expected one of …` for syntax errors, which have no code), the primary location on the
//!   next line (`  --> src/x.rs:3:5`), then a code frame, `= note:` / `= help:` lines and
//!   sub-diagnostics, until a blank line. Lints carry their name only in a note
//!   (`#[warn(unused_variables)]`) or, for clippy, in the help link (`…/index.html#needless_range_loop`);
//!   that name becomes the code.
//! - cargo's summaries: `error: could not compile `pkg` (lib) due to 3 previous errors; 2 warnings
//!   emitted` and `warning: `pkg` (lib) generated 2 warnings`: the error and warning counts.
//! - libtest: `test x::y ... FAILED` lines, one `---- x::y stdout ----` block per failure with the
//!   panic (`thread 'x::y' panicked at src/x.rs:3:5:` and the message on the next lines), and one
//!   `test result: FAILED. 1 passed; 2 failed; …` line per test binary; the counts are their sum.
//!   A block holds what the test printed, whatever it looks like: a `test result:` line in it is
//!   the test's, not libtest's, and only the next block or libtest's `failures:` list ends it.
//!   Output that escapes libtest's capture (a child process writing to the inherited standard
//!   output) can still print lines that look like libtest's between the real ones, so each test
//!   binary's run (from cargo's `Running …` or `Doc-tests …` line to the next) counts only once:
//!   by its last `test result:` that agrees with its `running N tests` header, and the failures
//!   its `test x ... FAILED` lines name count only when that result has failures.
//! - A test binary that ends without its summary: cargo names it (`error: test failed, to rerun
//!   pass `--lib``) and, unless it exited with libtest's 101, says how it ended (`process didn't
//!   exit successfully: `…` (signal: 11, SIGSEGV: …)`). A crash (the code under test aborted,
//!   overflowed its stack), a test that called `process::exit(1)`, and a `harness = false` target
//!   that exited non-zero (it reports only through its output) are each one failure of that
//!   target, with what was printed last before cargo's line. A libtest binary that ended before its
//!   summary (`running 3 tests` and one `... ok`) without cargo seeing a failure (a test called
//!   `process::exit(0)`) verified nothing of its remaining tests: the run is errored.
//!
//!   cargo's lines are on standard error and libtest's on standard output, and a log that drains
//!   both pipes at once may interleave them out of order: a test binary's run is therefore read
//!   from libtest's lines alone (`running N tests` to the next), and cargo's from cargo's.
//! - cargo's own errors (an invalid manifest, a missing `Cargo.toml`, a dependency that cannot be
//!   loaded) come before anything is compiled: nothing was verified, so the run is errored.
//!
//! The parser is split by phase, one file a job:
//! - `summarizer.rs`: the [`CargoSummarizer`], and how a cargo log is recognised;
//! - `parser.rs`: the parser's state and tally, and the order each line is offered to the steps;
//! - `compiler.rs`: rustc's diagnostics and cargo's own messages, summaries and errors;
//! - `libtest.rs`: libtest's runs, results, failure blocks and failed targets;
//! - `panic.rs`: a test's panic, from a block or loose output (nextest's reader uses it too);
//! - `json.rs`: cargo's and libtest's JSON formats;
//! - `summary.rs`: the end of the log: the counts and the outcome.

mod compiler;
mod json;
mod libtest;
mod panic;
mod parser;
mod summarizer;
mod summary;
#[cfg(test)]
mod tests;

pub(crate) use panic::Panic;
pub use summarizer::CargoSummarizer;

const TOOL: &str = "cargo";
/// The longest detail kept (expected/found, the panic message's extra lines).
const MAX_DETAIL: usize = 200;
/// The longest message kept.
const MAX_MESSAGE: usize = 300;
/// How many failing test names are remembered to report the ones that printed no failure block.
const MAX_TESTS: usize = 10_000;
