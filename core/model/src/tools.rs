//! The one table of the tools verdict knows by name. Each tool is described once — its name and
//! aliases, whether a linked verifier runs it, its kind, the summarizer of its output, how a
//! declared command invokes it, the arguments verdict sets itself, its use after an edit, the
//! line that ends its run in a log, its configuration files — and every place that needs to know
//! reads that description: the log splitter, the declared-command reader, infrastructure files,
//! `verdict init`, the post-edit hook and the script verifier.
//!
//! Adding a tool is one entry in [`tools!`]'s list (docs/adding-a-verifier.md walks through the
//! rest). What cannot be data is a `match` on [`Tool`] without a wildcard, so the compiler names
//! every place a new tool must be handled; `cli/tests/tools.rs` checks each place agrees with
//! the table.

use crate::Kind;

/// How a command line invokes a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invocation {
    /// The program's file name (`jest`); `python` stands for any `python`, `python3` or
    /// `python3.12`.
    pub program: &'static str,
    /// The words that must come right after the program: `["-m", "pytest"]`, `["nextest",
    /// "run"]`, `["check"]`. For `node`, `["--test"]` may come after node's own options.
    pub then: &'static [&'static str],
    /// The summarizer of what this invocation prints, when it is not the tool's own (`cargo
    /// nextest run` prints nextest's output).
    pub prints: Option<&'static str>,
    /// Whether the tool's verifier can run the command in its place, with its arguments. `false`
    /// for a program that runs the tool its own way and prints its output (`next lint`,
    /// `vue-tsc`): the log splitter knows it, a declared one is run as it is.
    pub verifier_runs_it: bool,
    /// An option that makes the command something else than a check of the tool's (`ruff check
    /// --add-noqa` only edits files): with one, it is not this tool's check. Fixing options are
    /// not here: the verifier drops them ([`ToolSpec::owned`]) and checks.
    pub unless: &'static [&'static str],
    /// Options of which one must be there for the command to check (`ruff format --check`);
    /// empty when none is needed.
    pub requires_one_of: &'static [&'static str],
}

impl Invocation {
    /// `program` alone, run by the tool's verifier.
    const fn program(program: &'static str) -> Invocation {
        Invocation {
            program,
            then: &[],
            prints: None,
            verifier_runs_it: true,
            unless: &[],
            requires_one_of: &[],
        }
    }

    /// `program` followed by `then`, run by the tool's verifier.
    const fn with(program: &'static str, then: &'static [&'static str]) -> Invocation {
        Invocation {
            then,
            ..Invocation::program(program)
        }
    }

    /// `python -m <then…>`.
    const fn python(then: &'static [&'static str]) -> Invocation {
        Invocation::with("python", then)
    }

    /// The same invocation, which prints `summarizer`'s output.
    const fn printing(self, summarizer: &'static str) -> Invocation {
        Invocation {
            prints: Some(summarizer),
            ..self
        }
    }

    /// The same invocation, which the tool's verifier cannot run in its place.
    const fn not_by_verifier(self) -> Invocation {
        Invocation {
            verifier_runs_it: false,
            ..self
        }
    }

    /// Whether `program` (a file name, `./node_modules/.bin/` and `.js` taken off) is this
    /// invocation's program.
    pub fn is_program(&self, program: &str) -> bool {
        if self.program == "python" {
            return is_python(program);
        }
        program == self.program
    }
}

/// Whether `program` is a Python interpreter: `python`, `python3`, `python3.12`.
pub fn is_python(program: &str) -> bool {
    program
        .strip_prefix("python")
        .is_some_and(|version| version.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

/// Whether and how a tool checks files after each edit (`verdict hook … --post-edit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostEdit {
    /// Not run after an edit unless the project marks its verifier `fast`.
    No,
    /// Fast: run after an edit of a file with one of these extensions (it checks the whole
    /// project, so other files tell it nothing new), or narrowed to the edited files when its
    /// verifier can be.
    Project(&'static [&'static str]),
    /// Fast: run on the edited files only, when its verifier can narrow to them; an edit of
    /// other files tells it nothing.
    Files,
}

/// A configuration file, or the part of a shared file, that the tool reads whatever command
/// starts it: a change to it changes what the check means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFile {
    /// A whole file, by glob from the project's root (`**/tsconfig*.json`).
    Whole(&'static str),
    /// The value at these keys of a JSON file (`package.json`, `["jest"]`).
    Json(&'static str, &'static [&'static str]),
    /// The table at these keys of a TOML file (`pyproject.toml`, `["tool", "mypy"]`).
    Toml(&'static str, &'static [&'static str]),
    /// The sections of this name of an INI file (`setup.cfg`, `mypy`; a name ending in `*`
    /// matches those it starts).
    Ini(&'static str, &'static str),
}

/// What verdict knows of one tool.
#[derive(Debug)]
pub struct ToolSpec {
    /// Its name, and its verifier's when it has one: `tsc`, `cargo-test`.
    pub name: &'static str,
    /// Other names people call it by (`typescript`, `nextest`): `verdict list` and the not-run
    /// lines accept them.
    pub aliases: &'static [&'static str],
    /// The cargo feature of the `verdict` binary that links its verifier in; `None` for a tool
    /// verdict reads the output of but runs only as the project's own command (`tap`).
    pub linked: Option<&'static str>,
    /// What it checks.
    pub kind: Kind,
    /// The summarizer of its human output (`verdict summarize`, a declared command's log).
    pub summarizer: &'static str,
    /// How a command line invokes it; empty for a tool no declared command runs by itself
    /// (doctests run inside `cargo test`).
    pub invocations: &'static [Invocation],
    /// The npm package whose bin script runs it (`node node_modules/typescript/bin/tsc`).
    pub npm_package: Option<&'static str>,
    /// Its options that verdict sets itself or that would change what it prints or does (the
    /// reporter, colour, fixes, watch mode), each with whether its value is the next word: a
    /// declared command's arguments are taken without them.
    pub owned: &'static [(&'static str, bool)],
    /// Whether its verifier runs the project's coverage wrapper too (`coverage run -m pytest`,
    /// `nyc mocha`), so that the wrapper's threshold is checked with the tests.
    pub wraps_coverage: bool,
    /// Its use after an edit.
    pub post_edit: PostEdit,
    /// A real line that ends its run in a log (`Found 3 errors in 2 files.`), for the tools
    /// whose end the log splitter recognises without a command line before it.
    pub end_line: Option<&'static str>,
    /// What it reads by name whatever command starts it; see [`ConfigFile`].
    pub configs: &'static [ConfigFile],
    /// How a project installs it, for the `not installed` messages.
    pub install: &'static str,
}

impl ToolSpec {
    /// Whether it runs tests (and its log counts them).
    pub fn is_test_runner(&self) -> bool {
        self.kind == Kind::Test
    }

    /// Every summarizer its invocations print with.
    pub fn summarizers(&self) -> impl Iterator<Item = &'static str> + '_ {
        std::iter::once(self.summarizer).chain(self.invocations.iter().filter_map(|i| i.prints))
    }
}

macro_rules! tools {
    ($($(#[$doc:meta])* $variant:ident => $spec:expr,)*) => {
        /// A tool verdict knows by name; [`Tool::spec`] describes it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Tool {
            $($(#[$doc])* $variant,)*
        }

        impl Tool {
            /// Every tool, in the table's order.
            pub const ALL: &'static [Tool] = &[$(Tool::$variant,)*];

            /// What verdict knows of it.
            pub fn spec(self) -> &'static ToolSpec {
                match self {
                    $(Tool::$variant => {
                        static SPEC: ToolSpec = $spec;
                        &SPEC
                    })*
                }
            }
        }
    };
}

impl Tool {
    /// Its name: `tsc`, `cargo-test`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The tool called `name` or one of its aliases.
    pub fn named(name: &str) -> Option<Tool> {
        Tool::ALL
            .iter()
            .copied()
            .find(|tool| tool.name() == name || tool.spec().aliases.contains(&name))
    }

    /// The tool whose linked verifier is called `name`.
    pub fn of_verifier(name: &str) -> Option<Tool> {
        Tool::ALL
            .iter()
            .copied()
            .find(|tool| tool.name() == name && tool.spec().linked.is_some())
    }

    /// The tool whose npm package is `package`.
    pub fn of_npm_package(package: &str) -> Option<Tool> {
        Tool::ALL
            .iter()
            .copied()
            .find(|tool| tool.spec().npm_package == Some(package))
    }

    /// The tool that `words` (a program, `./node_modules/.bin/` and `.js` taken off, and its
    /// arguments) run, with the invocation that matched.
    pub fn invoked_by(words: &[&str]) -> Option<(Tool, &'static Invocation)> {
        let (program, rest) = words.split_first()?;
        Tool::ALL.iter().copied().find_map(|tool| {
            tool.spec()
                .invocations
                .iter()
                .find(|invocation| matches(invocation, program, rest))
                .map(|invocation| (tool, invocation))
        })
    }
}

/// Whether `program rest…` is `invocation`.
fn matches(invocation: &Invocation, program: &str, rest: &[&str]) -> bool {
    if !invocation.is_program(program) {
        return false;
    }
    let after = if invocation.program == "node" {
        node_test_args(rest)
    } else {
        rest.strip_prefix(invocation.then)
    };
    let Some(after) = after else {
        return false;
    };
    let has = |option: &&str| {
        after
            .iter()
            .any(|w| w == option || w.split_once('=').is_some_and(|(name, _)| name == *option))
    };
    !invocation.unless.iter().any(has)
        && (invocation.requires_one_of.is_empty() || invocation.requires_one_of.iter().any(has))
}

/// The words after `--` for `node [options] --test …`, or `None` when node runs no tests: node's
/// options come first, some with a value.
fn node_test_args<'a>(args: &'a [&'a str]) -> Option<&'a [&'a str]> {
    let mut at = 0;
    while let Some(word) = args.get(at) {
        if *word == "--test" {
            return Some(&args[at + 1..]);
        }
        if !word.starts_with('-') {
            // The script node runs: node's own options end here.
            return None;
        }
        let takes_value = matches!(
            *word,
            "-r" | "--require" | "--import" | "--loader" | "--experimental-loader" | "--env-file"
        );
        at += if takes_value { 2 } else { 1 };
    }
    None
}

/// pytest's and unittest's files that Python reads at start-up in every run.
const PYTHON_STARTUP: [ConfigFile; 2] = [
    ConfigFile::Whole("**/sitecustomize.py"),
    ConfigFile::Whole("**/usercustomize.py"),
];

tools! {
    /// TypeScript's compiler, as a type checker.
    Tsc => ToolSpec {
        name: "tsc",
        aliases: &["typescript"],
        linked: Some("tsc"),
        kind: Kind::Type,
        summarizer: "tsc",
        invocations: &[
            Invocation::program("tsc"),
            Invocation::program("vue-tsc").not_by_verifier(),
        ],
        npm_package: Some("typescript"),
        owned: &[
            ("-p", true),
            ("--project", true),
            ("--pretty", false),
            ("-w", false),
            ("--watch", false),
            ("--noEmit", false),
            ("--emitDeclarationOnly", false),
            ("--listFiles", false),
            ("--diagnostics", false),
            ("--extendedDiagnostics", false),
            ("--listEmittedFiles", false),
            ("--showConfig", false),
            ("--generateTrace", true),
            ("--init", false),
            ("-v", false),
            ("--version", false),
            ("-h", false),
            ("--help", false),
        ],
        wraps_coverage: false,
        post_edit: PostEdit::Project(&["ts", "tsx", "mts", "cts"]),
        end_line: Some("Found 3 errors in 2 files."),
        // A config `extends` and `references` others, in any directory.
        configs: &[ConfigFile::Whole("**/tsconfig*.json")],
        install: "npm install --save-dev typescript",
    },
    /// ESLint.
    Eslint => ToolSpec {
        name: "eslint",
        aliases: &[],
        linked: Some("eslint"),
        kind: Kind::Lint,
        summarizer: "eslint",
        invocations: &[
            Invocation::program("eslint"),
            Invocation::with("next", &["lint"]).not_by_verifier(),
        ],
        npm_package: Some("eslint"),
        owned: &[
            ("-f", true),
            ("--format", true),
            ("-o", true),
            ("--output-file", true),
            ("--fix", false),
            ("--fix-dry-run", false),
            ("--fix-type", true),
            ("--color", false),
            ("--no-color", false),
            ("--max-warnings", true),
            ("--quiet", false),
            ("--cache", false),
            ("--cache-location", true),
        ],
        wraps_coverage: false,
        post_edit: PostEdit::Files,
        end_line: Some("✖ 4 problems (3 errors, 1 warning)"),
        // eslint 10 looks a flat config up from each file's directory; legacy configs cascade
        // by directory.
        configs: &[
            ConfigFile::Whole("**/eslint.config.*"),
            ConfigFile::Whole("**/.eslintrc"),
            ConfigFile::Whole("**/.eslintrc.*"),
            ConfigFile::Whole(".eslintignore"),
            ConfigFile::Json("**/package.json", &["eslintConfig"]),
            ConfigFile::Json("package.json", &["eslintIgnore"]),
        ],
        install: "npm install --save-dev eslint",
    },
    /// Jest.
    Jest => ToolSpec {
        name: "jest",
        aliases: &[],
        linked: Some("js-test"),
        kind: Kind::Test,
        summarizer: "jest",
        invocations: &[Invocation::program("jest")],
        npm_package: Some("jest"),
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: Some("Ran all test suites."),
        // Babel's configuration, which jest's default transform reads (project-wide, by
        // directory, and `package.json`'s `babel`). Snapshots are not here: they are expected
        // values, which `allow_test_edits` governs, not how the tests run.
        configs: &[
            ConfigFile::Whole("jest.config.*"),
            ConfigFile::Whole("babel.config.*"),
            ConfigFile::Whole("**/.babelrc"),
            ConfigFile::Whole("**/.babelrc.*"),
            ConfigFile::Json("package.json", &["jest"]),
            ConfigFile::Json("package.json", &["babel"]),
        ],
        install: "npm install --save-dev jest",
    },
    /// Vitest.
    Vitest => ToolSpec {
        name: "vitest",
        aliases: &[],
        linked: Some("js-test"),
        kind: Kind::Test,
        summarizer: "vitest",
        invocations: &[Invocation::program("vitest")],
        npm_package: Some("vitest"),
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: Some("   Duration  1.52s (transform 90ms, setup 0ms)"),
        configs: &[
            ConfigFile::Whole("vitest.config.*"),
            ConfigFile::Whole("vite.config.*"),
            ConfigFile::Whole("vitest.workspace.*"),
        ],
        install: "npm install --save-dev vitest",
    },
    /// Mocha.
    Mocha => ToolSpec {
        name: "mocha",
        aliases: &[],
        linked: Some("js-test"),
        kind: Kind::Test,
        summarizer: "mocha",
        invocations: &[Invocation::program("mocha"), Invocation::program("_mocha")],
        npm_package: Some("mocha"),
        owned: &[],
        wraps_coverage: true,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[
            ConfigFile::Whole(".mocharc.js"),
            ConfigFile::Whole(".mocharc.cjs"),
            ConfigFile::Whole(".mocharc.mjs"),
            ConfigFile::Whole(".mocharc.json"),
            ConfigFile::Whole(".mocharc.jsonc"),
            ConfigFile::Whole(".mocharc.yaml"),
            ConfigFile::Whole(".mocharc.yml"),
            ConfigFile::Whole("test/mocha.opts"),
            ConfigFile::Json("package.json", &["mocha"]),
        ],
        install: "npm install --save-dev mocha",
    },
    /// Node.js's own test runner, `node --test`.
    NodeTest => ToolSpec {
        name: "node-test",
        aliases: &["node --test"],
        linked: Some("js-test"),
        kind: Kind::Test,
        summarizer: "node-test",
        invocations: &[Invocation::with("node", &["--test"])],
        npm_package: None,
        owned: &[
            ("--test", false),
            ("--test-reporter", true),
            ("--test-reporter-destination", true),
            ("--watch", false),
            ("--watch-path", true),
            ("--watch-preserve-output", false),
            ("--test-shard", true),
        ],
        wraps_coverage: true,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[],
        install: "install Node.js 20 or later",
    },
    /// A TAP producer (node-tap, tape), read from the project's own command.
    Tap => ToolSpec {
        name: "tap",
        aliases: &["tape"],
        linked: None,
        kind: Kind::Test,
        summarizer: "tap",
        invocations: &[
            Invocation::program("tap").not_by_verifier(),
            Invocation::program("tape").not_by_verifier(),
        ],
        npm_package: None,
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[],
        install: "npm install --save-dev tap",
    },
    /// pytest.
    Pytest => ToolSpec {
        name: "pytest",
        aliases: &["py.test"],
        linked: Some("pytest"),
        kind: Kind::Test,
        summarizer: "pytest",
        invocations: &[
            Invocation::program("pytest"),
            Invocation::program("py.test"),
            Invocation::python(&["-m", "pytest"]),
        ],
        npm_package: None,
        owned: &[
            ("--junitxml", true),
            ("--junit-xml", true),
            ("--color", true),
            ("--lf", false),
            ("--last-failed", false),
            ("--ff", false),
            ("--failed-first", false),
            ("--sw", false),
            ("--stepwise", false),
            ("--pdb", false),
            ("--co", false),
            ("--collect-only", false),
        ],
        wraps_coverage: true,
        post_edit: PostEdit::No,
        end_line: Some("==================== 2 failed, 5 passed in 0.31s ===================="),
        // pytest reads its configuration from the rootdir it finds from the test paths
        // upwards, so a file of that name in any directory may be the one it uses.
        configs: &[
            ConfigFile::Whole("**/conftest.py"),
            ConfigFile::Whole("**/pytest.toml"),
            ConfigFile::Whole("**/.pytest.toml"),
            ConfigFile::Whole("**/pytest.ini"),
            ConfigFile::Whole("**/.pytest.ini"),
            PYTHON_STARTUP[0],
            PYTHON_STARTUP[1],
            ConfigFile::Toml("**/pyproject.toml", &["tool", "pytest"]),
            ConfigFile::Ini("**/setup.cfg", "tool:pytest"),
            ConfigFile::Ini("**/tox.ini", "pytest"),
        ],
        install: "python -m pip install pytest",
    },
    /// Python's unittest, `python -m unittest`.
    Unittest => ToolSpec {
        name: "unittest",
        aliases: &[],
        linked: Some("pytest"),
        kind: Kind::Test,
        summarizer: "unittest",
        invocations: &[Invocation::python(&["-m", "unittest"])],
        npm_package: None,
        owned: &[],
        wraps_coverage: true,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[PYTHON_STARTUP[0], PYTHON_STARTUP[1]],
        install: "install Python 3",
    },
    /// `cargo test`, or cargo-nextest where the project uses it.
    CargoTest => ToolSpec {
        name: "cargo-test",
        aliases: &["nextest", "cargo-nextest"],
        linked: Some("cargo"),
        kind: Kind::Test,
        summarizer: "cargo",
        invocations: &[
            Invocation::with("cargo", &["test"]),
            Invocation::with("cargo", &["nextest", "run"]).printing("nextest"),
        ],
        npm_package: None,
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: None,
        // nextest's configuration, whose presence alone makes the tests run under it.
        configs: &[ConfigFile::Whole(".config/nextest.toml")],
        install: "install Rust with rustup (https://rustup.rs)",
    },
    /// Rust's doctests, which `cargo test` runs.
    CargoDoctest => ToolSpec {
        name: "cargo-doctest",
        aliases: &[],
        linked: Some("cargo"),
        kind: Kind::Test,
        summarizer: "cargo",
        invocations: &[],
        npm_package: None,
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[],
        install: "install Rust with rustup (https://rustup.rs)",
    },
    /// `cargo check`.
    CargoCheck => ToolSpec {
        name: "cargo-check",
        aliases: &[],
        linked: Some("cargo"),
        kind: Kind::Build,
        summarizer: "cargo",
        invocations: &[Invocation::with("cargo", &["check"])],
        npm_package: None,
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[],
        install: "install Rust with rustup (https://rustup.rs)",
    },
    /// `cargo build`, read from the project's own command.
    CargoBuild => ToolSpec {
        name: "cargo-build",
        aliases: &[],
        linked: None,
        kind: Kind::Build,
        summarizer: "cargo",
        invocations: &[Invocation::with("cargo", &["build"]).not_by_verifier()],
        npm_package: None,
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[],
        install: "install Rust with rustup (https://rustup.rs)",
    },
    /// Clippy, `cargo clippy`.
    Clippy => ToolSpec {
        name: "clippy",
        aliases: &["cargo-clippy"],
        linked: Some("cargo"),
        kind: Kind::Lint,
        summarizer: "cargo",
        invocations: &[Invocation::with("cargo", &["clippy"])],
        npm_package: None,
        owned: &[],
        wraps_coverage: false,
        post_edit: PostEdit::Project(&["rs"]),
        end_line: None,
        // clippy's own, read from each package's directory upwards.
        configs: &[
            ConfigFile::Whole("**/clippy.toml"),
            ConfigFile::Whole("**/.clippy.toml"),
        ],
        install: "rustup component add clippy",
    },
    /// Ruff's linter, `ruff check`, and its formatter's check, `ruff format --check`.
    Ruff => ToolSpec {
        name: "ruff",
        aliases: &[],
        linked: Some("python-check"),
        kind: Kind::Lint,
        summarizer: "ruff",
        invocations: &[
            Invocation {
                unless: &["--add-noqa"],
                ..Invocation::with("ruff", &["check"])
            },
            Invocation {
                requires_one_of: &["--check", "--diff"],
                ..Invocation::with("ruff", &["format"])
            },
            Invocation {
                unless: &["--add-noqa"],
                ..Invocation::python(&["-m", "ruff", "check"])
            },
        ],
        npm_package: None,
        owned: &[
            ("--output-format", true),
            ("--format", true),
            ("-o", true),
            ("--output-file", true),
            ("--fix", false),
            ("--fix-only", false),
            ("--unsafe-fixes", false),
            ("--add-noqa", false),
            ("--watch", false),
            ("--no-fix", false),
            ("--show-fixes", false),
            ("--no-show-fixes", false),
            ("--statistics", false),
            ("-q", false),
            ("--quiet", false),
            ("-s", false),
            ("--silent", false),
            ("-e", false),
            ("--exit-zero", false),
            ("--exit-non-zero-on-fix", false),
        ],
        wraps_coverage: false,
        post_edit: PostEdit::Files,
        end_line: None,
        configs: &[
            ConfigFile::Whole("**/ruff.toml"),
            ConfigFile::Whole("**/.ruff.toml"),
            ConfigFile::Toml("**/pyproject.toml", &["tool", "ruff"]),
        ],
        install: "python -m pip install ruff",
    },
    /// mypy.
    Mypy => ToolSpec {
        name: "mypy",
        aliases: &[],
        linked: Some("python-check"),
        kind: Kind::Type,
        summarizer: "mypy",
        invocations: &[
            Invocation::program("mypy"),
            Invocation::python(&["-m", "mypy"]),
        ],
        npm_package: None,
        owned: &[
            ("-O", true),
            ("--output", true),
            ("--pretty", false),
            ("--no-pretty", false),
            ("--color-output", false),
            ("--no-color-output", false),
            ("--error-summary", false),
            ("--no-error-summary", false),
            ("--junit-xml", true),
            ("--junit-format", true),
            ("--html-report", true),
            ("--xslt-html-report", true),
            ("--txt-report", true),
            ("--xslt-txt-report", true),
            ("--xml-report", true),
            ("--cobertura-xml-report", true),
            ("--linecount-report", true),
            ("--linecoverage-report", true),
            ("--lineprecision-report", true),
            ("--any-exprs-report", true),
        ],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[
            ConfigFile::Whole("mypy.ini"),
            ConfigFile::Whole(".mypy.ini"),
            ConfigFile::Toml("pyproject.toml", &["tool", "mypy"]),
            ConfigFile::Ini("setup.cfg", "mypy*"),
        ],
        install: "python -m pip install mypy",
    },
    /// Pyright.
    Pyright => ToolSpec {
        name: "pyright",
        aliases: &[],
        linked: Some("python-check"),
        kind: Kind::Type,
        summarizer: "pyright",
        invocations: &[Invocation::program("pyright")],
        npm_package: Some("pyright"),
        owned: &[
            ("--outputjson", false),
            ("-w", false),
            ("--watch", false),
            ("--verbose", false),
            // `--outputjson` refuses it.
            ("--stats", false),
        ],
        wraps_coverage: false,
        post_edit: PostEdit::No,
        end_line: None,
        configs: &[
            ConfigFile::Whole("pyrightconfig.json"),
            ConfigFile::Toml("pyproject.toml", &["tool", "pyright"]),
        ],
        install: "npm install --save-dev pyright (or python -m pip install pyright)",
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invoked(line: &str) -> Option<&'static str> {
        let words: Vec<&str> = line.split_whitespace().collect();
        Tool::invoked_by(&words).map(|(tool, _)| tool.name())
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for tool in Tool::ALL {
            let spec = tool.spec();
            for name in std::iter::once(&spec.name).chain(spec.aliases) {
                assert!(seen.insert(*name), "{name} names two tools");
            }
        }
    }

    #[test]
    fn command_lines_find_their_tool() {
        for (line, tool) in [
            ("jest --ci", Some("jest")),
            ("python3.12 -m pytest -x", Some("pytest")),
            ("python -m unittest discover", Some("unittest")),
            ("cargo nextest run --workspace", Some("cargo-test")),
            ("cargo nextest list", None),
            ("cargo build --release", Some("cargo-build")),
            ("node --import tsx --test test/", Some("node-test")),
            ("node build.js --test", None),
            ("ruff check src", Some("ruff")),
            // The verifier checks without the fix: it never edits the project's files.
            ("ruff check --fix src", Some("ruff")),
            ("ruff check --add-noqa src", None),
            ("ruff format --check .", Some("ruff")),
            ("ruff format .", None),
            ("python -m mypy src", Some("mypy")),
            ("pyright --project .", Some("pyright")),
            ("pythonista -m pytest", None),
        ] {
            assert_eq!(invoked(line), tool, "{line}");
        }
    }

    #[test]
    fn every_tool_has_an_install_hint_and_a_summarizer() {
        for tool in Tool::ALL {
            let spec = tool.spec();
            assert!(
                !spec.install.is_empty() && !spec.summarizer.is_empty(),
                "{}",
                spec.name
            );
            assert_eq!(Tool::named(spec.name), Some(*tool));
        }
    }
}
