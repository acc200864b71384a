//! Live pages: one task reads the source's watermark (when the database pushes a hint, and on a
//! timer as a backstop, since a push can be lost) and every open page's event stream sends the
//! new watermark when it changes. A stream starts with the current one, so a page that
//! reconnects, or outlives a server restart, compares and catches up.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::WatchStream;
use tokio_stream::{Stream, StreamExt};

use super::App;
use crate::source::Source;

/// How long the watcher waits after a pushed hint before reading: a transition often comes
/// with others (a finish, then a claim), and one read covers them all.
const SETTLE: Duration = Duration::from_millis(25);

/// How soon a browser reconnects after losing the stream.
const RECONNECT: Duration = Duration::from_secs(1);

/// Starts the watcher; the receiver always holds the newest watermark.
pub(crate) async fn watch(
    source: Arc<dyn Source>,
    poll: Duration,
    stop: watch::Receiver<bool>,
) -> watch::Receiver<String> {
    let first = match source.watermark().await {
        Ok(watermark) => watermark,
        Err(error) => {
            tracing::warn!("failed to read the dashboard's watermark: {error}");
            // Not empty: an event without data is never delivered to a page.
            "unread".to_owned()
        }
    };
    let (tx, rx) = watch::channel(first);
    let hints = match source.changes().await {
        Ok(hints) => hints,
        Err(error) => {
            tracing::warn!("the database's change notices are not available, polling: {error}");
            None
        }
    };
    tokio::spawn(run(source, poll, tx, hints, stop));
    rx
}

async fn run(
    source: Arc<dyn Source>,
    poll: Duration,
    tx: watch::Sender<String>,
    mut hints: Option<mpsc::Receiver<()>>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = stop.changed() => return,
            () = tokio::time::sleep(poll) => {}
            hint = next_hint(&mut hints) => {
                if hint.is_none() {
                    // The listener ended: polling carries on alone.
                    hints = None;
                }
                tokio::time::sleep(SETTLE).await;
            }
        }
        match source.watermark().await {
            Ok(watermark) => {
                tx.send_if_modified(|current| {
                    let changed = *current != watermark;
                    if changed {
                        *current = watermark;
                    }
                    changed
                });
            }
            Err(error) => tracing::warn!("failed to read the dashboard's watermark: {error}"),
        }
    }
}

/// The next pushed hint; never, when nothing pushes.
async fn next_hint(hints: &mut Option<mpsc::Receiver<()>>) -> Option<()> {
    match hints {
        Some(hints) => hints.recv().await,
        None => std::future::pending().await,
    }
}

/// `GET /events`: a `change` event with the current watermark at once, then one per change,
/// until the server stops.
pub(crate) async fn events(
    State(app): State<Arc<App>>,
    stop: watch::Receiver<bool>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let changes = WatchStream::new(app.watermark.clone()).map(Some);
    let stopped = WatchStream::from_changes(stop).map(|_| None);
    let mut first = true;
    let stream = changes
        .merge(stopped)
        .map_while(|w| w)
        .map(move |watermark| {
            let mut event = Event::default()
                .event("change")
                .id(watermark.clone())
                .data(watermark);
            if std::mem::take(&mut first) {
                event = event.retry(RECONNECT);
            }
            Ok(event)
        });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
