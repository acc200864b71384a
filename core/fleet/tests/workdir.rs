//! A task's work directory with real git in temporary directories: a linked work tree at a
//! revision, a clone of a `file://` URL, reuse, the setup command, the agent's work kept on a
//! branch without touching the work tree, redaction of the diff, option injection, removal.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use verdict_core::process::ProcessRunner;
use verdict_fleet::error::FleetError;
use verdict_fleet::workdir::{self, Kind, Removed};
use verdict_fleet::{NewTask, TaskRecord, TaskState};

/// Runs git in `dir`, with an identity of its own and nothing of the caller's git environment.
fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .trim()
        .to_owned()
}

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

/// A repository with two commits: `first` (a.txt = one) and `second` (a.txt = two), tagged.
fn repo(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    git(dir, &["init", "-q"]);
    write(dir, &[("a.txt", "one\n"), (".gitignore", "ignored/\n")]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "first"]);
    git(dir, &["tag", "first"]);
    write(dir, &[("a.txt", "two\n")]);
    git(dir, &["commit", "-q", "-am", "second"]);
    dir.to_path_buf()
}

fn task(id: i64, workspace: &str, rev: Option<&str>) -> TaskRecord {
    TaskRecord {
        id,
        spec: NewTask {
            key: format!("task {id}/fix"),
            workspace: workspace.to_owned(),
            rev: rev.map(str::to_owned),
            setup: None,
            task: "fix it".into(),
            agents: vec!["claude".into()],
            max_attempts: None,
            only: Vec::new(),
            campaign: None,
            priority: 0,
            deadline_secs: None,
            cost_cap_usd: None,
        },
        state: TaskState::Running,
        paused: false,
        cancel_requested: false,
        attempts: 0,
        next_retry_at: None,
        workdir: None,
        branch: None,
        guidance: None,
        reason: None,
        last_category: None,
        cost_usd: 0.0,
        deadline_at: None,
        host: None,
        created_at: 0,
        updated_at: 0,
        finished_at: None,
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
fn a_local_repository_with_a_rev_gets_a_work_tree_at_that_rev() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let task = task(7, repo.to_str().expect("utf-8"), Some("first"));
    let prepared = runtime()
        .block_on(workdir::prepare(&task, &base))
        .expect("prepared");
    assert_eq!(prepared.kind, Kind::Worktree);
    assert!(prepared.fresh);
    assert_eq!(prepared.root, base.join("task-7"));
    let first = git(&repo, &["rev-parse", "first^{commit}"]);
    assert_eq!(prepared.start.as_deref(), Some(first.as_str()));
    assert_eq!(git(&prepared.root, &["rev-parse", "HEAD"]), first);
    assert_eq!(
        std::fs::read_to_string(prepared.root.join("a.txt")).expect("a.txt"),
        "one\n"
    );
    // Detached: the repository's branches are not checked out twice.
    assert_eq!(git(&prepared.root, &["branch", "--show-current"]), "");
    // The key `task 7/fix` is no ref name as it is: cleaned, with a hash of the key.
    let branch = prepared.branch.clone().expect("a branch");
    assert!(branch.starts_with("verdict/fleet/task-7-fix-"), "{branch}");
    // The repository's own work tree is untouched.
    assert_eq!(
        std::fs::read_to_string(repo.join("a.txt")).expect("a.txt"),
        "two\n"
    );
}

#[test]
fn a_file_url_is_cloned_and_its_rev_checked_out() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let url = format!("file://{}", repo.display());
    let rt = runtime();

    let at_head = rt
        .block_on(workdir::prepare(&task(1, &url, None), &base))
        .expect("cloned");
    assert_eq!(at_head.kind, Kind::Clone);
    assert_eq!(at_head.root, base.join("task-1"));
    assert_eq!(
        std::fs::read_to_string(at_head.root.join("a.txt")).expect("a.txt"),
        "two\n"
    );
    assert_eq!(
        at_head.start.as_deref(),
        Some(git(&repo, &["rev-parse", "HEAD"]).as_str())
    );

    let at_tag = rt
        .block_on(workdir::prepare(&task(2, &url, Some("first")), &base))
        .expect("cloned");
    assert_eq!(
        std::fs::read_to_string(at_tag.root.join("a.txt")).expect("a.txt"),
        "one\n"
    );

    let missing = rt
        .block_on(workdir::prepare(&task(3, &url, Some("no-such-rev")), &base))
        .expect_err("an unknown revision fails");
    assert!(missing.to_string().contains("no-such-rev"), "{missing}");
}

#[test]
fn a_prepared_work_directory_is_reused_as_it_is() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let mut task = task(4, repo.to_str().expect("utf-8"), Some("first"));
    let first = rt
        .block_on(workdir::prepare(&task, &base))
        .expect("prepared");
    write(&first.root, &[("new.txt", "the agent's\n")]);
    task.workdir = Some(first.root.to_string_lossy().into_owned());

    let again = rt.block_on(workdir::prepare(&task, &base)).expect("reused");
    assert!(!again.fresh);
    assert_eq!(again.root, first.root);
    assert_eq!(again.start, first.start);
    assert!(
        again.root.join("new.txt").exists(),
        "the agent's work is kept"
    );

    // Left behind unrecorded, its checkout complete (a worker died during an attempt): the
    // task's, with the agent's work, and not yet set up.
    task.workdir = None;
    let found = rt
        .block_on(workdir::prepare(&task, &base))
        .expect("found again");
    assert_eq!(
        (found.root.clone(), found.fresh),
        (first.root.clone(), true)
    );
    assert!(
        found.root.join("new.txt").exists(),
        "the agent's work is kept"
    );

    // Left half-made (a worker died while preparing it, before its start was written): anew.
    std::fs::remove_dir_all(verdict_core::paths::loop_dir(&first.root).join("fleet"))
        .expect("remove the fleet's record of it");
    let anew = rt
        .block_on(workdir::prepare(&task, &base))
        .expect("prepared anew");
    assert!(anew.fresh);
    assert!(!anew.root.join("new.txt").exists());
}

#[test]
fn a_local_directory_without_a_rev_is_used_in_place() {
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = temp.path().join("plain");
    write(&dir, &[("x.txt", "x\n")]);
    let base = temp.path().join("work");
    let rt = runtime();
    let prepared = rt
        .block_on(workdir::prepare(
            &task(5, dir.to_str().expect("utf-8"), None),
            &base,
        ))
        .expect("in place");
    assert_eq!(prepared.kind, Kind::InPlace);
    assert_eq!(prepared.root, dir.canonicalize().expect("canonical"));
    assert_eq!((prepared.start, prepared.branch), (None, None));
    let kept = rt
        .block_on(workdir::keep_changes(&prepared.root, None, None))
        .expect("nothing to keep");
    assert_eq!(kept, workdir::Kept::default());

    // A revision needs a repository.
    let error = rt
        .block_on(workdir::prepare(
            &task(6, dir.to_str().expect("utf-8"), Some("main")),
            &base,
        ))
        .expect_err("refused");
    assert!(
        error.to_string().contains("needs a git repository"),
        "{error}"
    );

    // Retention never deletes a workspace used in place.
    let removed = rt
        .block_on(workdir::remove(&prepared.root, &base))
        .expect("nothing removed");
    assert_eq!(removed, Removed::Kept);
    assert!(dir.join("x.txt").exists());
}

#[test]
fn a_value_that_git_would_read_as_an_option_is_refused() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let marker = temp.path().join("pwned");
    for (workspace, rev) in [
        (format!("--upload-pack=touch {}", marker.display()), None),
        (repo.to_string_lossy().into_owned(), Some("--output=/tmp/x")),
        (format!("file://{}", repo.display()), Some("-q")),
    ] {
        let error = rt
            .block_on(workdir::prepare(&task(8, &workspace, rev), &base))
            .expect_err("refused");
        assert!(
            matches!(&error, FleetError::Workdir { message, .. } if message.contains("starts with `-`")),
            "{error}"
        );
    }
    assert!(!marker.exists());
    assert!(!base.join("task-8").exists());
}

#[test]
fn setup_runs_in_the_work_directory_without_a_shell() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let prepared = rt
        .block_on(workdir::prepare(
            &task(9, repo.to_str().expect("utf-8"), Some("HEAD")),
            &base,
        ))
        .expect("prepared");
    let runner = ProcessRunner::new();
    // `$HOME` and `>` reach the program as typed: no shell expands or redirects them.
    let outcome = rt
        .block_on(workdir::run_setup(
            &runner,
            &prepared.root,
            "git -c core.hooksPath=x config --local setup.ran '$HOME > out'",
            Duration::from_secs(60),
        ))
        .expect("setup passes");
    assert_eq!(
        git(&prepared.root, &["config", "--get", "setup.ran"]),
        "$HOME > out"
    );
    assert!(!prepared.root.join("out").exists());
    assert!(outcome.log.is_file());
    assert!(
        !outcome.log.starts_with(&prepared.root),
        "the log is out of the tree"
    );

    let error = rt
        .block_on(workdir::run_setup(
            &runner,
            &prepared.root,
            "git rev-parse --verify no-such-thing-here",
            Duration::from_secs(60),
        ))
        .expect_err("a failing setup fails");
    let text = error.to_string();
    assert!(matches!(error, FleetError::Setup { .. }), "{text}");
    assert!(text.contains("exited with code 128"), "{text}");
    assert!(text.contains("fatal: Needed a single revision"), "{text}");

    let missing = rt
        .block_on(workdir::run_setup(
            &runner,
            &prepared.root,
            "no-such-program-verdict --x",
            Duration::from_secs(60),
        ))
        .expect_err("a missing program fails");
    assert!(missing.to_string().contains("could not start"), "{missing}");
}

#[test]
fn keep_changes_records_the_work_on_a_branch_without_touching_the_work_tree() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let prepared = rt
        .block_on(workdir::prepare(
            &task(10, repo.to_str().expect("utf-8"), Some("first")),
            &base,
        ))
        .expect("prepared");
    let root = &prepared.root;
    // The agent changes a tracked file, adds one, stages a third, and writes an ignored one.
    write(
        root,
        &[
            ("a.txt", "changed\n"),
            ("src/new.rs", "fn main() {}\n"),
            ("staged.txt", "staged\n"),
            ("ignored/build.out", "binary junk\n"),
        ],
    );
    git(root, &["add", "staged.txt"]);
    let head = git(root, &["rev-parse", "HEAD"]);
    let status = git(root, &["status", "--porcelain"]);

    let kept = rt
        .block_on(workdir::keep_changes(
            root,
            prepared.start.as_deref(),
            prepared.branch.as_deref(),
        ))
        .expect("kept");
    let branch = prepared.branch.clone().expect("a branch");
    assert_eq!(kept.branch.as_deref(), Some(branch.as_str()));
    let commit = kept.commit.clone().expect("a commit");
    // The branch is in the task's repository, its tree the agent's work, parented on the start.
    assert_eq!(git(&repo, &["rev-parse", &branch]), commit);
    assert_eq!(
        git(&repo, &["rev-parse", &format!("{commit}^")]),
        prepared.start.clone().expect("a start")
    );
    let files = git(&repo, &["ls-tree", "-r", "--name-only", &commit]);
    let files: Vec<&str> = files.lines().collect();
    assert_eq!(files, [".gitignore", "a.txt", "src/new.rs", "staged.txt"]);
    assert_eq!(git(&repo, &["show", &format!("{commit}:a.txt")]), "changed");
    // The work tree's HEAD, index and status are as the agent left them.
    assert_eq!(git(root, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(root, &["status", "--porcelain"]), status);
    assert_eq!(
        git(root, &["diff", "--cached", "--name-only"]),
        "staged.txt"
    );
    let diff = kept.diff.expect("a diff");
    assert!(diff.contains("+changed"), "{diff}");
    assert!(diff.contains("src/new.rs"), "{diff}");
    assert!(!diff.contains("build.out"), "{diff}");

    // Nothing changed since: no new commit. A later change: a child of the last one.
    let same = rt
        .block_on(workdir::keep_changes(
            root,
            prepared.start.as_deref(),
            Some(&branch),
        ))
        .expect("kept");
    assert_eq!(same.commit.as_deref(), Some(commit.as_str()));
    write(root, &[("later.txt", "later\n")]);
    let later = rt
        .block_on(workdir::keep_changes(
            root,
            prepared.start.as_deref(),
            Some(&branch),
        ))
        .expect("kept");
    let later_commit = later.commit.expect("a commit");
    assert_eq!(
        git(&repo, &["rev-parse", &format!("{later_commit}^")]),
        commit
    );
    let diff = later.diff.expect("a diff");
    assert!(
        diff.contains("later.txt") && diff.contains("src/new.rs"),
        "{diff}"
    );
}

#[test]
fn a_secret_in_the_kept_diff_is_redacted() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let prepared = rt
        .block_on(workdir::prepare(
            &task(11, repo.to_str().expect("utf-8"), Some("first")),
            &base,
        ))
        .expect("prepared");
    let token = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    write(
        &prepared.root,
        &[("config.env", &format!("GITHUB_TOKEN={token}\n"))],
    );
    let kept = rt
        .block_on(workdir::keep_changes(
            &prepared.root,
            prepared.start.as_deref(),
            prepared.branch.as_deref(),
        ))
        .expect("kept");
    let diff = kept.diff.expect("a diff");
    assert!(diff.contains("config.env"), "{diff}");
    assert!(!diff.contains(token), "{diff}");
    assert!(diff.contains("[redacted:"), "{diff}");
}

#[test]
fn a_large_diff_is_cut_and_says_so() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let prepared = rt
        .block_on(workdir::prepare(
            &task(12, repo.to_str().expect("utf-8"), Some("first")),
            &base,
        ))
        .expect("prepared");
    let big: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
    write(&prepared.root, &[("big.txt", &big)]);
    let kept = rt
        .block_on(workdir::keep_changes(
            &prepared.root,
            prepared.start.as_deref(),
            prepared.branch.as_deref(),
        ))
        .expect("kept");
    let diff = kept.diff.expect("a diff");
    assert!(diff.len() <= workdir::DIFF_LIMIT + 200, "{}", diff.len());
    let last = diff.lines().last().expect("a last line");
    assert!(last.contains("more bytes of the diff were cut"), "{last}");
}

#[test]
fn a_task_continues_from_its_branch_when_its_work_directory_is_gone() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let mut task = task(13, repo.to_str().expect("utf-8"), Some("first"));
    let prepared = rt
        .block_on(workdir::prepare(&task, &base))
        .expect("prepared");
    write(&prepared.root, &[("work.txt", "done so far\n")]);
    let kept = rt
        .block_on(workdir::keep_changes(
            &prepared.root,
            prepared.start.as_deref(),
            prepared.branch.as_deref(),
        ))
        .expect("kept");
    rt.block_on(workdir::remove(&prepared.root, &base))
        .expect("removed");
    task.branch = kept.branch.clone();
    task.workdir = Some(prepared.root.to_string_lossy().into_owned());

    let again = rt
        .block_on(workdir::prepare(&task, &base))
        .expect("prepared from the branch");
    assert!(again.fresh);
    assert_eq!(again.start, prepared.start, "the start is the task's own");
    assert_eq!(
        std::fs::read_to_string(again.root.join("work.txt")).expect("work.txt"),
        "done so far\n"
    );
}

#[test]
fn remove_deletes_a_work_tree_and_a_clone() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let tree = rt
        .block_on(workdir::prepare(
            &task(14, repo.to_str().expect("utf-8"), Some("first")),
            &base,
        ))
        .expect("prepared");
    let clone = rt
        .block_on(workdir::prepare(
            &task(15, &format!("file://{}", repo.display()), None),
            &base,
        ))
        .expect("cloned");
    assert!(git(&repo, &["worktree", "list"]).contains("task-14"));

    let removed = rt
        .block_on(workdir::remove(&tree.root, &base))
        .expect("removed");
    assert_eq!(removed, Removed::Worktree);
    assert!(!tree.root.exists());
    assert!(!git(&repo, &["worktree", "list"]).contains("task-14"));

    let removed = rt
        .block_on(workdir::remove(&clone.root, &base))
        .expect("removed");
    assert_eq!(removed, Removed::Directory);
    assert!(!clone.root.exists());
    let again = rt
        .block_on(workdir::remove(&clone.root, &base))
        .expect("nothing there");
    assert_eq!(again, Removed::Absent);
}

#[test]
fn free_bytes_reads_the_filesystem() {
    let temp = tempfile::tempdir().expect("temp dir");
    let free = workdir::free_bytes(temp.path()).expect("statvfs");
    assert!(free > 0);
    assert!(workdir::free_bytes(&temp.path().join("missing")).is_err());
}

#[test]
fn a_bare_repository_is_cloned() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let bare = temp.path().join("shared.git");
    git(
        temp.path(),
        &[
            "clone",
            "-q",
            "--bare",
            repo.to_str().expect("utf-8"),
            bare.to_str().expect("utf-8"),
        ],
    );
    let base = temp.path().join("work");
    let prepared = runtime()
        .block_on(workdir::prepare(
            &task(16, bare.to_str().expect("utf-8"), Some("first")),
            &base,
        ))
        .expect("cloned");
    assert_eq!(prepared.kind, Kind::Clone);
    assert_eq!(
        std::fs::read_to_string(prepared.root.join("a.txt")).expect("a.txt"),
        "one\n"
    );
}

#[test]
fn another_host_continues_from_a_pushed_branch() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let url = format!("file://{}", repo.display());
    let rt = runtime();
    let mut task = task(17, &url, Some("first"));

    // The first host clones, the agent works, the work is kept and pushed.
    let first_base = temp.path().join("host-a");
    let first = rt
        .block_on(workdir::prepare(&task, &first_base))
        .expect("cloned");
    write(&first.root, &[("work.txt", "from host a\n")]);
    let kept = rt
        .block_on(workdir::keep_changes(
            &first.root,
            first.start.as_deref(),
            first.branch.as_deref(),
        ))
        .expect("kept");
    let branch = kept.branch.clone().expect("a branch");
    git(&first.root, &["push", "-q", "origin", &branch]);
    task.branch = Some(branch.clone());

    // Another host has no work directory of the task: it clones and checks out the branch.
    let second = rt
        .block_on(workdir::prepare(&task, &temp.path().join("host-b")))
        .expect("cloned");
    assert_eq!(second.start, first.start);
    assert_eq!(
        std::fs::read_to_string(second.root.join("work.txt")).expect("work.txt"),
        "from host a\n"
    );
    write(&second.root, &[("more.txt", "from host b\n")]);
    let kept = rt
        .block_on(workdir::keep_changes(
            &second.root,
            second.start.as_deref(),
            second.branch.as_deref(),
        ))
        .expect("kept");
    let tip = kept.commit.expect("a commit");
    assert_eq!(
        git(&second.root, &["rev-parse", &format!("{tip}^")]),
        git(&repo, &["rev-parse", &branch]),
        "the second host's work follows the first's"
    );
    let diff = kept.diff.expect("a diff");
    assert!(
        diff.contains("work.txt") && diff.contains("more.txt"),
        "{diff}"
    );
}

#[test]
fn a_package_of_a_repository_gets_its_own_directory_in_the_work_tree() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    write(&repo, &[("packages/app/index.js", "1;\n")]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "app"]);
    let base = temp.path().join("work");
    let rt = runtime();
    let workspace = repo.join("packages/app");
    let prepared = rt
        .block_on(workdir::prepare(
            &task(18, workspace.to_str().expect("utf-8"), Some("main")),
            &base,
        ))
        .expect("prepared");
    assert_eq!(prepared.root, base.join("task-18").join("packages/app"));
    assert!(prepared.root.join("index.js").is_file());
    write(&prepared.root, &[("index.js", "2;\n")]);
    let kept = rt
        .block_on(workdir::keep_changes(
            &prepared.root,
            prepared.start.as_deref(),
            prepared.branch.as_deref(),
        ))
        .expect("kept");
    assert!(kept.diff.expect("a diff").contains("packages/app/index.js"));
    let removed = rt
        .block_on(workdir::remove(&prepared.root, &base))
        .expect("removed");
    assert_eq!(removed, Removed::Worktree);
    assert!(!base.join("task-18").exists());
}

#[test]
fn a_repository_used_in_place_keeps_its_start_when_the_agent_commits() {
    let temp = tempfile::tempdir().expect("temp dir");
    let repo = repo(&temp.path().join("repo"));
    let base = temp.path().join("work");
    let rt = runtime();
    let mut task = task(19, repo.to_str().expect("utf-8"), None);
    let prepared = rt
        .block_on(workdir::prepare(&task, &base))
        .expect("in place");
    assert_eq!(prepared.kind, Kind::InPlace);
    assert_eq!(prepared.root, repo.canonicalize().expect("canonical"));
    let start = git(&repo, &["rev-parse", "HEAD"]);
    assert_eq!(prepared.start.as_deref(), Some(start.as_str()));

    // The agent commits on its own; the task's start stays where it began.
    write(&repo, &[("b.txt", "b\n")]);
    git(&repo, &["add", "b.txt"]);
    git(&repo, &["commit", "-q", "-m", "the agent's commit"]);
    task.workdir = Some(prepared.root.to_string_lossy().into_owned());
    let again = rt.block_on(workdir::prepare(&task, &base)).expect("reused");
    assert!(!again.fresh);
    assert_eq!(again.start.as_deref(), Some(start.as_str()));
    let kept = rt
        .block_on(workdir::keep_changes(
            &again.root,
            again.start.as_deref(),
            again.branch.as_deref(),
        ))
        .expect("kept");
    assert!(kept.diff.expect("a diff").contains("b.txt"));
    assert_eq!(git(&repo, &["branch", "--show-current"]), "main");
    assert!(!base.exists(), "nothing is made under the base");
}
