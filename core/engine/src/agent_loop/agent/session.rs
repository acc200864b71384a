//! One agent session: the [`AgentSession`] trait and [`CommandSession`], which runs an
//! [`AgentSpec`] as a fresh process per call.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;

use super::outcome::{SessionOutcome, classify};
use super::{AgentSpec, PROMPT_FILE, PromptVia};
use crate::process::{ProcessRunner, RunExtras};
use crate::redact::redact;
use crate::verifier::{CommandSpec, Exit, ExitCodes};

/// The longest single argument Linux passes to a program (`MAX_ARG_STRLEN`, 32 pages of 4 KiB).
const MAX_ARG_LEN: usize = 32 * 4096;

/// How many lines of the agent's output a [`SessionResult`] keeps.
pub const TAIL_LINES: usize = 40;

/// How many of the last lines of output the outcome patterns look at: enough for an error and its
/// stack trace, not so many that source code the agent printed earlier (holding `429` or "rate
/// limit") is taken for an error of its own.
pub const CLASSIFY_LINES: usize = 100;

/// The most bytes of an agent's output its log keeps: the first and the last 8 MiB, with a line
/// between them saying how much was left out (an agent can print without end; its log must not
/// fill the disk).
pub const LOG_LIMIT: u64 = 16 * 1024 * 1024;

/// How much of the end of the log is read for the tail and the outcome patterns.
const TAIL_BYTES: u64 = 64 * 1024;

/// Called with a session's [`SpawnInfo`] right after its process is spawned, before it is awaited
/// (the loop records the pid and process group in its database there). Shared, since a pool may
/// start several sessions for one attempt.
pub type SpawnHook = Arc<dyn Fn(&SpawnInfo) + Send + Sync>;

/// A spawned agent process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpawnInfo {
    /// The agent's name.
    pub agent: String,
    /// The process id.
    pub pid: u32,
    /// The process group id (every agent leads its own group, so it equals `pid`).
    pub pgid: u32,
    /// When it was spawned.
    pub started: SystemTime,
}

/// What one session is asked to do.
#[derive(Clone)]
pub struct SessionRequest {
    /// The prompt.
    pub prompt: String,
    /// The workspace the agent works in (its working directory).
    pub cwd: PathBuf,
    /// A directory of this session's own, outside the workspace: it receives the prompt file (if
    /// the agent takes one) and the log of the agent's output. Created if missing.
    pub run_dir: PathBuf,
    /// Told the pid as soon as the process exists.
    pub on_spawn: Option<SpawnHook>,
}

impl std::fmt::Debug for SessionRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRequest")
            .field("prompt_len", &self.prompt.len())
            .field("cwd", &self.cwd)
            .field("run_dir", &self.run_dir)
            .field("on_spawn", &self.on_spawn.is_some())
            .finish()
    }
}

/// How one session went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionResult {
    /// The agent's name.
    pub agent: String,
    /// How it ended.
    pub outcome: SessionOutcome,
    /// The process's exit.
    pub exit: Exit,
    /// The last [`TAIL_LINES`] lines of its output (stdout and stderr as they arrived).
    pub output_tail: String,
    /// How long it ran.
    pub duration: Duration,
    /// Its pid, if it was spawned.
    pub pid: Option<u32>,
    /// The full log of its output.
    pub log_path: PathBuf,
}

/// One session of a coding agent. Each call is a fresh session: nothing of an earlier call's
/// conversation is carried over (what carries over is the workspace and the prompt).
///
/// Contract: `run` never fails — a missing program, a time-out, a crash are all outcomes in the
/// returned [`SessionResult`] — and nothing the agent started is left running when it returns.
#[async_trait]
pub trait AgentSession: Send + Sync {
    /// The agent's name (events, logs).
    fn name(&self) -> &str;

    /// Runs one session on `request`.
    async fn run(&self, request: SessionRequest) -> SessionResult;
}

/// The [`AgentSession`] that runs an [`AgentSpec`]'s command through a [`ProcessRunner`] (its own
/// process group, the spec's time-out, the runner's cancellation).
#[derive(Debug, Clone)]
pub struct CommandSession {
    spec: AgentSpec,
    runner: ProcessRunner,
}

impl CommandSession {
    /// A session of `spec` run by `runner`.
    pub fn new(spec: AgentSpec, runner: ProcessRunner) -> CommandSession {
        CommandSession { spec, runner }
    }

    /// The agent it runs.
    pub fn spec(&self) -> &AgentSpec {
        &self.spec
    }
}

#[async_trait]
impl AgentSession for CommandSession {
    fn name(&self) -> &str {
        &self.spec.name
    }

    async fn run(&self, request: SessionRequest) -> SessionResult {
        let name = &self.spec.name;
        let log_path = request.run_dir.join(format!("{}.log", file_stem(name)));
        let not_started = |message: String| SessionResult {
            agent: name.clone(),
            outcome: SessionOutcome::NotStarted {
                message: message.clone(),
            },
            exit: Exit::NotStarted { message },
            output_tail: String::new(),
            duration: Duration::ZERO,
            pid: None,
            log_path: log_path.clone(),
        };
        if let Err(error) = crate::files::create_private_dir(&request.run_dir) {
            return not_started(format!(
                "failed to create the run directory `{}`: {error}",
                request.run_dir.display()
            ));
        }
        let via = self.spec.prompt_via();
        let prompt_file = request.run_dir.join(format!("{}.prompt", file_stem(name)));
        // Written whenever the argv names it, even beside `{prompt}`.
        let wants_file = self.spec.argv.iter().any(|arg| arg.contains(PROMPT_FILE));
        if wants_file && let Err(error) = crate::files::write_private(&prompt_file, &request.prompt)
        {
            return not_started(format!(
                "failed to write the prompt file `{}`: {error}",
                prompt_file.display()
            ));
        }
        let argv = self
            .spec
            .expand_argv(&request.prompt, &prompt_file.to_string_lossy());
        let Some((program, args)) = argv.split_first() else {
            return not_started(format!("agent `{name}` has an empty command"));
        };
        // Linux refuses a single argument longer than MAX_ARG_STRLEN (32 pages) with E2BIG; say
        // why and what to do rather than pass on "Argument list too long".
        if let Some(long) = args.iter().find(|arg| arg.len() >= MAX_ARG_LEN) {
            return not_started(format!(
                "the prompt makes an argument of {} bytes, over the {} KiB Linux allows for one \
                 argument; give agent `{name}` the prompt through {PROMPT_FILE} or on stdin",
                long.len(),
                MAX_ARG_LEN / 1024
            ));
        }
        let mut env = self.spec.env.clone();
        env.insert(super::LOOP_SESSION_ENV.to_owned(), "1".to_owned());
        let spec = CommandSpec {
            program: PathBuf::from(program),
            args: args.to_vec(),
            env,
            cwd: request.cwd.clone(),
            timeout: self.spec.timeout,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: Vec::new(),
            },
            output_files: Vec::new(),
        };
        let pid = Arc::new(std::sync::OnceLock::new());
        let extras = RunExtras {
            stdin: (via == PromptVia::Stdin).then(|| request.prompt.clone().into_bytes()),
            on_spawn: Some(spawned(&pid, request.on_spawn.clone(), name.clone())),
            log_limit: Some(LOG_LIMIT),
        };
        let captured = self.runner.run_with(&spec, &log_path, extras).await;
        let output_tail = read_tail(&log_path, TAIL_BYTES);
        let outcome = classify(
            &captured.exit,
            &last_lines(&output_tail.text, CLASSIFY_LINES),
            &self.spec.patterns,
        );
        SessionResult {
            agent: name.clone(),
            outcome,
            exit: captured.exit,
            // The tail is stored, shown in events and quoted in the next prompt: it leaves the
            // process, so it is redacted here, where the agent's output enters the loop.
            output_tail: redact(&last_lines(&output_tail.text, TAIL_LINES)).into_owned(),
            duration: captured.duration,
            pid: pid.get().copied(),
            log_path,
        }
    }
}

/// What the runner calls once the agent is spawned: keeps its pid in `pid` and tells `hook`
/// (the agent is the leader of its own process group, so the group's id is its pid).
fn spawned(
    pid: &Arc<std::sync::OnceLock<u32>>,
    hook: Option<SpawnHook>,
    agent: String,
) -> Box<dyn FnOnce(u32) + Send> {
    let pid = Arc::clone(pid);
    Box::new(move |child: u32| {
        let _ = pid.set(child);
        if let Some(hook) = hook {
            hook(&SpawnInfo {
                agent,
                pid: child,
                pgid: child,
                started: SystemTime::now(),
            });
        }
    })
}

/// The end of a log, as text.
struct Tail {
    text: String,
}

/// Reads the last `max` bytes of `path` (lossy UTF-8, the first partial line dropped when cut).
fn read_tail(path: &Path, max: u64) -> Tail {
    let read = || -> std::io::Result<String> {
        let mut file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        let start = len.saturating_sub(max);
        file.seek(SeekFrom::Start(start))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        if start > 0
            && let Some(newline) = text.find('\n')
        {
            text.drain(..=newline);
        }
        Ok(text)
    };
    Tail {
        text: read().unwrap_or_default(),
    }
}

/// The last `count` lines of `text`.
fn last_lines(text: &str, count: usize) -> String {
    let trimmed = text.trim_end_matches('\n');
    let mut start = trimmed.len();
    for _ in 0..count {
        match trimmed[..start].rfind('\n') {
            Some(newline) => start = newline,
            None => return trimmed.to_owned(),
        }
    }
    trimmed[start + 1..].to_owned()
}

/// A name made safe for a file name.
fn file_stem(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_lines_keeps_the_end() {
        assert_eq!(last_lines("a\nb\nc\n", 2), "b\nc");
        assert_eq!(last_lines("a\nb", 5), "a\nb");
        assert_eq!(last_lines("", 3), "");
        assert_eq!(file_stem("my agent/2"), "my_agent_2");
    }
}
