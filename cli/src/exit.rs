//! verdict's exit codes: the one place the process's exit code is decided. Every command returns
//! an [`ExitCode`]; `main` turns it into the process's.
//!
//! The codes, as `--help`, README.md and docs/loop.md document them (0/1/2 in the convention of
//! eslint and ruff):
//! - 0: every verifier passed, the log shows a pass, the loop ended green, or the command did
//!   what it was asked (`list`, `history`, an install, a hook's answer);
//! - 1: failures in the code (including code that does not compile and test files that cannot
//!   load); for `verdict loop`, attempts exhausted, blocked by a policy, or a failed session;
//! - 2: nothing could be verified (a tool missing, its config invalid, a crash, a time-out, no test
//!   ran, a failure that cannot be parsed), or verdict's own config or command line is wrong;
//! - 3: `verdict loop` escalated to a person;
//! - 130: `verdict loop` was interrupted (128 + SIGINT, as shells report it); it can be resumed.

use verdict_core::Outcome;
use verdict_core::agent_loop::driver::LoopOutcome;

/// How the process ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExitCode {
    /// 0: a pass, or a command that did what it was asked.
    Success,
    /// 1: failures in the code.
    Failures,
    /// 2: nothing could be verified, or verdict's own config or command line is wrong.
    Error,
    /// 3: `verdict loop` escalated to a person.
    Escalated,
    /// 130: `verdict loop` was interrupted; `--resume` continues it.
    Interrupted,
}

impl ExitCode {
    /// The exit code of a verification's outcome: `verdict run`, `verdict summarize`, and what
    /// the MCP tools report they would exit with.
    pub(crate) fn of(outcome: Outcome) -> ExitCode {
        match outcome {
            Outcome::Passed => ExitCode::Success,
            Outcome::Failed => ExitCode::Failures,
            Outcome::Errored => ExitCode::Error,
        }
    }

    /// The exit code of a loop run that ended with `outcome`: `verdict loop`'s, and the
    /// `exit_code` its `run_finished` event reports (the driver asks [`ExitCode::loop_code`]).
    pub(crate) fn of_loop(outcome: LoopOutcome) -> ExitCode {
        match outcome {
            LoopOutcome::Passed => ExitCode::Success,
            LoopOutcome::Failed => ExitCode::Failures,
            LoopOutcome::CouldNotRun | LoopOutcome::Unfinished => ExitCode::Error,
            LoopOutcome::Escalated => ExitCode::Escalated,
            LoopOutcome::Interrupted => ExitCode::Interrupted,
        }
    }

    /// [`ExitCode::of_loop`] as a number: what the CLI hands the driver
    /// ([`LoopParts::exit_code`](verdict_core::agent_loop::driver::LoopParts)).
    pub(crate) fn loop_code(outcome: LoopOutcome) -> u8 {
        ExitCode::of_loop(outcome).code()
    }

    /// The number the process exits with.
    pub(crate) fn code(self) -> u8 {
        match self {
            ExitCode::Success => 0,
            ExitCode::Failures => 1,
            ExitCode::Error => 2,
            ExitCode::Escalated => 3,
            ExitCode::Interrupted => 130,
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_exit_as_documented() {
        assert_eq!(ExitCode::of(Outcome::Passed).code(), 0);
        assert_eq!(ExitCode::of(Outcome::Failed).code(), 1);
        assert_eq!(ExitCode::of(Outcome::Errored).code(), 2);
        assert_eq!(ExitCode::Escalated.code(), 3);
        assert_eq!(ExitCode::Interrupted.code(), 130);
    }

    #[test]
    fn loop_outcomes_exit_as_documented() {
        let codes = [
            (LoopOutcome::Passed, 0),
            (LoopOutcome::Failed, 1),
            (LoopOutcome::CouldNotRun, 2),
            (LoopOutcome::Unfinished, 2),
            (LoopOutcome::Escalated, 3),
            (LoopOutcome::Interrupted, 130),
        ];
        for (outcome, code) in codes {
            assert_eq!(ExitCode::loop_code(outcome), code, "{outcome:?}");
        }
    }
}
