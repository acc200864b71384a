//! Loads verifier plugins — shared libraries speaking [`verdict_plugin_abi`] — and wraps each of
//! their verifiers as a [`verdict_model::Verifier`], so that the pipeline runs them like linked ones.
//!
//! Loading checks, in this order and before calling anything else: that the library opens, that it
//! exports the ABI version symbol, that the version is in [`SUPPORTED_ABI`], that it exports the
//! table symbol, and that the table is at least as large as this host needs. Then it asks the plugin
//! to describe its verifiers. Each failure is its own [`LoadError`].
//!
//! Libraries are never unloaded: a plugin's code and statics live until the process ends, which
//! makes every pointer into them `'static` (as tree-house and rustc do with their loaded code).

// This crate is the host's side of a C ABI: it opens libraries, reads symbols and calls foreign
// function pointers, all of which are unsafe. Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use std::fmt;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use verdict_model::model::{Kind, Report};
use verdict_model::verifier::{
    Applicability, Captured, CommandSpec, Inputs, Verifier, VerifierError, Workspace,
};
use verdict_plugin_abi::{
    ABI_VERSION_SYMBOL, CallResult, STATUS_OK, Str, VTABLE_SYMBOL, VTABLE_V1_SIZE, VTable, wire,
};

/// The plugin ABI versions this host accepts.
pub const SUPPORTED_ABI: RangeInclusive<u32> = 1..=1;

/// Why a plugin could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file is not a loadable library (missing, not a shared object, built for another
    /// platform, missing its own dependencies).
    #[error("failed to load plugin {path}: {message}")]
    Open {
        /// The plugin's path.
        path: PathBuf,
        /// The dynamic loader's message.
        message: String,
    },
    /// The library lacks a symbol every plugin exports: it is not a verdict plugin.
    #[error("{path} is not a verdict plugin: it has no symbol `{symbol}` ({message})")]
    MissingSymbol {
        /// The plugin's path.
        path: PathBuf,
        /// The missing symbol.
        symbol: &'static str,
        /// The dynamic loader's message.
        message: String,
    },
    /// The plugin speaks an ABI version this host does not accept.
    #[error(
        "plugin {path} speaks ABI {found}, verdict accepts {}..={}",
        supported.start(),
        supported.end()
    )]
    WrongVersion {
        /// The plugin's path.
        path: PathBuf,
        /// The version the plugin speaks.
        found: u32,
        /// The versions this host accepts.
        supported: RangeInclusive<u32>,
    },
    /// The plugin's table is missing or smaller than its ABI version requires.
    #[error("plugin {path} has a function table of {found} bytes, ABI {version} needs {needed}")]
    VTableTooSmall {
        /// The plugin's path.
        path: PathBuf,
        /// The size the table declares (0 for a null table).
        found: usize,
        /// The size this host needs.
        needed: usize,
        /// The ABI version the plugin speaks.
        version: u32,
    },
    /// A plugin function answered with something that is not the JSON it should be.
    #[error("plugin {path} returned invalid JSON from `{function}`: {message}")]
    InvalidJson {
        /// The plugin's path.
        path: PathBuf,
        /// The function that answered.
        function: &'static str,
        /// What was wrong.
        message: String,
    },
    /// A plugin function reported an error (or panicked) while loading.
    #[error("plugin {path} failed in `{function}`: {message}")]
    Failed {
        /// The plugin's path.
        path: PathBuf,
        /// The function that failed.
        function: &'static str,
        /// The plugin's error.
        message: String,
    },
    /// Two verifiers of the plugin share a name.
    #[error("plugin {path} describes two verifiers named `{name}`")]
    DuplicateName {
        /// The plugin's path.
        path: PathBuf,
        /// The repeated name.
        name: String,
    },
}

/// A loaded plugin.
#[derive(Clone)]
pub struct Plugin {
    library: Arc<Library>,
    verifiers: Vec<wire::VerifierInfo>,
}

impl fmt::Debug for Plugin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plugin")
            .field("path", &self.library.path)
            .field("abi_version", &self.library.version)
            .field("verifiers", &self.verifiers)
            .finish()
    }
}

/// What a loaded library gives: its table, which lives as long as the process.
struct Library {
    path: PathBuf,
    version: u32,
    vtable: &'static VTable,
}

/// Loads the plugin at `path`.
///
/// # Safety
///
/// Loading a library runs its initialisers, and calling it runs its code, with the full rights of
/// this process: `path` must be a library that is a verdict plugin built by someone you trust, and
/// it must honour the ABI it declares (its functions do what `verdict-plugin-abi` documents, are
/// thread-safe and never unwind into the host). A library built with `verdict_plugin_abi::export!`
/// does. The library is never unloaded.
pub unsafe fn load(path: &Path) -> Result<Plugin, LoadError> {
    let path = path.to_path_buf();
    // SAFETY: the caller vouches for the library's initialisers (this function's contract).
    let library = unsafe { libloading::Library::new(&path) }.map_err(|error| LoadError::Open {
        path: path.clone(),
        message: loader_message(&error),
    })?;
    // The library is never unloaded: its code and statics are referenced for the rest of the
    // process (the table, and the functions reached through it). One refused below stays loaded
    // too: its initialisers have run, and running its finalisers would be more foreign code.
    let library: &'static libloading::Library = Box::leak(Box::new(library));

    let missing = |symbol: &'static str, error: libloading::Error| LoadError::MissingSymbol {
        path: path.clone(),
        symbol,
        message: loader_message(&error),
    };
    // SAFETY: the symbol's type is the one the ABI declares for this name; the library stays loaded
    // (leaked above), so the function pointer stays valid.
    let version_fn = unsafe { library.get::<unsafe extern "C" fn() -> u32>(ABI_VERSION_SYMBOL) }
        .map_err(|error| missing(ABI_VERSION_SYMBOL, error))?;
    // SAFETY: the version function takes nothing and returns a number; it is the one call every
    // ABI version keeps the same.
    let version = unsafe { version_fn() };
    if !SUPPORTED_ABI.contains(&version) {
        return Err(LoadError::WrongVersion {
            path,
            found: version,
            supported: SUPPORTED_ABI,
        });
    }

    // SAFETY: as for the version symbol, with the type ABI version 1 declares.
    let vtable_fn =
        unsafe { library.get::<unsafe extern "C" fn() -> *const VTable>(VTABLE_SYMBOL) }
            .map_err(|error| missing(VTABLE_SYMBOL, error))?;
    // SAFETY: a version-1 plugin's table function takes nothing and returns a pointer to a static.
    let vtable_ptr = unsafe { vtable_fn() };
    let too_small = |found| LoadError::VTableTooSmall {
        path: path.clone(),
        found,
        needed: VTABLE_V1_SIZE,
        version,
    };
    if vtable_ptr.is_null() {
        return Err(too_small(0));
    }
    // The table starts with its size: read only that before trusting the rest.
    // SAFETY: a non-null table pointer of a version-1 plugin points to a static whose first field
    // is a `usize` (the ABI); `read_unaligned` asks nothing of its alignment.
    let size = unsafe { vtable_ptr.cast::<usize>().read_unaligned() };
    if size < VTABLE_V1_SIZE {
        return Err(too_small(size));
    }
    // SAFETY: the plugin declares a table at least as large as ours, laid out as `VTable` (append-
    // only), in a static of a library that is never unloaded.
    let vtable: &'static VTable = unsafe { &*vtable_ptr };

    let library = Arc::new(Library {
        path: path.clone(),
        version,
        vtable,
    });
    let description: wire::Description = match library.call("describe", |table| {
        // SAFETY: `describe` takes nothing (ABI version 1).
        unsafe { (table.describe)() }
    }) {
        Ok(payload) => parse(&payload).map_err(|message| LoadError::InvalidJson {
            path: path.clone(),
            function: "describe",
            message,
        })?,
        Err(CallError::InvalidJson(message)) => {
            return Err(LoadError::InvalidJson {
                path,
                function: "describe",
                message,
            });
        }
        Err(CallError::Plugin(error)) => {
            return Err(LoadError::Failed {
                path,
                function: "describe",
                message: error.to_string(),
            });
        }
    };
    let mut seen = std::collections::BTreeSet::new();
    for verifier in &description.verifiers {
        if !seen.insert(verifier.name.as_str()) {
            return Err(LoadError::DuplicateName {
                path,
                name: verifier.name.clone(),
            });
        }
    }
    Ok(Plugin {
        library,
        verifiers: description.verifiers,
    })
}

impl Plugin {
    /// Where the plugin was loaded from.
    pub fn path(&self) -> &Path {
        &self.library.path
    }

    /// The ABI version it speaks.
    pub fn abi_version(&self) -> u32 {
        self.library.version
    }

    /// Its verifiers' names and kinds, as it described them.
    pub fn describe(&self) -> &[wire::VerifierInfo] {
        &self.verifiers
    }

    /// Its verifiers, each calling through the plugin's table.
    pub fn verifiers(&self) -> Vec<Box<dyn Verifier>> {
        self.verifiers
            .iter()
            .map(|info| {
                Box::new(PluginVerifier {
                    library: Arc::clone(&self.library),
                    name: info.name.clone(),
                    kind: info.kind,
                }) as Box<dyn Verifier>
            })
            .collect()
    }
}

/// Why a call through the table did not give an answer.
enum CallError {
    /// The plugin answered with an error (or caught a panic).
    Plugin(wire::Error),
    /// The plugin's answer was not the JSON it should be.
    InvalidJson(String),
}

impl Library {
    /// Calls one table function, copies its payload and gives the buffer back to the plugin.
    fn call(
        &self,
        function: &'static str,
        call: impl FnOnce(&VTable) -> CallResult,
    ) -> Result<Vec<u8>, CallError> {
        let result = call(self.vtable);
        // SAFETY: the buffer was just returned by this plugin and is freed only below.
        let payload = unsafe { result.payload.as_bytes() }.to_vec();
        // SAFETY: the buffer came from this plugin, which frees it with its own allocator, once.
        unsafe { (self.vtable.free_buffer)(result.payload) };
        if result.status == STATUS_OK {
            return Ok(payload);
        }
        match serde_json::from_slice::<wire::Error>(&payload) {
            Ok(error) => Err(CallError::Plugin(error)),
            Err(error) => Err(CallError::InvalidJson(format!(
                "`{function}` failed (status {}) with an error that is not JSON: {error}",
                result.status
            ))),
        }
    }
}

/// A plugin's verifier, calling through its table.
struct PluginVerifier {
    library: Arc<Library>,
    name: String,
    kind: Kind,
}

impl PluginVerifier {
    /// Calls `function` and parses its JSON answer, describing any failure in one line.
    fn call<T: serde::de::DeserializeOwned>(
        &self,
        function: &'static str,
        call: impl FnOnce(&VTable, Str) -> CallResult,
    ) -> Result<T, CallError> {
        let name = self.name.as_bytes();
        let payload = self
            .library
            .call(function, |table| call(table, Str::new(name)))?;
        parse(&payload).map_err(|message| {
            CallError::InvalidJson(format!(
                "plugin {} returned invalid JSON from `{function}`: {message}",
                self.library.path.display()
            ))
        })
    }

    /// One line saying what went wrong in a call.
    fn describe_error(&self, function: &str, error: &CallError) -> String {
        match error {
            CallError::Plugin(error) => format!(
                "plugin {} failed in `{function}` of {}: {error}",
                self.library.path.display(),
                self.name
            ),
            CallError::InvalidJson(message) => message.clone(),
        }
    }
}

impl Verifier for PluginVerifier {
    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> Kind {
        self.kind
    }

    fn applies(&self, workspace: &Workspace) -> Applicability {
        let workspace = match to_json(&wire::Workspace::from(workspace)) {
            Ok(json) => json,
            // As below: run it, and let `command` report the problem.
            Err(error) => {
                return Applicability::Applies(format!("could not tell, running it: {error}"));
            }
        };
        match self.call::<wire::Applicability>("applies", |table, name| {
            // SAFETY: both buffers outlive the call.
            unsafe { (table.applies)(name, Str::new(&workspace)) }
        }) {
            Ok(applicability) => applicability.into(),
            // A verifier that cannot say is run, so that its failure shows up in the run's result
            // rather than the verifier silently disappearing from it.
            Err(error) => Applicability::Applies(format!(
                "could not tell, running it: {}",
                self.describe_error("applies", &error)
            )),
        }
    }

    fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
        let project = |message| VerifierError::Project {
            tool: self.name.clone(),
            message,
        };
        let workspace = to_json(&wire::Workspace::from(workspace)).map_err(project)?;
        match self.call::<wire::CommandSpec>("command", |table, name| {
            // SAFETY: both buffers outlive the call.
            unsafe { (table.command)(name, Str::new(&workspace)) }
        }) {
            Ok(spec) => Ok(spec.into()),
            Err(CallError::Plugin(wire::Error::NotInstalled { tool, hint })) => {
                Err(VerifierError::NotInstalled { tool, hint })
            }
            Err(CallError::Plugin(wire::Error::Project { tool, message })) => {
                Err(VerifierError::Project { tool, message })
            }
            Err(error) => Err(project(self.describe_error("command", &error))),
        }
    }

    fn interpret(&self, spec: &CommandSpec, captured: &Captured) -> Report {
        let inputs = to_json(&wire::CommandSpec::from(spec))
            .and_then(|spec| Ok((spec, to_json(&wire::Captured::from(captured))?)));
        let (spec, captured) = match inputs {
            Ok(inputs) => inputs,
            Err(error) => return Report::errored(&self.name, error),
        };
        match self.call::<Report>("interpret", |table, name| {
            // SAFETY: all three buffers outlive the call.
            unsafe { (table.interpret)(name, Str::new(&spec), Str::new(&captured)) }
        }) {
            Ok(mut report) => {
                // Fingerprints are computed here, not trusted from the plugin.
                report.refresh_fingerprints();
                report
            }
            Err(error) => Report::errored(&self.name, self.describe_error("interpret", &error)),
        }
    }

    fn inputs(&self, workspace: &Workspace) -> Option<Inputs> {
        let inputs_fn = self.library.vtable.inputs?;
        let workspace = to_json(&wire::Workspace::from(workspace)).ok()?;
        // A plugin that fails here cannot tell its inputs: never cached, which is safe.
        self.call::<Option<wire::Inputs>>("inputs", |_, name| {
            // SAFETY: both buffers outlive the call.
            unsafe { inputs_fn(name, Str::new(&workspace)) }
        })
        .ok()
        .flatten()
        .map(Inputs::from)
    }

    fn rerun_failed(&self, workspace: &Workspace, previous: &Report) -> Option<CommandSpec> {
        let rerun_fn = self.library.vtable.rerun_failed?;
        let workspace = to_json(&wire::Workspace::from(workspace)).ok()?;
        let previous = to_json(previous).ok()?;
        // A plugin that fails here re-runs everything, which is safe.
        self.call::<Option<wire::CommandSpec>>("rerun_failed", |_, name| {
            // SAFETY: all three buffers outlive the call.
            unsafe { rerun_fn(name, Str::new(&workspace), Str::new(&previous)) }
        })
        .ok()
        .flatten()
        .map(CommandSpec::from)
    }
}

fn to_json(value: &impl serde::Serialize) -> Result<Vec<u8>, String> {
    serde_json::to_vec(value).map_err(|error| format!("cannot be sent to the plugin: {error}"))
}

fn parse<T: serde::de::DeserializeOwned>(payload: &[u8]) -> Result<T, String> {
    serde_json::from_slice(payload).map_err(|error| {
        let start = String::from_utf8_lossy(&payload[..payload.len().min(80)]).into_owned();
        format!("{error} (answer starts `{start}`)")
    })
}

/// The dynamic loader's own message (libloading wraps it as the error's source).
fn loader_message(error: &libloading::Error) -> String {
    use std::error::Error as _;
    match error.source() {
        Some(source) => source.to_string(),
        None => error.to_string(),
    }
}
