//! The logger of the Canopy binaries (`canopy-switch`, `canopyd`, `canopy-testbed`,
//! `canopy-vethbench`): `tracing` events written to stderr through a filter of
//! `RUST_LOG`-style directives, taken from `--log` when it is given, else from the
//! environment's `RUST_LOG`, else the binary's default level.
//!
//! A filter is a comma-separated list of directives, each a level (`error`, `warn`,
//! `info`, `debug`, `trace`, `off`) or `TARGET=LEVEL`, where a target is a module path
//! such as `canopy_switch` or `canopy_proto::serve` (underscores, not the binary's
//! dashes): `warn,canopy_switch=debug` logs warnings and errors, and everything down to
//! debug from the switch's own crate. A bare word that is not a level names a target
//! (all its levels, nothing else). The syntax is `tracing-subscriber`'s [`EnvFilter`].
//!
//! A filter that does not parse is refused, never ignored in part: `--log` is checked
//! by clap (its [`Filter`] value parser, exit status 2), `RUST_LOG` by [`init`].

use std::ffi::OsString;
use std::fmt;
use std::str::FromStr;
use tracing_subscriber::filter::{Directive, EnvFilter, LevelFilter};

/// The environment variable read when `--log` is not given.
pub const ENV: &str = "RUST_LOG";

/// What a directive may be, for error messages and `--log`'s help.
pub const SYNTAX: &str = "a level (error, warn, info, debug, trace, off) or TARGET=LEVEL, \
                          comma-separated, e.g. `warn,canopy_switch=debug`";

/// A filter directive that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{directive}` is not a log filter directive ({reason}); give {SYNTAX}")]
pub struct DirectiveError {
    /// The directive (one comma-separated part of the filter; empty: an empty filter).
    pub directive: String,
    /// What the parser says of it.
    pub reason: String,
}

/// Why the logger could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// `RUST_LOG` holds a directive that does not parse.
    #[error("{ENV}: {0}")]
    Env(DirectiveError),
    /// `RUST_LOG` is not UTF-8.
    #[error("{ENV} is not UTF-8")]
    EnvNotUnicode,
    /// A checked filter that `tracing-subscriber` still refused.
    #[error(transparent)]
    Filter(DirectiveError),
    /// Another logger was installed in this process first.
    #[error("cannot install the logger: {0}")]
    Install(String),
}

/// A log filter whose directives all parse: `--log`'s value (clap parses it with
/// [`FromStr`], so a bad one exits with status 2 and the reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter(String);

impl Filter {
    /// The filter that lets `level` and the levels above it through, from every target.
    pub fn level(level: LevelFilter) -> Filter {
        Filter(level.to_string().to_ascii_lowercase())
    }

    /// The directives, comma-separated without blanks.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The filter `tracing-subscriber` applies.
    pub fn env_filter(&self) -> Result<EnvFilter, DirectiveError> {
        EnvFilter::builder()
            .parse(&self.0)
            .map_err(|e| DirectiveError {
                directive: self.0.clone(),
                reason: e.to_string(),
            })
    }
}

impl FromStr for Filter {
    type Err = DirectiveError;

    /// Every comma-separated directive parsed on its own, so that the error names the
    /// one that does not parse. Blanks around a directive are dropped (the parser would
    /// take them into the target's name) and so are empty ones (`info,`).
    fn from_str(s: &str) -> Result<Filter, DirectiveError> {
        let parts: Vec<&str> = s
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .collect();
        if parts.is_empty() {
            return Err(DirectiveError {
                directive: s.to_string(),
                reason: "the filter is empty".into(),
            });
        }
        for d in &parts {
            d.parse::<Directive>().map_err(|e| DirectiveError {
                directive: d.to_string(),
                reason: e.to_string(),
            })?;
        }
        Ok(Filter(parts.join(",")))
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The filter to log through: `given` (`--log`) when there is one, else `env` (the
/// value of `RUST_LOG`) when it is set and not empty, else `default`.
pub fn choose(
    given: Option<&Filter>,
    env: Option<OsString>,
    default: LevelFilter,
) -> Result<Filter, LogError> {
    if let Some(f) = given {
        return Ok(f.clone());
    }
    match env {
        Some(v) if !v.is_empty() => {
            let v = v.into_string().map_err(|_| LogError::EnvNotUnicode)?;
            v.parse().map_err(LogError::Env)
        }
        _ => Ok(Filter::level(default)),
    }
}

/// How the log lines look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Each line names its event's target (the module that logged it).
    pub target: bool,
    /// ANSI colours (only when stderr is a terminal: see [`Style::colour_if_terminal`]).
    pub ansi: bool,
}

impl Style {
    /// `target` as given, colours when stderr is a terminal.
    pub fn colour_if_terminal(target: bool) -> Style {
        Style {
            target,
            ansi: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        }
    }
}

/// Install the process's logger: the events [`choose`] lets through (with this
/// process's `RUST_LOG`), one line each on stderr, in `style`; the filter is returned.
pub fn init(
    given: Option<&Filter>,
    default: LevelFilter,
    style: Style,
) -> Result<Filter, LogError> {
    let filter = choose(given, std::env::var_os(ENV), default)?;
    tracing_subscriber::fmt()
        .with_env_filter(filter.env_filter().map_err(LogError::Filter)?)
        .with_writer(std::io::stderr)
        .with_ansi(style.ansi)
        .with_target(style.target)
        .try_init()
        .map_err(|e| LogError::Install(e.to_string()))?;
    Ok(filter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    fn parse(s: &str) -> Result<Filter, DirectiveError> {
        s.parse()
    }

    /// The lines `filter` lets through of one event per (target, level) below.
    fn passed(filter: &Filter) -> String {
        #[derive(Clone)]
        struct Sink(Arc<Mutex<Vec<u8>>>);
        impl Write for Sink {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink(buf.clone());
        let sub = tracing_subscriber::fmt()
            .with_env_filter(filter.env_filter().unwrap())
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .with_target(true)
            .finish();
        tracing::subscriber::with_default(sub, || {
            tracing::error!(target: "canopyd", "canopyd-error");
            tracing::info!(target: "canopyd", "canopyd-info");
            tracing::debug!(target: "canopyd", "canopyd-debug");
            tracing::info!(target: "canopy_switch::server", "switch-info");
            tracing::debug!(target: "canopy_switch::server", "switch-debug");
            tracing::trace!(target: "canopy_switch::server", "switch-trace");
        });
        let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        text.lines()
            .filter_map(|l| l.split_whitespace().last())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn levels_and_target_directives_parse() {
        for (ok, kept) in [
            ("info", "info"),
            ("WARN", "WARN"),
            ("off", "off"),
            ("trace", "trace"),
            ("warn,canopy_switch=debug", "warn,canopy_switch=debug"),
            ("canopy_proto::serve=trace", "canopy_proto::serve=trace"),
            (" info, canopyd=debug ", "info,canopyd=debug"),
            ("info,", "info"),
            ("canopy_switch", "canopy_switch"),
            ("canopyd[push]=debug", "canopyd[push]=debug"),
        ] {
            let f = parse(ok).unwrap();
            assert_eq!(f.as_str(), kept);
            assert!(f.env_filter().is_ok(), "{ok}");
        }
        assert_eq!(Filter::level(LevelFilter::INFO).as_str(), "info");
        assert_eq!(Filter::level(LevelFilter::OFF).as_str(), "off");
    }

    #[test]
    fn a_bad_directive_is_refused_by_name() {
        for (bad, part) in [
            ("canopy_switch=loud", "canopy_switch=loud"),
            ("warn,canopyd=bogus", "canopyd=bogus"),
            ("info,[", "["),
            ("=debug", "=debug"),
            ("!", "!"),
            ("", ""),
            (" , ", " , "),
        ] {
            let e = parse(bad).unwrap_err();
            assert_eq!(e.directive, part, "{bad}");
            let msg = e.to_string();
            assert!(msg.contains("is not a log filter directive"), "{msg}");
            assert!(msg.contains("TARGET=LEVEL"), "{msg}");
        }
    }

    #[test]
    fn the_filter_lets_through_what_its_directives_say() {
        let f = |s: &str| passed(&parse(s).unwrap());
        assert_eq!(f("info"), "canopyd-error canopyd-info switch-info");
        assert_eq!(f("error"), "canopyd-error");
        assert_eq!(f("off"), "");
        assert_eq!(
            f("debug"),
            "canopyd-error canopyd-info canopyd-debug switch-info switch-debug"
        );
        assert_eq!(
            f("warn,canopy_switch=debug"),
            "canopyd-error switch-info switch-debug"
        );
        assert_eq!(
            f("info,canopy_switch::server=trace"),
            "canopyd-error canopyd-info switch-info switch-debug switch-trace"
        );
        // a bare target: that target only, every level
        assert_eq!(f("canopyd"), "canopyd-error canopyd-info canopyd-debug");
        assert_eq!(f("error, canopyd=info"), "canopyd-error canopyd-info");
    }

    #[test]
    fn given_wins_then_rust_log_then_the_default() {
        let debug = parse("debug").unwrap();
        let env = |s: &str| Some(OsString::from(s));
        let pick = |given, env| choose(given, env, LevelFilter::INFO).map(|f| f.0);
        assert_eq!(pick(Some(&debug), env("warn")).unwrap(), "debug");
        // --log is taken as given: a bad RUST_LOG beside it is not read
        assert_eq!(pick(Some(&debug), env("x=loud")).unwrap(), "debug");
        assert_eq!(
            pick(None, env("warn,canopyd=trace")).unwrap(),
            "warn,canopyd=trace"
        );
        assert_eq!(pick(None, None).unwrap(), "info");
        assert_eq!(pick(None, env("")).unwrap(), "info");
        let e = pick(None, env("info,canopyd=loud")).unwrap_err();
        assert!(matches!(&e, LogError::Env(d) if d.directive == "canopyd=loud"));
        assert!(e.to_string().starts_with("RUST_LOG: `canopyd=loud`"), "{e}");
        use std::os::unix::ffi::OsStringExt;
        let e = pick(None, Some(OsString::from_vec(vec![0xff]))).unwrap_err();
        assert!(matches!(e, LogError::EnvNotUnicode));
    }
}
