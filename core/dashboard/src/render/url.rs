//! The dashboard's own URLs, built in one place: path segments percent-encoded, the queue's
//! query string from a [`QueueQuery`]. Pages link to these and nothing else.

use std::fmt::Write as _;

use crate::view::{QueueQuery, State};

/// `text` with every byte but RFC 3986's unreserved characters percent-encoded, so a task id,
/// a campaign or an agent name is one path segment or one query value whatever it holds.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// `/tasks/{id}`.
pub(crate) fn task(id: &str) -> String {
    format!("/tasks/{}", encode(id))
}

/// What a queue link keeps of the current query, and what it changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct QueueLink<'a> {
    pub(crate) state: Option<State>,
    pub(crate) campaign: Option<&'a str>,
    pub(crate) agent: Option<&'a str>,
    pub(crate) search: Option<&'a str>,
    pub(crate) page: u32,
}

impl<'a> QueueLink<'a> {
    /// The link to the page `query` shows.
    pub(crate) fn from_query(query: &'a QueueQuery) -> QueueLink<'a> {
        QueueLink {
            state: query.state,
            campaign: query.campaign.as_deref(),
            agent: query.agent.as_deref(),
            search: query.search.as_deref(),
            page: query.page,
        }
    }

    /// `/` with the filters that are set, in the scheme the server reads.
    pub(crate) fn href(&self) -> String {
        let mut pairs: Vec<(&str, String)> = Vec::new();
        if let Some(state) = self.state {
            pairs.push(("state", state.as_str().to_owned()));
        }
        let texts = [
            ("campaign", self.campaign),
            ("agent", self.agent),
            ("q", self.search),
        ];
        for (name, value) in texts {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                pairs.push((name, encode(value)));
            }
        }
        if self.page > 0 {
            pairs.push(("page", self.page.to_string()));
        }
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if query.is_empty() {
            "/".to_owned()
        } else {
            format!("/?{}", query.join("&"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_and_values_are_percent_encoded() {
        assert_eq!(encode("task-7_a.b~"), "task-7_a.b~");
        assert_eq!(encode("a/b c?d&e"), "a%2Fb%20c%3Fd%26e");
        assert_eq!(encode("é"), "%C3%A9");
        assert_eq!(task("../x"), "/tasks/..%2Fx");
    }

    #[test]
    fn queue_links_keep_the_filters_that_are_set() {
        assert_eq!(QueueLink::default().href(), "/");
        let query = QueueQuery {
            state: Some(State::RetryScheduled),
            campaign: Some("q4 & more".into()),
            agent: None,
            search: Some(String::new()),
            page: 2,
            per_page: 50,
        };
        assert_eq!(
            QueueLink::from_query(&query).href(),
            "/?state=retry_scheduled&campaign=q4%20%26%20more&page=2"
        );
    }
}
