//! [`split_command`]: a command line typed by a person (`--agent 'claude -p {prompt}'`, a
//! verifier's `command` in verdict.toml, a package script) into an argv vector, split the way a
//! POSIX shell splits words — and nothing else a shell does.

/// A command line that cannot be split into words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid command line `{line}`: {reason}")]
pub struct SplitError {
    /// The command line as given.
    pub line: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Splits `line` into words the way a POSIX shell would, without running or expanding anything.
///
/// - Unquoted blanks (space, tab, newline) separate words; several in a row count as one.
/// - `'…'` keeps everything inside literally (no escapes).
/// - `"…"` keeps everything inside literally except a backslash before `"`, `\`, `$`, `` ` `` or a
///   newline, which escapes it (a backslash before anything else stays a backslash).
/// - An unquoted `\` takes the next character literally; a backslash-newline joins lines.
/// - `$VAR`, `$(…)`, backticks, `~`, globs (`*`, `?`, `[…]`), `;`, `|`, `&`, `>` are ordinary
///   characters: they end up in the words as typed. No shell ever sees the result.
/// - `''` and `""` make an empty word.
///
/// An unterminated quote or a trailing lone backslash is an error; so is a line with no word.
pub fn split_command(line: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word is under way (it may be empty, as in `''`).
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(unbalanced(line, "single quote")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(unbalanced(line, "double quote")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(unbalanced(line, "double quote")),
                    }
                }
            }
            '\\' => match chars.next() {
                // A backslash-newline is a line continuation: it neither adds nor ends a word.
                Some('\n') => {}
                Some(c) => {
                    in_word = true;
                    word.push(c);
                }
                None => {
                    return Err(SplitError {
                        line: line.to_owned(),
                        reason: "it ends with a lone backslash".to_owned(),
                    });
                }
            },
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(SplitError {
            line: line.to_owned(),
            reason: "it names no program".to_owned(),
        });
    }
    Ok(words)
}

fn unbalanced(line: &str, quote: &str) -> SplitError {
    SplitError {
        line: line.to_owned(),
        reason: format!("a {quote} is never closed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expect: &[&str]) {
        let words = split_command(line).expect("splits");
        assert_eq!(words, expect, "{line:?}");
    }

    #[test]
    fn words_quotes_and_escapes() {
        check("claude -p {prompt}", &["claude", "-p", "{prompt}"]);
        check("  a \t b\n c  ", &["a", "b", "c"]);
        check(r#"a 'b c' "d e" f\ g"#, &["a", "b c", "d e", "f g"]);
        check(r#"x"y"'z' '' """#, &["xyz", "", ""]);
        check(r#""a \" \\ \$ \` \n""#, &[r#"a " \ $ ` \n"#]);
        check(r"'no \escape'", &[r"no \escape"]);
        check("a\\\nb", &["ab"]);
        check(r"\'", &["'"]);
    }

    #[test]
    fn nothing_is_expanded() {
        check(
            "run $HOME $(touch pwned) `id` ~ *.rs ; | && > out",
            &[
                "run", "$HOME", "$(touch", "pwned)", "`id`", "~", "*.rs", ";", "|", "&&", ">",
                "out",
            ],
        );
        check(r#""$(touch pwned)""#, &["$(touch pwned)"]);
    }

    #[test]
    fn unbalanced_quotes_and_empty_lines_are_errors() {
        for line in ["'open", "\"open", "a \"b\\\"", "trailing\\", "", "   "] {
            let error = split_command(line).expect_err(line);
            assert!(
                error.to_string().contains("invalid command line"),
                "{error}"
            );
        }
        assert!(
            split_command("'x")
                .expect_err("x")
                .to_string()
                .contains("single quote")
        );
    }
}
