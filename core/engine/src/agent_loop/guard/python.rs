//! Python's tests, read by indentation: the file's logical lines (brackets and backslashes join
//! physical lines; strings and comments are the tokenizer's), nested into blocks by their indent;
//! test functions are the `def test…` of the module and of its classes, with their decorators.

use std::collections::BTreeSet;

use super::assertion::{self, Assertion, Form, Found};
use super::body::{Facts, TestDef, is_helper};
use super::lex::{Lang, Tok, TokKind, joined, lex};

/// Blocks nested deeper than this are read as flat statements (bounded recursion on any input).
const MAX_DEPTH: usize = 64;

/// Statements that open a block.
const COMPOUND: &[&str] = &[
    "if", "elif", "else", "for", "while", "try", "except", "finally", "with", "def", "class",
    "async", "match", "case",
];

/// The test functions of a Python file.
pub(super) fn tests(text: &str) -> Vec<TestDef> {
    let toks = lex(text, Lang::Python);
    let lines = logical_lines(&toks);
    let mut pos = 0;
    let stmts = block(&toks, &lines, &mut pos, -1, 0);
    let mut out = Vec::new();
    collect(&toks, &stmts, None, &mut out);
    out
}

/// A logical line: a range of tokens and the indent of its first.
struct Line {
    start: usize,
    end: usize,
    indent: i64,
}

/// A statement: its own tokens (a compound statement's header up to its `:`) and its block.
struct Stmt {
    start: usize,
    end: usize,
    body: Vec<Stmt>,
}

impl Stmt {
    fn toks<'t>(&self, toks: &'t [Tok]) -> &'t [Tok] {
        toks.get(self.start..self.end).unwrap_or_default()
    }

    fn first<'t>(&self, toks: &'t [Tok]) -> Option<&'t Tok> {
        toks.get(self.start).filter(|_| self.start < self.end)
    }

    fn starts(&self, toks: &[Tok], word: &str) -> bool {
        self.first(toks).is_some_and(|t| t.is(word))
    }

    /// Every token of the statement and its block.
    fn all_toks<'t>(&self, toks: &'t [Tok]) -> &'t [Tok] {
        let end = self
            .body
            .last()
            .map_or(self.end, |s| s.last_end())
            .max(self.end);
        toks.get(self.start..end).unwrap_or_default()
    }

    fn last_end(&self) -> usize {
        self.body
            .last()
            .map_or(self.end, |s| s.last_end())
            .max(self.end)
    }
}

fn logical_lines(toks: &[Tok]) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut depth = 0i64;
    let mut indent = 0i64;
    for (i, t) in toks.iter().enumerate() {
        let new_line = t.nl_before && depth <= 0;
        if new_line {
            depth = 0;
            indent = i64::from(t.col);
        }
        let after_semicolon = i > 0 && toks[i - 1].is(";") && depth == 0;
        if new_line || after_semicolon || lines.is_empty() {
            lines.push(Line {
                start: i,
                end: i,
                indent,
            });
        }
        if t.kind == TokKind::Punct {
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
        }
        if let Some(line) = lines.last_mut() {
            line.end = i + 1;
        }
    }
    // A `;` ends its statement; it is not part of it.
    for line in &mut lines {
        if line.end > line.start && toks[line.end - 1].is(";") {
            line.end -= 1;
        }
    }
    lines.retain(|l| l.end > l.start);
    lines
}

/// The statements of the block whose lines are indented deeper than `parent`, from `pos` on.
fn block(toks: &[Tok], lines: &[Line], pos: &mut usize, parent: i64, depth: usize) -> Vec<Stmt> {
    let mut out = Vec::new();
    while let Some(line) = lines.get(*pos) {
        if line.indent <= parent {
            break;
        }
        *pos += 1;
        let header = toks.get(line.start..line.end).unwrap_or_default();
        let compound = header
            .first()
            .is_some_and(|t| COMPOUND.contains(&t.text.as_str()))
            && header.first().is_some_and(|t| t.kind == TokKind::Ident);
        let colon = if compound { top_colon(header) } else { None };
        match colon {
            Some(c) if depth < MAX_DEPTH => {
                let colon_at = line.start + c;
                let body = if colon_at + 1 < line.end {
                    // `if x: return`: the rest of the line is the block.
                    vec![Stmt {
                        start: colon_at + 1,
                        end: line.end,
                        body: Vec::new(),
                    }]
                } else {
                    block(toks, lines, pos, line.indent, depth + 1)
                };
                out.push(Stmt {
                    start: line.start,
                    end: colon_at + 1,
                    body,
                });
            }
            _ => out.push(Stmt {
                start: line.start,
                end: line.end,
                body: Vec::new(),
            }),
        }
    }
    out
}

/// The first `:` outside brackets (and not of a `lambda`) of a compound statement's line.
fn top_colon(header: &[Tok]) -> Option<usize> {
    let mut depth = 0i32;
    let mut lambdas = 0usize;
    for (i, t) in header.iter().enumerate() {
        if t.kind == TokKind::Str {
            continue;
        }
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "lambda" if depth == 0 => lambdas += 1,
            ":" if depth == 0 && lambdas > 0 => lambdas -= 1,
            ":" if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// Test functions of `stmts`, looking into classes (`prefix`: the class's name).
fn collect(toks: &[Tok], stmts: &[Stmt], prefix: Option<&str>, out: &mut Vec<TestDef>) {
    for (k, stmt) in stmts.iter().enumerate() {
        let own = stmt.toks(toks);
        let own = match own.split_first() {
            Some((a, rest)) if a.is("async") => rest,
            _ => own,
        };
        let Some((keyword, rest)) = own.split_first() else {
            continue;
        };
        let Some(name) = rest.first().filter(|t| t.kind == TokKind::Ident) else {
            continue;
        };
        if keyword.is("class") {
            collect(toks, &stmt.body, Some(&name.text), out);
            continue;
        }
        if !keyword.is("def") || !name.text.starts_with("test") {
            continue;
        }
        let decorators: Vec<&Stmt> = stmts[..k]
            .iter()
            .rev()
            .take_while(|s| s.starts(toks, "@"))
            .collect();
        let mut anchors: Vec<u32> = decorators
            .iter()
            .filter_map(|s| s.first(toks).map(|t| t.line))
            .collect();
        anchors.push(name.line);
        anchors.sort_unstable();
        out.push(TestDef {
            name: match prefix {
                Some(class) => format!("{class}.{}", name.text),
                None => name.text.clone(),
            },
            short: name.text.clone(),
            line: keyword.line,
            anchors,
            markers: Vec::new(),
            facts: facts(toks, &stmt.body),
        });
    }
}

/// The facts of a function's body.
fn facts(toks: &[Tok], body: &[Stmt]) -> Facts {
    let noop = |s: &Stmt| {
        let own = s.toks(toks);
        s.body.is_empty()
            && (own.iter().all(|t| t.kind == TokKind::Str)
                || matches!(own, [t] if t.is("pass") || t.is("...")))
    };
    let returns = body.iter().position(|s| s.starts(toks, "return"));
    let early_return = returns.and_then(|r| {
        body[r + 1..]
            .iter()
            .any(|s| !noop(s))
            .then(|| body[r].first(toks).map_or(0, |t| t.line))
    });
    let mut asserts = Vec::new();
    for (k, stmt) in body.iter().enumerate() {
        let dead = returns.is_some_and(|r| k > r);
        let at = Within {
            swallowed: false,
            dead,
            depth: 0,
        };
        assertions(toks, stmt, &body[k + 1..], at, &mut asserts);
    }
    let all: &[Tok] = match (body.first(), body.last()) {
        (Some(first), Some(last)) => toks.get(first.start..last.last_end()).unwrap_or_default(),
        _ => &[],
    };
    let calls: BTreeSet<String> = all
        .windows(2)
        .filter(|w| w[0].kind == TokKind::Ident && w[1].is("(") && !is_helper(&w[0].text))
        .map(|w| w[0].text.clone())
        .collect();
    Facts {
        text: joined(all),
        noop_only: body.iter().all(noop),
        early_return,
        asserts,
        calls,
    }
}

/// Where an assertion sits: inside a block that drops its failure, after an unconditional
/// `return`, and how deep in blocks.
#[derive(Debug, Clone, Copy)]
struct Within {
    swallowed: bool,
    dead: bool,
    depth: usize,
}

/// The assertions of `stmt` (followed by the statements `after` it) and its blocks.
fn assertions(toks: &[Tok], stmt: &Stmt, after: &[Stmt], at: Within, out: &mut Vec<Assertion>) {
    let Within {
        swallowed,
        dead,
        depth,
    } = at;
    let own = stmt.toks(toks);
    let with = |a: Assertion| Assertion {
        swallowed,
        dead,
        ..a
    };
    if stmt.body.is_empty() {
        if let Some(found) = assertion::python(own) {
            out.push(with(found.build()));
        }
        return;
    }
    let mut inner_swallowed = swallowed;
    if stmt.starts(toks, "with") {
        let names: Vec<&str> = own.iter().map(|t| t.text.as_str()).collect();
        let raises = names
            .iter()
            .any(|n| n.starts_with("assertRaises") || *n == "raises");
        if raises {
            out.push(with(
                Found {
                    name: "raises".to_owned(),
                    form: Form::Opaque,
                    operands: vec![own],
                    all: own,
                }
                .build(),
            ));
        }
        // `with suppress(AssertionError):`, `with pytest.raises(AssertionError):` drop the failure.
        let catches_assertion = names
            .iter()
            .any(|n| matches!(*n, "AssertionError" | "Exception" | "BaseException"));
        if names.contains(&"suppress") || (raises && catches_assertion) {
            inner_swallowed = true;
        }
    }
    if stmt.starts(toks, "try") && swallowing_handler(toks, after) {
        inner_swallowed = true;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    let inner = Within {
        swallowed: inner_swallowed,
        dead,
        depth: depth + 1,
    };
    for (j, child) in stmt.body.iter().enumerate() {
        assertions(toks, child, &stmt.body[j + 1..], inner, out);
    }
}

/// Whether the `except` clauses that follow a `try` catch an assertion's failure and drop it: a
/// bare `except:` or one naming `AssertionError`, `Exception` or `BaseException`, whose block
/// neither raises, nor asserts, nor fails the test.
fn swallowing_handler(toks: &[Tok], after: &[Stmt]) -> bool {
    after
        .iter()
        .take_while(|s| s.starts(toks, "except"))
        .any(|handler| {
            let own = handler.toks(toks);
            let broad = own.len() <= 2
                || own.iter().any(|t| {
                    matches!(
                        t.text.as_str(),
                        "AssertionError" | "Exception" | "BaseException"
                    )
                });
            let all = handler.all_toks(toks);
            let fails = all.iter().any(|t| {
                t.kind == TokKind::Ident
                    && (matches!(t.text.as_str(), "raise" | "fail" | "assert")
                        || t.text.starts_with("assert"))
            });
            broad && !fails
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_are_found_with_their_bodies() {
        let text = "import pytest\n\n\nclass TestCart:\n    @pytest.mark.slow\n    def test_total(self):\n        '''Doc.'''\n        assert total([1]) == 1\n\n    def helper(self):\n        pass\n\n\nasync def test_a(x=(1,\n  2)): return\n\ndef test_b():\n    return\n    s = \"\"\"\nnot: code\n\"\"\"\n    assert s\n";
        let found = tests(text);
        let names: Vec<(&str, u32, &[u32])> = found
            .iter()
            .map(|t| (t.name.as_str(), t.line, t.anchors.as_slice()))
            .collect();
        assert_eq!(
            names,
            [
                ("TestCart.test_total", 6, &[5, 6][..]),
                ("test_a", 14, &[14][..]),
                ("test_b", 17, &[17][..])
            ]
        );
        let total = &found[0].facts;
        assert_eq!((total.real(), total.early_return), (1, None));
        assert!(total.calls.contains("total"));
        assert!(!found[1].facts.noop_only && found[1].facts.early_return.is_none());
        let b = &found[2].facts;
        assert_eq!((b.early_return, b.dead(), b.real()), (Some(18), 1, 0));
    }

    #[test]
    fn swallowing_handlers_are_told_from_checking_ones() {
        let text = "def test_a():\n    try:\n        assert f() == 1\n    except AssertionError:\n        pass\n\ndef test_b():\n    try:\n        assert f() == 1\n    except KeyError:\n        pass\n\ndef test_c():\n    try:\n        assert f() == 1\n    except Exception as e:\n        raise RuntimeError() from e\n\ndef test_d():\n    with suppress(AssertionError):\n        assert f() == 1\n";
        let swallowed: Vec<usize> = tests(text).iter().map(|t| t.facts.swallowed()).collect();
        assert_eq!(swallowed, [1, 0, 0, 1]);
    }
}
