//! The hook's answer within what every harness takes whole, whatever budget the project
//! configured: Claude Code keeps 10 000 characters of a hook's output in the agent's context,
//! Codex about 2 500 tokens (4 bytes a token, 10 000 bytes). verdict keeps every answer within
//! [`MAX_BYTES`] bytes (never fewer characters) and [`MAX_TOKENS`] tokens, and ends it with where
//! the full log is, so that what was left out can still be read.

use verdict_core::Verification;
use verdict_core::digest::{self, tokens};

/// The most bytes of an answer (Claude Code's 10 000 characters, Codex's 2 500 tokens of 4
/// bytes).
pub(super) const MAX_BYTES: usize = 10_000;

/// The most tokens of an answer (Codex's default limit on a hook's output).
pub(super) const MAX_TOKENS: usize = 2_500;

/// `prefix`, a blank line, and the digest of `verifications` within `budget` tokens, shrunk as
/// far as needed to stay within the caps above, and ending with the full log's path.
pub(super) fn answer(
    prefix: &str,
    verifications: &[Verification],
    budget: usize,
    root: &std::path::Path,
) -> String {
    let inputs: Vec<digest::Input<'_>> = verifications.iter().map(digest::Input::of).collect();
    let logs_line = logs_line(verifications);
    // What the prefix and the log line take, with room for the line breaks.
    let fixed = tokens::count(prefix) + logs_line.as_deref().map_or(0, tokens::count) + 4;
    let mut options =
        digest::Options::new(budget.min(MAX_TOKENS.saturating_sub(fixed)).max(1)).in_project(root);
    loop {
        let budget = options.budget;
        let digest = digest::render(&inputs, &options).text;
        let text = compose(prefix, &digest, logs_line.as_deref());
        if fits(&text) {
            return text;
        }
        if budget <= 50 {
            return cut(&text, logs_line.as_deref());
        }
        // The digest is about as many bytes per token as it is now; aim a tenth below the cap.
        let over = text.len() as f64 / (MAX_BYTES as f64 * 0.9);
        options.budget = ((budget as f64 / over) as usize)
            .min(budget * 3 / 4)
            .max(50);
    }
}

/// Whether `text` is within both caps.
pub(super) fn fits(text: &str) -> bool {
    text.len() <= MAX_BYTES && tokens::fits(text, MAX_TOKENS)
}

/// The prefix, the digest, and the log line when the digest's own last line does not name the
/// log (a small budget drops it from the digest's footer).
fn compose(prefix: &str, digest: &str, logs_line: Option<&str>) -> String {
    let mut text = format!("{prefix}\n\n{}", digest.trim_end());
    let last = text.lines().last().unwrap_or_default();
    if let Some(line) = logs_line
        && !last.contains("full log")
    {
        text.push('\n');
        text.push_str(line);
    }
    text
}

/// `text` cut at a line within the caps, the log line kept last: the last resort when even the
/// smallest digest is too long (a prefix of verdict's own that is).
fn cut(text: &str, logs_line: Option<&str>) -> String {
    let tail = logs_line.unwrap_or_default();
    let mut kept = String::new();
    for line in text.lines() {
        let candidate = format!("{kept}{line}\n");
        if !fits(&format!("{candidate}(cut)\n{tail}")) {
            break;
        }
        kept = candidate;
    }
    let out = format!("{kept}(cut)\n{tail}");
    if fits(&out) {
        out
    } else {
        tokens::clip(tail, MAX_TOKENS / 2).into_owned()
    }
}

/// `full log: <path>` of the one log of a verifier that did not pass, or `full logs in <dir>`
/// for several in one directory, or `full logs: <path>, …`; `None` when no log was written.
fn logs_line(verifications: &[Verification]) -> Option<String> {
    let mut logs: Vec<&str> = verifications
        .iter()
        .filter(|v| v.outcome() != verdict_core::Outcome::Passed)
        .filter_map(|v| v.log.as_deref())
        .collect();
    if logs.is_empty() {
        logs = verifications
            .iter()
            .filter_map(|v| v.log.as_deref())
            .collect();
    }
    match logs.as_slice() {
        [] => None,
        [one] => Some(format!("full log: {one}")),
        many => {
            let dir = |log: &str| {
                std::path::Path::new(log)
                    .parent()
                    .map(|d| d.display().to_string())
            };
            let first = dir(many[0]);
            if first.is_some() && many.iter().all(|log| dir(log) == first) {
                Some(format!(
                    "full logs in {}/",
                    first.unwrap_or_default().trim_end_matches('/')
                ))
            } else {
                Some(format!("full logs: {}", many.join(", ")))
            }
        }
    }
}
