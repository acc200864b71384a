//! The key: everything a verifier's result depends on, hashed as tagged, length-prefixed
//! fields.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::dependencies::dependency_files;
use super::environment;
use super::normalize::Normalizer;
use super::stat::{RACY_WINDOW, StatTable, table_name};
use super::store::FORMAT;
use super::walk::{file_content, timestamp, walk};
use crate::verifier::{CommandSpec, Inputs, Workspace};

/// The hash of everything a verifier's result depends on; displayed as 64 hexadecimal digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

impl Key {
    /// The raw hash.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({self})")
    }
}

/// A key, and what its inputs looked like on disk when it was taken.
///
/// Two fingerprints taken before and after a run are equal only when no input was written in
/// between: the `lstat` of every file (size, modification and change times, inode) is part of
/// it, so a file edited during the run and then restored to the content it had still differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    /// The key: the content of the inputs, the environment, the tools and the command.
    pub key: Key,
    /// The hash of every input's path and `lstat`.
    seen: [u8; 32],
}

impl Fingerprint {
    /// Whether nothing was written to an input between `self` and `later`, and the key is the
    /// same: only then did the run between them see the inputs `self.key` names.
    pub fn unchanged_at(&self, later: &Fingerprint) -> bool {
        self == later
    }
}

/// What computing a key took, for tests and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyStats {
    /// Project files matched by the input globs.
    pub files: usize,
    /// Files (project and tool files) whose content was read and hashed.
    pub hashed: usize,
    /// Files whose hash came from the stat cache without reading them.
    pub from_stat_cache: usize,
    /// Bytes read and hashed.
    pub bytes_hashed: u64,
    /// Whether the stat cache was written back (it changed).
    pub stat_cache_written: bool,
}

/// Feeds length-prefixed, tagged fields to a hasher, so that no two different sequences of fields
/// hash the same bytes.
pub(super) struct KeyHasher(pub(super) blake3::Hasher);

impl KeyHasher {
    pub(super) fn field(&mut self, tag: u8, bytes: &[u8]) {
        self.0.update(&[tag]);
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    pub(super) fn count(&mut self, tag: u8, n: usize) {
        self.field(tag, &(n as u64).to_le_bytes());
    }
}

/// What a file contributed to the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Content {
    /// A regular file with this content hash.
    File([u8; 32]),
    /// A symbolic link: the hash of its target path and of the target's content (if a file).
    Link([u8; 32]),
    /// A socket, a FIFO or a device: never read, only its presence counts.
    Special,
    /// Not there (tool files only).
    Absent,
}

impl Content {
    pub(super) fn feed(&self, hasher: &mut KeyHasher) {
        match self {
            Content::File(hash) => hasher.field(b'f', hash),
            Content::Link(hash) => hasher.field(b'l', hash),
            Content::Special => hasher.field(b'o', &[]),
            Content::Absent => hasher.field(b'a', &[]),
        }
    }
}

pub(super) fn compute_key(
    workspace: &Workspace,
    inputs: &Inputs,
    spec: &CommandSpec,
    salt: &str,
    stat_dir: Option<&Path>,
) -> io::Result<(Fingerprint, KeyStats)> {
    let root = workspace.root.as_path();
    // The globs' own root (a monorepo's, above the workspace) when the verifier names one.
    let glob_root = inputs.root.as_ref().map(|dir| root.join(dir));
    let glob_root = glob_root.as_deref().unwrap_or(root);
    let table_path = stat_dir.map(|dir| dir.join(table_name(glob_root, &inputs.globs)));
    let table = table_path
        .as_deref()
        .map(StatTable::load)
        .unwrap_or_default();
    // Taken before any file is read: a file whose times are older than this minus the racy
    // window cannot have been changed in the same timestamp tick as our read of it.
    let trust_before = timestamp(SystemTime::now().checked_sub(RACY_WINDOW));

    let walked = walk(glob_root, &inputs.globs, &table, trust_before)?;
    let mut stats = walked.stats;
    let mut recorded = walked.recorded;

    let mut hasher = KeyHasher(blake3::Hasher::new());
    let mut seen = KeyHasher(blake3::Hasher::new());
    hasher.field(b'V', format!("verdict-cache {FORMAT}").as_bytes());
    hasher.field(b'v', env!("CARGO_PKG_VERSION").as_bytes());
    hasher.field(b's', salt.as_bytes());
    hash_spec(&mut hasher, workspace, spec);
    environment::feed(&mut hasher);

    if glob_root != root {
        hasher.field(b'R', glob_root.as_os_str().as_encoded_bytes());
    }
    hasher.count(b'G', inputs.globs.len());
    for glob in &inputs.globs {
        hasher.field(b'g', glob.as_bytes());
    }

    // The verifier's tool files, then the program and its interpreter: the tool's version where
    // no tool file names it (a `node`, a `python`, a script's `#!` line).
    // Then what is installed for the project (see `dependencies`).
    let programs = program_files(spec);
    let dependencies = dependency_files(root);
    let tool_files = inputs
        .tool_files
        .iter()
        .map(|file| (b't', file.as_path()))
        .chain(programs.iter().map(|file| (b'q', file.as_path())))
        .chain(dependencies.iter().map(|file| (b'd', file.as_path())));
    hasher.count(
        b'T',
        inputs.tool_files.len() + programs.len() + dependencies.len(),
    );
    for (tag, tool_file) in tool_files {
        let path = root.join(tool_file);
        let mut table_key = b"\0tool\0".to_vec();
        table_key.extend_from_slice(path.as_os_str().as_encoded_bytes());
        let content = match fs::symlink_metadata(&path) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => Content::Absent,
            Err(error) => return Err(error),
            Ok(metadata) => {
                let (content, new, stat) = file_content(
                    &path,
                    &metadata,
                    &table_key,
                    &table,
                    trust_before,
                    &mut stats,
                )?;
                // A tool file listed twice is recorded once, or the table would always differ.
                if let Some(entry) = new
                    && !recorded.iter().any(|(key, _)| *key == table_key)
                {
                    recorded.push((table_key.clone(), entry));
                }
                seen.field(b't', &table_key);
                stat.feed(&mut seen);
                content
            }
        };
        hasher.field(tag, tool_file.as_os_str().as_encoded_bytes());
        content.feed(&mut hasher);
    }

    let mut files = walked.files;
    files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    stats.files = files.len();
    hasher.count(b'F', files.len());
    for (path, content, stat) in &files {
        hasher.field(b'p', path);
        content.feed(&mut hasher);
        seen.field(b'p', path);
        stat.feed(&mut seen);
    }

    if let Some(table_path) = table_path
        && table.changed(&recorded)
    {
        // A stat cache that cannot be written only makes the next run slower.
        stats.stat_cache_written = StatTable::save(&table_path, &recorded).is_ok();
    }
    let key = Key(*hasher.0.finalize().as_bytes());
    seen.field(b'K', key.as_bytes());
    Ok((
        Fingerprint {
            key,
            seen: *seen.0.finalize().as_bytes(),
        },
        stats,
    ))
}

/// The program `spec` runs, found as the runner finds it (on the command's `PATH`), and the
/// interpreter its `#!` line names, each with links resolved. Nothing when it is not found: the
/// run then fails to start and is never stored.
fn program_files(spec: &CommandSpec) -> Vec<PathBuf> {
    let path_var = spec
        .env
        .get("PATH")
        .map(OsString::from)
        .or_else(|| std::env::var_os("PATH"));
    let find = |program: &Path| {
        crate::process::resolve_program(program, &spec.cwd, path_var.as_deref())
            .ok()
            .map(|found| fs::canonicalize(&found).unwrap_or(found))
    };
    let Some(program) = find(&spec.program) else {
        return Vec::new();
    };
    let mut files = Vec::new();
    if let Some(interpreter) = interpreter(&program) {
        files.extend(find(&interpreter));
    }
    files.insert(0, program);
    files
}

/// The interpreter a script's `#!` line runs: its path, or for `#!/usr/bin/env [-S] name` the
/// name, to be found on `PATH`.
fn interpreter(program: &Path) -> Option<PathBuf> {
    let mut head = [0u8; 256];
    let mut file = fs::File::open(program).ok()?;
    let mut read = 0;
    while read < head.len() {
        match file.read(&mut head[read..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    let line = head[..read].strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let first = words.next()?;
    if Path::new(first)
        .file_name()
        .is_some_and(|name| name == "env")
    {
        // `env -S node --flag`, `env NODE_ENV=test node`: the first word that is neither.
        words
            .find(|word| !word.starts_with('-') && !word.contains('='))
            .map(PathBuf::from)
    } else {
        Some(PathBuf::from(first))
    }
}

/// Hashes the command, with the run-specific paths written as placeholders.
pub(super) fn hash_spec(hasher: &mut KeyHasher, workspace: &Workspace, spec: &CommandSpec) {
    let normalizer = Normalizer::new(workspace, spec);
    hasher.field(b'P', &normalizer.path(&spec.program));
    hasher.count(b'A', spec.args.len());
    for arg in &spec.args {
        hasher.field(b'a', normalizer.text(arg).as_bytes());
    }
    hasher.count(b'E', spec.env.len());
    for (name, value) in &spec.env {
        hasher.field(b'n', name.as_bytes());
        hasher.field(b'e', normalizer.text(value).as_bytes());
    }
    hasher.field(b'C', &normalizer.path(&spec.cwd));
    hasher.count(b'X', spec.exit_codes.pass.len());
    for code in &spec.exit_codes.pass {
        hasher.field(b'x', &code.to_le_bytes());
    }
    hasher.count(b'Y', spec.exit_codes.fail.len());
    for code in &spec.exit_codes.fail {
        hasher.field(b'y', &code.to_le_bytes());
    }
}
