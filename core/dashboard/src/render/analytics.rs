//! The analytics page: success overall, failures by category (a chart and a table), the
//! failures that keep coming back, success per agent and per campaign, agents held by a rate
//! limit, and time in agents against time in verification. Every chart's numbers are also text.

use maud::{Markup, html};

use super::chart::{self, Bar};
use super::layout::{mean, number, rate};
use super::time;
use crate::view::{Analytics, Fingerprint, Group, Hold};

/// The whole `<main>` of the analytics page.
pub(crate) fn main(now: i64, view: &Analytics) -> Markup {
    html! {
        h1 { "Analytics" }
        p class="as-of" { "Figures as of " (time::absolute_and_relative(view.as_of, now)) "." }
        (summary(view))
        (categories(&view.by_category))
        (fingerprints(&view.fingerprints))
        (groups("by-agent", "Success per agent", "Agent", &view.by_agent))
        (groups("by-campaign", "Success per campaign", "Campaign", &view.by_campaign))
        (held(now, &view.held))
        (time_split(view.agent_ms, view.verify_ms))
    }
}

fn summary(view: &Analytics) -> Markup {
    html! {
        dl class="summary" {
            div { dt { "Tasks" } dd { (number(view.tasks)) } }
            div { dt { "Ended" } dd { (number(view.finished)) } }
            div { dt { "Success rate" } dd { (rate(view.success_rate)) } }
            div { dt { "Attempts" } dd { (number(view.attempts)) } }
            div { dt { "Attempts to success" } dd { (mean(view.attempts_to_success)) } }
        }
    }
}

/// Failed attempts by category: bars, then the same numbers in a table.
fn categories(groups: &[Group]) -> Markup {
    let failed: u64 = groups.iter().map(|g| g.attempts).sum();
    let share = |n: u64| (failed > 0).then(|| n as f64 / failed as f64);
    let bars: Vec<Bar> = groups
        .iter()
        .map(|g| Bar {
            label: g.name.clone(),
            value: g.attempts as f64,
            text: format!("{} ({})", number(g.attempts), rate(share(g.attempts))),
        })
        .collect();
    html! {
        section aria-labelledby="categories-title" {
            h2 id="categories-title" { "Failures by category" }
            @if groups.is_empty() {
                p class="note" { "No attempt has failed." }
            } @else {
                figure {
                    (chart::bars("Failed attempts by category", &bars))
                    figcaption { (number(failed)) " failed attempts in all." }
                }
                div class="scroll" {
                    table {
                        caption class="visually-hidden" { "Failed attempts by category" }
                        thead { tr {
                            th scope="col" { "Category" }
                            th scope="col" class="num" { "Failed attempts" }
                            th scope="col" class="num" { "Share" }
                            th scope="col" class="num" { "Tasks" }
                        } }
                        tbody {
                            @for g in groups {
                                tr {
                                    th scope="row" { span class="category" { (g.name) } }
                                    td class="num" { (number(g.attempts)) }
                                    td class="num" { (rate(share(g.attempts))) }
                                    td class="num" { (number(g.tasks)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The failures that keep coming back, most first.
fn fingerprints(fingerprints: &[Fingerprint]) -> Markup {
    html! {
        section aria-labelledby="fingerprints-title" {
            h2 id="fingerprints-title" { "Most common failures" }
            @if fingerprints.is_empty() {
                p class="note" { "No failure fingerprint yet." }
            } @else {
                div class="scroll" {
                    table class="fingerprints" {
                        caption class="visually-hidden" { "Most common failure fingerprints" }
                        thead { tr {
                            th scope="col" { "Failure" }
                            th scope="col" class="num" { "Attempts" }
                            th scope="col" class="num" { "Tasks" }
                            th scope="col" class="num" { "Unfixed in" }
                        } }
                        tbody {
                            @for f in fingerprints {
                                tr {
                                    td { code { (f.text) } }
                                    td class="num" { (number(f.occurrences)) }
                                    td class="num" { (number(f.tasks)) }
                                    td class="num" { (number(f.unfixed)) " tasks" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Success rate and attempts to success per agent or campaign, with a bar for the rate.
fn groups(id: &str, title: &str, what: &str, groups: &[Group]) -> Markup {
    let heading = format!("{id}-title");
    html! {
        section aria-labelledby=(heading) {
            h2 id=(heading) { (title) }
            @if groups.is_empty() {
                p class="note" { "Nothing to show yet." }
            } @else {
                div class="scroll" {
                    table {
                        caption class="visually-hidden" { (title) }
                        thead { tr {
                            th scope="col" { (what) }
                            th scope="col" class="num" { "Tasks" }
                            th scope="col" class="num" { "Ended" }
                            th scope="col" class="num" { "Passed" }
                            th scope="col" { "Success rate" }
                            th scope="col" class="num" { "Attempts to success" }
                            th scope="col" class="num" { "Attempts" }
                        } }
                        tbody { @for g in groups { (group_row(g)) } }
                    }
                }
            }
        }
    }
}

fn group_row(g: &Group) -> Markup {
    html! {
        tr {
            th scope="row" { (g.name) }
            td class="num" { (number(g.tasks)) }
            td class="num" { (number(g.finished)) }
            td class="num" { (number(g.passed)) }
            td class="rate" {
                (chart::cell_bar(g.success_rate.unwrap_or(0.0))) " " (rate(g.success_rate))
            }
            td class="num" { (mean(g.attempts_to_success)) }
            td class="num" { (number(g.attempts)) }
        }
    }
}

/// Agents a rate limit holds, until when.
fn held(now: i64, held: &[Hold]) -> Markup {
    let held: Vec<&Hold> = held.iter().filter(|h| h.until > now).collect();
    html! {
        section aria-labelledby="held-title" {
            h2 id="held-title" { "Agents held by a rate limit" }
            @if held.is_empty() {
                p class="note" { "No agent is held." }
            } @else {
                table {
                    caption class="visually-hidden" { "Agents held by a rate limit" }
                    thead { tr {
                        th scope="col" { "Agent" } th scope="col" { "Until" } th scope="col" { "Free" }
                    } }
                    tbody {
                        @for hold in held {
                            tr {
                                th scope="row" { (hold.agent) }
                                td { (time::absolute(hold.until)) }
                                td { (time::countdown(hold.until, now)) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Time in agents against time in verification: one stacked bar, both numbers as text.
fn time_split(agent_ms: u64, verify_ms: u64) -> Markup {
    let total = agent_ms + verify_ms;
    let share = |n: u64| (total > 0).then(|| n as f64 / total as f64);
    let words = |ms: u64| time::duration(i64::try_from(ms).unwrap_or(i64::MAX));
    let agent = format!("{} in agents ({})", words(agent_ms), rate(share(agent_ms)));
    let verify = format!(
        "{} in verification ({})",
        words(verify_ms),
        rate(share(verify_ms))
    );
    html! {
        section aria-labelledby="time-title" {
            h2 id="time-title" { "Time in agents and in verification" }
            @if total == 0 {
                p class="note" { "No attempt has taken time yet." }
            } @else {
                figure {
                    (chart::stacked(&format!("{agent}, {verify}"),
                        [("agents", agent_ms, "agent"), ("verification", verify_ms, "verify")]))
                    figcaption {
                        span class="key agent" aria-hidden="true" { "■" } " " (agent) "; "
                        span class="key verify" aria-hidden="true" { "■" } " " (verify) "."
                    }
                }
            }
        }
    }
}
