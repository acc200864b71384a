//! The result cache: skip a verifier whose inputs are unchanged since it last passed, and remember
//! each verifier's last report for `--failed-first`.
//!
//! A [`Key`] hashes everything a verifier's result depends on (see [`Cache::key`]): the project
//! files its input globs match, its tool files, the command it would run, and a salt given by the
//! caller. A passed report is stored with its key; the next run with the same key reuses it instead
//! of running the tool. Only passes are ever reused: a failure is always re-run, so that an agent
//! never sees a stale failure, and nothing but a real pass is ever reported as one.
//!
//! Layout under the cache directory (`<root>/.verdict/cache`), created on the first store:
//!
//! - `<verifier>.pass.json`: the key and the report of the verifier's last pass;
//! - `<verifier>.last.json`: its last report, whatever the outcome;
//! - `files/<hash>.stat`: the stat cache of one set of input globs (below).
//!
//! Verifier names are encoded for file names (`%XX` for anything but ASCII letters, digits, `-` and
//! `_`; very long names are shortened with a hash), so any name is safe and no two names share a
//! file. Every write goes to a temporary file that is then renamed over the old one, so a reader —
//! another task, or another verdict process — sees either the old file or the new one. A file that
//! is missing, unreadable, truncated, from another format version or for another key is a miss:
//! the cache can make verdict slower, never wrong.
//!
//! **The stat cache.** Reading and hashing every input on every run would cost more than a cached
//! run may take, so the hash of each file is kept next to its `stat` (size, modification and
//! change times, inode, device); a file whose `stat` is unchanged is not read again. Like git's
//! index, this is subject to the "racy git" problem: a file rewritten with the same size within the
//! file system's timestamp granularity of when it was hashed keeps the same `stat`. So an entry is
//! only recorded for a file whose modification time is at least [`RACY_WINDOW`] older than the
//! moment it was hashed (by the system clock), and an entry is only trusted if it is that much
//! older than the stat cache file itself (by the file system's clock, as git compares with the
//! index file). A file edited in the last few seconds is therefore simply read again on every run
//! until it has aged. The change time, part of the comparison, also catches an edit that sets the
//! old modification time back (`touch -d`, `cp -p` into an existing file).

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::fs::{self, File, Metadata};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{WalkBuilder, WalkState};
use serde::{Deserialize, Serialize};

use crate::model::{Outcome, Report};
use crate::verifier::{CommandSpec, Inputs, Workspace};

/// The version of the on-disk format; entries of any other version are misses.
const FORMAT: u32 = 1;

/// How much older than the moment it was hashed a file's modification time must be for its hash to
/// be kept in the stat cache (and than the stat cache file, for the hash to be trusted). Larger than the
/// coarsest common timestamp granularity (2 s on FAT), with room for clock noise.
pub const RACY_WINDOW: Duration = Duration::from_secs(3);

/// Encoded verifier names longer than this are shortened with a hash, to stay well within the
/// 255-byte file name limit with the suffixes and temporary-file prefixes added.
const MAX_ENCODED_NAME: usize = 120;

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

/// The result cache of one workspace (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    dir: PathBuf,
}

/// One verifier's last pass, as stored.
#[derive(Serialize, Deserialize)]
struct PassEntry {
    format: u32,
    verifier: String,
    key: String,
    report: Report,
}

/// One verifier's last report, as stored.
#[derive(Serialize, Deserialize)]
struct LastEntry {
    format: u32,
    verifier: String,
    report: Report,
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
        Cache::open(default_dir(&workspace.root))
    }

    /// The directory the cache lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Hashes what a verifier's result depends on:
    ///
    /// - every file under `workspace.root` (or `inputs.root`) matched by `inputs.globs` (gitignore syntax: a glob
    ///   without a slash matches at any depth, `!` excludes), path and content — leaving out files
    ///   the project ignores (`.gitignore`, `.git/info/exclude`, `.ignore`, also outside a git
    ///   repository) and never looking into `.git/` or `.verdict/`; hidden files count;
    /// - every file of `inputs.tool_files` (relative ones resolved against the root), with a
    ///   missing one counted as absent;
    /// - the command: program, arguments, environment, exit codes, and the working directory
    ///   relative to the root — with this run's directory, the output files and the root written
    ///   as placeholders, so that the run id in `--outputFile=.verdict/runs/<id>/jest.json` does not
    ///   change the key; the time-out does not count;
    /// - `salt`: whatever else the caller knows the result depends on (verdict's version, the
    ///   verifier's settings); and this crate's version.
    ///
    /// It uses the stat cache in `<root>/.verdict/cache/files/`. An error (an unreadable input,
    /// a directory that cannot be listed) means the key cannot be trusted: run the verifier.
    pub fn key(
        workspace: &Workspace,
        inputs: &Inputs,
        spec: &CommandSpec,
        salt: &str,
    ) -> io::Result<Key> {
        let stat_dir = default_dir(&workspace.root).join("files");
        Cache::key_with_stats(workspace, inputs, spec, salt, Some(&stat_dir)).map(|(key, _)| key)
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
    }

    /// The passed report stored for `verifier` with exactly this key, if any. Anything missing,
    /// unreadable or stored with another key is a miss.
    pub fn lookup(&self, verifier: &str, key: &Key) -> Option<Report> {
        let bytes = fs::read(self.entry_path(verifier, "pass")).ok()?;
        let entry: PassEntry = serde_json::from_slice(&bytes).ok()?;
        let valid = entry.format == FORMAT
            && entry.verifier == verifier
            && entry.key == key.to_string()
            && entry.report.outcome == Outcome::Passed;
        valid.then_some(entry.report)
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

    /// Forgets `verifier`'s stored pass, so that it runs next time whatever its inputs. Its last
    /// report (for `--failed-first`) is kept. Forgetting what was never stored is not an error.
    pub fn forget(&self, verifier: &str) -> io::Result<()> {
        match fs::remove_file(self.entry_path(verifier, "pass")) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
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

/// `<root>/.verdict/cache`.
fn default_dir(root: &Path) -> PathBuf {
    root.join(".verdict").join("cache")
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
fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
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

// ---------------------------------------------------------------------------------------------
// The key.

/// Feeds length-prefixed, tagged fields to a hasher, so that no two different sequences of fields
/// hash the same bytes.
struct KeyHasher(blake3::Hasher);

impl KeyHasher {
    fn field(&mut self, tag: u8, bytes: &[u8]) {
        self.0.update(&[tag]);
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
    }

    fn count(&mut self, tag: u8, n: usize) {
        self.field(tag, &(n as u64).to_le_bytes());
    }
}

/// What a file contributed to the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Content {
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
    fn feed(&self, hasher: &mut KeyHasher) {
        match self {
            Content::File(hash) => hasher.field(b'f', hash),
            Content::Link(hash) => hasher.field(b'l', hash),
            Content::Special => hasher.field(b'o', &[]),
            Content::Absent => hasher.field(b'a', &[]),
        }
    }
}

fn compute_key(
    workspace: &Workspace,
    inputs: &Inputs,
    spec: &CommandSpec,
    salt: &str,
    stat_dir: Option<&Path>,
) -> io::Result<(Key, KeyStats)> {
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
    hasher.field(b'V', format!("verdict-cache {FORMAT}").as_bytes());
    hasher.field(b'v', env!("CARGO_PKG_VERSION").as_bytes());
    hasher.field(b's', salt.as_bytes());
    hash_spec(&mut hasher, workspace, spec);

    if glob_root != root {
        hasher.field(b'R', glob_root.as_os_str().as_encoded_bytes());
    }
    hasher.count(b'G', inputs.globs.len());
    for glob in &inputs.globs {
        hasher.field(b'g', glob.as_bytes());
    }

    hasher.count(b'T', inputs.tool_files.len());
    for tool_file in &inputs.tool_files {
        let path = root.join(tool_file);
        let mut table_key = b"\0tool\0".to_vec();
        table_key.extend_from_slice(path.as_os_str().as_encoded_bytes());
        let content = match fs::symlink_metadata(&path) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => Content::Absent,
            Err(error) => return Err(error),
            Ok(metadata) => {
                let (content, new) = file_content(
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
                content
            }
        };
        hasher.field(b't', tool_file.as_os_str().as_encoded_bytes());
        content.feed(&mut hasher);
    }

    let mut files = walked.files;
    files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    stats.files = files.len();
    hasher.count(b'F', files.len());
    for (path, content) in &files {
        hasher.field(b'p', path);
        content.feed(&mut hasher);
    }

    if let Some(table_path) = table_path
        && table.changed(&recorded)
    {
        // A stat cache that cannot be written only makes the next run slower.
        stats.stat_cache_written = StatTable::save(&table_path, &recorded).is_ok();
    }
    Ok((Key(*hasher.0.finalize().as_bytes()), stats))
}

/// Hashes the command, with the run-specific paths written as placeholders.
fn hash_spec(hasher: &mut KeyHasher, workspace: &Workspace, spec: &CommandSpec) {
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

/// Writes the output files, the run directory and the root in command text as placeholders.
///
/// `<` in the text itself is doubled first, so that the result is unambiguous: a placeholder is a
/// single `<` followed by a letter.
struct Normalizer {
    /// (path as text, placeholder), most specific first.
    replacements: Vec<(String, String)>,
}

impl Normalizer {
    fn new(workspace: &Workspace, spec: &CommandSpec) -> Self {
        let mut replacements = Vec::new();
        let mut outputs: Vec<(usize, String)> = spec
            .output_files
            .iter()
            .enumerate()
            .filter_map(|(i, path)| Some((i, path.to_str()?.to_owned())))
            .collect();
        // Longest first, so that a path that contains another is replaced whole.
        outputs.sort_by_key(|(_, path)| std::cmp::Reverse(path.len()));
        for (i, path) in outputs {
            if !path.is_empty() {
                replacements.push((path.replace('<', "<<"), format!("<output{i}>")));
            }
        }
        for (path, placeholder) in [(&workspace.run_dir, "<run>"), (&workspace.root, "<root>")] {
            if let Some(path) = path.to_str().filter(|path| !path.is_empty()) {
                replacements.push((path.replace('<', "<<"), placeholder.to_owned()));
            }
        }
        Normalizer { replacements }
    }

    fn text(&self, text: &str) -> String {
        let mut text = text.replace('<', "<<");
        for (from, to) in &self.replacements {
            if text.contains(from.as_str()) {
                text = text.replace(from.as_str(), to);
            }
        }
        text
    }

    fn path(&self, path: &Path) -> Vec<u8> {
        match path.to_str() {
            Some(text) => {
                let mut bytes = b"u".to_vec();
                bytes.extend_from_slice(self.text(text).as_bytes());
                bytes
            }
            None => {
                let mut bytes = b"r".to_vec();
                bytes.extend_from_slice(path.as_os_str().as_encoded_bytes());
                bytes
            }
        }
    }
}

/// Below this many files known to the stat cache, the walk uses one thread.
const SMALL_TREE: usize = 2_000;

/// What the walk found.
struct Walked {
    /// Matched files: path relative to the root (encoded bytes, `/`-separated) and content.
    files: Vec<(Vec<u8>, Content)>,
    /// Stat cache entries to keep: valid ones reused and new ones old enough to trust.
    recorded: Vec<(Vec<u8>, StatEntry)>,
    stats: KeyStats,
}

/// Walks `root` once, in parallel, hashing every file matched by `globs`.
fn walk(
    root: &Path,
    globs: &[String],
    table: &StatTable,
    trust_before: Option<(i64, u32)>,
) -> io::Result<Walked> {
    let walked = Walked {
        files: Vec::new(),
        recorded: Vec::new(),
        stats: KeyStats::default(),
    };
    if globs.is_empty() {
        return Ok(walked);
    }
    let matcher = build_matcher(root, globs)?;

    // Starting walker threads costs about a millisecond; a tree the stat cache knows to be small
    // is walked faster by one.
    let small = !table.entries.is_empty() && table.entries.len() < SMALL_TREE;
    let pruner = build_pruner(root, globs);
    let pruner_root = root.to_path_buf();
    let mut builder = WalkBuilder::new(root);
    builder
        .threads(if small { 1 } else { 0 })
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        // verdict's own state changes on every run (logs, this cache), in the root and in any
        // sub-project verdict was run in; git's is not project content.
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let name = entry.file_name();
            if name == ".git" || name == ".verdict" {
                return false;
            }
            if entry.file_type().is_some_and(|t| t.is_dir())
                && let Some(pruner) = &pruner
                && let Ok(relative) = entry.path().strip_prefix(&pruner_root)
                && pruner.matched(relative, true).is_ignore()
            {
                return false;
            }
            true
        });
    let shared = Mutex::new((walked, None::<io::Error>));
    let mut visitors = VisitorBuilder {
        context: Context {
            root,
            matcher: &matcher,
            table,
            trust_before,
        },
        shared: &shared,
    };
    builder.build_parallel().visit(&mut visitors);
    let (walked, error) = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    match error {
        Some(error) => Err(error),
        None => Ok(walked),
    }
}

/// What every walker thread needs to know.
#[derive(Clone, Copy)]
struct Context<'a> {
    root: &'a Path,
    matcher: &'a Gitignore,
    table: &'a StatTable,
    trust_before: Option<(i64, u32)>,
}

/// Makes one [`Visitor`] per walker thread.
struct VisitorBuilder<'a> {
    context: Context<'a>,
    shared: &'a Mutex<(Walked, Option<io::Error>)>,
}

impl<'a> ignore::ParallelVisitorBuilder<'a> for VisitorBuilder<'a> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 'a> {
        Box::new(Visitor {
            context: self.context,
            shared: self.shared,
            local: Walked {
                files: Vec::new(),
                recorded: Vec::new(),
                stats: KeyStats::default(),
            },
            error: None,
        })
    }
}

/// One walker thread's findings, merged into the shared ones when the thread is done, so that
/// threads do not take a lock per file.
struct Visitor<'a> {
    context: Context<'a>,
    shared: &'a Mutex<(Walked, Option<io::Error>)>,
    local: Walked,
    error: Option<io::Error>,
}

impl ignore::ParallelVisitor for Visitor<'_> {
    fn visit(&mut self, result: Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        let Context {
            root,
            matcher,
            table,
            trust_before,
        } = self.context;
        let outcome = result
            .map_err(io::Error::other)
            .and_then(|entry| visit(root, matcher, table, trust_before, &entry));
        match outcome {
            Ok(None) => WalkState::Continue,
            Ok(Some(visited)) => {
                let local = &mut self.local;
                local.stats.hashed += visited.stats.hashed;
                local.stats.from_stat_cache += visited.stats.from_stat_cache;
                local.stats.bytes_hashed += visited.stats.bytes_hashed;
                if let Some(entry) = visited.recorded {
                    local.recorded.push((visited.path.clone(), entry));
                }
                local.files.push((visited.path, visited.content));
                WalkState::Continue
            }
            Err(error) => {
                self.error.get_or_insert(error);
                WalkState::Quit
            }
        }
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        let mut guard = self.shared.lock().unwrap_or_else(|e| e.into_inner());
        let (walked, error) = &mut *guard;
        let local = &mut self.local;
        walked.stats.hashed += local.stats.hashed;
        walked.stats.from_stat_cache += local.stats.from_stat_cache;
        walked.stats.bytes_hashed += local.stats.bytes_hashed;
        walked.files.append(&mut local.files);
        walked.recorded.append(&mut local.recorded);
        if let Some(e) = self.error.take() {
            error.get_or_insert(e);
        }
    }
}

/// The input globs as one gitignore-syntax matcher rooted at `root`.
fn build_matcher(root: &Path, globs: &[String]) -> io::Result<Gitignore> {
    let mut builder = GitignoreBuilder::new(root);
    for glob in globs {
        builder.add_line(None, glob).map_err(|error| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("invalid input glob `{glob}`: {error}"),
            )
        })?;
    }
    builder.build().map_err(io::Error::other)
}

/// A matcher of the directories no input can be in, so that the walk need not enter them (a
/// `node_modules/` the project does not ignore holds tens of thousands of files).
///
/// A directory can be skipped when a glob `!X/**` excludes everything in it and no glob after it
/// includes anything again: then `!X/**` is the last glob to match every file inside, so none
/// counts. Those are the trailing negations ending in `/**`; the directory must match `X`, which
/// stays anchored as `X/**` was (a pattern with a slash is relative to the root). `None` when
/// there is nothing to skip.
fn build_pruner(root: &Path, globs: &[String]) -> Option<Gitignore> {
    let mut builder = GitignoreBuilder::new(root);
    let mut any = false;
    for glob in globs.iter().rev() {
        let Some(excluded) = glob.strip_prefix('!') else {
            break;
        };
        let Some(dir) = excluded.strip_suffix("/**") else {
            continue;
        };
        if dir.is_empty() || dir.starts_with('\\') || dir.ends_with('\\') {
            continue;
        }
        let anchored = if dir.contains('/') {
            dir.to_owned()
        } else {
            format!("/{dir}")
        };
        any |= builder.add_line(None, &anchored).is_ok();
    }
    if any { builder.build().ok() } else { None }
}

/// One matched file, as seen by a walker thread.
struct Visited {
    path: Vec<u8>,
    content: Content,
    recorded: Option<StatEntry>,
    stats: KeyStats,
}

fn visit(
    root: &Path,
    matcher: &Gitignore,
    table: &StatTable,
    trust_before: Option<(i64, u32)>,
    entry: &ignore::DirEntry,
) -> io::Result<Option<Visited>> {
    let Some(file_type) = entry.file_type() else {
        return Ok(None);
    };
    if file_type.is_dir() {
        return Ok(None);
    }
    let Ok(relative) = entry.path().strip_prefix(root) else {
        return Ok(None);
    };
    if relative.as_os_str().is_empty()
        || !matcher
            .matched_path_or_any_parents(relative, false)
            .is_ignore()
    {
        return Ok(None);
    }
    let path = relative_bytes(relative);
    let metadata = entry.metadata().map_err(io::Error::other)?;
    let mut stats = KeyStats::default();
    let (content, recorded) = file_content(
        entry.path(),
        &metadata,
        &path,
        table,
        trust_before,
        &mut stats,
    )?;
    Ok(Some(Visited {
        path,
        content,
        recorded,
        stats,
    }))
}

/// A relative path as `/`-separated bytes, the same on every platform.
fn relative_bytes(relative: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for (i, component) in relative.components().enumerate() {
        if i > 0 {
            bytes.push(b'/');
        }
        bytes.extend_from_slice(component.as_os_str().as_encoded_bytes());
    }
    bytes
}

/// The content of one file (given its `lstat`), from the stat cache when it can be trusted, else
/// read; and the stat cache entry to keep for it, if any.
fn file_content(
    path: &Path,
    metadata: &Metadata,
    table_key: &[u8],
    table: &StatTable,
    trust_before: Option<(i64, u32)>,
    stats: &mut KeyStats,
) -> io::Result<(Content, Option<StatEntry>)> {
    if metadata.file_type().is_symlink() {
        // Links are few and cheap: hash the target path, and the target's content if it is a
        // file, every time.
        let mut hasher = blake3::Hasher::new();
        let target = fs::read_link(path)?;
        hasher.update(target.as_os_str().as_encoded_bytes());
        if let Ok(target) = fs::metadata(path)
            && target.is_file()
        {
            hasher.update_reader(File::open(path)?)?;
            stats.hashed += 1;
            stats.bytes_hashed += target.len();
        }
        return Ok((Content::Link(*hasher.finalize().as_bytes()), None));
    }
    if !metadata.is_file() {
        // A socket, a FIFO or a device: never read (a FIFO would block); its presence counts.
        return Ok((Content::Special, None));
    }
    let stat = Stat::of(metadata);
    if let Some(entry) = table.get(table_key)
        && entry.stat == stat
    {
        stats.from_stat_cache += 1;
        return Ok((Content::File(entry.hash), Some(*entry)));
    }
    // Read through one open descriptor, taking the `stat` to record from that descriptor before
    // reading: a change after it gives a newer `stat`, which the next run will not trust.
    let file = File::open(path)?;
    let stat = Stat::of(&file.metadata()?);
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(&file)?;
    stats.hashed += 1;
    stats.bytes_hashed += stat.size;
    let hash = *hasher.finalize().as_bytes();
    let entry = StatEntry { stat, hash };
    let trusted = trust_before.is_some_and(|before| stat.older_than(before));
    Ok((Content::File(hash), trusted.then_some(entry)))
}

/// Seconds and nanoseconds since the Unix epoch; `None` before it.
fn timestamp(time: Option<SystemTime>) -> Option<(i64, u32)> {
    let since = time?.duration_since(UNIX_EPOCH).ok()?;
    Some((i64::try_from(since.as_secs()).ok()?, since.subsec_nanos()))
}

// ---------------------------------------------------------------------------------------------
// The stat cache.

/// What identifies a file's content without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    size: u64,
    mtime: (i64, u32),
    ctime: (i64, u32),
    inode: u64,
    device: u64,
}

impl Stat {
    #[cfg(unix)]
    fn of(metadata: &Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        // Nanosecond fields are always within 0..1e9.
        let nanos = |n: i64| u32::try_from(n).unwrap_or(0);
        Stat {
            size: metadata.size(),
            mtime: (metadata.mtime(), nanos(metadata.mtime_nsec())),
            ctime: (metadata.ctime(), nanos(metadata.ctime_nsec())),
            inode: metadata.ino(),
            device: metadata.dev(),
        }
    }

    #[cfg(not(unix))]
    fn of(metadata: &Metadata) -> Stat {
        let mtime = timestamp(metadata.modified().ok()).unwrap_or((0, 0));
        Stat {
            size: metadata.len(),
            mtime,
            ctime: timestamp(metadata.created().ok()).unwrap_or((0, 0)),
            inode: 0,
            device: 0,
        }
    }

    /// Whether the modification time is strictly before `time`.
    ///
    /// Only the modification time decides: an edit after the hash was taken gives a newer one.
    /// An edit that sets it back changes the change time, which is part of the comparison; only
    /// such an edit within the same clock tick as our read of the file would go unseen — the same
    /// limit git's index has. (Requiring an old change time as well would keep every file whose
    /// modification time a tool sets — `tar`, `cp -p`, `touch -d` — out of the stat cache for
    /// the racy window after that, and test fixtures aged that way out of it altogether.)
    fn older_than(&self, time: (i64, u32)) -> bool {
        self.mtime < time
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StatEntry {
    stat: Stat,
    hash: [u8; 32],
}

/// The stat cache of one set of input globs: path → (stat, content hash).
#[derive(Debug, Default)]
struct StatTable {
    entries: HashMap<Vec<u8>, StatEntry>,
}

const TABLE_MAGIC: &[u8; 8] = b"VDSTAT01";

impl StatTable {
    fn get(&self, key: &[u8]) -> Option<&StatEntry> {
        self.entries.get(key)
    }

    /// Loads a table; anything unreadable or damaged is an empty table. Entries not older than
    /// the table file by [`RACY_WINDOW`] are dropped (see the module docs).
    fn load(path: &Path) -> StatTable {
        let Ok(bytes) = fs::read(path) else {
            return StatTable::default();
        };
        let Some(written) = fs::metadata(path)
            .ok()
            .and_then(|m| timestamp(m.modified().ok()?.checked_sub(RACY_WINDOW)))
        else {
            return StatTable::default();
        };
        // Every entry takes at least 84 bytes: room for all, without trusting the stored count.
        let mut entries = HashMap::with_capacity(bytes.len() / 84);
        if Self::parse(&bytes, |key, entry| {
            if entry.stat.older_than(written) {
                entries.insert(key.to_vec(), entry);
            }
        })
        .is_none()
        {
            return StatTable::default();
        }
        StatTable { entries }
    }

    /// Parses the table format, handing each entry to `each`; `None` if it is damaged.
    fn parse(bytes: &[u8], mut each: impl FnMut(&[u8], StatEntry)) -> Option<()> {
        let body_len = bytes.len().checked_sub(32)?;
        let (body, checksum) = bytes.split_at(body_len);
        if blake3::hash(body).as_bytes() != checksum {
            return None;
        }
        let mut reader = Reader(body);
        if reader.take(8)? != TABLE_MAGIC {
            return None;
        }
        let count = reader.u64()?;
        for _ in 0..count {
            let key_len = usize::try_from(reader.u32()?).ok()?;
            let key = reader.take(key_len)?;
            let stat = Stat {
                size: reader.u64()?,
                mtime: (reader.i64()?, reader.u32()?),
                ctime: (reader.i64()?, reader.u32()?),
                inode: reader.u64()?,
                device: reader.u64()?,
            };
            let hash = reader.take(32)?.try_into().ok()?;
            each(key, StatEntry { stat, hash });
        }
        reader.0.is_empty().then_some(())
    }

    /// Whether `recorded` differs from what was loaded.
    fn changed(&self, recorded: &[(Vec<u8>, StatEntry)]) -> bool {
        recorded.len() != self.entries.len()
            || recorded
                .iter()
                .any(|(key, entry)| self.entries.get(key) != Some(entry))
    }

    fn save(path: &Path, recorded: &[(Vec<u8>, StatEntry)]) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(16 + recorded.len() * 120);
        bytes.extend_from_slice(TABLE_MAGIC);
        bytes.extend_from_slice(&(recorded.len() as u64).to_le_bytes());
        for (key, entry) in recorded {
            let key_len = u32::try_from(key.len()).map_err(io::Error::other)?;
            bytes.extend_from_slice(&key_len.to_le_bytes());
            bytes.extend_from_slice(key);
            let stat = &entry.stat;
            bytes.extend_from_slice(&stat.size.to_le_bytes());
            bytes.extend_from_slice(&stat.mtime.0.to_le_bytes());
            bytes.extend_from_slice(&stat.mtime.1.to_le_bytes());
            bytes.extend_from_slice(&stat.ctime.0.to_le_bytes());
            bytes.extend_from_slice(&stat.ctime.1.to_le_bytes());
            bytes.extend_from_slice(&stat.inode.to_le_bytes());
            bytes.extend_from_slice(&stat.device.to_le_bytes());
            bytes.extend_from_slice(&entry.hash);
        }
        let checksum = blake3::hash(&bytes);
        bytes.extend_from_slice(checksum.as_bytes());
        write_atomic(path, &bytes)
    }
}

/// The stat cache file's name for a root and a set of globs.
fn table_name(root: &Path, globs: &[String]) -> String {
    let mut hasher = KeyHasher(blake3::Hasher::new());
    hasher.field(b'R', root.as_os_str().as_encoded_bytes());
    for glob in globs {
        hasher.field(b'g', glob.as_bytes());
    }
    let hash = hasher.0.finalize().to_hex();
    format!("{}.stat", &hash[..32])
}

/// A cursor over little-endian fields.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
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

    #[test]
    fn placeholders_are_unambiguous() {
        let workspace = Workspace::new("/p").with_run_dir("/p/.verdict/runs/1");
        let spec = CommandSpec {
            program: PathBuf::from("x"),
            args: Vec::new(),
            env: Default::default(),
            cwd: PathBuf::from("/p"),
            timeout: Duration::from_secs(1),
            exit_codes: Default::default(),
            output_files: vec![PathBuf::from("/p/.verdict/runs/1/x.json")],
        };
        let normalizer = Normalizer::new(&workspace, &spec);
        assert_eq!(
            normalizer.text("-o=/p/.verdict/runs/1/x.json"),
            "-o=<output0>"
        );
        assert_eq!(normalizer.text("/p/.verdict/runs/1/y"), "<run>/y");
        assert_eq!(normalizer.text("/p/src"), "<root>/src");
        assert_ne!(normalizer.text("<root>/src"), normalizer.text("/p/src"));
    }

    #[test]
    fn a_damaged_table_is_rejected() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.stat");
        let entry = StatEntry {
            stat: Stat {
                size: 1,
                mtime: (1, 0),
                ctime: (1, 0),
                inode: 2,
                device: 3,
            },
            hash: [7; 32],
        };
        StatTable::save(&path, &[(b"a".to_vec(), entry)]).expect("saves");
        assert_eq!(StatTable::load(&path).entries.len(), 1);
        let mut bytes = fs::read(&path).expect("reads");
        bytes[20] ^= 1;
        fs::write(&path, &bytes).expect("writes");
        assert!(StatTable::load(&path).entries.is_empty());
        fs::write(&path, &bytes[..10]).expect("writes");
        assert!(StatTable::load(&path).entries.is_empty());
    }
}
