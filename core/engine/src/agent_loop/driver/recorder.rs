//! The database and the event sink behind one lock: every change of a run is stored in one
//! transaction with its events, which are then told to the sink, in order, from the driver and
//! from the hooks the agents call.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tracing::info;

use super::events::{AgentRetry, Event, EventSink, LoopEvent};
use crate::agent_loop::agent::RetryRecord;
use crate::agent_loop::agent::pool::RetryHook;
use crate::agent_loop::agent::session::{SpawnHook, SpawnInfo};
use crate::state::{AttemptId, Batch, RunId, StateDb, StateError, now_ms, process_start_time};

/// The state database and the sink of one run.
pub(super) struct Recorder {
    pub(super) db: StateDb,
    pub(super) sink: EventSink,
}

/// The recorder, shared by the driver and the agents' hooks.
pub(super) type Shared = Arc<Mutex<Recorder>>;

fn lock(shared: &Shared) -> MutexGuard<'_, Recorder> {
    shared
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Stores `f`'s changes and `events` of `run` in one transaction, then tells the sink.
pub(super) fn record<T>(
    shared: &Shared,
    run: RunId,
    events: &[Event],
    f: impl FnOnce(&Batch<'_>) -> Result<T, StateError>,
) -> Result<T, StateError> {
    let mut recorder = lock(shared);
    let value = recorder.db.write(|batch| {
        let value = f(batch)?;
        store(batch, run, events)?;
        Ok(value)
    })?;
    tell(&mut recorder, run, events);
    Ok(value)
}

/// Stores the run `f` creates and the events it returns in one transaction, then tells the sink.
pub(super) fn record_new(
    shared: &Shared,
    f: impl FnOnce(&Batch<'_>) -> Result<(RunId, Vec<Event>), StateError>,
) -> Result<RunId, StateError> {
    let mut recorder = lock(shared);
    let (run, events) = recorder.db.write(|batch| {
        let (run, events) = f(batch)?;
        store(batch, run, &events)?;
        Ok((run, events))
    })?;
    tell(&mut recorder, run, &events);
    Ok(run)
}

fn store(batch: &Batch<'_>, run: RunId, events: &[Event]) -> Result<(), StateError> {
    for event in events {
        batch.record_event(Some(run), event.name(), &Value::Object(event.fields()))?;
    }
    Ok(())
}

fn tell(recorder: &mut Recorder, run: RunId, events: &[Event]) {
    let time_ms = now_ms();
    for event in events {
        let event = LoopEvent {
            run,
            time_ms,
            event: event.for_stream(),
        };
        let payload = Value::Object(event.event.fields());
        info!(target: "verdict::loop", event = event.event.name(), payload = %payload);
        (recorder.sink)(&event);
    }
}

/// Reads from the database under the lock.
pub(super) fn read<T>(
    shared: &Shared,
    f: impl FnOnce(&StateDb) -> Result<T, StateError>,
) -> Result<T, StateError> {
    f(&lock(shared).db)
}

/// The pool's retry decisions, stored and streamed as `agent_retry` events.
pub(super) fn retry_hook(shared: &Shared, run: RunId) -> RetryHook {
    let shared = Arc::clone(shared);
    Arc::new(move |retry: &RetryRecord| {
        let event = Event::AgentRetry(AgentRetry::of(retry));
        // A failure to store a retry decision must not stop the agent; the attempt's own records
        // still land, and the decision is in the agent's log directory.
        if let Err(error) = record(&shared, run, &[event], |_| Ok(())) {
            tracing::warn!("failed to record an agent retry: {error}");
        }
    })
}

/// Records each spawned agent's pid, process group and start time against `attempt`.
pub(super) fn spawn_hook(shared: &Shared, attempt: AttemptId) -> SpawnHook {
    let shared = Arc::clone(shared);
    Arc::new(move |info: &SpawnInfo| {
        let start = process_start_time(info.pid as i32).unwrap_or(0);
        let result = read(&shared, |db| {
            db.record_agent_process(attempt, info.pid as i32, info.pgid as i32, start)
        });
        if let Err(error) = result {
            tracing::warn!("failed to record the agent's process: {error}");
        }
    })
}
