//! Assignment-style secrets: `DATABASE_PASSWORD=hunter2`, `API_KEY="…"`, `"private_key_id": "…"`,
//! `aws_session_token=…`, the shape of gitleaks' `generic-api-key` rule.
//!
//! A match is a name, an assignment operator (`=`, `:`, `:=`, `=>`) and a value. The regex finds
//! every candidate; [`accept`] decides, as gitleaks does, from the name's words, the value's
//! entropy and allow-lists of what is not a secret:
//! - the name must have a secret word: a password word (`password`, `passwd`, `pwd`, `pass`,
//!   `passphrase`, `secret`) or a key word (`key`, `api`, `token`, `auth`, `access`, `client`,
//!   `credential(s)`, `creds`, `private`), and no word that says the value is something else
//!   (`hash`, `sha256`, `commit`, `file`, `path`, `url`, `name`, `type`, `error`, …);
//! - the value must not be a placeholder (`${API_KEY}`, `<token>`, `changeme`, `xxx`, `********`,
//!   `None`, `true`), code (`lexer.next()`, `config.password`, `os.environ[…]`) or a path;
//! - a password word's value needs 6 characters, and unquoted, a digit or a symbol or some
//!   entropy; a key word's value needs 10 characters of a token's alphabet, gitleaks' minimum
//!   entropy (3.5 bits per character), and a digit or both cases of letters. A UUID is a key
//!   only under a name that says token, secret or password (an `idempotency_key` is not one).

use regex::Captures;

/// The literals that make a line a candidate: each secret word, or the start of one.
pub(super) const KEYWORDS: &[&str] = &[
    "key", "api", "token", "secret", "client", "pass", "pwd", "auth", "access", "cred", "private",
];

/// A name that holds a secret word, an optional closing quote, an operator, an optional opening
/// quote, and the value: up to its closing quote (`quoted`), or else (`s`) up to whitespace, a
/// quote, a separator or a bracket, with the character after it (`end`), so that `lexer.next()`
/// and `os.environ["X"]` end at a bracket, which [`accept`] reads as code.
pub(super) const PATTERN: &str = concat!(
    r#"(?P<key>[A-Za-z0-9_.-]*(?i:key|api|token|secret|client|pass|pwd|auth|access|cred|private)[A-Za-z0-9_.-]*)"#,
    r#"["'`]?[ \t]*(?P<op>=>|:=|=|:)[ \t]*"#,
    r#"(?:["'`](?P<quoted>[^\s"'`]+)["'`]|(?P<s>[^\s"'`,;()\[\]{}<>&=:|]+=*)(?P<end>.?))"#,
);

/// Words of a name that make its value a password: anything typed by a person.
const PASSWORD_WORDS: &[&str] = &["password", "passwd", "pwd", "pass", "passphrase", "secret"];

/// Words of a name that make its value a key: a random token.
const KEY_WORDS: &[&str] = &[
    "key",
    "api",
    "apikey",
    "token",
    "auth",
    "access",
    "client",
    "credential",
    "credentials",
    "cred",
    "creds",
    "private",
];

/// Words of a name that say its value is not a secret, whatever else the name says.
const OTHER_WORDS: &[&str] = &[
    "hash",
    "sha",
    "sha1",
    "sha256",
    "sha512",
    "md5",
    "checksum",
    "digest",
    "integrity",
    "commit",
    "rev",
    "revision",
    "etag",
    "fingerprint",
    "file",
    "filename",
    "path",
    "dir",
    "url",
    "uri",
    "host",
    "hostname",
    "port",
    "name",
    "type",
    "kind",
    "version",
    "format",
    "length",
    "len",
    "size",
    "count",
    "mode",
    "prefix",
    "policy",
    "error",
    "exception",
    "warning",
    "author",
    "authored",
    "expires",
    "expiry",
    "timeout",
    "ttl",
    "enabled",
    "required",
    "field",
    "header",
    "cache",
    "label",
];

/// Words of a name under which a UUID is a secret.
const UUID_SECRET_WORDS: &[&str] = &["token", "secret", "password", "passwd", "pwd", "apikey"];

/// Values that stand for a secret without being one.
const PLACEHOLDERS: &[&str] = &[
    "none",
    "null",
    "nil",
    "true",
    "false",
    "undefined",
    "yes",
    "no",
    "on",
    "off",
    "string",
    "str",
    "bytes",
    "int",
    "number",
    "bool",
    "boolean",
    "any",
    "object",
    "optional",
    "required",
    "default",
    "empty",
    "secret",
    "password",
    "passwd",
    "token",
    "key",
    "value",
    "changeme",
    "change_me",
    "changeit",
    "example",
    "placeholder",
    "redacted",
    "hidden",
    "masked",
    "dummy",
    "fake",
    "test",
    "testing",
    "sample",
];

/// Parts of a value that make it a placeholder wherever they occur.
const PLACEHOLDER_PARTS: &[&str] = &[
    "xxx",
    "***",
    "...",
    "changeme",
    "change_me",
    "example",
    "placeholder",
    "your_",
    "your-",
    "redacted",
];

/// Whether a candidate of [`PATTERN`] is a secret.
pub(super) fn accept(c: &Captures<'_>) -> bool {
    let Some(key) = c.name("key") else {
        return false;
    };
    let (value, quoted) = match (c.name("quoted"), c.name("s")) {
        (Some(value), _) => (value, true),
        (None, Some(value)) => (value, false),
        (None, None) => return false,
    };
    let end = c.name("end").map_or("", |e| e.as_str());
    // A value cut by an opening bracket is a call or an index, and one cut by a colon a path
    // (`Argon2::default()`): code, not a literal.
    if matches!(end, "(" | "[" | "{" | "<" | ":") {
        return false;
    }
    let value = value.as_str();
    let words = words(key.as_str());
    let other = |w: &String| OTHER_WORDS.contains(&w.as_str()) || w.starts_with("hash");
    if key.as_str().len() > 64 || words.iter().any(other) {
        return false;
    }
    let password = words.iter().any(|w| {
        PASSWORD_WORDS.contains(&w.as_str()) || w.contains("password") || w.ends_with("secret")
    });
    let keyish = words.iter().any(|w| {
        KEY_WORDS.contains(&w.as_str())
            || w.ends_with("key")
            || w.ends_with("token")
            || w.ends_with("apikey")
    });
    if !password && !keyish || placeholder(value) || code(value) {
        return false;
    }
    if uuid(value) {
        return words
            .iter()
            .any(|w| UUID_SECRET_WORDS.iter().any(|s| w.contains(s)));
    }
    if password {
        password_value(value, quoted)
    } else {
        key_value(value)
    }
}

/// A password: typed by a person, so short and plain ones count, but not a word alone unquoted
/// (`password: string` is a type).
fn password_value(value: &str, quoted: bool) -> bool {
    if value.len() < 6 {
        return false;
    }
    let symbol = value
        .bytes()
        .any(|b| b.is_ascii_digit() || !b.is_ascii_alphanumeric());
    quoted || symbol || value.len() >= 8 && entropy(value) >= 3.0
}

/// A key: a random token of 10 characters or more of a token's alphabet, at least as irregular
/// as gitleaks asks, and with a digit or both cases of letters (an identifier has neither).
fn key_value(value: &str) -> bool {
    if value.len() < 10
        || !value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.=+/~".contains(&b))
        || value.bytes().all(|b| b.is_ascii_digit())
    {
        return false;
    }
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let mixed = value.bytes().any(|b| b.is_ascii_uppercase())
        && value.bytes().any(|b| b.is_ascii_lowercase());
    entropy(value) >= 3.5 && (digit || mixed)
}

/// A value that stands for a secret: a word such as `changeme`, a variable (`${API_KEY}`,
/// `$TOKEN`, `%(password)s`), a mask (`********`), a redaction already made.
fn placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let trimmed = lower.trim_end_matches('=');
    PLACEHOLDERS.contains(&trimmed)
        || PLACEHOLDER_PARTS.iter().any(|p| lower.contains(p))
        || value.starts_with(['$', '%', '@', '#'])
        || value.bytes().all(|b| b == value.as_bytes()[0])
}

/// A value that is code or a path: `config.password`, `self.api_key`, `/etc/secret`, `./key.pem`.
fn code(value: &str) -> bool {
    if value.starts_with(['/', '.', '~']) {
        return true;
    }
    let segments: Vec<&str> = value.split('.').collect();
    segments.len() > 1
        && segments.iter().all(|s| {
            s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && s.bytes().all(|b| b.is_ascii_alphabetic() || b == b'_')
        })
}

/// `8-4-4-4-12` hexadecimal digits.
fn uuid(value: &str) -> bool {
    let groups: Vec<&str> = value.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Shannon entropy of `value`'s bytes, in bits per byte.
fn entropy(value: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in value.bytes() {
        counts[usize::from(b)] += 1;
    }
    let len = value.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / len;
            -p * p.log2()
        })
        .sum()
}

/// The lowercase words of a name: split at `_`, `-`, `.` and where camelCase starts a word
/// (`apiKey` → `api`, `key`; `AWS_SESSION_TOKEN` → `aws`, `session`, `token`).
fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            previous_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && previous_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_words() {
        assert_eq!(words("apiKey"), ["api", "key"]);
        assert_eq!(words("AWS_SESSION_TOKEN"), ["aws", "session", "token"]);
        assert_eq!(words("\"private_key_id"), ["private", "key", "id"]);
        assert_eq!(words("AccountKey"), ["account", "key"]);
        assert_eq!(words("--db-pass"), ["db", "pass"]);
    }

    #[test]
    fn entropy_of_regular_and_random_values() {
        assert!(entropy("aaaaaaaa") < 0.01);
        assert!(entropy("Zf3D0LXCM3EIMbgJpUNnkRtOfOueHznB") > 4.0);
        assert!(entropy("abab") > 0.99 && entropy("abab") < 1.01);
    }
}
