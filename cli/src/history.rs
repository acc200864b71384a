//! `verdict history [RUN]` and `verdict stats`: what `verdict loop` recorded in the project's state
//! database (`.verdict/state.db`), read back.
//!
//! Both commands only read. The database is opened only when it exists, so that looking at the
//! history of a project where no loop ever ran does not leave an empty database behind: there it
//! says "no loop runs recorded in <path>" and exits 0 (with `--format json`, an empty list or
//! zero figures), since an empty history is an answer, not a failure. A database that cannot be
//! read (damaged, or written by a newer verdict) is an error, exit 2, as is a run id that is not in
//! it.
//!
//! `--format json` prints verdict-core's own structs (`verdict_core::state`): `{ "runs": [...] }`
//! of `RunRecord`s, one `RunHistory`, or the `Stats`. Times there are milliseconds since the Unix
//! epoch; the human output shows them in UTC.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use verdict_core::state::{
    self, AttemptHistory, RunHistory, RunId, RunRecord, RunState, StateDb, Stats,
    VerificationRecord,
};

use crate::exit::ExitCode;
use crate::run::{load_config, usage};
use verdict_core::render::table::{self, Align, clip, plural, table, trim_float};

/// How many failure labels an attempt shows before "and N more".
const MAX_FAILURES_SHOWN: usize = 5;
/// How many of the agent's last output lines an attempt shows.
const TAIL_LINES: usize = 5;
/// How many characters of a task's first line the list of runs shows.
const TASK_WIDTH: usize = 60;

const HISTORY_EXAMPLES: &str = "\
Examples:
  verdict history                  # every loop run, newest first
  verdict history 12               # run 12: its attempts, verifications and transitions
  verdict history 12 --format json

Exit codes:
  0  shown (also when no loop has run here yet)
  2  the state database cannot be read, there is no such run, or the command line is wrong";

const STATS_EXAMPLES: &str = "\
Examples:
  verdict stats
  verdict stats --format json

Exit codes:
  0  shown (also when no loop has run here yet)
  2  the state database cannot be read, or the command line is wrong";

/// Arguments of `verdict history`.
#[derive(clap::Args)]
#[command(after_help = HISTORY_EXAMPLES)]
pub(crate) struct HistoryArgs {
    /// Show this run in full (its id, as the list shows it)
    #[arg(value_name = "RUN", value_parser = clap::value_parser!(i64).range(1..))]
    run: Option<i64>,

    /// Output format
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,

    /// The project [default: the directory of verdict.toml, else the current one]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,

    /// A fleet's database instead (a file or a postgres:// URL): its tasks, or with RUN the
    /// task of that id, as `verdict fleet status` and `verdict fleet history` show them
    #[arg(long, value_name = "FILE|URL", conflicts_with = "dir")]
    state: Option<String>,
}

/// Arguments of `verdict stats`.
#[derive(clap::Args)]
#[command(after_help = STATS_EXAMPLES)]
pub(crate) struct StatsArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    format: FormatArg,

    /// The project [default: the directory of verdict.toml, else the current one]
    #[arg(long, short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,

    /// A fleet's database instead (a file or a postgres:// URL), as `verdict fleet stats`
    #[arg(long, value_name = "FILE|URL", conflicts_with = "dir")]
    state: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FormatArg {
    /// Aligned text, for people
    Human,
    /// verdict-core's records as JSON (times in ms since the Unix epoch)
    Json,
}

/// The state database of the project `dir` names, opened only if it exists: `Err` holds its path
/// when it does not.
fn open(dir: Option<&Path>) -> Result<Result<StateDb, PathBuf>> {
    let (root, _config) = load_config(dir)?;
    let path = verdict_core::paths::state_db(&root);
    if !path.exists() {
        return Ok(Err(path));
    }
    let db = StateDb::open(&path).with_context(|| format!("failed to read {}", path.display()))?;
    Ok(Ok(db))
}

fn no_runs(path: &Path) -> String {
    format!("no loop runs recorded in {}\n", path.display())
}

fn print(text: &str) -> Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

fn print_json(value: &impl Serialize) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).context("failed to write JSON")?;
    text.push('\n');
    print(&text)
}

/// `verdict history [RUN]`.
pub(crate) fn history(args: &HistoryArgs) -> Result<ExitCode> {
    if let Some(state) = &args.state {
        let json = args.format == FormatArg::Json;
        return crate::fleet::history_of(state, args.run, json);
    }
    let db = open(args.dir.as_deref())?;
    match args.run {
        Some(id) => {
            let id = RunId(id);
            let history = match &db {
                Ok(db) => db.history(id).map_err(|error| match error {
                    state::StateError::NoSuchRun(_) => no_such_run(id),
                    error => anyhow::Error::new(error)
                        .context(format!("failed to read {}", db.path().display())),
                })?,
                Err(_) => return Err(no_such_run(id)),
            };
            match args.format {
                FormatArg::Human => print(&render_run(&history))?,
                FormatArg::Json => print_json(&history)?,
            }
        }
        None => {
            #[derive(Serialize)]
            struct Runs {
                runs: Vec<RunRecord>,
            }
            let db = match db {
                Ok(db) => db,
                Err(path) => {
                    match args.format {
                        FormatArg::Human => print(&no_runs(&path))?,
                        FormatArg::Json => print_json(&Runs { runs: Vec::new() })?,
                    }
                    return Ok(ExitCode::Success);
                }
            };
            let read = |error| {
                anyhow::Error::new(error).context(format!("failed to read {}", db.path().display()))
            };
            let runs = db.runs().map_err(read)?;
            match args.format {
                FormatArg::Json => print_json(&Runs { runs })?,
                FormatArg::Human if runs.is_empty() => print(&no_runs(db.path()))?,
                FormatArg::Human => {
                    // The list shows how many attempts each run made. The next attempt's number
                    // is one indexed lookup per run; reading each run's whole history instead
                    // (digests and all) took 11 s over 1000 runs.
                    let rows = runs
                        .into_iter()
                        .map(|run| {
                            let counts = db.attempt_counts(run.id)?;
                            Ok((run, counts))
                        })
                        .collect::<Result<Vec<_>, state::StateError>>()
                        .map_err(read)?;
                    print(&render_runs(&rows))?;
                }
            }
        }
    }
    Ok(ExitCode::Success)
}

fn no_such_run(id: RunId) -> anyhow::Error {
    usage(format!("no run {id} (`verdict history` lists the runs)"))
}

/// `verdict stats`.
pub(crate) fn stats(args: &StatsArgs) -> Result<ExitCode> {
    if let Some(state) = &args.state {
        return crate::fleet::stats_of(state, args.format == FormatArg::Json);
    }
    let stats = match open(args.dir.as_deref())? {
        Ok(db) => db
            .stats()
            .with_context(|| format!("failed to read {}", db.path().display()))?,
        Err(path) if args.format == FormatArg::Human => {
            print(&no_runs(&path))?;
            return Ok(ExitCode::Success);
        }
        Err(_) => Stats::default(),
    };
    match args.format {
        FormatArg::Human => print(&render_stats(&stats))?,
        FormatArg::Json => print_json(&stats)?,
    }
    Ok(ExitCode::Success)
}

// Rendering: pure functions of the records.

/// The list of runs, newest first, each with the attempts it made: id, when, state, attempts that
/// counted / allowed (and those interrupted, which do not count), duration, task.
fn render_runs(runs: &[(RunRecord, (u32, u32))]) -> String {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|(run, (counted, interrupted))| {
            vec![
                run.id.to_string(),
                minute(run.created_at),
                run.state.as_str().to_owned(),
                match interrupted {
                    0 => format!("{counted}/{}", run.max_attempts),
                    n => format!("{counted}/{} +{n} interrupted", run.max_attempts),
                },
                run.finished_at
                    .map_or_else(|| "-".to_owned(), |end| duration(end - run.created_at)),
                clip(run.task.lines().next().unwrap_or(""), TASK_WIDTH),
            ]
        })
        .collect();
    table(
        &[
            ("run", Align::Right),
            ("started (UTC)", Align::Left),
            ("state", Align::Left),
            ("attempts", Align::Right),
            ("took", Align::Right),
            ("task", Align::Left),
        ],
        &rows,
    )
}

/// The attempts a run made that counted (as its `run_finished` event counts them: every attempt
/// but the interrupted ones), and the interrupted ones.
fn attempts_made(history: &RunHistory) -> (usize, usize) {
    let interrupted = history
        .attempts
        .iter()
        .filter(|a| a.attempt.interrupted)
        .count();
    (history.attempts.len() - interrupted, interrupted)
}

/// One run in full.
fn render_run(history: &RunHistory) -> String {
    let run = &history.run;
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(format!("run {}: {}", run.id, run.state.as_str()));
    line(format!("workspace  {}", run.workspace));
    line(format!("started    {}", second(run.created_at)));
    match run.finished_at {
        Some(end) => line(format!(
            "finished   {} (took {})",
            second(end),
            duration(end - run.created_at)
        )),
        None => line("finished   not yet".to_owned()),
    }
    let (counted, interrupted) = attempts_made(history);
    line(match interrupted {
        0 => format!("attempts   {counted} of {}", run.max_attempts),
        n => format!(
            "attempts   {counted} of {}, and {} (not counted)",
            run.max_attempts,
            plural(n as u64, "interrupted attempt")
        ),
    });
    line("task".to_owned());
    for text in run.task.lines() {
        line(format!("  {text}"));
    }

    line(String::new());
    match &history.baseline {
        Some(baseline) => {
            line(format!("baseline   {}", verification(baseline)));
            failures(&mut line, baseline, "  ");
        }
        None => line("baseline   none".to_owned()),
    }

    for attempt in &history.attempts {
        line(String::new());
        render_attempt(&mut line, attempt);
    }

    line(String::new());
    line("transitions".to_owned());
    let rows: Vec<Vec<String>> = history
        .transitions
        .iter()
        .map(|t| {
            vec![
                format!("  {}", second(t.at)),
                t.from.as_str().to_owned(),
                "→".to_owned(),
                t.to.as_str().to_owned(),
                t.reason.clone(),
            ]
        })
        .collect();
    let align = [
        ("", Align::Left),
        ("", Align::Left),
        ("", Align::Left),
        ("", Align::Left),
        ("", Align::Left),
    ];
    for row in table(&align, &rows).lines().skip(1) {
        line(row.to_owned());
    }
    out
}

fn render_attempt(line: &mut impl FnMut(String), attempt: &AttemptHistory) {
    let record = &attempt.attempt;
    let took = record.finished_at.map_or_else(
        || "unfinished".to_owned(),
        |end| duration(end - record.started_at),
    );
    let changed = match record.workspace_changed {
        Some(true) => "changed the workspace",
        Some(false) => "no-op (workspace unchanged)",
        None => "workspace change unknown",
    };
    let session = match record.session_outcome.as_deref() {
        _ if record.interrupted => "interrupted, not counted".to_owned(),
        Some(outcome) => format!("session {outcome}"),
        None => "session running".to_owned(),
    };
    // An attempt whose first agents failed (auth, quota, a rate limit) was run by the last one;
    // the ones before are named after it.
    let agent = match record.sessions.split_last() {
        Some((_, before)) if !before.is_empty() => format!(
            "{} (after {})",
            record.agent,
            before
                .iter()
                .map(|s| format!("{} {}", s.agent, s.outcome))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => record.agent.clone(),
    };
    line(format!(
        "attempt {} · {agent} · {session} · {took} · {changed}",
        record.number,
    ));
    match &attempt.verification {
        Some(v) => {
            line(format!("  verified  {}", verification(v)));
            failures(line, v, "    ");
        }
        None => line("  verified  not verified".to_owned()),
    }
    let tail: Vec<&str> = record
        .output_tail
        .as_deref()
        .unwrap_or("")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if !tail.is_empty() {
        let shown = tail.len().min(TAIL_LINES) as u64;
        line(format!("  agent output, last {}", plural(shown, "line")));
        for text in &tail[tail.len().saturating_sub(TAIL_LINES)..] {
            line(format!("    | {text}"));
        }
    }
}

/// A verification on one line: outcome, category (confidence), location, failures, time.
fn verification(v: &VerificationRecord) -> String {
    let mut parts = vec![v.outcome.as_str().to_owned()];
    if let Some(category) = &v.category {
        parts.push(match v.confidence {
            Some(confidence) => format!("{category} ({confidence:.2})"),
            None => category.clone(),
        });
    }
    if let Some(location) = &v.location {
        parts.push(format!("at {location}"));
    }
    if !v.failures.is_empty() {
        parts.push(plural(v.failures.len() as u64, "failure"));
    }
    if !v.flaky.is_empty() {
        parts.push(format!("{} flaky", v.flaky.len()));
    }
    if let Some(tests) = v.tests_run {
        parts.push(format!("{} run", plural(tests, "test")));
    }
    parts.push(duration(v.duration_ms as i64));
    parts.join(" · ")
}

/// The failure labels of a verification, at most [`MAX_FAILURES_SHOWN`] then "and N more".
fn failures(line: &mut impl FnMut(String), v: &VerificationRecord, indent: &str) {
    for failure in v.failures.iter().take(MAX_FAILURES_SHOWN) {
        line(format!("{indent}- {}", failure.label));
    }
    if v.failures.len() > MAX_FAILURES_SHOWN {
        line(format!(
            "{indent}  and {} more",
            v.failures.len() - MAX_FAILURES_SHOWN
        ));
    }
    for failure in v.flaky.iter().take(MAX_FAILURES_SHOWN) {
        line(format!("{indent}- flaky, not blamed: {}", failure.label));
    }
    if v.flaky.len() > MAX_FAILURES_SHOWN {
        line(format!(
            "{indent}  and {} more flaky",
            v.flaky.len() - MAX_FAILURES_SHOWN
        ));
    }
}

/// The figures of `verdict stats`.
fn render_stats(stats: &Stats) -> String {
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(text.trim_end());
        out.push('\n');
    };
    let align = [("", Align::Left), ("", Align::Right), ("", Align::Left)];
    for row in table(&align, &run_rows(stats)).lines().skip(1) {
        line(row.to_owned());
    }

    line(String::new());
    match &stats.attempts_to_success {
        Some(a) => line(format!(
            "attempts to success: mean {:.2}, median {} (over {})",
            a.mean,
            trim_float(a.median),
            plural(a.runs, "passed run")
        )),
        None => line("attempts to success: no run passed".to_owned()),
    }
    line(String::new());
    categories(&mut line, stats);
    line(String::new());
    common_failures(&mut line, stats);
    line(String::new());
    time_spent(&mut line, stats);
    out
}

/// The runs, finished and not, the success rate and the attempts, as rows.
fn run_rows(stats: &Stats) -> Vec<Vec<String>> {
    let finished_by: Vec<String> = stats
        .by_state
        .iter()
        .filter(|(state, _)| state.is_terminal())
        .map(|(state, n)| format!("{} {n}", state.as_str()))
        .collect();
    let unfinished = stats.runs - stats.finished;
    let mut rows = vec![
        vec!["runs".to_owned(), stats.runs.to_string(), String::new()],
        vec![
            "finished".to_owned(),
            stats.finished.to_string(),
            if finished_by.is_empty() {
                String::new()
            } else {
                format!("({})", finished_by.join(", "))
            },
        ],
    ];
    if unfinished > 0 {
        rows.push(vec![
            "not finished".to_owned(),
            unfinished.to_string(),
            String::new(),
        ]);
    }
    let passed = stats.by_state.get(&RunState::Passed).copied().unwrap_or(0);
    rows.push(vec![
        "success rate".to_owned(),
        stats.success_rate.map_or_else(|| "-".to_owned(), percent),
        if stats.finished > 0 {
            format!("({passed} of {} finished runs passed)", stats.finished)
        } else {
            String::new()
        },
    ]);
    rows.push(vec![
        "attempts".to_owned(),
        stats.attempts.to_string(),
        if stats.interrupted > 0 {
            format!("(and {} interrupted, not counted)", stats.interrupted)
        } else {
            String::new()
        },
    ]);
    rows
}

/// The failed attempts by category.
fn categories(line: &mut impl FnMut(String), stats: &Stats) {
    if stats.by_category.is_empty() {
        line("failure categories: no failed attempt".to_owned());
        return;
    }
    let rows: Vec<Vec<String>> = stats
        .by_category
        .iter()
        .map(|c| {
            vec![
                c.category.clone(),
                c.failures.to_string(),
                c.runs.to_string(),
                c.passed.to_string(),
                percent(c.success_rate),
            ]
        })
        .collect();
    out_table(
        line,
        &[
            ("failure category", Align::Left),
            ("failures", Align::Right),
            ("runs", Align::Right),
            ("passed", Align::Right),
            ("success rate", Align::Right),
        ],
        &rows,
    );
}

/// The failures seen most often.
fn common_failures(line: &mut impl FnMut(String), stats: &Stats) {
    if stats.common_failures.is_empty() {
        line("common failures: none".to_owned());
        return;
    }
    let rows: Vec<Vec<String>> = stats
        .common_failures
        .iter()
        .map(|f| {
            vec![
                f.label.clone(),
                f.occurrences.to_string(),
                f.runs.to_string(),
            ]
        })
        .collect();
    out_table(
        line,
        &[
            ("common failures", Align::Left),
            ("seen", Align::Right),
            ("runs", Align::Right),
        ],
        &rows,
    );
}

/// The time spent in agent sessions and in verification.
fn time_spent(line: &mut impl FnMut(String), stats: &Stats) {
    let total = stats.agent_ms + stats.verification_ms;
    let share = |ms: u64| {
        if total == 0 {
            "-".to_owned()
        } else {
            percent(ms as f64 / total as f64)
        }
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
                duration(stats.agent_ms as i64),
                share(stats.agent_ms),
            ],
            vec![
                "verification".to_owned(),
                duration(stats.verification_ms as i64),
                share(stats.verification_ms),
            ],
        ],
    );
}

fn out_table(line: &mut impl FnMut(String), columns: &[(&str, Align)], rows: &[Vec<String>]) {
    for row in table(columns, rows).lines() {
        line(row.to_owned());
    }
}

/// `50.0%`.
fn percent(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

/// A span of milliseconds for people: `850ms`, `12.3s`, `4m 05s`, `2h 03m`.
pub(crate) fn duration(ms: i64) -> String {
    table::duration(u64::try_from(ms).unwrap_or(0))
}

/// `2026-11-22 07:30` (UTC).
fn minute(ms: i64) -> String {
    let (date, h, m, _) = civil(ms);
    format!("{date} {h:02}:{m:02}")
}

/// `2026-11-22 07:30:12 UTC`.
pub(crate) fn second(ms: i64) -> String {
    let (date, h, m, s) = civil(ms);
    format!("{date} {h:02}:{m:02}:{s:02}")
}

/// The UTC date (`2026-11-22`), hour, minute and second of a time in ms since the Unix epoch.
fn civil(ms: i64) -> (String, i64, i64, i64) {
    let (year, month, day, hour, minute, second) = verdict_core::render::table::civil(ms);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        hour,
        minute,
        second,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc() {
        assert_eq!(minute(0), "1970-01-01 00:00");
        // 2026-11-22 07:30:12.345 UTC.
        assert_eq!(second(1_795_332_612_345), "2026-11-22 07:30:12");
        // A leap day, and the last second of a year.
        assert_eq!(second(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(second(1_767_225_599_999), "2025-12-31 23:59:59");
    }

    #[test]
    fn durations_and_clipping() {
        assert_eq!(duration(850), "850ms");
        assert_eq!(duration(12_345), "12.3s");
        assert_eq!(duration(245_000), "4m 05s");
        assert_eq!(duration(7_380_000), "2h 03m");
        assert_eq!(duration(-5), "0ms");
        assert_eq!(clip("short", 60), "short");
        assert_eq!(clip("abcdefghij", 5), "abcd…");
        assert_eq!(clip("ééééééé", 4), "ééé…");
    }

    #[test]
    fn tables_align_by_characters() {
        let text = table(
            &[
                ("name", Align::Left),
                ("n", Align::Right),
                ("note", Align::Left),
            ],
            &[
                vec!["é".to_owned(), "10".to_owned(), "x".to_owned()],
                vec!["longer".to_owned(), "2".to_owned(), String::new()],
            ],
        );
        assert_eq!(text, "name     n  note\né       10  x\nlonger   2\n");
    }
}
