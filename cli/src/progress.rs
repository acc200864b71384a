//! The live view of `verdict run` on a terminal: one line per verifier, with a spinner and the
//! elapsed time while it runs, replaced by its outcome when it finishes. Drawn on stderr only when
//! stderr is a terminal (and colour is allowed); otherwise nothing is drawn, and the report on
//! stdout says everything.

use std::collections::BTreeMap;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use verdict_core::pipeline::Event;
use verdict_core::{Outcome, Status};

/// The progress view; a no-op when disabled.
pub(crate) struct Progress {
    bars: BTreeMap<String, ProgressBar>,
    multi: Option<MultiProgress>,
}

impl Progress {
    /// A view of `names`, drawn only when `enabled`.
    pub(crate) fn new(names: &[String], enabled: bool) -> Progress {
        if !enabled {
            return Progress {
                bars: BTreeMap::new(),
                multi: None,
            };
        }
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let waiting = ProgressStyle::with_template("  {prefix:.dim} {msg:.dim}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let width = names.iter().map(String::len).max().unwrap_or(0);
        let bars = names
            .iter()
            .map(|name| {
                let bar = multi.add(ProgressBar::new_spinner());
                bar.set_style(waiting.clone());
                bar.set_prefix(format!("{name:width$}"));
                bar.set_message("waiting");
                (name.clone(), bar)
            })
            .collect();
        Progress {
            bars,
            multi: Some(multi),
        }
    }

    /// Shows what the pipeline reported.
    pub(crate) fn event(&self, event: &Event<'_>) {
        match event {
            Event::Started { verifier } => {
                if let Some(bar) = self.bars.get(*verifier) {
                    let running =
                        ProgressStyle::with_template("{spinner:.cyan} {prefix} running {elapsed}")
                            .unwrap_or_else(|_| ProgressStyle::default_spinner());
                    bar.set_style(running);
                    bar.reset_elapsed();
                    bar.enable_steady_tick(Duration::from_millis(100));
                }
            }
            Event::Finished { verification } => {
                if let Some(bar) = self.bars.get(&verification.verifier) {
                    let (mark, colour) = match (verification.status, verification.outcome()) {
                        (Status::Cached, _) => ("✓", "green"),
                        (Status::NotInShard, _) => ("-", "dim"),
                        (_, Outcome::Passed) => ("✓", "green"),
                        (_, Outcome::Failed) => ("✗", "red"),
                        (_, Outcome::Errored) => ("!", "yellow"),
                    };
                    let style =
                        ProgressStyle::with_template(&format!("{{prefix:.{colour}}} {{msg}}"))
                            .unwrap_or_else(|_| ProgressStyle::default_spinner());
                    let prefix = bar.prefix();
                    bar.set_style(style);
                    bar.set_prefix(format!("{mark} {prefix}"));
                    let what = match verification.status {
                        Status::Cached => "cached".to_owned(),
                        Status::Skipped | Status::Cancelled => {
                            verification.status.as_str().to_owned()
                        }
                        Status::NotInShard => "not in this shard".to_owned(),
                        Status::Ran => format!(
                            "{} in {:.1}s",
                            verification.outcome().as_str(),
                            verification.duration.as_secs_f64()
                        ),
                    };
                    bar.finish_with_message(what);
                }
            }
            // `-v` tells it after the run.
            Event::Cache { .. } => {}
        }
    }

    /// Leaves the finished lines on screen and stops drawing.
    pub(crate) fn finish(&self) {
        for bar in self.bars.values() {
            if !bar.is_finished() {
                bar.finish();
            }
        }
        if let Some(multi) = &self.multi {
            let _ = multi.clear();
        }
    }
}
