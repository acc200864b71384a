//! verdict-plugin-host's integration tests: one test binary, loading real plugin libraries.

mod support;

mod pipeline;
mod plugins;
