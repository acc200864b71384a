//! The version of Claude Code a hook install will meet, read from `claude --version`.
//!
//! The stop hook gives its feedback as `hookSpecificOutput.additionalContext` beside the block.
//! Claude Code reads that field on `Stop` since [`FEEDBACK_SINCE`]; an older one rejects the whole
//! answer as invalid JSON output and lets the agent stop unverified. The hook's input carries no
//! version, so the install is where an older Claude Code can be told apart and said.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The first Claude Code whose stop hooks take `additionalContext`.
pub(super) const FEEDBACK_SINCE: Version = Version(2, 1, 163);

/// How long `claude --version` may take: it starts a Node.js program.
const ASK_FOR: Duration = Duration::from_secs(10);

/// A Claude Code version, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Version(pub u64, pub u64, pub u64);

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// A warning when the `claude` on `PATH` is older than [`FEEDBACK_SINCE`]; `None` when it is
/// recent enough, or when no version can be read (no `claude`, a wrapper that prints something
/// else): then nothing is known, and nothing is said.
pub(super) fn too_old_warning() -> Option<String> {
    let found = installed()?;
    (found < FEEDBACK_SINCE).then(|| {
        format!(
            "warning: the `claude` on PATH is Claude Code {found}; its stop hooks reject the \
             feedback verdict gives beside a block (Claude Code {FEEDBACK_SINCE} or later reads \
             it) and let the agent stop unverified: update Claude Code (`claude update`)"
        )
    })
}

/// The version `claude --version` prints, if it ends in time and prints one.
fn installed() -> Option<Version> {
    let mut child = Command::new("claude")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let until = Instant::now() + ASK_FOR;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let output = child.wait_with_output().ok()?;
    parse(&String::from_utf8_lossy(&output.stdout))
}

/// The version at the start of `claude --version`'s output (`2.1.332 (Claude Code)`).
fn parse(text: &str) -> Option<Version> {
    let word = text.split_whitespace().next()?;
    let mut parts = word.trim_start_matches('v').splitn(3, '.');
    let mut number = || -> Option<u64> {
        let part = parts.next()?;
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    Some(Version(number()?, number()?, number()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_read_from_what_claude_prints() {
        assert_eq!(parse("2.1.332 (Claude Code)\n"), Some(Version(2, 1, 332)));
        assert_eq!(parse("1.0.35 (Claude Code)"), Some(Version(1, 0, 35)));
        assert_eq!(parse("v2.1.163-beta.1"), Some(Version(2, 1, 163)));
        assert_eq!(parse("claude: command not found"), None);
        assert_eq!(parse(""), None);
        assert!(Version(2, 1, 99) < FEEDBACK_SINCE);
        assert!(Version(2, 1, 163) >= FEEDBACK_SINCE);
        assert!(Version(3, 0, 0) > FEEDBACK_SINCE);
    }
}
