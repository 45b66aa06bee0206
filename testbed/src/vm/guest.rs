//! One guest switch: its files, its taps and management port on the hypervisor, its QEMU
//! process, and waiting until its `canopy-switch` answers over the management network.
//!
//! Everything a guest needs on the hypervisor lives in one network namespace that the
//! testbed creates (the hypervisor namespace): the management bridge with the
//! hypervisor's address, and one tap per guest NIC. QEMU runs inside it, so deleting the
//! namespace removes every tap and the bridge, whatever state a crash left.

use super::init::{GuestEnv, ENV_FILE, SWITCH_FILE, TOKEN_FILE};
use super::qemu::{self, GuestSpec};
use crate::error::{Result, TestbedError};
use crate::os::netns::{self, ip};
use canopy_proto::client::Endpoint;
use canopy_proto::mgmt::{Health, Request};
use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// The management bridge in the hypervisor namespace.
pub const MGMT_BRIDGE: &str = "mgmt";
/// The management endpoint's TCP port on every guest.
pub const MGMT_PORT: u16 = 7410;

fn err(guest: &str, detail: impl Into<String>) -> TestbedError {
    TestbedError::Vm {
        guest: guest.into(),
        detail: detail.into(),
    }
}

/// The hypervisor namespace `ns`: created with the management bridge holding `addr/24`.
pub fn hypervisor(ns: &str, addr: Ipv4Addr) -> Result<()> {
    netns::add(ns)?;
    ip(&["-n", ns, "link", "add", MGMT_BRIDGE, "type", "bridge"])?;
    ip(&[
        "-n",
        ns,
        "addr",
        "add",
        &format!("{addr}/24"),
        "dev",
        MGMT_BRIDGE,
    ])?;
    ip(&["-n", ns, "link", "set", MGMT_BRIDGE, "up"])?;
    Ok(())
}

/// A tap `name` in namespace `ns` (multi-queue when `queues` > 1), up, with `mtu`, and on
/// the management bridge when `mgmt`.
pub fn tap(ns: &str, name: &str, queues: u32, mtu: u32, mgmt: bool) -> Result<()> {
    let mut a = vec!["-n", ns, "tuntap", "add", "mode", "tap", "name", name];
    if queues > 1 {
        a.push("multi_queue");
    }
    ip(&a)?;
    let mtu = mtu.to_string();
    ip(&["-n", ns, "link", "set", name, "mtu", &mtu, "up"])?;
    if mgmt {
        ip(&["-n", ns, "link", "set", name, "master", MGMT_BRIDGE])?;
    }
    Ok(())
}

/// A point-to-point wire between interfaces `a` and `b` of namespace `ns`: whatever
/// arrives on one leaves by the other (tc `mirred` redirects on both ingresses; no
/// bridge, so no learning, flooding or link-local filtering between them).
pub fn wire(ns: &str, a: &str, b: &str) -> Result<()> {
    for (from, to) in [(a, b), (b, a)] {
        let tc = |args: &[&str]| netns::run("ip", &[&["netns", "exec", ns, "tc"], args].concat());
        tc(&["qdisc", "add", "dev", from, "ingress"])?;
        tc(&[
            "filter", "add", "dev", from, "parent", "ffff:", "protocol", "all", "u32", "match",
            "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev", to,
        ])?;
    }
    Ok(())
}

/// The files a guest reads at boot, written (mode 0600) under `dir` as
/// `<guest>.<file>`; the firmware configuration entries naming them.
pub fn write_files(
    dir: &Path,
    guest: &str,
    env: &GuestEnv,
    switch_toml: &str,
    token: &[u8],
) -> Result<Vec<(String, PathBuf)>> {
    let text = env
        .render()
        .ok_or_else(|| err(guest, "a NIC or host name is not a plain word"))?;
    let mut out = vec![];
    for (name, bytes) in [
        (ENV_FILE, text.as_bytes()),
        (SWITCH_FILE, switch_toml.as_bytes()),
        (TOKEN_FILE, token),
    ] {
        let p = dir.join(format!("{guest}.{name}"));
        crate::os::private::write(&p, bytes)
            .map_err(|e| TestbedError::io(format!("write {}", p.display()), e))?;
        out.push((name.to_string(), p));
    }
    Ok(out)
}

/// Start the guest `g` inside namespace `ns`; QEMU's own messages go to `log`.
pub fn start(ns: &str, qemu: &Path, g: &GuestSpec, log: &Path) -> Result<Child> {
    let mut cmd = netns::exec(ns, None);
    cmd.arg(qemu).args(qemu::args(g));
    crate::os::process::spawn_logged(cmd, log, true, false, &format!("start guest {}", g.name))
}

/// The guest's switch's `health` over its management endpoint `addr` (TCP, from inside
/// namespace `ns`).
pub fn health(ns: &str, addr: &str, token: &[u8], timeout: Duration) -> Result<Health> {
    let ep = Endpoint::Tcp(addr.to_string(), token.to_vec());
    let v = netns::in_ns(ns, move || ep.request(&Request::Health {}, timeout))??;
    serde_json::from_value(v).map_err(|e| err(addr, format!("health: unexpected answer: {e}")))
}

/// Wait until the guest's switch answers `health` over TCP: its health, and how long it
/// took. Fails when QEMU exits first (with the end of the console log) or after
/// `timeout`.
pub fn wait_healthy(
    ns: &str,
    addr: &str,
    token: &[u8],
    child: &mut Child,
    console: &Path,
    timeout: Duration,
) -> Result<(Health, Duration)> {
    let t0 = Instant::now();
    let tail = || crate::os::process::log_tail(console, 8).join("\n  ");
    loop {
        if let Ok(Some(st)) = child.try_wait() {
            return Err(err(
                addr,
                format!("QEMU exited ({st}); console:\n  {}", tail()),
            ));
        }
        match health(ns, addr, token, Duration::from_secs(2)) {
            Ok(h) => return Ok((h, t0.elapsed())),
            Err(e) if t0.elapsed() > timeout => {
                return Err(err(
                    addr,
                    format!(
                        "no answer within {:.0} s ({e}); console:\n  {}",
                        timeout.as_secs_f64(),
                        tail()
                    ),
                ))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(250)),
        }
    }
}
