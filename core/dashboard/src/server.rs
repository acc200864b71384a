//! The HTTP server: every request needs the access token and a `Host` naming the address it
//! listens on; pages, server-sent events, actions and `/metrics`.
//!
//! - [`guard`]: the `Host`, token and same-origin checks, and the headers every answer carries.
//! - [`pages`]: the pages, `/metrics` and the compiled-in assets.
//! - [`live`]: the watermark watcher and the server-sent events it feeds.
//! - [`actions`]: a person's actions, with `--allow-actions`.

mod actions;
mod guard;
mod live;
mod pages;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::source::Source;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The access token every request must carry (query `token`, the cookie it sets, or
    /// `Authorization: Bearer`).
    pub token: String,
    /// Whether the page offers actions (retry with guidance, cancel, pause, resume).
    pub actions: bool,
    /// `Host` values accepted besides the address the server listens on (and `localhost` with
    /// its port, when it listens on loopback).
    pub hosts: Vec<String>,
    /// How often the watermark is read when the database pushes nothing (and as a backstop when
    /// it does: a push can be lost).
    pub poll: Duration,
}

/// What every handler shares.
pub(crate) struct App {
    source: Arc<dyn Source>,
    options: Options,
    /// The value every action form carries: derived from the token, so a page that has it was
    /// served to a holder of the token.
    csrf: String,
    /// The cookie that holds the token: named with the port, since browsers share cookies
    /// across the ports of one host.
    cookie: String,
    /// The cookie that carries one message about the action just done.
    flash_cookie: String,
    /// `Host` values accepted.
    hosts: Vec<String>,
    /// The newest watermark, pushed to every open page.
    watermark: watch::Receiver<String>,
}

/// Serves `source` on `listener` until `shutdown` completes. Open event streams end with it.
pub async fn serve(
    listener: TcpListener,
    source: Arc<dyn Source>,
    options: Options,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let addr = listener.local_addr()?;
    let (stop_tx, stop_rx) = watch::channel(false);
    let watermark = live::watch(source.clone(), options.poll, stop_rx.clone()).await;
    let app = Arc::new(App {
        csrf: guard::derive(&options.token, "csrf"),
        cookie: format!("verdict-dashboard-{}", addr.port()),
        flash_cookie: format!("verdict-dashboard-flash-{}", addr.port()),
        hosts: guard::hosts(addr, &options.hosts),
        source,
        options,
        watermark,
    });
    let router = router(app.clone(), stop_rx);
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            // Ends the event streams, which would otherwise hold the shutdown open.
            let _ = stop_tx.send(true);
        })
        .await
}

fn router(app: Arc<App>, stop: watch::Receiver<bool>) -> Router {
    Router::new()
        .route("/", get(pages::queue))
        .route("/tasks/{id}", get(pages::task))
        .route("/analytics", get(pages::analytics))
        .route("/metrics", get(pages::metrics))
        .route("/assets/app.css", get(pages::css))
        .route("/assets/app.js", get(pages::js))
        .route(
            "/events",
            get(move |state| live::events(state, stop.clone())),
        )
        .route("/tasks/{id}/{verb}", post(actions::task))
        .route("/campaigns/{name}/{verb}", post(actions::campaign))
        .route("/agents/{name}/{verb}", post(actions::agent))
        .fallback(pages::not_found)
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            guard::check,
        ))
        .with_state(app)
}

/// The addresses a listener on `addr` is reached by, for the line the CLI prints.
pub fn addresses(addr: SocketAddr) -> Vec<String> {
    guard::hosts(addr, &[])
}
