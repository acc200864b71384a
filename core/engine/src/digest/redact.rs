//! Secret redaction: the digest goes to a third-party model, and logs carry secrets (a failing test
//! that prints its environment, a URL with a password, a token in a request dump).
//!
//! Every line of a digest passes through [`redact`] before it is counted or shown. Known credential
//! shapes are replaced with `[redacted:<kind>]`. The shapes are anchored on fixed prefixes or on
//! their context (`aws_secret_access_key=`, `Authorization:`, `user:pass@`), never on entropy
//! alone, so that hashes, UUIDs and base64 of ordinary data go through untouched.
//!
//! It runs on every line shown, so it is built for the common case of no secret at all: one
//! Aho-Corasick pass over the line looks for every rule's literal prefixes at once, and only the
//! rules whose literal occurs run their regex. A line without any of them is returned as is,
//! without allocating.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex::{Captures, Regex};

/// The placeholder for a secret of `kind`.
fn placeholder(kind: &str) -> String {
    format!("[redacted:{kind}]")
}

/// One credential shape.
struct Rule {
    /// Named in the placeholder.
    kind: &'static str,
    /// Literals (matched ASCII case-insensitively) of which at least one occurs in any match.
    literals: &'static [&'static str],
    /// The shape. The capture group named `s`, when present, is the part replaced; otherwise the
    /// whole match is.
    regex: Regex,
    /// A further test on a match, for shapes a regex alone would over-match.
    accept: fn(&Captures<'_>) -> bool,
}

fn always(_: &Captures<'_>) -> bool {
    true
}

/// A random-looking token: at least one digit, one uppercase and one lowercase ASCII letter.
/// Real keys of 20+ random characters have all three with overwhelming probability; hyphenated
/// English (`sk-learn-compatible-…`) does not.
fn random_looking(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes().any(|b| b.is_ascii_uppercase())
        && s.bytes().any(|b| b.is_ascii_lowercase())
}

fn secret_group_random(c: &Captures<'_>) -> bool {
    c.name("s").is_some_and(|s| random_looking(s.as_str()))
}

/// An `Authorization:` value: with a scheme (`Bearer`, `Basic`, …) any credential; without one,
/// only something token-like (long, with a digit), so that prose such as `Authorization: header
/// missing` survives.
fn authorization_value(c: &Captures<'_>) -> bool {
    let Some(value) = c.name("s").map(|s| s.as_str()) else {
        return false;
    };
    if value.starts_with("[redacted:") {
        return false;
    }
    c.name("scheme").is_some() || value.len() >= 8 && value.bytes().any(|b| b.is_ascii_digit())
}

fn bearer_value(c: &Captures<'_>) -> bool {
    c.name("s").is_some_and(|s| {
        let s = s.as_str();
        s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

fn not_already_redacted(c: &Captures<'_>) -> bool {
    c.name("s")
        .is_some_and(|s| !s.as_str().starts_with("[redacted:"))
}

fn rule(
    kind: &'static str,
    literals: &'static [&'static str],
    pattern: &str,
    accept: fn(&Captures<'_>) -> bool,
) -> Rule {
    Rule {
        kind,
        literals,
        regex: Regex::new(pattern).expect("redaction patterns are valid"),
        accept,
    }
}

/// The rules, in the order they apply: whole blocks first, then shapes with fixed prefixes, then
/// context-based shapes (which skip values an earlier rule already replaced).
static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            "private-key",
            &["PRIVATE KEY"],
            // A whole block on one line, or its start up to the end of the line (a fragment)...
            r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\z)",
            always,
        ),
        rule(
            "private-key",
            &["PRIVATE KEY"],
            // ... or the end of a block with the base64 body before it on the same line.
            r"(?:[A-Za-z0-9+/=]{8,}\s*)*-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----",
            always,
        ),
        rule(
            "aws-access-key",
            &["AKIA", "ASIA", "ABIA", "ACCA"],
            r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
            always,
        ),
        rule(
            "aws-secret-key",
            &["secret_access_key", "secretaccesskey", "secret-access-key"],
            r#"(?i:secret[_-]?access[_-]?key)["']?\s*[:=]\s*["']?(?P<s>[A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|\z)"#,
            always,
        ),
        rule(
            "github-token",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})\b",
            always,
        ),
        rule(
            "gitlab-token",
            &["glpat-"],
            r"\bglpat-[A-Za-z0-9_-]{20,}",
            always,
        ),
        rule(
            "slack-webhook",
            &["hooks.slack.com"],
            r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]+",
            always,
        ),
        rule(
            "slack-token",
            &["xox", "xapp-"],
            r"\b(?:xox[abprse]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})",
            always,
        ),
        rule(
            "anthropic-key",
            &["sk-ant-"],
            r"\bsk-ant-[A-Za-z0-9_-]{20,}",
            always,
        ),
        rule(
            "openai-key",
            &["sk-"],
            r"\bsk-(?:proj-|svcacct-|admin-)?(?P<s>[A-Za-z0-9_-]{20,})",
            secret_group_random,
        ),
        rule(
            "stripe-key",
            &["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
            r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{10,}\b",
            always,
        ),
        rule(
            "google-api-key",
            &["AIza"],
            r"\bAIza[0-9A-Za-z_-]{35}",
            always,
        ),
        rule("npm-token", &["npm_"], r"\bnpm_[A-Za-z0-9]{36}\b", always),
        rule(
            "jwt",
            &["eyJ"],
            r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
            always,
        ),
        rule(
            "authorization",
            &["authorization"],
            r#"(?i:\b(?:proxy-)?authorization)["']?\s*[:=]\s*["']?(?:(?P<scheme>(?i:bearer|basic|token|digest|negotiate|ntlm|aws4-hmac-sha256))\s+)?(?P<s>[^\s"',;]+)"#,
            authorization_value,
        ),
        rule(
            "authorization",
            &["bearer"],
            r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9._~+/-]{20,}=*)",
            bearer_value,
        ),
        rule(
            "password",
            &["://"],
            r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/:@]+:(?P<s>[^\s/@]+)@",
            not_already_redacted,
        ),
    ]
});

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
/// no allocation) when it holds none.
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

/// `text` with `rule`'s matches replaced, or `None` when it has none.
fn apply(rule: &Rule, text: &str) -> Option<String> {
    let mut out = String::new();
    let mut last = 0;
    for captures in rule.regex.captures_iter(text) {
        if !(rule.accept)(&captures) {
            continue;
        }
        let Some(secret) = captures.name("s").or_else(|| captures.get(0)) else {
            continue;
        };
        if secret.start() < last {
            continue;
        }
        out.push_str(&text[last..secret.start()]);
        out.push_str(&placeholder(rule.kind));
        last = secret.end();
    }
    if last == 0 && out.is_empty() {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that `text` becomes `expected` (and that the original secret is gone).
    #[track_caller]
    fn check(text: &str, expected: &str) {
        assert_eq!(redact(text), expected, "redacting {text:?}");
    }

    /// Asserts that `text` goes through untouched.
    #[track_caller]
    fn untouched(text: &str) {
        let out = redact(text);
        assert!(
            matches!(out, Cow::Borrowed(_)) || out == text,
            "{text:?} became {out:?}"
        );
        assert_eq!(out, text);
    }

    #[test]
    fn aws() {
        check(
            "key AKIAIOSFODNN7EXAMPLE in env",
            "key [redacted:aws-access-key] in env",
        );
        check("ASIAY34FZKBOKMUTVV7A,", "[redacted:aws-access-key],");
        check(
            "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key=[redacted:aws-secret-key]",
        );
        check(
            r#"AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY""#,
            r#"AWS_SECRET_ACCESS_KEY: "[redacted:aws-secret-key]""#,
        );
        untouched("Travel to ASIA and AKIAN are not keys");
        untouched("AKIA is a prefix; AKIAshort is too short");
        untouched("aws_secret_access_key is not set");
        untouched("aws_secret_access_key=tooShort");
        // A 40-character hex digest without the context is a hash, not a key.
        untouched("commit 0123456789abcdef0123456789abcdef01234567 failed");
    }

    #[test]
    fn github_and_gitlab() {
        let ghp = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        check(&format!("token={ghp}"), "token=[redacted:github-token]");
        for prefix in ["gho_", "ghu_", "ghs_", "ghr_"] {
            check(
                &format!("{prefix}0123456789abcdefghijABCDEFGHIJ012345"),
                "[redacted:github-token]",
            );
        }
        check(
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRS",
            "[redacted:github-token]",
        );
        check(
            "remote: glpat-xxxxxxxxxxxxxxxxxxxx1 denied",
            "remote: [redacted:gitlab-token] denied",
        );
        untouched("the ghp_ prefix marks a personal access token");
        untouched("src/ghp_utils.rs:3:1 unused import");
        untouched("glpat-short");
    }

    #[test]
    fn slack() {
        check(
            "posting with xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "posting with [redacted:slack-token]",
        );
        check(
            "POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX failed",
            "POST [redacted:slack-webhook] failed",
        );
        untouched("xox is a word in some games; xoxo");
        untouched("see https://slack.com/help for details");
    }

    #[test]
    fn openai_and_anthropic() {
        check(
            "OPENAI_API_KEY=sk-proj-AbCdEf0123456789GhIjKlMnOpQrStUv",
            "OPENAI_API_KEY=sk-proj-[redacted:openai-key]",
        );
        check(
            "Incorrect API key provided: sk-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGh.",
            "Incorrect API key provided: sk-[redacted:openai-key].",
        );
        check(
            "x-api-key: sk-ant-api03-AbCdEf0123456789_GhIjKlMnOpQrStUv-wxyz",
            "x-api-key: [redacted:anthropic-key]",
        );
        untouched("we use sk-learn for this; also task-based and desk-top");
        untouched("sk-this-is-a-long-hyphenated-phrase-with-no-digits");
        untouched("import sklearn; sk-learn-compat-version-2024-rc1");
    }

    #[test]
    fn stripe_google_npm() {
        check(
            "Stripe: sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "Stripe: [redacted:stripe-key]",
        );
        check("rk_live_0123456789abcdef", "[redacted:stripe-key]");
        check("sk_test_4eC39HqLyjWDarjtT1zdp7dc", "[redacted:stripe-key]");
        check(
            "key=AIzaSyA-0123456789abcdefghijklmnopqrstu&x=1",
            "key=[redacted:google-api-key]&x=1",
        );
        check(
            "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "//registry.npmjs.org/:_authToken=[redacted:npm-token]",
        );
        untouched("sk_live_ is the prefix of live keys");
        untouched("AIzawhatever is short");
        untouched("npm_config_cache and npm_package_version are env vars");
    }

    #[test]
    fn jwt() {
        check(
            "token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
            "token [redacted:jwt] ok",
        );
        // base64 of a JSON object alone is not a token.
        untouched("payload eyJhIjoxfQ== decoded");
        untouched("eyJhbGciOiJIUzI1NiJ9.notjwt");
    }

    #[test]
    fn private_keys() {
        check(
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY----- tail",
            "[redacted:private-key] tail",
        );
        check(
            "key: -----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA",
            "key: [redacted:private-key]",
        );
        check(
            "MIIEowIBAAKCAQEAx4 bAsE64BodyMore== -----END PRIVATE KEY-----",
            "[redacted:private-key]",
        );
        untouched("-----BEGIN PUBLIC KEY-----");
        untouched("missing PRIVATE KEY file at ./keys/id_rsa");
    }

    #[test]
    fn authorization() {
        check(
            r#"curl -H "Authorization: Bearer abc.def-123" https://api.example.com"#,
            r#"curl -H "Authorization: Bearer [redacted:authorization]" https://api.example.com"#,
        );
        check(
            "authorization: Basic dXNlcjpwYXNzd29yZA==",
            "authorization: Basic [redacted:authorization]",
        );
        check(
            r#"{"Authorization":"token 0123456789abcdef"}"#,
            r#"{"Authorization":"token [redacted:authorization]"}"#,
        );
        check(
            "Proxy-Authorization: 0a1b2c3d4e5f6a7b",
            "Proxy-Authorization: [redacted:authorization]",
        );
        check(
            "sent Bearer AbCdEf0123456789ghijklmnop",
            "sent Bearer [redacted:authorization]",
        );
        // A JWT in a header is redacted once, as a JWT.
        check(
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln",
            "Authorization: Bearer [redacted:jwt]",
        );
        untouched("Authorization: header missing");
        untouched("expected authorization to be granted");
        untouched("uses Bearer tokens for authentication");
    }

    #[test]
    fn url_passwords() {
        check(
            "connect postgres://admin:hunter2@db.example.com:5432/app failed",
            "connect postgres://admin:[redacted:password]@db.example.com:5432/app failed",
        );
        check(
            "https://user:p%40ss@example.com/repo.git",
            "https://user:[redacted:password]@example.com/repo.git",
        );
        untouched("http://localhost:3000/api/users");
        untouched("git@github.com:org/repo.git");
        untouched("ssh://git@example.com/repo");
        untouched("see https://example.com/a:b@c for details");
    }

    #[test]
    fn ordinary_text_goes_through() {
        untouched("");
        untouched("src/app.ts:10:5 TS2345 Argument of type 'string' is not assignable");
        untouched("550e8400-e29b-41d4-a716-446655440000");
        untouched("sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        untouched("/home/runner/work/app/node_modules/.pnpm/skeleton@1.0.0/index.js");
        untouched("SGVsbG8sIFdvcmxkISBUaGlzIGlzIG5vdCBhIHNlY3JldC4=");
        untouched("expect(received).toBe(expected) // Object.is equality");
    }

    #[test]
    fn several_secrets_in_one_line() {
        check(
            "AKIAIOSFODNN7EXAMPLE and ghp_0123456789abcdefghijABCDEFGHIJ012345 and https://u:pw@h",
            "[redacted:aws-access-key] and [redacted:github-token] and https://u:[redacted:password]@h",
        );
    }
}
