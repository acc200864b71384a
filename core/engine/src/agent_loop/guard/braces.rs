//! JavaScript, TypeScript and Rust tests, read by their braces: the tokenizer skips strings and
//! comments, groups pair brackets, and a test is `it(…)`/`test(…)` with a literal title and a
//! function (JavaScript) or a `fn` under a `#[test]`-like attribute (Rust). A body's top-level
//! statements end at `;`, at the block of an `if`/`for`/`try`…, and in JavaScript at a line end
//! where the code cannot go on.

use std::collections::BTreeSet;
use std::ops::Range;

use super::assertion::{self, Assertion};
use super::body::{Facts, TestDef, is_helper};
use super::lex::{Lang, Tok, TokKind, groups, joined, lex};

/// The test functions of a JavaScript, TypeScript or Rust file.
pub(super) fn tests(text: &str, lang: Lang) -> Vec<TestDef> {
    let toks = lex(text, lang);
    let close = groups(&toks);
    let code = Code {
        toks: &toks,
        close: &close,
        lang,
    };
    match lang {
        Lang::Rust => code.rust_tests(),
        _ => code.js_tests(),
    }
}

struct Code<'t> {
    toks: &'t [Tok],
    close: &'t [Option<usize>],
    lang: Lang,
}

/// JavaScript test functions, `x`/`f` variants included.
const JS_TESTS: &[&str] = &[
    "it", "test", "specify", "xit", "xtest", "xspecify", "fit", "ftest",
];

/// Statements whose block ends them.
const BLOCK_KEYWORDS: &[&str] = &[
    "if", "for", "while", "loop", "match", "try", "switch", "unsafe", "do", "function", "{",
];

impl Code<'_> {
    fn tok(&self, i: usize) -> Option<&Tok> {
        self.toks.get(i)
    }

    fn is(&self, i: usize, text: &str) -> bool {
        self.tok(i).is_some_and(|t| t.is(text))
    }

    /// The index of the bracket closing the group that opens at `i` (at most the end).
    fn close_of(&self, i: usize) -> Option<usize> {
        self.close
            .get(i)
            .copied()
            .flatten()
            .map(|c| c.min(self.toks.len()))
    }

    fn js_tests(&self) -> Vec<TestDef> {
        let mut out = Vec::new();
        for (i, t) in self.toks.iter().enumerate() {
            let after_dot = i > 0 && (self.is(i - 1, ".") || self.is(i - 1, "?."));
            if t.kind != TokKind::Ident || !JS_TESTS.contains(&t.text.as_str()) || after_dot {
                continue;
            }
            if let Some(test) = self.js_test(i) {
                out.push(test);
            }
        }
        out
    }

    /// The test whose `it`/`test` is at `i`, if it has a literal title and a function.
    fn js_test(&self, i: usize) -> Option<TestDef> {
        let mut j = i + 1;
        let mut each = false;
        while self.is(j, ".") && self.tok(j + 1).is_some_and(|t| t.kind == TokKind::Ident) {
            each |= self.is(j + 1, "each");
            j += 2;
        }
        if each {
            // `it.each(table)(title, fn)` or ``it.each`table`(title, fn)``.
            j = if self.is(j, "(") {
                self.close_of(j)? + 1
            } else {
                j + 1
            };
        }
        if !self.is(j, "(") {
            return None;
        }
        let end = self.close_of(j)?;
        let title = self.tok(j + 1).filter(|t| t.kind == TokKind::Str)?;
        if !(self.is(j + 2, ",") || j + 2 == end) {
            return None;
        }
        let body = self.js_callback(j + 3, end)?;
        let facts = self.facts(body);
        let line = self.tok(i).map_or(0, |t| t.line);
        let title = unquote(&title.text);
        Some(TestDef {
            name: format!("test \"{title}\""),
            short: title,
            line,
            anchors: vec![line],
            markers: Vec::new(),
            facts,
        })
    }

    /// The body of the function among the call's arguments `from..end`: an arrow's block or
    /// expression, or a `function`'s block.
    fn js_callback(&self, from: usize, end: usize) -> Option<Range<usize>> {
        let mut k = from;
        while k < end {
            let t = self.tok(k)?;
            if t.is("=>") {
                if self.is(k + 1, "{") {
                    return Some(k + 2..self.close_of(k + 1)?.min(end));
                }
                // An expression body runs to the next argument.
                let mut e = k + 1;
                while e < end && !self.is(e, ",") {
                    e = self.skip_group(e);
                }
                return Some(k + 1..e.min(end));
            }
            if t.is("function") {
                let mut b = k + 1;
                while b < end && !self.is(b, "{") {
                    b = self.skip_group(b);
                }
                if b < end {
                    return Some(b + 1..self.close_of(b)?.min(end));
                }
                return None;
            }
            k = self.skip_group(k);
        }
        None
    }

    /// The index after the token at `k`, or after its group when it opens one.
    fn skip_group(&self, k: usize) -> usize {
        let opens = self
            .tok(k)
            .is_some_and(|t| t.is("(") || t.is("[") || t.is("{"));
        match self.close_of(k) {
            Some(c) if opens => c + 1,
            _ => k + 1,
        }
    }

    fn rust_tests(&self) -> Vec<TestDef> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.toks.len() {
            if !(self.is(i, "#") && self.is(i + 1, "[")) {
                i += 1;
                continue;
            }
            // A run of attributes, then maybe a function.
            let mut attrs: Vec<Range<usize>> = Vec::new();
            let mut j = i;
            while self.is(j, "#") && self.is(j + 1, "[") {
                let Some(end) = self.close_of(j + 1) else {
                    break;
                };
                attrs.push(j + 2..end);
                j = end + 1;
            }
            let next = j.max(i + 1);
            if attrs.iter().any(|a| self.is_test_attr(a.clone()))
                && let Some(test) = self.rust_test(i, &attrs, j)
            {
                out.push(test);
            }
            i = next;
        }
        out
    }

    /// `test`, `tokio::test`, `test(…)`, `rstest`, `test_case(…)`.
    fn is_test_attr(&self, attr: Range<usize>) -> bool {
        let path: Vec<&str> = self
            .toks
            .get(attr)
            .unwrap_or_default()
            .iter()
            .take_while(|t| !t.is("(") && !t.is("="))
            .filter(|t| t.kind == TokKind::Ident)
            .map(|t| t.text.as_str())
            .collect();
        matches!(path.last(), Some(&("test" | "rstest" | "test_case")))
    }

    fn rust_test(&self, first: usize, attrs: &[Range<usize>], mut j: usize) -> Option<TestDef> {
        while self.tok(j).is_some_and(|t| {
            matches!(
                t.text.as_str(),
                "pub" | "async" | "unsafe" | "const" | "extern"
            ) || t.kind == TokKind::Str
        }) {
            j += 1;
            if self.is(j, "(") {
                j = self.skip_group(j);
            }
        }
        if !self.is(j, "fn") {
            return None;
        }
        let name = self.tok(j + 1).filter(|t| t.kind == TokKind::Ident)?;
        let mut b = j + 2;
        while b < self.toks.len() && !self.is(b, "{") && !self.is(b, ";") {
            b = if self.is(b, "(") || self.is(b, "[") {
                self.skip_group(b)
            } else {
                b + 1
            };
        }
        if !self.is(b, "{") {
            return None;
        }
        let body = b + 1..self.close_of(b)?;
        let mut anchors: Vec<u32> = attrs
            .iter()
            .filter_map(|a| self.tok(a.start.saturating_sub(2)).map(|t| t.line))
            .collect();
        anchors.push(name.line);
        anchors.sort_unstable();
        anchors.dedup();
        let markers = attrs
            .iter()
            .filter_map(|a| {
                let word = self.tok(a.start)?;
                let text = joined(self.toks.get(a.clone())?);
                matches!(word.text.as_str(), "should_panic" | "cfg")
                    .then(|| (word.line, format!("#[{text}]")))
            })
            .collect();
        let line = self.tok(first).map_or(name.line, |t| t.line);
        Some(TestDef {
            name: format!("test {}", name.text),
            short: name.text.clone(),
            line: self.tok(j).map_or(line, |t| t.line),
            anchors,
            markers,
            facts: self.facts(body),
        })
    }

    /// The body's top-level statements.
    fn statements(&self, body: Range<usize>) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        let (mut start, mut i) = (body.start, body.start);
        while i < body.end {
            let Some(t) = self.tok(i) else {
                break;
            };
            if i > start
                && self.lang == Lang::Js
                && t.nl_before
                && !self.tok(i - 1).is_some_and(|p| continues(p, t))
            {
                out.push(start..i);
                start = i;
                continue;
            }
            if t.is(";") {
                out.push(start..i + 1);
                i += 1;
                start = i;
                continue;
            }
            let opens = t.is("(") || t.is("[") || t.is("{");
            if opens {
                i = self.skip_group(i).min(body.end);
                let block = t.is("{")
                    && self
                        .tok(start)
                        .is_some_and(|s| BLOCK_KEYWORDS.contains(&s.text.as_str()));
                let goes_on = self.tok(i).is_some_and(|n| {
                    n.is("else") || n.is("catch") || n.is("finally") || n.is("while")
                });
                if block && !goes_on {
                    out.push(start..i);
                    start = i;
                }
                continue;
            }
            i += 1;
        }
        if start < body.end {
            out.push(start..body.end);
        }
        out
    }

    fn facts(&self, body: Range<usize>) -> Facts {
        let toks = self.toks.get(body.clone()).unwrap_or_default();
        let stmts = self.statements(body.clone());
        let noop = |s: &Range<usize>| {
            let own: Vec<&Tok> = self
                .toks
                .get(s.clone())
                .unwrap_or_default()
                .iter()
                .filter(|t| !t.is(";"))
                .collect();
            match own.as_slice() {
                [] => true,
                [t] => t.kind == TokKind::Str,
                [a, b] => a.is("(") && b.is(")"),
                _ => false,
            }
        };
        let returns = stmts.iter().position(|s| self.is(s.start, "return"));
        let early_return = returns.and_then(|r| {
            stmts[r + 1..]
                .iter()
                .any(|s| !noop(s))
                .then(|| self.tok(stmts[r].start).map_or(0, |t| t.line))
        });
        let dead_from = returns.map(|r| stmts[r].end);
        let swallowed = self.swallowed(&stmts);
        let mut asserts = Vec::new();
        let mut i = body.start;
        while i < body.end {
            let found = match self.lang {
                Lang::Rust => assertion::rust_at(self.toks, self.close, i),
                _ => assertion::js_at(self.toks, self.close, i),
            };
            let Some((found, next)) = found else {
                i += 1;
                continue;
            };
            let a = found.build();
            asserts.push(Assertion {
                swallowed: swallowed.iter().any(|r| r.contains(&i)),
                dead: dead_from.is_some_and(|d| i >= d),
                ..a
            });
            i = next.max(i + 1);
        }
        let calls: BTreeSet<String> = toks
            .windows(2)
            .filter(|w| {
                w[0].kind == TokKind::Ident
                    && (w[1].is("(") || (self.lang == Lang::Rust && w[1].is("!")))
                    && !is_helper(&w[0].text)
            })
            .map(|w| w[0].text.clone())
            .collect();
        Facts {
            text: joined(toks),
            noop_only: stmts.iter().all(noop),
            early_return,
            asserts,
            calls,
        }
    }

    /// Token ranges whose assertions' failures are dropped: the block of a `try` whose `catch`
    /// neither throws nor asserts (JavaScript); a `catch_unwind` whose result is not looked at,
    /// and a `let _ = …` holding an assertion (Rust).
    fn swallowed(&self, stmts: &[Range<usize>]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        for stmt in stmts {
            let mut k = stmt.start;
            while k < stmt.end {
                if self.lang == Lang::Js && self.is(k, "try") && self.is(k + 1, "{") {
                    let Some(end) = self.close_of(k + 1) else {
                        break;
                    };
                    if self.js_catch_swallows(end + 1) {
                        out.push(k + 1..end);
                    }
                }
                if self.lang == Lang::Rust && self.is(k, "catch_unwind") && self.is(k + 1, "(") {
                    let end = self.close_of(k + 1).unwrap_or(stmt.end);
                    if !self.rust_result_checked(stmt, k + 1..end) {
                        out.push(k + 1..end);
                    }
                }
                k += 1;
            }
            let discards = self.is(stmt.start, "let")
                && self
                    .tok(stmt.start + 1)
                    .is_some_and(|t| t.text.starts_with('_'));
            if self.lang == Lang::Rust && discards {
                out.push(stmt.clone());
            }
        }
        out
    }

    /// Whether the `catch` at `at` (if there is one) drops the error: its block does not throw,
    /// assert, or fail the test.
    fn js_catch_swallows(&self, at: usize) -> bool {
        if !self.is(at, "catch") {
            return false;
        }
        let mut b = at + 1;
        if self.is(b, "(") {
            b = self.skip_group(b);
        }
        if !self.is(b, "{") {
            return false;
        }
        let end = self.close_of(b).unwrap_or(self.toks.len());
        let block = self.toks.get(b + 1..end).unwrap_or_default();
        !block.iter().any(|t| {
            t.kind == TokKind::Ident
                && matches!(
                    t.text.as_str(),
                    "throw" | "expect" | "assert" | "fail" | "done" | "reject"
                )
        })
    }

    /// Whether the statement holding a `catch_unwind` looks at its result (`.is_err()`,
    /// `.unwrap()`, `?`, a `match`, an assertion, a named binding checked later).
    fn rust_result_checked(&self, stmt: &Range<usize>, call: Range<usize>) -> bool {
        if self.is(stmt.start, "let") {
            return !self
                .tok(stmt.start + 1)
                .is_some_and(|t| t.text.starts_with('_'));
        }
        self.toks
            .get(stmt.clone())
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(k, _)| !call.contains(&(stmt.start + k)))
            .any(|(_, t)| {
                t.is("?")
                    || t.text.starts_with("assert")
                    || matches!(
                        t.text.as_str(),
                        "unwrap"
                            | "expect"
                            | "is_err"
                            | "is_ok"
                            | "unwrap_err"
                            | "match"
                            | "if"
                            | "return"
                    )
            })
    }
}

/// Whether JavaScript code goes on across the line end between `prev` and `next` (no automatic
/// semicolon). A `return` at a line's end returns: what follows is a new statement.
fn continues(prev: &Tok, next: &Tok) -> bool {
    let prev_goes_on = match prev.kind {
        TokKind::Punct => !matches!(prev.text.as_str(), ")" | "]" | "}" | "++" | "--"),
        TokKind::Ident => matches!(
            prev.text.as_str(),
            "new" | "typeof" | "await" | "in" | "of" | "instanceof" | "else" | "yield" | "void"
        ),
        _ => false,
    };
    let next_goes_on = match next.kind {
        TokKind::Punct => !matches!(
            next.text.as_str(),
            "(" | "[" | "{" | "!" | "~" | "++" | "--" | ";" | "#" | "@"
        ),
        TokKind::Ident => matches!(
            next.text.as_str(),
            "else" | "catch" | "finally" | "in" | "of" | "instanceof"
        ),
        _ => false,
    };
    prev_goes_on || next_goes_on
}

/// A string literal's text without its quotes.
fn unquote(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next_back()) {
        (Some(a), Some(b)) if a == b && matches!(a, '\'' | '"' | '`') => chars.collect(),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javascript_tests_and_their_statements() {
        let text = "describe('cart', () => {\n  it('adds', async () => {\n    return\n    expect(add(1)).toBe(1)\n  });\n  test.each([1])('each %i', function (n) {\n    try { expect(n).toBe(1) } catch (e) {}\n  });\n  it(\"short\", () => expect(true).toBe(true));\n  it('empty', () => {});\n  it(title, () => {});\n});\n";
        let found = tests(text, Lang::Js);
        let names: Vec<(&str, u32)> = found.iter().map(|t| (t.short.as_str(), t.line)).collect();
        assert_eq!(
            names,
            [("adds", 2), ("each %i", 6), ("short", 9), ("empty", 10)]
        );
        let adds = &found[0].facts;
        assert_eq!(
            (adds.early_return, adds.dead(), adds.real()),
            (Some(3), 1, 0)
        );
        assert!(adds.calls.contains("add"));
        assert_eq!((found[1].facts.swallowed(), found[1].facts.real()), (1, 0));
        assert_eq!((found[2].facts.constant(), found[2].facts.real()), (1, 0));
        assert!(found[3].facts.noop_only && !found[0].facts.noop_only);
    }

    #[test]
    fn rust_tests_attributes_and_swallowed_panics() {
        let text = "#[cfg(test)]\nmod tests {\n    #[test]\n    #[should_panic]\n    fn a() {\n        let _ = std::panic::catch_unwind(|| assert_eq!(f(), 2));\n    }\n\n    #[tokio::test]\n    async fn b() -> Result<(), E> {\n        return Ok(());\n        assert!(g()?);\n        Ok(())\n    }\n\n    #[test]\n    fn c() {\n        assert!(std::panic::catch_unwind(|| f()).is_err());\n        if x { y(); }\n        assert_eq!(f(), 1);\n    }\n}\n";
        let found = tests(text, Lang::Rust);
        let names: Vec<(&str, u32, &[u32])> = found
            .iter()
            .map(|t| (t.short.as_str(), t.line, t.anchors.as_slice()))
            .collect();
        assert_eq!(
            names,
            [
                ("a", 5, &[3, 4, 5][..]),
                ("b", 10, &[9, 10][..]),
                ("c", 17, &[16, 17][..])
            ]
        );
        assert_eq!(found[0].markers, [(4, "#[should_panic]".to_owned())]);
        assert_eq!(found[0].facts.swallowed(), 1);
        assert_eq!(found[1].facts.early_return, Some(11));
        assert_eq!(found[2].facts.real(), 2);
    }
}
