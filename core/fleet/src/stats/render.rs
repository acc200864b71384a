//! The fleet's figures for people: a few aligned tables, as `verdict stats` prints a loop's.

use verdict_core::render::table::{Align, clip, duration, plural, table, trim_float};

use super::{FleetStats, Group};
use crate::task::TaskState;

/// The figures for people: a few aligned tables, as `verdict stats` prints a loop's.
pub fn render(stats: &FleetStats) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(text.trim_end());
        out.push('\n');
    };
    summary(&mut line, stats);

    line(String::new());
    line(attempts_to_success(stats));

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
        group_table(&mut line, title, groups);
    }

    line(String::new());
    if stats.common_failures.is_empty() {
        line("common failures: none".to_owned());
    } else {
        common_failures(&mut line, stats);
    }

    line(String::new());
    line(retry_delays(stats));

    line(String::new());
    time_spent(&mut line, stats);

    line(String::new());
    for text in usage(stats) {
        line(text);
    }
    out
}

/// The first table, without a header: tasks, finished and not, success rate, attempts.
fn summary(line: &mut impl FnMut(String), stats: &FleetStats) {
    let mut rows = vec![
        vec!["tasks".to_owned(), stats.tasks.to_string(), String::new()],
        vec![
            "finished".to_owned(),
            stats.finished.to_string(),
            states(stats, TaskState::is_final),
        ],
    ];
    if stats.tasks > stats.finished {
        rows.push(vec![
            "not finished".to_owned(),
            (stats.tasks - stats.finished).to_string(),
            states(stats, |s| !s.is_final()),
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
    rows.push(vec![
        "attempts".to_owned(),
        stats.attempts.to_string(),
        not_counted(stats),
    ]);
    let align = [Align::Left, Align::Right, Align::Left];
    for row in table(&[("", align[0]), ("", align[1]), ("", align[2])], &rows)
        .lines()
        .skip(1)
    {
        line(row.to_owned());
    }
}

/// `(passed 3, failed 1)`: the states `wanted` picks that some task is in, or nothing.
fn states(stats: &FleetStats, wanted: fn(TaskState) -> bool) -> String {
    let parts: Vec<String> = stats
        .by_state
        .iter()
        .filter(|(s, n)| wanted(*s) && *n > 0)
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// `(and 2 interrupted, 1 rate-limited or provider errors, not counted)`, or nothing.
fn not_counted(stats: &FleetStats) -> String {
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
    if not_counted.is_empty() {
        String::new()
    } else {
        format!("(and {}, not counted)", not_counted.join(", "))
    }
}

/// The line on how many attempts the passed tasks needed.
fn attempts_to_success(stats: &FleetStats) -> String {
    match &stats.attempts_to_success {
        Some(a) => format!(
            "attempts to success: mean {:.2}, median {}, max {} (over {})",
            a.mean,
            trim_float(a.median),
            a.max,
            plural(a.tasks, "passed task")
        ),
        None => "attempts to success: no task passed".to_owned(),
    }
}

/// The table of the failure categories, agents or campaigns, `title` naming which.
fn group_table(line: &mut impl FnMut(String), title: &str, groups: &[Group]) {
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
        line,
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

/// The table of the common failures and the attempts that fixed them.
fn common_failures(line: &mut impl FnMut(String), stats: &FleetStats) {
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
        line,
        &[
            ("common failures", Align::Left),
            ("seen", Align::Right),
            ("tasks", Align::Right),
            ("fixed by attempt", Align::Left),
        ],
        &rows,
    );
}

/// The line on the retry delays scheduled.
fn retry_delays(stats: &FleetStats) -> String {
    match &stats.retry_delays {
        Some(d) => format!(
            "retry delays: {} scheduled, mean {}, max {}",
            d.count,
            duration(d.mean_ms.round() as u64),
            duration(d.max_ms)
        ),
        None => "retry delays: none scheduled".to_owned(),
    }
}

/// The table of time in agent sessions and in verification.
fn time_spent(line: &mut impl FnMut(String), stats: &FleetStats) {
    let share = |ms: u64| {
        let total = stats.time.agent_ms + stats.time.verify_ms;
        percent((total > 0).then(|| ms as f64 / total as f64))
    };
    out_table(
        line,
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
}

/// The lines on tokens and cost, and how many attempts reported them.
fn usage(stats: &FleetStats) -> [String; 2] {
    let u = &stats.usage;
    let reported =
        |what: String, n: u64| format!("{what} (reported by {n} of {} attempts)", u.ended_attempts);
    [
        match u.tokens {
            Some(tokens) => reported(format!("tokens: {tokens}"), u.tokens_attempts),
            None => "tokens: none reported".to_owned(),
        },
        match u.cost_usd {
            Some(cost) => reported(format!("cost: {}", dollars(cost)), u.cost_attempts),
            None => "cost: none reported".to_owned(),
        },
    ]
}

/// Hands each line of the table of `rows` under `columns` to `line`.
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
