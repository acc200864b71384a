//! The task page: what the task is and where it stands, its timeline of attempts (agent,
//! worker, times, outcome, failure, fingerprints, the digest the next prompt carried), its
//! history, the diff its agent left, and the actions a person may take.

use maud::{Markup, html};

use super::Chrome;
use super::actions;
use super::chart;
use super::layout::{dollars, number, outcome_badge, state_badge};
use super::queue::{attempts, why};
use super::time;
use super::url::QueueLink;
use crate::view::{AttemptView, HistoryEntry, Redacted, State, TaskView};

/// The whole `<main>` of a task's page.
pub(crate) fn main(chrome: &Chrome, view: &TaskView) -> Markup {
    let row = &view.row;
    html! {
        h1 { "Task " (row.id) " " (state_badge(row.state)) }
        p class="lead" { (row.title) }
        (facts(chrome.now, view))
        section aria-labelledby="text-title" {
            h2 id="text-title" { "Task text" }
            pre class="text" { (view.text) }
        }
        (actions::task_actions(chrome, view))
        (timeline(chrome.now, &view.attempts))
        (history(chrome.now, &view.history))
        (diff(view.diff.as_ref()))
    }
}

/// The task's facts as a description list.
fn facts(now: i64, view: &TaskView) -> Markup {
    let row = &view.row;
    html! {
        dl class="facts" {
            dt { "State" } dd { (state_badge(row.state)) " " (why(row)) }
            @if let (State::RetryScheduled, Some(at)) = (row.state, row.next_retry_at) {
                dt { "Next attempt" } dd { (time::absolute(at)) ", " (time::countdown(at, now)) }
            }
            @if row.state == State::Running {
                dt { "Running" }
                dd {
                    @if let Some(worker) = &row.worker { "on " (worker) " " }
                    @if let Some(since) = row.running_since { "for " (time::elapsed(since, now)) }
                }
            }
            dt { "Key" } dd { code { (row.key) } }
            @if let Some(campaign) = &row.campaign {
                dt { "Campaign" }
                dd { a href=(filtered(Some(campaign.as_str()), None)) { (campaign) } }
            }
            dt { "Agent" }
            dd { a href=(filtered(None, Some(row.agent.as_str()))) { (row.agent) } }
            dt { "Attempts" } dd { (attempts(row.attempts, row.max_attempts)) }
            dt { "Workspace" } dd { code { (view.workspace) } }
            @if let Some(workdir) = &view.workdir { dt { "Work dir" } dd { code { (workdir) } } }
            @if let Some(branch) = &view.branch { dt { "Branch" } dd { code { (branch) } } }
            @if let Some(guidance) = &view.guidance {
                dt { "Guidance" } dd { div class="wrap" { (guidance) } }
            }
            @if let Some(cost) = view.cost_usd { dt { "Cost" } dd { (dollars(cost)) } }
            @if let Some(deadline) = view.deadline_at {
                dt { "Deadline" } dd { (time::absolute_and_relative(deadline, now)) }
            }
            dt { "Changed" } dd { (time::absolute_and_relative(row.updated_at, now)) }
        }
    }
}

/// The queue filtered by a campaign or an agent, where the page offers actions on all its
/// tasks.
fn filtered(campaign: Option<&str>, agent: Option<&str>) -> String {
    QueueLink {
        campaign,
        agent,
        ..QueueLink::default()
    }
    .href()
}

/// Every attempt, in order, as an ordered list.
fn timeline(now: i64, attempts: &[AttemptView]) -> Markup {
    html! {
        section aria-labelledby="attempts-title" {
            h2 id="attempts-title" { "Attempts" }
            @if attempts.is_empty() {
                p class="note" { "No attempt yet." }
            } @else {
                ol class="timeline" {
                    @for attempt in attempts { (attempt_item(now, attempt)) }
                }
            }
        }
    }
}

fn attempt_item(now: i64, attempt: &AttemptView) -> Markup {
    let n = attempt.number;
    html! {
        li class="attempt" id={ "attempt-" (n) } {
            h3 {
                "Attempt " (n) " "
                @match (&attempt.outcome, attempt.finished_at) {
                    (Some(outcome), _) => (outcome_badge(outcome)),
                    (None, None) => (outcome_badge("running")),
                    (None, Some(_)) => (outcome_badge("ended")),
                }
                " "
                @if attempt.counted {
                    span class="tag" { "counted" }
                } @else {
                    span class="tag muted" { "not counted" }
                }
            }
            (attempt_facts(now, attempt))
            @if let Some(digest) = attempt.digest.as_ref().filter(|_| attempt.outcome.as_deref() != Some("passed")) {
                details id={ "digest-" (n) } {
                    summary { "The digest the next prompt carried" }
                    pre class="digest" { (digest) }
                }
            }
        }
    }
}

fn attempt_facts(now: i64, attempt: &AttemptView) -> Markup {
    html! {
        dl class="facts" {
            @if let Some(agent) = &attempt.agent { dt { "Agent" } dd { (agent) } }
            @if let Some(worker) = &attempt.worker { dt { "Worker" } dd { (worker) } }
            dt { "Started" } dd { (time::absolute_and_relative(attempt.started_at, now)) }
            dt { "Duration" }
            dd {
                @match attempt.finished_at {
                    Some(end) => (time::duration(end - attempt.started_at)),
                    None => { "running for " (time::elapsed(attempt.started_at, now)) },
                }
            }
            dt { "Agent and verification" }
            dd { (split(attempt.agent_ms, attempt.verify_ms)) }
            @if let Some(category) = &attempt.category {
                dt { "Category" } dd { span class="category" { (category) } }
            }
            @if let Some(reason) = &attempt.reason { dt { "Reason" } dd { (reason) } }
            @if !attempt.fingerprints.is_empty() {
                dt { "Fingerprints" }
                dd { ul class="fingerprints" { @for f in &attempt.fingerprints { li { code { (f) } } } } }
            }
            @if let Some(delay) = attempt.retry_delay_ms {
                dt { "Retry after" } dd { (time::duration(i64::try_from(delay).unwrap_or(i64::MAX))) }
            }
            @if let Some(tokens) = attempt.tokens { dt { "Tokens" } dd { (number(tokens)) } }
            @if let Some(cost) = attempt.cost_usd { dt { "Cost" } dd { (dollars(cost)) } }
        }
    }
}

/// Time in the agent against time in verification, as words and a small stacked bar.
fn split(agent_ms: u64, verify_ms: u64) -> Markup {
    let ms = |v: u64| time::duration(i64::try_from(v).unwrap_or(i64::MAX));
    html! {
        (ms(agent_ms)) " in the agent, " (ms(verify_ms)) " in verification"
        @if agent_ms + verify_ms > 0 {
            " " (chart::split_bar(agent_ms, verify_ms, 120))
        }
    }
}

/// What people and the queue did to the task, in order, each with its time.
fn history(now: i64, entries: &[HistoryEntry]) -> Markup {
    html! {
        section aria-labelledby="history-title" {
            h2 id="history-title" { "History" }
            @if entries.is_empty() {
                p class="note" { "Nothing recorded yet." }
            } @else {
                ol class="history" {
                    @for entry in entries {
                        li {
                            (time::absolute_and_relative(entry.at, now)) " "
                            strong { (entry.action.replace('_', " ")) }
                            @if let Some(detail) = &entry.detail {
                                div class="wrap detail" { (detail) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The diff in a closed `<details>`, each line marked added, removed, hunk or file.
fn diff(diff: Option<&Redacted>) -> Markup {
    let Some(diff) = diff.filter(|d| !d.is_empty()) else {
        return html! {
            section aria-labelledby="diff-title" {
                h2 id="diff-title" { "Diff" }
                p class="note" { "The agent left no diff." }
            }
        };
    };
    let lines: Vec<(&str, &str)> = diff.as_str().lines().map(|l| (line_class(l), l)).collect();
    let added = lines.iter().filter(|(c, _)| *c == "add").count() as u64;
    let removed = lines.iter().filter(|(c, _)| *c == "del").count() as u64;
    html! {
        section aria-labelledby="diff-title" {
            h2 id="diff-title" { "Diff" }
            details id="diff" {
                summary {
                    "The diff the agent left: "
                    span class="add" { (number(added)) " added" } ", "
                    span class="del" { (number(removed)) " removed" }
                }
                pre class="diff" {
                    @for (class, line) in &lines {
                        @if class.is_empty() { (line) "\n" } @else { span class=(class) { (line) } "\n" }
                    }
                }
            }
        }
    }
}

/// How a diff line is marked: its `+`/`-` stays as text, the class adds colour.
fn line_class(line: &str) -> &'static str {
    if line.starts_with("+++") || line.starts_with("---") || line.starts_with("diff ") {
        "file"
    } else if line.starts_with("@@") {
        "hunk"
    } else if line.starts_with('+') {
        "add"
    } else if line.starts_with('-') {
        "del"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_lines_are_marked_by_their_first_characters() {
        assert_eq!(line_class("--- a/src/lib.rs"), "file");
        assert_eq!(line_class("+++ b/src/lib.rs"), "file");
        assert_eq!(line_class("@@ -1,3 +1,4 @@"), "hunk");
        assert_eq!(line_class("+fn added() {}"), "add");
        assert_eq!(line_class("-fn removed() {}"), "del");
        assert_eq!(line_class(" context"), "");
    }
}
