//! Classifying a line: pure functions that tell what a line of pytest's output is (a rule, the
//! closing counts, a traceback entry, an exception, a short-summary entry…) and take its parts.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// `::`, the separator of node ids, searched with a prebuilt finder on every plain line.
pub(super) static DOUBLE_COLON: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new("::"));

/// pytest's `==== FAILURES ====` and `==== ERRORS ====` rules, and the `____ ERROR collecting
/// tests/test_a.py ____` rule that heads a collection error.
pub(super) fn is_report_banner(line: &str) -> bool {
    let line = line.trim_end();
    let banner = |rule: char, title: &str| {
        line.strip_prefix(rule)
            .and_then(|rest| rest.trim_start_matches(rule).strip_prefix(' '))
            .and_then(|rest| rest.strip_suffix(rule))
            .map(|rest| rest.trim_end_matches(rule).trim_end())
            .is_some_and(|inner| title_matches(inner, title))
    };
    fn title_matches(inner: &str, title: &str) -> bool {
        match title.strip_suffix(' ') {
            Some(prefix) => inner.starts_with(title) && inner.len() > prefix.len() + 1,
            None => inner == title,
        }
    }
    (line.starts_with("===") && (banner('=', "FAILURES") || banner('=', "ERRORS")))
        || (line.starts_with("___") && banner('_', "ERROR collecting "))
}

/// `2 failed, 5 passed, 1 skipped in 0.12s`, with or without its `=` rule, or `no tests ran in
/// 0.01s`: the counts part. pytest before 5.0 wrote the time as `in 0.12 seconds`.
pub(super) fn final_counts(line: &str) -> Option<&str> {
    static FINAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^=* ?((?:(?:\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|(?:pytest-)?warnings?|deselected|rerun|subtests passed|subtests failed)|(?:\d+/)?\d+ tests? collected(?: \(\d+ deselected\))?)(?:, )?)+|no tests (?:ran|collected(?: \(\d+ deselected\))?))(?: in [\d.]+ ?s(?:econds)?(?: \([\d:.]+\))?)? ?=*$",
        )
        .expect("valid regex")
    });
    // Bytes that were not UTF-8 (U+FFFD once read) carry no text: what comes before them is the
    // line pytest wrote.
    let line = match line.find('\u{FFFD}') {
        Some(at) => line[..at].trim_end(),
        None => line.trim_end(),
    };
    let trimmed = line.trim_matches(|c| c == '=' || c == ' ');
    let first = trimmed.as_bytes().first()?;
    if !(first.is_ascii_digit() || trimmed.starts_with("no tests ")) {
        return None;
    }
    let captures = FINAL.captures(line)?;
    captures.get(1).map(|m| m.as_str())
}

/// `004     >>> double(2)`, a numbered source line of a doctest report showing an example:
/// `>>> double(2)`.
pub(super) fn doctest_example(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    if digits < 3 {
        return None;
    }
    let rest = line[digits..].strip_prefix(' ')?.trim();
    rest.starts_with(">>> ").then_some(rest)
}

/// `worker 'gw0' crashed while running 'test_c.py::test_crash'`, pytest-xdist's report of a
/// worker that died in a test (`os._exit`, a segfault): the node id of that test.
pub(crate) fn xdist_crash(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("worker '")?;
    let (_, rest) = rest.split_once("' crashed while running '")?;
    rest.strip_suffix('\'').filter(|id| !id.is_empty())
}

/// `[gw0] linux -- Python 3.11.7 /path/bin/python`: the line pytest-xdist opens each failure's
/// report with, naming the worker and its interpreter — nothing about the failure.
pub(super) fn is_xdist_worker_line(line: &str) -> bool {
    line.starts_with("[gw") && line.contains("] ") && line.contains(" -- Python ")
}

/// `File "path", line 12, in f` (a native traceback frame): the path and line.
pub(super) fn python_frame(text: &str) -> Option<(&str, u32)> {
    let rest = text.strip_prefix("File \"")?;
    let (file, rest) = rest.split_once("\", line ")?;
    let digits = &rest[..rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len())];
    Some((file, digits.parse().ok()?))
}

/// `path.py:12: rest` (a traceback entry in pytest's own styles, or a `--tb=line` failure): the
/// path, the line and the rest.
pub(super) fn traceback_entry(line: &str) -> Option<(&str, u32, &str)> {
    let first = *line.as_bytes().first()?;
    if first == b' ' || first == b'\t' {
        return None;
    }
    // `memchr` on the colon is much cheaper than a substring search for `.py:`.
    let at = memchr::memchr_iter(b':', line.as_bytes()).find(|&i| line[..i].ends_with(".py"))?;
    let (file, rest) = line.split_at(at);
    let rest = rest.strip_prefix(':')?;
    let end = rest.find(':')?;
    let n: u32 = rest[..end].parse().ok()?;
    if file.contains(' ') && !file.starts_with('/') {
        return None;
    }
    Some((file, n, rest[end + 1..].trim()))
}

/// A file in the project, relative to the rootdir; `None` for the standard library, installed
/// packages and pytest itself, whose frames say nothing about where the code fails.
pub(super) fn project_path(file: &str, rootdir: Option<&str>) -> Option<String> {
    let file = &*forward_slashes(file);
    let file = match rootdir.and_then(|root| file.strip_prefix(root)) {
        Some(relative) => relative.trim_start_matches('/'),
        None => file,
    };
    if rootdir.is_none()
        && file.starts_with('/')
        && !file.contains("/lib/python")
        && !file.contains("-packages/")
    {
        // Without a `rootdir:` line (`-q`) an absolute path may be the project's; it is made
        // relative once a node id names the file it ends with.
        return Some(file.to_owned());
    }
    if file.starts_with('/')
        || is_drive_path(file)
        || file.starts_with('~')
        || file.starts_with('<')
        || file.starts_with("..")
        || file.contains("site-packages/")
        || file.contains("dist-packages/")
        || file.is_empty()
    {
        return None;
    }
    Some(file.strip_prefix("./").unwrap_or(file).to_owned())
}

/// A Windows path with `/` for `\`: pytest's node ids use `/` everywhere, its tracebacks the
/// platform's separator, and a failure is named by both.
pub(super) fn forward_slashes(path: &str) -> Cow<'_, str> {
    if path.contains('\\') {
        Cow::Owned(path.replace('\\', "/"))
    } else {
        Cow::Borrowed(path)
    }
}

/// The results `-v` prints after a test's node id, each with the space before it.
pub(super) const RESULTS: [&str; 6] = [
    " PASSED", " FAILED", " ERROR", " SKIPPED", " XFAIL", " XPASS",
];

/// Whether `text` starts with the result `-v` prints after a test's node id.
pub(super) fn is_result(text: &str) -> bool {
    ["PASSED", "FAILED", "ERROR", "SKIPPED", "XFAIL", "XPASS"]
        .iter()
        .any(|word| text.starts_with(word))
}

/// `C:/Users/…`: an absolute Windows path (with its separators already turned to `/`).
fn is_drive_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() > 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/'
}

/// Whether `path` (relative, or absolute when the rootdir is unknown) is the relative `file`.
pub(super) fn same_file(path: &str, file: &str) -> bool {
    path == file
        || (path.starts_with('/')
            && path.ends_with(file)
            && path[..path.len() - file.len()].ends_with('/'))
}

/// The rootdir, from an absolute path in `line` that ends with the relative `file` (`-q` prints no
/// `rootdir:` line, but a file that fails to import is named both ways).
pub(super) fn rootdir_from(line: &str, file: &str) -> Option<String> {
    if file.is_empty() {
        return None;
    }
    let end = line.find(&format!("/{file}"))?;
    let start = line[..end].rfind(['\'', '"', ' ']).map_or(0, |i| i + 1);
    let root = &line[start..end];
    root.starts_with('/').then(|| format!("{root}/"))
}

/// `ValueError: …`, `json.decoder.JSONDecodeError: …`, `AssertionError`: the line that names the
/// exception raised.
pub(super) fn is_exception_line(line: &str) -> bool {
    // The name is what comes before the first `: `, made of a dotted name's characters only: it
    // ends at the first other byte, which must start that `: ` (or end the line).
    let bytes = line.as_bytes();
    let end = bytes
        .iter()
        .take(81)
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
        .unwrap_or(bytes.len().min(81));
    if end == 0
        || end > 80
        || !bytes[0].is_ascii_alphabetic()
        || !(end == bytes.len() || line[end..].starts_with(": "))
    {
        return false;
    }
    let name = &line[..end];
    let last = name.rsplit('.').next().unwrap_or(name);
    last.ends_with("Error")
        || last.ends_with("Exception")
        || last.ends_with("Exit")
        || last.ends_with("Interrupt")
        || last == "Failed"
        || last == "StopIteration"
        || last.ends_with("Warning")
}

/// Whether a failure's message shows code that does not load.
pub(super) fn is_load_error(message: &str) -> bool {
    message.starts_with("ModuleNotFoundError")
        || message.starts_with("ImportError")
        || message.starts_with("SyntaxError")
        || message.starts_with("IndentationError")
        || message.starts_with("TabError")
}

/// Whether a short-summary entry's message is the message of a `--tb=line` failure. pytest 6 and
/// 7 cut the entry to the terminal's width and end it with `...` (`ZeroDivisionError: division
/// ...` for `ZeroDivisionError: division by zero`): what is left of it must begin the line's.
pub(super) fn same_line_message(entry: &str, line: &str) -> bool {
    match entry.strip_suffix("...") {
        Some(stem) if !stem.trim().is_empty() && line.len() > stem.len() => line.starts_with(stem),
        _ => entry.chars().take(30).eq(line.chars().take(30)),
    }
}

/// `SUBFAILED(i=1) tests/a.py::K::test_m - AssertionError: …`, pytest 9's short-summary entry of
/// a failing subtest (`unittest`'s `subTest`, the `subtests` fixture): what follows the label.
pub(super) fn subtest_failed(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("SUBFAILED")?;
    let rest = match rest.strip_prefix('(') {
        // The label is the subtest's parameters or message; it ends at the first `) `, as a
        // parametrized node id after it may hold one too.
        Some(label) => &label[label.find(") ")? + 2..],
        None => rest.strip_prefix(' ')?,
    };
    (!rest.is_empty()).then_some(rest)
}

/// `K.test_m (i=1)` or `K.test_m [message] (i=1)`, the title of a failing subtest's block: the
/// test's own short name, `K.test_m`.
pub(super) fn subtest_of(title: &str) -> Option<&str> {
    let name = title.strip_suffix(')')?;
    let name = &name[..name.rfind(" (")?];
    let name = match name.rfind(" [") {
        Some(at) if name.ends_with(']') => &name[..at],
        _ => name,
    };
    (!name.is_empty() && !name.contains(' ')).then_some(name)
}

/// `    ===== test session starts =====`, or the prompt before a quoted run (`    $ pytest -q`,
/// `-q` prints no rule): the width of the indentation before it.
pub(super) fn indented_session_start(line: &str) -> Option<usize> {
    let text = line.trim_start_matches(' ');
    let width = line.len() - text.len();
    let rule = text.starts_with("==") && text.contains(" test session starts ");
    let prompt = text.starts_with("$ ") && (text.contains("pytest") || text.contains("py.test"));
    (width > 0 && (rule || prompt)).then_some(width)
}
