//! The kernel-held lock: exactly one of several takers at once holds it, a holder is named to
//! the others, and it is free again once its holder is gone.

use std::sync::{Arc, Barrier};

use verdict_core::lock::FileLock;

/// Takers that try at the same moment, many times over: each time exactly one holds the lock.
/// (An exclusive SQLite transaction refused both of two takers now and then.)
#[test]
fn takers_at_the_same_moment_leave_exactly_one_holder() {
    const TAKERS: usize = 4;
    for trial in 0..200 {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = Arc::new(dir.path().join("loop/workspace.lock"));
        let start = Arc::new(Barrier::new(TAKERS));
        let tried = Arc::new(Barrier::new(TAKERS));
        let takers: Vec<_> = (0..TAKERS)
            .map(|_| {
                let (path, start, tried) = (path.clone(), start.clone(), tried.clone());
                std::thread::spawn(move || {
                    start.wait();
                    let lock = FileLock::try_take(&path).expect("the lock can be tried");
                    // Hold what was taken until every taker has tried.
                    tried.wait();
                    lock.is_some()
                })
            })
            .collect();
        let holders = takers
            .into_iter()
            .map(|t| t.join().expect("a taker thread"))
            .filter(|&held| held)
            .count();
        assert_eq!(
            holders, 1,
            "trial {trial}: {holders} of {TAKERS} takers hold the lock"
        );
    }
}
