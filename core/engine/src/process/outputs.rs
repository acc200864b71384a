//! The files around a command: its log, and the output files deleted before it and read after.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::verifier::CommandSpec;

/// Creates the log file and its parent directories, readable by their owner only: the log is
/// raw output, secrets included.
pub(super) fn create_log(log: &Path) -> io::Result<File> {
    crate::files::create_private_file(log)
}

/// An output file's path: relative ones are relative to the command's working directory.
pub(super) fn output_path(spec: &CommandSpec, path: &Path) -> PathBuf {
    spec.cwd.join(path)
}

/// Removes output files left by an earlier run, so that a tool that fails before writing its
/// report cannot be credited with the last run's.
pub(super) fn remove_stale_outputs(spec: &CommandSpec) -> Result<(), String> {
    for path in &spec.output_files {
        let path = output_path(spec, path);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => {
                return Err(format!(
                    "failed to remove the stale output file `{}`: {error}",
                    path.display()
                ));
            }
        }
    }
    Ok(())
}

/// Reads the output files back. A file the tool did not write is `None`; so is one larger than
/// `max` or one that cannot be read — the verifier then falls back on the log, and a verifier that
/// cannot do without the file must report the run as errored. A warning names the file.
pub(super) fn read_outputs(paths: &[PathBuf], max: u64) -> Vec<Option<Vec<u8>>> {
    paths
        .iter()
        .map(|path| {
            let read = || -> io::Result<Option<Vec<u8>>> {
                let file = match File::open(path) {
                    Ok(file) => file,
                    Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
                    Err(error) => return Err(error),
                };
                let len = file.metadata()?.len();
                if len > max {
                    tracing::warn!(
                        path = %path.display(),
                        len,
                        max,
                        "output file larger than the cap; not read"
                    );
                    return Ok(None);
                }
                let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
                io::Read::read_to_end(&mut io::Read::take(file, max + 1), &mut bytes)?;
                if bytes.len() as u64 > max {
                    tracing::warn!(path = %path.display(), max, "output file grew past the cap; not read");
                    return Ok(None);
                }
                Ok(Some(bytes))
            };
            read().unwrap_or_else(|error| {
                tracing::warn!(path = %path.display(), %error, "failed to read an output file");
                None
            })
        })
        .collect()
}
