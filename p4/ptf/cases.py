"""The conformance cases: frames in, frames out (or a counted drop), computed from the plan.

Every case is a dict:
  name      identifier (the PTF test class is `Case_<name>`)
  kind      header kind it exercises (sliced, transit, path-id)
  rule      what it checks (forwarding rule or drop reason; docs/conformance.md lists them)
  inst      switch instance key in plan["instances"]
  in_port   switch port the frame enters
  frame     hex of the whole frame sent
  expect    {"out": [ports], "frame": hex}  the frame must come out, whole, on one of the ports
            {"drop": reason}                nothing comes out; drop counter `reason` +1
            {"out": [ports], "frame": hex, "hop": {...}}  as the first, except for the hop
                                            record the switch writes (wire-format §2.1):
                                            "at" its offset in the frame, "switch" and
                                            "ingress" its expected values; the egress must be
                                            the port the frame came out of, the times and
                                            clock as the target writes them (test_canopy.py)
"""

from canopy_conf import frame

# Reasons that no frame sent from outside can produce, and why (docs/conformance.md).
NOT_PRODUCIBLE = {
    "no_port": "needs a group whose every port was removed from the tables; the table checks "
    "(canopy-switch, canopyctl) refuse empty groups, and an administratively down port is "
    "counted as the engine's `port_down`, not `no_port`",
}


# Cases a target is known to fail, with the reason. They run like every other case and
# must fail (an unexpected pass fails the suite, so the entry is removed with the fix).
# Empty since canopy-switch's AF_PACKET port restores the VLAN tag the kernel strips.
KNOWN_FAILURES = {
    "canopy": {},
    "canopy-p4rt": {},
    "bmv2": {},
}


def _set(hdr, i, value):
    b = bytearray(hdr)
    b[i] = value
    return bytes(b)


def _or(hdr, i, value):
    return _set(hdr, i, hdr[i] | value)


def _payload_len(hdr, n):
    """`hdr` with the prefix's payload length (bytes 4-5) set to n."""
    return bytes(hdr[:4]) + n.to_bytes(2, "big") + bytes(hdr[6:])


class Builder:
    def __init__(self, plan):
        self.plan = plan
        self.cases = []

    def add(self, name, kind, rule, inst, in_port, frm, expect):
        self.cases.append(
            {
                "name": name,
                "kind": kind,
                "rule": rule,
                "inst": inst,
                "in_port": in_port,
                "frame": frm.hex(),
                "expect": expect,
            }
        )

    def fwd(self, name, kind, rule, hop, hdr_in=None, hdr_out=None, vlans=(), payload_len=None):
        hin = hop["hdr_in"] if hdr_in is None else hdr_in
        hout = hop["hdr_out"] if hdr_out is None else hdr_out
        self.add(
            name,
            kind,
            rule,
            hop["inst"],
            hop["in_port"],
            frame(
                bytes.fromhex(hin) if isinstance(hin, str) else hin,
                payload_len=payload_len,
                vlans=vlans,
            ),
            {
                "out": hop["out_ports"],
                "frame": frame(
                    bytes.fromhex(hout) if isinstance(hout, str) else hout,
                    payload_len=payload_len,
                    vlans=vlans,
                ).hex(),
            },
        )

    def drop(self, name, kind, reason, inst, in_port, frm):
        self.add(name, kind, reason, inst, in_port, frm, {"drop": reason})


# ---- per-hop records (wire-format §2.1)
HOPS = 0x40
MEAS = 0x80
RECORD_LEN = 48
ETH_LEN = 14


def record(switch, ingress, egress, queue=0, clock=0, rx=0, poll=0, tx=0, qdelay=0):
    """One 48-byte hop record."""
    return (
        switch.to_bytes(4, "big") + ingress.to_bytes(2, "big") + egress.to_bytes(2, "big")
        + queue.to_bytes(4, "big") + bytes([clock, 0, 0, 0]) + rx.to_bytes(8, "big")
        + poll.to_bytes(8, "big") + tx.to_bytes(8, "big") + qdelay.to_bytes(4, "big") + bytes(4)
    )


def with_hops(hdr, slots, records=(), overflow=False, meas=None):
    """`hdr` (prefix + body, no area, no measurement block) with a hop record area of
    `slots` slots holding `records` (Count = len(records)), and `meas` (16 bytes) if given."""
    prefix = bytearray(hdr[:8])
    prefix[1] |= HOPS | (MEAS if meas else 0)
    desc = bytes([slots, len(records), 0x80 if overflow else 0, 0, 0, 0, 0, 0])
    area = b"".join(records) + bytes(RECORD_LEN * (slots - len(records)))
    out = bytearray(prefix + desc + hdr[8:] + (meas or b"") + area)
    out[3] = len(out) // 8
    return bytes(out)


# A record an earlier switch wrote (its values are arbitrary; the switch must keep them).
EARLIER = record(0xA0B0C0D0, 7, 9, queue=3, clock=1, rx=11, poll=22, tx=33)
MEAS_BLOCK = bytes.fromhex("00000000000000070102030405060708")


def hop_cases(b, hops, switch_ids):
    """Every hop of a path with a record area: the switch writes the next slot (slot 0 at
    the first hop, slot 1 behind an earlier record at the others, with a measurement
    block at every other hop); a full area and one without slots get OVERFLOW and no
    record; malformed areas are dropped under the reasons of wire-format §2.1."""
    for i, hop in enumerate(hops):
        hin, hout = bytes.fromhex(hop["hdr_in"]), bytes.fromhex(hop["hdr_out"])
        before = [EARLIER] if i > 0 else []
        meas = MEAS_BLOCK if i % 2 else None
        sw = switch_ids[hop["switch"]]
        placeholder = record(sw, hop["in_port"], hop["out_ports"][0])
        fin = with_hops(hin, 3, before, meas=meas)
        fout = with_hops(hout, 3, before + [placeholder], meas=meas)
        at = ETH_LEN + len(fout) - RECORD_LEN * (3 - len(before))
        b.add(
            f"hops_record_{hop['switch']}", "hops", "records: the next slot", hop["inst"],
            hop["in_port"], frame(fin),
            {
                "out": hop["out_ports"],
                "frame": frame(fout).hex(),
                "hop": {"at": at, "switch": sw, "ingress": hop["in_port"]},
            },
        )
    hop = hops[0]
    hin, hout = bytes.fromhex(hop["hdr_in"]), bytes.fromhex(hop["hdr_out"])
    full = [EARLIER, EARLIER]
    b.fwd("hops_full_area", "hops", "records: a full area gets OVERFLOW", hop,
          hdr_in=with_hops(hin, 2, full), hdr_out=with_hops(hout, 2, full, overflow=True))
    b.fwd("hops_no_slot", "hops", "records: no slot, OVERFLOW", hop,
          hdr_in=with_hops(hin, 0), hdr_out=with_hops(hout, 0, overflow=True))

    def dr(name, reason, hdr):
        b.drop(f"hops_{name}", "hops", reason, hop["inst"], hop["in_port"], frame(hdr))

    h = with_hops(hin, 2, [EARLIER])
    # descriptor at 8: slots 8, count 9, flags 10, reserved 11-15
    dr("count_past_slots", "bad_field_value", _set(h, 9, 3))
    dr("slots_past_hdr_len", "bad_field_value", _set(h, 8, 3))
    dr("hdr_len_without_descriptor", "bad_field_value", _set(h, 3, 2))
    dr("flags_reserved_bit", "reserved_bits_set", _or(h, 10, 0x01))
    dr("reserved_byte", "reserved_bits_set", _set(h, 13, 1))
    dr("prefix_reserved_flag", "reserved_bits_set", _or(h, 1, 0x20))
    b.drop("hops_area_cut_short", "hops", "truncated", hop["inst"], hop["in_port"],
           frame(h)[: ETH_LEN + len(h) - 8])


def common_drops(b, kind, hop, other_inst, other_port):
    """The reasons of wire-format §3 for one kind, crafted from a valid hop input."""
    h = bytes.fromhex(hop["hdr_in"])
    inst, port = hop["inst"], hop["in_port"]
    k = kind.replace("-", "")
    b.drop(f"{k}_truncated_in_prefix", kind, "truncated", inst, port, frame(h)[: 14 + 5])
    b.drop(f"{k}_truncated_body", kind, "truncated", inst, port, frame(_set(h, 3, 2)[:16]))
    b.drop(f"{k}_not_canopy", kind, "not_canopy", inst, port, frame(h, ethertype=0x0800))
    vl3 = ((0x88A8, 1), (0x8100, 2), (0x8100, 3))
    b.drop(f"{k}_three_vlan_tags", kind, "too_many_vlan_tags", inst, port, frame(h, vlans=vl3))
    b.drop(f"{k}_bad_version", kind, "bad_version", inst, port, frame(_set(h, 0, 0x20 | (h[0] & 15))))
    b.drop(f"{k}_unknown_kind", kind, "unknown_kind", inst, port, frame(_set(h, 0, 0x14)))
    b.drop(f"{k}_prefix_reserved_flag", kind, "reserved_bits_set", inst, port, frame(_or(h, 1, 0x01)))
    b.drop(f"{k}_hdrlen_too_small", kind, "bad_field_value", inst, port, frame(_set(h, 3, 1)))
    b.drop(f"{k}_hop_limit_zero", kind, "ttl_expired", inst, port, frame(_set(h, 2, 0)))
    b.drop(f"{k}_kind_not_configured", kind, "kind_not_configured", other_inst, other_port, frame(h))
    # The payload length against the frame (wire-format §2): a 4-byte payload padded to 60
    # bytes leaves `room` bytes after the header; a payload length up to `room` is carried
    # (the padding counts), one more is not.
    room = 60 - 14 - len(h)
    assert room >= 4, f"{k}: a {len(h)}-byte header leaves no padding"
    hout = bytes.fromhex(hop["hdr_out"])
    b.fwd(f"{k}_payload_len_into_padding", kind, "payload_len_within_frame", hop,
          hdr_in=_payload_len(h, room), hdr_out=_payload_len(hout, room), payload_len=4)
    b.drop(f"{k}_payload_len_past_frame", kind, "truncated", inst, port,
           frame(_payload_len(h, room + 1), payload_len=4))
    # Accepted framing: one and two VLAN tags are skipped and kept.
    b.fwd(f"{k}_one_vlan_tag", kind, "vlan_tags_skipped", hop, vlans=((0x8100, 7),))
    b.fwd(f"{k}_two_vlan_tags", kind, "vlan_tags_skipped", hop, vlans=((0x88A8, 5), (0x8100, 7)))


def build(plan):
    b = Builder(plan)
    paths = plan["paths"]

    # ---- forwarding: every hop of every vector path, as the switch receives it
    for pname, p in paths.items():
        for i, hop in enumerate(p["hops"]):
            rule = f"{p['kind']}: {hop['in_role']} -> {hop['out_role']}" + (
                " (group)" if len(hop["out_ports"]) > 1 else ""
            )
            b.fwd(f"{pname}_hop{i + 1}", p["kind"], rule, hop)

    s1 = paths["S1"]["hops"]
    t1 = paths["T4"]["hops"]  # transit-full:layers=2: small tables, every hop instantiated
    i1 = paths["I1"]["hops"]
    common_drops(b, "sliced", s1[0], i1[0]["inst"], i1[0]["in_port"])
    common_drops(b, "transit", t1[0], s1[0]["inst"], s1[0]["in_port"])
    common_drops(b, "path-id", i1[0], t1[0]["inst"], t1[0]["in_port"])

    # ---- sliced (mode 0 on znode:z=3,2,3;r=1,3,6;m=2 along S1; modes 1-3 along S5-S7)
    k = "sliced"

    def sl(name, reason, hop, hdr):
        b.drop(f"sliced_{name}", k, reason, hop["inst"], hop["in_port"], frame(hdr))

    h = [bytes.fromhex(x["hdr_in"]) for x in s1]
    # body starts at 8: mode 8, flags 9, slice_len 10, cursor 11, reserved 12-15, SLICE 16-23
    sl("cursor_at_end", "slice_exhausted", s1[0], _set(h[0], 11, 9))
    sl("rho_up_at_top", "up_at_top", s1[2], _or(h[2], 16, 0x20))
    sl("label_out_of_range", "bad_label", s1[5], _or(h[5], 17, 0x80))
    sl("phase_down_from_below", "bad_phase", s1[0], _or(h[0], 9, 0x80))
    sl("climbing_from_above", "bad_phase", s1[4], _set(h[4], 9, 0x00))
    sl("side_without_side_taken", "bad_phase", s1[3], _set(h[3], 9, 0x80))
    sl("slice_leftover_at_level1", "slice_leftover", s1[5], _set(h[5], 10, 10))
    sl("mode_4", "bad_field_value", s1[0], _set(h[0], 8, 4))
    sl("slice_len_65", "bad_field_value", s1[0], _set(h[0], 10, 65))
    sl("cursor_past_slice_len", "bad_field_value", s1[0], _set(h[0], 11, 10))
    sl("body_24_without_has_src", "bad_field_value", s1[0], _set(h[0], 3, 4) + bytes(8))
    sl("flags_reserved_bit", "reserved_bits_set", s1[0], _or(h[0], 9, 0x10))
    sl("body_reserved_byte", "reserved_bits_set", s1[0], _set(h[0], 12, 1))
    sl("slice_bit_past_len", "reserved_bits_set", s1[0], _or(h[0], 17, 0x40))
    s5 = bytes.fromhex(paths["S5"]["hops"][0]["hdr_in"])
    sl("dst_mode_at_sliced_switch", "mode_mismatch", s1[0], s5)
    sl("sliced_mode_at_dst_switch", "mode_mismatch", paths["S5"]["hops"][0], h[0])
    s6h = paths["S6"]["hops"][0]
    s6 = bytes.fromhex(s6h["hdr_in"])
    # SRCDST without HAS_SRC: flags cleared, SRC word dropped, HdrLen 3
    sl("srcdst_without_src", "bad_field_value", s6h, _set(_set(s6, 9, 0), 3, 3)[:24])
    s5h = paths["S5"]["hops"][0]
    sl("dst_bit_above_w", "reserved_bits_set", s5h, _or(s5, 23, 0x40))
    # modes 1-3 never move the cursor: a non-zero one is bad_field_value (wire-format §4.1)
    sl("cursor_in_dst_mode", "bad_field_value", s5h, _set(s5, 11, 1))
    bs = plan["side_label"]
    sl("side_label_not_below_m", "bad_side_label", bs, bytes.fromhex(bs["hdr_bad"]))

    # ---- transit (transit-hybrid:leaf=192;layers=2 along T1, transit-full:layers=2 along T4)
    k = "transit"

    def tr(name, reason, hop, hdr, port=None):
        b.drop(
            f"transit_{name}", k, reason, hop["inst"], hop["in_port"] if port is None else port,
            frame(hdr),
        )

    th = bytes.fromhex(t1[0]["hdr_in"])
    # body at 8: msg|flags 8, route_len 9, head 10, rsvd|rot 11, hops 12, rec_slots 13, cycles 14-15
    tr("strict_reply_T3", "mode_mismatch", t1[0], bytes.fromhex(plan["vectors"]["T3"]))
    tr("on_output_port", "bad_ingress_port", t1[0], th, port=8)
    tr("msg_6", "bad_field_value", t1[0], _set(th, 8, 0x60))
    tr("head_past_route_len", "bad_field_value", t1[0], _set(th, 10, 5))
    tr("body_longer", "bad_field_value", t1[0], _set(th, 3, 4) + bytes(8))
    tr("flags_reserved_bit", "reserved_bits_set", t1[0], _set(th, 8, 0x02))
    tr("rot_reserved_bits", "reserved_bits_set", t1[0], _set(th, 11, 0x04))
    tr("route_len_past_body", "truncated", t1[0], _set(th, 9, 12))
    re = plan["transit_route_exhausted"]
    tr("swallow_past_route", "route_exhausted", re, bytes.fromhex(re["hdr_bad"]))
    rn = plan["transit_route_exhausted_no_swallow"]
    tr("head_at_route_len", "route_exhausted", rn, bytes.fromhex(rn["hdr_bad"]))
    no = plan["transit_no_output"]
    tr("unconnected_direction", "no_output", no, bytes.fromhex(no["hdr_bad"]))

    # ---- path-id (fat-tree:k=4 along I1; I3 LOCAL; I8 type 0)
    k = "path-id"

    def pi(name, reason, hop, hdr, port=None):
        b.drop(
            f"pathid_{name}", k, reason, hop["inst"], hop["in_port"] if port is None else port,
            frame(hdr),
        )

    ih = [bytes.fromhex(x["hdr_in"]) for x in i1]
    v = plan["vectors"]
    # body at 8: flags 8, id_len 9, reserved 10-11, host label 12-15, ID 16-23
    pi("type0_id_in_other_pod", "no_route", i1[3], bytes.fromhex(v["I8"]), port=plan["pathid_other_pod_down_port"])
    pi("phase_down_from_below", "bad_phase", i1[0], bytes.fromhex(v["I2"]))
    pi("descending_without_phase_down", "bad_phase", i1[3], bytes.fromhex(v["I5"]))
    pi("descending_on_upward_entry", "bad_phase", i1[1], bytes.fromhex(v["I2"]), port=plan["pathid_up_port_agg"])
    pi("local_at_non_leaf", "bad_phase", i1[1], bytes.fromhex(v["I3"]))
    # the same from above (PHASE_DOWN set): still bad_phase, not no_route (wire-format §6.3)
    i3_down = _or(bytes.fromhex(v["I3"]), 8, 0x80)
    pi("local_from_above_at_non_leaf", "bad_phase", i1[1], i3_down, port=plan["pathid_up_port_agg"])
    pi("unknown_host_label", "bad_label", i1[4], _set(ih[4], 15, 7))
    pi("local_unknown_host_label", "bad_label", i1[0], _set(bytes.fromhex(v["I3"]), 15, 7))
    pi("body_longer", "bad_field_value", i1[0], _set(ih[0], 3, 4) + bytes(8))
    pi("id_len_65", "bad_field_value", i1[0], _set(ih[0], 9, 65))
    pi("id_len_0_without_local", "bad_field_value", i1[0], _set(ih[0], 9, 0))
    pi("local_with_id_len", "bad_field_value", i1[0], _set(bytes.fromhex(v["I3"]), 9, 6))
    pi("flags_reserved_bit", "reserved_bits_set", i1[0], _or(ih[0], 8, 0x01))
    pi("reserved_byte", "reserved_bits_set", i1[0], _set(ih[0], 10, 1))
    pi("id_bit_past_len", "reserved_bits_set", i1[0], _or(ih[0], 17, 0x80))

    # ---- per-hop records, along I1 (fat-tree:k=4, path-ID)
    hop_cases(b, i1, plan["fat_switch_ids"])

    names = [c["name"] for c in b.cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return b.cases
