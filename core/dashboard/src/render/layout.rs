//! What every page shares: the document around `<main>`, the header with the source, the
//! navigation and the live indicator, the flash message, held agents, and the small pieces
//! (state and outcome badges, numbers, rates) the pages repeat.

use maud::{DOCTYPE, Markup, html};

use super::Chrome;
use super::time;
use crate::view::{Hold, Kind, State};

/// The page the navigation marks as current.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nav {
    Queue,
    Analytics,
    /// A page not in the navigation (a task, a message).
    Other,
}

/// The whole document: head, header, flash, `<main>` with held agents first.
pub(crate) fn page(chrome: &Chrome, title: &str, nav: Nav, held: &[&Hold], main: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (title) " · verdict" }
                link rel="stylesheet" href="/assets/app.css";
                script src="/assets/app.js" defer {}
            }
            body data-watermark=(chrome.watermark) data-now=(chrome.now) {
                a class="skip" href="#main" { "Skip to the content" }
                (header(chrome, nav))
                @if let Some(flash) = &chrome.flash {
                    p class="flash" role="status" { (flash) }
                }
                main id="main" tabindex="-1" {
                    (held_agents(held, chrome.now))
                    (main)
                }
            }
        }
    }
}

fn header(chrome: &Chrome, nav: Nav) -> Markup {
    let link = |href: &str, text: &str, this: Nav| {
        html! {
            li {
                @if nav == this {
                    a href=(href) aria-current="page" { (text) }
                } @else {
                    a href=(href) { (text) }
                }
            }
        }
    };
    let kind = match chrome.kind {
        Kind::Fleet => "fleet",
        Kind::Loop => "loop runs",
    };
    html! {
        header class="top" {
            p class="brand" {
                a href="/" { "verdict" }
                " "
                span class="kind" { (kind) }
            }
            p class="source" { span class="visually-hidden" { "Source: " } code { (chrome.source) } }
            nav aria-label="Pages" {
                ul {
                    (link("/", "Queue", Nav::Queue))
                    (link("/analytics", "Analytics", Nav::Analytics))
                    li { a href="/metrics" { "Metrics" } }
                }
            }
            // The script shows it and words it; without scripts the page is static.
            p id="live" class="live" role="status" hidden { "static" }
        }
    }
}

/// Agents a rate limit holds now, deduplicated by name (the chrome's and a view's may
/// overlap), each with the time it ends and a countdown.
fn held_agents(held: &[&Hold], now: i64) -> Markup {
    let mut shown: Vec<&Hold> = Vec::new();
    for hold in held.iter().copied().filter(|h| h.until > now) {
        if !shown.iter().any(|h| h.agent == hold.agent) {
            shown.push(hold);
        }
    }
    if shown.is_empty() {
        return html! {};
    }
    html! {
        section class="held" aria-label="Held agents" {
            ul {
                @for hold in shown {
                    li {
                        strong { (hold.agent) }
                        " held by a rate limit until "
                        time datetime=(time::iso(hold.until)) { (until(hold.until, now)) }
                        ", "
                        (time::countdown(hold.until, now))
                    }
                }
            }
        }
    }
}

/// The time of day alone when it is within a day, else the date too.
fn until(at: i64, now: i64) -> String {
    if at - now < 86_400_000 {
        time::utc_clock(at)
    } else {
        time::utc(at)
    }
}

/// A state's badge: its colour (by class) and its words.
pub(crate) fn state_badge(state: State) -> Markup {
    html! { span class={ "badge state-" (state.as_str()) } { (state.label()) } }
}

/// An attempt's outcome as a badge; outcomes named like a state take its colour.
pub(crate) fn outcome_badge(outcome: &str) -> Markup {
    let class = match outcome {
        "passed" | "flaky" => "state-passed",
        "failed" | "error" => "state-failed",
        "escalated" => "state-escalated",
        "interrupted" | "rescued" => "state-interrupted",
        "cancelled" => "state-cancelled",
        "expired" | "timeout" | "timed_out" => "state-expired",
        "running" => "state-running",
        "rate_limited" | "held" => "state-retry_scheduled",
        _ => "state-other",
    };
    html! { span class={ "badge " (class) } { (outcome.replace('_', " ")) } }
}

/// `10 000`: digits grouped by threes with a narrow no-break space.
pub(crate) fn number(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{202f}');
        }
        out.push(c);
    }
    out
}

/// `83.3 %`, or `–` where there is nothing to divide.
pub(crate) fn rate(rate: Option<f64>) -> String {
    match rate {
        Some(rate) => format!("{:.1}\u{a0}%", rate * 100.0),
        None => "–".to_owned(),
    }
}

/// `1.5`, or `–`.
pub(crate) fn mean(value: Option<f64>) -> String {
    match value {
        Some(value) => format!("{value:.1}"),
        None => "–".to_owned(),
    }
}

/// `$1.25`.
pub(crate) fn dollars(usd: f64) -> String {
    format!("${usd:.2}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_group_by_threes() {
        assert_eq!(number(0), "0");
        assert_eq!(number(999), "999");
        assert_eq!(number(10_000), "10\u{202f}000");
        assert_eq!(number(1_234_567), "1\u{202f}234\u{202f}567");
    }

    #[test]
    fn rates_and_means_say_when_there_is_none() {
        assert_eq!(rate(Some(0.8333)), "83.3\u{a0}%");
        assert_eq!(rate(None), "–");
        assert_eq!(mean(Some(1.25)), "1.2");
        assert_eq!(dollars(1.5), "$1.50");
    }

    #[test]
    fn held_agents_are_listed_once_and_only_while_held() {
        let now = 1_795_961_000_000;
        let claude = Hold {
            agent: "claude".into(),
            until: now + 42_000,
        };
        let old = Hold {
            agent: "codex".into(),
            until: now - 1,
        };
        let html = held_agents(&[&claude, &old, &claude], now).into_string();
        assert_eq!(html.matches("claude").count(), 1, "{html}");
        assert!(!html.contains("codex"), "{html}");
        assert!(html.contains("held by a rate limit until"), "{html}");
        assert!(html.contains("14:04:02 UTC"), "{html}");
        assert!(html.contains(">in 42 s</time>"), "{html}");
        assert_eq!(held_agents(&[&old], now).into_string(), "");
    }
}
