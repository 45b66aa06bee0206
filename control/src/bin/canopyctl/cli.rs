//! `canopyctl`'s command line: the clap definitions, and the value parser of its closed
//! sets of names (header kinds, sliced-flit modes, P4 formats, traffic patterns, port
//! states), which clap checks: a word outside the set exits with status 2 and clap's
//! "invalid value" message listing the possible values, which `--help` lists too.

use canopy_control::p4::{self, tna as p4_tna};
use canopy_dataplane::wire::sliced::Mode;
use canopy_dataplane::wire::Kind;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, Command, CommandFactory, Parser, Subcommand};
use std::ffi::OsStr;
use std::marker::PhantomData;
use std::path::PathBuf;

/// A closed set of values the command line names.
pub trait Names: Copy + Send + Sync + 'static {
    /// Every value, in the order `--help` lists them.
    const ALL: &'static [Self];
    /// The value's name on the command line.
    fn name(self) -> &'static str;
    /// The value a command-line word names: one of the names, or an alias the type also
    /// accepts (unlisted).
    fn parse(word: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == word)
    }
}

/// The library's own list, names and parse (which also takes `sliced-flit` and `pathid`).
impl Names for Kind {
    const ALL: &'static [Kind] = &Kind::ALL;
    fn name(self) -> &'static str {
        Kind::name(self)
    }
    fn parse(word: &str) -> Option<Kind> {
        Kind::from_name(word)
    }
}

/// The library's own list, names and parse (which also takes the mode codes 0 to 3,
/// `src-dst` and upper case).
impl Names for Mode {
    const ALL: &'static [Mode] = &Mode::ALL;
    fn name(self) -> &'static str {
        Mode::name(self)
    }
    fn parse(word: &str) -> Option<Mode> {
        Mode::from_name(word)
    }
}

/// The library parses the names ([`p4::Format::from_name`]) but lists none: the list is
/// here, and a unit test checks that every name parses back to its format.
impl Names for p4::Format {
    const ALL: &'static [p4::Format] = &[
        p4::Format::Bmv2Cli,
        p4::Format::P4Runtime,
        p4::Format::BfrtPython,
    ];
    fn name(self) -> &'static str {
        match self {
            p4::Format::Bmv2Cli => "bmv2-cli",
            p4::Format::P4Runtime => "p4runtime",
            p4::Format::BfrtPython => "bfrt-python",
        }
    }
    fn parse(word: &str) -> Option<p4::Format> {
        p4::Format::from_name(word)
    }
}

/// `sim --pattern`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Every host sends to uniformly random other hosts.
    Uniform,
}

impl Names for Pattern {
    const ALL: &'static [Pattern] = &[Pattern::Uniform];
    fn name(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
        }
    }
}

/// `fabric port SWITCH PORT up|down`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortState {
    /// The port comes up, then the fabric uses it again.
    Up,
    /// The fabric is pruned around the port, then it goes down.
    Down,
}

impl Names for PortState {
    const ALL: &'static [PortState] = &[PortState::Up, PortState::Down];
    fn name(self) -> &'static str {
        match self {
            PortState::Up => "up",
            PortState::Down => "down",
        }
    }
}

/// The value parser of a [`Names`] type.
#[derive(Clone, Copy)]
pub struct NameParser<T>(PhantomData<T>);

/// The value parser of `T`'s names (`value_parser = names::<Kind>()`).
pub fn names<T: Names>() -> NameParser<T> {
    NameParser(PhantomData)
}

impl<T: Names> TypedValueParser for NameParser<T> {
    type Value = T;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<T, clap::Error> {
        if let Some(v) = value.to_str().and_then(T::parse) {
            return Ok(v);
        }
        // not a name: clap's own error, which lists the possible values
        PossibleValuesParser::new(T::ALL.iter().map(|v| v.name())).parse_ref(cmd, arg, value)?;
        // a listed name that `T::parse` refuses (the unit tests rule this out)
        Err(cmd.clone().error(
            ErrorKind::InvalidValue,
            format!("`{}` is listed but not accepted", value.to_string_lossy()),
        ))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            T::ALL.iter().map(|v| PossibleValue::new(v.name())),
        ))
    }
}

#[derive(Parser)]
#[command(
    name = "canopyctl",
    version,
    about = "Canopy fabric tool: topologies, addresses, headers, tables, routing oracle",
    after_help = "SPEC is a topology spec such as `fat-tree:k=4`, `znode:z=3,2,3;m=2`, \
                  `transit-full:layers=1` (quote it in the shell: it contains `;`). \
                  `canopyctl families` lists them all. `canopyctl help COMMAND` tells more \
                  of a command; --json (where a command has it) prints its result as JSON."
)]
pub struct Cli {
    /// Print phase timings to stderr.
    #[arg(long, short, global = true)]
    pub verbose: bool,
    #[command(subcommand)]
    pub cmd: Cmd,
}

impl Cli {
    /// What clap cannot say in its definitions: `--mode` takes only `--kind sliced`.
    pub fn check(&self) -> Result<(), clap::Error> {
        let (sub, kind, mode) = match &self.cmd {
            Cmd::Header(a) => ("header", a.kind, a.mode),
            Cmd::Tables(a) => ("tables", a.kind, a.mode),
            Cmd::Check(a) => ("check", a.kind, a.mode),
            Cmd::P4Entries(a) => ("p4-entries", a.kind, a.mode),
            _ => return Ok(()),
        };
        match mode {
            Some(m) if kind != Kind::Sliced => Err(usage_error(
                sub,
                ErrorKind::ArgumentConflict,
                format!(
                    "--mode {m} applies only to --kind sliced, not --kind {}",
                    kind.name()
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// A usage error of subcommand `sub` (its usage line follows the message).
fn usage_error(sub: &str, kind: ErrorKind, msg: String) -> clap::Error {
    let mut cmd = Cli::command();
    cmd.build();
    match cmd.find_subcommand_mut(sub) {
        Some(s) => s.error(kind, msg),
        None => cmd.error(kind, msg),
    }
}

#[derive(clap::Args)]
pub struct SimArgs {
    /// Topology spec.
    pub spec: String,
    /// Header kind.
    #[arg(long, short, value_parser = names::<Kind>())]
    pub kind: Kind,
    /// Threads the switches are spread over (whole pods per thread where the
    /// topology has them).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// How long the sources send, in seconds (0.01 to 3600).
    #[arg(long, default_value_t = 2.0, value_parser = parse_seconds)]
    pub seconds: f64,
    /// Frame size on the wire in bytes, FCS included (64 to 2052; frames are never
    /// shorter than their headers).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u16).range(64..=2052))]
    pub frame_size: u16,
    /// Traffic pattern (uniform: every host sends to uniformly random other hosts).
    #[arg(long, default_value = "uniform", value_parser = names::<Pattern>())]
    pub pattern: Pattern,
    /// Frames per link and per (worker, port) ring (2 to 65536).
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u32).range(2..=65536))]
    pub ring: u32,
    /// Frames a source keeps queued on its link at most (1 to 65536).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub window: u32,
    /// Drain timer of every switch in microseconds: partial TX bursts wait at most
    /// this long (0 to 10000; 0 sends every poll).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(0..=10000))]
    pub drain_us: u32,
    /// Seed for destinations and adaptive choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the final report as JSON (the progress lines stay on stderr).
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct P4EntriesArgs {
    /// Topology spec.
    pub spec: String,
    /// Header kind.
    #[arg(long, short, value_parser = names::<Kind>())]
    pub kind: Kind,
    /// Switch name (as in `canopyctl topo SPEC --list`).
    #[arg(long)]
    pub switch: String,
    /// Output format: bmv2-cli (simple_switch_CLI commands), p4runtime (a
    /// p4.v1.WriteRequest in proto3 JSON; needs --p4info), or bfrt-python (BF Runtime
    /// Python commands for p4/canopy_tna.p4 on Tofino or tofino-model).
    #[arg(long, default_value = "bmv2-cli", value_parser = names::<p4::Format>())]
    pub format: p4::Format,
    /// Sliced-flit addressing mode (--kind sliced only).
    #[arg(long, value_parser = names::<Mode>())]
    pub mode: Option<Mode>,
    /// The P4Info in JSON (`p4c --target bmv2 --arch v1model --p4runtime-files
    /// FILE.json -o OUTDIR p4/canopy.p4`): resolves names to ids for --format p4runtime.
    #[arg(long)]
    pub p4info: Option<PathBuf>,
    /// P4Runtime device id of the WriteRequest (--format p4runtime).
    #[arg(long, default_value_t = 0)]
    pub device_id: u64,
}

#[derive(clap::Args)]
pub struct HeaderArgs {
    /// Topology spec.
    pub spec: String,
    /// Header kind.
    #[arg(long, short, value_parser = names::<Kind>())]
    pub kind: Kind,
    /// Source host.
    #[arg(long)]
    pub src: String,
    /// Destination host.
    #[arg(long)]
    pub dst: String,
    /// Also walk the frame through the fabric and print every hop.
    #[arg(long)]
    pub trace: bool,
    /// Seed for the adaptive choices of the trace.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Sliced-flit addressing mode (--kind sliced only).
    #[arg(long, value_parser = names::<Mode>())]
    pub mode: Option<Mode>,
    /// Print the header (and the trace) as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Topology spec.
    pub spec: String,
    /// Header kind.
    #[arg(long, short, value_parser = names::<Kind>())]
    pub kind: Kind,
    /// Number of random pairs, 1 to 1,000,000 (default: all ordered pairs up to
    /// 100,000, else 10,000 random).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_PAIRS))]
    pub pairs: Option<u64>,
    /// Seed for pair sampling and adaptive choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Sliced-flit addressing mode (--kind sliced only).
    #[arg(long, value_parser = names::<Mode>())]
    pub mode: Option<Mode>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TablesArgs {
    /// Topology spec.
    pub spec: String,
    /// Header kind.
    #[arg(long, short, value_parser = names::<Kind>())]
    pub kind: Kind,
    /// ID bits and entries per switch (max and total), by level.
    #[arg(long)]
    pub summary: bool,
    /// Print the full table of one switch (by name) as JSON.
    #[arg(long, conflicts_with = "summary")]
    pub switch: Option<String>,
    /// Sliced-flit addressing mode (--kind sliced only).
    #[arg(long, value_parser = names::<Mode>())]
    pub mode: Option<Mode>,
    /// Print the summary as JSON (--switch prints JSON anyway).
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// List the topology families, with an example spec each.
    Families {
        /// Print the list as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Build a topology and describe it.
    ///
    /// By default (or with --summary): counts of switches (by level), ports, links and
    /// hosts, and the header kinds that apply. With --list: every switch with its ports,
    /// their roles, labels, groups and peers.
    Topo {
        /// Topology spec.
        spec: String,
        /// Counts only: switches (by level), ports, links, hosts, header kinds.
        #[arg(long)]
        summary: bool,
        /// List every switch with its ports and peers.
        #[arg(long, conflicts_with = "summary")]
        list: bool,
        /// Print the summary (or the list) as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show hosts' addresses.
    ///
    /// The logical index, then the family's own forms: Znode labels and physical address,
    /// the fat-tree port address, Transit's L = C·P, ….
    Address {
        /// Topology spec.
        spec: String,
        /// Hosts: `h<index>`, `<index>`, or a family form (`5.2.3` for a fat-tree pod.edge.host,
        /// `(1;1,0,2)` or `phys:42` for a Znode, `0xCC0234` for Transit, …).
        #[arg(required = true)]
        hosts: Vec<String>,
        /// Print the addresses as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the Canopy header a source puts on a frame to a destination.
    ///
    /// The header is the common prefix plus the kind's body, in hex. With --trace, the
    /// frame is also walked through the fabric with the dataplane's own decisions, one
    /// line per hop; the exit status is 1 when the walk fails the oracle's checks.
    Header(HeaderArgs),
    /// Compute per-switch forwarding tables.
    ///
    /// By default (or with --summary): ID bits and entries per switch (max and total, by
    /// level). With --switch NAME: that switch's tables as JSON, as canopy-switch loads
    /// them.
    Tables(TablesArgs),
    /// Print one switch's table entries for the P4 programs.
    ///
    /// The entries of one switch for the P4 program `p4/canopy.p4` (`simple_switch_CLI`
    /// commands or P4Runtime JSON) or, with --format bfrt-python, for the Tofino program
    /// `p4/canopy_tna.p4`, from the same tables the Rust switch uses (docs/p4.md).
    P4Entries(P4EntriesArgs),
    /// Print the P4Info of p4/canopy.p4 without p4c.
    ///
    /// The program's P4Info in proto3 JSON (the form `p4c --p4runtime-files X.json`
    /// writes), made from the program's description: the same tables, keys, actions,
    /// widths and counters as p4c's, ids by kind prefix and position. A controller pushes
    /// it with SetForwardingPipelineConfig to canopy-switch, and `p4-entries --format
    /// p4runtime --p4info` resolves names through it (docs/p4runtime.md).
    P4info,
    /// Write the constant entries of the Tofino program.
    ///
    /// The constant entries of `p4/canopy_tna.p4` (funnel shifts, masks, header checks, the
    /// drop priority encoder, …) go into `p4/tna_entries/`, one file per table, which the
    /// program includes (docs/p4.md). Run it from the repository root.
    P4TnaEntries {
        /// The directory of the files.
        #[arg(long, default_value = p4_tna::const_entries::DIR)]
        dir: PathBuf,
        /// Compare the files in --dir with the generator instead of writing them; exit
        /// status 1 at the first difference.
        #[arg(long)]
        check: bool,
    },
    /// Run the routing oracle over pairs of hosts.
    ///
    /// Walks pairs through the fabric with the dataplane's own decisions and checks
    /// delivery, loop freedom and up*-down* paths, plus the kind's own predictions. Exit
    /// status 1 when a pair fails.
    Check(CheckArgs),
    /// Simulate the whole fabric in one process.
    ///
    /// Every switch is a forwarding engine on in-process links, every host a traffic
    /// source and sink. Prints delivered Mpps, drops by reason and the per-switch
    /// conservation check (rx = tx + drops); a progress line per second goes to stderr.
    /// Fails if a frame went to the wrong host or a counter does not conserve.
    Sim(SimArgs),
    /// Talk to a running canopyd.
    ///
    /// Status of every switch and port, counters, push tables again, set a port down or
    /// up (fault drills). Exit status 1 when the daemon answers with an error or cannot be
    /// reached.
    Fabric {
        /// canopyd's control socket (`[daemon] control`; before or after the fabric
        /// command). Default: the one canopyd running here, found at
        /// /run/canopyd/canopyd.sock or as a testbed fabric's under /run/canopy-testbed.
        #[arg(long, global = true)]
        daemon: Option<PathBuf>,
        /// Print the daemon's JSON answer instead of the text view.
        #[arg(long, global = true)]
        json: bool,
        #[command(subcommand)]
        cmd: FabricCmd,
    },
}

#[derive(Subcommand)]
pub enum FabricCmd {
    /// Show every switch, and every port that is down or pruned.
    ///
    /// Per switch: up, tables current, pid, pushes, pruned ports; then the ports that are
    /// down or pruned, and the pruning warnings.
    Status,
    /// Show the counters of one switch or of all.
    ///
    /// The switches' own counters, as canopyd last polled them.
    Counters {
        /// Switch name (default: every switch).
        switch: Option<String>,
    },
    /// Push the wanted tables again to one switch or to all.
    Push {
        /// Switch name (default: every switch).
        switch: Option<String>,
    },
    /// Set a port down or up.
    ///
    /// Down: the fabric is pruned around the port first, then the port goes down. Up: the
    /// port comes up, then the fabric uses it again.
    Port {
        /// Switch name.
        switch: String,
        /// Port number.
        port: u16,
        /// The port's new state.
        #[arg(value_parser = names::<PortState>())]
        state: PortState,
    },
}

/// `--seconds`: a number of seconds from 0.01 to 3600.
fn parse_seconds(s: &str) -> anyhow::Result<f64> {
    let v: f64 = s
        .parse()
        .map_err(|_| anyhow::anyhow!("`{s}` is not a number of seconds"))?;
    if !(0.01..=3600.0).contains(&v) {
        anyhow::bail!("{v} s is outside 0.01 to 3600");
    }
    Ok(v)
}

/// Most random pairs `check --pairs` walks (about a second per million on small fabrics).
pub const MAX_PAIRS: u64 = 1_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let cli = Cli::try_parse_from(std::iter::once("canopyctl").chain(args.iter().copied()))?;
        cli.check()?;
        Ok(cli)
    }

    fn check_pairs_arg(n: &str) -> Result<Option<u64>, String> {
        let cli = parse(&["check", "fat-tree:k=4", "-k", "sliced", "--pairs", n])
            .map_err(|e| e.to_string())?;
        match cli.cmd {
            Cmd::Check(a) => Ok(a.pairs),
            _ => Err("not a check".into()),
        }
    }

    #[test]
    fn pairs_out_of_range_are_refused_by_name() {
        // `--pairs 18446744073709551615` panicked (capacity overflow) and `--pairs
        // 100000000` ran for minutes; `--pairs 0` passed a check of nothing.
        assert_eq!(check_pairs_arg("10"), Ok(Some(10)));
        assert_eq!(check_pairs_arg("1000000"), Ok(Some(1_000_000)));
        for bad in ["0", "1000001", "100000000", "18446744073709551615", "x"] {
            let e = check_pairs_arg(bad).unwrap_err();
            assert!(e.contains("--pairs"), "{bad}: {e}");
        }
    }

    /// Every value's name parses back to it, and the names are distinct.
    fn round_trips<T: Names + PartialEq + std::fmt::Debug>() {
        for (i, &v) in T::ALL.iter().enumerate() {
            assert_eq!(T::parse(v.name()), Some(v), "{}", v.name());
            assert!(
                T::ALL[..i].iter().all(|w| w.name() != v.name()),
                "{} twice",
                v.name()
            );
        }
    }

    #[test]
    fn every_name_round_trips() {
        round_trips::<Kind>();
        round_trips::<Mode>();
        round_trips::<p4::Format>();
        round_trips::<Pattern>();
        round_trips::<PortState>();
        // the lists are the library's: every variant is offered
        assert_eq!(Kind::ALL.len(), <Kind as Names>::ALL.len());
        assert_eq!(Mode::ALL.len(), <Mode as Names>::ALL.len());
        // the library's parse of each format name agrees with the name
        for &f in <p4::Format as Names>::ALL {
            assert_eq!(p4::Format::from_name(f.name()), Some(f));
        }
    }

    #[test]
    fn kind_and_mode_are_typed_with_the_library_aliases() {
        let header = |kind: &str, mode: Option<&str>| {
            let mut args = vec![
                "header",
                "fat-tree:k=4",
                "-k",
                kind,
                "--src",
                "0",
                "--dst",
                "1",
            ];
            args.extend(mode.map(|m| ["--mode", m]).into_iter().flatten());
            parse(&args).map(|c| match c.cmd {
                Cmd::Header(a) => (a.kind, a.mode),
                _ => unreachable!("parsed as header"),
            })
        };
        assert_eq!(header("path-id", None).unwrap(), (Kind::PathId, None));
        assert_eq!(header("pathid", None).unwrap(), (Kind::PathId, None));
        assert_eq!(header("sliced-flit", None).unwrap(), (Kind::Sliced, None));
        assert_eq!(
            header("sliced", Some("srcdst")).unwrap(),
            (Kind::Sliced, Some(Mode::SrcDst))
        );
        assert_eq!(
            header("sliced", Some("3")).unwrap(),
            (Kind::Sliced, Some(Mode::Dst))
        );
        let e = header("bogus", None).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.to_string().contains("sliced, transit, path-id"), "{e}");
        let e = header("sliced", Some("diagonal")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
        assert!(e.to_string().contains("sliced, flat, srcdst, dst"), "{e}");
        let e = header("transit", Some("flat")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ArgumentConflict);
        assert_eq!(e.exit_code(), 2);
        assert!(
            e.to_string()
                .contains("--mode flat applies only to --kind sliced"),
            "{e}"
        );
    }

    #[test]
    fn port_state_and_format_are_typed() {
        let cli = parse(&["fabric", "port", "sw", "3", "down"]).unwrap();
        assert!(matches!(
            cli.cmd,
            Cmd::Fabric {
                cmd: FabricCmd::Port {
                    state: PortState::Down,
                    port: 3,
                    ..
                },
                ..
            }
        ));
        let e = parse(&["fabric", "port", "sw", "3", "sideways"])
            .err()
            .expect("refused");
        assert!(e.to_string().contains("[possible values: up, down]"), "{e}");
        let cli = parse(&[
            "p4-entries",
            "fat-tree:k=4",
            "-k",
            "sliced",
            "--switch",
            "x",
        ])
        .unwrap();
        assert!(matches!(
            cli.cmd,
            Cmd::P4Entries(P4EntriesArgs {
                format: p4::Format::Bmv2Cli,
                ..
            })
        ));
    }

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
    }
}
