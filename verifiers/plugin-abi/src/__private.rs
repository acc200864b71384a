//! The plugin side of each table function, called by the code [`crate::export!`] generates. Not a
//! public interface: only the macro uses it.
//!
//! Each function reads the host's JSON, calls the verifier, and writes the answer as JSON into a
//! [`Buffer`] — all inside [`guard`], which turns a panic into a [`wire::Error::Panic`], so that no
//! unwinding ever reaches the `extern "C"` frame (where it would abort the host), and keeps the
//! panic from printing.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use serde::Serialize;
use serde::de::DeserializeOwned;
pub use verdict_model::Verifier;
use verdict_model::verifier::{Captured, CommandSpec, Workspace};

use crate::{Buffer, CallResult, STATUS_ERROR, STATUS_OK, Str, wire};

/// How the generated code reaches the plugin's verifiers.
pub type Registry = fn() -> &'static [Box<dyn Verifier>];

/// Frees a buffer this library returned (the table's `free_buffer`).
///
/// # Safety
///
/// `buffer` must have been returned by this library and not freed before.
pub unsafe extern "C" fn free_buffer(buffer: Buffer) {
    // SAFETY: the buffer came from `Buffer::from_vec` in this library (the contract above).
    drop(unsafe { buffer.into_vec() });
}

/// `describe`.
pub fn describe(registry: Registry) -> CallResult {
    guard(|| {
        let verifiers = registry()
            .iter()
            .map(|verifier| wire::VerifierInfo {
                name: verifier.name().to_owned(),
                kind: verifier.kind(),
            })
            .collect();
        json(&wire::Description { verifiers })
    })
}

/// `applies`.
///
/// # Safety
///
/// `name` and `workspace` must be valid for the call ([`Str::as_bytes`]).
pub unsafe fn applies(registry: Registry, name: Str, workspace: Str) -> CallResult {
    // SAFETY: forwarded from this function's contract.
    let (name, workspace) = unsafe { (name.as_bytes(), workspace.as_bytes()) };
    guard(|| {
        let verifier = find(registry, name)?;
        let workspace: Workspace = parse::<wire::Workspace>("workspace", workspace)?.into();
        json(&wire::Applicability::from(verifier.applies(&workspace)))
    })
}

/// `command`.
///
/// # Safety
///
/// As for [`applies`].
pub unsafe fn command(registry: Registry, name: Str, workspace: Str) -> CallResult {
    // SAFETY: forwarded from this function's contract.
    let (name, workspace) = unsafe { (name.as_bytes(), workspace.as_bytes()) };
    guard(|| {
        let verifier = find(registry, name)?;
        let workspace: Workspace = parse::<wire::Workspace>("workspace", workspace)?.into();
        let spec = verifier.command(&workspace).map_err(wire::Error::from)?;
        json(&wire::CommandSpec::from(&spec))
    })
}

/// `interpret`.
///
/// # Safety
///
/// `name`, `spec` and `captured` must be valid for the call ([`Str::as_bytes`]).
pub unsafe fn interpret(registry: Registry, name: Str, spec: Str, captured: Str) -> CallResult {
    // SAFETY: forwarded from this function's contract.
    let (name, spec, captured) = unsafe { (name.as_bytes(), spec.as_bytes(), captured.as_bytes()) };
    guard(|| {
        let verifier = find(registry, name)?;
        let spec: CommandSpec = parse::<wire::CommandSpec>("spec", spec)?.into();
        let captured = Captured::try_from(parse::<wire::Captured>("captured", captured)?)
            .map_err(|error| invalid(format!("captured: output file is not base64: {error}")))?;
        json(&verifier.interpret(&spec, &captured))
    })
}

/// `inputs`.
///
/// # Safety
///
/// As for [`applies`].
pub unsafe fn inputs(registry: Registry, name: Str, workspace: Str) -> CallResult {
    // SAFETY: forwarded from this function's contract.
    let (name, workspace) = unsafe { (name.as_bytes(), workspace.as_bytes()) };
    guard(|| {
        let verifier = find(registry, name)?;
        let workspace: Workspace = parse::<wire::Workspace>("workspace", workspace)?.into();
        json(&verifier.inputs(&workspace).map(wire::Inputs::from))
    })
}

/// `rerun_failed`.
///
/// # Safety
///
/// `name`, `workspace` and `previous` must be valid for the call ([`Str::as_bytes`]).
pub unsafe fn rerun_failed(
    registry: Registry,
    name: Str,
    workspace: Str,
    previous: Str,
) -> CallResult {
    // SAFETY: forwarded from this function's contract.
    let (name, workspace, previous) =
        unsafe { (name.as_bytes(), workspace.as_bytes(), previous.as_bytes()) };
    guard(|| {
        let verifier = find(registry, name)?;
        let workspace: Workspace = parse::<wire::Workspace>("workspace", workspace)?.into();
        let previous: verdict_model::Report = parse("previous", previous)?;
        let spec = verifier.rerun_failed(&workspace, &previous);
        json(&spec.as_ref().map(wire::CommandSpec::from))
    })
}

/// Runs `body`, turning its result — or its panic — into a [`CallResult`].
///
/// A panic inside is not printed (the host reports it, and only the host prints); its message and
/// location go into the error instead.
pub fn guard(body: impl FnOnce() -> Result<Vec<u8>, wire::Error>) -> CallResult {
    install_quiet_hook();
    let outer = GUARDED.replace(true);
    let result = catch_unwind(AssertUnwindSafe(body));
    GUARDED.set(outer);
    let result = result.unwrap_or_else(|payload| {
        let mut message = if let Some(text) = payload.downcast_ref::<&str>() {
            (*text).to_owned()
        } else if let Some(text) = payload.downcast_ref::<String>() {
            text.clone()
        } else {
            "a panic with a payload that is not a string".to_owned()
        };
        if let Some(location) = PANIC_LOCATION.take() {
            message = format!("{message} (at {location})");
        }
        Err(wire::Error::Panic { message })
    });
    match result {
        Ok(payload) => CallResult {
            status: STATUS_OK,
            payload: Buffer::from_vec(payload),
        },
        Err(error) => CallResult {
            status: STATUS_ERROR,
            // An enum of strings always serializes; should it not, the host still sees an error
            // status, with a payload it reports as invalid JSON.
            payload: Buffer::from_vec(serde_json::to_vec(&error).unwrap_or_default()),
        },
    }
}

thread_local! {
    /// Whether this thread is inside [`guard`].
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    /// Where the last panic inside [`guard`] on this thread happened.
    static PANIC_LOCATION: Cell<Option<String>> = const { Cell::new(None) };
}

/// Wraps the panic hook once: a panic inside [`guard`] records its location instead of printing;
/// any other panic goes to the hook that was there before. (A plugin links its own copy of std,
/// so this hook sees only the plugin's panics.)
fn install_quiet_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.get() {
                PANIC_LOCATION.set(info.location().map(|location| location.to_string()));
            } else {
                previous(info);
            }
        }));
    });
}

fn find(registry: Registry, name: &[u8]) -> Result<&'static dyn Verifier, wire::Error> {
    let name = std::str::from_utf8(name).map_err(|_| invalid("the verifier name is not UTF-8"))?;
    registry()
        .iter()
        .find(|verifier| verifier.name() == name)
        .map(|verifier| &**verifier)
        .ok_or_else(|| invalid(format!("this plugin has no verifier named `{name}`")))
}

fn parse<T: DeserializeOwned>(what: &str, bytes: &[u8]) -> Result<T, wire::Error> {
    serde_json::from_slice(bytes).map_err(|error| invalid(format!("{what}: {error}")))
}

fn json(value: &impl Serialize) -> Result<Vec<u8>, wire::Error> {
    serde_json::to_vec(value).map_err(|error| wire::Error::InvalidInput {
        message: format!("the plugin's answer could not be written as JSON: {error}"),
    })
}

fn invalid(message: impl Into<String>) -> wire::Error {
    wire::Error::InvalidInput {
        message: message.into(),
    }
}
