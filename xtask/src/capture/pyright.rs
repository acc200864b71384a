//! Capture cases for `pyright`.
//!
//! The log of each case is pyright's default text output (a line per file, then one
//! `  /abs/file.py:3:5 - error: message (reportXxx)` line per diagnostic, and the summary
//! `N errors, M warnings, K informations`), and the ground truth is `pyright --outputjson` of the
//! same project from a second run. Both runs write to one pipe, so what pyright prints on stderr
//! (a configuration file it could not read) sits before or after the JSON in the truth file too,
//! as a verifier reading the interleaved log sees it.
//!
//! A broken configuration file (exit 3) does not stop pyright: it checks the code with its defaults
//! and says so only on stderr. An unknown flag and a path that does not exist (exit 4) print no
//! JSON at all; those cases have no truth.

use super::{Case, Program, Truth, strings};

/// The pyright cases.
pub(crate) fn cases() -> Vec<Case> {
    vec![
        checked("passing", "passing", &[]),
        // `--stats` names the files it found and checked.
        checked("passing-stats", "passing", &["--stats"]),
        // Errors, a warning and informations of several rules over two files, multi-line messages.
        checked("many-errors", "many-errors", &[]),
        // Only errors are listed; the summary still counts what was listed.
        checked("many-errors-level", "many-errors", &["--level", "error"]),
        checked("strict", "strict", &[]),
        // `[tool.pyright]` in pyproject.toml, with rules lowered to warnings.
        checked("pyproject", "pyproject", &[]),
        // Syntax errors carry no rule.
        checked("syntax-error", "syntax-error", &[]),
        // A project whose include holds no Python file: the same summary as a pass, and the
        // verbose run says why.
        checked("no-files", "no-files", &[]),
        checked("no-files-verbose", "no-files", &["--verbose"]),
        // Configuration errors: a pyrightconfig.json that is not JSON and a pyproject.toml that is
        // not TOML (exit 3, checked with the defaults), and values of the wrong kind (exit 1).
        checked("broken-config", "broken-config", &[]),
        checked("broken-pyproject", "broken-pyproject", &[]),
        checked("config-values", "config-values", &[]),
        // Nothing checked at all (exit 4).
        Case::new(
            "pyright",
            "unknown-flag",
            "passing",
            Program::Node("pyright"),
            &["--strictt"],
        ),
        Case::new(
            "pyright",
            "missing-path",
            "passing",
            Program::Node("pyright"),
            &["nothing_here"],
        ),
    ]
}

/// A case whose truth is `--outputjson` with the same arguments.
fn checked(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut truth = strings(&["--outputjson"]);
    // `--outputjson` takes neither `--stats` nor `--verbose`.
    truth.extend(
        args.iter()
            .filter(|a| !matches!(**a, "--verbose" | "--stats"))
            .map(|a| (*a).to_owned()),
    );
    Case::new("pyright", name, project, Program::Node("pyright"), args)
        .truth(Truth::Stdout(truth), "json")
}
