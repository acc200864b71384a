//! The `vitest` verifier.
//!
//! It runs `node_modules/.bin/vitest run --reporter=default --reporter=json
//! --outputFile.json=<run_dir>/vitest.json`: `run` is one run without watch mode; the default
//! reporter writes the human output into the log, and the JSON reporter (jest's report shape)
//! writes its report to the file that `--outputFile.json` names for that reporter alone. The
//! reporters are named explicitly so that neither a project's `reporters` config nor CI
//! detection (vitest adds reporters under GitHub Actions) changes what verdict reads. The
//! project's test script adds its own arguments and variables (`vitest run --project unit`,
//! `vitest --config vitest.unit.ts`; see [`crate::script`]), but for its subcommand and the options
//! that would change what verdict reads or make a pass dishonest: reporters, output files, colour,
//! watch mode and the UI, runs limited to changed files, and `-u` (which rewrites
//! snapshots instead of checking them). A script that runs another subcommand (`vitest bench`,
//! `vitest related`) adds nothing.
//!
//! Exit codes (vitest 3 and 5): 0 when every test passed; 1 for failing tests, test files that
//! do not load and unhandled errors — and also for `No test files found` and a config that does
//! not load, which only the log tells apart (see [`crate::interpret_json_and_log`]).

use std::time::Duration;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, ExitCodes, Infrastructure, Inputs, Related, Sharding,
    VerifierError, Workspace,
};
use verdict_model::{Kind, Report, Verifier};
use verdict_verifier_support::{js_monorepo_root, node_bin};

use crate::script::{Runner, Script};
use crate::{DEFAULT_TIMEOUT, Evidence, Failing};

const NAME: &str = "vitest";

/// The hint shown when the project has no vitest installed.
pub(crate) const INSTALL_HINT: &str = "npm install --save-dev vitest";

const CONFIGS: &[&str] = &[
    "vitest.config.ts",
    "vitest.config.js",
    "vitest.config.mts",
    "vitest.config.mjs",
    "vitest.config.cts",
    "vitest.config.cjs",
    "vitest.workspace.ts",
    "vitest.workspace.js",
];

const VITE_CONFIGS: &[&str] = &[
    "vite.config.ts",
    "vite.config.js",
    "vite.config.mts",
    "vite.config.mjs",
    "vite.config.cts",
    "vite.config.cjs",
];

/// How the vitest summarizer joins the describe titles and the test title (` > `, as vitest prints
/// them).
const SEPARATOR: &str = " > ";

/// How vitest joins them when it matches `-t`: ` > ` in vitest 5 (measured), a space in earlier
/// versions; the pattern accepts both.
const FILTER_JOINER: &str = "(?: > | )";

/// How vitest reads its command line, for [`Script`]: the options it drops are verdict's own or
/// would change what verdict reads or make a pass dishonest (see the module docs).
const RUNNER: Runner<'static> = Runner {
    programs: &[NAME],
    dropped: &[
        ("--reporter", true),
        ("--outputFile.", true),
        ("--run", false),
        ("--watch", false),
        ("-w", false),
        ("--ui", false),
        ("--open", false),
        ("--api.", false),
        ("--standalone", false),
        ("--color", false),
        ("--no-color", false),
        ("--changed", false),
        ("--update", false),
        ("-u", false),
        ("--shard", true),
    ],
};

/// The script's arguments for a plain run: without its `run`, `watch` or `dev` subcommand, and
/// none when it runs another subcommand.
fn run_args(mut args: Vec<String>) -> Vec<String> {
    match args.first().map(String::as_str) {
        Some("run" | "watch" | "dev") => {
            args.remove(0);
            args
        }
        Some("related" | "bench" | "typecheck" | "list" | "init") => Vec::new(),
        _ => args,
    }
}

/// The options of the script a narrowed re-run keeps: its own file and name filters replace the
/// script's positional arguments (file filters).
const RERUN_KEEPS: &[&str] = &[
    "--config",
    "-c",
    "--project",
    "--root",
    "-r",
    "--dir",
    "--environment",
];

/// The `vitest` verifier (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vitest {
    timeout: Duration,
}

impl Default for Vitest {
    fn default() -> Self {
        Vitest {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Vitest {
    /// The same verifier with another time-out.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The command with its report written to `<run_dir>/<report>`, and the script's arguments
    /// (all of them, or for a re-run only its [`RERUN_KEEPS`] options).
    fn base(
        &self,
        workspace: &Workspace,
        report: &str,
        rerun: bool,
    ) -> Result<CommandSpec, VerifierError> {
        let program = node_bin(workspace, NAME).ok_or_else(|| VerifierError::NotInstalled {
            tool: NAME.to_owned(),
            hint: INSTALL_HINT.to_owned(),
        })?;
        let output = crate::absolute(&workspace.run_dir.join(report));
        let mut script = Script::of(workspace, &RUNNER);
        script.args = run_args(script.args);
        let mut args = vec![
            "run".to_owned(),
            "--reporter=default".to_owned(),
            "--reporter=json".to_owned(),
            format!("--outputFile.json={}", output.display()),
        ];
        if rerun {
            args.extend(script.options(RERUN_KEEPS));
        } else {
            args.extend(script.args);
            args.extend(crate::shard_args(workspace));
        }
        Ok(CommandSpec {
            program,
            args,
            env: crate::runner_env_without_colour(script.env),
            cwd: workspace.root.clone(),
            timeout: self.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: vec![output],
        })
    }
}

/// The first `vite.config.*` that configures tests (has a `test` key), if any.
fn vite_config_with_tests(workspace: &Workspace) -> Option<&'static str> {
    VITE_CONFIGS.iter().copied().find(|name| {
        std::fs::read_to_string(workspace.path(name)).is_ok_and(|text| {
            text.contains("test:") || text.contains("test :") || text.contains("\"test\"")
        })
    })
}

impl Verifier for Vitest {
    /// Its config files and vite's (`vitest.config.*`, `vite.config.*`, `vitest.workspace.*`,
    /// also in the `--root` directory), the snapshots a test compares with, and from the
    /// declared command the files that declare it and those it loads (`-c`, node's
    /// `--require`).
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        crate::infra::of(
            workspace,
            &crate::infra::Names {
                tool: NAME,
                file_options: &["--config", "-c", "--workspace"],
                dir_options: &["--root", "-r"],
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
        let detected = crate::detect(
            workspace,
            &Evidence {
                tool: NAME,
                programs: &[],
                configs: CONFIGS,
                package_key: None,
            },
        );
        match (detected, vite_config_with_tests(workspace)) {
            (Applicability::Applies(reason), Some(vite)) => {
                Applicability::Applies(format!("{reason}; {vite} configures tests"))
            }
            (Applicability::DoesNotApply(_), Some(vite)) => {
                Applicability::Applies(format!("{vite} configures tests"))
            }
            (detected, None) => detected,
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        self.base(workspace, "vitest.json", false)
    }

    /// Split with the runner's own `--shard=INDEX/TOTAL`, which deals test files to shards.
    fn sharding(&self, _workspace: &Workspace) -> Sharding {
        Sharding::Split
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        if let Some(report) = crate::empty_run(NAME, spec, captured) {
            return report;
        }
        let report = crate::interpret_json_and_log(NAME, spec, captured);
        crate::fail_closed(report, NAME, spec, captured)
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        Some(Inputs {
            globs: crate::source_globs(),
            tool_files: crate::tool_files(workspace, NAME),
            root: js_monorepo_root(workspace, NAME),
        })
    }

    /// `vitest related <files> --run`: vitest's own search of the test files that import the
    /// targets (a node id counts as its file), the script's file filters left out as for a
    /// re-run. With `--passWithNoTests` a run that finds none reads as having run nothing.
    fn related_tests(
        &self,
        workspace: &Workspace,
        targets: &[String],
    ) -> Option<Result<Related, VerifierError>> {
        Some(
            self.base(workspace, "vitest.json", true)
                .map(|mut command| {
                    // `related` in place of `run`, which stays as `--run`: no watch mode.
                    command.args[0] = "related".to_owned();
                    command.args.push("--run".to_owned());
                    command.args.push("--passWithNoTests".to_owned());
                    command.args.extend(crate::target_files(targets));
                    Related::Tests {
                        command,
                        left_out: Vec::new(),
                    }
                }),
        )
    }

    /// The failing test files as filters (vitest matches them against test file paths) and the
    /// failing tests' full names as an anchored `-t` pattern.
    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let failing = Failing::of(previous)?;
        let mut spec = self
            .base(workspace, "vitest.failed-first.json", true)
            .ok()?;
        if let Some(pattern) = failing.name_pattern(SEPARATOR, FILTER_JOINER) {
            spec.args.push(format!("--testNamePattern={pattern}"));
        }
        spec.args.extend(failing.files);
        Some(spec)
    }
}
