//! The walk over a verifier's inputs: one parallel pass over the project's files, ignored ones
//! included but for the directories [`super::skip`] names, each file's content from the stat
//! cache when its `stat` is unchanged, else hashed.

use std::fs::{self, File, Metadata};
use std::io;
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{WalkBuilder, WalkState};

use super::key::{Content, KeyStats};
use super::skip::{Ignores, always_skipped, skipped_when_ignored};
use super::stat::{Stat, StatEntry, StatTable};
use crate::paths;

/// Below this many files known to the stat cache, the walk uses one thread.
pub(super) const SMALL_TREE: usize = 2_000;

/// What the walk found.
pub(super) struct Walked {
    /// Matched files: path relative to the root (encoded bytes, `/`-separated), content, and
    /// the `lstat` seen (which tells a file rewritten during a run, even with the same content).
    pub(super) files: Vec<(Vec<u8>, Content, Stat)>,
    /// Stat cache entries to keep: valid ones reused and new ones old enough to trust.
    pub(super) recorded: Vec<(Vec<u8>, StatEntry)>,
    pub(super) stats: KeyStats,
}

/// Walks `root` once, in parallel, hashing every file matched by `globs`: the files the project
/// ignores too, but never inside `.git/` or verdict's directory, nor inside an ignored
/// dependency, build or tool-cache directory (see [`super::skip`]).
pub(super) fn walk(
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
    let state_names = paths::in_tree_names();
    let ignores = Ignores::new(root);
    let mut builder = WalkBuilder::new(root);
    builder
        .threads(if small { 1 } else { 0 })
        // Ignored files are inputs too (a gitignored fixture the tests read); what is left out
        // is decided here.
        .standard_filters(false)
        .hidden(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let name = entry.file_name();
            if always_skipped(name, &state_names) {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if skipped_when_ignored(name) && ignores.ignores(entry.path(), is_dir) {
                return false;
            }
            if is_dir
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
pub(super) struct Context<'a> {
    pub(super) root: &'a Path,
    pub(super) matcher: &'a Gitignore,
    pub(super) table: &'a StatTable,
    pub(super) trust_before: Option<(i64, u32)>,
}

/// Makes one [`Visitor`] per walker thread.
pub(super) struct VisitorBuilder<'a> {
    pub(super) context: Context<'a>,
    pub(super) shared: &'a Mutex<(Walked, Option<io::Error>)>,
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
pub(super) struct Visitor<'a> {
    pub(super) context: Context<'a>,
    pub(super) shared: &'a Mutex<(Walked, Option<io::Error>)>,
    pub(super) local: Walked,
    pub(super) error: Option<io::Error>,
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
                local
                    .files
                    .push((visited.path, visited.content, visited.stat));
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
pub(super) struct Visited {
    pub(super) path: Vec<u8>,
    pub(super) content: Content,
    pub(super) stat: Stat,
    pub(super) recorded: Option<StatEntry>,
    pub(super) stats: KeyStats,
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
    let (content, recorded, stat) = file_content(
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
        stat,
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
/// read; the stat cache entry to keep for it, if any; and the `stat` it was read with.
pub(super) fn file_content(
    path: &Path,
    metadata: &Metadata,
    table_key: &[u8],
    table: &StatTable,
    trust_before: Option<(i64, u32)>,
    stats: &mut KeyStats,
) -> io::Result<(Content, Option<StatEntry>, Stat)> {
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
        return Ok((
            Content::Link(*hasher.finalize().as_bytes()),
            None,
            Stat::of(metadata),
        ));
    }
    if !metadata.is_file() {
        // A socket, a FIFO or a device: never read (a FIFO would block); its presence counts.
        return Ok((Content::Special, None, Stat::of(metadata)));
    }
    let stat = Stat::of(metadata);
    if let Some(entry) = table.get(table_key)
        && entry.stat == stat
    {
        stats.from_stat_cache += 1;
        return Ok((Content::File(entry.hash), Some(*entry), stat));
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
    Ok((Content::File(hash), trusted.then_some(entry), stat))
}

/// Seconds and nanoseconds since the Unix epoch; `None` before it.
pub(super) fn timestamp(time: Option<SystemTime>) -> Option<(i64, u32)> {
    let since = time?.duration_since(UNIX_EPOCH).ok()?;
    Some((i64::try_from(since.as_secs()).ok()?, since.subsec_nanos()))
}
