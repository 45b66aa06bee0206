//! The hidden commands `canopyctl completions SHELL` and `canopyctl man [DIR]`: the
//! shell completions and the man pages, generated from the clap definitions of [`cli`]
//! (`packaging/completions-man/generate` runs them for the package). They are kept out
//! of [`Cli`] so that neither the completions nor the pages offer them.
//!
//! [`cli`]: crate::cli

use crate::cli::Cli;
use anyhow::Result;
use clap::{CommandFactory, FromArgMatches, Subcommand};

pub use canopy_control::cli_docs::Docs;

/// What the command line asks for.
pub enum Invocation {
    Cli(Cli),
    Docs(Docs),
}

/// The command line of this process, checked ([`Cli::check`]): a usage error (exit
/// status 2) ends the process.
pub fn parse() -> Invocation {
    let mut cmd = Docs::augment_subcommands(Cli::command());
    let m = cmd.get_matches_mut();
    let r = match m.subcommand_name() {
        Some(n) if Docs::has_subcommand(n) => Docs::from_arg_matches(&m).map(Invocation::Docs),
        _ => Cli::from_arg_matches(&m).and_then(|cli| cli.check().map(|()| Invocation::Cli(cli))),
    };
    r.unwrap_or_else(|e| e.format(&mut cmd).exit())
}

/// Print the completions or the man page on stdout, or write the man pages.
pub fn print(d: Docs) -> Result<()> {
    let text = canopy_control::cli_docs::render(&d, Cli::command(), "canopyctl")?;
    use std::io::Write as _;
    if let Err(e) = std::io::stdout().lock().write_all(&text) {
        crate::stdout_failed(e)
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
