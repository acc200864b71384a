//! A small tokenizer for the three languages whose tests the guard reads: Python, JavaScript and
//! TypeScript, Rust. It knows only what telling code from strings and comments needs — string
//! forms with their escapes and prefixes, raw strings, template literals, regular expression
//! literals, nested block comments — so that a brace or an `assert` inside a string is never read
//! as code. It never fails: what it does not know becomes a one-character punctuation token, and an
//! unterminated string ends at the end of its line (or of the input, for the multi-line forms).

/// A language whose tests the guard reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Python,
    /// JavaScript and TypeScript (and JSX, TSX).
    Js,
    Rust,
}

impl Lang {
    /// The language of `path`, by its extension.
    pub(super) fn of(path: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let extension = name.rsplit_once('.').map(|(_, e)| e)?;
        match extension {
            "py" => Some(Lang::Python),
            "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => Some(Lang::Js),
            "rs" => Some(Lang::Rust),
            _ => None,
        }
    }
}

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TokKind {
    /// A name or keyword (a Rust lifetime too).
    Ident,
    Number,
    /// A string, character, template or regular expression literal, as written.
    Str,
    Punct,
}

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Tok {
    pub kind: TokKind,
    pub text: String,
    /// 1-based line.
    pub line: u32,
    /// The column it starts at, tabs expanded to multiples of 8 (Python's indentation).
    pub col: u32,
    /// Whether a line ended between the previous token and this one (a Python backslash
    /// continuation does not count).
    pub nl_before: bool,
}

impl Tok {
    /// Whether this is the identifier or punctuation `text`.
    pub(super) fn is(&self, text: &str) -> bool {
        self.kind != TokKind::Str && self.text == text
    }

    /// Whether this is a literal: a number, a string, or one of the constant keywords.
    pub(super) fn is_literal(&self) -> bool {
        match self.kind {
            TokKind::Number | TokKind::Str => true,
            TokKind::Ident => LITERAL_WORDS.contains(&self.text.as_str()),
            TokKind::Punct => false,
        }
    }
}

/// Keywords that are constants in one of the languages.
pub(super) const LITERAL_WORDS: &[&str] = &[
    "True",
    "False",
    "None",
    "true",
    "false",
    "null",
    "undefined",
    "NaN",
];

/// Operators of more than one character, longest first.
const OPERATORS: &[&str] = &[
    "===", "!==", "...", "**=", "<<=", ">>=", "==", "!=", "<=", ">=", "=>", "->", "::", "&&", "||",
    "**", "+=", "-=", "*=", "/=", "%=", "??", "?.", "<<", ">>", ":=",
];

/// Idents after which a `/` starts a regular expression in JavaScript.
const REGEX_AFTER: &[&str] = &[
    "return",
    "typeof",
    "case",
    "do",
    "else",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "yield",
    "await",
    "instanceof",
];

/// The tokens of `text` read as `lang`.
pub(super) fn lex(text: &str, lang: Lang) -> Vec<Tok> {
    Lexer {
        chars: text.chars().collect(),
        i: 0,
        line: 1,
        col: 0,
        nl_before: true,
        lang,
        toks: Vec::new(),
    }
    .run()
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    line: u32,
    col: u32,
    nl_before: bool,
    lang: Lang,
    toks: Vec<Tok>,
}

impl Lexer {
    fn at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.i + offset).copied()
    }

    /// Moves past one character, keeping the line and column.
    fn bump(&mut self) {
        match self.at(0) {
            Some('\n') => {
                self.line += 1;
                self.col = 0;
            }
            Some('\t') => self.col = (self.col / 8 + 1) * 8,
            Some(_) => self.col += 1,
            None => {}
        }
        self.i += 1;
    }

    fn run(mut self) -> Vec<Tok> {
        while let Some(c) = self.at(0) {
            if c == '\n' {
                self.bump();
                self.nl_before = true;
            } else if c.is_whitespace() {
                self.bump();
            } else if self.lang == Lang::Python && c == '\\' && self.at(1) == Some('\n') {
                self.bump();
                self.bump();
            } else if (self.lang == Lang::Python && c == '#')
                || (self.lang != Lang::Python && c == '/' && self.at(1) == Some('/'))
            {
                self.skip_line();
            } else if self.lang != Lang::Python && c == '/' && self.at(1) == Some('*') {
                self.skip_block_comment();
            } else {
                self.token(c);
            }
        }
        self.toks
    }

    fn skip_line(&mut self) {
        while self.at(0).is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    fn skip_block_comment(&mut self) {
        let nests = self.lang == Lang::Rust;
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            if c == '/' && self.at(1) == Some('*') && (depth == 0 || nests) {
                depth += 1;
                self.bump();
                self.bump();
            } else if c == '*' && self.at(1) == Some('/') {
                self.bump();
                self.bump();
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return;
                }
            } else {
                if c == '\n' {
                    self.nl_before = true;
                }
                self.bump();
            }
        }
    }

    fn token(&mut self, c: char) {
        let (start, line, col) = (self.i, self.line, self.col);
        let kind = if let Some(prefix) = self.string_prefix(c) {
            for _ in 0..prefix {
                self.bump();
            }
            self.string();
            TokKind::Str
        } else if c.is_ascii_digit()
            || (c == '.'
                && self.lang != Lang::Rust
                && self.at(1).is_some_and(|d| d.is_ascii_digit()))
        {
            self.number();
            TokKind::Number
        } else if c == '\'' && self.lang == Lang::Rust && !self.rust_char() {
            // A lifetime or a label: `'a`.
            self.bump();
            self.ident_chars();
            TokKind::Ident
        } else if is_ident_start(c, self.lang) {
            self.ident_chars();
            TokKind::Ident
        } else if c == '/' && self.lang == Lang::Js && self.regex_may_start() && self.regex() {
            TokKind::Str
        } else {
            let rest: String = self.chars[self.i..self.chars.len().min(self.i + 3)]
                .iter()
                .collect();
            let len = OPERATORS
                .iter()
                .find(|op| rest.starts_with(*op))
                .map_or(1, |op| op.chars().count());
            for _ in 0..len {
                self.bump();
            }
            TokKind::Punct
        };
        let end = self.i.min(self.chars.len());
        self.toks.push(Tok {
            kind,
            text: self.chars[start..end].iter().collect(),
            line,
            col,
            nl_before: self.nl_before,
        });
        self.nl_before = false;
    }

    fn ident_chars(&mut self) {
        while self
            .at(0)
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || (c == '$' && self.lang == Lang::Js))
        {
            self.bump();
        }
    }

    fn number(&mut self) {
        let mut previous = ' ';
        while let Some(c) = self.at(0) {
            let exponent_sign = (c == '+' || c == '-')
                && (previous == 'e' || previous == 'E')
                && !self.chars_since_number_start_hex();
            let fraction = c == '.' && self.at(1).is_some_and(|d| d.is_ascii_digit());
            if c.is_alphanumeric() || c == '_' || fraction || exponent_sign {
                previous = c;
                self.bump();
            } else {
                break;
            }
        }
    }

    /// Whether the number being read is hexadecimal (where `e` is a digit, not an exponent).
    fn chars_since_number_start_hex(&self) -> bool {
        let mut j = self.i;
        while j > 0 && self.chars[j - 1].is_alphanumeric() {
            j -= 1;
        }
        self.chars.get(j) == Some(&'0') && matches!(self.chars.get(j + 1), Some('x' | 'X'))
    }

    /// How many prefix characters come before the opening quote of a string that starts here.
    fn string_prefix(&self, c: char) -> Option<usize> {
        let quote = |c: Option<char>| match self.lang {
            Lang::Python => matches!(c, Some('\'' | '"')),
            Lang::Js => matches!(c, Some('\'' | '"' | '`')),
            Lang::Rust => c == Some('"'),
        };
        if quote(Some(c)) {
            return Some(0);
        }
        if c == '\'' && self.lang == Lang::Rust {
            return self.rust_char().then_some(0);
        }
        // A string prefix must not be the end of a longer name (`elif"x"` is not a string).
        let previous = self.i.checked_sub(1).and_then(|j| self.chars.get(j));
        if previous.is_some_and(|p| p.is_alphanumeric() || *p == '_') {
            return None;
        }
        match self.lang {
            Lang::Python => {
                let prefix = |c: Option<char>| {
                    c.is_some_and(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'u' | 'f'))
                };
                if prefix(Some(c)) && quote(self.at(1)) {
                    Some(1)
                } else if prefix(Some(c)) && prefix(self.at(1)) && quote(self.at(2)) {
                    Some(2)
                } else {
                    None
                }
            }
            Lang::Rust => {
                let mut n = 0;
                if self.at(n) == Some('b') || self.at(n) == Some('c') {
                    n += 1;
                }
                if self.at(n) == Some('r') {
                    let mut m = n + 1;
                    while self.at(m) == Some('#') {
                        m += 1;
                    }
                    if self.at(m) == Some('"') {
                        return Some(n);
                    }
                }
                if n == 1 && self.at(1) == Some('"') {
                    return Some(1);
                }
                if c == 'b' && self.at(1) == Some('\'') {
                    return Some(1);
                }
                None
            }
            Lang::Js => None,
        }
    }

    /// Reads a string whose opening quote (or Rust's `r`/`#`s) is here.
    fn string(&mut self) {
        match (self.lang, self.at(0)) {
            (Lang::Rust, Some('r')) => self.rust_raw_string(),
            (Lang::Rust, Some('\'')) => {
                self.bump();
                while self.at(0).is_some_and(|c| c != '\'' && c != '\n') {
                    if self.at(0) == Some('\\') {
                        self.bump();
                    }
                    self.bump();
                }
                self.bump();
            }
            (Lang::Js, Some('`')) => self.template(),
            (Lang::Python, Some(q)) if self.at(1) == Some(q) && self.at(2) == Some(q) => {
                for _ in 0..3 {
                    self.bump();
                }
                while let Some(c) = self.at(0) {
                    if c == '\\' {
                        self.bump();
                        self.bump();
                    } else if c == q && self.at(1) == Some(q) && self.at(2) == Some(q) {
                        for _ in 0..3 {
                            self.bump();
                        }
                        return;
                    } else {
                        self.bump();
                    }
                }
            }
            (_, Some(q)) => {
                self.bump();
                // Rust's strings span lines; the others end at the line's end if unterminated.
                let multiline = self.lang == Lang::Rust;
                while let Some(c) = self.at(0) {
                    if c == '\\' {
                        self.bump();
                        if self.at(0).is_some() {
                            self.bump();
                        }
                    } else if c == q {
                        self.bump();
                        return;
                    } else if c == '\n' && !multiline {
                        return;
                    } else {
                        self.bump();
                    }
                }
            }
            (_, None) => {}
        }
    }

    fn rust_raw_string(&mut self) {
        self.bump();
        let mut hashes = 0;
        while self.at(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        self.bump();
        while let Some(c) = self.at(0) {
            self.bump();
            if c == '"' && (0..hashes).all(|k| self.at(k) == Some('#')) {
                for _ in 0..hashes {
                    self.bump();
                }
                return;
            }
        }
    }

    /// Whether the `'` here starts a Rust character literal (else a lifetime or label).
    fn rust_char(&self) -> bool {
        match (self.at(1), self.at(2)) {
            (Some('\\'), _) => true,
            (Some(c), Some('\'')) => c != '\'',
            _ => false,
        }
    }

    fn template(&mut self) {
        self.bump();
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            if c == '\\' {
                self.bump();
                self.bump();
            } else if c == '$' && self.at(1) == Some('{') {
                depth += 1;
                self.bump();
                self.bump();
            } else if c == '}' && depth > 0 {
                depth -= 1;
                self.bump();
            } else if c == '`' && depth == 0 {
                self.bump();
                return;
            } else {
                self.bump();
            }
        }
    }

    /// Whether a `/` here would start a regular expression: after an operator, an opening
    /// bracket, a keyword such as `return`, or at the start.
    fn regex_may_start(&self) -> bool {
        match self.toks.last() {
            None => true,
            Some(t) => match t.kind {
                TokKind::Punct => !matches!(t.text.as_str(), ")" | "]" | "}"),
                TokKind::Ident => REGEX_AFTER.contains(&t.text.as_str()),
                _ => false,
            },
        }
    }

    /// Reads a regular expression literal; false (nothing read) if its line ends first.
    fn regex(&mut self) -> bool {
        let mut j = self.i + 1;
        let mut class = false;
        loop {
            match self.chars.get(j) {
                None | Some('\n') => return false,
                Some('\\') => j += 1,
                Some('[') => class = true,
                Some(']') => class = false,
                Some('/') if !class => break,
                _ => {}
            }
            j += 1;
        }
        while self.i <= j {
            self.bump();
        }
        while self.at(0).is_some_and(|c| c.is_ascii_alphabetic()) {
            self.bump();
        }
        true
    }
}

fn is_ident_start(c: char, lang: Lang) -> bool {
    c.is_alphabetic() || c == '_' || (c == '$' && lang == Lang::Js)
}

/// For each token, the index of the bracket that closes it when it opens a group (`(`, `[`, `{`).
/// An unclosed group closes at the end (`toks.len()`); a stray closer closes nothing.
pub(super) fn groups(toks: &[Tok]) -> Vec<Option<usize>> {
    let mut close = vec![None; toks.len()];
    let mut open: Vec<(usize, &str)> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if t.kind != TokKind::Punct {
            continue;
        }
        let closer = match t.text.as_str() {
            "(" => Some(")"),
            "[" => Some("]"),
            "{" => Some("}"),
            _ => None,
        };
        if let Some(closer) = closer {
            open.push((i, closer));
            continue;
        }
        if matches!(t.text.as_str(), ")" | "]" | "}")
            && let Some(depth) = open.iter().rposition(|(_, c)| *c == t.text)
        {
            // Groups left open inside this one close with it.
            for (j, _) in open.drain(depth..) {
                close[j] = Some(i);
            }
        }
    }
    for (j, _) in open {
        close[j] = Some(toks.len());
    }
    close
}

/// The tokens' text joined by single spaces: the code without its layout and comments.
pub(super) fn joined(toks: &[Tok]) -> String {
    let mut out = String::new();
    for (i, t) in toks.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&t.text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str, lang: Lang) -> Vec<String> {
        lex(text, lang).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn strings_and_comments_hide_code() {
        assert_eq!(
            texts("x = '{' # }\ny = \"\"\"a\n}\"\"\" + f'b'", Lang::Python),
            ["x", "=", "'{'", "y", "=", "\"\"\"a\n}\"\"\"", "+", "f'b'"]
        );
        assert_eq!(
            texts(
                "a(`x${ {b: 1} }`, /[/]}/g, '}', c / d) // }\n/* } */ e",
                Lang::Js
            ),
            [
                "a",
                "(",
                "`x${ {b: 1} }`",
                ",",
                "/[/]}/g",
                ",",
                "'}'",
                ",",
                "c",
                "/",
                "d",
                ")",
                "e"
            ]
        );
        assert_eq!(
            texts(
                "fn f<'a>() { let c = '}'; r#\"}\"#; /* /* } */ */ b\"}\" }",
                Lang::Rust
            ),
            [
                "fn", "f", "<", "'a", ">", "(", ")", "{", "let", "c", "=", "'}'", ";", "r#\"}\"#",
                ";", "b\"}\"", "}"
            ]
        );
    }

    #[test]
    fn columns_lines_and_line_starts_are_kept() {
        let toks = lex("def f():\n\tx = (1,\n  2)\n", Lang::Python);
        let x = &toks[5];
        assert_eq!(
            (x.text.as_str(), x.line, x.col, x.nl_before),
            ("x", 2, 8, true)
        );
        let two = toks.iter().find(|t| t.text == "2").expect("2");
        assert_eq!((two.line, two.nl_before), (3, true));
    }

    #[test]
    fn numbers_and_operators() {
        assert_eq!(
            texts("a === 1e-5 !== 0x1E - 2.5", Lang::Js),
            ["a", "===", "1e-5", "!==", "0x1E", "-", "2.5"]
        );
        assert_eq!(texts("0..2", Lang::Rust), ["0", ".", ".", "2"]);
    }

    #[test]
    fn groups_close_and_survive_strays() {
        let toks = lex("f(a[1], {b}) ] (", Lang::Js);
        let close = groups(&toks);
        assert_eq!(close[1], Some(10));
        assert_eq!(close[3], Some(5));
        assert_eq!(close[11], None);
        assert_eq!(close[12], Some(13));
    }

    #[test]
    fn any_input_is_read_without_panicking() {
        let nasty = [
            "",
            "'",
            "\"\"\"",
            "r#\"",
            "`${",
            "/",
            "/*",
            "'\\",
            "b'",
            "0x",
            "1e",
            "é'ü\u{0}",
            "\\\n",
            "'a",
            "r##\"x\"#",
        ];
        for text in nasty {
            for lang in [Lang::Python, Lang::Js, Lang::Rust] {
                let toks = lex(text, lang);
                let _ = groups(&toks);
            }
        }
    }
}
