//! Assertions, read from tokens: which statements assert, what they compare, whether they can
//! fail at all (`assert True`, `expect(1).toEqual(1)`, `assert_eq!(1, 1)` cannot), and their
//! shape with the literals set apart, so that an assertion whose expected value alone was rewritten
//! is told from one that changed what it checks.

use super::lex::{Lang, Tok, TokKind, joined};

/// What an assertion checks about its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// The one operand is truthy.
    Truthy,
    /// The one operand is falsy.
    Falsy,
    /// The two operands are equal.
    Equal,
    /// The two operands differ.
    NotEqual,
    /// Something else (`assert x < 3`, `toThrow()`, `assert_matches!`): never a constant truth.
    Opaque,
}

/// One assertion of a test's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Assertion {
    /// 1-based line of its first token.
    pub line: u32,
    /// Its text, tokens joined by spaces.
    pub text: String,
    /// Its form and operands with every literal replaced by `□`.
    pub shape: String,
    /// The literals of its operands, in order.
    pub literals: Vec<String>,
    /// It cannot fail: its operands are constants that satisfy it (`assert 1 == 1`).
    pub constant: bool,
    /// Its failure is caught and dropped (`try/except`, `catch {}`, `catch_unwind`).
    pub swallowed: bool,
    /// It is never reached (after an unconditional `return`).
    pub dead: bool,
}

impl Assertion {
    /// Whether it can make the test fail.
    pub(super) fn real(&self) -> bool {
        !self.constant && !self.swallowed && !self.dead
    }
}

/// An assertion as recognised, before its context (swallowed, dead) is known.
pub(super) struct Found<'t> {
    /// The callee or keyword: `assert`, `assertEqual`, `toBe`, `assert_eq`.
    pub name: String,
    pub form: Form,
    pub operands: Vec<&'t [Tok]>,
    /// Every token of the assertion.
    pub all: &'t [Tok],
}

impl Found<'_> {
    /// The assertion, not swallowed nor dead.
    pub(super) fn build(&self) -> Assertion {
        let mut literals = Vec::new();
        let mut shape = format!("{} {:?}", self.name, self.form);
        for op in &self.operands {
            shape.push_str(" ,");
            for t in op.iter() {
                shape.push(' ');
                if t.is_literal() {
                    shape.push('□');
                    literals.push(t.text.clone());
                } else {
                    shape.push_str(&t.text);
                }
            }
        }
        Assertion {
            line: self.all.first().map_or(0, |t| t.line),
            text: joined(self.all),
            shape,
            literals,
            constant: constant_truth(self.form, &self.operands),
            swallowed: false,
            dead: false,
        }
    }
}

/// A Python statement (a logical line) that asserts: `assert …`, `self.assertEqual(…)`,
/// `np.testing.assert_allclose(…)`.
pub(super) fn python(stmt: &[Tok]) -> Option<Found<'_>> {
    let first = stmt.first()?;
    if first.is("assert") {
        let rest = stmt.get(1..).unwrap_or_default();
        let expr = split_top(rest, ",").into_iter().next().unwrap_or_default();
        let (form, operands) = comparison(expr, Lang::Python);
        return Some(Found {
            name: "assert".to_owned(),
            form,
            operands,
            all: stmt,
        });
    }
    // A call through a dotted path whose last name starts with `assert`.
    let mut i = 0;
    while stmt.get(i).is_some_and(|t| t.kind == TokKind::Ident)
        && stmt.get(i + 1).is_some_and(|t| t.is("."))
    {
        i += 2;
    }
    let callee = stmt.get(i).filter(|t| t.kind == TokKind::Ident)?;
    if !callee.text.starts_with("assert") || !stmt.get(i + 1).is_some_and(|t| t.is("(")) {
        return None;
    }
    let args = inner(stmt, i + 1);
    Some(call_form(&callee.text, args, stmt))
}

/// The JavaScript assertion that starts at `toks[i]`, if one does, with the index just past it:
/// `expect(a).not.toBe(b)`, `assert(a)`, `assert.strictEqual(a, b)`.
pub(super) fn js_at<'t>(
    toks: &'t [Tok],
    close: &[Option<usize>],
    i: usize,
) -> Option<(Found<'t>, usize)> {
    let t = toks.get(i)?;
    let after_dot = i > 0 && toks.get(i - 1).is_some_and(|p| p.is(".") || p.is("?."));
    if t.kind != TokKind::Ident || after_dot {
        return None;
    }
    let open = toks.get(i + 1)?;
    match t.text.as_str() {
        "expect" if open.is("(") => {
            let end = close.get(i + 1).copied().flatten()?;
            let actual = split_top(toks.get(i + 2..end)?, ",")
                .into_iter()
                .next()
                .unwrap_or_default();
            let mut j = end + 1;
            let mut negated = false;
            let mut opaque = false;
            let mut matcher: Option<&str> = None;
            let mut expected: Option<&[Tok]> = None;
            while toks.get(j).is_some_and(|t| t.is(".")) {
                let Some(name) = toks.get(j + 1).filter(|t| t.kind == TokKind::Ident) else {
                    break;
                };
                j += 2;
                match name.text.as_str() {
                    "not" => negated = !negated,
                    "resolves" | "rejects" => opaque = true,
                    _ => {}
                }
                matcher = Some(&name.text);
                if toks.get(j).is_some_and(|t| t.is("(")) {
                    let end = close.get(j).copied().flatten()?;
                    expected = split_top(toks.get(j + 1..end)?, ",").into_iter().next();
                    j = end + 1;
                    break;
                }
            }
            let matcher = matcher?;
            let form = match matcher {
                _ if opaque => Form::Opaque,
                "toBe" | "toEqual" | "toStrictEqual" | "equal" | "equals" | "eq" | "eql" => {
                    Form::Equal
                }
                "toBeTruthy" | "ok" | "true" => Form::Truthy,
                "toBeFalsy" | "false" => Form::Falsy,
                _ => Form::Opaque,
            };
            let form = if negated { negate(form) } else { form };
            let operands = match (form, expected) {
                (Form::Equal | Form::NotEqual, Some(expected)) => vec![actual, expected],
                (Form::Truthy | Form::Falsy, _) => vec![actual],
                (_, Some(expected)) => vec![actual, expected],
                _ => vec![actual],
            };
            let form = if operands.len() == 2 || matches!(form, Form::Truthy | Form::Falsy) {
                form
            } else {
                Form::Opaque
            };
            let all = toks.get(i..j)?;
            Some((
                Found {
                    name: matcher.to_owned(),
                    form,
                    operands,
                    all,
                },
                j,
            ))
        }
        "assert" if open.is("(") => {
            let end = close.get(i + 1).copied().flatten()?;
            let args = toks.get(i + 2..end)?;
            let all = toks.get(i..(end + 1).min(toks.len()))?;
            Some((call_form("assert", args, all), end + 1))
        }
        "assert" if open.is(".") => {
            let method = toks.get(i + 2).filter(|t| t.kind == TokKind::Ident)?;
            if !toks.get(i + 3).is_some_and(|t| t.is("(")) {
                return None;
            }
            let end = close.get(i + 3).copied().flatten()?;
            let args = toks.get(i + 4..end)?;
            let all = toks.get(i..(end + 1).min(toks.len()))?;
            Some((call_form(&method.text, args, all), end + 1))
        }
        _ => None,
    }
}

/// The Rust assertion macro that starts at `toks[i]`, if one does, with the index just past it:
/// `assert!(…)`, `assert_eq!(…)`, `debug_assert_ne!(…)`, `prop_assert!(…)`.
pub(super) fn rust_at<'t>(
    toks: &'t [Tok],
    close: &[Option<usize>],
    i: usize,
) -> Option<(Found<'t>, usize)> {
    let t = toks.get(i)?;
    let name = t.text.as_str();
    let is_assert = ["assert", "debug_assert", "prop_assert"]
        .iter()
        .any(|p| name.starts_with(p));
    if t.kind != TokKind::Ident || !is_assert || !toks.get(i + 1).is_some_and(|t| t.is("!")) {
        return None;
    }
    let open = toks.get(i + 2)?;
    if !(open.is("(") || open.is("[") || open.is("{")) {
        return None;
    }
    let end = close.get(i + 2).copied().flatten()?;
    let args = split_top(toks.get(i + 3..end)?, ",");
    let all = toks.get(i..(end + 1).min(toks.len()))?;
    let base = name
        .trim_start_matches("debug_")
        .trim_start_matches("prop_");
    let (form, operands) = match (base, args.as_slice()) {
        ("assert", [expr, ..]) => comparison(expr, Lang::Rust),
        ("assert_eq", [a, b, ..]) => (Form::Equal, vec![*a, *b]),
        ("assert_ne", [a, b, ..]) => (Form::NotEqual, vec![*a, *b]),
        _ => (Form::Opaque, args.clone()),
    };
    Some((
        Found {
            name: name.to_owned(),
            form,
            operands,
            all,
        },
        end + 1,
    ))
}

/// A call assertion by its callee's name: `assertTrue(x)`, `assertEqual(a, b)`, `assert(x)`,
/// `strictEqual(a, b)`.
fn call_form<'t>(callee: &str, args: &'t [Tok], all: &'t [Tok]) -> Found<'t> {
    let args = split_top(args, ",");
    let name = callee.to_ascii_lowercase().replace('_', "");
    let name = name.strip_prefix("assert").unwrap_or(&name);
    let form = if matches!(name, "" | "true" | "ok" | "istrue" | "isok") {
        Form::Truthy
    } else if matches!(name, "false" | "isfalse" | "isnotok") {
        Form::Falsy
    } else if name.contains("not") {
        if name.contains("equal") || name == "isnot" {
            Form::NotEqual
        } else {
            Form::Opaque
        }
    } else if name.contains("equal") || name == "is" || name == "eq" || name == "equals" {
        Form::Equal
    } else {
        Form::Opaque
    };
    let operands = match form {
        Form::Truthy | Form::Falsy => args.into_iter().take(1).collect::<Vec<_>>(),
        Form::Equal | Form::NotEqual => args.into_iter().take(2).collect(),
        Form::Opaque => args,
    };
    let form = match (form, operands.len()) {
        (Form::Truthy | Form::Falsy, 1) | (Form::Equal | Form::NotEqual, 2) => form,
        _ => Form::Opaque,
    };
    Found {
        name: callee.to_owned(),
        form,
        operands,
        all,
    }
}

fn negate(form: Form) -> Form {
    match form {
        Form::Truthy => Form::Falsy,
        Form::Falsy => Form::Truthy,
        Form::Equal => Form::NotEqual,
        Form::NotEqual => Form::Equal,
        Form::Opaque => Form::Opaque,
    }
}

/// An asserted expression: `a == b`, `a != b`, `a is b`, `not a`, `!a`, or `a` itself.
fn comparison(expr: &[Tok], lang: Lang) -> (Form, Vec<&[Tok]>) {
    let mut depth = 0i32;
    for (i, t) in expr.iter().enumerate() {
        if t.kind == TokKind::Punct {
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                _ => {}
            }
        }
        if depth != 0 || t.kind == TokKind::Str {
            continue;
        }
        let (lhs, rest) = (&expr[..i], &expr[i + 1..]);
        match t.text.as_str() {
            "==" | "===" => return (Form::Equal, vec![lhs, rest]),
            "!=" | "!==" => return (Form::NotEqual, vec![lhs, rest]),
            "is" if lang == Lang::Python => {
                return match rest.split_first() {
                    Some((not, rest)) if not.is("not") => (Form::NotEqual, vec![lhs, rest]),
                    _ => (Form::Equal, vec![lhs, rest]),
                };
            }
            // Any other comparison, boolean operator or conditional is not judged.
            "<" | ">" | "<=" | ">=" | "in" | "and" | "or" | "&&" | "||" | "if" | "?" => {
                return (Form::Opaque, vec![expr]);
            }
            _ => {}
        }
    }
    match expr.split_first() {
        Some((not, rest)) if not.is("not") || not.is("!") => (Form::Falsy, vec![rest]),
        _ => (Form::Truthy, vec![expr]),
    }
}

/// Whether an assertion of `form` over `operands` holds whatever the code does.
fn constant_truth(form: Form, operands: &[&[Tok]]) -> bool {
    match (form, operands) {
        (Form::Truthy, [op]) => literal(op) && truthy(op) == Some(true),
        (Form::Falsy, [op]) => literal(op) && truthy(op) == Some(false),
        (Form::Equal, [a, b]) => {
            let same = !a.is_empty() && joined(a) == joined(b);
            // The same literal twice, or the same plain name twice (`x == x`); two calls of the
            // same function may well differ.
            same && (literal(a) || !a.iter().any(|t| t.is("(")))
        }
        (Form::NotEqual, [a, b]) => literal(a) && literal(b) && joined(a) != joined(b),
        _ => false,
    }
}

/// Whether `op` is a constant: literals, signs and brackets only.
fn literal(op: &[Tok]) -> bool {
    let allowed = |t: &Tok| {
        t.is_literal()
            || (t.kind == TokKind::Punct
                && matches!(
                    t.text.as_str(),
                    "-" | "+" | "(" | ")" | "[" | "]" | "{" | "}" | "," | ":"
                ))
    };
    op.iter().any(Tok::is_literal) && op.iter().all(allowed)
}

/// The truth value of a constant, when it is plain: a number, a string, a constant keyword, a
/// non-empty list.
fn truthy(op: &[Tok]) -> Option<bool> {
    match op {
        [t] => match t.kind {
            TokKind::Number => Some(nonzero(&t.text)),
            TokKind::Str => {
                let body = t.text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
                let quotes = body
                    .chars()
                    .take_while(|c| *c == body.chars().next().unwrap_or('"'));
                let open = quotes.count().min(3);
                Some(body.chars().count() > 2 * open)
            }
            TokKind::Ident => match t.text.as_str() {
                "True" | "true" => Some(true),
                "False" | "false" | "None" | "null" | "undefined" | "NaN" => Some(false),
                _ => None,
            },
            TokKind::Punct => None,
        },
        [sign, number] if (sign.is("-") || sign.is("+")) && number.kind == TokKind::Number => {
            Some(nonzero(&number.text))
        }
        [open, .., close] if open.is("[") && close.is("]") => Some(true),
        _ => None,
    }
}

/// Whether a number literal is not zero.
fn nonzero(text: &str) -> bool {
    let lower = text.to_ascii_lowercase().replace('_', "");
    if let Some(digits) = ["0x", "0o", "0b"]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
    {
        return digits.chars().any(|c| c.is_ascii_hexdigit() && c != '0');
    }
    let mantissa = lower.split('e').next().unwrap_or("");
    mantissa.chars().any(|c| matches!(c, '1'..='9'))
}

/// The tokens inside the group that opens at `toks[open]`.
fn inner(toks: &[Tok], open: usize) -> &[Tok] {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth -= 1;
                if depth == 0 {
                    return toks.get(open + 1..i).unwrap_or_default();
                }
            }
            _ => {}
        }
    }
    toks.get(open + 1..).unwrap_or_default()
}

/// `toks` split at `sep` outside brackets (a trailing separator gives no empty part).
pub(super) fn split_top<'t>(toks: &'t [Tok], sep: &str) -> Vec<&'t [Tok]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokKind::Punct {
            continue;
        }
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            s if s == sep && depth == 0 => {
                parts.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < toks.len() {
        parts.push(&toks[start..]);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::super::lex::{groups, lex};
    use super::*;

    fn python_constant(line: &str) -> Option<bool> {
        let toks = lex(line, Lang::Python);
        python(&toks).map(|f| f.build().constant)
    }

    fn js_constant(line: &str) -> Option<bool> {
        let toks = lex(line, Lang::Js);
        let close = groups(&toks);
        js_at(&toks, &close, 0).map(|(f, _)| f.build().constant)
    }

    fn rust_constant(line: &str) -> Option<bool> {
        let toks = lex(line, Lang::Rust);
        let close = groups(&toks);
        rust_at(&toks, &close, 0).map(|(f, _)| f.build().constant)
    }

    #[test]
    fn constant_truths_are_told_from_checks() {
        for line in [
            "assert True",
            "assert 1 == 1",
            "assert 'x'",
            "assert not None",
            "assert 1, 'always'",
            "self.assertTrue(True)",
            "self.assertEqual(1, 1)",
            "self.assertFalse(0)",
            "assert x == x",
            "assert -1",
        ] {
            assert_eq!(python_constant(line), Some(true), "{line}");
        }
        for line in [
            "assert False",
            "assert total([1]) == 1",
            "assert 0",
            "assert ''",
            "self.assertTrue(ok)",
            "self.assertEqual(f(), f())",
            "assert 1 < 2",
        ] {
            assert_eq!(python_constant(line), Some(false), "{line}");
        }
        assert_eq!(python_constant("print(1)"), None);
        for line in [
            "expect(true).toBe(true)",
            "expect(1).toEqual(1)",
            "expect('a').toBeTruthy()",
            "expect(1).not.toBe(2)",
            "assert(true)",
            "assert.strictEqual(3, 3)",
            "assert.ok(1)",
        ] {
            assert_eq!(js_constant(line), Some(true), "{line}");
        }
        for line in [
            "expect(total()).toBe(3)",
            "expect(true).toBe(false)",
            "expect(x).toThrow()",
            "expect(p).resolves.toBe(1)",
            "assert.equal(a, 1)",
        ] {
            assert_eq!(js_constant(line), Some(false), "{line}");
        }
        assert_eq!(js_constant("expect.assertions(1)"), None);
        for line in [
            "assert!(true)",
            "assert_eq!(1, 1)",
            "assert!(1 == 1, \"x\")",
            "debug_assert_ne!(1, 2)",
        ] {
            assert_eq!(rust_constant(line), Some(true), "{line}");
        }
        for line in ["assert!(false)", "assert_eq!(add(1, 2), 3)", "assert!(!ok)"] {
            assert_eq!(rust_constant(line), Some(false), "{line}");
        }
    }

    #[test]
    fn shapes_set_literals_apart() {
        let toks = |line| lex(line, Lang::Python);
        let (a, b) = (
            toks("assert discount(200, 10) == 180"),
            toks("assert discount(200, 10) == 220.0"),
        );
        let (a, b) = (
            python(&a).expect("a").build(),
            python(&b).expect("b").build(),
        );
        assert_eq!(a.shape, b.shape);
        assert_eq!(a.literals, ["200", "10", "180"]);
        assert_eq!(b.literals, ["200", "10", "220.0"]);
        let c = toks("assert discount(200, 10) >= 180");
        assert_ne!(python(&c).expect("c").build().shape, a.shape);
    }
}
