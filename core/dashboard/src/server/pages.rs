//! The pages, `/metrics` and the compiled-in assets. Each page reads the watermark before its
//! view, so the watermark it carries is never newer than what it shows: a change in between
//! makes the page fetch itself once more, never miss one.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use maud::Markup;

use super::App;
use super::guard;
use crate::error::DashboardError;
use crate::now_ms;
use crate::render::{self, Chrome};
use crate::view::{QueueQuery, Redacted, State as TaskState};

/// Tasks per page of the queue.
const PER_PAGE: u32 = 50;

/// What every page carries, read now.
async fn chrome(app: &App, headers: &HeaderMap) -> Result<Chrome, DashboardError> {
    let watermark = app.source.watermark().await?;
    Ok(Chrome {
        source: app.source.describe(),
        kind: app.source.kind(),
        now: now_ms(),
        watermark,
        actions: app.options.actions,
        csrf: app.csrf.clone(),
        flash: guard::cookie(headers, &app.flash_cookie)
            .map(|text| guard::query_value(Some(&format!("m={text}")), "m").unwrap_or(text)),
        // The queue's and the analytics' views carry the holds; other pages need no read more.
        held: Vec::new(),
    })
}

/// A page, with the one-time message cleared once shown.
fn page(app: &App, chrome: &Chrome, status: StatusCode, markup: Markup) -> Response {
    let mut response = (status, markup).into_response();
    if chrome.flash.is_some() {
        let clear = format!("{}=; Path=/; Max-Age=0; SameSite=Strict", app.flash_cookie);
        if let Ok(value) = HeaderValue::from_str(&clear) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
    }
    response
}

/// A database error as a page: the error's text, redacted, with status 500.
fn failed(app: &App, error: &DashboardError) -> Response {
    let chrome = Chrome {
        source: app.source.describe(),
        kind: app.source.kind(),
        now: now_ms(),
        watermark: String::new(),
        actions: false,
        csrf: String::new(),
        flash: None,
        held: Vec::new(),
    };
    let message = Redacted::new(&format!("failed to read the database: {error}"));
    let markup = render::message_page(&chrome, "Could not read the database", message.as_str());
    (StatusCode::INTERNAL_SERVER_ERROR, markup).into_response()
}

/// The queue's query from the address: empty fields are no filter, an unknown state or a page
/// that is not a number is ignored.
fn queue_query(params: &HashMap<String, String>) -> QueueQuery {
    let field = |name: &str| {
        params
            .get(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    QueueQuery {
        state: field("state").and_then(|s| TaskState::parse(&s)),
        campaign: field("campaign"),
        agent: field("agent"),
        search: field("q"),
        page: field("page").and_then(|p| p.parse().ok()).unwrap_or(0),
        per_page: PER_PAGE,
    }
}

/// `GET /`.
pub(crate) async fn queue(
    State(app): State<Arc<App>>,
    Query(params): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    let query = queue_query(&params);
    let read = async {
        let chrome = chrome(&app, &headers).await?;
        let view = app.source.queue(&query).await?;
        Ok::<_, DashboardError>((chrome, view))
    };
    match read.await {
        Ok((chrome, view)) => {
            let markup = render::queue_page(&chrome, &query, &view);
            page(&app, &chrome, StatusCode::OK, markup)
        }
        Err(error) => failed(&app, &error),
    }
}

/// `GET /tasks/{id}`.
pub(crate) async fn task(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let read = async {
        let chrome = chrome(&app, &headers).await?;
        let view = app.source.task(&id).await?;
        Ok::<_, DashboardError>((chrome, view))
    };
    match read.await {
        Ok((chrome, Some(view))) => {
            let markup = render::task_page(&chrome, &view);
            page(&app, &chrome, StatusCode::OK, markup)
        }
        Ok((chrome, None)) => {
            let id = Redacted::new(&id);
            let message = format!("There is no task {id} in this database.");
            let markup = render::message_page(&chrome, "No such task", &message);
            page(&app, &chrome, StatusCode::NOT_FOUND, markup)
        }
        Err(error) => failed(&app, &error),
    }
}

/// `GET /analytics`.
pub(crate) async fn analytics(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let read = async {
        let chrome = chrome(&app, &headers).await?;
        let view = app.source.analytics().await?;
        Ok::<_, DashboardError>((chrome, view))
    };
    match read.await {
        Ok((chrome, view)) => {
            let markup = render::analytics_page(&chrome, &view);
            page(&app, &chrome, StatusCode::OK, markup)
        }
        Err(error) => failed(&app, &error),
    }
}

/// `GET /metrics`, in Prometheus' text format.
pub(crate) async fn metrics(State(app): State<Arc<App>>) -> Response {
    match app.source.metrics().await {
        Ok(view) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            render::metrics(&view, now_ms()),
        )
            .into_response(),
        Err(error) => {
            let message = Redacted::new(&format!("failed to read the database: {error}\n"));
            (StatusCode::INTERNAL_SERVER_ERROR, message.to_string()).into_response()
        }
    }
}

/// `GET /assets/app.css`.
pub(crate) async fn css() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
        render::CSS,
    )
        .into_response()
}

/// `GET /assets/app.js`.
pub(crate) async fn js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        render::JS,
    )
        .into_response()
}

/// Any other address.
pub(crate) async fn not_found(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    match chrome(&app, &headers).await {
        Ok(chrome) => {
            let markup =
                render::message_page(&chrome, "Not found", "There is no page at this address.");
            page(&app, &chrome, StatusCode::NOT_FOUND, markup)
        }
        Err(error) => failed(&app, &error),
    }
}
