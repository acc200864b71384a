//! The driver's hands on the workspace: snapshots (taken on a blocking thread) and the text of the
//! files the cheating guard reads.

use std::path::{Component, Path};
use std::sync::Arc;

use super::LoopError;
use crate::agent_loop::guard::Sources;
use crate::snapshot::{SnapshotError, Snapshots, TreeId};

/// Runs a snapshot operation on a blocking thread.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, SnapshotError> + Send + 'static,
) -> Result<T, LoopError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(result) => result.map_err(LoopError::Snapshot),
        Err(error) => Err(LoopError::SnapshotTask(error)),
    }
}

/// The snapshot store of the workspace at `root`, or why there is none.
pub(super) async fn open_snapshots(root: &Path) -> Result<Snapshots, LoopError> {
    let root = root.to_owned();
    blocking(move || Snapshots::open(&root)).await
}

/// A snapshot of the workspace as it is now.
pub(super) async fn take(snapshots: &Arc<Snapshots>) -> Result<TreeId, LoopError> {
    let snapshots = Arc::clone(snapshots);
    blocking(move || snapshots.take()).await
}

/// The text of the workspace's files at `paths` (relative, `/`-separated, as a diff names them)
/// for the cheating guard. A file that cannot be read, is larger than 2 MiB or has a path that
/// leaves the workspace is left out; the guard then judges it by the diff's lines alone.
pub(super) fn read_sources(root: &Path, paths: &[String]) -> Sources {
    const LIMIT: u64 = 2 * 1024 * 1024;
    let mut sources = Sources::new();
    for path in paths {
        let relative = Path::new(path);
        let inside = relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
        if !inside {
            continue;
        }
        let full = root.join(relative);
        let small = std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_file() && m.len() <= LIMIT);
        if !small {
            continue;
        }
        if let Ok(bytes) = std::fs::read(&full) {
            sources.insert(path.clone(), String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    sources
}
