//! Where the project sits in its repository: the CI formats name files from the repository's
//! root, whatever directory verdict verified (`verdict run -C packages/a`).
//!
//! Tools print paths relative to the directory they ran in (the project's), or absolute ones.
//! GitHub, GitLab and Jenkins read paths relative to the checkout, so [`Repo::path`] turns the
//! first kind into repository paths and the second kind into repository paths when they lie
//! inside the repository. The digest and the human format keep the project's own paths: an agent
//! works in the project.
//!
//! Everything here works on text: the CLI finds the repository and hands its findings over, so
//! that renderers stay pure.

use std::borrow::Cow;

/// The repository around the project, and how CI reports name the run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repo<'a> {
    /// The repository's root: absolute, with `/` separators and no trailing `/` (`/src/app`,
    /// `C:/src/app`). `None` when unknown: paths are then only ever relative to the project, and
    /// absolute ones stay absolute.
    pub root: Option<&'a str>,
    /// The project's directory relative to [`Repo::root`], with `/` separators and neither a
    /// leading nor a trailing `/` (`packages/a`); empty when the project is the repository's root.
    pub project: &'a str,
    /// The first part of the SARIF categories (`verdict run --category`); `None` is `verdict`.
    /// Matrix jobs that verify one project in several ways set it so their uploads do not close
    /// each other's alerts.
    pub category: Option<&'a str>,
}

/// The category prefix without `--category`.
pub const DEFAULT_CATEGORY: &str = "verdict";

impl<'a> Repo<'a> {
    /// `file` (as a tool printed it, relative to the project or absolute) as a path from the
    /// repository's root: `/` separators, no `./` or `..` segments. A path outside the repository
    /// stays absolute (a relative one that climbs out of it is made absolute when the root is
    /// known).
    pub fn path<'f>(&self, file: &'f str) -> Cow<'f, str> {
        let slashed: Cow<'f, str> = if file.contains('\\') {
            Cow::Owned(file.replace('\\', "/"))
        } else {
            Cow::Borrowed(file)
        };
        if is_absolute(&slashed) {
            return match self.root.and_then(|root| strip_dir(&slashed, root)) {
                Some(inside) => Cow::Owned(normalize("", inside).relative),
                None => slashed,
            };
        }
        if self.project.is_empty() && is_plain(&slashed) {
            return slashed;
        }
        let normal = normalize(self.project, &slashed);
        if normal.climbs == 0 {
            return Cow::Owned(normal.relative);
        }
        match self.root {
            Some(root) => {
                let mut base: Vec<&str> = root.split('/').collect();
                // The root's first segment is `` (Unix) or `C:` (Windows): never climbed past.
                let keep = base.len().saturating_sub(normal.climbs).max(1);
                base.truncate(keep);
                let mut absolute = base.join("/");
                absolute.push('/');
                absolute.push_str(&normal.relative);
                Cow::Owned(absolute)
            }
            None => {
                let mut climbed = "../".repeat(normal.climbs);
                climbed.push_str(&normal.relative);
                Cow::Owned(climbed)
            }
        }
    }

    /// The project's directory as reports spell it: `.` for the repository's root.
    pub fn project_or_dot(&self) -> &'a str {
        if self.project.is_empty() {
            "."
        } else {
            self.project
        }
    }

    /// The prefix of SARIF categories: [`Repo::category`], else [`DEFAULT_CATEGORY`].
    pub fn category_prefix(&self) -> &'a str {
        self.category.unwrap_or(DEFAULT_CATEGORY)
    }
}

/// Whether `path` (with `/` separators) is absolute: `/x`, `C:/x`, `//server/share`.
pub(crate) fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || (bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && bytes[2] == b'/')
}

/// A relative path that needs no work: no `.`, `..` or empty segment.
fn is_plain(path: &str) -> bool {
    !path.is_empty()
        && path
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

/// What is left of `path` below the directory `dir`, when `path` lies inside it.
fn strip_dir<'p>(path: &'p str, dir: &str) -> Option<&'p str> {
    let dir = dir.trim_end_matches('/');
    let rest = path.strip_prefix(dir)?;
    rest.strip_prefix('/').filter(|r| !r.is_empty())
}

/// A relative path with its `.` and `..` segments resolved, and how far it climbed above its
/// start.
struct Normal {
    relative: String,
    climbs: usize,
}

/// `base/path` with `.`, `..` and empty segments resolved.
fn normalize(base: &str, path: &str) -> Normal {
    let mut segments: Vec<&str> = Vec::new();
    let mut climbs = 0;
    for segment in base.split('/').chain(path.split('/')) {
        match segment {
            "" | "." => {}
            ".." => {
                if segments.pop().is_none() {
                    climbs += 1;
                }
            }
            other => segments.push(other),
        }
    }
    Normal {
        relative: segments.join("/"),
        climbs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo(root: Option<&'static str>, project: &'static str) -> Repo<'static> {
        Repo {
            root,
            project,
            category: None,
        }
    }

    #[test]
    fn project_paths_become_repository_paths() {
        let a = repo(Some("/src/app"), "packages/a");
        assert_eq!(a.path("src/x.ts"), "packages/a/src/x.ts");
        assert_eq!(a.path("./src/x.ts"), "packages/a/src/x.ts");
        assert_eq!(a.path(r"src\win\y.ts"), "packages/a/src/win/y.ts");
        assert_eq!(a.path("../shared/z.ts"), "packages/shared/z.ts");
        assert_eq!(a.path("/src/app/packages/b/w.ts"), "packages/b/w.ts");
        assert_eq!(a.path("/src/app/./packages/a/v.ts"), "packages/a/v.ts");
        // Outside the repository: absolute, as printed.
        assert_eq!(a.path("/usr/lib/node/x.d.ts"), "/usr/lib/node/x.d.ts");
        assert_eq!(a.path("/src/application/x.ts"), "/src/application/x.ts");
        assert_eq!(a.path("../../../etc/x"), "/src/etc/x");
        let root = repo(Some("/src/app"), "");
        assert!(matches!(root.path("src/x.ts"), Cow::Borrowed("src/x.ts")));
        assert_eq!(root.path("./src/x.ts"), "src/x.ts");
        assert_eq!(root.path("../x.ts"), "/src/x.ts");
        assert_eq!(repo(Some("/r"), "").path("../../../x"), "/x");
        let windows = repo(Some("C:/src/app"), "pkg");
        assert_eq!(windows.path(r"C:\src\app\pkg\a.ts"), "pkg/a.ts");
        assert_eq!(windows.path("../../b.ts"), "C:/src/b.ts");
        let unknown = repo(None, "");
        assert_eq!(unknown.path("../x.ts"), "../x.ts");
        assert_eq!(unknown.path("/abs/x.ts"), "/abs/x.ts");
    }

    #[test]
    fn the_root_is_spelled_dot() {
        assert_eq!(repo(None, "").project_or_dot(), ".");
        assert_eq!(repo(None, "packages/a").project_or_dot(), "packages/a");
    }
}
