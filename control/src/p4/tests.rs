//! Entry computation and the writers' encodings.

use canopy_dataplane::table::pathid::Action as PidAction;
use canopy_dataplane::table::{PortConfig, PortDir, PortRole, SwitchTables};

use super::*;

#[test]
fn base64_matches_rfc4648_vectors() {
    for (i, o) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(base64(i.as_bytes()), o, "{i}");
    }
}

#[test]
fn canonical_bytes_strip_leading_zeros() {
    assert_eq!(canonical_bytes(0), vec![0]);
    assert_eq!(canonical_bytes(1), vec![1]);
    assert_eq!(canonical_bytes(0x100), vec![1, 0]);
    assert_eq!(canonical_bytes(u64::MAX), vec![0xff; 8]);
}

#[test]
fn priorities_order_longer_prefixes_first_on_both_apis() {
    assert!(bmv2_priority(6) < bmv2_priority(5));
    assert!(p4runtime_priority(6) > p4runtime_priority(5));
    assert_eq!(bmv2_priority(64), 1);
    assert_eq!(p4runtime_priority(0), 1);
}

fn duplex(n: usize) -> Vec<PortConfig> {
    vec![
        PortConfig {
            role: PortRole::Down,
            dir: PortDir::Duplex
        };
        n
    ]
}

#[test]
fn port_beyond_v1model_is_a_typed_error() {
    let sw = SwitchTables::new("big", duplex(600));
    assert_eq!(
        entries(&sw).unwrap_err(),
        P4Error::PortOutOfRange {
            switch: "big".into(),
            port: 511
        }
    );
}

#[test]
fn unknown_group_is_a_typed_error() {
    use canopy_dataplane::table::pathid::{HostEntry, PathIdTable};
    let mut sw = SwitchTables::new("leaf", duplex(2));
    sw.pathid = Some(
        PathIdTable::new(
            1,
            true,
            vec![HostEntry {
                label: 0,
                action: PidAction::Group(3),
            }],
            vec![],
        )
        .unwrap(),
    );
    assert!(matches!(
        entries(&sw),
        Err(P4Error::UnknownGroup { group: 3, .. })
    ));
}

#[test]
fn groups_are_a_size_and_one_member_per_bucket() {
    let mut sw = SwitchTables::new("s", duplex(2));
    sw.groups.push(vec![]);
    sw.groups.push(vec![0, 1]);
    let cli = bmv2_cli(&entries(&sw).unwrap());
    assert!(cli.contains("table_add CanopyIngress.fwd_group CanopyIngress.group_empty 0 =>\n"));
    assert!(cli.contains("table_add CanopyIngress.fwd_group CanopyIngress.set_group 1 => 2\n"));
    assert!(cli.contains("table_add CanopyIngress.fwd_member CanopyIngress.set_egress 1 0 => 0\n"));
    assert!(cli.contains("table_add CanopyIngress.fwd_member CanopyIngress.set_egress 1 1 => 1\n"));
}
