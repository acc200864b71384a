//! The `mocha` verifier.
//!
//! It runs `node_modules/.bin/mocha --reporter spec --no-color` and reads the human output with
//! the `mocha` summarizer. Mocha runs exactly one reporter per run (unlike jest and vitest, it
//! cannot print for people and write JSON for machines at once), and its JSON reporter prints to
//! standard output mixed with whatever the tests log; the spec reporter is what people read in CI,
//! and the summarizer reads every count and failure from it (checked against mocha's own JSON
//! report in the summarizer's tests). `--reporter spec` overrides a project's `.mocharc` reporter
//! so the log always has that shape. Everything else (which files, `require`, timeouts) comes from
//! the project's own config.
//!
//! Exit codes (mocha 10 and 12): 0 when every test passed; otherwise the number of failures,
//! capped at 255 — so 1 to 255 mean failures. A test file that does not load and a config that
//! does not parse also exit 1; the summarizer tells them apart (a root cause, errored).

use std::time::Duration;

use verdict_core::verifier::{
    Applicability, Captured, CommandSpec, ExitCodes, Inputs, VerifierError, Workspace,
};
use verdict_core::{Kind, Report, Verifier};
use verdict_verifier_support::{js_monorepo_root, node_bin, summarize_log_as};

use crate::{DEFAULT_TIMEOUT, Evidence, Failing, escape_regex};

const NAME: &str = "mocha";

/// The hint shown when the project has no mocha installed.
pub(crate) const INSTALL_HINT: &str = "npm install --save-dev mocha";

const CONFIGS: &[&str] = &[
    ".mocharc.js",
    ".mocharc.cjs",
    ".mocharc.mjs",
    ".mocharc.json",
    ".mocharc.jsonc",
    ".mocharc.yaml",
    ".mocharc.yml",
];

/// How the mocha summarizer joins the suite titles and the test title.
const SEPARATOR: &str = " > ";

/// The `mocha` verifier (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mocha {
    timeout: Duration,
}

impl Default for Mocha {
    fn default() -> Self {
        Mocha {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Mocha {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// A `--grep` pattern for the failing tests. Mocha matches it against a test's full title (the
/// suite titles and its own joined with spaces). A failing hook (`Suite > "before each" hook for
/// "test"`) is no test that grep can select: its suite is re-run instead (the titles before the
/// hook, as a prefix).
fn grep_pattern(failing: &Failing) -> Option<String> {
    let mut names = Vec::new();
    for test in &failing.tests {
        let titles: Vec<&str> = test.split(SEPARATOR).collect();
        match titles
            .iter()
            .position(|t| t.starts_with('"') && t.contains("\" hook"))
        {
            Some(0) => return None,
            Some(hook) => names.push(format!(
                "{} .*",
                titles[..hook]
                    .iter()
                    .map(|t| escape_regex(t))
                    .collect::<Vec<_>>()
                    .join(" ")
            )),
            None => names.push(
                titles
                    .iter()
                    .map(|t| escape_regex(t))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        }
    }
    (!names.is_empty()).then(|| format!("^(?:{})$", names.join("|")))
}

impl Verifier for Mocha {
    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> Kind {
        Kind::Test
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        crate::detect(
            workspace,
            &Evidence {
                tool: NAME,
                programs: &["_mocha"],
                configs: CONFIGS,
                package_key: Some("mocha"),
            },
        )
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let program = node_bin(workspace, NAME).ok_or_else(|| VerifierError::NotInstalled {
            tool: NAME.to_owned(),
            hint: INSTALL_HINT.to_owned(),
        })?;
        Ok(CommandSpec {
            program,
            args: ["--reporter", "spec", "--no-color"]
                .into_iter()
                .map(str::to_owned)
                .collect(),
            env: crate::deterministic_env(),
            cwd: workspace.root.clone(),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: (1..=255).collect(),
            },
            output_files: Vec::new(),
        })
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = summarize_log_as(NAME, captured);
        crate::relative_files(&mut report, &spec.cwd);
        crate::fail_closed(report, NAME, spec, captured)
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        Some(Inputs {
            globs: crate::source_globs(),
            tool_files: crate::tool_files(workspace, NAME),
            root: js_monorepo_root(workspace, NAME),
        })
    }

    /// The failing tests by `--grep`. Test files are not named: mocha adds files given on the
    /// command line to the `spec` of a `.mocharc` instead of replacing it (measured with mocha
    /// 12), so they would not narrow the run; the name filter does. A previous run with only a
    /// file that did not load (no test names) is re-run in full: `None`.
    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let failing = Failing::of(previous)?;
        let pattern = grep_pattern(&failing)?;
        let mut spec = self.command(workspace).ok()?;
        spec.args.push("--grep".to_owned());
        spec.args.push(pattern);
        Some(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_re_run_their_suite() {
        let failing = Failing {
            files: Vec::new(),
            tests: vec![
                "db > \"before each\" hook for \"reads\"".to_owned(),
                "math > adds (1)".to_owned(),
            ],
        };
        assert_eq!(
            grep_pattern(&failing).as_deref(),
            Some(r"^(?:db .*|math adds \(1\))$")
        );
    }
}
