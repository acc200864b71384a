//! The one state machine of a loop run: which states exist and which moves between them are
//! allowed.
//!
//! ```text
//! pending         → agent_running | interrupted | blocked
//! agent_running   → verifying | session_failed | retry_scheduled | exhausted | escalated
//!                   | blocked | interrupted
//! verifying       → passed | retry_scheduled | exhausted | escalated | blocked | interrupted
//! retry_scheduled → agent_running | exhausted | escalated | blocked | interrupted
//! interrupted     → agent_running | verifying | retry_scheduled | exhausted | escalated | blocked
//! passed, exhausted, escalated, blocked, session_failed: terminal
//! ```
//!
//! Seed 004 asks for validated transitions (FR-1), terminal states that never move again, and retry
//! state that survives a restart of the orchestrator with pending retries resumed on startup (FR-6).
//! The states the issue names cover a run that is never killed. `interrupted` is the one state added
//! for the rest: the process driving the run died (kill -9, a crash, a second Ctrl-C) or stopped on
//! purpose, and the run waits to be resumed. It is not terminal — `find_run_by_task` finds it — and
//! resuming moves out of it to wherever the run must continue: a new attempt (`agent_running`), the
//! verification of an attempt that finished but was never verified (`verifying`), a scheduled retry,
//! or a final state when nothing is left to try. Without it, resuming a run stored as
//! `agent_running` would need an `agent_running → agent_running` move, which would also let a
//! driver start two attempts at once without noticing.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Where a loop run stands. Stored as its [`as_str`](RunState::as_str) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Created; no attempt has started yet (the baseline verification runs here).
    Pending,
    /// An attempt's agent session is running (including its inner, transient-failure retries).
    AgentRunning,
    /// The attempt's agent session ended; the verifiers are running on its result.
    Verifying,
    /// The attempt failed verification; another attempt will start (after the policy's delay).
    RetryScheduled,
    /// The process driving the run stopped before the run ended; it waits to be resumed.
    Interrupted,
    /// Terminal: verified green.
    Passed,
    /// Terminal: every allowed attempt was spent without a pass.
    Exhausted,
    /// Terminal: a policy escalated to a person (the same failure twice, a category's action).
    Escalated,
    /// Terminal: a policy blocked the run; it needs a person before anything else is tried.
    Blocked,
    /// Terminal: the agent session itself failed (timeout, turn limit, crash) and the policy ends
    /// the loop on that.
    SessionFailed,
}

impl RunState {
    /// Every state, in the order of the diagram.
    pub const ALL: [RunState; 10] = [
        RunState::Pending,
        RunState::AgentRunning,
        RunState::Verifying,
        RunState::RetryScheduled,
        RunState::Interrupted,
        RunState::Passed,
        RunState::Exhausted,
        RunState::Escalated,
        RunState::Blocked,
        RunState::SessionFailed,
    ];

    /// The snake_case name stored in the database and shown to people.
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Pending => "pending",
            RunState::AgentRunning => "agent_running",
            RunState::Verifying => "verifying",
            RunState::RetryScheduled => "retry_scheduled",
            RunState::Interrupted => "interrupted",
            RunState::Passed => "passed",
            RunState::Exhausted => "exhausted",
            RunState::Escalated => "escalated",
            RunState::Blocked => "blocked",
            RunState::SessionFailed => "session_failed",
        }
    }

    /// Whether the run has ended: no move leaves a terminal state.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            RunState::Passed
                | RunState::Exhausted
                | RunState::Escalated
                | RunState::Blocked
                | RunState::SessionFailed
        )
    }

    /// Whether the state machine allows the move `self → to`.
    ///
    /// Starting an attempt (`→ agent_running`) is allowed from `pending`, `retry_scheduled` and
    /// `interrupted`. An agent session that fails ends the run (`session_failed`), or — when
    /// configured to go on — schedules a retry or ends the run the way a failed verification would.
    /// A verification ends in a pass, a scheduled retry or a final failure. Every live state can be
    /// interrupted, and `interrupted` resumes into any state a driver can continue from. Nothing
    /// moves to `pending`, and a state never moves to itself.
    pub fn can_go_to(self, to: RunState) -> bool {
        use RunState::*;
        match self {
            Pending => matches!(to, AgentRunning | Interrupted | Blocked),
            AgentRunning => matches!(
                to,
                Verifying
                    | SessionFailed
                    | RetryScheduled
                    | Exhausted
                    | Escalated
                    | Blocked
                    | Interrupted
            ),
            Verifying => matches!(
                to,
                Passed | RetryScheduled | Exhausted | Escalated | Blocked | Interrupted
            ),
            RetryScheduled => matches!(
                to,
                AgentRunning | Interrupted | Exhausted | Escalated | Blocked
            ),
            Interrupted => matches!(
                to,
                AgentRunning | Verifying | RetryScheduled | Exhausted | Escalated | Blocked
            ),
            Passed | Exhausted | Escalated | Blocked | SessionFailed => false,
        }
    }
}

impl fmt::Display for RunState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a name that is not a [`RunState`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown run state `{0}`")]
pub struct UnknownState(pub String);

impl FromStr for RunState {
    type Err = UnknownState;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RunState::ALL
            .into_iter()
            .find(|state| state.as_str() == s)
            .ok_or_else(|| UnknownState(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for state in RunState::ALL {
            assert_eq!(state.as_str().parse::<RunState>(), Ok(state));
            let json = serde_json::to_string(&state).expect("serializes");
            assert_eq!(json, format!("\"{}\"", state.as_str()));
        }
        assert_eq!(
            "running".parse::<RunState>(),
            Err(UnknownState("running".into()))
        );
    }

    #[test]
    fn terminal_states_never_move_and_nothing_returns_to_pending() {
        for from in RunState::ALL {
            for to in RunState::ALL {
                if from.is_terminal() || to == RunState::Pending || from == to {
                    assert!(!from.can_go_to(to), "{from} → {to} must be refused");
                }
            }
        }
    }

    #[test]
    fn the_loop_of_the_issue_is_allowed() {
        use RunState::*;
        let path = [
            Pending,
            AgentRunning,
            Verifying,
            RetryScheduled,
            AgentRunning,
            Verifying,
            Passed,
        ];
        for pair in path.windows(2) {
            assert!(pair[0].can_go_to(pair[1]), "{} → {}", pair[0], pair[1]);
        }
        for end in [Exhausted, Escalated, Blocked] {
            assert!(Verifying.can_go_to(end));
        }
        assert!(AgentRunning.can_go_to(SessionFailed));
        assert!(!Verifying.can_go_to(SessionFailed));
        assert!(!Pending.can_go_to(Verifying));
        assert!(!Pending.can_go_to(Passed));
        assert!(!AgentRunning.can_go_to(Passed));
        assert!(!RetryScheduled.can_go_to(Verifying));
        // Every live state can be interrupted, and an interrupted run can start its next attempt.
        for from in [Pending, AgentRunning, Verifying, RetryScheduled] {
            assert!(from.can_go_to(Interrupted));
        }
        assert!(Interrupted.can_go_to(AgentRunning));
        assert!(Interrupted.can_go_to(Verifying));
    }
}
