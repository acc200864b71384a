//! What only the SQLite backend has: its file and directory, its schema version, a campaign's
//! cost cap set in the file, and several worker processes on one file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use verdict_fleet::{AgentLimit, FleetError, SqliteStore, Store, TaskState};

use crate::store::{end, task};

const LONG: Duration = Duration::from_secs(600);

fn open(path: &Path) -> Arc<dyn Store> {
    Arc::new(SqliteStore::open(path).expect("the fleet database opens"))
}

#[test]
fn the_directory_is_created_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let state = dir.path().join("project").join(".verdict");
    SqliteStore::open(&state.join("fleet.db")).expect("opens");
    let mode = std::fs::metadata(&state)
        .expect("the directory")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    let journal: String = rusqlite::Connection::open(state.join("fleet.db"))
        .expect("a connection")
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .expect("the journal mode");
    assert_eq!(journal, "wal");
}

#[test]
fn a_database_migrated_by_a_newer_verdict_is_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("fleet.db");
    SqliteStore::open(&path).expect("opens");
    SqliteStore::open(&path).expect("opens again, already migrated");
    let conn = rusqlite::Connection::open(&path).expect("a connection");
    conn.execute_batch("PRAGMA user_version = 99").expect("set");
    match SqliteStore::open(&path) {
        Err(FleetError::Unusable { message, .. }) => {
            assert!(
                message.contains("99") && message.contains("newer"),
                "{message}"
            );
        }
        other => panic!("a newer schema was not refused: {other:?}"),
    }
}

/// A worker stopped (SIGSTOP, a suspended laptop) inside a write transaction holds the write
/// lock until it runs again. Opening the database to read it must not wait for that lock, or
/// `fleet status` and `fleet history` hang for as long as the worker is stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_opens_while_another_holds_the_write_lock() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("fleet.db");
    open(&path).add(&[task("a")]).await.expect("add");
    let holder = rusqlite::Connection::open(&path).expect("a connection");
    holder
        .execute_batch("BEGIN IMMEDIATE")
        .expect("the write lock");
    let reader_path = path.clone();
    let read = async move {
        let store = tokio::task::spawn_blocking(move || SqliteStore::open(&reader_path))
            .await
            .expect("the open's thread")
            .expect("opens");
        store.counts().await.expect("counts")
    };
    let counts = tokio::time::timeout(Duration::from_secs(20), read).await;
    holder.execute_batch("ROLLBACK").expect("released");
    let counts = counts.expect("opening and reading waited for the write lock");
    assert_eq!(counts.get(TaskState::Pending), 1, "{counts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_the_first_schema_gains_the_dashboards_reads() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("fleet.db");
    let store = open(&path);
    store.add(&[task("a"), task("b")]).await.expect("add");
    drop(store);
    // Back to what the first schema had: no change counter, no dashboard indexes.
    let conn = rusqlite::Connection::open(&path).expect("a connection");
    conn.execute_batch(
        "DROP TABLE changes; DROP INDEX tasks_by_update; DROP INDEX tasks_by_state_update;
         DROP INDEX attempts_by_outcome; PRAGMA user_version = 1;",
    )
    .expect("the first schema");
    drop(conn);
    let store = open(&path);
    let before = store.watermark().await.expect("watermark");
    let page = store
        .list(&verdict_fleet::ListQuery {
            limit: 10,
            ..verdict_fleet::ListQuery::default()
        })
        .await
        .expect("list");
    assert_eq!(page.total, 2, "the tasks stay");
    let claimed = store
        .claim(&crate::store::worker(1, "host-a"), LONG)
        .await
        .expect("claim");
    assert!(claimed.is_some());
    assert_ne!(store.watermark().await.expect("watermark"), before);
}

#[test]
fn processes_opening_a_new_database_at_once_migrate_it_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("new").join("fleet.db");
    let openers: Vec<_> = (0..6)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || SqliteStore::open(&path).map(drop))
        })
        .collect();
    for opener in openers {
        opener.join().expect("an opener").expect("opens");
    }
    let conn = rusqlite::Connection::open(&path).expect("a connection");
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .expect("the version");
    assert_eq!(version, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_people_do_to_a_task_is_in_its_history() {
    use verdict_fleet::{Control, Selector};
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("fleet.db");
    let store = open(&path);
    store.add(&[task("a")]).await.expect("add");
    store
        .control(&Selector::Task("a".into()), Control::Pause, None)
        .await
        .expect("pause");
    store
        .control(&Selector::All, Control::Resume, None)
        .await
        .expect("resume");
    store
        .control(&Selector::All, Control::Cancel, None)
        .await
        .expect("cancel");
    assert!(store.retry("a", "try the other API").await.expect("retry"));
    let conn = rusqlite::Connection::open(&path).expect("a connection");
    let mut statement = conn
        .prepare("SELECT action, detail FROM task_history ORDER BY id")
        .expect("a query");
    let history: Vec<(String, Option<String>)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows");
    let actions: Vec<&str> = history.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(
        actions,
        ["added", "paused", "resumed", "cancelled", "retry"]
    );
    assert_eq!(history[4].1.as_deref(), Some("try the other API"));
}

/// The environment variables that make [`claimer_process`] a claiming process.
const CHILD_DB: &str = "VERDICT_FLEET_TEST_CLAIMER_DB";
const CHILD_LOG: &str = "VERDICT_FLEET_TEST_CLAIMER_LOG";
const CHILD_GO: &str = "VERDICT_FLEET_TEST_CLAIMER_GO";

/// The body of each process of [`several_processes_claim_each_task_once`], which runs this
/// test binary again with the variables above; without them it has nothing to do.
#[test]
fn claimer_process() {
    let (Some(db), Some(log), Some(go)) = (
        std::env::var_os(CHILD_DB),
        std::env::var_os(CHILD_LOG),
        std::env::var_os(CHILD_GO),
    ) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(claim_until_done(db.as_ref(), log.as_ref(), go.as_ref()));
}

/// The wall clock in microseconds: the processes share the machine's.
fn micros() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_micros()
}

/// Claims and passes tasks until none waits, appending `start|end task number pid micros` for
/// each attempt to `log`, outside the database (between the claim's commit and the finish's).
async fn claim_until_done(db: &Path, log: &Path, go: &Path) {
    use std::io::Write;
    let store = open(db);
    let pid = std::process::id();
    let me = verdict_fleet::WorkerId {
        id: format!("process-{pid}"),
        host: "h".into(),
        pid,
    };
    let started = Instant::now();
    while !go.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no go from the parent"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
        .expect("the log");
    loop {
        match store.claim(&me, LONG).await.expect("claim") {
            Some(claim) => {
                let (id, number) = (claim.task.id, claim.number);
                // One write a line: appends of one write each never interleave.
                let line = format!("start {id} {number} {pid} {}\n", micros());
                file.write_all(line.as_bytes()).expect("log");
                // The "agent" works a little, so the processes overlap.
                tokio::time::sleep(Duration::from_millis(15)).await;
                let line = format!("end {id} {number} {pid} {}\n", micros());
                file.write_all(line.as_bytes()).expect("log");
                assert!(
                    store
                        .finish(&claim, &end(TaskState::Passed, true))
                        .await
                        .expect("finish")
                );
            }
            None if store
                .counts()
                .await
                .expect("counts")
                .get(TaskState::Pending)
                == 0 =>
            {
                break;
            }
            None => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

/// One line of a claimer's log.
struct Logged {
    start: bool,
    task: i64,
    pid: String,
    at: u128,
}

/// Runs `processes` claimers of this binary on the database at `db` until no task waits, and
/// returns their log.
fn run_claimers(dir: &Path, db: &Path, processes: usize) -> Vec<Logged> {
    let (log, go) = (dir.join("attempts.log"), dir.join("go"));
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = (0..processes)
        .map(|_| {
            Command::new(&exe)
                .args([
                    "--exact",
                    "sqlite::claimer_process",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_DB, db)
                .env(CHILD_LOG, &log)
                .env(CHILD_GO, &go)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("a claimer process")
        })
        .collect();
    std::fs::write(&go, "").expect("go");
    for child in children {
        let out = child.wait_with_output().expect("the claimer ends");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "a claimer failed:\n{text}");
        assert!(
            text.contains("1 passed"),
            "the claimer did not run:\n{text}"
        );
        assert!(!text.contains("locked"), "{text}");
    }
    let lines = std::fs::read_to_string(&log).expect("the log");
    lines
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split(' ').collect();
            Logged {
                start: f[0] == "start",
                task: f[1].parse().expect("a task id"),
                pid: f[3].to_owned(),
                at: f[4].parse().expect("a time"),
            }
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_processes_claim_each_task_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("fleet.db");
    let store = open(&db);
    let tasks: Vec<_> = (0..60).map(|n| task(&format!("t{n}"))).collect();
    let added = store.add(&tasks).await.expect("add");
    let ids: BTreeSet<i64> = added.into_iter().map(|(id, _)| id).collect();
    let log = tokio::task::spawn_blocking({
        let (dir, db) = (dir.path().to_owned(), db.clone());
        move || run_claimers(&dir, &db, 3)
    })
    .await
    .expect("the claimers");
    let mut runs: BTreeMap<i64, u32> = BTreeMap::new();
    let mut pids = BTreeSet::new();
    for line in log.iter().filter(|l| l.start) {
        *runs.entry(line.task).or_default() += 1;
        pids.insert(line.pid.clone());
    }
    assert_eq!(runs.keys().copied().collect::<BTreeSet<_>>(), ids);
    assert!(runs.values().all(|n| *n == 1), "a task ran twice: {runs:?}");
    assert!(pids.len() >= 2, "the processes did not overlap: {pids:?}");
    let counts = store.counts().await.expect("counts");
    assert_eq!(counts.get(TaskState::Passed), 60);
    assert_eq!(store.attempts(None).await.expect("attempts").len(), 60);
}

/// The agent limit of [`processes_sharing_an_agent_limit_never_exceed_it`].
const SHARED_LIMIT: u32 = 2;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_sharing_an_agent_limit_never_exceed_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let db = dir.path().join("fleet.db");
    let store = open(&db);
    let limit = AgentLimit {
        agent: "claude".into(),
        slots: SHARED_LIMIT,
    };
    store.set_limits(&[limit]).await.expect("limits");
    let tasks: Vec<_> = (0..30).map(|n| task(&format!("t{n}"))).collect();
    store.add(&tasks).await.expect("add");
    let mut log = tokio::task::spawn_blocking({
        let (dir, db) = (dir.path().to_owned(), db.clone());
        move || run_claimers(&dir, &db, 4)
    })
    .await
    .expect("the claimers");
    // Each logged run lies inside its claim's slot lease, so at most the limit may overlap.
    log.sort_by_key(|l| (l.at, l.start));
    let (mut running, mut most) = (0_i64, 0);
    for line in &log {
        running += if line.start { 1 } else { -1 };
        most = most.max(running);
    }
    assert_eq!(
        most,
        i64::from(SHARED_LIMIT),
        "sessions at once, the limit reached"
    );
    assert_eq!(log.iter().filter(|l| l.start).count(), 30);
    assert_eq!(
        store.counts().await.expect("counts").get(TaskState::Passed),
        30
    );
}
