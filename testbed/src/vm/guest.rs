//! One guest switch: its files, its taps and management port on the hypervisor, its QEMU
//! process, and waiting until its `canopy-switch` answers over the management network.
//!
//! Everything a guest needs on the hypervisor lives in one network namespace that the
//! testbed creates (the hypervisor namespace): the management bridge with the
//! hypervisor's address, and one tap per guest NIC. QEMU runs inside it, so deleting the
//! namespace removes every tap and the bridge, whatever state a crash left.

use super::init::{GuestEnv, ENV_FILE, SWITCH_FILE, TOKEN_FILE};
use crate::error::{Result, TestbedError};
use crate::fabric::mgmt::{self, Target};
use crate::os::netns;
use canopy_proto::mgmt::Health;
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

/// The hypervisor namespace `ns`: created with the management bridge holding
/// `addr/prefix`.
pub fn hypervisor(ns: &str, addr: Ipv4Addr, prefix: u8) -> Result<()> {
    netns::add(ns)?;
    let cidr = format!("{addr}/{prefix}");
    netns::ip_batch(
        Some(ns),
        &[
            format!("link add {MGMT_BRIDGE} type bridge"),
            format!("addr add {cidr} dev {MGMT_BRIDGE}"),
            format!("link set {MGMT_BRIDGE} up"),
        ],
    )
}

/// The `ip -batch` lines of a tap `name`: created, up with `mtu`, and on the management
/// bridge when `mgmt` (a guest's management NIC).
pub fn tap_lines(name: &str, mtu: u32, mgmt: bool) -> Vec<String> {
    let mut l = vec![
        format!("tuntap add mode tap name {name}"),
        format!("link set dev {name} mtu {mtu} up"),
    ];
    if mgmt {
        l.push(format!("link set dev {name} master {MGMT_BRIDGE}"));
    }
    l
}

/// A point-to-point wire between interfaces `a` and `b` of namespace `ns`: whatever
/// arrives on one leaves by the other (tc `mirred` redirects on both ingresses; no
/// bridge, so no learning, flooding or link-local filtering between them).
pub fn wire(ns: &str, a: &str, b: &str) -> Result<()> {
    let tc = |args: &[&str]| netns::run("tc", &[&["-n", ns], args].concat());
    for (from, to) in [(a, b), (b, a)] {
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

/// Start QEMU with `args` ([`super::qemu::args`] of the guest, or the ones a state file kept)
/// inside namespace `ns`; QEMU's own messages are appended to `log`. `sockets`: the
/// Unix sockets its `dgram` NICs bind ([`super::qemu::GuestSpec::sockets`]), removed
/// first (a guest killed leaves them behind).
pub fn start(
    ns: &str,
    qemu: &Path,
    (args, sockets): (&[String], &[PathBuf]),
    log: &Path,
    what: &str,
) -> Result<Child> {
    for s in sockets {
        match std::fs::remove_file(s) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(TestbedError::io(format!("remove {}", s.display()), e))
            }
            _ => {}
        }
    }
    let mut cmd = netns::exec(ns, None);
    cmd.arg(qemu).args(args);
    crate::os::process::spawn_logged(cmd, log, true, false, what)
}

/// Where QEMU's own messages go for the guest whose console log is `console`.
pub fn qemu_log(console: &Path) -> PathBuf {
    console.with_extension("qemu.log")
}

/// Wait until the guest's switch answers `health` at `to`: its health, and how long it
/// took. Fails when QEMU exits first (with the end of the console log) or after
/// `timeout`.
pub fn wait_healthy(
    to: &Target,
    child: &mut Child,
    console: &Path,
    timeout: Duration,
) -> Result<(Health, Duration)> {
    let t0 = Instant::now();
    let tail = || crate::os::process::log_tail(console, 8).join("\n  ");
    loop {
        if let Ok(Some(st)) = child.try_wait() {
            return Err(err(
                &to.to_string(),
                format!("QEMU exited ({st}); console:\n  {}", tail()),
            ));
        }
        match mgmt::health(to, Duration::from_secs(2)) {
            Ok(h) => return Ok((h, t0.elapsed())),
            Err(e) if t0.elapsed() > timeout => {
                return Err(err(
                    &to.to_string(),
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
