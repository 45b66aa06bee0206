//! The hidden commands `canopyctl completions SHELL` and `canopyctl man [DIR]`: the
//! shell completions and the man pages, generated from the clap definitions of [`cli`]
//! (`packaging/completions-man/generate` runs them for the package). They are kept out
//! of [`Cli`] so that neither the completions nor the pages offer them.
//!
//! [`cli`]: crate::cli

use crate::cli::Cli;
use anyhow::Result;
use canopy_control::cli_docs;

pub use cli_docs::{Docs, Invocation};

/// The command line of this process, checked ([`Cli::check`]): a usage error (exit
/// status 2) ends the process.
pub fn parse() -> Invocation<Cli> {
    cli_docs::parse(Cli::check)
}

/// Print the completions or the man page on stdout, or write the man pages.
pub fn print(d: Docs) -> Result<()> {
    match cli_docs::print::<Cli>(&d, "canopyctl") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => crate::stdout_failed(e),
        r => Ok(r?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Subcommand};

    #[test]
    fn the_command_with_the_hidden_ones_is_consistent() {
        let mut cmd = Docs::augment_subcommands(Cli::command());
        cmd.build();
        for hidden in ["completions", "man"] {
            let sub = cmd.find_subcommand(hidden).expect(hidden);
            assert!(sub.is_hide_set(), "{hidden}");
        }
        cmd.debug_assert();
        // the definitions the completions and pages come from have neither
        assert!(Cli::command().find_subcommand("man").is_none());
    }
}
