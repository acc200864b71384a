//! The environment a verifier's tool inherits, as part of the key: every variable but the few
//! that cannot change a result.
//!
//! The tool runs with verdict's own environment plus its command's variables, so a variable the
//! project's tests or the tool's configuration read (`RUSTFLAGS`, `NODE_ENV`, a test's own
//! `API_URL`) must change the key. Only variables that name the terminal, the shell's session
//! or the agent harness's session are left out: they differ between a terminal and a hook that
//! verify the same tree, and a check's outcome does not depend on them. A variable not on the
//! list counts, whatever it is.

use std::ffi::OsString;

use super::key::KeyHasher;

/// Variables left out of the key by exact name (docs/cache.md lists them with the reasons).
pub const IGNORED_VARIABLES: &[&str] = &[
    // The terminal: its type, size and identity. Tools run under verdict write to pipes, where
    // these only change how output looks.
    "TERM",
    "TERM_PROGRAM",
    "TERM_PROGRAM_VERSION",
    "TERM_SESSION_ID",
    "COLORTERM",
    "COLUMNS",
    "LINES",
    "WINDOWID",
    "TMUX",
    "TMUX_PANE",
    "STY",
    "WT_SESSION",
    "WT_PROFILE_ID",
    "ITERM_SESSION_ID",
    "ITERM_PROFILE",
    "LC_TERMINAL",
    "LC_TERMINAL_VERSION",
    "VTE_VERSION",
    "KITTY_WINDOW_ID",
    "ALACRITTY_WINDOW_ID",
    "WEZTERM_PANE",
    // Requests to turn colour off, which output to a pipe already is. (`FORCE_COLOR` and
    // `CLICOLOR_FORCE` turn it on and change what a test sees: they count.)
    "NO_COLOR",
    "CLICOLOR",
    "LS_COLORS",
    "LSCOLORS",
    // The shell that started verdict: the last command, nesting, prompt and history. The tool's
    // working directory is the command's own, so `PWD` and `OLDPWD` say nothing about it.
    "_",
    "SHLVL",
    "PWD",
    "OLDPWD",
    "PS1",
    "PS2",
    "PROMPT_COMMAND",
    "HISTFILE",
    "HISTSIZE",
    "HISTFILESIZE",
    "HISTCONTROL",
    // The login and desktop session.
    "SSH_CLIENT",
    "SSH_CONNECTION",
    "SSH_TTY",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_TTY",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "DBUS_SESSION_BUS_ADDRESS",
    "SESSION_MANAGER",
    "XDG_SESSION_ID",
    "XDG_SESSION_TYPE",
    "XDG_SESSION_CLASS",
    "XDG_VTNR",
    "XDG_SEAT",
    // The agent harnesses' markers and session ids, which a hook sees and a terminal does not.
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SSE_PORT",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_SESSION_ID",
    "CLAUDE_ENV_FILE",
    "CODEX_THREAD_ID",
    "CURSOR_TRACE_ID",
    "CURSOR_AGENT",
    "GEMINI_CLI",
    "GEMINI_PROJECT_DIR",
    // verdict's own: the loop's session id, its tracing filter and where it keeps its files,
    // which no tool reads.
    "VERDICT_LOOP_SESSION",
    "VERDICT_LOG",
    "VERDICT_STATE_DIR",
];

/// Whether `name` is left out of the key.
pub(super) fn is_ignored(name: &str) -> bool {
    IGNORED_VARIABLES.contains(&name)
}

/// Feeds the process environment, less the ignored variables, in name order.
pub(super) fn feed(hasher: &mut KeyHasher) {
    feed_vars(hasher, std::env::vars_os());
}

/// Feeds `vars` (name, value) less the ignored ones, in name order.
pub(super) fn feed_vars(hasher: &mut KeyHasher, vars: impl Iterator<Item = (OsString, OsString)>) {
    let mut vars: Vec<(OsString, OsString)> = vars
        .filter(|(name, _)| !name.to_str().is_some_and(is_ignored))
        .collect();
    vars.sort_unstable();
    hasher.count(b'N', vars.len());
    for (name, value) in &vars {
        hasher.field(b'k', name.as_encoded_bytes());
        hasher.field(b'w', value.as_encoded_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(vars: &[(&str, &str)]) -> [u8; 32] {
        let mut hasher = KeyHasher(blake3::Hasher::new());
        feed_vars(
            &mut hasher,
            vars.iter()
                .map(|(n, v)| (OsString::from(n), OsString::from(v))),
        );
        *hasher.0.finalize().as_bytes()
    }

    #[test]
    fn unknown_variables_count_and_listed_ones_do_not() {
        let base = key(&[("PATH", "/bin"), ("HOME", "/h")]);
        assert_ne!(
            key(&[
                ("PATH", "/bin"),
                ("HOME", "/h"),
                ("RUSTFLAGS", "-D warnings")
            ]),
            base
        );
        assert_ne!(key(&[("PATH", "/usr/bin"), ("HOME", "/h")]), base);
        assert_ne!(
            key(&[("PATH", "/bin"), ("HOME", "/h"), ("FORCE_COLOR", "1")]),
            base
        );
        assert_eq!(
            key(&[
                ("TERM", "xterm"),
                ("HOME", "/h"),
                ("_", "/usr/bin/verdict"),
                ("PATH", "/bin"),
                ("CLAUDECODE", "1"),
            ]),
            base,
            "order and ignored variables do not count"
        );
    }
}
