//! Fleet analytics: figures over a fleet's tasks and attempts, computed here from the records
//! either backend returns ([`crate::Store::tasks`], [`crate::Store::attempts`]), so SQLite and
//! PostgreSQL give the same figures from one implementation. [`compute`] is a pure function of
//! the records; [`render()`] is a pure function of its figures (`--format json` serializes
//! [`FleetStats`] as it is).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::store::AttemptRecord;
use crate::task::{TaskId, TaskRecord, TaskState};

mod render;

pub use render::render;

/// How many fingerprints [`FleetStats::common_failures`] lists.
pub const COMMON_FAILURES: usize = 10;

/// The outcome a passing attempt records.
const PASSED: &str = "passed";
/// The outcome of an attempt handed back unfinished.
const INTERRUPTED: &str = "interrupted";

/// The figures of a fleet.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FleetStats {
    /// Tasks recorded.
    pub tasks: u64,
    /// Tasks per state (every state, zeros included).
    pub by_state: Vec<(TaskState, u64)>,
    /// Tasks in a final state.
    pub finished: u64,
    /// `passed / finished`, when any task finished.
    pub success_rate: Option<f64>,
    /// Attempts that counted against their task's `max_attempts`.
    pub attempts: u64,
    /// Attempts interrupted (a worker stopped or died), not counted.
    pub interrupted: u64,
    /// Other attempts not counted (rate limits, provider errors).
    pub uncounted: u64,
    /// By the failure category of failed attempts: of the tasks whose attempts saw it, how many
    /// passed. Most failures first.
    pub by_category: Vec<Group>,
    /// By agent: of the tasks it ran attempts of, how many it passed (its attempt was the passing
    /// one). Most tasks first.
    pub by_agent: Vec<Group>,
    /// By campaign: of its tasks, how many passed. By name; tasks of no campaign are left out.
    pub by_campaign: Vec<Group>,
    /// Counted attempts the passed tasks needed, when any passed.
    pub attempts_to_success: Option<AttemptsToSuccess>,
    /// The fingerprints failed attempts carried most often (at most [`COMMON_FAILURES`]), and
    /// which attempt fixed them.
    pub common_failures: Vec<FailureStats>,
    /// The retry delays scheduled after failed attempts, when any was.
    pub retry_delays: Option<Delays>,
    /// Time in agent sessions and in verification, over the attempts that ended.
    pub time: Time,
    /// Tokens and cost, over the attempts whose agent reported them.
    pub usage: Usage,
}

/// The tasks of one category, agent or campaign, and how many passed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Group {
    /// The category, the agent's command, or the campaign.
    pub name: String,
    /// Attempts: for a category, the failed attempts of that category; otherwise the counted
    /// attempts.
    pub attempts: u64,
    /// Distinct tasks.
    pub tasks: u64,
    /// Of them, tasks in a final state.
    pub finished: u64,
    /// Of them, tasks that passed (for an agent: whose passing attempt was the agent's).
    pub passed: u64,
    /// `passed / finished`, when any finished.
    pub success_rate: Option<f64>,
    /// Tokens the group's attempts reported, where they did.
    pub tokens: Option<u64>,
    /// What the group's attempts cost, in US dollars, where they reported it.
    pub cost_usd: Option<f64>,
}

/// How many counted attempts the passed tasks needed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttemptsToSuccess {
    /// Tasks that passed.
    pub tasks: u64,
    /// The mean.
    pub mean: f64,
    /// The median (the mean of the middle two for an even count).
    pub median: f64,
    /// The most.
    pub max: u64,
}

/// A failure fingerprint seen again and again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureStats {
    /// The fingerprint.
    pub fingerprint: String,
    /// Failed attempts that carried it.
    pub occurrences: u64,
    /// In how many tasks.
    pub tasks: u64,
    /// Per attempt number, how many of those tasks it was that fixed it: the first passing
    /// attempt after the first attempt that saw it (numbers count counted attempts, as
    /// `max_attempts` does). By attempt number.
    pub fixed_by: Vec<(u32, u64)>,
    /// Tasks no later attempt passed (yet).
    pub unfixed: u64,
}

/// Retry delays scheduled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delays {
    /// How many.
    pub count: u64,
    /// Their mean, in milliseconds.
    pub mean_ms: f64,
    /// The longest, in milliseconds.
    pub max_ms: u64,
}

/// Time spent, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Time {
    /// In agent sessions.
    pub agent_ms: u64,
    /// In verification.
    pub verify_ms: u64,
    /// The agents' share of both, when any time was spent.
    pub agent_share: Option<f64>,
}

/// Tokens and cost, as the agents reported them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Usage {
    /// Tokens, summed over the attempts that reported them.
    pub tokens: Option<u64>,
    /// Attempts that reported tokens.
    pub tokens_attempts: u64,
    /// Cost in US dollars, summed over the attempts that reported it.
    pub cost_usd: Option<f64>,
    /// Attempts that reported a cost.
    pub cost_attempts: u64,
    /// Attempts that ended (the rest reported neither, or ran an agent that does not).
    pub ended_attempts: u64,
}

/// What one group gathers before it becomes a [`Group`].
#[derive(Default)]
struct Tally {
    attempts: u64,
    tasks: BTreeSet<TaskId>,
    passed: BTreeSet<TaskId>,
    tokens: Option<u64>,
    cost: Option<f64>,
}

impl Tally {
    /// Adds the tokens and cost the attempt reported.
    fn usage(&mut self, attempt: &AttemptRecord) {
        if let Some(tokens) = attempt.tokens {
            *self.tokens.get_or_insert(0) += tokens;
        }
        if let Some(cost) = attempt.cost_usd {
            *self.cost.get_or_insert(0.0) += cost;
        }
    }

    /// The group named `name`, its finished tasks judged by their states in `tasks`.
    fn group(self, name: String, tasks: &HashMap<TaskId, &TaskRecord>) -> Group {
        let state = |id: &TaskId| tasks.get(id).map(|t| t.state);
        let finished = self
            .tasks
            .iter()
            .filter(|id| state(id).is_some_and(TaskState::is_final))
            .count() as u64;
        let passed = self.passed.len() as u64;
        Group {
            name,
            attempts: self.attempts,
            tasks: self.tasks.len() as u64,
            finished,
            passed,
            success_rate: (finished > 0).then(|| passed as f64 / finished as f64),
            tokens: self.tokens,
            cost_usd: self.cost,
        }
    }
}

/// The figures of the fleet whose tasks and attempts these are. Attempts of a task not among
/// `tasks` (pruned since) still count in the attempt figures, never as passed tasks.
pub fn compute(tasks: &[TaskRecord], attempts: &[AttemptRecord]) -> FleetStats {
    let mut stats = task_figures(tasks);
    let per_task = per_task(attempts);
    let mut gathered = Gathered::new(tasks);
    for (&task, list) in &per_task {
        gathered.task(&mut stats, task, list);
    }
    // A passed task whose attempts are not among these: its own count.
    gathered.to_success.extend(
        tasks
            .iter()
            .filter(|t| t.state == TaskState::Passed && !per_task.contains_key(&t.id))
            .map(|t| u64::from(t.attempts)),
    );
    gathered.finish(&mut stats);
    let total = stats.time.agent_ms + stats.time.verify_ms;
    stats.time.agent_share = (total > 0).then(|| stats.time.agent_ms as f64 / total as f64);
    stats
}

/// The figures of the tasks alone: how many, per state, finished, and the success rate.
fn task_figures(tasks: &[TaskRecord]) -> FleetStats {
    let mut stats = FleetStats {
        tasks: tasks.len() as u64,
        ..FleetStats::default()
    };
    stats.by_state = TaskState::ALL
        .into_iter()
        .map(|s| (s, tasks.iter().filter(|t| t.state == s).count() as u64))
        .collect();
    stats.finished = tasks.iter().filter(|t| t.state.is_final()).count() as u64;
    let passed = tasks
        .iter()
        .filter(|t| t.state == TaskState::Passed)
        .count() as u64;
    stats.success_rate = (stats.finished > 0).then(|| passed as f64 / stats.finished as f64);
    stats
}

/// Each task's attempts in claim order, with the counted ones numbered as `max_attempts`
/// counts them.
type PerTask<'a> = BTreeMap<TaskId, Vec<(&'a AttemptRecord, Option<u32>)>>;

/// Groups the attempts by task, in claim order, and numbers the counted ones.
fn per_task(attempts: &[AttemptRecord]) -> PerTask<'_> {
    let mut per_task: PerTask<'_> = BTreeMap::new();
    for attempt in attempts {
        per_task
            .entry(attempt.task)
            .or_default()
            .push((attempt, None));
    }
    for list in per_task.values_mut() {
        list.sort_by_key(|(a, _)| a.number);
        let mut counted = 0;
        for (attempt, ordinal) in list.iter_mut() {
            if attempt.counted {
                counted += 1;
                *ordinal = Some(counted);
            }
        }
    }
    per_task
}

/// What [`compute`] gathers while it walks each task's attempts.
struct Gathered<'a> {
    by_id: HashMap<TaskId, &'a TaskRecord>,
    categories: BTreeMap<String, Tally>,
    agents: BTreeMap<String, Tally>,
    campaigns: BTreeMap<String, Tally>,
    to_success: Vec<u64>,
    delays: Vec<u64>,
    /// Per fingerprint: occurrences, and per task the attempt (ordinal) that fixed it, if any.
    failures: BTreeMap<&'a str, (u64, BTreeMap<TaskId, Option<u32>>)>,
}

impl<'a> Gathered<'a> {
    /// Nothing gathered yet but each campaign's tasks and which of them passed.
    fn new(tasks: &'a [TaskRecord]) -> Gathered<'a> {
        let mut campaigns: BTreeMap<String, Tally> = BTreeMap::new();
        for task in tasks {
            if let Some(campaign) = &task.spec.campaign {
                let tally = campaigns.entry(campaign.clone()).or_default();
                tally.tasks.insert(task.id);
                if task.state == TaskState::Passed {
                    tally.passed.insert(task.id);
                }
            }
        }
        Gathered {
            by_id: tasks.iter().map(|t| (t.id, t)).collect(),
            categories: BTreeMap::new(),
            agents: BTreeMap::new(),
            campaigns,
            to_success: Vec::new(),
            delays: Vec::new(),
            failures: BTreeMap::new(),
        }
    }

    /// Whether `id` is a recorded task that passed.
    fn passed_task(&self, id: TaskId) -> bool {
        self.by_id
            .get(&id)
            .is_some_and(|t| t.state == TaskState::Passed)
    }

    /// Gathers the attempts of one task, in claim order, counting them into `stats`.
    fn task(
        &mut self,
        stats: &mut FleetStats,
        task: TaskId,
        list: &[(&'a AttemptRecord, Option<u32>)],
    ) {
        // The first passing attempt: its number and its ordinal among the counted ones.
        let passing = list
            .iter()
            .find(|(a, _)| a.outcome.as_deref() == Some(PASSED))
            .and_then(|(a, ordinal)| ordinal.map(|o| (a.number, o)));
        if self.passed_task(task) {
            let needed = passing.map_or_else(
                || self.by_id.get(&task).map_or(0, |t| u64::from(t.attempts)),
                |(_, ordinal)| u64::from(ordinal),
            );
            self.to_success.push(needed);
        }
        for &(attempt, _) in list {
            count_attempt(stats, attempt);
            if let Some(delay) = attempt.retry_delay_ms {
                self.delays.push(delay);
            }
            self.tally(task, attempt);
            if is_failed(attempt) {
                self.fingerprints(task, attempt, passing);
            }
        }
    }

    /// Counts one attempt of `task` into its agent's, campaign's and failure category's tallies.
    fn tally(&mut self, task: TaskId, attempt: &AttemptRecord) {
        let passed_task = self.passed_task(task);
        // The task's campaign; the one joined into the attempt when the task is gone.
        let campaign = match self.by_id.get(&task) {
            Some(t) => t.spec.campaign.clone(),
            None => attempt.campaign.clone(),
        };
        if let Some(agent) = &attempt.agent {
            let tally = self.agents.entry(agent.clone()).or_default();
            tally.tasks.insert(task);
            tally.attempts += u64::from(attempt.counted);
            tally.usage(attempt);
            if passed_task && attempt.outcome.as_deref() == Some(PASSED) {
                tally.passed.insert(task);
            }
        }
        if let Some(campaign) = &campaign {
            let tally = self.campaigns.entry(campaign.clone()).or_default();
            tally.attempts += u64::from(attempt.counted);
            tally.usage(attempt);
        }
        if let Some(category) = attempt.category.as_ref().filter(|_| is_failed(attempt)) {
            let tally = self.categories.entry(category.clone()).or_default();
            tally.attempts += 1;
            tally.tasks.insert(task);
            tally.usage(attempt);
            if passed_task {
                tally.passed.insert(task);
            }
        }
    }

    /// Records the fingerprints of a failed attempt of `task`, and the passing attempt (number,
    /// ordinal) that came after, if any.
    fn fingerprints(
        &mut self,
        task: TaskId,
        attempt: &'a AttemptRecord,
        passing: Option<(u32, u32)>,
    ) {
        for fingerprint in &attempt.fingerprints {
            let (seen, fixed) = self.failures.entry(fingerprint).or_default();
            *seen += 1;
            // The first attempt that saw it decides which passing attempt fixed it.
            fixed.entry(task).or_insert_with(|| {
                passing
                    .filter(|(number, _)| *number > attempt.number)
                    .map(|(_, ordinal)| ordinal)
            });
        }
    }

    /// Turns what was gathered into the groups, attempts to success, common failures and retry
    /// delays of `stats`.
    fn finish(mut self, stats: &mut FleetStats) {
        stats.by_category = groups(self.categories, &self.by_id);
        stats.by_category.sort_by(|a, b| {
            b.attempts
                .cmp(&a.attempts)
                .then_with(|| a.name.cmp(&b.name))
        });
        stats.by_agent = groups(self.agents, &self.by_id);
        stats
            .by_agent
            .sort_by(|a, b| b.tasks.cmp(&a.tasks).then_with(|| a.name.cmp(&b.name)));
        stats.by_campaign = groups(self.campaigns, &self.by_id);
        self.to_success.sort_unstable();
        stats.attempts_to_success = attempts_to_success(&self.to_success);
        stats.common_failures = common_failures(self.failures);
        stats.retry_delays = (!self.delays.is_empty()).then(|| Delays {
            count: self.delays.len() as u64,
            mean_ms: self.delays.iter().sum::<u64>() as f64 / self.delays.len() as f64,
            max_ms: self.delays.iter().copied().max().unwrap_or(0),
        });
    }
}

/// Whether the attempt ended other than passing.
fn is_failed(attempt: &AttemptRecord) -> bool {
    attempt.outcome.as_deref().is_some_and(|o| o != PASSED)
}

/// Counts one attempt into the attempt, time and usage figures of `stats`.
fn count_attempt(stats: &mut FleetStats, attempt: &AttemptRecord) {
    match attempt.outcome.as_deref() {
        Some(INTERRUPTED) => stats.interrupted += 1,
        Some(_) if !attempt.counted => stats.uncounted += 1,
        _ if attempt.counted => stats.attempts += 1,
        _ => {}
    }
    let ended = attempt.finished_at.is_some() || attempt.outcome.is_some();
    if ended {
        stats.usage.ended_attempts += 1;
        stats.time.agent_ms += attempt.agent_ms;
        stats.time.verify_ms += attempt.verify_ms;
        if let Some(tokens) = attempt.tokens {
            *stats.usage.tokens.get_or_insert(0) += tokens;
            stats.usage.tokens_attempts += 1;
        }
        if let Some(cost) = attempt.cost_usd {
            *stats.usage.cost_usd.get_or_insert(0.0) += cost;
            stats.usage.cost_attempts += 1;
        }
    }
}

/// The mean, median and most of the counted attempts the passed tasks needed (`sorted`
/// ascending), when any passed.
fn attempts_to_success(sorted: &[u64]) -> Option<AttemptsToSuccess> {
    let n = sorted.len();
    (n > 0).then(|| AttemptsToSuccess {
        tasks: n as u64,
        mean: sorted.iter().sum::<u64>() as f64 / n as f64,
        median: if n % 2 == 1 {
            sorted[n / 2] as f64
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0
        },
        max: sorted[n - 1],
    })
}

/// The fingerprints seen most often (at most [`COMMON_FAILURES`]), each with the attempts that
/// fixed it per task.
fn common_failures(
    failures: BTreeMap<&str, (u64, BTreeMap<TaskId, Option<u32>>)>,
) -> Vec<FailureStats> {
    let mut common: Vec<FailureStats> = failures
        .into_iter()
        .map(|(fingerprint, (occurrences, fixed))| {
            let mut fixed_by: BTreeMap<u32, u64> = BTreeMap::new();
            let mut unfixed = 0;
            for by in fixed.values() {
                match by {
                    Some(ordinal) => *fixed_by.entry(*ordinal).or_default() += 1,
                    None => unfixed += 1,
                }
            }
            FailureStats {
                fingerprint: fingerprint.to_owned(),
                occurrences,
                tasks: fixed.len() as u64,
                fixed_by: fixed_by.into_iter().collect(),
                unfixed,
            }
        })
        .collect();
    common.sort_by(|a, b| {
        b.occurrences
            .cmp(&a.occurrences)
            .then_with(|| b.tasks.cmp(&a.tasks))
            .then_with(|| a.fingerprint.cmp(&b.fingerprint))
    });
    common.truncate(COMMON_FAILURES);
    common
}

/// The tallies as groups, by name.
fn groups(tallies: BTreeMap<String, Tally>, tasks: &HashMap<TaskId, &TaskRecord>) -> Vec<Group> {
    tallies
        .into_iter()
        .map(|(name, tally)| tally.group(name, tasks))
        .collect()
}

#[cfg(test)]
mod tests;
