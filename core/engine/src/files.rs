//! Opening the files verdict reads and creating the ones it keeps, with the checks both need.
//!
//! - [`open_regular`]: a log given by name is read only when it is a regular file. `/dev/zero`
//!   never ends and a FIFO blocks until someone writes to it, so anything else is refused at once.
//!   The file is opened first and checked after (`fstat` of what was opened), so nothing can be
//!   swapped in between; the open itself cannot block (`O_NONBLOCK`, which a FIFO would otherwise
//!   wait in).
//! - [`create_private_dir`], [`create_private_file`], [`write_private`]: the raw logs verdict
//!   keeps hold whatever the tools printed, secrets included, so they and the directories they are
//!   in are readable by their owner only (0600 and 0700).

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The mode of the files verdict keeps: read and written by their owner only.
pub const PRIVATE_FILE: u32 = 0o600;

/// The mode of the directories verdict keeps them in.
pub const PRIVATE_DIR: u32 = 0o700;

/// Opens `path` for reading when it is a regular file; anything else is an error that names
/// what it is (a FIFO, a directory, a device), returned without waiting on it.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("it is {what}, not a regular file"),
    ))
}

/// Creates `dir` and its missing parents, each new one with mode 0700, and makes `dir` itself
/// 0700 when it was there already.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(PRIVATE_DIR)
        .create(dir)?;
    std::fs::set_permissions(dir, Permissions::from_mode(PRIVATE_DIR))
}

/// Creates (or truncates) `path` for writing with mode 0600, its parent directory created
/// private when missing. A file that was there already is made 0600 too.
pub fn create_private_file(path: &Path) -> io::Result<File> {
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
        && !parent.is_dir()
    {
        create_private_dir(parent)?;
    }
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(PRIVATE_FILE)
        .open(path)?;
    file.set_permissions(Permissions::from_mode(PRIVATE_FILE))?;
    Ok(file)
}

/// Writes `bytes` to `path` as [`create_private_file`] creates it.
pub fn write_private(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let mut file = create_private_file(path)?;
    file.write_all(bytes.as_ref())?;
    file.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let temp = tempfile::tempdir().expect("a temp dir");
        let file = temp.path().join("a.log");
        std::fs::write(&file, "x\n").expect("write");
        assert!(open_regular(&file).is_ok());
        let error = open_regular(temp.path()).expect_err("a directory");
        assert!(error.to_string().contains("a directory"), "{error}");
        let error = open_regular(Path::new("/dev/zero")).expect_err("a device");
        assert!(error.to_string().contains("character device"), "{error}");
    }

    #[test]
    fn kept_files_are_the_owners_only() {
        let temp = tempfile::tempdir().expect("a temp dir");
        let path = temp.path().join("runs/1/tsc.log");
        write_private(&path, b"secret\n").expect("write");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&path), PRIVATE_FILE);
        assert_eq!(mode(&temp.path().join("runs/1")), PRIVATE_DIR);
        assert_eq!(mode(&temp.path().join("runs")), PRIVATE_DIR);
    }
}
