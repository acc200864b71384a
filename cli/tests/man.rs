//! `verdict man` (issue 28, item 6): a roff page generated from the command line's definition,
//! naming every subcommand `--help` lists, that the system's man formatter renders without a
//! warning.

use crate::support::verdict;

use std::io::Write;
use std::process::{Command, Stdio};

/// The subcommands `verdict --help` lists under `Commands:` (without `help`).
fn subcommands() -> Vec<String> {
    let help = verdict(&["--help"], "");
    assert_eq!(help.code, 0, "verdict --help: {}", help.stderr);
    let names: Vec<String> = help
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        // A name is indented by two spaces; a wrapped description, further.
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    assert!(
        names.len() > 10 && names.iter().any(|name| name == "man"),
        "no commands in verdict --help:\n{}",
        help.stdout
    );
    names
}

/// The `.TH` line of `page`.
fn title_line(page: &str) -> &str {
    page.lines()
        .find(|line| line.starts_with(".TH "))
        .unwrap_or_else(|| panic!("no .TH line in the page:\n{page}"))
}

#[test]
fn man_prints_a_roff_page_naming_the_version_and_every_subcommand() {
    let version = verdict(&["--version"], "");
    let version = version
        .stdout
        .trim()
        .trim_start_matches("verdict ")
        .to_owned();
    let run = verdict(&["man"], "");
    assert_eq!(run.code, 0, "verdict man: {}", run.stderr);
    let page = run.stdout;
    let title = title_line(&page);
    assert!(
        title.starts_with(".TH verdict 1 ") && title.contains(&version),
        "{title} names neither verdict(1) nor {version}"
    );
    for name in subcommands() {
        assert!(
            page.contains(&format!("verdict\\-{name}(1)")),
            "the page does not name `verdict {name}`:\n{page}"
        );
        let sub = verdict(&["man", &name], "");
        assert_eq!(sub.code, 0, "verdict man {name}: {}", sub.stderr);
        let title = title_line(&sub.stdout);
        assert!(
            title.starts_with(&format!(".TH verdict-{name} 1 ")),
            "verdict man {name}: {title}"
        );
    }
}

#[test]
fn man_of_an_unknown_subcommand_is_an_error_naming_it() {
    let run = verdict(&["man", "nope"], "");
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains("no subcommand `nope` in `verdict`"),
        "{}",
        run.stderr
    );
}

/// The formatters tried in turn, each with the arguments that render a page from stdin to stdout
/// and report every warning on stderr.
const FORMATTERS: [(&str, &[&str]); 3] = [
    // `w` is groff's name for every warning (`-ww`); man-db's default is only `mac`.
    ("man", &["--warnings=w", "-l", "-"]),
    ("groff", &["-man", "-Tutf8", "-ww"]),
    ("mandoc", &["-T", "lint", "-W", "warning"]),
];

/// Renders `page` with the first formatter installed here; `None` when none is.
fn render(page: &str) -> Option<(String, std::process::Output)> {
    for (program, args) in FORMATTERS {
        let child = Command::new(program)
            .args(args)
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("MANWIDTH", "80")
            .env("LC_ALL", "C.UTF-8")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn();
        let Ok(mut child) = child else { continue };
        let mut stdin = child.stdin.take().expect("a piped stdin");
        stdin.write_all(page.as_bytes()).expect("write the page");
        drop(stdin);
        let output = child.wait_with_output().expect("the formatter finishes");
        return Some((program.to_owned(), output));
    }
    None
}

/// The roff requests clap_mangen writes; a formatter-less machine checks the page against them.
const REQUESTS: [&str; 12] = [
    ".ie", ".el", ".TH", ".SH", ".SS", ".TP", ".IP", ".RS", ".RE", ".br", ".PP", ".B",
];

/// A page with an undefined macro, which every formatter warns about.
const BROKEN_PAGE: &str = ".TH broken 1\n.SH NAME\n.XYZ undefined\n";

#[test]
fn man_pages_render_without_warnings() {
    // The formatter must warn about a broken page, or its silence below proves nothing.
    if let Some((program, output)) = render(BROKEN_PAGE) {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("XYZ"),
            "{program} does not warn about an undefined macro: {stderr}"
        );
    }
    check_renders(&[]);
    for name in subcommands() {
        check_renders(&[name.as_str()]);
    }
}

/// Renders `verdict man <command>` and asserts that no warning was printed.
fn check_renders(command: &[&str]) {
    let args: Vec<&str> = ["man"].iter().chain(command).copied().collect();
    let run = verdict(&args, "");
    assert_eq!(run.code, 0, "verdict {args:?}: {}", run.stderr);
    let Some((program, output)) = render(&run.stdout) else {
        // No man, groff or mandoc here: check only that every request is one clap_mangen writes.
        eprintln!("no man, groff or mandoc installed: checked the page's requests only");
        for line in run.stdout.lines().filter(|line| line.starts_with('.')) {
            let request = line.split_whitespace().next().unwrap_or(line);
            assert!(REQUESTS.contains(&request), "unknown request: {line}");
        }
        return;
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stderr.trim().is_empty(),
        "{program} rendered `verdict {args:?}` with warnings ({}):\n{stderr}",
        output.status
    );
    if program != "mandoc" && command.is_empty() {
        assert!(
            stdout.contains("verdict-run(1)") && stdout.contains("SUBCOMMANDS"),
            "{program} rendered no subcommands:\n{stdout}"
        );
    }
}
