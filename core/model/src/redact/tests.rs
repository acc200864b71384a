//! The rules on lines written for each shape; the corpus of `testdata/secrets/` is in
//! `tests/secrets.rs`.

use std::borrow::Cow;

use super::redact;

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
