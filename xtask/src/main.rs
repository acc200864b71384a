//! `cargo xtask`: the project's automation, in Rust so that it runs wherever cargo does.
//!
//! - `cargo xtask test`: everything CI runs; the tests with cargo-nextest (installed when missing).
//! - `cargo xtask example [ARGS…]`: install the example project's tools and run `verdict run` on it.
//! - `cargo xtask tools`: install the real tools the tests run into `target/verdict-tools/`.
//! - `cargo xtask capture [TOOL…]`: install the pinned tools and regenerate the real logs under
//!   `summarizers/testdata/`.
//! - `cargo xtask schemas`: regenerate the JSON Schemas of the JSON report and of verdict.toml
//!   under `schemas/` from the Rust types.
//! - `cargo xtask dist [--profile NAME]`: the stripped binary's archive, the Python wheel and the
//!   npm tarballs of this machine's platform, in `target/dist/` (see `xtask/src/dist.rs`).
//! - `cargo xtask plugin [--release]`: build the example verifier plugin and print its path.
//! - `cargo xtask bench [TOOL…]`: parser throughput on 100 MiB logs, against ripgrep;
//!   `cargo xtask bench --pipeline`: `verdict run` against its tools run one by one and in parallel;
//!   `cargo xtask bench --merge`: `verdict merge` of 100 shard reports of 10 000 tests each;
//!   `cargo xtask bench --mcp`: the `verify` tool of a warm `verdict mcp` against its tools;
//!   `cargo xtask bench --loop [--before BINARY]`: seconds of verification per failed attempt of
//!   `verdict loop`.

mod bench;
mod bench_loop;
mod bench_mcp;
mod bench_merge;
mod bench_pipeline;
mod capture;
mod dist;
mod example;
mod nextest;
mod plugin;
mod schemas;
mod tidy;
mod tools;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "verdict's project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run everything CI runs: formatting, clippy, and the whole test suite.
    Test,
    /// Install the real tools the tests run (npm tools with their Node.js, a venv with pytest)
    /// into `target/verdict-tools/`, and the distribution's PostgreSQL when it is missing.
    Tools,
    /// Install what the example project needs and run `verdict run` on it (the README's main job).
    Example {
        /// Arguments passed on to `verdict run` (`--format json`, `--only tsc`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Regenerate the JSON Schemas under `schemas/` (the JSON report, verdict.toml) from the
    /// Rust types; a test fails while they are out of date.
    Schemas,
    /// Build what a release publishes for this machine's platform into `target/dist/`: the
    /// binary's `.tar.gz` with its `.sha256`, the Python wheel (maturin) and the npm tarballs.
    Dist {
        /// The cargo profile of the binary and the wheel.
        #[arg(long, default_value = "dist")]
        profile: String,
        /// Build for this Rust target instead of the host's.
        #[arg(long)]
        target: Option<String>,
        /// Package this already-built binary (archive and npm) instead of building one.
        #[arg(long)]
        binary: Option<PathBuf>,
        /// Where the packages go.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Leave out the wheel.
        #[arg(long)]
        no_wheel: bool,
    },
    /// Build the example verifier plugin (`git-diff-check`) as a shared library and print its path.
    Plugin {
        /// Build with the release profile.
        #[arg(long)]
        release: bool,
    },
    /// Install the pinned tools and regenerate the real logs the parser tests use.
    Capture {
        /// Only these tools (tsc, eslint, jest, vitest, mocha, cargo, nextest, pytest, generic).
        tools: Vec<String>,
        /// Where tools are installed and fixture projects run.
        #[arg(long, default_value = "/tmp/verdict-capture")]
        root: PathBuf,
        /// Where the logs go.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Measure each parser's throughput on 100 MiB+ logs built from the captured ones, against
    /// ripgrep on the same logs (installs ripgrep if missing), and print a Markdown table.
    Bench {
        /// Only these tools (default: every tool with captured logs).
        tools: Vec<String>,
        /// Size of each generated log, in MiB.
        #[arg(long, default_value_t = 100)]
        mib: u64,
        /// Timed runs of `rg` and `verdict summarize` on each log (after one warm-up run).
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// Do not rerun criterion: report its last results next to fresh rg timings.
        #[arg(long)]
        no_criterion: bool,
        /// Instead of parser throughput, time `verdict run` on the example project against its
        /// tools run one after another and against the floor of a parallel run.
        #[arg(long)]
        pipeline: bool,
        /// Instead of parser throughput, time the `verify` tool of a warm `verdict mcp` against
        /// the tools it runs.
        #[arg(long, conflicts_with = "pipeline")]
        mcp: bool,
        /// Instead of parser throughput, time the verification of each failed attempt of
        /// `verdict loop` on a project whose suite takes a few seconds.
        #[arg(long = "loop", conflicts_with_all = ["pipeline", "mcp"])]
        loop_cost: bool,
        /// With `--loop`: another `verdict` binary (the one before a change) to measure beside.
        #[arg(long, requires = "loop_cost")]
        before: Option<std::path::PathBuf>,
        /// Instead of parser throughput, time `verdict merge` on 100 shard reports of 10 000
        /// tests each, and its peak memory.
        #[arg(long, conflicts_with_all = ["pipeline", "mcp", "loop_cost"])]
        merge: bool,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let done = match cli.command {
        Command::Test => test(),
        Command::Schemas => schemas::run(),
        Command::Tools => tools::install().map(|root| println!("{}", root.display())),
        Command::Example { args } => return example::run(&args),
        Command::Dist {
            profile,
            target,
            binary,
            out,
            no_wheel,
        } => dist::run(&dist::Options {
            profile,
            target,
            binary,
            out: out.unwrap_or_else(|| capture::repo_root().join("target/dist")),
            wheel: !no_wheel,
        }),
        Command::Plugin { release } => {
            plugin::build(release).map(|library| println!("{}", library.display()))
        }
        Command::Capture { tools, root, out } => capture::run(&capture::Options {
            root,
            tools,
            out: out.unwrap_or_else(|| capture::repo_root().join("summarizers/testdata")),
        }),
        Command::Bench {
            runs, merge: true, ..
        } => bench_merge::run(runs.max(1)),
        Command::Bench {
            runs,
            pipeline: true,
            ..
        } => bench_pipeline::run(runs.max(1)),
        Command::Bench {
            runs, mcp: true, ..
        } => bench_mcp::run(runs.max(1)),
        Command::Bench {
            runs,
            loop_cost: true,
            before,
            ..
        } => bench_loop::run(runs.max(1), before),
        Command::Bench {
            tools,
            mib,
            runs,
            no_criterion,
            pipeline: false,
            mcp: false,
            loop_cost: false,
            merge: false,
            ..
        } => bench::run(&bench::Options {
            tools,
            mib,
            runs: runs.max(1),
            no_criterion,
        }),
    };
    done.map(|()| ExitCode::SUCCESS)
}

/// Runs a cargo subcommand in the repository, failing on a non-zero exit.
fn cargo(args: &[&str]) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    run_in_repo(Path::new(&cargo), args, &ci_build_env())
}

/// In CI (a fresh clone, built once), incremental compilation only writes data no later build
/// reads: it is turned off unless the caller chose otherwise.
fn ci_build_env() -> Vec<(&'static str, &'static OsStr)> {
    let in_ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false");
    if in_ci && std::env::var_os("CARGO_INCREMENTAL").is_none() {
        vec![("CARGO_INCREMENTAL", OsStr::new("0"))]
    } else {
        Vec::new()
    }
}

/// Runs `program ARGS` in the repository with more environment variables, failing on a non-zero
/// exit.
fn run_in_repo(program: &Path, args: &[&str], env: &[(&str, &OsStr)]) -> Result<()> {
    let name = program.file_name().unwrap_or(program.as_os_str());
    let shown: Vec<String> = env
        .iter()
        .filter(|(key, _)| *key != "PATH")
        .map(|(key, value)| format!("{key}={}", value.to_string_lossy()))
        .chain(std::iter::once(name.to_string_lossy().into_owned()))
        .chain(args.iter().map(|arg| (*arg).to_owned()))
        .collect();
    eprintln!("$ {}", shown.join(" "));
    let mut command = duct::cmd(program, args).dir(capture::repo_root());
    for (key, value) in env {
        command = command.env(key, value);
    }
    command
        .run()
        .with_context(|| format!("{} {} failed", name.to_string_lossy(), args.join(" ")))?;
    Ok(())
}

fn test() -> Result<()> {
    cargo(&["fmt", "--all", "--", "--check"])?;
    cargo(&[
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ])?;
    let tools = tools::install()?;
    let nextest = nextest::install(&tools)?;
    // The tests that run real tools find them here (see `xtask/src/tools.rs`), and the tests of the
    // nextest verifier find the same cargo-nextest on `PATH`.
    let path = nextest::path_with(&nextest)?;
    let mut env = vec![
        ("VERDICT_TOOLS", tools.as_os_str()),
        ("PATH", path.as_os_str()),
    ];
    env.extend(ci_build_env());
    run_in_repo(
        &nextest,
        &["nextest", "run", "--workspace", "--all-targets"],
        &env,
    )?;
    // nextest does not run doc tests.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    run_in_repo(Path::new(&cargo), &["test", "--doc", "--workspace"], &env)?;
    Ok(())
}
