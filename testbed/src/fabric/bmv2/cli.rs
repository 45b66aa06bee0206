//! Programming a bmv2 `simple_switch` through its Thrift CLI (`simple_switch_CLI`) with
//! the entries `canopyctl p4-entries` generates, and reading its counters the same way:
//! the bmv2 target without canopyd, and the vethbench's bmv2 forwarder.

use super::{err, schema};
use crate::error::{Result, TestbedError};
use crate::fabric::desc::Desc;
use crate::launch::THRIFT_PORT;
use crate::os::netns;
use canopy_control::p4::counters::{self, MissingCell};
use canopy_proto::mgmt::CountersReport;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The tools that program a `simple_switch` and read it (absolute paths).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Cli {
    /// `simple_switch_CLI`.
    pub cli: PathBuf,
    /// `canopyctl` (it generates the entries).
    pub canopyctl: PathBuf,
}

/// One `counter_read` answer of `simple_switch_CLI`: (name, index, bytes, packets) from
/// `RuntimeCmd: NAME[I]=  (B bytes, P packets)` (bmv2 1.15).
fn parse_counter_line(line: &str) -> Option<(&str, usize, u64, u64)> {
    let line = line.trim().trim_start_matches("RuntimeCmd:").trim();
    let (lhs, rhs) = line.split_once("]=")?;
    let (name, idx) = lhs.split_once('[')?;
    let body = rhs.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (b, p) = body.split_once(',')?;
    let bytes = b.trim().strip_suffix(" bytes")?.parse().ok()?;
    let packets = p.trim().strip_suffix(" packets")?.parse().ok()?;
    Some((name.trim(), idx.parse().ok()?, bytes, packets))
}

/// The commands that read a switch's counters: one `counter_read` per cell the report
/// needs ([`counters::cells`]).
fn counter_commands(nports: usize) -> String {
    counters::cells(nports)
        .into_iter()
        .map(|(c, i)| format!("counter_read {} {i}\n", schema::COUNTERS[c].name))
        .collect()
}

/// Build a switch's [`CountersReport`] from the CLI's answers to
/// [`counter_commands`]`(names.len())`; every counter asked for must be answered.
fn counters_from(
    out: &str,
    names: &[String],
    uptime_s: f64,
) -> std::result::Result<CountersReport, MissingCell> {
    let mut got: BTreeMap<(&str, usize), (u64, u64)> = BTreeMap::new();
    for l in out.lines() {
        if let Some((n, i, b, p)) = parse_counter_line(l) {
            got.insert((n, i), (b, p));
        }
    }
    counters::report(names, uptime_s, |c, i| {
        got.get(&(schema::COUNTERS[c].name, i)).copied()
    })
}

impl Cli {
    /// The entries of switch `switch` (`canopyctl p4-entries ... --format bmv2-cli`).
    pub fn entries(&self, desc: &Desc, switch: &str) -> Result<String> {
        let (topo, kind) = (desc.raw.topology.get_ref(), desc.kind.name());
        self.entries_for(topo, kind, switch, &|d| err(desc, d))
    }

    /// The entries of switch `switch` of `topology` with header kind `kind`; `fail`
    /// makes the error of a refusal from its text.
    pub fn entries_for(
        &self,
        topology: &str,
        kind: &str,
        switch: &str,
        fail: &dyn Fn(String) -> TestbedError,
    ) -> Result<String> {
        let o = Command::new(&self.canopyctl)
            .arg("p4-entries")
            .arg(topology)
            .args(["--kind", kind, "--switch", switch])
            .args(["--format", "bmv2-cli"])
            .output()
            .map_err(|e| TestbedError::io(format!("run {}", self.canopyctl.display()), e))?;
        if !o.status.success() {
            return Err(fail(format!(
                "canopyctl p4-entries for {switch}: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            )));
        }
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    }

    /// Feed `entries` to the `simple_switch_CLI` of the switch in `netns`, retrying
    /// until its Thrift server answers (at most until `deadline`). An entry the switch
    /// refuses fails with the CLI's message.
    pub fn program(
        &self,
        desc: &Desc,
        netns: &str,
        switch: &str,
        entries: &str,
        deadline: Instant,
    ) -> Result<()> {
        self.program_in(netns, switch, entries, deadline, &|d| err(desc, d))
    }

    /// [`Cli::program`] with `fail` making the error of a refusal from its text.
    pub fn program_in(
        &self,
        netns: &str,
        switch: &str,
        entries: &str,
        deadline: Instant,
        fail: &dyn Fn(String) -> TestbedError,
    ) -> Result<()> {
        loop {
            let o = self.run_cli(netns, entries)?;
            let out = format!(
                "{}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            let not_up = out.contains("Could not connect") || out.contains("TTransportException");
            if o.status.success() && !not_up {
                let bad: Vec<&str> = out
                    .lines()
                    .filter(|l| l.contains("Error") || l.contains("Invalid"))
                    .take(3)
                    .collect();
                if bad.is_empty() {
                    return Ok(());
                }
                return Err(fail(format!(
                    "simple_switch of {switch} refused entries: {}",
                    bad.join(" | ")
                )));
            }
            if Instant::now() > deadline {
                return Err(fail(format!(
                    "simple_switch of {switch} did not accept its entries in time: {}",
                    out.lines().rev().take(2).collect::<Vec<_>>().join(" | ")
                )));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Run the `simple_switch_CLI` of the switch in `netns` (Thrift on [`THRIFT_PORT`])
    /// with `commands` on its stdin; its output. A CLI that exits early (no Thrift
    /// server yet) closes its stdin: the commands are then not all written, and its
    /// output says why.
    fn run_cli(&self, netns: &str, commands: &str) -> Result<std::process::Output> {
        let mut child = netns::exec(netns, None)
            .arg(&self.cli)
            .args(["--thrift-port", &THRIFT_PORT.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| TestbedError::io(format!("run simple_switch_CLI in {netns}"), e))?;
        if let Some(mut i) = child.stdin.take() {
            let _ = i.write_all(commands.as_bytes());
        }
        child
            .wait_with_output()
            .map_err(|e| TestbedError::io(format!("simple_switch_CLI in {netns}"), e))
    }

    /// Read the counters of the `simple_switch` (process `pid`) in `netns`, whose ports
    /// are `port_names`, into the report `canopy-switch` gives on its management socket
    /// (uptime from the process's start time). One `simple_switch_CLI` run.
    pub fn counters(&self, netns: &str, pid: u32, port_names: &[String]) -> Result<CountersReport> {
        let uptime = crate::os::cpu::process_age_s(pid)?;
        let o = self.run_cli(netns, &counter_commands(port_names.len()))?;
        counters_from(&String::from_utf8_lossy(&o.stdout), port_names, uptime).map_err(|e| {
            TestbedError::Command {
                cmd: format!("simple_switch_CLI in {netns}"),
                detail: format!("{e} ({})", String::from_utf8_lossy(&o.stderr).trim()),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{PORT_DROPS, PORT_RX, PORT_TX};
    use super::*;

    #[test]
    fn counter_lines_parse_and_garbage_does_not() {
        assert_eq!(
            parse_counter_line(
                "RuntimeCmd: CanopyIngress.canopy_port_rx[3]=  (1200 bytes, 20 packets)"
            ),
            Some(("CanopyIngress.canopy_port_rx", 3, 1200, 20))
        );
        assert_eq!(
            parse_counter_line("CanopyEgress.canopy_port_tx[0]= (0 bytes, 0 packets)"),
            Some(("CanopyEgress.canopy_port_tx", 0, 0, 0))
        );
        for bad in [
            "",
            "RuntimeCmd: ",
            "Obtaining JSON from switch...",
            "Error: Invalid counter name (x)",
            "RuntimeCmd: a[1]= (1 bytes)",
            "RuntimeCmd: a[x]= (1 bytes, 2 packets)",
            "RuntimeCmd: a[1]= (-1 bytes, 2 packets)",
        ] {
            assert_eq!(parse_counter_line(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_report_needs_every_counter_and_sums_drops_by_port() {
        let names = vec!["p0".to_string(), "p1".to_string()];
        let cmds = counter_commands(2);
        let reasons = canopy_dataplane::decide::DROP_REASON_NAMES.len();
        assert_eq!(cmds.lines().count(), 2 * (2 + reasons));
        // answer every command: rx 10/5, tx 7/9, not_canopy (1) dropped 3 at port 0
        let mut out = String::from("Obtaining JSON from switch...\nDone\n");
        for c in cmds.lines() {
            let mut w = c.split_whitespace().skip(1);
            let (n, i) = (
                w.next().unwrap(),
                w.next().unwrap().parse::<usize>().unwrap(),
            );
            let p = match (n, i) {
                (PORT_RX, 0) => 10,
                (PORT_RX, 1) => 5,
                (PORT_TX, 0) => 7,
                (PORT_TX, 1) => 9,
                (PORT_DROPS, 1) => 3,
                _ => 0,
            };
            out += &format!("RuntimeCmd: {n}[{i}]=  ({} bytes, {p} packets)\n", p * 64);
        }
        let r = counters_from(&out, &names, 12.5).unwrap();
        assert_eq!((r.rx_packets, r.tx_packets, r.dropped), (15, 16, 3));
        assert_eq!(r.ports[0].drops["not_canopy"], 3);
        assert_eq!(r.ports[1].dropped, 0);
        assert_eq!(r.ports[0].rx_bytes, 640);
        assert_eq!(r.uptime_s, 12.5);
        assert_eq!(r.drops_named("not_canopy"), 3);
        // one answer missing: an error naming it, not a zero
        let cut: String = out
            .lines()
            .filter(|l| !l.contains("canopy_port_tx[1]"))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = counters_from(&cut, &names, 1.0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no answer for CanopyEgress.canopy_port_tx[1]"
        );
    }
}
