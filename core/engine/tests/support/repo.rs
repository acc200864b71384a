//! A temporary git repository whose `git diff` of the work tree against its first commit is the
//! attempt's diff the cheating guard reads, with the new text of the files it asks for, read from
//! the work tree as the driver reads them from the workspace.

use std::path::PathBuf;
use std::process::Command;

use verdict_core::Verification;
use verdict_core::agent_loop::guard::{Guard, Sources, Violation, files_to_read};

pub(crate) struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    /// A repository with `files` committed.
    pub(crate) fn new(files: &[(&str, &str)]) -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.write(files);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "start"]);
        repo
    }

    pub(crate) fn path(&self, file: &str) -> PathBuf {
        self.dir.path().join(file)
    }

    pub(crate) fn write(&self, files: &[(&str, &str)]) {
        for (name, text) in files {
            let path = self.path(name);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
    }

    pub(crate) fn remove(&self, file: &str) {
        std::fs::remove_file(self.path(file)).expect("remove");
    }

    pub(crate) fn git(&self, args: &[&str]) -> String {
        let output = Command::new("git")
            .args([
                "-c",
                "user.name=verdict",
                "-c",
                "user.email=verdict@example.invalid",
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.autocrlf=false",
            ])
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .output()
            .expect("git runs");
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).expect("utf-8 diff")
    }

    /// The attempt's diff as the driver takes it: everything staged, against the checkpoint.
    pub(crate) fn diff(&self) -> String {
        self.git(&["add", "-A"]);
        self.git(&[
            "diff",
            "--cached",
            "--no-color",
            "--no-ext-diff",
            "-M",
            "HEAD",
        ])
    }

    /// The new text of the files the guard asks for in `diff`.
    pub(crate) fn sources(&self, diff: &str) -> Sources {
        files_to_read(diff)
            .into_iter()
            .filter_map(|path| {
                let text = std::fs::read_to_string(self.path(&path)).ok()?;
                Some((path, text))
            })
            .collect()
    }

    /// What `guard` finds in the attempt, given the `baseline` verification.
    pub(crate) fn check(&self, guard: &Guard, baseline: Option<&[Verification]>) -> Vec<Violation> {
        self.check_run(guard, baseline, &[])
    }

    /// What `guard` finds in the attempt verified as `current`, given the `baseline`.
    pub(crate) fn check_run(
        &self,
        guard: &Guard,
        baseline: Option<&[Verification]>,
        current: &[Verification],
    ) -> Vec<Violation> {
        let diff = self.diff();
        guard.check(baseline, current, &diff, &self.sources(&diff))
    }

    /// The work tree's root.
    pub(crate) fn root(&self) -> &std::path::Path {
        self.dir.path()
    }
}
