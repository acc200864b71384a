//! The resources of `verdict mcp`: the files of verdict's runs, which `verify` links to, readable
//! over the protocol (`resources/read`) so that a client that does not share the server's file
//! system (an agent in a container) can follow a link. `resources/list` names the files of the
//! newest run.
//!
//! Only files inside the runs directory are served ([`Workspace::runs`]: symlinks resolved, what
//! was opened checked again). A log is raw output, secrets included; what the server sends is
//! written out of verdict, so the text is redacted first, as everything else verdict writes.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use verdict_core::redact::redact;

use super::tools::file_uri;
use super::workspace::Workspace;

/// The most of a file one read sends: its first and last halves of this, with a line between
/// them saying how much was left out. The runner keeps up to 32 MiB of a tool's output; a
/// client's context holds far less.
const MAX_READ: u64 = 8 * 1024 * 1024;

/// The files of the newest run, each as a resource.
pub(super) fn list(dir: Option<&Path>) -> Result<Vec<Resource>, ErrorData> {
    let Ok(workspace) = Workspace::runs(dir) else {
        // No run yet: nothing to list.
        return Ok(Vec::new());
    };
    let newest = workspace
        .places()
        .iter()
        .filter_map(|runs| std::fs::read_dir(runs).ok())
        .flatten()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .map(|entry| (entry.file_name(), entry.path()))
        .max_by(|a, b| a.0.cmp(&b.0));
    let Some((id, run)) = newest else {
        return Ok(Vec::new());
    };
    let id = id.to_string_lossy().into_owned();
    let mut files: Vec<(PathBuf, u64)> = std::fs::read_dir(&run)
        .map_err(|error| {
            ErrorData::internal_error(format!("failed to list {}: {error}", run.display()), None)
        })?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let meta = entry.metadata().ok()?;
            meta.is_file().then(|| (entry.path(), meta.len()))
        })
        .collect();
    files.sort();
    Ok(files
        .into_iter()
        .map(|(path, size)| {
            let name = file_name(&path);
            Resource::new(file_uri(&path), name.clone())
                .with_title(format!("{name} of verdict's run {id}"))
                .with_mime_type(mime_type(&path))
                .with_size(size)
        })
        .collect())
}

/// The text of the file a `file://` URI names, when it is inside the runs directory: redacted,
/// and at most [`MAX_READ`] bytes of it.
pub(super) fn read(dir: Option<&Path>, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let path = path_of(uri).ok_or_else(|| {
        ErrorData::invalid_params(
            format!("verdict serves only the file:// URIs of its runs' logs, not {uri}"),
            None,
        )
    })?;
    let workspace =
        Workspace::runs(dir).map_err(|message| ErrorData::resource_not_found(message, None))?;
    if !path.exists() {
        return Err(ErrorData::resource_not_found(
            format!(
                "{} does not exist (the run may have been pruned)",
                path.display()
            ),
            None,
        ));
    }
    let (path, file) = workspace
        .open(&path)
        .map_err(|message| ErrorData::invalid_params(message, None))?;
    let text = read_bounded(file).map_err(|error| {
        ErrorData::internal_error(format!("failed to read {}: {error}", path.display()), None)
    })?;
    let text = redact(&text).into_owned();
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type(mime_type(&path)),
    ]))
}

/// The file's text (invalid UTF-8 replaced); of a file over [`MAX_READ`] bytes, its first and last
/// halves of that, with a line between them saying how many bytes were left out.
fn read_bounded(mut file: std::fs::File) -> std::io::Result<String> {
    let len = file.metadata()?.len();
    let mut bytes = Vec::new();
    if len <= MAX_READ {
        file.take(MAX_READ).read_to_end(&mut bytes)?;
        return Ok(String::from_utf8_lossy(&bytes).into_owned());
    }
    let half = MAX_READ / 2;
    (&mut file).take(half).read_to_end(&mut bytes)?;
    let mut head = String::from_utf8_lossy(&bytes).into_owned();
    file.seek(SeekFrom::Start(len - half))?;
    bytes.clear();
    file.take(half).read_to_end(&mut bytes)?;
    head.push_str(&format!(
        "\n[verdict: {} bytes of this file are left out here; the whole file is on the server's disk]\n",
        len - 2 * half
    ));
    head.push_str(&String::from_utf8_lossy(&bytes));
    Ok(head)
}

/// The path of a `file://` URI ([`file_uri`] percent-encodes), or `None` for another scheme or
/// an encoding that is not one.
fn path_of(uri: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/p` names the same file as `file:///p`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let mut bytes = Vec::with_capacity(rest.len());
    let mut input = rest.bytes();
    while let Some(byte) = input.next() {
        if byte == b'%' {
            let hex = [input.next()?, input.next()?];
            let hex = std::str::from_utf8(&hex).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
        } else {
            bytes.push(byte);
        }
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The MIME type of a run's file, by its extension: tools' JSON reports, JUnit XML, logs.
pub(super) fn mime_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("json") => "application/json",
        Some("xml") => "application/xml",
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_over_the_limit_is_read_as_its_first_and_last_parts() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("big.log");
        let len = MAX_READ + 1000;
        let mut bytes = vec![b'a'; usize::try_from(len).expect("fits")];
        bytes[0] = b'<';
        *bytes.last_mut().expect("not empty") = b'>';
        std::fs::write(&path, &bytes).expect("write");
        let text = read_bounded(std::fs::File::open(&path).expect("open")).expect("read");
        assert!(text.starts_with('<') && text.ends_with('>'));
        assert!(text.contains("[verdict: 1000 bytes of this file are left out here"));
        assert!(text.len() < usize::try_from(MAX_READ).expect("fits") + 200);
        std::fs::write(&path, "whole\n").expect("write");
        let text = read_bounded(std::fs::File::open(&path).expect("open")).expect("read");
        assert_eq!(text, "whole\n");
    }

    #[test]
    fn file_uris_read_back_as_the_paths_they_encode() {
        for path in ["/p/.git/verdict/runs/1/tsc.log", "/my project/#1/ü.log"] {
            let path = Path::new(path);
            assert_eq!(path_of(&file_uri(path)).as_deref(), Some(path));
        }
        for uri in [
            "http://x/y",
            "file://host/p",
            "file:///bad%zz",
            "file:///cut%4",
        ] {
            assert_eq!(path_of(uri), None, "{uri}");
        }
    }
}
