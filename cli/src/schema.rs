//! `verdict schema <run|config>`: the JSON Schemas of the `verdict-run/1` report and of
//! verdict.toml, generated from the Rust types that write and read them, for the programs and
//! editors that check those files. `cargo xtask schemas` writes them to `schemas/`, and a test
//! fails when the files there are out of date.

use std::io::Write;

use anyhow::Result;
use verdict_core::render::json::RunDocument;

use crate::exit::ExitCode;

/// Arguments of `verdict schema`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Which schema
    #[arg(value_enum)]
    which: Which,
}

/// The documents verdict has a schema of.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Which {
    /// The `verdict-run/1` JSON report (`verdict run --format json`)
    Run,
    /// verdict.toml
    Config,
}

/// The `verdict-run/1` report's schema, of the documents verdict writes: a field it always writes
/// (`null` when empty) is required, one it omits when empty is not.
fn run_schema() -> schemars::Schema {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut schema = generator.into_root_schema_for::<RunDocument>();
    schema.insert("title".to_owned(), "verdict-run/1".into());
    schema.insert(
        "description".to_owned(),
        "The report of `verdict run --format json`; docs/json-report.md describes every field."
            .into(),
    );
    schema
}

/// Prints the schema, pretty-printed, with a final newline.
pub(crate) fn run(args: &Args) -> Result<ExitCode> {
    let schema = match args.which {
        Which::Run => run_schema(),
        Which::Config => crate::config::json_schema(),
    };
    let mut text = serde_json::to_string_pretty(&schema)?;
    text.push('\n');
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::Success)
}
