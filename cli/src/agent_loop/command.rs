//! The `verdict loop` command: the task, the sink and guide, the run, and its exit code.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use verdict_core::agent_loop::driver::{self, Guide, GuideRequest, LoopEvent, LoopParts};
use verdict_core::paths;
use verdict_core::state::StateDb;

use super::args::Args;
use super::build::{Built, build, policies};
use super::output::Output;
use super::settings::settings;
use crate::exit::ExitCode;
use crate::run::{self, usage};
use crate::verify;

/// Runs the command and returns the exit code.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let (root, config) = run::load_config(args.dir.as_deref())?;
    // Runs are found again by their workspace's path, so one directory must have one spelling
    // whichever way it was named (`-C proj/`, `-C proj`, through a symlink).
    let root = std::fs::canonicalize(&root)
        .with_context(|| format!("failed to resolve {}", root.display()))?;
    let task = task(args, &root)?;
    let policies = policies(&config)?;
    let settings = settings(args, &root, &task, &config, &policies)?;
    let built = build(&root, &config, task, &settings, policies, false)?;
    if settings.reset {
        events_outside_the_tree(args.events.as_deref(), &root)?;
    }
    let output = Output::new(args)?;
    let sink = {
        let output = Arc::clone(&output);
        Box::new(move |event: &LoopEvent| {
            let mut output = output.lock().unwrap_or_else(|p| p.into_inner());
            output.event(event);
        })
    };
    let guide = args.interactive.then(interactive_guide).flatten();
    let Built {
        spec,
        verify,
        pool,
        runner,
        interrupted,
    } = built;
    let parts = LoopParts {
        verify,
        pool,
        runner: runner.clone(),
        sink,
        guide,
        interrupted: Arc::clone(&interrupted),
        exit_code: ExitCode::loop_code,
    };

    let runtime = verify::runtime()?;
    let end = runtime.block_on(async {
        verify::forward_signals(&runner, &interrupted);
        driver::run_with_settings(spec, parts, settings).await
    });
    runtime.shutdown_timeout(Duration::from_millis(100));
    // Each of the loop's errors says what it comes from in its message.
    let end = end.map_err(|e| usage(e.to_string()))?;
    let mut output = output.lock().unwrap_or_else(|p| p.into_inner());
    output.finish(&end)?;
    Ok(ExitCode::of_loop(end.outcome))
}

/// The task: `--task`, `--task-file`, or with `--resume` alone the latest unfinished run's.
fn task(args: &Args, root: &Path) -> Result<String> {
    let task = match (&args.task, &args.task_file) {
        (Some(task), _) => task.clone(),
        (None, Some(file)) => std::fs::read_to_string(file)
            .with_context(|| format!("failed to read the task file {}", file.display()))?,
        (None, None) if args.resume => {
            let path = verdict_core::paths::state_db(root);
            let db = StateDb::open(&path)
                .with_context(|| format!("failed to open the state database {}", path.display()))?;
            let runs = db.runs()?;
            let workspace = root.to_string_lossy();
            match runs
                .into_iter()
                .find(|r| !r.state.is_terminal() && r.workspace == workspace)
            {
                Some(run) => run.task,
                None => bail!(usage(format!(
                    "no unfinished loop run to resume in {}",
                    root.display()
                ))),
            }
        }
        (None, None) => bail!(usage("give the task with --task TEXT or --task-file FILE")),
    };
    if task.trim().is_empty() {
        bail!(usage("the task is empty"));
    }
    if args.resume && (args.task.is_some() || args.task_file.is_some()) {
        let path = verdict_core::paths::state_db(root);
        let db = StateDb::open(&path)
            .with_context(|| format!("failed to open the state database {}", path.display()))?;
        let hash = verdict_core::state::task_hash(&task);
        if db.find_run_by_task(&hash, root)?.is_none() {
            bail!(usage(format!(
                "--resume: no unfinished loop run of this task in {}",
                root.display()
            )));
        }
    }
    Ok(task)
}

/// With `--reset`, the events file must not be part of the tree that is restored before every
/// attempt: the restore would take it back to what it held at the start (or remove it), and the
/// events written since would be lost. Under `.verdict/` it is never part of the tree.
fn events_outside_the_tree(events: Option<&Path>, root: &Path) -> Result<()> {
    let Some(path) = events else {
        return Ok(());
    };
    let absolute = std::path::absolute(path)
        .with_context(|| format!("failed to resolve {}", path.display()))?;
    // The file may not exist yet, its directory must: when it does not, opening the file fails
    // with the error that says so.
    let Some(dir) = absolute
        .parent()
        .and_then(|d| std::fs::canonicalize(d).ok())
    else {
        return Ok(());
    };
    if dir.starts_with(root) && !dir.starts_with(paths::dir(root)) {
        bail!(usage(format!(
            "--events {}: the file is inside the workspace, which --reset restores before every \
             attempt, so the events written until then would be lost; write it outside {} or \
             under verdict's directory",
            path.display(),
            root.display()
        )));
    }
    Ok(())
}

/// `--interactive`: asks at the terminal between attempts; `None` (with a warning) when there is
/// no terminal, so that a loop in CI never waits for a person who is not there.
fn interactive_guide() -> Option<Guide> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty");
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    let tty = match tty {
        Ok(tty) if interactive => tty,
        _ => {
            eprintln!("verdict: --interactive needs a terminal; going on without asking");
            return None;
        }
    };
    let tty = Arc::new(Mutex::new(tty));
    Some(Box::new(move |request: &GuideRequest| {
        let mut tty = tty.lock().ok()?;
        let _ = writeln!(
            tty,
            "\nattempt {} failed verification:\n{}\n\nguidance for attempt {} (end with an empty \
             line; nothing to go on as is):",
            request.attempt, request.digest, request.next
        );
        let mut reader = std::io::BufReader::new(&*tty);
        let mut text = String::new();
        loop {
            let mut line = String::new();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) if line.trim().is_empty() => break,
                Ok(_) => text.push_str(&line),
            }
        }
        let text = text.trim_end().to_owned();
        (!text.is_empty()).then_some(text)
    }))
}
