//! The `simple_switch_CLI` writer: [`bmv2_cli`].

use std::fmt::Write as _;

use super::{Call, Match, Op, Val, INGRESS};

/// bmv2 priority of an LPM-like entry: the smallest value wins in bmv2's own API, so
/// longer prefixes get smaller values (1 for 64 bits, 65 for the empty prefix).
pub fn bmv2_priority(prefix_len: u8) -> u32 {
    65 - u32::from(prefix_len.min(64))
}

fn hex_or_dec(x: Val) -> String {
    if x.bits > 16 && x.value > 0xffff {
        format!("{:#x}", x.value)
    } else {
        x.value.to_string()
    }
}

fn cli_key(key: &[Match]) -> String {
    key.iter()
        .map(|m| match m {
            Match::Exact { v, .. } => hex_or_dec(*v),
            Match::Ternary { v, mask, .. } => format!("{:#x}&&&{:#x}", v.value, mask),
            Match::Range { lo, hi, .. } => format!("{}->{}", lo.value, hi),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn cli_params(c: &Call) -> String {
    c.params
        .iter()
        .map(|(_, v)| hex_or_dec(*v))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `simple_switch_CLI` commands (one per line; comments start with `#`).
pub fn bmv2_cli(ops: &[Op]) -> String {
    let mut s = String::new();
    for op in ops {
        match op {
            Op::Comment(c) => {
                let _ = writeln!(s, "# {c}");
            }
            Op::SetDefault { table, call } => {
                let _ = writeln!(
                    s,
                    "table_set_default {INGRESS}.{table} {INGRESS}.{} {}",
                    call.action,
                    cli_params(call)
                );
            }
            Op::Add {
                table,
                key,
                call,
                prefix_len,
            } => {
                let prio = prefix_len
                    .map(|l| format!(" {}", bmv2_priority(l)))
                    .unwrap_or_default();
                let _ = writeln!(
                    s,
                    "table_add {INGRESS}.{table} {INGRESS}.{} {} => {}{prio}",
                    call.action,
                    cli_key(key),
                    cli_params(call)
                );
            }
        }
    }
    // Trailing spaces of parameterless actions are harmless for the CLI but untidy.
    s.lines()
        .map(str::trim_end)
        .fold(String::new(), |mut o, l| {
            o.push_str(l);
            o.push('\n');
            o
        })
}
