//! The hidden commands `canopy-testbed completions SHELL` and `canopy-testbed man [DIR]`: the
//! shell completions and the man pages, generated from the clap definitions of [`cli`]
//! (`packaging/completions-man/generate` runs them for the package). They are kept out
//! of [`Cli`] so that neither the completions nor the pages offer them.
//!
//! [`cli`]: crate::cli

use crate::cli::Cli;
use anyhow::Result;
use canopy_control::cli_docs;
use std::process::ExitCode;

pub use cli_docs::{Docs, Invocation};

/// The command line of this process: a usage error (exit status 2) ends the process.
pub fn parse() -> Invocation<Cli> {
    cli_docs::parse(|_| Ok(()))
}

/// Print the completions or the man page on stdout, or write the man pages.
pub fn print(d: Docs) -> Result<ExitCode> {
    match cli_docs::print::<Cli>(&d, "canopy-testbed") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => crate::stdout_failed(e),
        r => r.map(|()| ExitCode::SUCCESS).map_err(Into::into),
    }
}
