//! The HTTP server: every request needs the access token and a `Host` naming the address it
//! listens on; pages, server-sent events, actions and `/metrics`.
