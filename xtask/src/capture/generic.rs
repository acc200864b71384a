//! Capture cases for the `generic` fallback: tools verdict has no summarizer of its own for.
//!
//! gcc (alone and under make), mypy and a Python script that crashes (Node.js's own test runner
//! has its summarizer and cases now: `node_test.rs`). Their ground truth is the tool's own
//! machine-readable output from a second run: gcc's `-fdiagnostics-format=json`, mypy's `--output
//! json`. A crashing script has none (its meta says `truth_argv: null`).
//!
//! System programs run through `/usr/bin/env`: the framework hands a `Program::System` name to duct
//! as a path, and duct runs a bare relative path from the working directory instead of searching
//! `PATH`.

use super::{Case, Program, Truth, strings};

const ENV: &str = "/usr/bin/env";

/// `env <args>`: a system program found on `PATH`.
fn system(name: &'static str, project: &'static str, args: &[&str]) -> Case {
    let mut case = Case::new("generic", name, project, Program::System(ENV), args);
    if let Some(program) = args.first() {
        case.version_args = strings(&[program, "--version"]);
    }
    case
}

/// A gcc run with gcc's JSON diagnostics as ground truth.
fn gcc(name: &'static str, project: &'static str, flags: &[&str], files: &[&str]) -> Case {
    let mut args = vec!["gcc", "-c"];
    args.extend_from_slice(flags);
    args.extend_from_slice(files);
    let mut truth = vec!["gcc", "-c", "-fdiagnostics-format=json"];
    truth.extend(
        flags
            .iter()
            .filter(|f| !f.starts_with("-fdiagnostics-color")),
    );
    truth.extend_from_slice(files);
    let mut case = system(name, project, &args).truth(Truth::Stdout(strings(&truth)), "json");
    case.version_args = strings(&["gcc", "-dumpfullversion"]);
    case
}

/// A mypy run with mypy's JSON lines as ground truth.
fn mypy(name: &'static str, project: &'static str, args: &[&str], paths: &[&str]) -> Case {
    let mut all = args.to_vec();
    all.extend_from_slice(paths);
    let mut truth = vec!["--output", "json"];
    truth.extend_from_slice(paths);
    Case::new("generic", name, project, Program::Venv("mypy"), &all)
        .truth(Truth::Stdout(strings(&truth)), "jsonl")
}

/// The generic cases.
pub(crate) fn cases() -> Vec<Case> {
    let c_files = ["main.c", "total.c", "label.c", "stock.c", "report.c"];
    let wall = ["-Wall", "-Wextra"];
    let mut make = system("make-errors", "make-broken", &["make"]);
    make = make.truth(
        Truth::Stdout(strings(&[
            "make",
            "CFLAGS=-Wall -Wextra -fdiagnostics-format=json",
        ])),
        "json",
    );
    let mut make_keep_going = system("make-keep-going", "make-broken", &["make", "-k"]);
    make_keep_going = make_keep_going.truth(
        Truth::Stdout(strings(&[
            "make",
            "-k",
            "CFLAGS=-Wall -Wextra -fdiagnostics-format=json",
        ])),
        "json",
    );
    let mut python = Case::new(
        "generic",
        "python-traceback",
        "py-crash",
        Program::Venv("python"),
        &["crash.py"],
    );
    python.version_args = strings(&["--version"]);
    vec![
        gcc("gcc-errors", "c-broken", &wall, &c_files),
        gcc(
            "gcc-errors-color",
            "c-broken",
            &["-Wall", "-Wextra", "-fdiagnostics-color=always"],
            &c_files,
        ),
        gcc("gcc-clean", "c-clean", &wall, &["ok.c"]),
        system("gcc-link-error", "c-link", &["gcc", "main.c", "-o", "main"]),
        make,
        make_keep_going,
        system("make-no-rule", "make-broken", &["make", "install-docs"]),
        mypy("mypy-errors", "py-types", &[], &["src"]),
        mypy("mypy-pretty", "py-types", &["--pretty"], &["src"]),
        mypy(
            "mypy-columns-context",
            "py-types",
            &["--show-column-numbers", "--show-error-context"],
            &["src"],
        ),
        mypy("mypy-color", "py-types", &[], &["src"]).env("MYPY_FORCE_COLOR", "1"),
        mypy("mypy-clean", "py-types", &[], &["src/shop/clean.py"]),
        mypy("mypy-syntax-error", "py-syntax", &[], &["bad.py"]),
        mypy("mypy-missing-file", "py-types", &[], &["src/nope.py"]),
        python,
    ]
}
