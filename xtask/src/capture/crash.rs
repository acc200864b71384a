//! Capture cases for the check of how a log ended (`verdict_summarizers::ending`): runs that crash,
//! are killed, or never start their tool, each stored with the summarizer that reads its tool's
//! output, so that `--tool` is tested on them too. None has a structured report to compare with:
//! each must be "could not verify".
//!
//! - `generic/npm-script-segfault`, `generic/npm-script-abort`: an npm script whose node process
//!   dies of SIGSEGV (`process.kill(process.pid, "SIGSEGV")`) or aborts (`process.abort()`);
//! - `generic/npm-missing-script`: `npm run lint` where package.json has no `lint` script;
//! - `generic/sh-command-not-found`, `generic/bash-command-not-found`: a shell told to run a
//!   program that does not exist;
//! - `tsc/placeholder-package`: `npx tsc` in a project that installed the npm package `tsc` (a
//!   placeholder that prints "This is not the tsc command you are looking for") rather than
//!   typescript; the version run installs it;
//! - `mocha/process-exits-early`: a test calls `process.exit(0)`: mocha exits 0 without its
//!   summary;
//! - `cargo/killed-rustc`, `cargo/killed-cargo`: a build whose proc macro kills, with SIGKILL, the
//!   rustc running it (cargo reports the signal) or cargo itself (the log ends at `Compiling`), as
//!   the out-of-memory killer would.

use super::{Case, Program, Truth, strings};

/// `env` by its absolute path: duct runs a bare relative name from the working directory.
const ENV: &str = "/usr/bin/env";

/// `env <args>` in `project` of `tool`'s projects, with `version` (also run through `env`).
fn env(
    tool: &'static str,
    name: &'static str,
    project: &'static str,
    args: &[&str],
    version: &[&str],
) -> Case {
    let mut case = Case::new(tool, name, project, Program::System(ENV), args);
    case.version_args = strings(version);
    case.truth = Truth::None;
    case.truth_how = Some("none: the run crashed, was killed or never started its tool");
    case
}

/// `cargo build` of the `killed` project, whose proc macro kills `target` (`rustc` or `cargo`).
fn killed(name: &'static str, target: &str) -> Case {
    let killer = format!("KILLER_TARGET={target}");
    env(
        "cargo",
        name,
        "killed",
        &[
            "CARGO_TARGET_DIR=/tmp/verdict-capture/cargo-target",
            "CARGO_TERM_COLOR=never",
            &killer,
            "cargo",
            "build",
        ],
        &["cargo", "--version"],
    )
}

/// The crash cases.
pub(crate) fn cases() -> Vec<Case> {
    let npm_version = ["npm", "--version"];
    vec![
        env(
            "generic",
            "npm-script-segfault",
            "npm-crash",
            &["npm", "test"],
            &npm_version,
        ),
        env(
            "generic",
            "npm-script-abort",
            "npm-crash",
            &["npm", "run", "abort"],
            &npm_version,
        ),
        env(
            "generic",
            "npm-missing-script",
            "npm-crash",
            &["npm", "run", "lint"],
            &npm_version,
        ),
        env(
            "generic",
            "sh-command-not-found",
            "sh-missing",
            &["sh", "-c", "nonexistent-tool --check"],
            &["readlink", "-f", "/bin/sh"],
        ),
        env(
            "generic",
            "bash-command-not-found",
            "sh-missing",
            &["bash", "-c", "nonexistent-tool --check"],
            &["bash", "-c", "echo $BASH_VERSION"],
        ),
        env(
            "tsc",
            "placeholder-package",
            "placeholder",
            &["npx", "tsc", "--noEmit"],
            &[
                "sh",
                "-c",
                "npm install --no-audit --no-fund --silent >/dev/null 2>&1; node -p \"'tsc@' + require('tsc/package.json').version\"",
            ],
        ),
        Case {
            truth_how: Some("none: a test ends the process before mocha reports"),
            ..Case::new(
                "mocha",
                "process-exits-early",
                "process-exit",
                Program::Node("mocha"),
                &[],
            )
        },
        killed("killed-rustc", "rustc"),
        killed("killed-cargo", "cargo"),
    ]
}
