//! `LISTEN verdict_fleet` on a connection of its own, for a dashboard: every committed
//! transition sends `pg_notify('verdict_fleet', …)`, and the listener turns a burst of them into
//! one hint. The connection is not the pool's (a pooled connection is handed to others between
//! statements, and a transaction-pooling proxy loses notifications: the dashboard polls too).

use std::time::Duration;

use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls};

use super::connect::{config, describe};
use super::sql::error;
use crate::error::{FleetError, Result};

/// The first pause before connecting again after the connection dropped; it doubles up to
/// [`MOST_BACK_OFF`] and starts over once a connection listens.
const FIRST_BACK_OFF: Duration = Duration::from_millis(100);

/// The longest pause between attempts to connect again.
const MOST_BACK_OFF: Duration = Duration::from_secs(5);

/// Listens to the fleet database `url` names: one `()` arrives on the receiver per burst of
/// committed transitions (a hint holds at most one pending `()`; more are folded into it), and
/// one after every reconnection (what changed while the connection was down is unknown). The
/// first connection is made before this returns, so a wrong URL is an error here; a connection
/// that drops later is made again with back-off, for as long as the receiver lives. Dropping
/// the receiver ends the listener and closes its connection.
pub async fn listen(url: &str) -> Result<mpsc::Receiver<()>> {
    let mut config = config(url)?;
    config.application_name("verdict-fleet-listener");
    let (hints, receiver) = mpsc::channel(1);
    let first = Listening::start(&config, hints.clone()).await?;
    tokio::spawn(run(config, first, hints));
    Ok(receiver)
}

/// A connection that has run `LISTEN`, and the task driving it: the task ends when the
/// connection does, or when the receiver is gone.
struct Listening {
    /// Kept so the connection stays open (dropping the client closes it).
    _client: Client,
    /// Forwards notifications as hints until the connection ends.
    driver: tokio::task::JoinHandle<()>,
}

impl Listening {
    /// Connects and listens; notifications become hints from then on.
    async fn start(config: &Config, hints: mpsc::Sender<()>) -> Result<Listening> {
        let (client, mut connection) = config
            .connect(NoTls)
            .await
            .map_err(|e| FleetError::Postgres(format!("{}: {e}", describe(config))))?;
        let driver = tokio::spawn(async move {
            // The connection does its work only while polled, LISTEN's reply included.
            while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                match message {
                    // A full channel already holds a hint that stands for this one too.
                    Ok(AsyncMessage::Notification(_)) => {
                        if let Err(mpsc::error::TrySendError::Closed(())) = hints.try_send(()) {
                            return;
                        }
                    }
                    Ok(_) => {}
                    Err(_) => return,
                }
            }
        });
        if let Err(e) = client.batch_execute("LISTEN verdict_fleet").await {
            driver.abort();
            return Err(error(e));
        }
        Ok(Listening {
            _client: client,
            driver,
        })
    }
}

/// Waits while `current` listens, and connects again when its connection drops, until the
/// receiver of `hints` is dropped.
async fn run(config: Config, mut current: Listening, hints: mpsc::Sender<()>) {
    loop {
        tokio::select! {
            () = hints.closed() => {
                current.driver.abort();
                return;
            }
            _ = &mut current.driver => {}
        }
        let mut pause = FIRST_BACK_OFF;
        current = loop {
            tokio::select! {
                () = hints.closed() => return,
                () = tokio::time::sleep(pause) => {}
            }
            match Listening::start(&config, hints.clone()).await {
                Ok(listening) => break listening,
                Err(e) => {
                    tracing::debug!("the fleet's listener failed to connect again: {e}");
                    pause = (pause * 2).min(MOST_BACK_OFF);
                }
            }
        };
        // What changed while the connection was down was never heard of.
        let _ = hints.try_send(());
    }
}
