//! `canopy-testbed check`: one frame per ordered host pair, from the host namespaces,
//! received on every host; a frame must arrive at its destination exactly once and
//! nowhere else.

use super::state::State;
use crate::error::{Result, TestbedError};
use crate::traffic::frame::HostFrame;
use canopy_dataplane::port::afpacket::{
    AfPacketConfig, AfPacketPort, RingGeometry, TpacketVersion,
};
use canopy_dataplane::wire::Kind;
use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

/// Frame length of the check frames (no FCS).
pub const CHECK_LEN: usize = 128;

/// An AF_PACKET port on `ifname` in `ns` with small TPACKET_V2 rings (256 KiB each
/// way: a check port holds at most one frame per sender at a time; the default 4 MiB
/// rings would make opening a port per Transit channel slow).
fn open_port(ns: &str, ifname: &str) -> Result<AfPacketPort> {
    let ring = RingGeometry {
        block_size: 64 << 10,
        block_count: 4,
        frame_size: 2048,
    };
    crate::traffic::port::open_with(
        ns,
        ifname,
        AfPacketConfig {
            version: TpacketVersion::V2,
            rx: ring,
            tx: ring,
            ..AfPacketConfig::default()
        },
    )
}

/// The result of a check.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CheckReport {
    /// Hosts taking part.
    pub hosts: usize,
    /// Ordered pairs = frames sent.
    pub pairs: usize,
    /// Frames that reached their destination host (first copy).
    pub delivered: usize,
    /// Pairs whose frame never reached its destination.
    pub lost: usize,
    /// Frames seen on a host that is not their destination.
    pub misdelivered: usize,
    /// Extra copies at the destination.
    pub duplicates: usize,
    /// Some lost pairs (source, destination host index).
    pub lost_pairs: Vec<(u32, u32)>,
    /// Some misdeliveries (source, destination, host that saw it).
    pub misdeliveries: Vec<(u32, u32, u32)>,
    /// Wall time.
    pub elapsed_ms: u64,
}

impl CheckReport {
    /// Every pair delivered exactly once to exactly the right host.
    pub fn passed(&self) -> bool {
        self.pairs > 0
            && self.delivered == self.pairs
            && self.lost == 0
            && self.misdelivered == 0
            && self.duplicates == 0
    }
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} hosts, {} ordered pairs: {} delivered, {} lost, {} misdelivered, {} duplicates ({} ms)",
            if self.passed() { "PASS" } else { "FAIL" },
            self.hosts,
            self.pairs,
            self.delivered,
            self.lost,
            self.misdelivered,
            self.duplicates,
            self.elapsed_ms
        )?;
        if !self.lost_pairs.is_empty() {
            let l: Vec<String> = self
                .lost_pairs
                .iter()
                .map(|(s, d)| format!("h{s}->h{d}"))
                .collect();
            write!(f, "\n  lost: {}", l.join(" "))?;
        }
        if !self.misdeliveries.is_empty() {
            let l: Vec<String> = self
                .misdeliveries
                .iter()
                .map(|(s, d, at)| format!("h{s}->h{d} seen at h{at}"))
                .collect();
            write!(f, "\n  misdelivered: {}", l.join(" "))?;
        }
        Ok(())
    }
}

/// Check fabric `name`: every state under `root` contributes its hosts (one state
/// per machine part; on a real multi-machine fabric this machine's hosts).
pub fn check(root: &Path, name: &str, timeout: Duration) -> Result<CheckReport> {
    let t0 = Instant::now();
    let err = |d: String| TestbedError::Fabric {
        fabric: name.to_string(),
        detail: d,
    };
    let (states, _) = State::load_all(root, name);
    let states: Vec<State> = states.into_iter().filter(|s| s.complete).collect();
    let Some(first) = states.first() else {
        return Err(err(format!(
            "no complete `up` state under {}",
            super::state::fabric_dir(root, name).display()
        )));
    };
    let topo = canopy_control::build_str(&first.hosts.topology).map_err(|e| err(e.to_string()))?;
    let kind = Kind::from_name(&first.hosts.kind)
        .ok_or_else(|| err(format!("unknown kind {}", first.hosts.kind)))?;
    // every host: its send port and its receive ports; opened (and later closed) in
    // parallel: each AF_PACKET open and close waits for an RCU grace period
    let mut tx: Vec<(u32, usize)> = vec![];
    let mut rx: Vec<(u32, usize)> = vec![];
    let mut wanted: Vec<(String, String)> = vec![];
    for st in &states {
        for h in &st.hosts.hosts {
            let rxn = h.rx_ifnames();
            for ifn in &rxn {
                wanted.push((h.netns.clone(), ifn.clone()));
                rx.push((h.host, wanted.len() - 1));
            }
            let ti = match rxn.iter().position(|i| *i == h.ifname) {
                Some(i) => wanted.len() - rxn.len() + i,
                None => {
                    wanted.push((h.netns.clone(), h.ifname.clone()));
                    wanted.len() - 1
                }
            };
            tx.push((h.host, ti));
        }
    }
    let mut ports: Vec<AfPacketPort> =
        parallel(wanted.len(), |i| open_port(&wanted[i].0, &wanted[i].1))
            .into_iter()
            .collect::<Result<Vec<_>>>()?;
    tx.sort_unstable();
    let n = tx.len();
    let mac_host: HashMap<[u8; 6], u32> = tx
        .iter()
        .map(|&(h, _)| (canopy_control::oracle::host_mac(&topo, h), h))
        .collect();
    let run_id = (crate::os::sys::monotonic_ns() & 0xffff) as u16;
    let mut seen: HashMap<(u32, u32), usize> = HashMap::new();
    let mut report = CheckReport {
        hosts: n,
        pairs: n * n.saturating_sub(1),
        ..Default::default()
    };
    for p in ports.iter_mut() {
        while p.rx_burst(64, |_| {}) > 0 {}
    }
    let poll = |ports: &mut Vec<AfPacketPort>,
                seen: &mut HashMap<(u32, u32), usize>,
                report: &mut CheckReport|
     -> usize {
        let mut got = 0;
        for &(at, pi) in &rx {
            ports[pi].rx_burst(64, |fr| {
                let Some(t) = HostFrame::parse(fr) else {
                    return;
                };
                if t.run_id != run_id {
                    return;
                }
                let (Some(&s), Some(&d)) = (mac_host.get(&t.src_mac), mac_host.get(&t.dst_mac))
                else {
                    return;
                };
                got += 1;
                if d != at {
                    report.misdelivered += 1;
                    if report.misdeliveries.len() < 10 {
                        report.misdeliveries.push((s, d, at));
                    }
                } else {
                    *seen.entry((s, d)).or_default() += 1;
                }
            });
        }
        got
    };
    for &(s, ti) in &tx {
        for &(d, _) in &tx {
            if d == s {
                continue;
            }
            let mut f = HostFrame::new(&topo, kind, s, d, CHECK_LEN, run_id)?;
            f.set_meas(u64::from(d), crate::os::sys::monotonic_ns());
            let mut tries = 0;
            loop {
                match ports[ti].tx_frame(&f.bytes) {
                    Ok(true) => break,
                    Ok(false) if tries < 1000 => {
                        let _ = ports[ti].tx_flush();
                        tries += 1;
                        std::thread::sleep(Duration::from_micros(100));
                    }
                    Ok(false) => return Err(err(format!("h{s}: TX ring stays full"))),
                    Err(e) => return Err(err(format!("h{s}: send refused: {e:?}"))),
                }
            }
        }
        let _ = ports[ti].tx_flush();
        poll(&mut ports, &mut seen, &mut report);
    }
    let deadline = Instant::now() + timeout;
    let mut last = Instant::now();
    loop {
        if poll(&mut ports, &mut seen, &mut report) > 0 {
            last = Instant::now();
        }
        let done = seen.len() == report.pairs;
        if (done && last.elapsed() > Duration::from_millis(200)) || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    for &(s, _) in &tx {
        for &(d, _) in &tx {
            if d == s {
                continue;
            }
            match seen.get(&(s, d)) {
                Some(&c) => {
                    report.delivered += 1;
                    report.duplicates += c - 1;
                }
                None => {
                    report.lost += 1;
                    if report.lost_pairs.len() < 10 {
                        report.lost_pairs.push((s, d));
                    }
                }
            }
        }
    }
    close_all(ports);
    report.elapsed_ms = t0.elapsed().as_millis() as u64;
    Ok(report)
}

/// Threads for opening and closing ports.
const THREADS: usize = 16;

/// `f(0..n)` on up to [`THREADS`] threads, results in index order.
fn parallel<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let per = n.div_ceil(THREADS).max(1);
    std::thread::scope(|sc| {
        let hs: Vec<_> = (0..n)
            .step_by(per)
            .map(|start| {
                let f = &f;
                sc.spawn(move || (start..(start + per).min(n)).map(f).collect::<Vec<T>>())
            })
            .collect();
        hs.into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Close `ports` on several threads.
fn close_all(ports: Vec<AfPacketPort>) {
    let per = ports.len().div_ceil(THREADS).max(1);
    let mut ports = ports;
    std::thread::scope(|sc| {
        while !ports.is_empty() {
            let chunk: Vec<AfPacketPort> = ports.drain(..per.min(ports.len())).collect();
            sc.spawn(move || drop(chunk));
        }
    });
}
