//! The queue page: counts by state that filter, a filter form that works without scripts, one
//! page of tasks as a table (what each state needs to say: the worker and elapsed time of a
//! running task, the next retry and why of a scheduled one), and links to the other pages.

use maud::{Markup, html};

use super::Chrome;
use super::actions::{self, Subject};
use super::layout::{number, state_badge};
use super::time;
use super::url::{self, QueueLink};
use crate::view::{QueueQuery, QueueView, State, TaskRow};

/// The whole `<main>` of the queue page.
pub(crate) fn main(chrome: &Chrome, query: &QueueQuery, view: &QueueView) -> Markup {
    html! {
        h1 {
            "Queue"
            @if let Some(state) = query.state { ": " (state.label()) }
        }
        (counts(query, view))
        (filters(query, view))
        (group_actions(chrome, query))
        (tasks(chrome.now, query, view))
    }
}

/// Every state's count as a link that filters by it; colour and words, zero dimmed.
fn counts(query: &QueueQuery, view: &QueueView) -> Markup {
    let all: u64 = view.counts.iter().map(|(_, n)| n).sum();
    let base = QueueLink {
        state: None,
        page: 0,
        ..QueueLink::from_query(query)
    };
    html! {
        nav class="counts" aria-label="Tasks by state" {
            ul {
                li {
                    a href=(base.href()) class="count"
                        aria-current=[query.state.is_none().then_some("true")] {
                        span class="badge state-all" { "all" } " " span class="n" { (number(all)) }
                    }
                }
                @for state in State::ALL {
                    @let n = count_of(view, state);
                    @let link = QueueLink { state: Some(state), ..base.clone() };
                    li {
                        a href=(link.href()) class={ "count" @if n == 0 { " zero" } }
                            aria-current=[(query.state == Some(state)).then_some("true")] {
                            (state_badge(state)) " " span class="n" { (number(n)) }
                        }
                    }
                }
            }
        }
    }
}

fn count_of(view: &QueueView, state: State) -> u64 {
    view.counts
        .iter()
        .find(|(s, _)| *s == state)
        .map_or(0, |(_, n)| *n)
}

/// The GET form: state, campaign, agent and search, each labelled.
fn filters(query: &QueueQuery, view: &QueueView) -> Markup {
    let search = query.search.as_deref().unwrap_or("");
    html! {
        form class="filters" method="get" action="/" role="search" aria-label="Filter tasks" {
            div class="field" {
                label for="f-state" { "State" }
                select id="f-state" name="state" {
                    option value="" { "any state" }
                    @for state in State::ALL {
                        option value=(state.as_str()) selected[query.state == Some(state)] {
                            (state.label())
                        }
                    }
                }
            }
            (choice("f-campaign", "campaign", "Campaign", "any campaign",
                &view.campaigns, query.campaign.as_deref()))
            (choice("f-agent", "agent", "Agent", "any agent", &view.agents, query.agent.as_deref()))
            div class="field grow" {
                label for="f-q" { "Search" }
                input type="search" id="f-q" name="q" value=(search)
                    placeholder="key, task text or reason";
            }
            div class="field submit" {
                button type="submit" class="button" { "Filter" }
                a href="/" { "Clear" }
            }
        }
    }
}

/// A labelled select of `options`, the current value selected even when the list lacks it.
fn choice(
    id: &str,
    name: &str,
    label: &str,
    any: &str,
    options: &[String],
    current: Option<&str>,
) -> Markup {
    let missing = current.filter(|c| !c.is_empty() && !options.iter().any(|o| o == c));
    html! {
        div class="field" {
            label for=(id) { (label) }
            select id=(id) name=(name) {
                option value="" { (any) }
                @if let Some(missing) = missing {
                    option value=(missing) selected { (missing) }
                }
                @for option in options {
                    option value=(option) selected[current == Some(option.as_str())] { (option) }
                }
            }
        }
    }
}

/// Cancel, pause and resume for the campaign or agent the queue is filtered by.
fn group_actions(chrome: &Chrome, query: &QueueQuery) -> Markup {
    let campaign = query.campaign.as_deref().filter(|c| !c.is_empty());
    let agent = query.agent.as_deref().filter(|a| !a.is_empty());
    html! {
        @if let Some(campaign) = campaign {
            (actions::group_actions(chrome, Subject::Campaign(campaign)))
        }
        @if let Some(agent) = agent {
            (actions::group_actions(chrome, Subject::Agent(agent)))
        }
    }
}

/// The table of tasks with its caption and the links to the pages before and after.
fn tasks(now: i64, query: &QueueQuery, view: &QueueView) -> Markup {
    let per_page = u64::from(query.per_page.max(1));
    let first = u64::from(query.page) * per_page + 1;
    let last = first + view.rows.len() as u64 - 1;
    let range = if view.rows.is_empty() {
        format!("0 of {}", number(view.total))
    } else {
        format!(
            "{}–{} of {}",
            number(first),
            number(last),
            number(view.total)
        )
    };
    html! {
        @if view.rows.is_empty() {
            p class="empty" { "No task matches these filters (" (range) ")." }
        } @else {
            div class="scroll" {
                table class="tasks" {
                    caption { "Tasks " span class="range" { (range) } }
                    thead {
                        tr {
                            th scope="col" { "Task" }
                            th scope="col" { "Title" }
                            th scope="col" { "State" }
                            th scope="col" { "Campaign" }
                            th scope="col" { "Agent" }
                            th scope="col" class="num" { "Attempts" }
                            th scope="col" { "Details" }
                        }
                    }
                    tbody {
                        @for row in &view.rows { (task_row(now, row)) }
                    }
                }
            }
        }
        (paging(query, view.total, last, &range))
    }
}

fn task_row(now: i64, row: &TaskRow) -> Markup {
    html! {
        tr class={ "row state-row-" (row.state.as_str()) } {
            th scope="row" { a href=(url::task(&row.id)) { (row.id) } }
            td class="title" data-label="Title" {
                (row.title)
                @if !row.key.is_empty() && row.key != row.title {
                    br; small class="key" { (row.key) }
                }
            }
            td data-label="State" { (state_badge(row.state)) }
            td data-label="Campaign" {
                @if let Some(campaign) = &row.campaign { (campaign) }
            }
            td data-label="Agent" { (row.agent) }
            td class="num" data-label="Attempts" { (attempts(row.attempts, row.max_attempts)) }
            td class="details" data-label="Details" { (details(now, row)) }
        }
    }
}

/// `2/3`, or `2` when the attempts allowed are unknown.
pub(crate) fn attempts(done: u32, allowed: Option<u32>) -> String {
    match allowed {
        Some(allowed) => format!("{done}/{allowed}"),
        None => done.to_string(),
    }
}

/// What the row's state needs to say.
fn details(now: i64, row: &TaskRow) -> Markup {
    match row.state {
        State::Running => html! {
            @if let Some(worker) = &row.worker { "on " (worker) }
            @if let Some(since) = row.running_since { " for " (time::elapsed(since, now)) }
        },
        State::RetryScheduled => html! {
            @if let Some(at) = row.next_retry_at {
                span class="next" { "next " (time::absolute(at)) ", " (time::countdown(at, now)) }
            }
            (why(row))
        },
        _ => why(row),
    }
}

/// The category and reason of the row's last failure.
pub(crate) fn why(row: &TaskRow) -> Markup {
    html! {
        @if row.category.is_some() || row.reason.is_some() {
            span class="why" {
                @if let Some(category) = &row.category {
                    span class="category" { (category) }
                    @if row.reason.is_some() { ": " }
                }
                @if let Some(reason) = &row.reason { (reason) }
            }
        }
    }
}

/// `1–50 of 10 000` and links to the previous and next pages, filters kept.
fn paging(query: &QueueQuery, total: u64, last: u64, range: &str) -> Markup {
    let here = QueueLink::from_query(query);
    let previous = (query.page > 0).then(|| QueueLink {
        page: query.page - 1,
        ..here.clone()
    });
    let next = (last < total && total > 0).then(|| QueueLink {
        page: query.page + 1,
        ..here.clone()
    });
    html! {
        @if previous.is_some() || next.is_some() {
            nav class="paging" aria-label="Pages of tasks" {
                @if let Some(previous) = previous {
                    a href=(previous.href()) rel="prev" { "← Previous" }
                }
                span { (range) }
                @if let Some(next) = next {
                    a href=(next.href()) rel="next" { "Next →" }
                }
            }
        }
    }
}
