//! Views → HTML and `/metrics` text. Pure functions: data in, text out. Pages are maud
//! templates compiled into the binary; the stylesheet and the few lines of script for live
//! updates are compiled in too ([`CSS`], [`JS`]) and served from the dashboard's own origin.
//! Every page works with scripts off; the script only adds live updates and countdowns.

use maud::{DOCTYPE, Markup, html};

use crate::view::{Analytics, Kind, Metrics, QueueQuery, QueueView, TaskView};

/// The stylesheet, served at `/assets/app.css`.
pub const CSS: &str = "";

/// The script, served at `/assets/app.js`: live updates over server-sent events, countdowns.
pub const JS: &str = "";

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
}

/// The queue: counts by state, filters, search, one page of tasks.
pub fn queue_page(chrome: &Chrome, query: &QueueQuery, view: &QueueView) -> Markup {
    let _ = (query, view);
    page(chrome, "Queue", html! {})
}

/// One task's timeline.
pub fn task_page(chrome: &Chrome, view: &TaskView) -> Markup {
    let _ = view;
    page(chrome, "Task", html! {})
}

/// Failures, success and time, with charts.
pub fn analytics_page(chrome: &Chrome, view: &Analytics) -> Markup {
    let _ = view;
    page(chrome, "Analytics", html! {})
}

/// A page that says what went wrong (no such task, a database error) with its status.
pub fn message_page(chrome: &Chrome, title: &str, message: &str) -> Markup {
    page(chrome, title, html! { p { (message) } })
}

/// `/metrics` in Prometheus' text exposition format.
pub fn metrics(view: &Metrics, now: i64) -> String {
    let _ = (view, now);
    String::new()
}

fn page(chrome: &Chrome, title: &str, main: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { (title) " · verdict" }
            }
            body data-watermark=(chrome.watermark) data-now=(chrome.now) {
                main { (main) }
            }
        }
    }
}
