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

    /* Drops, indexed by reason (the DROP_* constants): the issue-6 contract. */
    counter(CANOPY_DROPS_SIZE, CounterType.packets) canopy_drops;

    action drop_with(bit<32> reason) {
        mark_to_drop(standard_metadata);
        canopy_drops.count(reason);
    }

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

    /* ---- groups of equivalent ports: an action selector hashes the flow ---- */
    action set_egress(bit<9> port) {
        standard_metadata.egress_spec = port;
    }
    action group_empty() {
        drop_with(DROP_NO_PORT);
    }
    action_selector(HashAlgorithm.crc32, 32w4096, 32w16) canopy_sel;
    table fwd_group {
        key = {
            meta.group: exact;
            hdr.ethernet.src: selector;
            hdr.ethernet.dst: selector;
            meta.flow_a: selector;
            meta.flow_b: selector;
        }
        actions = { set_egress; group_empty; }
        implementation = canopy_sel;
        size = 4096;
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

    apply {
        meta.use_group = 0;
        meta.hit = 0;

        /* ---- Ethernet and VLAN tags (canopy_offset) ---- */
        if (!hdr.ethernet.isValid()) { drop_with(DROP_TRUNCATED); return; }
        bit<16> off = 14;
        bit<16> et = hdr.ethernet.ether_type;
        if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
            if (!hdr.vlan0.isValid()) { drop_with(DROP_TRUNCATED); return; }
            off = 18;
            et = hdr.vlan0.ether_type;
            if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
                if (!hdr.vlan1.isValid()) { drop_with(DROP_TRUNCATED); return; }
                off = 22;
                et = hdr.vlan1.ether_type;
                if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
                    drop_with(DROP_TOO_MANY_VLAN_TAGS);
                    return;
                }
            }
        }
        if (et != ETHERTYPE_CANOPY) { drop_with(DROP_NOT_CANOPY); return; }

        /* ---- common prefix (Header::check) ---- */
        if (!hdr.prefix.isValid()) { drop_with(DROP_TRUNCATED); return; }
        if (hdr.prefix.version != 1) { drop_with(DROP_BAD_VERSION); return; }
        if (hdr.prefix.kind != KIND_SLICED && hdr.prefix.kind != KIND_TRANSIT
                && hdr.prefix.kind != KIND_PATHID) {
            drop_with(DROP_UNKNOWN_KIND);
            return;
        }
        if ((hdr.prefix.flags & 0x7f) != 0) { drop_with(DROP_RESERVED_BITS_SET); return; }
        meta.hl = (bit<16>)hdr.prefix.hdr_len << 3;
        bit<16> meas = 0;
        if ((hdr.prefix.flags & PREFIX_FLAG_MEAS) != 0) {
            meas = 16;
        }
        if (meta.hl < 16 + meas) { drop_with(DROP_BAD_FIELD_VALUE); return; }
        meta.avail = (bit<16>)standard_metadata.packet_length - off;
        if (meta.hl > meta.avail) { drop_with(DROP_TRUNCATED); return; }
        meta.body_len = meta.hl - 8 - meas;

        /* ---- ingress port, hop limit, kind configured (decide::after_prefix) ---- */
        canopy_port.apply();
        if (meta.port_known == 0) { drop_with(DROP_BAD_INGRESS_PORT); return; }
        if (hdr.prefix.hop_limit == 0) { drop_with(DROP_TTL_EXPIRED); return; }
        hdr.prefix.hop_limit = hdr.prefix.hop_limit - 1;

        if (hdr.prefix.kind == KIND_SLICED) {
            /* ================= sliced-flit (decide/sliced.rs) ================= */
            sliced_cfg.apply();
            if (meta.sl_on == 0) { drop_with(DROP_KIND_NOT_CONFIGURED); return; }
            /* SlicedBody::check, in its order */
            if (meta.body_len < 16) { drop_with(DROP_TRUNCATED); return; }
            if (hdr.sliced.mode > MODE_DST) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            if ((hdr.sliced.flags & 0x1f) != 0) { drop_with(DROP_RESERVED_BITS_SET); return; }
            if (hdr.sliced.reserved != 0) { drop_with(DROP_RESERVED_BITS_SET); return; }
            bit<1> has_src = 0;
            bit<16> want = 16;
            if ((hdr.sliced.flags & SL_HAS_SRC) != 0) {
                has_src = 1;
                want = 24;
                if (meta.body_len < 24) { drop_with(DROP_TRUNCATED); return; }
            }
            if (meta.body_len != want) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            if (hdr.sliced.slice_len > 64) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            if (hdr.sliced.mode == MODE_SLICED) {
                if (hdr.sliced.cursor > hdr.sliced.slice_len) {
                    drop_with(DROP_BAD_FIELD_VALUE);
                    return;
                }
                /* bits beyond SliceLen (left-aligned) must be 0 */
                if (hdr.sliced.slice_len < 64
                        && (hdr.sliced.word & (64w0xffffffffffffffff >> hdr.sliced.slice_len)) != 0) {
                    drop_with(DROP_RESERVED_BITS_SET);
                    return;
                }
            } else {
                if (hdr.sliced.cursor != 0) { drop_with(DROP_BAD_FIELD_VALUE); return; }
                meta.mask = low_mask64(hdr.sliced.slice_len);
                if ((hdr.sliced.word & ~meta.mask) != 0) {
                    drop_with(DROP_RESERVED_BITS_SET);
                    return;
                }
                if (hdr.sliced.mode == MODE_SRCDST && has_src == 0) {
                    drop_with(DROP_BAD_FIELD_VALUE);
                    return;
                }
            }
            if (has_src == 1) {
                meta.take_w = 64;
                if (hdr.sliced.mode != MODE_SLICED) {
                    meta.take_w = hdr.sliced.slice_len;
                }
                meta.mask = low_mask64(meta.take_w);
                if ((hdr.sliced_src.src & ~meta.mask) != 0) {
                    drop_with(DROP_RESERVED_BITS_SET);
                    return;
                }
                meta.flow_b = hdr.sliced_src.src;
            }
            meta.flow_a = hdr.sliced.word;
            if (hdr.sliced.mode != meta.sl_mode) { drop_with(DROP_MODE_MISMATCH); return; }

            bit<8> flags = hdr.sliced.flags;
            bool go_up = false;
            bool go_side = false;
            if (hdr.sliced.mode == MODE_SLICED) {
                /* ---- mode 0: sliced_hop ---- */
                meta.pos = hdr.sliced.cursor;
                if (meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { drop_with(DROP_BAD_PHASE); return; }
                    if (!take_bits(hdr.sliced.word, hdr.sliced.slice_len, meta.pos, 1, meta.take_v)) {
                        drop_with(DROP_SLICE_EXHAUSTED);
                        return;
                    }
                    if (meta.take_v == 1) {
                        go_up = true;
                    } else {
                        flags = flags | SL_PHASE_DOWN;
                        if (meta.sl_m > 1) {
                            if (!take_bits(hdr.sliced.word, hdr.sliced.slice_len, meta.pos, meta.sl_a, meta.take_v)) {
                                drop_with(DROP_SLICE_EXHAUSTED);
                                return;
                            }
                            meta.side_k = meta.take_v;
                            if (meta.side_k >= (bit<64>)meta.sl_m) {
                                drop_with(DROP_BAD_SIDE_LABEL);
                                return;
                            }
                            if (meta.side_k != (bit<64>)meta.sl_sid) {
                                sliced_side.apply();
                                if (meta.hit == 0) { drop_with(DROP_BAD_SIDE_LABEL); return; }
                                flags = flags | SL_SIDE_TAKEN;
                                go_side = true;
                            }
                        }
                    }
                } else {
                    if ((flags & SL_PHASE_DOWN) == 0
                            || (meta.role == ROLE_SIDE && (flags & SL_SIDE_TAKEN) == 0)) {
                        drop_with(DROP_BAD_PHASE);
                        return;
                    }
                }
                if (go_up) {
                    if (meta.sl_has_up == 0) { drop_with(DROP_UP_AT_TOP); return; }
                    meta.use_group = 1;
                    meta.group = meta.sl_up_group;
                } else if (!go_side) {
                    /* step D */
                    if (!take_bits(hdr.sliced.word, hdr.sliced.slice_len, meta.pos, meta.sl_b, meta.take_v)) {
                        drop_with(DROP_SLICE_EXHAUSTED);
                        return;
                    }
                    meta.label = meta.take_v;
                    if (meta.sl_level <= 1 && hdr.sliced.slice_len > meta.pos) {
                        drop_with(DROP_SLICE_LEFTOVER);
                        return;
                    }
                    if (meta.label >= (bit<64>)meta.sl_z) { drop_with(DROP_BAD_LABEL); return; }
                    sliced_down.apply();
                    if (meta.hit == 0) { drop_with(DROP_BAD_LABEL); return; }
                }
                hdr.sliced.cursor = meta.pos;
            } else {
                /* ---- modes 1-3: addr_hop ---- */
                if (hdr.sliced.slice_len != meta.sl_addr_bits) {
                    drop_with(DROP_BAD_FIELD_VALUE);
                    return;
                }
                bit<64> dst = hdr.sliced.word;
                meta.mask = low_mask64(meta.sl_b);
                meta.label = 0;
                if (meta.sl_label_shift < 64) {
                    meta.label = (dst >> meta.sl_label_shift) & meta.mask;
                }
                bool turned = false;
                if (meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { drop_with(DROP_BAD_PHASE); return; }
                    /* digits above this level, without the Znode id */
                    meta.take_w = 0;
                    if (meta.sl_znode_shift > meta.sl_zone_shift) {
                        meta.take_w = meta.sl_znode_shift - meta.sl_zone_shift;
                    }
                    meta.mask = low_mask64(meta.take_w);
                    meta.above_dst = 0;
                    meta.above_src = 0;
                    if (meta.sl_zone_shift < 64) {
                        meta.above_dst = (dst >> meta.sl_zone_shift) & meta.mask;
                        meta.above_src = (hdr.sliced_src.src >> meta.sl_zone_shift) & meta.mask;
                    }
                    bool turn = false;
                    if (hdr.sliced.mode == MODE_SRCDST) {
                        turn = meta.above_src == meta.above_dst;
                    } else if (hdr.sliced.mode == MODE_DST) {
                        turn = meta.above_dst == meta.sl_zone;
                    } else {
                        turn = meta.sl_has_up == 0;
                    }
                    if (!turn) {
                        go_up = true;
                    } else {
                        meta.side_k = 0;
                        if (meta.sl_znode_shift < 64) {
                            meta.side_k = dst >> meta.sl_znode_shift;
                        }
                        if (meta.sl_m > 1 && meta.side_k != (bit<64>)meta.sl_sid) {
                            if (meta.side_k >= (bit<64>)meta.sl_m) {
                                drop_with(DROP_BAD_SIDE_LABEL);
                                return;
                            }
                            sliced_side.apply();
                            if (meta.hit == 1) {
                                flags = flags | SL_PHASE_DOWN | SL_SIDE_TAKEN;
                                go_side = true;
                            } else if (meta.sl_has_up == 1) {
                                /* no side link here: climb to a level that has one */
                                go_up = true;
                            } else {
                                drop_with(DROP_BAD_SIDE_LABEL);
                                return;
                            }
                        } else {
                            flags = flags | SL_PHASE_DOWN;
                            turned = true;
                        }
                    }
                } else {
                    if ((flags & SL_PHASE_DOWN) == 0
                            || (meta.role == ROLE_SIDE && (flags & SL_SIDE_TAKEN) == 0)) {
                        drop_with(DROP_BAD_PHASE);
                        return;
                    }
                    turned = true;
                }
                if (go_up) {
                    if (meta.sl_has_up == 0) { drop_with(DROP_UP_AT_TOP); return; }
                    meta.use_group = 1;
                    meta.group = meta.sl_up_group;
                } else if (turned) {
                    if (meta.label >= (bit<64>)meta.sl_z) { drop_with(DROP_BAD_LABEL); return; }
                    sliced_down.apply();
                    if (meta.hit == 0) { drop_with(DROP_BAD_LABEL); return; }
                }
            }
            hdr.sliced.flags = flags;
        } else if (hdr.prefix.kind == KIND_TRANSIT) {
            /* ================= Transit (decide/transit.rs) ================= */
            transit_cfg.apply();
            if (meta.tr_on == 0) { drop_with(DROP_KIND_NOT_CONFIGURED); return; }
            /* TransitBody::check, in its order */
            if (meta.body_len < 8) { drop_with(DROP_TRUNCATED); return; }
            if (hdr.transit.msg > 5) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            if ((hdr.transit.flags & 0xe) != 0) { drop_with(DROP_RESERVED_BITS_SET); return; }
            if ((hdr.transit.rot & 0xfc) != 0) { drop_with(DROP_RESERVED_BITS_SET); return; }
            if (hdr.transit.head > hdr.transit.route_len) {
                drop_with(DROP_BAD_FIELD_VALUE);
                return;
            }
            bit<16> route_bytes = (((bit<16>)hdr.transit.route_len + 7) >> 3) << 3;
            if (meta.body_len < 8 + route_bytes) { drop_with(DROP_TRUNCATED); return; }
            bit<16> total = 8 + route_bytes;
            if (hdr.transit.rec_slots != 0) {
                total = total + 8 + ((((bit<16>)hdr.transit.rec_slots << 2) + 7) >> 3 << 3);
                if (meta.body_len < total) { drop_with(DROP_TRUNCATED); return; }
                if (hdr.transit_rec.rec_count > hdr.transit.rec_slots) {
                    drop_with(DROP_BAD_FIELD_VALUE);
                    return;
                }
                if (hdr.transit_rec.rsvd1 != 0 || hdr.transit_rec.rsvd2 != 0) {
                    drop_with(DROP_RESERVED_BITS_SET);
                    return;
                }
            }
            if (meta.body_len != total) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            if (hdr.transit.msg != 0) { drop_with(DROP_MODE_MISMATCH); return; }
            if (standard_metadata.ingress_port >= 8) { drop_with(DROP_BAD_INGRESS_PORT); return; }
            meta.tr_head = (bit<16>)hdr.transit.head + (bit<16>)meta.swallow;
            if (meta.tr_head >= (bit<16>)hdr.transit.route_len) {
                drop_with(DROP_ROUTE_EXHAUSTED);
                return;
            }
            /* R[head]: word head/8, byte head%8 of it */
            bit<16> wi = meta.tr_head >> 3;
            if (wi == 0) { meta.tr_word = hdr.route[0].w; }
            else if (wi == 1) { meta.tr_word = hdr.route[1].w; }
            else if (wi == 2) { meta.tr_word = hdr.route[2].w; }
            else if (wi == 3) { meta.tr_word = hdr.route[3].w; }
            else if (wi == 4) { meta.tr_word = hdr.route[4].w; }
            else if (wi == 5) { meta.tr_word = hdr.route[5].w; }
            else if (wi == 6) { meta.tr_word = hdr.route[6].w; }
            else if (wi == 7) { meta.tr_word = hdr.route[7].w; }
            else if (wi == 8) { meta.tr_word = hdr.route[8].w; }
            else if (wi == 9) { meta.tr_word = hdr.route[9].w; }
            else if (wi == 10) { meta.tr_word = hdr.route[10].w; }
            else if (wi == 11) { meta.tr_word = hdr.route[11].w; }
            else if (wi == 12) { meta.tr_word = hdr.route[12].w; }
            else if (wi == 13) { meta.tr_word = hdr.route[13].w; }
            else if (wi == 14) { meta.tr_word = hdr.route[14].w; }
            else if (wi == 15) { meta.tr_word = hdr.route[15].w; }
            else if (wi == 16) { meta.tr_word = hdr.route[16].w; }
            else if (wi == 17) { meta.tr_word = hdr.route[17].w; }
            else if (wi == 18) { meta.tr_word = hdr.route[18].w; }
            else if (wi == 19) { meta.tr_word = hdr.route[19].w; }
            else if (wi == 20) { meta.tr_word = hdr.route[20].w; }
            else if (wi == 21) { meta.tr_word = hdr.route[21].w; }
            else if (wi == 22) { meta.tr_word = hdr.route[22].w; }
            else if (wi == 23) { meta.tr_word = hdr.route[23].w; }
            else if (wi == 24) { meta.tr_word = hdr.route[24].w; }
            else if (wi == 25) { meta.tr_word = hdr.route[25].w; }
            else if (wi == 26) { meta.tr_word = hdr.route[26].w; }
            else if (wi == 27) { meta.tr_word = hdr.route[27].w; }
            else if (wi == 28) { meta.tr_word = hdr.route[28].w; }
            else if (wi == 29) { meta.tr_word = hdr.route[29].w; }
            else if (wi == 30) { meta.tr_word = hdr.route[30].w; }
            else { meta.tr_word = hdr.route[31].w; }
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
            if (meta.hit == 0) { drop_with(DROP_NO_OUTPUT); return; }
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
        } else {
            /* ================= path-ID (decide/pathid.rs) ================= */
            pathid_cfg.apply();
            if (meta.pid_on == 0) { drop_with(DROP_KIND_NOT_CONFIGURED); return; }
            /* PathIdBody::check, in its order */
            if (meta.body_len < 16) { drop_with(DROP_TRUNCATED); return; }
            if ((hdr.pathid.flags & 0x3f) != 0) { drop_with(DROP_RESERVED_BITS_SET); return; }
            if (hdr.pathid.reserved != 0) { drop_with(DROP_RESERVED_BITS_SET); return; }
            if (hdr.pathid.id_len > 64) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            bool local = (hdr.pathid.flags & PID_LOCAL) != 0;
            if (local && hdr.pathid.id_len != 0) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            if (!local && hdr.pathid.id_len == 0) { drop_with(DROP_BAD_FIELD_VALUE); return; }
            if (hdr.pathid.id_len < 64
                    && (hdr.pathid.id & (64w0xffffffffffffffff >> hdr.pathid.id_len)) != 0) {
                drop_with(DROP_RESERVED_BITS_SET);
                return;
            }
            meta.flow_a = hdr.pathid.id;
            meta.flow_b = (bit<64>)hdr.pathid.host_label;
            bool phase_down = (hdr.pathid.flags & PID_PHASE_DOWN) != 0;
            if (meta.role == ROLE_SIDE) { drop_with(DROP_BAD_INGRESS_PORT); return; }
            if (meta.role == ROLE_UP) {
                if (!phase_down) { drop_with(DROP_BAD_PHASE); return; }
                if (meta.pid_leaf == 1) {
                    pathid_host.apply();
                    if (meta.hit == 0) { drop_with(DROP_BAD_LABEL); return; }
                } else {
                    pathid_lpm.apply();
                    if (meta.hit == 0) { drop_with(DROP_NO_ROUTE); return; }
                    if (meta.down == 0) { drop_with(DROP_BAD_PHASE); return; }
                }
            } else {
                if (phase_down) { drop_with(DROP_BAD_PHASE); return; }
                if (local) {
                    if (meta.pid_leaf == 0) { drop_with(DROP_BAD_PHASE); return; }
                    hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                    pathid_host.apply();
                    if (meta.hit == 0) { drop_with(DROP_BAD_LABEL); return; }
                } else {
                    pathid_lpm.apply();
                    if (meta.hit == 0) { drop_with(DROP_NO_ROUTE); return; }
                    if (meta.down == 1) {
                        hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                    }
                }
            }
        }

        /* ---- a group: the action selector picks the port (group_empty drops no_port) ---- */
        if (meta.use_group == 1) {
            fwd_group.apply();
        }
    }
}

control CanopyEgress(inout canopy_headers_t hdr, inout canopy_meta_t meta,
                     inout standard_metadata_t standard_metadata) {
    apply { }
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
