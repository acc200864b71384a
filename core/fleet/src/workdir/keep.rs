//! Keeping what an agent changed: the work directory's tree recorded as a commit on the task's
//! branch, and the diff against the task's start, without touching the work directory's `HEAD`,
//! index or files (the agent's next attempt finds everything as it left it).

use std::path::Path;

use serde::Serialize;

use super::git::Git;
use super::state;
use crate::error::{FleetError, Result};

/// The most of a diff kept (the rest is cut, and a last line says how much).
pub const DIFF_LIMIT: usize = 256 * 1024;

/// What the commit message says the task started from; read back when a task continues from
/// its branch on another host.
const START_TRAILER: &str = "Verdict-Fleet-Start: ";

/// What [`keep_changes`] recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Kept {
    /// The branch holding the agent's work (`None`: the work directory is not in git, or
    /// nothing has changed since the start).
    pub branch: Option<String>,
    /// The branch's tip.
    pub commit: Option<String>,
    /// `git diff <start> <commit>`, redacted, cut to [`DIFF_LIMIT`] (`None` outside git; empty
    /// when nothing changed).
    pub diff: Option<String>,
}

/// Records the tree of the work directory at `root` — tracked and untracked files, `.gitignore`
/// respected, verdict's own directory left out — as a commit on `branch` in its repository,
/// parented on the branch's tip or else on `start`, and returns the branch, the commit and the
/// diff from `start`. The work directory's `HEAD`, index and files are left as they are: the tree
/// is built in a throw-away index (`GIT_INDEX_FILE`), then `write-tree`, `commit-tree` and
/// `update-ref` (which refuses if the branch moved meanwhile). Nothing changed since the last
/// recording: no new commit.
///
/// `start` or `branch` `None` (a directory outside git): nothing is recorded, [`Kept::default`].
pub async fn keep_changes(root: &Path, start: Option<&str>, branch: Option<&str>) -> Result<Kept> {
    let (Some(start), Some(branch)) = (start, branch) else {
        return Ok(Kept::default());
    };
    if start.starts_with('-') || branch.starts_with('-') {
        return Err(FleetError::Invalid(format!(
            "refused to record work on `{branch}` from `{start}`: a value starts with `-`"
        )));
    }
    let reference = format!("refs/heads/{branch}");
    Git::new(root, ["check-ref-format", &reference])
        .run()
        .await?;
    let top = Git::new(root, ["rev-parse", "--show-toplevel"])
        .run()
        .await?
        .line();
    let top = Path::new(&top);
    let index = state::scratch_index(root);
    state::create_dir(&state::dir(root))?;
    let tree = write_tree(top, &index).await;
    let _ = std::fs::remove_file(&index);
    let tree = tree?;

    let previous = Git::new(
        top,
        [
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            &format!("{reference}^{{commit}}"),
        ],
    )
    .run()
    .await
    .ok()
    .map(|out| out.line())
    .filter(|tip| !tip.is_empty());
    let parent = previous.clone().unwrap_or_else(|| start.to_owned());
    let parent_tree = Git::new(
        top,
        [
            "rev-parse",
            "--verify",
            "--end-of-options",
            &format!("{parent}^{{tree}}"),
        ],
    )
    .run()
    .await?
    .line();
    let commit = if parent_tree == tree {
        previous.clone()
    } else {
        let message = format!("verdict fleet: {branch}\n\n{START_TRAILER}{start}\n");
        let commit = Git::new(top, ["commit-tree", &tree, "-p", &parent, "-m", &message])
            .env("GIT_AUTHOR_NAME", "verdict fleet")
            .env("GIT_AUTHOR_EMAIL", "verdict@localhost")
            .env("GIT_COMMITTER_NAME", "verdict fleet")
            .env("GIT_COMMITTER_EMAIL", "verdict@localhost")
            .run()
            .await?
            .line();
        // The old value makes this a compare-and-swap: empty means "must not exist yet".
        let old = previous.clone().unwrap_or_default();
        Git::new(
            top,
            [
                "update-ref",
                "-m",
                "verdict fleet: the agent's work",
                &reference,
                &commit,
                &old,
            ],
        )
        .run()
        .await?;
        Some(commit)
    };
    let diff = match &commit {
        Some(commit) => diff(top, start, commit).await?,
        None => String::new(),
    };
    Ok(Kept {
        branch: commit.is_some().then(|| branch.to_owned()),
        commit,
        diff: Some(diff),
    })
}

/// The tree of the work directory as `git add -A` would stage it, built in `index`.
async fn write_tree(top: &Path, index: &Path) -> Result<String> {
    // Starting from a copy of the real index lets git skip rehashing files whose stat data
    // has not changed; without one, `add -A` hashes everything, which is correct too.
    let real = Git::new(
        top,
        ["rev-parse", "--path-format=absolute", "--git-path", "index"],
    )
    .run()
    .await?
    .line();
    if std::fs::copy(&real, index).is_err() {
        let _ = std::fs::remove_file(index);
    }
    let mut add = vec![
        "add".to_owned(),
        "-A".to_owned(),
        "--".to_owned(),
        ".".to_owned(),
    ];
    for name in verdict_core::paths::in_tree_names() {
        let name = name.to_string_lossy();
        add.push(format!(":(exclude,glob)**/{name}"));
        add.push(format!(":(exclude,glob)**/{name}/**"));
    }
    Git::new(top, &add)
        .env("GIT_INDEX_FILE", index)
        .run()
        .await?;
    Ok(Git::new(top, ["write-tree"])
        .env("GIT_INDEX_FILE", index)
        .run()
        .await?
        .line())
}

/// `git diff start commit`, redacted line by line and cut to [`DIFF_LIMIT`] at a line's end.
async fn diff(top: &Path, start: &str, commit: &str) -> Result<String> {
    let out = Git::new(
        top,
        [
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "-M",
            start,
            commit,
            "--",
        ],
    )
    .limit(DIFF_LIMIT)
    .run()
    .await?;
    let mut kept = out.stdout;
    let mut cut = out.cut;
    if cut > 0 {
        // Whole lines only: the partial last line goes with the rest.
        let end = kept.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        cut += (kept.len() - end) as u64;
        kept.truncate(end);
    }
    let text = String::from_utf8_lossy(&kept);
    let mut redacted = String::with_capacity(text.len());
    for line in text.lines() {
        redacted.push_str(&verdict_core::redact::redact(line));
        redacted.push('\n');
    }
    if cut > 0 {
        redacted.push_str(&format!(
            "[verdict: {cut} more bytes of the diff were cut; the branch holds all of it]\n"
        ));
    }
    Ok(redacted)
}

/// The start a commit message of [`keep_changes`] records.
pub(super) fn start_in_message(message: &str) -> Option<String> {
    message
        .lines()
        .find_map(|line| line.strip_prefix(START_TRAILER))
        .map(|start| start.trim().to_owned())
        .filter(|start| !start.is_empty() && start.bytes().all(|b| b.is_ascii_hexdigit()))
}
