//! Small text helpers shared by the summarizers.

/// `line` up to its first replacement character (U+FFFD, where the line reader found invalid
/// UTF-8), without the spaces before it: a summary line with stray bytes after it is still that
/// summary line.
pub(crate) fn before_replacement(line: &str) -> &str {
    line.split('\u{FFFD}').next().unwrap_or(line).trim_end()
}

/// The number just before `label` in `text`: `count_of("Tests: 2 failed, 5 passed", "failed")` is
/// `Some(2)`. The label must start right after one space and end at a word boundary, so `"1
/// failedx"` does not count.
pub(crate) fn count_of(text: &str, label: &str) -> Option<u64> {
    let mut search = 0;
    while let Some(found) = text[search..].find(label) {
        let at = search + found;
        search = at + label.len();
        let after_ok = text[search..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let Some(before) = text[..at].strip_suffix(' ') else {
            continue;
        };
        let digits = trailing_digits(before);
        if after_ok
            && !digits.is_empty()
            && let Ok(n) = digits.parse()
        {
            return Some(n);
        }
    }
    None
}

/// The ASCII digits that end `text`, possibly none. Counted on bytes, so that the character
/// before them may be of any width (`✖ 3é problems` once split an `é`).
pub(crate) fn trailing_digits(text: &str) -> &str {
    let digits = text.bytes().rev().take_while(u8::is_ascii_digit).count();
    &text[text.len() - digits..]
}

/// Splits `file:line[:col]` at its end: `"src/a.ts:3:7"` → `("src/a.ts", 3, Some(7))`. The file part
/// may itself hold colons (`C:\x.ts:1:2`).
pub(crate) fn split_location(text: &str) -> Option<(&str, u32, Option<u32>)> {
    let (head, last) = text.rsplit_once(':')?;
    let last: u32 = last.parse().ok()?;
    if let Some((file, line)) = head.rsplit_once(':')
        && let Ok(line) = line.parse::<u32>()
        && !file.is_empty()
    {
        return Some((file, line, Some(last)));
    }
    if head.is_empty() {
        return None;
    }
    Some((head, last, None))
}

/// `text` cut to at most `max` characters, with `…` when cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

/// Whether a package manager's script line runs one of `tools`: npm's and pnpm's `> tsc
/// --noEmit`, yarn's `$ eslint .` or `$ "C:\\p\\node_modules\\.bin\\tsc" -noEmit`, and a
/// tool later in a chain (`> rm -rf dist && tsc -p x`, `> npx eslint .`). Only a word where a
/// command starts counts, so `> pkg@1.0.0 lint` and `> echo eslint` do not.
pub(crate) fn script_runs(line: &str, tools: &[&str]) -> bool {
    let Some(command) = line.strip_prefix("> ").or_else(|| line.strip_prefix("$ ")) else {
        return false;
    };
    let mut at_command = true;
    for word in command.split_ascii_whitespace() {
        let word = word.trim_matches(['"', '\'']);
        if matches!(word, "&&" | "||" | ";" | "|") {
            at_command = true;
            continue;
        }
        if !at_command {
            continue;
        }
        // `FOO=bar tsc`, `npx tsc`, `pnpm exec tsc`, `yarn tsc`, `bun x tsc`.
        if word.contains('=')
            || matches!(
                word,
                "npx" | "bunx" | "pnpx" | "exec" | "x" | "dlx" | "run" | "yarn" | "pnpm" | "bun"
            )
        {
            continue;
        }
        let name = word.rsplit(['/', '\\']).next().unwrap_or(word);
        let name = name.strip_suffix(".cmd").unwrap_or(name);
        if tools.contains(&name) {
            return true;
        }
        at_command = false;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_read_next_to_their_label() {
        let line = "Tests:       2 failed, 1 skipped, 5 passed, 8 total";
        assert_eq!(count_of(line, "failed"), Some(2));
        assert_eq!(count_of(line, "skipped"), Some(1));
        assert_eq!(count_of(line, "passed"), Some(5));
        assert_eq!(count_of(line, "total"), Some(8));
        assert_eq!(count_of(line, "todo"), None);
        assert_eq!(count_of("3 failedx, 4 failed", "failed"), Some(4));
        // A character of several bytes right before the digits, or in their place.
        assert_eq!(count_of("Tests: 3é failed, é2 failed", "failed"), Some(2));
        assert_eq!(count_of("✖ é failed", "failed"), None);
        assert_eq!(trailing_digits("✖ 3é"), "");
        assert_eq!(trailing_digits("✖ é42"), "42");
    }

    #[test]
    fn locations_split_from_the_end() {
        assert_eq!(
            split_location("src/a.ts:3:7"),
            Some(("src/a.ts", 3, Some(7)))
        );
        assert_eq!(split_location("a.py:12"), Some(("a.py", 12, None)));
        assert_eq!(
            split_location("C:\\x\\a.ts:1:2"),
            Some(("C:\\x\\a.ts", 1, Some(2)))
        );
        assert_eq!(split_location("no location"), None);
        assert_eq!(split_location(":3"), None);
    }

    #[test]
    fn script_lines_name_the_tools_they_run() {
        let runs = |line| script_runs(line, &["tsc"]);
        assert!(runs("> tsc --noEmit --pretty false"));
        assert!(runs("> rm -rf dist && tsc -p tsconfig.json && printf x"));
        assert!(runs("$ \"C:\\p\\node_modules\\.bin\\tsc\" -noEmit"));
        assert!(runs("> npx tsc"));
        assert!(!runs("> pkg@1.0.0 typecheck"));
        assert!(!runs("> echo tsc"));
        assert!(!runs("tsc --noEmit"));
    }

    #[test]
    fn clip_counts_characters_not_bytes() {
        assert_eq!(clip("ééé", 2), "éé…");
        assert_eq!(clip("ab", 2), "ab");
    }
}
