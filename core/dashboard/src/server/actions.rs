//! A person's actions, with `--allow-actions`: retry an ended task with guidance, cancel,
//! pause or resume a task, a campaign or an agent. The guard has checked the token and the
//! origin; each form also carries the `csrf` value derived from the token. After an action the
//! browser is sent back (303) to where it acted, with one line saying what happened.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::{self, HeaderValue};
use axum::response::{IntoResponse, Response};

use super::App;
use super::guard;
use crate::error::DashboardError;
use crate::view::{Action, Redacted, Target};

/// What a form asks.
enum Verb {
    Retry,
    Cancel,
    Pause,
    Resume,
}

impl Verb {
    fn parse(word: &str) -> Option<Verb> {
        Some(match word {
            "retry" => Verb::Retry,
            "cancel" => Verb::Cancel,
            "pause" => Verb::Pause,
            "resume" => Verb::Resume,
            _ => return None,
        })
    }

    /// The action on `target`; `None` for a retry, which takes a task and guidance.
    fn on(self, target: Target) -> Option<Action> {
        Some(match self {
            Verb::Retry => return None,
            Verb::Cancel => Action::Cancel(target),
            Verb::Pause => Action::Pause(target),
            Verb::Resume => Action::Resume(target),
        })
    }
}

/// `POST /tasks/{id}/{retry|cancel|pause|resume}`.
pub(crate) async fn task(
    State(app): State<Arc<App>>,
    Path((id, verb)): Path<(String, String)>,
    body: String,
) -> Response {
    let back = format!("/tasks/{}", encode(&id));
    let fields = match checked(&app, &body) {
        Ok(fields) => fields,
        Err(refused) => return refused.into_response(),
    };
    let action = match Verb::parse(&verb) {
        Some(Verb::Retry) => {
            let guidance = field(&fields, "guidance").unwrap_or_default();
            if guidance.trim().is_empty() {
                return back_with(&app, &back, "Nothing was sent: the guidance is empty.");
            }
            Action::Retry {
                task: id,
                guidance: guidance.trim().to_owned(),
            }
        }
        Some(verb) => match verb.on(Target::Task(id)) {
            Some(action) => action,
            None => return not_found(),
        },
        None => return not_found(),
    };
    act(&app, &action, &back).await
}

/// `POST /campaigns/{name}/{cancel|pause|resume}`.
pub(crate) async fn campaign(
    State(app): State<Arc<App>>,
    Path((name, verb)): Path<(String, String)>,
    body: String,
) -> Response {
    let back = format!("/?campaign={}", encode(&name));
    group(&app, Target::Campaign(name), &verb, &body, &back).await
}

/// `POST /agents/{name}/{cancel|pause|resume}`.
pub(crate) async fn agent(
    State(app): State<Arc<App>>,
    Path((name, verb)): Path<(String, String)>,
    body: String,
) -> Response {
    let back = format!("/?agent={}", encode(&name));
    group(&app, Target::Agent(name), &verb, &body, &back).await
}

async fn group(app: &App, target: Target, verb: &str, body: &str, back: &str) -> Response {
    if let Err(refused) = checked(app, body) {
        return refused.into_response();
    }
    match Verb::parse(verb).and_then(|verb| verb.on(target)) {
        Some(action) => act(app, &action, back).await,
        None => not_found(),
    }
}

/// The form's fields, once actions are on and its `csrf` value is right.
fn checked(app: &App, body: &str) -> Result<Vec<(String, String)>, Refused> {
    if !app.options.actions {
        return Err(Refused(
            "refused: actions are off; start `verdict dashboard` with --allow-actions\n",
        ));
    }
    let fields = guard::form(body);
    if field(&fields, "csrf") != Some(app.csrf.as_str()) {
        return Err(Refused(
            "refused: the form lacks this dashboard's csrf value; reload the page and try again\n",
        ));
    }
    Ok(fields)
}

/// An action refused before it was read, with the sentence that says why.
struct Refused(&'static str);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (StatusCode::FORBIDDEN, self.0).into_response()
    }
}

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
}

/// Carries out `action` and sends the browser back with what happened. An action that could
/// not apply (a retry of a running task) is said the same way; a database error is a 500.
async fn act(app: &App, action: &Action, back: &str) -> Response {
    match app.source.act(action).await {
        Ok(done) => back_with(app, back, &done.message),
        Err(DashboardError::Invalid(message) | DashboardError::Unsupported(message)) => {
            back_with(app, back, &Redacted::new(&message).to_string())
        }
        Err(error) => {
            let message = Redacted::new(&format!("the action failed: {error}\n"));
            (StatusCode::INTERNAL_SERVER_ERROR, message.to_string()).into_response()
        }
    }
}

/// A 303 to `back`, with `message` in the one-time cookie the next page shows.
fn back_with(app: &App, back: &str, message: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(back) {
        headers.insert(header::LOCATION, location);
    }
    let cookie = format!(
        "{}={}; Path=/; HttpOnly; SameSite=Strict",
        app.flash_cookie,
        encode(message)
    );
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        headers.insert(header::SET_COOKIE, value);
    }
    response
}

fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "there is no such action\n").into_response()
}

/// Percent-encodes all but unreserved characters, for a path segment, a query value or a
/// cookie value.
pub(crate) fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}
