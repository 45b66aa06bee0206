//! The testbed's error type.

use thiserror::Error;

/// Everything that can go wrong while wiring, running or measuring.
#[derive(Debug, Error)]
pub enum TestbedError {
    /// Network namespaces and veths need root.
    #[error("this must run as root (network namespaces, veth pairs and AF_PACKET sockets need it); try sudo")]
    NotRoot,
    /// A required tool is not installed.
    #[error("`{tool}` not found on PATH ({hint})")]
    Missing {
        /// The program.
        tool: String,
        /// Which package provides it.
        hint: String,
    },
    /// An external command failed.
    #[error("`{cmd}` failed: {detail}")]
    Command {
        /// The command line.
        cmd: String,
        /// Exit status and stderr.
        detail: String,
    },
    /// An I/O error with what was being done.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// An AF_PACKET port could not be opened or used.
    #[error("AF_PACKET port: {0}")]
    Port(#[from] canopy_dataplane::port::afpacket::AfPacketError),
    /// Output of a tool or a /proc file that could not be parsed.
    #[error("cannot parse {what}: {detail}")]
    Parse {
        /// What was parsed.
        what: String,
        /// Why it failed.
        detail: String,
    },
    /// The topology / header computation failed.
    #[error("frame construction: {0}")]
    Frame(String),
    /// A forwarder did not start forwarding in time.
    #[error("{forwarder}: {detail}")]
    Forwarder {
        /// Forwarder name.
        forwarder: String,
        /// What went wrong.
        detail: String,
    },
    /// A switch's management endpoint could not be reached or answered nonsense.
    #[error("management endpoint {0}")]
    Client(#[from] canopy_proto::client::ClientError),
    /// A switch's management socket refused or failed a request.
    #[error("management socket {socket}: {detail}")]
    Mgmt {
        /// Socket path.
        socket: String,
        /// What went wrong.
        detail: String,
    },
    /// A traffic spec (the `[traffic]` table) that cannot work: which key and why.
    #[error("traffic spec: `{key}`: {detail}")]
    Traffic {
        /// The key of the `[traffic]` table (e.g. `rate`, `pattern`).
        key: String,
        /// What is wrong and what would work.
        detail: String,
    },
    /// A capture file (pcap or pcapng) that could not be read or written: the file and
    /// what is wrong with it.
    #[error(transparent)]
    Pcap(#[from] canopy_switch::pcap::PcapError),
    /// A fabric description is invalid (`file: key: what (line N)`).
    #[error("{file}: {key}{}{what}{}", if key.is_empty() { "" } else { ": " }, line.map(|l| format!(" (line {l})")).unwrap_or_default())]
    Desc {
        /// The description file.
        file: String,
        /// The key (e.g. `place[1].nodes[0]`), empty when the TOML itself is malformed.
        key: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        what: String,
    },
    /// Bringing a fabric up, down or checking it failed.
    #[error("fabric {fabric}: {detail}")]
    Fabric {
        /// Fabric name.
        fabric: String,
        /// What went wrong.
        detail: String,
    },
    /// A report plot could not be drawn.
    #[error("plot {plot}: {detail}")]
    Plot {
        /// Which plot (file name).
        plot: String,
        /// What went wrong.
        detail: String,
    },
    /// A report table could not be written as CSV.
    #[error("{file}: {detail}")]
    Csv {
        /// The file (e.g. `trials.csv`).
        file: String,
        /// What went wrong.
        detail: String,
    },
    /// A guest (or the guest image) could not be built, started or reached.
    #[error("guest {guest}: {detail}")]
    Vm {
        /// The guest's name (`image` for the image).
        guest: String,
        /// What went wrong.
        detail: String,
    },
    /// A fabric description that an export (`canopy-testbed export`) cannot represent,
    /// or an export option that is invalid.
    #[error("export: {0}")]
    Export(#[from] crate::export::ExportError),
    /// Stopped by SIGINT.
    #[error("interrupted")]
    Interrupted,
}

impl TestbedError {
    /// An [`TestbedError::Io`] with context.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        TestbedError::Io {
            what: what.into(),
            source,
        }
    }
}

impl TestbedError {
    /// A [`TestbedError::Fabric`] of fabric `fabric`.
    pub fn fabric(fabric: impl Into<String>, detail: impl Into<String>) -> Self {
        TestbedError::Fabric {
            fabric: fabric.into(),
            detail: detail.into(),
        }
    }

    /// A [`TestbedError::Traffic`] for `key`.
    pub fn traffic(key: impl Into<String>, detail: impl Into<String>) -> Self {
        TestbedError::Traffic {
            key: key.into(),
            detail: detail.into(),
        }
    }
}

/// Result alias of the crate.
pub type Result<T> = std::result::Result<T, TestbedError>;
