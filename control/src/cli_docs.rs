//! Shell completions and man pages made from a program's clap definitions, for every
//! Canopy binary (`canopy-switch`, `canopyd`, `canopyctl`, `canopy-testbed`):
//! `clap_complete` and `clap_mangen`, one page per command. Each binary offers them
//! through hidden commands ([`Docs`]; canopyd through hidden flags) that
//! `packaging/completions-man/generate` runs for the Debian package.

use clap::{Command, Subcommand};
use std::path::{Path, PathBuf};

/// The shells completions are made for (bash, zsh, fish, elvish, powershell).
pub use clap_complete::Shell;

// The hidden commands `completions SHELL` and `man [DIR]`, added to a program's own
// command only when parsing, so neither its completions nor its pages offer them. (A
// doc comment here would become the about text of the whole command.)
#[allow(missing_docs)]
#[derive(Subcommand, Debug, Clone, PartialEq, Eq)]
pub enum Docs {
    /// Print the completion script of a shell.
    #[command(hide = true)]
    Completions {
        /// The shell.
        shell: Shell,
    },
    /// Print the man page, or write one page per command into DIR.
    #[command(hide = true)]
    Man {
        /// The directory of the pages (PROGRAM.1, PROGRAM-COMMAND.1, ...).
        dir: Option<PathBuf>,
    },
}

/// What `d` asks of program `name` whose definitions are `cmd`: the text for stdout
/// (the completions, or the program's man page), or nothing after writing the pages
/// into the directory.
pub fn render(d: &Docs, cmd: Command, name: &str) -> std::io::Result<Vec<u8>> {
    let mut text = Vec::new();
    match d {
        Docs::Completions { shell } => text = completions(*shell, cmd, name),
        // no `help` command in the pages (as in write_man_pages)
        Docs::Man { dir: None } => {
            man_page(cmd.disable_help_subcommand(true), name).render(&mut text)?
        }
        Docs::Man { dir: Some(dir) } => write_man_pages(cmd, dir, name).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot write the man pages into {}: {e}", dir.display()),
            )
        })?,
    }
    Ok(text)
}

/// The completion script of `shell` for program `name`.
pub fn completions(shell: Shell, mut cmd: Command, name: &str) -> Vec<u8> {
    let mut text = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut text);
    text
}

/// The man page of `cmd` (the whole program or one of its commands, built), in the
/// manual "Canopy", its source `name VERSION`.
pub fn man_page(cmd: Command, name: &str) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd)
        .source(format!("{name} {}", env!("CARGO_PKG_VERSION")))
        .manual("Canopy")
        // no date, written as a blank: an empty one would leave its place on the `.TH`
        // line to the source
        .date(" ")
}

/// One page per visible command into `dir` (created): `NAME.1`, `NAME-COMMAND.1`,
/// `NAME-COMMAND-SUB.1`, ...
pub fn write_man_pages(cmd: Command, dir: &Path, name: &str) -> std::io::Result<()> {
    fn write(cmd: &Command, dir: &Path, name: &str) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            write(sub, dir, name)?;
        }
        man_page(cmd.clone(), name).generate_to(dir).map(drop)
    }
    std::fs::create_dir_all(dir)?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    write(&cmd, dir, name)
}

/// Checks that every command under `cmd` (but `help`) has a summary, its `-h` line, that
/// is one short sentence (at most 80 bytes, no sentence break); the details belong in its
/// long help. `Err` names the first command that breaks it. For the binaries' tests.
pub fn check_one_sentence_summaries(cmd: &Command, path: &str) -> Result<(), String> {
    for sub in cmd.get_subcommands() {
        let name = format!("{path} {}", sub.get_name());
        if sub.get_name() != "help" {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            if about.is_empty() {
                return Err(format!("{name}: no summary"));
            }
            if about.len() > 80 || about.trim_end_matches('.').contains(". ") {
                return Err(format!("{name}: {about}"));
            }
        }
        check_one_sentence_summaries(sub, &name)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, CommandFactory, Parser};

    #[derive(Parser)]
    #[command(name = "demo")]
    enum Demo {
        /// Do one thing.
        One {
            #[arg(long, value_parser = ["a", "b"])]
            pick: String,
        },
        /// Do another.
        Two,
    }

    #[test]
    fn pages_per_command_and_completions_with_values() {
        let dir = tempfile::tempdir().unwrap();
        write_man_pages(Demo::command(), dir.path(), "demo").unwrap();
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["demo-one.1", "demo-two.1", "demo.1"]);
        let page = render(&Docs::Man { dir: None }, Demo::command(), "demo").unwrap();
        let page = String::from_utf8(page).unwrap();
        assert!(page.contains(".TH") && page.contains("demo 0.") && page.contains("one"));
        let bash = completions(Shell::Bash, Demo::command(), "demo");
        let bash = String::from_utf8(bash).unwrap();
        assert!(bash.contains("--pick") && bash.contains("a b"), "{bash}");
        // the hidden commands augment a program's command without being offered
        let mut cmd = Docs::augment_subcommands(Command::new("x").arg(Arg::new("y")));
        cmd.build();
        assert!(cmd.find_subcommand("man").is_some_and(|c| c.is_hide_set()));
        // summaries: one sentence each, or the first offender is named
        assert_eq!(
            check_one_sentence_summaries(&Demo::command(), "demo"),
            Ok(())
        );
        let two = Command::new("x").subcommand(Command::new("y").about("One. Two."));
        assert_eq!(
            check_one_sentence_summaries(&two, "x"),
            Err("x y: One. Two.".to_string())
        );
        let none = Command::new("x").subcommand(Command::new("z"));
        assert_eq!(
            check_one_sentence_summaries(&none, "x"),
            Err("x z: no summary".to_string())
        );
    }
}
