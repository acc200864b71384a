//! Reading the attempt's diff: git's unified format, as [`crate::snapshot::Snapshots::diff`] gives
//! it between the checkpoint's tree and the attempt's (new, untracked files included). Reading it is
//! lenient: what is not understood is skipped. With a changed file's new text, the diff also gives
//! back its old text ([`old_text`]), so that tests can be read whole on both sides.

/// One file of a unified diff.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct FileDiff {
    /// The path before (`None`: the file is new).
    pub old: Option<String>,
    /// The path after (`None`: the file was deleted).
    pub new: Option<String>,
    /// Added and removed lines, in diff order.
    pub lines: Vec<DiffLine>,
    /// The hunks, context lines included.
    pub hunks: Vec<Hunk>,
}

/// An added or removed line.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct DiffLine {
    pub added: bool,
    /// In the new file when added, in the old file when removed.
    pub line: u32,
    pub text: String,
}

/// One hunk: where it starts on each side and every line of it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Hunk {
    /// The 0-based index of the first old line it covers (or that it inserts before).
    pub old_at: usize,
    /// The 0-based index of the first new line it covers (or that it removes before).
    pub new_at: usize,
    /// What git printed after the second `@@`: the enclosing function's line, for code files.
    pub context: String,
    /// `' '`, `'+'` or `'-'` and the line's text.
    pub lines: Vec<(char, String)>,
}

/// The paths a `git diff` names, old and new, each once, in order: what changed, for a caller
/// that has the diff already (the infrastructure check).
pub fn diff_paths(diff: &str) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for file in parse_diff(diff) {
        for path in [file.old, file.new].into_iter().flatten() {
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    paths
}

/// Reads a `git diff` (or any unified diff with `---`/`+++` headers).
pub(super) fn parse_diff(diff: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    let (mut old_line, mut new_line) = (0u32, 0u32);
    let mut in_hunk = false;
    for raw in diff.lines() {
        if let Some(rest) = raw.strip_prefix("diff --git ") {
            in_hunk = false;
            let (old, new) = split_git_header(rest);
            files.push(FileDiff {
                old,
                new,
                ..FileDiff::default()
            });
            continue;
        }
        if in_hunk {
            let Some(file) = files.last_mut() else {
                continue;
            };
            let text = raw.get(1..).unwrap_or("");
            let op = match raw.as_bytes().first() {
                Some(b'+') => '+',
                Some(b'-') => '-',
                Some(b' ') | None => ' ',
                Some(b'\\') => continue,
                _ => {
                    in_hunk = false;
                    '?'
                }
            };
            if in_hunk {
                hunk_line(file, op, text, (&mut old_line, &mut new_line));
                continue;
            }
        }
        if let Some(rest) = raw.strip_prefix("@@ ") {
            if let Some(header) = hunk_header(rest) {
                (old_line, new_line) = (header.old_start.max(1), header.new_start.max(1));
                in_hunk = true;
                if let Some(file) = files.last_mut() {
                    file.hunks.push(Hunk {
                        old_at: header.at(header.old_start, header.old_count),
                        new_at: header.at(header.new_start, header.new_count),
                        context: header.context,
                        lines: Vec::new(),
                    });
                }
            }
            continue;
        }
        let Some(file) = files.last_mut() else {
            // A diff without `diff --git` lines: each `---` starts a file.
            if let Some(path) = raw.strip_prefix("--- ") {
                files.push(FileDiff {
                    old: header_path(path, "a/"),
                    ..FileDiff::default()
                });
            }
            continue;
        };
        if raw.starts_with("new file mode") {
            file.old = None;
        } else if raw.starts_with("deleted file mode") {
            file.new = None;
        } else if let Some(path) = raw.strip_prefix("rename from ") {
            file.old = Some(unquote(path));
        } else if let Some(path) = raw.strip_prefix("rename to ") {
            file.new = Some(unquote(path));
        } else if let Some(path) = raw.strip_prefix("--- ") {
            if !file.lines.is_empty() || !file.hunks.is_empty() {
                files.push(FileDiff::default());
            }
            if let Some(file) = files.last_mut() {
                file.old = header_path(path, "a/");
            }
        } else if let Some(path) = raw.strip_prefix("+++ ") {
            file.new = header_path(path, "b/");
        }
    }
    files
}

/// Takes in one line of a hunk (`op` is `' '`, `'+'` or `'-'`), at the old and new line numbers
/// `at`, which it moves on.
fn hunk_line(file: &mut FileDiff, op: char, text: &str, at: (&mut u32, &mut u32)) {
    let (old_line, new_line) = at;
    match op {
        '+' => {
            file.lines.push(DiffLine {
                added: true,
                line: *new_line,
                text: text.to_owned(),
            });
            *new_line += 1;
        }
        '-' => {
            file.lines.push(DiffLine {
                added: false,
                line: *old_line,
                text: text.to_owned(),
            });
            *old_line += 1;
        }
        _ => {
            *old_line += 1;
            *new_line += 1;
        }
    }
    if let Some(hunk) = file.hunks.last_mut() {
        hunk.lines.push((op, text.to_owned()));
    }
}

/// The old text of `file`, given its new text: the new text with the diff's hunks undone. `None`
/// when the new text does not agree with the diff (the file changed since the diff was taken).
/// Lines are joined with `\n`; line ends are not kept.
pub(super) fn old_text(file: &FileDiff, new_text: &str) -> Option<String> {
    let new: Vec<&str> = new_text.lines().collect();
    let mut old: Vec<&str> = Vec::with_capacity(new.len());
    let mut next = 0;
    for hunk in &file.hunks {
        let skipped = new.get(next..hunk.new_at)?;
        old.extend_from_slice(skipped);
        next = hunk.new_at;
        if old.len() != hunk.old_at {
            return None;
        }
        for (op, text) in &hunk.lines {
            match op {
                '-' => old.push(text),
                _ => {
                    if new.get(next) != Some(&text.as_str()) {
                        return None;
                    }
                    if *op == ' ' {
                        old.push(text);
                    }
                    next += 1;
                }
            }
        }
    }
    old.extend_from_slice(new.get(next..)?);
    Some(old.join("\n"))
}

/// A hunk's header: `-12,3 +14,5 @@ context`.
struct HunkHeader {
    old_start: u32,
    old_count: u32,
    new_start: u32,
    new_count: u32,
    context: String,
}

impl HunkHeader {
    /// The 0-based index a side of the hunk starts at: a side with no line names the line before.
    fn at(&self, start: u32, count: u32) -> usize {
        let start = start as usize;
        if count == 0 {
            start
        } else {
            start.saturating_sub(1)
        }
    }
}

fn hunk_header(rest: &str) -> Option<HunkHeader> {
    let (ranges, context) = rest.split_once("@@").unwrap_or((rest, ""));
    let mut parts = ranges.split_whitespace();
    let range = |part: Option<&str>, sign: char| -> Option<(u32, u32)> {
        let part = part?.strip_prefix(sign)?;
        let (start, count) = part.split_once(',').unwrap_or((part, "1"));
        Some((start.parse().ok()?, count.parse().ok()?))
    };
    let (old_start, old_count) = range(parts.next(), '-')?;
    let (new_start, new_count) = range(parts.next(), '+')?;
    Some(HunkHeader {
        old_start,
        old_count,
        new_start,
        new_count,
        context: context.trim().to_owned(),
    })
}

/// The paths of `a/x b/y` (each possibly quoted); exact for the usual case of equal names, and the
/// `---`/`+++`/`rename` lines that follow correct the rest.
fn split_git_header(rest: &str) -> (Option<String>, Option<String>) {
    if let Some(inner) = rest.strip_prefix('"') {
        // `"a/x y" "b/x y"` or `"a/x" b/x`.
        if let Some(end) = inner.find("\" ").map(|i| i + 1) {
            let old = unquote(&rest[..=end]);
            let new = unquote(rest[end + 1..].trim());
            return (strip(&old, "a/"), strip(&new, "b/"));
        }
    }
    // Equal names: `a/<p> b/<p>`, the two halves the same length.
    let half = rest.len().saturating_sub(1) / 2;
    if rest.is_char_boundary(half) && rest.get(half..half + 3) == Some(" b/") {
        return (strip(&rest[..half], "a/"), strip(&rest[half + 1..], "b/"));
    }
    match rest.split_once(" b/") {
        Some((old, new)) => (strip(old, "a/"), Some(new.to_owned())),
        None => (None, None),
    }
}

fn strip(path: &str, prefix: &str) -> Option<String> {
    Some(path.strip_prefix(prefix).unwrap_or(path).to_owned())
}

/// The path of a `---`/`+++` line; `None` for `/dev/null`.
fn header_path(path: &str, prefix: &str) -> Option<String> {
    // A trailing tab and timestamp (non-git diffs) is not part of the name.
    let path = path.split('\t').next().unwrap_or(path);
    let path = unquote(path);
    if path == "/dev/null" {
        return None;
    }
    strip(&path, prefix)
}

/// Undoes git's C-style quoting of unusual paths (`"caf\303\251.py"`).
fn unquote(text: &str) -> String {
    let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return text.to_owned();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(b) = chars.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match chars.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(b'r') => bytes.push(b'\r'),
            Some(b'a') => bytes.push(0x07),
            Some(b'b') => bytes.push(0x08),
            Some(b'f') => bytes.push(0x0c),
            Some(b'v') => bytes.push(0x0b),
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            chars.next();
                        }
                        _ => break,
                    }
                }
                bytes.push(u8::try_from(value).unwrap_or(b'?'));
            }
            Some(other) => bytes.push(other),
            None => bytes.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_lines_are_numbered_across_hunks_and_odd_content() {
        let diff = "diff --git a/t.test.js b/t.test.js\nindex 1..2 100644\n--- a/t.test.js\n+++ b/t.test.js\n@@ -1,3 +1,3 @@\n a\n--- not a header\n+it.skip('x', f)\n c\n@@ -10 +10,2 @@\n-old\n\\ No newline at end of file\n+new\n+also\n";
        let files = parse_diff(diff);
        assert_eq!(files.len(), 1);
        let lines: Vec<(bool, u32, &str)> = files[0]
            .lines
            .iter()
            .map(|l| (l.added, l.line, l.text.as_str()))
            .collect();
        assert_eq!(
            lines,
            [
                (false, 2, "-- not a header"),
                (true, 2, "it.skip('x', f)"),
                (false, 10, "old"),
                (true, 10, "new"),
                (true, 11, "also"),
            ]
        );
    }

    #[test]
    fn quoted_paths_are_unquoted() {
        assert_eq!(unquote(r#""caf\303\251 x.py""#), "café x.py");
        assert_eq!(
            split_git_header(r#""a/t t.py" "b/t t.py""#),
            (Some("t t.py".to_owned()), Some("t t.py".to_owned()))
        );
        assert_eq!(
            split_git_header("a/src/x.js b/src/x.js"),
            (Some("src/x.js".to_owned()), Some("src/x.js".to_owned()))
        );
    }

    #[test]
    fn old_text_undoes_the_hunks_and_refuses_a_text_that_disagrees() {
        let diff = "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -6,2 +5,0 @@\n-f\n-g\n";
        let files = parse_diff(diff);
        let new = "a\nB\nc\nd\ne\n";
        assert_eq!(
            old_text(&files[0], new).as_deref(),
            Some("a\nb\nc\nd\ne\nf\ng")
        );
        assert_eq!(old_text(&files[0], "a\nX\nc\nd\ne\n"), None);
        assert_eq!(old_text(&files[0], ""), None);
    }
}
