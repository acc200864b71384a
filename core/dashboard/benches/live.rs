//! How soon a committed transition reaches an open page: `cargo bench -p verdict-dashboard
//! --bench live -- [--backend sqlite|postgres|both] [--rounds N]`.
//!
//! A fleet of 1 000 tasks, the real dashboard server on loopback, and one client reading
//! `/events` as a browser does. Each round pauses or resumes a task through another store handle
//! (a committed transition, as a worker's or a person's would be) and times from just before
//! the write until the `change` event arrives. SQLite is polled (the server's default interval);
//! PostgreSQL pushes a `NOTIFY` the server listens to, with the poll as a backstop. Rounds start
//! at random moments so the poll's phase does not flatter the figures.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use verdict_dashboard::server::{self, Options};
use verdict_dashboard::source::FleetSource;
use verdict_fleet::{Control, NewTask, PgStore, Selector, SqliteStore, Store};

/// The server's poll interval, as `verdict dashboard` sets it by default.
const POLL: Duration = Duration::from_millis(250);

/// Tasks in the fleet.
const TASKS: usize = 1000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // nextest lists every target by running it; only `cargo bench` passes `--bench`.
    if !args.iter().any(|a| a == "--bench") {
        return;
    }
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let backend = value("--backend").unwrap_or_else(|| "both".into());
    let rounds: usize = value("--rounds").and_then(|r| r.parse().ok()).unwrap_or(40);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    println!("| backend | rounds | p50 | p95 | max |");
    println!("|---|--:|--:|--:|--:|");
    if backend == "sqlite" || backend == "both" {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("fleet.db");
        let reader: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).expect("a fleet file"));
        let writer: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).expect("a fleet file"));
        let source = FleetSource::new(reader);
        let times = runtime.block_on(measure(source, writer, rounds));
        report("SQLite (polled)", &times);
    }
    if backend == "postgres" || backend == "both" {
        let url = verdict_test_support::postgres::database();
        let (reader, writer) = runtime.block_on(async {
            let reader: Arc<dyn Store> =
                Arc::new(PgStore::connect(&url).await.expect("a fleet database"));
            let writer: Arc<dyn Store> =
                Arc::new(PgStore::connect(&url).await.expect("a fleet database"));
            (reader, writer)
        });
        let source = FleetSource::with_listener(reader, Some(url.clone()));
        let times = runtime.block_on(measure(source, writer, rounds));
        report("PostgreSQL (LISTEN, polled as a backstop)", &times);
    }
}

/// Fills the fleet, serves it, and times `rounds` transitions to their events.
async fn measure(source: FleetSource, writer: Arc<dyn Store>, rounds: usize) -> Vec<Duration> {
    let tasks: Vec<NewTask> = (0..TASKS)
        .map(|i| {
            let line = format!(
                r#"{{"key": "t{i}", "workspace": "/srv/repo", "task": "task {i}", "agent": "claude", "campaign": "c{}"}}"#,
                i % 10
            );
            NewTask::from_line(&line, |_| unreachable!("no task files")).expect("a task line")
        })
        .collect();
    writer.add(&tasks).await.expect("tasks added");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("an address");
    let token = "b".repeat(64);
    let options = Options {
        token: token.clone(),
        actions: false,
        hosts: Vec::new(),
        poll: POLL,
    };
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(server::serve(
        listener,
        Arc::new(source),
        options,
        async move {
            let _ = stop_rx.await;
        },
    ));
    let mut events = Events::open(addr, &token).await;
    events.next().await;
    let mut times = Vec::with_capacity(rounds);
    for round in 0..rounds {
        // A random moment within the poll interval.
        let jitter = getrandom::u64().expect("randomness") % 400;
        tokio::time::sleep(Duration::from_millis(100 + jitter)).await;
        let control = if round % 2 == 0 {
            Control::Pause
        } else {
            Control::Resume
        };
        let start = Instant::now();
        let changed = writer
            .control(&Selector::Task("t7".into()), control, Some("bench"))
            .await
            .expect("a control");
        assert_eq!(changed, 1, "round {round} changed nothing");
        events.next().await;
        times.push(start.elapsed());
    }
    let _ = stop_tx.send(());
    drop(events);
    let _ = served.await;
    times
}

/// An `/events` stream read as a browser reads it.
struct Events {
    stream: TcpStream,
    buffer: String,
}

impl Events {
    async fn open(addr: std::net::SocketAddr, token: &str) -> Events {
        let mut stream = TcpStream::connect(addr).await.expect("the dashboard");
        let request = format!(
            "GET /events HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
             Accept: text/event-stream\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .await
            .expect("a request");
        Events {
            stream,
            buffer: String::new(),
        }
    }

    /// Waits for the next `change` event.
    async fn next(&mut self) {
        loop {
            if let Some(at) = self.buffer.find("event: change") {
                let rest = self.buffer[at..]
                    .find("\n\n")
                    .or_else(|| self.buffer[at..].find("\r\n\r\n"));
                if let Some(end) = rest {
                    self.buffer.drain(..at + end + 2);
                    return;
                }
            }
            let mut chunk = [0u8; 4096];
            let read = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut chunk))
                .await
                .expect("an event within 10 s")
                .expect("the stream");
            assert!(read > 0, "the event stream ended");
            self.buffer
                .push_str(&String::from_utf8_lossy(&chunk[..read]));
        }
    }
}

fn report(name: &str, times: &[Duration]) {
    let mut ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "| {name} | {} | {:.0} ms | {:.0} ms | {:.0} ms |",
        ms.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    );
}
