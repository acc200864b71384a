//! The C ABI between verdict and verifier plugins loaded at run time, and the safe way to write one.
//!
//! A plugin is a shared library (a Rust `cdylib`) that exports two symbols:
//!
//! - [`ABI_VERSION_SYMBOL`] (`verdict_plugin_abi_version`): `extern "C" fn() -> u32`, the ABI
//!   version the plugin speaks. The host calls it before anything else and refuses a version outside
//!   the range it accepts.
//! - [`VTABLE_SYMBOL`] (`verdict_plugin_vtable`): `extern "C" fn() -> *const VTable`, a pointer to a
//!   static [`VTable`] of functions. The table starts with its own size and only ever grows at the
//!   end, so a host reads the prefix it knows.
//!
//! Every function takes and returns JSON as byte buffers ([`Str`] borrowed from the caller,
//! [`Buffer`] owned by the plugin and given back to its [`VTable::free_buffer`]); the shapes are in
//! [`wire`] and `README.md`. No Rust type, allocator or panic crosses the boundary: a panic in the
//! plugin is caught there and returned as an error.
//!
//! Writing a plugin takes no `unsafe`: implement [`verdict_model::Verifier`] and let [`export!`]
//! write the symbols (its documentation has a whole plugin).

// This crate is the boundary to foreign code: it must declare `extern "C"` items, export
// `no_mangle` symbols (through `export!`) and read raw pointers handed over by the host. Every
// unsafe block says why it is sound.
#![allow(unsafe_code)]

pub mod wire;

#[doc(hidden)]
pub mod __private;

/// The ABI version this crate speaks. Version 1 is the first; it changes only when the meaning of an
/// existing symbol, function or JSON field changes. Appending a function to the [`VTable`] or an
/// optional field to a JSON shape does not change it.
pub const ABI_VERSION: u32 = 1;

/// The name of the symbol returning the ABI version: `extern "C" fn() -> u32`.
pub const ABI_VERSION_SYMBOL: &str = "verdict_plugin_abi_version";

/// The name of the symbol returning the function table: `extern "C" fn() -> *const VTable`.
pub const VTABLE_SYMBOL: &str = "verdict_plugin_vtable";

/// [`CallResult::status`]: the call succeeded and the payload is the function's JSON result.
pub const STATUS_OK: u32 = 0;

/// [`CallResult::status`]: the call failed and the payload is a [`wire::Error`] in JSON (a panic
/// is one of these, of kind `panic`).
pub const STATUS_ERROR: u32 = 1;

/// A byte string borrowed from the caller for the duration of one call: UTF-8 JSON.
///
/// `ptr` may be null only when `len` is 0.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Str {
    /// The first byte.
    pub ptr: *const u8,
    /// How many bytes.
    pub len: usize,
}

impl Str {
    /// Borrows `bytes` for a call. The `Str` must not outlive them.
    pub fn new(bytes: &[u8]) -> Str {
        Str {
            ptr: bytes.as_ptr(),
            len: bytes.len(),
        }
    }

    /// The bytes.
    ///
    /// # Safety
    ///
    /// `ptr` must point to `len` initialised bytes that stay valid and unchanged for `'a`, or `len`
    /// must be 0.
    pub unsafe fn as_bytes<'a>(self) -> &'a [u8] {
        if self.len == 0 || self.ptr.is_null() {
            return &[];
        }
        // SAFETY: non-null and, by this function's contract, valid for `len` bytes during `'a`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A byte buffer allocated by the plugin and owned by whoever holds it, until it is handed back to
/// the same plugin's [`VTable::free_buffer`]. The host copies what it needs and frees it at once.
///
/// Its fields are those of the `Vec<u8>` it was made from; only the plugin that made it may
/// interpret `capacity`.
#[repr(C)]
#[derive(Debug)]
pub struct Buffer {
    /// The first byte (never null; dangling when `capacity` is 0).
    pub ptr: *mut u8,
    /// How many bytes are initialised.
    pub len: usize,
    /// The allocation's capacity, for the plugin's allocator.
    pub capacity: usize,
}

impl Buffer {
    /// Takes ownership of `bytes` without copying.
    pub fn from_vec(bytes: Vec<u8>) -> Buffer {
        let mut bytes = std::mem::ManuallyDrop::new(bytes);
        Buffer {
            ptr: bytes.as_mut_ptr(),
            len: bytes.len(),
            capacity: bytes.capacity(),
        }
    }

    /// The bytes, for the host to copy before freeing the buffer.
    ///
    /// # Safety
    ///
    /// The buffer must come from [`Buffer::from_vec`] (in the plugin) and not have been freed.
    pub unsafe fn as_bytes(&self) -> &[u8] {
        if self.len == 0 || self.ptr.is_null() {
            return &[];
        }
        // SAFETY: by the contract, `ptr` is a live allocation with `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// Turns the buffer back into the vector it was made from.
    ///
    /// # Safety
    ///
    /// Must be called in the library that made the buffer with [`Buffer::from_vec`] (the same
    /// allocator), at most once per buffer.
    pub unsafe fn into_vec(self) -> Vec<u8> {
        // SAFETY: the fields are exactly those of a `Vec<u8>` from this library's allocator that
        // was never freed (the contract above).
        unsafe { Vec::from_raw_parts(self.ptr, self.len, self.capacity) }
    }
}

/// What every table function returns: a status and a JSON payload owned by the plugin.
#[repr(C)]
#[derive(Debug)]
pub struct CallResult {
    /// [`STATUS_OK`] or [`STATUS_ERROR`]; anything else is treated as an error by the host.
    pub status: u32,
    /// The JSON result ([`STATUS_OK`]) or a [`wire::Error`] ([`STATUS_ERROR`]).
    pub payload: Buffer,
}

/// `describe()`: `{"verifiers": [{"name": …, "kind": …}]}`, see [`wire::Description`].
pub type DescribeFn = unsafe extern "C" fn() -> CallResult;

/// `applies(name, workspace)` and the other functions of one verifier and the workspace:
/// `applies` → [`wire::Applicability`], `command` → [`wire::CommandSpec`], `inputs` →
/// [`wire::Inputs`] or `null`.
pub type WorkspaceFn = unsafe extern "C" fn(name: Str, workspace: Str) -> CallResult;

/// `interpret(name, spec, captured)` → a [`verdict_model::Report`] in JSON.
pub type InterpretFn = unsafe extern "C" fn(name: Str, spec: Str, captured: Str) -> CallResult;

/// `rerun_failed(name, workspace, previous_report)` → a [`wire::CommandSpec`] or `null`.
pub type RerunFailedFn =
    unsafe extern "C" fn(name: Str, workspace: Str, previous: Str) -> CallResult;

/// The plugin's function table (ABI version 1).
///
/// Append-only: a later version of this crate may add fields at the end, never reorder or remove
/// one. [`VTable::size`] tells the host how much of it the plugin filled in.
///
/// Every function may be called from any thread, concurrently; the plugin must be thread-safe
/// (`export!` requires its verifiers to be `Send + Sync`).
#[repr(C)]
#[derive(Debug)]
pub struct VTable {
    /// `size_of::<VTable>()` as the plugin was built; at least [`VTABLE_V1_SIZE`].
    pub size: usize,
    /// Frees a [`Buffer`] the plugin returned.
    pub free_buffer: unsafe extern "C" fn(buffer: Buffer),
    /// The verifiers the plugin provides.
    pub describe: DescribeFn,
    /// Whether a verifier applies to a workspace.
    pub applies: WorkspaceFn,
    /// The command a verifier needs run, or an error saying why it cannot describe one.
    pub command: WorkspaceFn,
    /// What the command printed, interpreted as a report.
    pub interpret: InterpretFn,
    /// The files a verifier's result depends on (optional: null means "cannot tell").
    pub inputs: Option<WorkspaceFn>,
    /// A command re-running only what failed (optional: null means "no such filter").
    pub rerun_failed: Option<RerunFailedFn>,
}

/// The size of the version 1 [`VTable`]: the least a host accepts.
pub const VTABLE_V1_SIZE: usize = std::mem::size_of::<VTable>();

/// Writes a plugin's exported symbols for the given verifiers.
///
/// Each argument is an expression whose value implements [`verdict_model::Verifier`]. The
/// expressions are evaluated once, on the first call from the host (inside the panic guard), and
/// the verifiers live as long as the library. Use it once, at the root of a `cdylib` crate.
///
/// ```
/// use std::time::Duration;
///
/// use verdict_model::model::{Kind, Outcome, Report};
/// use verdict_model::verifier::{
///     Applicability, Captured, CommandSpec, ExitCodes, Exit, Verifier, VerifierError, Workspace,
/// };
///
/// /// `make check`, where there is a Makefile.
/// struct MakeCheck;
///
/// impl Verifier for MakeCheck {
///     fn name(&self) -> &str {
///         "make-check"
///     }
///
///     fn kind(&self) -> Kind {
///         Kind::Custom
///     }
///
///     fn applies(&self, workspace: &Workspace) -> Applicability {
///         if workspace.path("Makefile").exists() {
///             Applicability::Applies("Makefile".into())
///         } else {
///             Applicability::DoesNotApply("no Makefile".into())
///         }
///     }
///
///     fn command(&self, workspace: &Workspace) -> Result<CommandSpec, VerifierError> {
///         Ok(CommandSpec {
///             program: "make".into(),
///             args: vec!["check".into()],
///             env: Default::default(),
///             cwd: workspace.root.clone(),
///             timeout: Duration::from_secs(600),
///             exit_codes: ExitCodes { pass: vec![0], fail: vec![2] },
///             output_files: vec![],
///         })
///     }
///
///     fn interpret(&self, _spec: &CommandSpec, captured: &Captured) -> Report {
///         match captured.exit {
///             Exit::Code { code: 0 } => Report::new("make-check", Outcome::Passed),
///             _ => Report::errored("make-check", "make check did not pass; its log says why"),
///         }
///     }
/// }
///
/// verdict_plugin_abi::export!(MakeCheck);
/// ```
#[macro_export]
macro_rules! export {
    ($($verifier:expr),+ $(,)?) => {
        // The generated items are the plugin's side of the boundary: unmangled symbols and
        // `extern "C"` functions reading the host's buffers.
        #[allow(unsafe_code)]
        const _: () = {
            fn __verdict_plugin_verifiers()
                -> &'static [::std::boxed::Box<dyn $crate::__private::Verifier>]
            {
                static VERIFIERS: ::std::sync::OnceLock<
                    ::std::vec::Vec<::std::boxed::Box<dyn $crate::__private::Verifier>>,
                > = ::std::sync::OnceLock::new();
                VERIFIERS.get_or_init(|| {
                    ::std::vec![$(
                        ::std::boxed::Box::new($verifier)
                            as ::std::boxed::Box<dyn $crate::__private::Verifier>
                    ),+]
                })
            }

            unsafe extern "C" fn __verdict_describe() -> $crate::CallResult {
                $crate::__private::describe(__verdict_plugin_verifiers)
            }

            unsafe extern "C" fn __verdict_applies(
                name: $crate::Str,
                workspace: $crate::Str,
            ) -> $crate::CallResult {
                // SAFETY: the host passes buffers valid for the call (the ABI's contract).
                unsafe {
                    $crate::__private::applies(__verdict_plugin_verifiers, name, workspace)
                }
            }

            unsafe extern "C" fn __verdict_command(
                name: $crate::Str,
                workspace: $crate::Str,
            ) -> $crate::CallResult {
                // SAFETY: as above.
                unsafe {
                    $crate::__private::command(__verdict_plugin_verifiers, name, workspace)
                }
            }

            unsafe extern "C" fn __verdict_interpret(
                name: $crate::Str,
                spec: $crate::Str,
                captured: $crate::Str,
            ) -> $crate::CallResult {
                // SAFETY: as above.
                unsafe {
                    $crate::__private::interpret(__verdict_plugin_verifiers, name, spec, captured)
                }
            }

            unsafe extern "C" fn __verdict_inputs(
                name: $crate::Str,
                workspace: $crate::Str,
            ) -> $crate::CallResult {
                // SAFETY: as above.
                unsafe {
                    $crate::__private::inputs(__verdict_plugin_verifiers, name, workspace)
                }
            }

            unsafe extern "C" fn __verdict_rerun_failed(
                name: $crate::Str,
                workspace: $crate::Str,
                previous: $crate::Str,
            ) -> $crate::CallResult {
                // SAFETY: as above.
                unsafe {
                    $crate::__private::rerun_failed(
                        __verdict_plugin_verifiers,
                        name,
                        workspace,
                        previous,
                    )
                }
            }

            static __VERDICT_VTABLE: $crate::VTable = $crate::VTable {
                size: ::std::mem::size_of::<$crate::VTable>(),
                free_buffer: $crate::__private::free_buffer,
                describe: __verdict_describe,
                applies: __verdict_applies,
                command: __verdict_command,
                interpret: __verdict_interpret,
                inputs: ::std::option::Option::Some(__verdict_inputs),
                rerun_failed: ::std::option::Option::Some(__verdict_rerun_failed),
            };

            /// The ABI version this plugin speaks (the first symbol a host calls).
            // SAFETY: exporting an unmangled symbol is sound as long as no other symbol has this
            // name; `export!` is used once per library.
            #[unsafe(no_mangle)]
            pub extern "C" fn verdict_plugin_abi_version() -> u32 {
                $crate::ABI_VERSION
            }

            /// The plugin's function table, a static that lives as long as the library.
            // SAFETY: as above.
            #[unsafe(no_mangle)]
            pub extern "C" fn verdict_plugin_vtable() -> *const $crate::VTable {
                &__VERDICT_VTABLE
            }
        };
    };
}
