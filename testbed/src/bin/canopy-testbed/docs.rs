//! The hidden commands `canopy-testbed completions SHELL` and `canopy-testbed man [DIR]`: the
//! shell completions and the man pages, generated from the clap definitions of [`cli`]
//! (`packaging/completions-man/generate` runs them for the package). They are kept out
//! of [`Cli`] so that neither the completions nor the pages offer them.
//!
//! [`cli`]: crate::cli

use crate::cli::Cli;
use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Subcommand};
use std::process::ExitCode;

pub use canopy_control::cli_docs::Docs;

/// What the command line asks for.
pub enum Invocation {
    Cli(Box<Cli>),
    Docs(Docs),
}

/// The command line of this process: a usage error (exit status 2) ends the process.
pub fn parse() -> Invocation {
    let mut cmd = Docs::augment_subcommands(Cli::command());
    let m = cmd.get_matches_mut();
    let r = match m.subcommand_name() {
        Some(n) if Docs::has_subcommand(n) => Docs::from_arg_matches(&m).map(Invocation::Docs),
        _ => Cli::from_arg_matches(&m).map(|cli| Invocation::Cli(Box::new(cli))),
    };
    r.unwrap_or_else(|e| e.format(&mut cmd).exit())
}

/// Print the completions or the man page on stdout, or write the man pages.
pub fn print(d: Docs) -> Result<ExitCode> {
    let text = canopy_control::cli_docs::render(&d, Cli::command(), "canopy-testbed")?;
    use std::io::Write as _;
    if let Err(e) = std::io::stdout().lock().write_all(&text) {
        crate::stdout_failed(e)
    }
    Ok(ExitCode::SUCCESS)
}
