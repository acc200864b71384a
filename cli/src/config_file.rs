//! A client's or a harness's config file, rewritten in place: read as JSON that keeps its key
//! order ([`crate::json_doc`]), written through symlinks, and replaced whole so that a reader
//! never sees half of it.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::json_doc::Json;

/// The JSON document at `path`: an empty object when the file is missing or blank.
pub(crate) fn read_json(path: &Path) -> Result<Json> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Json::Object(Vec::new())),
        Ok(text) => serde_json::from_str(&text)
            .with_context(|| format!("{} is not valid JSON; fix it first", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Json::Object(Vec::new())),
        Err(error) => Err(error).with_context(|| format!("failed to read {}", path.display())),
    }
}

/// Writes `document` to `path`, pretty-printed, as [`write_atomically`] does.
pub(crate) fn write_json(path: &Path, document: &Json) -> Result<()> {
    let mut text = serde_json::to_string_pretty(document).context("failed to write JSON")?;
    text.push('\n');
    write_atomically(path, &text)
}

/// Writes `text` to a temporary file beside `path`, with `path`'s mode (settings may be private
/// to the user), and renames it over `path`: a client reading the config never sees half of it.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("failed to create {}", dir.display()))?;
    }
    let tmp = path.with_extension(format!("verdict-{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("failed to write {}", tmp.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    }
    if let Err(error) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(error).with_context(|| format!("failed to write {}", path.display()));
    }
    Ok(())
}

/// A symlink is written through: the new file replaces its target, in the target's directory,
/// and the link stays a link (a regular file in its place would cut the settings off from the
/// dotfiles they are kept with).
///
/// `path` with every symlink in its last component followed (a relative target is taken from
/// the link's directory); `path` itself when it is no symlink or does not exist. A link whose
/// target does not exist yet gives that target, which the install creates.
pub(crate) fn follow_links(path: &Path) -> Result<PathBuf> {
    // As many hops as Linux follows before ELOOP.
    const MAX_HOPS: usize = 40;
    let mut path = path.to_path_buf();
    for _ in 0..MAX_HOPS {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path)
                    .with_context(|| format!("failed to read the symlink {}", path.display()))?;
                path = match path.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Ok(_) => return Ok(path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(path),
            Err(error) => {
                return Err(error).with_context(|| format!("failed to read {}", path.display()));
            }
        }
    }
    bail!(
        "{} is a symlink loop ({MAX_HOPS} links followed)",
        path.display()
    )
}
