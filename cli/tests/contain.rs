//! Nothing a verifier or an agent starts is left running, on any stop path (issue 22, item 4).
//!
//! Each test runs a command that starts two processes outside its process group's reach — `setsid
//! sleep` (a new session) and a double fork (`sh -c '(sleep &) &'`, an orphan) — writes their
//! pids, then waits; the test stops verdict one way (a time-out, Ctrl-C, the hook's deadline, an
//! MCP cancel, disconnect or signal, the loop's agent time-out, `kill -9` then the next run) and
//! checks that neither process is left (zombies count as gone: reaping them is their parent's
//! job). Each path runs twice: with the cgroup per command this machine allows as root (the test
//! checks the processes were in it), and with the subreaper forced (`VERDICT_CONTAINMENT`).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::project::{Project, path_with_node};

/// The command: two escapees, their pids in files, `ready` once both are written, then a wait no
/// test lets it finish. The time-outs and deadlines the tests stop it with are 3 s, so that even a
/// loaded machine gets it ready first.
const LEAK: &str = r#"setsid sleep 1000 > /dev/null 2>&1 < /dev/null &
echo $! > setsid.pid
sh -c '(sleep 1000 & echo $! > double.tmp && mv double.tmp double.pid) &'
while [ ! -f double.pid ]; do sleep 0.02; done
: > ready
sleep 100
"#;

/// The containment a test asks for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Whatever verdict detects: a cgroup per command where it can make one.
    Detected,
    /// `VERDICT_CONTAINMENT=subreaper`.
    Subreaper,
}

impl Mode {
    fn env(self) -> Option<(&'static str, &'static str)> {
        match self {
            Mode::Detected => None,
            Mode::Subreaper => Some(("VERDICT_CONTAINMENT", "subreaper")),
        }
    }
}

/// Whether verdict can make a cgroup here: root, with a cgroup2 file system mounted (this
/// machine and CI run as root with one).
fn cgroups_available() -> bool {
    let root = std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
    });
    let mounted = std::fs::read_to_string("/proc/self/mountinfo")
        .is_ok_and(|m| m.lines().any(|l| l.contains(" - cgroup2 ")));
    root && mounted
}

/// A project whose one verifier is [`LEAK`] (with `timeout`), in a git repository.
fn project(timeout: &str) -> Project {
    let project = Project::empty();
    project.write("leak.sh", LEAK);
    project.write(
        "verdict.toml",
        &format!(
            "[[verifier]]\nname = \"leaky\"\nkind = \"test\"\ncommand = [\"sh\", \"leak.sh\"]\n\
             timeout = \"{timeout}\"\n"
        ),
    );
    project
}

/// `verdict ARGS` in the project, started (not awaited), with `mode`'s environment.
fn start(project: &Project, mode: Mode, args: &[&str], stdin: Stdio) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_verdict"));
    command
        .env("VERDICT_STATE_DIR", ".verdict")
        .env("PATH", path_with_node())
        .env_remove("VERDICT_CONTAINMENT")
        .env_remove("CI")
        .env_remove("GITHUB_ACTIONS")
        .args(args)
        .current_dir(project.root())
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some((key, value)) = mode.env() {
        command.env(key, value);
    }
    command.spawn().expect("verdict starts")
}

/// The two escapees of a run of [`LEAK`]; whatever is left of them is killed when the test ends,
/// passed or failed.
struct Escapees {
    pids: Vec<i32>,
    /// Their start times, so that the clean-up never hits a process that took a pid over.
    starts: Vec<Option<String>>,
}

impl Drop for Escapees {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Field 22 of `/proc/<pid>/stat`, the start time.
fn start_time(pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_owned)
}

/// Waits until the command wrote `ready` (at most 20 s), then checks the premise: both escapees
/// run, the `setsid` one in a session of its own; with the cgroup, both are in a command's cgroup
/// of verdict's, with the subreaper the orphan was re-parented to `verdict` (`verdict_pid`).
fn escapees(project: &Project, mode: Mode, verdict_pid: Option<u32>) -> Escapees {
    let until = Instant::now() + Duration::from_secs(20);
    while !project.path("ready").exists() {
        assert!(Instant::now() < until, "the command never got ready");
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = |file: &str| -> i32 {
        project
            .read(file)
            .trim()
            .parse()
            .unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    let pids = vec![pid("setsid.pid"), pid("double.pid")];
    let escapees = Escapees {
        starts: pids.iter().map(|&pid| start_time(pid)).collect(),
        pids,
    };
    if let Err(problem) = premise(&escapees, mode, verdict_pid) {
        escapees.kill();
        panic!("{problem}");
    }
    escapees
}

/// What [`escapees`] checks before the stop.
fn premise(escapees: &Escapees, mode: Mode, verdict_pid: Option<u32>) -> Result<(), String> {
    for &pid in &escapees.pids {
        if !live(pid) {
            return Err(format!("{pid} does not run: the test proves nothing"));
        }
    }
    // `$!` is the child that runs `setsid`, which may not have called setsid(2) yet.
    let setsid = escapees.pids[0];
    let until = Instant::now() + Duration::from_secs(5);
    while stat_field(setsid, 3) != Some(setsid) {
        if Instant::now() >= until {
            return Err(format!(
                "the setsid sleep {setsid} is not in a session of its own"
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let in_cgroup = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/cgroup"))
            .unwrap_or_default()
            .lines()
            .any(|line| line.starts_with("0::") && line.contains("/verdict-"))
    };
    match mode {
        Mode::Detected if cgroups_available() => {
            if let Some(&pid) = escapees.pids.iter().find(|&&pid| !in_cgroup(pid)) {
                return Err(format!("{pid} is not in a command's cgroup"));
            }
        }
        Mode::Detected => {}
        Mode::Subreaper => {
            if let Some(&pid) = escapees.pids.iter().find(|&&pid| in_cgroup(pid)) {
                return Err(format!("{pid} is in a cgroup, not in the subreaper's care"));
            }
            if let Some(verdict) = verdict_pid {
                let orphan = escapees.pids[1];
                let until = Instant::now() + Duration::from_secs(2);
                while stat_field(orphan, 1) != Some(verdict as i32) {
                    if Instant::now() >= until {
                        return Err(format!(
                            "the orphan {orphan} was not re-parented to verdict {verdict}"
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
        }
    }
    Ok(())
}

impl Escapees {
    /// Fails the test (after killing them) if any escapee is still running 10 s from now: a
    /// cancel's stop may take the grace period (5 s) after SIGINT, and the machine may be loaded.
    fn assert_gone(&self, path: &str) {
        let until = Instant::now() + Duration::from_secs(10);
        let left = loop {
            let left: Vec<i32> = self.pids.iter().copied().filter(|&p| live(p)).collect();
            if left.is_empty() || Instant::now() >= until {
                break left;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        self.kill();
        assert!(left.is_empty(), "{path}: still running: {left:?}");
    }

    /// Kills those still running (the same processes, by start time), so that no failed test
    /// leaves sleepers behind.
    fn kill(&self) {
        for (&pid, start) in self.pids.iter().zip(&self.starts) {
            if live(pid) && start.is_some() && start_time(pid) == *start {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            }
        }
    }
}

/// Field `index` of `/proc/<pid>/stat` counted from 0 after the command's name (state 0, ppid 1,
/// pgrp 2, session 3), as a number.
fn stat_field(pid: i32, index: usize) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(index)?.parse().ok()
}

/// Whether `pid` runs (a zombie does not).
fn live(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|at| stat[at + 1..].split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

/// Waits for `child` to end, at most `limit`; kills it and fails past that.
fn wait(child: &mut Child, limit: Duration, what: &str) -> std::process::ExitStatus {
    let until = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait for verdict") {
            return status;
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn signal(child: &Child, name: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

// ---------------------------------------------------------------------------------------------
// verdict run: its time-out, Ctrl-C, and `kill -9` then the next run

/// The cgroups verdict (`pid`) made for its commands that are still there: none once it ended.
fn cgroups_left(pid: u32) -> Vec<String> {
    let Some(mount) = std::fs::read_to_string("/proc/self/mountinfo")
        .ok()
        .and_then(|m| {
            m.lines().find_map(|l| {
                let (fields, rest) = l.split_once(" - ")?;
                rest.starts_with("cgroup2 ")
                    .then(|| fields.split_whitespace().nth(4).map(str::to_owned))?
            })
        })
    else {
        return Vec::new();
    };
    let own = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let own = own
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .unwrap_or("/")
        .trim_start_matches('/')
        .to_owned();
    let prefix = format!("verdict-{pid}-");
    std::fs::read_dir(Path::new(&mount).join(own))
        .map(|dir| {
            dir.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name.starts_with(&prefix))
                .collect()
        })
        .unwrap_or_default()
}

fn run_timeout(mode: Mode) {
    let project = project("3s");
    let mut child = start(&project, mode, &["run", "-v"], Stdio::null());
    let escapees = escapees(&project, mode, Some(child.id()));
    let status = wait(&mut child, Duration::from_secs(20), "verdict run");
    let verdict = child.id();
    let out = child.wait_with_output().expect("output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    escapees.assert_gone("a run's time-out");
    assert_eq!(
        cgroups_left(verdict),
        Vec::<String>::new(),
        "cgroups removed"
    );
    assert_eq!(status.code(), Some(2), "a time-out is errored: {stderr}");
    let expected = match mode {
        Mode::Detected if cgroups_available() => "verdict: containment: cgroup",
        Mode::Detected => "verdict: containment: ",
        Mode::Subreaper => "verdict: containment: subreaper",
    };
    assert!(
        stderr.contains(expected),
        "-v names the mechanism: {stderr}"
    );
}

#[test]
fn a_runs_timeout_leaves_nothing_running_in_a_cgroup() {
    run_timeout(Mode::Detected);
}

#[test]
fn a_runs_timeout_leaves_nothing_running_with_the_subreaper() {
    run_timeout(Mode::Subreaper);
}

fn ctrl_c(mode: Mode) {
    let project = project("60s");
    let mut child = start(&project, mode, &["run"], Stdio::null());
    let escapees = escapees(&project, mode, Some(child.id()));
    signal(&child, "INT");
    let status = wait(
        &mut child,
        Duration::from_secs(15),
        "verdict run after Ctrl-C",
    );
    escapees.assert_gone("Ctrl-C");
    assert_ne!(status.code(), Some(0));
}

#[test]
fn ctrl_c_leaves_nothing_running_in_a_cgroup() {
    ctrl_c(Mode::Detected);
}

#[test]
fn ctrl_c_leaves_nothing_running_with_the_subreaper() {
    ctrl_c(Mode::Subreaper);
}

/// `kill -9` of `verdict run` (or `verdict mcp`) leaves its tools to run on; the next run in the
/// workspace stops them.
fn killed_then_next_run(mode: Mode, first: &[&str], stdin: Stdio, call: bool) {
    let project = project("60s");
    let mut child = start(&project, mode, first, stdin);
    if call {
        let mut input = child.stdin.take().expect("stdin");
        handshake(&mut input);
        send(&mut input, &verify_call(2));
        // Kept open: the server must not see its end.
        std::mem::forget(input);
    }
    let escapees = escapees(&project, mode, Some(child.id()));
    signal(&child, "KILL");
    let _ = child.wait();
    let killed = child.id();
    std::thread::sleep(Duration::from_millis(200));
    for &pid in &escapees.pids {
        assert!(
            live(pid),
            "{pid} died with verdict: the test proves nothing"
        );
    }
    // The next run, of a verifier that passes at once.
    project.write(
        "verdict.toml",
        "[[verifier]]\nname = \"quick\"\nkind = \"lint\"\ncommand = [\"true\"]\n",
    );
    let mut next = start(&project, mode, &["run"], Stdio::null());
    let status = wait(&mut next, Duration::from_secs(20), "the next verdict run");
    escapees.assert_gone("kill -9, then the next run");
    assert_eq!(
        cgroups_left(killed),
        Vec::<String>::new(),
        "its cgroups removed"
    );
    assert_eq!(status.code(), Some(0));
    let running = project.path(".verdict/running");
    let records = std::fs::read_dir(&running).map_or(0, |d| d.count());
    assert_eq!(records, 0, "the leftovers' records are gone");
}

#[test]
fn a_killed_runs_tools_are_stopped_by_the_next_run_in_a_cgroup() {
    killed_then_next_run(Mode::Detected, &["run"], Stdio::null(), false);
}

#[test]
fn a_killed_runs_tools_are_stopped_by_the_next_run_with_the_subreaper() {
    killed_then_next_run(Mode::Subreaper, &["run"], Stdio::null(), false);
}

#[test]
fn a_killed_mcp_servers_tools_are_stopped_by_the_next_run() {
    killed_then_next_run(Mode::Detected, &["mcp"], Stdio::piped(), true);
    killed_then_next_run(Mode::Subreaper, &["mcp"], Stdio::piped(), true);
}

// ---------------------------------------------------------------------------------------------
// verdict hook: its deadline

fn hook_deadline(mode: Mode) {
    let project = project("60s");
    let mut child = start(
        &project,
        mode,
        &["hook", "claude", "--deadline", "3"],
        Stdio::piped(),
    );
    let input = json!({
        "session_id": "s1",
        "transcript_path": project.path("transcript.jsonl"),
        "cwd": project.root(),
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    });
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(input.to_string().as_bytes())
        .expect("write the input");
    drop(stdin);
    let escapees = escapees(&project, mode, Some(child.id()));
    let status = wait(&mut child, Duration::from_secs(15), "verdict hook");
    let out = child.wait_with_output().expect("output");
    escapees.assert_gone("the hook's deadline");
    assert_eq!(status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("deadline"), "{stdout}");
}

#[test]
fn the_hooks_deadline_leaves_nothing_running_in_a_cgroup() {
    hook_deadline(Mode::Detected);
}

#[test]
fn the_hooks_deadline_leaves_nothing_running_with_the_subreaper() {
    hook_deadline(Mode::Subreaper);
}

// ---------------------------------------------------------------------------------------------
// verdict mcp: a cancel, a disconnect, a signal

fn send(stdin: &mut ChildStdin, message: &Value) {
    writeln!(stdin, "{message}").expect("write to the server");
    stdin.flush().expect("flush");
}

fn handshake(stdin: &mut ChildStdin) {
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "contain-test", "version": "0"}}}),
    );
    send(
        stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
}

fn verify_call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "verify", "arguments": {}}})
}

/// How an MCP session is ended while `verify` runs.
#[derive(Clone, Copy, Debug)]
enum McpStop {
    /// `notifications/cancelled` for the call; the server answers it and serves on.
    Cancel,
    /// stdin closed.
    Disconnect,
    /// A signal, with stdin left open.
    Signal(&'static str),
}

fn mcp(mode: Mode, how: McpStop) {
    let project = project("60s");
    let mut child = start(&project, mode, &["mcp"], Stdio::piped());
    let mut stdin = child.stdin.take().expect("stdin");
    // The server's lines, read on a thread so that a silent server cannot hang the test.
    let stdout = child.stdout.take().expect("stdout");
    let (lines, received) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(value) = serde_json::from_str(&line)
                && lines.send(value).is_err()
            {
                break;
            }
        }
    });
    handshake(&mut stdin);
    send(&mut stdin, &verify_call(2));
    let escapees = escapees(&project, mode, Some(child.id()));
    let response = |id: u64| {
        let until = Instant::now() + Duration::from_secs(15);
        loop {
            let left = until.saturating_duration_since(Instant::now());
            match received.recv_timeout(left) {
                Ok(value) if value["id"] == id => return value,
                Ok(_) => {}
                Err(_) => panic!("no response to request {id}"),
            }
        }
    };
    match how {
        McpStop::Cancel => {
            send(
                &mut stdin,
                &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 2, "reason": "test"}}),
            );
            // The server still answers after the cancel.
            send(
                &mut stdin,
                &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
            );
            let listed = response(3);
            assert!(listed["result"]["tools"].is_array(), "{listed}");
            escapees.assert_gone("an MCP cancel");
            drop(stdin);
        }
        McpStop::Disconnect => drop(stdin),
        McpStop::Signal(name) => {
            signal(&child, name);
            // stdin stays open until the server ended.
            std::mem::forget(stdin);
        }
    }
    let _ = wait(&mut child, Duration::from_secs(20), "verdict mcp");
    escapees.assert_gone(&format!("MCP {how:?}"));
}

#[test]
fn an_mcp_cancel_leaves_nothing_running_in_a_cgroup() {
    mcp(Mode::Detected, McpStop::Cancel);
}

#[test]
fn an_mcp_cancel_leaves_nothing_running_with_the_subreaper() {
    mcp(Mode::Subreaper, McpStop::Cancel);
}

#[test]
fn an_mcp_disconnect_leaves_nothing_running_in_a_cgroup() {
    mcp(Mode::Detected, McpStop::Disconnect);
}

#[test]
fn an_mcp_disconnect_leaves_nothing_running_with_the_subreaper() {
    mcp(Mode::Subreaper, McpStop::Disconnect);
}

#[test]
fn mcp_sigterm_sigint_and_sighup_leave_nothing_running_in_a_cgroup() {
    for name in ["TERM", "INT", "HUP"] {
        mcp(Mode::Detected, McpStop::Signal(name));
    }
}

#[test]
fn mcp_sigterm_leaves_nothing_running_with_the_subreaper() {
    mcp(Mode::Subreaper, McpStop::Signal("TERM"));
}

// ---------------------------------------------------------------------------------------------
// verdict loop: the agent's time-out

fn loop_agent_timeout(mode: Mode) {
    let project = Project::empty();
    project.write("leak.sh", LEAK);
    project.write(
        "verdict.toml",
        "[[verifier]]\nname = \"check\"\nkind = \"test\"\ncommand = [\"sh\", \"-c\", \"test -f fixed\"]\n",
    );
    let mut child = start(
        &project,
        mode,
        &[
            "loop",
            "--task",
            "fix it",
            "--agent",
            "sh leak.sh",
            "--agent-timeout",
            "3",
        ],
        Stdio::null(),
    );
    let escapees = escapees(&project, mode, Some(child.id()));
    let _ = wait(&mut child, Duration::from_secs(30), "verdict loop");
    let out = child.wait_with_output().expect("output");
    escapees.assert_gone("the loop's agent time-out");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("agent timeout"), "{stderr}");
}

#[test]
fn a_loop_agents_timeout_leaves_nothing_running_in_a_cgroup() {
    loop_agent_timeout(Mode::Detected);
}

#[test]
fn a_loop_agents_timeout_leaves_nothing_running_with_the_subreaper() {
    loop_agent_timeout(Mode::Subreaper);
}

/// The `verdict run -v` line says the mechanism, and forcing one works.
#[test]
fn verbose_output_names_the_containment() {
    let project = Project::empty();
    project.write(
        "verdict.toml",
        "[[verifier]]\nname = \"quick\"\nkind = \"lint\"\ncommand = [\"true\"]\n",
    );
    for (mode, expected) in [
        ("group", "verdict: containment: group"),
        ("subreaper", "verdict: containment: subreaper"),
    ] {
        let out = project.verdict_env(&["run", "-v"], &[("VERDICT_CONTAINMENT", mode)]);
        assert!(out.stderr.contains(expected), "{}", out.all());
    }
    assert!(Path::new("/proc/self/mountinfo").exists());
}
