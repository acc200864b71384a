//! Workspace snapshots over real git in temporary directories: what a snapshot sees and ignores,
//! restoring every kind of change, never touching the user's own repository, diffs the cheating
//! guard reads, pins that outlive `git gc`, and a crashed process's locks.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;

use tempfile::TempDir;
use verdict_core::agent_loop::guard::{Guard, ViolationKind};
use verdict_core::snapshot::{DIFF_LIMIT, Restored, SnapshotError, Snapshots, TreeId};

// ---------------------------------------------------------------------------------------------
// Helpers

const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

fn workspace() -> TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn put(root: &Path, path: &str, contents: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().expect("a parent")).expect("create dirs");
    fs::write(path, contents).expect("write file");
}

fn read(root: &Path, path: &str) -> String {
    fs::read_to_string(root.join(path)).expect("read file")
}

fn mode(root: &Path, path: &str) -> u32 {
    fs::symlink_metadata(root.join(path))
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

fn open(root: &Path) -> Snapshots {
    Snapshots::open(root).expect("open snapshots")
}

/// `git` in `dir` on the user's side: the repository found there, a fixed identity.
fn user_git(dir: &Path, args: &[&str]) -> String {
    let mut command = Command::new("git");
    for (key, _) in std::env::vars() {
        if key.starts_with("GIT_") {
            command.env_remove(key);
        }
    }
    let output = command
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "user")
        .env("GIT_AUTHOR_EMAIL", "user@example.com")
        .env("GIT_COMMITTER_NAME", "user")
        .env("GIT_COMMITTER_EMAIL", "user@example.com")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Restores `tree` and checks that a new snapshot is exactly `tree`.
fn check_restore(snapshots: &Snapshots, tree: &TreeId) -> Restored {
    let restored = snapshots.restore(tree).expect("restore");
    assert_eq!(&snapshots.take().expect("take"), tree);
    restored
}

// ---------------------------------------------------------------------------------------------
// What a snapshot sees

#[test]
fn files_inside_a_nested_repository_are_seen_and_restored() {
    // A vendored library with its own .git was recorded as a submodule's commit: an attempt that
    // changed only its files was "no change", and --reset did not put them back. One repository
    // with a commit, one without (git add refused the whole snapshot), one nested in that one.
    let dir = workspace();
    let root = dir.path();
    put(root, "app.py", "import lib\n");
    put(root, "vendor/lib/lib.txt", "v1\n");
    put(root, "vendor/lib/.gitignore", "*.log\n");
    put(
        root,
        "vendor/lib/build.log",
        "ignored by the nested repository\n",
    );
    user_git(&root.join("vendor/lib"), &["init", "-q"]);
    user_git(&root.join("vendor/lib"), &["add", "-A"]);
    user_git(&root.join("vendor/lib"), &["commit", "-qm", "lib"]);
    put(root, "third/fresh/a.txt", "a\n");
    user_git(&root.join("third/fresh"), &["init", "-q"]);
    put(root, "third/fresh/inner/b.txt", "b\n");
    user_git(&root.join("third/fresh/inner"), &["init", "-q"]);
    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    let paths = snapshots.changed_paths(&TreeId::new(EMPTY_TREE.to_owned()).expect("id"), &start);
    assert_eq!(
        paths.expect("paths"),
        [
            "app.py",
            "third/fresh/a.txt",
            "third/fresh/inner/b.txt",
            "vendor/lib/.gitignore",
            "vendor/lib/lib.txt",
        ]
    );
    assert_eq!(
        snapshots.take().expect("take"),
        start,
        "the same tree twice"
    );

    put(root, "vendor/lib/lib.txt", "v2\n");
    put(root, "third/fresh/inner/new.txt", "new\n");
    let after = snapshots.take().expect("take");
    assert_ne!(
        after, start,
        "a change inside a nested repository is a change"
    );
    assert_eq!(
        snapshots.changed_paths(&start, &after).expect("paths"),
        ["third/fresh/inner/new.txt", "vendor/lib/lib.txt"]
    );
    let diff = snapshots.diff(&start, &after).expect("diff");
    assert!(diff.text.contains("+v2"), "{}", diff.text);

    check_restore(&snapshots, &start);
    assert_eq!(read(root, "vendor/lib/lib.txt"), "v1\n");
    assert!(!root.join("third/fresh/inner/new.txt").exists());
    assert!(
        root.join("vendor/lib/.git").is_dir(),
        "its own repository stays"
    );
    assert_eq!(
        user_git(&root.join("vendor/lib"), &["status", "--porcelain"]),
        "",
        "the nested repository sees its files as committed"
    );
}

#[test]
fn an_unchanged_workspace_gives_the_same_tree_twice() {
    let dir = workspace();
    put(dir.path(), "src/a.js", "export const a = 1;\n");
    put(dir.path(), "README.md", "hello\n");
    let snapshots = open(dir.path());
    let first = snapshots.take().expect("take");
    let second = snapshots.take().expect("take");
    assert_eq!(first, second);
    assert_ne!(first.as_str(), EMPTY_TREE);
    // A second store on the same workspace (a resumed loop) agrees.
    assert_eq!(open(dir.path()).take().expect("take"), first);
}

#[test]
fn a_one_byte_edit_gives_another_tree() {
    let dir = workspace();
    put(dir.path(), "src/a.js", "export const a = 1;\n");
    let snapshots = open(dir.path());
    let before = snapshots.take().expect("take");
    put(dir.path(), "src/a.js", "export const a = 2;\n");
    let after = snapshots.take().expect("take");
    assert_ne!(before, after);
    assert_eq!(
        snapshots.changed_paths(&before, &after).expect("paths"),
        ["src/a.js"]
    );
}

#[test]
fn an_untracked_new_file_counts() {
    let dir = workspace();
    put(dir.path(), "a.txt", "a\n");
    let snapshots = open(dir.path());
    let before = snapshots.take().expect("take");
    put(dir.path(), "deep/new/b.txt", "b\n");
    let after = snapshots.take().expect("take");
    assert_eq!(
        snapshots.changed_paths(&before, &after).expect("paths"),
        ["deep/new/b.txt"]
    );
}

#[test]
fn ignored_files_and_verdicts_own_do_not_count() {
    let dir = workspace();
    let root = dir.path();
    put(root, ".gitignore", "*.log\nbuild/\n");
    put(root, "src/a.py", "a = 1\n");
    let snapshots = open(root);
    let before = snapshots.take().expect("take");
    put(root, "debug.log", "noise\n");
    put(root, "build/out.js", "x\n");
    put(
        root,
        "node_modules/left-pad/index.js",
        "module.exports = 1;\n",
    );
    put(root, "web/node_modules/x/index.js", "1\n");
    put(root, ".venv/lib/site.py", "x\n");
    put(root, "src/__pycache__/a.cpython-312.pyc", "\0\0");
    put(root, ".pytest_cache/v/cache/lastfailed", "{}\n");
    put(root, ".mypy_cache/3.12/a.json", "{}\n");
    put(root, ".verdict/runs/1/eslint.log", "log\n");
    assert_eq!(snapshots.take().expect("take"), before);
    // And something not ignored next to them does count, so the comparison can fail.
    put(root, "src/b.py", "b = 1\n");
    assert_ne!(snapshots.take().expect("take"), before);
}

#[test]
fn an_empty_workspace_is_the_empty_tree() {
    let dir = workspace();
    let snapshots = open(dir.path());
    let empty = snapshots.take().expect("take");
    assert_eq!(empty.as_str(), EMPTY_TREE);
    put(dir.path(), "a/b/c.txt", "c\n");
    let restored = check_restore(&snapshots, &empty);
    assert_eq!(
        restored,
        Restored {
            restored: 0,
            removed: 1
        }
    );
    assert!(!dir.path().join("a").exists(), "the emptied directories go");
}

#[test]
fn file_names_with_spaces_newlines_and_other_bytes() {
    let dir = workspace();
    let root = dir.path();
    put(root, "plain.txt", "p\n");
    let snapshots = open(root);
    let before = snapshots.take().expect("take");
    let odd = "a b\nc.txt";
    put(root, odd, "odd\n");
    put(root, "é tab\there.txt", "unicode\n");
    let after = snapshots.take().expect("take");
    let mut paths = snapshots.changed_paths(&before, &after).expect("paths");
    paths.sort();
    assert_eq!(paths, [odd, "é tab\there.txt"]);
    // Not UTF-8 at all: a snapshot takes it and a restore removes it.
    use std::os::unix::ffi::OsStrExt;
    let latin1 = root.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
    fs::write(&latin1, "latin-1\n").expect("write");
    let changed = snapshots.take().expect("take");
    assert_ne!(changed, after);
    let restored = check_restore(&snapshots, &before);
    assert_eq!(restored.removed, 3);
    assert!(!root.join(odd).exists() && !latin1.exists());
    // And they come back.
    check_restore(&snapshots, &changed);
    assert_eq!(read(root, odd), "odd\n");
    assert!(latin1.exists());
}

// ---------------------------------------------------------------------------------------------
// Restore

#[test]
fn restore_undoes_edits_deletions_additions_modes_and_symlinks() {
    let dir = workspace();
    let root = dir.path();
    put(root, ".gitignore", "*.log\n");
    put(root, "src/cart.js", "export function add() {}\n");
    put(root, "src/deleted.js", "gone soon\n");
    put(root, "bin/run.sh", "#!/bin/sh\necho run\n");
    fs::set_permissions(root.join("bin/run.sh"), fs::Permissions::from_mode(0o755)).expect("chmod");
    put(root, "docs/guide.md", "# guide\n");
    put(root, "was-file", "a file at first\n");
    put(root, "was-dir/inner.txt", "a directory at first\n");
    symlink("src/cart.js", root.join("link")).expect("symlink");
    symlink("docs", root.join("docs-link")).expect("symlink");
    symlink("nowhere", root.join("dangling")).expect("symlink");
    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    snapshots.pin(&start, "runs/1/start").expect("pin");

    // An attempt changes everything it can.
    put(root, "src/cart.js", "export function add() { return 1; }\n");
    fs::remove_file(root.join("src/deleted.js")).expect("rm");
    fs::set_permissions(root.join("bin/run.sh"), fs::Permissions::from_mode(0o644)).expect("chmod");
    put(root, "new/deep/nested/file.ts", "export {};\n");
    put(root, "src/extra.js", "1\n");
    fs::remove_file(root.join("link")).expect("rm");
    symlink("src/extra.js", root.join("link")).expect("symlink");
    fs::remove_file(root.join("docs-link")).expect("rm");
    fs::create_dir(root.join("docs-link")).expect("mkdir");
    put(root, "docs-link/real.md", "now a real directory\n");
    fs::remove_file(root.join("was-file")).expect("rm");
    put(root, "was-file/child.txt", "now a directory\n");
    fs::remove_dir_all(root.join("was-dir")).expect("rm");
    put(root, "was-dir", "now a file\n");
    fs::remove_file(root.join("dangling")).expect("rm");
    put(root, "dangling", "a file in place of a link\n");
    put(root, "debug.log", "ignored, stays\n");
    put(root, "new/deep/kept.log", "ignored, keeps its directory\n");
    assert_ne!(snapshots.take().expect("take"), start);

    let restored = check_restore(&snapshots, &start);
    // Written back: cart.js, deleted.js, run.sh (mode), link (target), docs-link (type),
    // was-file, was-dir/inner.txt, dangling (type). Removed: nested/file.ts, extra.js, docs-link/real.md,
    // was-file/child.txt, was-dir (the file).
    assert_eq!(
        restored,
        Restored {
            restored: 8,
            removed: 5
        }
    );
    assert_eq!(read(root, "src/cart.js"), "export function add() {}\n");
    assert_eq!(read(root, "src/deleted.js"), "gone soon\n");
    assert_eq!(mode(root, "bin/run.sh"), 0o755);
    assert_eq!(
        fs::read_link(root.join("link")).expect("a link"),
        Path::new("src/cart.js")
    );
    assert_eq!(
        fs::read_link(root.join("docs-link")).expect("a link"),
        Path::new("docs")
    );
    assert_eq!(
        fs::read_link(root.join("dangling")).expect("a link"),
        Path::new("nowhere")
    );
    assert_eq!(read(root, "was-file"), "a file at first\n");
    assert_eq!(read(root, "was-dir/inner.txt"), "a directory at first\n");
    assert!(!root.join("src/extra.js").exists());
    assert!(
        !root.join("new/deep/nested").exists(),
        "emptied directories go"
    );
    assert_eq!(
        read(root, "new/deep/kept.log"),
        "ignored, keeps its directory\n"
    );
    assert_eq!(read(root, "debug.log"), "ignored, stays\n");

    // Nothing left to do the second time.
    assert_eq!(check_restore(&snapshots, &start), Restored::default());
}

#[test]
fn restore_writes_back_the_exact_bytes_whatever_gitattributes_says() {
    let dir = workspace();
    let root = dir.path();
    put(
        root,
        ".gitattributes",
        "* text=auto\n*.sh text eol=lf\n*.bin filter=lfs\n",
    );
    put(root, "crlf.txt", "one\r\ntwo\r\n");
    put(root, "script.sh", "echo hi\r\n");
    put(root, "data.bin", "version https://not-really-lfs\n");
    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    for path in ["crlf.txt", "script.sh", "data.bin"] {
        put(root, path, "changed\n");
    }
    check_restore(&snapshots, &start);
    assert_eq!(read(root, "crlf.txt"), "one\r\ntwo\r\n");
    assert_eq!(read(root, "script.sh"), "echo hi\r\n");
    assert_eq!(read(root, "data.bin"), "version https://not-really-lfs\n");
}

#[test]
fn restore_never_changes_the_users_repository() {
    let dir = workspace();
    let root = dir.path();
    user_git(root, &["init", "-q", "-b", "main"]);
    put(root, ".gitignore", "*.log\n");
    put(root, "src/a.js", "a\n");
    put(root, "src/b.js", "b\n");
    user_git(root, &["add", "-A"]);
    user_git(root, &["commit", "-q", "-m", "first"]);
    user_git(root, &["branch", "feature"]);
    put(root, "src/a.js", "stashed change\n");
    user_git(root, &["stash", "-q"]);
    // The user's own work in progress: a modified tracked file, a staged one, an untracked one.
    put(root, "src/a.js", "work in progress\n");
    put(root, "src/b.js", "staged\n");
    user_git(root, &["add", "src/b.js"]);
    put(root, "notes.txt", "untracked\n");
    let state = |root: &Path| {
        [
            user_git(root, &["stash", "list"]),
            user_git(root, &["branch", "--list"]),
            user_git(root, &["rev-parse", "HEAD"]),
            // `.verdict/` is verdict's own directory, there for runs and state whether or not
            // snapshots are taken; everything else must be as it was.
            user_git(
                root,
                &[
                    "status",
                    "--porcelain",
                    "--untracked-files=all",
                    "--",
                    ".",
                    ":(exclude).verdict",
                ],
            ),
            user_git(root, &["diff", "--cached"]),
            user_git(root, &["config", "--local", "--list"]),
        ]
    };
    let before = state(root);

    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    snapshots.pin(&start, "runs/1/start").expect("pin");
    put(root, "src/a.js", "the agent's edit\n");
    fs::remove_file(root.join("notes.txt")).expect("rm");
    put(root, "src/c.js", "new\n");
    let changed = state(root);
    assert_ne!(
        changed[3], before[3],
        "the attempt shows in the user's status"
    );
    check_restore(&snapshots, &start);

    assert_eq!(state(root), before);
    assert_eq!(read(root, "src/a.js"), "work in progress\n");
    assert_eq!(read(root, "notes.txt"), "untracked\n");
    // The user's repository has no ref of ours.
    assert!(!user_git(root, &["for-each-ref"]).contains("verdict"));
}

#[test]
fn restore_of_a_tree_that_is_not_there_fails() {
    let dir = workspace();
    put(dir.path(), "a.txt", "a\n");
    let snapshots = open(dir.path());
    let missing = TreeId::new("0123456789abcdef0123456789abcdef01234567".to_owned()).expect("id");
    let error = snapshots.restore(&missing).expect_err("no such tree");
    assert!(
        matches!(error, SnapshotError::UnknownTree { .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .starts_with("no snapshot tree 0123456789abcdef")
    );
    assert_eq!(read(dir.path(), "a.txt"), "a\n");
    assert!(snapshots.diff(&missing, &missing).is_err());
}

// ---------------------------------------------------------------------------------------------
// Diffs, pins, locks

#[test]
fn the_diff_feeds_the_cheating_guard() {
    let dir = workspace();
    let root = dir.path();
    let tests = "describe('cart', () => {\n  it('adds items', () => {\n    expect(add()).toBe(1);\n  });\n\n  it('removes items', () => {\n    expect(remove()).toBe(0);\n  });\n});\n";
    put(root, "src/cart.test.js", tests);
    put(root, "src/cart.js", "export const add = () => 0;\n");
    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    put(
        root,
        "src/cart.test.js",
        &tests.replace(
            "\n  it('removes items', () => {\n    expect(remove()).toBe(0);\n  });\n",
            "",
        ),
    );
    put(root, "src/cart.js", "export const add = () => 1;\n");
    let now = snapshots.take().expect("take");
    let diff = snapshots.diff(&start, &now).expect("diff");
    assert!(!diff.truncated);
    assert!(
        diff.text
            .contains("diff --git a/src/cart.test.js b/src/cart.test.js\n"),
        "{}",
        diff.text
    );
    assert!(diff.text.contains("\n@@ "));

    let guard = Guard::new::<&str>(&[]).expect("guard");
    let violations = guard.check(None, &[], &diff.text, &Default::default());
    let removed: Vec<_> = violations
        .iter()
        .filter(|v| v.kind == ViolationKind::TestRemoved)
        .collect();
    assert_eq!(removed.len(), 1, "{violations:?}");
    assert_eq!(removed[0].file.as_deref(), Some("src/cart.test.js"));
    assert_eq!(removed[0].line, Some(6));
    assert!(
        removed[0].message.contains("removes items"),
        "{}",
        removed[0].message
    );
    // The same diff the other way round removes nothing.
    let back = snapshots.diff(&now, &start).expect("diff");
    assert!(
        guard
            .check(None, &[], &back.text, &Default::default())
            .iter()
            .all(|v| v.kind != ViolationKind::TestRemoved)
    );
}

#[test]
fn a_deleted_test_file_shows_in_the_diff() {
    let dir = workspace();
    let root = dir.path();
    put(
        root,
        "tests/test_cart.py",
        "def test_add():\n    assert add() == 1\n",
    );
    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    fs::remove_file(root.join("tests/test_cart.py")).expect("rm");
    let now = snapshots.take().expect("take");
    let diff = snapshots.diff(&start, &now).expect("diff");
    let guard = Guard::new::<&str>(&[]).expect("guard");
    let kinds: Vec<_> = guard
        .check(None, &[], &diff.text, &Default::default())
        .into_iter()
        .map(|v| v.kind)
        .collect();
    assert!(kinds.contains(&ViolationKind::TestFileRemoved), "{kinds:?}");
}

#[test]
fn a_huge_diff_is_cut_at_a_line() {
    let dir = workspace();
    let root = dir.path();
    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    let line = "a line of generated text that goes on for a while, 0123456789\n";
    put(
        root,
        "big.txt",
        &line.repeat(DIFF_LIMIT / line.len() + 1000),
    );
    let now = snapshots.take().expect("take");
    let diff = snapshots.diff(&start, &now).expect("diff");
    assert!(diff.truncated);
    assert!(diff.text.len() <= DIFF_LIMIT);
    assert!(diff.text.len() > DIFF_LIMIT - line.len() - 2);
    assert!(diff.text.ends_with('\n'));
    assert!(diff.text.starts_with("diff --git a/big.txt b/big.txt\n"));
}

/// The session-start hook verifies a tree in a copy of it: the export writes the tree's files,
/// modes and symlinks as the tree holds them, whatever the workspace holds now, and leaves the
/// workspace and its next snapshot alone; `ignored` names what the copy must link in.
#[test]
fn an_exported_tree_is_the_tree_and_ignored_paths_are_named() {
    let dir = workspace();
    let root = dir.path();
    put(root, ".gitignore", "*.log\nbuild/\n");
    put(root, "src/a.py", "a = 1\n");
    put(root, "run.sh", "#!/bin/sh\n");
    fs::set_permissions(root.join("run.sh"), fs::Permissions::from_mode(0o755)).expect("chmod");
    symlink("src/a.py", root.join("link.py")).expect("symlink");
    put(root, "debug.log", "noise\n");
    put(root, "build/out.js", "x\n");
    put(root, "web/node_modules/x/index.js", "1\n");
    let snapshots = open(root);
    let tree = snapshots.take().expect("take");
    // The workspace moves on before the export.
    put(root, "src/a.py", "a = 2\n");
    put(root, "src/new.py", "new = 1\n");
    let out = workspace();
    snapshots.export(&tree, out.path()).expect("export");
    assert_eq!(read(out.path(), "src/a.py"), "a = 1\n");
    assert_eq!(mode(out.path(), "run.sh"), 0o755);
    assert_eq!(
        fs::read_link(out.path().join("link.py")).expect("a link"),
        Path::new("src/a.py")
    );
    for absent in ["src/new.py", "debug.log", "build", "web/node_modules"] {
        assert!(!out.path().join(absent).exists(), "{absent}");
    }
    assert_eq!(read(root, "src/a.py"), "a = 2\n");
    let mut ignored = snapshots.ignored().expect("ignored");
    ignored.sort();
    let ignored: Vec<String> = ignored
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.starts_with(".verdict"))
        .collect();
    // `web` holds nothing but ignored files, so git names it too.
    assert_eq!(ignored, ["build", "debug.log", "web", "web/node_modules"]);
    // A pin can be taken away again.
    snapshots.pin(&tree, "hook/start/x").expect("pin");
    snapshots.unpin("hook/start/x").expect("unpin");
    snapshots
        .unpin("hook/start/x")
        .expect("unpin what is not pinned");
}

#[test]
fn a_pinned_tree_survives_gc_and_an_unpinned_one_does_not() {
    let dir = workspace();
    let root = dir.path();
    put(root, "a.txt", "pinned\n");
    let snapshots = open(root);
    let pinned = snapshots.take().expect("take");
    snapshots.pin(&pinned, "runs/7/start").expect("pin");
    // Pinning again is idempotent.
    snapshots.pin(&pinned, "runs/7/start").expect("pin again");
    put(root, "a.txt", "not pinned\n");
    let loose = snapshots.take().expect("take");
    put(root, "a.txt", "current\n");
    // An old modification time: the index then trusts the file's stat rather than finding it
    // racily clean, so the restore below meets an index entry whose blob the gc pruned.
    std::fs::File::options()
        .write(true)
        .open(root.join("a.txt"))
        .expect("open a.txt")
        .set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000))
        .expect("set its modification time");
    let _current = snapshots.take().expect("take");

    let git_dir = verdict_core::paths::snapshots(&root.canonicalize().expect("root"), "git");
    let git_dir = git_dir.to_str().expect("utf-8 temp path");
    user_git(root, &["--git-dir", git_dir, "gc", "-q", "--prune=now"]);
    assert!(
        user_git(root, &["--git-dir", git_dir, "for-each-ref"])
            .contains("refs/verdict/runs/7/start")
    );

    check_restore(&snapshots, &pinned);
    assert_eq!(read(root, "a.txt"), "pinned\n");
    assert!(matches!(
        snapshots.restore(&loose),
        Err(SnapshotError::UnknownTree { .. })
    ));
    assert!(matches!(
        snapshots.pin(&pinned, "../escape"),
        Err(SnapshotError::InvalidName(_))
    ));
}

#[test]
fn locks_left_by_a_killed_process_are_taken_over() {
    let dir = workspace();
    put(dir.path(), "a.txt", "a\n");
    let snapshots = open(dir.path());
    let first = snapshots.take().expect("take");
    // A process that has exited: its pid is free.
    let mut child = Command::new("true").spawn().expect("spawn true");
    let dead = child.id();
    child.wait().expect("wait");
    let state = verdict_core::paths::dir(&dir.path().canonicalize().expect("root"));
    fs::write(state.join("snapshots.lock"), format!("{dead} 1\n")).expect("write");
    fs::write(state.join("snapshots.index.lock"), "").expect("write");
    put(dir.path(), "a.txt", "b\n");
    let second = snapshots.take().expect("take after a crash");
    assert_ne!(first, second);
    assert!(!state.join("snapshots.lock").exists(), "released");
    assert!(!state.join("snapshots.index.lock").exists());
}

#[test]
fn a_live_lock_is_waited_for() {
    let dir = workspace();
    put(dir.path(), "a.txt", "a\n");
    let snapshots = open(dir.path());
    // This very process holds it, as another verdict would, for a moment.
    let lock = verdict_core::paths::snapshots(&dir.path().canonicalize().expect("root"), "lock");
    fs::write(&lock, format!("{} 0\n", std::process::id())).expect("write");
    let release = {
        let lock = lock.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            fs::remove_file(lock).expect("release");
        })
    };
    let started = std::time::Instant::now();
    snapshots.take().expect("take once released");
    assert!(started.elapsed() >= std::time::Duration::from_millis(250));
    release.join().expect("join");
}

#[test]
fn read_gives_each_file_as_the_tree_holds_it() {
    let dir = workspace();
    let root = dir.path();
    put(root, "conftest.py", "import pytest\n");
    put(root, "a b/pytest.ini", "[pytest]\n");
    let snapshots = open(root);
    let start = snapshots.take().expect("take");
    put(root, "conftest.py", "changed\n");
    put(root, "new.py", "x\n");
    let paths: Vec<String> = [
        "conftest.py",
        "new.py",
        "a b/pytest.ini",
        "a b",
        "a b/gone x",
    ]
    .iter()
    .map(|p| p.to_string())
    .collect();
    let read = snapshots.read(&start, &paths).expect("read");
    assert_eq!(
        read,
        [
            Some(b"import pytest\n".to_vec()),
            None,
            Some(b"[pytest]\n".to_vec()),
            None,
            None
        ]
    );
}
