//! The AF_PACKET ports every sender and receiver of the crate uses (the generator's
//! hosts, the vethbench's sender and latency probe, `canopy-testbed check`), and what
//! they all do with them: queue a frame, drain a ring, wait for a send time.
//!
//! A port is opened inside a namespace and then driven from any thread: a socket stays
//! in the namespace it was created in.

use crate::error::{Result, TestbedError};
use crate::os::netns::in_ns;
use canopy_dataplane::port::afpacket::{
    AfPacketConfig, AfPacketPort, RingGeometry, TpacketVersion,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Open an AF_PACKET port with configuration `cfg` on `ifname` inside namespace `ns`
/// (the socket is created on a helper thread that entered the namespace).
pub fn open_with(ns: &str, ifname: &str, cfg: AfPacketConfig) -> Result<AfPacketPort> {
    let name = ifname.to_string();
    in_ns(ns, move || AfPacketPort::open(&name, cfg))?.map_err(TestbedError::from)
}

/// A receive port (and the vethbench's send port): TPACKET_V2, so every frame is
/// visible at once, default rings, promiscuous.
pub fn open(ns: &str, ifname: &str) -> Result<AfPacketPort> {
    open_with(
        ns,
        ifname,
        AfPacketConfig {
            version: TpacketVersion::V2,
            ..AfPacketConfig::default()
        },
    )
}

/// A generator host's send port: TPACKET_V2, the default TX ring (256 frames), qdisc
/// bypassed (the default), send-only (`receive = false`: the kernel offers it none of
/// the frames its host receives, which a bound socket would otherwise cost a
/// `tpacket_rcv` each) and an RX ring of one page (never used).
pub fn open_tx(ns: &str, ifname: &str) -> Result<AfPacketPort> {
    open_with(
        ns,
        ifname,
        AfPacketConfig {
            version: TpacketVersion::V2,
            rx: RingGeometry {
                block_size: 4096,
                block_count: 1,
                frame_size: 2048,
            },
            promiscuous: false,
            receive: false,
            ..AfPacketConfig::default()
        },
    )
}

/// Queue `frame` on `port`, flushing and retrying while the ring is full; false when the
/// port refused it or `stop` was set while waiting for ring space.
#[inline]
pub fn queue(port: &mut AfPacketPort, frame: &[u8], stop: &AtomicBool) -> bool {
    loop {
        match port.tx_frame(frame) {
            Ok(true) => return true,
            Ok(false) => {
                let _ = port.tx_flush();
                if stop.load(Ordering::Relaxed) {
                    return false;
                }
                std::hint::spin_loop();
            }
            Err(_) => return false,
        }
    }
}

/// Discard whatever waits in `port`'s RX ring (frames of an earlier trial or pass).
pub fn drain(port: &mut AfPacketPort) {
    while port.rx_burst(256, |_| {}) > 0 {}
}

/// How [`wait_until`] waits for a send time: it sleeps while more than `sleep_above`
/// is left (waking `wake_early` before the time), then spins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    /// Sleep only while more than this is left.
    pub sleep_above: Duration,
    /// Wake this long before the time, to spin the rest.
    pub wake_early: Duration,
}

impl Wait {
    /// Only sleep: a sender's CPU time stays its real work; the schedule is absolute,
    /// so the average rate is exact even though single bursts may start late by the
    /// timer slack (about 50 µs).
    pub const SLEEP: Wait = Wait {
        sleep_above: Duration::ZERO,
        wake_early: Duration::ZERO,
    };
    /// Evenly spaced single frames (periods of microseconds): sleep most of the way,
    /// then spin, accurate to about a microsecond.
    pub const EVEN: Wait = Wait {
        sleep_above: Duration::from_micros(300),
        wake_early: Duration::from_micros(200),
    };
    /// The generator's sender, which runs with a 1 µs timer slack: sleep when the time
    /// is far (leaving 20 µs), then spin. Sleeping rather than spinning through the gaps
    /// leaves the CPU to the switches, which share the machine with the generator.
    pub const GENERATOR: Wait = Wait {
        sleep_above: Duration::from_micros(50),
        wake_early: Duration::from_micros(20),
    };
}

/// Wait until `t` as `how` says.
pub fn wait_until(t: Instant, how: Wait) {
    loop {
        let now = Instant::now();
        if now >= t {
            return;
        }
        let left = t - now;
        if left > how.sleep_above {
            std::thread::sleep(left.saturating_sub(how.wake_early));
        } else {
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_are_never_early() {
        for how in [Wait::SLEEP, Wait::EVEN, Wait::GENERATOR] {
            let t = Instant::now() + Duration::from_micros(700);
            wait_until(t, how);
            assert!(Instant::now() >= t, "{how:?}");
        }
        // a time in the past returns at once
        wait_until(Instant::now() - Duration::from_millis(1), Wait::EVEN);
    }
}
