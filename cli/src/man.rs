//! `verdict man`: the man page, generated from the clap definition of the command line with
//! `clap_mangen`, so it never drifts from `--help`. The packages install it (`cargo xtask dist`).

use std::io::{self, Write};

use anyhow::Context as _;
use clap::CommandFactory;

use crate::exit::ExitCode;

/// Arguments of `verdict man`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  verdict man > verdict.1 && man -l verdict.1
  verdict man run > verdict-run.1")]
pub(crate) struct Args {
    /// Print the page of this subcommand (`verdict man run` → verdict-run(1)) rather than
    /// verdict(1); several names reach nested subcommands (`verdict man hook install`)
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
}

/// Writes the roff page of verdict, or of the subcommand `args` names, to stdout.
pub(crate) fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let page = render(&args.command)?;
    let mut stdout = io::stdout().lock();
    stdout.write_all(&page)?;
    stdout.flush()?;
    Ok(ExitCode::Success)
}

/// The roff page of the (sub)command at `path` (empty: verdict itself).
fn render(path: &[String]) -> anyhow::Result<Vec<u8>> {
    // As `clap_mangen::generate_to` does: no `help` subcommand on the page, and a built command
    // whose subcommands carry their display names (`verdict-run`).
    let mut command = crate::Cli::command().disable_help_subcommand(true);
    command.build();
    let mut current = &command;
    for name in path {
        current = current
            .find_subcommand(name)
            .with_context(|| format!("no subcommand `{name}` in `{}`", display_name(current)))?;
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(current.clone().version(crate::VERSION))
        .source(format!("verdict {}", crate::VERSION))
        .manual("verdict manual")
        .render(&mut page)
        .context("failed to render the man page")?;
    Ok(page)
}

/// `verdict-hook-install` for a built subcommand, `verdict` for the root.
fn display_name(command: &clap::Command) -> &str {
    command
        .get_display_name()
        .unwrap_or_else(|| command.get_name())
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn a_subcommand_page_is_titled_with_its_display_name() {
        let page = render(&["run".to_owned()]).expect("the page of `verdict run`");
        let page = String::from_utf8(page).expect("a UTF-8 page");
        assert!(page.starts_with(".ie"), "{page}");
        assert!(page.contains(".TH verdict-run 1"), "{page}");
    }

    #[test]
    fn an_unknown_subcommand_is_an_error_naming_it() {
        let error = render(&["nope".to_owned()]).expect_err("`nope` is no subcommand");
        assert_eq!(error.to_string(), "no subcommand `nope` in `verdict`");
    }
}
