//! Where verdict keeps its own files (issue 20, item 6): out of the project's tree, where the
//! project's tools do not look — in the git directory of the work tree, else the user's cache
//! directory — with an older `.verdict/` moved there, and `VERDICT_STATE_DIR` to keep them in
//! the tree. These tests run verdict without the `VERDICT_STATE_DIR=.verdict` the other CLI
//! tests set (an empty value is no value).

use std::path::Path;
use std::process::Command;

use crate::support::project::{Out, Project};

/// A verifier with `inputs`, so that a pass is cached (JSON files in verdict's directory).
const CONFIG: &str = r#"
[[verifier]]
name = "check"
kind = "build"
command = ["sh", "-c", "grep -q ok src/a.txt || { echo 'src/a.txt:1:1: error: not ok'; exit 1; }"]
inputs = ["src/**"]
"#;

/// `VERDICT_STATE_DIR` set empty: verdict's default place.
const DEFAULT: &str = "";

/// A passing project with a formatted `package.json`, in a git repository with one commit.
fn project() -> Project {
    let project = Project::empty();
    project.write("verdict.toml", CONFIG);
    project.write("src/a.txt", "ok\n");
    project.write("package.json", "{\n  \"name\": \"fixture\"\n}\n");
    project.git_init();
    project.git(&["add", "-A"]);
    project.git(&["commit", "-q", "-m", "init"]);
    project
}

/// `verdict run` in the project with verdict's default place, and the user's cache directory at
/// `cache`.
fn run(project: &Project, cache: &Path) -> Out {
    let cache = cache.to_str().expect("a UTF-8 temp path");
    let out = project.verdict_env(
        &["run"],
        &[("VERDICT_STATE_DIR", DEFAULT), ("XDG_CACHE_HOME", cache)],
    );
    assert_eq!(out.code, 0, "{}", out.all());
    out
}

/// node-cron's `prettier ./**/*.{json,md,yml} --check` failed on the JSON verdict wrote under
/// `.verdict/`, so the project's own lint failed after any verdict run. The real prettier over
/// the project's JSON passes after a run (a cached one included), and nothing of verdict's is in
/// the tree.
#[test]
fn prettier_over_the_projects_json_passes_after_a_run() {
    let project = project();
    let cache = tempfile::tempdir().expect("a cache dir");
    run(&project, cache.path());
    let out = run(&project, cache.path());
    assert!(out.stdout.contains("(cached)"), "{}", out.all());
    assert!(!project.path(".verdict").exists());
    assert!(project.path(".git/verdict/cache").is_dir());
    let prettier = verdict_test_support::tool("node_modules/.bin/prettier");
    let output = Command::new(prettier)
        .args(["--check", "./**/*.{json,md,yml}", "**/*.json"])
        .current_dir(project.root())
        .env("PATH", crate::support::project::path_with_node())
        .output()
        .expect("prettier starts");
    assert!(
        output.status.success(),
        "prettier --check: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // And git sees nothing new.
    let status = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all"])
        .current_dir(project.root())
        .output()
        .expect("git starts");
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");
}

/// A linked work tree (`git worktree add`) keeps its files in its own git directory
/// (`.git/worktrees/<name>/verdict/`), apart from the main checkout's (`.git/verdict/`): its
/// cache and runs are its own.
#[test]
fn a_worktree_gets_its_own_state() {
    let project = project();
    let cache = tempfile::tempdir().expect("a cache dir");
    let outside = tempfile::tempdir().expect("a place for the worktree");
    let worktree = outside.path().join("w1");
    project.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "w1",
        worktree.to_str().expect("UTF-8"),
    ]);
    run(&project, cache.path());
    // The worktree breaks the check: a cache shared with the checkout would still say it passed.
    std::fs::write(worktree.join("src/a.txt"), "bad\n").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_verdict"))
        .arg("run")
        .current_dir(&worktree)
        .env_remove("VERDICT_STATE_DIR")
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .expect("verdict starts");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let git_dir = project.root().join(".git/worktrees/w1/verdict");
    assert!(git_dir.join("runs").is_dir(), "{}", git_dir.display());
    assert!(project.path(".git/verdict/runs").is_dir());
    assert!(!worktree.join(".verdict").exists());
    let main_runs = std::fs::read_dir(project.path(".git/verdict/runs"))
        .expect("the checkout's runs")
        .count();
    assert_eq!(
        main_runs, 1,
        "the worktree's run went to the checkout's directory"
    );
}

/// A `.verdict/` an older verdict left in the tree is moved to the new place at the next run,
/// said once on stderr; the state it holds (the cached pass) is used from there.
#[test]
fn an_older_verdict_directory_is_moved_out_of_the_tree() {
    let project = project();
    let cache = tempfile::tempdir().expect("a cache dir");
    // An older verdict's run: its files in the tree. (Where verdict keeps its files is not part of
    // a cache key; every other variable is, so the runs share the rest of their environment.)
    let xdg = cache.path().to_str().expect("a UTF-8 temp path");
    let out = project.verdict_env(
        &["run"],
        &[("VERDICT_STATE_DIR", ".verdict"), ("XDG_CACHE_HOME", xdg)],
    );
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(project.path(".verdict/cache").is_dir());
    let out = run(&project, cache.path());
    assert!(out.stderr.contains("moved its files"), "{}", out.all());
    assert!(
        out.stdout.contains("(cached)"),
        "the moved cache is used: {}",
        out.all()
    );
    assert!(!project.path(".verdict").exists());
    assert!(project.path(".git/verdict/cache").is_dir());
    let out = run(&project, cache.path());
    assert!(!out.stderr.contains("moved"), "said once: {}", out.all());
}

/// Outside any repository, verdict's files go to the user's cache directory, not the tree.
#[test]
fn outside_a_repository_the_files_go_to_the_cache_directory() {
    let project = Project::empty();
    project.write("verdict.toml", CONFIG);
    project.write("src/a.txt", "ok\n");
    let cache = tempfile::tempdir().expect("a cache dir");
    run(&project, cache.path());
    let names: Vec<String> = std::fs::read_dir(project.root())
        .expect("the project")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert!(!names.iter().any(|n| n == ".verdict"), "{names:?}");
    let dirs: Vec<_> = std::fs::read_dir(cache.path().join("verdict"))
        .expect("verdict's cache directory")
        .collect();
    assert_eq!(dirs.len(), 1);
    let dir = dirs[0].as_ref().expect("an entry").path();
    assert!(dir.join("runs").is_dir(), "{}", dir.display());
}
