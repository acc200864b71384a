//! Fleet analytics: figures over a fleet's tasks and attempts, computed here from the records
//! either backend returns ([`crate::Store::tasks`], [`crate::Store::attempts`]), so SQLite and
//! PostgreSQL give the same figures from one implementation. [`compute`] is a pure function of
//! the records; [`render`] is a pure function of its figures (`--format json` serializes
//! [`FleetStats`] as it is).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::store::AttemptRecord;
use crate::task::{TaskId, TaskRecord, TaskState};
use verdict_core::render::table::{Align, table};

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
    fn usage(&mut self, attempt: &AttemptRecord) {
        if let Some(tokens) = attempt.tokens {
            *self.tokens.get_or_insert(0) += tokens;
        }
        if let Some(cost) = attempt.cost_usd {
            *self.cost.get_or_insert(0.0) += cost;
        }
    }

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
    let by_id: HashMap<TaskId, &TaskRecord> = tasks.iter().map(|t| (t.id, t)).collect();
    let passed_task = |id: TaskId| by_id.get(&id).is_some_and(|t| t.state == TaskState::Passed);

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

    // Each task's attempts in claim order, with the counted ones numbered as `max_attempts`
    // counts them.
    let mut per_task: BTreeMap<TaskId, Vec<(&AttemptRecord, Option<u32>)>> = BTreeMap::new();
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

    let mut categories: BTreeMap<String, Tally> = BTreeMap::new();
    let mut agents: BTreeMap<String, Tally> = BTreeMap::new();
    let mut campaigns: BTreeMap<String, Tally> = BTreeMap::new();
    let mut to_success = Vec::new();
    let mut delays = Vec::new();
    // Per fingerprint: occurrences, and per task the attempt (ordinal) that fixed it, if any.
    let mut failures: BTreeMap<&str, (u64, BTreeMap<TaskId, Option<u32>>)> = BTreeMap::new();

    for task in tasks {
        if let Some(campaign) = &task.spec.campaign {
            let tally = campaigns.entry(campaign.clone()).or_default();
            tally.tasks.insert(task.id);
            if task.state == TaskState::Passed {
                tally.passed.insert(task.id);
            }
        }
    }

    for (&task, list) in &per_task {
        let passing = list
            .iter()
            .find(|(a, _)| a.outcome.as_deref() == Some(PASSED))
            .and_then(|(a, ordinal)| ordinal.map(|o| (a.number, o)));
        if passed_task(task) {
            let needed = passing.map_or_else(
                || by_id.get(&task).map_or(0, |t| u64::from(t.attempts)),
                |(_, ordinal)| u64::from(ordinal),
            );
            to_success.push(needed);
        }
        for (attempt, _) in list {
            // The task's campaign; the one joined into the attempt when the task is gone.
            let campaign = match by_id.get(&task) {
                Some(t) => t.spec.campaign.clone(),
                None => attempt.campaign.clone(),
            };
            let ended = attempt.finished_at.is_some() || attempt.outcome.is_some();
            match attempt.outcome.as_deref() {
                Some(INTERRUPTED) => stats.interrupted += 1,
                Some(_) if !attempt.counted => stats.uncounted += 1,
                _ if attempt.counted => stats.attempts += 1,
                _ => {}
            }
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
            if let Some(delay) = attempt.retry_delay_ms {
                delays.push(delay);
            }
            if let Some(agent) = &attempt.agent {
                let tally = agents.entry(agent.clone()).or_default();
                tally.tasks.insert(task);
                tally.attempts += u64::from(attempt.counted);
                tally.usage(attempt);
                if passed_task(task) && attempt.outcome.as_deref() == Some(PASSED) {
                    tally.passed.insert(task);
                }
            }
            if let Some(campaign) = &campaign {
                let tally = campaigns.entry(campaign.clone()).or_default();
                tally.attempts += u64::from(attempt.counted);
                tally.usage(attempt);
            }
            let failed = attempt.outcome.as_deref().is_some_and(|o| o != PASSED);
            if let Some(category) = attempt.category.as_ref().filter(|_| failed) {
                let tally = categories.entry(category.clone()).or_default();
                tally.attempts += 1;
                tally.tasks.insert(task);
                tally.usage(attempt);
                if passed_task(task) {
                    tally.passed.insert(task);
                }
            }
            if failed {
                for fingerprint in &attempt.fingerprints {
                    let (seen, fixed) = failures.entry(fingerprint).or_default();
                    *seen += 1;
                    // The first attempt that saw it decides which passing attempt fixed it.
                    fixed.entry(task).or_insert_with(|| {
                        passing
                            .filter(|(number, _)| *number > attempt.number)
                            .map(|(_, ordinal)| ordinal)
                    });
                }
            }
        }
    }

    // A passed task whose attempts are not among these: its own count.
    to_success.extend(
        tasks
            .iter()
            .filter(|t| t.state == TaskState::Passed && !per_task.contains_key(&t.id))
            .map(|t| u64::from(t.attempts)),
    );

    stats.by_category = groups(categories, &by_id);
    stats.by_category.sort_by(|a, b| {
        b.attempts
            .cmp(&a.attempts)
            .then_with(|| a.name.cmp(&b.name))
    });
    stats.by_agent = groups(agents, &by_id);
    stats
        .by_agent
        .sort_by(|a, b| b.tasks.cmp(&a.tasks).then_with(|| a.name.cmp(&b.name)));
    stats.by_campaign = groups(campaigns, &by_id);

    to_success.sort_unstable();
    stats.attempts_to_success = (!to_success.is_empty()).then(|| {
        let n = to_success.len();
        AttemptsToSuccess {
            tasks: n as u64,
            mean: to_success.iter().sum::<u64>() as f64 / n as f64,
            median: if n % 2 == 1 {
                to_success[n / 2] as f64
            } else {
                (to_success[n / 2 - 1] + to_success[n / 2]) as f64 / 2.0
            },
            max: to_success[n - 1],
        }
    });

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
    stats.common_failures = common;

    stats.retry_delays = (!delays.is_empty()).then(|| Delays {
        count: delays.len() as u64,
        mean_ms: delays.iter().sum::<u64>() as f64 / delays.len() as f64,
        max_ms: delays.iter().copied().max().unwrap_or(0),
    });
    let total = stats.time.agent_ms + stats.time.verify_ms;
    stats.time.agent_share = (total > 0).then(|| stats.time.agent_ms as f64 / total as f64);
    stats
}

fn groups(tallies: BTreeMap<String, Tally>, tasks: &HashMap<TaskId, &TaskRecord>) -> Vec<Group> {
    tallies
        .into_iter()
        .map(|(name, tally)| tally.group(name, tasks))
        .collect()
}

/// The figures for people: a few aligned tables, as `verdict stats` prints a loop's.
pub fn render(stats: &FleetStats) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(text.trim_end());
        out.push('\n');
    };
    let count_of = |wanted: fn(TaskState) -> bool| {
        stats
            .by_state
            .iter()
            .filter(|(s, n)| wanted(*s) && *n > 0)
            .map(|(s, n)| format!("{s} {n}"))
            .collect::<Vec<_>>()
    };
    let in_parens = |parts: Vec<String>| {
        if parts.is_empty() {
            String::new()
        } else {
            format!("({})", parts.join(", "))
        }
    };
    let mut rows = vec![
        vec!["tasks".to_owned(), stats.tasks.to_string(), String::new()],
        vec![
            "finished".to_owned(),
            stats.finished.to_string(),
            in_parens(count_of(TaskState::is_final)),
        ],
    ];
    if stats.tasks > stats.finished {
        rows.push(vec![
            "not finished".to_owned(),
            (stats.tasks - stats.finished).to_string(),
            in_parens(count_of(|s| !s.is_final())),
        ]);
    }
    let passed = stats
        .by_state
        .iter()
        .find(|(s, _)| *s == TaskState::Passed)
        .map_or(0, |(_, n)| *n);
    rows.push(vec![
        "success rate".to_owned(),
        percent(stats.success_rate),
        if stats.finished > 0 {
            format!("({passed} of {} finished tasks passed)", stats.finished)
        } else {
            String::new()
        },
    ]);
    let mut not_counted = Vec::new();
    if stats.interrupted > 0 {
        not_counted.push(format!("{} interrupted", stats.interrupted));
    }
    if stats.uncounted > 0 {
        not_counted.push(format!(
            "{} rate-limited or provider errors",
            stats.uncounted
        ));
    }
    rows.push(vec![
        "attempts".to_owned(),
        stats.attempts.to_string(),
        if not_counted.is_empty() {
            String::new()
        } else {
            format!("(and {}, not counted)", not_counted.join(", "))
        },
    ]);
    let align = [Align::Left, Align::Right, Align::Left];
    for row in table(&[("", align[0]), ("", align[1]), ("", align[2])], &rows)
        .lines()
        .skip(1)
    {
        line(row.to_owned());
    }

    line(String::new());
    match &stats.attempts_to_success {
        Some(a) => line(format!(
            "attempts to success: mean {:.2}, median {}, max {} (over {})",
            a.mean,
            trim_float(a.median),
            a.max,
            plural(a.tasks, "passed task")
        )),
        None => line("attempts to success: no task passed".to_owned()),
    }

    for (title, groups, empty) in [
        (
            "failure category",
            &stats.by_category,
            "failure categories: no failed attempt",
        ),
        ("agent", &stats.by_agent, "agents: no attempt recorded"),
        ("campaign", &stats.by_campaign, "campaigns: none"),
    ] {
        line(String::new());
        if groups.is_empty() {
            line(empty.to_owned());
            continue;
        }
        let attempts = if title == "failure category" {
            "failures"
        } else {
            "attempts"
        };
        let rows: Vec<Vec<String>> = groups
            .iter()
            .map(|g| {
                vec![
                    clip(&g.name, 48),
                    g.attempts.to_string(),
                    g.tasks.to_string(),
                    g.finished.to_string(),
                    g.passed.to_string(),
                    percent(g.success_rate),
                    g.tokens.map_or_else(|| "-".to_owned(), |t| t.to_string()),
                    g.cost_usd.map_or_else(|| "-".to_owned(), dollars),
                ]
            })
            .collect();
        out_table(
            &mut line,
            &[
                (title, Align::Left),
                (attempts, Align::Right),
                ("tasks", Align::Right),
                ("finished", Align::Right),
                ("passed", Align::Right),
                ("success rate", Align::Right),
                ("tokens", Align::Right),
                ("cost", Align::Right),
            ],
            &rows,
        );
    }

    line(String::new());
    if stats.common_failures.is_empty() {
        line("common failures: none".to_owned());
    } else {
        let rows: Vec<Vec<String>> = stats
            .common_failures
            .iter()
            .map(|f| {
                let mut fixed: Vec<String> = f
                    .fixed_by
                    .iter()
                    .map(|(number, tasks)| format!("#{number} ×{tasks}"))
                    .collect();
                if f.unfixed > 0 {
                    fixed.push(format!("not yet ×{}", f.unfixed));
                }
                vec![
                    clip(&f.fingerprint, 48),
                    f.occurrences.to_string(),
                    f.tasks.to_string(),
                    fixed.join(", "),
                ]
            })
            .collect();
        out_table(
            &mut line,
            &[
                ("common failures", Align::Left),
                ("seen", Align::Right),
                ("tasks", Align::Right),
                ("fixed by attempt", Align::Left),
            ],
            &rows,
        );
    }

    line(String::new());
    match &stats.retry_delays {
        Some(d) => line(format!(
            "retry delays: {} scheduled, mean {}, max {}",
            d.count,
            duration(d.mean_ms.round() as u64),
            duration(d.max_ms)
        )),
        None => line("retry delays: none scheduled".to_owned()),
    }

    line(String::new());
    let share = |ms: u64| {
        let total = stats.time.agent_ms + stats.time.verify_ms;
        percent((total > 0).then(|| ms as f64 / total as f64))
    };
    out_table(
        &mut line,
        &[
            ("time spent", Align::Left),
            ("total", Align::Right),
            ("share", Align::Right),
        ],
        &[
            vec![
                "agent sessions".to_owned(),
                duration(stats.time.agent_ms),
                share(stats.time.agent_ms),
            ],
            vec![
                "verification".to_owned(),
                duration(stats.time.verify_ms),
                share(stats.time.verify_ms),
            ],
        ],
    );

    line(String::new());
    let u = &stats.usage;
    let reported =
        |what: String, n: u64| format!("{what} (reported by {n} of {} attempts)", u.ended_attempts);
    line(match u.tokens {
        Some(tokens) => reported(format!("tokens: {tokens}"), u.tokens_attempts),
        None => "tokens: none reported".to_owned(),
    });
    line(match u.cost_usd {
        Some(cost) => reported(format!("cost: {}", dollars(cost)), u.cost_attempts),
        None => "cost: none reported".to_owned(),
    });
    out
}

fn out_table(line: &mut impl FnMut(String), columns: &[(&str, Align)], rows: &[Vec<String>]) {
    for row in table(columns, rows).lines() {
        line(row.to_owned());
    }
}

/// `50.0%`, or `-` without a rate.
fn percent(rate: Option<f64>) -> String {
    rate.map_or_else(|| "-".to_owned(), |r| format!("{:.1}%", r * 100.0))
}

/// `$1.23`.
fn dollars(cost: f64) -> String {
    format!("${cost:.2}")
}

/// `1` or `1.5`: a median is a whole number or a half.
fn trim_float(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The first `width` characters of `text`, with `…` when cut.
fn clip(text: &str, width: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let mut clipped: String = text.chars().take(width.saturating_sub(1)).collect();
    clipped.push('…');
    clipped
}

/// A span of milliseconds for people: `850ms`, `12.3s`, `4m 05s`, `2h 03m`.
fn duration(ms: u64) -> String {
    if ms < 1_000 {
        return format!("{ms}ms");
    }
    if ms < 60_000 {
        return format!("{:.1}s", ms as f64 / 1_000.0);
    }
    let seconds = ms / 1_000;
    if seconds < 3_600 {
        return format!("{}m {:02}s", seconds / 60, seconds % 60);
    }
    format!("{}h {:02}m", seconds / 3_600, seconds % 3_600 / 60)
}

#[cfg(test)]
mod tests;
