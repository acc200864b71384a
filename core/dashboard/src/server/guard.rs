//! The checks every request passes before a handler sees it, and the headers every answer
//! carries. A loopback server without a token is open to any page the browser visits (DNS
//! rebinding, cross-site forms), so: the `Host` must name the address the server listens on,
//! the token must come with the request (query, cookie or bearer), and a POST must come from the
//! dashboard's own origin.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{self, HeaderMap, HeaderValue};
use axum::http::{Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::App;

/// The policy every answer carries: nothing from another origin, no inline script or style, no
/// framing, forms only to the dashboard.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// A value derived from the token for one purpose (the forms' `csrf` field), which tells
/// nothing of the token itself.
pub(crate) fn derive(token: &str, purpose: &str) -> String {
    let key = blake3::hash(token.as_bytes());
    blake3::keyed_hash(key.as_bytes(), purpose.as_bytes())
        .to_hex()
        .to_string()
}

/// The `Host` values a server listening on `addr` answers: the address itself, `localhost` with
/// the port on loopback (and on an unspecified address, which loopback reaches too), and the
/// names given, with the port added where they have none.
pub(crate) fn hosts(addr: SocketAddr, extra: &[String]) -> Vec<String> {
    let port = addr.port();
    let mut hosts = Vec::new();
    let ip = addr.ip();
    if !ip.is_unspecified() {
        hosts.push(match ip {
            IpAddr::V4(v4) => format!("{v4}:{port}"),
            IpAddr::V6(v6) => format!("[{v6}]:{port}"),
        });
    }
    if ip.is_loopback() || ip.is_unspecified() {
        hosts.extend([format!("127.0.0.1:{port}"), format!("localhost:{port}")]);
        if ip.is_ipv6() {
            hosts.push(format!("[::1]:{port}"));
        }
    }
    for name in extra {
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() {
            continue;
        }
        let has_port = name.rsplit_once(':').is_some_and(|(host, p)| {
            !host.ends_with('[') && !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())
        }) && !(name.starts_with('[') && name.ends_with(']'));
        hosts.push(if has_port {
            name
        } else {
            format!("{name}:{port}")
        });
    }
    hosts.dedup();
    hosts
}

/// Equal, in a time that does not depend on where two tokens first differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

/// The value of `name` in a query string, percent-decoded.
pub(crate) fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    form_pairs(query?)
        .find(|(key, _)| key == name)
        .map(|(_, v)| v)
}

/// The pairs of an `application/x-www-form-urlencoded` text.
fn form_pairs(text: &str) -> impl Iterator<Item = (String, String)> + '_ {
    text.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(key), decode(value))
    })
}

/// Percent-decodes a query component (`+` is a space); a malformed escape is kept as written.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of cookie `name`.
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.to_owned())
}

/// Whether the request carries the token: as `Authorization: Bearer`, in the cookie, or in the
/// query.
fn authorized(app: &App, headers: &HeaderMap, uri: &Uri) -> bool {
    let token = app.options.token.as_str();
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    bearer.is_some_and(|b| same(b.trim(), token))
        || cookie(headers, &app.cookie).is_some_and(|c| same(&c, token))
        || query_value(uri.query(), "token").is_some_and(|q| same(&q, token))
}

/// Whether a POST comes from the dashboard's own pages: its `Origin` is the dashboard's, or,
/// where a client sends no `Origin`, the browser says the request is same-origin.
fn same_origin(headers: &HeaderMap, host: &str) -> bool {
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        Some(origin) => origin.eq_ignore_ascii_case(&format!("http://{host}")),
        None => headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|site| site == "same-origin"),
    }
}

/// A refusal: a status and one sentence saying what the request lacks.
fn refuse(status: StatusCode, message: &str) -> Response {
    let mut response = (status, format!("{message}\n")).into_response();
    secure(response.headers_mut());
    response
}

/// The headers every answer carries.
fn secure(headers: &mut HeaderMap) {
    let set = [
        (header::CONTENT_SECURITY_POLICY, CSP),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        // Not `no-referrer`: under it a browser sends `Origin: null` on the page's own form
        // posts, which cannot be told from a sandboxed frame's.
        (header::REFERRER_POLICY, "same-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ];
    for (name, value) in set {
        headers.insert(name, HeaderValue::from_static(value));
    }
    headers
        .entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
}

/// Runs the checks, then the handler; adds the headers to whatever it answers.
pub(crate) async fn check(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase);
    let Some(host) = host.filter(|h| app.hosts.contains(h)) else {
        return refuse(
            StatusCode::FORBIDDEN,
            "refused: the Host header does not name this dashboard's address",
        );
    };
    if !authorized(&app, request.headers(), request.uri()) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "refused: this dashboard needs its access token; open the address \
             `verdict dashboard` printed (it ends in ?token=…)",
        );
    }
    if request.method() == Method::POST && !same_origin(request.headers(), &host) {
        return refuse(
            StatusCode::FORBIDDEN,
            "refused: an action must come from the dashboard's own page",
        );
    }
    if let Some(response) = trade_token_for_cookie(&app, &request) {
        return response;
    }
    let mut response = next.run(request).await;
    secure(response.headers_mut());
    response
}

/// A page opened with `?token=…` is sent to the same address without it, with the token in a
/// cookie: the token then stays out of the address bar, the history and any copied link. The
/// event stream and `/metrics` keep taking it in the query (scrapers send no cookies).
fn trade_token_for_cookie(app: &App, request: &Request) -> Option<Response> {
    let uri = request.uri();
    let path = uri.path();
    if request.method() != Method::GET || path == "/events" || path == "/metrics" {
        return None;
    }
    let query = uri.query()?;
    if !form_pairs(query).any(|(key, _)| key == "token") {
        return None;
    }
    let rest: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some("token"))
        .collect();
    let location = if rest.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", rest.join("&"))
    };
    let cookie = format!(
        "{}={}; Path=/; HttpOnly; SameSite=Strict",
        app.cookie, app.options.token
    );
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    headers.insert(header::LOCATION, HeaderValue::from_str(&location).ok()?);
    headers.insert(header::SET_COOKIE, HeaderValue::from_str(&cookie).ok()?);
    secure(headers);
    Some(response)
}

/// The pairs of a form body, for the actions.
pub(crate) fn form(body: &str) -> Vec<(String, String)> {
    form_pairs(body).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loopback_server_answers_its_address_and_localhost_only() {
        let addr: SocketAddr = "127.0.0.1:8470".parse().expect("an address");
        assert_eq!(hosts(addr, &[]), ["127.0.0.1:8470", "localhost:8470"]);
        let any: SocketAddr = "0.0.0.0:9000".parse().expect("an address");
        assert_eq!(
            hosts(any, &["build.example.org".into(), "10.0.0.5:9000".into()]),
            [
                "127.0.0.1:9000",
                "localhost:9000",
                "build.example.org:9000",
                "10.0.0.5:9000"
            ]
        );
    }

    #[test]
    fn query_values_are_decoded_and_malformed_escapes_kept() {
        let query = Some("q=a+b%2Fc&token=t%3D1&bad=%zz%4");
        assert_eq!(query_value(query, "q").as_deref(), Some("a b/c"));
        assert_eq!(query_value(query, "token").as_deref(), Some("t=1"));
        assert_eq!(query_value(query, "bad").as_deref(), Some("%zz%4"));
        assert_eq!(query_value(query, "none"), None);
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
        assert_ne!(derive("t", "csrf"), derive("u", "csrf"));
    }
}
