//! What the readers of each language say about a test: its name, where it is defined, its markers,
//! and the facts of its body the judgement needs — whether it does anything, whether it returns
//! before its end, its assertions and what they are like, the functions it calls.

use std::collections::BTreeSet;

use super::assertion::Assertion;

/// One test function, as read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TestDef {
    /// The name shown: `test_discount`, `TestCart.test_total`, `test "adds items"`, `test adds`.
    pub name: String,
    /// The name a test runner reports last: the function or the title.
    pub short: String,
    /// 1-based line of the definition (`def`, `it(`, `fn`).
    pub line: u32,
    /// The lines that define it: decorators or attributes, and the definition's line.
    pub anchors: Vec<u32>,
    /// The names of its markers that the line checks do not see (Rust's `should_panic`, `cfg`).
    pub markers: Vec<(u32, String)>,
    pub facts: Facts,
}

/// The facts of a test's body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Facts {
    /// The body's code, tokens joined by spaces (comments and layout left out).
    pub text: String,
    /// The body does nothing: no statement, or only `pass`, `...`, a docstring, `;`.
    pub noop_only: bool,
    /// The line of an unconditional `return` at the body's top level with code after it.
    pub early_return: Option<u32>,
    pub asserts: Vec<Assertion>,
    /// Names the body calls (functions and methods), the usual assertion and language helpers
    /// left out: the code under test.
    pub calls: BTreeSet<String>,
}

impl Facts {
    /// Assertions that can make the test fail.
    pub(super) fn real(&self) -> usize {
        self.asserts.iter().filter(|a| a.real()).count()
    }

    pub(super) fn constant(&self) -> usize {
        self.asserts
            .iter()
            .filter(|a| a.constant && !a.dead)
            .count()
    }

    pub(super) fn swallowed(&self) -> usize {
        self.asserts
            .iter()
            .filter(|a| a.swallowed && !a.dead)
            .count()
    }

    pub(super) fn dead(&self) -> usize {
        self.asserts.iter().filter(|a| a.dead).count()
    }
}

/// Callees that are not the code under test: assertion vocabulary and common built-ins.
pub(super) fn is_helper(name: &str) -> bool {
    const HELPERS: &[&str] = &[
        "expect",
        "assert",
        "it",
        "test",
        "describe",
        "self",
        "super",
        "print",
        "len",
        "str",
        "int",
        "float",
        "bool",
        "list",
        "dict",
        "set",
        "tuple",
        "range",
        "round",
        "abs",
        "sorted",
        "isinstance",
        "repr",
        "format",
        "fail",
        "raises",
        "approx",
        "Some",
        "Ok",
        "Err",
        "vec",
        "format_args",
        "println",
        "eprintln",
        "panic",
        "unwrap",
        "clone",
        "into",
        "to_string",
        "to_owned",
        "iter",
        "collect",
        "map",
        "require",
        "console",
        "log",
        "JSON",
        "String",
        "Number",
        "Array",
        "Object",
        "Promise",
        "Symbol",
        "Boolean",
        "Date",
        "not",
        "to",
        "be",
        "toBe",
        "toEqual",
        "toStrictEqual",
        "toBeTruthy",
        "toBeFalsy",
        "toThrow",
        "toHaveLength",
        "toContain",
        "toMatch",
        "toBeCloseTo",
        "done",
        "Box",
        "new",
        "default",
        "from",
        "as_str",
        "len",
    ];
    name.starts_with("assert")
        || name.starts_with("debug_assert")
        || name.starts_with("prop_assert")
        || HELPERS.contains(&name)
}
