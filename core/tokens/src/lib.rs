//! Token counting with a real byte-pair encoding: o200k_base, the tokenizer of GPT-4o and later
//! OpenAI models, embedded in the binary (no network, no files at run time).
//!
//! Other models tokenize differently, but within a few percent on code and logs; a budget counted
//! with a real BPE is what lets the digest promise "never more than N tokens" instead of guessing
//! from characters. The table is bpe-openai's without what counting never reads (`build.rs` says
//! what and why): 16 MB instead of 32 in the binary. It is decoded on first use, once per process
//! (about 60 ms in a release build); [`warm`] starts that early on a thread of its own.

use std::borrow::Cow;
use std::sync::LazyLock;

use bpe_openai::Tokenizer;
use bpe_openai::byte_pair_encoding::BytePairEncoding;

/// o200k_base's pre-tokenization: the pieces a text is cut into before byte-pair encoding. The
/// first pattern's alternatives are tiktoken's, with its negative look-ahead `\s+(?!\S)` written
/// as the second pattern, whose last character is a look-ahead that the tokenizer gives back.
const PIECES: [&str; 6] = [
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"\p{N}{1,3}",
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"\s*[\r\n]+",
    r"\s+$",
];

static O200K: LazyLock<Tokenizer> = LazyLock::new(|| {
    let table = include_bytes!(concat!(env!("OUT_DIR"), "/o200k_counting.msgpack"));
    let encoding: BytePairEncoding =
        rmp_serde::from_slice(table).expect("build.rs wrote a BytePairEncoding");
    let pieces = PIECES.join("|");
    Tokenizer::new_lookahead(
        encoding,
        &[(&pieces, false), (r"\s+\s", true), (r"\s+", false)],
        false,
    )
    .expect("o200k_base's patterns are valid regexes")
});

/// Decodes the table on a thread of its own, so that a command which will count tokens later
/// (after running tools or parsing a log) does not wait for it then.
pub fn warm() {
    // A thread that cannot be started only means the first count decodes the table itself.
    let _ = std::thread::Builder::new()
        .name("tokenizer".to_owned())
        .spawn(|| LazyLock::force(&O200K));
}

/// The number of o200k_base tokens of `text`.
pub fn count(text: &str) -> usize {
    O200K.count(text)
}

/// Whether `text` has at most `max` tokens; takes time in proportion to `max`, not to the text.
pub fn fits(text: &str, max: usize) -> bool {
    // Every token is at least one byte long.
    if text.len() <= max {
        return true;
    }
    O200K
        .count_till_limit(&O200K.normalize(text), max)
        .is_some()
}

/// What [`clip`] puts where it cut.
pub const ELLIPSIS: &str = "…";

/// `text` cut to at most `max` tokens, ending with [`ELLIPSIS`] where it was cut.
///
/// Returns `text` itself when it fits. With `max == 0` the result is empty.
pub fn clip(text: &str, max: usize) -> Cow<'_, str> {
    clip_with(text, max, ELLIPSIS)
}

/// `text` cut to at most `max` tokens, ending with `marker` where it was cut; with `marker` dropped
/// too when even the marker alone does not fit.
pub fn clip_with<'t>(text: &'t str, max: usize, marker: &str) -> Cow<'t, str> {
    // A prefix of at most `max` tokens is rarely more than a few bytes per token; looking further
    // than this only makes the binary search slower, and stopping short only makes the clip a
    // little more cautious than it had to be.
    const BYTES_PER_TOKEN: usize = 16;
    if fits(text, max) {
        return Cow::Borrowed(text);
    }
    let marker = if count(marker) <= max { marker } else { "" };
    let window = &text[..floor_char_boundary(text, max.saturating_mul(BYTES_PER_TOKEN))];
    let candidate = |end: usize| format!("{}{marker}", window[..end].trim_end());
    // Binary search over char boundaries for the longest prefix that fits; the empty prefix does.
    let boundaries: Vec<usize> = window
        .char_indices()
        .map(|(i, _)| i)
        .skip(1)
        .chain(std::iter::once(window.len()))
        .collect();
    let (mut lo, mut hi) = (0usize, boundaries.len());
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(&candidate(boundaries[mid - 1]), max) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let end = if lo == 0 { 0 } else { boundaries[lo - 1] };
    let prefix = window[..end].trim_end();
    let mut out = format!("{prefix}{marker}");
    // Counting is not perfectly monotonic in the prefix length; make sure, char by char.
    let mut end = prefix.len();
    while count(&out) > max && end > 0 {
        end = floor_char_boundary(prefix, end - 1);
        out = format!("{}{marker}", prefix[..end].trim_end());
    }
    if count(&out) > max {
        out.clear();
    }
    Cow::Owned(out)
}

/// The largest char boundary of `s` at or below `i`.
pub fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first 16 KiB of every captured log, as the digest would see them, and texts that stress
    /// the pre-tokenizer.
    fn corpus() -> Vec<String> {
        let logs =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../summarizers/testdata");
        let mut texts = vec![
            "é".repeat(300),
            "日本語のテキスト".repeat(40),
            "=".repeat(2000),
            "🦀 crab ".repeat(100),
            " \t ".repeat(50) + "x\r\n\r\n  ",
            "It's what they'll DO'S, we've 123456 tokens\n".to_owned(),
        ];
        let mut dirs = vec![logs];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("the captured logs are readable") {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|ext| ext == "log") {
                    let bytes = std::fs::read(&path).expect("a captured log");
                    let head = &bytes[..bytes.len().min(16 * 1024)];
                    texts.push(String::from_utf8_lossy(head).into_owned());
                }
            }
        }
        assert!(texts.len() > 400, "found {} texts", texts.len());
        texts
    }

    /// The table `build.rs` trims must count exactly as bpe-openai's whole table does.
    #[test]
    fn counts_as_the_whole_table_does() {
        let whole = bpe_openai::o200k_base();
        for text in corpus() {
            let expected = whole.count(text.as_str());
            assert_eq!(count(&text), expected, "{text:?}");
            for max in [
                0,
                1,
                7,
                expected.saturating_sub(1),
                expected,
                expected + 1,
                500,
            ] {
                let whole_fits = whole
                    .count_till_limit(&whole.normalize(text.as_str()), max)
                    .is_some();
                assert_eq!(fits(&text, max), whole_fits, "{max}: {text:?}");
            }
        }
    }

    #[test]
    fn warm_decodes_the_table_once() {
        warm();
        warm();
        assert_eq!(count("hello world"), 2);
    }

    #[test]
    fn counts_with_o200k() {
        assert_eq!(count(""), 0);
        assert_eq!(count("hello world"), 2);
        assert_eq!(count("tsc: 42 errors in 9 files"), 10);
    }

    #[test]
    fn clip_keeps_what_fits() {
        assert_eq!(clip("hello world", 5), "hello world");
        assert!(matches!(clip("hello world", 5), Cow::Borrowed(_)));
    }

    #[test]
    fn clip_never_exceeds_max() {
        let texts = [
            "Argument of type 'string' is not assignable to parameter of type 'number'.".to_owned(),
            "é".repeat(300),
            "日本語のテキスト".repeat(40),
            "=".repeat(2000),
            "a".repeat(2000),
            "🦀 crab ".repeat(100),
            " \t ".repeat(50) + "x",
        ];
        for text in &texts {
            for max in [0, 1, 2, 3, 4, 5, 8, 13, 21, 34, 55] {
                let clipped = clip(text, max);
                assert!(count(&clipped) <= max, "{max}: {clipped:?}");
                assert_eq!(fits(text, max), count(text) <= max);
                // Runs of one symbol make tokens of dozens of bytes, longer than the window
                // `clip` looks at; for them it is allowed to be cautious. A prefix of only
                // whitespace is dropped.
                if max >= 4 && count(text) > max && !text.starts_with(['=', ' ']) {
                    assert!(clipped.ends_with(ELLIPSIS), "{max}: {clipped:?}");
                    assert!(
                        count(&clipped) + 3 >= max.min(count(text)),
                        "{max}: {text:?} → {clipped:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn clip_with_drops_a_marker_that_does_not_fit() {
        let text = "a fairly long sentence that will not fit";
        let clipped = clip_with(text, 1, " … (cut)");
        assert!(count(&clipped) <= 1);
        assert!(!clipped.contains("(cut)"));
    }
}
