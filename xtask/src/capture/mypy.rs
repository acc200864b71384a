//! Capture cases for `mypy`.
//!
//! The ground truth of every case is a second run of the same project with `-O json` (one JSON
//! object per line, mypy 1.11 and later) and the human-only options left out (`--pretty`, the
//! column, end and context options). The JSON run prints no summary line: the truth of the counts
//! is its error objects, which the tests check against the summary the log printed.
//!
//! The projects are one clean package, one with several kinds of errors across files (with an
//! unused `type: ignore`, a revealed type and notes), one checked with `strict = true`, and the
//! runs that check nothing as configured: a syntax error (which stops mypy before any other
//! check), a pyproject.toml that is not TOML (mypy warns, ignores it and checks without it), a
//! plugin that is not installed, an unknown option and a package that does not exist.

use super::{Case, Program, Truth, strings};

/// The options that change only how the human log looks; the JSON run leaves them out.
const HUMAN_ONLY: [&str; 4] = [
    "--pretty",
    "--show-column-numbers",
    "--show-error-end",
    "--show-error-context",
];

/// The mypy cases.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        mypy("errors", "errors", &["."]),
        mypy("errors-pretty", "errors", &["--pretty", "."]),
        mypy(
            "errors-columns-end",
            "errors",
            &["--show-column-numbers", "--show-error-end", "."],
        ),
        mypy(
            "errors-context",
            "errors",
            &["--show-error-context", "--show-column-numbers", "."],
        ),
        mypy("errors-color", "errors", &["."]).env("MYPY_FORCE_COLOR", "1"),
        // The clean project names its files in `[tool.mypy] files`.
        mypy("clean", "clean", &[]),
        mypy("clean-pretty", "clean", &["--pretty"]),
        mypy("strict", "strict", &["ledger"]),
        mypy("strict-pretty", "strict", &["--pretty", "ledger"]),
        mypy("syntax-error", "syntax", &["."]),
        mypy("config-broken-toml", "broken-toml", &["."]),
        mypy("config-plugin-missing", "plugin-missing", &["."]),
        mypy("unknown-flag", "clean", &["--strictt", "."]),
        mypy("missing-package", "clean", &["-p", "nothere"]),
    ]
}

/// A case of the pinned mypy, its truth the `-O json` run of the same arguments.
fn mypy(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut truth = strings(&["-O", "json"]);
    truth.extend(
        args.iter()
            .filter(|a| !HUMAN_ONLY.contains(a))
            .map(|a| (*a).to_owned()),
    );
    Case::new("mypy", name, project, Program::Venv("mypy"), args)
        .truth(Truth::Stdout(truth), "jsonl")
}
