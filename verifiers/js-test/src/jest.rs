//! The `jest` verifier.
//!
//! It runs `node_modules/.bin/jest --ci --json --outputFile=<run_dir>/jest.json
//! --testLocationInResults`: `--ci` makes a missing snapshot a failure instead of writing it,
//! `--json --outputFile` writes the machine-readable report to a file while the human output
//! still goes to stderr — the log people read — and `--testLocationInResults` records where each
//! test is, for a failure whose stack does not point into the test file. The project's test script
//! adds its own arguments and variables (`jest -c jest.unit.js`, `NODE_OPTIONS=--experimental-vm-modules
//! jest`; see [`crate::script`]), but for those that would change what verdict reads or make a
//! pass dishonest: reporters, `--json`, colour, watch mode, runs limited to changed or previously
//! failed files, and `-u` (which rewrites snapshots instead of checking them).
//!
//! Exit codes (jest 29 and 30): 0 when every test passed; 1 for failing tests and test files that
//! do not load — and also for `No tests found` and a config that does not load. The exit code
//! cannot tell those apart; the log can (see [`crate::interpret_json_and_log`]).

use std::time::Duration;

use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, ExitCodes, Infrastructure, Inputs, Related, Sharding,
    VerifierError, Workspace,
};
use verdict_model::{Kind, Report, Verifier};
use verdict_verifier_support::{js_monorepo_root, node_bin};

use crate::script::{Runner, Script};
use crate::{DEFAULT_TIMEOUT, Evidence, Failing};

const NAME: &str = "jest";

/// The hint shown when the project has no jest installed.
pub(crate) const INSTALL_HINT: &str = "npm install --save-dev jest";

const CONFIGS: &[&str] = &[
    "jest.config.js",
    "jest.config.ts",
    "jest.config.mjs",
    "jest.config.cjs",
    "jest.config.mts",
    "jest.config.cts",
    "jest.config.json",
];

/// jest's options whose value is a file it loads.
const FILE_OPTIONS: &[&str] = &[
    "--config",
    "-c",
    "--setupFiles",
    "--setupFilesAfterEnv",
    "--globalSetup",
    "--globalTeardown",
    "--testEnvironment",
    "--testRunner",
    "--testSequencer",
    "--testResultsProcessor",
    "--resolver",
    "--snapshotResolver",
    "--runner",
    "--preset",
];

/// How the jest summarizer joins the describe titles and the test title (` › `, as jest prints
/// them); jest's `--testNamePattern` matches them joined with a space.
const SEPARATOR: &str = " › ";

/// How jest reads its command line, for [`Script`]: the options it drops are verdict's own or would
/// change what verdict reads or make a pass dishonest (see the module docs).
const RUNNER: Runner<'static> = Runner {
    programs: &[NAME],
    dropped: &[
        ("--ci", false),
        ("--no-ci", false),
        ("--json", false),
        ("--outputFile", true),
        ("--testLocationInResults", false),
        ("--reporters", true),
        ("--color", false),
        ("--colors", false),
        ("--no-color", false),
        ("--no-colors", false),
        ("--watch", false),
        ("--watchAll", false),
        ("--onlyChanged", false),
        ("-o", false),
        ("--changedSince", true),
        ("--lastCommit", false),
        ("--onlyFailures", false),
        ("-f", false),
        ("--updateSnapshot", false),
        ("-u", false),
        ("--listTests", false),
        ("--showConfig", false),
        ("--shard", true),
    ],
};

/// The options of the script a narrowed re-run keeps: its own file and name filters replace the
/// script's positional arguments (test path patterns).
const RERUN_KEEPS: &[&str] = &["--config", "-c", "--selectProjects", "--rootDir"];

/// The `jest` verifier (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jest {
    timeout: Duration,
}

impl Default for Jest {
    fn default() -> Self {
        Jest {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Jest {
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
        let script = Script::of(workspace, &RUNNER);
        let mut args = vec![
            "--ci".to_owned(),
            "--json".to_owned(),
            format!("--outputFile={}", output.display()),
            "--testLocationInResults".to_owned(),
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
            env: crate::runner_env(script.env),
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

impl Verifier for Jest {
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
                programs: &[],
                configs: CONFIGS,
                package_key: Some("jest"),
            },
        )
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        self.base(workspace, "jest.json", false)
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

    /// Its config files (`jest.config.*`, `package.json`'s `jest`), Babel's, the snapshots a
    /// test compares with, and from the declared command the files that declare it and those
    /// it loads (`-c`, `--setupFiles`, node's `--require`).
    fn infrastructure(&self, workspace: &Workspace) -> Infrastructure {
        crate::infra::of(
            workspace,
            &crate::infra::Names {
                tool: NAME,
                file_options: FILE_OPTIONS,
                dir_options: &["--projects"],
            },
        )
    }

    /// jest's own `--findRelatedTests`: the test files that import the targets, directly or
    /// through other modules, and a test file itself (a node id counts as its file). The
    /// script's positional patterns are left out, as for a re-run. `--passWithNoTests` makes a
    /// run that finds no related test exit 0 with its JSON report written, so that it reads as
    /// having run nothing (which the caller says) rather than as jest failing.
    fn related_tests(
        &self,
        workspace: &Workspace,
        targets: &[String],
    ) -> Option<Result<Related, VerifierError>> {
        Some(self.base(workspace, "jest.json", true).map(|mut command| {
            command.args.push("--passWithNoTests".to_owned());
            command.args.push("--findRelatedTests".to_owned());
            command.args.extend(crate::target_files(targets));
            Related::Tests {
                command,
                left_out: Vec::new(),
            }
        }))
    }

    /// The failing test files, named by path (`--runTestsByPath`: exact paths, not the regular
    /// expressions jest's positional arguments otherwise are), and the failing tests' full names
    /// as an anchored `--testNamePattern`. jest's own `--onlyFailures` is not used: it depends on
    /// jest's cache of the last run, which verdict does not control.
    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let failing = Failing::of(previous)?;
        let mut spec = self.base(workspace, "jest.failed-first.json", true).ok()?;
        if let Some(pattern) = failing.name_pattern(SEPARATOR, " ") {
            spec.args.push(format!("--testNamePattern={pattern}"));
        }
        if !failing.files.is_empty() {
            spec.args.push("--runTestsByPath".to_owned());
            spec.args.extend(failing.files);
        }
        Some(spec)
    }
}
