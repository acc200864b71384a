//! The rules [`super::redact`] applies, in order: whole private-key blocks, then provider tokens
//! with fixed prefixes (the shapes gitleaks' rule set lists), then shapes found by their context
//! (`Authorization:`, `user:pass@`), then assignments of secret-looking values.

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::{Rule, assignment};

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

/// Twilio's key starts with an uppercase `SK`: the prefilter is case-insensitive, the regex is not,
/// and 32 hex digits after it must hold both a digit and a letter (not a run of one sort).
fn case_sensitive_prefix_sk(c: &Captures<'_>) -> bool {
    c.get(0).is_some_and(|m| {
        let hex = &m.as_str()[2..];
        hex.bytes().any(|b| b.is_ascii_digit()) && hex.bytes().any(|b| b.is_ascii_alphabetic())
    })
}

/// Hugging Face tokens are letters only: random ones mix both cases.
fn secret_group_mixed_case(c: &Captures<'_>) -> bool {
    c.name("s").is_some_and(|s| {
        let s = s.as_str();
        s.bytes().any(|b| b.is_ascii_uppercase()) && s.bytes().any(|b| b.is_ascii_lowercase())
    })
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
pub(super) static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
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
            &[
                "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_",
            ],
            r"\b[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}\b",
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
            "twilio-key",
            &["SK"],
            r"\bSK[0-9a-fA-F]{32}\b",
            case_sensitive_prefix_sk,
        ),
        rule(
            "sendgrid-key",
            &["SG."],
            r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
            always,
        ),
        rule(
            "pypi-token",
            &["pypi-AgEIcHlwaS5vcmc"],
            r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
            always,
        ),
        rule(
            "azure-storage-key",
            &["accountkey", "sharedaccesskey"],
            r#"(?i:\b(?:AccountKey|SharedAccessKey))\s*=\s*(?P<s>[A-Za-z0-9+/]{20,}={0,2})"#,
            always,
        ),
        rule(
            "azure-client-secret",
            &["Q~"],
            r"\b[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}",
            always,
        ),
        rule(
            "heroku-key",
            &["HRKU-"],
            r"\bHRKU-[A-Za-z0-9_-]{58,}",
            always,
        ),
        rule(
            "heroku-key",
            &["heroku"],
            r#"(?i:heroku)[A-Za-z0-9_.-]{0,20}["']?\s*[:=]\s*["']?(?P<s>[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})"#,
            always,
        ),
        rule(
            "shopify-token",
            &["shpat_", "shpca_", "shppa_", "shpss_"],
            r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
            always,
        ),
        rule(
            "digitalocean-token",
            &["dop_v1_", "doo_v1_", "dor_v1_"],
            r"\bdo[opr]_v1_[a-f0-9]{64}\b",
            always,
        ),
        rule(
            "huggingface-token",
            &["hf_", "api_org_"],
            r"\b(?:hf_|api_org_)(?P<s>[A-Za-z]{34})\b",
            secret_group_mixed_case,
        ),
        rule(
            "databricks-token",
            &["dapi"],
            r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b",
            always,
        ),
        rule(
            "vault-token",
            &["hvs.", "hvb."],
            r"\bhv[sb]\.[A-Za-z0-9_-]{90,}",
            always,
        ),
        rule(
            "postman-key",
            &["PMAK-"],
            r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b",
            always,
        ),
        rule(
            "linear-key",
            &["lin_api_"],
            r"\blin_api_[A-Za-z0-9]{40}\b",
            always,
        ),
        rule(
            "grafana-token",
            &["glsa_", "glc_"],
            r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})",
            always,
        ),
        rule(
            "doppler-token",
            &["dp.pt."],
            r"\bdp\.pt\.[A-Za-z0-9]{43}\b",
            always,
        ),
        rule(
            "square-token",
            &["sq0atp-", "sq0csp-"],
            r"\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,}",
            always,
        ),
        rule(
            "age-key",
            &["AGE-SECRET-KEY-1"],
            r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b",
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
        // Last: a name that says it holds a secret, assigned a value that looks like one. It
        // skips values an earlier rule already replaced.
        rule(
            "secret",
            assignment::KEYWORDS,
            assignment::PATTERN,
            assignment::accept,
        ),
    ]
});
