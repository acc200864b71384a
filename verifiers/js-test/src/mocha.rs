//! The `mocha` verifier.
//!
//! It runs `node_modules/.bin/mocha --reporter spec --no-color` and reads the human output with
//! the `mocha` summarizer. Mocha runs exactly one reporter per run (unlike jest and vitest, it
//! cannot print for people and write JSON for machines at once), and its JSON reporter prints to
//! standard output mixed with whatever the tests log; the spec reporter is what people read in CI,
//! and the summarizer reads every count and failure from it (checked against mocha's own JSON
//! report in the summarizer's tests). `--reporter spec` overrides a project's `.mocharc` reporter
//! so the log always has that shape. Everything else (which files, `require`, timeouts) comes from
//! the project's own config — or, when no config names the spec (no `spec` in a `.mocharc` or in
//! `package.json`'s `mocha` key), from the script that runs mocha: `"test": "mocha --require
//! ts-node/register 'src/**/*.test.ts'"` names its files on the command line, and plain `mocha`
//! would look in `./test` instead. What verdict takes from the script, and what it leaves (the
//! reporter and its options, colour, watch mode), is described in [`crate::script`]; the
//! variables the script sets apply either way.
//!
//! Exit codes (mocha 10 and 12): 0 when every test passed; otherwise the number of failures,
//! capped at 255 — so 1 to 255 mean failures. A test file that does not load and a config that
//! does not parse also exit 1; the summarizer tells them apart (a root cause, errored).

use std::time::Duration;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, ExitCodes, Infrastructure, Inputs, VerifierError,
    Workspace,
};
use verdict_model::{Kind, Report, Verifier};
use verdict_verifier_support::{js_monorepo_root, node_bin, summarize_log_as};

use crate::script::{Runner, Script};
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
    /// mocha's own command, without the project's coverage wrapper.
    fn spec(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let program = node_bin(workspace, NAME).ok_or_else(|| VerifierError::NotInstalled {
            tool: NAME.to_owned(),
            hint: INSTALL_HINT.to_owned(),
        })?;
        let script = Script::of(workspace, &RUNNER);
        let mut args: Vec<String> = ["--reporter", "spec", "--no-color"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        if !config_names_spec(workspace) {
            args.extend(script.args);
        }
        Ok(CommandSpec {
            program,
            args,
            env: crate::runner_env(script.env),
            cwd: workspace.root.clone(),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: (1..=255).collect(),
            },
            output_files: Vec::new(),
        })
    }

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

/// Whether the project's mocha config names the test files: a `spec` in a `.mocharc.*` (read as
/// text: a `.mocharc.js` is code) or in `package.json`'s `mocha` key.
fn config_names_spec(workspace: &Workspace) -> bool {
    let in_rc = CONFIGS.iter().any(|name| {
        std::fs::read_to_string(workspace.path(name)).is_ok_and(|text| text.contains("spec"))
    });
    let in_package = std::fs::read_to_string(workspace.path("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|package| package.get("mocha").and_then(|m| m.get("spec")).is_some());
    in_rc || in_package
}

/// How mocha reads its command line, for [`Script`]: it drops the options verdict sets itself.
const RUNNER: Runner<'static> = Runner {
    programs: &[NAME, "_mocha"],
    dropped: &[
        ("--reporter", true),
        ("-R", true),
        ("--reporter-option", true),
        ("--reporter-options", true),
        ("-O", true),
        ("--watch-files", true),
        ("--watch-ignore", true),
        ("--color", false),
        ("--colors", false),
        ("-c", false),
        ("--no-color", false),
        ("--no-colors", false),
        ("--watch", false),
        ("-w", false),
    ],
};

impl Verifier for Mocha {
    /// Its config files (`.mocharc.*`, the legacy `test/mocha.opts`, `package.json`'s `mocha`),
    /// and from the declared command the files that declare it and those it loads (`--config`,
    /// `--opts`, `--package`, `--require`, `--file`, a `--ui` of the project's), with its
    /// coverage wrapper's configuration.
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        crate::infra::of(
            workspace,
            &crate::infra::Names {
                tool: NAME,
                file_options: &[
                    "--config",
                    "--opts",
                    "--package",
                    "--require",
                    "-r",
                    "--file",
                    "--ui",
                    "-u",
                ],
                dir_options: &[],
            },
        )
    }

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

    /// mocha as the project runs it: through its coverage wrapper (`nyc mocha`), whose
    /// threshold then fails the run too.
    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        verdict_verifier_support::coverage::wrap(self.spec(workspace)?, workspace, NAME)
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let mut report = summarize_log_as(NAME, captured);
        crate::relative_files(&mut report, &spec.cwd);
        verdict_verifier_support::coverage::add_wrapper_failures(&mut report, spec, captured);
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
        // Without the coverage wrapper: a few tests cover less than any threshold asks.
        let mut spec = self.spec(workspace).ok()?;
        spec.args.push("--grep".to_owned());
        spec.args.push(pattern);
        Some(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_args_stop_at_shell_operators_and_leave_verdicts_options() {
        let args = |command: &str| Script::parse(command, &RUNNER).unwrap_or_default().args;
        assert_eq!(args("mocha 'src/**/*.test.js'"), ["src/**/*.test.js"]);
        assert_eq!(
            args(
                "tsc && nyc ./node_modules/.bin/mocha -r ts-node/register --reporter dot \"src/**/*.spec.ts\" --color && echo done"
            ),
            ["-r", "ts-node/register", "src/**/*.spec.ts"]
        );
        assert_eq!(args("mocha --reporter=min test/a.js; echo"), ["test/a.js"]);
        assert_eq!(args("node node_modules/mocha/bin/_mocha -w test"), ["test"]);
        assert_eq!(args("mocha"), Vec::<String>::new());
        assert_eq!(args("echo 'unbalanced"), Vec::<String>::new());
    }

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
