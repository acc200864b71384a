//! Where `summarize_log` may read: the files of the server's workspace and of its runs directory
//! (the logs `verify` links to), nothing else; where `resources/read` may read: the runs
//! directory alone ([`Workspace::runs`]). A client is not the user: it gets no file the user
//! can read elsewhere (`../secret`, `/home/me/.ssh/id_ed25519`, a symlink pointing out).
//!
//! A path resolves against the workspace, symlinks included, and must land inside one of the two
//! places; the file is then opened ([`files::open_regular`]: a regular file only, never a FIFO or
//! a device that would hang the call) and what was opened is checked again through
//! `/proc/self/fd`, so that a link swapped in between the check and the open gains nothing.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use verdict_core::{files, paths};

use crate::config;

/// The places a client may read from.
pub(super) struct Workspace {
    /// Where relative paths start: the server's `--dir`, else its current directory.
    start: PathBuf,
    /// Canonical directories a file must be inside.
    allowed: Vec<PathBuf>,
}

impl Workspace {
    /// The workspace of a server started with `dir` (`None`: its current directory): that
    /// directory, the project root verdict.toml names above it, and the project's runs directory.
    pub(super) fn of(dir: Option<&Path>) -> Result<Workspace, String> {
        let start = match dir {
            Some(dir) => dir.to_path_buf(),
            None => std::env::current_dir()
                .map_err(|error| format!("failed to read the current directory: {error}"))?,
        };
        let mut allowed = Vec::new();
        let mut roots = vec![start.clone()];
        if let Ok(found) = config::discover(&start) {
            roots.push(found.project_dir().to_path_buf());
        }
        for root in roots {
            for place in [paths::runs(&root), root] {
                if let Ok(canonical) = place.canonicalize()
                    && !allowed.contains(&canonical)
                {
                    allowed.push(canonical);
                }
            }
        }
        if allowed.is_empty() {
            return Err(format!(
                "the workspace {} cannot be resolved",
                start.display()
            ));
        }
        Ok(Workspace { start, allowed })
    }

    /// The runs directories of a server started with `dir` (its own and the project's that
    /// verdict.toml names above it): the logs `verify` links to, and nothing else.
    pub(super) fn runs(dir: Option<&Path>) -> Result<Workspace, String> {
        let workspace = Workspace::of(dir)?;
        let mut roots = vec![workspace.start.clone()];
        if let Ok(found) = config::discover(&workspace.start) {
            roots.push(found.project_dir().to_path_buf());
        }
        let mut allowed = Vec::new();
        for root in roots {
            if let Ok(canonical) = paths::runs(&root).canonicalize()
                && !allowed.contains(&canonical)
            {
                allowed.push(canonical);
            }
        }
        if allowed.is_empty() {
            return Err(format!(
                "no run of verdict in {} yet: call `verify` first",
                workspace.start.display()
            ));
        }
        Ok(Workspace {
            start: workspace.start,
            allowed,
        })
    }

    /// The runs directories this workspace allows, canonical.
    pub(super) fn places(&self) -> &[PathBuf] {
        &self.allowed
    }

    /// Opens the log at `path` (relative to the workspace) when it is a regular file inside the
    /// workspace or its runs directory; otherwise says why not.
    pub(super) fn open(&self, path: &Path) -> Result<(PathBuf, File), String> {
        let joined = self.start.join(path);
        let canonical = joined
            .canonicalize()
            .map_err(|error| format!("failed to read {}: {error}", joined.display()))?;
        if !self.inside(&canonical) {
            return Err(self.outside(path, &canonical));
        }
        let file = files::open_regular(&canonical)
            .map_err(|error| format!("failed to read {}: {error}", joined.display()))?;
        // What was opened, whatever the path names by now.
        let opened = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .unwrap_or_else(|_| canonical.clone());
        if !self.inside(&opened) {
            return Err(self.outside(path, &opened));
        }
        Ok((joined, file))
    }

    fn inside(&self, canonical: &Path) -> bool {
        self.allowed.iter().any(|dir| canonical.starts_with(dir))
    }

    fn outside(&self, path: &Path, canonical: &Path) -> String {
        let places: Vec<String> = self
            .allowed
            .iter()
            .map(|dir| dir.display().to_string())
            .collect();
        format!(
            "refused to read {}: it resolves to {}, outside the workspace; verdict reads only \
             files inside {} (summarize_log also takes the log's text as `text`)",
            path.display(),
            canonical.display(),
            places.join(" or ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_out_of_the_workspace_are_refused() {
        let temp = tempfile::tempdir().expect("a temp dir");
        let outer = temp.path().canonicalize().expect("canonical");
        let project = outer.join("project");
        std::fs::create_dir_all(project.join("logs")).expect("mkdir");
        std::fs::write(project.join("logs/a.log"), "ok\n").expect("write");
        std::fs::write(outer.join("secret.log"), "secret\n").expect("write");
        std::os::unix::fs::symlink(outer.join("secret.log"), project.join("link.log"))
            .expect("symlink");
        let workspace = Workspace::of(Some(&project)).expect("a workspace");
        assert!(workspace.open(Path::new("logs/a.log")).is_ok());
        assert!(workspace.open(&project.join("logs/a.log")).is_ok());
        for path in [
            PathBuf::from("../secret.log"),
            outer.join("secret.log"),
            PathBuf::from("link.log"),
        ] {
            let error = workspace.open(&path).expect_err("outside");
            assert!(error.contains("outside the workspace"), "{error}");
        }
    }
}
