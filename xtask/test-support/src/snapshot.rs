//! Snapshot filters for what `verdict` prints: a test's temporary paths, durations and times
//! become placeholders, so a snapshot holds what the test is about and stays the same from run to
//! run and machine to machine.

use std::path::Path;

/// The insta settings of one snapshot: placeholders for durations and times, and for the paths
/// the test names.
///
/// ```
/// let root = std::env::temp_dir().join("verdict-7s");
/// verdict_test_support::filters()
///     .path(&root, "[PROJECT]")
///     .bind(|| {
///         let text = format!("1.2s at 2026-11-22T07:00:00Z in {}", root.display());
///         insta::assert_snapshot!(text, @"[DURATION] at [TIME] in [PROJECT]");
///     });
/// ```
#[derive(Default)]
pub struct Filters {
    /// (regex, replacement), applied before the times and durations: a temporary directory's
    /// random name may look like a duration.
    first: Vec<(String, String)>,
}

/// Times and durations as `verdict` prints them; add the test's paths with [`Filters::path`].
pub fn filters() -> Filters {
    Filters::default()
}

/// RFC 3339 times, as JSON reports and the history print them; before the durations, which
/// their seconds would otherwise match.
const TIME: &str = r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?";

/// `2h 03m`, `4m 05s`, `12.3s`, `850ms`: the shapes of both duration printers.
const DURATION: &str = r"\b(\d+h \d{2}m|\d+m \d{2}s|\d+(\.\d+)?s|\d+ms)\b";

impl Filters {
    /// Prints `path` (as given and as the filesystem resolves it) as `placeholder`.
    pub fn path(mut self, path: &Path, placeholder: &str) -> Self {
        let mut spellings = vec![path.display().to_string()];
        if let Ok(canonical) = std::fs::canonicalize(path) {
            spellings.push(canonical.display().to_string());
        }
        // The longer spelling first, so that a prefix never leaves a tail behind.
        spellings.sort_by_key(|s| std::cmp::Reverse(s.len()));
        spellings.dedup();
        for spelling in spellings {
            self.first
                .push((regex::escape(&spelling), placeholder.to_owned()));
        }
        self
    }

    /// Prints what matches `regex` as `replacement` (before times and durations).
    pub fn replace(mut self, regex: &str, replacement: &str) -> Self {
        self.first.push((regex.to_owned(), replacement.to_owned()));
        self
    }

    /// Runs `f` (which asserts snapshots) with these filters.
    pub fn bind<R>(&self, f: impl FnOnce() -> R) -> R {
        let mut settings = insta::Settings::clone_current();
        for (regex, replacement) in &self.first {
            settings.add_filter(regex, replacement.clone());
        }
        settings.add_filter(TIME, "[TIME]");
        settings.add_filter(DURATION, "[DURATION]");
        settings.bind(f)
    }
}
