//! The conformance suite of the `Store` contract: every scenario is an `async fn` of a [`Db`]
//! and talks to it through `Arc<dyn Store>` only, so each backend runs the very same tests
//! (`suite!` in `backends.rs`). A scenario that needs a lease to run out renews it for a
//! millisecond ([`lapse`]), so nothing sleeps long and a slow machine expires nothing early.

use std::any::Any;
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use verdict_fleet::{
    AgentLimit, AttemptEnd, Claim, Control, LeaseState, ListQuery, Listed, NewTask, Selector,
    Store, TaskState, WorkerId,
};

/// Makes one `#[tokio::test]` per scenario for a backend: `suite!(sqlite)` runs every
/// scenario on `crate::backends::sqlite()`.
macro_rules! suite {
    ($backend:ident) => {
        suite!(@tests $backend:
            add_is_idempotent,
            claim_takes_by_priority_then_due_time,
            a_scheduled_retry_waits_without_blocking_the_line,
            a_due_task_is_claimed_by_exactly_one_of_many,
            a_rescued_lease_fences_the_old_claim,
            claim_numbers_are_unique_and_interrupted_ones_not_counted,
            an_agent_limit_holds_and_a_dead_claims_slot_comes_free,
            a_held_provider_is_not_claimed_before_the_hold_ends,
            a_hold_asked_while_an_attempt_runs_holds_every_claim,
            deadline_and_cost_cap_expire_waiting_tasks,
            a_campaign_over_its_cost_cap_expires_its_waiting_tasks,
            cancel_pause_and_resume_by_selector,
            a_running_task_sees_its_cancel_in_the_heartbeat,
            a_cancel_asked_during_an_attempt_wins_over_its_retry,
            a_lost_task_a_person_cancelled_ends_cancelled,
            a_running_task_past_its_deadline_hears_it,
            a_lower_limit_lets_running_attempts_finish,
            retry_sends_an_escalated_task_back_with_guidance,
            finish_records_what_the_attempt_says,
            a_task_runs_where_its_work_directory_is,
            counts_say_when_the_fleet_is_idle,
            prune_removes_old_tasks_and_passed_work_directories,
            list_filters_searches_and_pages_the_queue,
            history_facets_and_gauges_say_what_happened,
            the_watermark_moves_with_each_transition_and_only_then,
        );
    };
    (@tests $backend:ident: $($scenario:ident),* $(,)?) => {
        mod $backend {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $scenario() {
                    crate::store::$scenario(crate::backends::$backend().await).await;
                }
            )*
        }
    };
}

type Opener = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Arc<dyn Store>> + Send>> + Send + Sync>;

/// A fresh database for one scenario: a store, and a way to open more handles (connections)
/// to the same database, as separate workers would.
pub(crate) struct Db {
    /// The first handle.
    pub(crate) store: Arc<dyn Store>,
    open: Opener,
    /// What must live as long as the database (a temporary directory, a server).
    _keep: Box<dyn Any + Send + Sync>,
}

impl Db {
    pub(crate) fn new<F>(store: Arc<dyn Store>, open: F, keep: impl Any + Send + Sync) -> Db
    where
        F: Fn() -> Pin<Box<dyn Future<Output = Arc<dyn Store>> + Send>> + Send + Sync + 'static,
    {
        Db {
            store,
            open: Arc::new(open),
            _keep: Box::new(keep),
        }
    }

    /// Another handle on the same database, with its own connection.
    pub(crate) async fn another(&self) -> Arc<dyn Store> {
        (self.open)().await
    }
}

/// A lease that does not run out during a scenario.
const LONG: Duration = Duration::from_secs(600);

/// Lets a claim's lease (and its slot's) run out, as when its worker dies: the lease is renewed
/// for a millisecond and left. No scenario waits for a real lease, so a slow machine cannot
/// make one run out early.
async fn lapse(store: &Arc<dyn Store>, claims: &[&Claim]) {
    for claim in claims {
        let beat = store.heartbeat(claim, Duration::from_millis(1)).await;
        assert!(beat.expect("heartbeat") != LeaseState::Lost);
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
}

/// A task for agent `claude`.
pub(crate) fn task(key: &str) -> NewTask {
    NewTask {
        key: key.to_owned(),
        workspace: "repo".into(),
        rev: None,
        setup: None,
        task: format!("fix {key}"),
        agents: vec!["claude -p".into()],
        max_attempts: None,
        only: Vec::new(),
        campaign: None,
        priority: 0,
        deadline_secs: None,
        cost_cap_usd: None,
    }
}

/// A worker on `host`.
pub(crate) fn worker(n: u32, host: &str) -> WorkerId {
    WorkerId {
        id: format!("{host}-worker-{n}"),
        host: host.to_owned(),
        pid: 1000 + n,
    }
}

/// An attempt that ended in `state`.
pub(crate) fn end(state: TaskState, counted: bool) -> AttemptEnd {
    AttemptEnd {
        state,
        counted,
        retry_after: None,
        outcome: state.as_str().to_owned(),
        reason: format!("ended {state}"),
        category: None,
        fingerprints: Vec::new(),
        digest: None,
        agent: Some("claude -p".into()),
        agent_ms: 10,
        verify_ms: 20,
        tokens: None,
        cost_usd: None,
        events: Vec::new(),
        workdir: None,
        branch: None,
        diff: None,
        hold_provider: None,
    }
}

/// A failed attempt scheduled `after` from now.
fn scheduled(after: Duration) -> AttemptEnd {
    AttemptEnd {
        retry_after: Some(after),
        ..end(TaskState::RetryScheduled, true)
    }
}

async fn add(store: &Arc<dyn Store>, tasks: &[NewTask]) -> Vec<i64> {
    let added = store.add(tasks).await.expect("add");
    added.into_iter().map(|(id, _)| id).collect()
}

async fn claim(store: &Arc<dyn Store>, lease: Duration) -> Option<Claim> {
    store
        .claim(&worker(1, "host-a"), lease)
        .await
        .expect("claim")
}

/// Claims until nothing is due; the claimed tasks' keys in order.
async fn claim_all(store: &Arc<dyn Store>) -> Vec<String> {
    let mut keys = Vec::new();
    while let Some(claim) = claim(store, LONG).await {
        keys.push(claim.task.spec.key);
    }
    keys
}

async fn state(store: &Arc<dyn Store>, key: &str) -> TaskState {
    store
        .task(key)
        .await
        .expect("task")
        .expect("the task exists")
        .state
}

pub(crate) async fn add_is_idempotent(db: Db) {
    let store = &db.store;
    let first = store.add(&[task("a"), task("b")]).await.expect("add");
    assert!(first.iter().all(|(_, added)| *added), "{first:?}");
    // Re-running a half-imported file: the first two again, one new, and a repeat within it.
    let again = store
        .add(&[task("a"), task("b"), task("c"), task("c")])
        .await
        .expect("add");
    assert_eq!(again[0], (first[0].0, false));
    assert_eq!(again[1], (first[1].0, false));
    assert!(again[2].1, "c is new");
    assert_eq!(again[3], (again[2].0, false));
    let all = store.tasks(&Selector::All).await.expect("tasks");
    assert_eq!(all.len(), 3);
    let a = store.task("a").await.expect("task").expect("a");
    assert_eq!(a.id, first[0].0);
    assert_eq!(a.state, TaskState::Pending);
    assert_eq!(a.spec, task("a"));
    let by_id = store.task(&a.id.to_string()).await.expect("task");
    assert_eq!(by_id.map(|t| t.spec.key), Some("a".to_owned()));
}

pub(crate) async fn claim_takes_by_priority_then_due_time(db: Db) {
    let store = &db.store;
    let mut urgent = task("urgent");
    urgent.priority = 5;
    let mut low = task("low");
    low.priority = -1;
    add(store, &[task("first"), low, urgent, task("second")]).await;
    // "first" comes back due now, after "second" has waited since it was added.
    let taken = claim(store, LONG).await.expect("a claim");
    assert_eq!(taken.task.spec.key, "urgent");
    let first = claim(store, LONG).await.expect("a claim");
    assert_eq!(first.task.spec.key, "first");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(
        store
            .finish(&first, &scheduled(Duration::ZERO))
            .await
            .expect("finish")
    );
    assert_eq!(claim_all(store).await, ["second", "first", "low"]);
}

pub(crate) async fn a_scheduled_retry_waits_without_blocking_the_line(db: Db) {
    let store = &db.store;
    let mut a = task("a");
    a.priority = 1;
    add(store, &[a, task("b")]).await;
    let claimed = claim(store, LONG).await.expect("a claim");
    assert_eq!(claimed.task.spec.key, "a");
    assert!(
        store
            .finish(&claimed, &scheduled(Duration::from_secs(60)))
            .await
            .expect("finish")
    );
    let stored = store.task("a").await.expect("task").expect("a");
    assert_eq!(stored.state, TaskState::RetryScheduled);
    let due = stored.next_retry_at.expect("a next retry time");
    assert!(
        due >= stored.updated_at + 59_000,
        "due {due}, now {}",
        stored.updated_at
    );
    // A, first by priority, is not due: B is taken, and then nothing.
    assert_eq!(claim_all(store).await, ["b"]);
    let counts = store.counts().await.expect("counts");
    let next = counts.next_due_in.expect("a task waits");
    assert!((55_000..=60_000).contains(&next), "next due in {next} ms");
    // A retry due now is taken again.
    add(store, &[task("c")]).await;
    let c = claim(store, LONG).await.expect("c");
    assert!(
        store
            .finish(&c, &scheduled(Duration::from_millis(800)))
            .await
            .expect("finish")
    );
    assert!(claim(store, LONG).await.is_none(), "c is not due yet");
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(claim_all(store).await, ["c"]);
}

pub(crate) async fn a_due_task_is_claimed_by_exactly_one_of_many(db: Db) {
    let keys: Vec<String> = (0..8).map(|n| format!("t{n}")).collect();
    let tasks: Vec<NewTask> = keys.iter().map(|k| task(k)).collect();
    add(&db.store, &tasks).await;
    let mut handles = Vec::new();
    for n in 0..16 {
        let store = db.another().await;
        handles.push(tokio::spawn(async move {
            store
                .claim(&worker(n, "host-a"), LONG)
                .await
                .expect("claim")
        }));
    }
    let mut claimed = Vec::new();
    for handle in handles {
        if let Some(claim) = handle.await.expect("a claimer") {
            claimed.push(claim);
        }
    }
    let mut got: Vec<String> = claimed.iter().map(|c| c.task.spec.key.clone()).collect();
    got.sort();
    assert_eq!(got, keys, "each task claimed exactly once");
    let tokens: BTreeSet<i64> = claimed.iter().map(|c| c.token).collect();
    assert_eq!(tokens.len(), 8, "every claim has its own token");
    assert!(claimed.iter().all(|c| c.number == 1));
    assert_eq!(db.store.attempts(None).await.expect("attempts").len(), 8);
}

pub(crate) async fn a_rescued_lease_fences_the_old_claim(db: Db) {
    let store = &db.store;
    add(store, &[task("a")]).await;
    let old = claim(store, LONG).await.expect("a claim");
    assert!(matches!(
        store.heartbeat(&old, LONG).await.expect("heartbeat"),
        LeaseState::Held {
            cancel: false,
            expired: false,
            ..
        }
    ));
    assert!(
        store.rescue().await.expect("rescue").is_empty(),
        "the lease is alive"
    );
    lapse(store, &[&old]).await;
    let rescued = store.rescue().await.expect("rescue");
    assert_eq!(rescued.len(), 1);
    assert_eq!((rescued[0].task, rescued[0].number), (old.task.id, 1));
    assert_eq!(rescued[0].worker, worker(1, "host-a").id);
    assert_eq!((rescued[0].host.as_str(), rescued[0].pid), ("host-a", 1001));
    assert_eq!(state(store, "a").await, TaskState::Pending);
    // The old claim's writes change nothing, even once another worker holds the task.
    assert_eq!(
        store.heartbeat(&old, LONG).await.expect("heartbeat"),
        LeaseState::Lost
    );
    let mut late = end(TaskState::Passed, true);
    late.events = vec!["{\"late\":true}".into()];
    late.diff = Some("late diff".into());
    assert!(!store.finish(&old, &late).await.expect("finish"));
    let new = store
        .claim(&worker(2, "host-a"), LONG)
        .await
        .expect("claim")
        .expect("again");
    assert_eq!(new.number, 2);
    assert!(!store.finish(&old, &late).await.expect("finish"));
    assert_eq!(
        store.heartbeat(&old, LONG).await.expect("heartbeat"),
        LeaseState::Lost
    );
    let task = store.task("a").await.expect("task").expect("a");
    assert_eq!(task.state, TaskState::Running);
    assert_eq!(task.attempts, 0);
    assert!(store.events(task.id).await.expect("events").is_empty());
    assert_eq!(store.diff(task.id).await.expect("diff"), None);
    let attempts = store.attempts(Some(task.id)).await.expect("attempts");
    assert_eq!(attempts[0].outcome.as_deref(), Some("interrupted"));
    assert!(attempts[0].finished_at.is_some());
    assert_eq!(attempts[1].outcome, None);
    assert!(
        store
            .finish(&new, &end(TaskState::Passed, true))
            .await
            .expect("finish")
    );
    assert_eq!(state(store, "a").await, TaskState::Passed);
}

pub(crate) async fn claim_numbers_are_unique_and_interrupted_ones_not_counted(db: Db) {
    let store = &db.store;
    add(store, &[task("a")]).await;
    let one = claim(store, LONG).await.expect("claim 1");
    lapse(store, &[&one]).await;
    assert_eq!(store.rescue().await.expect("rescue").len(), 1);
    let two = claim(store, LONG).await.expect("claim 2");
    let handed_back = AttemptEnd {
        outcome: "interrupted".into(),
        ..end(TaskState::Pending, false)
    };
    assert!(store.finish(&two, &handed_back).await.expect("finish"));
    let three = claim(store, LONG).await.expect("claim 3");
    assert!(
        store
            .finish(&three, &scheduled(Duration::ZERO))
            .await
            .expect("finish")
    );
    let four = claim(store, LONG).await.expect("claim 4");
    assert_eq!(
        [one.number, two.number, three.number, four.number],
        [1, 2, 3, 4]
    );
    assert_eq!(four.task.attempts, 1, "only the third counted");
    let attempts = store.attempts(Some(one.task.id)).await.expect("attempts");
    let numbers: Vec<u32> = attempts.iter().map(|a| a.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    let counted: Vec<bool> = attempts.iter().map(|a| a.counted).collect();
    assert_eq!(counted, [false, false, true, false]);
}

pub(crate) async fn an_agent_limit_holds_and_a_dead_claims_slot_comes_free(db: Db) {
    let store = &db.store;
    store
        .set_limits(&[AgentLimit {
            agent: "claude".into(),
            slots: 2,
        }])
        .await
        .expect("limits");
    let tasks: Vec<NewTask> = (0..5).map(|n| task(&format!("c{n}"))).collect();
    let mut other = task("other");
    other.agents = vec!["/usr/bin/codex exec".into()];
    add(store, &tasks).await;
    add(store, &[other]).await;
    let mut handles = Vec::new();
    for n in 0..6 {
        let store = db.another().await;
        handles.push(tokio::spawn(async move {
            store
                .claim(&worker(n, "host-a"), LONG)
                .await
                .expect("claim")
        }));
    }
    let mut claims = Vec::new();
    for handle in handles {
        claims.extend(handle.await.expect("a claimer"));
    }
    let providers: Vec<String> = claims.iter().map(|c| c.task.spec.provider()).collect();
    assert_eq!(
        providers.iter().filter(|p| *p == "claude").count(),
        2,
        "{providers:?}"
    );
    assert_eq!(
        providers.iter().filter(|p| *p == "codex").count(),
        1,
        "{providers:?}"
    );
    let slots: BTreeSet<u32> = claims
        .iter()
        .filter_map(|c| c.slot.as_ref())
        .filter(|s| s.0 == "claude")
        .map(|s| s.1)
        .collect();
    assert_eq!(slots.len(), 2);
    assert!(
        claim(store, LONG).await.is_none(),
        "both claude slots are held"
    );
    // Both claude claims die: their slots come free before any rescue.
    let dead: Vec<&Claim> = claims
        .iter()
        .filter(|c| c.slot.as_ref().is_some_and(|s| s.0 == "claude"))
        .collect();
    lapse(store, &dead).await;
    let third = claim(store, LONG).await.expect("a dead claim's slot");
    let fourth = claim(store, LONG)
        .await
        .expect("the other dead claim's slot");
    assert!(
        claim(store, LONG).await.is_none(),
        "two live claude claims again"
    );
    // A dead claim whose slot was taken cannot come back to life.
    for claim in dead {
        assert_eq!(
            store.heartbeat(claim, LONG).await.expect("heartbeat"),
            LeaseState::Lost
        );
    }
    assert!(
        store
            .finish(&third, &end(TaskState::Passed, true))
            .await
            .expect("finish")
    );
    let fifth = claim(store, LONG).await.expect("the freed slot");
    assert_eq!(
        fifth.slot.as_ref().map(|s| s.1),
        third.slot.as_ref().map(|s| s.1)
    );
    assert!(store.heartbeat(&fourth, LONG).await.expect("heartbeat") != LeaseState::Lost);
}

pub(crate) async fn a_held_provider_is_not_claimed_before_the_hold_ends(db: Db) {
    let store = &db.store;
    add(store, &[task("a"), task("b")]).await;
    let mut other = task("other");
    other.agents = vec!["codex".into()];
    let a = claim(store, LONG).await.expect("a");
    let limited = AttemptEnd {
        outcome: "rate_limited".into(),
        hold_provider: Some(Duration::from_millis(1000)),
        ..scheduled(Duration::ZERO)
    };
    let limited = AttemptEnd {
        counted: false,
        ..limited
    };
    assert!(store.finish(&a, &limited).await.expect("finish"));
    let held = store.held().await.expect("held");
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].0, "claude");
    add(store, &[other]).await;
    assert_eq!(claim_all(store).await, ["other"], "claude is held");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert!(store.held().await.expect("held").is_empty());
    let mut keys = claim_all(store).await;
    keys.sort();
    assert_eq!(keys, ["a", "b"]);
    assert_eq!(store.task("a").await.expect("task").expect("a").attempts, 0);
}

pub(crate) async fn a_hold_asked_while_an_attempt_runs_holds_every_claim(db: Db) {
    let store = &db.store;
    add(store, &[task("a"), task("b")]).await;
    let running = claim(store, LONG).await.expect("a");
    // Its agent reported a rate limit: held at once, before the attempt ends.
    store
        .hold("claude", Duration::from_millis(800))
        .await
        .expect("hold");
    // A shorter hold asked later does not shorten it.
    store
        .hold("claude", Duration::from_millis(10))
        .await
        .expect("hold");
    let other = db.another().await;
    assert!(claim(&other, LONG).await.is_none(), "b waits for the hold");
    assert_eq!(store.held().await.expect("held").len(), 1);
    tokio::time::sleep(Duration::from_millis(900)).await;
    let b = claim(&other, LONG)
        .await
        .expect("b is due once the hold ends");
    assert_ne!(b.task.id, running.task.id);
}

pub(crate) async fn a_campaign_over_its_cost_cap_expires_its_waiting_tasks(db: Db) {
    let store = &db.store;
    let mut tasks = Vec::new();
    for (key, campaign) in [("a1", "alpha"), ("a2", "alpha"), ("b1", "beta")] {
        let mut t = task(key);
        t.campaign = Some(campaign.into());
        t.priority = if key == "a1" { 1 } else { 0 };
        tasks.push(t);
    }
    add(store, &tasks).await;
    store
        .set_campaign_cap("alpha", Some(1.0))
        .await
        .expect("set the cap");
    let a1 = claim(store, LONG).await.expect("a1");
    assert_eq!(a1.task.spec.key, "a1");
    let spent = AttemptEnd {
        cost_usd: Some(1.0),
        ..scheduled(Duration::ZERO)
    };
    assert!(store.finish(&a1, &spent).await.expect("finish"));
    let next = claim(store, LONG).await;
    assert_eq!(next.map(|c| c.task.spec.key), Some("b1".into()));
    for key in ["a1", "a2"] {
        let t = store.task(key).await.expect("task").expect("the task");
        assert_eq!(t.state, TaskState::Expired, "{key}");
        assert!(t.reason.expect("a reason").contains("campaign"), "{key}");
    }
    // Lifting the cap lets a later campaign's tasks run; a cap set before any task exists holds.
    store
        .set_campaign_cap("gamma", Some(0.0))
        .await
        .expect("cap");
    let mut g = task("g1");
    g.campaign = Some("gamma".into());
    add(store, &[g]).await;
    assert!(claim(store, LONG).await.is_none(), "gamma's cap is spent");
}

pub(crate) async fn deadline_and_cost_cap_expire_waiting_tasks(db: Db) {
    let store = &db.store;
    let mut late = task("late");
    late.deadline_secs = Some(0);
    let mut timely = task("timely");
    timely.deadline_secs = Some(3600);
    let mut capped = task("capped");
    capped.cost_cap_usd = Some(1.0);
    capped.priority = 9;
    let mut paused_late = task("paused-late");
    paused_late.deadline_secs = Some(0);
    add(store, &[late, timely, capped, paused_late]).await;
    store
        .control(&Selector::Task("paused-late".into()), Control::Pause, None)
        .await
        .expect("pause");
    let first = claim(store, LONG).await.expect("capped");
    assert_eq!(first.task.spec.key, "capped");
    let spent = AttemptEnd {
        cost_usd: Some(1.25),
        ..scheduled(Duration::ZERO)
    };
    assert!(store.finish(&first, &spent).await.expect("finish"));
    // The next claim ends the late and the spent tasks first, the paused one too.
    assert_eq!(claim_all(store).await, ["timely"]);
    for key in ["late", "capped", "paused-late"] {
        let task = store.task(key).await.expect("task").expect("the task");
        assert_eq!(task.state, TaskState::Expired, "{key}");
        assert!(task.finished_at.is_some(), "{key}");
    }
    let capped = store.task("capped").await.expect("task").expect("capped");
    assert!((capped.cost_usd - 1.25).abs() < 1e-9);
    assert!(capped.reason.expect("a reason").contains("cost cap"));
    let late = store.task("late").await.expect("task").expect("late");
    assert!(late.reason.expect("a reason").contains("deadline"));
}

pub(crate) async fn cancel_pause_and_resume_by_selector(db: Db) {
    let store = &db.store;
    let mut tasks = Vec::new();
    for (key, campaign, agent) in [
        ("a1", "alpha", "claude"),
        ("a2", "alpha", "codex"),
        ("b1", "beta", "codex"),
        ("b2", "beta", "claude"),
        ("c1", "gamma", "claude"),
    ] {
        let mut t = task(key);
        t.campaign = Some(campaign.into());
        t.agents = vec![agent.into()];
        tasks.push(t);
    }
    add(store, &tasks).await;
    let control = |selector: Selector, control: Control| async move {
        store
            .control(&selector, control, None)
            .await
            .expect("control")
    };
    assert_eq!(
        control(Selector::Campaign("alpha".into()), Control::Pause).await,
        2
    );
    assert_eq!(
        control(Selector::Campaign("alpha".into()), Control::Pause).await,
        0
    );
    assert_eq!(
        control(Selector::Agent("codex".into()), Control::Pause).await,
        1,
        "b1"
    );
    let mut keys = claim_all(store).await;
    keys.sort();
    assert_eq!(keys, ["b2", "c1"]);
    assert_eq!(control(Selector::All, Control::Resume).await, 3);
    assert_eq!(
        control(Selector::Task("a1".into()), Control::Cancel).await,
        1
    );
    assert_eq!(state(store, "a1").await, TaskState::Cancelled);
    assert_eq!(
        control(Selector::Task("a1".into()), Control::Resume).await,
        0
    );
    assert_eq!(
        control(Selector::Agent("codex".into()), Control::Cancel).await,
        2
    );
    let counts = store.counts().await.expect("counts");
    assert_eq!(counts.get(TaskState::Cancelled), 3);
    assert_eq!(counts.get(TaskState::Running), 2);
    // Cancelling everything flags the two running tasks; nothing else is waiting.
    assert_eq!(control(Selector::All, Control::Cancel).await, 2);
    assert_eq!(
        control(Selector::All, Control::Cancel).await,
        0,
        "already flagged"
    );
    let err = store
        .control(&Selector::Task("nope".into()), Control::Pause, None)
        .await;
    assert!(err.is_err(), "an unknown task is an error");
}

pub(crate) async fn a_running_task_sees_its_cancel_in_the_heartbeat(db: Db) {
    let store = &db.store;
    add(store, &[task("a")]).await;
    let running = claim(store, LONG).await.expect("a claim");
    let paused = store
        .control(&Selector::Task("a".into()), Control::Pause, None)
        .await;
    assert_eq!(paused.expect("pause"), 1, "a running task can be paused");
    assert_eq!(
        store
            .control(&Selector::Task("a".into()), Control::Cancel, None)
            .await
            .expect("cancel"),
        1
    );
    assert_eq!(
        state(store, "a").await,
        TaskState::Running,
        "its worker ends it"
    );
    let beat = store.heartbeat(&running, LONG).await.expect("heartbeat");
    assert!(
        matches!(beat, LeaseState::Held { cancel: true, .. }),
        "{beat:?}"
    );
    let cancelled = AttemptEnd {
        outcome: "cancelled".into(),
        ..end(TaskState::Cancelled, false)
    };
    assert!(store.finish(&running, &cancelled).await.expect("finish"));
    let task = store.task("a").await.expect("task").expect("a");
    assert_eq!(task.state, TaskState::Cancelled);
    assert!(!task.cancel_requested);
}

pub(crate) async fn a_lost_task_a_person_cancelled_ends_cancelled(db: Db) {
    let store = &db.store;
    add(store, &[task("a")]).await;
    let running = claim(store, LONG).await.expect("a claim");
    let cancel = store.control(&Selector::All, Control::Cancel, None).await;
    assert_eq!(cancel.expect("cancel"), 1);
    lapse(store, &[&running]).await;
    assert_eq!(store.rescue().await.expect("rescue").len(), 1);
    assert_eq!(state(store, "a").await, TaskState::Cancelled);
    assert!(claim(store, LONG).await.is_none());
}

pub(crate) async fn a_running_task_past_its_deadline_hears_it(db: Db) {
    let store = &db.store;
    let mut t = task("a");
    t.deadline_secs = Some(1);
    add(store, &[t]).await;
    let running = claim(store, LONG).await.expect("a claim");
    let beat = store.heartbeat(&running, LONG).await.expect("heartbeat");
    assert!(
        matches!(beat, LeaseState::Held { expired: false, .. }),
        "{beat:?}"
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let beat = store.heartbeat(&running, LONG).await.expect("heartbeat");
    assert!(
        matches!(
            beat,
            LeaseState::Held {
                expired: true,
                cancel: false,
                ..
            }
        ),
        "{beat:?}"
    );
    let expired = AttemptEnd {
        outcome: "expired".into(),
        ..end(TaskState::Expired, false)
    };
    assert!(store.finish(&running, &expired).await.expect("finish"));
    assert_eq!(state(store, "a").await, TaskState::Expired);
}

pub(crate) async fn a_lower_limit_lets_running_attempts_finish(db: Db) {
    let store = &db.store;
    let limit = |slots| {
        [AgentLimit {
            agent: "claude".into(),
            slots,
        }]
    };
    store.set_limits(&limit(3)).await.expect("limits");
    add(store, &[task("a"), task("b"), task("c"), task("d")]).await;
    let claims = [
        claim(store, LONG).await.expect("a"),
        claim(store, LONG).await.expect("b"),
        claim(store, LONG).await.expect("c"),
    ];
    store.set_limits(&limit(1)).await.expect("limits");
    for held in &claims {
        let beat = store.heartbeat(held, LONG).await.expect("heartbeat");
        assert!(beat != LeaseState::Lost, "{:?}", held.slot);
    }
    for held in &claims[1..] {
        assert!(
            store
                .finish(held, &end(TaskState::Passed, true))
                .await
                .expect("finish")
        );
        assert!(claim(store, LONG).await.is_none(), "one slot, still held");
    }
    assert!(
        store
            .finish(&claims[0], &end(TaskState::Passed, true))
            .await
            .expect("finish")
    );
    let d = claim(store, LONG).await.expect("d takes the one slot");
    assert_eq!(d.slot, Some(("claude".into(), 0)));
    // A limit of 0 removes it.
    store.set_limits(&limit(0)).await.expect("limits");
    add(store, &[task("e")]).await;
    assert!(claim(store, LONG).await.is_some());
}

pub(crate) async fn a_cancel_asked_during_an_attempt_wins_over_its_retry(db: Db) {
    let store = &db.store;
    add(store, &[task("a")]).await;
    let running = claim(store, LONG).await.expect("a claim");
    let selector = Selector::Task("a".to_owned());
    assert_eq!(
        store
            .control(&selector, Control::Cancel, None)
            .await
            .expect("cancel"),
        1
    );
    // The worker finishes before a heartbeat has brought it the request.
    assert!(
        store
            .finish(&running, &scheduled(Duration::ZERO))
            .await
            .expect("finish")
    );
    let task = store.task("a").await.expect("task").expect("a");
    assert_eq!(task.state, TaskState::Cancelled);
    assert_eq!(task.next_retry_at, None);
    assert!(!task.cancel_requested);
    assert!(task.finished_at.is_some());
    assert!(claim(store, LONG).await.is_none(), "nothing is due");
}

pub(crate) async fn retry_sends_an_escalated_task_back_with_guidance(db: Db) {
    let store = &db.store;
    add(store, &[task("a")]).await;
    let first = claim(store, LONG).await.expect("a claim");
    assert!(
        !store.retry("a", "too soon").await.expect("retry"),
        "a running task"
    );
    let escalated = AttemptEnd {
        outcome: "escalated".into(),
        ..end(TaskState::Escalated, true)
    };
    assert!(store.finish(&first, &escalated).await.expect("finish"));
    assert!(store.retry("a", "use the v2 API").await.expect("retry"));
    let task = store.task("a").await.expect("task").expect("a");
    assert_eq!(task.state, TaskState::Pending);
    assert_eq!(task.attempts, 0, "its attempts are granted anew");
    assert_eq!(task.guidance.as_deref(), Some("use the v2 API"));
    assert_eq!(task.finished_at, None);
    assert!(
        !store.retry("a", "again").await.expect("retry"),
        "it has not ended"
    );
    assert!(
        store.retry("nope", "x").await.is_err(),
        "an unknown task is an error"
    );
    let second = claim(store, LONG).await.expect("claimed again");
    assert_eq!(second.number, 2);
    assert_eq!(second.task.guidance.as_deref(), Some("use the v2 API"));
    assert!(
        store
            .finish(&second, &scheduled(Duration::ZERO))
            .await
            .expect("finish")
    );
    let task = store.task("a").await.expect("task").expect("a");
    assert_eq!(
        task.guidance.as_deref(),
        Some("use the v2 API"),
        "every later prompt carries it, as --guide does"
    );
    assert_eq!(task.attempts, 1);
    // A passed task is not sent back.
    let third = claim(store, LONG).await.expect("a claim");
    assert!(
        store
            .finish(&third, &end(TaskState::Passed, true))
            .await
            .expect("finish")
    );
    assert!(!store.retry("a", "more").await.expect("retry"));
}

pub(crate) async fn finish_records_what_the_attempt_says(db: Db) {
    let store = &db.store;
    let mut t = task("a");
    t.campaign = Some("alpha".into());
    add(store, &[t]).await;
    let claimed = store
        .claim(&worker(7, "host-b"), LONG)
        .await
        .expect("claim")
        .expect("a");
    let failed = AttemptEnd {
        outcome: "failed".into(),
        reason: "2 type errors".into(),
        category: Some("type_error".into()),
        fingerprints: vec!["tsc:TS2322".into(), "tsc:TS2345".into()],
        digest: Some("src/a.ts: TS2322".into()),
        agent_ms: 1500,
        verify_ms: 700,
        tokens: Some(12_000),
        cost_usd: Some(0.25),
        events: vec!["{\"event\":\"one\"}".into(), "{\"event\":\"two\"}".into()],
        workdir: Some("/w/a-dir".into()),
        branch: Some("verdict/a".into()),
        diff: Some("--- a\n+++ b\n".into()),
        ..scheduled(Duration::from_secs(30))
    };
    assert!(store.finish(&claimed, &failed).await.expect("finish"));
    let task = store.task("a").await.expect("task").expect("a");
    assert_eq!(task.state, TaskState::RetryScheduled);
    assert_eq!(task.attempts, 1);
    assert_eq!(task.workdir.as_deref(), Some("/w/a-dir"));
    assert_eq!(task.host.as_deref(), Some("host-b"));
    assert_eq!(task.branch.as_deref(), Some("verdict/a"));
    assert_eq!(task.reason.as_deref(), Some("2 type errors"));
    assert_eq!(task.last_category.as_deref(), Some("type_error"));
    assert!((task.cost_usd - 0.25).abs() < 1e-9);
    assert_eq!(task.finished_at, None);
    assert_eq!(
        store.diff(task.id).await.expect("diff").as_deref(),
        Some("--- a\n+++ b\n")
    );
    assert_eq!(store.events(task.id).await.expect("events"), failed.events);
    let attempts = store.attempts(None).await.expect("attempts");
    assert_eq!(attempts.len(), 1);
    let attempt = &attempts[0];
    assert_eq!((attempt.task, attempt.number), (task.id, 1));
    assert_eq!(
        (attempt.worker.as_str(), attempt.host.as_str()),
        ("host-b-worker-7", "host-b")
    );
    assert_eq!(attempt.outcome.as_deref(), Some("failed"));
    assert!(attempt.counted);
    assert_eq!(attempt.fingerprints, failed.fingerprints);
    assert_eq!(
        (attempt.agent_ms, attempt.verify_ms, attempt.tokens),
        (1500, 700, Some(12_000))
    );
    assert_eq!(attempt.retry_delay_ms, Some(30_000));
    assert_eq!(attempt.campaign.as_deref(), Some("alpha"));
    assert_eq!(attempt.digest.as_deref(), Some("src/a.ts: TS2322"));
    assert!(attempt.finished_at.expect("finished") >= attempt.claimed_at);
    // A running claim's lease and the finished task's cleared one.
    assert!(!task.cancel_requested);
    let passed = AttemptEnd {
        cost_usd: Some(0.5),
        ..end(TaskState::Passed, true)
    };
    assert!(
        !store.finish(&claimed, &passed).await.expect("finish"),
        "the claim has ended"
    );
}

pub(crate) async fn a_task_runs_where_its_work_directory_is(db: Db) {
    let store = &db.store;
    add(store, &[task("a")]).await;
    let first = store
        .claim(&worker(1, "host-a"), LONG)
        .await
        .expect("claim")
        .expect("a");
    let with_workdir = AttemptEnd {
        workdir: Some("/w/a".into()),
        ..scheduled(Duration::ZERO)
    };
    assert!(store.finish(&first, &with_workdir).await.expect("finish"));
    assert!(
        store
            .claim(&worker(2, "host-b"), LONG)
            .await
            .expect("claim")
            .is_none()
    );
    let again = store
        .claim(&worker(3, "host-a"), LONG)
        .await
        .expect("claim");
    assert_eq!(again.map(|c| c.task.spec.key), Some("a".into()));
}

pub(crate) async fn counts_say_when_the_fleet_is_idle(db: Db) {
    let store = &db.store;
    assert!(store.counts().await.expect("counts").idle());
    add(store, &[task("a"), task("b")]).await;
    let counts = store.counts().await.expect("counts");
    assert_eq!(counts.get(TaskState::Pending), 2);
    assert_eq!(counts.by_state.len(), TaskState::ALL.len());
    assert_eq!(counts.next_due_in, Some(0));
    assert!(!counts.idle());
    store
        .control(&Selector::Task("b".into()), Control::Pause, None)
        .await
        .expect("pause");
    let a = claim(store, LONG).await.expect("a");
    let counts = store.counts().await.expect("counts");
    assert_eq!((counts.get(TaskState::Running), counts.paused), (1, 1));
    assert_eq!(counts.next_due_in, None, "only a paused task waits");
    assert!(!counts.idle(), "a is running");
    assert!(
        store
            .finish(&a, &end(TaskState::Passed, true))
            .await
            .expect("finish")
    );
    let counts = store.counts().await.expect("counts");
    assert!(counts.idle(), "only a paused task is left: {counts:?}");
    assert_eq!(counts.get(TaskState::Passed), 1);
}

pub(crate) async fn prune_removes_old_tasks_and_passed_work_directories(db: Db) {
    let store = &db.store;
    add(store, &[task("passed"), task("escalated"), task("waiting")]).await;
    let passed = claim(store, LONG).await.expect("passed");
    let done = AttemptEnd {
        workdir: Some("/w/passed".into()),
        ..end(TaskState::Passed, true)
    };
    assert!(store.finish(&passed, &done).await.expect("finish"));
    let escalated = claim(store, LONG).await.expect("escalated");
    let handed = AttemptEnd {
        workdir: Some("/w/escalated".into()),
        ..end(TaskState::Escalated, true)
    };
    assert!(store.finish(&escalated, &handed).await.expect("finish"));
    let kept = store
        .prune(Duration::from_secs(3600), true)
        .await
        .expect("prune");
    assert_eq!(kept.tasks, 0);
    assert_eq!(kept.workdirs, ["/w/passed"]);
    let task = store
        .task("passed")
        .await
        .expect("task")
        .expect("still there");
    assert_eq!(task.workdir, None);
    assert!(
        store
            .prune(Duration::from_secs(3600), true)
            .await
            .expect("prune")
            .workdirs
            .is_empty()
    );
    tokio::time::sleep(Duration::from_millis(20)).await;
    let pruned = store
        .prune(Duration::from_millis(1), false)
        .await
        .expect("prune");
    assert_eq!(pruned.tasks, 2);
    assert_eq!(pruned.workdirs, ["/w/escalated"]);
    assert!(store.task("passed").await.expect("task").is_none());
    assert!(store.task("escalated").await.expect("task").is_none());
    assert_eq!(state(store, "waiting").await, TaskState::Pending);
    let attempts = store.attempts(None).await.expect("attempts");
    assert!(
        attempts.is_empty(),
        "attempts go with their tasks: {attempts:?}"
    );
}

/// The keys of a page of `list`, and the total.
async fn listed(store: &Arc<dyn Store>, query: ListQuery) -> (Vec<String>, u64) {
    let query = ListQuery {
        limit: if query.limit == 0 { 100 } else { query.limit },
        ..query
    };
    let page = store.list(&query).await.expect("list");
    let keys = page.tasks.iter().map(|t| t.task.spec.key.clone()).collect();
    (keys, page.total)
}

/// Only tasks standing so.
fn standing(state: Listed) -> ListQuery {
    ListQuery {
        state: Some(state),
        ..ListQuery::default()
    }
}

pub(crate) async fn list_filters_searches_and_pages_the_queue(db: Db) {
    let store = &db.store;
    let mut tasks = Vec::new();
    for (key, campaign, agent) in [
        ("alpha-1", "alpha", "claude -p"),
        ("alpha-2", "alpha", "codex exec"),
        ("beta-1", "beta", "claude -p"),
        ("beta-2", "beta", "codex exec"),
        ("loose", "", "claude -p"),
    ] {
        let mut t = task(key);
        t.campaign = (!campaign.is_empty()).then(|| campaign.to_owned());
        t.agents = vec![agent.to_owned()];
        t.priority = i32::from(key == "alpha-1") + i32::from(key == "beta-1");
        tasks.push(t);
    }
    tasks[4].task = "Rename the PARSER module".into();
    add(store, &tasks).await;
    // alpha-1 runs, beta-1 fails and waits for its retry, alpha-2 is paused.
    let running = claim(store, LONG).await.expect("a claim");
    let failing = claim(store, LONG).await.expect("a claim");
    assert_eq!(
        (
            running.task.spec.key.as_str(),
            failing.task.spec.key.as_str()
        ),
        ("alpha-1", "beta-1")
    );
    let failed = AttemptEnd {
        reason: "TS2322 in Widget.ts".into(),
        ..scheduled(Duration::from_secs(600))
    };
    assert!(store.finish(&failing, &failed).await.expect("finish"));
    let paused = store
        .control(&Selector::Task("alpha-2".into()), Control::Pause, None)
        .await
        .expect("pause");
    assert_eq!(paused, 1);

    // Counts add up: the paused task is neither pending nor retry scheduled.
    let (all, total) = listed(store, ListQuery::default()).await;
    assert_eq!(total, 5);
    assert_eq!(all[0], "alpha-2", "the last changed comes first: {all:?}");
    let mut sum = 0;
    for state in [
        Listed::State(TaskState::Pending),
        Listed::State(TaskState::Running),
        Listed::State(TaskState::RetryScheduled),
        Listed::Paused,
    ] {
        sum += listed(store, standing(state)).await.1;
    }
    assert_eq!(sum, 5);
    assert_eq!(
        listed(store, standing(Listed::State(TaskState::Pending))).await,
        (vec!["loose".to_owned(), "beta-2".to_owned()], 2)
    );
    assert_eq!(
        listed(store, standing(Listed::Paused)).await,
        (vec!["alpha-2".to_owned()], 1)
    );
    let page = store
        .list(&ListQuery {
            limit: 10,
            ..standing(Listed::State(TaskState::Running))
        })
        .await
        .expect("list");
    assert_eq!(page.tasks.len(), 1);
    let row = &page.tasks[0];
    assert_eq!(row.worker.as_deref(), Some("host-a-worker-1"));
    assert_eq!(row.claimed_at, Some(running.task.updated_at));

    // Filters by campaign and provider, and a search over key, text and reason.
    let campaign = ListQuery {
        campaign: Some("alpha".into()),
        ..ListQuery::default()
    };
    assert_eq!(listed(store, campaign).await.1, 2);
    let provider = ListQuery {
        provider: Some("codex".into()),
        campaign: Some("beta".into()),
        ..ListQuery::default()
    };
    assert_eq!(
        listed(store, provider).await,
        (vec!["beta-2".to_owned()], 1)
    );
    for (needle, expected) in [("BETA", 2), ("parser", 1), ("widget.TS", 1), ("%", 0)] {
        let search = ListQuery {
            search: Some(needle.into()),
            ..ListQuery::default()
        };
        assert_eq!(listed(store, search).await.1, expected, "search {needle}");
    }

    // Pages follow one order, and the total counts every page.
    let mut seen = Vec::new();
    for offset in [0, 2, 4] {
        let (keys, total) = listed(
            store,
            ListQuery {
                offset,
                limit: 2,
                ..ListQuery::default()
            },
        )
        .await;
        assert_eq!(total, 5);
        seen.extend(keys);
    }
    assert_eq!(seen, all);
}

pub(crate) async fn history_facets_and_gauges_say_what_happened(db: Db) {
    let store = &db.store;
    let mut a = task("a");
    a.campaign = Some("zeta".into());
    let mut b = task("b");
    b.campaign = Some("alpha".into());
    b.agents = vec!["codex exec".into()];
    let ids = add(store, &[a, b, task("c"), task("d")]).await;
    let facets = store.facets().await.expect("facets");
    assert_eq!(facets.campaigns, ["alpha", "zeta"]);
    assert_eq!(facets.providers, ["claude", "codex"]);

    let gauges = store.gauges().await.expect("gauges");
    assert_eq!(
        (gauges.pending, gauges.retry_scheduled, gauges.paused),
        (4, 0, 0)
    );
    assert!(gauges.oldest_due_ms.is_some_and(|ms| ms >= 0), "{gauges:?}");
    assert!(gauges.outcomes.is_empty());

    // a: paused from the dashboard; b: fails and waits; c: its worker dies and it is rescued.
    let noted = store
        .control(
            &Selector::Task("a".into()),
            Control::Pause,
            Some("dashboard"),
        )
        .await
        .expect("pause");
    assert_eq!(noted, 1);
    let b_claim = claim(store, LONG).await.expect("b");
    assert!(
        store
            .finish(&b_claim, &scheduled(Duration::from_secs(600)))
            .await
            .expect("finish")
    );
    let c_claim = claim(store, LONG).await.expect("c");
    lapse(store, &[&c_claim]).await;
    assert_eq!(store.rescue().await.expect("rescue").len(), 1);
    let d_claim = claim(store, LONG).await.expect("c or d");
    assert!(
        store
            .finish(&d_claim, &end(TaskState::Passed, true))
            .await
            .expect("finish")
    );

    let history = store.history(ids[0]).await.expect("history");
    let actions: Vec<(&str, Option<&str>)> = history
        .iter()
        .map(|h| (h.action.as_str(), h.detail.as_deref()))
        .collect();
    assert_eq!(actions, [("added", None), ("paused", Some("dashboard"))]);
    assert!(history[1].at >= history[0].at);
    assert!(
        store
            .history(ids[2])
            .await
            .expect("history")
            .iter()
            .any(|h| h.action == "rescued")
    );

    let gauges = store.gauges().await.expect("gauges");
    // One of c and d passed; the other waits, due since it was handed back.
    assert_eq!(
        (gauges.pending, gauges.retry_scheduled, gauges.paused),
        (1, 1, 1)
    );
    assert_eq!(gauges.interrupted, 1);
    let outcomes: Vec<(&str, u64)> = gauges
        .outcomes
        .iter()
        .map(|(o, n)| (o.as_str(), *n))
        .collect();
    assert_eq!(
        outcomes,
        [("interrupted", 1), ("passed", 1), ("retry_scheduled", 1)]
    );
    let due = gauges.oldest_due_ms.expect("one is due");
    assert!((0..60_000).contains(&due), "{due}");
}

pub(crate) async fn the_watermark_moves_with_each_transition_and_only_then(db: Db) {
    let store = &db.store;
    let other = db.another().await;
    let mark = || async { store.watermark().await.expect("watermark") };
    let start = mark().await;
    assert_eq!(mark().await, start, "nothing changed");
    assert!(claim(store, LONG).await.is_none());
    assert_eq!(
        mark().await,
        start,
        "a claim that found nothing changes nothing"
    );
    add(&other, &[task("a")]).await;
    let added = mark().await;
    assert_ne!(added, start, "an add through another handle");
    let claimed = claim(store, LONG).await.expect("a");
    let running = mark().await;
    assert_ne!(running, added);
    assert!(
        store.heartbeat(&claimed, LONG).await.expect("heartbeat") != LeaseState::Lost,
        "renewed"
    );
    assert_eq!(mark().await, running, "a heartbeat shows nothing new");
    other
        .hold("claude", Duration::from_secs(60))
        .await
        .expect("hold");
    let held = mark().await;
    assert_ne!(held, running);
    assert!(
        store
            .finish(&claimed, &end(TaskState::Escalated, true))
            .await
            .expect("finish")
    );
    let finished = mark().await;
    assert_ne!(finished, held);
    assert!(store.retry("a", "look at b.rs").await.expect("retry"));
    let retried = mark().await;
    assert_ne!(retried, finished);
    assert_eq!(
        store
            .control(&Selector::Task("a".into()), Control::Resume, None)
            .await
            .expect("resume"),
        0
    );
    assert_eq!(mark().await, retried, "a resume that changed nothing");
}
