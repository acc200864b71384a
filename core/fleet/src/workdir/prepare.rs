//! Preparing a task's work directory: a clone, a linked work tree at the task's revision, or the
//! workspace itself; reused once prepared.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::git::{Git, REMOTE_TIMEOUT};
use super::state;
use crate::error::{FleetError, Result};
use crate::task::TaskRecord;

/// What kind of work directory a task has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The workspace itself (a local directory and no revision).
    InPlace,
    /// A linked work tree of a local repository (`git worktree add --detach`).
    Worktree,
    /// A clone of a repository named by URL or a bare repository's path.
    Clone,
}

/// A task's work directory, ready for an attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prepared {
    /// Where the agent and the verifiers run (the workspace's own directory within the work
    /// tree, when the workspace is a sub-directory of its repository).
    pub root: PathBuf,
    /// Made now: its setup command is due before the first attempt.
    pub fresh: bool,
    /// The commit the task started from; `None` for a directory outside git.
    pub start: Option<String>,
    /// The branch [`super::keep_changes`] records the agent's work on; `None` outside git.
    pub branch: Option<String>,
    /// What kind it is.
    pub kind: Kind,
}

/// Where a task's workspace comes from.
#[derive(Debug)]
enum Source {
    /// Cloned: a URL, or the path of a bare repository.
    Remote(String),
    /// A local repository's work tree: the top, and the workspace's path within it.
    Repo { top: PathBuf, prefix: PathBuf },
    /// A local directory outside git.
    Dir(PathBuf),
}

/// Prepares the work directory of `task` under `base` (as `base/task-<id>`), or finds the one
/// prepared before.
///
/// - A workspace named by URL (`scheme://…`, `user@host:path`) or a bare repository's path is
///   cloned, and `rev` (default: the remote's `HEAD`) checked out detached.
/// - A local repository with `rev` gets a linked work tree at `rev`, detached.
/// - A local directory without `rev` is used in place. Only one loop at a time works in a
///   workspace (the loop's workspace lock refuses a second), so in-place tasks of one workspace
///   run one after another, never side by side.
///
/// A task whose stored work directory exists gets it back as it is (`fresh: false`). A
/// directory left at `base/task-<id>` without being recorded is the task's when its checkout
/// was completed (a worker died during an attempt that was rescued): it is handed back, `fresh`
/// while its setup has not run to its end. One left half-made (a worker died while preparing
/// it) is removed, with what was left running in it, and prepared anew. A task whose branch
/// holds earlier work — in the repository, or pushed to the remote a clone comes from —
/// continues from that branch's tip, so another host can take over a task whose work was pushed.
pub async fn prepare(task: &TaskRecord, base: &Path) -> Result<Prepared> {
    let fail = |message: String| FleetError::Workdir {
        task: task.id,
        message,
    };
    let workspace = task.spec.workspace.trim();
    let rev = task.spec.rev.as_deref().map(str::trim);
    refuse_option("workspace", workspace).map_err(fail)?;
    if let Some(rev) = rev {
        refuse_option("rev", rev).map_err(fail)?;
        if rev.is_empty() {
            return Err(fail("`rev` is empty".into()));
        }
    }
    let source = classify(workspace).await.map_err(fail)?;

    if let Some(stored) = task.workdir.as_deref().map(PathBuf::from)
        && stored.is_dir()
    {
        return stored_again(stored, &source, &task.spec.key, rev).await;
    }

    let key = &task.spec.key;
    let target = base.join(format!("task-{}", task.id));
    match source {
        Source::Dir(dir) => {
            if rev.is_some() {
                return Err(fail(format!(
                    "`rev` needs a git repository, and {} is not in one",
                    dir.display()
                )));
            }
            Ok(Prepared {
                root: dir,
                fresh: true,
                start: None,
                branch: None,
                kind: Kind::InPlace,
            })
        }
        Source::Repo { top, prefix } if rev.is_none() => in_repo(&top, &prefix, key).await,
        Source::Repo { top, prefix } => {
            let rev = rev.unwrap_or("HEAD");
            worktree(&top, &prefix, rev, key, &target, base).await
        }
        Source::Remote(url) => clone(&url, rev, key, &target, base).await,
    }
}

/// The work directory recorded for the task, handed back as it is, with the start it recorded.
async fn stored_again(
    stored: PathBuf,
    source: &Source,
    key: &str,
    rev: Option<&str>,
) -> Result<Prepared> {
    let in_git = !matches!(source, Source::Dir(_));
    let start = if in_git {
        Some(known_start(&stored, key, rev).await?)
    } else {
        None
    };
    Ok(Prepared {
        root: stored,
        fresh: false,
        start,
        branch: in_git.then(|| branch_name(key)),
        kind: kind_of(source, rev),
    })
}

/// The local repository's own work tree, used in place, starting from the start recorded there
/// before or else from its `HEAD`.
async fn in_repo(top: &Path, prefix: &Path, key: &str) -> Result<Prepared> {
    let root = top.join(prefix);
    let start = match state::read_start(&root, key) {
        Some(start) => start,
        None => resolve(top, "HEAD").await?,
    };
    state::write_start(&root, key, &start)?;
    Ok(Prepared {
        root,
        fresh: true,
        start: Some(start),
        branch: Some(branch_name(key)),
        kind: Kind::InPlace,
    })
}

/// A linked work tree of the local repository at `target`, detached at the tip of the task's
/// branch when it holds earlier work, else at `rev`.
async fn worktree(
    top: &Path,
    prefix: &Path,
    rev: &str,
    key: &str,
    target: &Path,
    base: &Path,
) -> Result<Prepared> {
    if let Some(found) = left_behind(target, prefix, key, Kind::Worktree) {
        return Ok(found);
    }
    clear(target, base).await?;
    let (checkout, start) = match continued(top, &branch_name(key), false).await {
        Some(found) => found,
        None => {
            let start = resolve(top, rev).await?;
            (start.clone(), start)
        }
    };
    create_base(base)?;
    add_worktree(top, target, &checkout, base).await?;
    let root = target.join(prefix);
    state::write_start(&root, key, &start)?;
    Ok(Prepared {
        root,
        fresh: true,
        start: Some(start),
        branch: Some(branch_name(key)),
        kind: Kind::Worktree,
    })
}

/// A clone of `url` at `target`, checked out detached at the tip of the task's branch when the
/// remote holds earlier work on it, else at `rev` (default: the remote's `HEAD`).
async fn clone(
    url: &str,
    rev: Option<&str>,
    key: &str,
    target: &Path,
    base: &Path,
) -> Result<Prepared> {
    if let Some(found) = left_behind(target, Path::new(""), key, Kind::Clone) {
        return Ok(found);
    }
    clear(target, base).await?;
    create_base(base)?;
    Git::new(base, ["clone", "--quiet", "--no-checkout", "--", url])
        .arg(target)
        .timeout(REMOTE_TIMEOUT)
        .run()
        .await?;
    let (checkout, start) = match continued(target, &branch_name(key), true).await {
        Some(found) => found,
        None => {
            let start = resolve_in_clone(target, rev).await?;
            (start.clone(), start)
        }
    };
    Git::new(target, ["checkout", "--quiet", "--detach", &checkout])
        .run()
        .await?;
    state::write_start(target, key, &start)?;
    Ok(Prepared {
        root: target.to_owned(),
        fresh: true,
        start: Some(start),
        branch: Some(branch_name(key)),
        kind: Kind::Clone,
    })
}

/// Creates `base`, the directory the work directories are made in.
fn create_base(base: &Path) -> Result<()> {
    std::fs::create_dir_all(base).map_err(|source| FleetError::Io {
        what: format!("create {}", base.display()),
        source,
    })
}

/// How long a dead worker's leftover process group gets between SIGTERM and SIGKILL.
const LEFTOVER_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// The work directory a worker prepared for the task and died before recording (its start is
/// written once the checkout is complete): it is the task's, with whatever its agent did, and
/// the attempt that continues there stops what the dead worker left running in it.
fn left_behind(target: &Path, prefix: &Path, key: &str, kind: Kind) -> Option<Prepared> {
    let root = target.join(prefix);
    let start = state::read_start(&root, key)?;
    Some(Prepared {
        fresh: !state::is_setup_done(&root),
        root,
        start: Some(start),
        branch: Some(branch_name(key)),
        kind,
    })
}

/// The branch that keeps a task's work: `verdict/fleet/<key>`, the key written with letters,
/// digits, `.`, `_` and `-` only (anything else becomes `-`, followed by a short hash of the
/// key so two keys never share a branch).
pub fn branch_name(key: &str) -> String {
    let mut clean: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else if c == '.' {
                '.'
            } else {
                '-'
            }
        })
        .collect();
    // `..`, a leading `.` or `-` and a trailing `.` or `.lock` are not allowed in a ref name.
    while clean.contains("..") {
        clean = clean.replace("..", ".");
    }
    let clean = clean.trim_matches(|c| c == '.' || c == '-');
    let clean = clean.strip_suffix(".lock").unwrap_or(clean);
    if clean == key && !clean.is_empty() {
        format!("verdict/fleet/{clean}")
    } else {
        let hash = blake3::hash(key.as_bytes()).to_hex();
        let cut: String = clean.chars().take(60).collect();
        format!("verdict/fleet/{cut}-{}", &hash[..8])
    }
}

/// Refuses a value git would read as an option.
fn refuse_option(what: &str, value: &str) -> std::result::Result<(), String> {
    if value.starts_with('-') {
        return Err(format!(
            "`{what}` starts with `-` ({value}), which git would read as an option; refused"
        ));
    }
    Ok(())
}

/// What a workspace names.
async fn classify(workspace: &str) -> std::result::Result<Source, String> {
    if workspace.is_empty() {
        return Err("the workspace is empty".into());
    }
    let path = Path::new(workspace);
    if workspace.contains("://") || (!path.exists() && is_scp_like(workspace)) {
        return Ok(Source::Remote(workspace.to_owned()));
    }
    if !path.is_dir() {
        return Err(format!(
            "{workspace} is neither a directory nor a git URL (scheme://… or user@host:path)"
        ));
    }
    let dir = path
        .canonicalize()
        .map_err(|error| format!("{workspace}: {error}"))?;
    let bare = Git::new(&dir, ["rev-parse", "--is-bare-repository"])
        .run()
        .await
        .map(|out| out.line() == "true");
    // A bare repository (`shared.git`) has no work tree to use in place: it is cloned.
    if matches!(bare, Ok(true)) {
        return Ok(Source::Remote(dir.to_string_lossy().into_owned()));
    }
    if bare.is_err() {
        return Ok(Source::Dir(dir));
    }
    let out = Git::new(&dir, ["rev-parse", "--show-toplevel", "--show-prefix"])
        .run()
        .await
        .map_err(|error| error.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    let top = PathBuf::from(lines.next().unwrap_or_default().trim());
    let prefix = PathBuf::from(
        lines
            .next()
            .unwrap_or_default()
            .trim()
            .trim_end_matches('/'),
    );
    if top.as_os_str().is_empty() {
        // Inside a git directory itself (`repo/.git`).
        return Err(format!("{workspace} is a git directory, not a work tree"));
    }
    Ok(Source::Repo { top, prefix })
}

/// Whether `workspace` reads as git's scp-like address, `[user@]host:path`: a colon before any
/// slash, with something on both sides.
fn is_scp_like(workspace: &str) -> bool {
    match workspace.find(':') {
        Some(colon) => {
            let host = &workspace[..colon];
            colon > 0 && !host.contains('/') && colon + 1 < workspace.len()
        }
        None => false,
    }
}

fn kind_of(source: &Source, rev: Option<&str>) -> Kind {
    match (source, rev) {
        (Source::Remote(_), _) => Kind::Clone,
        (Source::Repo { .. }, Some(_)) => Kind::Worktree,
        _ => Kind::InPlace,
    }
}

/// The commit `rev` names in the repository at `dir`.
async fn resolve(dir: &Path, rev: &str) -> Result<String> {
    let out = Git::new(
        dir,
        [
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .run()
    .await
    .map_err(|error| match error {
        // `--verify --quiet` says only this, by its exit status, when nothing matches.
        FleetError::Git { command, message } if message.starts_with("exit status: 1:") => {
            FleetError::Git {
                command,
                message: format!("no commit `{rev}` in {}", dir.display()),
            }
        }
        other => other,
    })?;
    Ok(out.line())
}

/// The commit `rev` names in a fresh clone: a commit or tag, a remote branch, or else fetched
/// by name (a commit no branch holds, a pull request's ref).
async fn resolve_in_clone(clone: &Path, rev: Option<&str>) -> Result<String> {
    let Some(rev) = rev else {
        return resolve(clone, "HEAD").await;
    };
    if let Ok(found) = resolve(clone, rev).await {
        return Ok(found);
    }
    if let Ok(found) = resolve(clone, &format!("refs/remotes/origin/{rev}")).await {
        return Ok(found);
    }
    Git::new(clone, ["fetch", "--quiet", "origin", rev])
        .timeout(REMOTE_TIMEOUT)
        .run()
        .await?;
    resolve(clone, "FETCH_HEAD").await
}

/// Where a task continues from when its branch holds earlier work: the branch's tip and the
/// start its commits record. `remote`: look at the remote's copy too, and make the local
/// branch there.
async fn continued(repo: &Path, branch: &str, remote: bool) -> Option<(String, String)> {
    let mut tip = resolve(repo, &format!("refs/heads/{branch}")).await.ok();
    if tip.is_none() && remote {
        tip = resolve(repo, &format!("refs/remotes/origin/{branch}"))
            .await
            .ok();
        if let Some(tip) = &tip {
            Git::new(repo, ["update-ref", &format!("refs/heads/{branch}"), tip])
                .run()
                .await
                .ok()?;
        }
    }
    let tip = tip?;
    let message = Git::new(repo, ["log", "-1", "--format=%B", &tip])
        .run()
        .await
        .ok()?;
    let start = super::keep::start_in_message(&String::from_utf8_lossy(&message.stdout))?;
    let start = resolve(repo, &start).await.ok()?;
    Some((tip, start))
}

/// The start of a work directory prepared before: as recorded when it was prepared, else the
/// one its branch's commits record, else `rev` (or `HEAD`) as it resolves there now.
async fn known_start(root: &Path, key: &str, rev: Option<&str>) -> Result<String> {
    if let Some(start) = state::read_start(root, key) {
        return Ok(start);
    }
    if let Some((_, start)) = continued(root, &branch_name(key), false).await {
        return Ok(start);
    }
    resolve(root, rev.unwrap_or("HEAD")).await
}

/// Removes what a worker left at `target` without recording it.
/// How many times `git worktree add` is tried.
const WORKTREE_TRIES: u32 = 5;

/// `git worktree add --detach TARGET CHECKOUT` in `top`. Git reads every linked work tree's
/// files as it adds one, so an add fails when another is half-made at that moment: one being
/// added beside it (by another worker), or one a worker killed while adding it left behind.
/// Such a failure is tried again, after `git worktree prune` forgets the half-made ones.
async fn add_worktree(top: &Path, target: &Path, checkout: &str, base: &Path) -> Result<()> {
    let mut tries = 0;
    loop {
        tries += 1;
        let added = Git::new(top, ["worktree", "add", "--quiet", "--detach", "--"])
            .arg(target)
            .arg(checkout)
            .run()
            .await;
        match added {
            Ok(_) => return Ok(()),
            Err(error) if tries >= WORKTREE_TRIES => return Err(error),
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(100 * u64::from(tries))).await;
                let _ = Git::new(top, ["worktree", "prune"]).run().await;
                clear(target, base).await?;
            }
        }
    }
}

async fn clear(target: &Path, base: &Path) -> Result<()> {
    if target.exists() || target.symlink_metadata().is_ok() {
        // What a dead worker started there (its setup, its agent) goes with the directory.
        verdict_core::process::stop_leftovers(
            &verdict_core::paths::running(target),
            LEFTOVER_GRACE,
        );
        super::remove::remove(target, base).await?;
    }
    Ok(())
}
