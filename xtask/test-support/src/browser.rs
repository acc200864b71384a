//! Headless Chromium for the tests that look at a page as a person would: the distribution's
//! Chromium (`/usr/bin/chromium`) driven through its WebDriver (`/usr/bin/chromedriver`) with the
//! `fantoccini` client, over plain HTTP on loopback.
//!
//! [`Browser::start`] starts chromedriver on a free loopback port, in a process group of its own
//! led by a small guard that ends the group when the test process ends, however it ends. It
//! opens one session: Chromium headless, as root without its sandbox, with a fresh empty profile,
//! and with everything it would fetch in the background switched off (on this closed network it
//! otherwise stalls on it). Every request Chromium makes to another host goes through
//! a proxy that is a listener in this process: loopback bypasses proxies, so what reaches it is
//! exactly what the page asked of another origin ([`Browser::foreign_requests`]).
//!
//! The handle is synchronous: it owns a single-threaded tokio runtime and blocks on each command,
//! so a plain `#[test]` can use it. Dropping it ends the session, kills chromedriver's process
//! group and any process still running on its profile, and removes the profile. When the test
//! panics, the drop keeps a screenshot first.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

/// The distribution's Chromium.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Its WebDriver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// What installs both when one is missing.
const INSTALL: &str =
    "run `cargo xtask tools` (it runs `apt-get install -y chromium chromium-driver`)";

/// How long chromedriver may take to listen, and Chromium to open its session.
const START_LIMIT: Duration = Duration::from_secs(60);

/// How often [`Browser::wait_for`] looks again.
const POLL: Duration = Duration::from_millis(100);

/// Chromium's switches. Root needs `--no-sandbox`; the rest keep the browser itself from
/// reaching out (to update, sync, fetch models or the network time, report crashes), which on a
/// closed network stalls it and would show up as foreign requests.
const SWITCHES: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--disable-crash-reporter",
    "--disable-dev-shm-usage",
    "--disable-default-apps",
    "--disable-extensions",
    "--no-default-browser-check",
    "--metrics-recording-only",
    // The network time, models, translation, casting, the preconnect to the default search
    // engine (DuckDuckGo in Debian's build) on every navigation, the autofill server that
    // every page with a form is reported to, and the omnibox's AI Mode eligibility check
    // (`www.google.com/async/folae`, which Debian's Chromium 148 was seen to make at start-up).
    "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter,\
     PreconnectToSearch,PreconnectToSearchNonGoogle,AutofillServerCommunication,AimEnabled",
    // Sign-in and the on-demand component installs (the on-device model manifest) have no
    // switch that silences them: pointed at a closed loopback port, they stay off the network.
    "--gaia-url=http://127.0.0.1:9/",
    "--component-updater=url-source=http://127.0.0.1:9/",
];

/// The window's size, as a laptop's.
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 900;

/// One headless Chromium with one page, and the proxy that sees its foreign requests.
pub struct Browser {
    /// The test's name: its screenshot is `<name>.png` under [`artifacts_dir`].
    name: String,
    runtime: tokio::runtime::Runtime,
    /// `None` once the session is closed.
    client: Option<Client>,
    driver: Child,
    /// The profile, removed after every process using it is gone.
    profile: Option<tempfile::TempDir>,
    proxy: Proxy,
}

impl Browser {
    /// Starts chromedriver and a headless Chromium for the test `name`; fails the test, naming
    /// the command that installs them, when either is missing.
    pub fn start(name: &str) -> Browser {
        for path in [CHROMIUM, CHROMEDRIVER] {
            assert!(Path::new(path).is_file(), "{path} is missing: {INSTALL}");
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime for the WebDriver client");
        let profile = tempfile::Builder::new()
            .prefix("verdict-chromium-")
            .tempdir()
            .expect("a temporary profile directory");
        let proxy = Proxy::start();
        let (driver, port) = start_driver(profile.path());
        let mut browser = Browser {
            name: name.to_owned(),
            runtime,
            client: None,
            driver,
            profile: Some(profile),
            proxy,
        };
        let client = browser.connect(port);
        browser.client = Some(client);
        browser
    }

    /// Opens the WebDriver session on chromedriver at `port`.
    fn connect(&mut self, port: u16) -> Client {
        let profile = self.profile.as_ref().expect("the profile").path();
        let mut args: Vec<String> = SWITCHES.iter().map(|s| (*s).to_owned()).collect();
        args.push(format!(
            "--user-data-dir={}",
            profile.join("data").display()
        ));
        args.push(format!("--proxy-server=127.0.0.1:{}", self.proxy.port));
        args.push(format!("--window-size={WIDTH},{HEIGHT}"));
        let capabilities = json!({
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": args,
                // The first tab is blank: the new tab page, which Chromium opens otherwise, is
                // DuckDuckGo's start page with Debian's default search engine.
                "prefs": {
                    "session": { "restore_on_startup": 4, "startup_urls": ["about:blank"] },
                },
            },
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!("the capabilities are a JSON object")
        };
        let url = format!("http://127.0.0.1:{port}");
        let connecting = async {
            ClientBuilder::new(HttpConnector::new())
                .capabilities(capabilities)
                .connect(&url)
                .await
        };
        match self
            .runtime
            .block_on(async { tokio::time::timeout(START_LIMIT, connecting).await })
        {
            Ok(Ok(client)) => client,
            Ok(Err(e)) => panic!("chromedriver did not start Chromium: {e}"),
            Err(_) => panic!("Chromium did not start within {START_LIMIT:?}"),
        }
    }

    fn client(&self) -> &Client {
        self.client.as_ref().expect("the WebDriver session is open")
    }

    /// Runs one WebDriver command; a failure fails the test with `what`.
    #[track_caller]
    fn run<T, E: std::fmt::Display>(
        &self,
        what: &str,
        command: impl std::future::Future<Output = Result<T, E>>,
    ) -> T {
        // A match, not a closure: the panic then names the test's line.
        match self.runtime.block_on(command) {
            Ok(value) => value,
            Err(e) => panic!("failed to {what}: {e}"),
        }
    }

    /// Loads `url` and waits for its `load` event.
    #[track_caller]
    pub fn goto(&self, url: &str) {
        self.run(&format!("load {url}"), self.client().goto(url));
    }

    /// The page's address now.
    #[track_caller]
    pub fn url(&self) -> String {
        self.run("read the address", self.client().current_url())
            .to_string()
    }

    /// The text of the page as rendered (`document.body.innerText`).
    #[track_caller]
    pub fn text(&self) -> String {
        let text = self.script("return document.body ? document.body.innerText : '';");
        text.as_str().unwrap_or_default().to_owned()
    }

    /// The page's HTML as the DOM holds it now (script changes included).
    #[track_caller]
    pub fn html(&self) -> String {
        self.run("read the page's HTML", self.client().source())
    }

    /// The rendered text of the first element matching `css`, or `None` when there is none.
    pub fn text_of(&self, css: &str) -> Option<String> {
        let client = self.client();
        self.runtime.block_on(async {
            let element = client.find(Locator::Css(css)).await.ok()?;
            element.text().await.ok()
        })
    }

    /// How many elements match `css`.
    #[track_caller]
    pub fn count(&self, css: &str) -> usize {
        self.run(
            &format!("find {css}"),
            self.client().find_all(Locator::Css(css)),
        )
        .len()
    }

    /// Clicks the first element matching `css`.
    #[track_caller]
    pub fn click(&self, css: &str) {
        let client = self.client();
        self.run(&format!("click {css}"), async {
            client.find(Locator::Css(css)).await?.click().await
        });
    }

    /// Types `text` into the first element matching `css`.
    #[track_caller]
    pub fn type_into(&self, css: &str, text: &str) {
        let client = self.client();
        self.run(&format!("type into {css}"), async {
            client.find(Locator::Css(css)).await?.send_keys(text).await
        });
    }

    /// Runs `script` (a function body: `return` gives its value) in the page.
    #[track_caller]
    pub fn script(&self, script: &str) -> Value {
        self.run(
            "run a script in the page",
            self.client().execute(script, Vec::new()),
        )
    }

    /// [`Browser::script`], or `None` when it fails (as it may while a page is being replaced):
    /// for the checks a wait repeats.
    pub fn try_script(&self, script: &str) -> Option<Value> {
        let client = self.client();
        self.runtime
            .block_on(client.execute(script, Vec::new()))
            .ok()
    }

    /// The addresses of every resource the page loaded, as its Resource Timing entries list
    /// them (`performance.getEntriesByType('resource')`).
    pub fn resources(&self) -> Vec<String> {
        let names =
            self.script("return performance.getEntriesByType('resource').map(e => e.name);");
        names
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect()
    }

    /// The request lines (`GET http://…`, `CONNECT host:443`) that reached the proxy: every
    /// request of Chromium to a host other than loopback, in order.
    pub fn foreign_requests(&self) -> Vec<String> {
        self.proxy.seen()
    }

    /// Saves a screenshot of the whole page (not only what the window shows) as `<name>.png`
    /// under [`artifacts_dir`] and returns its path; it stays after the test.
    #[track_caller]
    pub fn screenshot(&self) -> PathBuf {
        let sizes = self.script(
            "return [document.documentElement.scrollHeight, window.outerHeight - window.innerHeight];",
        );
        let size = |i: usize| sizes[i].as_u64().unwrap_or(0);
        // The window grows to the page for the shot, within a bound, then shrinks back.
        let tall =
            u32::try_from((size(0) + size(1)).clamp(u64::from(HEIGHT), 12_000)).unwrap_or(HEIGHT);
        let client = self.client();
        let png = self.run("take a screenshot", async {
            client.set_window_size(WIDTH, tall).await?;
            let png = client.screenshot().await;
            client.set_window_size(WIDTH, HEIGHT).await?;
            png
        });
        let path = artifacts_dir().join(format!("{}.png", self.name));
        std::fs::write(&path, png)
            .unwrap_or_else(|e| panic!("failed to write {}: {e}", path.display()));
        path
    }

    /// Polls `check` until it returns `Some` (its value is returned) or `limit` passes, when the
    /// test fails with `what` and the page's text (and a screenshot is kept).
    #[track_caller]
    pub fn wait_for<T>(
        &self,
        what: &str,
        limit: Duration,
        mut check: impl FnMut(&Browser) -> Option<T>,
    ) -> T {
        let start = Instant::now();
        loop {
            if let Some(found) = check(self) {
                return found;
            }
            if start.elapsed() > limit {
                let shot = self.screenshot();
                panic!(
                    "waited {limit:?} for {what}; screenshot {}; the page says:\n{}",
                    shot.display(),
                    self.text()
                );
            }
            std::thread::sleep(POLL);
        }
    }

    /// [`Browser::wait_for`] until the page's text contains `needle`.
    #[track_caller]
    pub fn wait_for_text(&self, needle: &str, limit: Duration) {
        self.wait_for(&format!("the page to show {needle:?}"), limit, |page| {
            let text = page.try_script("return document.body ? document.body.innerText : '';");
            text.and_then(|t| t.as_str().map(|t| t.contains(needle)))
                .unwrap_or(false)
                .then_some(())
        });
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if std::thread::panicking() && self.client.is_some() {
            // What the page showed when the test failed; never a second panic.
            let client = self.client();
            if let Ok(png) = self.runtime.block_on(client.screenshot()) {
                let _ = std::fs::write(artifacts_dir().join(format!("{}.png", self.name)), png);
            }
        }
        if let Some(client) = self.client.take() {
            let _ = self.runtime.block_on(async {
                tokio::time::timeout(Duration::from_secs(10), client.close()).await
            });
        }
        kill_group(&mut self.driver);
        if let Some(profile) = self.profile.take() {
            kill_users_of(profile.path());
            let _ = profile.close();
        }
    }
}

/// `target/test-artifacts/dashboard`, created: under `$CARGO_TARGET_DIR` when it is set, else
/// the workspace's `target/`.
pub fn artifacts_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| crate::repo_root().join(dir))
        .unwrap_or_else(|| crate::repo_root().join("target"));
    let dir = target.join("test-artifacts/dashboard");
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("failed to create {}: {e}", dir.display()));
    dir
}

/// The guard chromedriver runs under: `$@` is chromedriver's command. The guard leads the
/// process group that chromedriver and Chromium join, and kills that group when chromedriver
/// exits or when its standard input (a pipe the test process holds) closes: a test process that
/// is killed, and so never drops its [`Browser`], leaves no browser behind.
const GUARD: &str = r#"
exec 3<&0
"$@" </dev/null 3<&- &
driver=$!
{ while read -r _; do :; done; kill -KILL 0; } <&3 &
exec 3<&-
wait "$driver"
kill -KILL 0
"#;

/// Starts chromedriver (under [`GUARD`]) on a free loopback port, its home in `profile`; the
/// guard and the port. A port taken between finding it free and chromedriver binding it makes
/// chromedriver exit, and another is tried.
fn start_driver(profile: &Path) -> (Child, u16) {
    let mut failures = Vec::new();
    for _ in 0..3 {
        let port = free_port();
        let mut driver = Command::new("sh")
            .args(["-c", GUARD, "verdict-chromedriver-guard", CHROMEDRIVER])
            .arg(format!("--port={port}"))
            // Everything Chromium keeps outside its profile (crash reports, caches) goes there too.
            .env("HOME", profile.join("home"))
            .env("XDG_CONFIG_HOME", profile.join("home/.config"))
            .env("XDG_CACHE_HOME", profile.join("home/.cache"))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            // Its own group, with chromedriver and Chromium in it: one signal ends them all.
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("failed to start {CHROMEDRIVER}: {e}"));
        let start = Instant::now();
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return (driver, port);
            }
            if let Ok(Some(status)) = driver.try_wait() {
                let mut err = String::new();
                if let Some(mut pipe) = driver.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut pipe, &mut err);
                }
                failures.push(format!("{status}: {err}"));
                break;
            }
            if start.elapsed() > START_LIMIT {
                kill_group(&mut driver);
                panic!("{CHROMEDRIVER} did not listen on port {port} within {START_LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    panic!("{CHROMEDRIVER} did not start: {failures:?}")
}

/// A loopback port free now (chromedriver binds it a moment later).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|e| panic!("no free loopback port: {e}"))
}

/// Kills `child`'s process group and reaps `child`.
fn kill_group(child: &mut Child) {
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills every process whose command line names `profile`: a Chromium process that left
/// chromedriver's group must not outlive the test.
fn kill_users_of(profile: &Path) {
    let needle = profile.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<i32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(&needle)
            && let Some(pid) = rustix::process::Pid::from_raw(pid)
        {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// The processes whose command line names `dir` (how a test checks that none is left).
pub fn processes_using(dir: &Path) -> Vec<u32> {
    let needle = dir.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains(&needle)
                .then_some(pid)
        })
        .collect()
}

impl Browser {
    /// The profile directory (every Chromium process of this browser names it).
    pub fn profile(&self) -> PathBuf {
        self.profile
            .as_ref()
            .map(|p| p.path().to_path_buf())
            .expect("the profile")
    }
}

/// The proxy Chromium is pointed at: it records each connection's request line and answers
/// 403, so no foreign request gets anywhere.
struct Proxy {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    fn start() -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port for the proxy");
        let port = listener.local_addr().expect("the proxy's address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (record, stopped) = (Arc::clone(&seen), Arc::clone(&stop));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let record = Arc::clone(&record);
                std::thread::spawn(move || refuse(stream, &record));
            }
        });
        Proxy { port, seen, stop }
    }

    fn seen(&self) -> Vec<String> {
        self.seen
            .lock()
            .map(|seen| seen.iter().filter(|s| !s.is_empty()).cloned().collect())
            .unwrap_or_default()
    }
}

/// Whether a proxy request line (`GET http://host:port/path HTTP/1.1`, `CONNECT host:port …`)
/// asks for a loopback host.
fn to_loopback(line: &str) -> bool {
    let Some(target) = line.split_whitespace().nth(1) else {
        return false;
    };
    let authority = target
        .split_once("://")
        .map_or(target, |(_, rest)| rest)
        .split('/')
        .next()
        .unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Records one proxied connection (its request line, or that it sent none) and refuses it.
fn refuse(stream: TcpStream, seen: &Mutex<Vec<String>>) {
    // Counted on arrival: a connection is a foreign request even before its first line comes.
    let index = seen.lock().map_or(0, |mut seen| {
        seen.push("(a connection that sent no request line)".to_owned());
        seen.len() - 1
    });
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut line = String::new();
    if let Ok(clone) = stream.try_clone() {
        let _ = BufReader::new(clone).read_line(&mut line);
    }
    if !line.trim().is_empty()
        && let Ok(mut seen) = seen.lock()
        && let Some(slot) = seen.get_mut(index)
    {
        // Chromium sends some requests for the page's own loopback origin (its favicon) through
        // the proxy all the same: they are refused, but they are not foreign.
        *slot = if to_loopback(&line) {
            String::new()
        } else {
            line.trim().to_owned()
        };
    }
    let mut stream = stream;
    let _ = stream
        .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    let _ = stream.shutdown(Shutdown::Both);
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page the harness is tested on: a heading, and a button whose click changes it.
    const PAGE: &str = r#"<!doctype html><html><head><title>tiny</title></head><body>
<h1 id="title">before the click</h1>
<button id="go" onclick="document.getElementById('title').textContent = 'after the click'">go</button>
</body></html>"#;

    /// Serves [`PAGE`] on a loopback port from a throw-away thread; its address.
    fn serve() -> String {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let address = listener.local_addr().expect("an address");
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream);
                let mut line = String::new();
                // The request's head, up to its blank line.
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let mut stream = reader.into_inner();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\
                     Connection: close\r\n\r\n{PAGE}",
                    PAGE.len()
                );
            }
        });
        format!("http://{address}/")
    }

    #[test]
    fn requests_for_loopback_are_told_from_foreign_ones() {
        for (line, loopback) in [
            ("GET http://127.0.0.1:37019/favicon.ico HTTP/1.1", true),
            ("GET http://localhost:8080/ HTTP/1.1", true),
            ("CONNECT [::1]:443 HTTP/1.1", true),
            ("CONNECT 127.0.0.1:443 HTTP/1.1", true),
            ("GET http://example.com/pixel.png HTTP/1.1", false),
            ("CONNECT www.google.com:443 HTTP/1.1", false),
            ("GET http://127.0.0.1.example.com/ HTTP/1.1", false),
            ("", false),
        ] {
            assert_eq!(to_loopback(line), loopback, "{line}");
        }
    }

    #[test]
    fn loads_reads_clicks_keeps_a_screenshot_and_sees_a_foreign_request() {
        let url = serve();
        let browser = Browser::start("browser-harness");
        browser.goto(&url);
        assert_eq!(
            browser.text_of("#title").as_deref(),
            Some("before the click")
        );
        assert!(
            browser.text().contains("before the click"),
            "{}",
            browser.text()
        );
        assert_eq!(browser.count("button"), 1);
        browser.click("#go");
        browser.wait_for_text("after the click", Duration::from_secs(10));
        assert!(browser.html().contains("after the click"));
        // Loopback bypasses the proxy: the page itself is no foreign request.
        assert_eq!(browser.foreign_requests(), Vec::<String>::new());

        browser.script("new Image().src = 'http://example.com/pixel.png'; return null;");
        let seen = browser.wait_for(
            "the proxy to see example.com",
            Duration::from_secs(10),
            |b| {
                let seen = b.foreign_requests();
                seen.iter()
                    .any(|line| line.contains("example.com"))
                    .then_some(seen)
            },
        );
        assert!(seen[0].contains("example.com"), "{seen:?}");
        assert!(
            browser
                .resources()
                .iter()
                .any(|r| r.contains("example.com/pixel.png")),
            "{:?}",
            browser.resources()
        );

        let shot = browser.screenshot();
        let png = std::fs::read(&shot).expect("the screenshot is kept");
        assert!(png.starts_with(b"\x89PNG"), "{} is no PNG", shot.display());
        assert!(shot.ends_with("test-artifacts/dashboard/browser-harness.png"));

        let profile = browser.profile();
        assert!(
            !processes_using(&profile).is_empty(),
            "Chromium runs on its profile"
        );
        drop(browser);
        assert_eq!(
            processes_using(&profile),
            Vec::<u32>::new(),
            "a process outlived the handle"
        );
        assert!(!profile.exists(), "the profile is removed");
    }

    #[test]
    fn a_test_process_that_dies_leaves_no_browser() {
        let mut browser = Browser::start("browser-guard");
        let profile = browser.profile();
        assert!(
            !processes_using(&profile).is_empty(),
            "Chromium runs on its profile"
        );
        // What the test process's death does: the pipe to the guard closes.
        drop(browser.driver.stdin.take());
        let start = Instant::now();
        while !processes_using(&profile).is_empty() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "still running: {:?}",
                processes_using(&profile)
            );
            std::thread::sleep(POLL);
        }
        let status = browser.driver.wait().expect("the guard is reaped");
        assert!(!status.success(), "the guard ended its group: {status}");
    }
}
