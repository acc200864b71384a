//! `verdict dashboard` as a person sees it: the real binary serving a real fleet (the fixtures of
//! `fleet.rs`: the cart project, the scripted agent, real pytest, SQLite and PostgreSQL), looked
//! at through headless Chromium (`verdict_test_support::browser`). Every scenario runs on both
//! backends and keeps a screenshot under `target/test-artifacts/dashboard/`.
//!
//! Live updates are checked without a reload: a marker set on `window` must survive. The page
//! gets [`LIVE`] to show a change once the database holds it; how long workers take is bounded
//! apart ([`STEP`]).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use verdict_test_support::browser::Browser;

use crate::fleet::{Fleet, finish, on_both_backends, signal};
use crate::r#loop::quote;

/// How long an open page may take to show a change the database already holds.
const LIVE: Duration = Duration::from_secs(10);

/// How long a worker may take to bring a task to the next state.
const STEP: Duration = Duration::from_secs(120);

/// A token in the shape of a GitHub personal access token (`ghp_` and 36 letters and digits),
/// made here so that no secret-shaped text sits in the repository.
fn planted_token() -> String {
    let body: String = (0..36)
        .map(|i| char::from(b"aB3dE5gH7jK9mN1pQ2sT4vW6yZ8"[(i * 7 + 3) % 28]))
        .collect();
    format!("ghp_{body}")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/dashboard")
        .join(name)
}

/// A running `verdict dashboard` over a fleet, its token kept in the fleet's directory.
struct Dashboard {
    child: Option<Child>,
    args: Vec<String>,
    dir: PathBuf,
    port: u16,
    /// The address it printed, with `?token=…`.
    url: String,
    token: String,
}

impl Dashboard {
    /// Starts it on a free loopback port.
    fn start(fleet: &Fleet, actions: bool) -> Dashboard {
        let mut args = vec![
            "dashboard".to_owned(),
            "--state".to_owned(),
            fleet.state.clone(),
            "--token-file".to_owned(),
            fleet.path("dashboard-token").to_string_lossy().into_owned(),
        ];
        if actions {
            args.push("--allow-actions".to_owned());
        }
        let mut dashboard = Dashboard {
            child: None,
            args,
            dir: fleet.path(""),
            port: 0,
            url: String::new(),
            token: String::new(),
        };
        dashboard.launch();
        dashboard
    }

    /// Starts the server on [`Dashboard::port`] (0: any) and reads the address it prints.
    fn launch(&mut self) {
        let err = std::fs::File::create(self.dir.join("dashboard.err")).expect("create");
        let mut child = Command::new(env!("CARGO_BIN_EXE_verdict"))
            .args(&self.args)
            .args(["--listen", &format!("127.0.0.1:{}", self.port)])
            .current_dir(&self.dir)
            .env_remove("VERDICT_DASHBOARD_TOKEN")
            .env_remove("VERDICT_FLEET_STATE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(err)
            .spawn()
            .expect("verdict dashboard starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (lines, printed) = mpsc::channel();
        // Read on: the pipe must never fill while the server runs.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let start = Instant::now();
        let url = loop {
            let left = Duration::from_secs(60).saturating_sub(start.elapsed());
            match printed.recv_timeout(left) {
                Ok(line) if line.trim().starts_with("http://127.0.0.1:") => {
                    break line.trim().to_owned();
                }
                Ok(_) => {}
                Err(_) => panic!(
                    "verdict dashboard printed no address: {}",
                    std::fs::read_to_string(self.dir.join("dashboard.err")).unwrap_or_default()
                ),
            }
        };
        let (address, token) = url.split_once("/?token=").expect("the address has a token");
        let port = address.rsplit(':').next().and_then(|p| p.parse().ok());
        self.port = port.expect("the address has a port");
        self.token = token.to_owned();
        self.url = url.clone();
        self.child = Some(child);
    }

    /// Stops the server as Ctrl-C would and waits for it.
    fn stop(&mut self) {
        if let Some(child) = self.child.take() {
            signal(child.id(), "TERM");
            let out = finish(child, Duration::from_secs(30));
            assert_eq!(out.code, 0, "the dashboard ends cleanly: {}", out.stderr);
        }
    }

    /// Starts it again on the same port with the same token file.
    fn restart(&mut self) {
        let before = self.token.clone();
        self.launch();
        assert_eq!(self.token, before, "a restarted dashboard keeps its token");
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `verdict`'s page for task `id`.
    fn task_url(&self, id: &str) -> String {
        format!("{}/tasks/{id}", self.base())
    }
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The task's id as its page's address names it.
fn id_of(fleet: &Fleet, key: &str) -> String {
    match &fleet.task_status(key)["id"] {
        Value::String(id) => id.clone(),
        other => other.to_string(),
    }
}

/// Waits until the database says task `key` is in `state` (as `verdict fleet status` reads it).
#[track_caller]
fn wait_state(fleet: &Fleet, key: &str, state: &str, limit: Duration) {
    let start = Instant::now();
    loop {
        let task = fleet.task_status(key);
        if task["state"] == state {
            return;
        }
        assert!(
            start.elapsed() < limit,
            "{key} never reached {state}: {task:#}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The rendered text of the queue's row of task `key`, if the page lists it.
fn row_text(browser: &Browser, key: &str) -> Option<String> {
    let key = serde_json::to_string(key).expect("a JSON string");
    let script = format!(
        "const row = [...document.querySelectorAll('main tbody tr')]
             .find(r => r.innerText.includes({key}));
         return row ? row.innerText : null;"
    );
    browser.try_script(&script)?.as_str().map(str::to_owned)
}

/// Waits until the queue's row of `key` says `label` (a state's words).
#[track_caller]
fn wait_row(browser: &Browser, key: &str, label: &str) {
    browser.wait_for(
        &format!("the row of {key} to say {label:?}"),
        LIVE,
        |page| row_text(page, key).filter(|row| row.contains(label)),
    );
}

/// Waits until a task page's heading says `label`.
#[track_caller]
fn wait_heading(browser: &Browser, label: &str) {
    browser.wait_for(&format!("the heading to say {label:?}"), LIVE, |page| {
        page.text_of("main h1").filter(|h1| h1.contains(label))
    });
}

/// Sets a marker on `window`; [`assert_not_reloaded`] checks it is still there.
fn mark(browser: &Browser) {
    browser.script("window.verdictTestMarker = 'kept'; return null;");
}

#[track_caller]
fn assert_not_reloaded(browser: &Browser) {
    assert_eq!(
        browser.script("return window.verdictTestMarker || null;"),
        json!("kept"),
        "the page was reloaded"
    );
}

fn the_page_loads_and_lists_the_fleets_tasks(fleet: Fleet) {
    let keys = ["alpha-task", "beta-task", "gamma-task"];
    let tasks: Vec<Value> = keys.iter().map(|key| fleet.task(key, "fix")).collect();
    fleet.add(&tasks);
    let dashboard = Dashboard::start(&fleet, false);
    // The address as Jupyter prints it: where the page is, with its token.
    let printed = dashboard.url.strip_prefix("http://127.0.0.1:");
    let (port, token) = printed
        .and_then(|rest| rest.split_once("/?token="))
        .unwrap_or_else(|| panic!("{}", dashboard.url));
    assert_eq!(port, dashboard.port.to_string());
    assert!(
        token.len() >= 32 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{token}"
    );
    let browser = Browser::start(&format!("lists-tasks-{}", backend(&fleet)));
    browser.goto(&dashboard.url);
    for key in keys {
        wait_row(&browser, key, "pending");
    }
    // The token moved from the address to a cookie.
    let url = browser.url();
    assert!(!url.contains("token"), "{url}");
    assert_eq!(browser.count("main tbody tr"), 3);
    browser.screenshot();
}

fn a_retry_then_a_pass_shows_without_a_reload(fleet: Fleet) {
    // A test failure waits long enough for the page to show it, then the next attempt runs.
    fleet.repo.write(
        "verdict.toml",
        "[loop.policy.test_failure]\ndelays = [\"8s\"]\n",
    );
    fleet.repo.git(&["add", "-A"]);
    fleet.repo.git(&["commit", "-q", "-m", "a short delay"]);
    let gate = fleet.path("gate");
    let mut line = fleet.task("retry-task", "fix-on-second");
    let agent = line["agent"].as_str().expect("an agent").to_owned();
    line["agent"] = json!(format!(
        "python3 {} {} {agent}",
        quote(&fixture("gate.py").to_string_lossy()),
        quote(&gate.to_string_lossy()),
    ));
    fleet.add(&[line]);
    let id = id_of(&fleet, "retry-task");
    let dashboard = Dashboard::start(&fleet, false);
    let browser = Browser::start(&format!("retry-then-pass-{}", backend(&fleet)));
    browser.goto(&dashboard.url);
    browser.goto(&dashboard.task_url(&id));
    wait_heading(&browser, "pending");
    mark(&browser);

    let worker = fleet.spawn(&["work", "--until-idle", "--min-free-disk", "1"], "w");
    wait_state(&fleet, "retry-task", "retry_scheduled", STEP);
    wait_heading(&browser, "retry scheduled");
    wait_state(&fleet, "retry-task", "running", STEP);
    wait_heading(&browser, "running");
    std::fs::write(&gate, "").expect("open the gate");
    wait_state(&fleet, "retry-task", "passed", STEP);
    wait_heading(&browser, "passed");
    assert_not_reloaded(&browser);
    browser.screenshot();
    let out = finish(worker, STEP);
    assert_eq!(out.code, 0, "the worker ends when nothing waits");
}

fn the_page_catches_up_after_the_server_restarts(fleet: Fleet) {
    fleet.add(&[
        fleet.task("stays-task", "fix"),
        fleet.task("goes-task", "fix"),
    ]);
    let mut dashboard = Dashboard::start(&fleet, false);
    let browser = Browser::start(&format!("catches-up-{}", backend(&fleet)));
    browser.goto(&dashboard.url);
    wait_row(&browser, "goes-task", "pending");
    mark(&browser);

    dashboard.stop();
    let out = fleet.run(&["cancel", "goes-task"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    dashboard.restart();
    wait_row(&browser, "goes-task", "cancelled");
    assert!(
        row_text(&browser, "stays-task").is_some_and(|row| row.contains("pending")),
        "{}",
        browser.text()
    );
    assert_not_reloaded(&browser);
    browser.screenshot();
}

fn the_guidance_form_reaches_the_next_prompt(fleet: Fleet) {
    fleet.add(&[fleet.task("guided-task", "fix-if-guided")]);
    fleet.work(&[]);
    assert_eq!(fleet.task_status("guided-task")["state"], "escalated");
    let id = id_of(&fleet, "guided-task");
    let dashboard = Dashboard::start(&fleet, true);
    let browser = Browser::start(&format!("guidance-{}", backend(&fleet)));
    browser.goto(&dashboard.url);
    browser.goto(&dashboard.task_url(&id));
    wait_heading(&browser, "escalated");

    let guidance = "GUIDE: take the percentage off, not add it";
    browser.type_into("textarea[name=guidance]", guidance);
    browser.click("form[action$='/retry'] [type=submit]");
    // The form's answer sends the browser back to the task, now waiting again (a refused action
    // leaves the refusal on the page, which the failure then shows).
    wait_heading(&browser, "pending");
    assert_eq!(fleet.task_status("guided-task")["state"], "pending");
    fleet.work(&[]);
    assert_eq!(fleet.task_status("guided-task")["state"], "passed");
    let last = fleet.calls_of("guided-task").last().copied();
    let last = last.expect("the agent ran");
    let prompt =
        std::fs::read_to_string(fleet.path(&format!("ready/guided-task-prompt-{last}.txt")))
            .expect("the last prompt");
    assert!(prompt.contains(guidance), "{prompt}");

    // The page, open all along, shows the pass and the retry in the history, with its time.
    wait_heading(&browser, "passed");
    let needle = serde_json::to_string(guidance).expect("a JSON string");
    let entry = browser.script(&format!(
        "const li = [...document.querySelectorAll('main li')]
             .find(li => li.innerText.includes({needle}));
         return li ? {{ text: li.innerText, time: !!li.querySelector('time[datetime]') }} : null;"
    ));
    assert_eq!(entry["time"], json!(true), "{entry}: {}", browser.text());
    let text = entry["text"].as_str().unwrap_or_default().to_lowercase();
    assert!(text.contains("retry"), "{entry}");
    browser.screenshot();
}

/// What one plain HTTP request got: the status and the whole answer.
fn request(port: u16, head: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("the dashboard listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a timeout");
    let text = format!(
        "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(text.as_bytes()).expect("send the request");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read the answer");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    (status, answer)
}

fn requests_without_the_token_or_from_elsewhere_are_refused(fleet: Fleet) {
    fleet.add(&[fleet.task("held-task", "fix")]);
    let id = id_of(&fleet, "held-task");
    let dashboard = Dashboard::start(&fleet, true);
    let (port, token) = (dashboard.port, dashboard.token.clone());
    let host = format!("Host: 127.0.0.1:{port}");
    let bearer = format!("Authorization: Bearer {token}");
    let get = |path: &str, headers: &[&str]| {
        request(
            port,
            &format!("GET {path} HTTP/1.1\r\n{}", headers.join("\r\n")),
            "",
        )
    };

    assert_eq!(get("/", &[&host]).0, 401, "no token");
    assert_eq!(
        get("/?token=0123456789abcdef0123456789abcdef", &[&host]).0,
        401
    );
    assert_eq!(get("/", &[&host, "Authorization: Bearer wrong"]).0, 401);
    assert_eq!(get("/events", &[&host]).0, 401, "the event stream too");
    assert_eq!(get("/metrics", &[&host]).0, 401, "and /metrics");
    let rebound = format!("Host: attacker.example:{port}");
    assert_eq!(get("/", &[&rebound, &bearer]).0, 403, "a foreign Host");
    assert_eq!(get(&format!("/?token={token}"), &[&rebound]).0, 403);
    let (status, page) = get(&format!("/tasks/{id}"), &[&host, &bearer]);
    assert_eq!(status, 200, "{page}");

    // Actions: the form's csrf value and the dashboard's own origin, or nothing happens.
    let csrf = page
        .split_once(r#"name="csrf" value=""#)
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(value, _)| value.to_owned())
        .unwrap_or_else(|| panic!("the task page has a form with a csrf value: {page}"));
    let post = |origin: &str, body: &str| {
        let head = format!(
            "POST /tasks/{id}/pause HTTP/1.1\r\n{host}\r\n{bearer}\r\nOrigin: {origin}\r\n\
             Content-Type: application/x-www-form-urlencoded"
        );
        request(port, &head, body).0
    };
    let own = format!("http://127.0.0.1:{port}");
    assert_eq!(post(&own, ""), 403, "no csrf field");
    assert_eq!(post(&own, "csrf=0000"), 403, "a wrong csrf field");
    assert_eq!(
        post("http://attacker.example", &format!("csrf={csrf}")),
        403
    );
    let task = fleet.task_status("held-task");
    assert_eq!(task["state"], "pending", "nothing was paused: {task:#}");
    assert_eq!(
        post(&own, &format!("csrf={csrf}")),
        303,
        "the real form is taken"
    );

    // A person who opens the bare address is told what is missing.
    let browser = Browser::start(&format!("refused-{}", backend(&fleet)));
    browser.goto(&format!("{}/", dashboard.base()));
    let text = browser.text();
    assert!(text.contains("token"), "{text}");
    browser.screenshot();
}

fn a_planted_secret_never_reaches_a_page(fleet: Fleet) {
    let token = planted_token();
    let secret_file = fleet.path("secret.txt");
    std::fs::write(&secret_file, &token).expect("write the secret");
    let mut line = fleet.task("leaky-task", "fix");
    line["agent"] = json!(format!(
        "python3 {} {}",
        quote(&fixture("leak.py").to_string_lossy()),
        quote(&secret_file.to_string_lossy()),
    ));
    line["max_attempts"] = json!(2);
    fleet.add(&[line]);
    fleet.work(&[]);
    let state = fleet.task_status("leaky-task")["state"].clone();
    assert!(state == "escalated" || state == "failed", "{state}");
    let id = id_of(&fleet, "leaky-task");
    let dashboard = Dashboard::start(&fleet, true);
    let browser = Browser::start(&format!("no-secret-{}", backend(&fleet)));
    browser.goto(&dashboard.url);
    let pages = [
        dashboard.base() + "/",
        dashboard.task_url(&id),
        dashboard.base() + "/analytics",
        dashboard.base() + "/?q=ghp_",
    ];
    let mut html = String::new();
    for page in &pages {
        browser.goto(page);
        // Everything folded away unfolded, as a person clicking through would see it.
        browser.script("document.querySelectorAll('details').forEach(d => d.open = true);");
        let (page_html, text) = (browser.html(), browser.text());
        assert!(
            !page_html.contains(&token),
            "{page} carries the token in its HTML"
        );
        assert!(!text.contains(&token), "{page} shows the token: {text}");
        html.push_str(&page_html);
    }
    // The failing test and what carried the token did reach the pages: redacted.
    assert!(html.contains("test_leaks_a_token"), "{html}");
    assert!(html.contains("[redacted:"), "{html}");
    let (_, metrics) = request(
        dashboard.port,
        &format!(
            "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}",
            dashboard.port, dashboard.token
        ),
        "",
    );
    assert!(!metrics.contains(&token), "/metrics carries the token");
    browser.goto(&dashboard.task_url(&id));
    browser.script("document.querySelectorAll('details').forEach(d => d.open = true);");
    browser.screenshot();
}

fn the_page_makes_no_request_to_another_origin(fleet: Fleet) {
    fleet.add(&[fleet.task("local-task", "fix-on-second")]);
    fleet.work(&[]);
    let id = id_of(&fleet, "local-task");
    let dashboard = Dashboard::start(&fleet, true);
    let browser = Browser::start(&format!("same-origin-{}", backend(&fleet)));
    browser.goto(&dashboard.url);
    let base = dashboard.base();
    for page in [
        base.clone() + "/",
        dashboard.task_url(&id),
        base.clone() + "/analytics",
    ] {
        browser.goto(&page);
        browser.wait_for("the page to finish loading", LIVE, |page| {
            (page.script("return document.readyState;") == json!("complete")).then_some(())
        });
        for resource in browser.resources() {
            assert!(resource.starts_with(&base), "{page} loaded {resource}");
        }
    }
    assert_eq!(browser.foreign_requests(), Vec::<String>::new());
    browser.screenshot();
}

/// `sqlite` or `postgres`: screenshots of the two backends' runs are kept apart.
fn backend(fleet: &Fleet) -> &'static str {
    if fleet.state.starts_with("postgres") {
        "postgres"
    } else {
        "sqlite"
    }
}

on_both_backends!(
    the_page_loads_and_lists_the_fleets_tasks,
    a_retry_then_a_pass_shows_without_a_reload,
    the_page_catches_up_after_the_server_restarts,
    the_guidance_form_reaches_the_next_prompt,
    requests_without_the_token_or_from_elsewhere_are_refused,
    a_planted_secret_never_reaches_a_page,
    the_page_makes_no_request_to_another_origin,
);
