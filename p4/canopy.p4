/* Canopy reference program for bmv2 simple_switch (P4_16, v1model).
 *
 * The same forwarding as canopy-switch (canopy_dataplane::decide) for the three header
 * kinds, programmed from the same SwitchTables with `canopyctl p4-entries`. Compile:
 *     p4c --target bmv2 --arch v1model -o OUTDIR p4/canopy.p4
 * docs/p4.md describes the tables, actions, the drop counter and the differences from the
 * Rust switch (an action selector hashes flows over a group where canopy-switch is adaptive).
 */
#include <core.p4>
#include <v1model.p4>
/* Per-hop records (wire-format.md §2.1): this program parses and writes them. */
#define CANOPY_HOP_RECORDS
#include "canopy_headers.p4"

parser CanopyParser(packet_in pkt, out canopy_headers_t hdr, inout canopy_meta_t meta,
                    inout standard_metadata_t standard_metadata) {
    state start {
        transition parse_ethernet;
    }
    CANOPY_PARSER_STATES(hdr, meta)
}

control CanopyVerifyChecksum(inout canopy_headers_t hdr, inout canopy_meta_t meta) {
    apply { }
}

control CanopyIngress(inout canopy_headers_t hdr, inout canopy_meta_t meta,
                      inout standard_metadata_t standard_metadata) {

    /* Drops, indexed by reason (the DROP_* constants): the drop-counter contract shared
     * with canopy-switch (index = position in DROP_REASON_NAMES). */
    counter(CANOPY_DROPS_SIZE, CounterType.packets) canopy_drops;
    /* Per port: frames received, and drops by reason at CANOPY_PORT_DROP_INDEX; with
     * CanopyEgress.canopy_port_tx they give canopy-switch's rx = tx + drops per switch
     * (the testbed reads them for its conservation check and link loads). */
    counter(CANOPY_PORTS, CounterType.packets_and_bytes) canopy_port_rx;
    counter(CANOPY_PORTS * CANOPY_DROPS_SIZE, CounterType.packets) canopy_port_drops;

    /* ---- ports: role of each ingress port (transmit-only ports have no entry) ---- */
    action set_port_info(bit<2> role, bit<1> swallow) {
        meta.port_known = 1;
        meta.role = role;
        meta.swallow = swallow;
    }
    action port_unknown() {
        meta.port_known = 0;
    }
    table canopy_port {
        key = { standard_metadata.ingress_port: exact; }
        actions = { set_port_info; port_unknown; }
        default_action = port_unknown();
        size = 512;
    }

    /* Lookup results shared by the kind tables. */
    action to_group(bit<16> group) {
        meta.hit = 1;
        meta.use_group = 1;
        meta.group = group;
    }
    action to_port(bit<9> port) {
        meta.hit = 1;
        meta.use_group = 0;
        standard_metadata.egress_spec = port;
    }
    action miss() {
        meta.hit = 0;
    }

    /* ---- groups of equivalent ports: a hash of the flow picks one member ----
     * This is what an action selector does; it is written out as two tables because p4c's
     * bmv2 back end warns on every table with an action profile or selector ("Target does
     * not support default_action ... (due to action profiles)"), and the program must
     * compile without warnings. fwd_group gives the group's size, the flow hash modulo
     * the size is the bucket, and fwd_member maps (group, bucket) to a port. */
    action set_group(bit<16> size) {
        meta.group_size = size;
    }
    action group_empty() {
        meta.group_size = 0;
    }
    table fwd_group {
        key = { meta.group: exact; }
        actions = { set_group; group_empty; }
        default_action = group_empty();
        size = 4096;
    }
    action set_egress(bit<9> port) {
        meta.hit = 1;
        standard_metadata.egress_spec = port;
    }
    table fwd_member {
        key = { meta.group: exact; meta.bucket: exact; }
        actions = { set_egress; miss; }
        default_action = miss();
        size = 16384;
    }

    /* ---- sliced-flit ---- */
    action sliced_off() {
        meta.sl_on = 0;
    }
    action set_sliced_cfg(bit<8> mode, bit<8> level, bit<32> sid, bit<32> m, bit<8> a,
                          bit<8> b, bit<32> z, bit<8> label_shift, bit<8> zone_shift,
                          bit<8> znode_shift, bit<8> addr_bits, bit<64> zone,
                          bit<1> has_up, bit<16> up_group) {
        meta.sl_on = 1;
        meta.sl_mode = mode;
        meta.sl_level = level;
        meta.sl_sid = sid;
        meta.sl_m = m;
        meta.sl_a = a;
        meta.sl_b = b;
        meta.sl_z = z;
        meta.sl_label_shift = label_shift;
        meta.sl_zone_shift = zone_shift;
        meta.sl_znode_shift = znode_shift;
        meta.sl_addr_bits = addr_bits;
        meta.sl_zone = zone;
        meta.sl_has_up = has_up;
        meta.sl_up_group = up_group;
    }
    table sliced_cfg {
        actions = { set_sliced_cfg; sliced_off; }
        default_action = sliced_off();
        size = 1;
    }
    /* Down label c -> group of the ports into child zone c. */
    table sliced_down {
        key = { meta.label: exact; }
        actions = { to_group; miss; }
        default_action = miss();
        size = 256;
    }
    /* Znode k -> group of the side ports to Znode k. */
    table sliced_side {
        key = { meta.side_k: exact; }
        actions = { to_group; miss; }
        default_action = miss();
        size = 256;
    }

    /* ---- Transit ---- */
    action transit_off() {
        meta.tr_on = 0;
    }
    action set_transit_cfg(bit<1> split) {
        meta.tr_on = 1;
        meta.tr_split = split;
    }
    table transit_cfg {
        actions = { set_transit_cfg; transit_off; }
        default_action = transit_off();
        size = 1;
    }
    action dir_port(bit<9> port, bit<2> rot, bit<8> delay) {
        meta.hit = 1;
        meta.use_group = 0;
        standard_metadata.egress_spec = port;
        meta.tr_rot = rot;
        meta.tr_delay = delay;
    }
    action dir_group(bit<16> group, bit<2> rot, bit<8> delay) {
        meta.hit = 1;
        meta.use_group = 1;
        meta.group = group;
        meta.tr_rot = rot;
        meta.tr_delay = delay;
    }
    /* (half, direction) -> output port or group, with the link's rotation and delay. */
    table transit_dir {
        key = { meta.tr_half: exact; meta.tr_dir: exact; }
        actions = { dir_port; dir_group; miss; }
        default_action = miss();
        size = 8;
    }

    /* ---- path-ID ---- */
    action pathid_off() {
        meta.pid_on = 0;
    }
    action set_pathid_cfg(bit<1> leaf) {
        meta.pid_on = 1;
        meta.pid_leaf = leaf;
    }
    table pathid_cfg {
        actions = { set_pathid_cfg; pathid_off; }
        default_action = pathid_off();
        size = 1;
    }
    action pid_port(bit<1> down, bit<9> port) {
        meta.hit = 1;
        meta.down = down;
        meta.use_group = 0;
        standard_metadata.egress_spec = port;
    }
    action pid_group(bit<1> down, bit<16> group) {
        meta.hit = 1;
        meta.down = down;
        meta.use_group = 1;
        meta.group = group;
    }
    /* Longest-prefix match on the left-aligned path ID. Ternary + range so that an entry
     * longer than the frame's ID length never matches (canopy_dataplane::table::pathid
     * only tries lengths <= ID len); priority orders longer prefixes first. */
    table pathid_lpm {
        key = {
            hdr.pathid.id: ternary;
            hdr.pathid.id_len: range;
        }
        actions = { pid_port; pid_group; miss; }
        default_action = miss();
        size = 65536;
    }
    /* Leaf: host label -> port or group. */
    table pathid_host {
        key = { hdr.pathid.host_label: exact; }
        actions = { to_port; to_group; miss; }
        default_action = miss();
        size = 1024;
    }

    /* ---- hop records: the switch id the records carry (`canopyctl p4-entries`) ---- */
    action set_hop_switch(bit<32> id) {
        meta.hop_switch = id;
    }
    action hop_switch_unset() {
        meta.hop_switch = 0;
    }
    table hop_cfg {
        actions = { set_hop_switch; hop_switch_unset; }
        default_action = hop_switch_unset();
        size = 1;
    }

    /* Record the first drop reason; later steps are guarded by meta.drop == 0 (no `return`:
     * bmv2 wants every table applied at one place of the control flow). */
    action fail(bit<32> reason) {
        meta.drop = 1;
        meta.drop_reason = reason;
    }

    apply {
        canopy_port_rx.count((bit<32>)standard_metadata.ingress_port);
        meta.drop = 0;
        meta.use_group = 0;
        meta.hit = 0;
        bit<8> flags = 0;

        /* ---- Ethernet and VLAN tags (canopy_offset) ---- */
        bit<16> off = 14;
        bit<16> et = hdr.ethernet.ether_type;
        if (!hdr.ethernet.isValid()) {
            fail(DROP_TRUNCATED);
        } else if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
            if (!hdr.vlan0.isValid()) {
                fail(DROP_TRUNCATED);
            } else {
                off = 18;
                et = hdr.vlan0.ether_type;
                if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
                    if (!hdr.vlan1.isValid()) {
                        fail(DROP_TRUNCATED);
                    } else {
                        off = 22;
                        et = hdr.vlan1.ether_type;
                        if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
                            fail(DROP_TOO_MANY_VLAN_TAGS);
                        }
                    }
                }
            }
        }
        if (meta.drop == 0 && et != ETHERTYPE_CANOPY) { fail(DROP_NOT_CANOPY); }

        /* ---- common prefix (Header::check) ---- */
        if (meta.drop == 0 && !hdr.prefix.isValid()) { fail(DROP_TRUNCATED); }
        if (meta.drop == 0 && hdr.prefix.version != 1) { fail(DROP_BAD_VERSION); }
        if (meta.drop == 0 && hdr.prefix.kind != KIND_SLICED && hdr.prefix.kind != KIND_TRANSIT
                && hdr.prefix.kind != KIND_PATHID) {
            fail(DROP_UNKNOWN_KIND);
        }
        if (meta.drop == 0 && (hdr.prefix.flags & 0x3f) != 0) { fail(DROP_RESERVED_BITS_SET); }
        bit<16> meas = 0;
        if ((hdr.prefix.flags & PREFIX_FLAG_MEAS) != 0) {
            meas = 16;
        }
        bit<16> desc = 0;
        if ((hdr.prefix.flags & PREFIX_FLAG_HOPS) != 0) {
            desc = 8;
        }
        meta.hl = (bit<16>)hdr.prefix.hdr_len << 3;
        if (meta.drop == 0 && meta.hl < 16 + meas + desc) { fail(DROP_BAD_FIELD_VALUE); }
        meta.avail = (bit<16>)standard_metadata.packet_length - off;
        if (meta.drop == 0 && meta.hl > meta.avail) { fail(DROP_TRUNCATED); }
        /* the hop record area's descriptor (HopArea::parse, then the slots' fit) */
        bit<16> slots_len = 0;
        if (desc != 0) {
            if (meta.drop == 0 && (hdr.hops_desc.flags & 0x7f) != 0) {
                fail(DROP_RESERVED_BITS_SET);
            }
            if (meta.drop == 0 && hdr.hops_desc.reserved != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.hops_desc.count > hdr.hops_desc.slots) {
                fail(DROP_BAD_FIELD_VALUE);
            }
            /* 48 x slots */
            slots_len = ((bit<16>)hdr.hops_desc.slots << 5) + ((bit<16>)hdr.hops_desc.slots << 4);
            if (meta.drop == 0 && slots_len > meta.hl - 16 - meas - desc) {
                fail(DROP_BAD_FIELD_VALUE);
            }
            hop_cfg.apply();
        }
        meta.body_len = meta.hl - 8 - meas - desc - slots_len;
        /* the payload the prefix announces must be in the frame (Header::check_payload);
         * the bytes after it are Ethernet padding or a trailer, forwarded unchanged */
        if (meta.drop == 0 && hdr.prefix.payload_len > meta.avail - meta.hl) {
            fail(DROP_TRUNCATED);
        }

        /* ---- ingress port, hop limit (decide::after_prefix) ---- */
        if (meta.drop == 0) {
            canopy_port.apply();
            if (meta.port_known == 0) { fail(DROP_BAD_INGRESS_PORT); }
        }
        if (meta.drop == 0 && hdr.prefix.hop_limit == 0) { fail(DROP_TTL_EXPIRED); }
        if (meta.drop == 0) {
            hdr.prefix.hop_limit = hdr.prefix.hop_limit - 1;
        }

        if (meta.drop == 0 && hdr.prefix.kind == KIND_SLICED) {
            /* ================= sliced-flit (decide/sliced.rs) ================= */
            sliced_cfg.apply();
            if (meta.sl_on == 0) { fail(DROP_KIND_NOT_CONFIGURED); }
            /* SlicedBody::check, in its order */
            if (meta.drop == 0 && meta.body_len < 16) { fail(DROP_TRUNCATED); }
            if (meta.drop == 0 && hdr.sliced.mode > MODE_DST) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && (hdr.sliced.flags & 0x1f) != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.sliced.reserved != 0) { fail(DROP_RESERVED_BITS_SET); }
            bit<16> want = 16;
            bool has_src = (hdr.sliced.flags & SL_HAS_SRC) != 0;
            if (has_src) {
                want = 24;
                if (meta.drop == 0 && meta.body_len < 24) { fail(DROP_TRUNCATED); }
            }
            if (meta.drop == 0 && meta.body_len != want) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && hdr.sliced.slice_len > 64) { fail(DROP_BAD_FIELD_VALUE); }
            /* meta.mask = low_mask(SliceLen) */
            meta.mask = 0xffffffffffffffff;
            if (hdr.sliced.slice_len < 64) {
                meta.mask = (64w1 << hdr.sliced.slice_len) - 1;
            }
            if (hdr.sliced.mode == MODE_SLICED) {
                if (meta.drop == 0 && hdr.sliced.cursor > hdr.sliced.slice_len) {
                    fail(DROP_BAD_FIELD_VALUE);
                }
                /* bits beyond SliceLen (left-aligned) must be 0 */
                if (meta.drop == 0 && hdr.sliced.slice_len < 64
                        && (hdr.sliced.word & (64w0xffffffffffffffff >> hdr.sliced.slice_len)) != 0) {
                    fail(DROP_RESERVED_BITS_SET);
                }
            } else {
                if (meta.drop == 0 && hdr.sliced.cursor != 0) { fail(DROP_BAD_FIELD_VALUE); }
                if (meta.drop == 0 && (hdr.sliced.word & ~meta.mask) != 0) {
                    fail(DROP_RESERVED_BITS_SET);
                }
                if (meta.drop == 0 && hdr.sliced.mode == MODE_SRCDST && !has_src) {
                    fail(DROP_BAD_FIELD_VALUE);
                }
                /* (mode 0: SRC may use all 64 bits) */
                if (meta.drop == 0 && has_src && (hdr.sliced_src.src & ~meta.mask) != 0) {
                    fail(DROP_RESERVED_BITS_SET);
                }
            }
            if (meta.drop == 0 && hdr.sliced.mode != meta.sl_mode) { fail(DROP_MODE_MISMATCH); }
            meta.flow_a = hdr.sliced.word;
            if (has_src) {
                meta.flow_b = hdr.sliced_src.src;
            }

            flags = hdr.sliced.flags;
            bool go_up = false;
            bool go_down = false;
            bool want_side = false;
            bool side_or_up = false;   /* modes 1-3: no side link here -> keep climbing */
            meta.pos = hdr.sliced.cursor;
            meta.label = 0;
            if (meta.drop == 0 && hdr.sliced.mode == MODE_SLICED) {
                /* ---- mode 0: sliced_hop ---- */
                if (meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { fail(DROP_BAD_PHASE); }
                    /* rho: 1 bit at the cursor (BitCursor::take) */
                    if (meta.drop == 0 && (meta.pos >= 64 || meta.pos >= hdr.sliced.slice_len)) {
                        fail(DROP_SLICE_EXHAUSTED);
                    }
                    if (meta.drop == 0) {
                        meta.take_v = (hdr.sliced.word << meta.pos) >> 63;
                        meta.pos = meta.pos + 1;
                        if (meta.take_v == 1) {
                            go_up = true;
                        } else {
                            flags = flags | SL_PHASE_DOWN;
                            go_down = true;
                            if (meta.sl_m > 1) {
                                /* side label: a bits */
                                meta.side_k = 0;
                                if ((bit<16>)meta.pos + (bit<16>)meta.sl_a
                                        > (bit<16>)hdr.sliced.slice_len
                                        || (meta.sl_a != 0 && meta.pos >= 64)) {
                                    fail(DROP_SLICE_EXHAUSTED);
                                } else if (meta.sl_a != 0) {
                                    meta.side_k = (hdr.sliced.word << meta.pos)
                                                  >> (8w64 - meta.sl_a);
                                    meta.pos = meta.pos + meta.sl_a;
                                }
                                if (meta.drop == 0) {
                                    if (meta.side_k >= (bit<64>)meta.sl_m) {
                                        fail(DROP_BAD_SIDE_LABEL);
                                    } else if (meta.side_k != (bit<64>)meta.sl_sid) {
                                        go_down = false;
                                        want_side = true;
                                    }
                                }
                            }
                        }
                    }
                } else if ((flags & SL_PHASE_DOWN) == 0
                        || (meta.role == ROLE_SIDE && (flags & SL_SIDE_TAKEN) == 0)) {
                    fail(DROP_BAD_PHASE);
                } else {
                    go_down = true;
                }
                if (meta.drop == 0 && go_down) {
                    /* step D: the level's label, b bits */
                    if ((bit<16>)meta.pos + (bit<16>)meta.sl_b > (bit<16>)hdr.sliced.slice_len
                            || (meta.sl_b != 0 && meta.pos >= 64)) {
                        fail(DROP_SLICE_EXHAUSTED);
                    } else if (meta.sl_b != 0) {
                        meta.label = (hdr.sliced.word << meta.pos) >> (8w64 - meta.sl_b);
                        meta.pos = meta.pos + meta.sl_b;
                    }
                    if (meta.drop == 0 && meta.sl_level <= 1 && hdr.sliced.slice_len > meta.pos) {
                        fail(DROP_SLICE_LEFTOVER);
                    }
                }
                hdr.sliced.cursor = meta.pos;
            } else if (meta.drop == 0) {
                /* ---- modes 1-3: addr_hop ---- */
                if (hdr.sliced.slice_len != meta.sl_addr_bits) { fail(DROP_BAD_FIELD_VALUE); }
                bit<64> dst = hdr.sliced.word;
                bit<64> mask_b = 0xffffffffffffffff;
                if (meta.sl_b < 64) {
                    mask_b = (64w1 << meta.sl_b) - 1;
                }
                if (meta.sl_label_shift < 64) {
                    meta.label = (dst >> meta.sl_label_shift) & mask_b;
                }
                if (meta.drop == 0 && meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { fail(DROP_BAD_PHASE); }
                    /* digits above this level, without the Znode id */
                    bit<8> above_w = 0;
                    if (meta.sl_znode_shift > meta.sl_zone_shift) {
                        above_w = meta.sl_znode_shift - meta.sl_zone_shift;
                    }
                    bit<64> mask_above = 0xffffffffffffffff;
                    if (above_w < 64) {
                        mask_above = (64w1 << above_w) - 1;
                    }
                    meta.above_dst = 0;
                    meta.above_src = 0;
                    if (meta.sl_zone_shift < 64) {
                        meta.above_dst = (dst >> meta.sl_zone_shift) & mask_above;
                        meta.above_src = (hdr.sliced_src.src >> meta.sl_zone_shift) & mask_above;
                    }
                    bool turn = meta.sl_has_up == 0;
                    if (hdr.sliced.mode == MODE_SRCDST) {
                        turn = meta.above_src == meta.above_dst;
                    } else if (hdr.sliced.mode == MODE_DST) {
                        turn = meta.above_dst == meta.sl_zone;
                    }
                    meta.side_k = 0;
                    if (meta.sl_znode_shift < 64) {
                        meta.side_k = dst >> meta.sl_znode_shift;
                    }
                    if (meta.drop == 0) {
                        if (!turn) {
                            go_up = true;
                        } else if (meta.sl_m > 1 && meta.side_k != (bit<64>)meta.sl_sid) {
                            if (meta.side_k >= (bit<64>)meta.sl_m) {
                                fail(DROP_BAD_SIDE_LABEL);
                            } else {
                                want_side = true;
                                side_or_up = true;
                            }
                        } else {
                            flags = flags | SL_PHASE_DOWN;
                            go_down = true;
                        }
                    }
                } else if (meta.drop == 0) {
                    if ((flags & SL_PHASE_DOWN) == 0
                            || (meta.role == ROLE_SIDE && (flags & SL_SIDE_TAKEN) == 0)) {
                        fail(DROP_BAD_PHASE);
                    } else {
                        go_down = true;
                    }
                }
            }
            /* side link to Znode side_k (the only sliced_side application) */
            if (meta.drop == 0 && want_side) {
                sliced_side.apply();
                if (meta.hit == 1) {
                    flags = flags | SL_PHASE_DOWN | SL_SIDE_TAKEN;
                } else if (side_or_up && meta.sl_has_up == 1) {
                    /* no side link to that Znode at this level: climb to one that has it */
                    go_up = true;
                } else {
                    fail(DROP_BAD_SIDE_LABEL);
                }
            }
            if (meta.drop == 0 && go_up) {
                if (meta.sl_has_up == 0) {
                    fail(DROP_UP_AT_TOP);
                } else {
                    meta.use_group = 1;
                    meta.group = meta.sl_up_group;
                }
            }
            if (meta.drop == 0 && go_down) {
                if (meta.label >= (bit<64>)meta.sl_z) {
                    fail(DROP_BAD_LABEL);
                } else {
                    sliced_down.apply();
                    if (meta.hit == 0) { fail(DROP_BAD_LABEL); }
                }
            }
            hdr.sliced.flags = flags;
        } else if (meta.drop == 0 && hdr.prefix.kind == KIND_TRANSIT) {
            /* ================= Transit (decide/transit.rs) ================= */
            transit_cfg.apply();
            if (meta.tr_on == 0) { fail(DROP_KIND_NOT_CONFIGURED); }
            /* TransitBody::check, in its order */
            if (meta.drop == 0 && meta.body_len < 8) { fail(DROP_TRUNCATED); }
            if (meta.drop == 0 && hdr.transit.msg > 5) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && (hdr.transit.flags & 0xe) != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && (hdr.transit.rot & 0xfc) != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.transit.head > hdr.transit.route_len) {
                fail(DROP_BAD_FIELD_VALUE);
            }
            bit<16> route_bytes = (((bit<16>)hdr.transit.route_len + 7) >> 3) << 3;
            bit<16> total = 8 + route_bytes;
            if (meta.drop == 0 && meta.body_len < total) { fail(DROP_TRUNCATED); }
            if (hdr.transit.rec_slots != 0) {
                total = total + 8 + ((((bit<16>)hdr.transit.rec_slots << 2) + 7) >> 3 << 3);
                if (meta.drop == 0 && meta.body_len < total) { fail(DROP_TRUNCATED); }
                if (meta.drop == 0 && hdr.transit_rec.rec_count > hdr.transit.rec_slots) {
                    fail(DROP_BAD_FIELD_VALUE);
                }
                if (meta.drop == 0 && (hdr.transit_rec.rsvd1 != 0 || hdr.transit_rec.rsvd2 != 0)) {
                    fail(DROP_RESERVED_BITS_SET);
                }
            }
            if (meta.drop == 0 && meta.body_len != total) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && hdr.transit.msg != 0) { fail(DROP_MODE_MISMATCH); }
            if (meta.drop == 0 && standard_metadata.ingress_port >= 8) {
                fail(DROP_BAD_INGRESS_PORT);
            }
            meta.tr_head = (bit<16>)hdr.transit.head + (bit<16>)meta.swallow;
            if (meta.drop == 0 && meta.tr_head >= (bit<16>)hdr.transit.route_len) {
                fail(DROP_ROUTE_EXHAUSTED);
            }
            if (meta.drop == 0) {
                /* R[head]: word head/8, byte head%8 of it */
                bit<16> wi = meta.tr_head >> 3;
                if (wi == 0) {
                    meta.tr_word = hdr.route[0].w;
                } else if (wi == 1) {
                    meta.tr_word = hdr.route[1].w;
                } else if (wi == 2) {
                    meta.tr_word = hdr.route[2].w;
                } else if (wi == 3) {
                    meta.tr_word = hdr.route[3].w;
                } else if (wi == 4) {
                    meta.tr_word = hdr.route[4].w;
                } else if (wi == 5) {
                    meta.tr_word = hdr.route[5].w;
                } else if (wi == 6) {
                    meta.tr_word = hdr.route[6].w;
                } else if (wi == 7) {
                    meta.tr_word = hdr.route[7].w;
                } else if (wi == 8) {
                    meta.tr_word = hdr.route[8].w;
                } else if (wi == 9) {
                    meta.tr_word = hdr.route[9].w;
                } else if (wi == 10) {
                    meta.tr_word = hdr.route[10].w;
                } else if (wi == 11) {
                    meta.tr_word = hdr.route[11].w;
                } else if (wi == 12) {
                    meta.tr_word = hdr.route[12].w;
                } else if (wi == 13) {
                    meta.tr_word = hdr.route[13].w;
                } else if (wi == 14) {
                    meta.tr_word = hdr.route[14].w;
                } else if (wi == 15) {
                    meta.tr_word = hdr.route[15].w;
                } else if (wi == 16) {
                    meta.tr_word = hdr.route[16].w;
                } else if (wi == 17) {
                    meta.tr_word = hdr.route[17].w;
                } else if (wi == 18) {
                    meta.tr_word = hdr.route[18].w;
                } else if (wi == 19) {
                    meta.tr_word = hdr.route[19].w;
                } else if (wi == 20) {
                    meta.tr_word = hdr.route[20].w;
                } else if (wi == 21) {
                    meta.tr_word = hdr.route[21].w;
                } else if (wi == 22) {
                    meta.tr_word = hdr.route[22].w;
                } else if (wi == 23) {
                    meta.tr_word = hdr.route[23].w;
                } else if (wi == 24) {
                    meta.tr_word = hdr.route[24].w;
                } else if (wi == 25) {
                    meta.tr_word = hdr.route[25].w;
                } else if (wi == 26) {
                    meta.tr_word = hdr.route[26].w;
                } else if (wi == 27) {
                    meta.tr_word = hdr.route[27].w;
                } else if (wi == 28) {
                    meta.tr_word = hdr.route[28].w;
                } else if (wi == 29) {
                    meta.tr_word = hdr.route[29].w;
                } else if (wi == 30) {
                    meta.tr_word = hdr.route[30].w;
                } else {
                    meta.tr_word = hdr.route[31].w;
                }
                bit<8> byte_shift = 56 - (((bit<8>)meta.tr_head & 7) << 3);
                meta.tr_byte = (bit<8>)(meta.tr_word >> byte_shift);
                bit<8> pair_shift = 6 - (((bit<8>)hdr.transit.rot & 3) << 1);
                meta.tr_dir = (bit<2>)(meta.tr_byte >> pair_shift);
                meta.tr_half = 0;
                if (meta.tr_split == 1) {
                    meta.tr_half = (bit<1>)(standard_metadata.ingress_port >> 2);
                }
                meta.flow_a = hdr.route[0].w;
                meta.flow_b = (bit<64>)hdr.transit.route_len;
                transit_dir.apply();
                if (meta.hit == 0) {
                    fail(DROP_NO_OUTPUT);
                } else {
                    /* saturating counters (written out: not every bmv2 build has |+|) */
                    bit<32> cycles = (bit<32>)hdr.transit.cycles + (bit<32>)meta.swallow + 1
                                     + (bit<32>)meta.tr_delay;
                    if (cycles > 0xffff) {
                        cycles = 0xffff;
                    }
                    hdr.transit.cycles = (bit<16>)cycles;
                    hdr.transit.head = (bit<8>)meta.tr_head;
                    hdr.transit.rot = (bit<8>)(((bit<2>)hdr.transit.rot) + meta.tr_rot);
                    if (hdr.transit.hops != 0xff) {
                        hdr.transit.hops = hdr.transit.hops + 1;
                    }
                }
            }
        } else if (meta.drop == 0) {
            /* ================= path-ID (decide/pathid.rs) ================= */
            pathid_cfg.apply();
            if (meta.pid_on == 0) { fail(DROP_KIND_NOT_CONFIGURED); }
            /* PathIdBody::check, in its order */
            if (meta.drop == 0 && meta.body_len < 16) { fail(DROP_TRUNCATED); }
            if (meta.drop == 0 && meta.body_len != 16) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && (hdr.pathid.flags & 0x3f) != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.pathid.reserved != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.pathid.id_len > 64) { fail(DROP_BAD_FIELD_VALUE); }
            bool local = (hdr.pathid.flags & PID_LOCAL) != 0;
            if (meta.drop == 0 && local && hdr.pathid.id_len != 0) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && !local && hdr.pathid.id_len == 0) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && hdr.pathid.id_len < 64
                    && (hdr.pathid.id & (64w0xffffffffffffffff >> hdr.pathid.id_len)) != 0) {
                fail(DROP_RESERVED_BITS_SET);
            }
            meta.flow_a = hdr.pathid.id;
            meta.flow_b = (bit<64>)hdr.pathid.host_label;
            bool phase_down = (hdr.pathid.flags & PID_PHASE_DOWN) != 0;
            bool use_host = false;
            bool use_lpm = false;
            if (meta.drop == 0) {
                if (meta.role == ROLE_SIDE) {
                    fail(DROP_BAD_INGRESS_PORT);
                } else if (meta.role == ROLE_UP) {
                    if (!phase_down) {
                        fail(DROP_BAD_PHASE);
                    } else if (meta.pid_leaf == 1) {
                        use_host = true;
                    } else if (local) {
                        /* a LOCAL frame never leaves its leaf */
                        fail(DROP_BAD_PHASE);
                    } else {
                        use_lpm = true;
                    }
                } else if (phase_down) {
                    fail(DROP_BAD_PHASE);
                } else if (local) {
                    if (meta.pid_leaf == 0) {
                        fail(DROP_BAD_PHASE);
                    } else {
                        hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                        use_host = true;
                    }
                } else {
                    use_lpm = true;
                }
            }
            if (meta.drop == 0 && use_host) {
                pathid_host.apply();
                if (meta.hit == 0) { fail(DROP_BAD_LABEL); }
            }
            if (meta.drop == 0 && use_lpm) {
                pathid_lpm.apply();
                if (meta.hit == 0) {
                    fail(DROP_NO_ROUTE);
                } else if (meta.role == ROLE_UP) {
                    /* descending: only a downward entry may match */
                    if (meta.down == 0) { fail(DROP_BAD_PHASE); }
                } else if (meta.down == 1) {
                    /* the turn */
                    hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                }
            }
        }

        /* ---- a group: the action selector picks the port (group_empty drops no_port) ---- */
        if (meta.drop == 0 && meta.use_group == 1) {
            fwd_group.apply();
            if (meta.group_size == 0) {
                fail(DROP_NO_PORT);
            } else {
                hash(meta.bucket, HashAlgorithm.crc32, 16w0,
                     { hdr.ethernet.src, hdr.ethernet.dst, meta.flow_a, meta.flow_b },
                     meta.group_size);
                meta.hit = 0;
                fwd_member.apply();
                if (meta.hit == 0) { fail(DROP_NO_PORT); }
            }
        }
        if (meta.drop == 1) {
            mark_to_drop(standard_metadata);
            canopy_drops.count(meta.drop_reason);
            canopy_port_drops.count(
                CANOPY_PORT_DROP_INDEX(standard_metadata.ingress_port, meta.drop_reason));
        }
    }
}

/* Hop record I (wire-format.md §2.1) from what v1model gives: the switch id of hop_cfg,
 * the ports, enq_qdepth (frames in the egress queue at enqueue), no kernel stamp (0),
 * Poll = ingress_global_timestamp and TxHandoff = egress_global_timestamp (bmv2: µs since
 * the switch started, written in ns, clock 2 = switch-local), QueueDelay = deq_timedelta
 * (µs, in ns). Only the slot the descriptor's Count names is written (one `if` per slot:
 * no runtime header-stack index). */
#define CANOPY_HOP_FILL(I)                                                         \
    if (hdr.hops_desc.count == I) {                                                \
        hdr.hops[I].switch_id = meta.hop_switch;                                   \
        hdr.hops[I].ingress = (bit<16>)standard_metadata.ingress_port;             \
        hdr.hops[I].egress = (bit<16>)standard_metadata.egress_port;               \
        hdr.hops[I].queue = (bit<32>)standard_metadata.enq_qdepth;                 \
        hdr.hops[I].clock = HOP_CLOCK_SWITCH_LOCAL;                                \
        hdr.hops[I].rsvd0 = 0;                                                     \
        hdr.hops[I].rsvd1 = 0;                                                     \
        hdr.hops[I].kernel_rx = 0;                                                 \
        hdr.hops[I].poll = (bit<64>)standard_metadata.ingress_global_timestamp * 1000; \
        hdr.hops[I].tx = (bit<64>)standard_metadata.egress_global_timestamp * 1000; \
        hdr.hops[I].qdelay = qdelay;                                               \
        hdr.hops[I].rsvd2 = 0;                                                     \
    }

control CanopyEgress(inout canopy_headers_t hdr, inout canopy_meta_t meta,
                     inout standard_metadata_t standard_metadata) {
    /* Frames sent, per egress port. */
    counter(CANOPY_PORTS, CounterType.packets_and_bytes) canopy_port_tx;
    apply {
        canopy_port_tx.count((bit<32>)standard_metadata.egress_port);
        /* ---- hop record: the next slot, or OVERFLOW when every slot is used; nothing
         * when the next slot was not parsed (beyond CANOPY_HOP_SLOTS, or behind a
         * Transit record area) ---- */
        if (hdr.hops_desc.isValid()) {
            if (hdr.hops_desc.count >= hdr.hops_desc.slots) {
                hdr.hops_desc.flags = hdr.hops_desc.flags | HOPS_OVERFLOW;
            } else if (hdr.hops_desc.count < meta.hop_idx) {
                bit<64> qd = (bit<64>)standard_metadata.deq_timedelta * 1000;
                bit<32> qdelay = 0xffffffff;
                if (qd < 0xffffffff) {
                    qdelay = (bit<32>)qd;
                }
                CANOPY_HOP_FILL(0)
                CANOPY_HOP_FILL(1)
                CANOPY_HOP_FILL(2)
                CANOPY_HOP_FILL(3)
                CANOPY_HOP_FILL(4)
                CANOPY_HOP_FILL(5)
                CANOPY_HOP_FILL(6)
                CANOPY_HOP_FILL(7)
                CANOPY_HOP_FILL(8)
                CANOPY_HOP_FILL(9)
                CANOPY_HOP_FILL(10)
                CANOPY_HOP_FILL(11)
                CANOPY_HOP_FILL(12)
                CANOPY_HOP_FILL(13)
                CANOPY_HOP_FILL(14)
                CANOPY_HOP_FILL(15)
                hdr.hops_desc.count = hdr.hops_desc.count + 1;
            }
        }
    }
}

control CanopyComputeChecksum(inout canopy_headers_t hdr, inout canopy_meta_t meta) {
    apply { }
}

control CanopyDeparser(packet_out pkt, in canopy_headers_t hdr) {
    apply {
        CANOPY_EMIT(hdr)
    }
}

V1Switch(CanopyParser(), CanopyVerifyChecksum(), CanopyIngress(), CanopyEgress(),
         CanopyComputeChecksum(), CanopyDeparser()) main;
