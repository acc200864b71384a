//! Where the cache keeps a verifier's last pass and last report, and how it writes them.

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::key::{Fingerprint, Key, KeyStats, compute_key};
use crate::model::{Outcome, Report};
use crate::paths;
use crate::verifier::{CommandSpec, Inputs, Workspace};

/// The version of the on-disk format; entries of any other version are misses.
pub(super) const FORMAT: u32 = 1;

/// Encoded verifier names longer than this are shortened with a hash, to stay well within the
/// 255-byte file name limit with the suffixes and temporary-file prefixes added.
pub(super) const MAX_ENCODED_NAME: usize = 120;

/// The result cache of one workspace (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    pub(super) dir: PathBuf,
}

/// What the cache holds for a verifier and a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A pass stored with exactly this key.
    Pass(Box<Report>),
    /// A pass stored with another key: something it depends on changed since.
    OtherKey,
    /// No pass stored (never passed, its last run did not pass, or the entry is unreadable).
    Nothing,
}

/// One verifier's last pass, as stored.
#[derive(Serialize, Deserialize)]
pub(super) struct PassEntry {
    pub(super) format: u32,
    pub(super) verifier: String,
    pub(super) key: String,
    pub(super) report: Report,
}

/// One verifier's last report, as stored.
#[derive(Serialize, Deserialize)]
pub(super) struct LastEntry {
    pub(super) format: u32,
    pub(super) verifier: String,
    pub(super) report: Report,
}

impl Cache {
    /// The cache kept in `dir` (usually `<root>/.verdict/cache`). Nothing is created until
    /// something is stored (the stat cache [`Cache::key`] keeps under the root is written when a
    /// key is computed).
    pub fn open(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// The cache at its usual place in `workspace`: `<root>/.verdict/cache`.
    pub fn in_workspace(workspace: &Workspace) -> Cache {
        Cache::open(paths::cache(&workspace.root))
    }

    /// The directory the cache lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Hashes what a verifier's result depends on:
    ///
    /// - every file under `workspace.root` (or `inputs.root`) matched by `inputs.globs` (gitignore
    ///   syntax: a glob without a slash matches at any depth, `!` excludes), path and content —
    ///   files the project ignores included, but never looking into `.git/` or `.verdict/`, nor
    ///   into an ignored dependency, build or tool-cache directory ([`SKIPPED_WHEN_IGNORED`]:
    ///   `node_modules`, `target`, `.venv` …); hidden files count;
    /// - every file of `inputs.tool_files` (relative ones resolved against the root), with a
    ///   missing one counted as absent; and the program the command runs, found on its `PATH`,
    ///   with the interpreter its `#!` line names;
    /// - the environment verdict runs in, but for [`IGNORED_VARIABLES`] (the terminal's, the
    ///   shell's and the harnesses' session variables);
    /// - the command: program, arguments, environment, exit codes, and the working directory
    ///   relative to the root — with this run's directory, the output files and the root written
    ///   as placeholders, so that the run id in `--outputFile=.verdict/runs/<id>/jest.json` does not
    ///   change the key; the time-out does not count;
    /// - `salt`: whatever else the caller knows the result depends on (verdict's version, the
    ///   verifier's settings); and this crate's version.
    ///
    /// It uses the stat cache in `<root>/.verdict/cache/files/`. An error (an unreadable input,
    /// a directory that cannot be listed) means the key cannot be trusted: run the verifier.
    ///
    /// [`SKIPPED_WHEN_IGNORED`]: super::SKIPPED_WHEN_IGNORED
    /// [`IGNORED_VARIABLES`]: super::IGNORED_VARIABLES
    pub fn key(
        workspace: &Workspace,
        inputs: &Inputs,
        spec: &CommandSpec,
        salt: &str,
    ) -> io::Result<Key> {
        Cache::fingerprint(workspace, inputs, spec, salt).map(|fingerprint| fingerprint.key)
    }

    /// [`Cache::key`] with what the inputs looked like on disk, to tell whether one was written
    /// while the verifier ran (see [`Fingerprint`]).
    pub fn fingerprint(
        workspace: &Workspace,
        inputs: &Inputs,
        spec: &CommandSpec,
        salt: &str,
    ) -> io::Result<Fingerprint> {
        let stat_dir = paths::cache(&workspace.root).join("files");
        compute_key(workspace, inputs, spec, salt, Some(&stat_dir))
            .map(|(fingerprint, _)| fingerprint)
    }

    /// [`Cache::key`] with the stat cache kept in `stat_dir` (`None`: no stat cache, every file is
    /// read), also saying what it took.
    pub fn key_with_stats(
        workspace: &Workspace,
        inputs: &Inputs,
        spec: &CommandSpec,
        salt: &str,
        stat_dir: Option<&Path>,
    ) -> io::Result<(Key, KeyStats)> {
        compute_key(workspace, inputs, spec, salt, stat_dir)
            .map(|(fingerprint, stats)| (fingerprint.key, stats))
    }

    /// The passed report stored for `verifier` with exactly this key, if any. Anything missing,
    /// unreadable or stored with another key is a miss.
    pub fn lookup(&self, verifier: &str, key: &Key) -> Option<Report> {
        match self.find(verifier, key) {
            Found::Pass(report) => Some(*report),
            Found::OtherKey | Found::Nothing => None,
        }
    }

    /// What is stored for `verifier` and this key, telling a pass stored for another key from
    /// none at all.
    pub fn find(&self, verifier: &str, key: &Key) -> Found {
        let Ok(bytes) = fs::read(self.entry_path(verifier, "pass")) else {
            return Found::Nothing;
        };
        let Ok(entry) = serde_json::from_slice::<PassEntry>(&bytes) else {
            return Found::Nothing;
        };
        if entry.format != FORMAT
            || entry.verifier != verifier
            || entry.report.outcome != Outcome::Passed
        {
            return Found::Nothing;
        }
        if entry.key == key.to_string() {
            Found::Pass(Box::new(entry.report))
        } else {
            Found::OtherKey
        }
    }

    /// Stores `report`, which must have passed, as `verifier`'s result for `key`, replacing the
    /// one stored before. A report that did not pass is refused with
    /// [`io::ErrorKind::InvalidInput`] and leaves the cache as it was.
    pub fn store_pass(&self, verifier: &str, key: &Key, report: &Report) -> io::Result<()> {
        if report.outcome != Outcome::Passed {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "only passed reports are cached, and this one {}",
                    report.outcome.as_str()
                ),
            ));
        }
        let entry = PassEntry {
            format: FORMAT,
            verifier: verifier.to_owned(),
            key: key.to_string(),
            report: report.clone(),
        };
        let json = serde_json::to_vec(&entry).map_err(io::Error::other)?;
        write_atomic(&self.entry_path(verifier, "pass"), &json)
    }

    /// Forgets `verifier`'s stored pass, so that it runs next time whatever its inputs: what a
    /// run that did not pass does, whatever key it ran with. Its last report (for
    /// `--failed-first`) is kept. Forgetting what was never stored is not an error.
    /// Says whether there was one.
    pub fn forget(&self, verifier: &str) -> io::Result<bool> {
        match fs::remove_file(self.entry_path(verifier, "pass")) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Stores `report`, whatever its outcome, as `verifier`'s last report.
    pub fn store_last(&self, verifier: &str, report: &Report) -> io::Result<()> {
        let entry = LastEntry {
            format: FORMAT,
            verifier: verifier.to_owned(),
            report: report.clone(),
        };
        let json = serde_json::to_vec(&entry).map_err(io::Error::other)?;
        write_atomic(&self.entry_path(verifier, "last"), &json)
    }

    /// `verifier`'s last report, if one is stored and readable.
    pub fn last(&self, verifier: &str) -> Option<Report> {
        let bytes = fs::read(self.entry_path(verifier, "last")).ok()?;
        let entry: LastEntry = serde_json::from_slice(&bytes).ok()?;
        (entry.format == FORMAT && entry.verifier == verifier).then_some(entry.report)
    }

    fn entry_path(&self, verifier: &str, what: &str) -> PathBuf {
        self.dir
            .join(format!("{}.{what}.json", encode_name(verifier)))
    }
}

/// A file-name-safe, injective encoding of a verifier name (see the module docs).
fn encode_name(name: &str) -> String {
    let mut encoded = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_' {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    if encoded.len() > MAX_ENCODED_NAME {
        // `~` never appears in a plain encoding, so a shortened name cannot equal another's.
        let hash = blake3::hash(name.as_bytes()).to_hex();
        encoded.truncate(MAX_ENCODED_NAME - 33);
        // Truncating may cut a `%XX` escape in two; that only shortens the readable prefix.
        encoded.push('~');
        encoded.push_str(&hash[..32]);
    }
    encoded
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, creating
/// the directory if needed.
pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no parent directory"))?;
    fs::create_dir_all(dir)?;
    // Our own file names are ASCII (encoded verifier names, hashes), so nothing is lost here.
    let name = path
        .file_name()
        .unwrap_or(OsStr::new("entry"))
        .to_string_lossy();
    let tmp = dir.join(format!(
        ".tmp.{}.{}.{name}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let written = File::create_new(&tmp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_encoded_injectively_and_safely() {
        assert_eq!(encode_name("cargo-test"), "cargo-test");
        assert_eq!(encode_name("my/tool"), "my%2Ftool");
        assert_eq!(encode_name(".."), "%2E%2E");
        assert_ne!(encode_name("a%2F"), encode_name("a/"));
        let long = "x".repeat(500);
        let encoded = encode_name(&long);
        assert!(encoded.len() <= MAX_ENCODED_NAME, "{}", encoded.len());
        assert_ne!(encoded, encode_name(&"x".repeat(501)));
    }
}
