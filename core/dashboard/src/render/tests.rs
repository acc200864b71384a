//! Tests of whole pages built from hand-made views: structure (tables, labels, badges),
//! escaping, actions only where allowed, no other origin anywhere, and render time.

use std::time::Instant;

use super::*;
use crate::view::{AttemptView, Fingerprint, Group, HistoryEntry, Redacted, State, TaskRow};

// 2026-11-29 14:03:20 UTC.
const NOW: i64 = 1_795_961_000_000;
const EVIL: &str = "<script>alert(1)</script>";

fn chrome(kind: Kind, actions: bool) -> Chrome {
    Chrome {
        source: "/srv/fleet.db".into(),
        kind,
        now: NOW,
        watermark: "w-41".into(),
        actions,
        csrf: "csrf-token-1".into(),
        flash: None,
        held: Vec::new(),
    }
}

fn r(text: &str) -> Redacted {
    Redacted::new(text)
}

fn row(id: usize, state: State) -> TaskRow {
    TaskRow {
        id: format!("t{id}"),
        key: r(&format!("key-{id}")),
        title: r(&format!("Fix the flaky test number {id}")),
        state,
        campaign: Some(r("q4")),
        agent: r("claude"),
        attempts: 2,
        max_attempts: Some(3),
        next_retry_at: (state == State::RetryScheduled).then_some(NOW + 42_000),
        reason: Some(r("2 tests failed")),
        category: Some("test".into()),
        worker: (state == State::Running).then(|| r("worker-a")),
        running_since: (state == State::Running).then_some(NOW - 65_000),
        updated_at: NOW - 180_000,
    }
}

fn queue_view(rows: usize) -> QueueView {
    QueueView {
        counts: State::ALL
            .into_iter()
            .map(|s| (s, if s == State::Expired { 0 } else { 1_000 }))
            .collect(),
        campaigns: vec!["q4".into(), "q3".into()],
        agents: vec!["claude".into(), "codex".into()],
        rows: (0..rows)
            .map(|i| row(i, State::ALL[i % State::ALL.len()]))
            .collect(),
        total: 10_000,
        held: vec![Hold {
            agent: "claude".into(),
            until: NOW + 42_000,
        }],
    }
}

fn query() -> QueueQuery {
    QueueQuery {
        per_page: 50,
        ..QueueQuery::default()
    }
}

fn attempt(number: u32, outcome: Option<&str>) -> AttemptView {
    AttemptView {
        number,
        agent: Some(r("claude")),
        worker: Some(r("worker-a")),
        started_at: NOW - 600_000,
        finished_at: outcome.map(|_| NOW - 300_000),
        agent_ms: 240_000,
        verify_ms: 60_000,
        outcome: outcome.map(str::to_owned),
        counted: number != 2,
        reason: Some(r("tests failed")),
        category: Some("test".into()),
        fingerprints: vec![r("assertion failed: left == right in tests::parse")],
        digest: Some(r("2 failures:\n  tests::parse")),
        retry_delay_ms: Some(30_000),
        tokens: Some(12_345),
        cost_usd: Some(0.42),
    }
}

fn task_view(state: State, can_retry: bool) -> TaskView {
    TaskView {
        row: row(7, state),
        text: r(EVIL),
        workspace: r("/srv/repo"),
        workdir: Some(r("/srv/work/t7")),
        branch: Some(r("verdict/t7")),
        guidance: Some(r("Look at the parser first")),
        cost_usd: Some(1.25),
        deadline_at: Some(NOW + 3_600_000),
        attempts: vec![
            attempt(1, Some("failed")),
            attempt(2, Some("interrupted")),
            attempt(3, None),
        ],
        history: vec![
            HistoryEntry {
                at: NOW - 900_000,
                action: "added".into(),
                detail: None,
            },
            HistoryEntry {
                at: NOW - 100_000,
                action: "retry".into(),
                detail: Some(r("Look at the parser first")),
            },
        ],
        diff: Some(r(
            "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-old()\n+new()\n same",
        )),
        can_retry,
    }
}

fn group(name: &str, n: u64) -> Group {
    Group {
        name: name.into(),
        attempts: n * 3,
        tasks: n,
        finished: n,
        passed: n / 2,
        success_rate: Some(0.5),
        attempts_to_success: Some(1.5),
    }
}

fn analytics(fingerprints: usize) -> Analytics {
    Analytics {
        tasks: 10_000,
        finished: 8_000,
        success_rate: Some(0.8),
        attempts: 14_000,
        by_category: vec![group("test", 40), group("lint", 10), group("typecheck", 5)],
        by_agent: vec![group("claude", 6_000), group("codex", 4_000)],
        by_campaign: vec![group("q4", 10_000)],
        fingerprints: (0..fingerprints)
            .map(|i| Fingerprint {
                text: r(&format!("error[E0308]: mismatched types in module_{i}")),
                occurrences: 200 - i as u64,
                tasks: 10,
                unfixed: 2,
            })
            .collect(),
        attempts_to_success: Some(1.4),
        agent_ms: 3_600_000,
        verify_ms: 1_200_000,
        held: vec![Hold {
            agent: "codex".into(),
            until: NOW + 120_000,
        }],
        as_of: NOW - 3_000,
    }
}

/// Every page the renderer makes, for checks that hold on all of them.
fn every_page(chrome: &Chrome) -> Vec<(&'static str, String)> {
    vec![
        (
            "queue",
            queue_page(chrome, &query(), &queue_view(50)).into_string(),
        ),
        (
            "task",
            task_page(chrome, &task_view(State::Escalated, true)).into_string(),
        ),
        (
            "running task",
            task_page(chrome, &task_view(State::Running, false)).into_string(),
        ),
        (
            "analytics",
            analytics_page(chrome, &analytics(20)).into_string(),
        ),
        (
            "message",
            message_page(chrome, "No such task", "There is no task t9.").into_string(),
        ),
    ]
}

/// Every `<input>`, `<select>` and `<textarea>` (but hidden ones) has a `<label for>`.
fn assert_labelled(html: &str) {
    for tag in ["<input ", "<select ", "<textarea "] {
        for (at, _) in html.match_indices(tag) {
            let end = at + html[at..].find('>').expect("a tag ends");
            let element = &html[at..end];
            if element.contains(r#"type="hidden""#) {
                continue;
            }
            let id = element
                .split(r#"id=""#)
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_else(|| panic!("no id on {element}"));
            assert!(
                html.contains(&format!(r#"<label for="{id}">"#)),
                "no label for {element}"
            );
        }
    }
}

/// Whether `html` has an attribute like `onclick=`, which the CSP would block.
fn has_inline_handler(html: &str) -> bool {
    html.match_indices(" on").any(|(at, _)| {
        let rest = &html[at + 3..];
        let name_len = rest.bytes().take_while(u8::is_ascii_lowercase).count();
        name_len > 0 && rest[name_len..].starts_with('=')
    })
}

#[test]
fn every_page_has_the_shared_frame() {
    for (name, html) in every_page(&chrome(Kind::Fleet, false)) {
        assert!(html.starts_with("<!DOCTYPE html>"), "{name}");
        assert!(
            html.contains(r#"<body data-watermark="w-41" data-now="1795961000000">"#),
            "{name}"
        );
        assert!(
            html.contains(r#"<link rel="stylesheet" href="/assets/app.css">"#),
            "{name}"
        );
        assert!(
            html.contains(r#"<script src="/assets/app.js" defer></script>"#),
            "{name}"
        );
        assert!(
            html.contains("<code>/srv/fleet.db</code>"),
            "{name}: the source"
        );
        for link in [r#"href="/""#, r#"href="/analytics""#, r#"href="/metrics""#] {
            assert!(html.contains(link), "{name}: {link}");
        }
        assert!(html.contains(r#"<main id="main""#), "{name}");
        assert!(html.contains(r#"id="live""#), "{name}: the live indicator");
        assert_labelled(&html);
    }
}

/// The values of every `name="…"` attribute in `html`.
fn attribute_values<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let needle = format!(r#" {name}=""#);
    html.match_indices(&needle)
        .filter_map(|(at, _)| html[at + needle.len()..].split('"').next())
        .collect()
}

#[test]
fn ids_are_unique_and_every_reference_names_one() {
    let mut chrome = chrome(Kind::Fleet, true);
    chrome.held = vec![Hold {
        agent: "codex".into(),
        until: NOW + 5_000,
    }];
    for (name, html) in every_page(&chrome) {
        let ids = attribute_values(&html, "id");
        let unique: std::collections::BTreeSet<_> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{name}: a repeated id in {ids:?}");
        let mut references = attribute_values(&html, "for");
        references.extend(attribute_values(&html, "aria-labelledby"));
        references.extend(attribute_values(&html, "aria-describedby"));
        let anchors = attribute_values(&html, "href");
        references.extend(anchors.iter().filter_map(|h| h.strip_prefix('#')));
        assert!(!references.is_empty(), "{name}");
        for reference in references {
            assert!(
                ids.contains(&reference),
                "{name}: nothing has the id {reference}"
            );
        }
    }
}

#[test]
fn no_page_or_asset_names_another_origin_or_inlines_code() {
    let mut chrome = chrome(Kind::Fleet, true);
    chrome.flash = Some("2 tasks paused".into());
    let mut texts = every_page(&chrome);
    texts.push(("app.css", CSS.to_owned()));
    texts.push(("app.js", JS.to_owned()));
    for (name, text) in &texts {
        let lower = text.to_ascii_lowercase();
        for scheme in ["http://", "https://", "//cdn", "url("] {
            assert!(!lower.contains(scheme), "{name} names {scheme}");
        }
        if name.starts_with("app.") {
            continue;
        }
        assert!(!lower.contains(" style="), "{name} has a style attribute");
        assert!(!lower.contains("<style"), "{name} has inline style");
        assert_eq!(
            lower.matches("<script").count(),
            1,
            "{name}: one script, by src"
        );
        assert!(
            !has_inline_handler(&lower),
            "{name}: an inline event handler"
        );
    }
    assert!(CSS.contains(":focus-visible"), "a visible focus outline");
    assert!(JS.contains(r#"new EventSource("/events")"#));
}

#[test]
fn task_text_is_shown_as_text_on_every_page() {
    let mut chrome = chrome(Kind::Fleet, true);
    chrome.source = EVIL.into();
    chrome.flash = Some(EVIL.into());
    let mut queue = queue_view(3);
    queue.rows[0].title = r(EVIL);
    queue.campaigns.push(EVIL.into());
    let mut stats = analytics(2);
    stats.fingerprints[0].text = r(EVIL);
    stats.by_category[0].name = EVIL.into();
    let pages = [
        queue_page(&chrome, &query(), &queue).into_string(),
        task_page(&chrome, &task_view(State::Failed, true)).into_string(),
        analytics_page(&chrome, &stats).into_string(),
        message_page(&chrome, EVIL, EVIL).into_string(),
    ];
    for html in pages {
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
    }
}

#[test]
fn the_queue_is_a_table_with_a_badge_for_every_state() {
    let html = queue_page(&chrome(Kind::Fleet, false), &query(), &queue_view(50)).into_string();
    assert!(
        html.contains("<table class=\"tasks\"><caption>Tasks"),
        "{html}"
    );
    for header in [
        "Task", "Title", "State", "Campaign", "Agent", "Attempts", "Details",
    ] {
        assert!(
            html.contains(&format!(r#"<th scope="col">{header}</th>"#))
                || html.contains(&format!(r#"<th scope="col" class="num">{header}</th>"#)),
            "no header {header}"
        );
    }
    assert_eq!(html.matches(r#"<th scope="row">"#).count(), 50);
    for state in State::ALL {
        let badge = format!(
            r#"<span class="badge state-{}">{}</span>"#,
            state.as_str(),
            state.label()
        );
        // One in the counts, and one per row in that state (50 rows over 10 states).
        assert_eq!(html.matches(&badge).count(), 6, "{badge}");
        assert!(html.contains(&format!(r#"<option value="{}">"#, state.as_str())));
    }
    assert!(html.contains(r#"<a href="/tasks/t3">t3</a>"#));
    assert!(html.contains(r#"<td class="num" data-label="Attempts">2/3</td>"#));
    assert!(
        html.contains(r#"href="/?state=expired" class="count zero""#),
        "zero is dimmed"
    );
    assert!(html.contains(r#"<form class="filters" method="get" action="/""#));
    assert!(html.contains(r#"<button type="submit" class="button">Filter</button>"#));
}

#[test]
fn queue_rows_say_what_their_state_needs() {
    let html = queue_page(&chrome(Kind::Fleet, false), &query(), &queue_view(3)).into_string();
    // Row 1 runs: its worker and how long, ticking.
    assert!(html.contains(r#"on worker-a for <time datetime="2026-11-29T14:02:15Z" data-since="1795960935000">1 min 5 s</time>"#), "{html}");
    // Row 2 waits for a retry: when, a countdown, and why.
    assert!(html.contains(r#"next <time datetime="2026-11-29T14:04:02Z">2026-11-29 14:04:02 UTC</time>, <time datetime="2026-11-29T14:04:02Z" data-due="1795961042000">in 42 s</time>"#), "{html}");
    assert!(
        html.contains(r#"<span class="category">test</span>: 2 tests failed"#),
        "{html}"
    );
    // The held agent from the view.
    assert!(
        html.contains("<strong>claude</strong> held by a rate limit until"),
        "{html}"
    );
}

#[test]
fn paging_keeps_the_filters_and_counts_the_range() {
    let mut query = query();
    query.campaign = Some("q4".into());
    query.search = Some("flaky test".into());
    let html = queue_page(&chrome(Kind::Fleet, false), &query, &queue_view(50)).into_string();
    assert!(html.contains("1–50 of 10\u{202f}000"), "{html}");
    assert!(
        html.contains(r#"href="/?campaign=q4&amp;q=flaky%20test&amp;page=1" rel="next""#),
        "{html}"
    );
    assert!(!html.contains(r#"rel="prev""#));
    assert!(html.contains(r#"<option value="q4" selected>q4</option>"#));
    assert!(html.contains(r#"value="flaky test""#));
    query.page = 199;
    let html = queue_page(&chrome(Kind::Fleet, false), &query, &queue_view(50)).into_string();
    assert!(
        html.contains("9\u{202f}951–10\u{202f}000 of 10\u{202f}000"),
        "{html}"
    );
    assert!(html.contains(r#"page=198" rel="prev""#) && !html.contains(r#"rel="next""#));
}

#[test]
fn an_empty_queue_says_so() {
    let mut view = queue_view(0);
    view.total = 0;
    let html = queue_page(&chrome(Kind::Fleet, false), &query(), &view).into_string();
    assert!(html.contains("No task matches these filters"), "{html}");
    assert!(!html.contains("<table"));
}

#[test]
fn actions_need_the_flag_and_a_fleet() {
    for chrome in [
        chrome(Kind::Fleet, false),
        chrome(Kind::Loop, true),
        chrome(Kind::Loop, false),
    ] {
        let mut query = query();
        query.campaign = Some("q4".into());
        let pages = [
            task_page(&chrome, &task_view(State::Escalated, true)).into_string(),
            task_page(&chrome, &task_view(State::Paused, false)).into_string(),
            queue_page(&chrome, &query, &queue_view(5)).into_string(),
        ];
        for html in &pages {
            assert!(
                !html.contains(r#"method="post""#),
                "{:?}: {html}",
                chrome.kind
            );
            assert!(!html.contains("csrf-token-1"), "{:?}", chrome.kind);
            assert!(!html.contains("<textarea"), "{:?}", chrome.kind);
        }
        let why = match chrome.kind {
            Kind::Loop => "A loop's runs take no actions from this page",
            Kind::Fleet => "Actions are off",
        };
        assert!(pages[0].contains(why), "{:?}", chrome.kind);
    }
}

#[test]
fn actions_fit_the_task_and_carry_the_csrf_value() {
    let chrome = chrome(Kind::Fleet, true);
    let escalated = task_page(&chrome, &task_view(State::Escalated, true)).into_string();
    assert!(escalated.contains(r#"<form class="retry" method="post" action="/tasks/t7/retry">"#));
    assert!(escalated.contains(r#"<label for="guidance">"#));
    assert!(escalated.contains(r#"<textarea id="guidance" name="guidance""#));
    assert_labelled(&escalated);
    assert!(
        has_inline_handler(r#"<a onclick="x">"#),
        "the check itself sees handlers"
    );
    assert!(
        !escalated.contains("/tasks/t7/cancel"),
        "an ended task is not cancelled"
    );
    let passed = task_page(&chrome, &task_view(State::Passed, false)).into_string();
    assert!(!passed.contains("/retry") && !passed.contains(r#"method="post""#));
    let paused = task_page(&chrome, &task_view(State::Paused, false)).into_string();
    assert!(paused.contains(r#"action="/tasks/t7/resume""#) && paused.contains("/tasks/t7/cancel"));
    assert!(!paused.contains("/tasks/t7/pause"));
    let pending = task_page(&chrome, &task_view(State::Pending, false)).into_string();
    assert!(pending.contains("/tasks/t7/pause") && !pending.contains("/tasks/t7/resume"));
    for html in [&escalated, &paused, &pending] {
        let forms = html.matches(r#"method="post""#).count();
        let tokens = html
            .matches(r#"<input type="hidden" name="csrf" value="csrf-token-1">"#)
            .count();
        assert!(
            forms > 0 && forms == tokens,
            "every form carries the csrf value: {html}"
        );
    }
    let mut query = query();
    query.campaign = Some("q4/eu".into());
    query.agent = Some("claude".into());
    let html = queue_page(&chrome, &query, &queue_view(1)).into_string();
    for path in [
        "/campaigns/q4%2Feu/pause",
        "/campaigns/q4%2Feu/resume",
        "/agents/claude/cancel",
    ] {
        assert!(html.contains(&format!(r#"action="{path}""#)), "{path}");
    }
}

#[test]
fn the_flash_shows_once_as_a_status() {
    let mut chrome = chrome(Kind::Fleet, true);
    chrome.flash = Some("task t7 sent back with guidance".into());
    let html = task_page(&chrome, &task_view(State::Pending, false)).into_string();
    assert!(html.contains(r#"<p class="flash" role="status">task t7 sent back with guidance</p>"#));
    chrome.flash = None;
    assert!(
        !task_page(&chrome, &task_view(State::Pending, false))
            .into_string()
            .contains("flash")
    );
}

#[test]
fn the_task_page_shows_its_timeline_history_and_diff() {
    let mut chrome = chrome(Kind::Fleet, false);
    chrome.held = vec![Hold {
        agent: "codex".into(),
        until: NOW + 5_000,
    }];
    let html = task_page(&chrome, &task_view(State::Escalated, true)).into_string();
    assert!(html.contains(r#"<pre class="text">&lt;script&gt;"#));
    for fact in [
        "Workspace",
        "Work dir",
        "Branch",
        "Guidance",
        "Cost",
        "Deadline",
    ] {
        assert!(html.contains(&format!("<dt>{fact}</dt>")), "{fact}");
    }
    assert!(
        html.contains(r#"<dd><a href="/?campaign=q4">q4</a></dd>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<dd><a href="/?agent=claude">claude</a></dd>"#),
        "{html}"
    );
    assert!(html.contains(r#"<ol class="timeline">"#));
    assert_eq!(html.matches(r#"<li class="attempt""#).count(), 3);
    assert!(html.contains(r#"<span class="badge state-failed">failed</span>"#));
    assert!(html.contains(r#"<span class="badge state-running">running</span>"#));
    assert!(html.contains("not counted") && html.contains(">counted<"));
    assert!(
        html.contains("4 min in the agent, 1 min in verification"),
        "{html}"
    );
    assert!(html.contains("<summary>The digest the next prompt carried</summary>"));
    assert!(html.contains(r#"<pre class="digest">2 failures:"#));
    assert!(html.contains("<code>assertion failed: left == right in tests::parse</code>"));
    assert!(html.contains(r#"<ol class="history">"#) && html.contains("<strong>retry</strong>"));
    assert!(html.contains(r#"<details id="diff">"#));
    assert!(html.contains(r#"<span class="add">+new()</span>"#));
    assert!(html.contains(r#"<span class="del">-old()</span>"#));
    assert!(html.contains("1 added") && html.contains("1 removed"));
    assert!(
        html.contains("<strong>codex</strong> held by a rate limit"),
        "the chrome's holds"
    );
}

#[test]
fn analytics_draws_charts_and_gives_their_numbers() {
    let html = analytics_page(&chrome(Kind::Fleet, false), &analytics(200)).into_string();
    assert!(html.contains(
        r#"<svg class="chart bars" role="img" aria-label="Failed attempts by category""#
    ));
    assert!(html.contains("<title>Failed attempts by category</title>"));
    // test: 120 of 165 failed attempts.
    assert!(
        html.contains(r#"<td class="num">120</td><td class="num">72.7"#),
        "{html}"
    );
    assert_eq!(html.matches("mismatched types in module_").count(), 200);
    assert!(html.contains("Success per agent") && html.contains("Success per campaign"));
    assert!(html.contains("<th scope=\"row\">claude</th>"));
    assert!(html.contains("1 h in agents (75.0\u{a0}%)"), "{html}");
    assert!(
        html.contains("20 min in verification (25.0\u{a0}%)"),
        "{html}"
    );
    assert!(html.contains(r#"<svg class="chart stacked" role="img""#));
    assert!(html.contains("Agents held by a rate limit"));
    assert!(
        html.contains(r#"data-due="1795961120000">in 2 min</time>"#),
        "{html}"
    );
    assert!(html.contains(r#"href="/analytics" aria-current="page""#));
}

#[test]
fn pages_render_well_under_the_budget() {
    let chrome = chrome(Kind::Fleet, true);
    let (queue_view, analytics, query) = (queue_view(50), analytics(200), query());
    let time = |render: &dyn Fn() -> String| {
        let runs = 20;
        let start = Instant::now();
        let mut bytes = 0;
        for _ in 0..runs {
            bytes = render().len();
        }
        (start.elapsed() / runs, bytes)
    };
    let (queue, queue_bytes) = time(&|| queue_page(&chrome, &query, &queue_view).into_string());
    let (stats, stats_bytes) = time(&|| analytics_page(&chrome, &analytics).into_string());
    eprintln!("queue page, 50 rows: {queue:?} ({queue_bytes} bytes)");
    eprintln!("analytics page, 200 fingerprints: {stats:?} ({stats_bytes} bytes)");
    assert!(
        queue.as_millis() < 50 && stats.as_millis() < 50,
        "{queue:?} {stats:?}"
    );
}

#[test]
fn the_script_words_times_as_the_server_does() {
    let deltas: [i64; 12] = [
        -86_400_000 * 3 - 7_200_000,
        -3_700_000,
        -185_000,
        -1_500,
        -999,
        0,
        999,
        1_000,
        42_900,
        3_600_000,
        7_380_000,
        90_000_000,
    ];
    let times: Vec<i64> = deltas.iter().map(|d| NOW + d).collect();
    let input = serde_json::json!({ "due": times, "since": times, "rel": times });
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let node = verdict_test_support::node_bin().join("node");
    let run = std::process::Command::new(&node)
        .arg(dir.join("testdata/tick.js"))
        .arg(dir.join("assets/app.js"))
        .arg(NOW.to_string())
        .arg(input.to_string())
        .output()
        .unwrap_or_else(|e| panic!("failed to start {}: {e}", node.display()));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "app.js did not run under node: {stderr}"
    );
    let words: serde_json::Value =
        serde_json::from_slice(&run.stdout).expect("tick.js prints JSON");
    let expect = serde_json::json!({
        "due": times.iter().map(|&t| time::due(t, NOW)).collect::<Vec<_>>(),
        "since": times.iter().map(|&t| time::span(NOW - t)).collect::<Vec<_>>(),
        "rel": times.iter().map(|&t| time::relative(t, NOW)).collect::<Vec<_>>(),
    });
    assert_eq!(words, expect);
}
