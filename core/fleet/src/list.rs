//! The filter of [`Store::list`](crate::Store::list), written once for both dialects: the
//! condition on a task row `t` and its text parameters, in the placeholders of each.

use crate::store::{ListQuery, Listed};
use crate::task::TaskState;

/// The SQL dialect a condition is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// `?1`, `instr`.
    Sqlite,
    /// `$1`, `strpos`.
    Postgres,
}

/// A `WHERE` condition on `tasks t` and the text parameters it takes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Filter {
    /// The condition (`TRUE` when nothing filters).
    pub(crate) sql: String,
    /// Its parameters.
    pub(crate) params: Vec<String>,
}

/// The condition that keeps the tasks `query` names. States are written into the text (they
/// are this crate's own words); what a person typed is only ever a parameter.
pub(crate) fn filter(query: &ListQuery, dialect: Dialect) -> Filter {
    let mut parts: Vec<String> = Vec::new();
    let mut params: Vec<String> = Vec::new();
    let mut param = |value: String| -> String {
        params.push(value);
        match dialect {
            Dialect::Sqlite => format!("?{}", params.len()),
            Dialect::Postgres => format!("${}::text", params.len()),
        }
    };
    match query.state {
        Some(Listed::Paused) => {
            parts.push("t.state IN ('pending', 'retry_scheduled') AND t.paused".into());
        }
        Some(Listed::State(state @ (TaskState::Pending | TaskState::RetryScheduled))) => {
            parts.push(format!("t.state = '{}' AND NOT t.paused", state.as_str()));
        }
        Some(Listed::State(state)) => parts.push(format!("t.state = '{}'", state.as_str())),
        None => {}
    }
    if let Some(campaign) = &query.campaign {
        parts.push(format!("t.campaign = {}", param(campaign.clone())));
    }
    if let Some(provider) = &query.provider {
        parts.push(format!("t.provider = {}", param(provider.clone())));
    }
    if let Some(search) = query
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let needle = param(search.to_owned());
        let find = match dialect {
            Dialect::Sqlite => "instr",
            Dialect::Postgres => "strpos",
        };
        parts.push(format!(
            "({find}(lower(t.key), lower({needle})) > 0 \
             OR {find}(lower(t.task), lower({needle})) > 0 \
             OR {find}(lower(coalesce(t.reason, '')), lower({needle})) > 0)"
        ));
    }
    let sql = if parts.is_empty() {
        "TRUE".to_owned()
    } else {
        parts
            .iter()
            .map(|part| format!("({part})"))
            .collect::<Vec<_>>()
            .join(" AND ")
    };
    Filter { sql, params }
}

/// `LIMIT … OFFSET …` of a page, as numbers written into the text.
pub(crate) fn page(query: &ListQuery) -> String {
    let limit = query.limit.min(i64::MAX as u64);
    let offset = query.offset.min(i64::MAX as u64);
    format!("LIMIT {limit} OFFSET {offset}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_person_types_is_a_parameter_and_paused_tasks_are_their_own_state() {
        let query = ListQuery {
            state: Some(Listed::State(TaskState::Pending)),
            campaign: Some("c'; DROP TABLE tasks".into()),
            search: Some(" Fix ".into()),
            ..ListQuery::default()
        };
        let sqlite = filter(&query, Dialect::Sqlite);
        assert!(sqlite.sql.contains("NOT t.paused"), "{}", sqlite.sql);
        assert!(sqlite.sql.contains("t.campaign = ?1"), "{}", sqlite.sql);
        assert!(sqlite.sql.contains("instr(lower(t.key), lower(?2))"));
        assert!(!sqlite.sql.contains("DROP"));
        assert_eq!(sqlite.params, ["c'; DROP TABLE tasks", "Fix"]);
        let pg = filter(&query, Dialect::Postgres);
        assert!(pg.sql.contains("strpos(lower(t.task), lower($2::text))"));
        let paused = ListQuery {
            state: Some(Listed::Paused),
            ..ListQuery::default()
        };
        assert!(
            filter(&paused, Dialect::Sqlite)
                .sql
                .contains("AND t.paused")
        );
        assert_eq!(filter(&ListQuery::default(), Dialect::Sqlite).sql, "TRUE");
    }
}
