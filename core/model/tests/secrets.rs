//! The secret corpus of `testdata/secrets/`: every positive line must lose its secret, every
//! negative line must come out unchanged, and redacting twice must change nothing. Each test
//! prints its figures (lines, true and false positives), which docs/outputs.md and
//! BENCHMARKS.md quote.

use std::path::PathBuf;

use verdict_model::redact::redact;

/// The lines of a corpus file, without its `#` comments.
fn corpus(name: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/secrets")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_positive_line_loses_its_secret() {
    let lines = corpus("positive.txt");
    let mut missed = Vec::new();
    for line in &lines {
        let (secret, text) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("a positive line is `secret<TAB>line`: {line:?}"));
        let redacted = redact(text);
        if redacted.contains(secret) || !redacted.contains("[redacted:") {
            missed.push(format!("{text}\n  became {redacted}"));
        }
        assert_eq!(
            redact(&redacted),
            redacted,
            "redacting twice changed {text:?}"
        );
    }
    let caught = lines.len() - missed.len();
    println!(
        "positive corpus: {} lines, {caught} true positives, {} missed",
        lines.len(),
        missed.len()
    );
    assert!(missed.is_empty(), "secrets left in:\n{}", missed.join("\n"));
}

#[test]
fn every_negative_line_goes_through_unchanged() {
    let lines = corpus("negative.txt");
    let mut mangled = Vec::new();
    for line in &lines {
        let redacted = redact(line);
        if redacted != line.as_str() {
            mangled.push(format!("{line}\n  became {redacted}"));
        }
    }
    println!(
        "negative corpus: {} lines, {} false positives",
        lines.len(),
        mangled.len()
    );
    assert!(mangled.is_empty(), "lines mangled:\n{}", mangled.join("\n"));
}
