//! The Python checkers' verifiers, run on real fixture projects with the pinned tools.

mod mypy;
mod pyright;
mod ruff;
