//! A client of a guest's QMP socket (the QEMU Machine Protocol): one command per
//! connection after the capabilities handshake. The testbed uses it to take a guest's
//! NIC link down and up (the guest sees its carrier go, as with a pulled cable), to ask
//! a guest's state and to stop a guest.

use crate::error::{Result, TestbedError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

/// A QMP command.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "execute", content = "arguments", rename_all = "kebab-case")]
pub enum Command {
    /// Leave the capabilities negotiation (first on every connection).
    #[serde(rename = "qmp_capabilities")]
    Capabilities {},
    /// The guest's run state.
    QueryStatus {},
    /// A NIC's link up or down.
    #[serde(rename = "set_link")]
    SetLink {
        /// The netdev's id.
        name: String,
        /// Up.
        up: bool,
    },
    /// Stop QEMU at once.
    Quit {},
}

/// `query-status`'s answer.
#[derive(Debug, Clone, Deserialize)]
pub struct Status {
    /// `running`, `paused`, `shutdown`, ...
    pub status: String,
}

fn err(socket: &Path, detail: impl std::fmt::Display) -> TestbedError {
    TestbedError::Vm {
        guest: socket.display().to_string(),
        detail: format!("QMP: {detail}"),
    }
}

/// Send `cmd` to the QMP socket `socket` and return its `return` value (an error answer
/// becomes an error naming QEMU's class and description). Events on the way are skipped.
pub fn execute(socket: &Path, cmd: &Command, timeout: Duration) -> Result<Value> {
    let s = UnixStream::connect(socket).map_err(|e| err(socket, format!("connect: {e}")))?;
    s.set_read_timeout(Some(timeout))
        .and_then(|_| s.set_write_timeout(Some(timeout)))
        .map_err(|e| err(socket, e))?;
    let mut r = BufReader::new(s.try_clone().map_err(|e| err(socket, e))?);
    let mut w = s;
    let answer = |r: &mut BufReader<UnixStream>| -> Result<Value> {
        loop {
            let mut line = String::new();
            // QEMU's lines are short; a bound keeps a broken peer from growing this
            let n = r
                .by_ref()
                .take(1 << 20)
                .read_line(&mut line)
                .map_err(|e| err(socket, format!("read: {e}")))?;
            if n == 0 {
                return Err(err(socket, "closed"));
            }
            let v: Value = serde_json::from_str(&line)
                .map_err(|e| err(socket, format!("malformed answer {line:?}: {e}")))?;
            if v.get("event").is_some() || v.get("QMP").is_some() {
                continue;
            }
            if let Some(e) = v.get("error") {
                return Err(err(
                    socket,
                    format!(
                        "{}: {}",
                        e["class"].as_str().unwrap_or("error"),
                        e["desc"].as_str().unwrap_or("")
                    ),
                ));
            }
            return Ok(v.get("return").cloned().unwrap_or(Value::Null));
        }
    };
    let mut last = Value::Null;
    for c in [&Command::Capabilities {}, cmd] {
        let mut line = serde_json::to_vec(c).map_err(|e| err(socket, e))?;
        line.push(b'\n');
        w.write_all(&line)
            .map_err(|e| err(socket, format!("write: {e}")))?;
        last = match (c, answer(&mut r)) {
            // QEMU may close before it answers `quit`
            (Command::Quit {}, Err(_)) => Value::Null,
            (_, a) => a?,
        };
    }
    Ok(last)
}

/// `query-status`.
pub fn status(socket: &Path, timeout: Duration) -> Result<Status> {
    let v = execute(socket, &Command::QueryStatus {}, timeout)?;
    serde_json::from_value(v).map_err(|e| err(socket, format!("query-status: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_qmp_objects() {
        let j = |c: &Command| serde_json::to_string(c).unwrap();
        assert_eq!(
            j(&Command::Capabilities {}),
            r#"{"execute":"qmp_capabilities","arguments":{}}"#
        );
        assert_eq!(
            j(&Command::QueryStatus {}),
            r#"{"execute":"query-status","arguments":{}}"#
        );
        assert_eq!(
            j(&Command::SetLink {
                name: "p0".into(),
                up: false
            }),
            r#"{"execute":"set_link","arguments":{"name":"p0","up":false}}"#
        );
    }
}
