//! Token counting with a real byte-pair encoding: o200k_base, the tokenizer of GPT-4o and later
//! OpenAI models, embedded in the binary by `bpe-openai` (no network, no files at run time).
//!
//! Other models tokenize differently, but within a few percent on code and logs; a budget counted
//! with a real BPE is what lets the digest promise "never more than N tokens" instead of guessing
//! from characters. The tables are decoded on first use (about 85 ms in a release build, once per
//! process).

use std::borrow::Cow;

/// The number of o200k_base tokens of `text`.
pub fn count(text: &str) -> usize {
    bpe_openai::o200k_base().count(text)
}

/// Whether `text` has at most `max` tokens; takes time in proportion to `max`, not to the text.
pub fn fits(text: &str, max: usize) -> bool {
    let tokenizer = bpe_openai::o200k_base();
    tokenizer
        .count_till_limit(&tokenizer.normalize(text), max)
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
pub(super) fn floor_char_boundary(s: &str, i: usize) -> usize {
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
