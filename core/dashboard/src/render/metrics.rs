//! `/metrics` in Prometheus' text exposition format 0.0.4: a `# HELP` and a `# TYPE` line per
//! metric, then its samples, label values escaped. Every state appears, zero included, so an
//! alert on a state that empties still sees a value.

use std::fmt::Write as _;

use crate::view::{Metrics, State};

/// The text for `view`; `now` (ms since the Unix epoch) drops holds that have already ended.
pub(crate) fn render(view: &Metrics, now: i64) -> String {
    let mut out = Out(String::with_capacity(2_048));
    out.family("verdict_tasks", "gauge", "Tasks by state.");
    for state in State::ALL {
        let n = view
            .by_state
            .iter()
            .find(|(s, _)| *s == state)
            .map_or(0, |(_, n)| *n);
        out.sample(
            "verdict_tasks",
            &[("state", state.as_str())],
            &n.to_string(),
        );
    }
    out.family(
        "verdict_oldest_due_task_age_seconds",
        "gauge",
        "Seconds since the oldest due task (pending, or retry scheduled and due; not paused) \
         became due; 0 when no task is due.",
    );
    let age = view.oldest_due_ms.map_or(0, |ms| ms.max(0));
    out.sample("verdict_oldest_due_task_age_seconds", &[], &seconds(age));
    out.family(
        "verdict_rescues_total",
        "counter",
        "Attempts taken back from a worker whose lease expired, or loop runs interrupted.",
    );
    out.sample("verdict_rescues_total", &[], &view.rescues.to_string());
    let held: Vec<_> = view.held.iter().filter(|h| h.until > now).collect();
    out.family(
        "verdict_agents_held",
        "gauge",
        "Agents held by a reported rate limit now.",
    );
    out.sample("verdict_agents_held", &[], &held.len().to_string());
    out.family(
        "verdict_agent_held_until_seconds",
        "gauge",
        "Until when a rate limit holds the agent, in seconds since the Unix epoch.",
    );
    for hold in held {
        out.sample(
            "verdict_agent_held_until_seconds",
            &[("agent", &hold.agent)],
            &seconds(hold.until),
        );
    }
    out.family(
        "verdict_attempts_total",
        "counter",
        "Ended attempts by outcome.",
    );
    for (outcome, n) in &view.attempts_by_outcome {
        out.sample(
            "verdict_attempts_total",
            &[("outcome", outcome)],
            &n.to_string(),
        );
    }
    out.0
}

struct Out(String);

impl Out {
    fn family(&mut self, name: &str, kind: &str, help: &str) {
        // Writing to a String cannot fail.
        let _ = writeln!(self.0, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.0, "# TYPE {name} {kind}");
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: &str) {
        self.0.push_str(name);
        if !labels.is_empty() {
            let labels: Vec<String> = labels
                .iter()
                .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
                .collect();
            let _ = write!(self.0, "{{{}}}", labels.join(","));
        }
        let _ = writeln!(self.0, " {value}");
    }
}

/// Milliseconds as seconds, without trailing zeros: `12.5`, `1795961042`.
fn seconds(ms: i64) -> String {
    let whole = ms.div_euclid(1_000);
    let frac = ms.rem_euclid(1_000);
    if frac == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{frac:03}")
            .trim_end_matches('0')
            .to_owned()
    }
}

/// A label value: backslash, double quote and line feed escaped.
fn escape_label(value: &str) -> String {
    value
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('\n', r"\n")
}

/// A help text: backslash and line feed escaped.
fn escape_help(text: &str) -> String {
    text.replace('\\', r"\\").replace('\n', r"\n")
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::view::Hold;

    const NOW: i64 = 1_795_961_000_000;

    /// A metric line as a scraper reads it: name, labels, value.
    #[derive(Debug)]
    struct Sample {
        name: String,
        labels: BTreeMap<String, String>,
        value: f64,
    }

    /// Reads `text` as Prometheus' 0.0.4 parser does, failing on any line it would reject:
    /// every sample's family has one HELP and one TYPE before it.
    fn parse(text: &str) -> Vec<Sample> {
        assert!(text.ends_with('\n'), "the exposition ends with a line feed");
        let mut typed: BTreeMap<String, String> = BTreeMap::new();
        let mut helped: BTreeSet<String> = BTreeSet::new();
        let mut samples = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# HELP ") {
                let (name, help) = rest.split_once(' ').expect("a HELP line has a text");
                assert!(valid_name(name) && !help.is_empty(), "{line}");
                assert!(helped.insert(name.to_owned()), "a second HELP: {line}");
            } else if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').expect("a TYPE line has a type");
                assert!(
                    valid_name(name) && ["gauge", "counter"].contains(&kind),
                    "{line}"
                );
                assert!(
                    typed.insert(name.to_owned(), kind.to_owned()).is_none(),
                    "{line}"
                );
            } else {
                let sample = parse_sample(line);
                assert!(typed.contains_key(&sample.name), "no TYPE before {line}");
                assert!(helped.contains(&sample.name), "no HELP before {line}");
                samples.push(sample);
            }
        }
        samples
    }

    fn parse_sample(line: &str) -> Sample {
        let name_end = line.find(['{', ' ']).expect("a sample has a value");
        let name = &line[..name_end];
        assert!(valid_name(name), "{line}");
        let mut rest = &line[name_end..];
        let mut labels = BTreeMap::new();
        if let Some(body) = rest.strip_prefix('{') {
            let mut chars = body.char_indices();
            let mut key = String::new();
            let end = loop {
                let (i, c) = chars.next().expect("labels end with }");
                match c {
                    '}' => break i,
                    ',' => {}
                    '=' => {
                        assert_eq!(chars.next().map(|(_, c)| c), Some('"'), "{line}");
                        let mut value = String::new();
                        loop {
                            match chars.next().expect("a label value ends").1 {
                                '"' => break,
                                '\\' => match chars.next().expect("an escape").1 {
                                    'n' => value.push('\n'),
                                    c @ ('\\' | '"') => value.push(c),
                                    c => panic!("bad escape \\{c} in {line}"),
                                },
                                '\n' => panic!("a raw line feed in {line}"),
                                c => value.push(c),
                            }
                        }
                        assert!(valid_name(&key), "label name {key:?} in {line}");
                        labels.insert(std::mem::take(&mut key), value);
                    }
                    c => key.push(c),
                }
            };
            rest = &body[end + 1..];
        }
        let value = rest.strip_prefix(' ').expect("one space before the value");
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("a number in {line}"));
        Sample {
            name: name.to_owned(),
            labels,
            value,
        }
    }

    fn valid_name(name: &str) -> bool {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    }

    fn view() -> Metrics {
        Metrics {
            by_state: vec![
                (State::Pending, 3),
                (State::RetryScheduled, 2),
                (State::Passed, 10_000),
            ],
            oldest_due_ms: Some(12_500),
            rescues: 4,
            held: vec![
                Hold {
                    agent: "cla\"ude\\x\ny".into(),
                    until: NOW + 42_000,
                },
                Hold {
                    agent: "ended".into(),
                    until: NOW - 1,
                },
            ],
            attempts_by_outcome: vec![("passed".into(), 7), ("failed".into(), 5)],
        }
    }

    fn value(samples: &[Sample], name: &str, label: Option<(&str, &str)>) -> f64 {
        samples
            .iter()
            .find(|s| {
                s.name == name
                    && label.is_none_or(|(k, v)| s.labels.get(k).map(String::as_str) == Some(v))
            })
            .unwrap_or_else(|| panic!("no {name} {label:?}"))
            .value
    }

    #[test]
    fn every_line_parses_and_every_state_is_there() {
        let text = render(&view(), NOW);
        let samples = parse(&text);
        for state in State::ALL {
            let _ = value(&samples, "verdict_tasks", Some(("state", state.as_str())));
        }
        assert_eq!(
            value(&samples, "verdict_tasks", Some(("state", "passed"))),
            10_000.0
        );
        assert_eq!(
            value(&samples, "verdict_tasks", Some(("state", "failed"))),
            0.0
        );
        assert_eq!(
            value(&samples, "verdict_oldest_due_task_age_seconds", None),
            12.5
        );
        assert_eq!(value(&samples, "verdict_rescues_total", None), 4.0);
        assert_eq!(value(&samples, "verdict_agents_held", None), 1.0);
        assert_eq!(
            value(
                &samples,
                "verdict_attempts_total",
                Some(("outcome", "failed"))
            ),
            5.0
        );
    }

    #[test]
    fn label_values_are_escaped_and_ended_holds_dropped() {
        let text = render(&view(), NOW);
        assert!(
            text.contains(r#"verdict_agent_held_until_seconds{agent="cla\"ude\\x\ny"} 1795961042"#),
            "{text}"
        );
        let samples = parse(&text);
        let held = value(
            &samples,
            "verdict_agent_held_until_seconds",
            Some(("agent", "cla\"ude\\x\ny")),
        );
        assert_eq!(held, 1_795_961_042.0);
        assert!(!text.contains("ended"), "{text}");
    }

    #[test]
    fn no_due_task_reads_zero_and_says_so() {
        let mut view = view();
        view.oldest_due_ms = None;
        let text = render(&view, NOW);
        assert!(text.contains("0 when no task is due"), "{text}");
        assert_eq!(
            value(&parse(&text), "verdict_oldest_due_task_age_seconds", None),
            0.0
        );
    }

    #[test]
    fn seconds_drop_trailing_zeros() {
        assert_eq!(seconds(12_500), "12.5");
        assert_eq!(seconds(1_001), "1.001");
        assert_eq!(seconds(3_000), "3");
    }
}
