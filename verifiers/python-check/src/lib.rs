//! verdict's verifiers of the checks Python projects run beside their tests: ruff (lint),
//! mypy and pyright (type checks).
//!
//! Each applies where the project declares a command that runs its tool (a tox environment, a
//! nox session, a Makefile target, a pre-commit hook, a task runner's script, a package.json
//! script for pyright) or configures it (`[tool.ruff]`, `[tool.mypy]`, `mypy.ini`,
//! `pyrightconfig.json`, `[tool.pyright]`). It runs the tool from the project's virtualenv with
//! the project's arguments, and reads the tool's machine output.

pub mod mypy;
pub mod pyright;
mod python;
pub mod ruff;

use verdict_model::Verifier;

/// Every verifier of this crate.
pub fn verifiers() -> Vec<Box<dyn Verifier>> {
    vec![
        Box::new(ruff::Ruff::default()),
        Box::new(mypy::Mypy::default()),
        Box::new(pyright::Pyright::default()),
    ]
}
