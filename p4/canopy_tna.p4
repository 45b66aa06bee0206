/* Canopy reference program for Tofino (P4_16, TNA; Tofino 2 with -DCANOPY_T2NA).
 * COMPILER STATUS (open-source Tofino back end, p4lang/p4c 1.2.4.17, p4c-barefoot): compiles
 * with 0 errors and fits 12 MAU stages on Tofino 1 (of 12) and on Tofino 2 (of 20); the back
 * end reports a program that needs more stages than the chip has only through the stage
 * count of the .bfa, so control/tests/p4_tna.rs checks that count. That release has no assembler:
 * the .bfa and bfrt.json are as far as it goes here. UNTESTED on tofino-model or hardware.
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
 *  - no frame length in ingress: the "header past the end of the frame" truncated check is not
 *    made (a frame that ends inside the parsed headers fails in the parser instead); a prefix
 *    that is not there is NOT_CANOPY (the parser reaches it exactly for Canopy's EtherType);
 *  - one ALU operation per action, and no comparison between two fields in a gateway (a > b
 *    is a |-| b != 0 into a temporary of its own); PHV clusters stay within one group of
 *    containers (docs/p4.md §5);
 *  - the configuration differs from canopy.p4's: sliced_cfg holds the scalars and
 *    sliced_addr the addressing (the zone shifted into place, with its fit), and the TNA
 *    entries leave out labels at or above z (canopyctl p4-entries --program tna).
 * The constant-entry tables were written with small one-off scripts from a template.
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
            (false, _, _, _, _, _, _, _, _, _, _): tna_hc_prefix_set(1);
            (_, 0x8100 &&& 0xffff, false, _, _, _, _, _, _, _, _): tna_hc_prefix_set(2);
            (_, 0x88a8 &&& 0xffff, false, _, _, _, _, _, _, _, _): tna_hc_prefix_set(2);
            (_, 0x8100 &&& 0xffff, _, 0x8100 &&& 0xffff, false, _, _, _, _, _, _): tna_hc_prefix_set(3);
            (_, 0x8100 &&& 0xffff, _, 0x88a8 &&& 0xffff, false, _, _, _, _, _, _): tna_hc_prefix_set(3);
            (_, 0x88a8 &&& 0xffff, _, 0x8100 &&& 0xffff, false, _, _, _, _, _, _): tna_hc_prefix_set(3);
            (_, 0x88a8 &&& 0xffff, _, 0x88a8 &&& 0xffff, false, _, _, _, _, _, _): tna_hc_prefix_set(3);
            (_, 0x8100 &&& 0xffff, _, 0x8100 &&& 0xffff, _, 0x8100 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, 0x8100 &&& 0xffff, _, 0x8100 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, 0x8100 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, 0x8100 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, 0x8100 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, 0x88a8 &&& 0xffff, _, 0x8100 &&& 0xffff, _, 0x8100 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, 0x88a8 &&& 0xffff, _, 0x8100 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, 0x88a8 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, 0x8100 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, 0x88a8 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, 0x88a8 &&& 0xffff, _, _, _, _, _): tna_hc_prefix_set(4);
            (_, _, _, _, _, _, false, _, _, _, _): tna_hc_prefix_set(5);
            (_, _, _, _, _, _, _, 0x0 &&& 0x1, _, _, _): tna_hc_prefix_set(6);
            (_, _, _, _, _, _, _, 0x2 &&& 0x2, _, _, _): tna_hc_prefix_set(6);
            (_, _, _, _, _, _, _, 0x4 &&& 0x4, _, _, _): tna_hc_prefix_set(6);
            (_, _, _, _, _, _, _, 0x8 &&& 0x8, _, _, _): tna_hc_prefix_set(6);
            (_, _, _, _, _, _, _, _, 0x0 &&& 0xf, _, _): tna_hc_prefix_set(7);
            (_, _, _, _, _, _, _, _, 0x4 &&& 0x4, _, _): tna_hc_prefix_set(8);
            (_, _, _, _, _, _, _, _, 0x8 &&& 0x8, _, _): tna_hc_prefix_set(8);
            (_, _, _, _, _, _, _, _, _, 0x1 &&& 0x1, _): tna_hc_prefix_set(9);
            (_, _, _, _, _, _, _, _, _, 0x2 &&& 0x2, _): tna_hc_prefix_set(9);
            (_, _, _, _, _, _, _, _, _, 0x4 &&& 0x4, _): tna_hc_prefix_set(9);
            (_, _, _, _, _, _, _, _, _, 0x8 &&& 0x8, _): tna_hc_prefix_set(9);
            (_, _, _, _, _, _, _, _, _, 0x10 &&& 0x10, _): tna_hc_prefix_set(9);
            (_, _, _, _, _, _, _, _, _, 0x20 &&& 0x20, _): tna_hc_prefix_set(9);
            (_, _, _, _, _, _, _, _, _, 0x40 &&& 0x40, _): tna_hc_prefix_set(9);
            (_, _, _, _, _, _, _, _, _, _, 0x0 &&& 0xff): tna_hc_prefix_set(10);
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
            (0x4 &&& 0xfc, _, _, _, _): tna_hc_sliced_set(1);
            (0x8 &&& 0xf8, _, _, _, _): tna_hc_sliced_set(1);
            (0x10 &&& 0xf0, _, _, _, _): tna_hc_sliced_set(1);
            (0x20 &&& 0xe0, _, _, _, _): tna_hc_sliced_set(1);
            (0x40 &&& 0xc0, _, _, _, _): tna_hc_sliced_set(1);
            (0x80 &&& 0x80, _, _, _, _): tna_hc_sliced_set(1);
            (_, 0x1 &&& 0x1, _, _, _): tna_hc_sliced_set(2);
            (_, 0x2 &&& 0x2, _, _, _): tna_hc_sliced_set(2);
            (_, 0x4 &&& 0x4, _, _, _): tna_hc_sliced_set(2);
            (_, 0x8 &&& 0x8, _, _, _): tna_hc_sliced_set(2);
            (_, 0x10 &&& 0x10, _, _, _): tna_hc_sliced_set(2);
            (_, _, 0x1 &&& 0x1, _, _): tna_hc_sliced_set(3);
            (_, _, 0x2 &&& 0x2, _, _): tna_hc_sliced_set(3);
            (_, _, 0x4 &&& 0x4, _, _): tna_hc_sliced_set(3);
            (_, _, 0x8 &&& 0x8, _, _): tna_hc_sliced_set(3);
            (_, _, 0x10 &&& 0x10, _, _): tna_hc_sliced_set(3);
            (_, _, 0x20 &&& 0x20, _, _): tna_hc_sliced_set(3);
            (_, _, 0x40 &&& 0x40, _, _): tna_hc_sliced_set(3);
            (_, _, 0x80 &&& 0x80, _, _): tna_hc_sliced_set(3);
            (_, _, 0x100 &&& 0x100, _, _): tna_hc_sliced_set(3);
            (_, _, 0x200 &&& 0x200, _, _): tna_hc_sliced_set(3);
            (_, _, 0x400 &&& 0x400, _, _): tna_hc_sliced_set(3);
            (_, _, 0x800 &&& 0x800, _, _): tna_hc_sliced_set(3);
            (_, _, 0x1000 &&& 0x1000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x2000 &&& 0x2000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x4000 &&& 0x4000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x8000 &&& 0x8000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x10000 &&& 0x10000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x20000 &&& 0x20000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x40000 &&& 0x40000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x80000 &&& 0x80000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x100000 &&& 0x100000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x200000 &&& 0x200000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x400000 &&& 0x400000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x800000 &&& 0x800000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x1000000 &&& 0x1000000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x2000000 &&& 0x2000000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x4000000 &&& 0x4000000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x8000000 &&& 0x8000000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x10000000 &&& 0x10000000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x20000000 &&& 0x20000000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x40000000 &&& 0x40000000, _, _): tna_hc_sliced_set(3);
            (_, _, 0x80000000 &&& 0x80000000, _, _): tna_hc_sliced_set(3);
            (_, _, _, 0x41 &&& 0xff, _): tna_hc_sliced_set(4);
            (_, _, _, 0x42 &&& 0xfe, _): tna_hc_sliced_set(4);
            (_, _, _, 0x44 &&& 0xfc, _): tna_hc_sliced_set(4);
            (_, _, _, 0x48 &&& 0xf8, _): tna_hc_sliced_set(4);
            (_, _, _, 0x50 &&& 0xf0, _): tna_hc_sliced_set(4);
            (_, _, _, 0x60 &&& 0xe0, _): tna_hc_sliced_set(4);
            (_, _, _, 0x80 &&& 0x80, _): tna_hc_sliced_set(4);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x1 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x2 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x4 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x0 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1 &&& 0xff, 0x2 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1 &&& 0xff, 0x4 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2 &&& 0xff, 0x3 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2 &&& 0xff, 0x4 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3 &&& 0xff, 0x4 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x4 &&& 0xff, 0x5 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x4 &&& 0xff, 0x6 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x4 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x4 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x4 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x4 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x4 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x5 &&& 0xff, 0x6 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x5 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x5 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x5 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x5 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x5 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x6 &&& 0xff, 0x7 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x6 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x6 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x6 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x6 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x6 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x7 &&& 0xff, 0x8 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x7 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x7 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x7 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x7 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x8 &&& 0xff, 0x9 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x8 &&& 0xff, 0xa &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x8 &&& 0xff, 0xc &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x8 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x8 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x8 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x8 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x9 &&& 0xff, 0xa &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x9 &&& 0xff, 0xc &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x9 &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x9 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x9 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x9 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xa &&& 0xff, 0xb &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xa &&& 0xff, 0xc &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xa &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xa &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xa &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xa &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xb &&& 0xff, 0xc &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xb &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xb &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xb &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xb &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xc &&& 0xff, 0xd &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xc &&& 0xff, 0xe &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xc &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xc &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xc &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xc &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xd &&& 0xff, 0xe &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xd &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xd &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xd &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xd &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xe &&& 0xff, 0xf &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xe &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xe &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xe &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xe &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xf &&& 0xff, 0x10 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xf &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xf &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0xf &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x10 &&& 0xff, 0x11 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x10 &&& 0xff, 0x12 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x10 &&& 0xff, 0x14 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x10 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x10 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x10 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x10 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x11 &&& 0xff, 0x12 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x11 &&& 0xff, 0x14 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x11 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x11 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x11 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x11 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x12 &&& 0xff, 0x13 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x12 &&& 0xff, 0x14 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x12 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x12 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x12 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x12 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x13 &&& 0xff, 0x14 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x13 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x13 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x13 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x13 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x14 &&& 0xff, 0x15 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x14 &&& 0xff, 0x16 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x14 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x14 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x14 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x14 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x15 &&& 0xff, 0x16 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x15 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x15 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x15 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x15 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x16 &&& 0xff, 0x17 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x16 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x16 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x16 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x16 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x17 &&& 0xff, 0x18 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x17 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x17 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x17 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x18 &&& 0xff, 0x19 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x18 &&& 0xff, 0x1a &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x18 &&& 0xff, 0x1c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x18 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x18 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x18 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x19 &&& 0xff, 0x1a &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x19 &&& 0xff, 0x1c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x19 &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x19 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x19 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1a &&& 0xff, 0x1b &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1a &&& 0xff, 0x1c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1a &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1a &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1a &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1b &&& 0xff, 0x1c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1b &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1b &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1b &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1c &&& 0xff, 0x1d &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1c &&& 0xff, 0x1e &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1c &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1c &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1c &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1d &&& 0xff, 0x1e &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1d &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1d &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1d &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1e &&& 0xff, 0x1f &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1e &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1e &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1e &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1f &&& 0xff, 0x20 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1f &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x1f &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x20 &&& 0xff, 0x21 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x20 &&& 0xff, 0x22 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x20 &&& 0xff, 0x24 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x20 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x20 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x20 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x20 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x21 &&& 0xff, 0x22 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x21 &&& 0xff, 0x24 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x21 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x21 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x21 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x21 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x22 &&& 0xff, 0x23 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x22 &&& 0xff, 0x24 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x22 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x22 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x22 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x22 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x23 &&& 0xff, 0x24 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x23 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x23 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x23 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x23 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x24 &&& 0xff, 0x25 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x24 &&& 0xff, 0x26 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x24 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x24 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x24 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x24 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x25 &&& 0xff, 0x26 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x25 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x25 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x25 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x25 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x26 &&& 0xff, 0x27 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x26 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x26 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x26 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x26 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x27 &&& 0xff, 0x28 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x27 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x27 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x27 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x28 &&& 0xff, 0x29 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x28 &&& 0xff, 0x2a &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x28 &&& 0xff, 0x2c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x28 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x28 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x28 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x29 &&& 0xff, 0x2a &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x29 &&& 0xff, 0x2c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x29 &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x29 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x29 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2a &&& 0xff, 0x2b &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2a &&& 0xff, 0x2c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2a &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2a &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2a &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2b &&& 0xff, 0x2c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2b &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2b &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2b &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2c &&& 0xff, 0x2d &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2c &&& 0xff, 0x2e &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2c &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2c &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2c &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2d &&& 0xff, 0x2e &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2d &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2d &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2d &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2e &&& 0xff, 0x2f &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2e &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2e &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2e &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2f &&& 0xff, 0x30 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2f &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x2f &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x30 &&& 0xff, 0x31 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x30 &&& 0xff, 0x32 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x30 &&& 0xff, 0x34 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x30 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x30 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x30 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x31 &&& 0xff, 0x32 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x31 &&& 0xff, 0x34 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x31 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x31 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x31 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x32 &&& 0xff, 0x33 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x32 &&& 0xff, 0x34 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x32 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x32 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x32 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x33 &&& 0xff, 0x34 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x33 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x33 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x33 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x34 &&& 0xff, 0x35 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x34 &&& 0xff, 0x36 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x34 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x34 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x34 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x35 &&& 0xff, 0x36 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x35 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x35 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x35 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x36 &&& 0xff, 0x37 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x36 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x36 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x36 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x37 &&& 0xff, 0x38 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x37 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x37 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x38 &&& 0xff, 0x39 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x38 &&& 0xff, 0x3a &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x38 &&& 0xff, 0x3c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x38 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x38 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x39 &&& 0xff, 0x3a &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x39 &&& 0xff, 0x3c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x39 &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x39 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3a &&& 0xff, 0x3b &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3a &&& 0xff, 0x3c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3a &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3a &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3b &&& 0xff, 0x3c &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3b &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3b &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3c &&& 0xff, 0x3d &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3c &&& 0xff, 0x3e &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3c &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3c &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3d &&& 0xff, 0x3e &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3d &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3d &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3e &&& 0xff, 0x3f &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3e &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3e &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3f &&& 0xff, 0x40 &&& 0xc0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x3f &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x40 &&& 0xff, 0x41 &&& 0xff): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x40 &&& 0xff, 0x42 &&& 0xfe): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x40 &&& 0xff, 0x44 &&& 0xfc): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x40 &&& 0xff, 0x48 &&& 0xf8): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x40 &&& 0xff, 0x50 &&& 0xf0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x40 &&& 0xff, 0x60 &&& 0xe0): tna_hc_sliced_set(5);
            (0x0 &&& 0xff, _, _, 0x40 &&& 0xff, 0x80 &&& 0x80): tna_hc_sliced_set(5);
            (0x1 &&& 0x1, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x1 &&& 0x1, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x1 &&& 0x1, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x1 &&& 0x1, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x1 &&& 0x1, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x1 &&& 0x1, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x1 &&& 0x1, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x1 &&& 0x1, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x2 &&& 0x2, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x4 &&& 0x4, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x8 &&& 0x8, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x10 &&& 0x10, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x20 &&& 0x20, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x40 &&& 0x40, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x1 &&& 0x1): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x2 &&& 0x2): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x4 &&& 0x4): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x8 &&& 0x8): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x10 &&& 0x10): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x20 &&& 0x20): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x40 &&& 0x40): tna_hc_sliced_set(6);
            (0x80 &&& 0x80, _, _, _, 0x80 &&& 0x80): tna_hc_sliced_set(6);
            (0x2 &&& 0xff, 0x0 &&& 0x20, _, _, _): tna_hc_sliced_set(7);
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
            (0x6 &&& 0xe, _, _, _): tna_hc_transit_set(1);
            (0x8 &&& 0x8, _, _, _): tna_hc_transit_set(1);
            (_, 0x2 &&& 0x2, _, _): tna_hc_transit_set(2);
            (_, 0x4 &&& 0x4, _, _): tna_hc_transit_set(2);
            (_, 0x8 &&& 0x8, _, _): tna_hc_transit_set(2);
            (_, _, 0x4 &&& 0x4, _): tna_hc_transit_set(3);
            (_, _, 0x8 &&& 0x8, _): tna_hc_transit_set(3);
            (_, _, 0x10 &&& 0x10, _): tna_hc_transit_set(3);
            (_, _, 0x20 &&& 0x20, _): tna_hc_transit_set(3);
            (_, _, 0x40 &&& 0x40, _): tna_hc_transit_set(3);
            (_, _, 0x80 &&& 0x80, _): tna_hc_transit_set(3);
            (0x1 &&& 0x1, _, _, _): tna_hc_transit_set(4);
            (0x2 &&& 0x2, _, _, _): tna_hc_transit_set(4);
            (0x4 &&& 0x4, _, _, _): tna_hc_transit_set(4);
            (0x8 &&& 0x8, _, _, _): tna_hc_transit_set(4);
            (_, _, _, 0x8 &&& 0x1f8): tna_hc_transit_set(5);
            (_, _, _, 0x10 &&& 0x1f0): tna_hc_transit_set(5);
            (_, _, _, 0x20 &&& 0x1e0): tna_hc_transit_set(5);
            (_, _, _, 0x40 &&& 0x1c0): tna_hc_transit_set(5);
            (_, _, _, 0x80 &&& 0x180): tna_hc_transit_set(5);
            (_, _, _, 0x100 &&& 0x100): tna_hc_transit_set(5);
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
            (0x1 &&& 0x1, _, _): tna_hc_pathid_set(1);
            (0x2 &&& 0x2, _, _): tna_hc_pathid_set(1);
            (0x4 &&& 0x4, _, _): tna_hc_pathid_set(1);
            (0x8 &&& 0x8, _, _): tna_hc_pathid_set(1);
            (0x10 &&& 0x10, _, _): tna_hc_pathid_set(1);
            (0x20 &&& 0x20, _, _): tna_hc_pathid_set(1);
            (_, 0x1 &&& 0x1, _): tna_hc_pathid_set(2);
            (_, 0x2 &&& 0x2, _): tna_hc_pathid_set(2);
            (_, 0x4 &&& 0x4, _): tna_hc_pathid_set(2);
            (_, 0x8 &&& 0x8, _): tna_hc_pathid_set(2);
            (_, 0x10 &&& 0x10, _): tna_hc_pathid_set(2);
            (_, 0x20 &&& 0x20, _): tna_hc_pathid_set(2);
            (_, 0x40 &&& 0x40, _): tna_hc_pathid_set(2);
            (_, 0x80 &&& 0x80, _): tna_hc_pathid_set(2);
            (_, 0x100 &&& 0x100, _): tna_hc_pathid_set(2);
            (_, 0x200 &&& 0x200, _): tna_hc_pathid_set(2);
            (_, 0x400 &&& 0x400, _): tna_hc_pathid_set(2);
            (_, 0x800 &&& 0x800, _): tna_hc_pathid_set(2);
            (_, 0x1000 &&& 0x1000, _): tna_hc_pathid_set(2);
            (_, 0x2000 &&& 0x2000, _): tna_hc_pathid_set(2);
            (_, 0x4000 &&& 0x4000, _): tna_hc_pathid_set(2);
            (_, 0x8000 &&& 0x8000, _): tna_hc_pathid_set(2);
            (_, _, 0x41 &&& 0xff): tna_hc_pathid_set(3);
            (_, _, 0x42 &&& 0xfe): tna_hc_pathid_set(3);
            (_, _, 0x44 &&& 0xfc): tna_hc_pathid_set(3);
            (_, _, 0x48 &&& 0xf8): tna_hc_pathid_set(3);
            (_, _, 0x50 &&& 0xf0): tna_hc_pathid_set(3);
            (_, _, 0x60 &&& 0xe0): tna_hc_pathid_set(3);
            (_, _, 0x80 &&& 0x80): tna_hc_pathid_set(3);
            (0x40 &&& 0x40, _, 0x1 &&& 0x1): tna_hc_pathid_set(4);
            (0x40 &&& 0x40, _, 0x2 &&& 0x2): tna_hc_pathid_set(4);
            (0x40 &&& 0x40, _, 0x4 &&& 0x4): tna_hc_pathid_set(4);
            (0x40 &&& 0x40, _, 0x8 &&& 0x8): tna_hc_pathid_set(4);
            (0x40 &&& 0x40, _, 0x10 &&& 0x10): tna_hc_pathid_set(4);
            (0x40 &&& 0x40, _, 0x20 &&& 0x20): tna_hc_pathid_set(4);
            (0x40 &&& 0x40, _, 0x40 &&& 0x40): tna_hc_pathid_set(4);
            (0x40 &&& 0x40, _, 0x80 &&& 0x80): tna_hc_pathid_set(4);
            (0x0 &&& 0x40, _, 0x0 &&& 0xff): tna_hc_pathid_set(5);
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
            meta.hc_prefix: ternary;
            meta.hc_sliced: ternary;
            meta.hc_transit: ternary;
            meta.hc_pathid: ternary;
        }
        actions = { tna_drop; NoAction; }
        default_action = NoAction();
        const entries = {
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 2, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 3, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 4, _, _, _): tna_drop((bit<8>)DROP_TOO_MANY_VLAN_TAGS);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 5, _, _, _): tna_drop((bit<8>)DROP_NOT_CANOPY);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 6, _, _, _): tna_drop((bit<8>)DROP_BAD_VERSION);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 7, _, _, _): tna_drop((bit<8>)DROP_UNKNOWN_KIND);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 8, _, _, _): tna_drop((bit<8>)DROP_UNKNOWN_KIND);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 9, _, _, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_INGRESS_PORT);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 10, _, _, _): tna_drop((bit<8>)DROP_TTL_EXPIRED);
            (_, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_KIND_NOT_CONFIGURED);
            (_, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 2, _, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 3, _, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 4, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 5, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 6, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 7, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_MODE_MISMATCH);
            (_, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_SLICE_EXHAUSTED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_SLICE_EXHAUSTED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_SIDE_LABEL);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_SLICE_EXHAUSTED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_SLICE_LEFTOVER);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_SIDE_LABEL);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_SIDE_LABEL);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_LABEL);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_UP_AT_TOP);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_KIND_NOT_CONFIGURED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 2, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 3, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 4, _): tna_drop((bit<8>)DROP_MODE_MISMATCH);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 5, _): tna_drop((bit<8>)DROP_BAD_INGRESS_PORT);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_ROUTE_EXHAUSTED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_NO_OUTPUT);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_KIND_NOT_CONFIGURED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_TRUNCATED);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 2): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 3): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 4): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 5): tna_drop((bit<8>)DROP_BAD_FIELD_VALUE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_RESERVED_BITS_SET);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_INGRESS_PORT);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_LABEL);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _, _): tna_drop((bit<8>)DROP_NO_ROUTE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _, _): tna_drop((bit<8>)DROP_BAD_PHASE);
            (_, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, 1, _, _, _, _): tna_drop((bit<8>)DROP_NO_PORT);
        }
        size = 72;
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
        meta.fl.f44 = 1;
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
     * it): canopyctl p4-entries --program tna computes both from SlicedTable's zone */
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
            0: tna_set_hl(0);
            1: tna_set_hl(8);
            2: tna_set_hl(16);
            3: tna_set_hl(24);
            4: tna_set_hl(32);
            5: tna_set_hl(40);
            6: tna_set_hl(48);
            7: tna_set_hl(56);
            8: tna_set_hl(64);
            9: tna_set_hl(72);
            10: tna_set_hl(80);
            11: tna_set_hl(88);
            12: tna_set_hl(96);
            13: tna_set_hl(104);
            14: tna_set_hl(112);
            15: tna_set_hl(120);
            16: tna_set_hl(128);
            17: tna_set_hl(136);
            18: tna_set_hl(144);
            19: tna_set_hl(152);
            20: tna_set_hl(160);
            21: tna_set_hl(168);
            22: tna_set_hl(176);
            23: tna_set_hl(184);
            24: tna_set_hl(192);
            25: tna_set_hl(200);
            26: tna_set_hl(208);
            27: tna_set_hl(216);
            28: tna_set_hl(224);
            29: tna_set_hl(232);
            30: tna_set_hl(240);
            31: tna_set_hl(248);
            32: tna_set_hl(256);
            33: tna_set_hl(264);
            34: tna_set_hl(272);
            35: tna_set_hl(280);
            36: tna_set_hl(288);
            37: tna_set_hl(296);
            38: tna_set_hl(304);
            39: tna_set_hl(312);
            40: tna_set_hl(320);
            41: tna_set_hl(328);
            42: tna_set_hl(336);
            43: tna_set_hl(344);
            44: tna_set_hl(352);
            45: tna_set_hl(360);
            46: tna_set_hl(368);
            47: tna_set_hl(376);
            48: tna_set_hl(384);
            49: tna_set_hl(392);
            50: tna_set_hl(400);
            51: tna_set_hl(408);
            52: tna_set_hl(416);
            53: tna_set_hl(424);
            54: tna_set_hl(432);
            55: tna_set_hl(440);
            56: tna_set_hl(448);
            57: tna_set_hl(456);
            58: tna_set_hl(464);
            59: tna_set_hl(472);
            60: tna_set_hl(480);
            61: tna_set_hl(488);
            62: tna_set_hl(496);
            63: tna_set_hl(504);
            64: tna_set_hl(512);
            65: tna_set_hl(520);
            66: tna_set_hl(528);
            67: tna_set_hl(536);
            68: tna_set_hl(544);
            69: tna_set_hl(552);
            70: tna_set_hl(560);
            71: tna_set_hl(568);
            72: tna_set_hl(576);
            73: tna_set_hl(584);
            74: tna_set_hl(592);
            75: tna_set_hl(600);
            76: tna_set_hl(608);
            77: tna_set_hl(616);
            78: tna_set_hl(624);
            79: tna_set_hl(632);
            80: tna_set_hl(640);
            81: tna_set_hl(648);
            82: tna_set_hl(656);
            83: tna_set_hl(664);
            84: tna_set_hl(672);
            85: tna_set_hl(680);
            86: tna_set_hl(688);
            87: tna_set_hl(696);
            88: tna_set_hl(704);
            89: tna_set_hl(712);
            90: tna_set_hl(720);
            91: tna_set_hl(728);
            92: tna_set_hl(736);
            93: tna_set_hl(744);
            94: tna_set_hl(752);
            95: tna_set_hl(760);
            96: tna_set_hl(768);
            97: tna_set_hl(776);
            98: tna_set_hl(784);
            99: tna_set_hl(792);
            100: tna_set_hl(800);
            101: tna_set_hl(808);
            102: tna_set_hl(816);
            103: tna_set_hl(824);
            104: tna_set_hl(832);
            105: tna_set_hl(840);
            106: tna_set_hl(848);
            107: tna_set_hl(856);
            108: tna_set_hl(864);
            109: tna_set_hl(872);
            110: tna_set_hl(880);
            111: tna_set_hl(888);
            112: tna_set_hl(896);
            113: tna_set_hl(904);
            114: tna_set_hl(912);
            115: tna_set_hl(920);
            116: tna_set_hl(928);
            117: tna_set_hl(936);
            118: tna_set_hl(944);
            119: tna_set_hl(952);
            120: tna_set_hl(960);
            121: tna_set_hl(968);
            122: tna_set_hl(976);
            123: tna_set_hl(984);
            124: tna_set_hl(992);
            125: tna_set_hl(1000);
            126: tna_set_hl(1008);
            127: tna_set_hl(1016);
            128: tna_set_hl(1024);
            129: tna_set_hl(1032);
            130: tna_set_hl(1040);
            131: tna_set_hl(1048);
            132: tna_set_hl(1056);
            133: tna_set_hl(1064);
            134: tna_set_hl(1072);
            135: tna_set_hl(1080);
            136: tna_set_hl(1088);
            137: tna_set_hl(1096);
            138: tna_set_hl(1104);
            139: tna_set_hl(1112);
            140: tna_set_hl(1120);
            141: tna_set_hl(1128);
            142: tna_set_hl(1136);
            143: tna_set_hl(1144);
            144: tna_set_hl(1152);
            145: tna_set_hl(1160);
            146: tna_set_hl(1168);
            147: tna_set_hl(1176);
            148: tna_set_hl(1184);
            149: tna_set_hl(1192);
            150: tna_set_hl(1200);
            151: tna_set_hl(1208);
            152: tna_set_hl(1216);
            153: tna_set_hl(1224);
            154: tna_set_hl(1232);
            155: tna_set_hl(1240);
            156: tna_set_hl(1248);
            157: tna_set_hl(1256);
            158: tna_set_hl(1264);
            159: tna_set_hl(1272);
            160: tna_set_hl(1280);
            161: tna_set_hl(1288);
            162: tna_set_hl(1296);
            163: tna_set_hl(1304);
            164: tna_set_hl(1312);
            165: tna_set_hl(1320);
            166: tna_set_hl(1328);
            167: tna_set_hl(1336);
            168: tna_set_hl(1344);
            169: tna_set_hl(1352);
            170: tna_set_hl(1360);
            171: tna_set_hl(1368);
            172: tna_set_hl(1376);
            173: tna_set_hl(1384);
            174: tna_set_hl(1392);
            175: tna_set_hl(1400);
            176: tna_set_hl(1408);
            177: tna_set_hl(1416);
            178: tna_set_hl(1424);
            179: tna_set_hl(1432);
            180: tna_set_hl(1440);
            181: tna_set_hl(1448);
            182: tna_set_hl(1456);
            183: tna_set_hl(1464);
            184: tna_set_hl(1472);
            185: tna_set_hl(1480);
            186: tna_set_hl(1488);
            187: tna_set_hl(1496);
            188: tna_set_hl(1504);
            189: tna_set_hl(1512);
            190: tna_set_hl(1520);
            191: tna_set_hl(1528);
            192: tna_set_hl(1536);
            193: tna_set_hl(1544);
            194: tna_set_hl(1552);
            195: tna_set_hl(1560);
            196: tna_set_hl(1568);
            197: tna_set_hl(1576);
            198: tna_set_hl(1584);
            199: tna_set_hl(1592);
            200: tna_set_hl(1600);
            201: tna_set_hl(1608);
            202: tna_set_hl(1616);
            203: tna_set_hl(1624);
            204: tna_set_hl(1632);
            205: tna_set_hl(1640);
            206: tna_set_hl(1648);
            207: tna_set_hl(1656);
            208: tna_set_hl(1664);
            209: tna_set_hl(1672);
            210: tna_set_hl(1680);
            211: tna_set_hl(1688);
            212: tna_set_hl(1696);
            213: tna_set_hl(1704);
            214: tna_set_hl(1712);
            215: tna_set_hl(1720);
            216: tna_set_hl(1728);
            217: tna_set_hl(1736);
            218: tna_set_hl(1744);
            219: tna_set_hl(1752);
            220: tna_set_hl(1760);
            221: tna_set_hl(1768);
            222: tna_set_hl(1776);
            223: tna_set_hl(1784);
            224: tna_set_hl(1792);
            225: tna_set_hl(1800);
            226: tna_set_hl(1808);
            227: tna_set_hl(1816);
            228: tna_set_hl(1824);
            229: tna_set_hl(1832);
            230: tna_set_hl(1840);
            231: tna_set_hl(1848);
            232: tna_set_hl(1856);
            233: tna_set_hl(1864);
            234: tna_set_hl(1872);
            235: tna_set_hl(1880);
            236: tna_set_hl(1888);
            237: tna_set_hl(1896);
            238: tna_set_hl(1904);
            239: tna_set_hl(1912);
            240: tna_set_hl(1920);
            241: tna_set_hl(1928);
            242: tna_set_hl(1936);
            243: tna_set_hl(1944);
            244: tna_set_hl(1952);
            245: tna_set_hl(1960);
            246: tna_set_hl(1968);
            247: tna_set_hl(1976);
            248: tna_set_hl(1984);
            249: tna_set_hl(1992);
            250: tna_set_hl(2000);
            251: tna_set_hl(2008);
            252: tna_set_hl(2016);
            253: tna_set_hl(2024);
            254: tna_set_hl(2032);
            255: tna_set_hl(2040);
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
            0: tna_set_port_drop(0);
            1: tna_set_port_drop(32);
            2: tna_set_port_drop(64);
            3: tna_set_port_drop(96);
            4: tna_set_port_drop(128);
            5: tna_set_port_drop(160);
            6: tna_set_port_drop(192);
            7: tna_set_port_drop(224);
            8: tna_set_port_drop(256);
            9: tna_set_port_drop(288);
            10: tna_set_port_drop(320);
            11: tna_set_port_drop(352);
            12: tna_set_port_drop(384);
            13: tna_set_port_drop(416);
            14: tna_set_port_drop(448);
            15: tna_set_port_drop(480);
            16: tna_set_port_drop(512);
            17: tna_set_port_drop(544);
            18: tna_set_port_drop(576);
            19: tna_set_port_drop(608);
            20: tna_set_port_drop(640);
            21: tna_set_port_drop(672);
            22: tna_set_port_drop(704);
            23: tna_set_port_drop(736);
            24: tna_set_port_drop(768);
            25: tna_set_port_drop(800);
            26: tna_set_port_drop(832);
            27: tna_set_port_drop(864);
            28: tna_set_port_drop(896);
            29: tna_set_port_drop(928);
            30: tna_set_port_drop(960);
            31: tna_set_port_drop(992);
            32: tna_set_port_drop(1024);
            33: tna_set_port_drop(1056);
            34: tna_set_port_drop(1088);
            35: tna_set_port_drop(1120);
            36: tna_set_port_drop(1152);
            37: tna_set_port_drop(1184);
            38: tna_set_port_drop(1216);
            39: tna_set_port_drop(1248);
            40: tna_set_port_drop(1280);
            41: tna_set_port_drop(1312);
            42: tna_set_port_drop(1344);
            43: tna_set_port_drop(1376);
            44: tna_set_port_drop(1408);
            45: tna_set_port_drop(1440);
            46: tna_set_port_drop(1472);
            47: tna_set_port_drop(1504);
            48: tna_set_port_drop(1536);
            49: tna_set_port_drop(1568);
            50: tna_set_port_drop(1600);
            51: tna_set_port_drop(1632);
            52: tna_set_port_drop(1664);
            53: tna_set_port_drop(1696);
            54: tna_set_port_drop(1728);
            55: tna_set_port_drop(1760);
            56: tna_set_port_drop(1792);
            57: tna_set_port_drop(1824);
            58: tna_set_port_drop(1856);
            59: tna_set_port_drop(1888);
            60: tna_set_port_drop(1920);
            61: tna_set_port_drop(1952);
            62: tna_set_port_drop(1984);
            63: tna_set_port_drop(2016);
            64: tna_set_port_drop(2048);
            65: tna_set_port_drop(2080);
            66: tna_set_port_drop(2112);
            67: tna_set_port_drop(2144);
            68: tna_set_port_drop(2176);
            69: tna_set_port_drop(2208);
            70: tna_set_port_drop(2240);
            71: tna_set_port_drop(2272);
            72: tna_set_port_drop(2304);
            73: tna_set_port_drop(2336);
            74: tna_set_port_drop(2368);
            75: tna_set_port_drop(2400);
            76: tna_set_port_drop(2432);
            77: tna_set_port_drop(2464);
            78: tna_set_port_drop(2496);
            79: tna_set_port_drop(2528);
            80: tna_set_port_drop(2560);
            81: tna_set_port_drop(2592);
            82: tna_set_port_drop(2624);
            83: tna_set_port_drop(2656);
            84: tna_set_port_drop(2688);
            85: tna_set_port_drop(2720);
            86: tna_set_port_drop(2752);
            87: tna_set_port_drop(2784);
            88: tna_set_port_drop(2816);
            89: tna_set_port_drop(2848);
            90: tna_set_port_drop(2880);
            91: tna_set_port_drop(2912);
            92: tna_set_port_drop(2944);
            93: tna_set_port_drop(2976);
            94: tna_set_port_drop(3008);
            95: tna_set_port_drop(3040);
            96: tna_set_port_drop(3072);
            97: tna_set_port_drop(3104);
            98: tna_set_port_drop(3136);
            99: tna_set_port_drop(3168);
            100: tna_set_port_drop(3200);
            101: tna_set_port_drop(3232);
            102: tna_set_port_drop(3264);
            103: tna_set_port_drop(3296);
            104: tna_set_port_drop(3328);
            105: tna_set_port_drop(3360);
            106: tna_set_port_drop(3392);
            107: tna_set_port_drop(3424);
            108: tna_set_port_drop(3456);
            109: tna_set_port_drop(3488);
            110: tna_set_port_drop(3520);
            111: tna_set_port_drop(3552);
            112: tna_set_port_drop(3584);
            113: tna_set_port_drop(3616);
            114: tna_set_port_drop(3648);
            115: tna_set_port_drop(3680);
            116: tna_set_port_drop(3712);
            117: tna_set_port_drop(3744);
            118: tna_set_port_drop(3776);
            119: tna_set_port_drop(3808);
            120: tna_set_port_drop(3840);
            121: tna_set_port_drop(3872);
            122: tna_set_port_drop(3904);
            123: tna_set_port_drop(3936);
            124: tna_set_port_drop(3968);
            125: tna_set_port_drop(4000);
            126: tna_set_port_drop(4032);
            127: tna_set_port_drop(4064);
            128: tna_set_port_drop(4096);
            129: tna_set_port_drop(4128);
            130: tna_set_port_drop(4160);
            131: tna_set_port_drop(4192);
            132: tna_set_port_drop(4224);
            133: tna_set_port_drop(4256);
            134: tna_set_port_drop(4288);
            135: tna_set_port_drop(4320);
            136: tna_set_port_drop(4352);
            137: tna_set_port_drop(4384);
            138: tna_set_port_drop(4416);
            139: tna_set_port_drop(4448);
            140: tna_set_port_drop(4480);
            141: tna_set_port_drop(4512);
            142: tna_set_port_drop(4544);
            143: tna_set_port_drop(4576);
            144: tna_set_port_drop(4608);
            145: tna_set_port_drop(4640);
            146: tna_set_port_drop(4672);
            147: tna_set_port_drop(4704);
            148: tna_set_port_drop(4736);
            149: tna_set_port_drop(4768);
            150: tna_set_port_drop(4800);
            151: tna_set_port_drop(4832);
            152: tna_set_port_drop(4864);
            153: tna_set_port_drop(4896);
            154: tna_set_port_drop(4928);
            155: tna_set_port_drop(4960);
            156: tna_set_port_drop(4992);
            157: tna_set_port_drop(5024);
            158: tna_set_port_drop(5056);
            159: tna_set_port_drop(5088);
            160: tna_set_port_drop(5120);
            161: tna_set_port_drop(5152);
            162: tna_set_port_drop(5184);
            163: tna_set_port_drop(5216);
            164: tna_set_port_drop(5248);
            165: tna_set_port_drop(5280);
            166: tna_set_port_drop(5312);
            167: tna_set_port_drop(5344);
            168: tna_set_port_drop(5376);
            169: tna_set_port_drop(5408);
            170: tna_set_port_drop(5440);
            171: tna_set_port_drop(5472);
            172: tna_set_port_drop(5504);
            173: tna_set_port_drop(5536);
            174: tna_set_port_drop(5568);
            175: tna_set_port_drop(5600);
            176: tna_set_port_drop(5632);
            177: tna_set_port_drop(5664);
            178: tna_set_port_drop(5696);
            179: tna_set_port_drop(5728);
            180: tna_set_port_drop(5760);
            181: tna_set_port_drop(5792);
            182: tna_set_port_drop(5824);
            183: tna_set_port_drop(5856);
            184: tna_set_port_drop(5888);
            185: tna_set_port_drop(5920);
            186: tna_set_port_drop(5952);
            187: tna_set_port_drop(5984);
            188: tna_set_port_drop(6016);
            189: tna_set_port_drop(6048);
            190: tna_set_port_drop(6080);
            191: tna_set_port_drop(6112);
            192: tna_set_port_drop(6144);
            193: tna_set_port_drop(6176);
            194: tna_set_port_drop(6208);
            195: tna_set_port_drop(6240);
            196: tna_set_port_drop(6272);
            197: tna_set_port_drop(6304);
            198: tna_set_port_drop(6336);
            199: tna_set_port_drop(6368);
            200: tna_set_port_drop(6400);
            201: tna_set_port_drop(6432);
            202: tna_set_port_drop(6464);
            203: tna_set_port_drop(6496);
            204: tna_set_port_drop(6528);
            205: tna_set_port_drop(6560);
            206: tna_set_port_drop(6592);
            207: tna_set_port_drop(6624);
            208: tna_set_port_drop(6656);
            209: tna_set_port_drop(6688);
            210: tna_set_port_drop(6720);
            211: tna_set_port_drop(6752);
            212: tna_set_port_drop(6784);
            213: tna_set_port_drop(6816);
            214: tna_set_port_drop(6848);
            215: tna_set_port_drop(6880);
            216: tna_set_port_drop(6912);
            217: tna_set_port_drop(6944);
            218: tna_set_port_drop(6976);
            219: tna_set_port_drop(7008);
            220: tna_set_port_drop(7040);
            221: tna_set_port_drop(7072);
            222: tna_set_port_drop(7104);
            223: tna_set_port_drop(7136);
            224: tna_set_port_drop(7168);
            225: tna_set_port_drop(7200);
            226: tna_set_port_drop(7232);
            227: tna_set_port_drop(7264);
            228: tna_set_port_drop(7296);
            229: tna_set_port_drop(7328);
            230: tna_set_port_drop(7360);
            231: tna_set_port_drop(7392);
            232: tna_set_port_drop(7424);
            233: tna_set_port_drop(7456);
            234: tna_set_port_drop(7488);
            235: tna_set_port_drop(7520);
            236: tna_set_port_drop(7552);
            237: tna_set_port_drop(7584);
            238: tna_set_port_drop(7616);
            239: tna_set_port_drop(7648);
            240: tna_set_port_drop(7680);
            241: tna_set_port_drop(7712);
            242: tna_set_port_drop(7744);
            243: tna_set_port_drop(7776);
            244: tna_set_port_drop(7808);
            245: tna_set_port_drop(7840);
            246: tna_set_port_drop(7872);
            247: tna_set_port_drop(7904);
            248: tna_set_port_drop(7936);
            249: tna_set_port_drop(7968);
            250: tna_set_port_drop(8000);
            251: tna_set_port_drop(8032);
            252: tna_set_port_drop(8064);
            253: tna_set_port_drop(8096);
            254: tna_set_port_drop(8128);
            255: tna_set_port_drop(8160);
            256: tna_set_port_drop(8192);
            257: tna_set_port_drop(8224);
            258: tna_set_port_drop(8256);
            259: tna_set_port_drop(8288);
            260: tna_set_port_drop(8320);
            261: tna_set_port_drop(8352);
            262: tna_set_port_drop(8384);
            263: tna_set_port_drop(8416);
            264: tna_set_port_drop(8448);
            265: tna_set_port_drop(8480);
            266: tna_set_port_drop(8512);
            267: tna_set_port_drop(8544);
            268: tna_set_port_drop(8576);
            269: tna_set_port_drop(8608);
            270: tna_set_port_drop(8640);
            271: tna_set_port_drop(8672);
            272: tna_set_port_drop(8704);
            273: tna_set_port_drop(8736);
            274: tna_set_port_drop(8768);
            275: tna_set_port_drop(8800);
            276: tna_set_port_drop(8832);
            277: tna_set_port_drop(8864);
            278: tna_set_port_drop(8896);
            279: tna_set_port_drop(8928);
            280: tna_set_port_drop(8960);
            281: tna_set_port_drop(8992);
            282: tna_set_port_drop(9024);
            283: tna_set_port_drop(9056);
            284: tna_set_port_drop(9088);
            285: tna_set_port_drop(9120);
            286: tna_set_port_drop(9152);
            287: tna_set_port_drop(9184);
            288: tna_set_port_drop(9216);
            289: tna_set_port_drop(9248);
            290: tna_set_port_drop(9280);
            291: tna_set_port_drop(9312);
            292: tna_set_port_drop(9344);
            293: tna_set_port_drop(9376);
            294: tna_set_port_drop(9408);
            295: tna_set_port_drop(9440);
            296: tna_set_port_drop(9472);
            297: tna_set_port_drop(9504);
            298: tna_set_port_drop(9536);
            299: tna_set_port_drop(9568);
            300: tna_set_port_drop(9600);
            301: tna_set_port_drop(9632);
            302: tna_set_port_drop(9664);
            303: tna_set_port_drop(9696);
            304: tna_set_port_drop(9728);
            305: tna_set_port_drop(9760);
            306: tna_set_port_drop(9792);
            307: tna_set_port_drop(9824);
            308: tna_set_port_drop(9856);
            309: tna_set_port_drop(9888);
            310: tna_set_port_drop(9920);
            311: tna_set_port_drop(9952);
            312: tna_set_port_drop(9984);
            313: tna_set_port_drop(10016);
            314: tna_set_port_drop(10048);
            315: tna_set_port_drop(10080);
            316: tna_set_port_drop(10112);
            317: tna_set_port_drop(10144);
            318: tna_set_port_drop(10176);
            319: tna_set_port_drop(10208);
            320: tna_set_port_drop(10240);
            321: tna_set_port_drop(10272);
            322: tna_set_port_drop(10304);
            323: tna_set_port_drop(10336);
            324: tna_set_port_drop(10368);
            325: tna_set_port_drop(10400);
            326: tna_set_port_drop(10432);
            327: tna_set_port_drop(10464);
            328: tna_set_port_drop(10496);
            329: tna_set_port_drop(10528);
            330: tna_set_port_drop(10560);
            331: tna_set_port_drop(10592);
            332: tna_set_port_drop(10624);
            333: tna_set_port_drop(10656);
            334: tna_set_port_drop(10688);
            335: tna_set_port_drop(10720);
            336: tna_set_port_drop(10752);
            337: tna_set_port_drop(10784);
            338: tna_set_port_drop(10816);
            339: tna_set_port_drop(10848);
            340: tna_set_port_drop(10880);
            341: tna_set_port_drop(10912);
            342: tna_set_port_drop(10944);
            343: tna_set_port_drop(10976);
            344: tna_set_port_drop(11008);
            345: tna_set_port_drop(11040);
            346: tna_set_port_drop(11072);
            347: tna_set_port_drop(11104);
            348: tna_set_port_drop(11136);
            349: tna_set_port_drop(11168);
            350: tna_set_port_drop(11200);
            351: tna_set_port_drop(11232);
            352: tna_set_port_drop(11264);
            353: tna_set_port_drop(11296);
            354: tna_set_port_drop(11328);
            355: tna_set_port_drop(11360);
            356: tna_set_port_drop(11392);
            357: tna_set_port_drop(11424);
            358: tna_set_port_drop(11456);
            359: tna_set_port_drop(11488);
            360: tna_set_port_drop(11520);
            361: tna_set_port_drop(11552);
            362: tna_set_port_drop(11584);
            363: tna_set_port_drop(11616);
            364: tna_set_port_drop(11648);
            365: tna_set_port_drop(11680);
            366: tna_set_port_drop(11712);
            367: tna_set_port_drop(11744);
            368: tna_set_port_drop(11776);
            369: tna_set_port_drop(11808);
            370: tna_set_port_drop(11840);
            371: tna_set_port_drop(11872);
            372: tna_set_port_drop(11904);
            373: tna_set_port_drop(11936);
            374: tna_set_port_drop(11968);
            375: tna_set_port_drop(12000);
            376: tna_set_port_drop(12032);
            377: tna_set_port_drop(12064);
            378: tna_set_port_drop(12096);
            379: tna_set_port_drop(12128);
            380: tna_set_port_drop(12160);
            381: tna_set_port_drop(12192);
            382: tna_set_port_drop(12224);
            383: tna_set_port_drop(12256);
            384: tna_set_port_drop(12288);
            385: tna_set_port_drop(12320);
            386: tna_set_port_drop(12352);
            387: tna_set_port_drop(12384);
            388: tna_set_port_drop(12416);
            389: tna_set_port_drop(12448);
            390: tna_set_port_drop(12480);
            391: tna_set_port_drop(12512);
            392: tna_set_port_drop(12544);
            393: tna_set_port_drop(12576);
            394: tna_set_port_drop(12608);
            395: tna_set_port_drop(12640);
            396: tna_set_port_drop(12672);
            397: tna_set_port_drop(12704);
            398: tna_set_port_drop(12736);
            399: tna_set_port_drop(12768);
            400: tna_set_port_drop(12800);
            401: tna_set_port_drop(12832);
            402: tna_set_port_drop(12864);
            403: tna_set_port_drop(12896);
            404: tna_set_port_drop(12928);
            405: tna_set_port_drop(12960);
            406: tna_set_port_drop(12992);
            407: tna_set_port_drop(13024);
            408: tna_set_port_drop(13056);
            409: tna_set_port_drop(13088);
            410: tna_set_port_drop(13120);
            411: tna_set_port_drop(13152);
            412: tna_set_port_drop(13184);
            413: tna_set_port_drop(13216);
            414: tna_set_port_drop(13248);
            415: tna_set_port_drop(13280);
            416: tna_set_port_drop(13312);
            417: tna_set_port_drop(13344);
            418: tna_set_port_drop(13376);
            419: tna_set_port_drop(13408);
            420: tna_set_port_drop(13440);
            421: tna_set_port_drop(13472);
            422: tna_set_port_drop(13504);
            423: tna_set_port_drop(13536);
            424: tna_set_port_drop(13568);
            425: tna_set_port_drop(13600);
            426: tna_set_port_drop(13632);
            427: tna_set_port_drop(13664);
            428: tna_set_port_drop(13696);
            429: tna_set_port_drop(13728);
            430: tna_set_port_drop(13760);
            431: tna_set_port_drop(13792);
            432: tna_set_port_drop(13824);
            433: tna_set_port_drop(13856);
            434: tna_set_port_drop(13888);
            435: tna_set_port_drop(13920);
            436: tna_set_port_drop(13952);
            437: tna_set_port_drop(13984);
            438: tna_set_port_drop(14016);
            439: tna_set_port_drop(14048);
            440: tna_set_port_drop(14080);
            441: tna_set_port_drop(14112);
            442: tna_set_port_drop(14144);
            443: tna_set_port_drop(14176);
            444: tna_set_port_drop(14208);
            445: tna_set_port_drop(14240);
            446: tna_set_port_drop(14272);
            447: tna_set_port_drop(14304);
            448: tna_set_port_drop(14336);
            449: tna_set_port_drop(14368);
            450: tna_set_port_drop(14400);
            451: tna_set_port_drop(14432);
            452: tna_set_port_drop(14464);
            453: tna_set_port_drop(14496);
            454: tna_set_port_drop(14528);
            455: tna_set_port_drop(14560);
            456: tna_set_port_drop(14592);
            457: tna_set_port_drop(14624);
            458: tna_set_port_drop(14656);
            459: tna_set_port_drop(14688);
            460: tna_set_port_drop(14720);
            461: tna_set_port_drop(14752);
            462: tna_set_port_drop(14784);
            463: tna_set_port_drop(14816);
            464: tna_set_port_drop(14848);
            465: tna_set_port_drop(14880);
            466: tna_set_port_drop(14912);
            467: tna_set_port_drop(14944);
            468: tna_set_port_drop(14976);
            469: tna_set_port_drop(15008);
            470: tna_set_port_drop(15040);
            471: tna_set_port_drop(15072);
            472: tna_set_port_drop(15104);
            473: tna_set_port_drop(15136);
            474: tna_set_port_drop(15168);
            475: tna_set_port_drop(15200);
            476: tna_set_port_drop(15232);
            477: tna_set_port_drop(15264);
            478: tna_set_port_drop(15296);
            479: tna_set_port_drop(15328);
            480: tna_set_port_drop(15360);
            481: tna_set_port_drop(15392);
            482: tna_set_port_drop(15424);
            483: tna_set_port_drop(15456);
            484: tna_set_port_drop(15488);
            485: tna_set_port_drop(15520);
            486: tna_set_port_drop(15552);
            487: tna_set_port_drop(15584);
            488: tna_set_port_drop(15616);
            489: tna_set_port_drop(15648);
            490: tna_set_port_drop(15680);
            491: tna_set_port_drop(15712);
            492: tna_set_port_drop(15744);
            493: tna_set_port_drop(15776);
            494: tna_set_port_drop(15808);
            495: tna_set_port_drop(15840);
            496: tna_set_port_drop(15872);
            497: tna_set_port_drop(15904);
            498: tna_set_port_drop(15936);
            499: tna_set_port_drop(15968);
            500: tna_set_port_drop(16000);
            501: tna_set_port_drop(16032);
            502: tna_set_port_drop(16064);
            503: tna_set_port_drop(16096);
            504: tna_set_port_drop(16128);
            505: tna_set_port_drop(16160);
            506: tna_set_port_drop(16192);
            507: tna_set_port_drop(16224);
            508: tna_set_port_drop(16256);
            509: tna_set_port_drop(16288);
            510: tna_set_port_drop(16320);
            511: tna_set_port_drop(16352);
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
            (0, 0): tna_set_rot(0);
            (0, 1): tna_set_rot(1);
            (0, 2): tna_set_rot(2);
            (0, 3): tna_set_rot(3);
            (1, 0): tna_set_rot(1);
            (1, 1): tna_set_rot(2);
            (1, 2): tna_set_rot(3);
            (1, 3): tna_set_rot(0);
            (2, 0): tna_set_rot(2);
            (2, 1): tna_set_rot(3);
            (2, 2): tna_set_rot(0);
            (2, 3): tna_set_rot(1);
            (3, 0): tna_set_rot(3);
            (3, 1): tna_set_rot(0);
            (3, 2): tna_set_rot(1);
            (3, 3): tna_set_rot(2);
        }
        size = 16;
    }
    /* Transit: 8 + RouteLen rounded up to whole 64-bit words, in bytes */
    action tna_set_route_total(bit<16> total) { tna_total = total; }
    table tna_route_total {
        key = { hdr.transit.route_len: exact; }
        actions = { tna_set_route_total; }
        const entries = {
            0: tna_set_route_total(8);
            1: tna_set_route_total(16);
            2: tna_set_route_total(16);
            3: tna_set_route_total(16);
            4: tna_set_route_total(16);
            5: tna_set_route_total(16);
            6: tna_set_route_total(16);
            7: tna_set_route_total(16);
            8: tna_set_route_total(16);
            9: tna_set_route_total(24);
            10: tna_set_route_total(24);
            11: tna_set_route_total(24);
            12: tna_set_route_total(24);
            13: tna_set_route_total(24);
            14: tna_set_route_total(24);
            15: tna_set_route_total(24);
            16: tna_set_route_total(24);
            17: tna_set_route_total(32);
            18: tna_set_route_total(32);
            19: tna_set_route_total(32);
            20: tna_set_route_total(32);
            21: tna_set_route_total(32);
            22: tna_set_route_total(32);
            23: tna_set_route_total(32);
            24: tna_set_route_total(32);
            25: tna_set_route_total(40);
            26: tna_set_route_total(40);
            27: tna_set_route_total(40);
            28: tna_set_route_total(40);
            29: tna_set_route_total(40);
            30: tna_set_route_total(40);
            31: tna_set_route_total(40);
            32: tna_set_route_total(40);
            33: tna_set_route_total(48);
            34: tna_set_route_total(48);
            35: tna_set_route_total(48);
            36: tna_set_route_total(48);
            37: tna_set_route_total(48);
            38: tna_set_route_total(48);
            39: tna_set_route_total(48);
            40: tna_set_route_total(48);
            41: tna_set_route_total(56);
            42: tna_set_route_total(56);
            43: tna_set_route_total(56);
            44: tna_set_route_total(56);
            45: tna_set_route_total(56);
            46: tna_set_route_total(56);
            47: tna_set_route_total(56);
            48: tna_set_route_total(56);
            49: tna_set_route_total(64);
            50: tna_set_route_total(64);
            51: tna_set_route_total(64);
            52: tna_set_route_total(64);
            53: tna_set_route_total(64);
            54: tna_set_route_total(64);
            55: tna_set_route_total(64);
            56: tna_set_route_total(64);
            57: tna_set_route_total(72);
            58: tna_set_route_total(72);
            59: tna_set_route_total(72);
            60: tna_set_route_total(72);
            61: tna_set_route_total(72);
            62: tna_set_route_total(72);
            63: tna_set_route_total(72);
            64: tna_set_route_total(72);
            65: tna_set_route_total(80);
            66: tna_set_route_total(80);
            67: tna_set_route_total(80);
            68: tna_set_route_total(80);
            69: tna_set_route_total(80);
            70: tna_set_route_total(80);
            71: tna_set_route_total(80);
            72: tna_set_route_total(80);
            73: tna_set_route_total(88);
            74: tna_set_route_total(88);
            75: tna_set_route_total(88);
            76: tna_set_route_total(88);
            77: tna_set_route_total(88);
            78: tna_set_route_total(88);
            79: tna_set_route_total(88);
            80: tna_set_route_total(88);
            81: tna_set_route_total(96);
            82: tna_set_route_total(96);
            83: tna_set_route_total(96);
            84: tna_set_route_total(96);
            85: tna_set_route_total(96);
            86: tna_set_route_total(96);
            87: tna_set_route_total(96);
            88: tna_set_route_total(96);
            89: tna_set_route_total(104);
            90: tna_set_route_total(104);
            91: tna_set_route_total(104);
            92: tna_set_route_total(104);
            93: tna_set_route_total(104);
            94: tna_set_route_total(104);
            95: tna_set_route_total(104);
            96: tna_set_route_total(104);
            97: tna_set_route_total(112);
            98: tna_set_route_total(112);
            99: tna_set_route_total(112);
            100: tna_set_route_total(112);
            101: tna_set_route_total(112);
            102: tna_set_route_total(112);
            103: tna_set_route_total(112);
            104: tna_set_route_total(112);
            105: tna_set_route_total(120);
            106: tna_set_route_total(120);
            107: tna_set_route_total(120);
            108: tna_set_route_total(120);
            109: tna_set_route_total(120);
            110: tna_set_route_total(120);
            111: tna_set_route_total(120);
            112: tna_set_route_total(120);
            113: tna_set_route_total(128);
            114: tna_set_route_total(128);
            115: tna_set_route_total(128);
            116: tna_set_route_total(128);
            117: tna_set_route_total(128);
            118: tna_set_route_total(128);
            119: tna_set_route_total(128);
            120: tna_set_route_total(128);
            121: tna_set_route_total(136);
            122: tna_set_route_total(136);
            123: tna_set_route_total(136);
            124: tna_set_route_total(136);
            125: tna_set_route_total(136);
            126: tna_set_route_total(136);
            127: tna_set_route_total(136);
            128: tna_set_route_total(136);
            129: tna_set_route_total(144);
            130: tna_set_route_total(144);
            131: tna_set_route_total(144);
            132: tna_set_route_total(144);
            133: tna_set_route_total(144);
            134: tna_set_route_total(144);
            135: tna_set_route_total(144);
            136: tna_set_route_total(144);
            137: tna_set_route_total(152);
            138: tna_set_route_total(152);
            139: tna_set_route_total(152);
            140: tna_set_route_total(152);
            141: tna_set_route_total(152);
            142: tna_set_route_total(152);
            143: tna_set_route_total(152);
            144: tna_set_route_total(152);
            145: tna_set_route_total(160);
            146: tna_set_route_total(160);
            147: tna_set_route_total(160);
            148: tna_set_route_total(160);
            149: tna_set_route_total(160);
            150: tna_set_route_total(160);
            151: tna_set_route_total(160);
            152: tna_set_route_total(160);
            153: tna_set_route_total(168);
            154: tna_set_route_total(168);
            155: tna_set_route_total(168);
            156: tna_set_route_total(168);
            157: tna_set_route_total(168);
            158: tna_set_route_total(168);
            159: tna_set_route_total(168);
            160: tna_set_route_total(168);
            161: tna_set_route_total(176);
            162: tna_set_route_total(176);
            163: tna_set_route_total(176);
            164: tna_set_route_total(176);
            165: tna_set_route_total(176);
            166: tna_set_route_total(176);
            167: tna_set_route_total(176);
            168: tna_set_route_total(176);
            169: tna_set_route_total(184);
            170: tna_set_route_total(184);
            171: tna_set_route_total(184);
            172: tna_set_route_total(184);
            173: tna_set_route_total(184);
            174: tna_set_route_total(184);
            175: tna_set_route_total(184);
            176: tna_set_route_total(184);
            177: tna_set_route_total(192);
            178: tna_set_route_total(192);
            179: tna_set_route_total(192);
            180: tna_set_route_total(192);
            181: tna_set_route_total(192);
            182: tna_set_route_total(192);
            183: tna_set_route_total(192);
            184: tna_set_route_total(192);
            185: tna_set_route_total(200);
            186: tna_set_route_total(200);
            187: tna_set_route_total(200);
            188: tna_set_route_total(200);
            189: tna_set_route_total(200);
            190: tna_set_route_total(200);
            191: tna_set_route_total(200);
            192: tna_set_route_total(200);
            193: tna_set_route_total(208);
            194: tna_set_route_total(208);
            195: tna_set_route_total(208);
            196: tna_set_route_total(208);
            197: tna_set_route_total(208);
            198: tna_set_route_total(208);
            199: tna_set_route_total(208);
            200: tna_set_route_total(208);
            201: tna_set_route_total(216);
            202: tna_set_route_total(216);
            203: tna_set_route_total(216);
            204: tna_set_route_total(216);
            205: tna_set_route_total(216);
            206: tna_set_route_total(216);
            207: tna_set_route_total(216);
            208: tna_set_route_total(216);
            209: tna_set_route_total(224);
            210: tna_set_route_total(224);
            211: tna_set_route_total(224);
            212: tna_set_route_total(224);
            213: tna_set_route_total(224);
            214: tna_set_route_total(224);
            215: tna_set_route_total(224);
            216: tna_set_route_total(224);
            217: tna_set_route_total(232);
            218: tna_set_route_total(232);
            219: tna_set_route_total(232);
            220: tna_set_route_total(232);
            221: tna_set_route_total(232);
            222: tna_set_route_total(232);
            223: tna_set_route_total(232);
            224: tna_set_route_total(232);
            225: tna_set_route_total(240);
            226: tna_set_route_total(240);
            227: tna_set_route_total(240);
            228: tna_set_route_total(240);
            229: tna_set_route_total(240);
            230: tna_set_route_total(240);
            231: tna_set_route_total(240);
            232: tna_set_route_total(240);
            233: tna_set_route_total(248);
            234: tna_set_route_total(248);
            235: tna_set_route_total(248);
            236: tna_set_route_total(248);
            237: tna_set_route_total(248);
            238: tna_set_route_total(248);
            239: tna_set_route_total(248);
            240: tna_set_route_total(248);
            241: tna_set_route_total(256);
            242: tna_set_route_total(256);
            243: tna_set_route_total(256);
            244: tna_set_route_total(256);
            245: tna_set_route_total(256);
            246: tna_set_route_total(256);
            247: tna_set_route_total(256);
            248: tna_set_route_total(256);
            249: tna_set_route_total(264);
            250: tna_set_route_total(264);
            251: tna_set_route_total(264);
            252: tna_set_route_total(264);
            253: tna_set_route_total(264);
            254: tna_set_route_total(264);
            255: tna_set_route_total(264);
        }
        size = 256;
    }
    /* Transit: 8 + (4 RecSlots) rounded up to whole 64-bit words, in bytes */
    action tna_set_rec_total(bit<16> total) { tna_rec_total = total; }
    table tna_rec_total_tbl {
        key = { hdr.transit.rec_slots: exact; }
        actions = { tna_set_rec_total; }
        const entries = {
            0: tna_set_rec_total(8);
            1: tna_set_rec_total(16);
            2: tna_set_rec_total(16);
            3: tna_set_rec_total(24);
            4: tna_set_rec_total(24);
            5: tna_set_rec_total(32);
            6: tna_set_rec_total(32);
            7: tna_set_rec_total(40);
            8: tna_set_rec_total(40);
            9: tna_set_rec_total(48);
            10: tna_set_rec_total(48);
            11: tna_set_rec_total(56);
            12: tna_set_rec_total(56);
            13: tna_set_rec_total(64);
            14: tna_set_rec_total(64);
            15: tna_set_rec_total(72);
            16: tna_set_rec_total(72);
            17: tna_set_rec_total(80);
            18: tna_set_rec_total(80);
            19: tna_set_rec_total(88);
            20: tna_set_rec_total(88);
            21: tna_set_rec_total(96);
            22: tna_set_rec_total(96);
            23: tna_set_rec_total(104);
            24: tna_set_rec_total(104);
            25: tna_set_rec_total(112);
            26: tna_set_rec_total(112);
            27: tna_set_rec_total(120);
            28: tna_set_rec_total(120);
            29: tna_set_rec_total(128);
            30: tna_set_rec_total(128);
            31: tna_set_rec_total(136);
            32: tna_set_rec_total(136);
            33: tna_set_rec_total(144);
            34: tna_set_rec_total(144);
            35: tna_set_rec_total(152);
            36: tna_set_rec_total(152);
            37: tna_set_rec_total(160);
            38: tna_set_rec_total(160);
            39: tna_set_rec_total(168);
            40: tna_set_rec_total(168);
            41: tna_set_rec_total(176);
            42: tna_set_rec_total(176);
            43: tna_set_rec_total(184);
            44: tna_set_rec_total(184);
            45: tna_set_rec_total(192);
            46: tna_set_rec_total(192);
            47: tna_set_rec_total(200);
            48: tna_set_rec_total(200);
            49: tna_set_rec_total(208);
            50: tna_set_rec_total(208);
            51: tna_set_rec_total(216);
            52: tna_set_rec_total(216);
            53: tna_set_rec_total(224);
            54: tna_set_rec_total(224);
            55: tna_set_rec_total(232);
            56: tna_set_rec_total(232);
            57: tna_set_rec_total(240);
            58: tna_set_rec_total(240);
            59: tna_set_rec_total(248);
            60: tna_set_rec_total(248);
            61: tna_set_rec_total(256);
            62: tna_set_rec_total(256);
            63: tna_set_rec_total(264);
            64: tna_set_rec_total(264);
            65: tna_set_rec_total(272);
            66: tna_set_rec_total(272);
            67: tna_set_rec_total(280);
            68: tna_set_rec_total(280);
            69: tna_set_rec_total(288);
            70: tna_set_rec_total(288);
            71: tna_set_rec_total(296);
            72: tna_set_rec_total(296);
            73: tna_set_rec_total(304);
            74: tna_set_rec_total(304);
            75: tna_set_rec_total(312);
            76: tna_set_rec_total(312);
            77: tna_set_rec_total(320);
            78: tna_set_rec_total(320);
            79: tna_set_rec_total(328);
            80: tna_set_rec_total(328);
            81: tna_set_rec_total(336);
            82: tna_set_rec_total(336);
            83: tna_set_rec_total(344);
            84: tna_set_rec_total(344);
            85: tna_set_rec_total(352);
            86: tna_set_rec_total(352);
            87: tna_set_rec_total(360);
            88: tna_set_rec_total(360);
            89: tna_set_rec_total(368);
            90: tna_set_rec_total(368);
            91: tna_set_rec_total(376);
            92: tna_set_rec_total(376);
            93: tna_set_rec_total(384);
            94: tna_set_rec_total(384);
            95: tna_set_rec_total(392);
            96: tna_set_rec_total(392);
            97: tna_set_rec_total(400);
            98: tna_set_rec_total(400);
            99: tna_set_rec_total(408);
            100: tna_set_rec_total(408);
            101: tna_set_rec_total(416);
            102: tna_set_rec_total(416);
            103: tna_set_rec_total(424);
            104: tna_set_rec_total(424);
            105: tna_set_rec_total(432);
            106: tna_set_rec_total(432);
            107: tna_set_rec_total(440);
            108: tna_set_rec_total(440);
            109: tna_set_rec_total(448);
            110: tna_set_rec_total(448);
            111: tna_set_rec_total(456);
            112: tna_set_rec_total(456);
            113: tna_set_rec_total(464);
            114: tna_set_rec_total(464);
            115: tna_set_rec_total(472);
            116: tna_set_rec_total(472);
            117: tna_set_rec_total(480);
            118: tna_set_rec_total(480);
            119: tna_set_rec_total(488);
            120: tna_set_rec_total(488);
            121: tna_set_rec_total(496);
            122: tna_set_rec_total(496);
            123: tna_set_rec_total(504);
            124: tna_set_rec_total(504);
            125: tna_set_rec_total(512);
            126: tna_set_rec_total(512);
            127: tna_set_rec_total(520);
            128: tna_set_rec_total(520);
            129: tna_set_rec_total(528);
            130: tna_set_rec_total(528);
            131: tna_set_rec_total(536);
            132: tna_set_rec_total(536);
            133: tna_set_rec_total(544);
            134: tna_set_rec_total(544);
            135: tna_set_rec_total(552);
            136: tna_set_rec_total(552);
            137: tna_set_rec_total(560);
            138: tna_set_rec_total(560);
            139: tna_set_rec_total(568);
            140: tna_set_rec_total(568);
            141: tna_set_rec_total(576);
            142: tna_set_rec_total(576);
            143: tna_set_rec_total(584);
            144: tna_set_rec_total(584);
            145: tna_set_rec_total(592);
            146: tna_set_rec_total(592);
            147: tna_set_rec_total(600);
            148: tna_set_rec_total(600);
            149: tna_set_rec_total(608);
            150: tna_set_rec_total(608);
            151: tna_set_rec_total(616);
            152: tna_set_rec_total(616);
            153: tna_set_rec_total(624);
            154: tna_set_rec_total(624);
            155: tna_set_rec_total(632);
            156: tna_set_rec_total(632);
            157: tna_set_rec_total(640);
            158: tna_set_rec_total(640);
            159: tna_set_rec_total(648);
            160: tna_set_rec_total(648);
            161: tna_set_rec_total(656);
            162: tna_set_rec_total(656);
            163: tna_set_rec_total(664);
            164: tna_set_rec_total(664);
            165: tna_set_rec_total(672);
            166: tna_set_rec_total(672);
            167: tna_set_rec_total(680);
            168: tna_set_rec_total(680);
            169: tna_set_rec_total(688);
            170: tna_set_rec_total(688);
            171: tna_set_rec_total(696);
            172: tna_set_rec_total(696);
            173: tna_set_rec_total(704);
            174: tna_set_rec_total(704);
            175: tna_set_rec_total(712);
            176: tna_set_rec_total(712);
            177: tna_set_rec_total(720);
            178: tna_set_rec_total(720);
            179: tna_set_rec_total(728);
            180: tna_set_rec_total(728);
            181: tna_set_rec_total(736);
            182: tna_set_rec_total(736);
            183: tna_set_rec_total(744);
            184: tna_set_rec_total(744);
            185: tna_set_rec_total(752);
            186: tna_set_rec_total(752);
            187: tna_set_rec_total(760);
            188: tna_set_rec_total(760);
            189: tna_set_rec_total(768);
            190: tna_set_rec_total(768);
            191: tna_set_rec_total(776);
            192: tna_set_rec_total(776);
            193: tna_set_rec_total(784);
            194: tna_set_rec_total(784);
            195: tna_set_rec_total(792);
            196: tna_set_rec_total(792);
            197: tna_set_rec_total(800);
            198: tna_set_rec_total(800);
            199: tna_set_rec_total(808);
            200: tna_set_rec_total(808);
            201: tna_set_rec_total(816);
            202: tna_set_rec_total(816);
            203: tna_set_rec_total(824);
            204: tna_set_rec_total(824);
            205: tna_set_rec_total(832);
            206: tna_set_rec_total(832);
            207: tna_set_rec_total(840);
            208: tna_set_rec_total(840);
            209: tna_set_rec_total(848);
            210: tna_set_rec_total(848);
            211: tna_set_rec_total(856);
            212: tna_set_rec_total(856);
            213: tna_set_rec_total(864);
            214: tna_set_rec_total(864);
            215: tna_set_rec_total(872);
            216: tna_set_rec_total(872);
            217: tna_set_rec_total(880);
            218: tna_set_rec_total(880);
            219: tna_set_rec_total(888);
            220: tna_set_rec_total(888);
            221: tna_set_rec_total(896);
            222: tna_set_rec_total(896);
            223: tna_set_rec_total(904);
            224: tna_set_rec_total(904);
            225: tna_set_rec_total(912);
            226: tna_set_rec_total(912);
            227: tna_set_rec_total(920);
            228: tna_set_rec_total(920);
            229: tna_set_rec_total(928);
            230: tna_set_rec_total(928);
            231: tna_set_rec_total(936);
            232: tna_set_rec_total(936);
            233: tna_set_rec_total(944);
            234: tna_set_rec_total(944);
            235: tna_set_rec_total(952);
            236: tna_set_rec_total(952);
            237: tna_set_rec_total(960);
            238: tna_set_rec_total(960);
            239: tna_set_rec_total(968);
            240: tna_set_rec_total(968);
            241: tna_set_rec_total(976);
            242: tna_set_rec_total(976);
            243: tna_set_rec_total(984);
            244: tna_set_rec_total(984);
            245: tna_set_rec_total(992);
            246: tna_set_rec_total(992);
            247: tna_set_rec_total(1000);
            248: tna_set_rec_total(1000);
            249: tna_set_rec_total(1008);
            250: tna_set_rec_total(1008);
            251: tna_set_rec_total(1016);
            252: tna_set_rec_total(1016);
            253: tna_set_rec_total(1024);
            254: tna_set_rec_total(1024);
            255: tna_set_rec_total(1032);
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
            (0, 0 &&& 0xffffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (1, 0 &&& 0x7fffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (2, 0 &&& 0x3fffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (3, 0 &&& 0x1fffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (4, 0 &&& 0xfffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (5, 0 &&& 0x7ffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (6, 0 &&& 0x3ffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (7, 0 &&& 0x1ffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (8, 0 &&& 0xffffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (9, 0 &&& 0x7fffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (10, 0 &&& 0x3fffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (11, 0 &&& 0x1fffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (12, 0 &&& 0xfffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (13, 0 &&& 0x7ffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (14, 0 &&& 0x3ffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (15, 0 &&& 0x1ffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (16, 0 &&& 0xffff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (17, 0 &&& 0x7fff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (18, 0 &&& 0x3fff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (19, 0 &&& 0x1fff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (20, 0 &&& 0xfff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (21, 0 &&& 0x7ff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (22, 0 &&& 0x3ff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (23, 0 &&& 0x1ff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (24, 0 &&& 0xff, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (25, 0 &&& 0x7f, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (26, 0 &&& 0x3f, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (27, 0 &&& 0x1f, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (28, 0 &&& 0xf, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (29, 0 &&& 0x7, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (30, 0 &&& 0x3, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (31, 0 &&& 0x1, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (32, _, 0 &&& 0xffffffff): tna_chk_beyond_ok();
            (33, _, 0 &&& 0x7fffffff): tna_chk_beyond_ok();
            (34, _, 0 &&& 0x3fffffff): tna_chk_beyond_ok();
            (35, _, 0 &&& 0x1fffffff): tna_chk_beyond_ok();
            (36, _, 0 &&& 0xfffffff): tna_chk_beyond_ok();
            (37, _, 0 &&& 0x7ffffff): tna_chk_beyond_ok();
            (38, _, 0 &&& 0x3ffffff): tna_chk_beyond_ok();
            (39, _, 0 &&& 0x1ffffff): tna_chk_beyond_ok();
            (40, _, 0 &&& 0xffffff): tna_chk_beyond_ok();
            (41, _, 0 &&& 0x7fffff): tna_chk_beyond_ok();
            (42, _, 0 &&& 0x3fffff): tna_chk_beyond_ok();
            (43, _, 0 &&& 0x1fffff): tna_chk_beyond_ok();
            (44, _, 0 &&& 0xfffff): tna_chk_beyond_ok();
            (45, _, 0 &&& 0x7ffff): tna_chk_beyond_ok();
            (46, _, 0 &&& 0x3ffff): tna_chk_beyond_ok();
            (47, _, 0 &&& 0x1ffff): tna_chk_beyond_ok();
            (48, _, 0 &&& 0xffff): tna_chk_beyond_ok();
            (49, _, 0 &&& 0x7fff): tna_chk_beyond_ok();
            (50, _, 0 &&& 0x3fff): tna_chk_beyond_ok();
            (51, _, 0 &&& 0x1fff): tna_chk_beyond_ok();
            (52, _, 0 &&& 0xfff): tna_chk_beyond_ok();
            (53, _, 0 &&& 0x7ff): tna_chk_beyond_ok();
            (54, _, 0 &&& 0x3ff): tna_chk_beyond_ok();
            (55, _, 0 &&& 0x1ff): tna_chk_beyond_ok();
            (56, _, 0 &&& 0xff): tna_chk_beyond_ok();
            (57, _, 0 &&& 0x7f): tna_chk_beyond_ok();
            (58, _, 0 &&& 0x3f): tna_chk_beyond_ok();
            (59, _, 0 &&& 0x1f): tna_chk_beyond_ok();
            (60, _, 0 &&& 0xf): tna_chk_beyond_ok();
            (61, _, 0 &&& 0x7): tna_chk_beyond_ok();
            (62, _, 0 &&& 0x3): tna_chk_beyond_ok();
            (63, _, 0 &&& 0x1): tna_chk_beyond_ok();
            (64, _, _): tna_chk_beyond_ok();
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
            (0, 0 &&& 0xffffffff, 0 &&& 0xffffffff): tna_chk_len_ok();
            (1, 0 &&& 0xffffffff, 0 &&& 0xfffffffe): tna_chk_len_ok();
            (2, 0 &&& 0xffffffff, 0 &&& 0xfffffffc): tna_chk_len_ok();
            (3, 0 &&& 0xffffffff, 0 &&& 0xfffffff8): tna_chk_len_ok();
            (4, 0 &&& 0xffffffff, 0 &&& 0xfffffff0): tna_chk_len_ok();
            (5, 0 &&& 0xffffffff, 0 &&& 0xffffffe0): tna_chk_len_ok();
            (6, 0 &&& 0xffffffff, 0 &&& 0xffffffc0): tna_chk_len_ok();
            (7, 0 &&& 0xffffffff, 0 &&& 0xffffff80): tna_chk_len_ok();
            (8, 0 &&& 0xffffffff, 0 &&& 0xffffff00): tna_chk_len_ok();
            (9, 0 &&& 0xffffffff, 0 &&& 0xfffffe00): tna_chk_len_ok();
            (10, 0 &&& 0xffffffff, 0 &&& 0xfffffc00): tna_chk_len_ok();
            (11, 0 &&& 0xffffffff, 0 &&& 0xfffff800): tna_chk_len_ok();
            (12, 0 &&& 0xffffffff, 0 &&& 0xfffff000): tna_chk_len_ok();
            (13, 0 &&& 0xffffffff, 0 &&& 0xffffe000): tna_chk_len_ok();
            (14, 0 &&& 0xffffffff, 0 &&& 0xffffc000): tna_chk_len_ok();
            (15, 0 &&& 0xffffffff, 0 &&& 0xffff8000): tna_chk_len_ok();
            (16, 0 &&& 0xffffffff, 0 &&& 0xffff0000): tna_chk_len_ok();
            (17, 0 &&& 0xffffffff, 0 &&& 0xfffe0000): tna_chk_len_ok();
            (18, 0 &&& 0xffffffff, 0 &&& 0xfffc0000): tna_chk_len_ok();
            (19, 0 &&& 0xffffffff, 0 &&& 0xfff80000): tna_chk_len_ok();
            (20, 0 &&& 0xffffffff, 0 &&& 0xfff00000): tna_chk_len_ok();
            (21, 0 &&& 0xffffffff, 0 &&& 0xffe00000): tna_chk_len_ok();
            (22, 0 &&& 0xffffffff, 0 &&& 0xffc00000): tna_chk_len_ok();
            (23, 0 &&& 0xffffffff, 0 &&& 0xff800000): tna_chk_len_ok();
            (24, 0 &&& 0xffffffff, 0 &&& 0xff000000): tna_chk_len_ok();
            (25, 0 &&& 0xffffffff, 0 &&& 0xfe000000): tna_chk_len_ok();
            (26, 0 &&& 0xffffffff, 0 &&& 0xfc000000): tna_chk_len_ok();
            (27, 0 &&& 0xffffffff, 0 &&& 0xf8000000): tna_chk_len_ok();
            (28, 0 &&& 0xffffffff, 0 &&& 0xf0000000): tna_chk_len_ok();
            (29, 0 &&& 0xffffffff, 0 &&& 0xe0000000): tna_chk_len_ok();
            (30, 0 &&& 0xffffffff, 0 &&& 0xc0000000): tna_chk_len_ok();
            (31, 0 &&& 0xffffffff, 0 &&& 0x80000000): tna_chk_len_ok();
            (32, 0 &&& 0xffffffff, _): tna_chk_len_ok();
            (33, 0 &&& 0xfffffffe, _): tna_chk_len_ok();
            (34, 0 &&& 0xfffffffc, _): tna_chk_len_ok();
            (35, 0 &&& 0xfffffff8, _): tna_chk_len_ok();
            (36, 0 &&& 0xfffffff0, _): tna_chk_len_ok();
            (37, 0 &&& 0xffffffe0, _): tna_chk_len_ok();
            (38, 0 &&& 0xffffffc0, _): tna_chk_len_ok();
            (39, 0 &&& 0xffffff80, _): tna_chk_len_ok();
            (40, 0 &&& 0xffffff00, _): tna_chk_len_ok();
            (41, 0 &&& 0xfffffe00, _): tna_chk_len_ok();
            (42, 0 &&& 0xfffffc00, _): tna_chk_len_ok();
            (43, 0 &&& 0xfffff800, _): tna_chk_len_ok();
            (44, 0 &&& 0xfffff000, _): tna_chk_len_ok();
            (45, 0 &&& 0xffffe000, _): tna_chk_len_ok();
            (46, 0 &&& 0xffffc000, _): tna_chk_len_ok();
            (47, 0 &&& 0xffff8000, _): tna_chk_len_ok();
            (48, 0 &&& 0xffff0000, _): tna_chk_len_ok();
            (49, 0 &&& 0xfffe0000, _): tna_chk_len_ok();
            (50, 0 &&& 0xfffc0000, _): tna_chk_len_ok();
            (51, 0 &&& 0xfff80000, _): tna_chk_len_ok();
            (52, 0 &&& 0xfff00000, _): tna_chk_len_ok();
            (53, 0 &&& 0xffe00000, _): tna_chk_len_ok();
            (54, 0 &&& 0xffc00000, _): tna_chk_len_ok();
            (55, 0 &&& 0xff800000, _): tna_chk_len_ok();
            (56, 0 &&& 0xff000000, _): tna_chk_len_ok();
            (57, 0 &&& 0xfe000000, _): tna_chk_len_ok();
            (58, 0 &&& 0xfc000000, _): tna_chk_len_ok();
            (59, 0 &&& 0xf8000000, _): tna_chk_len_ok();
            (60, 0 &&& 0xf0000000, _): tna_chk_len_ok();
            (61, 0 &&& 0xe0000000, _): tna_chk_len_ok();
            (62, 0 &&& 0xc0000000, _): tna_chk_len_ok();
            (63, 0 &&& 0x80000000, _): tna_chk_len_ok();
            (64, _, _): tna_chk_len_ok();
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
            (0, 0 &&& 0xffffffff, 0 &&& 0xffffffff): tna_chk_src_ok();
            (1, 0 &&& 0xffffffff, 0 &&& 0xfffffffe): tna_chk_src_ok();
            (2, 0 &&& 0xffffffff, 0 &&& 0xfffffffc): tna_chk_src_ok();
            (3, 0 &&& 0xffffffff, 0 &&& 0xfffffff8): tna_chk_src_ok();
            (4, 0 &&& 0xffffffff, 0 &&& 0xfffffff0): tna_chk_src_ok();
            (5, 0 &&& 0xffffffff, 0 &&& 0xffffffe0): tna_chk_src_ok();
            (6, 0 &&& 0xffffffff, 0 &&& 0xffffffc0): tna_chk_src_ok();
            (7, 0 &&& 0xffffffff, 0 &&& 0xffffff80): tna_chk_src_ok();
            (8, 0 &&& 0xffffffff, 0 &&& 0xffffff00): tna_chk_src_ok();
            (9, 0 &&& 0xffffffff, 0 &&& 0xfffffe00): tna_chk_src_ok();
            (10, 0 &&& 0xffffffff, 0 &&& 0xfffffc00): tna_chk_src_ok();
            (11, 0 &&& 0xffffffff, 0 &&& 0xfffff800): tna_chk_src_ok();
            (12, 0 &&& 0xffffffff, 0 &&& 0xfffff000): tna_chk_src_ok();
            (13, 0 &&& 0xffffffff, 0 &&& 0xffffe000): tna_chk_src_ok();
            (14, 0 &&& 0xffffffff, 0 &&& 0xffffc000): tna_chk_src_ok();
            (15, 0 &&& 0xffffffff, 0 &&& 0xffff8000): tna_chk_src_ok();
            (16, 0 &&& 0xffffffff, 0 &&& 0xffff0000): tna_chk_src_ok();
            (17, 0 &&& 0xffffffff, 0 &&& 0xfffe0000): tna_chk_src_ok();
            (18, 0 &&& 0xffffffff, 0 &&& 0xfffc0000): tna_chk_src_ok();
            (19, 0 &&& 0xffffffff, 0 &&& 0xfff80000): tna_chk_src_ok();
            (20, 0 &&& 0xffffffff, 0 &&& 0xfff00000): tna_chk_src_ok();
            (21, 0 &&& 0xffffffff, 0 &&& 0xffe00000): tna_chk_src_ok();
            (22, 0 &&& 0xffffffff, 0 &&& 0xffc00000): tna_chk_src_ok();
            (23, 0 &&& 0xffffffff, 0 &&& 0xff800000): tna_chk_src_ok();
            (24, 0 &&& 0xffffffff, 0 &&& 0xff000000): tna_chk_src_ok();
            (25, 0 &&& 0xffffffff, 0 &&& 0xfe000000): tna_chk_src_ok();
            (26, 0 &&& 0xffffffff, 0 &&& 0xfc000000): tna_chk_src_ok();
            (27, 0 &&& 0xffffffff, 0 &&& 0xf8000000): tna_chk_src_ok();
            (28, 0 &&& 0xffffffff, 0 &&& 0xf0000000): tna_chk_src_ok();
            (29, 0 &&& 0xffffffff, 0 &&& 0xe0000000): tna_chk_src_ok();
            (30, 0 &&& 0xffffffff, 0 &&& 0xc0000000): tna_chk_src_ok();
            (31, 0 &&& 0xffffffff, 0 &&& 0x80000000): tna_chk_src_ok();
            (32, 0 &&& 0xffffffff, _): tna_chk_src_ok();
            (33, 0 &&& 0xfffffffe, _): tna_chk_src_ok();
            (34, 0 &&& 0xfffffffc, _): tna_chk_src_ok();
            (35, 0 &&& 0xfffffff8, _): tna_chk_src_ok();
            (36, 0 &&& 0xfffffff0, _): tna_chk_src_ok();
            (37, 0 &&& 0xffffffe0, _): tna_chk_src_ok();
            (38, 0 &&& 0xffffffc0, _): tna_chk_src_ok();
            (39, 0 &&& 0xffffff80, _): tna_chk_src_ok();
            (40, 0 &&& 0xffffff00, _): tna_chk_src_ok();
            (41, 0 &&& 0xfffffe00, _): tna_chk_src_ok();
            (42, 0 &&& 0xfffffc00, _): tna_chk_src_ok();
            (43, 0 &&& 0xfffff800, _): tna_chk_src_ok();
            (44, 0 &&& 0xfffff000, _): tna_chk_src_ok();
            (45, 0 &&& 0xffffe000, _): tna_chk_src_ok();
            (46, 0 &&& 0xffffc000, _): tna_chk_src_ok();
            (47, 0 &&& 0xffff8000, _): tna_chk_src_ok();
            (48, 0 &&& 0xffff0000, _): tna_chk_src_ok();
            (49, 0 &&& 0xfffe0000, _): tna_chk_src_ok();
            (50, 0 &&& 0xfffc0000, _): tna_chk_src_ok();
            (51, 0 &&& 0xfff80000, _): tna_chk_src_ok();
            (52, 0 &&& 0xfff00000, _): tna_chk_src_ok();
            (53, 0 &&& 0xffe00000, _): tna_chk_src_ok();
            (54, 0 &&& 0xffc00000, _): tna_chk_src_ok();
            (55, 0 &&& 0xff800000, _): tna_chk_src_ok();
            (56, 0 &&& 0xff000000, _): tna_chk_src_ok();
            (57, 0 &&& 0xfe000000, _): tna_chk_src_ok();
            (58, 0 &&& 0xfc000000, _): tna_chk_src_ok();
            (59, 0 &&& 0xf8000000, _): tna_chk_src_ok();
            (60, 0 &&& 0xf0000000, _): tna_chk_src_ok();
            (61, 0 &&& 0xe0000000, _): tna_chk_src_ok();
            (62, 0 &&& 0xc0000000, _): tna_chk_src_ok();
            (63, 0 &&& 0x80000000, _): tna_chk_src_ok();
            (64, _, _): tna_chk_src_ok();
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
            (0, 0x80000000 &&& 0x80000000, _): tna_rho_one();
            (1, 0x40000000 &&& 0x40000000, _): tna_rho_one();
            (2, 0x20000000 &&& 0x20000000, _): tna_rho_one();
            (3, 0x10000000 &&& 0x10000000, _): tna_rho_one();
            (4, 0x8000000 &&& 0x8000000, _): tna_rho_one();
            (5, 0x4000000 &&& 0x4000000, _): tna_rho_one();
            (6, 0x2000000 &&& 0x2000000, _): tna_rho_one();
            (7, 0x1000000 &&& 0x1000000, _): tna_rho_one();
            (8, 0x800000 &&& 0x800000, _): tna_rho_one();
            (9, 0x400000 &&& 0x400000, _): tna_rho_one();
            (10, 0x200000 &&& 0x200000, _): tna_rho_one();
            (11, 0x100000 &&& 0x100000, _): tna_rho_one();
            (12, 0x80000 &&& 0x80000, _): tna_rho_one();
            (13, 0x40000 &&& 0x40000, _): tna_rho_one();
            (14, 0x20000 &&& 0x20000, _): tna_rho_one();
            (15, 0x10000 &&& 0x10000, _): tna_rho_one();
            (16, 0x8000 &&& 0x8000, _): tna_rho_one();
            (17, 0x4000 &&& 0x4000, _): tna_rho_one();
            (18, 0x2000 &&& 0x2000, _): tna_rho_one();
            (19, 0x1000 &&& 0x1000, _): tna_rho_one();
            (20, 0x800 &&& 0x800, _): tna_rho_one();
            (21, 0x400 &&& 0x400, _): tna_rho_one();
            (22, 0x200 &&& 0x200, _): tna_rho_one();
            (23, 0x100 &&& 0x100, _): tna_rho_one();
            (24, 0x80 &&& 0x80, _): tna_rho_one();
            (25, 0x40 &&& 0x40, _): tna_rho_one();
            (26, 0x20 &&& 0x20, _): tna_rho_one();
            (27, 0x10 &&& 0x10, _): tna_rho_one();
            (28, 0x8 &&& 0x8, _): tna_rho_one();
            (29, 0x4 &&& 0x4, _): tna_rho_one();
            (30, 0x2 &&& 0x2, _): tna_rho_one();
            (31, 0x1 &&& 0x1, _): tna_rho_one();
            (32, _, 0x80000000 &&& 0x80000000): tna_rho_one();
            (33, _, 0x40000000 &&& 0x40000000): tna_rho_one();
            (34, _, 0x20000000 &&& 0x20000000): tna_rho_one();
            (35, _, 0x10000000 &&& 0x10000000): tna_rho_one();
            (36, _, 0x8000000 &&& 0x8000000): tna_rho_one();
            (37, _, 0x4000000 &&& 0x4000000): tna_rho_one();
            (38, _, 0x2000000 &&& 0x2000000): tna_rho_one();
            (39, _, 0x1000000 &&& 0x1000000): tna_rho_one();
            (40, _, 0x800000 &&& 0x800000): tna_rho_one();
            (41, _, 0x400000 &&& 0x400000): tna_rho_one();
            (42, _, 0x200000 &&& 0x200000): tna_rho_one();
            (43, _, 0x100000 &&& 0x100000): tna_rho_one();
            (44, _, 0x80000 &&& 0x80000): tna_rho_one();
            (45, _, 0x40000 &&& 0x40000): tna_rho_one();
            (46, _, 0x20000 &&& 0x20000): tna_rho_one();
            (47, _, 0x10000 &&& 0x10000): tna_rho_one();
            (48, _, 0x8000 &&& 0x8000): tna_rho_one();
            (49, _, 0x4000 &&& 0x4000): tna_rho_one();
            (50, _, 0x2000 &&& 0x2000): tna_rho_one();
            (51, _, 0x1000 &&& 0x1000): tna_rho_one();
            (52, _, 0x800 &&& 0x800): tna_rho_one();
            (53, _, 0x400 &&& 0x400): tna_rho_one();
            (54, _, 0x200 &&& 0x200): tna_rho_one();
            (55, _, 0x100 &&& 0x100): tna_rho_one();
            (56, _, 0x80 &&& 0x80): tna_rho_one();
            (57, _, 0x40 &&& 0x40): tna_rho_one();
            (58, _, 0x20 &&& 0x20): tna_rho_one();
            (59, _, 0x10 &&& 0x10): tna_rho_one();
            (60, _, 0x8 &&& 0x8): tna_rho_one();
            (61, _, 0x4 &&& 0x4): tna_rho_one();
            (62, _, 0x2 &&& 0x2): tna_rho_one();
            (63, _, 0x1 &&& 0x1): tna_rho_one();
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
            8w0 &&& 0xf8: tna_side_q0();
            8w8 &&& 0xf8: tna_side_q1();
            8w16 &&& 0xf8: tna_side_q2();
            8w24 &&& 0xf8: tna_side_q3();
            8w32 &&& 0xf8: tna_side_q4();
            8w40 &&& 0xf8: tna_side_q5();
            8w48 &&& 0xf8: tna_side_q6();
            8w56 &&& 0xf8: tna_side_q7();
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
            8w0 &&& 0x7: tna_side_r0();
            8w1 &&& 0x7: tna_side_r1();
            8w2 &&& 0x7: tna_side_r2();
            8w3 &&& 0x7: tna_side_r3();
            8w4 &&& 0x7: tna_side_r4();
            8w5 &&& 0x7: tna_side_r5();
            8w6 &&& 0x7: tna_side_r6();
            8w7 &&& 0x7: tna_side_r7();
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
            0: tna_side_mask(0x0);
            1: tna_side_mask(0x1);
            2: tna_side_mask(0x3);
            3: tna_side_mask(0x7);
            4: tna_side_mask(0xf);
            5: tna_side_mask(0x1f);
            6: tna_side_mask(0x3f);
            7: tna_side_mask(0x7f);
            8: tna_side_mask(0xff);
            9: tna_side_mask(0x1ff);
            10: tna_side_mask(0x3ff);
            11: tna_side_mask(0x7ff);
            12: tna_side_mask(0xfff);
            13: tna_side_mask(0x1fff);
            14: tna_side_mask(0x3fff);
            15: tna_side_mask(0x7fff);
            16: tna_side_mask(0xffff);
            17: tna_side_mask(0x1ffff);
            18: tna_side_mask(0x3ffff);
            19: tna_side_mask(0x7ffff);
            20: tna_side_mask(0xfffff);
            21: tna_side_mask(0x1fffff);
            22: tna_side_mask(0x3fffff);
            23: tna_side_mask(0x7fffff);
            24: tna_side_mask(0xffffff);
            25: tna_side_mask(0x1ffffff);
            26: tna_side_mask(0x3ffffff);
            27: tna_side_mask(0x7ffffff);
            28: tna_side_mask(0xfffffff);
            29: tna_side_mask(0x1fffffff);
            30: tna_side_mask(0x3fffffff);
            31: tna_side_mask(0x7fffffff);
            32: tna_side_mask(0xffffffff);
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
            8w0 &&& 0xf8: tna_lab_q0();
            8w8 &&& 0xf8: tna_lab_q1();
            8w16 &&& 0xf8: tna_lab_q2();
            8w24 &&& 0xf8: tna_lab_q3();
            8w32 &&& 0xf8: tna_lab_q4();
            8w40 &&& 0xf8: tna_lab_q5();
            8w48 &&& 0xf8: tna_lab_q6();
            8w56 &&& 0xf8: tna_lab_q7();
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
            8w0 &&& 0x7: tna_lab_r0();
            8w1 &&& 0x7: tna_lab_r1();
            8w2 &&& 0x7: tna_lab_r2();
            8w3 &&& 0x7: tna_lab_r3();
            8w4 &&& 0x7: tna_lab_r4();
            8w5 &&& 0x7: tna_lab_r5();
            8w6 &&& 0x7: tna_lab_r6();
            8w7 &&& 0x7: tna_lab_r7();
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
            0: tna_lab_mask(0x0);
            1: tna_lab_mask(0x1);
            2: tna_lab_mask(0x3);
            3: tna_lab_mask(0x7);
            4: tna_lab_mask(0xf);
            5: tna_lab_mask(0x1f);
            6: tna_lab_mask(0x3f);
            7: tna_lab_mask(0x7f);
            8: tna_lab_mask(0xff);
            9: tna_lab_mask(0x1ff);
            10: tna_lab_mask(0x3ff);
            11: tna_lab_mask(0x7ff);
            12: tna_lab_mask(0xfff);
            13: tna_lab_mask(0x1fff);
            14: tna_lab_mask(0x3fff);
            15: tna_lab_mask(0x7fff);
            16: tna_lab_mask(0xffff);
            17: tna_lab_mask(0x1ffff);
            18: tna_lab_mask(0x3ffff);
            19: tna_lab_mask(0x7ffff);
            20: tna_lab_mask(0xfffff);
            21: tna_lab_mask(0x1fffff);
            22: tna_lab_mask(0x3fffff);
            23: tna_lab_mask(0x7fffff);
            24: tna_lab_mask(0xffffff);
            25: tna_lab_mask(0x1ffffff);
            26: tna_lab_mask(0x3ffffff);
            27: tna_lab_mask(0x7ffffff);
            28: tna_lab_mask(0xfffffff);
            29: tna_lab_mask(0x1fffffff);
            30: tna_lab_mask(0x3fffffff);
            31: tna_lab_mask(0x7fffffff);
            32: tna_lab_mask(0xffffffff);
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
            8w0 &&& 0xf8: tna_zn_q0();
            8w8 &&& 0xf8: tna_zn_q1();
            8w16 &&& 0xf8: tna_zn_q2();
            8w24 &&& 0xf8: tna_zn_q3();
            8w32 &&& 0xf8: tna_zn_q4();
            8w40 &&& 0xf8: tna_zn_q5();
            8w48 &&& 0xf8: tna_zn_q6();
            8w56 &&& 0xf8: tna_zn_q7();
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
            8w0 &&& 0x7: tna_zn_r0();
            8w1 &&& 0x7: tna_zn_r1();
            8w2 &&& 0x7: tna_zn_r2();
            8w3 &&& 0x7: tna_zn_r3();
            8w4 &&& 0x7: tna_zn_r4();
            8w5 &&& 0x7: tna_zn_r5();
            8w6 &&& 0x7: tna_zn_r6();
            8w7 &&& 0x7: tna_zn_r7();
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
            (0, 0 &&& 0xffffffff, _): tna_zn_ovf_ok();
            (1, 0 &&& 0xfffffffe, _): tna_zn_ovf_ok();
            (2, 0 &&& 0xfffffffc, _): tna_zn_ovf_ok();
            (3, 0 &&& 0xfffffff8, _): tna_zn_ovf_ok();
            (4, 0 &&& 0xfffffff0, _): tna_zn_ovf_ok();
            (5, 0 &&& 0xffffffe0, _): tna_zn_ovf_ok();
            (6, 0 &&& 0xffffffc0, _): tna_zn_ovf_ok();
            (7, 0 &&& 0xffffff80, _): tna_zn_ovf_ok();
            (8, 0 &&& 0xffffff00, _): tna_zn_ovf_ok();
            (9, 0 &&& 0xfffffe00, _): tna_zn_ovf_ok();
            (10, 0 &&& 0xfffffc00, _): tna_zn_ovf_ok();
            (11, 0 &&& 0xfffff800, _): tna_zn_ovf_ok();
            (12, 0 &&& 0xfffff000, _): tna_zn_ovf_ok();
            (13, 0 &&& 0xffffe000, _): tna_zn_ovf_ok();
            (14, 0 &&& 0xffffc000, _): tna_zn_ovf_ok();
            (15, 0 &&& 0xffff8000, _): tna_zn_ovf_ok();
            (16, 0 &&& 0xffff0000, _): tna_zn_ovf_ok();
            (17, 0 &&& 0xfffe0000, _): tna_zn_ovf_ok();
            (18, 0 &&& 0xfffc0000, _): tna_zn_ovf_ok();
            (19, 0 &&& 0xfff80000, _): tna_zn_ovf_ok();
            (20, 0 &&& 0xfff00000, _): tna_zn_ovf_ok();
            (21, 0 &&& 0xffe00000, _): tna_zn_ovf_ok();
            (22, 0 &&& 0xffc00000, _): tna_zn_ovf_ok();
            (23, 0 &&& 0xff800000, _): tna_zn_ovf_ok();
            (24, 0 &&& 0xff000000, _): tna_zn_ovf_ok();
            (25, 0 &&& 0xfe000000, _): tna_zn_ovf_ok();
            (26, 0 &&& 0xfc000000, _): tna_zn_ovf_ok();
            (27, 0 &&& 0xf8000000, _): tna_zn_ovf_ok();
            (28, 0 &&& 0xf0000000, _): tna_zn_ovf_ok();
            (29, 0 &&& 0xe0000000, _): tna_zn_ovf_ok();
            (30, 0 &&& 0xc0000000, _): tna_zn_ovf_ok();
            (31, 0 &&& 0x80000000, _): tna_zn_ovf_ok();
            (32, _, _): tna_zn_ovf_ok();
            (33, _, _): tna_zn_ovf_ok();
            (34, _, _): tna_zn_ovf_ok();
            (35, _, _): tna_zn_ovf_ok();
            (36, _, _): tna_zn_ovf_ok();
            (37, _, _): tna_zn_ovf_ok();
            (38, _, _): tna_zn_ovf_ok();
            (39, _, _): tna_zn_ovf_ok();
            (40, _, _): tna_zn_ovf_ok();
            (41, _, _): tna_zn_ovf_ok();
            (42, _, _): tna_zn_ovf_ok();
            (43, _, _): tna_zn_ovf_ok();
            (44, _, _): tna_zn_ovf_ok();
            (45, _, _): tna_zn_ovf_ok();
            (46, _, _): tna_zn_ovf_ok();
            (47, _, _): tna_zn_ovf_ok();
            (48, _, _): tna_zn_ovf_ok();
            (49, _, _): tna_zn_ovf_ok();
            (50, _, _): tna_zn_ovf_ok();
            (51, _, _): tna_zn_ovf_ok();
            (52, _, _): tna_zn_ovf_ok();
            (53, _, _): tna_zn_ovf_ok();
            (54, _, _): tna_zn_ovf_ok();
            (55, _, _): tna_zn_ovf_ok();
            (56, _, _): tna_zn_ovf_ok();
            (57, _, _): tna_zn_ovf_ok();
            (58, _, _): tna_zn_ovf_ok();
            (59, _, _): tna_zn_ovf_ok();
            (60, _, _): tna_zn_ovf_ok();
            (61, _, _): tna_zn_ovf_ok();
            (62, _, _): tna_zn_ovf_ok();
            (63, _, _): tna_zn_ovf_ok();
            (64 &&& 0xc0, _, _): tna_zn_ovf_ok();
            (128 &&& 0x80, _, _): tna_zn_ovf_ok();
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
            0: tna_x_zn(0x0, 0x0);
            1: tna_x_zn(0x0, 0x1);
            2: tna_x_zn(0x0, 0x3);
            3: tna_x_zn(0x0, 0x7);
            4: tna_x_zn(0x0, 0xf);
            5: tna_x_zn(0x0, 0x1f);
            6: tna_x_zn(0x0, 0x3f);
            7: tna_x_zn(0x0, 0x7f);
            8: tna_x_zn(0x0, 0xff);
            9: tna_x_zn(0x0, 0x1ff);
            10: tna_x_zn(0x0, 0x3ff);
            11: tna_x_zn(0x0, 0x7ff);
            12: tna_x_zn(0x0, 0xfff);
            13: tna_x_zn(0x0, 0x1fff);
            14: tna_x_zn(0x0, 0x3fff);
            15: tna_x_zn(0x0, 0x7fff);
            16: tna_x_zn(0x0, 0xffff);
            17: tna_x_zn(0x0, 0x1ffff);
            18: tna_x_zn(0x0, 0x3ffff);
            19: tna_x_zn(0x0, 0x7ffff);
            20: tna_x_zn(0x0, 0xfffff);
            21: tna_x_zn(0x0, 0x1fffff);
            22: tna_x_zn(0x0, 0x3fffff);
            23: tna_x_zn(0x0, 0x7fffff);
            24: tna_x_zn(0x0, 0xffffff);
            25: tna_x_zn(0x0, 0x1ffffff);
            26: tna_x_zn(0x0, 0x3ffffff);
            27: tna_x_zn(0x0, 0x7ffffff);
            28: tna_x_zn(0x0, 0xfffffff);
            29: tna_x_zn(0x0, 0x1fffffff);
            30: tna_x_zn(0x0, 0x3fffffff);
            31: tna_x_zn(0x0, 0x7fffffff);
            32: tna_x_zn(0x0, 0xffffffff);
            33: tna_x_zn(0x1, 0xffffffff);
            34: tna_x_zn(0x3, 0xffffffff);
            35: tna_x_zn(0x7, 0xffffffff);
            36: tna_x_zn(0xf, 0xffffffff);
            37: tna_x_zn(0x1f, 0xffffffff);
            38: tna_x_zn(0x3f, 0xffffffff);
            39: tna_x_zn(0x7f, 0xffffffff);
            40: tna_x_zn(0xff, 0xffffffff);
            41: tna_x_zn(0x1ff, 0xffffffff);
            42: tna_x_zn(0x3ff, 0xffffffff);
            43: tna_x_zn(0x7ff, 0xffffffff);
            44: tna_x_zn(0xfff, 0xffffffff);
            45: tna_x_zn(0x1fff, 0xffffffff);
            46: tna_x_zn(0x3fff, 0xffffffff);
            47: tna_x_zn(0x7fff, 0xffffffff);
            48: tna_x_zn(0xffff, 0xffffffff);
            49: tna_x_zn(0x1ffff, 0xffffffff);
            50: tna_x_zn(0x3ffff, 0xffffffff);
            51: tna_x_zn(0x7ffff, 0xffffffff);
            52: tna_x_zn(0xfffff, 0xffffffff);
            53: tna_x_zn(0x1fffff, 0xffffffff);
            54: tna_x_zn(0x3fffff, 0xffffffff);
            55: tna_x_zn(0x7fffff, 0xffffffff);
            56: tna_x_zn(0xffffff, 0xffffffff);
            57: tna_x_zn(0x1ffffff, 0xffffffff);
            58: tna_x_zn(0x3ffffff, 0xffffffff);
            59: tna_x_zn(0x7ffffff, 0xffffffff);
            60: tna_x_zn(0xfffffff, 0xffffffff);
            61: tna_x_zn(0x1fffffff, 0xffffffff);
            62: tna_x_zn(0x3fffffff, 0xffffffff);
            63: tna_x_zn(0x7fffffff, 0xffffffff);
            64: tna_x_zn(0xffffffff, 0xffffffff);
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
            (0, 0 &&& 0xffffffff, 0 &&& 0xffffffff): tna_x_zo_ok();
            (1, 0 &&& 0xffffffff, 0 &&& 0xfffffffe): tna_x_zo_ok();
            (2, 0 &&& 0xffffffff, 0 &&& 0xfffffffc): tna_x_zo_ok();
            (3, 0 &&& 0xffffffff, 0 &&& 0xfffffff8): tna_x_zo_ok();
            (4, 0 &&& 0xffffffff, 0 &&& 0xfffffff0): tna_x_zo_ok();
            (5, 0 &&& 0xffffffff, 0 &&& 0xffffffe0): tna_x_zo_ok();
            (6, 0 &&& 0xffffffff, 0 &&& 0xffffffc0): tna_x_zo_ok();
            (7, 0 &&& 0xffffffff, 0 &&& 0xffffff80): tna_x_zo_ok();
            (8, 0 &&& 0xffffffff, 0 &&& 0xffffff00): tna_x_zo_ok();
            (9, 0 &&& 0xffffffff, 0 &&& 0xfffffe00): tna_x_zo_ok();
            (10, 0 &&& 0xffffffff, 0 &&& 0xfffffc00): tna_x_zo_ok();
            (11, 0 &&& 0xffffffff, 0 &&& 0xfffff800): tna_x_zo_ok();
            (12, 0 &&& 0xffffffff, 0 &&& 0xfffff000): tna_x_zo_ok();
            (13, 0 &&& 0xffffffff, 0 &&& 0xffffe000): tna_x_zo_ok();
            (14, 0 &&& 0xffffffff, 0 &&& 0xffffc000): tna_x_zo_ok();
            (15, 0 &&& 0xffffffff, 0 &&& 0xffff8000): tna_x_zo_ok();
            (16, 0 &&& 0xffffffff, 0 &&& 0xffff0000): tna_x_zo_ok();
            (17, 0 &&& 0xffffffff, 0 &&& 0xfffe0000): tna_x_zo_ok();
            (18, 0 &&& 0xffffffff, 0 &&& 0xfffc0000): tna_x_zo_ok();
            (19, 0 &&& 0xffffffff, 0 &&& 0xfff80000): tna_x_zo_ok();
            (20, 0 &&& 0xffffffff, 0 &&& 0xfff00000): tna_x_zo_ok();
            (21, 0 &&& 0xffffffff, 0 &&& 0xffe00000): tna_x_zo_ok();
            (22, 0 &&& 0xffffffff, 0 &&& 0xffc00000): tna_x_zo_ok();
            (23, 0 &&& 0xffffffff, 0 &&& 0xff800000): tna_x_zo_ok();
            (24, 0 &&& 0xffffffff, 0 &&& 0xff000000): tna_x_zo_ok();
            (25, 0 &&& 0xffffffff, 0 &&& 0xfe000000): tna_x_zo_ok();
            (26, 0 &&& 0xffffffff, 0 &&& 0xfc000000): tna_x_zo_ok();
            (27, 0 &&& 0xffffffff, 0 &&& 0xf8000000): tna_x_zo_ok();
            (28, 0 &&& 0xffffffff, 0 &&& 0xf0000000): tna_x_zo_ok();
            (29, 0 &&& 0xffffffff, 0 &&& 0xe0000000): tna_x_zo_ok();
            (30, 0 &&& 0xffffffff, 0 &&& 0xc0000000): tna_x_zo_ok();
            (31, 0 &&& 0xffffffff, 0 &&& 0x80000000): tna_x_zo_ok();
            (32, 0 &&& 0xffffffff, _): tna_x_zo_ok();
            (33, 0 &&& 0xfffffffe, _): tna_x_zo_ok();
            (34, 0 &&& 0xfffffffc, _): tna_x_zo_ok();
            (35, 0 &&& 0xfffffff8, _): tna_x_zo_ok();
            (36, 0 &&& 0xfffffff0, _): tna_x_zo_ok();
            (37, 0 &&& 0xffffffe0, _): tna_x_zo_ok();
            (38, 0 &&& 0xffffffc0, _): tna_x_zo_ok();
            (39, 0 &&& 0xffffff80, _): tna_x_zo_ok();
            (40, 0 &&& 0xffffff00, _): tna_x_zo_ok();
            (41, 0 &&& 0xfffffe00, _): tna_x_zo_ok();
            (42, 0 &&& 0xfffffc00, _): tna_x_zo_ok();
            (43, 0 &&& 0xfffff800, _): tna_x_zo_ok();
            (44, 0 &&& 0xfffff000, _): tna_x_zo_ok();
            (45, 0 &&& 0xffffe000, _): tna_x_zo_ok();
            (46, 0 &&& 0xffffc000, _): tna_x_zo_ok();
            (47, 0 &&& 0xffff8000, _): tna_x_zo_ok();
            (48, 0 &&& 0xffff0000, _): tna_x_zo_ok();
            (49, 0 &&& 0xfffe0000, _): tna_x_zo_ok();
            (50, 0 &&& 0xfffc0000, _): tna_x_zo_ok();
            (51, 0 &&& 0xfff80000, _): tna_x_zo_ok();
            (52, 0 &&& 0xfff00000, _): tna_x_zo_ok();
            (53, 0 &&& 0xffe00000, _): tna_x_zo_ok();
            (54, 0 &&& 0xffc00000, _): tna_x_zo_ok();
            (55, 0 &&& 0xff800000, _): tna_x_zo_ok();
            (56, 0 &&& 0xff000000, _): tna_x_zo_ok();
            (57, 0 &&& 0xfe000000, _): tna_x_zo_ok();
            (58, 0 &&& 0xfc000000, _): tna_x_zo_ok();
            (59, 0 &&& 0xf8000000, _): tna_x_zo_ok();
            (60, 0 &&& 0xf0000000, _): tna_x_zo_ok();
            (61, 0 &&& 0xe0000000, _): tna_x_zo_ok();
            (62, 0 &&& 0xc0000000, _): tna_x_zo_ok();
            (63, 0 &&& 0x80000000, _): tna_x_zo_ok();
            (64 &&& 0xc0, _, _): tna_x_zo_ok();
            (128 &&& 0x80, _, _): tna_x_zo_ok();
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
            (0, 0 &&& 0xffffffffffffffff): tna_chk_id_ok();
            (1, 0 &&& 0x7fffffffffffffff): tna_chk_id_ok();
            (2, 0 &&& 0x3fffffffffffffff): tna_chk_id_ok();
            (3, 0 &&& 0x1fffffffffffffff): tna_chk_id_ok();
            (4, 0 &&& 0xfffffffffffffff): tna_chk_id_ok();
            (5, 0 &&& 0x7ffffffffffffff): tna_chk_id_ok();
            (6, 0 &&& 0x3ffffffffffffff): tna_chk_id_ok();
            (7, 0 &&& 0x1ffffffffffffff): tna_chk_id_ok();
            (8, 0 &&& 0xffffffffffffff): tna_chk_id_ok();
            (9, 0 &&& 0x7fffffffffffff): tna_chk_id_ok();
            (10, 0 &&& 0x3fffffffffffff): tna_chk_id_ok();
            (11, 0 &&& 0x1fffffffffffff): tna_chk_id_ok();
            (12, 0 &&& 0xfffffffffffff): tna_chk_id_ok();
            (13, 0 &&& 0x7ffffffffffff): tna_chk_id_ok();
            (14, 0 &&& 0x3ffffffffffff): tna_chk_id_ok();
            (15, 0 &&& 0x1ffffffffffff): tna_chk_id_ok();
            (16, 0 &&& 0xffffffffffff): tna_chk_id_ok();
            (17, 0 &&& 0x7fffffffffff): tna_chk_id_ok();
            (18, 0 &&& 0x3fffffffffff): tna_chk_id_ok();
            (19, 0 &&& 0x1fffffffffff): tna_chk_id_ok();
            (20, 0 &&& 0xfffffffffff): tna_chk_id_ok();
            (21, 0 &&& 0x7ffffffffff): tna_chk_id_ok();
            (22, 0 &&& 0x3ffffffffff): tna_chk_id_ok();
            (23, 0 &&& 0x1ffffffffff): tna_chk_id_ok();
            (24, 0 &&& 0xffffffffff): tna_chk_id_ok();
            (25, 0 &&& 0x7fffffffff): tna_chk_id_ok();
            (26, 0 &&& 0x3fffffffff): tna_chk_id_ok();
            (27, 0 &&& 0x1fffffffff): tna_chk_id_ok();
            (28, 0 &&& 0xfffffffff): tna_chk_id_ok();
            (29, 0 &&& 0x7ffffffff): tna_chk_id_ok();
            (30, 0 &&& 0x3ffffffff): tna_chk_id_ok();
            (31, 0 &&& 0x1ffffffff): tna_chk_id_ok();
            (32, 0 &&& 0xffffffff): tna_chk_id_ok();
            (33, 0 &&& 0x7fffffff): tna_chk_id_ok();
            (34, 0 &&& 0x3fffffff): tna_chk_id_ok();
            (35, 0 &&& 0x1fffffff): tna_chk_id_ok();
            (36, 0 &&& 0xfffffff): tna_chk_id_ok();
            (37, 0 &&& 0x7ffffff): tna_chk_id_ok();
            (38, 0 &&& 0x3ffffff): tna_chk_id_ok();
            (39, 0 &&& 0x1ffffff): tna_chk_id_ok();
            (40, 0 &&& 0xffffff): tna_chk_id_ok();
            (41, 0 &&& 0x7fffff): tna_chk_id_ok();
            (42, 0 &&& 0x3fffff): tna_chk_id_ok();
            (43, 0 &&& 0x1fffff): tna_chk_id_ok();
            (44, 0 &&& 0xfffff): tna_chk_id_ok();
            (45, 0 &&& 0x7ffff): tna_chk_id_ok();
            (46, 0 &&& 0x3ffff): tna_chk_id_ok();
            (47, 0 &&& 0x1ffff): tna_chk_id_ok();
            (48, 0 &&& 0xffff): tna_chk_id_ok();
            (49, 0 &&& 0x7fff): tna_chk_id_ok();
            (50, 0 &&& 0x3fff): tna_chk_id_ok();
            (51, 0 &&& 0x1fff): tna_chk_id_ok();
            (52, 0 &&& 0xfff): tna_chk_id_ok();
            (53, 0 &&& 0x7ff): tna_chk_id_ok();
            (54, 0 &&& 0x3ff): tna_chk_id_ok();
            (55, 0 &&& 0x1ff): tna_chk_id_ok();
            (56, 0 &&& 0xff): tna_chk_id_ok();
            (57, 0 &&& 0x7f): tna_chk_id_ok();
            (58, 0 &&& 0x3f): tna_chk_id_ok();
            (59, 0 &&& 0x1f): tna_chk_id_ok();
            (60, 0 &&& 0xf): tna_chk_id_ok();
            (61, 0 &&& 0x7): tna_chk_id_ok();
            (62, 0 &&& 0x3): tna_chk_id_ok();
            (63, 0 &&& 0x1): tna_chk_id_ok();
            (64, _): tna_chk_id_ok();
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
            (0x0000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(0);
            (0x4000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(1);
            (0x8000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(2);
            (0xc000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(0);
            (0x1000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(1);
            (0x2000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(2);
            (0x3000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(0);
            (0x0400000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(1);
            (0x0800000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(2);
            (0x0c00000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(0);
            (0x0100000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(1);
            (0x0200000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(2);
            (0x0300000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(0);
            (0x0040000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(1);
            (0x0080000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(2);
            (0x00c0000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(0);
            (0x0010000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(1);
            (0x0020000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(2);
            (0x0030000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(0);
            (0x0004000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(1);
            (0x0008000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(2);
            (0x000c000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(0);
            (0x0001000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(1);
            (0x0002000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(2);
            (0x0003000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000400000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000800000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(2);
            (0x0000c00000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000100000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000200000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000300000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000040000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000080000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(2);
            (0x00000c0000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000010000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000020000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000030000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000004000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000008000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(2);
            (0x000000c000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000001000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000002000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000003000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000400000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000800000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(2);
            (0x0000000c00000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000100000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000200000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000300000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000040000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000080000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(2);
            (0x00000000c0000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000010000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000020000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000030000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000004000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000008000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(2);
            (0x000000000c000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000001000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000002000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000003000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000000400000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000000800000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(2);
            (0x0000000000c00000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000000100000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000000200000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000000300000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000000040000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000000080000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(2);
            (0x00000000000c0000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000000010000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000000020000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000000030000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000000004000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000000008000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(2);
            (0x000000000000c000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000000001000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000000002000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000000003000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000000000400 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000000000800 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(2);
            (0x0000000000000c00 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000000000100 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000000000200 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000000000300 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000000000040 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000000000080 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(2);
            (0x00000000000000c0 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000000000010 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000000000020 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000000000030 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000000000004 &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000000000008 &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(2);
            (0x000000000000000c &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000000000001 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000000000002 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000000000003 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(3);
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
            (0x0000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(0);
            (0x4000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(1);
            (0x8000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(2);
            (0xc000000000000000 &&& 0xc000000000000000, 0x0000 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(0);
            (0x1000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(1);
            (0x2000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(2);
            (0x3000000000000000 &&& 0x3000000000000000, 0x0000 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(0);
            (0x0400000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(1);
            (0x0800000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(2);
            (0x0c00000000000000 &&& 0x0c00000000000000, 0x0000 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(0);
            (0x0100000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(1);
            (0x0200000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(2);
            (0x0300000000000000 &&& 0x0300000000000000, 0x0000 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(0);
            (0x0040000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(1);
            (0x0080000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(2);
            (0x00c0000000000000 &&& 0x00c0000000000000, 0x0001 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(0);
            (0x0010000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(1);
            (0x0020000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(2);
            (0x0030000000000000 &&& 0x0030000000000000, 0x0001 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(0);
            (0x0004000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(1);
            (0x0008000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(2);
            (0x000c000000000000 &&& 0x000c000000000000, 0x0001 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(0);
            (0x0001000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(1);
            (0x0002000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(2);
            (0x0003000000000000 &&& 0x0003000000000000, 0x0001 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000400000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000800000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(2);
            (0x0000c00000000000 &&& 0x0000c00000000000, 0x0002 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000100000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000200000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000300000000000 &&& 0x0000300000000000, 0x0002 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000040000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000080000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(2);
            (0x00000c0000000000 &&& 0x00000c0000000000, 0x0002 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000010000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000020000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000030000000000 &&& 0x0000030000000000, 0x0002 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000004000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000008000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(2);
            (0x000000c000000000 &&& 0x000000c000000000, 0x0003 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000001000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000002000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000003000000000 &&& 0x0000003000000000, 0x0003 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000400000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000800000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(2);
            (0x0000000c00000000 &&& 0x0000000c00000000, 0x0003 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000100000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000200000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000300000000 &&& 0x0000000300000000, 0x0003 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000040000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000080000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(2);
            (0x00000000c0000000 &&& 0x00000000c0000000, 0x0004 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000010000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000020000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000030000000 &&& 0x0000000030000000, 0x0004 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000004000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000008000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(2);
            (0x000000000c000000 &&& 0x000000000c000000, 0x0004 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000001000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000002000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000003000000 &&& 0x0000000003000000, 0x0004 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000000400000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000000800000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(2);
            (0x0000000000c00000 &&& 0x0000000000c00000, 0x0005 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000000100000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000000200000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000000300000 &&& 0x0000000000300000, 0x0005 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000000040000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000000080000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(2);
            (0x00000000000c0000 &&& 0x00000000000c0000, 0x0005 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000000010000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000000020000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000000030000 &&& 0x0000000000030000, 0x0005 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000000004000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000000008000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(2);
            (0x000000000000c000 &&& 0x000000000000c000, 0x0006 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000000001000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000000002000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000000003000 &&& 0x0000000000003000, 0x0006 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000000000400 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000000000800 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(2);
            (0x0000000000000c00 &&& 0x0000000000000c00, 0x0006 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000000000100 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000000000200 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000000000300 &&& 0x0000000000000300, 0x0006 &&& 0x0007, 3): tna_set_dir(3);
            (0x0000000000000000 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(0);
            (0x0000000000000040 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(1);
            (0x0000000000000080 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(2);
            (0x00000000000000c0 &&& 0x00000000000000c0, 0x0007 &&& 0x0007, 0): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(0);
            (0x0000000000000010 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(1);
            (0x0000000000000020 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(2);
            (0x0000000000000030 &&& 0x0000000000000030, 0x0007 &&& 0x0007, 1): tna_set_dir(3);
            (0x0000000000000000 &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(0);
            (0x0000000000000004 &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(1);
            (0x0000000000000008 &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(2);
            (0x000000000000000c &&& 0x000000000000000c, 0x0007 &&& 0x0007, 2): tna_set_dir(3);
            (0x0000000000000000 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(0);
            (0x0000000000000001 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(1);
            (0x0000000000000002 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(2);
            (0x0000000000000003 &&& 0x0000000000000003, 0x0007 &&& 0x0007, 3): tna_set_dir(3);
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
        /* (no packet_length in TNA ingress: HdrLen against the frame end is not checked) */

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
            /* DROP_RESERVED_BITS_SET: tna_hc_pathid = 1 */  /* flags */
            /* DROP_RESERVED_BITS_SET: tna_hc_pathid = 2 */  /* reserved */
            /* DROP_BAD_FIELD_VALUE: tna_hc_pathid = 3 */  /* id_len */
            bool local = (hdr.pathid.flags & PID_LOCAL) != 0;
            /* DROP_BAD_FIELD_VALUE: tna_hc_pathid = 4 */  /* local */
            /* DROP_BAD_FIELD_VALUE: tna_hc_pathid = 5 */  /* nonlocal */
            tna_chk_id.apply();
            if (meta.id_bad == 1) {
                meta.fl.f36 = 1;
            }
            tna_flow = tna_flow_pathid.get({ hdr.pathid.id, hdr.pathid.host_label });
            bool phase_down = (hdr.pathid.flags & PID_PHASE_DOWN) != 0;
            bool use_host = false;
            bool use_lpm = false;
            if (true) {
                if (meta.role == ROLE_SIDE) {
                    meta.fl.f37 = 1;
                } else if (meta.role == ROLE_UP) {
                    if (!phase_down) {
                        meta.fl.f38 = 1;
                    } else if (meta.pid_leaf == 1) {
                        use_host = true;
                    } else {
                        use_lpm = true;
                    }
                } else if (phase_down) {
                    meta.fl.f39 = 1;
                } else if (local) {
                    if (meta.pid_leaf == 0) {
                        meta.fl.f40 = 1;
                    } else {
                        hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                        use_host = true;
                    }
                } else {
                    use_lpm = true;
                }
            }
            if (use_host) {
                pathid_host.apply();
                if (meta.hit == 0) { meta.fl.f41 = 1; }
            }
            if (use_lpm) {
                pathid_lpm.apply();
                if (meta.hit == 0) {
                    meta.fl.f42 = 1;
                } else if (meta.role == ROLE_UP) {
                    if (meta.down == 0) { meta.fl.f43 = 1; }
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
