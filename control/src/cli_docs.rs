//! Shell completions and man pages made from a program's clap definitions, for every
//! Canopy binary (`canopy-switch`, `canopyd`, `canopyctl`, `canopy-testbed`):
//! `clap_complete` and `clap_mangen`, one page per command. Each binary offers them
//! through hidden commands ([`Docs`]; canopyd through hidden flags) that
//! `packaging/completions-man/generate` runs for the Debian package.

use clap::{Command, CommandFactory, FromArgMatches, Subcommand};
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

/// What a command line asks for: the program's own command `C`, or one of [`Docs`].
#[derive(Debug)]
pub enum Invocation<C> {
    /// The program's own command line.
    Cli(C),
    /// A hidden documentation command.
    Docs(Docs),
}

/// This process's command line: `C`'s commands, or one of the hidden [`Docs`] ones.
/// `check` runs on a parsed `C` (usage rules clap cannot express); a usage error, its
/// or clap's, ends the process with exit status 2 and clap's message.
pub fn parse<C: CommandFactory + FromArgMatches>(
    check: impl FnOnce(&C) -> Result<(), clap::Error>,
) -> Invocation<C> {
    parse_from(std::env::args_os(), check).unwrap_or_else(|e| e.exit())
}

/// [`parse`] of `args` (the program name first), the error returned formatted for the
/// whole command.
pub fn parse_from<C: CommandFactory + FromArgMatches>(
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString> + Clone>,
    check: impl FnOnce(&C) -> Result<(), clap::Error>,
) -> Result<Invocation<C>, clap::Error> {
    let mut cmd = with_docs(C::command());
    let r = cmd
        .try_get_matches_from_mut(args)
        .and_then(|m| match m.subcommand_name() {
            Some(n) if Docs::has_subcommand(n) => Docs::from_arg_matches(&m).map(Invocation::Docs),
            _ => C::from_arg_matches(&m).and_then(|c| check(&c).map(|()| Invocation::Cli(c))),
        });
    r.map_err(|e| e.format(&mut cmd))
}

/// `cmd` with the hidden [`Docs`] commands added (what [`parse`] parses).
pub fn with_docs(cmd: Command) -> Command {
    Docs::augment_subcommands(cmd)
}

/// [`render`] for program `name` whose definitions are `C`, onto standard output.
pub fn print<C: CommandFactory>(d: &Docs, name: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let text = render(d, C::command(), name)?;
    std::io::stdout().lock().write_all(&text)
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

    #[derive(Parser, Debug)]
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

    #[test]
    fn a_command_line_is_the_program_s_or_a_hidden_docs_one() {
        let parse = |args: &[&str]| parse_from::<Demo>(args.iter().copied(), |_| Ok(()));
        assert!(matches!(
            parse(&["demo", "one", "--pick", "a"]),
            Ok(Invocation::Cli(Demo::One { .. }))
        ));
        assert!(matches!(
            parse(&["demo", "completions", "zsh"]),
            Ok(Invocation::Docs(Docs::Completions { shell: Shell::Zsh }))
        ));
        assert!(matches!(
            parse(&["demo", "man"]),
            Ok(Invocation::Docs(Docs::Man { dir: None }))
        ));
        let e = parse(&["demo", "one", "--pick", "c"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        // the program's own rule, checked after clap's
        let refuse = |d: &Demo| match d {
            Demo::Two => Err(clap::Error::raw(
                clap::error::ErrorKind::ArgumentConflict,
                "two is not allowed here",
            )),
            _ => Ok(()),
        };
        let e = parse_from::<Demo>(["demo", "two"], refuse).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict);
        assert!(parse_from::<Demo>(["demo", "man"], refuse).is_ok());
        let mut cmd = with_docs(Demo::command());
        cmd.build();
        cmd.debug_assert();
    }
}
