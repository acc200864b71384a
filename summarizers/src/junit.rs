//! JUnit XML (pytest `--junitxml`, and any other tool that writes it), turned into a
//! [`verdict_core::Report`].
