//! Secret redaction: reports go to CI artefacts and digests to a third-party model, and logs carry
//! secrets (a failing test that prints its environment, a URL with a password, a token in a
//! request dump).
//!
//! [`redact`] replaces every secret it recognises with `[redacted:<kind>]`. It is applied where
//! text from a tool or an agent enters something verdict writes out — [`crate::Report::push`] and
//! [`crate::Report::redact`] for reports, the loop for an agent's last output — so every renderer,
//! the digest, the MCP server, the hook and the loop's state see only redacted text. It is
//! idempotent: a placeholder is never redacted again, so applying it twice costs little and
//! changes nothing.
//!
//! Two sorts of rule (`rules`), in the manner of gitleaks' rule set:
//! - shapes anchored on fixed prefixes or on their context (`ghp_`, `AKIA`, `sk_live_`,
//!   `AccountKey=`, `Authorization:`, `user:pass@`), never on entropy alone, so that hashes,
//!   UUIDs and base64 of ordinary data go through untouched;
//! - assignments (`assignment`): a name holding a secret word (`password`, `api_key`, `token`,
//!   …), an assignment operator, and a value that is neither a placeholder, nor code, nor
//!   too regular to be a secret (its Shannon entropy).
//!
//! It runs on every line a report keeps, so it is built for the common case of no secret at all:
//! one Aho-Corasick pass over the line looks for every rule's literals at once, and only the rules
//! whose literal occurs run their regex. A line without any of them is returned as is, without
//! allocating.

mod assignment;
mod rules;

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::{Captures, Regex};

use rules::RULES;

/// What every placeholder starts with.
const PLACEHOLDER: &str = "[redacted:";

/// The placeholder for a secret of `kind`.
fn placeholder(kind: &str) -> String {
    format!("{PLACEHOLDER}{kind}]")
}

/// One credential shape.
struct Rule {
    /// Named in the placeholder.
    kind: &'static str,
    /// Literals (matched ASCII case-insensitively) of which at least one occurs in any match.
    literals: &'static [&'static str],
    /// The shape. The capture group named `s` (or `quoted`), when present, is the part replaced;
    /// otherwise the whole match is.
    regex: Regex,
    /// A further test on a match, for shapes a regex alone would over-match.
    accept: fn(&Captures<'_>) -> bool,
}

/// All rules' literals in one automaton, and which rule each literal belongs to.
static PREFILTER: LazyLock<(AhoCorasick, Vec<usize>)> = LazyLock::new(|| {
    let mut literals = Vec::new();
    let mut owners = Vec::new();
    for (index, rule) in RULES.iter().enumerate() {
        for literal in rule.literals {
            literals.push(*literal);
            owners.push(index);
        }
    }
    let automaton = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&literals)
        .expect("redaction literals build an automaton");
    (automaton, owners)
});

/// `text` with every secret it holds replaced by `[redacted:<kind>]`; `text` itself (borrowed,
/// no allocation) when it holds none. Redacting a redacted text changes nothing.
pub fn redact(text: &str) -> Cow<'_, str> {
    let (automaton, owners) = &*PREFILTER;
    // Nearly every line holds none of the literals; a plain search says so fastest. Only then is
    // the slower overlapping search run, to learn which rules to try.
    if !automaton.is_match(text) {
        return Cow::Borrowed(text);
    }
    let mut candidates = vec![false; RULES.len()];
    let mut any = false;
    for found in automaton.find_overlapping_iter(text) {
        if let Some(&owner) = owners.get(found.pattern().as_usize()) {
            candidates[owner] = true;
            any = true;
        }
    }
    if !any {
        return Cow::Borrowed(text);
    }
    let mut current = Cow::Borrowed(text);
    for (rule, _) in RULES.iter().zip(&candidates).filter(|(_, c)| **c) {
        if let Some(replaced) = apply(rule, &current) {
            current = Cow::Owned(replaced);
        }
    }
    current
}

/// Redacts `text` in place, and says whether it changed.
pub fn redact_in_place(text: &mut String) -> bool {
    match redact(text) {
        Cow::Borrowed(_) => false,
        Cow::Owned(redacted) => {
            *text = redacted;
            true
        }
    }
}

/// `text` with `rule`'s matches replaced, or `None` when it has none.
fn apply(rule: &Rule, text: &str) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    let mut at = 0;
    let mut replaced = false;
    while at <= text.len() {
        let Some(captures) = rule.regex.captures_at(text, at) else {
            break;
        };
        let Some(whole) = captures.get(0) else {
            break;
        };
        let secret = captures
            .name("s")
            .or_else(|| captures.name("quoted"))
            .unwrap_or(whole);
        if !(rule.accept)(&captures) || secret.as_str().starts_with(PLACEHOLDER) {
            // A rejected candidate may hide one that starts inside it (`KeyError: api_key=…`):
            // search again from its secret part, which is always further on.
            at = if secret.start() > whole.start() {
                secret.start()
            } else {
                whole.end().max(whole.start() + 1)
            };
            continue;
        }
        at = whole.end().max(whole.start() + 1);
        if secret.start() < last {
            continue;
        }
        out.push_str(&text[last..secret.start()]);
        out.push_str(&placeholder(rule.kind));
        last = secret.end();
        replaced = true;
    }
    if !replaced {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

#[cfg(test)]
mod tests;
