//! The fleet's figures from constructed tasks and attempts: each group, the fixing attempt,
//! delays, time and usage, and the rendered tables as a person reads them.

use super::*;
use crate::task::NewTask;

fn task(id: TaskId, state: TaskState, campaign: Option<&str>, attempts: u32) -> TaskRecord {
    TaskRecord {
        id,
        spec: NewTask {
            key: format!("k{id}"),
            workspace: "repo".into(),
            rev: None,
            setup: None,
            task: "fix it".into(),
            agents: vec!["claude -p".into()],
            max_attempts: None,
            only: Vec::new(),
            campaign: campaign.map(str::to_owned),
            priority: 0,
            deadline_secs: None,
            cost_cap_usd: None,
        },
        state,
        paused: false,
        cancel_requested: false,
        attempts,
        next_retry_at: None,
        workdir: None,
        branch: None,
        guidance: None,
        reason: None,
        last_category: None,
        cost_usd: 0.0,
        deadline_at: None,
        host: None,
        created_at: 0,
        updated_at: 0,
        finished_at: None,
    }
}

/// An ended attempt: `outcome`, whether it counted, its agent, category and fingerprints.
fn attempt(
    task: TaskId,
    number: u32,
    outcome: &str,
    counted: bool,
    agent: &str,
    category: Option<&str>,
    fingerprints: &[&str],
) -> AttemptRecord {
    AttemptRecord {
        task,
        number,
        worker: "w1".into(),
        host: "h".into(),
        claimed_at: 0,
        finished_at: Some(1),
        outcome: Some(outcome.into()),
        counted,
        reason: None,
        category: category.map(str::to_owned),
        fingerprints: fingerprints.iter().map(|f| (*f).to_owned()).collect(),
        agent: Some(agent.into()),
        agent_ms: 0,
        verify_ms: 0,
        tokens: None,
        cost_usd: None,
        retry_delay_ms: None,
        digest: None,
        campaign: None,
    }
}

const TSC: &str = "tsc:TS2322:src/a.ts";
const JEST: &str = "jest:math adds";

/// Four tasks:
/// 1. campaign m, claude: fails (type error, retried after 30 s), is interrupted, passes;
/// 2. campaign m, codex: fails twice (type error, then a test), escalated;
/// 3. no campaign, claude: rate limited (not counted, held 60 s), passes at once;
/// 4. campaign n: pending, never run.
fn fleet() -> (Vec<TaskRecord>, Vec<AttemptRecord>) {
    let tasks = vec![
        task(1, TaskState::Passed, Some("m"), 2),
        task(2, TaskState::Escalated, Some("m"), 2),
        task(3, TaskState::Passed, None, 1),
        task(4, TaskState::Pending, Some("n"), 0),
    ];
    let mut attempts = vec![
        attempt(1, 1, "failed", true, "claude", Some("type_error"), &[TSC]),
        attempt(1, 2, "interrupted", false, "claude", None, &[]),
        attempt(1, 3, "passed", true, "claude", None, &[]),
        attempt(2, 1, "failed", true, "codex", Some("type_error"), &[TSC]),
        attempt(
            2,
            2,
            "escalated",
            true,
            "codex",
            Some("test_failure"),
            &[JEST],
        ),
        attempt(3, 1, "rate_limited", false, "claude", None, &[]),
        attempt(3, 2, "passed", true, "claude", None, &[]),
    ];
    attempts[0].retry_delay_ms = Some(30_000);
    attempts[5].retry_delay_ms = Some(60_000);
    for a in &mut attempts {
        a.agent_ms = 3_000;
        a.verify_ms = 1_000;
    }
    attempts[2].tokens = Some(2_000);
    attempts[2].cost_usd = Some(0.25);
    attempts[6].tokens = Some(1_000);
    attempts[6].cost_usd = Some(0.5);
    // The store lists attempts by task and number; the figures must not depend on it.
    attempts.reverse();
    (tasks, attempts)
}

#[test]
fn tasks_attempts_and_the_success_rate() {
    let (tasks, attempts) = fleet();
    let stats = compute(&tasks, &attempts);
    assert_eq!(stats.tasks, 4);
    assert_eq!(stats.finished, 3);
    assert_eq!(stats.success_rate, Some(2.0 / 3.0));
    assert_eq!(
        (stats.attempts, stats.interrupted, stats.uncounted),
        (5, 1, 1)
    );
    assert_eq!(
        stats.attempts_to_success,
        Some(AttemptsToSuccess {
            tasks: 2,
            mean: 1.5,
            median: 1.5,
            max: 2
        })
    );
}

#[test]
fn success_rate_by_category_agent_and_campaign() {
    let (tasks, attempts) = fleet();
    let stats = compute(&tasks, &attempts);
    let row = |g: &Group| (g.name.clone(), g.attempts, g.tasks, g.finished, g.passed);
    let rows = |groups: &[Group]| groups.iter().map(row).collect::<Vec<_>>();
    assert_eq!(
        rows(&stats.by_category),
        [
            ("type_error".to_owned(), 2, 2, 2, 1),
            ("test_failure".to_owned(), 1, 1, 1, 0)
        ]
    );
    assert_eq!(stats.by_category[0].success_rate, Some(0.5));
    assert_eq!(
        rows(&stats.by_agent),
        [
            ("claude".to_owned(), 3, 2, 2, 2),
            ("codex".to_owned(), 2, 1, 1, 0)
        ]
    );
    assert_eq!(stats.by_agent[0].tokens, Some(3_000));
    assert_eq!(stats.by_agent[1].tokens, None);
    assert_eq!(
        rows(&stats.by_campaign),
        [("m".to_owned(), 4, 2, 2, 1), ("n".to_owned(), 0, 1, 0, 0)]
    );
    assert_eq!(stats.by_campaign[1].success_rate, None, "nothing finished");
}

#[test]
fn common_failures_say_which_attempt_fixed_them() {
    let (tasks, attempts) = fleet();
    let stats = compute(&tasks, &attempts);
    assert_eq!(
        stats.common_failures,
        [
            FailureStats {
                fingerprint: TSC.into(),
                occurrences: 2,
                tasks: 2,
                // Task 1's third claim passed, its second counted attempt.
                fixed_by: vec![(2, 1)],
                unfixed: 1,
            },
            FailureStats {
                fingerprint: JEST.into(),
                occurrences: 1,
                tasks: 1,
                fixed_by: Vec::new(),
                unfixed: 1,
            },
        ]
    );
}

#[test]
fn delays_time_and_usage() {
    let (tasks, attempts) = fleet();
    let stats = compute(&tasks, &attempts);
    assert_eq!(
        stats.retry_delays,
        Some(Delays {
            count: 2,
            mean_ms: 45_000.0,
            max_ms: 60_000
        })
    );
    assert_eq!(
        stats.time,
        Time {
            agent_ms: 21_000,
            verify_ms: 7_000,
            agent_share: Some(0.75)
        }
    );
    assert_eq!(
        stats.usage,
        Usage {
            tokens: Some(3_000),
            tokens_attempts: 2,
            cost_usd: Some(0.75),
            cost_attempts: 2,
            ended_attempts: 7,
        }
    );
}

#[test]
fn a_running_attempt_counts_no_time_and_no_outcome() {
    let tasks = vec![task(1, TaskState::Running, None, 0)];
    let mut running = attempt(1, 1, "x", true, "claude", None, &[]);
    running.outcome = None;
    running.finished_at = None;
    running.agent_ms = 5;
    let stats = compute(&tasks, &[running]);
    assert_eq!(stats.time.agent_ms, 0);
    assert_eq!(stats.usage.ended_attempts, 0);
    assert_eq!(stats.success_rate, None);
    assert_eq!(stats.attempts_to_success, None);
}

#[test]
fn the_figures_render_as_aligned_tables() {
    let (tasks, attempts) = fleet();
    let text = render(&compute(&tasks, &attempts));
    let expected = "\
tasks             4
finished          3  (passed 2, escalated 1)
not finished      1  (pending 1)
success rate  66.7%  (2 of 3 finished tasks passed)
attempts          5  (and 1 interrupted, 1 rate-limited or provider errors, not counted)

attempts to success: mean 1.50, median 1.5, max 2 (over 2 passed tasks)

failure category  failures  tasks  finished  passed  success rate  tokens  cost
type_error               2      2         2       1         50.0%       -     -
test_failure             1      1         1       0          0.0%       -     -

agent   attempts  tasks  finished  passed  success rate  tokens   cost
claude         3      2         2       2        100.0%    3000  $0.75
codex          2      1         1       0          0.0%       -      -

campaign  attempts  tasks  finished  passed  success rate  tokens   cost
m                4      2         2       1         50.0%    2000  $0.25
n                0      1         0       0             -       -      -

common failures      seen  tasks  fixed by attempt
tsc:TS2322:src/a.ts     2      2  #2 ×1, not yet ×1
jest:math adds          1      1  not yet ×1

retry delays: 2 scheduled, mean 45.0s, max 1m 00s

time spent      total  share
agent sessions  21.0s  75.0%
verification     7.0s  25.0%

tokens: 3000 (reported by 2 of 7 attempts)
cost: $0.75 (reported by 2 of 7 attempts)
";
    assert_eq!(text, expected, "{text}");
}

#[test]
fn an_empty_fleet_renders_without_figures() {
    let text = render(&compute(&[], &[]));
    let expected = "\
tasks         0
finished      0
success rate  -
attempts      0

attempts to success: no task passed

failure categories: no failed attempt

agents: no attempt recorded

campaigns: none

common failures: none

retry delays: none scheduled

time spent      total  share
agent sessions    0ms      -
verification      0ms      -

tokens: none reported
cost: none reported
";
    assert_eq!(text, expected, "{text}");
}

#[test]
fn the_figures_serialize_for_json() {
    let (tasks, attempts) = fleet();
    let value = serde_json::to_value(compute(&tasks, &attempts)).expect("json");
    assert_eq!(value["by_state"][0], serde_json::json!(["pending", 1]));
    assert_eq!(
        value["common_failures"][0]["fixed_by"],
        serde_json::json!([[2, 1]])
    );
    assert_eq!(value["time"]["agent_share"], serde_json::json!(0.75));
}

#[test]
fn attempts_of_a_pruned_task_count_but_never_as_passed() {
    let (mut tasks, mut attempts) = fleet();
    tasks.retain(|t| t.id != 1);
    for a in attempts.iter_mut().filter(|a| a.task == 1) {
        a.campaign = Some("m".into());
    }
    let stats = compute(&tasks, &attempts);
    assert_eq!(stats.attempts, 5, "its attempts still count");
    let m = &stats.by_campaign[0];
    assert_eq!(
        (m.name.as_str(), m.attempts, m.tasks, m.passed),
        ("m", 4, 1, 0)
    );
    assert_eq!(
        stats.by_category[0].passed, 0,
        "task 1 is no longer known to have passed"
    );
    assert_eq!(stats.attempts_to_success.map(|a| a.tasks), Some(1));
}
