//! The JSON shapes that cross the boundary, and their conversions to and from verdict-model's
//! types.
//!
//! These types, not verdict-model's, define the ABI: they are written out here so that a change to
//! an internal type cannot silently change what a plugin receives. The one exception is the report
//! `interpret` returns, which is [`verdict_model::Report`]'s JSON — the same documented format
//! `verdict summarize --format json` prints.
//!
//! Paths are JSON strings (a path that is not UTF-8 cannot be sent); durations are whole
//! milliseconds; the contents of the tool's output files are standard base64.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use verdict_model::Kind;
use verdict_model::verifier as core;

/// What `describe` returns: the plugin's verifiers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Description {
    /// One entry per verifier; names are unique within the plugin.
    pub verifiers: Vec<VerifierInfo>,
}

/// One verifier of a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifierInfo {
    /// Its name, as `--only` takes it and reports show it.
    pub name: String,
    /// The kind of diagnostics it reports: `build`, `type`, `lint`, `test` or `custom`.
    pub kind: Kind,
}

/// The workspace a verifier looks at ([`core::Workspace`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    /// The project's root directory.
    pub root: PathBuf,
    /// This run's directory, where logs and the tool's machine-readable output go.
    pub run_dir: PathBuf,
}

impl From<&core::Workspace> for Workspace {
    fn from(workspace: &core::Workspace) -> Self {
        Workspace {
            root: workspace.root.clone(),
            run_dir: workspace.run_dir.clone(),
        }
    }
}

impl From<Workspace> for core::Workspace {
    fn from(workspace: Workspace) -> Self {
        core::Workspace::new(workspace.root).with_run_dir(workspace.run_dir)
    }
}

/// What `applies` returns ([`core::Applicability`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applicability {
    /// Whether the verifier applies.
    pub applies: bool,
    /// Why, naming the files that said so (or what is missing).
    pub reason: String,
}

impl From<core::Applicability> for Applicability {
    fn from(applicability: core::Applicability) -> Self {
        match applicability {
            core::Applicability::Applies(reason) => Applicability {
                applies: true,
                reason,
            },
            core::Applicability::DoesNotApply(reason) => Applicability {
                applies: false,
                reason,
            },
        }
    }
}

impl From<Applicability> for core::Applicability {
    fn from(applicability: Applicability) -> Self {
        if applicability.applies {
            core::Applicability::Applies(applicability.reason)
        } else {
            core::Applicability::DoesNotApply(applicability.reason)
        }
    }
}

/// What exit codes mean ([`core::ExitCodes`]).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExitCodes {
    /// Exit codes meaning the tool ran and found nothing.
    pub pass: Vec<i32>,
    /// Exit codes meaning the tool ran and found failures in the code.
    pub fail: Vec<i32>,
}

/// A command to run, with no shell anywhere ([`core::CommandSpec`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandSpec {
    /// A path, or a name looked up on `PATH`.
    pub program: PathBuf,
    /// The arguments, one element each.
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// How long it may run, in milliseconds.
    pub timeout_ms: u64,
    /// What its exit codes mean.
    pub exit_codes: ExitCodes,
    /// Files the tool writes machine-readable output to, handed back to `interpret`.
    #[serde(default)]
    pub output_files: Vec<PathBuf>,
}

impl From<&core::CommandSpec> for CommandSpec {
    fn from(spec: &core::CommandSpec) -> Self {
        CommandSpec {
            program: spec.program.clone(),
            args: spec.args.clone(),
            env: spec.env.clone(),
            cwd: spec.cwd.clone(),
            timeout_ms: u64::try_from(spec.timeout.as_millis()).unwrap_or(u64::MAX),
            exit_codes: ExitCodes {
                pass: spec.exit_codes.pass.clone(),
                fail: spec.exit_codes.fail.clone(),
            },
            output_files: spec.output_files.clone(),
        }
    }
}

impl From<CommandSpec> for core::CommandSpec {
    fn from(spec: CommandSpec) -> Self {
        core::CommandSpec {
            program: spec.program,
            args: spec.args,
            env: spec.env,
            cwd: spec.cwd,
            timeout: Duration::from_millis(spec.timeout_ms),
            exit_codes: core::ExitCodes {
                pass: spec.exit_codes.pass,
                fail: spec.exit_codes.fail,
            },
            output_files: spec.output_files,
        }
    }
}

/// How a command ended ([`core::Exit`]): `{"status": "code", "code": 2}`, `{"status": "signal",
/// "signal": 9}`, `{"status": "timed_out"}`, `{"status": "cancelled"}`,
/// `{"status": "not_started", "message": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "status")]
pub enum Exit {
    /// It exited with this code.
    Code {
        /// The exit code.
        code: i32,
    },
    /// It was ended by this signal.
    Signal {
        /// The signal number.
        signal: i32,
    },
    /// It ran past its time-out and was stopped.
    TimedOut,
    /// The run was interrupted.
    Cancelled,
    /// It could not be started.
    NotStarted {
        /// Why.
        message: String,
    },
}

impl From<&core::Exit> for Exit {
    fn from(exit: &core::Exit) -> Self {
        match exit {
            core::Exit::Code { code } => Exit::Code { code: *code },
            core::Exit::Signal { signal } => Exit::Signal { signal: *signal },
            core::Exit::TimedOut => Exit::TimedOut,
            core::Exit::Cancelled => Exit::Cancelled,
            core::Exit::NotStarted { message } => Exit::NotStarted {
                message: message.clone(),
            },
        }
    }
}

impl From<Exit> for core::Exit {
    fn from(exit: Exit) -> Self {
        match exit {
            Exit::Code { code } => core::Exit::Code { code },
            Exit::Signal { signal } => core::Exit::Signal { signal },
            Exit::TimedOut => core::Exit::TimedOut,
            Exit::Cancelled => core::Exit::Cancelled,
            Exit::NotStarted { message } => core::Exit::NotStarted { message },
        }
    }
}

/// What the command printed and how it ended ([`core::Captured`]); the output itself stays in the
/// log file, which the plugin reads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Captured {
    /// How it ended.
    pub exit: Exit,
    /// The file holding its interleaved standard output and standard error.
    pub log_path: PathBuf,
    /// How many bytes were written there.
    pub log_bytes: u64,
    /// The contents of the spec's output files, in order, base64-encoded; `null` for a file the
    /// tool did not write.
    pub output_files: Vec<Option<String>>,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
}

impl From<&core::Captured> for Captured {
    fn from(captured: &core::Captured) -> Self {
        let engine = base64::engine::general_purpose::STANDARD;
        Captured {
            exit: Exit::from(&captured.exit),
            log_path: captured.log_path.clone(),
            log_bytes: captured.log_bytes,
            output_files: captured
                .output_files
                .iter()
                .map(|file| file.as_ref().map(|bytes| engine.encode(bytes)))
                .collect(),
            duration_ms: u64::try_from(captured.duration.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

impl TryFrom<Captured> for core::Captured {
    type Error = base64::DecodeError;

    fn try_from(captured: Captured) -> Result<Self, Self::Error> {
        let engine = base64::engine::general_purpose::STANDARD;
        let output_files = captured
            .output_files
            .into_iter()
            .map(|file| file.map(|text| engine.decode(text)).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        Ok(core::Captured {
            exit: captured.exit.into(),
            log_path: captured.log_path,
            log_bytes: captured.log_bytes,
            log_cut: 0,
            output_files,
            duration: Duration::from_millis(captured.duration_ms),
        })
    }
}

/// The files a verifier's result depends on ([`core::Inputs`]); `inputs` returns this or `null`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Inputs {
    /// Gitignore-style globs relative to the workspace root.
    pub globs: Vec<String>,
    /// Files identifying the tool's version or configuration.
    pub tool_files: Vec<PathBuf>,
}

impl From<core::Inputs> for Inputs {
    fn from(inputs: core::Inputs) -> Self {
        Inputs {
            globs: inputs.globs,
            tool_files: inputs.tool_files,
        }
    }
}

impl From<Inputs> for core::Inputs {
    fn from(inputs: Inputs) -> Self {
        core::Inputs {
            globs: inputs.globs,
            tool_files: inputs.tool_files,
            // Plugins match their globs from the workspace root (the ABI has no root field).
            root: None,
        }
    }
}

/// The payload of a call that returned [`crate::STATUS_ERROR`]: `{"kind": …, …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Error {
    /// `command`: the tool is not installed ([`core::VerifierError::NotInstalled`]).
    NotInstalled {
        /// The tool's name.
        tool: String,
        /// How to install it.
        hint: String,
    },
    /// `command`: the project could not be read or makes no sense to the verifier
    /// ([`core::VerifierError::Project`]).
    Project {
        /// The tool's name.
        tool: String,
        /// What went wrong.
        message: String,
    },
    /// The host sent something the plugin could not read: invalid JSON, or a verifier name the
    /// plugin does not have.
    InvalidInput {
        /// What was wrong with it.
        message: String,
    },
    /// The plugin panicked; the message is the panic's.
    Panic {
        /// The panic message.
        message: String,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::NotInstalled { tool, hint } => write!(f, "{tool} is not installed: {hint}"),
            Error::Project { tool, message } => {
                write!(f, "failed to read the project for {tool}: {message}")
            }
            Error::InvalidInput { message } => {
                write!(f, "the plugin rejected its input: {message}")
            }
            Error::Panic { message } => write!(f, "the plugin panicked: {message}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<core::VerifierError> for Error {
    fn from(error: core::VerifierError) -> Self {
        match error {
            core::VerifierError::NotInstalled { tool, hint } => Error::NotInstalled { tool, hint },
            core::VerifierError::Project { tool, message } => Error::Project { tool, message },
            // Plugins run whole in the first shard and never meet this; the ABI stays as it is.
            core::VerifierError::EmptyShard { tool, shard } => Error::Project {
                message: format!("no test file for shard {shard}"),
                tool,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON shapes are the ABI: these fail if a field is renamed.
    #[test]
    fn shapes_are_the_documented_ones() {
        let spec = CommandSpec {
            program: "git".into(),
            args: vec!["diff".into()],
            env: BTreeMap::from([("LC_ALL".to_owned(), "C".to_owned())]),
            cwd: "/p".into(),
            timeout_ms: 1500,
            exit_codes: ExitCodes {
                pass: vec![0],
                fail: vec![2],
            },
            output_files: vec![],
        };
        assert_eq!(
            serde_json::to_string(&spec).expect("serializes"),
            r#"{"program":"git","args":["diff"],"env":{"LC_ALL":"C"},"cwd":"/p","timeout_ms":1500,"exit_codes":{"pass":[0],"fail":[2]},"output_files":[]}"#
        );
        let captured = Captured::from(&core::Captured {
            exit: core::Exit::Code { code: 2 },
            log_path: "/p/x.log".into(),
            log_bytes: 7,
            log_cut: 0,
            output_files: vec![Some(b"{}".to_vec()), None],
            duration: Duration::from_millis(12),
        });
        assert_eq!(
            serde_json::to_string(&captured).expect("serializes"),
            r#"{"exit":{"status":"code","code":2},"log_path":"/p/x.log","log_bytes":7,"output_files":["e30=",null],"duration_ms":12}"#
        );
        let error = Error::from(core::VerifierError::NotInstalled {
            tool: "git".into(),
            hint: "apt install git".into(),
        });
        assert_eq!(
            serde_json::to_string(&error).expect("serializes"),
            r#"{"kind":"not_installed","tool":"git","hint":"apt install git"}"#
        );
    }

    #[test]
    fn captured_round_trips_with_its_output_files() {
        let original = core::Captured {
            exit: core::Exit::NotStarted {
                message: "no such file".into(),
            },
            log_path: "/p/x.log".into(),
            log_bytes: 0,
            log_cut: 0,
            output_files: vec![None, Some(vec![0, 255, 10, 13])],
            duration: Duration::from_millis(3),
        };
        let back = core::Captured::try_from(Captured::from(&original)).expect("decodes");
        assert_eq!(back, original);
    }
}
