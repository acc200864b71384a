//! The backends the conformance suite runs on: one function each that opens a fresh, empty
//! database, and one `suite!` line each that makes a test of every scenario for it.
//!
//! To add a backend: a function `name() -> Db` beside `sqlite()` and a line `suite!(name);`.

use std::sync::Arc;

use verdict_fleet::{SqliteStore, Store};

use crate::store::Db;

/// A fresh SQLite database in a temporary directory; `Db::another` opens a second connection
/// to the same file.
pub(crate) async fn sqlite() -> Db {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("state").join("fleet.db");
    let open = move || -> Arc<dyn Store> {
        Arc::new(SqliteStore::open(&path).expect("the fleet database opens"))
    };
    let store = open();
    Db::new(
        store,
        move || {
            let store = open();
            Box::pin(async move { store })
        },
        dir,
    )
}

suite!(sqlite);

/// A fresh database on this test process's throw-away PostgreSQL cluster; `Db::another`
/// connects another pool to it, as another worker would.
pub(crate) async fn postgres() -> Db {
    let url = crate::pg_backend::database().await;
    let store: Arc<dyn Store> = Arc::new(crate::pg_backend::pg_connect(&url).await);
    Db::new(
        store,
        move || {
            let url = url.clone();
            Box::pin(async move {
                Arc::new(crate::pg_backend::pg_connect(&url).await) as Arc<dyn Store>
            })
        },
        (),
    )
}

suite!(postgres);
