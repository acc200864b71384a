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

mod decision;
mod dependencies;
mod environment;
mod key;
mod normalize;
mod skip;
mod stat;
mod store;
mod walk;

pub use decision::{Decision, Lookup, Stored};
pub use environment::IGNORED_VARIABLES;
pub use key::{Fingerprint, Key, KeyStats};
pub use skip::SKIPPED_WHEN_IGNORED;
pub use stat::RACY_WINDOW;
pub use store::{Cache, Found};
