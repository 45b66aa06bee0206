/* Canopy reference program for Tofino (P4_16, TNA; Tofino 2 with -DCANOPY_T2NA).
 * COMPILER STATUS (open-source Tofino back end, p4lang/p4c 1.2.4.17, p4c-barefoot): compiles
 * with 0 errors and fits 12 MAU stages on Tofino 1 (of 12) and on Tofino 2 (of 20); the back
 * end reports a program that needs more stages than the chip has only through the stage
 * count of the .bfa, so control/tests/p4_tna.rs checks that count. That release has no assembler:
 * the .bfa and bfrt.json are as far as it goes here. UNTESTED on tofino-model or hardware.
 * The path-ID body-length and LOCAL checks changed after the last compile (docs/p4.md §7).
 * It follows canopy.p4 (v1model) rule by rule; the differences come from the target
 * (docs/p4.md §5):
 *  - no variable shifts: 64-bit words are two 32-bit halves, and a field of w <= 32 bits at
 *    a runtime position is (word >> S) & low_mask(w): two funnel shifts (whole bytes, then
 *    bits: tables of 8 constant actions keyed on S) and an action-data mask; labels, side
 *    labels, m, sid and z are therefore at most 32 bits on TNA;
 *  - mode-0 positions are computed from the cursor and the configuration directly, not by
 *    advancing a cursor take by take;
 *  - modes 1-3 compare the digits above the level in place, under a mask, without shifting;
 *    bits that must be zero are checked by ternary tables with constant entries;
 *  - no runtime header-stack index: the parser puts the routing word at head / 8 in tr_cur
 *    (and the next one in tr_nxt when head % 8 == 7) and stops there, so the record-area
 *    header is not parsed and RecCount and its reserved bytes are not checked;
 *  - drops: every check sets a flag of its own (or, for checks on header fields alone, a
 *    ternary table per header group gives the index of its first failing check), and
 *    tna_drop_pick, a ternary table with one entry per check in canopy.p4's order, names the
 *    first: no check waits for another, which a chain of `if (!drop && ...)` would make one
 *    stage each;
 *  - the sliced outcome (up, down, side link) is one ternary table (tna_outcome) over the
 *    inputs of canopy.p4's decision tree; the lookups are applied on exclusive branches;
 *  - no frame length in ingress: the "header past the end of the frame" and "payload past the
 *    end of the frame" truncated checks are not made (a frame that ends inside the parsed
 *    headers fails in the parser instead); a prefix
 *    that is not there is NOT_CANOPY (the parser reaches it exactly for Canopy's EtherType);
 *  - one ALU operation per action, and no comparison between two fields in a gateway (a > b
 *    is a |-| b != 0 into a temporary of its own); PHV clusters stay within one group of
 *    containers (docs/p4.md §5);
 *  - the configuration differs from canopy.p4's: sliced_cfg holds the scalars and
 *    sliced_addr the addressing (the zone shifted into place, with its fit), and the TNA
 *    entries leave out labels at or above z (canopyctl p4-entries --format bfrt-python).
 * The constant entries that follow from the design (funnel shifts, masks, header checks, the
 * drop priority encoder, the Transit lookups) are generated into tna_entries/<table>.p4 by
 * `canopyctl p4-tna-entries` (control/src/p4/tna/const_entries.rs) and included by their
 * tables: change the generator, not the files (control/tests/p4_tna.rs fails on a difference).
 */
#include <core.p4>
/* Tofino 2: -DCANOPY_T2NA with --target tofino2 --arch t2na (docs/p4.md §5) */
#ifdef CANOPY_T2NA
#include <t2na.p4>
#else
#include <tna.p4>
#endif

#define CANOPY_NO_RUNTIME_SHIFT
/* Transit: the parser takes the routing word at head / 8 into tr_cur (and the next one into
 * tr_nxt when head % 8 == 7, for a swallowing input) and stops there: the ingress reads only
 * those two words (all 32 words in MAU PHV do not fit), the earlier words ride in the route
 * stack and the later ones and the record area stay in the payload. The counter is head / 8
 * (8-bit signed: head itself would be negative from 128 on). */
/* the low 5 bits after the rotation: Tofino 1 takes a width code (2^(mask+1) - 1), Tofino 2
 * the mask itself */
#ifdef CANOPY_T2NA
#define CANOPY_PC_MASK5 8w0x1f
#else
#define CANOPY_PC_MASK5 3w4
#endif
#define CANOPY_SLICED_COPY(HDR, META)  \
    META.wc_hi = HDR.sliced.word_hi;    \
    META.wc_lo = HDR.sliced.word_lo;
#define CANOPY_TRANSIT_STATES(HDR, META)                                   \
    state parse_transit {                                                  \
        pkt.extract(HDR.transit);                                          \
        canopy_pc.set(HDR.transit.head, 8w255, 8w3, CANOPY_PC_MASK5, 8w0);  \
        transition parse_route_pre;                                        \
    }                                                                      \
    state parse_route_pre {                                                \
        transition select(canopy_pc.is_zero()) {                           \
            true: parse_route_cur;                                         \
            default: parse_route_skip;                                     \
        }                                                                  \
    }                                                                      \
    state parse_route_skip {                                               \
        pkt.extract(HDR.route.next);                                       \
        canopy_pc.decrement(1);                                            \
        transition parse_route_pre;                                        \
    }                                                                      \
    state parse_route_cur {                                                \
        pkt.extract(HDR.tr_cur);                                           \
        transition select(HDR.transit.head[2:0]) {                         \
            7: parse_route_nxt;                                            \
            default: accept;                                               \
        }                                                                  \
    }                                                                      \
    state parse_route_nxt {                                                \
        pkt.extract(HDR.tr_nxt);                                           \
        transition accept;                                                 \
    }
#include "canopy_headers.p4"

parser CanopyIngressParser(packet_in pkt, out canopy_headers_t hdr, out canopy_meta_t meta,
                           out ingress_intrinsic_metadata_t ig_intr_md) {
    ParserCounter() canopy_pc;
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }
    CANOPY_PARSER_STATES(hdr, meta)
}

/* every metadata field starts at 0: the drop flags and group indexes are only ever set */
@pa_auto_init_metadata
control CanopyIngress(inout canopy_headers_t hdr, inout canopy_meta_t meta,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                      inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                      inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    Counter<bit<32>, bit<8>>(CANOPY_DROPS_SIZE, CounterType_t.PACKETS) canopy_drops;
    Counter<bit<64>, bit<32>>(CANOPY_PORTS, CounterType_t.PACKETS_AND_BYTES) canopy_port_rx;
    Counter<bit<32>, bit<16>>(CANOPY_PORTS * CANOPY_DROPS_SIZE, CounterType_t.PACKETS)
        canopy_port_drops;

    /* tna_hc_prefix: the first failing header check of the group (eth, vlan0, vlan1, vlan2, noprefix, version, kind, kind2, pflags, hop), as an index for
     * tna_drop_pick; 0: none. Generated entries: one per bit pattern, in check order */
    action tna_hc_prefix_set(bit<8> k) { meta.hc_prefix = k; }
    table tna_hc_prefix {
        key = {
            hdr.ethernet.isValid(): ternary;
            hdr.ethernet.ether_type: ternary;
            hdr.vlan0.isValid(): ternary;
            hdr.vlan0.ether_type: ternary;
            hdr.vlan1.isValid(): ternary;
            hdr.vlan1.ether_type: ternary;
            hdr.prefix.isValid(): ternary;
            hdr.prefix.version: ternary;
            hdr.prefix.kind: ternary;
            hdr.prefix.flags: ternary;
            hdr.prefix.hop_limit: ternary;
        }
        actions = { tna_hc_prefix_set; }
        default_action = tna_hc_prefix_set(0);
        const entries = {
#include "tna_entries/tna_hc_prefix.p4"
        }
        size = 31;
    }
    /* tna_hc_sliced: the first failing header check of the group (mode, flags, reserved, slice_len, cur, cursor, srcdst), as an index for
     * tna_drop_pick; 0: none. Generated entries: one per bit pattern, in check order */
    action tna_hc_sliced_set(bit<8> k) { meta.hc_sliced = k; }
    table tna_hc_sliced {
        key = {
            hdr.sliced.mode: ternary;
            hdr.sliced.flags: ternary;
            hdr.sliced.reserved: ternary;
            hdr.sliced.slice_len: ternary;
            hdr.sliced.cursor: ternary;
        }
        actions = { tna_hc_sliced_set; }
        default_action = tna_hc_sliced_set(0);
        const entries = {
#include "tna_entries/tna_hc_sliced.p4"
        }
        size = 442;
    }
    /* tna_hc_transit: the first failing header check of the group (msg, flags, rot, msg0, port), as an index for
     * tna_drop_pick; 0: none. Generated entries: one per bit pattern, in check order */
    action tna_hc_transit_set(bit<8> k) { meta.hc_transit = k; }
    table tna_hc_transit {
        key = {
            hdr.transit.msg: ternary;
            hdr.transit.flags: ternary;
            hdr.transit.rot: ternary;
            ig_intr_md.ingress_port: ternary;
        }
        actions = { tna_hc_transit_set; }
        default_action = tna_hc_transit_set(0);
        const entries = {
#include "tna_entries/tna_hc_transit.p4"
        }
        size = 21;
    }
    /* tna_hc_pathid: the first failing header check of the group (flags, reserved, id_len, local, nonlocal), as an index for
     * tna_drop_pick; 0: none. Generated entries: one per bit pattern, in check order */
    action tna_hc_pathid_set(bit<8> k) { meta.hc_pathid = k; }
    table tna_hc_pathid {
        key = {
            hdr.pathid.flags: ternary;
            hdr.pathid.reserved: ternary;
            hdr.pathid.id_len: ternary;
        }
        actions = { tna_hc_pathid_set; }
        default_action = tna_hc_pathid_set(0);
        const entries = {
#include "tna_entries/tna_hc_pathid.p4"
        }
        size = 38;
    }
    /* Drops: every check sets its own flag (meta.fl.fN = 1, no read of another check's
     * result, so the checks need not run one after another), and tna_drop_pick maps the
     * flags to the first failing check in canopy.p4's order: a priority encoder. */
    action tna_drop(bit<8> reason) {
        meta.drop = 1;
        ig_dprsr_md.drop_ctl = 1;
        canopy_drops.count(reason);
        meta.port_drop = meta.port_drop | (bit<16>)reason;
    }
    table tna_drop_pick {
        key = {
            meta.fl.f0: ternary;
            meta.fl.f1: ternary;
            meta.fl.f2: ternary;
            meta.fl.f3: ternary;
            meta.fl.f4: ternary;
            meta.fl.f5: ternary;
            meta.fl.f6: ternary;
            meta.fl.f7: ternary;
            meta.fl.f8: ternary;
            meta.fl.f9: ternary;
            meta.fl.f10: ternary;
            meta.fl.f11: ternary;
            meta.fl.f12: ternary;
            meta.fl.f13: ternary;
            meta.fl.f14: ternary;
            meta.fl.f15: ternary;
            meta.fl.f16: ternary;
            meta.fl.f17: ternary;
            meta.fl.f18: ternary;
            meta.fl.f19: ternary;
            meta.fl.f20: ternary;
            meta.fl.f21: ternary;
            meta.fl.f22: ternary;
            meta.fl.f23: ternary;
            meta.fl.f24: ternary;
            meta.fl.f25: ternary;
            meta.fl.f26: ternary;
            meta.fl.f27: ternary;
            meta.fl.f28: ternary;
            meta.fl.f29: ternary;
            meta.fl.f30: ternary;
            meta.fl.f31: ternary;
            meta.fl.f32: ternary;
            meta.fl.f33: ternary;
            meta.fl.f34: ternary;
            meta.fl.f35: ternary;
            meta.fl.f36: ternary;
            meta.fl.f37: ternary;
            meta.fl.f38: ternary;
            meta.fl.f39: ternary;
            meta.fl.f40: ternary;
            meta.fl.f41: ternary;
            meta.fl.f42: ternary;
            meta.fl.f43: ternary;
            meta.fl.f44: ternary;
            meta.fl.f45: ternary;
            meta.hc_prefix: ternary;
            meta.hc_sliced: ternary;
            meta.hc_transit: ternary;
            meta.hc_pathid: ternary;
        }
        actions = { tna_drop; NoAction; }
        default_action = NoAction();
        const entries = {
#include "tna_entries/tna_drop_pick.p4"
        }
        size = 73;
    }

    action set_port_info(bit<2> role, bit<1> swallow) {
        meta.port_known = 1;
        meta.role = role;
        meta.swallow = swallow;
    }
    action port_unknown() {
        meta.port_known = 0;
    }
    table canopy_port {
        key = { ig_intr_md.ingress_port: exact; }
        actions = { set_port_info; port_unknown; }
        default_action = port_unknown();
        size = 512;
    }

    /* The kind's flow fields (canopy.p4: flow_a, flow_b) are hashed first, one Hash per kind,
     * into tna_flow: assigning flow_a/flow_b from three headers ties all the 64-bit headers
     * into one PHV cluster that does not allocate. */
    bit<32> tna_flow;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) tna_flow_sliced;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) tna_flow_transit;
    Hash<bit<32>>(HashAlgorithm_t.CRC32) tna_flow_pathid;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) canopy_hash;
    ActionProfile(4096) canopy_prof;
    ActionSelector(canopy_prof, canopy_hash, SelectorMode_t.FAIR, 16, 1024) canopy_sel;
    action set_egress(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }
    action group_empty() {
        meta.fl.f45 = 1;
    }
    table fwd_group {
        key = {
            meta.group: exact;
            hdr.ethernet.src: selector;
            hdr.ethernet.dst: selector;
            tna_flow: selector;
        }
        actions = { set_egress; group_empty; }
        implementation = canopy_sel;
        size = 4096;
    }

    action to_group(bit<16> group) {
        meta.hit = 1;
        meta.use_group = 1;
        meta.group = group;
    }
    action to_port(PortId_t port) {
        meta.hit = 1;
        meta.use_group = 0;
        ig_tm_md.ucast_egress_port = port;
    }
    action miss() {
        meta.hit = 0;
    }

    action sliced_off() {
        meta.sl_on = 0;
    }
    /* TNA: the configuration is two default actions (one action's 241 bits of parameters
     * stop the back end with an internal error laying out its action data): sliced_cfg has
     * the scalars of canopy.p4's set_sliced_cfg but the addressing ones, sliced_addr those */
    action set_sliced_cfg(bit<8> mode, bit<8> level, bit<32> sid, bit<32> m, bit<8> a,
                          bit<8> b, bit<32> z, bit<1> has_up, bit<16> up_group) {
        meta.sl_on = 1;
        meta.sl_mode = mode;
        meta.sl_level = level;
        meta.sl_sid = sid;
        meta.sl_m = m;
        meta.sl_a = a;
        meta.sl_b = b;
        meta.sl_z = z;
        meta.sl_has_up = has_up;
        meta.sl_up_group = up_group;
    }
    table sliced_cfg {
        actions = { set_sliced_cfg; sliced_off; }
        default_action = sliced_off();
        size = 1;
    }
    /* the zone comes as zone << zone_shift (two halves), and zone_big says it has a bit
     * at or above znode_shift - zone_shift (then (DST >> zone_shift) & mask never equals
     * it): canopyctl p4-entries --format bfrt-python computes both from SlicedTable's zone */
    action set_sliced_addr(bit<8> label_shift, bit<8> zone_shift, bit<8> znode_shift,
                           bit<8> addr_bits, bit<32> zone_hi, bit<32> zone_lo, bit<1> zone_big) {
        meta.sl_label_shift = label_shift;
        meta.lab_s = label_shift;  /* modes 1-3: the label's shift (mode 0 computes its own) */
        meta.sl_zone_shift = zone_shift;
        meta.sl_znode_shift = znode_shift;
        meta.sl_addr_bits = addr_bits;
        meta.x_hi = zone_hi;
        meta.x_lo = zone_lo;
        meta.zone_big = zone_big;
    }
    action sliced_addr_off() {
        meta.sl_label_shift = 64;
        meta.lab_s = 64;
        meta.sl_zone_shift = 64;
        meta.sl_znode_shift = 64;
        meta.sl_addr_bits = 0;
        meta.x_hi = 0;
        meta.x_lo = 0;
        meta.zone_big = 0;
    }
    table sliced_addr {
        actions = { set_sliced_addr; sliced_addr_off; }
        default_action = sliced_addr_off();
        size = 1;
    }
    table sliced_down {
        key = { meta.label: exact; }
        actions = { to_group; miss; }
        default_action = miss();
        size = 256;
    }
    /* a miss climbs (modes 1-3: no side link to that Znode at this level): the up group is
     * set here, and where climbing is not allowed a drop flag overrides it */
    action side_miss() {
        meta.hit = 0;
        meta.use_group = 1;
        meta.group = meta.sl_up_group;
    }
    table sliced_side {
        key = { meta.side_k: exact; }
        actions = { to_group; side_miss; }
        default_action = side_miss();
        size = 256;
    }

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
    action dir_port(PortId_t port, bit<2> rot, bit<8> delay) {
        meta.hit = 1;
        meta.use_group = 0;
        ig_tm_md.ucast_egress_port = port;
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
    table transit_dir {
        key = { meta.tr_half: exact; meta.tr_dir: exact; }
        actions = { dir_port; dir_group; miss; }
        default_action = miss();
        size = 8;
    }

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
    action pid_port(bit<1> down, PortId_t port) {
        meta.hit = 1;
        meta.down = down;
        meta.use_group = 0;
        ig_tm_md.ucast_egress_port = port;
    }
    action pid_group(bit<1> down, bit<16> group) {
        meta.hit = 1;
        meta.down = down;
        meta.use_group = 1;
        meta.group = group;
    }
    table pathid_lpm {
        key = {
            hdr.pathid.id: ternary;
            hdr.pathid.id_len: range;
        }
        actions = { pid_port; pid_group; miss; }
        default_action = miss();
        size = 4096;  /* canopy.p4: 16384; TNA: ternary with a range, 4096 fit the TCAM of few stages */
    }
    table pathid_host {
        key = { hdr.pathid.host_label: exact; }
        actions = { to_port; to_group; miss; }
        default_action = miss();
        size = 1024;
    }

    /* Single-operation steps. Tofino executes an action in one stage, so an expression that
     * needs two ALU operations is rejected ("action spanning multiple stages"). p4c's
     * LocalCopyPropagation also propagates fields of `meta`, so `meta.x = a + b; ... meta.x + c`
     * becomes `a + b + c` again. It does not propagate into or out of an action call: each step
     * below is one ALU operation, called directly from the apply block. */
    bit<16> tna_total;      /* Transit: expected body length */
    bit<16> tna_rec_total;  /* Transit: record area bytes (8 + the slots rounded to 64 bits) */
    bit<16> tna_inc;        /* Transit: cycles increment, swallow + 1 + delay */
    bit<8>  tna_head8;      /* Transit: the new head, 8 bits (tr_head is sliced by the keys) */
    action tna_body_len() { meta.body_len = meta.hl - 8; meta.body_len2 = meta.hl2 - 8; }
    action tna_body_len_meas() { meta.body_len = meta.hl - 24; meta.body_len2 = meta.hl2 - 24; }
    action tna_total_add_rec() { tna_total = tna_total + tna_rec_total; }
    action tna_tr_head() {
        meta.tr_head = hdr.transit.head;
        tna_head8 = hdr.transit.head;
        meta.t8_rl = hdr.transit.route_len |-| hdr.transit.head;
    }
    action tna_tr_head_inc() {
        meta.tr_head = meta.tr_head + 1;
        tna_head8 = tna_head8 + 1;
        meta.t8_rl = meta.t8_rl |-| 1;
    }
    action tna_tr_inc() { tna_inc = (bit<16>)meta.tr_delay; }
    action tna_tr_inc_1() { tna_inc = tna_inc + 1; }
    action tna_tr_inc_2() { tna_inc = tna_inc + 2; }
    action tna_tr_cycles() { hdr.transit.cycles = hdr.transit.cycles |+| tna_inc; }

    /* hl = HdrLen * 8 (a widening shift needs a constant and a PHV source: not one action) */
    action tna_set_hl(bit<16> hl) { meta.hl = hl; meta.hl2 = hl; }
    table tna_hl {
        key = { hdr.prefix.hdr_len: exact; }
        actions = { tna_set_hl; }
        const entries = {
#include "tna_entries/tna_hl.p4"
        }
        size = 256;
    }
    /* canopy_port_drops base index, ingress_port * 32 (CANOPY_PORT_DROP_INDEX): a widening
     * shift of the 9-bit port into a 32-bit field cannot be one PHV-aligned operation */
    action tna_set_port_drop(bit<16> base) { meta.port_drop = base; }
    table tna_port_drop {
        key = { ig_intr_md.ingress_port: exact; }
        actions = { tna_set_port_drop; }
        const entries = {
#include "tna_entries/tna_port_drop.p4"
        }
        size = 512;
    }
    /* Transit: Rot = (Rot + link rotation) mod 4; Rot < 4 here (reserved bits checked).
     * A table, so that the write is a constant and not an add on a 2-bit slice */
    action tna_set_rot(bit<8> rot) { hdr.transit.rot = rot; }
    table tna_rot {
        key = { hdr.transit.rot: exact; meta.tr_rot: exact; }
        actions = { tna_set_rot; }
        const entries = {
#include "tna_entries/tna_rot.p4"
        }
        size = 16;
    }
    /* Transit: 8 + RouteLen rounded up to whole 64-bit words, in bytes */
    action tna_set_route_total(bit<16> total) { tna_total = total; }
    table tna_route_total {
        key = { hdr.transit.route_len: exact; }
        actions = { tna_set_route_total; }
        const entries = {
#include "tna_entries/tna_route_total.p4"
        }
        size = 256;
    }
    /* Transit: 8 + (4 RecSlots) rounded up to whole 64-bit words, in bytes */
    action tna_set_rec_total(bit<16> total) { tna_rec_total = total; }
    table tna_rec_total_tbl {
        key = { hdr.transit.rec_slots: exact; }
        actions = { tna_set_rec_total; }
        const entries = {
#include "tna_entries/tna_rec_total_tbl.p4"
        }
        size = 256;
    }

    /* mode 0: no bit beyond SliceLen (left-aligned word): word & low_mask(64 - SliceLen) == 0 */
    action tna_chk_beyond_ok() { meta.bits_bad = 0; }
    action tna_chk_beyond_bad() { meta.bits_bad = 1; }
    table tna_chk_beyond {
        key = { hdr.sliced.slice_len: ternary; hdr.sliced.word_hi: ternary; hdr.sliced.word_lo: ternary; }
        actions = { tna_chk_beyond_ok; tna_chk_beyond_bad; }
        default_action = tna_chk_beyond_bad();
        const entries = {
#include "tna_entries/tna_chk_beyond.p4"
        }
        size = 65;
    }
    /* modes 1-3: DST & ~low_mask(SliceLen) == 0 */
    action tna_chk_len_ok() { meta.len_bad = 0; }
    action tna_chk_len_bad() { meta.len_bad = 1; }
    table tna_chk_len {
        key = { hdr.sliced.slice_len: ternary; hdr.sliced.word_hi: ternary; hdr.sliced.word_lo: ternary; }
        actions = { tna_chk_len_ok; tna_chk_len_bad; }
        default_action = tna_chk_len_bad();
        const entries = {
#include "tna_entries/tna_chk_len.p4"
        }
        size = 65;
    }
    /* modes 1-3: SRC & ~low_mask(SliceLen) == 0 */
    action tna_chk_src_ok() { meta.src_bad = 0; }
    action tna_chk_src_bad() { meta.src_bad = 1; }
    table tna_chk_src {
        key = { hdr.sliced.slice_len: ternary; hdr.sliced_src.src_hi: ternary; hdr.sliced_src.src_lo: ternary; }
        actions = { tna_chk_src_ok; tna_chk_src_bad; }
        default_action = tna_chk_src_bad();
        const entries = {
#include "tna_entries/tna_chk_src.p4"
        }
        size = 65;
    }
    /* mode 0, take #1: rho, the bit at the cursor */
    action tna_rho_one() { meta.take_v = 1; }
    action tna_rho_zero() { meta.take_v = 0; }
    table tna_rho {
        key = { hdr.sliced.cursor: exact; hdr.sliced.word_hi: ternary; hdr.sliced.word_lo: ternary; }
        actions = { tna_rho_one; tna_rho_zero; }
        default_action = tna_rho_zero();
        const entries = {
#include "tna_entries/tna_rho.p4"
        }
        size = 64;
    }
    /* mode 0, take #2: the side label is (word >> S) & low_mask(a), S = 64 - pos - a */
    /* side label: (hdr.sliced.word_hi ++ hdr.sliced.word_lo) >> S, S = meta.side_s = 8q + r: whole bytes (q), then bits (r), one
     * funnel shift each; S >= 64 reads 0 */
    action tna_side_q0() { meta.e1_th = hdr.sliced.word_hi; meta.e1_tl = hdr.sliced.word_lo; }
    action tna_side_q1() { meta.e1_th = hdr.sliced.word_hi >> 8; funnel_shift_right(meta.e1_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 8); }
    action tna_side_q2() { meta.e1_th = hdr.sliced.word_hi >> 16; funnel_shift_right(meta.e1_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 16); }
    action tna_side_q3() { meta.e1_th = hdr.sliced.word_hi >> 24; funnel_shift_right(meta.e1_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 24); }
    action tna_side_q4() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi; }
    action tna_side_q5() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi >> 8; }
    action tna_side_q6() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi >> 16; }
    action tna_side_q7() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi >> 24; }
    action tna_side_qnone() { meta.e1_th = 0; meta.e1_tl = 0; }
    table tna_side_q {
        key = { meta.side_s: ternary; }
        actions = { tna_side_q0; tna_side_q1; tna_side_q2; tna_side_q3; tna_side_q4; tna_side_q5; tna_side_q6; tna_side_q7; tna_side_qnone; }
        default_action = tna_side_qnone();
        const entries = {
#include "tna_entries/tna_side_q.p4"
        }
        size = 8;
    }
    action tna_side_r0() { meta.e1_ex = meta.e1_tl; }
    action tna_side_r1() { funnel_shift_right(meta.e1_ex, meta.e1_th, meta.e1_tl, 1); }
    action tna_side_r2() { funnel_shift_right(meta.e1_ex, meta.e1_th, meta.e1_tl, 2); }
    action tna_side_r3() { funnel_shift_right(meta.e1_ex, meta.e1_th, meta.e1_tl, 3); }
    action tna_side_r4() { funnel_shift_right(meta.e1_ex, meta.e1_th, meta.e1_tl, 4); }
    action tna_side_r5() { funnel_shift_right(meta.e1_ex, meta.e1_th, meta.e1_tl, 5); }
    action tna_side_r6() { funnel_shift_right(meta.e1_ex, meta.e1_th, meta.e1_tl, 6); }
    action tna_side_r7() { funnel_shift_right(meta.e1_ex, meta.e1_th, meta.e1_tl, 7); }
    table tna_side_r {
        key = { meta.side_s: ternary; }
        actions = { tna_side_r0; tna_side_r1; tna_side_r2; tna_side_r3; tna_side_r4; tna_side_r5; tna_side_r6; tna_side_r7; }
        const entries = {
#include "tna_entries/tna_side_r.p4"
        }
        size = 8;
    }
    /* & low_mask(a), a <= 32 */
    /* side label: meta.side_k = meta.e1_ex & low_mask(meta.sl_a) (the mask is action data) */
    action tna_side_mask(bit<32> m) { meta.side_k = meta.e1_ex & m; }
    table tna_side_mask_tbl {
        key = { meta.sl_a: exact; }
        actions = { tna_side_mask; }
        default_action = tna_side_mask(0xffffffff);
        const entries = {
#include "tna_entries/tna_side_mask_tbl.p4"
        }
        size = 33;
    }
    /* the level's label is (word >> S) & low_mask(b): mode 0 S = 64 - pos - b, modes 1-3 S = label_shift */
    /* label: (hdr.sliced.word_hi ++ hdr.sliced.word_lo) >> S, S = meta.lab_s = 8q + r: whole bytes (q), then bits (r), one
     * funnel shift each; S >= 64 reads 0 */
    action tna_lab_q0() { meta.e2_th = hdr.sliced.word_hi; meta.e2_tl = hdr.sliced.word_lo; }
    action tna_lab_q1() { meta.e2_th = hdr.sliced.word_hi >> 8; funnel_shift_right(meta.e2_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 8); }
    action tna_lab_q2() { meta.e2_th = hdr.sliced.word_hi >> 16; funnel_shift_right(meta.e2_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 16); }
    action tna_lab_q3() { meta.e2_th = hdr.sliced.word_hi >> 24; funnel_shift_right(meta.e2_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 24); }
    action tna_lab_q4() { meta.e2_th = 0; meta.e2_tl = hdr.sliced.word_hi; }
    action tna_lab_q5() { meta.e2_th = 0; meta.e2_tl = hdr.sliced.word_hi >> 8; }
    action tna_lab_q6() { meta.e2_th = 0; meta.e2_tl = hdr.sliced.word_hi >> 16; }
    action tna_lab_q7() { meta.e2_th = 0; meta.e2_tl = hdr.sliced.word_hi >> 24; }
    action tna_lab_qnone() { meta.e2_th = 0; meta.e2_tl = 0; }
    table tna_lab_q {
        key = { meta.lab_s: ternary; }
        actions = { tna_lab_q0; tna_lab_q1; tna_lab_q2; tna_lab_q3; tna_lab_q4; tna_lab_q5; tna_lab_q6; tna_lab_q7; tna_lab_qnone; }
        default_action = tna_lab_qnone();
        const entries = {
#include "tna_entries/tna_lab_q.p4"
        }
        size = 8;
    }
    action tna_lab_r0() { meta.e2_ex = meta.e2_tl; }
    action tna_lab_r1() { funnel_shift_right(meta.e2_ex, meta.e2_th, meta.e2_tl, 1); }
    action tna_lab_r2() { funnel_shift_right(meta.e2_ex, meta.e2_th, meta.e2_tl, 2); }
    action tna_lab_r3() { funnel_shift_right(meta.e2_ex, meta.e2_th, meta.e2_tl, 3); }
    action tna_lab_r4() { funnel_shift_right(meta.e2_ex, meta.e2_th, meta.e2_tl, 4); }
    action tna_lab_r5() { funnel_shift_right(meta.e2_ex, meta.e2_th, meta.e2_tl, 5); }
    action tna_lab_r6() { funnel_shift_right(meta.e2_ex, meta.e2_th, meta.e2_tl, 6); }
    action tna_lab_r7() { funnel_shift_right(meta.e2_ex, meta.e2_th, meta.e2_tl, 7); }
    table tna_lab_r {
        key = { meta.lab_s: ternary; }
        actions = { tna_lab_r0; tna_lab_r1; tna_lab_r2; tna_lab_r3; tna_lab_r4; tna_lab_r5; tna_lab_r6; tna_lab_r7; }
        const entries = {
#include "tna_entries/tna_lab_r.p4"
        }
        size = 8;
    }
    /* & low_mask(b), b <= 32 */
    /* label: meta.label = meta.e2_ex & low_mask(meta.sl_b) (the mask is action data) */
    action tna_lab_mask(bit<32> m) { meta.label = meta.e2_ex & m; }
    table tna_lab_mask_tbl {
        key = { meta.sl_b: exact; }
        actions = { tna_lab_mask; }
        default_action = tna_lab_mask(0xffffffff);
        const entries = {
#include "tna_entries/tna_lab_mask_tbl.p4"
        }
        size = 33;
    }
    /* modes 1-3: the low 32 bits of DST >> znode_shift */
    /* Znode id of DST (low 32 bits): (hdr.sliced.word_hi ++ hdr.sliced.word_lo) >> S, S = meta.sl_znode_shift = 8q + r: whole bytes (q), then bits (r), one
     * funnel shift each; S >= 64 reads 0 */
    action tna_zn_q0() { meta.e1_th = hdr.sliced.word_hi; meta.e1_tl = hdr.sliced.word_lo; }
    action tna_zn_q1() { meta.e1_th = hdr.sliced.word_hi >> 8; funnel_shift_right(meta.e1_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 8); }
    action tna_zn_q2() { meta.e1_th = hdr.sliced.word_hi >> 16; funnel_shift_right(meta.e1_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 16); }
    action tna_zn_q3() { meta.e1_th = hdr.sliced.word_hi >> 24; funnel_shift_right(meta.e1_tl, hdr.sliced.word_hi, hdr.sliced.word_lo, 24); }
    action tna_zn_q4() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi; }
    action tna_zn_q5() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi >> 8; }
    action tna_zn_q6() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi >> 16; }
    action tna_zn_q7() { meta.e1_th = 0; meta.e1_tl = hdr.sliced.word_hi >> 24; }
    action tna_zn_qnone() { meta.e1_th = 0; meta.e1_tl = 0; }
    table tna_zn_q {
        key = { meta.sl_znode_shift: ternary; }
        actions = { tna_zn_q0; tna_zn_q1; tna_zn_q2; tna_zn_q3; tna_zn_q4; tna_zn_q5; tna_zn_q6; tna_zn_q7; tna_zn_qnone; }
        default_action = tna_zn_qnone();
        const entries = {
#include "tna_entries/tna_zn_q.p4"
        }
        size = 8;
    }
    action tna_zn_r0() { meta.side_k = meta.e1_tl; }
    action tna_zn_r1() { funnel_shift_right(meta.side_k, meta.e1_th, meta.e1_tl, 1); }
    action tna_zn_r2() { funnel_shift_right(meta.side_k, meta.e1_th, meta.e1_tl, 2); }
    action tna_zn_r3() { funnel_shift_right(meta.side_k, meta.e1_th, meta.e1_tl, 3); }
    action tna_zn_r4() { funnel_shift_right(meta.side_k, meta.e1_th, meta.e1_tl, 4); }
    action tna_zn_r5() { funnel_shift_right(meta.side_k, meta.e1_th, meta.e1_tl, 5); }
    action tna_zn_r6() { funnel_shift_right(meta.side_k, meta.e1_th, meta.e1_tl, 6); }
    action tna_zn_r7() { funnel_shift_right(meta.side_k, meta.e1_th, meta.e1_tl, 7); }
    table tna_zn_r {
        key = { meta.sl_znode_shift: ternary; }
        actions = { tna_zn_r0; tna_zn_r1; tna_zn_r2; tna_zn_r3; tna_zn_r4; tna_zn_r5; tna_zn_r6; tna_zn_r7; }
        const entries = {
#include "tna_entries/tna_zn_r.p4"
        }
        size = 8;
    }
    /* modes 1-3: DST >> znode_shift has no bit beyond the low 32 (else it is >= m and != sid) */
    action tna_zn_ovf_ok() { }
    action tna_zn_ovf_bad() { meta.side_k = 0xffffffff; }
    table tna_zn_ovf {
        key = { meta.sl_znode_shift: ternary; hdr.sliced.word_hi: ternary; hdr.sliced.word_lo: ternary; }
        actions = { tna_zn_ovf_ok; tna_zn_ovf_bad; }
        default_action = tna_zn_ovf_bad();
        const entries = {
#include "tna_entries/tna_zn_ovf.p4"
        }
        size = 66;
    }
    /* DST mode: x = zone << zone_shift (the bits carried into the high half in zs_b) */
    /* modes 1-3: the digits above this level, without the Znode id, are the bits
     * [zone_shift, znode_shift) of DST; they match SRC (or zone << zone_shift) when
     * x = DST ^ SRC (or ^ zone << zone_shift) has none of them set: x &= low_mask(znode_shift),
     * then a ternary match for no bit at or above zone_shift (no shift of DST, SRC or a mask) */
    /* modes 1-3: x &= low_mask(meta.sl_znode_shift) on the two halves (the masks are action data) */
    action tna_x_zn(bit<32> mh, bit<32> ml) { meta.x_hi = meta.x_hi & mh; meta.x_lo = meta.x_lo & ml; }
    table tna_x_zn_tbl {
        key = { meta.sl_znode_shift: exact; }
        actions = { tna_x_zn; }
        default_action = tna_x_zn(0xffffffff, 0xffffffff);
        const entries = {
#include "tna_entries/tna_x_zn_tbl.p4"
        }
        size = 65;
    }
    action tna_x_zo_ok() { meta.above_eq = 1; }
    action tna_x_zo_bad() { meta.above_eq = 0; }
    table tna_x_zo {
        key = { meta.sl_zone_shift: ternary; meta.x_hi: ternary; meta.x_lo: ternary; }
        actions = { tna_x_zo_ok; tna_x_zo_bad; }
        default_action = tna_x_zo_bad();
        const entries = {
#include "tna_entries/tna_x_zo.p4"
        }
        size = 66;
    }
    action tna_x_src() {
        meta.x_hi = meta.wc_hi ^ hdr.sliced_src.src_hi;
        meta.x_lo = meta.wc_lo ^ hdr.sliced_src.src_lo;
    }
    action tna_x_zone() {
        meta.x_hi = meta.x_hi ^ meta.wc_hi;
        meta.x_lo = meta.x_lo ^ meta.wc_lo;
    }
    table tna_x {
        key = { hdr.sliced.mode: exact; }
        actions = { tna_x_src; tna_x_zone; }
        default_action = tna_x_zone();
        const entries = { MODE_SRCDST: tna_x_src(); }
        size = 1;
    }

    /* path-ID: no bit beyond IdLen (left-aligned ID) */
    action tna_chk_id_ok() { meta.id_bad = 0; }
    action tna_chk_id_bad() { meta.id_bad = 1; }
    table tna_chk_id {
        key = { hdr.pathid.id_len: ternary; hdr.pathid.id: ternary; }
        actions = { tna_chk_id_ok; tna_chk_id_bad; }
        default_action = tna_chk_id_bad();
        const entries = {
#include "tna_entries/tna_chk_id.p4"
        }
        size = 65;
    }

    /* S = 64 - pos - w, one step per action */
    /* saturating differences: a > b is a |-| b != 0 (Tofino gateways compare with constants) */
    action tna_pick_nxt() { meta.use_nxt = 1; }
    action tna_pick_cur() { meta.use_nxt = 0; }
    table tna_pick {
        key = { meta.swallow: exact; hdr.transit.head: ternary; }
        actions = { tna_pick_nxt; tna_pick_cur; }
        default_action = tna_pick_cur();
        const entries = {
            (1, 7 &&& 7): tna_pick_nxt();
        }
        size = 1;
    }
    action tna_head_over() { meta.t8_head = hdr.transit.head |-| hdr.transit.route_len; }
    action tna_total_over() { meta.t16_tot = tna_total |-| meta.body_len2; }
    action tna_total_over_rec() { meta.t16_rec = tna_total |-| meta.body_len2; }
    /* m > 1 is m |-| 1 != 0 (a gateway m > 1 would slice m, and every field aligned with it,
     * at bit 1) */
    /* mode 0 positions, each straight from the cursor and the configuration (no chain of
     * cursor updates): p_a = cursor + a. With rho = 0 and m > 1 the side label is bits
     * [cursor + 1, p_a + 1) and the label [p_a + 1, p_a + 1 + b); with rho = 0 and m <= 1 the
     * label is [cursor + 1, cursor + 1 + b); at an up or side input [cursor, cursor + b).
     * A field [x, x + w) is word >> (64 - x - w). */
    action tna_sl_pre() {
        meta.p_a = hdr.sliced.cursor + meta.sl_a;
        meta.c63b = 63 - meta.sl_b;
        meta.c64b = 64 - meta.sl_b;
        meta.b1 = meta.sl_b + 1;
    }
    action tna_rem0() { meta.rem0 = hdr.sliced.slice_len - hdr.sliced.cursor; }
    /* rho = 0, m > 1. t8_a == 0: the side label does not fit (cursor + 1 + a > slice_len) */
    action tna_sl_side() {
        meta.side_s = 63 - meta.p_a;
        meta.lab_s = meta.c63b - meta.p_a;
        meta.t8_a = hdr.sliced.slice_len |-| meta.p_a;
        meta.pos = meta.p_a + meta.b1;
    }
    /* t8_b != 0: the label does not fit after the side label (p_a + 1 + b > slice_len) */
    action tna_sl_side_b() { meta.t8_b = meta.b1 |-| meta.t8_a; }
    /* rho = 0, m <= 1 */
    action tna_sl_noside() {
        meta.lab_s = meta.c63b - hdr.sliced.cursor;
        meta.t8_b = meta.b1 |-| meta.rem0;
        meta.pos = hdr.sliced.cursor + meta.b1;
    }
    /* rho = 1 */
    action tna_sl_rho_up() { meta.pos = hdr.sliced.cursor + 1; }
    /* an up or side input */
    action tna_sl_in() {
        meta.lab_s = meta.c64b - hdr.sliced.cursor;
        meta.t8_b = meta.sl_b |-| meta.rem0;
        meta.pos = hdr.sliced.cursor + meta.sl_b;
    }
    /* ---- sliced: the outcome (up, down, side link) of canopy.p4's decision tree in one
     * ternary table with constant entries, first match wins; its drop checks are flags of
     * their own (below, in the apply block). o_sou: a side miss may climb (modes 1-3);
     * pd: PHASE_DOWN is set. Keys: t8_a == 0 (no room for the side label), t_cmp ==
     * m |-| side_k, t_sid == side_k ^ sid, above_eq and zone_big (modes 1-3). */
    action tna_out(bit<1> up, bit<1> down, bit<1> side, bit<1> sou, bit<8> pd) {
        meta.o_up = up;
        meta.o_down = down;
        meta.o_side = side;
        meta.o_sou = sou;
        meta.o_pd = pd;
    }
    table tna_outcome {
        key = {
            hdr.sliced.mode: ternary;
            meta.role: ternary;
            meta.take_v: ternary;
            meta.sl_m: ternary;
            meta.t_sid: ternary;
            meta.above_eq: ternary;
            meta.zone_big: ternary;
            meta.sl_has_up: ternary;
        }
        actions = { tna_out; }
        default_action = tna_out(0, 0, 0, 0, 0);
        const entries = {
            /* mode 0, a down input: rho = 1 climbs */
            (0, ROLE_DOWN, 1, _, _, _, _, _): tna_out(1, 0, 0, 0, 0);
            /* rho = 0: down, through a side link when m > 1 and the side label is not sid */
            (0, ROLE_DOWN, 0, 0 &&& 0xfffffffe, _, _, _, _): tna_out(0, 1, 0, 0, SL_PHASE_DOWN);
            (0, ROLE_DOWN, 0, _, 0, _, _, _): tna_out(0, 1, 0, 0, SL_PHASE_DOWN);
            (0, ROLE_DOWN, 0, _, _, _, _, _): tna_out(0, 0, 1, 0, SL_PHASE_DOWN);
            /* mode 0, an up or side input: down */
            (0, _, _, _, _, _, _, _): tna_out(0, 1, 0, 0, 0);
            /* modes 1-3, a down input: climb unless the digits above match (FLAT: unless
             * there is no up group) */
            (2, ROLE_DOWN, _, _, _, 0, _, _): tna_out(1, 0, 0, 0, 0);
            (3, ROLE_DOWN, _, _, _, 0, _, _): tna_out(1, 0, 0, 0, 0);
            (3, ROLE_DOWN, _, _, _, _, 1, _): tna_out(1, 0, 0, 0, 0);
            (1, ROLE_DOWN, _, _, _, _, _, 1): tna_out(1, 0, 0, 0, 0);
            /* they match: down, or to another Znode's side link (a miss climbs) */
            (_, ROLE_DOWN, _, 0 &&& 0xfffffffe, _, _, _, _): tna_out(0, 1, 0, 0, SL_PHASE_DOWN);
            (_, ROLE_DOWN, _, _, 0, _, _, _): tna_out(0, 1, 0, 0, SL_PHASE_DOWN);
            (_, ROLE_DOWN, _, _, _, _, _, _): tna_out(0, 0, 1, 1, 0);
            /* modes 1-3, an up or side input: down */
            (_, _, _, _, _, _, _, _): tna_out(0, 1, 0, 0, 0);
        }
        size = 16;
    }
    /* the side label against m and sid, together */
    action tna_side_cmp() {
        meta.t_cmp = meta.sl_m |-| meta.side_k;
        meta.t_sid = meta.side_k ^ meta.sl_sid;
    }
    /* Transit: the 2-bit pair Rot of byte head % 8 of the routing word, matched directly
     * (no shifted copies of the word and no sliced byte, which split the routing words into
     * 2-bit PHV slices): the pair's bit is 56 - 8 (head % 8) + 6 - 2 Rot. Rot < 4 here. */
    action tna_set_dir(bit<2> dir) { meta.tr_dir = dir; }
    table tna_dir {
        key = {
            hdr.tr_cur.w: ternary;
            meta.tr_head: ternary;
            hdr.transit.rot: exact;
        }
        actions = { tna_set_dir; }
        const entries = {
#include "tna_entries/tna_dir.p4"
        }
        size = 128;
    }
    table tna_dir_nxt {
        key = {
            hdr.tr_nxt.w: ternary;
            meta.tr_head: ternary;
            hdr.transit.rot: exact;
        }
        actions = { tna_set_dir; }
        const entries = {
#include "tna_entries/tna_dir.p4"
        }
        size = 128;
    }

    apply {
        canopy_port_rx.count((bit<32>)ig_intr_md.ingress_port);
        meta.port_drop = 0;
        tna_port_drop.apply();
        /* the per-switch configuration first: keyless default actions, so every later step
         * can read it from the second stage on */
        sliced_cfg.apply();
        sliced_addr.apply();
        transit_cfg.apply();
        pathid_cfg.apply();
        meta.drop = 0;
        meta.hit = 0;
        meta.use_group = 0;
        tna_total = 0;
        tna_rec_total = 0;
        tna_flow = 0;
        bit<8> flags = 0;

        /* ---- Ethernet, VLAN tags, prefix: tna_hc_prefix (header fields only) ---- */
        tna_hc_prefix.apply();
        /* DROP_TRUNCATED: tna_hc_prefix = 1 */
        /* DROP_TRUNCATED: tna_hc_prefix = 2 */
        /* DROP_TRUNCATED: tna_hc_prefix = 3 */
        /* DROP_TOO_MANY_VLAN_TAGS: tna_hc_prefix = 4 */
        /* DROP_NOT_CANOPY: tna_hc_prefix = 5 */
        /* DROP_BAD_VERSION: tna_hc_prefix = 6 */
        /* DROP_UNKNOWN_KIND: tna_hc_prefix = 7 */
        /* DROP_UNKNOWN_KIND: tna_hc_prefix = 8 */
        /* DROP_RESERVED_BITS_SET: tna_hc_prefix = 9 */
        /* hl < 16 + meas, body_len = hl - 8 - meas, with meas = 16 or 0: one branch each */
        tna_hl.apply();
        if ((hdr.prefix.flags & PREFIX_FLAG_MEAS) != 0) {
            if (meta.hl < 32) { meta.fl.f0 = 1; }
            tna_body_len_meas();
        } else {
            if (meta.hl < 16) { meta.fl.f1 = 1; }
            tna_body_len();
        }
        /* (no packet_length in TNA ingress: HdrLen and Payload length against the frame end
         * are not checked) */

        if (true) {
            canopy_port.apply();
            if (meta.port_known == 0) { meta.fl.f2 = 1; }
        }
        /* DROP_TTL_EXPIRED: tna_hc_prefix = 10 */
        if (true) {
            hdr.prefix.hop_limit = hdr.prefix.hop_limit - 1;
        }

        if (hdr.prefix.kind == KIND_SLICED) {
            /* ================= sliced-flit ================= */
            tna_hc_sliced.apply();
            /* Tofino 1 starts a table that follows an if/else only after the longest branch
             * (next-table chaining), so the values are computed first, in short branches,
             * then the decisions (the drop flags and the four outcomes), then the lookups */
            if (meta.sl_on == 0) { meta.fl.f3 = 1; }
            if (meta.body_len < 16) { meta.fl.f4 = 1; }
            /* DROP_BAD_FIELD_VALUE: tna_hc_sliced = 1 */  /* mode */
            /* DROP_RESERVED_BITS_SET: tna_hc_sliced = 2 */  /* flags */
            /* DROP_RESERVED_BITS_SET: tna_hc_sliced = 3 */  /* reserved */
            bool has_src = (hdr.sliced.flags & SL_HAS_SRC) != 0;
            if (has_src) {
                /* body_len is a multiple of 8: < 24 is < 32 and != 24 (a 16-bit range
                 * compare with 24 does not fit a gateway) */
                if (meta.body_len != 24) {
                    if (meta.body_len < 32) {
                        meta.fl.f5 = 1;
                    } else {
                        meta.fl.f6 = 1;
                    }
                }
            } else if (meta.body_len != 16) {
                meta.fl.f7 = 1;
            }
            /* DROP_BAD_FIELD_VALUE: tna_hc_sliced = 4 */  /* slice_len */
            tna_chk_beyond.apply();
            tna_chk_len.apply();
            tna_chk_src.apply();
            if (hdr.sliced.mode == MODE_SLICED) {
                /* DROP_BAD_FIELD_VALUE: tna_hc_sliced = 5 */  /* cur */
                if (meta.bits_bad == 1) { meta.fl.f8 = 1; }
            } else {
                /* DROP_BAD_FIELD_VALUE: tna_hc_sliced = 6 */  /* cursor */
                if (meta.len_bad == 1) { meta.fl.f9 = 1; }
                /* DROP_BAD_FIELD_VALUE: tna_hc_sliced = 7 */  /* srcdst */
                if (has_src && meta.src_bad == 1) { meta.fl.f10 = 1; }
            }
            if (hdr.sliced.mode != meta.sl_mode) { meta.fl.f11 = 1; }
            tna_flow = tna_flow_sliced.get({ hdr.sliced.word_hi, hdr.sliced.word_lo,
                                             hdr.sliced_src.src_hi, hdr.sliced_src.src_lo });
            flags = hdr.sliced.flags;

            /* ---- values ---- */
            /* mode 0: the positions (tna_sl_pre) */
            tna_sl_pre();
            tna_rem0();
            tna_rho.apply();
            if (hdr.sliced.mode == MODE_SLICED) {
                if (meta.role != ROLE_DOWN) {
                    tna_sl_in();
                } else if (meta.take_v == 1) {
                    tna_sl_rho_up();
                } else if (meta.sl_m != 0 && meta.sl_m != 1) {
                    tna_sl_side();
                    tna_sl_side_b();
                } else {
                    tna_sl_noside();
                }
            }
            /* side_k: mode 0's side label, or (modes 1-3) DST >> znode_shift: its low 32 bits,
             * 0xffffffff when more are set (then it is >= m and != sid) */
            if (hdr.sliced.mode == MODE_SLICED) {
                tna_side_q.apply();
                tna_side_r.apply();
                tna_side_mask_tbl.apply();
            } else {
                tna_zn_q.apply();
                tna_zn_r.apply();
                tna_zn_ovf.apply();
            }
            tna_side_cmp();
            /* the label, both modes: (word >> lab_s) & low_mask(b), lab_s from sliced_addr
             * (modes 1-3) or the positions (mode 0) */
            tna_lab_q.apply();
            tna_lab_r.apply();
            tna_lab_mask_tbl.apply();
            /* modes 1-3: the digits above this level, without the Znode id, are the bits
             * [zone_shift, znode_shift) of DST; compared in place with SRC's or with
             * zone << zone_shift: x = DST ^ that, x &= low_mask(znode_shift), then no bit
             * of x at or above zone_shift (tna_x_zo: above_eq) */
            tna_x.apply();
            tna_x_zn_tbl.apply();
            tna_x_zo.apply();

            /* ---- decisions: the outcome, and the drop checks in canopy.p4's order ---- */
            tna_outcome.apply();
            if (hdr.sliced.mode == MODE_SLICED) {
                if (meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { meta.fl.f12 = 1; }
                    /* take #1: rho. pos >= 64 || pos >= slice_len is pos == slice_len:
                     * pos <= slice_len <= 64 */
                    if (hdr.sliced.cursor == hdr.sliced.slice_len) { meta.fl.f13 = 1; }
                    if (meta.take_v == 0 && meta.sl_m != 0 && meta.sl_m != 1) {
                        /* take #2: the side label, a bits */
                        if (meta.t8_a == 0) {
                            meta.fl.f14 = 1;
                        } else if (meta.t_cmp == 0) {
                            meta.fl.f15 = 1;
                        }
                    }
                } else if ((flags & SL_PHASE_DOWN) == 0
                        || (meta.role == ROLE_SIDE && (flags & SL_SIDE_TAKEN) == 0)) {
                    meta.fl.f16 = 1;
                }
                if (meta.o_down == 1) {
                    /* take #3: the level's label, b bits (b = 0 reads 0) */
                    if (meta.t8_b != 0) { meta.fl.f17 = 1; }
                    if (meta.sl_level <= 1) {
                        /* slice_len > pos is slice_len != pos: pos <= slice_len */
                        if (hdr.sliced.slice_len != meta.pos) { meta.fl.f18 = 1; }
                    }
                }
                /* through a side link only rho and the side label are taken */
                if (meta.o_side == 1) {
                    hdr.sliced.cursor = meta.p_a + 1;
                } else {
                    hdr.sliced.cursor = meta.pos;
                }
            } else {
                /* modes 1-3 */
                if (hdr.sliced.slice_len != meta.sl_addr_bits) { meta.fl.f19 = 1; }
                if (meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { meta.fl.f20 = 1; }
                    if (meta.o_side == 1 && meta.t_cmp == 0) { meta.fl.f21 = 1; }
                } else if ((flags & SL_PHASE_DOWN) == 0
                        || (meta.role == ROLE_SIDE && (flags & SL_SIDE_TAKEN) == 0)) {
                    meta.fl.f22 = 1;
                }
            }

            /* ---- lookups: the outcomes are exclusive ---- */
            if (meta.o_side == 1) {
                /* the only sliced_side application */
                if (sliced_side.apply().hit) {
                    hdr.sliced.flags = hdr.sliced.flags | SL_PHASE_DOWN | SL_SIDE_TAKEN;
                } else if (meta.o_sou == 0 || meta.sl_has_up == 0) {
                    /* (a miss that may climb has set the up group: side_miss) */
                    meta.fl.f23 = 1;
                }
            } else if (meta.o_down == 1) {
                /* label >= z: canopy-switch drops it as DROP_BAD_LABEL before its lookup, and
                 * the TNA entries have no sliced_down entry at or above z (docs/p4.md §5), so
                 * the miss is that check too */
                if (!sliced_down.apply().hit) { meta.fl.f24 = 1; }
            } else if (meta.o_up == 1) {
                if (meta.sl_has_up == 0) {
                    meta.fl.f25 = 1;
                } else {
                    meta.use_group = 1;
                    meta.group = meta.sl_up_group;
                }
            }
            if (meta.o_side == 0) {
                hdr.sliced.flags = hdr.sliced.flags | meta.o_pd;
            }
        } else if (hdr.prefix.kind == KIND_TRANSIT) {
            /* ================= Transit ================= */
            tna_hc_transit.apply();
            if (meta.tr_on == 0) { meta.fl.f26 = 1; }
            if (meta.body_len < 8) { meta.fl.f27 = 1; }
            /* DROP_BAD_FIELD_VALUE: tna_hc_transit = 1 */  /* msg */
            /* DROP_RESERVED_BITS_SET: tna_hc_transit = 2 */  /* flags */
            /* DROP_RESERVED_BITS_SET: tna_hc_transit = 3 */  /* rot */
            tna_head_over();
            if (meta.t8_head != 0) {
                meta.fl.f28 = 1;
            }
            /* total = 8 + RouteLen rounded to 64 bits (+ 8 + 4 RecSlots rounded, when
             * RecSlots > 0), from two constant tables */
            tna_route_total.apply();
            tna_rec_total_tbl.apply();
            tna_total_over();
            if (meta.t16_tot != 0) { meta.fl.f29 = 1; }
            /* RecSlots > 0: the record area's length counts, but its header is not parsed on
             * TNA (the parser stops after the current routing word), so RecCount and the
             * reserved bytes are not checked (docs/p4.md §5) */
            if (hdr.transit.rec_slots != 0) {
                tna_total_add_rec();
                tna_total_over_rec();
                if (meta.t16_rec != 0) { meta.fl.f30 = 1; }
            }
            if (meta.body_len2 != tna_total) { meta.fl.f31 = 1; }
            /* DROP_MODE_MISMATCH: tna_hc_transit = 4 */  /* msg0 */
            /* DROP_BAD_INGRESS_PORT: tna_hc_transit = 5 */  /* port */
            /* tr_head = head + swallow */
            tna_tr_head();
            if (meta.swallow == 1) { tna_tr_head_inc(); }
            /* tr_head >= RouteLen is (RouteLen |-| head) |-| swallow == 0 */
            if (meta.t8_rl == 0) {
                meta.fl.f32 = 1;
            }
            if (true) {
                /* the routing word of the (new) head: tr_cur, or tr_nxt when a swallowing
                 * input moves the head across a word boundary */
                tna_pick.apply();
                if (meta.use_nxt == 1) {
                    tna_dir_nxt.apply();
                } else {
                    tna_dir.apply();
                }
                meta.tr_half = 0;
                if (meta.tr_split == 1) {
                    meta.tr_half = ig_intr_md.ingress_port[2:2];
                }
                tna_flow = tna_flow_transit.get({ hdr.tr_cur.w, hdr.transit.route_len });
                transit_dir.apply();
                if (meta.hit == 0) {
                    meta.fl.f33 = 1;
                } else {
                    /* cycles |+| (swallow + 1 + delay): the increment is at most 257 */
                    tna_tr_inc();
                    if (meta.swallow == 1) { tna_tr_inc_2(); } else { tna_tr_inc_1(); }
                    tna_tr_cycles();
                    hdr.transit.head = tna_head8;  /* = (bit<8>)tr_head */
                    tna_rot.apply();
                    hdr.transit.hops = hdr.transit.hops |+| 1;
                }
            }
        } else {
            /* ================= path-ID ================= */
            tna_hc_pathid.apply();
            if (meta.pid_on == 0) { meta.fl.f34 = 1; }
            if (meta.body_len < 16) { meta.fl.f35 = 1; }
            /* longer than 16 bytes (shorter is f35, which comes first) */
            if (meta.body_len != 16) { meta.fl.f36 = 1; }
            /* DROP_RESERVED_BITS_SET: tna_hc_pathid = 1 */  /* flags */
            /* DROP_RESERVED_BITS_SET: tna_hc_pathid = 2 */  /* reserved */
            /* DROP_BAD_FIELD_VALUE: tna_hc_pathid = 3 */  /* id_len */
            bool local = (hdr.pathid.flags & PID_LOCAL) != 0;
            /* DROP_BAD_FIELD_VALUE: tna_hc_pathid = 4 */  /* local */
            /* DROP_BAD_FIELD_VALUE: tna_hc_pathid = 5 */  /* nonlocal */
            tna_chk_id.apply();
            if (meta.id_bad == 1) {
                meta.fl.f37 = 1;
            }
            tna_flow = tna_flow_pathid.get({ hdr.pathid.id, hdr.pathid.host_label });
            bool phase_down = (hdr.pathid.flags & PID_PHASE_DOWN) != 0;
            bool use_host = false;
            bool use_lpm = false;
            if (true) {
                if (meta.role == ROLE_SIDE) {
                    meta.fl.f38 = 1;
                } else if (meta.role == ROLE_UP) {
                    if (!phase_down) {
                        meta.fl.f39 = 1;
                    } else if (meta.pid_leaf == 1) {
                        use_host = true;
                    } else if (!local) {
                        use_lpm = true;
                    }
                } else if (phase_down) {
                    meta.fl.f40 = 1;
                } else if (local) {
                    if (meta.pid_leaf == 1) {
                        hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                        use_host = true;
                    }
                } else {
                    use_lpm = true;
                }
            }
            /* a LOCAL frame never leaves its leaf, whichever way it arrives (after the
             * phase checks above, which tna_drop_pick puts first) */
            if (local && meta.pid_leaf == 0) { meta.fl.f41 = 1; }
            if (use_host) {
                pathid_host.apply();
                if (meta.hit == 0) { meta.fl.f42 = 1; }
            }
            if (use_lpm) {
                pathid_lpm.apply();
                if (meta.hit == 0) {
                    meta.fl.f43 = 1;
                } else if (meta.role == ROLE_UP) {
                    if (meta.down == 0) { meta.fl.f44 = 1; }
                } else if (meta.down == 1) {
                    hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                }
            }
        }

        if (meta.use_group == 1) {
            fwd_group.apply();
        }
        /* the first failing check, in canopy.p4's order, names the drop */
        tna_drop_pick.apply();
        if (meta.drop == 1) {
            /* Tofino: a counter index is a plain field, computed in earlier steps */
            canopy_port_drops.count(meta.port_drop);
        }
    }
}

control CanopyIngressDeparser(packet_out pkt, inout canopy_headers_t hdr, in canopy_meta_t meta,
                              in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    apply {
        CANOPY_EMIT(hdr)
    }
}

struct canopy_empty_headers_t { }
struct canopy_empty_meta_t { }

parser CanopyEgressParser(packet_in pkt, out canopy_empty_headers_t hdr,
                          out canopy_empty_meta_t meta,
                          out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        transition accept;
    }
}

control CanopyEgress(inout canopy_empty_headers_t hdr, inout canopy_empty_meta_t meta,
                     in egress_intrinsic_metadata_t eg_intr_md,
                     in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                     inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                     inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    Counter<bit<64>, bit<32>>(CANOPY_PORTS, CounterType_t.PACKETS_AND_BYTES) canopy_port_tx;
    apply {
        canopy_port_tx.count((bit<32>)eg_intr_md.egress_port);
    }
}

control CanopyEgressDeparser(packet_out pkt, inout canopy_empty_headers_t hdr,
                             in canopy_empty_meta_t meta,
                             in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    apply { }
}

Pipeline(CanopyIngressParser(), CanopyIngress(), CanopyIngressDeparser(),
         CanopyEgressParser(), CanopyEgress(), CanopyEgressDeparser()) pipe;
Switch(pipe) main;
