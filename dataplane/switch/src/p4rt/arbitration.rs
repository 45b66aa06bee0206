//! Client arbitration (P4Runtime Specification, "Client Arbitration and Controller
//! Replication"): which of the controllers connected over `StreamChannel` is the primary
//! that may write, and the advisory messages each change sends. A pure state machine:
//! the server feeds it the arbitration messages and disconnections of its streams and
//! sends the notifications it returns.
//!
//! canopy-switch has one device and the default role only (full pipeline access); a
//! named role or a role configuration is refused, since no scheme for partitioning the
//! program between controllers has been agreed.

use canopy_p4rt::rpc::Status;
use canopy_p4rt::v1::{MasterArbitrationUpdate, Uint128};
use std::collections::BTreeMap;

/// A stream, as the server numbers them.
pub type Client = u64;

/// gRPC's OK.
const OK: i32 = 0;
/// gRPC's INVALID_ARGUMENT.
const INVALID_ARGUMENT: i32 = 3;
/// gRPC's NOT_FOUND.
const NOT_FOUND: i32 = 5;
/// gRPC's ALREADY_EXISTS.
const ALREADY_EXISTS: i32 = 6;
/// gRPC's PERMISSION_DENIED.
const PERMISSION_DENIED: i32 = 7;
/// gRPC's RESOURCE_EXHAUSTED.
const RESOURCE_EXHAUSTED: i32 = 8;
/// gRPC's FAILED_PRECONDITION.
const FAILED_PRECONDITION: i32 = 9;

/// Most controllers connected at once.
pub const MAX_CLIENTS: usize = 16;

/// A refusal: the gRPC code and why. For an arbitration message it ends the stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}")]
pub struct Refusal {
    /// The code.
    pub code: i32,
    /// Why.
    pub what: String,
}

fn refuse<T>(code: i32, what: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal {
        code,
        what: what.into(),
    })
}

/// Advisory messages to send: to which stream, what.
pub type Notices = Vec<(Client, MasterArbitrationUpdate)>;

/// The controllers of the device and who is primary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arbiter {
    device_id: u64,
    /// Live controllers and their election ids (`None`: not set).
    clients: BTreeMap<Client, Option<u128>>,
    /// The highest election id ever accepted as primary's.
    past: Option<u128>,
    primary: Option<Client>,
}

impl Arbiter {
    /// No controller yet, for device `device_id`.
    pub fn new(device_id: u64) -> Arbiter {
        Arbiter {
            device_id,
            clients: BTreeMap::new(),
            past: None,
            primary: None,
        }
    }

    /// The device's id.
    pub fn device_id(&self) -> u64 {
        self.device_id
    }

    /// The primary's stream, if there is one.
    pub fn primary(&self) -> Option<Client> {
        self.primary
    }

    /// Controllers connected.
    pub fn len(&self) -> usize {
        self.clients.len()
    }

    /// No controller connected.
    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// An arbitration message from stream `c`; the notices to send, or a refusal that
    /// ends the stream (the state is then unchanged).
    pub fn update(&mut self, c: Client, m: &MasterArbitrationUpdate) -> Result<Notices, Refusal> {
        let live = self.clients.contains_key(&c);
        if m.device_id != self.device_id {
            let code = if live { FAILED_PRECONDITION } else { NOT_FOUND };
            return refuse(
                code,
                format!(
                    "device {} is not this switch's ({})",
                    m.device_id, self.device_id
                ),
            );
        }
        if let Some(r) = &m.role {
            if !r.name.is_empty() || r.id != 0 {
                let code = if live {
                    FAILED_PRECONDITION
                } else {
                    INVALID_ARGUMENT
                };
                return refuse(code, "canopy-switch has the default role only (full pipeline access): leave the role out");
            }
            if r.config.is_some() {
                return refuse(
                    INVALID_ARGUMENT,
                    "no role configuration scheme is agreed: leave role.config out",
                );
            }
        }
        let eid = m.election_id.map(|e| e.get());
        if let Some(e) = eid {
            if self.clients.iter().any(|(&o, &oe)| o != c && oe == Some(e)) {
                return refuse(
                    INVALID_ARGUMENT,
                    format!("election id {e} is another live controller's"),
                );
            }
        }
        if !live && self.clients.len() >= MAX_CLIENTS {
            return refuse(
                RESOURCE_EXHAUSTED,
                format!("{MAX_CLIENTS} controllers are connected already"),
            );
        }
        self.clients.insert(c, eid);
        let was_primary = self.primary == Some(c);
        match eid {
            Some(e) if self.past.is_none_or(|p| e >= p) => {
                self.past = Some(e);
                self.primary = Some(c);
                Ok(self.to_all())
            }
            _ => {
                if was_primary {
                    self.primary = None;
                    Ok(self.to_all())
                } else {
                    Ok(vec![(c, self.notice(c))])
                }
            }
        }
    }

    /// Stream `c` ended: if it was the primary, every other controller is told there is
    /// none now.
    pub fn disconnect(&mut self, c: Client) -> Notices {
        if self.clients.remove(&c).is_none() {
            return Vec::new();
        }
        if self.primary == Some(c) {
            self.primary = None;
            return self.to_all();
        }
        Vec::new()
    }

    /// Whether a write naming `device_id`, `role` and `election_id` comes from the
    /// primary.
    pub fn may_write(
        &self,
        device_id: u64,
        role: &str,
        election_id: Option<Uint128>,
    ) -> Result<(), Refusal> {
        if device_id != self.device_id {
            return refuse(
                NOT_FOUND,
                format!(
                    "device {device_id} is not this switch's ({})",
                    self.device_id
                ),
            );
        }
        if !role.is_empty() {
            return refuse(PERMISSION_DENIED, "canopy-switch has the default role only");
        }
        let primary = self
            .primary
            .and_then(|p| self.clients.get(&p).copied().flatten());
        match (primary, election_id.map(|e| e.get())) {
            (Some(p), Some(e)) if p == e => Ok(()),
            (None, _) => refuse(
                PERMISSION_DENIED,
                "no primary controller: arbitrate on StreamChannel first",
            ),
            (Some(_), e) => refuse(
                PERMISSION_DENIED,
                format!("election id {e:?} is not the primary's"),
            ),
        }
    }

    /// The notice for every controller.
    fn to_all(&self) -> Notices {
        self.clients.keys().map(|&c| (c, self.notice(c))).collect()
    }

    /// The notice for controller `c`: the highest election id, and OK for the primary,
    /// ALREADY_EXISTS for a backup, NOT_FOUND for everyone when there is no primary.
    fn notice(&self, c: Client) -> MasterArbitrationUpdate {
        let (code, message) = match self.primary {
            Some(p) if p == c => (OK, "primary"),
            Some(_) => (ALREADY_EXISTS, "backup: another controller is primary"),
            None => (NOT_FOUND, "backup: there is no primary"),
        };
        MasterArbitrationUpdate {
            device_id: self.device_id,
            role: None,
            election_id: self.past.map(Uint128::of),
            status: Some(Status {
                code,
                message: message.into(),
                details: Vec::new(),
            }),
        }
    }
}

#[cfg(test)]
mod tests;
