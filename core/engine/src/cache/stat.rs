//! The stat cache: each input file's hash kept beside its `stat`, so an unchanged file is not
//! read again (see the module docs of `cache` for the "racy git" rule).

use std::collections::HashMap;
use std::fs::{self, Metadata};
use std::io;
use std::path::Path;
use std::time::Duration;

use super::key::KeyHasher;
use super::store::write_atomic;
use super::walk::timestamp;

/// How much older than the moment it was hashed a file's modification time must be for its hash to
/// be kept in the stat cache (and than the stat cache file, for the hash to be trusted). Larger than the
/// coarsest common timestamp granularity (2 s on FAT), with room for clock noise.
pub const RACY_WINDOW: Duration = Duration::from_secs(3);

/// What identifies a file's content without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    pub(super) size: u64,
    pub(super) mtime: (i64, u32),
    pub(super) ctime: (i64, u32),
    pub(super) inode: u64,
    pub(super) device: u64,
}

impl Stat {
    #[cfg(unix)]
    pub(super) fn of(metadata: &Metadata) -> Stat {
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
    pub(super) fn of(metadata: &Metadata) -> Stat {
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
    pub(super) fn older_than(&self, time: (i64, u32)) -> bool {
        self.mtime < time
    }

    /// Feeds every field: two walks that feed the same saw no write in between.
    pub(super) fn feed(&self, hasher: &mut KeyHasher) {
        let mut bytes = [0u8; 48];
        bytes[..8].copy_from_slice(&self.size.to_le_bytes());
        bytes[8..16].copy_from_slice(&self.mtime.0.to_le_bytes());
        bytes[16..20].copy_from_slice(&self.mtime.1.to_le_bytes());
        bytes[20..28].copy_from_slice(&self.ctime.0.to_le_bytes());
        bytes[28..32].copy_from_slice(&self.ctime.1.to_le_bytes());
        bytes[32..40].copy_from_slice(&self.inode.to_le_bytes());
        bytes[40..48].copy_from_slice(&self.device.to_le_bytes());
        hasher.field(b'S', &bytes);
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct StatEntry {
    pub(super) stat: Stat,
    pub(super) hash: [u8; 32],
}

/// The stat cache of one set of input globs: path → (stat, content hash).
#[derive(Debug, Default)]
pub(super) struct StatTable {
    pub(super) entries: HashMap<Vec<u8>, StatEntry>,
}

pub(super) const TABLE_MAGIC: &[u8; 8] = b"VDSTAT01";

impl StatTable {
    pub(super) fn get(&self, key: &[u8]) -> Option<&StatEntry> {
        self.entries.get(key)
    }

    /// Loads a table; anything unreadable or damaged is an empty table. Entries not older than
    /// the table file by [`RACY_WINDOW`] are dropped (see the module docs).
    pub(super) fn load(path: &Path) -> StatTable {
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
    pub(super) fn changed(&self, recorded: &[(Vec<u8>, StatEntry)]) -> bool {
        recorded.len() != self.entries.len()
            || recorded
                .iter()
                .any(|(key, entry)| self.entries.get(key) != Some(entry))
    }

    pub(super) fn save(path: &Path, recorded: &[(Vec<u8>, StatEntry)]) -> io::Result<()> {
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
pub(super) fn table_name(root: &Path, globs: &[String]) -> String {
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
