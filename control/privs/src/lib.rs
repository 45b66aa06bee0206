//! Giving up privileges once a Canopy process has opened what needs them, shared by
//! `canopy-switch` (after its ports are open) and `canopyd` (after its control socket
//! and HTTP listener are bound).
//!
//! [`Identity::resolve`] looks the configured user and group up when the configuration
//! is loaded (an unknown name stops the start, exit status 2, before anything opens).
//! [`drop_privileges`] runs on the main thread after everything privileged is done and
//! before any other thread starts (they inherit the main thread's credentials):
//!
//! 1. with a user: `PR_SET_KEEPCAPS`, so the permitted set survives the change of uid;
//! 2. every capability outside the kept set leaves the bounding set (needs
//!    `CAP_SETPCAP`; a process without it keeps its bounding set and says so), and the
//!    ambient set is cleared;
//! 3. with a user: the supplementary groups become just the target group, then
//!    `setresgid`, then `setresuid` (glibc applies these to every thread);
//! 4. `capset`: permitted = effective = the kept set (as far as the process had it),
//!    inheritable empty;
//! 5. `PR_SET_NO_NEW_PRIVS`: no `execve` can give any privilege back;
//! 6. the result is read back and checked; a mismatch stops the start.
//!
//! The kept set is the caller's: `canopy-switch` keeps what re-opening its ports needs
//! (`canopy_switch::privs::needed`), `canopyd` keeps nothing. A process that started
//! as root without a user keeps uid 0 whatever it drops: [`root_risk`] is the warning
//! both give then.
//!
//! The system calls are in [`sys`], the only module with `unsafe` code.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod sys;

use std::fmt;
use std::path::Path;

/// Capability numbers used here (linux/capability.h).
pub mod cap {
    /// `CAP_CHOWN`.
    pub const CHOWN: u32 = 0;
    /// `CAP_SETGID`.
    pub const SETGID: u32 = 6;
    /// `CAP_SETUID`.
    pub const SETUID: u32 = 7;
    /// `CAP_SETPCAP`.
    pub const SETPCAP: u32 = 8;
    /// `CAP_NET_ADMIN`.
    pub const NET_ADMIN: u32 = 12;
    /// `CAP_NET_RAW`.
    pub const NET_RAW: u32 = 13;
    /// `CAP_IPC_LOCK`.
    pub const IPC_LOCK: u32 = 14;
    /// `CAP_SYS_ADMIN`.
    pub const SYS_ADMIN: u32 = 21;
    /// `CAP_BPF` (Linux 5.8).
    pub const BPF: u32 = 39;
}

const NAMES: [&str; 41] = [
    "chown",
    "dac_override",
    "dac_read_search",
    "fowner",
    "fsetid",
    "kill",
    "setgid",
    "setuid",
    "setpcap",
    "linux_immutable",
    "net_bind_service",
    "net_broadcast",
    "net_admin",
    "net_raw",
    "ipc_lock",
    "ipc_owner",
    "sys_module",
    "sys_rawio",
    "sys_chroot",
    "sys_ptrace",
    "sys_pacct",
    "sys_admin",
    "sys_boot",
    "sys_nice",
    "sys_resource",
    "sys_time",
    "sys_tty_config",
    "mknod",
    "lease",
    "audit_write",
    "audit_control",
    "setfcap",
    "mac_override",
    "mac_admin",
    "syslog",
    "wake_alarm",
    "block_suspend",
    "audit_read",
    "perfmon",
    "bpf",
    "checkpoint_restore",
];

/// A set of capabilities as a bit mask (bit `n` = capability `n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CapSet(pub u64);

impl CapSet {
    /// The empty set.
    pub const EMPTY: CapSet = CapSet(0);

    /// The set of `caps`.
    pub fn of(caps: &[u32]) -> CapSet {
        CapSet(caps.iter().fold(0, |m, &c| m | (1u64 << c)))
    }

    /// Whether `cap` is in the set.
    pub fn has(self, cap: u32) -> bool {
        cap < 64 && self.0 & (1u64 << cap) != 0
    }

    /// The members' numbers.
    pub fn members(self) -> impl Iterator<Item = u32> {
        (0..64).filter(move |&c| self.has(c))
    }
}

/// `CAP_NET_RAW,CAP_BPF` style, or `none`.
impl fmt::Display for CapSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return f.write_str("none");
        }
        let mut first = true;
        for c in self.members() {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            match NAMES.get(c as usize) {
                Some(n) => write!(f, "CAP_{}", n.to_ascii_uppercase())?,
                None => write!(f, "cap_{c}")?,
            }
        }
        Ok(())
    }
}

/// Why privileges could not be given up. Each is fatal: a process does not run with
/// more privilege than configured.
#[derive(Debug, thiserror::Error)]
pub enum PrivError {
    /// The configured user does not exist.
    #[error("no such user {0:?} (see `getent passwd`)")]
    NoUser(String),
    /// The configured group does not exist.
    #[error("no such group {0:?} (see `getent group`)")]
    NoGroup(String),
    /// The user or group database could not be read.
    #[error("cannot look up {what} {name:?}: {err}")]
    Lookup {
        /// `user` or `group`.
        what: &'static str,
        /// The name.
        name: String,
        /// The error.
        err: std::io::Error,
    },
    /// The process cannot change to the configured user.
    #[error("cannot run as {0}: the process lacks CAP_SETUID/CAP_SETGID (start it as root, or leave `user` out)")]
    NotPrivileged(String),
    /// A system call failed.
    #[error("{what}: {err}")]
    Sys {
        /// The call.
        what: String,
        /// The error.
        err: std::io::Error,
    },
    /// What was read back differs from what was set.
    #[error("after dropping privileges: {0}")]
    Verify(String),
    /// A file could not be given to the user the process changes to.
    #[error("cannot give {path} to {to}: {err}")]
    Give {
        /// The file.
        path: String,
        /// The user and group.
        to: String,
        /// The error.
        err: std::io::Error,
    },
}

fn sys_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> PrivError {
    let what = what.into();
    move |err| PrivError::Sys { what, err }
}

/// The user (and group) a process runs as once it dropped its privileges, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// User name.
    pub user: String,
    /// User id.
    pub uid: u32,
    /// Group name (the user's primary group when none was configured: its number).
    pub group: String,
    /// Group id.
    pub gid: u32,
}

impl Identity {
    /// Look up `user` and `group` (`group` without `user` is refused by the config);
    /// None without a user. `Err` names the missing user or group.
    pub fn resolve(user: Option<&str>, group: Option<&str>) -> Result<Option<Identity>, PrivError> {
        let Some(user) = user else {
            return Ok(None);
        };
        let u = sys::user_by_name(user)
            .map_err(|err| PrivError::Lookup {
                what: "user",
                name: user.into(),
                err,
            })?
            .ok_or_else(|| PrivError::NoUser(user.into()))?;
        let (group, gid) = match group {
            Some(g) => {
                let gid = sys::group_by_name(g)
                    .map_err(|err| PrivError::Lookup {
                        what: "group",
                        name: g.into(),
                        err,
                    })?
                    .ok_or_else(|| PrivError::NoGroup(g.into()))?;
                (g.to_string(), gid)
            }
            None => (u.gid.to_string(), u.gid),
        };
        Ok(Some(Identity {
            user: user.into(),
            uid: u.uid,
            group,
            gid,
        }))
    }
}

/// Whether `name` can be a user or group name as written in a configuration: not
/// empty, no NUL, `/` or `:`, no surrounding whitespace. (Whether it exists is
/// [`Identity::resolve`]'s to say.)
pub fn is_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['\0', '/', ':']) && name.trim() == name
}

/// Give `paths` to `id`'s user and group (a socket, the directory made for it), so the
/// process can still remove them after it changed to that user. Call it before
/// [`drop_privileges`] (it needs `CAP_CHOWN`).
pub fn give(id: &Identity, paths: &[&Path]) -> Result<(), PrivError> {
    for p in paths {
        std::os::unix::fs::chown(p, Some(id.uid), Some(id.gid)).map_err(|err| PrivError::Give {
            path: p.display().to_string(),
            to: id.to_string(),
            err,
        })?;
    }
    Ok(())
}

/// The warning of a process that keeps uid 0 after [`drop_privileges`] (started as root
/// without a user), for its log at start and its configuration check; `key` is the
/// setting that changes the user (`[switch] user (or --user)`).
pub fn root_risk(key: &str) -> String {
    format!(
        "runs as uid 0 (root) without a user to change to: whatever capabilities it dropped, \
         files owned by root stay writable to it and other root processes can be signalled \
         by it; set {key} to run as an unprivileged user"
    )
}

/// The effective user id of the calling thread.
pub fn euid() -> u32 {
    sys::ids().0[1]
}

impl fmt::Display for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "user {} (uid {}), group {} (gid {})",
            self.user, self.uid, self.group, self.gid
        )
    }
}

/// What [`drop_privileges`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// Real/effective/saved uid and gid after.
    pub uid: u32,
    /// Group id after.
    pub gid: u32,
    /// Permitted = effective set after.
    pub kept: CapSet,
    /// Capabilities asked for that the process did not have (so not kept).
    pub missing: CapSet,
    /// Whether the bounding set was reduced to `kept` (false: no `CAP_SETPCAP`).
    pub bounding_dropped: bool,
    /// Threads of the process when the privileges were dropped (1 unless DPDK's EAL
    /// started its own): with a user they lost every capability with the uid change,
    /// without one they keep theirs.
    pub threads: usize,
}

impl Dropped {
    /// Who the process runs as now: `user nobody (uid 65534), gid 65534` (the user's
    /// name when it has one).
    pub fn who(&self) -> String {
        match sys::user_name(self.uid) {
            Some(n) => format!("user {n} (uid {}), gid {}", self.uid, self.gid),
            None => format!("uid {}, gid {}", self.uid, self.gid),
        }
    }
}

fn last_cap() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(40)
        .min(63)
}

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| d.count())
        .unwrap_or(1)
}

/// Give up every privilege except `keep` and, with `id`, change to that user and
/// group. Call it on the main thread before starting any other thread.
pub fn drop_privileges(id: Option<&Identity>, keep: CapSet) -> Result<Dropped, PrivError> {
    let before = sys::capget().map_err(sys_err("capget"))?;
    let threads = threads();
    let (uids, _) = sys::ids();
    let change_user = id.is_some_and(|i| uids != [i.uid; 3] || sys::ids().1 != [i.gid; 3]);
    if let Some(i) = id.filter(|_| change_user) {
        let eff = CapSet(before.effective);
        if !eff.has(cap::SETUID) || !eff.has(cap::SETGID) {
            return Err(PrivError::NotPrivileged(i.to_string()));
        }
        sys::set_keepcaps(true).map_err(sys_err("prctl(PR_SET_KEEPCAPS)"))?;
    }
    // the bounding set: everything outside `keep`
    let can_bound = CapSet(before.effective).has(cap::SETPCAP);
    let mut bounding_dropped = true;
    for c in 0..=last_cap() {
        if keep.has(c) {
            continue;
        }
        match sys::bounding_has(c) {
            Ok(true) if can_bound => {
                sys::bounding_drop(c).map_err(sys_err(format!("prctl(PR_CAPBSET_DROP, {c})")))?
            }
            Ok(true) => bounding_dropped = false,
            Ok(false) => {}
            // a capability this kernel does not know
            Err(_) => {}
        }
    }
    sys::ambient_clear().map_err(sys_err("prctl(PR_CAP_AMBIENT_CLEAR_ALL)"))?;
    if let Some(i) = id.filter(|_| change_user) {
        sys::setgroups(&[i.gid]).map_err(sys_err("setgroups"))?;
        sys::setresgid(i.gid).map_err(sys_err(format!("setresgid({})", i.gid)))?;
        sys::setresuid(i.uid).map_err(sys_err(format!("setresuid({})", i.uid)))?;
    }
    let kept = CapSet(keep.0 & before.permitted);
    sys::capset(sys::CapSets {
        effective: kept.0,
        permitted: kept.0,
        inheritable: 0,
    })
    .map_err(sys_err("capset"))?;
    if change_user {
        sys::set_keepcaps(false).map_err(sys_err("prctl(PR_SET_KEEPCAPS, 0)"))?;
    }
    sys::set_no_new_privs().map_err(sys_err("prctl(PR_SET_NO_NEW_PRIVS)"))?;

    // read it all back
    let after = sys::capget().map_err(sys_err("capget"))?;
    if after.effective != kept.0 || after.permitted != kept.0 || after.inheritable != 0 {
        return Err(PrivError::Verify(format!(
            "capabilities are effective {} permitted {} inheritable {}, not {kept}",
            CapSet(after.effective),
            CapSet(after.permitted),
            CapSet(after.inheritable)
        )));
    }
    let (uids, gids) = sys::ids();
    if let Some(i) = id {
        if uids != [i.uid; 3] || gids != [i.gid; 3] {
            return Err(PrivError::Verify(format!(
                "uids {uids:?} gids {gids:?}, not {}",
                i
            )));
        }
    }
    if bounding_dropped {
        for c in (0..=last_cap()).filter(|&c| !keep.has(c)) {
            if sys::bounding_has(c).unwrap_or(false) {
                return Err(PrivError::Verify(format!(
                    "{} is still in the bounding set",
                    CapSet::of(&[c])
                )));
            }
        }
    }
    Ok(Dropped {
        uid: uids[0],
        gid: gids[0],
        kept,
        missing: CapSet(keep.0 & !before.permitted),
        bounding_dropped,
        threads,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capability_names_match_the_kernel_numbers() {
        assert_eq!(CapSet::of(&[cap::CHOWN]).to_string(), "CAP_CHOWN");
        assert_eq!(CapSet::of(&[cap::SETPCAP]).to_string(), "CAP_SETPCAP");
        assert_eq!(CapSet::of(&[cap::SYS_ADMIN]).to_string(), "CAP_SYS_ADMIN");
        assert_eq!(CapSet::of(&[cap::BPF]).to_string(), "CAP_BPF");
        assert_eq!(
            CapSet::of(&[40, 50]).to_string(),
            "CAP_CHECKPOINT_RESTORE,cap_50"
        );
        assert_eq!(CapSet::EMPTY.to_string(), "none");
    }

    #[test]
    fn unknown_user_and_group_are_named() {
        let e = Identity::resolve(Some("hdn-no-such-user"), None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no such user \"hdn-no-such-user\" (see `getent passwd`)"
        );
        let e = Identity::resolve(Some("root"), Some("hdn-no-such-group")).unwrap_err();
        assert!(
            e.to_string()
                .contains("no such group \"hdn-no-such-group\""),
            "{e}"
        );
        let e = Identity::resolve(Some("bad\0name"), None).unwrap_err();
        assert!(matches!(e, PrivError::NoUser(_)), "{e}");
        assert_eq!(Identity::resolve(None, None).unwrap(), None);
        let r = Identity::resolve(Some("root"), None).unwrap().unwrap();
        assert_eq!((r.uid, r.gid), (0, 0));
    }

    #[test]
    fn names_as_written() {
        for good in ["canopy", "nobody", "a-b_c.d", "65534"] {
            assert!(is_name(good), "{good}");
        }
        for bad in ["", " canopy", "canopy ", "a/b", "a:b", "a\0b"] {
            assert!(!is_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn the_root_warning_names_the_risk_and_the_key() {
        let w = root_risk("[daemon] user (or --user)");
        assert!(w.contains("uid 0"), "{w}");
        assert!(w.contains("files owned by root stay writable"), "{w}");
        assert!(w.contains("other root processes can be signalled"), "{w}");
        assert!(w.contains("set [daemon] user (or --user)"), "{w}");
    }
}
