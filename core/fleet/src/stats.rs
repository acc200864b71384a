//! Fleet analytics (stub).
