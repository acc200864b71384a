//! The fleet's analytics read every task and every attempt: about 0.35 s over 10 000 tasks,
//! more than a page may take. So a page gets the newest figures computed, and a change since
//! starts one recompute in the background, at most one every [`GAP`]; the figures say as of
//! when, and the page shows it. Only the first request computes while it waits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;
use verdict_fleet::Store;

use crate::error::Result;
use crate::view::Analytics;

/// The least time between the end of one recompute and the start of the next: a busy fleet
/// changes many times a second, and figures over thousands of tasks move slowly.
const GAP: Duration = Duration::from_secs(2);

/// The newest figures, and whether a recompute runs.
#[derive(Default)]
pub(crate) struct Cache {
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    /// The figures, with the watermark read before the reads they were computed from.
    figures: Option<(String, Analytics)>,
    /// A recompute runs in the background.
    refreshing: bool,
    /// When the last recompute ended.
    ended: Option<Instant>,
}

impl Cache {
    /// The newest figures for a store whose watermark is now `watermark`.
    pub(crate) async fn get(&self, store: Arc<dyn Store>, watermark: String) -> Result<Analytics> {
        let mut state = self.state.lock().await;
        let Some((seen, figures)) = &state.figures else {
            // Nothing to show yet: compute while holding the lock, so that concurrent first
            // requests wait for one computation rather than each making their own.
            let figures = super::compute(store.as_ref()).await?;
            state.figures = Some((watermark, figures.clone()));
            state.ended = Some(Instant::now());
            return Ok(figures);
        };
        let figures = figures.clone();
        let stale = *seen != watermark;
        let rested = state.ended.is_none_or(|ended| ended.elapsed() >= GAP);
        if stale && rested && !state.refreshing {
            state.refreshing = true;
            tokio::spawn(refresh(self.state.clone(), store));
        }
        Ok(figures)
    }
}

/// Recomputes the figures and keeps them; a failure keeps the old ones and is logged.
async fn refresh(state: Arc<Mutex<State>>, store: Arc<dyn Store>) {
    let computed = async {
        let watermark = store.watermark().await?;
        let figures = super::compute(store.as_ref()).await?;
        Ok::<_, crate::DashboardError>((watermark, figures))
    };
    let result = computed.await;
    let mut state = state.lock().await;
    match result {
        Ok(figures) => state.figures = Some(figures),
        Err(error) => tracing::warn!("failed to recompute the fleet's analytics: {error}"),
    }
    state.refreshing = false;
    state.ended = Some(Instant::now());
}
