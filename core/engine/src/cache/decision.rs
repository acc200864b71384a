//! Why a verifier was or was not served from the cache, and what its run left there: what
//! `verdict run -v` says of each verifier.

use std::fmt;

/// Whether a verifier was served from the cache and, if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// Served: a pass was stored with exactly this run's key.
    Served,
    /// The run keeps no cache.
    NoCache,
    /// `--no-cache`: not looked up (a pass is still stored for the next run).
    Disabled,
    /// The verifier does not say which files its result depends on: it is never served or
    /// stored. The reason says which kind of verifier it is.
    NotCacheable(String),
    /// The key could not be computed (an input could not be read, an invalid glob).
    NoKey(String),
    /// No pass is stored: it never passed, or its last run did not.
    NoEntry,
    /// A pass is stored for another key: an input, the environment, a tool or the command
    /// changed since.
    KeyChanged,
}

/// What a verifier's run left in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// It passed and no input was written while it ran: the pass is stored under its key.
    Stored,
    /// It passed, but an input was written while it ran (or could no longer be read): what it
    /// saw is not what the key names, so nothing is stored.
    InputsChanged,
    /// It did not pass, and the pass stored for it (under any key) was removed.
    Removed,
    /// It did not pass, and no pass was stored for it.
    NotPassed,
    /// Nothing to store: not cacheable, no key, no cache, or not a whole run (a shard with no
    /// test of the verifier's).
    Nothing,
    /// The cache could not be written.
    Failed(String),
}

/// What the cache did for one verifier in one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Whether it was served, and why not.
    pub lookup: Lookup,
    /// What its run stored; `None` when it was served and did not run.
    pub stored: Option<Stored>,
}

impl fmt::Display for Lookup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lookup::Served => f.write_str(
                "served from the cache: its last pass had the same inputs, environment and tools",
            ),
            Lookup::NoCache => f.write_str("not from the cache: this run keeps no cache"),
            Lookup::Disabled => f.write_str("not from the cache: --no-cache"),
            Lookup::NotCacheable(why) => write!(f, "not from the cache: not cacheable ({why})"),
            Lookup::NoKey(error) => {
                write!(
                    f,
                    "not from the cache: its inputs could not be read ({error})"
                )
            }
            Lookup::NoEntry => f.write_str("not from the cache: no pass stored"),
            Lookup::KeyChanged => f.write_str(
                "not from the cache: the key changed since its last pass (inputs, environment, \
                 tools or command)",
            ),
        }
    }
}

impl fmt::Display for Stored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stored::Stored => f.write_str("pass stored"),
            Stored::InputsChanged => {
                f.write_str("pass not stored: its inputs changed while it ran")
            }
            Stored::Removed => f.write_str("did not pass: its stored pass removed"),
            Stored::NotPassed => f.write_str("did not pass: nothing stored"),
            Stored::Nothing => f.write_str("nothing stored"),
            Stored::Failed(error) => write!(f, "the cache could not be written: {error}"),
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.lookup)?;
        match &self.stored {
            // A verifier that is not cacheable, or a run without a cache, stores nothing: the
            // lookup said why.
            Some(Stored::Nothing) | None => Ok(()),
            Some(stored) => write!(f, "; {stored}"),
        }
    }
}
