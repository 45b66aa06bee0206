//! Network namespaces and veth wiring, with a guard that deletes everything it created.
//!
//! Namespaces are named `<prefix>-<role>` (the bench uses the prefix `cvb<pid>`), veths
//! are created directly inside them (never in the host namespace) and disappear with
//! them. [`Netns`] deletes its namespaces on drop, so a failing or interrupted run leaves
//! nothing behind.

use crate::error::{Result, TestbedError};
use crate::os::sys;
use std::process::Command;
use std::time::{Duration, Instant};

/// Run a command; its stdout on success, [`TestbedError::Command`] otherwise.
pub fn run(prog: &str, args: &[&str]) -> Result<String> {
    let cmd = format!("{prog} {}", args.join(" "));
    let out = Command::new(prog).args(args).output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            TestbedError::Missing {
                tool: prog.to_string(),
                hint: "install it".into(),
            }
        } else {
            TestbedError::io(format!("run {cmd}"), e)
        }
    })?;
    if !out.status.success() {
        return Err(TestbedError::Command {
            cmd,
            detail: format!(
                "{}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `ip ARGS`.
pub fn ip(args: &[&str]) -> Result<String> {
    run("ip", args)
}

/// `ip netns exec NS` (and `taskset -c CORE` when `pin`): the start of a command that
/// runs a program inside namespace `ns`. Both exec the program, so the child's pid is
/// the program's.
pub fn exec(ns: &str, pin: Option<usize>) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", ns]);
    if let Some(core) = pin {
        c.args(["taskset", "-c", &core.to_string()]);
    }
    c
}

/// Whether `prog` is an executable on `PATH` (or an existing path).
pub fn which(prog: &str) -> Option<std::path::PathBuf> {
    if prog.contains('/') {
        let p = std::path::PathBuf::from(prog);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(prog))
        .find(|p| p.is_file())
}

/// Namespaces created by this process; deleted on drop (processes still inside them
/// must be stopped first, which the forwarder guards do).
#[derive(Debug)]
pub struct Netns {
    names: Vec<String>,
}

impl Netns {
    /// Create namespaces `<prefix>-<suffix>` for every suffix (a stale one of the same
    /// name, left by a killed run of the same pid, is deleted first). In each, IPv6 is
    /// disabled (no router solicitations or DAD frames in the counters) and loopback is up.
    pub fn create(prefix: &str, suffixes: &[&str]) -> Result<Netns> {
        let mut ns = Netns { names: vec![] };
        for s in suffixes {
            let name = format!("{prefix}-{s}");
            let _ = Command::new("ip").args(["netns", "del", &name]).output();
            ns.names.push(name.clone());
            add(&name)?;
        }
        Ok(ns)
    }

    /// Full name of namespace `i` (creation order).
    pub fn name(&self, i: usize) -> &str {
        &self.names[i]
    }

    /// All names.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        for n in &self.names {
            let _ = Command::new("ip").args(["netns", "del", n]).output();
        }
    }
}

/// Run `ip [-n ns] -batch -` with `lines` (one `ip` for many commands).
pub fn ip_batch(ns: Option<&str>, lines: &[String]) -> Result<()> {
    use std::io::Write;
    use std::process::Stdio;
    if lines.is_empty() {
        return Ok(());
    }
    let mut args: Vec<&str> = vec![];
    if let Some(n) = ns {
        args.extend(["-n", n]);
    }
    args.extend(["-batch", "-"]);
    let mut c = Command::new("ip")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| TestbedError::io("spawn ip -batch", e))?;
    let text = lines.join("\n") + "\n";
    if let Some(mut i) = c.stdin.take() {
        i.write_all(text.as_bytes())
            .map_err(|e| TestbedError::io("write ip -batch", e))?;
    }
    let out = c
        .wait_with_output()
        .map_err(|e| TestbedError::io("ip -batch", e))?;
    if !out.status.success() {
        return Err(TestbedError::Command {
            cmd: format!(
                "ip {} <<< {}",
                args.join(" "),
                lines.first().cloned().unwrap_or_default()
            ),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(())
}

/// Create namespace `ns` with IPv6 off (no router solicitations or DAD frames in the
/// counters) and loopback up.
pub fn add(ns: &str) -> Result<()> {
    ip(&["netns", "add", ns])?;
    disable_ipv6(ns)?;
    ip(&["-n", ns, "link", "set", "lo", "up"])?;
    Ok(())
}

/// Turn IPv6 off in namespace `ns` (`all` and `default`, so veths created later have it
/// off too) by writing `/proc/sys` from a thread inside the namespace: `/proc/sys/net`
/// shows the namespace of the task that opens it, and no `sysctl` binary (procps) is
/// needed.
pub fn disable_ipv6(ns: &str) -> Result<()> {
    in_ns(ns, || -> std::io::Result<()> {
        for k in ["all", "default"] {
            std::fs::write(format!("/proc/sys/net/ipv6/conf/{k}/disable_ipv6"), "1")?;
        }
        Ok(())
    })?
    .map_err(|e| TestbedError::io(format!("disable IPv6 in {ns}"), e))
}

/// Create veth `a` in namespace `na` with peer `b` in namespace `nb`, turn measurement-
/// distorting offloads off on both ends (when `ethtool` exists; returns whether it did),
/// bring both up and wait until both are operationally up.
pub fn veth(na: &str, a: &str, nb: &str, b: &str) -> Result<bool> {
    ip(&[
        "-n", na, "link", "add", a, "type", "veth", "peer", "name", b, "netns", nb,
    ])?;
    let mut offloads = true;
    for (n, dev) in [(na, a), (nb, b)] {
        offloads &= offloads_off(n, dev);
        ip(&["-n", n, "link", "set", dev, "up"])?;
    }
    for (n, dev) in [(na, a), (nb, b)] {
        wait_up(n, dev, Duration::from_secs(5))?;
    }
    Ok(offloads)
}

/// `ethtool -K dev gro off gso off tso off tx off` inside `ns`; false when ethtool is
/// missing or refused.
pub fn offloads_off(ns: &str, dev: &str) -> bool {
    if which("ethtool").is_none() {
        return false;
    }
    run(
        "ip",
        &[
            "netns", "exec", ns, "ethtool", "-K", dev, "gro", "off", "gso", "off", "tso", "off",
            "tx", "off",
        ],
    )
    .is_ok()
}

/// Wait until `dev` in `ns` is operationally up (the kernel publishes carrier changes
/// asynchronously).
pub fn wait_up(ns: &str, dev: &str, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    loop {
        let out = ip(&["-n", ns, "link", "show", "dev", dev])?;
        if out.contains("state UP") {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(TestbedError::Command {
                cmd: format!("ip -n {ns} link show dev {dev}"),
                detail: "interface never came up".into(),
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Run `f` on a fresh thread that has entered namespace `ns`; sockets it creates belong
/// there (and keep belonging there when moved to another thread).
pub fn in_ns<T: Send + 'static>(ns: &str, f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    let name = ns.to_string();
    std::thread::spawn(move || -> Result<T> {
        sys::enter_netns(&name).map_err(|e| TestbedError::io(format!("setns {name}"), e))?;
        Ok(f())
    })
    .join()
    .map_err(|_| TestbedError::Forwarder {
        forwarder: ns.to_string(),
        detail: "namespace thread panicked".into(),
    })?
}

/// Kernel interface counters (`ip -s -j link show`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct LinkStats {
    /// Frames received.
    pub rx_packets: u64,
    /// Frames the interface dropped on receive.
    pub rx_dropped: u64,
    /// Frames transmitted.
    pub tx_packets: u64,
    /// Frames dropped on transmit.
    pub tx_dropped: u64,
}

impl LinkStats {
    /// The counters of a tap as the guest NIC at its other end sees them: what the tap
    /// transmitted the guest received, what the tap received (or dropped on receive) the
    /// guest sent. What the tap dropped on transmit never reached the guest.
    pub fn from_the_guest(&self) -> LinkStats {
        LinkStats {
            rx_packets: self.tx_packets,
            rx_dropped: 0,
            tx_packets: self.rx_packets,
            tx_dropped: self.rx_dropped,
        }
    }

    /// `self - before`, per field (saturating).
    pub fn since(&self, before: &LinkStats) -> LinkStats {
        LinkStats {
            rx_packets: self.rx_packets.saturating_sub(before.rx_packets),
            rx_dropped: self.rx_dropped.saturating_sub(before.rx_dropped),
            tx_packets: self.tx_packets.saturating_sub(before.tx_packets),
            tx_dropped: self.tx_dropped.saturating_sub(before.tx_dropped),
        }
    }
}

/// Counters of `dev` in `ns`.
pub fn link_stats(ns: &str, dev: &str) -> Result<LinkStats> {
    let out = ip(&["-n", ns, "-s", "-j", "link", "show", "dev", dev])?;
    parse_link_stats(&out).ok_or_else(|| TestbedError::Parse {
        what: format!("`ip -s -j link show {dev}`"),
        detail: out.chars().take(200).collect(),
    })
}

fn parse_link_stats(json: &str) -> Option<LinkStats> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    LinkStats::from_json(v.get(0)?)
}

impl LinkStats {
    /// The counters of one interface of `ip -s -j link show` (its `stats64`); None when
    /// a counter is missing.
    fn from_json(link: &serde_json::Value) -> Option<LinkStats> {
        let s = link.get("stats64")?;
        let get = |dir: &str, k: &str| s.get(dir)?.get(k)?.as_u64();
        Some(LinkStats {
            rx_packets: get("rx", "packets")?,
            rx_dropped: get("rx", "dropped")?,
            tx_packets: get("tx", "packets")?,
            tx_dropped: get("tx", "dropped")?,
        })
    }
}

/// Every interface but `lo` of `ip -s -j link show` with its counters (zeros for one
/// without).
pub fn parse_links(json: &str) -> std::result::Result<Vec<(String, LinkStats)>, serde_json::Error> {
    let v: serde_json::Value = serde_json::from_str(json)?;
    Ok(v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|l| {
            let name = l["ifname"].as_str().filter(|n| *n != "lo")?;
            Some((
                name.to_string(),
                LinkStats::from_json(l).unwrap_or_default(),
            ))
        })
        .collect())
}

/// Counters of every interface but `lo` in `ns`.
pub fn links_stats(ns: &str) -> Result<Vec<(String, LinkStats)>> {
    let j = ip(&["-n", ns, "-s", "-j", "link", "show"])?;
    parse_links(&j).map_err(|e| TestbedError::Parse {
        what: format!("`ip -n {ns} -s -j link show`"),
        detail: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ip_json_stats() {
        let j = r#"[{"ifindex":2,"ifname":"r0","stats64":{"rx":{"bytes":640,"packets":10,"errors":0,"dropped":1},"tx":{"bytes":64,"packets":1,"errors":0,"dropped":2}}}]"#;
        let s = parse_link_stats(j).unwrap();
        assert_eq!(
            s,
            LinkStats {
                rx_packets: 10,
                rx_dropped: 1,
                tx_packets: 1,
                tx_dropped: 2
            }
        );
        let later = LinkStats {
            rx_packets: 15,
            ..s
        };
        assert_eq!(later.since(&s).rx_packets, 5);
        assert!(parse_link_stats("[]").is_none());
        assert!(parse_link_stats("not json").is_none());
        let links = r#"[{"ifindex":1,"ifname":"lo","stats64":{"rx":{"packets":9,"dropped":9},"tx":{"packets":9,"dropped":9}}},
            {"ifindex":2,"ifname":"s0p0","stats64":{"rx":{"bytes":1,"packets":10,"errors":0,"dropped":2},"tx":{"bytes":1,"packets":7,"errors":0,"dropped":3}}},
            {"ifindex":3,"ifname":"s0p1"}]"#;
        let l = parse_links(links).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(
            l[0],
            (
                "s0p0".to_string(),
                LinkStats {
                    rx_packets: 10,
                    rx_dropped: 2,
                    tx_packets: 7,
                    tx_dropped: 3
                }
            )
        );
        assert_eq!(l[1].1, LinkStats::default());
        assert!(parse_links("nope").is_err());
    }

    #[test]
    fn which_finds_sh_and_not_nonsense() {
        assert!(which("sh").is_some());
        assert!(which("surely-not-a-program-cvb").is_none());
    }
}
