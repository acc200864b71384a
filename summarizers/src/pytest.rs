//! The `pytest` summarizer: pytest's terminal report in any verbosity (`-q`, default, `-v`) and
//! traceback style (`--tb=auto|long|short|line|native|no`).
//!
//! A pytest log is read by its sections, each opened by a `=== title ===` rule:
//! - `ERRORS` and `FAILURES` hold one block per problem, opened by a `___ title ___` rule: a
//!   failing test (`test_x`, `TestK.test_m`, `test_x[1-2]`), an error in a fixture (`ERROR at setup
//!   of test_x`), a test file that cannot be imported (`ERROR collecting tests/test_x.py`). In a
//!   block, `E   …` lines hold the exception (the last group of them is the one raised) and the
//!   traceback entries give the places (`tests/test_x.py:12: AssertionError`, `tests/test_x.py:12:
//!   in test_y`, `File "…/tests/test_x.py", line 12, in test_y`). With `--tb=line` there are no
//!   blocks, one `/abs/tests/test_x.py:12: assert …` line per failure instead.
//! - `short test summary info` names each failure by its node id (`FAILED tests/test_x.py::test_y -
//!   AssertionError: …`); the blocks only show the short name, so the two are joined at the end.
//! - the closing line (`=== 2 failed, 5 passed, 1 skipped in 0.12s ===`, undecorated with `-q`)
//!   holds the counts.
//!
//! A run that never ran a test is errored: no tests collected (exit 5), a usage error, an
//! `INTERNALERROR`. A conftest that fails to import and test files that fail to collect are the
//! code failing to load: failed, with the import or syntax error as the root cause. A log without
//! its closing line otherwise never passes: it was cut or pytest died, so it is errored, keeping
//! the failures it shows and naming the test `-v` printed last without a result.
//!
//! Several runs in one log (a session rule each, or `-q` runs told apart by their progress lines)
//! have their counts added up. A log quoted as an indented block (pytest's own documentation, a
//! Markdown list item) is read without its indentation, from an indented session rule or `$
//! pytest` prompt to the first line outside it. Windows tracebacks' `\` paths are read with `/`,
//! as node ids name them; pytest before 5 closes with `in 0.12 seconds`.
//!
//! The parser is split by phase, one file a job:
//! - `summarizer.rs`: the [`PytestSummarizer`], and how a pytest log is recognised;
//! - `parser.rs`: the parser's state, the order each line is offered to the steps below, and
//!   the steps `finish` runs;
//! - `lines.rs`: classifying a line (rules, closing counts, traceback entries, exceptions, paths);
//! - `sections.rs`: the session's sections, rules and block headers, and the lines that mark the
//!   run wherever they come;
//! - `block.rs`: a failure's block being read, and its message;
//! - `entries.rs`: the node ids of the short summary and of `-v`, and the tests `-v` names;
//! - `failures.rs`: each block and entry → its diagnostic;
//! - `timeout.rs`: pytest-timeout's dump of the threads' stacks;
//! - `summary.rs`: the closing line's counts and the run's outcome.

mod block;
mod entries;
mod failures;
mod lines;
mod parser;
mod sections;
mod summarizer;
mod summary;
#[cfg(test)]
mod tests;
mod timeout;

pub(crate) use failures::failure_from_text;
pub(crate) use lines::xdist_crash;
pub use summarizer::PytestSummarizer;

const TOOL: &str = "pytest";
const MAX_MESSAGE: usize = 300;
/// How a strict xpass names its failure (the reason follows).
const XPASS_STRICT: &str = "[XPASS(strict)]";
/// Short-summary and `-v` entries remembered to name the failures of the blocks.
const MAX_ENTRIES: usize = verdict_model::model::MAX_DIAGNOSTICS;
