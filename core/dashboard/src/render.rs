//! Views → HTML and `/metrics` text. Pure functions: data in, text out. Pages are maud
//! templates compiled into the binary; the stylesheet and the few lines of script for live
//! updates are compiled in too ([`CSS`], [`JS`]) and served from the dashboard's own origin.
//! Every page works with scripts off; the script only adds live updates and countdowns.
//!
//! One file per job under `render/`: `layout` (the document, header, badges), `queue`, `task`,
//! `analytics`, `actions` (the forms), `chart` (inline SVG), `metrics`, `time`, `url`.

use maud::{Markup, html};

use crate::view::{Analytics, Hold, Kind, Metrics, QueueQuery, QueueView, TaskView};

mod actions;
mod analytics;
mod chart;
mod layout;
mod metrics;
mod queue;
mod task;
mod time;
mod url;

#[cfg(test)]
mod tests;

use layout::{Nav, page};

/// The stylesheet, served at `/assets/app.css`.
pub const CSS: &str = include_str!("../assets/app.css");

/// The script, served at `/assets/app.js`: live updates over server-sent events, countdowns.
///
/// It opens `/events` and, on an event of type `change` whose data (a watermark) differs from
/// the page's, fetches the page's own URL again. Neither request, nor any link or asset, carries
/// the access token: the server must accept it from a cookie.
pub const JS: &str = include_str!("../assets/app.js");

/// What every page carries besides its own view.
#[derive(Debug, Clone)]
pub struct Chrome {
    /// What the database is (`Source::describe`).
    pub source: String,
    /// A fleet or a loop's runs.
    pub kind: Kind,
    /// The server's clock when the page was made (ms since the Unix epoch).
    pub now: i64,
    /// The source's watermark the page was made from: the script compares it with the ones the
    /// server pushes.
    pub watermark: String,
    /// Whether the page offers actions (`--allow-actions`).
    pub actions: bool,
    /// The value every action form carries in its `csrf` field.
    pub csrf: String,
    /// A message about the action just done, shown once.
    pub flash: Option<String>,
    /// Agents held by a rate limit now, shown at the top of every page (the queue and analytics
    /// pages add their views' own).
    pub held: Vec<Hold>,
}

/// The queue: counts by state, filters, search, one page of tasks.
pub fn queue_page(chrome: &Chrome, query: &QueueQuery, view: &QueueView) -> Markup {
    let title = match query.state {
        Some(state) => format!("Queue: {}", state.label()),
        None => "Queue".to_owned(),
    };
    let held: Vec<&Hold> = chrome.held.iter().chain(&view.held).collect();
    page(
        chrome,
        &title,
        Nav::Queue,
        &held,
        queue::main(chrome, query, view),
    )
}

/// One task's timeline.
pub fn task_page(chrome: &Chrome, view: &TaskView) -> Markup {
    let title = format!("Task {}", view.row.id);
    let held: Vec<&Hold> = chrome.held.iter().collect();
    page(chrome, &title, Nav::Other, &held, task::main(chrome, view))
}

/// Failures, success and time, with charts.
pub fn analytics_page(chrome: &Chrome, view: &Analytics) -> Markup {
    let held: Vec<&Hold> = chrome.held.iter().chain(&view.held).collect();
    page(
        chrome,
        "Analytics",
        Nav::Analytics,
        &held,
        analytics::main(chrome.now, view),
    )
}

/// A page that says what went wrong (no such task, a database error) with its status.
pub fn message_page(chrome: &Chrome, title: &str, message: &str) -> Markup {
    let held: Vec<&Hold> = chrome.held.iter().collect();
    let main = html! {
        h1 { (title) }
        p { (message) }
        p { a href="/" { "Back to the queue" } }
    };
    page(chrome, title, Nav::Other, &held, main)
}

/// `/metrics` in Prometheus' text exposition format.
pub fn metrics(view: &Metrics, now: i64) -> String {
    metrics::render(view, now)
}
