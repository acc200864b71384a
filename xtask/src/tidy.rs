//! `tidy`: repository-wide checks that run as plain tests (`cargo test -p xtask`).
//!
//! - every Rust source file starts with `//!` docs saying what it is for;
//! - no stray `dbg!` in committed code;
//! - no absolute path of a developer's machine in any tracked file;
//! - every captured log has its meta file (and so was written by `cargo xtask capture`);
//! - no function in `summarizers/src/` is over 100 lines, counted from its `fn` to its closing
//!   brace: a parser long enough to need a scroll is cut into named steps;
//! - CHANGELOG.md has the release notes of the workspace's version, in Keep a Changelog's form.

/// Measuring functions: a brace-matching scan of Rust source that knows its comments and
/// literals.
#[cfg(test)]
mod function_length {
    /// The most lines a function in `summarizers/src/` may take, from its `fn` to its closing
    /// brace.
    pub(super) const MAX_FUNCTION_LINES: usize = 100;

    /// A function's name, the line its `fn` is on (from 1) and how many lines it takes.
    #[derive(Debug, PartialEq, Eq)]
    pub(super) struct FunctionSpan {
        pub(super) name: String,
        pub(super) line: usize,
        pub(super) lines: usize,
    }

    /// Every function with a body in Rust source `text`, nested ones too, found by matching
    /// braces. Comments, string and character literals are skipped so that their braces do not
    /// count; a declaration without a body (`fn f();` in a trait) is none.
    pub(super) fn function_spans(text: &str) -> Vec<FunctionSpan> {
        let chars: Vec<char> = text.chars().collect();
        let mut spans = Vec::new();
        // One entry per open brace: the function it opens, if it is a function's body.
        let mut braces: Vec<Option<(String, usize)>> = Vec::new();
        // A `fn` seen whose body has not opened yet, and the brackets open since it.
        let mut pending: Option<(String, usize)> = None;
        let mut nesting = 0usize;
        let mut line = 1;
        let mut i = 0;
        while i < chars.len() {
            let skipped = skip_literal_or_comment(&chars, i);
            if skipped > i {
                line += chars[i..skipped].iter().filter(|&&c| c == '\n').count();
                i = skipped;
                continue;
            }
            match chars[i] {
                '\n' => line += 1,
                '(' | '[' if pending.is_some() => nesting += 1,
                ')' | ']' if pending.is_some() => nesting = nesting.saturating_sub(1),
                ';' if nesting == 0 => pending = None,
                '{' => {
                    braces.push(pending.take());
                    nesting = 0;
                }
                '}' => {
                    if let Some(Some((name, start))) = braces.pop() {
                        let lines = line - start + 1;
                        spans.push(FunctionSpan {
                            name,
                            line: start,
                            lines,
                        });
                    }
                }
                'f' if is_word_start(&chars, i) => {
                    if let Some((name, end)) = fn_name(&chars, i) {
                        pending = Some((name, line));
                        nesting = 0;
                        i = end;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        spans
    }

    /// Whether `chars[i]` starts a word (the character before it is not part of an identifier).
    fn is_word_start(chars: &[char], i: usize) -> bool {
        i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
    }

    /// `fn name` at `i`: the name and where it ends; `None` for `fn(` (a pointer type) or a word
    /// that only starts with `fn`.
    fn fn_name(chars: &[char], i: usize) -> Option<(String, usize)> {
        if chars.get(i + 1) != Some(&'n') || !chars.get(i + 2).is_some_and(|c| c.is_whitespace()) {
            return None;
        }
        let start = i
            + 2
            + chars[i + 2..]
                .iter()
                .take_while(|c| c.is_whitespace())
                .count();
        let len = chars[start..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .count();
        (len > 0).then(|| (chars[start..start + len].iter().collect(), start + len))
    }

    /// Where the comment or literal starting at `i` ends (`i` itself when none starts there): `//`
    /// and nested `/* */` comments, `"…"`, `r#"…"#` and `b"…"` strings, `'x'` and `'\n'` characters
    /// (a lifetime, `'a`, is neither).
    fn skip_literal_or_comment(chars: &[char], i: usize) -> usize {
        let at = |k: usize| chars.get(k).copied();
        match chars[i] {
            '/' if at(i + 1) == Some('/') => {
                i + chars[i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .unwrap_or(chars.len() - i)
            }
            '/' if at(i + 1) == Some('*') => {
                let mut depth = 0;
                let mut k = i;
                while k < chars.len() {
                    if chars[k] == '/' && at(k + 1) == Some('*') {
                        depth += 1;
                        k += 2;
                    } else if chars[k] == '*' && at(k + 1) == Some('/') {
                        depth -= 1;
                        k += 2;
                        if depth == 0 {
                            return k;
                        }
                    } else {
                        k += 1;
                    }
                }
                chars.len()
            }
            '"' => skip_string(chars, i + 1),
            'b' if at(i + 1) == Some('"') && is_word_start(chars, i) => skip_string(chars, i + 2),
            'r' | 'b' if is_word_start(chars, i) => skip_raw_string(chars, i),
            '\'' if at(i + 1) == Some('\\') => {
                // An escaped character: `'\n'`, `'\''`, `'\u{1F600}'`.
                let from = i + 3;
                from + chars[from.min(chars.len())..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map_or(chars.len() - from.min(chars.len()), |p| p + 1)
            }
            '\'' if at(i + 2) == Some('\'') => i + 3,
            _ => i,
        }
    }

    /// The end of a `"…"` string whose text starts at `from`.
    fn skip_string(chars: &[char], from: usize) -> usize {
        let mut k = from;
        while k < chars.len() {
            match chars[k] {
                '\\' => k += 2,
                '"' => return k + 1,
                _ => k += 1,
            }
        }
        chars.len()
    }

    /// The end of a raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i`; `i` when none does.
    fn skip_raw_string(chars: &[char], i: usize) -> usize {
        let mut k = i + usize::from(chars[i] == 'b');
        if chars.get(k) != Some(&'r') {
            return i;
        }
        k += 1;
        let hashes = chars[k..].iter().take_while(|&&c| c == '#').count();
        k += hashes;
        if chars.get(k) != Some(&'"') {
            return i;
        }
        k += 1;
        while k < chars.len() {
            if chars[k] == '"'
                && chars[k + 1..]
                    .iter()
                    .take(hashes)
                    .filter(|&&c| c == '#')
                    .count()
                    == hashes
            {
                return k + 1 + hashes;
            }
            k += 1;
        }
        chars.len()
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::{Path, PathBuf};

    use super::function_length::{FunctionSpan, MAX_FUNCTION_LINES, function_spans};
    use crate::capture::repo_root;

    /// The tracked files of the repository (what a clean clone holds).
    fn tracked_files() -> Vec<PathBuf> {
        let root = repo_root();
        let output = duct::cmd!("git", "ls-files", "-z")
            .dir(&root)
            .stdout_capture()
            .read()
            .unwrap_or_default();
        output
            .split('\0')
            .filter(|p| !p.is_empty())
            .map(|p| root.join(p))
            .filter(|p| p.is_file())
            .collect()
    }

    fn rust_sources() -> Vec<PathBuf> {
        tracked_files()
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .filter(|p| !p.components().any(|c| c.as_os_str() == "projects"))
            .collect()
    }

    fn relative(path: &Path) -> String {
        path.strip_prefix(repo_root())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    #[test]
    fn every_rust_file_starts_with_module_docs() {
        let missing: Vec<String> = rust_sources()
            .into_iter()
            .filter(|p| {
                let text = fs::read_to_string(p).unwrap_or_default();
                !text.trim_start().starts_with("//!")
            })
            .map(|p| relative(&p))
            .collect();
        assert!(missing.is_empty(), "files without `//!` docs: {missing:#?}");
    }

    #[test]
    fn no_stray_dbg_macros() {
        let needle = concat!("dbg", "!(");
        let offenders: Vec<String> = rust_sources()
            .into_iter()
            .filter(|p| fs::read_to_string(p).unwrap_or_default().contains(needle))
            .map(|p| relative(&p))
            .collect();
        assert!(offenders.is_empty(), "`dbg!` left in: {offenders:#?}");
    }

    #[test]
    fn no_machine_paths_in_tracked_files() {
        let needles = [concat!("/work/", "main"), concat!("/root", "/")];
        // Logs from the wild were written on other people's machines: their paths are theirs.
        let wild = Path::new("summarizers/testdata/wild");
        let offenders: Vec<String> = tracked_files()
            .into_iter()
            .filter(|p| !Path::new(&relative(p)).starts_with(wild))
            .filter(|p| {
                let bytes = fs::read(p).unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes);
                needles.iter().any(|n| text.contains(n))
            })
            .map(|p| relative(&p))
            .collect();
        assert!(
            offenders.is_empty(),
            "absolute paths of a developer's machine in: {offenders:#?}"
        );
    }

    /// A version bumped in `Cargo.toml` without its notes fails here, before it is released.
    #[test]
    fn the_changelog_has_notes_for_this_version() {
        let version = env!("CARGO_PKG_VERSION");
        let changelog = fs::read_to_string(repo_root().join("CHANGELOG.md")).unwrap_or_default();
        let heading = format!("## [{version}] - ");
        let link = format!("[{version}]: https://");
        for needle in ["## [Unreleased]", heading.as_str(), link.as_str()] {
            assert!(
                changelog.lines().any(|line| line.starts_with(needle)),
                "CHANGELOG.md has no line starting with `{needle}`"
            );
        }
    }

    #[test]
    fn every_captured_log_has_its_meta() {
        let orphans: Vec<String> = tracked_files()
            .into_iter()
            .filter(|p| {
                p.extension().is_some_and(|e| e == "log")
                    && p.components().any(|c| c.as_os_str() == "testdata")
            })
            .filter(|p| !p.with_extension("meta.json").is_file())
            .map(|p| relative(&p))
            .collect();
        assert!(orphans.is_empty(), "logs without meta: {orphans:#?}");
    }

    /// The Rust files under `dir`, tracked or not, in a stable order.
    fn rust_files_under(dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut dirs = vec![dir.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }

    #[test]
    fn no_summarizer_function_is_over_100_lines() {
        let root = repo_root().join("summarizers/src");
        let files = rust_files_under(&root);
        assert!(files.len() > 20, "summarizers/src not found at {root:?}");
        let long: Vec<String> = files
            .iter()
            .flat_map(|path| {
                let text = fs::read_to_string(path).unwrap_or_default();
                function_spans(&text)
                    .into_iter()
                    .filter(|f| f.lines > MAX_FUNCTION_LINES)
                    .map(move |f| {
                        format!(
                            "{}:{} {} ({} lines)",
                            relative(path),
                            f.line,
                            f.name,
                            f.lines
                        )
                    })
            })
            .collect();
        assert!(
            long.is_empty(),
            "functions over {MAX_FUNCTION_LINES} lines (cut them into named steps): {long:#?}"
        );
    }

    /// A function `name` whose body holds `body` lines.
    fn function(name: &str, body: usize) -> String {
        let mut text = format!("fn {name}(x: [u8; 2]) -> u8 {{\n");
        for _ in 0..body {
            text.push_str("    let _ = x;\n");
        }
        text.push_str("}\n");
        text
    }

    #[test]
    fn the_counter_measures_from_fn_to_its_closing_brace() {
        let text = format!(
            "//! Docs.\n\n{}\n{}",
            function("short", 98),
            function("long", 99)
        );
        let spans = function_spans(&text);
        assert_eq!(
            spans,
            [
                FunctionSpan {
                    name: "short".into(),
                    line: 3,
                    lines: 100
                },
                FunctionSpan {
                    name: "long".into(),
                    line: 104,
                    lines: 101
                },
            ]
        );
        assert!(
            spans
                .iter()
                .filter(|f| f.lines > MAX_FUNCTION_LINES)
                .map(|f| &f.name)
                .eq(["long"])
        );
    }

    #[test]
    fn the_counter_skips_braces_in_comments_strings_and_characters() {
        let text = r##"
trait T {
    fn declared(&self, x: [u8; 4]);
}
fn outer<'a>(s: &'a str) -> usize {
    // a } in a comment
    /* and { in /* a nested */ block } */
    let a = "}\"{";
    let b = r#"}"{"#;
    let c = ['}', '{', '\'', '\u{7d}'];
    let f: fn(u8) -> u8 = inner;
    fn inner(x: u8) -> u8 {
        x
    }
    a.len() + b.len() + c.len() + usize::from(f(1))
}
fn after() {}
"##;
        let spans = function_spans(text);
        let found: Vec<(&str, usize, usize)> = spans
            .iter()
            .map(|f| (f.name.as_str(), f.line, f.lines))
            .collect();
        assert_eq!(
            found,
            [("inner", 12, 3), ("outer", 5, 12), ("after", 17, 1)]
        );
    }
}
