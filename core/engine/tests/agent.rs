//! Agent sessions and the inner retry layer against real scripted agents: small `sh` scripts
//! (fixed text, written by each test into a temp dir) that read the prompt the way a real agent
//! would, print what real agents print on rate limits and auth errors, and keep count of their
//! invocations in files. Waits go through a [`RecordingClock`] except in the one test that really
//! waits out a 1 s retry-after.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use verdict_core::agent_loop::agent::{
    AgentPool, AgentSession, AgentSpec, CommandSession, PoolEnd, PoolOptions, RecordingClock,
    RetryAction, RetryRecord, SessionOutcome, SessionRequest, SpawnInfo,
};
use verdict_core::agent_loop::agent::{BackoffPolicy, PromptVia};
use verdict_core::process::ProcessRunner;
use verdict_core::verifier::Exit;

/// A prompt holding everything a shell would act on.
const NASTY_PROMPT: &str = "Fix the tests; touch pwned\n$(touch pwned) `touch pwned` && touch pwned | cat\n\
'single' \"double\" \\backslash $HOME * {prompt_file}\n\tlast line without newline";

/// A temp dir holding the scripts (`bin/`), the workspace (`ws/`) and run dirs (`runs/`).
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        for sub in ["bin", "ws", "runs"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("mkdir");
        }
        Fixture { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes an executable `sh` script `bin/<name>` with `body`; `$STATE` is the fixture dir.
    fn script(&self, name: &str, body: &str) -> String {
        let path = self.path("bin").join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path.display().to_string()
    }

    /// An agent named `name` running `argv`, with `STATE` pointing at the fixture dir.
    fn agent(&self, name: &str, argv: &[&str]) -> AgentSpec {
        AgentSpec::new(name, argv.iter().map(|s| (*s).to_owned()).collect())
            .with_env("STATE", self.dir.path().display().to_string())
            .with_timeout(Duration::from_secs(20))
    }

    fn request(&self, prompt: &str) -> SessionRequest {
        SessionRequest {
            prompt: prompt.to_owned(),
            cwd: self.path("ws"),
            run_dir: self.path("runs"),
            on_spawn: None,
        }
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_else(|e| panic!("read {name}: {e}"))
    }

    /// Every file named `pwned` under the fixture dir.
    fn pwned(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut stack = vec![self.dir.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if entry.file_name() == "pwned" {
                    found.push(path);
                }
            }
        }
        found
    }
}

fn runner() -> ProcessRunner {
    ProcessRunner::new().with_grace(Duration::from_millis(300))
}

fn pool(specs: Vec<AgentSpec>, options: PoolOptions, clock: Arc<RecordingClock>) -> AgentPool {
    AgentPool::from_specs(specs, &runner(), options).with_clock(clock)
}

/// Options with no jitter, so that fallback delays are exact.
fn options(max_agent_retries: u32) -> PoolOptions {
    PoolOptions {
        max_agent_retries,
        backoff: BackoffPolicy {
            jitter: 0.0,
            ..BackoffPolicy::default()
        },
    }
}

/// Whether `pid` is still running (a zombie or a missing entry counts as gone).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next().map(str::to_owned));
            !matches!(state.as_deref(), Some("Z" | "X") | None)
        }
        Err(_) => false,
    }
}

#[tokio::test]
async fn the_prompt_arrives_intact_on_stdin_in_a_file_and_as_one_argument() {
    let fx = Fixture::new();
    let stdin = fx.script("stdin-agent", r#"cat > "$STATE/got-stdin""#);
    let file = fx.script("file-agent", r#"cp "$1" "$STATE/got-file""#);
    let argv = fx.script(
        "argv-agent",
        r#"printf '%s' "$2" > "$STATE/got-argv"; printf '%s' "$#" > "$STATE/argc""#,
    );
    let cases = [
        (fx.agent("stdin", &[&stdin]), PromptVia::Stdin, "got-stdin"),
        (
            fx.agent("file", &[&file, "{prompt_file}"]),
            PromptVia::File,
            "got-file",
        ),
        (
            // Through split_command, as `--agent` gives it.
            AgentSpec::from_command(&format!("{argv} --message {{prompt}}"))
                .expect("splits")
                .with_env("STATE", fx.dir.path().display().to_string()),
            PromptVia::Argv,
            "got-argv",
        ),
    ];
    for (spec, via, got) in cases {
        assert_eq!(spec.prompt_via(), via);
        let result = CommandSession::new(spec, runner())
            .run(fx.request(NASTY_PROMPT))
            .await;
        assert_eq!(result.outcome, SessionOutcome::Success, "{result:?}");
        assert_eq!(fx.read(got), NASTY_PROMPT, "{via:?}");
    }
    assert_eq!(fx.read("argc"), "2", "the prompt is one argv element");
    // The prompt file lives in the run dir, outside the workspace.
    assert!(fx.path("runs/file.prompt").is_file());
    assert_eq!(std::fs::read_dir(fx.path("ws")).expect("ws").count(), 0);
    assert_eq!(fx.pwned(), Vec::<PathBuf>::new());
    let here = std::env::current_dir().expect("cwd");
    assert!(!here.join("pwned").exists() && !Path::new("/tmp/pwned").exists());
}

#[tokio::test]
async fn a_prompt_too_long_for_one_argument_is_not_started_with_the_way_out() {
    let fx = Fixture::new();
    let argv = fx.script("argv-agent", r#"printf '%s' "$1" > "$STATE/got""#);
    let long = "x".repeat(200 * 1024);
    let spec = fx.agent("argv", &[&argv, "{prompt}"]);
    let result = CommandSession::new(spec.clone(), runner())
        .run(fx.request(&long))
        .await;
    let SessionOutcome::NotStarted { message } = &result.outcome else {
        panic!("{result:?}");
    };
    assert!(message.contains("204800 bytes"), "{message}");
    assert!(message.contains("{prompt_file}"), "{message}");
    // Just under the limit, the same agent runs and gets all of it.
    let fits = "y".repeat(128 * 1024 - 1);
    let result = CommandSession::new(spec, runner())
        .run(fx.request(&fits))
        .await;
    assert_eq!(result.outcome, SessionOutcome::Success, "{result:?}");
    assert_eq!(fx.read("got").len(), fits.len());
}

#[tokio::test]
async fn a_session_past_its_timeout_is_a_timeout_and_its_tree_is_killed() {
    let fx = Fixture::new();
    let agent = fx.script(
        "slow-agent",
        r#"sleep 30 &
echo $! > "$STATE/child"
echo working
sleep 30"#,
    );
    let spec = fx
        .agent("slow", &[&agent])
        .with_timeout(Duration::from_millis(700));
    let start = Instant::now();
    let result = CommandSession::new(spec, runner())
        .run(fx.request("go"))
        .await;
    assert_eq!(result.outcome, SessionOutcome::Timeout);
    assert_eq!(result.exit, Exit::TimedOut);
    assert_eq!(result.output_tail, "working");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    let child: i32 = fx.read("child").trim().parse().expect("pid");
    assert!(!alive(child), "the agent's child {child} survived");
    let pid = result.pid.expect("spawned") as i32;
    assert!(!alive(pid), "the agent {pid} survived");
}

#[tokio::test]
async fn the_spawn_hook_sees_the_pid_before_the_agent_ends() {
    let fx = Fixture::new();
    let agent = fx.script(
        "pid-agent",
        r#"echo $$ > "$STATE/self"
sleep 0.5
touch "$STATE/done""#,
    );
    let seen: Arc<Mutex<Vec<(SpawnInfo, bool, bool)>>> = Arc::default();
    let done = fx.path("done");
    let hook_seen = Arc::clone(&seen);
    let mut request = fx.request("x");
    request.on_spawn = Some(Arc::new(move |info: &SpawnInfo| {
        let running = alive(info.pid as i32);
        hook_seen
            .lock()
            .expect("lock")
            .push((info.clone(), running, done.exists()));
    }));
    let result = CommandSession::new(fx.agent("pid", &[&agent]), runner())
        .run(request)
        .await;
    assert_eq!(result.outcome, SessionOutcome::Success);
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 1);
    let (info, running, done_then) = &seen[0];
    assert!(
        *running && !*done_then,
        "the hook ran after the agent: {seen:?}"
    );
    assert_eq!(info.agent, "pid");
    assert_eq!(info.pgid, info.pid);
    assert_eq!(Some(info.pid), result.pid);
    assert_eq!(fx.read("self").trim(), info.pid.to_string());
}

/// An agent that fails with `failure` (exit 1) on its first `n` runs, then succeeds; it counts its
/// runs in `$STATE/<name>.count`.
fn flaky_agent(fx: &Fixture, name: &str, failures: usize, failure: &str) -> String {
    fx.script(
        name,
        &format!(
            r#"count=$(cat "$STATE/{name}.count" 2>/dev/null || echo 0)
count=$((count + 1))
echo $count > "$STATE/{name}.count"
if [ $count -le {failures} ]; then
  # Both on stderr: lines from two pipes have no defined order.
  echo "working on it" >&2
  echo "{failure}" >&2
  exit 1
fi
echo "{name} done""#
        ),
    )
}

#[tokio::test]
async fn a_rate_limit_with_retry_after_is_waited_out_then_succeeds() {
    let fx = Fixture::new();
    let agent = flaky_agent(
        &fx,
        "limited",
        1,
        "API Error: 429 rate_limit_error; retry-after: 1",
    );
    // The real clock: the pool really waits the second the agent asked for.
    let pool = AgentPool::from_specs(vec![fx.agent("limited", &[&agent])], &runner(), options(3));
    let start = Instant::now();
    let run = pool.run(fx.request("task")).await;
    let elapsed = start.elapsed();
    assert_eq!(run.end, PoolEnd::Finished);
    assert_eq!(run.result.outcome, SessionOutcome::Success);
    assert_eq!(run.result.output_tail, "limited done");
    assert_eq!(run.sessions, 2);
    assert_eq!(run.retries.len(), 1);
    let retry = &run.retries[0];
    assert_eq!(
        retry.outcome,
        SessionOutcome::RateLimited {
            retry_after: Some(Duration::from_secs(1))
        }
    );
    assert_eq!(retry.action, RetryAction::RetrySame);
    assert_eq!(retry.delay, Duration::from_secs(1));
    assert!(elapsed >= Duration::from_secs(1), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(8), "{elapsed:?}");
    // Each session has its own directory and log.
    assert!(fx.path("runs/01-limited/limited.log").is_file());
    assert!(fx.path("runs/02-limited/limited.log").is_file());
    // The record is what an `agent_retry` event carries.
    let json = serde_json::to_value(retry).expect("json");
    assert_eq!(json["outcome"], "rate_limited");
    assert_eq!(json["retry_after_ms"], 1000);
    assert_eq!(json["delay_ms"], 1000);
    assert_eq!(json["action"], "retry_same");
}

#[tokio::test]
async fn an_auth_error_skips_to_the_next_agent_for_good() {
    let fx = Fixture::new();
    let a = flaky_agent(&fx, "a", 99, "Invalid API key · Please run /login");
    let b = flaky_agent(&fx, "b", 0, "");
    let clock = Arc::new(RecordingClock::new());
    let records: Arc<Mutex<Vec<RetryRecord>>> = Arc::default();
    let hook_records = Arc::clone(&records);
    let pool = pool(
        vec![fx.agent("a", &[&a]), fx.agent("b", &[&b])],
        options(3),
        Arc::clone(&clock),
    )
    .on_retry(Arc::new(move |record: &RetryRecord| {
        hook_records.lock().expect("lock").push(record.clone());
    }));
    assert_eq!(pool.next_agent(), Some("a"));
    let run = pool.run(fx.request("task")).await;
    assert_eq!(
        pool.next_agent(),
        Some("b"),
        "the loop records b as the next attempt's agent"
    );
    assert_eq!(run.end, PoolEnd::Finished);
    assert_eq!(run.result.agent, "b");
    assert_eq!(run.result.outcome, SessionOutcome::Success);
    assert_eq!(run.retries.len(), 1);
    assert_eq!(run.retries[0].outcome, SessionOutcome::Auth);
    assert_eq!(run.retries[0].action, RetryAction::SkipAgent);
    assert_eq!(run.retries[0].next_agent, "b");
    assert_eq!(*records.lock().expect("lock"), run.retries);
    assert_eq!(clock.sleeps(), Vec::<Duration>::new());
    // The next run goes straight to b: a is out of the pool.
    let again = pool.run(fx.request("task 2")).await;
    assert_eq!((again.result.agent.as_str(), again.sessions), ("b", 1));
    assert_eq!(fx.read("a.count").trim(), "1");
    assert_eq!(fx.read("b.count").trim(), "2");
}

#[tokio::test]
async fn when_every_agent_is_rate_limited_the_pool_waits_the_largest_delay() {
    let fx = Fixture::new();
    let a = flaky_agent(&fx, "a", 1, "Error: 429 Too Many Requests (retry-after: 3)");
    let b = flaky_agent(
        &fx,
        "b",
        1,
        "rate limit reached; please try again in 7 seconds",
    );
    let clock = Arc::new(RecordingClock::new());
    let pool = pool(
        vec![fx.agent("a", &[&a]), fx.agent("b", &[&b])],
        options(5),
        Arc::clone(&clock),
    );
    let run = pool.run(fx.request("task")).await;
    assert_eq!(run.end, PoolEnd::Finished);
    assert_eq!(run.result.agent, "a");
    assert_eq!(run.sessions, 3);
    let decisions: Vec<_> = run
        .retries
        .iter()
        .map(|r| {
            (
                r.agent.as_str(),
                r.action,
                r.next_agent.as_str(),
                r.delay,
                r.all_limited,
            )
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("a", RetryAction::NextAgent, "b", Duration::ZERO, false),
            (
                "b",
                RetryAction::NextAgent,
                "a",
                Duration::from_secs(7),
                true
            ),
        ]
    );
    assert_eq!(clock.sleeps(), [Duration::from_secs(7)]);
}

#[tokio::test]
async fn transient_failures_back_off_exponentially_until_the_retries_run_out() {
    let fx = Fixture::new();
    let agent = flaky_agent(&fx, "down", 99, "API Error: 503 Service Unavailable");
    let clock = Arc::new(RecordingClock::new());
    let pool = pool(
        vec![fx.agent("down", &[&agent])],
        options(3),
        Arc::clone(&clock),
    );
    let run = pool.run(fx.request("task")).await;
    assert_eq!(run.end, PoolEnd::RetriesExhausted);
    assert_eq!(run.result.outcome, SessionOutcome::ServerError);
    assert_eq!(run.sessions, 4);
    assert_eq!(run.retries.len(), 3);
    assert_eq!(clock.sleeps(), [1, 2, 4].map(Duration::from_secs));
    assert_eq!(fx.read("down.count").trim(), "4");
}

#[tokio::test]
async fn session_level_failures_are_not_retried_here() {
    let fx = Fixture::new();
    let agent = flaky_agent(&fx, "broken", 99, "panic: something unexpected");
    let clock = Arc::new(RecordingClock::new());
    let pool = pool(
        vec![fx.agent("broken", &[&agent])],
        options(3),
        Arc::clone(&clock),
    );
    let run = pool.run(fx.request("task")).await;
    assert_eq!(run.end, PoolEnd::Finished);
    assert_eq!(run.result.outcome, SessionOutcome::Crashed);
    assert_eq!(run.result.exit, Exit::Code { code: 1 });
    assert_eq!(
        run.result.output_tail,
        "working on it\npanic: something unexpected"
    );
    assert_eq!((run.sessions, run.retries.len()), (1, 0));
}

#[tokio::test]
async fn a_missing_agent_is_not_started_and_leaves_no_agent() {
    let fx = Fixture::new();
    let clock = Arc::new(RecordingClock::new());
    let missing = fx.path("bin/not-installed").display().to_string();
    let pool = pool(
        vec![fx.agent("ghost", &[&missing])],
        options(3),
        Arc::clone(&clock),
    );
    let run = pool.run(fx.request("task")).await;
    assert_eq!(run.end, PoolEnd::NoAgentLeft);
    assert!(
        matches!(&run.result.outcome, SessionOutcome::NotStarted { message } if message.contains("not-installed")),
        "{:?}",
        run.result.outcome
    );
    // A second run has nothing to start at all.
    let again = pool.run(fx.request("task")).await;
    assert_eq!((again.end, again.sessions), (PoolEnd::NoAgentLeft, 0));
}

#[tokio::test]
async fn a_large_prompt_on_stdin_streams_and_an_agent_that_ignores_it_does_not_hang() {
    let fx = Fixture::new();
    // 2 MiB: far more than a pipe holds, so writing must go on while the output is drained.
    let big: String = (0..40_000)
        .map(|i| format!("line {i:05} of a long prompt.\n"))
        .collect();
    assert!(big.len() > 1 << 20);
    let reader = fx.script("reader", r#"cat > "$STATE/got-big"; echo read"#);
    let result = CommandSession::new(fx.agent("reader", &[&reader]), runner())
        .run(fx.request(&big))
        .await;
    assert_eq!(result.outcome, SessionOutcome::Success);
    assert_eq!(fx.read("got-big"), big);
    let ignorer = fx.script("ignorer", "echo not reading; exit 0");
    let start = Instant::now();
    let result = CommandSession::new(fx.agent("ignorer", &[&ignorer]), runner())
        .run(fx.request(&big))
        .await;
    assert_eq!(result.outcome, SessionOutcome::Success);
    assert_eq!(result.output_tail, "not reading");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn cancelling_cuts_a_backoff_wait_short() {
    let fx = Fixture::new();
    let agent = flaky_agent(
        &fx,
        "slowdown",
        99,
        "Error: 529 overloaded; retry-after: 30",
    );
    let runner = runner();
    let cancel = runner.cancel_handle();
    // The real clock: without the cancellation this would wait 30 s.
    let pool = AgentPool::from_specs(vec![fx.agent("slowdown", &[&agent])], &runner, options(3));
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        cancel.cancel();
    });
    let start = Instant::now();
    let run = pool.run(fx.request("task")).await;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(run.retries.len(), 1);
    assert_eq!(run.retries[0].delay, Duration::from_secs(30));
    assert_eq!(run.result.outcome, SessionOutcome::Cancelled);
    assert_eq!(run.end, PoolEnd::Finished);
    assert_eq!(fx.read("slowdown.count").trim(), "1");
}

#[tokio::test]
async fn prompt_and_prompt_file_together() {
    let fx = Fixture::new();
    let agent = fx.script(
        "both",
        r#"printf '%s' "$1" > "$STATE/arg"; cp "$2" "$STATE/file""#,
    );
    let spec = fx.agent("both", &[&agent, "{prompt}", "{prompt_file}"]);
    let result = CommandSession::new(spec, runner())
        .run(fx.request(NASTY_PROMPT))
        .await;
    assert_eq!(result.outcome, SessionOutcome::Success, "{result:?}");
    assert_eq!(fx.read("arg"), NASTY_PROMPT);
    assert_eq!(fx.read("file"), NASTY_PROMPT);
    assert_eq!(fx.pwned(), Vec::<PathBuf>::new());
}

#[tokio::test]
async fn an_agent_that_cannot_start_or_is_out_of_quota_hands_over_to_the_next() {
    let fx = Fixture::new();
    let missing = fx.path("bin/not-installed").display().to_string();
    let broke = flaky_agent(&fx, "broke", 99, "Your credit balance is too low");
    let works = flaky_agent(&fx, "works", 0, "");
    let clock = Arc::new(RecordingClock::new());
    let pool = pool(
        vec![
            fx.agent("ghost", &[&missing]),
            fx.agent("broke", &[&broke]),
            fx.agent("works", &[&works]),
        ],
        options(5),
        Arc::clone(&clock),
    );
    assert_eq!(pool.agents(), ["ghost", "broke", "works"]);
    let run = pool.run(fx.request("task")).await;
    assert_eq!(run.end, PoolEnd::Finished);
    assert_eq!(run.result.agent, "works");
    let decisions: Vec<_> = run
        .retries
        .iter()
        .map(|r| (r.outcome.name(), r.action, r.next_agent.as_str()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("not_started", RetryAction::SkipAgent, "broke"),
            ("quota", RetryAction::SkipAgent, "works"),
        ]
    );
    assert_eq!(clock.sleeps(), Vec::<Duration>::new());
}

#[tokio::test]
async fn max_agent_retries_does_not_limit_moving_on_from_an_agent_out_of_auth_or_quota() {
    // With no retry of transient failures allowed, an auth error and a quota error still hand
    // over to the next agent: trying again would not help, and each agent goes out once.
    let fx = Fixture::new();
    let auth = flaky_agent(&fx, "auth", 99, "Invalid API key · Please run /login");
    let broke = flaky_agent(&fx, "broke", 99, "Your credit balance is too low");
    let works = flaky_agent(&fx, "works", 0, "");
    let clock = Arc::new(RecordingClock::new());
    let pool = pool(
        vec![
            fx.agent("auth", &[&auth]),
            fx.agent("broke", &[&broke]),
            fx.agent("works", &[&works]),
        ],
        options(0),
        Arc::clone(&clock),
    );
    let run = pool.run(fx.request("task")).await;
    assert_eq!(run.end, PoolEnd::Finished);
    assert_eq!((run.result.agent.as_str(), run.sessions), ("works", 3));
    assert_eq!(run.result.outcome, SessionOutcome::Success);
    let actions: Vec<_> = run.retries.iter().map(|r| r.action).collect();
    assert_eq!(actions, [RetryAction::SkipAgent, RetryAction::SkipAgent]);

    // A transient failure is still held to the limit: none allowed, none made.
    let limited = flaky_agent(&fx, "limited", 99, "Error: 429 Too Many Requests");
    let other = flaky_agent(&fx, "other", 0, "");
    let pool = self::pool(
        vec![
            fx.agent("limited", &[&limited]),
            fx.agent("other", &[&other]),
        ],
        options(0),
        Arc::clone(&clock),
    );
    let run = pool.run(fx.request("task")).await;
    assert_eq!(run.end, PoolEnd::RetriesExhausted);
    assert_eq!((run.result.agent.as_str(), run.sessions), ("limited", 1));
}

#[tokio::test]
async fn an_agent_that_never_reads_a_large_prompt_still_times_out_on_time() {
    let fx = Fixture::new();
    let big = "x".repeat(4 << 20);
    let sleeper = fx.script("sleeper", "sleep 30");
    let spec = fx
        .agent("sleeper", &[&sleeper])
        .with_timeout(Duration::from_millis(500));
    let start = Instant::now();
    let result = CommandSession::new(spec, runner())
        .run(fx.request(&big))
        .await;
    assert_eq!(result.outcome, SessionOutcome::Timeout);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}
