//! `verdict fleet add`: tasks from a JSONL file (one task a line) or from flags, added
//! idempotently by key.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use verdict_fleet::NewTask;

use super::StateArg;
use super::open::{absolute, current_dir, runtime};
use crate::exit::ExitCode;

/// Tasks added per transaction: a file of 100 000 lines is added in steps, each all or nothing,
/// and adding it again adds only what a cut run did not.
const BATCH: usize = 500;

/// Arguments of `verdict fleet add`.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    state: StateArg,

    /// A JSONL file of tasks, one a line (`-`: stdin)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["task", "workspace"])]
    file: Option<PathBuf>,

    /// One task's workspace: a directory or a git URL
    #[arg(long, value_name = "DIR|URL", requires = "task")]
    workspace: Option<String>,

    /// One task's text
    #[arg(long, value_name = "TEXT", requires = "workspace")]
    task: Option<String>,

    /// One task's agent (give it several times to fall back from one to the next)
    #[arg(long = "agent", value_name = "CMD")]
    agents: Vec<String>,

    /// One task's key (default: derived from what it asks)
    #[arg(long, value_name = "KEY")]
    key: Option<String>,

    /// One task's revision, checked out into a fresh work directory
    #[arg(long, value_name = "REV")]
    rev: Option<String>,

    /// One task's campaign
    #[arg(long, value_name = "NAME")]
    campaign: Option<String>,

    /// One task's priority (higher runs first)
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    priority: i32,

    /// One task's attempts in all
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    max_attempts: Option<u32>,
}

/// Runs `verdict fleet add`.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let tasks = match &args.file {
        Some(file) => from_file(file)?,
        None => vec![from_flags(args)?],
    };
    let runtime = runtime()?;
    let (added, there) = runtime.block_on(async {
        let store = args.state.open().await?;
        let (mut added, mut there) = (Vec::new(), Vec::new());
        for batch in tasks.chunks(BATCH) {
            for ((id, new), task) in store.add(batch).await?.into_iter().zip(batch) {
                if new {
                    added.push((id, task.key.clone()));
                } else {
                    there.push((id, task.key.clone()));
                }
            }
        }
        anyhow::Ok((added, there))
    })?;
    for (id, key) in &added {
        println!("added task {id} ({key})");
    }
    println!(
        "{} added, {} already in the fleet",
        added.len(),
        there.len()
    );
    Ok(ExitCode::Success)
}

/// The tasks of a JSONL file: every line checked before any is added.
fn from_file(file: &Path) -> Result<Vec<NewTask>> {
    let (text, base) = if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("failed to read tasks from stdin")?;
        (text, current_dir()?)
    } else {
        let file = absolute(file)?;
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("failed to read {}", file.display()))?;
        let base = file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or(current_dir()?);
        (text, base)
    };
    let mut tasks = Vec::new();
    let mut errors = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let read_file = |name: &str| {
            let path = base.join(name);
            std::fs::read_to_string(&path).map_err(|source| verdict_fleet::FleetError::Io {
                what: format!("failed to read the task file {}", path.display()),
                source,
            })
        };
        match NewTask::from_line(line, read_file) {
            Ok(mut task) => {
                task.workspace = local_made_absolute(&task.workspace, &base);
                tasks.push(task);
            }
            Err(error) => errors.push(format!("line {}: {error}", n + 1)),
        }
    }
    if !errors.is_empty() {
        bail!(
            "{} line(s) of the tasks file are not tasks, so none was added:\n  {}",
            errors.len(),
            errors.join("\n  ")
        );
    }
    Ok(tasks)
}

/// One task from the flags.
fn from_flags(args: &Args) -> Result<NewTask> {
    let (Some(workspace), Some(task)) = (&args.workspace, &args.task) else {
        bail!(crate::run::usage(
            "give --file, or --workspace, --task and --agent".to_owned()
        ));
    };
    let line = serde_json::json!({
        "key": args.key,
        "workspace": local_made_absolute(workspace, &current_dir()?),
        "rev": args.rev,
        "task": task,
        "agent": args.agents,
        "campaign": args.campaign,
        "priority": args.priority,
        "max_attempts": args.max_attempts,
    });
    let mut line = line;
    if let Some(object) = line.as_object_mut() {
        object.retain(|_, v| !v.is_null());
    }
    Ok(NewTask::from_line(&line.to_string(), |_| {
        Err(verdict_fleet::FleetError::Invalid("no task file".into()))
    })?)
}

/// A workspace that names a local path, absolute (workers run elsewhere); a URL as it is.
fn local_made_absolute(workspace: &str, base: &Path) -> String {
    let url = workspace.contains("://")
        || (workspace.contains('@') && workspace.contains(':') && !workspace.starts_with('/'));
    if url || Path::new(workspace).is_absolute() {
        return workspace.to_owned();
    }
    let joined = base.join(workspace);
    std::fs::canonicalize(&joined)
        .unwrap_or(joined)
        .to_string_lossy()
        .into_owned()
}
