//! The PostgreSQL backend for the suites: a fresh store on a fresh database of this test
//! process's throw-away cluster (see `verdict_test_support::postgres`).

use std::sync::Arc;

use verdict_fleet::{PgStore, Store};

/// A fresh store on a fresh database.
pub(crate) async fn postgres() -> Arc<dyn Store> {
    Arc::new(pg_store().await)
}

/// [`postgres`], as the concrete store.
pub(crate) async fn pg_store() -> PgStore {
    pg_connect(&database().await).await
}

/// A fresh database's URL (creating it runs `psql`, off the async threads).
pub(crate) async fn database() -> String {
    tokio::task::spawn_blocking(verdict_test_support::postgres::database)
        .await
        .expect("the database is created")
}

/// A store on the database `url` names.
pub(crate) async fn pg_connect(url: &str) -> PgStore {
    PgStore::connect(url)
        .await
        .unwrap_or_else(|e| panic!("failed to connect to {url}: {e}"))
}
