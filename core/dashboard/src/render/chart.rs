//! Charts as inline SVG drawn on the server: horizontal bars and one stacked bar. Each chart
//! is an image with a `<title>` and an `aria-label`; the page also gives its numbers as text,
//! so the chart is never the only way to read them. Colours come from classes in `app.css`
//! (`fill` attributes are the fallback), never from `style` attributes, which the CSP forbids.

use maud::{Markup, html};

/// One bar: its label, its value, and the text written after it.
#[derive(Debug, Clone)]
pub(crate) struct Bar {
    pub(crate) label: String,
    pub(crate) value: f64,
    pub(crate) text: String,
}

const WIDTH: f64 = 480.0;
const LABEL: f64 = 150.0;
const ROW: f64 = 22.0;
const NUMBER: f64 = 110.0;

/// Horizontal bars scaled to the largest value, labels left, numbers right.
pub(crate) fn bars(title: &str, bars: &[Bar]) -> Markup {
    let max = bars.iter().map(|b| b.value).fold(0.0_f64, f64::max);
    let room = WIDTH - LABEL - NUMBER;
    let height = ROW * bars.len() as f64 + 4.0;
    html! {
        svg class="chart bars" role="img" aria-label=(title)
            viewBox={ "0 0 " (WIDTH) " " (height) } width=(WIDTH) height=(height) {
            title { (title) }
            @for (i, bar) in bars.iter().enumerate() {
                @let y = ROW * i as f64 + 2.0;
                @let w = if max > 0.0 { (bar.value / max * room).max(1.0) } else { 0.0 };
                text class="label" x=(LABEL - 8.0) y=(y + 15.0) text-anchor="end" {
                    (clip(&bar.label, 20))
                }
                rect class="bar" x=(LABEL) y=(y + 3.0) width=(round(w)) height="16" rx="2"
                    fill="#3b6ea8" {}
                text class="value" x=(round(LABEL + w + 6.0)) y=(y + 15.0) { (bar.text) }
            }
        }
    }
}

/// One stacked bar of two parts (time in agents, time in verification) with both numbers as
/// text under it.
pub(crate) fn stacked(title: &str, parts: [(&str, u64, &str); 2]) -> Markup {
    let total = parts[0].1 + parts[1].1;
    let room = WIDTH;
    let first = if total > 0 {
        parts[0].1 as f64 / total as f64 * room
    } else {
        0.0
    };
    html! {
        svg class="chart stacked" role="img" aria-label=(title)
            viewBox={ "0 0 " (WIDTH) " 28" } width=(WIDTH) height="28" {
            title { (title) }
            rect class={ "part " (parts[0].2) } x="0" y="2" width=(round(first)) height="24"
                fill="#3b6ea8" {}
            rect class={ "part " (parts[1].2) } x=(round(first)) y="2"
                width=(round(room - first).max(0.0)) height="24" fill="#b35c00" {}
        }
    }
}

/// A small two-part bar inside a line of text; the text beside it carries the numbers.
pub(crate) fn split_bar(agent_ms: u64, verify_ms: u64, width: u32) -> Markup {
    let total = (agent_ms + verify_ms).max(1) as f64;
    let first = agent_ms as f64 / total * f64::from(width);
    html! {
        svg class="chart mini" aria-hidden="true" viewBox={ "0 0 " (width) " 10" }
            width=(width) height="10" {
            rect class="part agent" x="0" y="0" width=(round(first)) height="10" fill="#3b6ea8" {}
            rect class="part verify" x=(round(first)) y="0"
                width=(round(f64::from(width) - first)) height="10" fill="#b35c00" {}
        }
    }
}

/// A bar for a table cell, `fraction` of its width filled; the cell's text carries the number.
pub(crate) fn cell_bar(fraction: f64) -> Markup {
    let fraction = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    html! {
        svg class="chart mini" aria-hidden="true" viewBox="0 0 100 10" width="100" height="10" {
            rect class="track" x="0" y="0" width="100" height="10" fill="#dde3ea" {}
            rect class="bar" x="0" y="0" width=(round(fraction * 100.0)) height="10" fill="#3b6ea8" {}
        }
    }
}

/// One decimal is plenty for pixels, and keeps the markup short.
fn round(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

/// The first `width` characters of `text`, with `…` when cut: labels must fit their column.
fn clip(text: &str, width: usize) -> String {
    verdict_core::render::table::clip(text, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(label: &str, value: f64) -> Bar {
        Bar {
            label: label.into(),
            value,
            text: format!("{value}"),
        }
    }

    #[test]
    fn bars_scale_to_the_largest_and_keep_a_title() {
        let html = bars(
            "Failures by category",
            &[bar("test", 10.0), bar("lint", 5.0)],
        )
        .into_string();
        assert!(
            html.contains("<title>Failures by category</title>"),
            "{html}"
        );
        assert!(
            html.contains(r#"aria-label="Failures by category""#),
            "{html}"
        );
        // The room for bars is 480 - 150 - 110 = 220.
        assert!(html.contains(r#"width="220""#), "{html}");
        assert!(html.contains(r#"width="110""#), "{html}");
        assert!(
            !html.contains("xmlns"),
            "inline SVG needs no namespace URL: {html}"
        );
    }

    #[test]
    fn empty_and_zero_bars_draw_nothing_wider_than_the_chart() {
        let html = bars("none", &[bar("a", 0.0)]).into_string();
        assert!(html.contains(r#"width="0""#), "{html}");
        let html = cell_bar(f64::NAN).into_string();
        assert!(
            html.contains(r#"class="bar" x="0" y="0" width="0""#),
            "{html}"
        );
        let html =
            stacked("t", [("agent", 0, "agent"), ("verification", 0, "verify")]).into_string();
        assert!(html.contains(r#"width="0""#), "{html}");
    }

    #[test]
    fn a_split_bar_is_proportional() {
        let html = split_bar(3_000, 1_000, 120).into_string();
        assert!(
            html.contains(r#"class="part agent" x="0" y="0" width="90""#),
            "{html}"
        );
        assert!(html.contains(r#"x="90" y="0" width="30""#), "{html}");
    }
}
