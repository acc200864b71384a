//! The process runner against real processes, in the manner of cargo-nextest's fixture tests: small
//! `sh` scripts (fixed text, written by each test into a temp dir) that spawn trees, ignore
//! signals, hold pipes open or flood them. Whether a process is gone is checked in `/proc`, from the
//! pids the scripts record, never assumed.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tempfile::TempDir;
use verdict_core::process::{ProcessRunner, RunExtras};
use verdict_core::verifier::{Captured, CommandSpec, Exit, ExitCodes, Runner};

/// The grace period the tests use, short so the suite stays fast.
const GRACE: Duration = Duration::from_millis(300);
/// The leak timeout the tests use.
const LEAK: Duration = Duration::from_millis(100);

/// How much later than planned a run may end on a loaded 2-core machine before a test calls it a
/// hang (the hangs these tests guard against last the tool's whole 30 s).
const SLACK: Duration = Duration::from_secs(3);

/// A temp dir holding fixture scripts, their pid file and the logs.
struct Fixture {
    dir: TempDir,
}

impl Fixture {
    fn new() -> Self {
        Fixture {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes an executable `sh` script named `name` with `body`.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write script");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        path
    }

    /// A spec running `program` in the fixture dir, with `PIDS` naming the pid file.
    fn spec(&self, program: impl Into<PathBuf>, timeout: Duration) -> CommandSpec {
        let mut env = BTreeMap::new();
        env.insert("PIDS".to_owned(), self.path("pids").display().to_string());
        CommandSpec {
            program: program.into(),
            args: Vec::new(),
            env,
            cwd: self.dir.path().to_path_buf(),
            timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![1],
            },
            output_files: Vec::new(),
        }
    }

    fn log(&self) -> PathBuf {
        self.path("out/run/tool.log")
    }

    fn log_text(&self) -> String {
        String::from_utf8_lossy(&std::fs::read(self.log()).expect("read log")).into_owned()
    }

    /// The pids the scripts recorded, one a line.
    fn pids(&self) -> Vec<i32> {
        std::fs::read_to_string(self.path("pids"))
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.trim().parse().ok())
            .collect()
    }

    /// Waits until the scripts have recorded `count` pids.
    async fn wait_for_pids(&self, count: usize) -> Vec<i32> {
        let start = Instant::now();
        loop {
            let pids = self.pids();
            if pids.len() >= count {
                return pids;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "only {pids:?} recorded"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

fn runner() -> ProcessRunner {
    ProcessRunner::new()
        .with_grace(GRACE)
        .with_leak_timeout(LEAK)
}

/// Runs `spec`, returning what was captured and how long `run` took.
async fn run(
    runner: &ProcessRunner,
    fixture: &Fixture,
    spec: &CommandSpec,
) -> (Captured, Duration) {
    let start = Instant::now();
    let captured = runner.run(spec, &fixture.log()).await;
    (captured, start.elapsed())
}

/// Whether the process is gone: no `/proc/<pid>`, or a zombie (reaping reparented processes is
/// their new parent's job, not ours).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next());
            state == Some("Z") || state == Some("X")
        }
    }
}

/// Asserts every pid is gone, giving the kernel a moment to finish a SIGKILL.
async fn assert_all_gone(pids: &[i32]) {
    assert!(!pids.is_empty(), "no pid was recorded");
    let start = Instant::now();
    while !pids.iter().all(|&pid| gone(pid)) && start.elapsed() < Duration::from_millis(500) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let alive: Vec<i32> = pids.iter().copied().filter(|&pid| !gone(pid)).collect();
    assert!(alive.is_empty(), "still running: {alive:?} of {pids:?}");
}

#[tokio::test]
async fn exit_codes_and_output_are_captured() {
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "echo out\necho err >&2\nexit 3");
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 3 });
    let text = fixture.log_text();
    assert!(text.contains("out\n") && text.contains("err\n"), "{text:?}");
    assert_eq!(captured.log_bytes, 8);
    assert_eq!(captured.log_path, fixture.log());
    assert!(captured.duration < Duration::from_secs(5));

    let pass = fixture.script("pass.sh", "exit 0");
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&pass, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(captured.log_bytes, 0);
    assert_eq!(fixture.log_text(), "", "a second run truncates the log");
}

#[tokio::test]
async fn killed_by_a_signal() {
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "echo before\nkill -KILL $$\necho after");
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Signal { signal: 9 });
    assert_eq!(fixture.log_text(), "before\n");
}

#[tokio::test]
async fn arguments_and_environment_reach_the_tool_without_a_shell() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "for arg in \"$@\"; do echo \"[$arg]\"; done\necho \"$FROM_RUNNER $FROM_SPEC $BOTH\"\nread line && echo \"stdin: $line\"\nexit 0",
    );
    let mut spec = fixture.spec(&tool, Duration::from_secs(10));
    spec.args = vec!["a b".to_owned(), "$HOME".to_owned(), "; exit 7".to_owned()];
    spec.env.insert("FROM_SPEC".to_owned(), "spec".to_owned());
    spec.env.insert("BOTH".to_owned(), "spec wins".to_owned());
    let runner = runner()
        .with_env("FROM_RUNNER", "runner")
        .with_env("BOTH", "runner");
    let (captured, _) = run(&runner, &fixture, &spec).await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(
        fixture.log_text(),
        "[a b]\n[$HOME]\n[; exit 7]\nrunner spec spec wins\n"
    );
}

#[tokio::test]
async fn programs_are_found_on_path_and_relative_to_the_working_directory() {
    let fixture = Fixture::new();
    std::fs::create_dir_all(fixture.path("bin-runner")).expect("mkdir");
    std::fs::create_dir_all(fixture.path("bin-spec")).expect("mkdir");
    fixture.script("bin-runner/mytool", "echo runner-path");
    fixture.script("bin-spec/mytool", "echo spec-path");
    let system_path = std::env::var("PATH").unwrap_or_default();
    let runner_path = format!("{}:{system_path}", fixture.path("bin-runner").display());
    let runner = runner().with_env("PATH", runner_path);

    let spec = fixture.spec("mytool", Duration::from_secs(10));
    let (captured, _) = run(&runner, &fixture, &spec).await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(fixture.log_text(), "runner-path\n");

    let mut spec = fixture.spec("mytool", Duration::from_secs(10));
    spec.env.insert(
        "PATH".to_owned(),
        format!("{}:{system_path}", fixture.path("bin-spec").display()),
    );
    let (captured, _) = run(&runner, &fixture, &spec).await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(fixture.log_text(), "spec-path\n");

    // A relative path with a slash is resolved against the working directory, not verdict's own.
    let spec = fixture.spec("bin-spec/mytool", Duration::from_secs(10));
    let (captured, _) = run(&runner, &fixture, &spec).await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(fixture.log_text(), "spec-path\n");
}

#[tokio::test]
async fn a_program_that_cannot_start_is_not_started() {
    let fixture = Fixture::new();
    let spec = fixture.spec("verdict-no-such-program", Duration::from_secs(10));
    let (captured, _) = run(&runner(), &fixture, &spec).await;
    assert_eq!(
        captured.exit,
        Exit::NotStarted {
            message:
                "failed to start `verdict-no-such-program`: No such file or directory (os error 2)"
                    .to_owned()
        }
    );
    assert!(
        fixture.log().exists(),
        "the log exists even when nothing ran"
    );

    let tool = fixture.script("tool.sh", "exit 0");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec("./tool.sh", Duration::from_secs(10)),
    )
    .await;
    assert_eq!(
        captured.exit,
        Exit::NotStarted {
            message: "failed to start `./tool.sh`: Permission denied (os error 13)".to_owned()
        }
    );

    let mut spec = fixture.spec("sh", Duration::from_secs(10));
    spec.cwd = fixture.path("no-such-dir");
    let (captured, _) = run(&runner(), &fixture, &spec).await;
    let Exit::NotStarted { message } = captured.exit else {
        panic!("{:?}", captured.exit)
    };
    assert!(
        message.starts_with("failed to start `sh`: working directory `"),
        "{message}"
    );
    assert!(
        message.ends_with("no-such-dir`: No such file or directory (os error 2)"),
        "{message}"
    );
}

#[tokio::test]
async fn a_timeout_kills_the_tool_and_its_children() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "sleep 30 &\necho $! >> \"$PIDS\"\nsleep 30 &\necho $! >> \"$PIDS\"\necho $$ >> \"$PIDS\"\necho started\nwait",
    );
    let (captured, elapsed) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_millis(300)),
    )
    .await;
    assert_eq!(captured.exit, Exit::TimedOut);
    assert_eq!(fixture.log_text(), "started\n");
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    assert!(
        elapsed < Duration::from_millis(300) + GRACE + SLACK,
        "{elapsed:?}"
    );
    let pids = fixture.pids();
    assert_eq!(pids.len(), 3);
    assert_all_gone(&pids).await;
}

#[tokio::test]
async fn a_tool_ignoring_sigterm_is_killed_after_the_grace_period() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "trap '' TERM\necho $$ >> \"$PIDS\"\nwhile true; do sleep 0.05; done",
    );
    // A time-out long enough for the shell to have set its trap even on a loaded machine.
    let timeout = Duration::from_secs(1);
    let (captured, elapsed) = run(&runner(), &fixture, &fixture.spec(&tool, timeout)).await;
    assert_eq!(captured.exit, Exit::TimedOut);
    assert_eq!(fixture.pids().len(), 1, "the tool never started");
    // SIGKILL only once the grace period is over.
    assert!(elapsed >= timeout + GRACE, "{elapsed:?}");
    assert!(elapsed < timeout + GRACE + SLACK, "{elapsed:?}");
    assert_all_gone(&fixture.pids()).await;
}

#[tokio::test]
async fn cancellation_kills_a_three_level_tree() {
    let fixture = Fixture::new();
    fixture.script("level3.sh", "echo $$ >> \"$PIDS\"\nsleep 30");
    fixture.script("level2.sh", "echo $$ >> \"$PIDS\"\n./level3.sh &\nsleep 30");
    let tool = fixture.script("level1.sh", "echo $$ >> \"$PIDS\"\n./level2.sh &\nsleep 30");
    let runner = runner();
    let spec = fixture.spec(&tool, Duration::from_secs(30));
    let log = fixture.log();
    let handle = {
        let runner = runner.clone();
        tokio::spawn(async move { runner.run(&spec, &log).await })
    };
    let pids = fixture.wait_for_pids(3).await;
    runner.cancel();
    let captured = handle.await.expect("join");
    assert_eq!(captured.exit, Exit::Cancelled);
    assert_all_gone(&pids).await;
}

#[tokio::test]
async fn a_three_level_tree_is_killed_whole_on_timeout() {
    let fixture = Fixture::new();
    fixture.script("level3.sh", "echo $$ >> \"$PIDS\"\nsleep 30");
    fixture.script("level2.sh", "echo $$ >> \"$PIDS\"\n./level3.sh &\nsleep 30");
    let tool = fixture.script("level1.sh", "echo $$ >> \"$PIDS\"\n./level2.sh &\nsleep 30");
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_millis(500)),
    )
    .await;
    assert_eq!(captured.exit, Exit::TimedOut);
    let pids = fixture.pids();
    assert_eq!(pids.len(), 3, "the tree was up before the timeout");
    assert_all_gone(&pids).await;
}

#[tokio::test]
async fn a_grandchild_holding_stdout_does_not_hang_the_run() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "sleep 30 &\necho $! >> \"$PIDS\"\necho done\nexit 0",
    );
    let (captured, elapsed) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(30)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(fixture.log_text(), "done\n");
    assert!(elapsed < LEAK + GRACE + SLACK, "{elapsed:?}");
    assert_all_gone(&fixture.pids()).await;
}

#[tokio::test]
async fn a_grandchild_holding_stdout_and_ignoring_sigterm_is_killed() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        // The grandchild records its pid once its trap is set, and the tool waits for that, so
        // that SIGTERM can only reach a grandchild that ignores it.
        "sh -c 'trap \"\" TERM; echo $$ >> \"$PIDS\"; while true; do sleep 0.05; done' &\nwhile [ ! -s \"$PIDS\" ]; do sleep 0.01; done\necho done\nexit 0",
    );
    let (captured, elapsed) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(30)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert!(
        elapsed >= LEAK + GRACE,
        "SIGKILL came before the grace period ended: {elapsed:?}"
    );
    assert!(elapsed < LEAK * 2 + GRACE + SLACK, "{elapsed:?}");
    assert_all_gone(&fixture.pids()).await;
}

#[tokio::test]
async fn flooding_stderr_then_stdout_does_not_deadlock() {
    const SIZE: u64 = 20 * 1024 * 1024;
    let fixture = Fixture::new();
    // Sequential on purpose: a runner reading only stdout until it closes would block the tool on a
    // full stderr pipe forever.
    let tool = fixture.script(
        "tool.sh",
        "head -c 20971520 /dev/zero | tr '\\0' e >&2\nhead -c 20971520 /dev/zero | tr '\\0' o\nexit 0",
    );
    // Above the default log limit: this test keeps every byte to check their order.
    let (captured, _) = run(
        &runner().with_log_limit(None),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(60)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(captured.log_bytes, 2 * SIZE);
    let log = std::fs::read(fixture.log()).expect("read log");
    assert_eq!(log.len() as u64, 2 * SIZE);
    assert_eq!(log.iter().filter(|&&b| b == b'e').count() as u64, SIZE);
    assert_eq!(log.iter().filter(|&&b| b == b'o').count() as u64, SIZE);
    // Every stderr byte arrived before the first stdout byte was written.
    assert_eq!(log.iter().position(|&b| b == b'o'), Some(SIZE as usize));
}

#[tokio::test]
async fn stdout_and_stderr_keep_their_order() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "echo 1\nsleep 0.05\necho 2 >&2\nsleep 0.05\necho 3\nsleep 0.05\necho 4 >&2\nsleep 0.05\necho 5",
    );
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(fixture.log_text(), "1\n2\n3\n4\n5\n");
}

/// libtest prints `test x ... ` on stdout and the result when the test ends; when the test
/// binary crashed, cargo's `error: test failed` on stderr landed inside that unfinished line and
/// the crash was lost (a flaky failure of the cargo verifier's segfault test). A stream's
/// unfinished line now waits for its end, or for both streams to close.
#[tokio::test]
async fn a_line_is_never_split_by_the_other_stream() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "printf 'test a ... '\nsleep 0.05\necho 'error: on stderr' >&2\nsleep 0.05\necho ok\nprintf 'cut off' >&2\nsleep 0.05\necho last",
    );
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(
        fixture.log_text(),
        "error: on stderr\ntest a ... ok\nlast\ncut off"
    );
    assert_eq!(captured.log_bytes, fixture.log_text().len() as u64);
}

#[tokio::test]
async fn cancellation_forwards_sigint_and_stops_the_tree() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        // Short foreground sleeps rather than `wait`: a trapped signal that lands between two
        // commands runs its trap after the next one, never lost in a race with a blocking `wait`.
        "trap 'echo got INT; exit 130' INT\nsleep 30 &\necho $! >> \"$PIDS\"\necho $$ >> \"$PIDS\"\nwhile :; do sleep 0.05; done",
    );
    // A long grace period: the shell, however slow to be scheduled, runs its trap on SIGINT long
    // before SIGTERM would come, and a run that ends well within it ended by SIGINT.
    let runner = runner().with_grace(Duration::from_secs(5));
    let spec = fixture.spec(&tool, Duration::from_secs(30));
    let log = fixture.log();
    let start = Instant::now();
    let handle = {
        let runner = runner.clone();
        tokio::spawn(async move { runner.run(&spec, &log).await })
    };
    let pids = fixture.wait_for_pids(2).await;
    runner.cancel_handle().cancel();
    let captured = handle.await.expect("join");
    assert_eq!(captured.exit, Exit::Cancelled);
    assert!(
        fixture.log_text().contains("got INT"),
        "{:?}",
        fixture.log_text()
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_all_gone(&pids).await;

    // Commands started after cancellation do not run at all.
    let marker = fixture.path("ran");
    let late = fixture.script("late.sh", "touch ran");
    let (captured, _) = run(
        &runner,
        &fixture,
        &fixture.spec(&late, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Cancelled);
    assert!(!marker.exists(), "a command ran after cancellation");
    assert!(runner.is_cancelled());
}

#[tokio::test]
async fn output_files_are_read_back_and_stale_ones_removed() {
    let fixture = Fixture::new();
    std::fs::create_dir_all(fixture.path("reports")).expect("mkdir");
    std::fs::write(fixture.path("reports/stale.json"), "stale").expect("write");
    std::fs::write(fixture.path("reports/big.json"), "stale").expect("write");
    let tool = fixture.script(
        "tool.sh",
        "test -e reports/stale.json && echo stale file seen\necho '{\"ok\":true}' > reports/out.json\necho 0123456789abcdef > reports/big.json\nexit 1",
    );
    let mut spec = fixture.spec(&tool, Duration::from_secs(10));
    spec.output_files = vec![
        PathBuf::from("reports/out.json"),
        fixture.path("reports/stale.json"),
        PathBuf::from("reports/big.json"),
    ];
    let runner = runner().with_max_output_file(12);
    let (captured, _) = run(&runner, &fixture, &spec).await;
    assert_eq!(captured.exit, Exit::Code { code: 1 });
    assert_eq!(
        fixture.log_text(),
        "",
        "the stale file was removed before the tool ran"
    );
    assert_eq!(
        captured.output_files,
        vec![Some(b"{\"ok\":true}\n".to_vec()), None, None],
        "written, stale (removed, not rewritten), over the cap"
    );
    assert!(!fixture.path("reports/stale.json").exists());
}

/// A log nested in directories that do not exist yet gets them created.
#[tokio::test]
async fn the_log_gets_its_parent_directories() {
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "echo hi");
    let log: &Path = &fixture.path("a/b/c/tool.log");
    let captured = runner()
        .run(&fixture.spec(&tool, Duration::from_secs(10)), log)
        .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(std::fs::read_to_string(log).expect("read"), "hi\n");
}

#[tokio::test]
async fn the_tool_itself_is_reaped() {
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "echo $$ >> \"$PIDS\"\nexit 0");
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(10)),
    )
    .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    let pids = fixture.pids();
    assert_eq!(pids.len(), 1);
    // Not even a zombie: the runner waited for its own child.
    assert!(
        !Path::new(&format!("/proc/{}", pids[0])).exists(),
        "{pids:?} left as a zombie"
    );
}

#[tokio::test]
async fn a_process_that_left_the_group_cannot_hang_the_run() {
    let fixture = Fixture::new();
    // `setsid` puts the sleep in a session of its own, out of reach of the group's signals; it still
    // holds the pipes. The run must end after the leak timeouts, without waiting for it.
    let tool = fixture.script(
        "tool.sh",
        "setsid sleep 30 &\necho $! >> \"$PIDS\"\necho done\nexit 0",
    );
    let (captured, elapsed) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(30)),
    )
    .await;
    let pids = fixture.pids();
    for &pid in &pids {
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert_eq!(fixture.log_text(), "done\n");
    assert!(
        elapsed < LEAK * 2 + Duration::from_millis(500),
        "{elapsed:?}"
    );
    assert_eq!(pids.len(), 1);
}

/// What left the group (a `setsid` child, a double-forked orphan) is stopped when the tool ends,
/// by the command's cgroup or, without one, by the walk for its marker; its record is gone after.
#[tokio::test]
async fn what_left_the_group_is_stopped_when_the_tool_ends() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "setsid sleep 30 > /dev/null 2>&1 &\necho $! >> \"$PIDS\"\n\
         sh -c '(sleep 30 > /dev/null 2>&1 & echo $! >> \"$PIDS\") &'\n\
         while [ $(wc -l < \"$PIDS\") -lt 2 ]; do sleep 0.01; done\necho done",
    );
    let records = fixture.path("running");
    let runner = runner().with_records(&records);
    let (captured, _) = run(
        &runner,
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(30)),
    )
    .await;
    assert_eq!(
        captured.exit,
        Exit::Code { code: 0 },
        "{}",
        fixture.log_text()
    );
    let pids = fixture.pids();
    assert_eq!(pids.len(), 2, "{pids:?}");
    assert_all_gone(&pids).await;
    let left = std::fs::read_dir(&records).map_or(0, |dir| dir.count());
    assert_eq!(
        left, 0,
        "the command's record is removed once it is stopped"
    );
}

/// A run abandoned half-way (its future dropped) stops what left the group too.
#[tokio::test]
async fn an_abandoned_run_stops_what_left_the_group() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "setsid sleep 30 > /dev/null 2>&1 &\necho $! >> \"$PIDS\"\nsleep 30",
    );
    let runner = runner();
    let spec = fixture.spec(&tool, Duration::from_secs(30));
    let log = fixture.log();
    let mut run = Box::pin(runner.run(&spec, &log));
    let pids = tokio::select! {
        captured = &mut run => panic!("the tool ended early: {captured:?}"),
        pids = fixture.wait_for_pids(1) => pids,
    };
    drop(run);
    assert_all_gone(&pids).await;
}

/// The records a killed verdict left name what it left running: the next verdict stops those
/// (here a `setsid` sleep found by its marker) and removes the record; a record whose verdict
/// still runs is left alone.
#[tokio::test]
async fn the_leftovers_of_a_dead_verdict_are_stopped_and_a_live_ones_are_not() {
    let fixture = Fixture::new();
    let records = fixture.path("running");
    std::fs::create_dir_all(&records).expect("a records dir");
    let mut sleeper = std::process::Command::new("setsid")
        .args(["sleep", "30"])
        .env(verdict_core::process::MARKER_ENV, "dead-owner-1")
        .spawn()
        .expect("setsid sleep");
    let sleeper_pid = sleeper.id() as i32;
    // Until it has exec'd, its environment is not the marker's yet.
    let until = Instant::now() + Duration::from_secs(5);
    while std::fs::read_to_string(format!("/proc/{sleeper_pid}/cmdline"))
        .map_or(true, |c| !c.starts_with("sleep"))
    {
        assert!(Instant::now() < until, "the sleep never started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let me = std::process::id() as i32;
    let my_start = verdict_core::process::process_start_time(me).expect("own start time");
    let dead = serde_json::json!({
        "owner_pid": i32::MAX, "owner_start": 1, "marker": "dead-owner-1",
        "cgroup": null, "pid": null, "start": null,
    });
    let live = serde_json::json!({
        "owner_pid": me, "owner_start": my_start, "marker": "live-owner-1",
        "cgroup": null, "pid": null, "start": null,
    });
    std::fs::write(records.join("dead-owner-1.json"), dead.to_string()).expect("write");
    std::fs::write(records.join("live-owner-1.json"), live.to_string()).expect("write");
    let stopped = verdict_core::process::stop_leftovers(&records, GRACE);
    let _ = sleeper.wait();
    assert_eq!(stopped, 1);
    assert!(gone(sleeper_pid), "the marked sleep was stopped");
    assert!(!records.join("dead-owner-1.json").exists());
    assert!(records.join("live-owner-1.json").exists());
}

#[tokio::test]
async fn an_abandoned_run_kills_its_tree() {
    let fixture = Fixture::new();
    fixture.script("level2.sh", "echo $$ >> \"$PIDS\"\nsleep 30");
    let tool = fixture.script("level1.sh", "echo $$ >> \"$PIDS\"\n./level2.sh &\nsleep 30");
    let runner = runner();
    let spec = fixture.spec(&tool, Duration::from_secs(30));
    let log = fixture.log();
    let mut run = Box::pin(runner.run(&spec, &log));
    let pids = tokio::select! {
        captured = &mut run => panic!("the tool ended early: {captured:?}"),
        pids = fixture.wait_for_pids(2) => pids,
    };
    // Dropping the run (what `select!` or an aborted task does) must not leak the tree.
    drop(run);
    assert_all_gone(&pids).await;
}

#[tokio::test]
async fn a_log_that_cannot_be_written_fails_closed() {
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "echo some output\nexit 0");
    // Every write to /dev/full fails with ENOSPC, as on a full disk.
    let captured = runner()
        .run(
            &fixture.spec(&tool, Duration::from_secs(10)),
            Path::new("/dev/full"),
        )
        .await;
    let Exit::NotStarted { message } = &captured.exit else {
        panic!("{:?}", captured.exit)
    };
    assert!(
        message.starts_with("failed to write the log `/dev/full`: "),
        "{message}"
    );
}

#[tokio::test]
async fn a_second_cancel_kills_at_once() {
    let fixture = Fixture::new();
    let tool = fixture.script(
        "tool.sh",
        "trap '' INT TERM\nsleep 30 &\necho $! >> \"$PIDS\"\necho $$ >> \"$PIDS\"\nwait",
    );
    // A grace period far longer than the test may take.
    let runner = runner().with_grace(Duration::from_secs(30));
    let spec = fixture.spec(&tool, Duration::from_secs(60));
    let log = fixture.log();
    let start = Instant::now();
    let handle = {
        let runner = runner.clone();
        tokio::spawn(async move { runner.run(&spec, &log).await })
    };
    let pids = fixture.wait_for_pids(2).await;
    let cancel = runner.cancel_handle();
    cancel.cancel();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !handle.is_finished(),
        "SIGINT and SIGTERM are ignored: the grace period applies"
    );
    cancel.cancel();
    let captured = handle.await.expect("join");
    assert_eq!(captured.exit, Exit::Cancelled);
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert_all_gone(&pids).await;
}

#[tokio::test]
async fn one_cancel_stops_every_running_command() {
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "sleep 30 &\necho $! >> \"$PIDS\"\nwait");
    let runner = runner();
    let handles: Vec<_> = (0..3)
        .map(|i| {
            let runner = runner.clone();
            let spec = fixture.spec(&tool, Duration::from_secs(30));
            let log = fixture.path(&format!("logs/{i}.log"));
            tokio::spawn(async move { runner.run(&spec, &log).await })
        })
        .collect();
    let pids = fixture.wait_for_pids(3).await;
    runner.cancel();
    for handle in handles {
        assert_eq!(handle.await.expect("join").exit, Exit::Cancelled);
    }
    assert_all_gone(&pids).await;
}

#[tokio::test]
async fn duration_is_measured_and_huge_timeouts_do_not_overflow() {
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "sleep 0.3");
    let (captured, elapsed) = run(&runner(), &fixture, &fixture.spec(&tool, Duration::MAX)).await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    assert!(
        captured.duration >= Duration::from_millis(300),
        "{:?}",
        captured.duration
    );
    assert!(
        captured.duration <= elapsed,
        "{:?} > {elapsed:?}",
        captured.duration
    );
}

#[tokio::test]
async fn a_name_on_path_without_the_execute_bit_is_permission_denied() {
    let fixture = Fixture::new();
    std::fs::create_dir_all(fixture.path("bin")).expect("mkdir");
    let tool = fixture.script("bin/mytool", "exit 0");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let mut spec = fixture.spec("mytool", Duration::from_secs(10));
    spec.env
        .insert("PATH".to_owned(), fixture.path("bin").display().to_string());
    let (captured, _) = run(&runner(), &fixture, &spec).await;
    assert_eq!(
        captured.exit,
        Exit::NotStarted {
            message: "failed to start `mytool`: Permission denied (os error 13)".to_owned()
        }
    );
}

/// A tool or an agent can print without end: with a limit, the log keeps the first and the last
/// half of it and says how much it left out between them, while every byte is still read (the
/// tool never blocks) and counted in `log_cut`.
#[tokio::test]
async fn a_log_limit_keeps_the_head_and_the_tail() {
    let fixture = Fixture::new();
    // 3 MiB of numbered lines, then a last line.
    let tool = fixture.script(
        "tool.sh",
        "seq 1 1000000 | head -c 3145728\necho\necho 'the last line'\nexit 0",
    );
    let limit = 1024 * 1024;
    let extras = RunExtras {
        log_limit: Some(limit),
        ..RunExtras::default()
    };
    let captured = runner()
        .run_with(
            &fixture.spec(&tool, Duration::from_secs(60)),
            &fixture.log(),
            extras,
        )
        .await;
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    let total = 3_145_728 + 1 + "the last line\n".len() as u64;
    assert_eq!(captured.log_cut, total - limit);
    let log = fixture.log_text();
    assert!(log.starts_with("1\n2\n3\n"), "{}", &log[..20]);
    assert!(log.ends_with("\nthe last line\n"));
    let note = format!(
        "\n[verdict: {} bytes of output left out here; the log keeps the first and last {} bytes]\n",
        total - limit,
        limit / 2
    );
    assert!(log.contains(&note), "no note {note:?}");
    assert_eq!(log.len() as u64, limit + note.len() as u64);
    assert_eq!(captured.log_bytes, log.len() as u64);
}

/// verdict started with SIGINT ignored (a background job of a script, `nohup`, some CI runners)
/// passed that on to every tool, since ignored signals survive exec: a tool's SIGINT handler
/// could never run, and the SIGINT a cancellation forwards did nothing. Tools start with the
/// default dispositions.
#[tokio::test]
#[allow(unsafe_code)]
async fn tools_start_with_default_signal_dispositions_whatever_verdict_ignores() {
    const NAME: &str =
        "process::tools_start_with_default_signal_dispositions_whatever_verdict_ignores";
    const ALONE: &str = "VERDICT_TEST_IGNORES_SIGINT";
    // A disposition belongs to the whole process, and the other tests of this binary spawn
    // children of their own beside this one: the test runs again in a process of its own.
    if std::env::var_os(ALONE).is_none() {
        let output = std::process::Command::new(std::env::current_exe().expect("the test binary"))
            .args([NAME, "--exact", "--nocapture", "--test-threads=1"])
            .env(ALONE, "1")
            .output()
            .expect("the test binary starts");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "{}\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        return;
    }
    // SAFETY: `signal` with `SIG_IGN` changes only this process's disposition, and this process
    // runs no other test.
    let previous = unsafe { libc::signal(libc::SIGINT, libc::SIG_IGN) };
    let fixture = Fixture::new();
    let tool = fixture.script("tool.sh", "grep '^SigIgn:' /proc/$$/status");
    let (captured, _) = run(
        &runner(),
        &fixture,
        &fixture.spec(&tool, Duration::from_secs(10)),
    )
    .await;
    // SAFETY: as above, putting back what was there.
    unsafe { libc::signal(libc::SIGINT, previous) };
    assert_eq!(captured.exit, Exit::Code { code: 0 });
    let text = fixture.log_text();
    let mask = text
        .trim()
        .strip_prefix("SigIgn:")
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or_else(|| panic!("{text:?}"));
    // Bit n-1 stands for signal n: SIGINT is 2.
    assert_eq!(
        mask & (1 << (libc::SIGINT - 1)),
        0,
        "SIGINT ignored: {text:?}"
    );
}
