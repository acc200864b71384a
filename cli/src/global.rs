//! The options every command takes, before or after its name: `--color`, `-q`/`--quiet`,
//! `-v`/`--verbose` and `--config` (docs/cli.md).
//!
//! `main` parses them once and records them here with [`set`]; the commands read them back with
//! [`get`], so that a command's own arguments stay its own and `verdict run`, `verdict loop` and
//! the MCP server agree on them without each passing them along.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::OnceLock;

/// When to colour what verdict prints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    /// On a terminal and in GitHub Actions logs, unless `NO_COLOR` or `CLICOLOR=0` says otherwise
    /// (`CLICOLOR_FORCE` forces it)
    #[default]
    Auto,
    /// Always, even into a pipe or a file
    Always,
    /// Never
    Never,
}

/// How much a command says beside its result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Verbosity {
    /// `-q`: the result only, and nothing at all for a pass.
    Quiet,
    /// The default.
    #[default]
    Normal,
    /// `-v`: also what ran and where its output is.
    Verbose,
}

/// Where an explicitly named config file came from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigSource {
    /// `--config FILE`.
    Flag,
    /// `VERDICT_CONFIG=FILE`.
    Env,
}

impl ConfigSource {
    /// How the user named it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            ConfigSource::Flag => "--config",
            ConfigSource::Env => "VERDICT_CONFIG",
        }
    }
}

/// The global options of one invocation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Global {
    /// `--color`.
    pub(crate) color: ColorChoice,
    /// `-q` / `-v`.
    pub(crate) verbosity: Verbosity,
    /// The config file named by `--config` or `VERDICT_CONFIG` (absolute), in place of discovery.
    pub(crate) config: Option<(PathBuf, ConfigSource)>,
}

static GLOBAL: OnceLock<Global> = OnceLock::new();

/// Records the options of this invocation; the first call wins.
pub(crate) fn set(global: Global) {
    let _ = GLOBAL.set(global);
}

/// The options of this invocation (the defaults before [`set`], as in unit tests).
pub(crate) fn get() -> &'static Global {
    static DEFAULT: OnceLock<Global> = OnceLock::new();
    GLOBAL
        .get()
        .unwrap_or_else(|| DEFAULT.get_or_init(Global::default))
}

/// The config file to read: `--config` first, then a non-empty `VERDICT_CONFIG`, made absolute
/// against the current directory so that `-C` does not move it.
pub(crate) fn config_file(flag: Option<PathBuf>) -> Option<(PathBuf, ConfigSource)> {
    let (path, source) = match flag {
        Some(path) => (path, ConfigSource::Flag),
        None => {
            let value = std::env::var_os("VERDICT_CONFIG").filter(|v| !v.is_empty())?;
            (PathBuf::from(value), ConfigSource::Env)
        }
    };
    let path = std::path::absolute(&path).unwrap_or(path);
    Some((path, source))
}

/// A stream verdict writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Whether what goes to `stream` may be coloured, under `--color` and the environment.
pub(crate) fn color(stream: Stream) -> bool {
    let is_terminal = match stream {
        Stream::Stdout => std::io::stdout().is_terminal(),
        Stream::Stderr => std::io::stderr().is_terminal(),
    };
    resolve_color(get().color, is_terminal, &|name| std::env::var_os(name))
}

/// Whether the live progress view may be drawn on stderr: a terminal, colour allowed, not `-q`.
pub(crate) fn live_view() -> bool {
    std::io::stderr().is_terminal() && color(Stream::Stderr) && get().verbosity != Verbosity::Quiet
}

/// The colour decision, as a pure function of the choice, the stream and the environment.
///
/// Under `auto`, in this order: `NO_COLOR` (non-empty) turns colour off; `CLICOLOR_FORCE`
/// (non-empty, not `0`) turns it on; `CLICOLOR=0` turns it off; a terminal gets colour unless
/// `TERM=dumb`; and a stream that is not a terminal gets it only in GitHub Actions
/// (`GITHUB_ACTIONS=true`), whose log viewer renders ANSI colours although the step's output is a
/// pipe. `always` and `never` override the environment, as a command-line flag should.
pub(crate) fn resolve_color(
    choice: ColorChoice,
    is_terminal: bool,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let non_empty = |name: &str| env(name).filter(|v| !v.is_empty());
            if non_empty("NO_COLOR").is_some() {
                return false;
            }
            if non_empty("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                return true;
            }
            if env("CLICOLOR").is_some_and(|v| v == "0") {
                return false;
            }
            if is_terminal {
                return env("TERM").is_none_or(|v| v != "dumb");
            }
            env("GITHUB_ACTIONS").is_some_and(|v| v == "true")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(choice: ColorChoice, is_terminal: bool, vars: &[(&str, &str)]) -> bool {
        resolve_color(choice, is_terminal, &|name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn auto_colours_terminals_and_github_actions_only() {
        assert!(decide(ColorChoice::Auto, true, &[]));
        assert!(!decide(ColorChoice::Auto, false, &[]));
        assert!(decide(
            ColorChoice::Auto,
            false,
            &[("GITHUB_ACTIONS", "true")]
        ));
        assert!(!decide(ColorChoice::Auto, true, &[("TERM", "dumb")]));
    }

    #[test]
    fn the_environment_variables_in_their_order() {
        assert!(!decide(ColorChoice::Auto, true, &[("NO_COLOR", "1")]));
        // An empty NO_COLOR is no request (no-color.org).
        assert!(decide(ColorChoice::Auto, true, &[("NO_COLOR", "")]));
        assert!(decide(ColorChoice::Auto, false, &[("CLICOLOR_FORCE", "1")]));
        assert!(!decide(
            ColorChoice::Auto,
            false,
            &[("CLICOLOR_FORCE", "0")]
        ));
        assert!(!decide(
            ColorChoice::Auto,
            false,
            &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]
        ));
        assert!(!decide(ColorChoice::Auto, true, &[("CLICOLOR", "0")]));
        assert!(!decide(
            ColorChoice::Auto,
            false,
            &[("CLICOLOR", "0"), ("GITHUB_ACTIONS", "true")]
        ));
    }

    #[test]
    fn the_flag_overrides_the_environment() {
        assert!(decide(ColorChoice::Always, false, &[("NO_COLOR", "1")]));
        assert!(!decide(
            ColorChoice::Never,
            true,
            &[("CLICOLOR_FORCE", "1")]
        ));
    }
}
