//! The PostgreSQL backend against a real server: idempotent adds, claims by priority, many
//! claimers at once, fencing after a rescue, a shared agent limit, migrations, and the
//! transactions an attempt costs.

use std::collections::HashMap;
use std::io::BufRead as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use verdict_fleet::{
    AgentLimit, AttemptEnd, Claim, FleetError, LeaseState, NewTask, PgStore, Selector, Store,
    TaskState, WorkerId,
};

use crate::pg_backend::{database, pg_connect, pg_store, postgres};

const LEASE: Duration = Duration::from_secs(30);

fn task(key: &str, priority: i32, agent: &str) -> NewTask {
    NewTask {
        key: key.to_owned(),
        workspace: "repo".to_owned(),
        rev: None,
        setup: None,
        task: format!("do {key}"),
        agents: vec![agent.to_owned()],
        max_attempts: Some(3),
        only: Vec::new(),
        campaign: Some("c".to_owned()),
        priority,
        deadline_secs: None,
        cost_cap_usd: None,
    }
}

fn worker(n: usize) -> WorkerId {
    WorkerId {
        id: format!("host-a/{n}"),
        host: "host-a".to_owned(),
        pid: 1000 + u32::try_from(n).expect("a small number"),
    }
}

fn end(state: TaskState, outcome: &str) -> AttemptEnd {
    AttemptEnd {
        state,
        counted: true,
        retry_after: None,
        outcome: outcome.to_owned(),
        reason: format!("it {outcome}"),
        category: None,
        fingerprints: Vec::new(),
        digest: None,
        agent: Some("script".to_owned()),
        agent_ms: 5,
        verify_ms: 7,
        tokens: None,
        cost_usd: None,
        events: vec![format!("{{\"event\":\"{outcome}\"}}")],
        workdir: None,
        branch: None,
        diff: None,
        hold_provider: None,
    }
}

/// A SQL query's one value, on the database `url` names, through `psql`.
fn sql(url: &str, query: &str) -> String {
    let database = url.rsplit('/').next().expect("a database name").to_owned();
    verdict_test_support::postgres::cluster().psql(&database, query)
}

#[tokio::test]
async fn adding_a_key_that_exists_changes_nothing() {
    let store = postgres().await;
    let first = store
        .add(&[task("a", 0, "claude"), task("b", 0, "claude")])
        .await
        .expect("added");
    assert!(first.iter().all(|(_, added)| *added));
    let mut changed = task("a", 9, "codex");
    changed.task = "something else".to_owned();
    let again = store
        .add(&[changed, task("c", 0, "claude")])
        .await
        .expect("added");
    assert_eq!(again[0], (first[0].0, false));
    assert!(again[1].1);
    let a = store.task("a").await.expect("read").expect("task a");
    assert_eq!((a.spec.task.as_str(), a.spec.priority), ("do a", 0));
    assert_eq!(store.tasks(&Selector::All).await.expect("read").len(), 3);
}

#[tokio::test]
async fn claims_take_the_highest_priority_first() {
    let store = pg_store().await;
    store
        .add(&[
            task("low", 0, "claude"),
            task("high", 5, "claude"),
            task("mid", 2, "claude"),
        ])
        .await
        .expect("added");
    let mut order = Vec::new();
    while let Some(claim) = store.claim(&worker(0), LEASE).await.expect("claim") {
        assert_eq!(claim.task.state, TaskState::Running);
        assert_eq!(claim.number, 1);
        order.push(claim.task.spec.key.clone());
    }
    assert_eq!(order, ["high", "mid", "low"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_claimers_take_each_task_exactly_once() {
    let url = database().await;
    let first = pg_connect(&url).await;
    let tasks: Vec<NewTask> = (0..50)
        .map(|n| task(&format!("t{n}"), 0, "claude"))
        .collect();
    first.add(&tasks).await.expect("added");
    let mut claimers = Vec::new();
    for n in 0..8 {
        let store = pg_connect(&url).await;
        claimers.push(tokio::spawn(async move {
            let mut taken = Vec::new();
            while let Some(claim) = store.claim(&worker(n), LEASE).await.expect("claim") {
                taken.push(claim.task.id);
                let done = store
                    .finish(&claim, &end(TaskState::Passed, "passed"))
                    .await;
                assert!(done.expect("finish"), "the lease is still held");
            }
            taken
        }));
    }
    let mut times: HashMap<i64, u32> = HashMap::new();
    for claimer in claimers {
        for id in claimer.await.expect("a claimer") {
            *times.entry(id).or_default() += 1;
        }
    }
    assert_eq!(times.len(), 50, "every task was claimed");
    assert!(times.values().all(|n| *n == 1), "claimed twice: {times:?}");
    let counts = first.counts().await.expect("counts");
    assert_eq!(counts.get(TaskState::Passed), 50);
    let attempts = first.attempts(None).await.expect("attempts");
    assert_eq!(attempts.len(), 50);
    assert!(
        attempts
            .iter()
            .all(|a| a.number == 1 && a.outcome.as_deref() == Some("passed"))
    );
}

#[tokio::test]
async fn a_rescued_lease_fences_the_late_writes_of_its_worker() {
    let store = pg_store().await;
    store.add(&[task("a", 0, "claude")]).await.expect("added");
    let late = store
        .claim(&worker(0), Duration::from_millis(200))
        .await
        .expect("claim")
        .expect("a due task");
    tokio::time::sleep(Duration::from_millis(400)).await;
    let rescued = store.rescue().await.expect("rescue");
    assert_eq!(rescued.len(), 1);
    assert_eq!((rescued[0].task, rescued[0].number), (late.task.id, 1));
    assert_eq!((rescued[0].host.as_str(), rescued[0].pid), ("host-a", 1000));

    assert_eq!(
        store.heartbeat(&late, LEASE).await.expect("heartbeat"),
        LeaseState::Lost
    );
    let next = store
        .claim(&worker(1), LEASE)
        .await
        .expect("claim")
        .expect("the task is due again");
    assert_eq!(next.number, 2);
    assert_ne!(next.token, late.token);
    let written = store
        .finish(&late, &end(TaskState::Passed, "passed"))
        .await
        .expect("finish");
    assert!(!written, "a stale token writes nothing");

    let task = store.task("a").await.expect("read").expect("task a");
    assert_eq!((task.state, task.attempts), (TaskState::Running, 0));
    let attempts = store.attempts(Some(task.id)).await.expect("attempts");
    assert_eq!(attempts[0].outcome.as_deref(), Some("interrupted"));
    assert!(!attempts[0].counted);
    assert_eq!(attempts[1].outcome, None);
    assert!(store.events(task.id).await.expect("events").is_empty());
    assert!(
        store
            .finish(&next, &end(TaskState::Passed, "passed"))
            .await
            .expect("finish")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_agent_limit_of_two_holds_under_concurrent_claimers() {
    let url = database().await;
    let first = pg_connect(&url).await;
    first
        .set_limits(&[AgentLimit {
            agent: "claude".to_owned(),
            slots: 2,
        }])
        .await
        .expect("limits");
    let tasks: Vec<NewTask> = (0..12)
        .map(|n| task(&format!("t{n}"), 0, "claude -p"))
        .collect();
    first.add(&tasks).await.expect("added");
    let running = Arc::new(AtomicU32::new(0));
    let most = Arc::new(AtomicU32::new(0));
    let mut claimers = Vec::new();
    for n in 0..6 {
        let store = pg_connect(&url).await;
        let (running, most) = (Arc::clone(&running), Arc::clone(&most));
        claimers.push(tokio::spawn(async move {
            loop {
                let Some(claim) = store.claim(&worker(n), LEASE).await.expect("claim") else {
                    if store.counts().await.expect("counts").idle() {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                };
                assert!(
                    claim.slot.is_some(),
                    "a limited provider's claim holds a slot"
                );
                // Counted after the claim commits and uncounted before the finish does: never
                // more than the slots the database has leased.
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(30)).await;
                running.fetch_sub(1, Ordering::SeqCst);
                let done = store
                    .finish(&claim, &end(TaskState::Passed, "passed"))
                    .await;
                assert!(done.expect("finish"));
            }
        }));
    }
    for claimer in claimers {
        claimer.await.expect("a claimer");
    }
    assert_eq!(
        first.counts().await.expect("counts").get(TaskState::Passed),
        12
    );
    assert_eq!(
        most.load(Ordering::SeqCst),
        2,
        "two sessions at once, never three"
    );
}

#[tokio::test]
async fn a_database_migrated_by_a_newer_verdict_is_refused() {
    let url = database().await;
    // Two workers starting at once on a new database both migrate it, one after the other.
    let (a, b) = tokio::join!(PgStore::connect(&url), PgStore::connect(&url));
    a.expect("the first connects");
    b.expect("the second connects");
    assert_eq!(
        sql(
            &url,
            "SELECT count(*) || ':' || max(version) FROM verdict_fleet_schema"
        ),
        "2:2"
    );
    sql(
        &url,
        "INSERT INTO verdict_fleet_schema (version, applied_at) VALUES (99, 0)",
    );
    match PgStore::connect(&url).await {
        Err(FleetError::Unusable { message, .. }) => assert!(message.contains("99"), "{message}"),
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("a newer schema was accepted"),
    }
}

#[tokio::test]
async fn the_password_appears_in_no_description_or_error() {
    let url = database().await;
    let secret = url.replacen("postgres@", "postgres:hunter2@", 1);
    let store = pg_connect(&secret).await;
    assert!(
        !store.describe().contains("hunter2"),
        "{}",
        store.describe()
    );
    let missing = secret.replace("verdict_test_", "no_such_database_");
    let error = PgStore::connect(&missing)
        .await
        .err()
        .expect("no such database");
    assert!(!error.to_string().contains("hunter2"), "{error}");
    assert!(error.to_string().contains("no_such_database"), "{error}");
}

/// Commits on the database `url` names, once every connection to it has closed.
async fn commits(url: &str) -> i64 {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || verdict_test_support::postgres::cluster().commits(&url))
        .await
        .expect("the count is read")
}

#[tokio::test]
async fn a_claim_and_its_finish_take_at_most_three_transactions() {
    const ATTEMPTS: i64 = 10;
    let url = database().await;
    let store = pg_connect(&url).await;
    let tasks: Vec<NewTask> = (0..ATTEMPTS)
        .map(|n| task(&format!("t{n}"), 0, "claude"))
        .collect();
    store.add(&tasks).await.expect("added");
    drop(store);
    // What connecting costs (the migration check), measured alone.
    let before = commits(&url).await;
    drop(pg_connect(&url).await);
    let connected = commits(&url).await;
    let store = pg_connect(&url).await;
    for _ in 0..ATTEMPTS {
        let claim: Claim = store
            .claim(&worker(0), LEASE)
            .await
            .expect("claim")
            .expect("a due task");
        let failed = AttemptEnd {
            retry_after: Some(Duration::from_secs(60)),
            ..end(TaskState::RetryScheduled, "failed")
        };
        assert!(store.finish(&claim, &failed).await.expect("finish"));
    }
    drop(store);
    let after = commits(&url).await;
    let connect = connected - before;
    let per_attempt = (after - connected - connect) as f64 / ATTEMPTS as f64;
    eprintln!("transactions per attempt (claim + finish): {per_attempt}; connecting: {connect}");
    assert!(per_attempt <= 3.0, "{per_attempt} transactions per attempt");
    let cluster = verdict_test_support::postgres::cluster();
    eprintln!(
        "cluster: copy and start {:?}, initdb of the template {:?}",
        cluster.started_in(),
        cluster.initdb_in()
    );
}

#[tokio::test]
async fn a_held_provider_is_passed_over_until_its_hold_ends() {
    let store = pg_store().await;
    store
        .add(&[
            task("a", 0, "claude"),
            task("b", 5, "claude"),
            task("c", 0, "codex"),
        ])
        .await
        .expect("added");
    let claim = store
        .claim(&worker(0), LEASE)
        .await
        .expect("claim")
        .expect("b");
    let limited = AttemptEnd {
        counted: false,
        retry_after: Some(Duration::ZERO),
        hold_provider: Some(Duration::from_secs(60)),
        ..end(TaskState::RetryScheduled, "rate_limited")
    };
    assert!(store.finish(&claim, &limited).await.expect("finish"));
    let held = store.held().await.expect("held");
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].0, "claude");
    let next = store
        .claim(&worker(0), LEASE)
        .await
        .expect("claim")
        .expect("codex's task");
    assert_eq!(next.task.spec.key, "c");
    assert!(
        store
            .claim(&worker(0), LEASE)
            .await
            .expect("claim")
            .is_none()
    );
    let b = store.task("b").await.expect("read").expect("b");
    assert_eq!((b.state, b.attempts), (TaskState::RetryScheduled, 0));
}

#[tokio::test]
async fn a_waiting_task_past_its_deadline_or_cost_cap_ends_expired() {
    let store = pg_store().await;
    let late = NewTask {
        deadline_secs: Some(0),
        ..task("late", 9, "claude")
    };
    let dear = NewTask {
        cost_cap_usd: Some(1.0),
        ..task("dear", 5, "claude")
    };
    store.add(&[late, dear]).await.expect("added");
    let claim = store
        .claim(&worker(0), LEASE)
        .await
        .expect("claim")
        .expect("dear; late has expired");
    assert_eq!(claim.task.spec.key, "dear");
    assert_eq!(
        store.task("late").await.expect("read").expect("late").state,
        TaskState::Expired
    );
    let spent = AttemptEnd {
        cost_usd: Some(1.5),
        retry_after: Some(Duration::ZERO),
        ..end(TaskState::RetryScheduled, "failed")
    };
    assert!(matches!(
        store.heartbeat(&claim, LEASE).await.expect("heartbeat"),
        LeaseState::Held { expired: false, .. }
    ));
    assert!(store.finish(&claim, &spent).await.expect("finish"));
    assert!(
        store
            .claim(&worker(0), LEASE)
            .await
            .expect("claim")
            .is_none()
    );
    let dear = store.task("dear").await.expect("read").expect("dear");
    assert_eq!(dear.state, TaskState::Expired);
    assert!((dear.cost_usd - 1.5).abs() < 1e-9);
    assert!(dear.finished_at.is_some());
}

#[tokio::test]
async fn a_task_with_a_work_directory_is_claimed_only_on_its_host() {
    let store = pg_store().await;
    store.add(&[task("a", 0, "claude")]).await.expect("added");
    let claim = store
        .claim(&worker(0), LEASE)
        .await
        .expect("claim")
        .expect("a");
    let failed = AttemptEnd {
        workdir: Some("/srv/fleet/a".to_owned()),
        branch: Some("verdict/a".to_owned()),
        diff: Some("+fixed".to_owned()),
        retry_after: Some(Duration::ZERO),
        category: Some("test".to_owned()),
        ..end(TaskState::RetryScheduled, "failed")
    };
    assert!(store.finish(&claim, &failed).await.expect("finish"));
    let elsewhere = WorkerId {
        id: "host-b/1".to_owned(),
        host: "host-b".to_owned(),
        pid: 7,
    };
    assert!(
        store
            .claim(&elsewhere, LEASE)
            .await
            .expect("claim")
            .is_none()
    );
    let again = store
        .claim(&worker(1), LEASE)
        .await
        .expect("claim")
        .expect("due on host-a");
    assert_eq!(again.number, 2);
    assert_eq!(again.task.attempts, 1);
    assert_eq!(again.task.host.as_deref(), Some("host-a"));
    assert_eq!(again.task.branch.as_deref(), Some("verdict/a"));
    assert_eq!(again.task.last_category.as_deref(), Some("test"));
    let id = again.task.id;
    assert_eq!(
        store.diff(id).await.expect("diff").as_deref(),
        Some("+fixed")
    );
    assert_eq!(
        store.events(id).await.expect("events"),
        ["{\"event\":\"failed\"}"]
    );
}

#[tokio::test]
async fn cancel_pause_resume_and_retry_with_guidance() {
    let store = pg_store().await;
    store
        .add(&[
            task("run", 9, "claude"),
            task("wait", 0, "claude"),
            task("other", 0, "codex"),
        ])
        .await
        .expect("added");
    let running = store
        .claim(&worker(0), LEASE)
        .await
        .expect("claim")
        .expect("run");
    let paused = store
        .control(
            &Selector::Agent("codex".to_owned()),
            verdict_fleet::Control::Pause,
            None,
        )
        .await
        .expect("pause");
    assert_eq!(paused, 1);
    let cancelled = store
        .control(
            &Selector::Campaign("c".to_owned()),
            verdict_fleet::Control::Cancel,
            None,
        )
        .await
        .expect("cancel");
    // The waiting two end at once; the running one is flagged for its worker.
    assert_eq!(cancelled, 3);
    assert!(matches!(
        store.heartbeat(&running, LEASE).await.expect("heartbeat"),
        LeaseState::Held { cancel: true, .. }
    ));
    assert!(
        store
            .finish(&running, &end(TaskState::Cancelled, "cancelled"))
            .await
            .expect("finish")
    );
    let wait = store.task("wait").await.expect("read").expect("wait");
    assert_eq!(wait.state, TaskState::Cancelled);
    assert!(matches!(
        store.retry("nope", "x").await,
        Err(FleetError::NoSuchTask(_))
    ));
    assert!(
        store
            .retry("wait", "try the other file")
            .await
            .expect("retry")
    );
    assert!(
        !store.retry("wait", "again").await.expect("retry"),
        "not ended"
    );
    let resumed = store
        .control(&Selector::All, verdict_fleet::Control::Resume, None)
        .await
        .expect("resume");
    assert_eq!(resumed, 1);
    let claim = store
        .claim(&worker(0), LEASE)
        .await
        .expect("claim")
        .expect("wait, sent back");
    assert_eq!(claim.task.spec.key, "wait");
    assert_eq!(claim.task.guidance.as_deref(), Some("try the other file"));
    assert!(
        store
            .finish(&claim, &end(TaskState::Passed, "passed"))
            .await
            .expect("finish")
    );
    let wait = store.task("wait").await.expect("read").expect("wait");
    // The guidance stays with the task, as `--guide` stays with a loop's run.
    assert_eq!(
        (wait.state, wait.guidance.as_deref()),
        (TaskState::Passed, Some("try the other file"))
    );
}

#[tokio::test]
async fn prune_removes_ended_tasks_and_clears_passed_work_directories() {
    let store = pg_store().await;
    store
        .add(&[
            task("done", 0, "claude"),
            task("stuck", 0, "claude"),
            task("new", -1, "claude"),
        ])
        .await
        .expect("added");
    for (state, outcome) in [
        (TaskState::Passed, "passed"),
        (TaskState::Escalated, "escalated"),
    ] {
        let claim = store
            .claim(&worker(0), LEASE)
            .await
            .expect("claim")
            .expect("a task");
        let ended = AttemptEnd {
            workdir: Some(format!("/srv/fleet/{}", claim.task.spec.key)),
            ..end(state, outcome)
        };
        assert!(store.finish(&claim, &ended).await.expect("finish"));
    }
    let pruned = store
        .prune(Duration::from_secs(3600), true)
        .await
        .expect("prune");
    assert_eq!(
        (pruned.tasks, pruned.workdirs.as_slice()),
        (0, &["/srv/fleet/done".to_owned()][..])
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    let pruned = store.prune(Duration::ZERO, false).await.expect("prune");
    assert_eq!(
        (pruned.tasks, pruned.workdirs.as_slice()),
        (2, &["/srv/fleet/stuck".to_owned()][..])
    );
    let left = store.tasks(&Selector::All).await.expect("tasks");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].spec.key, "new");
    assert_eq!(store.attempts(None).await.expect("attempts").len(), 0);
}

#[tokio::test]
async fn every_transition_notifies_its_task() {
    let url = database().await;
    let store = pg_connect(&url).await;
    let (client, mut connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("a listener");
    let (sender, mut notes) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Some(message) = std::future::poll_fn(|cx| connection.poll_message(cx)).await {
            if let Ok(tokio_postgres::AsyncMessage::Notification(note)) = message {
                let _ = sender.send((note.channel().to_owned(), note.payload().to_owned()));
            }
        }
    });
    client
        .batch_execute("LISTEN verdict_fleet")
        .await
        .expect("listen");
    let added = store.add(&[task("a", 0, "claude")]).await.expect("added");
    let id = added[0].0.to_string();
    let claim = store
        .claim(&worker(0), LEASE)
        .await
        .expect("claim")
        .expect("a");
    assert!(
        store
            .finish(&claim, &end(TaskState::Passed, "passed"))
            .await
            .expect("finish")
    );
    for what in ["add", "claim", "finish"] {
        let note = tokio::time::timeout(Duration::from_secs(10), notes.recv())
            .await
            .unwrap_or_else(|_| panic!("no notification of the {what}"));
        assert_eq!(
            note,
            Some(("verdict_fleet".to_owned(), id.clone())),
            "{what}"
        );
    }
}

#[tokio::test]
async fn a_tasks_history_records_what_happened_to_it_and_when() {
    let url = database().await;
    let store = pg_connect(&url).await;
    let id = store.add(&[task("a", 0, "claude")]).await.expect("added")[0].0;
    let selector = Selector::Task("a".to_owned());
    store
        .control(&selector, verdict_fleet::Control::Pause, None)
        .await
        .expect("pause");
    store
        .control(&selector, verdict_fleet::Control::Resume, None)
        .await
        .expect("resume");
    let claim = store
        .claim(&worker(0), Duration::from_millis(100))
        .await
        .expect("claim")
        .expect("a");
    store
        .control(&selector, verdict_fleet::Control::Cancel, None)
        .await
        .expect("cancel");
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(store.rescue().await.expect("rescue").len(), 1);
    assert!(store.retry("a", "look at b.rs").await.expect("retry"));
    drop(claim);
    let history = sql(
        &url,
        &format!(
            "SELECT string_agg(action || ':' || coalesce(detail, ''), ',' ORDER BY id) \
             FROM task_history WHERE task_id = {id} AND at > 0"
        ),
    );
    assert_eq!(
        history,
        "added:,paused:,resumed:,cancel requested:,rescued:claim 1 of host-a/0,retry:look at b.rs"
    );
    let task = store.task("a").await.expect("read").expect("a");
    assert_eq!(
        (task.state, task.guidance.as_deref()),
        (TaskState::Pending, Some("look at b.rs"))
    );
}

#[tokio::test]
async fn a_url_that_requires_tls_is_refused_with_why() {
    let url = database().await;
    let error = PgStore::connect(&format!("{url}?sslmode=require"))
        .await
        .err()
        .expect("refused");
    assert!(error.to_string().contains("TLS"), "{error}");
    assert!(error.to_string().contains("sslmode=disable"), "{error}");
}

/// The cluster's guard stops the server and removes its directory when the test process dies,
/// even by SIGKILL: this test runs itself as a child that starts a cluster, kills it, and
/// watches the cluster go.
#[test]
fn the_cluster_stops_when_its_test_process_is_killed() {
    const CHILD: &str = "VERDICT_TEST_PG_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let cluster = verdict_test_support::postgres::cluster();
        println!(
            "cluster {} {}",
            cluster.port(),
            cluster.socket_dir().display()
        );
        std::thread::sleep(Duration::from_secs(120));
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = std::process::Command::new(exe)
        .args([
            "--exact",
            "postgres::the_cluster_stops_when_its_test_process_is_killed",
        ])
        .arg("--nocapture")
        .env(CHILD, "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the child starts");
    let stdout = child.stdout.take().expect("piped");
    let line = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find(|line| line.starts_with("cluster "))
        .expect("the child reports its cluster");
    let mut words = line.splitn(3, ' ').skip(1);
    let port: u16 = words.next().and_then(|p| p.parse().ok()).expect("a port");
    let dir = std::path::PathBuf::from(words.next().expect("a directory"));
    let listening = || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
    assert!(dir.is_dir() && listening(), "the child's cluster runs");
    child.kill().expect("SIGKILL");
    child.wait().expect("the child ends");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while dir.exists() || listening() {
        assert!(
            std::time::Instant::now() < deadline,
            "the cluster in {} outlived its test process",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The next hint, within ten seconds.
async fn hint(hints: &mut tokio::sync::mpsc::Receiver<()>, what: &str) {
    tokio::time::timeout(Duration::from_secs(10), hints.recv())
        .await
        .unwrap_or_else(|_| panic!("no hint of {what}"))
        .unwrap_or_else(|| panic!("the listener ended before {what}"));
}

/// Empties the channel of hints already sent.
async fn settle(hints: &mut tokio::sync::mpsc::Receiver<()>) {
    tokio::time::sleep(Duration::from_millis(200)).await;
    while hints.try_recv().is_ok() {}
}

#[tokio::test]
async fn the_listener_hears_other_stores_and_survives_a_killed_connection() {
    let url = database().await;
    let mut hints = verdict_fleet::postgres::listen(&url)
        .await
        .expect("a listener");
    let store = pg_connect(&url).await;
    // A burst of transitions is one hint or a few, never one per task.
    let tasks: Vec<NewTask> = (0..50)
        .map(|n| task(&format!("t{n}"), 0, "claude"))
        .collect();
    store.add(&tasks).await.expect("added");
    hint(&mut hints, "the add").await;
    settle(&mut hints).await;
    let claimed = store.claim(&worker(0), LEASE).await.expect("claim");
    assert!(claimed.is_some());
    hint(&mut hints, "the claim").await;

    // The server drops the listener's connection: it connects again and says so.
    let killed = sql(
        &url,
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
         WHERE application_name = 'verdict-fleet-listener' AND datname = current_database()",
    );
    assert_eq!(killed, "1");
    hint(&mut hints, "the reconnection").await;
    settle(&mut hints).await;
    let listening = sql(
        &url,
        "SELECT count(*) FROM pg_stat_activity \
         WHERE application_name = 'verdict-fleet-listener' AND datname = current_database()",
    );
    assert_eq!(listening, "1", "the listener is connected again");
    store
        .control(
            &Selector::Task("t7".into()),
            verdict_fleet::Control::Pause,
            None,
        )
        .await
        .expect("pause");
    hint(&mut hints, "the pause after the reconnection").await;

    // Dropping the receiver ends the listener and closes its connection.
    drop(hints);
    let mut gone = false;
    for _ in 0..50 {
        let left = sql(
            &url,
            "SELECT count(*) FROM pg_stat_activity \
             WHERE application_name = 'verdict-fleet-listener' AND datname = current_database()",
        );
        if left == "0" {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(gone, "the listener's connection is closed");
}
