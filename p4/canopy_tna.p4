/* Canopy reference program for Tofino (P4_16, TNA).
 * COMPILER STATUS (open-source Tofino back end, p4lang/p4c 1.2.4.17, p4c-barefoot):
 * the front and middle end pass and no "action spanning multiple stages" or action-source
 * error is reported any more, but the back end stops at PHV allocation (table placement is
 * never reached): "PHV allocation was not successful", 147 field slices unallocated on Tofino 1
 * (--target tofino --arch tna): the 32 routing words (2048 bits, all read by tna_route_word)
 * with tr_word, and the 64-bit sliced-flit word, SRC and their shifted copies and masks.
 * Tofino 2 (-DCANOPY_T2NA --target tofino2 --arch t2na) fails the same way, with the same 147 slices.
 * Exit status 1; no bfrt.json, and the .bfa and context.json left behind are empty
 * placeholders: the program does not fit as written.
 * UNTESTED: never run on tofino-model or hardware, never assembled (that release has no
 * assembler), and canopyctl p4-entries does not write its selector members and groups.
 * It follows canopy.p4 (v1model) step by step. The differences come from the target (docs/p4.md §5):
 *  - no variable shifts: the bit cursor, the masks and the digit extraction go through
 *    tables keyed on the shift amount, with constant entries (one action per amount);
 *  - no runtime header-stack index: the routing word is copied by a table keyed on head/8;
 *  - no `return` (as in canopy.p4): a drop flag guards every later step, each table is applied
 *    at one place, and the drop is counted once at the end;
 *  - no frame length in ingress: the "header past the end of the frame" truncated check is not
 *    made (a frame that ends inside the parsed headers fails in the parser instead).
 *  - one ALU operation per action: multi-operation expressions are split into steps that are
 *    direct action calls (p4c's copy propagation, which also covers `meta` fields, does not
 *    cross an action call), or replaced by constant tables (hl, the Transit lengths, the
 *    canopy_port_drops base, Rot, the Transit direction pair), or by a branch per case;
 *  - masks are ANDed in the table actions (label, above_dst/above_src), not as a PHV & PHV.
 * The table entries of canopyctl p4-entries apply unchanged (same table, action and
 * parameter names; port numbers must be mapped to device ports).
 * The constant-entry tables were written with a small one-off script from a template.
 */
#include <core.p4>
/* Tofino 2: -DCANOPY_T2NA with --target tofino2 --arch t2na (docs/p4.md §5) */
#ifdef CANOPY_T2NA
#include <t2na.p4>
#else
#include <tna.p4>
#endif

#define CANOPY_NO_RUNTIME_SHIFT
#define CANOPY_ROUTE_INIT(HDR, META) canopy_pc.set(HDR.transit.route_len);
#define CANOPY_ROUTE_TRANSITION(META)                                  \
    transition select(canopy_pc.is_zero(), canopy_pc.is_negative()) {  \
        (true, false): parse_route_end;                                \
        (false, true): parse_route_end;                                \
        default: parse_route_word;                                     \
    }
#define CANOPY_ROUTE_DEC(META) canopy_pc.decrement(8);
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

control CanopyIngress(inout canopy_headers_t hdr, inout canopy_meta_t meta,
                      in ingress_intrinsic_metadata_t ig_intr_md,
                      in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                      inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                      inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    Counter<bit<32>, bit<32>>(CANOPY_DROPS_SIZE, CounterType_t.PACKETS) canopy_drops;
    Counter<bit<64>, bit<32>>(CANOPY_PORTS, CounterType_t.PACKETS_AND_BYTES) canopy_port_rx;
    Counter<bit<32>, bit<32>>(CANOPY_PORTS * CANOPY_DROPS_SIZE, CounterType_t.PACKETS)
        canopy_port_drops;

    action fail(bit<32> reason) {
        meta.drop = 1;
        meta.drop_reason = reason;
        meta.port_drop = meta.port_drop | reason;
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
        fail(DROP_NO_PORT);
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
    table sliced_down {
        key = { meta.label: exact; }
        actions = { to_group; miss; }
        default_action = miss();
        size = 256;
    }
    table sliced_side {
        key = { meta.side_k: exact; }
        actions = { to_group; miss; }
        default_action = miss();
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
        size = 16384;
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
    bit<8>  tna_rem;        /* slice_len - pos (bits left in the slice) */
    bit<16> tna_total;      /* Transit: expected body length */
    bit<16> tna_rec_total;  /* Transit: record area bytes (8 + the slots rounded to 64 bits) */
    bit<16> tna_rl16;       /* Transit: RouteLen, 16 bits */
    bit<16> tna_inc;        /* Transit: cycles increment, swallow + 1 + delay */
    bit<8>  tna_head8;      /* Transit: the new head, 8 bits (tr_head is sliced by the keys) */
    action tna_body_len() { meta.body_len = meta.hl - 8; }
    action tna_body_len_meas() { meta.body_len = meta.hl - 24; }
    action tna_pos_inc() { meta.pos = meta.pos + 1; }
    action tna_pos_add_a() { meta.pos = meta.pos + meta.sl_a; }
    action tna_pos_add_b() { meta.pos = meta.pos + meta.sl_b; }
    action tna_slice_rem() { tna_rem = hdr.sliced.slice_len - meta.pos; }
    action tna_total_add_rec() { tna_total = tna_total + tna_rec_total; }
    action tna_tr_head() {
        meta.tr_head = (bit<16>)hdr.transit.head;
        tna_head8 = hdr.transit.head;
        tna_rl16 = (bit<16>)hdr.transit.route_len;
    }
    action tna_tr_head_inc() {
        meta.tr_head = meta.tr_head + 1;
        tna_head8 = tna_head8 + 1;
    }
    action tna_tr_inc() { tna_inc = (bit<16>)meta.tr_delay; }
    action tna_tr_inc_1() { tna_inc = tna_inc + 1; }
    action tna_tr_inc_2() { tna_inc = tna_inc + 2; }
    action tna_tr_cycles() { hdr.transit.cycles = hdr.transit.cycles |+| tna_inc; }

    /* hl = HdrLen * 8 (a widening shift needs a constant and a PHV source: not one action) */
    action tna_set_hl(bit<16> hl) { meta.hl = hl; }
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
    action tna_set_port_drop(bit<32> base) { meta.port_drop = base; }
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

    /* take #1 (rho / label): word << pos */
    action tna_shl_a_0() { meta.tmp_a = hdr.sliced.word << 0; }
    action tna_shl_a_1() { meta.tmp_a = hdr.sliced.word << 1; }
    action tna_shl_a_2() { meta.tmp_a = hdr.sliced.word << 2; }
    action tna_shl_a_3() { meta.tmp_a = hdr.sliced.word << 3; }
    action tna_shl_a_4() { meta.tmp_a = hdr.sliced.word << 4; }
    action tna_shl_a_5() { meta.tmp_a = hdr.sliced.word << 5; }
    action tna_shl_a_6() { meta.tmp_a = hdr.sliced.word << 6; }
    action tna_shl_a_7() { meta.tmp_a = hdr.sliced.word << 7; }
    action tna_shl_a_8() { meta.tmp_a = hdr.sliced.word << 8; }
    action tna_shl_a_9() { meta.tmp_a = hdr.sliced.word << 9; }
    action tna_shl_a_10() { meta.tmp_a = hdr.sliced.word << 10; }
    action tna_shl_a_11() { meta.tmp_a = hdr.sliced.word << 11; }
    action tna_shl_a_12() { meta.tmp_a = hdr.sliced.word << 12; }
    action tna_shl_a_13() { meta.tmp_a = hdr.sliced.word << 13; }
    action tna_shl_a_14() { meta.tmp_a = hdr.sliced.word << 14; }
    action tna_shl_a_15() { meta.tmp_a = hdr.sliced.word << 15; }
    action tna_shl_a_16() { meta.tmp_a = hdr.sliced.word << 16; }
    action tna_shl_a_17() { meta.tmp_a = hdr.sliced.word << 17; }
    action tna_shl_a_18() { meta.tmp_a = hdr.sliced.word << 18; }
    action tna_shl_a_19() { meta.tmp_a = hdr.sliced.word << 19; }
    action tna_shl_a_20() { meta.tmp_a = hdr.sliced.word << 20; }
    action tna_shl_a_21() { meta.tmp_a = hdr.sliced.word << 21; }
    action tna_shl_a_22() { meta.tmp_a = hdr.sliced.word << 22; }
    action tna_shl_a_23() { meta.tmp_a = hdr.sliced.word << 23; }
    action tna_shl_a_24() { meta.tmp_a = hdr.sliced.word << 24; }
    action tna_shl_a_25() { meta.tmp_a = hdr.sliced.word << 25; }
    action tna_shl_a_26() { meta.tmp_a = hdr.sliced.word << 26; }
    action tna_shl_a_27() { meta.tmp_a = hdr.sliced.word << 27; }
    action tna_shl_a_28() { meta.tmp_a = hdr.sliced.word << 28; }
    action tna_shl_a_29() { meta.tmp_a = hdr.sliced.word << 29; }
    action tna_shl_a_30() { meta.tmp_a = hdr.sliced.word << 30; }
    action tna_shl_a_31() { meta.tmp_a = hdr.sliced.word << 31; }
    action tna_shl_a_32() { meta.tmp_a = hdr.sliced.word << 32; }
    action tna_shl_a_33() { meta.tmp_a = hdr.sliced.word << 33; }
    action tna_shl_a_34() { meta.tmp_a = hdr.sliced.word << 34; }
    action tna_shl_a_35() { meta.tmp_a = hdr.sliced.word << 35; }
    action tna_shl_a_36() { meta.tmp_a = hdr.sliced.word << 36; }
    action tna_shl_a_37() { meta.tmp_a = hdr.sliced.word << 37; }
    action tna_shl_a_38() { meta.tmp_a = hdr.sliced.word << 38; }
    action tna_shl_a_39() { meta.tmp_a = hdr.sliced.word << 39; }
    action tna_shl_a_40() { meta.tmp_a = hdr.sliced.word << 40; }
    action tna_shl_a_41() { meta.tmp_a = hdr.sliced.word << 41; }
    action tna_shl_a_42() { meta.tmp_a = hdr.sliced.word << 42; }
    action tna_shl_a_43() { meta.tmp_a = hdr.sliced.word << 43; }
    action tna_shl_a_44() { meta.tmp_a = hdr.sliced.word << 44; }
    action tna_shl_a_45() { meta.tmp_a = hdr.sliced.word << 45; }
    action tna_shl_a_46() { meta.tmp_a = hdr.sliced.word << 46; }
    action tna_shl_a_47() { meta.tmp_a = hdr.sliced.word << 47; }
    action tna_shl_a_48() { meta.tmp_a = hdr.sliced.word << 48; }
    action tna_shl_a_49() { meta.tmp_a = hdr.sliced.word << 49; }
    action tna_shl_a_50() { meta.tmp_a = hdr.sliced.word << 50; }
    action tna_shl_a_51() { meta.tmp_a = hdr.sliced.word << 51; }
    action tna_shl_a_52() { meta.tmp_a = hdr.sliced.word << 52; }
    action tna_shl_a_53() { meta.tmp_a = hdr.sliced.word << 53; }
    action tna_shl_a_54() { meta.tmp_a = hdr.sliced.word << 54; }
    action tna_shl_a_55() { meta.tmp_a = hdr.sliced.word << 55; }
    action tna_shl_a_56() { meta.tmp_a = hdr.sliced.word << 56; }
    action tna_shl_a_57() { meta.tmp_a = hdr.sliced.word << 57; }
    action tna_shl_a_58() { meta.tmp_a = hdr.sliced.word << 58; }
    action tna_shl_a_59() { meta.tmp_a = hdr.sliced.word << 59; }
    action tna_shl_a_60() { meta.tmp_a = hdr.sliced.word << 60; }
    action tna_shl_a_61() { meta.tmp_a = hdr.sliced.word << 61; }
    action tna_shl_a_62() { meta.tmp_a = hdr.sliced.word << 62; }
    action tna_shl_a_63() { meta.tmp_a = hdr.sliced.word << 63; }
    table tna_shl_a {
        key = { meta.pos: exact; }
        actions = { tna_shl_a_0; tna_shl_a_1; tna_shl_a_2; tna_shl_a_3; tna_shl_a_4; tna_shl_a_5; tna_shl_a_6; tna_shl_a_7; tna_shl_a_8; tna_shl_a_9; tna_shl_a_10; tna_shl_a_11; tna_shl_a_12; tna_shl_a_13; tna_shl_a_14; tna_shl_a_15; tna_shl_a_16; tna_shl_a_17; tna_shl_a_18; tna_shl_a_19; tna_shl_a_20; tna_shl_a_21; tna_shl_a_22; tna_shl_a_23; tna_shl_a_24; tna_shl_a_25; tna_shl_a_26; tna_shl_a_27; tna_shl_a_28; tna_shl_a_29; tna_shl_a_30; tna_shl_a_31; tna_shl_a_32; tna_shl_a_33; tna_shl_a_34; tna_shl_a_35; tna_shl_a_36; tna_shl_a_37; tna_shl_a_38; tna_shl_a_39; tna_shl_a_40; tna_shl_a_41; tna_shl_a_42; tna_shl_a_43; tna_shl_a_44; tna_shl_a_45; tna_shl_a_46; tna_shl_a_47; tna_shl_a_48; tna_shl_a_49; tna_shl_a_50; tna_shl_a_51; tna_shl_a_52; tna_shl_a_53; tna_shl_a_54; tna_shl_a_55; tna_shl_a_56; tna_shl_a_57; tna_shl_a_58; tna_shl_a_59; tna_shl_a_60; tna_shl_a_61; tna_shl_a_62; tna_shl_a_63; }
        const entries = {
            0: tna_shl_a_0();
            1: tna_shl_a_1();
            2: tna_shl_a_2();
            3: tna_shl_a_3();
            4: tna_shl_a_4();
            5: tna_shl_a_5();
            6: tna_shl_a_6();
            7: tna_shl_a_7();
            8: tna_shl_a_8();
            9: tna_shl_a_9();
            10: tna_shl_a_10();
            11: tna_shl_a_11();
            12: tna_shl_a_12();
            13: tna_shl_a_13();
            14: tna_shl_a_14();
            15: tna_shl_a_15();
            16: tna_shl_a_16();
            17: tna_shl_a_17();
            18: tna_shl_a_18();
            19: tna_shl_a_19();
            20: tna_shl_a_20();
            21: tna_shl_a_21();
            22: tna_shl_a_22();
            23: tna_shl_a_23();
            24: tna_shl_a_24();
            25: tna_shl_a_25();
            26: tna_shl_a_26();
            27: tna_shl_a_27();
            28: tna_shl_a_28();
            29: tna_shl_a_29();
            30: tna_shl_a_30();
            31: tna_shl_a_31();
            32: tna_shl_a_32();
            33: tna_shl_a_33();
            34: tna_shl_a_34();
            35: tna_shl_a_35();
            36: tna_shl_a_36();
            37: tna_shl_a_37();
            38: tna_shl_a_38();
            39: tna_shl_a_39();
            40: tna_shl_a_40();
            41: tna_shl_a_41();
            42: tna_shl_a_42();
            43: tna_shl_a_43();
            44: tna_shl_a_44();
            45: tna_shl_a_45();
            46: tna_shl_a_46();
            47: tna_shl_a_47();
            48: tna_shl_a_48();
            49: tna_shl_a_49();
            50: tna_shl_a_50();
            51: tna_shl_a_51();
            52: tna_shl_a_52();
            53: tna_shl_a_53();
            54: tna_shl_a_54();
            55: tna_shl_a_55();
            56: tna_shl_a_56();
            57: tna_shl_a_57();
            58: tna_shl_a_58();
            59: tna_shl_a_59();
            60: tna_shl_a_60();
            61: tna_shl_a_61();
            62: tna_shl_a_62();
            63: tna_shl_a_63();
        }
        size = 64;
    }
    /* take #1: >> (64 - w), keyed on 64 - w */
    action tna_shr_a_0() { meta.take_v = meta.tmp_a >> 0; }
    action tna_shr_a_1() { meta.take_v = meta.tmp_a >> 1; }
    action tna_shr_a_2() { meta.take_v = meta.tmp_a >> 2; }
    action tna_shr_a_3() { meta.take_v = meta.tmp_a >> 3; }
    action tna_shr_a_4() { meta.take_v = meta.tmp_a >> 4; }
    action tna_shr_a_5() { meta.take_v = meta.tmp_a >> 5; }
    action tna_shr_a_6() { meta.take_v = meta.tmp_a >> 6; }
    action tna_shr_a_7() { meta.take_v = meta.tmp_a >> 7; }
    action tna_shr_a_8() { meta.take_v = meta.tmp_a >> 8; }
    action tna_shr_a_9() { meta.take_v = meta.tmp_a >> 9; }
    action tna_shr_a_10() { meta.take_v = meta.tmp_a >> 10; }
    action tna_shr_a_11() { meta.take_v = meta.tmp_a >> 11; }
    action tna_shr_a_12() { meta.take_v = meta.tmp_a >> 12; }
    action tna_shr_a_13() { meta.take_v = meta.tmp_a >> 13; }
    action tna_shr_a_14() { meta.take_v = meta.tmp_a >> 14; }
    action tna_shr_a_15() { meta.take_v = meta.tmp_a >> 15; }
    action tna_shr_a_16() { meta.take_v = meta.tmp_a >> 16; }
    action tna_shr_a_17() { meta.take_v = meta.tmp_a >> 17; }
    action tna_shr_a_18() { meta.take_v = meta.tmp_a >> 18; }
    action tna_shr_a_19() { meta.take_v = meta.tmp_a >> 19; }
    action tna_shr_a_20() { meta.take_v = meta.tmp_a >> 20; }
    action tna_shr_a_21() { meta.take_v = meta.tmp_a >> 21; }
    action tna_shr_a_22() { meta.take_v = meta.tmp_a >> 22; }
    action tna_shr_a_23() { meta.take_v = meta.tmp_a >> 23; }
    action tna_shr_a_24() { meta.take_v = meta.tmp_a >> 24; }
    action tna_shr_a_25() { meta.take_v = meta.tmp_a >> 25; }
    action tna_shr_a_26() { meta.take_v = meta.tmp_a >> 26; }
    action tna_shr_a_27() { meta.take_v = meta.tmp_a >> 27; }
    action tna_shr_a_28() { meta.take_v = meta.tmp_a >> 28; }
    action tna_shr_a_29() { meta.take_v = meta.tmp_a >> 29; }
    action tna_shr_a_30() { meta.take_v = meta.tmp_a >> 30; }
    action tna_shr_a_31() { meta.take_v = meta.tmp_a >> 31; }
    action tna_shr_a_32() { meta.take_v = meta.tmp_a >> 32; }
    action tna_shr_a_33() { meta.take_v = meta.tmp_a >> 33; }
    action tna_shr_a_34() { meta.take_v = meta.tmp_a >> 34; }
    action tna_shr_a_35() { meta.take_v = meta.tmp_a >> 35; }
    action tna_shr_a_36() { meta.take_v = meta.tmp_a >> 36; }
    action tna_shr_a_37() { meta.take_v = meta.tmp_a >> 37; }
    action tna_shr_a_38() { meta.take_v = meta.tmp_a >> 38; }
    action tna_shr_a_39() { meta.take_v = meta.tmp_a >> 39; }
    action tna_shr_a_40() { meta.take_v = meta.tmp_a >> 40; }
    action tna_shr_a_41() { meta.take_v = meta.tmp_a >> 41; }
    action tna_shr_a_42() { meta.take_v = meta.tmp_a >> 42; }
    action tna_shr_a_43() { meta.take_v = meta.tmp_a >> 43; }
    action tna_shr_a_44() { meta.take_v = meta.tmp_a >> 44; }
    action tna_shr_a_45() { meta.take_v = meta.tmp_a >> 45; }
    action tna_shr_a_46() { meta.take_v = meta.tmp_a >> 46; }
    action tna_shr_a_47() { meta.take_v = meta.tmp_a >> 47; }
    action tna_shr_a_48() { meta.take_v = meta.tmp_a >> 48; }
    action tna_shr_a_49() { meta.take_v = meta.tmp_a >> 49; }
    action tna_shr_a_50() { meta.take_v = meta.tmp_a >> 50; }
    action tna_shr_a_51() { meta.take_v = meta.tmp_a >> 51; }
    action tna_shr_a_52() { meta.take_v = meta.tmp_a >> 52; }
    action tna_shr_a_53() { meta.take_v = meta.tmp_a >> 53; }
    action tna_shr_a_54() { meta.take_v = meta.tmp_a >> 54; }
    action tna_shr_a_55() { meta.take_v = meta.tmp_a >> 55; }
    action tna_shr_a_56() { meta.take_v = meta.tmp_a >> 56; }
    action tna_shr_a_57() { meta.take_v = meta.tmp_a >> 57; }
    action tna_shr_a_58() { meta.take_v = meta.tmp_a >> 58; }
    action tna_shr_a_59() { meta.take_v = meta.tmp_a >> 59; }
    action tna_shr_a_60() { meta.take_v = meta.tmp_a >> 60; }
    action tna_shr_a_61() { meta.take_v = meta.tmp_a >> 61; }
    action tna_shr_a_62() { meta.take_v = meta.tmp_a >> 62; }
    action tna_shr_a_63() { meta.take_v = meta.tmp_a >> 63; }
    action tna_shr_a_64() { meta.take_v = 0; }
    table tna_shr_a {
        key = { meta.take_w: exact; }
        actions = { tna_shr_a_0; tna_shr_a_1; tna_shr_a_2; tna_shr_a_3; tna_shr_a_4; tna_shr_a_5; tna_shr_a_6; tna_shr_a_7; tna_shr_a_8; tna_shr_a_9; tna_shr_a_10; tna_shr_a_11; tna_shr_a_12; tna_shr_a_13; tna_shr_a_14; tna_shr_a_15; tna_shr_a_16; tna_shr_a_17; tna_shr_a_18; tna_shr_a_19; tna_shr_a_20; tna_shr_a_21; tna_shr_a_22; tna_shr_a_23; tna_shr_a_24; tna_shr_a_25; tna_shr_a_26; tna_shr_a_27; tna_shr_a_28; tna_shr_a_29; tna_shr_a_30; tna_shr_a_31; tna_shr_a_32; tna_shr_a_33; tna_shr_a_34; tna_shr_a_35; tna_shr_a_36; tna_shr_a_37; tna_shr_a_38; tna_shr_a_39; tna_shr_a_40; tna_shr_a_41; tna_shr_a_42; tna_shr_a_43; tna_shr_a_44; tna_shr_a_45; tna_shr_a_46; tna_shr_a_47; tna_shr_a_48; tna_shr_a_49; tna_shr_a_50; tna_shr_a_51; tna_shr_a_52; tna_shr_a_53; tna_shr_a_54; tna_shr_a_55; tna_shr_a_56; tna_shr_a_57; tna_shr_a_58; tna_shr_a_59; tna_shr_a_60; tna_shr_a_61; tna_shr_a_62; tna_shr_a_63; tna_shr_a_64; }
        const entries = {
            0: tna_shr_a_0();
            1: tna_shr_a_1();
            2: tna_shr_a_2();
            3: tna_shr_a_3();
            4: tna_shr_a_4();
            5: tna_shr_a_5();
            6: tna_shr_a_6();
            7: tna_shr_a_7();
            8: tna_shr_a_8();
            9: tna_shr_a_9();
            10: tna_shr_a_10();
            11: tna_shr_a_11();
            12: tna_shr_a_12();
            13: tna_shr_a_13();
            14: tna_shr_a_14();
            15: tna_shr_a_15();
            16: tna_shr_a_16();
            17: tna_shr_a_17();
            18: tna_shr_a_18();
            19: tna_shr_a_19();
            20: tna_shr_a_20();
            21: tna_shr_a_21();
            22: tna_shr_a_22();
            23: tna_shr_a_23();
            24: tna_shr_a_24();
            25: tna_shr_a_25();
            26: tna_shr_a_26();
            27: tna_shr_a_27();
            28: tna_shr_a_28();
            29: tna_shr_a_29();
            30: tna_shr_a_30();
            31: tna_shr_a_31();
            32: tna_shr_a_32();
            33: tna_shr_a_33();
            34: tna_shr_a_34();
            35: tna_shr_a_35();
            36: tna_shr_a_36();
            37: tna_shr_a_37();
            38: tna_shr_a_38();
            39: tna_shr_a_39();
            40: tna_shr_a_40();
            41: tna_shr_a_41();
            42: tna_shr_a_42();
            43: tna_shr_a_43();
            44: tna_shr_a_44();
            45: tna_shr_a_45();
            46: tna_shr_a_46();
            47: tna_shr_a_47();
            48: tna_shr_a_48();
            49: tna_shr_a_49();
            50: tna_shr_a_50();
            51: tna_shr_a_51();
            52: tna_shr_a_52();
            53: tna_shr_a_53();
            54: tna_shr_a_54();
            55: tna_shr_a_55();
            56: tna_shr_a_56();
            57: tna_shr_a_57();
            58: tna_shr_a_58();
            59: tna_shr_a_59();
            60: tna_shr_a_60();
            61: tna_shr_a_61();
            62: tna_shr_a_62();
            63: tna_shr_a_63();
            64: tna_shr_a_64();
        }
        size = 65;
    }
    /* take #2 (side label): word << pos */
    action tna_shl_b_0() { meta.tmp_b = hdr.sliced.word << 0; }
    action tna_shl_b_1() { meta.tmp_b = hdr.sliced.word << 1; }
    action tna_shl_b_2() { meta.tmp_b = hdr.sliced.word << 2; }
    action tna_shl_b_3() { meta.tmp_b = hdr.sliced.word << 3; }
    action tna_shl_b_4() { meta.tmp_b = hdr.sliced.word << 4; }
    action tna_shl_b_5() { meta.tmp_b = hdr.sliced.word << 5; }
    action tna_shl_b_6() { meta.tmp_b = hdr.sliced.word << 6; }
    action tna_shl_b_7() { meta.tmp_b = hdr.sliced.word << 7; }
    action tna_shl_b_8() { meta.tmp_b = hdr.sliced.word << 8; }
    action tna_shl_b_9() { meta.tmp_b = hdr.sliced.word << 9; }
    action tna_shl_b_10() { meta.tmp_b = hdr.sliced.word << 10; }
    action tna_shl_b_11() { meta.tmp_b = hdr.sliced.word << 11; }
    action tna_shl_b_12() { meta.tmp_b = hdr.sliced.word << 12; }
    action tna_shl_b_13() { meta.tmp_b = hdr.sliced.word << 13; }
    action tna_shl_b_14() { meta.tmp_b = hdr.sliced.word << 14; }
    action tna_shl_b_15() { meta.tmp_b = hdr.sliced.word << 15; }
    action tna_shl_b_16() { meta.tmp_b = hdr.sliced.word << 16; }
    action tna_shl_b_17() { meta.tmp_b = hdr.sliced.word << 17; }
    action tna_shl_b_18() { meta.tmp_b = hdr.sliced.word << 18; }
    action tna_shl_b_19() { meta.tmp_b = hdr.sliced.word << 19; }
    action tna_shl_b_20() { meta.tmp_b = hdr.sliced.word << 20; }
    action tna_shl_b_21() { meta.tmp_b = hdr.sliced.word << 21; }
    action tna_shl_b_22() { meta.tmp_b = hdr.sliced.word << 22; }
    action tna_shl_b_23() { meta.tmp_b = hdr.sliced.word << 23; }
    action tna_shl_b_24() { meta.tmp_b = hdr.sliced.word << 24; }
    action tna_shl_b_25() { meta.tmp_b = hdr.sliced.word << 25; }
    action tna_shl_b_26() { meta.tmp_b = hdr.sliced.word << 26; }
    action tna_shl_b_27() { meta.tmp_b = hdr.sliced.word << 27; }
    action tna_shl_b_28() { meta.tmp_b = hdr.sliced.word << 28; }
    action tna_shl_b_29() { meta.tmp_b = hdr.sliced.word << 29; }
    action tna_shl_b_30() { meta.tmp_b = hdr.sliced.word << 30; }
    action tna_shl_b_31() { meta.tmp_b = hdr.sliced.word << 31; }
    action tna_shl_b_32() { meta.tmp_b = hdr.sliced.word << 32; }
    action tna_shl_b_33() { meta.tmp_b = hdr.sliced.word << 33; }
    action tna_shl_b_34() { meta.tmp_b = hdr.sliced.word << 34; }
    action tna_shl_b_35() { meta.tmp_b = hdr.sliced.word << 35; }
    action tna_shl_b_36() { meta.tmp_b = hdr.sliced.word << 36; }
    action tna_shl_b_37() { meta.tmp_b = hdr.sliced.word << 37; }
    action tna_shl_b_38() { meta.tmp_b = hdr.sliced.word << 38; }
    action tna_shl_b_39() { meta.tmp_b = hdr.sliced.word << 39; }
    action tna_shl_b_40() { meta.tmp_b = hdr.sliced.word << 40; }
    action tna_shl_b_41() { meta.tmp_b = hdr.sliced.word << 41; }
    action tna_shl_b_42() { meta.tmp_b = hdr.sliced.word << 42; }
    action tna_shl_b_43() { meta.tmp_b = hdr.sliced.word << 43; }
    action tna_shl_b_44() { meta.tmp_b = hdr.sliced.word << 44; }
    action tna_shl_b_45() { meta.tmp_b = hdr.sliced.word << 45; }
    action tna_shl_b_46() { meta.tmp_b = hdr.sliced.word << 46; }
    action tna_shl_b_47() { meta.tmp_b = hdr.sliced.word << 47; }
    action tna_shl_b_48() { meta.tmp_b = hdr.sliced.word << 48; }
    action tna_shl_b_49() { meta.tmp_b = hdr.sliced.word << 49; }
    action tna_shl_b_50() { meta.tmp_b = hdr.sliced.word << 50; }
    action tna_shl_b_51() { meta.tmp_b = hdr.sliced.word << 51; }
    action tna_shl_b_52() { meta.tmp_b = hdr.sliced.word << 52; }
    action tna_shl_b_53() { meta.tmp_b = hdr.sliced.word << 53; }
    action tna_shl_b_54() { meta.tmp_b = hdr.sliced.word << 54; }
    action tna_shl_b_55() { meta.tmp_b = hdr.sliced.word << 55; }
    action tna_shl_b_56() { meta.tmp_b = hdr.sliced.word << 56; }
    action tna_shl_b_57() { meta.tmp_b = hdr.sliced.word << 57; }
    action tna_shl_b_58() { meta.tmp_b = hdr.sliced.word << 58; }
    action tna_shl_b_59() { meta.tmp_b = hdr.sliced.word << 59; }
    action tna_shl_b_60() { meta.tmp_b = hdr.sliced.word << 60; }
    action tna_shl_b_61() { meta.tmp_b = hdr.sliced.word << 61; }
    action tna_shl_b_62() { meta.tmp_b = hdr.sliced.word << 62; }
    action tna_shl_b_63() { meta.tmp_b = hdr.sliced.word << 63; }
    table tna_shl_b {
        key = { meta.pos: exact; }
        actions = { tna_shl_b_0; tna_shl_b_1; tna_shl_b_2; tna_shl_b_3; tna_shl_b_4; tna_shl_b_5; tna_shl_b_6; tna_shl_b_7; tna_shl_b_8; tna_shl_b_9; tna_shl_b_10; tna_shl_b_11; tna_shl_b_12; tna_shl_b_13; tna_shl_b_14; tna_shl_b_15; tna_shl_b_16; tna_shl_b_17; tna_shl_b_18; tna_shl_b_19; tna_shl_b_20; tna_shl_b_21; tna_shl_b_22; tna_shl_b_23; tna_shl_b_24; tna_shl_b_25; tna_shl_b_26; tna_shl_b_27; tna_shl_b_28; tna_shl_b_29; tna_shl_b_30; tna_shl_b_31; tna_shl_b_32; tna_shl_b_33; tna_shl_b_34; tna_shl_b_35; tna_shl_b_36; tna_shl_b_37; tna_shl_b_38; tna_shl_b_39; tna_shl_b_40; tna_shl_b_41; tna_shl_b_42; tna_shl_b_43; tna_shl_b_44; tna_shl_b_45; tna_shl_b_46; tna_shl_b_47; tna_shl_b_48; tna_shl_b_49; tna_shl_b_50; tna_shl_b_51; tna_shl_b_52; tna_shl_b_53; tna_shl_b_54; tna_shl_b_55; tna_shl_b_56; tna_shl_b_57; tna_shl_b_58; tna_shl_b_59; tna_shl_b_60; tna_shl_b_61; tna_shl_b_62; tna_shl_b_63; }
        const entries = {
            0: tna_shl_b_0();
            1: tna_shl_b_1();
            2: tna_shl_b_2();
            3: tna_shl_b_3();
            4: tna_shl_b_4();
            5: tna_shl_b_5();
            6: tna_shl_b_6();
            7: tna_shl_b_7();
            8: tna_shl_b_8();
            9: tna_shl_b_9();
            10: tna_shl_b_10();
            11: tna_shl_b_11();
            12: tna_shl_b_12();
            13: tna_shl_b_13();
            14: tna_shl_b_14();
            15: tna_shl_b_15();
            16: tna_shl_b_16();
            17: tna_shl_b_17();
            18: tna_shl_b_18();
            19: tna_shl_b_19();
            20: tna_shl_b_20();
            21: tna_shl_b_21();
            22: tna_shl_b_22();
            23: tna_shl_b_23();
            24: tna_shl_b_24();
            25: tna_shl_b_25();
            26: tna_shl_b_26();
            27: tna_shl_b_27();
            28: tna_shl_b_28();
            29: tna_shl_b_29();
            30: tna_shl_b_30();
            31: tna_shl_b_31();
            32: tna_shl_b_32();
            33: tna_shl_b_33();
            34: tna_shl_b_34();
            35: tna_shl_b_35();
            36: tna_shl_b_36();
            37: tna_shl_b_37();
            38: tna_shl_b_38();
            39: tna_shl_b_39();
            40: tna_shl_b_40();
            41: tna_shl_b_41();
            42: tna_shl_b_42();
            43: tna_shl_b_43();
            44: tna_shl_b_44();
            45: tna_shl_b_45();
            46: tna_shl_b_46();
            47: tna_shl_b_47();
            48: tna_shl_b_48();
            49: tna_shl_b_49();
            50: tna_shl_b_50();
            51: tna_shl_b_51();
            52: tna_shl_b_52();
            53: tna_shl_b_53();
            54: tna_shl_b_54();
            55: tna_shl_b_55();
            56: tna_shl_b_56();
            57: tna_shl_b_57();
            58: tna_shl_b_58();
            59: tna_shl_b_59();
            60: tna_shl_b_60();
            61: tna_shl_b_61();
            62: tna_shl_b_62();
            63: tna_shl_b_63();
        }
        size = 64;
    }
    /* take #2: >> (64 - a) */
    action tna_shr_b_0() { meta.side_k = meta.tmp_b >> 0; }
    action tna_shr_b_1() { meta.side_k = meta.tmp_b >> 1; }
    action tna_shr_b_2() { meta.side_k = meta.tmp_b >> 2; }
    action tna_shr_b_3() { meta.side_k = meta.tmp_b >> 3; }
    action tna_shr_b_4() { meta.side_k = meta.tmp_b >> 4; }
    action tna_shr_b_5() { meta.side_k = meta.tmp_b >> 5; }
    action tna_shr_b_6() { meta.side_k = meta.tmp_b >> 6; }
    action tna_shr_b_7() { meta.side_k = meta.tmp_b >> 7; }
    action tna_shr_b_8() { meta.side_k = meta.tmp_b >> 8; }
    action tna_shr_b_9() { meta.side_k = meta.tmp_b >> 9; }
    action tna_shr_b_10() { meta.side_k = meta.tmp_b >> 10; }
    action tna_shr_b_11() { meta.side_k = meta.tmp_b >> 11; }
    action tna_shr_b_12() { meta.side_k = meta.tmp_b >> 12; }
    action tna_shr_b_13() { meta.side_k = meta.tmp_b >> 13; }
    action tna_shr_b_14() { meta.side_k = meta.tmp_b >> 14; }
    action tna_shr_b_15() { meta.side_k = meta.tmp_b >> 15; }
    action tna_shr_b_16() { meta.side_k = meta.tmp_b >> 16; }
    action tna_shr_b_17() { meta.side_k = meta.tmp_b >> 17; }
    action tna_shr_b_18() { meta.side_k = meta.tmp_b >> 18; }
    action tna_shr_b_19() { meta.side_k = meta.tmp_b >> 19; }
    action tna_shr_b_20() { meta.side_k = meta.tmp_b >> 20; }
    action tna_shr_b_21() { meta.side_k = meta.tmp_b >> 21; }
    action tna_shr_b_22() { meta.side_k = meta.tmp_b >> 22; }
    action tna_shr_b_23() { meta.side_k = meta.tmp_b >> 23; }
    action tna_shr_b_24() { meta.side_k = meta.tmp_b >> 24; }
    action tna_shr_b_25() { meta.side_k = meta.tmp_b >> 25; }
    action tna_shr_b_26() { meta.side_k = meta.tmp_b >> 26; }
    action tna_shr_b_27() { meta.side_k = meta.tmp_b >> 27; }
    action tna_shr_b_28() { meta.side_k = meta.tmp_b >> 28; }
    action tna_shr_b_29() { meta.side_k = meta.tmp_b >> 29; }
    action tna_shr_b_30() { meta.side_k = meta.tmp_b >> 30; }
    action tna_shr_b_31() { meta.side_k = meta.tmp_b >> 31; }
    action tna_shr_b_32() { meta.side_k = meta.tmp_b >> 32; }
    action tna_shr_b_33() { meta.side_k = meta.tmp_b >> 33; }
    action tna_shr_b_34() { meta.side_k = meta.tmp_b >> 34; }
    action tna_shr_b_35() { meta.side_k = meta.tmp_b >> 35; }
    action tna_shr_b_36() { meta.side_k = meta.tmp_b >> 36; }
    action tna_shr_b_37() { meta.side_k = meta.tmp_b >> 37; }
    action tna_shr_b_38() { meta.side_k = meta.tmp_b >> 38; }
    action tna_shr_b_39() { meta.side_k = meta.tmp_b >> 39; }
    action tna_shr_b_40() { meta.side_k = meta.tmp_b >> 40; }
    action tna_shr_b_41() { meta.side_k = meta.tmp_b >> 41; }
    action tna_shr_b_42() { meta.side_k = meta.tmp_b >> 42; }
    action tna_shr_b_43() { meta.side_k = meta.tmp_b >> 43; }
    action tna_shr_b_44() { meta.side_k = meta.tmp_b >> 44; }
    action tna_shr_b_45() { meta.side_k = meta.tmp_b >> 45; }
    action tna_shr_b_46() { meta.side_k = meta.tmp_b >> 46; }
    action tna_shr_b_47() { meta.side_k = meta.tmp_b >> 47; }
    action tna_shr_b_48() { meta.side_k = meta.tmp_b >> 48; }
    action tna_shr_b_49() { meta.side_k = meta.tmp_b >> 49; }
    action tna_shr_b_50() { meta.side_k = meta.tmp_b >> 50; }
    action tna_shr_b_51() { meta.side_k = meta.tmp_b >> 51; }
    action tna_shr_b_52() { meta.side_k = meta.tmp_b >> 52; }
    action tna_shr_b_53() { meta.side_k = meta.tmp_b >> 53; }
    action tna_shr_b_54() { meta.side_k = meta.tmp_b >> 54; }
    action tna_shr_b_55() { meta.side_k = meta.tmp_b >> 55; }
    action tna_shr_b_56() { meta.side_k = meta.tmp_b >> 56; }
    action tna_shr_b_57() { meta.side_k = meta.tmp_b >> 57; }
    action tna_shr_b_58() { meta.side_k = meta.tmp_b >> 58; }
    action tna_shr_b_59() { meta.side_k = meta.tmp_b >> 59; }
    action tna_shr_b_60() { meta.side_k = meta.tmp_b >> 60; }
    action tna_shr_b_61() { meta.side_k = meta.tmp_b >> 61; }
    action tna_shr_b_62() { meta.side_k = meta.tmp_b >> 62; }
    action tna_shr_b_63() { meta.side_k = meta.tmp_b >> 63; }
    action tna_shr_b_64() { meta.side_k = 0; }
    table tna_shr_b {
        key = { meta.take_w2: exact; }
        actions = { tna_shr_b_0; tna_shr_b_1; tna_shr_b_2; tna_shr_b_3; tna_shr_b_4; tna_shr_b_5; tna_shr_b_6; tna_shr_b_7; tna_shr_b_8; tna_shr_b_9; tna_shr_b_10; tna_shr_b_11; tna_shr_b_12; tna_shr_b_13; tna_shr_b_14; tna_shr_b_15; tna_shr_b_16; tna_shr_b_17; tna_shr_b_18; tna_shr_b_19; tna_shr_b_20; tna_shr_b_21; tna_shr_b_22; tna_shr_b_23; tna_shr_b_24; tna_shr_b_25; tna_shr_b_26; tna_shr_b_27; tna_shr_b_28; tna_shr_b_29; tna_shr_b_30; tna_shr_b_31; tna_shr_b_32; tna_shr_b_33; tna_shr_b_34; tna_shr_b_35; tna_shr_b_36; tna_shr_b_37; tna_shr_b_38; tna_shr_b_39; tna_shr_b_40; tna_shr_b_41; tna_shr_b_42; tna_shr_b_43; tna_shr_b_44; tna_shr_b_45; tna_shr_b_46; tna_shr_b_47; tna_shr_b_48; tna_shr_b_49; tna_shr_b_50; tna_shr_b_51; tna_shr_b_52; tna_shr_b_53; tna_shr_b_54; tna_shr_b_55; tna_shr_b_56; tna_shr_b_57; tna_shr_b_58; tna_shr_b_59; tna_shr_b_60; tna_shr_b_61; tna_shr_b_62; tna_shr_b_63; tna_shr_b_64; }
        const entries = {
            0: tna_shr_b_0();
            1: tna_shr_b_1();
            2: tna_shr_b_2();
            3: tna_shr_b_3();
            4: tna_shr_b_4();
            5: tna_shr_b_5();
            6: tna_shr_b_6();
            7: tna_shr_b_7();
            8: tna_shr_b_8();
            9: tna_shr_b_9();
            10: tna_shr_b_10();
            11: tna_shr_b_11();
            12: tna_shr_b_12();
            13: tna_shr_b_13();
            14: tna_shr_b_14();
            15: tna_shr_b_15();
            16: tna_shr_b_16();
            17: tna_shr_b_17();
            18: tna_shr_b_18();
            19: tna_shr_b_19();
            20: tna_shr_b_20();
            21: tna_shr_b_21();
            22: tna_shr_b_22();
            23: tna_shr_b_23();
            24: tna_shr_b_24();
            25: tna_shr_b_25();
            26: tna_shr_b_26();
            27: tna_shr_b_27();
            28: tna_shr_b_28();
            29: tna_shr_b_29();
            30: tna_shr_b_30();
            31: tna_shr_b_31();
            32: tna_shr_b_32();
            33: tna_shr_b_33();
            34: tna_shr_b_34();
            35: tna_shr_b_35();
            36: tna_shr_b_36();
            37: tna_shr_b_37();
            38: tna_shr_b_38();
            39: tna_shr_b_39();
            40: tna_shr_b_40();
            41: tna_shr_b_41();
            42: tna_shr_b_42();
            43: tna_shr_b_43();
            44: tna_shr_b_44();
            45: tna_shr_b_45();
            46: tna_shr_b_46();
            47: tna_shr_b_47();
            48: tna_shr_b_48();
            49: tna_shr_b_49();
            50: tna_shr_b_50();
            51: tna_shr_b_51();
            52: tna_shr_b_52();
            53: tna_shr_b_53();
            54: tna_shr_b_54();
            55: tna_shr_b_55();
            56: tna_shr_b_56();
            57: tna_shr_b_57();
            58: tna_shr_b_58();
            59: tna_shr_b_59();
            60: tna_shr_b_60();
            61: tna_shr_b_61();
            62: tna_shr_b_62();
            63: tna_shr_b_63();
            64: tna_shr_b_64();
        }
        size = 65;
    }
    /* take #3 (label after rho/side): word << pos */
    action tna_shl_c_0() { meta.tmp_c = hdr.sliced.word << 0; }
    action tna_shl_c_1() { meta.tmp_c = hdr.sliced.word << 1; }
    action tna_shl_c_2() { meta.tmp_c = hdr.sliced.word << 2; }
    action tna_shl_c_3() { meta.tmp_c = hdr.sliced.word << 3; }
    action tna_shl_c_4() { meta.tmp_c = hdr.sliced.word << 4; }
    action tna_shl_c_5() { meta.tmp_c = hdr.sliced.word << 5; }
    action tna_shl_c_6() { meta.tmp_c = hdr.sliced.word << 6; }
    action tna_shl_c_7() { meta.tmp_c = hdr.sliced.word << 7; }
    action tna_shl_c_8() { meta.tmp_c = hdr.sliced.word << 8; }
    action tna_shl_c_9() { meta.tmp_c = hdr.sliced.word << 9; }
    action tna_shl_c_10() { meta.tmp_c = hdr.sliced.word << 10; }
    action tna_shl_c_11() { meta.tmp_c = hdr.sliced.word << 11; }
    action tna_shl_c_12() { meta.tmp_c = hdr.sliced.word << 12; }
    action tna_shl_c_13() { meta.tmp_c = hdr.sliced.word << 13; }
    action tna_shl_c_14() { meta.tmp_c = hdr.sliced.word << 14; }
    action tna_shl_c_15() { meta.tmp_c = hdr.sliced.word << 15; }
    action tna_shl_c_16() { meta.tmp_c = hdr.sliced.word << 16; }
    action tna_shl_c_17() { meta.tmp_c = hdr.sliced.word << 17; }
    action tna_shl_c_18() { meta.tmp_c = hdr.sliced.word << 18; }
    action tna_shl_c_19() { meta.tmp_c = hdr.sliced.word << 19; }
    action tna_shl_c_20() { meta.tmp_c = hdr.sliced.word << 20; }
    action tna_shl_c_21() { meta.tmp_c = hdr.sliced.word << 21; }
    action tna_shl_c_22() { meta.tmp_c = hdr.sliced.word << 22; }
    action tna_shl_c_23() { meta.tmp_c = hdr.sliced.word << 23; }
    action tna_shl_c_24() { meta.tmp_c = hdr.sliced.word << 24; }
    action tna_shl_c_25() { meta.tmp_c = hdr.sliced.word << 25; }
    action tna_shl_c_26() { meta.tmp_c = hdr.sliced.word << 26; }
    action tna_shl_c_27() { meta.tmp_c = hdr.sliced.word << 27; }
    action tna_shl_c_28() { meta.tmp_c = hdr.sliced.word << 28; }
    action tna_shl_c_29() { meta.tmp_c = hdr.sliced.word << 29; }
    action tna_shl_c_30() { meta.tmp_c = hdr.sliced.word << 30; }
    action tna_shl_c_31() { meta.tmp_c = hdr.sliced.word << 31; }
    action tna_shl_c_32() { meta.tmp_c = hdr.sliced.word << 32; }
    action tna_shl_c_33() { meta.tmp_c = hdr.sliced.word << 33; }
    action tna_shl_c_34() { meta.tmp_c = hdr.sliced.word << 34; }
    action tna_shl_c_35() { meta.tmp_c = hdr.sliced.word << 35; }
    action tna_shl_c_36() { meta.tmp_c = hdr.sliced.word << 36; }
    action tna_shl_c_37() { meta.tmp_c = hdr.sliced.word << 37; }
    action tna_shl_c_38() { meta.tmp_c = hdr.sliced.word << 38; }
    action tna_shl_c_39() { meta.tmp_c = hdr.sliced.word << 39; }
    action tna_shl_c_40() { meta.tmp_c = hdr.sliced.word << 40; }
    action tna_shl_c_41() { meta.tmp_c = hdr.sliced.word << 41; }
    action tna_shl_c_42() { meta.tmp_c = hdr.sliced.word << 42; }
    action tna_shl_c_43() { meta.tmp_c = hdr.sliced.word << 43; }
    action tna_shl_c_44() { meta.tmp_c = hdr.sliced.word << 44; }
    action tna_shl_c_45() { meta.tmp_c = hdr.sliced.word << 45; }
    action tna_shl_c_46() { meta.tmp_c = hdr.sliced.word << 46; }
    action tna_shl_c_47() { meta.tmp_c = hdr.sliced.word << 47; }
    action tna_shl_c_48() { meta.tmp_c = hdr.sliced.word << 48; }
    action tna_shl_c_49() { meta.tmp_c = hdr.sliced.word << 49; }
    action tna_shl_c_50() { meta.tmp_c = hdr.sliced.word << 50; }
    action tna_shl_c_51() { meta.tmp_c = hdr.sliced.word << 51; }
    action tna_shl_c_52() { meta.tmp_c = hdr.sliced.word << 52; }
    action tna_shl_c_53() { meta.tmp_c = hdr.sliced.word << 53; }
    action tna_shl_c_54() { meta.tmp_c = hdr.sliced.word << 54; }
    action tna_shl_c_55() { meta.tmp_c = hdr.sliced.word << 55; }
    action tna_shl_c_56() { meta.tmp_c = hdr.sliced.word << 56; }
    action tna_shl_c_57() { meta.tmp_c = hdr.sliced.word << 57; }
    action tna_shl_c_58() { meta.tmp_c = hdr.sliced.word << 58; }
    action tna_shl_c_59() { meta.tmp_c = hdr.sliced.word << 59; }
    action tna_shl_c_60() { meta.tmp_c = hdr.sliced.word << 60; }
    action tna_shl_c_61() { meta.tmp_c = hdr.sliced.word << 61; }
    action tna_shl_c_62() { meta.tmp_c = hdr.sliced.word << 62; }
    action tna_shl_c_63() { meta.tmp_c = hdr.sliced.word << 63; }
    table tna_shl_c {
        key = { meta.pos2: exact; }
        actions = { tna_shl_c_0; tna_shl_c_1; tna_shl_c_2; tna_shl_c_3; tna_shl_c_4; tna_shl_c_5; tna_shl_c_6; tna_shl_c_7; tna_shl_c_8; tna_shl_c_9; tna_shl_c_10; tna_shl_c_11; tna_shl_c_12; tna_shl_c_13; tna_shl_c_14; tna_shl_c_15; tna_shl_c_16; tna_shl_c_17; tna_shl_c_18; tna_shl_c_19; tna_shl_c_20; tna_shl_c_21; tna_shl_c_22; tna_shl_c_23; tna_shl_c_24; tna_shl_c_25; tna_shl_c_26; tna_shl_c_27; tna_shl_c_28; tna_shl_c_29; tna_shl_c_30; tna_shl_c_31; tna_shl_c_32; tna_shl_c_33; tna_shl_c_34; tna_shl_c_35; tna_shl_c_36; tna_shl_c_37; tna_shl_c_38; tna_shl_c_39; tna_shl_c_40; tna_shl_c_41; tna_shl_c_42; tna_shl_c_43; tna_shl_c_44; tna_shl_c_45; tna_shl_c_46; tna_shl_c_47; tna_shl_c_48; tna_shl_c_49; tna_shl_c_50; tna_shl_c_51; tna_shl_c_52; tna_shl_c_53; tna_shl_c_54; tna_shl_c_55; tna_shl_c_56; tna_shl_c_57; tna_shl_c_58; tna_shl_c_59; tna_shl_c_60; tna_shl_c_61; tna_shl_c_62; tna_shl_c_63; }
        const entries = {
            0: tna_shl_c_0();
            1: tna_shl_c_1();
            2: tna_shl_c_2();
            3: tna_shl_c_3();
            4: tna_shl_c_4();
            5: tna_shl_c_5();
            6: tna_shl_c_6();
            7: tna_shl_c_7();
            8: tna_shl_c_8();
            9: tna_shl_c_9();
            10: tna_shl_c_10();
            11: tna_shl_c_11();
            12: tna_shl_c_12();
            13: tna_shl_c_13();
            14: tna_shl_c_14();
            15: tna_shl_c_15();
            16: tna_shl_c_16();
            17: tna_shl_c_17();
            18: tna_shl_c_18();
            19: tna_shl_c_19();
            20: tna_shl_c_20();
            21: tna_shl_c_21();
            22: tna_shl_c_22();
            23: tna_shl_c_23();
            24: tna_shl_c_24();
            25: tna_shl_c_25();
            26: tna_shl_c_26();
            27: tna_shl_c_27();
            28: tna_shl_c_28();
            29: tna_shl_c_29();
            30: tna_shl_c_30();
            31: tna_shl_c_31();
            32: tna_shl_c_32();
            33: tna_shl_c_33();
            34: tna_shl_c_34();
            35: tna_shl_c_35();
            36: tna_shl_c_36();
            37: tna_shl_c_37();
            38: tna_shl_c_38();
            39: tna_shl_c_39();
            40: tna_shl_c_40();
            41: tna_shl_c_41();
            42: tna_shl_c_42();
            43: tna_shl_c_43();
            44: tna_shl_c_44();
            45: tna_shl_c_45();
            46: tna_shl_c_46();
            47: tna_shl_c_47();
            48: tna_shl_c_48();
            49: tna_shl_c_49();
            50: tna_shl_c_50();
            51: tna_shl_c_51();
            52: tna_shl_c_52();
            53: tna_shl_c_53();
            54: tna_shl_c_54();
            55: tna_shl_c_55();
            56: tna_shl_c_56();
            57: tna_shl_c_57();
            58: tna_shl_c_58();
            59: tna_shl_c_59();
            60: tna_shl_c_60();
            61: tna_shl_c_61();
            62: tna_shl_c_62();
            63: tna_shl_c_63();
        }
        size = 64;
    }
    /* take #3: >> (64 - b) */
    action tna_shr_c_0() { meta.label = meta.tmp_c >> 0; }
    action tna_shr_c_1() { meta.label = meta.tmp_c >> 1; }
    action tna_shr_c_2() { meta.label = meta.tmp_c >> 2; }
    action tna_shr_c_3() { meta.label = meta.tmp_c >> 3; }
    action tna_shr_c_4() { meta.label = meta.tmp_c >> 4; }
    action tna_shr_c_5() { meta.label = meta.tmp_c >> 5; }
    action tna_shr_c_6() { meta.label = meta.tmp_c >> 6; }
    action tna_shr_c_7() { meta.label = meta.tmp_c >> 7; }
    action tna_shr_c_8() { meta.label = meta.tmp_c >> 8; }
    action tna_shr_c_9() { meta.label = meta.tmp_c >> 9; }
    action tna_shr_c_10() { meta.label = meta.tmp_c >> 10; }
    action tna_shr_c_11() { meta.label = meta.tmp_c >> 11; }
    action tna_shr_c_12() { meta.label = meta.tmp_c >> 12; }
    action tna_shr_c_13() { meta.label = meta.tmp_c >> 13; }
    action tna_shr_c_14() { meta.label = meta.tmp_c >> 14; }
    action tna_shr_c_15() { meta.label = meta.tmp_c >> 15; }
    action tna_shr_c_16() { meta.label = meta.tmp_c >> 16; }
    action tna_shr_c_17() { meta.label = meta.tmp_c >> 17; }
    action tna_shr_c_18() { meta.label = meta.tmp_c >> 18; }
    action tna_shr_c_19() { meta.label = meta.tmp_c >> 19; }
    action tna_shr_c_20() { meta.label = meta.tmp_c >> 20; }
    action tna_shr_c_21() { meta.label = meta.tmp_c >> 21; }
    action tna_shr_c_22() { meta.label = meta.tmp_c >> 22; }
    action tna_shr_c_23() { meta.label = meta.tmp_c >> 23; }
    action tna_shr_c_24() { meta.label = meta.tmp_c >> 24; }
    action tna_shr_c_25() { meta.label = meta.tmp_c >> 25; }
    action tna_shr_c_26() { meta.label = meta.tmp_c >> 26; }
    action tna_shr_c_27() { meta.label = meta.tmp_c >> 27; }
    action tna_shr_c_28() { meta.label = meta.tmp_c >> 28; }
    action tna_shr_c_29() { meta.label = meta.tmp_c >> 29; }
    action tna_shr_c_30() { meta.label = meta.tmp_c >> 30; }
    action tna_shr_c_31() { meta.label = meta.tmp_c >> 31; }
    action tna_shr_c_32() { meta.label = meta.tmp_c >> 32; }
    action tna_shr_c_33() { meta.label = meta.tmp_c >> 33; }
    action tna_shr_c_34() { meta.label = meta.tmp_c >> 34; }
    action tna_shr_c_35() { meta.label = meta.tmp_c >> 35; }
    action tna_shr_c_36() { meta.label = meta.tmp_c >> 36; }
    action tna_shr_c_37() { meta.label = meta.tmp_c >> 37; }
    action tna_shr_c_38() { meta.label = meta.tmp_c >> 38; }
    action tna_shr_c_39() { meta.label = meta.tmp_c >> 39; }
    action tna_shr_c_40() { meta.label = meta.tmp_c >> 40; }
    action tna_shr_c_41() { meta.label = meta.tmp_c >> 41; }
    action tna_shr_c_42() { meta.label = meta.tmp_c >> 42; }
    action tna_shr_c_43() { meta.label = meta.tmp_c >> 43; }
    action tna_shr_c_44() { meta.label = meta.tmp_c >> 44; }
    action tna_shr_c_45() { meta.label = meta.tmp_c >> 45; }
    action tna_shr_c_46() { meta.label = meta.tmp_c >> 46; }
    action tna_shr_c_47() { meta.label = meta.tmp_c >> 47; }
    action tna_shr_c_48() { meta.label = meta.tmp_c >> 48; }
    action tna_shr_c_49() { meta.label = meta.tmp_c >> 49; }
    action tna_shr_c_50() { meta.label = meta.tmp_c >> 50; }
    action tna_shr_c_51() { meta.label = meta.tmp_c >> 51; }
    action tna_shr_c_52() { meta.label = meta.tmp_c >> 52; }
    action tna_shr_c_53() { meta.label = meta.tmp_c >> 53; }
    action tna_shr_c_54() { meta.label = meta.tmp_c >> 54; }
    action tna_shr_c_55() { meta.label = meta.tmp_c >> 55; }
    action tna_shr_c_56() { meta.label = meta.tmp_c >> 56; }
    action tna_shr_c_57() { meta.label = meta.tmp_c >> 57; }
    action tna_shr_c_58() { meta.label = meta.tmp_c >> 58; }
    action tna_shr_c_59() { meta.label = meta.tmp_c >> 59; }
    action tna_shr_c_60() { meta.label = meta.tmp_c >> 60; }
    action tna_shr_c_61() { meta.label = meta.tmp_c >> 61; }
    action tna_shr_c_62() { meta.label = meta.tmp_c >> 62; }
    action tna_shr_c_63() { meta.label = meta.tmp_c >> 63; }
    action tna_shr_c_64() { meta.label = 0; }
    table tna_shr_c {
        key = { meta.take_w3: exact; }
        actions = { tna_shr_c_0; tna_shr_c_1; tna_shr_c_2; tna_shr_c_3; tna_shr_c_4; tna_shr_c_5; tna_shr_c_6; tna_shr_c_7; tna_shr_c_8; tna_shr_c_9; tna_shr_c_10; tna_shr_c_11; tna_shr_c_12; tna_shr_c_13; tna_shr_c_14; tna_shr_c_15; tna_shr_c_16; tna_shr_c_17; tna_shr_c_18; tna_shr_c_19; tna_shr_c_20; tna_shr_c_21; tna_shr_c_22; tna_shr_c_23; tna_shr_c_24; tna_shr_c_25; tna_shr_c_26; tna_shr_c_27; tna_shr_c_28; tna_shr_c_29; tna_shr_c_30; tna_shr_c_31; tna_shr_c_32; tna_shr_c_33; tna_shr_c_34; tna_shr_c_35; tna_shr_c_36; tna_shr_c_37; tna_shr_c_38; tna_shr_c_39; tna_shr_c_40; tna_shr_c_41; tna_shr_c_42; tna_shr_c_43; tna_shr_c_44; tna_shr_c_45; tna_shr_c_46; tna_shr_c_47; tna_shr_c_48; tna_shr_c_49; tna_shr_c_50; tna_shr_c_51; tna_shr_c_52; tna_shr_c_53; tna_shr_c_54; tna_shr_c_55; tna_shr_c_56; tna_shr_c_57; tna_shr_c_58; tna_shr_c_59; tna_shr_c_60; tna_shr_c_61; tna_shr_c_62; tna_shr_c_63; tna_shr_c_64; }
        const entries = {
            0: tna_shr_c_0();
            1: tna_shr_c_1();
            2: tna_shr_c_2();
            3: tna_shr_c_3();
            4: tna_shr_c_4();
            5: tna_shr_c_5();
            6: tna_shr_c_6();
            7: tna_shr_c_7();
            8: tna_shr_c_8();
            9: tna_shr_c_9();
            10: tna_shr_c_10();
            11: tna_shr_c_11();
            12: tna_shr_c_12();
            13: tna_shr_c_13();
            14: tna_shr_c_14();
            15: tna_shr_c_15();
            16: tna_shr_c_16();
            17: tna_shr_c_17();
            18: tna_shr_c_18();
            19: tna_shr_c_19();
            20: tna_shr_c_20();
            21: tna_shr_c_21();
            22: tna_shr_c_22();
            23: tna_shr_c_23();
            24: tna_shr_c_24();
            25: tna_shr_c_25();
            26: tna_shr_c_26();
            27: tna_shr_c_27();
            28: tna_shr_c_28();
            29: tna_shr_c_29();
            30: tna_shr_c_30();
            31: tna_shr_c_31();
            32: tna_shr_c_32();
            33: tna_shr_c_33();
            34: tna_shr_c_34();
            35: tna_shr_c_35();
            36: tna_shr_c_36();
            37: tna_shr_c_37();
            38: tna_shr_c_38();
            39: tna_shr_c_39();
            40: tna_shr_c_40();
            41: tna_shr_c_41();
            42: tna_shr_c_42();
            43: tna_shr_c_43();
            44: tna_shr_c_44();
            45: tna_shr_c_45();
            46: tna_shr_c_46();
            47: tna_shr_c_47();
            48: tna_shr_c_48();
            49: tna_shr_c_49();
            50: tna_shr_c_50();
            51: tna_shr_c_51();
            52: tna_shr_c_52();
            53: tna_shr_c_53();
            54: tna_shr_c_54();
            55: tna_shr_c_55();
            56: tna_shr_c_56();
            57: tna_shr_c_57();
            58: tna_shr_c_58();
            59: tna_shr_c_59();
            60: tna_shr_c_60();
            61: tna_shr_c_61();
            62: tna_shr_c_62();
            63: tna_shr_c_63();
            64: tna_shr_c_64();
        }
        size = 65;
    }
    /* low_mask: the low w bits set, from a table keyed on w (no variable shifts) */
    action tna_mask_len_0() { meta.mask = 64w0x0; }
    action tna_mask_len_1() { meta.mask = 64w0x1; }
    action tna_mask_len_2() { meta.mask = 64w0x3; }
    action tna_mask_len_3() { meta.mask = 64w0x7; }
    action tna_mask_len_4() { meta.mask = 64w0xf; }
    action tna_mask_len_5() { meta.mask = 64w0x1f; }
    action tna_mask_len_6() { meta.mask = 64w0x3f; }
    action tna_mask_len_7() { meta.mask = 64w0x7f; }
    action tna_mask_len_8() { meta.mask = 64w0xff; }
    action tna_mask_len_9() { meta.mask = 64w0x1ff; }
    action tna_mask_len_10() { meta.mask = 64w0x3ff; }
    action tna_mask_len_11() { meta.mask = 64w0x7ff; }
    action tna_mask_len_12() { meta.mask = 64w0xfff; }
    action tna_mask_len_13() { meta.mask = 64w0x1fff; }
    action tna_mask_len_14() { meta.mask = 64w0x3fff; }
    action tna_mask_len_15() { meta.mask = 64w0x7fff; }
    action tna_mask_len_16() { meta.mask = 64w0xffff; }
    action tna_mask_len_17() { meta.mask = 64w0x1ffff; }
    action tna_mask_len_18() { meta.mask = 64w0x3ffff; }
    action tna_mask_len_19() { meta.mask = 64w0x7ffff; }
    action tna_mask_len_20() { meta.mask = 64w0xfffff; }
    action tna_mask_len_21() { meta.mask = 64w0x1fffff; }
    action tna_mask_len_22() { meta.mask = 64w0x3fffff; }
    action tna_mask_len_23() { meta.mask = 64w0x7fffff; }
    action tna_mask_len_24() { meta.mask = 64w0xffffff; }
    action tna_mask_len_25() { meta.mask = 64w0x1ffffff; }
    action tna_mask_len_26() { meta.mask = 64w0x3ffffff; }
    action tna_mask_len_27() { meta.mask = 64w0x7ffffff; }
    action tna_mask_len_28() { meta.mask = 64w0xfffffff; }
    action tna_mask_len_29() { meta.mask = 64w0x1fffffff; }
    action tna_mask_len_30() { meta.mask = 64w0x3fffffff; }
    action tna_mask_len_31() { meta.mask = 64w0x7fffffff; }
    action tna_mask_len_32() { meta.mask = 64w0xffffffff; }
    action tna_mask_len_33() { meta.mask = 64w0x1ffffffff; }
    action tna_mask_len_34() { meta.mask = 64w0x3ffffffff; }
    action tna_mask_len_35() { meta.mask = 64w0x7ffffffff; }
    action tna_mask_len_36() { meta.mask = 64w0xfffffffff; }
    action tna_mask_len_37() { meta.mask = 64w0x1fffffffff; }
    action tna_mask_len_38() { meta.mask = 64w0x3fffffffff; }
    action tna_mask_len_39() { meta.mask = 64w0x7fffffffff; }
    action tna_mask_len_40() { meta.mask = 64w0xffffffffff; }
    action tna_mask_len_41() { meta.mask = 64w0x1ffffffffff; }
    action tna_mask_len_42() { meta.mask = 64w0x3ffffffffff; }
    action tna_mask_len_43() { meta.mask = 64w0x7ffffffffff; }
    action tna_mask_len_44() { meta.mask = 64w0xfffffffffff; }
    action tna_mask_len_45() { meta.mask = 64w0x1fffffffffff; }
    action tna_mask_len_46() { meta.mask = 64w0x3fffffffffff; }
    action tna_mask_len_47() { meta.mask = 64w0x7fffffffffff; }
    action tna_mask_len_48() { meta.mask = 64w0xffffffffffff; }
    action tna_mask_len_49() { meta.mask = 64w0x1ffffffffffff; }
    action tna_mask_len_50() { meta.mask = 64w0x3ffffffffffff; }
    action tna_mask_len_51() { meta.mask = 64w0x7ffffffffffff; }
    action tna_mask_len_52() { meta.mask = 64w0xfffffffffffff; }
    action tna_mask_len_53() { meta.mask = 64w0x1fffffffffffff; }
    action tna_mask_len_54() { meta.mask = 64w0x3fffffffffffff; }
    action tna_mask_len_55() { meta.mask = 64w0x7fffffffffffff; }
    action tna_mask_len_56() { meta.mask = 64w0xffffffffffffff; }
    action tna_mask_len_57() { meta.mask = 64w0x1ffffffffffffff; }
    action tna_mask_len_58() { meta.mask = 64w0x3ffffffffffffff; }
    action tna_mask_len_59() { meta.mask = 64w0x7ffffffffffffff; }
    action tna_mask_len_60() { meta.mask = 64w0xfffffffffffffff; }
    action tna_mask_len_61() { meta.mask = 64w0x1fffffffffffffff; }
    action tna_mask_len_62() { meta.mask = 64w0x3fffffffffffffff; }
    action tna_mask_len_63() { meta.mask = 64w0x7fffffffffffffff; }
    action tna_mask_len_64() { meta.mask = 64w0xffffffffffffffff; }
    table tna_mask_len {
        key = { hdr.sliced.slice_len: exact; }
        actions = { tna_mask_len_0; tna_mask_len_1; tna_mask_len_2; tna_mask_len_3; tna_mask_len_4; tna_mask_len_5; tna_mask_len_6; tna_mask_len_7; tna_mask_len_8; tna_mask_len_9; tna_mask_len_10; tna_mask_len_11; tna_mask_len_12; tna_mask_len_13; tna_mask_len_14; tna_mask_len_15; tna_mask_len_16; tna_mask_len_17; tna_mask_len_18; tna_mask_len_19; tna_mask_len_20; tna_mask_len_21; tna_mask_len_22; tna_mask_len_23; tna_mask_len_24; tna_mask_len_25; tna_mask_len_26; tna_mask_len_27; tna_mask_len_28; tna_mask_len_29; tna_mask_len_30; tna_mask_len_31; tna_mask_len_32; tna_mask_len_33; tna_mask_len_34; tna_mask_len_35; tna_mask_len_36; tna_mask_len_37; tna_mask_len_38; tna_mask_len_39; tna_mask_len_40; tna_mask_len_41; tna_mask_len_42; tna_mask_len_43; tna_mask_len_44; tna_mask_len_45; tna_mask_len_46; tna_mask_len_47; tna_mask_len_48; tna_mask_len_49; tna_mask_len_50; tna_mask_len_51; tna_mask_len_52; tna_mask_len_53; tna_mask_len_54; tna_mask_len_55; tna_mask_len_56; tna_mask_len_57; tna_mask_len_58; tna_mask_len_59; tna_mask_len_60; tna_mask_len_61; tna_mask_len_62; tna_mask_len_63; tna_mask_len_64; }
        const entries = {
            0: tna_mask_len_0();
            1: tna_mask_len_1();
            2: tna_mask_len_2();
            3: tna_mask_len_3();
            4: tna_mask_len_4();
            5: tna_mask_len_5();
            6: tna_mask_len_6();
            7: tna_mask_len_7();
            8: tna_mask_len_8();
            9: tna_mask_len_9();
            10: tna_mask_len_10();
            11: tna_mask_len_11();
            12: tna_mask_len_12();
            13: tna_mask_len_13();
            14: tna_mask_len_14();
            15: tna_mask_len_15();
            16: tna_mask_len_16();
            17: tna_mask_len_17();
            18: tna_mask_len_18();
            19: tna_mask_len_19();
            20: tna_mask_len_20();
            21: tna_mask_len_21();
            22: tna_mask_len_22();
            23: tna_mask_len_23();
            24: tna_mask_len_24();
            25: tna_mask_len_25();
            26: tna_mask_len_26();
            27: tna_mask_len_27();
            28: tna_mask_len_28();
            29: tna_mask_len_29();
            30: tna_mask_len_30();
            31: tna_mask_len_31();
            32: tna_mask_len_32();
            33: tna_mask_len_33();
            34: tna_mask_len_34();
            35: tna_mask_len_35();
            36: tna_mask_len_36();
            37: tna_mask_len_37();
            38: tna_mask_len_38();
            39: tna_mask_len_39();
            40: tna_mask_len_40();
            41: tna_mask_len_41();
            42: tna_mask_len_42();
            43: tna_mask_len_43();
            44: tna_mask_len_44();
            45: tna_mask_len_45();
            46: tna_mask_len_46();
            47: tna_mask_len_47();
            48: tna_mask_len_48();
            49: tna_mask_len_49();
            50: tna_mask_len_50();
            51: tna_mask_len_51();
            52: tna_mask_len_52();
            53: tna_mask_len_53();
            54: tna_mask_len_54();
            55: tna_mask_len_55();
            56: tna_mask_len_56();
            57: tna_mask_len_57();
            58: tna_mask_len_58();
            59: tna_mask_len_59();
            60: tna_mask_len_60();
            61: tna_mask_len_61();
            62: tna_mask_len_62();
            63: tna_mask_len_63();
            64: tna_mask_len_64();
        }
        size = 65;
    }
    /* low_mask: the low w bits set, from a table keyed on w (no variable shifts) */
    action tna_mask_b_0() { meta.label = meta.label_raw & 64w0x0; }
    action tna_mask_b_1() { meta.label = meta.label_raw & 64w0x1; }
    action tna_mask_b_2() { meta.label = meta.label_raw & 64w0x3; }
    action tna_mask_b_3() { meta.label = meta.label_raw & 64w0x7; }
    action tna_mask_b_4() { meta.label = meta.label_raw & 64w0xf; }
    action tna_mask_b_5() { meta.label = meta.label_raw & 64w0x1f; }
    action tna_mask_b_6() { meta.label = meta.label_raw & 64w0x3f; }
    action tna_mask_b_7() { meta.label = meta.label_raw & 64w0x7f; }
    action tna_mask_b_8() { meta.label = meta.label_raw & 64w0xff; }
    action tna_mask_b_9() { meta.label = meta.label_raw & 64w0x1ff; }
    action tna_mask_b_10() { meta.label = meta.label_raw & 64w0x3ff; }
    action tna_mask_b_11() { meta.label = meta.label_raw & 64w0x7ff; }
    action tna_mask_b_12() { meta.label = meta.label_raw & 64w0xfff; }
    action tna_mask_b_13() { meta.label = meta.label_raw & 64w0x1fff; }
    action tna_mask_b_14() { meta.label = meta.label_raw & 64w0x3fff; }
    action tna_mask_b_15() { meta.label = meta.label_raw & 64w0x7fff; }
    action tna_mask_b_16() { meta.label = meta.label_raw & 64w0xffff; }
    action tna_mask_b_17() { meta.label = meta.label_raw & 64w0x1ffff; }
    action tna_mask_b_18() { meta.label = meta.label_raw & 64w0x3ffff; }
    action tna_mask_b_19() { meta.label = meta.label_raw & 64w0x7ffff; }
    action tna_mask_b_20() { meta.label = meta.label_raw & 64w0xfffff; }
    action tna_mask_b_21() { meta.label = meta.label_raw & 64w0x1fffff; }
    action tna_mask_b_22() { meta.label = meta.label_raw & 64w0x3fffff; }
    action tna_mask_b_23() { meta.label = meta.label_raw & 64w0x7fffff; }
    action tna_mask_b_24() { meta.label = meta.label_raw & 64w0xffffff; }
    action tna_mask_b_25() { meta.label = meta.label_raw & 64w0x1ffffff; }
    action tna_mask_b_26() { meta.label = meta.label_raw & 64w0x3ffffff; }
    action tna_mask_b_27() { meta.label = meta.label_raw & 64w0x7ffffff; }
    action tna_mask_b_28() { meta.label = meta.label_raw & 64w0xfffffff; }
    action tna_mask_b_29() { meta.label = meta.label_raw & 64w0x1fffffff; }
    action tna_mask_b_30() { meta.label = meta.label_raw & 64w0x3fffffff; }
    action tna_mask_b_31() { meta.label = meta.label_raw & 64w0x7fffffff; }
    action tna_mask_b_32() { meta.label = meta.label_raw & 64w0xffffffff; }
    action tna_mask_b_33() { meta.label = meta.label_raw & 64w0x1ffffffff; }
    action tna_mask_b_34() { meta.label = meta.label_raw & 64w0x3ffffffff; }
    action tna_mask_b_35() { meta.label = meta.label_raw & 64w0x7ffffffff; }
    action tna_mask_b_36() { meta.label = meta.label_raw & 64w0xfffffffff; }
    action tna_mask_b_37() { meta.label = meta.label_raw & 64w0x1fffffffff; }
    action tna_mask_b_38() { meta.label = meta.label_raw & 64w0x3fffffffff; }
    action tna_mask_b_39() { meta.label = meta.label_raw & 64w0x7fffffffff; }
    action tna_mask_b_40() { meta.label = meta.label_raw & 64w0xffffffffff; }
    action tna_mask_b_41() { meta.label = meta.label_raw & 64w0x1ffffffffff; }
    action tna_mask_b_42() { meta.label = meta.label_raw & 64w0x3ffffffffff; }
    action tna_mask_b_43() { meta.label = meta.label_raw & 64w0x7ffffffffff; }
    action tna_mask_b_44() { meta.label = meta.label_raw & 64w0xfffffffffff; }
    action tna_mask_b_45() { meta.label = meta.label_raw & 64w0x1fffffffffff; }
    action tna_mask_b_46() { meta.label = meta.label_raw & 64w0x3fffffffffff; }
    action tna_mask_b_47() { meta.label = meta.label_raw & 64w0x7fffffffffff; }
    action tna_mask_b_48() { meta.label = meta.label_raw & 64w0xffffffffffff; }
    action tna_mask_b_49() { meta.label = meta.label_raw & 64w0x1ffffffffffff; }
    action tna_mask_b_50() { meta.label = meta.label_raw & 64w0x3ffffffffffff; }
    action tna_mask_b_51() { meta.label = meta.label_raw & 64w0x7ffffffffffff; }
    action tna_mask_b_52() { meta.label = meta.label_raw & 64w0xfffffffffffff; }
    action tna_mask_b_53() { meta.label = meta.label_raw & 64w0x1fffffffffffff; }
    action tna_mask_b_54() { meta.label = meta.label_raw & 64w0x3fffffffffffff; }
    action tna_mask_b_55() { meta.label = meta.label_raw & 64w0x7fffffffffffff; }
    action tna_mask_b_56() { meta.label = meta.label_raw & 64w0xffffffffffffff; }
    action tna_mask_b_57() { meta.label = meta.label_raw & 64w0x1ffffffffffffff; }
    action tna_mask_b_58() { meta.label = meta.label_raw & 64w0x3ffffffffffffff; }
    action tna_mask_b_59() { meta.label = meta.label_raw & 64w0x7ffffffffffffff; }
    action tna_mask_b_60() { meta.label = meta.label_raw & 64w0xfffffffffffffff; }
    action tna_mask_b_61() { meta.label = meta.label_raw & 64w0x1fffffffffffffff; }
    action tna_mask_b_62() { meta.label = meta.label_raw & 64w0x3fffffffffffffff; }
    action tna_mask_b_63() { meta.label = meta.label_raw & 64w0x7fffffffffffffff; }
    action tna_mask_b_64() { meta.label = meta.label_raw & 64w0xffffffffffffffff; }
    table tna_mask_b {
        key = { meta.sl_b: exact; }
        actions = { tna_mask_b_0; tna_mask_b_1; tna_mask_b_2; tna_mask_b_3; tna_mask_b_4; tna_mask_b_5; tna_mask_b_6; tna_mask_b_7; tna_mask_b_8; tna_mask_b_9; tna_mask_b_10; tna_mask_b_11; tna_mask_b_12; tna_mask_b_13; tna_mask_b_14; tna_mask_b_15; tna_mask_b_16; tna_mask_b_17; tna_mask_b_18; tna_mask_b_19; tna_mask_b_20; tna_mask_b_21; tna_mask_b_22; tna_mask_b_23; tna_mask_b_24; tna_mask_b_25; tna_mask_b_26; tna_mask_b_27; tna_mask_b_28; tna_mask_b_29; tna_mask_b_30; tna_mask_b_31; tna_mask_b_32; tna_mask_b_33; tna_mask_b_34; tna_mask_b_35; tna_mask_b_36; tna_mask_b_37; tna_mask_b_38; tna_mask_b_39; tna_mask_b_40; tna_mask_b_41; tna_mask_b_42; tna_mask_b_43; tna_mask_b_44; tna_mask_b_45; tna_mask_b_46; tna_mask_b_47; tna_mask_b_48; tna_mask_b_49; tna_mask_b_50; tna_mask_b_51; tna_mask_b_52; tna_mask_b_53; tna_mask_b_54; tna_mask_b_55; tna_mask_b_56; tna_mask_b_57; tna_mask_b_58; tna_mask_b_59; tna_mask_b_60; tna_mask_b_61; tna_mask_b_62; tna_mask_b_63; tna_mask_b_64; }
        const entries = {
            0: tna_mask_b_0();
            1: tna_mask_b_1();
            2: tna_mask_b_2();
            3: tna_mask_b_3();
            4: tna_mask_b_4();
            5: tna_mask_b_5();
            6: tna_mask_b_6();
            7: tna_mask_b_7();
            8: tna_mask_b_8();
            9: tna_mask_b_9();
            10: tna_mask_b_10();
            11: tna_mask_b_11();
            12: tna_mask_b_12();
            13: tna_mask_b_13();
            14: tna_mask_b_14();
            15: tna_mask_b_15();
            16: tna_mask_b_16();
            17: tna_mask_b_17();
            18: tna_mask_b_18();
            19: tna_mask_b_19();
            20: tna_mask_b_20();
            21: tna_mask_b_21();
            22: tna_mask_b_22();
            23: tna_mask_b_23();
            24: tna_mask_b_24();
            25: tna_mask_b_25();
            26: tna_mask_b_26();
            27: tna_mask_b_27();
            28: tna_mask_b_28();
            29: tna_mask_b_29();
            30: tna_mask_b_30();
            31: tna_mask_b_31();
            32: tna_mask_b_32();
            33: tna_mask_b_33();
            34: tna_mask_b_34();
            35: tna_mask_b_35();
            36: tna_mask_b_36();
            37: tna_mask_b_37();
            38: tna_mask_b_38();
            39: tna_mask_b_39();
            40: tna_mask_b_40();
            41: tna_mask_b_41();
            42: tna_mask_b_42();
            43: tna_mask_b_43();
            44: tna_mask_b_44();
            45: tna_mask_b_45();
            46: tna_mask_b_46();
            47: tna_mask_b_47();
            48: tna_mask_b_48();
            49: tna_mask_b_49();
            50: tna_mask_b_50();
            51: tna_mask_b_51();
            52: tna_mask_b_52();
            53: tna_mask_b_53();
            54: tna_mask_b_54();
            55: tna_mask_b_55();
            56: tna_mask_b_56();
            57: tna_mask_b_57();
            58: tna_mask_b_58();
            59: tna_mask_b_59();
            60: tna_mask_b_60();
            61: tna_mask_b_61();
            62: tna_mask_b_62();
            63: tna_mask_b_63();
            64: tna_mask_b_64();
        }
        default_action = tna_mask_b_64();
        size = 65;
    }
    /* low_mask: the low w bits set, from a table keyed on w (no variable shifts) */
    action tna_mask_above_0() {
        meta.above_dst = meta.above_dst & 64w0x0;
        meta.above_src = meta.above_src & 64w0x0;
    }
    action tna_mask_above_1() {
        meta.above_dst = meta.above_dst & 64w0x1;
        meta.above_src = meta.above_src & 64w0x1;
    }
    action tna_mask_above_2() {
        meta.above_dst = meta.above_dst & 64w0x3;
        meta.above_src = meta.above_src & 64w0x3;
    }
    action tna_mask_above_3() {
        meta.above_dst = meta.above_dst & 64w0x7;
        meta.above_src = meta.above_src & 64w0x7;
    }
    action tna_mask_above_4() {
        meta.above_dst = meta.above_dst & 64w0xf;
        meta.above_src = meta.above_src & 64w0xf;
    }
    action tna_mask_above_5() {
        meta.above_dst = meta.above_dst & 64w0x1f;
        meta.above_src = meta.above_src & 64w0x1f;
    }
    action tna_mask_above_6() {
        meta.above_dst = meta.above_dst & 64w0x3f;
        meta.above_src = meta.above_src & 64w0x3f;
    }
    action tna_mask_above_7() {
        meta.above_dst = meta.above_dst & 64w0x7f;
        meta.above_src = meta.above_src & 64w0x7f;
    }
    action tna_mask_above_8() {
        meta.above_dst = meta.above_dst & 64w0xff;
        meta.above_src = meta.above_src & 64w0xff;
    }
    action tna_mask_above_9() {
        meta.above_dst = meta.above_dst & 64w0x1ff;
        meta.above_src = meta.above_src & 64w0x1ff;
    }
    action tna_mask_above_10() {
        meta.above_dst = meta.above_dst & 64w0x3ff;
        meta.above_src = meta.above_src & 64w0x3ff;
    }
    action tna_mask_above_11() {
        meta.above_dst = meta.above_dst & 64w0x7ff;
        meta.above_src = meta.above_src & 64w0x7ff;
    }
    action tna_mask_above_12() {
        meta.above_dst = meta.above_dst & 64w0xfff;
        meta.above_src = meta.above_src & 64w0xfff;
    }
    action tna_mask_above_13() {
        meta.above_dst = meta.above_dst & 64w0x1fff;
        meta.above_src = meta.above_src & 64w0x1fff;
    }
    action tna_mask_above_14() {
        meta.above_dst = meta.above_dst & 64w0x3fff;
        meta.above_src = meta.above_src & 64w0x3fff;
    }
    action tna_mask_above_15() {
        meta.above_dst = meta.above_dst & 64w0x7fff;
        meta.above_src = meta.above_src & 64w0x7fff;
    }
    action tna_mask_above_16() {
        meta.above_dst = meta.above_dst & 64w0xffff;
        meta.above_src = meta.above_src & 64w0xffff;
    }
    action tna_mask_above_17() {
        meta.above_dst = meta.above_dst & 64w0x1ffff;
        meta.above_src = meta.above_src & 64w0x1ffff;
    }
    action tna_mask_above_18() {
        meta.above_dst = meta.above_dst & 64w0x3ffff;
        meta.above_src = meta.above_src & 64w0x3ffff;
    }
    action tna_mask_above_19() {
        meta.above_dst = meta.above_dst & 64w0x7ffff;
        meta.above_src = meta.above_src & 64w0x7ffff;
    }
    action tna_mask_above_20() {
        meta.above_dst = meta.above_dst & 64w0xfffff;
        meta.above_src = meta.above_src & 64w0xfffff;
    }
    action tna_mask_above_21() {
        meta.above_dst = meta.above_dst & 64w0x1fffff;
        meta.above_src = meta.above_src & 64w0x1fffff;
    }
    action tna_mask_above_22() {
        meta.above_dst = meta.above_dst & 64w0x3fffff;
        meta.above_src = meta.above_src & 64w0x3fffff;
    }
    action tna_mask_above_23() {
        meta.above_dst = meta.above_dst & 64w0x7fffff;
        meta.above_src = meta.above_src & 64w0x7fffff;
    }
    action tna_mask_above_24() {
        meta.above_dst = meta.above_dst & 64w0xffffff;
        meta.above_src = meta.above_src & 64w0xffffff;
    }
    action tna_mask_above_25() {
        meta.above_dst = meta.above_dst & 64w0x1ffffff;
        meta.above_src = meta.above_src & 64w0x1ffffff;
    }
    action tna_mask_above_26() {
        meta.above_dst = meta.above_dst & 64w0x3ffffff;
        meta.above_src = meta.above_src & 64w0x3ffffff;
    }
    action tna_mask_above_27() {
        meta.above_dst = meta.above_dst & 64w0x7ffffff;
        meta.above_src = meta.above_src & 64w0x7ffffff;
    }
    action tna_mask_above_28() {
        meta.above_dst = meta.above_dst & 64w0xfffffff;
        meta.above_src = meta.above_src & 64w0xfffffff;
    }
    action tna_mask_above_29() {
        meta.above_dst = meta.above_dst & 64w0x1fffffff;
        meta.above_src = meta.above_src & 64w0x1fffffff;
    }
    action tna_mask_above_30() {
        meta.above_dst = meta.above_dst & 64w0x3fffffff;
        meta.above_src = meta.above_src & 64w0x3fffffff;
    }
    action tna_mask_above_31() {
        meta.above_dst = meta.above_dst & 64w0x7fffffff;
        meta.above_src = meta.above_src & 64w0x7fffffff;
    }
    action tna_mask_above_32() {
        meta.above_dst = meta.above_dst & 64w0xffffffff;
        meta.above_src = meta.above_src & 64w0xffffffff;
    }
    action tna_mask_above_33() {
        meta.above_dst = meta.above_dst & 64w0x1ffffffff;
        meta.above_src = meta.above_src & 64w0x1ffffffff;
    }
    action tna_mask_above_34() {
        meta.above_dst = meta.above_dst & 64w0x3ffffffff;
        meta.above_src = meta.above_src & 64w0x3ffffffff;
    }
    action tna_mask_above_35() {
        meta.above_dst = meta.above_dst & 64w0x7ffffffff;
        meta.above_src = meta.above_src & 64w0x7ffffffff;
    }
    action tna_mask_above_36() {
        meta.above_dst = meta.above_dst & 64w0xfffffffff;
        meta.above_src = meta.above_src & 64w0xfffffffff;
    }
    action tna_mask_above_37() {
        meta.above_dst = meta.above_dst & 64w0x1fffffffff;
        meta.above_src = meta.above_src & 64w0x1fffffffff;
    }
    action tna_mask_above_38() {
        meta.above_dst = meta.above_dst & 64w0x3fffffffff;
        meta.above_src = meta.above_src & 64w0x3fffffffff;
    }
    action tna_mask_above_39() {
        meta.above_dst = meta.above_dst & 64w0x7fffffffff;
        meta.above_src = meta.above_src & 64w0x7fffffffff;
    }
    action tna_mask_above_40() {
        meta.above_dst = meta.above_dst & 64w0xffffffffff;
        meta.above_src = meta.above_src & 64w0xffffffffff;
    }
    action tna_mask_above_41() {
        meta.above_dst = meta.above_dst & 64w0x1ffffffffff;
        meta.above_src = meta.above_src & 64w0x1ffffffffff;
    }
    action tna_mask_above_42() {
        meta.above_dst = meta.above_dst & 64w0x3ffffffffff;
        meta.above_src = meta.above_src & 64w0x3ffffffffff;
    }
    action tna_mask_above_43() {
        meta.above_dst = meta.above_dst & 64w0x7ffffffffff;
        meta.above_src = meta.above_src & 64w0x7ffffffffff;
    }
    action tna_mask_above_44() {
        meta.above_dst = meta.above_dst & 64w0xfffffffffff;
        meta.above_src = meta.above_src & 64w0xfffffffffff;
    }
    action tna_mask_above_45() {
        meta.above_dst = meta.above_dst & 64w0x1fffffffffff;
        meta.above_src = meta.above_src & 64w0x1fffffffffff;
    }
    action tna_mask_above_46() {
        meta.above_dst = meta.above_dst & 64w0x3fffffffffff;
        meta.above_src = meta.above_src & 64w0x3fffffffffff;
    }
    action tna_mask_above_47() {
        meta.above_dst = meta.above_dst & 64w0x7fffffffffff;
        meta.above_src = meta.above_src & 64w0x7fffffffffff;
    }
    action tna_mask_above_48() {
        meta.above_dst = meta.above_dst & 64w0xffffffffffff;
        meta.above_src = meta.above_src & 64w0xffffffffffff;
    }
    action tna_mask_above_49() {
        meta.above_dst = meta.above_dst & 64w0x1ffffffffffff;
        meta.above_src = meta.above_src & 64w0x1ffffffffffff;
    }
    action tna_mask_above_50() {
        meta.above_dst = meta.above_dst & 64w0x3ffffffffffff;
        meta.above_src = meta.above_src & 64w0x3ffffffffffff;
    }
    action tna_mask_above_51() {
        meta.above_dst = meta.above_dst & 64w0x7ffffffffffff;
        meta.above_src = meta.above_src & 64w0x7ffffffffffff;
    }
    action tna_mask_above_52() {
        meta.above_dst = meta.above_dst & 64w0xfffffffffffff;
        meta.above_src = meta.above_src & 64w0xfffffffffffff;
    }
    action tna_mask_above_53() {
        meta.above_dst = meta.above_dst & 64w0x1fffffffffffff;
        meta.above_src = meta.above_src & 64w0x1fffffffffffff;
    }
    action tna_mask_above_54() {
        meta.above_dst = meta.above_dst & 64w0x3fffffffffffff;
        meta.above_src = meta.above_src & 64w0x3fffffffffffff;
    }
    action tna_mask_above_55() {
        meta.above_dst = meta.above_dst & 64w0x7fffffffffffff;
        meta.above_src = meta.above_src & 64w0x7fffffffffffff;
    }
    action tna_mask_above_56() {
        meta.above_dst = meta.above_dst & 64w0xffffffffffffff;
        meta.above_src = meta.above_src & 64w0xffffffffffffff;
    }
    action tna_mask_above_57() {
        meta.above_dst = meta.above_dst & 64w0x1ffffffffffffff;
        meta.above_src = meta.above_src & 64w0x1ffffffffffffff;
    }
    action tna_mask_above_58() {
        meta.above_dst = meta.above_dst & 64w0x3ffffffffffffff;
        meta.above_src = meta.above_src & 64w0x3ffffffffffffff;
    }
    action tna_mask_above_59() {
        meta.above_dst = meta.above_dst & 64w0x7ffffffffffffff;
        meta.above_src = meta.above_src & 64w0x7ffffffffffffff;
    }
    action tna_mask_above_60() {
        meta.above_dst = meta.above_dst & 64w0xfffffffffffffff;
        meta.above_src = meta.above_src & 64w0xfffffffffffffff;
    }
    action tna_mask_above_61() {
        meta.above_dst = meta.above_dst & 64w0x1fffffffffffffff;
        meta.above_src = meta.above_src & 64w0x1fffffffffffffff;
    }
    action tna_mask_above_62() {
        meta.above_dst = meta.above_dst & 64w0x3fffffffffffffff;
        meta.above_src = meta.above_src & 64w0x3fffffffffffffff;
    }
    action tna_mask_above_63() {
        meta.above_dst = meta.above_dst & 64w0x7fffffffffffffff;
        meta.above_src = meta.above_src & 64w0x7fffffffffffffff;
    }
    action tna_mask_above_64() {
        meta.above_dst = meta.above_dst & 64w0xffffffffffffffff;
        meta.above_src = meta.above_src & 64w0xffffffffffffffff;
    }
    table tna_mask_above {
        key = { meta.above_w: exact; }
        actions = { tna_mask_above_0; tna_mask_above_1; tna_mask_above_2; tna_mask_above_3; tna_mask_above_4; tna_mask_above_5; tna_mask_above_6; tna_mask_above_7; tna_mask_above_8; tna_mask_above_9; tna_mask_above_10; tna_mask_above_11; tna_mask_above_12; tna_mask_above_13; tna_mask_above_14; tna_mask_above_15; tna_mask_above_16; tna_mask_above_17; tna_mask_above_18; tna_mask_above_19; tna_mask_above_20; tna_mask_above_21; tna_mask_above_22; tna_mask_above_23; tna_mask_above_24; tna_mask_above_25; tna_mask_above_26; tna_mask_above_27; tna_mask_above_28; tna_mask_above_29; tna_mask_above_30; tna_mask_above_31; tna_mask_above_32; tna_mask_above_33; tna_mask_above_34; tna_mask_above_35; tna_mask_above_36; tna_mask_above_37; tna_mask_above_38; tna_mask_above_39; tna_mask_above_40; tna_mask_above_41; tna_mask_above_42; tna_mask_above_43; tna_mask_above_44; tna_mask_above_45; tna_mask_above_46; tna_mask_above_47; tna_mask_above_48; tna_mask_above_49; tna_mask_above_50; tna_mask_above_51; tna_mask_above_52; tna_mask_above_53; tna_mask_above_54; tna_mask_above_55; tna_mask_above_56; tna_mask_above_57; tna_mask_above_58; tna_mask_above_59; tna_mask_above_60; tna_mask_above_61; tna_mask_above_62; tna_mask_above_63; tna_mask_above_64; }
        const entries = {
            0: tna_mask_above_0();
            1: tna_mask_above_1();
            2: tna_mask_above_2();
            3: tna_mask_above_3();
            4: tna_mask_above_4();
            5: tna_mask_above_5();
            6: tna_mask_above_6();
            7: tna_mask_above_7();
            8: tna_mask_above_8();
            9: tna_mask_above_9();
            10: tna_mask_above_10();
            11: tna_mask_above_11();
            12: tna_mask_above_12();
            13: tna_mask_above_13();
            14: tna_mask_above_14();
            15: tna_mask_above_15();
            16: tna_mask_above_16();
            17: tna_mask_above_17();
            18: tna_mask_above_18();
            19: tna_mask_above_19();
            20: tna_mask_above_20();
            21: tna_mask_above_21();
            22: tna_mask_above_22();
            23: tna_mask_above_23();
            24: tna_mask_above_24();
            25: tna_mask_above_25();
            26: tna_mask_above_26();
            27: tna_mask_above_27();
            28: tna_mask_above_28();
            29: tna_mask_above_29();
            30: tna_mask_above_30();
            31: tna_mask_above_31();
            32: tna_mask_above_32();
            33: tna_mask_above_33();
            34: tna_mask_above_34();
            35: tna_mask_above_35();
            36: tna_mask_above_36();
            37: tna_mask_above_37();
            38: tna_mask_above_38();
            39: tna_mask_above_39();
            40: tna_mask_above_40();
            41: tna_mask_above_41();
            42: tna_mask_above_42();
            43: tna_mask_above_43();
            44: tna_mask_above_44();
            45: tna_mask_above_45();
            46: tna_mask_above_46();
            47: tna_mask_above_47();
            48: tna_mask_above_48();
            49: tna_mask_above_49();
            50: tna_mask_above_50();
            51: tna_mask_above_51();
            52: tna_mask_above_52();
            53: tna_mask_above_53();
            54: tna_mask_above_54();
            55: tna_mask_above_55();
            56: tna_mask_above_56();
            57: tna_mask_above_57();
            58: tna_mask_above_58();
            59: tna_mask_above_59();
            60: tna_mask_above_60();
            61: tna_mask_above_61();
            62: tna_mask_above_62();
            63: tna_mask_above_63();
            64: tna_mask_above_64();
        }
        default_action = tna_mask_above_64();
        size = 65;
    }
    /* low_mask: the low w bits set, from a table keyed on w (no variable shifts) */
    action tna_mask_beyond_0() { meta.mask_beyond = 64w0x0; }
    action tna_mask_beyond_1() { meta.mask_beyond = 64w0x1; }
    action tna_mask_beyond_2() { meta.mask_beyond = 64w0x3; }
    action tna_mask_beyond_3() { meta.mask_beyond = 64w0x7; }
    action tna_mask_beyond_4() { meta.mask_beyond = 64w0xf; }
    action tna_mask_beyond_5() { meta.mask_beyond = 64w0x1f; }
    action tna_mask_beyond_6() { meta.mask_beyond = 64w0x3f; }
    action tna_mask_beyond_7() { meta.mask_beyond = 64w0x7f; }
    action tna_mask_beyond_8() { meta.mask_beyond = 64w0xff; }
    action tna_mask_beyond_9() { meta.mask_beyond = 64w0x1ff; }
    action tna_mask_beyond_10() { meta.mask_beyond = 64w0x3ff; }
    action tna_mask_beyond_11() { meta.mask_beyond = 64w0x7ff; }
    action tna_mask_beyond_12() { meta.mask_beyond = 64w0xfff; }
    action tna_mask_beyond_13() { meta.mask_beyond = 64w0x1fff; }
    action tna_mask_beyond_14() { meta.mask_beyond = 64w0x3fff; }
    action tna_mask_beyond_15() { meta.mask_beyond = 64w0x7fff; }
    action tna_mask_beyond_16() { meta.mask_beyond = 64w0xffff; }
    action tna_mask_beyond_17() { meta.mask_beyond = 64w0x1ffff; }
    action tna_mask_beyond_18() { meta.mask_beyond = 64w0x3ffff; }
    action tna_mask_beyond_19() { meta.mask_beyond = 64w0x7ffff; }
    action tna_mask_beyond_20() { meta.mask_beyond = 64w0xfffff; }
    action tna_mask_beyond_21() { meta.mask_beyond = 64w0x1fffff; }
    action tna_mask_beyond_22() { meta.mask_beyond = 64w0x3fffff; }
    action tna_mask_beyond_23() { meta.mask_beyond = 64w0x7fffff; }
    action tna_mask_beyond_24() { meta.mask_beyond = 64w0xffffff; }
    action tna_mask_beyond_25() { meta.mask_beyond = 64w0x1ffffff; }
    action tna_mask_beyond_26() { meta.mask_beyond = 64w0x3ffffff; }
    action tna_mask_beyond_27() { meta.mask_beyond = 64w0x7ffffff; }
    action tna_mask_beyond_28() { meta.mask_beyond = 64w0xfffffff; }
    action tna_mask_beyond_29() { meta.mask_beyond = 64w0x1fffffff; }
    action tna_mask_beyond_30() { meta.mask_beyond = 64w0x3fffffff; }
    action tna_mask_beyond_31() { meta.mask_beyond = 64w0x7fffffff; }
    action tna_mask_beyond_32() { meta.mask_beyond = 64w0xffffffff; }
    action tna_mask_beyond_33() { meta.mask_beyond = 64w0x1ffffffff; }
    action tna_mask_beyond_34() { meta.mask_beyond = 64w0x3ffffffff; }
    action tna_mask_beyond_35() { meta.mask_beyond = 64w0x7ffffffff; }
    action tna_mask_beyond_36() { meta.mask_beyond = 64w0xfffffffff; }
    action tna_mask_beyond_37() { meta.mask_beyond = 64w0x1fffffffff; }
    action tna_mask_beyond_38() { meta.mask_beyond = 64w0x3fffffffff; }
    action tna_mask_beyond_39() { meta.mask_beyond = 64w0x7fffffffff; }
    action tna_mask_beyond_40() { meta.mask_beyond = 64w0xffffffffff; }
    action tna_mask_beyond_41() { meta.mask_beyond = 64w0x1ffffffffff; }
    action tna_mask_beyond_42() { meta.mask_beyond = 64w0x3ffffffffff; }
    action tna_mask_beyond_43() { meta.mask_beyond = 64w0x7ffffffffff; }
    action tna_mask_beyond_44() { meta.mask_beyond = 64w0xfffffffffff; }
    action tna_mask_beyond_45() { meta.mask_beyond = 64w0x1fffffffffff; }
    action tna_mask_beyond_46() { meta.mask_beyond = 64w0x3fffffffffff; }
    action tna_mask_beyond_47() { meta.mask_beyond = 64w0x7fffffffffff; }
    action tna_mask_beyond_48() { meta.mask_beyond = 64w0xffffffffffff; }
    action tna_mask_beyond_49() { meta.mask_beyond = 64w0x1ffffffffffff; }
    action tna_mask_beyond_50() { meta.mask_beyond = 64w0x3ffffffffffff; }
    action tna_mask_beyond_51() { meta.mask_beyond = 64w0x7ffffffffffff; }
    action tna_mask_beyond_52() { meta.mask_beyond = 64w0xfffffffffffff; }
    action tna_mask_beyond_53() { meta.mask_beyond = 64w0x1fffffffffffff; }
    action tna_mask_beyond_54() { meta.mask_beyond = 64w0x3fffffffffffff; }
    action tna_mask_beyond_55() { meta.mask_beyond = 64w0x7fffffffffffff; }
    action tna_mask_beyond_56() { meta.mask_beyond = 64w0xffffffffffffff; }
    action tna_mask_beyond_57() { meta.mask_beyond = 64w0x1ffffffffffffff; }
    action tna_mask_beyond_58() { meta.mask_beyond = 64w0x3ffffffffffffff; }
    action tna_mask_beyond_59() { meta.mask_beyond = 64w0x7ffffffffffffff; }
    action tna_mask_beyond_60() { meta.mask_beyond = 64w0xfffffffffffffff; }
    action tna_mask_beyond_61() { meta.mask_beyond = 64w0x1fffffffffffffff; }
    action tna_mask_beyond_62() { meta.mask_beyond = 64w0x3fffffffffffffff; }
    action tna_mask_beyond_63() { meta.mask_beyond = 64w0x7fffffffffffffff; }
    action tna_mask_beyond_64() { meta.mask_beyond = 64w0xffffffffffffffff; }
    table tna_mask_beyond {
        key = { meta.beyond_w: exact; }
        actions = { tna_mask_beyond_0; tna_mask_beyond_1; tna_mask_beyond_2; tna_mask_beyond_3; tna_mask_beyond_4; tna_mask_beyond_5; tna_mask_beyond_6; tna_mask_beyond_7; tna_mask_beyond_8; tna_mask_beyond_9; tna_mask_beyond_10; tna_mask_beyond_11; tna_mask_beyond_12; tna_mask_beyond_13; tna_mask_beyond_14; tna_mask_beyond_15; tna_mask_beyond_16; tna_mask_beyond_17; tna_mask_beyond_18; tna_mask_beyond_19; tna_mask_beyond_20; tna_mask_beyond_21; tna_mask_beyond_22; tna_mask_beyond_23; tna_mask_beyond_24; tna_mask_beyond_25; tna_mask_beyond_26; tna_mask_beyond_27; tna_mask_beyond_28; tna_mask_beyond_29; tna_mask_beyond_30; tna_mask_beyond_31; tna_mask_beyond_32; tna_mask_beyond_33; tna_mask_beyond_34; tna_mask_beyond_35; tna_mask_beyond_36; tna_mask_beyond_37; tna_mask_beyond_38; tna_mask_beyond_39; tna_mask_beyond_40; tna_mask_beyond_41; tna_mask_beyond_42; tna_mask_beyond_43; tna_mask_beyond_44; tna_mask_beyond_45; tna_mask_beyond_46; tna_mask_beyond_47; tna_mask_beyond_48; tna_mask_beyond_49; tna_mask_beyond_50; tna_mask_beyond_51; tna_mask_beyond_52; tna_mask_beyond_53; tna_mask_beyond_54; tna_mask_beyond_55; tna_mask_beyond_56; tna_mask_beyond_57; tna_mask_beyond_58; tna_mask_beyond_59; tna_mask_beyond_60; tna_mask_beyond_61; tna_mask_beyond_62; tna_mask_beyond_63; tna_mask_beyond_64; }
        const entries = {
            0: tna_mask_beyond_0();
            1: tna_mask_beyond_1();
            2: tna_mask_beyond_2();
            3: tna_mask_beyond_3();
            4: tna_mask_beyond_4();
            5: tna_mask_beyond_5();
            6: tna_mask_beyond_6();
            7: tna_mask_beyond_7();
            8: tna_mask_beyond_8();
            9: tna_mask_beyond_9();
            10: tna_mask_beyond_10();
            11: tna_mask_beyond_11();
            12: tna_mask_beyond_12();
            13: tna_mask_beyond_13();
            14: tna_mask_beyond_14();
            15: tna_mask_beyond_15();
            16: tna_mask_beyond_16();
            17: tna_mask_beyond_17();
            18: tna_mask_beyond_18();
            19: tna_mask_beyond_19();
            20: tna_mask_beyond_20();
            21: tna_mask_beyond_21();
            22: tna_mask_beyond_22();
            23: tna_mask_beyond_23();
            24: tna_mask_beyond_24();
            25: tna_mask_beyond_25();
            26: tna_mask_beyond_26();
            27: tna_mask_beyond_27();
            28: tna_mask_beyond_28();
            29: tna_mask_beyond_29();
            30: tna_mask_beyond_30();
            31: tna_mask_beyond_31();
            32: tna_mask_beyond_32();
            33: tna_mask_beyond_33();
            34: tna_mask_beyond_34();
            35: tna_mask_beyond_35();
            36: tna_mask_beyond_36();
            37: tna_mask_beyond_37();
            38: tna_mask_beyond_38();
            39: tna_mask_beyond_39();
            40: tna_mask_beyond_40();
            41: tna_mask_beyond_41();
            42: tna_mask_beyond_42();
            43: tna_mask_beyond_43();
            44: tna_mask_beyond_44();
            45: tna_mask_beyond_45();
            46: tna_mask_beyond_46();
            47: tna_mask_beyond_47();
            48: tna_mask_beyond_48();
            49: tna_mask_beyond_49();
            50: tna_mask_beyond_50();
            51: tna_mask_beyond_51();
            52: tna_mask_beyond_52();
            53: tna_mask_beyond_53();
            54: tna_mask_beyond_54();
            55: tna_mask_beyond_55();
            56: tna_mask_beyond_56();
            57: tna_mask_beyond_57();
            58: tna_mask_beyond_58();
            59: tna_mask_beyond_59();
            60: tna_mask_beyond_60();
            61: tna_mask_beyond_61();
            62: tna_mask_beyond_62();
            63: tna_mask_beyond_63();
            64: tna_mask_beyond_64();
        }
        size = 65;
    }
    /* low_mask: the low w bits set, from a table keyed on w (no variable shifts) */
    action tna_mask_id_0() { meta.mask_id = 64w0x0; }
    action tna_mask_id_1() { meta.mask_id = 64w0x1; }
    action tna_mask_id_2() { meta.mask_id = 64w0x3; }
    action tna_mask_id_3() { meta.mask_id = 64w0x7; }
    action tna_mask_id_4() { meta.mask_id = 64w0xf; }
    action tna_mask_id_5() { meta.mask_id = 64w0x1f; }
    action tna_mask_id_6() { meta.mask_id = 64w0x3f; }
    action tna_mask_id_7() { meta.mask_id = 64w0x7f; }
    action tna_mask_id_8() { meta.mask_id = 64w0xff; }
    action tna_mask_id_9() { meta.mask_id = 64w0x1ff; }
    action tna_mask_id_10() { meta.mask_id = 64w0x3ff; }
    action tna_mask_id_11() { meta.mask_id = 64w0x7ff; }
    action tna_mask_id_12() { meta.mask_id = 64w0xfff; }
    action tna_mask_id_13() { meta.mask_id = 64w0x1fff; }
    action tna_mask_id_14() { meta.mask_id = 64w0x3fff; }
    action tna_mask_id_15() { meta.mask_id = 64w0x7fff; }
    action tna_mask_id_16() { meta.mask_id = 64w0xffff; }
    action tna_mask_id_17() { meta.mask_id = 64w0x1ffff; }
    action tna_mask_id_18() { meta.mask_id = 64w0x3ffff; }
    action tna_mask_id_19() { meta.mask_id = 64w0x7ffff; }
    action tna_mask_id_20() { meta.mask_id = 64w0xfffff; }
    action tna_mask_id_21() { meta.mask_id = 64w0x1fffff; }
    action tna_mask_id_22() { meta.mask_id = 64w0x3fffff; }
    action tna_mask_id_23() { meta.mask_id = 64w0x7fffff; }
    action tna_mask_id_24() { meta.mask_id = 64w0xffffff; }
    action tna_mask_id_25() { meta.mask_id = 64w0x1ffffff; }
    action tna_mask_id_26() { meta.mask_id = 64w0x3ffffff; }
    action tna_mask_id_27() { meta.mask_id = 64w0x7ffffff; }
    action tna_mask_id_28() { meta.mask_id = 64w0xfffffff; }
    action tna_mask_id_29() { meta.mask_id = 64w0x1fffffff; }
    action tna_mask_id_30() { meta.mask_id = 64w0x3fffffff; }
    action tna_mask_id_31() { meta.mask_id = 64w0x7fffffff; }
    action tna_mask_id_32() { meta.mask_id = 64w0xffffffff; }
    action tna_mask_id_33() { meta.mask_id = 64w0x1ffffffff; }
    action tna_mask_id_34() { meta.mask_id = 64w0x3ffffffff; }
    action tna_mask_id_35() { meta.mask_id = 64w0x7ffffffff; }
    action tna_mask_id_36() { meta.mask_id = 64w0xfffffffff; }
    action tna_mask_id_37() { meta.mask_id = 64w0x1fffffffff; }
    action tna_mask_id_38() { meta.mask_id = 64w0x3fffffffff; }
    action tna_mask_id_39() { meta.mask_id = 64w0x7fffffffff; }
    action tna_mask_id_40() { meta.mask_id = 64w0xffffffffff; }
    action tna_mask_id_41() { meta.mask_id = 64w0x1ffffffffff; }
    action tna_mask_id_42() { meta.mask_id = 64w0x3ffffffffff; }
    action tna_mask_id_43() { meta.mask_id = 64w0x7ffffffffff; }
    action tna_mask_id_44() { meta.mask_id = 64w0xfffffffffff; }
    action tna_mask_id_45() { meta.mask_id = 64w0x1fffffffffff; }
    action tna_mask_id_46() { meta.mask_id = 64w0x3fffffffffff; }
    action tna_mask_id_47() { meta.mask_id = 64w0x7fffffffffff; }
    action tna_mask_id_48() { meta.mask_id = 64w0xffffffffffff; }
    action tna_mask_id_49() { meta.mask_id = 64w0x1ffffffffffff; }
    action tna_mask_id_50() { meta.mask_id = 64w0x3ffffffffffff; }
    action tna_mask_id_51() { meta.mask_id = 64w0x7ffffffffffff; }
    action tna_mask_id_52() { meta.mask_id = 64w0xfffffffffffff; }
    action tna_mask_id_53() { meta.mask_id = 64w0x1fffffffffffff; }
    action tna_mask_id_54() { meta.mask_id = 64w0x3fffffffffffff; }
    action tna_mask_id_55() { meta.mask_id = 64w0x7fffffffffffff; }
    action tna_mask_id_56() { meta.mask_id = 64w0xffffffffffffff; }
    action tna_mask_id_57() { meta.mask_id = 64w0x1ffffffffffffff; }
    action tna_mask_id_58() { meta.mask_id = 64w0x3ffffffffffffff; }
    action tna_mask_id_59() { meta.mask_id = 64w0x7ffffffffffffff; }
    action tna_mask_id_60() { meta.mask_id = 64w0xfffffffffffffff; }
    action tna_mask_id_61() { meta.mask_id = 64w0x1fffffffffffffff; }
    action tna_mask_id_62() { meta.mask_id = 64w0x3fffffffffffffff; }
    action tna_mask_id_63() { meta.mask_id = 64w0x7fffffffffffffff; }
    action tna_mask_id_64() { meta.mask_id = 64w0xffffffffffffffff; }
    table tna_mask_id {
        key = { meta.id_beyond_w: exact; }
        actions = { tna_mask_id_0; tna_mask_id_1; tna_mask_id_2; tna_mask_id_3; tna_mask_id_4; tna_mask_id_5; tna_mask_id_6; tna_mask_id_7; tna_mask_id_8; tna_mask_id_9; tna_mask_id_10; tna_mask_id_11; tna_mask_id_12; tna_mask_id_13; tna_mask_id_14; tna_mask_id_15; tna_mask_id_16; tna_mask_id_17; tna_mask_id_18; tna_mask_id_19; tna_mask_id_20; tna_mask_id_21; tna_mask_id_22; tna_mask_id_23; tna_mask_id_24; tna_mask_id_25; tna_mask_id_26; tna_mask_id_27; tna_mask_id_28; tna_mask_id_29; tna_mask_id_30; tna_mask_id_31; tna_mask_id_32; tna_mask_id_33; tna_mask_id_34; tna_mask_id_35; tna_mask_id_36; tna_mask_id_37; tna_mask_id_38; tna_mask_id_39; tna_mask_id_40; tna_mask_id_41; tna_mask_id_42; tna_mask_id_43; tna_mask_id_44; tna_mask_id_45; tna_mask_id_46; tna_mask_id_47; tna_mask_id_48; tna_mask_id_49; tna_mask_id_50; tna_mask_id_51; tna_mask_id_52; tna_mask_id_53; tna_mask_id_54; tna_mask_id_55; tna_mask_id_56; tna_mask_id_57; tna_mask_id_58; tna_mask_id_59; tna_mask_id_60; tna_mask_id_61; tna_mask_id_62; tna_mask_id_63; tna_mask_id_64; }
        const entries = {
            0: tna_mask_id_0();
            1: tna_mask_id_1();
            2: tna_mask_id_2();
            3: tna_mask_id_3();
            4: tna_mask_id_4();
            5: tna_mask_id_5();
            6: tna_mask_id_6();
            7: tna_mask_id_7();
            8: tna_mask_id_8();
            9: tna_mask_id_9();
            10: tna_mask_id_10();
            11: tna_mask_id_11();
            12: tna_mask_id_12();
            13: tna_mask_id_13();
            14: tna_mask_id_14();
            15: tna_mask_id_15();
            16: tna_mask_id_16();
            17: tna_mask_id_17();
            18: tna_mask_id_18();
            19: tna_mask_id_19();
            20: tna_mask_id_20();
            21: tna_mask_id_21();
            22: tna_mask_id_22();
            23: tna_mask_id_23();
            24: tna_mask_id_24();
            25: tna_mask_id_25();
            26: tna_mask_id_26();
            27: tna_mask_id_27();
            28: tna_mask_id_28();
            29: tna_mask_id_29();
            30: tna_mask_id_30();
            31: tna_mask_id_31();
            32: tna_mask_id_32();
            33: tna_mask_id_33();
            34: tna_mask_id_34();
            35: tna_mask_id_35();
            36: tna_mask_id_36();
            37: tna_mask_id_37();
            38: tna_mask_id_38();
            39: tna_mask_id_39();
            40: tna_mask_id_40();
            41: tna_mask_id_41();
            42: tna_mask_id_42();
            43: tna_mask_id_43();
            44: tna_mask_id_44();
            45: tna_mask_id_45();
            46: tna_mask_id_46();
            47: tna_mask_id_47();
            48: tna_mask_id_48();
            49: tna_mask_id_49();
            50: tna_mask_id_50();
            51: tna_mask_id_51();
            52: tna_mask_id_52();
            53: tna_mask_id_53();
            54: tna_mask_id_54();
            55: tna_mask_id_55();
            56: tna_mask_id_56();
            57: tna_mask_id_57();
            58: tna_mask_id_58();
            59: tna_mask_id_59();
            60: tna_mask_id_60();
            61: tna_mask_id_61();
            62: tna_mask_id_62();
            63: tna_mask_id_63();
            64: tna_mask_id_64();
        }
        size = 65;
    }
    /* modes 1-3: DST >> label_shift */
    action tna_shr_label_0() { meta.label_raw = hdr.sliced.word >> 0; }
    action tna_shr_label_1() { meta.label_raw = hdr.sliced.word >> 1; }
    action tna_shr_label_2() { meta.label_raw = hdr.sliced.word >> 2; }
    action tna_shr_label_3() { meta.label_raw = hdr.sliced.word >> 3; }
    action tna_shr_label_4() { meta.label_raw = hdr.sliced.word >> 4; }
    action tna_shr_label_5() { meta.label_raw = hdr.sliced.word >> 5; }
    action tna_shr_label_6() { meta.label_raw = hdr.sliced.word >> 6; }
    action tna_shr_label_7() { meta.label_raw = hdr.sliced.word >> 7; }
    action tna_shr_label_8() { meta.label_raw = hdr.sliced.word >> 8; }
    action tna_shr_label_9() { meta.label_raw = hdr.sliced.word >> 9; }
    action tna_shr_label_10() { meta.label_raw = hdr.sliced.word >> 10; }
    action tna_shr_label_11() { meta.label_raw = hdr.sliced.word >> 11; }
    action tna_shr_label_12() { meta.label_raw = hdr.sliced.word >> 12; }
    action tna_shr_label_13() { meta.label_raw = hdr.sliced.word >> 13; }
    action tna_shr_label_14() { meta.label_raw = hdr.sliced.word >> 14; }
    action tna_shr_label_15() { meta.label_raw = hdr.sliced.word >> 15; }
    action tna_shr_label_16() { meta.label_raw = hdr.sliced.word >> 16; }
    action tna_shr_label_17() { meta.label_raw = hdr.sliced.word >> 17; }
    action tna_shr_label_18() { meta.label_raw = hdr.sliced.word >> 18; }
    action tna_shr_label_19() { meta.label_raw = hdr.sliced.word >> 19; }
    action tna_shr_label_20() { meta.label_raw = hdr.sliced.word >> 20; }
    action tna_shr_label_21() { meta.label_raw = hdr.sliced.word >> 21; }
    action tna_shr_label_22() { meta.label_raw = hdr.sliced.word >> 22; }
    action tna_shr_label_23() { meta.label_raw = hdr.sliced.word >> 23; }
    action tna_shr_label_24() { meta.label_raw = hdr.sliced.word >> 24; }
    action tna_shr_label_25() { meta.label_raw = hdr.sliced.word >> 25; }
    action tna_shr_label_26() { meta.label_raw = hdr.sliced.word >> 26; }
    action tna_shr_label_27() { meta.label_raw = hdr.sliced.word >> 27; }
    action tna_shr_label_28() { meta.label_raw = hdr.sliced.word >> 28; }
    action tna_shr_label_29() { meta.label_raw = hdr.sliced.word >> 29; }
    action tna_shr_label_30() { meta.label_raw = hdr.sliced.word >> 30; }
    action tna_shr_label_31() { meta.label_raw = hdr.sliced.word >> 31; }
    action tna_shr_label_32() { meta.label_raw = hdr.sliced.word >> 32; }
    action tna_shr_label_33() { meta.label_raw = hdr.sliced.word >> 33; }
    action tna_shr_label_34() { meta.label_raw = hdr.sliced.word >> 34; }
    action tna_shr_label_35() { meta.label_raw = hdr.sliced.word >> 35; }
    action tna_shr_label_36() { meta.label_raw = hdr.sliced.word >> 36; }
    action tna_shr_label_37() { meta.label_raw = hdr.sliced.word >> 37; }
    action tna_shr_label_38() { meta.label_raw = hdr.sliced.word >> 38; }
    action tna_shr_label_39() { meta.label_raw = hdr.sliced.word >> 39; }
    action tna_shr_label_40() { meta.label_raw = hdr.sliced.word >> 40; }
    action tna_shr_label_41() { meta.label_raw = hdr.sliced.word >> 41; }
    action tna_shr_label_42() { meta.label_raw = hdr.sliced.word >> 42; }
    action tna_shr_label_43() { meta.label_raw = hdr.sliced.word >> 43; }
    action tna_shr_label_44() { meta.label_raw = hdr.sliced.word >> 44; }
    action tna_shr_label_45() { meta.label_raw = hdr.sliced.word >> 45; }
    action tna_shr_label_46() { meta.label_raw = hdr.sliced.word >> 46; }
    action tna_shr_label_47() { meta.label_raw = hdr.sliced.word >> 47; }
    action tna_shr_label_48() { meta.label_raw = hdr.sliced.word >> 48; }
    action tna_shr_label_49() { meta.label_raw = hdr.sliced.word >> 49; }
    action tna_shr_label_50() { meta.label_raw = hdr.sliced.word >> 50; }
    action tna_shr_label_51() { meta.label_raw = hdr.sliced.word >> 51; }
    action tna_shr_label_52() { meta.label_raw = hdr.sliced.word >> 52; }
    action tna_shr_label_53() { meta.label_raw = hdr.sliced.word >> 53; }
    action tna_shr_label_54() { meta.label_raw = hdr.sliced.word >> 54; }
    action tna_shr_label_55() { meta.label_raw = hdr.sliced.word >> 55; }
    action tna_shr_label_56() { meta.label_raw = hdr.sliced.word >> 56; }
    action tna_shr_label_57() { meta.label_raw = hdr.sliced.word >> 57; }
    action tna_shr_label_58() { meta.label_raw = hdr.sliced.word >> 58; }
    action tna_shr_label_59() { meta.label_raw = hdr.sliced.word >> 59; }
    action tna_shr_label_60() { meta.label_raw = hdr.sliced.word >> 60; }
    action tna_shr_label_61() { meta.label_raw = hdr.sliced.word >> 61; }
    action tna_shr_label_62() { meta.label_raw = hdr.sliced.word >> 62; }
    action tna_shr_label_63() { meta.label_raw = hdr.sliced.word >> 63; }
    action tna_shr_label_64() { meta.label_raw = 0; }
    table tna_shr_label {
        key = { meta.sl_label_shift: exact; }
        actions = { tna_shr_label_0; tna_shr_label_1; tna_shr_label_2; tna_shr_label_3; tna_shr_label_4; tna_shr_label_5; tna_shr_label_6; tna_shr_label_7; tna_shr_label_8; tna_shr_label_9; tna_shr_label_10; tna_shr_label_11; tna_shr_label_12; tna_shr_label_13; tna_shr_label_14; tna_shr_label_15; tna_shr_label_16; tna_shr_label_17; tna_shr_label_18; tna_shr_label_19; tna_shr_label_20; tna_shr_label_21; tna_shr_label_22; tna_shr_label_23; tna_shr_label_24; tna_shr_label_25; tna_shr_label_26; tna_shr_label_27; tna_shr_label_28; tna_shr_label_29; tna_shr_label_30; tna_shr_label_31; tna_shr_label_32; tna_shr_label_33; tna_shr_label_34; tna_shr_label_35; tna_shr_label_36; tna_shr_label_37; tna_shr_label_38; tna_shr_label_39; tna_shr_label_40; tna_shr_label_41; tna_shr_label_42; tna_shr_label_43; tna_shr_label_44; tna_shr_label_45; tna_shr_label_46; tna_shr_label_47; tna_shr_label_48; tna_shr_label_49; tna_shr_label_50; tna_shr_label_51; tna_shr_label_52; tna_shr_label_53; tna_shr_label_54; tna_shr_label_55; tna_shr_label_56; tna_shr_label_57; tna_shr_label_58; tna_shr_label_59; tna_shr_label_60; tna_shr_label_61; tna_shr_label_62; tna_shr_label_63; tna_shr_label_64; }
        const entries = {
            0: tna_shr_label_0();
            1: tna_shr_label_1();
            2: tna_shr_label_2();
            3: tna_shr_label_3();
            4: tna_shr_label_4();
            5: tna_shr_label_5();
            6: tna_shr_label_6();
            7: tna_shr_label_7();
            8: tna_shr_label_8();
            9: tna_shr_label_9();
            10: tna_shr_label_10();
            11: tna_shr_label_11();
            12: tna_shr_label_12();
            13: tna_shr_label_13();
            14: tna_shr_label_14();
            15: tna_shr_label_15();
            16: tna_shr_label_16();
            17: tna_shr_label_17();
            18: tna_shr_label_18();
            19: tna_shr_label_19();
            20: tna_shr_label_20();
            21: tna_shr_label_21();
            22: tna_shr_label_22();
            23: tna_shr_label_23();
            24: tna_shr_label_24();
            25: tna_shr_label_25();
            26: tna_shr_label_26();
            27: tna_shr_label_27();
            28: tna_shr_label_28();
            29: tna_shr_label_29();
            30: tna_shr_label_30();
            31: tna_shr_label_31();
            32: tna_shr_label_32();
            33: tna_shr_label_33();
            34: tna_shr_label_34();
            35: tna_shr_label_35();
            36: tna_shr_label_36();
            37: tna_shr_label_37();
            38: tna_shr_label_38();
            39: tna_shr_label_39();
            40: tna_shr_label_40();
            41: tna_shr_label_41();
            42: tna_shr_label_42();
            43: tna_shr_label_43();
            44: tna_shr_label_44();
            45: tna_shr_label_45();
            46: tna_shr_label_46();
            47: tna_shr_label_47();
            48: tna_shr_label_48();
            49: tna_shr_label_49();
            50: tna_shr_label_50();
            51: tna_shr_label_51();
            52: tna_shr_label_52();
            53: tna_shr_label_53();
            54: tna_shr_label_54();
            55: tna_shr_label_55();
            56: tna_shr_label_56();
            57: tna_shr_label_57();
            58: tna_shr_label_58();
            59: tna_shr_label_59();
            60: tna_shr_label_60();
            61: tna_shr_label_61();
            62: tna_shr_label_62();
            63: tna_shr_label_63();
            64: tna_shr_label_64();
        }
        size = 65;
    }
    /* modes 1-3: DST >> zone_shift */
    action tna_shr_zone_d_0() { meta.above_dst = hdr.sliced.word >> 0; }
    action tna_shr_zone_d_1() { meta.above_dst = hdr.sliced.word >> 1; }
    action tna_shr_zone_d_2() { meta.above_dst = hdr.sliced.word >> 2; }
    action tna_shr_zone_d_3() { meta.above_dst = hdr.sliced.word >> 3; }
    action tna_shr_zone_d_4() { meta.above_dst = hdr.sliced.word >> 4; }
    action tna_shr_zone_d_5() { meta.above_dst = hdr.sliced.word >> 5; }
    action tna_shr_zone_d_6() { meta.above_dst = hdr.sliced.word >> 6; }
    action tna_shr_zone_d_7() { meta.above_dst = hdr.sliced.word >> 7; }
    action tna_shr_zone_d_8() { meta.above_dst = hdr.sliced.word >> 8; }
    action tna_shr_zone_d_9() { meta.above_dst = hdr.sliced.word >> 9; }
    action tna_shr_zone_d_10() { meta.above_dst = hdr.sliced.word >> 10; }
    action tna_shr_zone_d_11() { meta.above_dst = hdr.sliced.word >> 11; }
    action tna_shr_zone_d_12() { meta.above_dst = hdr.sliced.word >> 12; }
    action tna_shr_zone_d_13() { meta.above_dst = hdr.sliced.word >> 13; }
    action tna_shr_zone_d_14() { meta.above_dst = hdr.sliced.word >> 14; }
    action tna_shr_zone_d_15() { meta.above_dst = hdr.sliced.word >> 15; }
    action tna_shr_zone_d_16() { meta.above_dst = hdr.sliced.word >> 16; }
    action tna_shr_zone_d_17() { meta.above_dst = hdr.sliced.word >> 17; }
    action tna_shr_zone_d_18() { meta.above_dst = hdr.sliced.word >> 18; }
    action tna_shr_zone_d_19() { meta.above_dst = hdr.sliced.word >> 19; }
    action tna_shr_zone_d_20() { meta.above_dst = hdr.sliced.word >> 20; }
    action tna_shr_zone_d_21() { meta.above_dst = hdr.sliced.word >> 21; }
    action tna_shr_zone_d_22() { meta.above_dst = hdr.sliced.word >> 22; }
    action tna_shr_zone_d_23() { meta.above_dst = hdr.sliced.word >> 23; }
    action tna_shr_zone_d_24() { meta.above_dst = hdr.sliced.word >> 24; }
    action tna_shr_zone_d_25() { meta.above_dst = hdr.sliced.word >> 25; }
    action tna_shr_zone_d_26() { meta.above_dst = hdr.sliced.word >> 26; }
    action tna_shr_zone_d_27() { meta.above_dst = hdr.sliced.word >> 27; }
    action tna_shr_zone_d_28() { meta.above_dst = hdr.sliced.word >> 28; }
    action tna_shr_zone_d_29() { meta.above_dst = hdr.sliced.word >> 29; }
    action tna_shr_zone_d_30() { meta.above_dst = hdr.sliced.word >> 30; }
    action tna_shr_zone_d_31() { meta.above_dst = hdr.sliced.word >> 31; }
    action tna_shr_zone_d_32() { meta.above_dst = hdr.sliced.word >> 32; }
    action tna_shr_zone_d_33() { meta.above_dst = hdr.sliced.word >> 33; }
    action tna_shr_zone_d_34() { meta.above_dst = hdr.sliced.word >> 34; }
    action tna_shr_zone_d_35() { meta.above_dst = hdr.sliced.word >> 35; }
    action tna_shr_zone_d_36() { meta.above_dst = hdr.sliced.word >> 36; }
    action tna_shr_zone_d_37() { meta.above_dst = hdr.sliced.word >> 37; }
    action tna_shr_zone_d_38() { meta.above_dst = hdr.sliced.word >> 38; }
    action tna_shr_zone_d_39() { meta.above_dst = hdr.sliced.word >> 39; }
    action tna_shr_zone_d_40() { meta.above_dst = hdr.sliced.word >> 40; }
    action tna_shr_zone_d_41() { meta.above_dst = hdr.sliced.word >> 41; }
    action tna_shr_zone_d_42() { meta.above_dst = hdr.sliced.word >> 42; }
    action tna_shr_zone_d_43() { meta.above_dst = hdr.sliced.word >> 43; }
    action tna_shr_zone_d_44() { meta.above_dst = hdr.sliced.word >> 44; }
    action tna_shr_zone_d_45() { meta.above_dst = hdr.sliced.word >> 45; }
    action tna_shr_zone_d_46() { meta.above_dst = hdr.sliced.word >> 46; }
    action tna_shr_zone_d_47() { meta.above_dst = hdr.sliced.word >> 47; }
    action tna_shr_zone_d_48() { meta.above_dst = hdr.sliced.word >> 48; }
    action tna_shr_zone_d_49() { meta.above_dst = hdr.sliced.word >> 49; }
    action tna_shr_zone_d_50() { meta.above_dst = hdr.sliced.word >> 50; }
    action tna_shr_zone_d_51() { meta.above_dst = hdr.sliced.word >> 51; }
    action tna_shr_zone_d_52() { meta.above_dst = hdr.sliced.word >> 52; }
    action tna_shr_zone_d_53() { meta.above_dst = hdr.sliced.word >> 53; }
    action tna_shr_zone_d_54() { meta.above_dst = hdr.sliced.word >> 54; }
    action tna_shr_zone_d_55() { meta.above_dst = hdr.sliced.word >> 55; }
    action tna_shr_zone_d_56() { meta.above_dst = hdr.sliced.word >> 56; }
    action tna_shr_zone_d_57() { meta.above_dst = hdr.sliced.word >> 57; }
    action tna_shr_zone_d_58() { meta.above_dst = hdr.sliced.word >> 58; }
    action tna_shr_zone_d_59() { meta.above_dst = hdr.sliced.word >> 59; }
    action tna_shr_zone_d_60() { meta.above_dst = hdr.sliced.word >> 60; }
    action tna_shr_zone_d_61() { meta.above_dst = hdr.sliced.word >> 61; }
    action tna_shr_zone_d_62() { meta.above_dst = hdr.sliced.word >> 62; }
    action tna_shr_zone_d_63() { meta.above_dst = hdr.sliced.word >> 63; }
    action tna_shr_zone_d_64() { meta.above_dst = 0; }
    table tna_shr_zone_d {
        key = { meta.sl_zone_shift: exact; }
        actions = { tna_shr_zone_d_0; tna_shr_zone_d_1; tna_shr_zone_d_2; tna_shr_zone_d_3; tna_shr_zone_d_4; tna_shr_zone_d_5; tna_shr_zone_d_6; tna_shr_zone_d_7; tna_shr_zone_d_8; tna_shr_zone_d_9; tna_shr_zone_d_10; tna_shr_zone_d_11; tna_shr_zone_d_12; tna_shr_zone_d_13; tna_shr_zone_d_14; tna_shr_zone_d_15; tna_shr_zone_d_16; tna_shr_zone_d_17; tna_shr_zone_d_18; tna_shr_zone_d_19; tna_shr_zone_d_20; tna_shr_zone_d_21; tna_shr_zone_d_22; tna_shr_zone_d_23; tna_shr_zone_d_24; tna_shr_zone_d_25; tna_shr_zone_d_26; tna_shr_zone_d_27; tna_shr_zone_d_28; tna_shr_zone_d_29; tna_shr_zone_d_30; tna_shr_zone_d_31; tna_shr_zone_d_32; tna_shr_zone_d_33; tna_shr_zone_d_34; tna_shr_zone_d_35; tna_shr_zone_d_36; tna_shr_zone_d_37; tna_shr_zone_d_38; tna_shr_zone_d_39; tna_shr_zone_d_40; tna_shr_zone_d_41; tna_shr_zone_d_42; tna_shr_zone_d_43; tna_shr_zone_d_44; tna_shr_zone_d_45; tna_shr_zone_d_46; tna_shr_zone_d_47; tna_shr_zone_d_48; tna_shr_zone_d_49; tna_shr_zone_d_50; tna_shr_zone_d_51; tna_shr_zone_d_52; tna_shr_zone_d_53; tna_shr_zone_d_54; tna_shr_zone_d_55; tna_shr_zone_d_56; tna_shr_zone_d_57; tna_shr_zone_d_58; tna_shr_zone_d_59; tna_shr_zone_d_60; tna_shr_zone_d_61; tna_shr_zone_d_62; tna_shr_zone_d_63; tna_shr_zone_d_64; }
        const entries = {
            0: tna_shr_zone_d_0();
            1: tna_shr_zone_d_1();
            2: tna_shr_zone_d_2();
            3: tna_shr_zone_d_3();
            4: tna_shr_zone_d_4();
            5: tna_shr_zone_d_5();
            6: tna_shr_zone_d_6();
            7: tna_shr_zone_d_7();
            8: tna_shr_zone_d_8();
            9: tna_shr_zone_d_9();
            10: tna_shr_zone_d_10();
            11: tna_shr_zone_d_11();
            12: tna_shr_zone_d_12();
            13: tna_shr_zone_d_13();
            14: tna_shr_zone_d_14();
            15: tna_shr_zone_d_15();
            16: tna_shr_zone_d_16();
            17: tna_shr_zone_d_17();
            18: tna_shr_zone_d_18();
            19: tna_shr_zone_d_19();
            20: tna_shr_zone_d_20();
            21: tna_shr_zone_d_21();
            22: tna_shr_zone_d_22();
            23: tna_shr_zone_d_23();
            24: tna_shr_zone_d_24();
            25: tna_shr_zone_d_25();
            26: tna_shr_zone_d_26();
            27: tna_shr_zone_d_27();
            28: tna_shr_zone_d_28();
            29: tna_shr_zone_d_29();
            30: tna_shr_zone_d_30();
            31: tna_shr_zone_d_31();
            32: tna_shr_zone_d_32();
            33: tna_shr_zone_d_33();
            34: tna_shr_zone_d_34();
            35: tna_shr_zone_d_35();
            36: tna_shr_zone_d_36();
            37: tna_shr_zone_d_37();
            38: tna_shr_zone_d_38();
            39: tna_shr_zone_d_39();
            40: tna_shr_zone_d_40();
            41: tna_shr_zone_d_41();
            42: tna_shr_zone_d_42();
            43: tna_shr_zone_d_43();
            44: tna_shr_zone_d_44();
            45: tna_shr_zone_d_45();
            46: tna_shr_zone_d_46();
            47: tna_shr_zone_d_47();
            48: tna_shr_zone_d_48();
            49: tna_shr_zone_d_49();
            50: tna_shr_zone_d_50();
            51: tna_shr_zone_d_51();
            52: tna_shr_zone_d_52();
            53: tna_shr_zone_d_53();
            54: tna_shr_zone_d_54();
            55: tna_shr_zone_d_55();
            56: tna_shr_zone_d_56();
            57: tna_shr_zone_d_57();
            58: tna_shr_zone_d_58();
            59: tna_shr_zone_d_59();
            60: tna_shr_zone_d_60();
            61: tna_shr_zone_d_61();
            62: tna_shr_zone_d_62();
            63: tna_shr_zone_d_63();
            64: tna_shr_zone_d_64();
        }
        size = 65;
    }
    /* modes 1-3: SRC >> zone_shift */
    action tna_shr_zone_s_0() { meta.above_src = hdr.sliced_src.src >> 0; }
    action tna_shr_zone_s_1() { meta.above_src = hdr.sliced_src.src >> 1; }
    action tna_shr_zone_s_2() { meta.above_src = hdr.sliced_src.src >> 2; }
    action tna_shr_zone_s_3() { meta.above_src = hdr.sliced_src.src >> 3; }
    action tna_shr_zone_s_4() { meta.above_src = hdr.sliced_src.src >> 4; }
    action tna_shr_zone_s_5() { meta.above_src = hdr.sliced_src.src >> 5; }
    action tna_shr_zone_s_6() { meta.above_src = hdr.sliced_src.src >> 6; }
    action tna_shr_zone_s_7() { meta.above_src = hdr.sliced_src.src >> 7; }
    action tna_shr_zone_s_8() { meta.above_src = hdr.sliced_src.src >> 8; }
    action tna_shr_zone_s_9() { meta.above_src = hdr.sliced_src.src >> 9; }
    action tna_shr_zone_s_10() { meta.above_src = hdr.sliced_src.src >> 10; }
    action tna_shr_zone_s_11() { meta.above_src = hdr.sliced_src.src >> 11; }
    action tna_shr_zone_s_12() { meta.above_src = hdr.sliced_src.src >> 12; }
    action tna_shr_zone_s_13() { meta.above_src = hdr.sliced_src.src >> 13; }
    action tna_shr_zone_s_14() { meta.above_src = hdr.sliced_src.src >> 14; }
    action tna_shr_zone_s_15() { meta.above_src = hdr.sliced_src.src >> 15; }
    action tna_shr_zone_s_16() { meta.above_src = hdr.sliced_src.src >> 16; }
    action tna_shr_zone_s_17() { meta.above_src = hdr.sliced_src.src >> 17; }
    action tna_shr_zone_s_18() { meta.above_src = hdr.sliced_src.src >> 18; }
    action tna_shr_zone_s_19() { meta.above_src = hdr.sliced_src.src >> 19; }
    action tna_shr_zone_s_20() { meta.above_src = hdr.sliced_src.src >> 20; }
    action tna_shr_zone_s_21() { meta.above_src = hdr.sliced_src.src >> 21; }
    action tna_shr_zone_s_22() { meta.above_src = hdr.sliced_src.src >> 22; }
    action tna_shr_zone_s_23() { meta.above_src = hdr.sliced_src.src >> 23; }
    action tna_shr_zone_s_24() { meta.above_src = hdr.sliced_src.src >> 24; }
    action tna_shr_zone_s_25() { meta.above_src = hdr.sliced_src.src >> 25; }
    action tna_shr_zone_s_26() { meta.above_src = hdr.sliced_src.src >> 26; }
    action tna_shr_zone_s_27() { meta.above_src = hdr.sliced_src.src >> 27; }
    action tna_shr_zone_s_28() { meta.above_src = hdr.sliced_src.src >> 28; }
    action tna_shr_zone_s_29() { meta.above_src = hdr.sliced_src.src >> 29; }
    action tna_shr_zone_s_30() { meta.above_src = hdr.sliced_src.src >> 30; }
    action tna_shr_zone_s_31() { meta.above_src = hdr.sliced_src.src >> 31; }
    action tna_shr_zone_s_32() { meta.above_src = hdr.sliced_src.src >> 32; }
    action tna_shr_zone_s_33() { meta.above_src = hdr.sliced_src.src >> 33; }
    action tna_shr_zone_s_34() { meta.above_src = hdr.sliced_src.src >> 34; }
    action tna_shr_zone_s_35() { meta.above_src = hdr.sliced_src.src >> 35; }
    action tna_shr_zone_s_36() { meta.above_src = hdr.sliced_src.src >> 36; }
    action tna_shr_zone_s_37() { meta.above_src = hdr.sliced_src.src >> 37; }
    action tna_shr_zone_s_38() { meta.above_src = hdr.sliced_src.src >> 38; }
    action tna_shr_zone_s_39() { meta.above_src = hdr.sliced_src.src >> 39; }
    action tna_shr_zone_s_40() { meta.above_src = hdr.sliced_src.src >> 40; }
    action tna_shr_zone_s_41() { meta.above_src = hdr.sliced_src.src >> 41; }
    action tna_shr_zone_s_42() { meta.above_src = hdr.sliced_src.src >> 42; }
    action tna_shr_zone_s_43() { meta.above_src = hdr.sliced_src.src >> 43; }
    action tna_shr_zone_s_44() { meta.above_src = hdr.sliced_src.src >> 44; }
    action tna_shr_zone_s_45() { meta.above_src = hdr.sliced_src.src >> 45; }
    action tna_shr_zone_s_46() { meta.above_src = hdr.sliced_src.src >> 46; }
    action tna_shr_zone_s_47() { meta.above_src = hdr.sliced_src.src >> 47; }
    action tna_shr_zone_s_48() { meta.above_src = hdr.sliced_src.src >> 48; }
    action tna_shr_zone_s_49() { meta.above_src = hdr.sliced_src.src >> 49; }
    action tna_shr_zone_s_50() { meta.above_src = hdr.sliced_src.src >> 50; }
    action tna_shr_zone_s_51() { meta.above_src = hdr.sliced_src.src >> 51; }
    action tna_shr_zone_s_52() { meta.above_src = hdr.sliced_src.src >> 52; }
    action tna_shr_zone_s_53() { meta.above_src = hdr.sliced_src.src >> 53; }
    action tna_shr_zone_s_54() { meta.above_src = hdr.sliced_src.src >> 54; }
    action tna_shr_zone_s_55() { meta.above_src = hdr.sliced_src.src >> 55; }
    action tna_shr_zone_s_56() { meta.above_src = hdr.sliced_src.src >> 56; }
    action tna_shr_zone_s_57() { meta.above_src = hdr.sliced_src.src >> 57; }
    action tna_shr_zone_s_58() { meta.above_src = hdr.sliced_src.src >> 58; }
    action tna_shr_zone_s_59() { meta.above_src = hdr.sliced_src.src >> 59; }
    action tna_shr_zone_s_60() { meta.above_src = hdr.sliced_src.src >> 60; }
    action tna_shr_zone_s_61() { meta.above_src = hdr.sliced_src.src >> 61; }
    action tna_shr_zone_s_62() { meta.above_src = hdr.sliced_src.src >> 62; }
    action tna_shr_zone_s_63() { meta.above_src = hdr.sliced_src.src >> 63; }
    action tna_shr_zone_s_64() { meta.above_src = 0; }
    table tna_shr_zone_s {
        key = { meta.sl_zone_shift: exact; }
        actions = { tna_shr_zone_s_0; tna_shr_zone_s_1; tna_shr_zone_s_2; tna_shr_zone_s_3; tna_shr_zone_s_4; tna_shr_zone_s_5; tna_shr_zone_s_6; tna_shr_zone_s_7; tna_shr_zone_s_8; tna_shr_zone_s_9; tna_shr_zone_s_10; tna_shr_zone_s_11; tna_shr_zone_s_12; tna_shr_zone_s_13; tna_shr_zone_s_14; tna_shr_zone_s_15; tna_shr_zone_s_16; tna_shr_zone_s_17; tna_shr_zone_s_18; tna_shr_zone_s_19; tna_shr_zone_s_20; tna_shr_zone_s_21; tna_shr_zone_s_22; tna_shr_zone_s_23; tna_shr_zone_s_24; tna_shr_zone_s_25; tna_shr_zone_s_26; tna_shr_zone_s_27; tna_shr_zone_s_28; tna_shr_zone_s_29; tna_shr_zone_s_30; tna_shr_zone_s_31; tna_shr_zone_s_32; tna_shr_zone_s_33; tna_shr_zone_s_34; tna_shr_zone_s_35; tna_shr_zone_s_36; tna_shr_zone_s_37; tna_shr_zone_s_38; tna_shr_zone_s_39; tna_shr_zone_s_40; tna_shr_zone_s_41; tna_shr_zone_s_42; tna_shr_zone_s_43; tna_shr_zone_s_44; tna_shr_zone_s_45; tna_shr_zone_s_46; tna_shr_zone_s_47; tna_shr_zone_s_48; tna_shr_zone_s_49; tna_shr_zone_s_50; tna_shr_zone_s_51; tna_shr_zone_s_52; tna_shr_zone_s_53; tna_shr_zone_s_54; tna_shr_zone_s_55; tna_shr_zone_s_56; tna_shr_zone_s_57; tna_shr_zone_s_58; tna_shr_zone_s_59; tna_shr_zone_s_60; tna_shr_zone_s_61; tna_shr_zone_s_62; tna_shr_zone_s_63; tna_shr_zone_s_64; }
        const entries = {
            0: tna_shr_zone_s_0();
            1: tna_shr_zone_s_1();
            2: tna_shr_zone_s_2();
            3: tna_shr_zone_s_3();
            4: tna_shr_zone_s_4();
            5: tna_shr_zone_s_5();
            6: tna_shr_zone_s_6();
            7: tna_shr_zone_s_7();
            8: tna_shr_zone_s_8();
            9: tna_shr_zone_s_9();
            10: tna_shr_zone_s_10();
            11: tna_shr_zone_s_11();
            12: tna_shr_zone_s_12();
            13: tna_shr_zone_s_13();
            14: tna_shr_zone_s_14();
            15: tna_shr_zone_s_15();
            16: tna_shr_zone_s_16();
            17: tna_shr_zone_s_17();
            18: tna_shr_zone_s_18();
            19: tna_shr_zone_s_19();
            20: tna_shr_zone_s_20();
            21: tna_shr_zone_s_21();
            22: tna_shr_zone_s_22();
            23: tna_shr_zone_s_23();
            24: tna_shr_zone_s_24();
            25: tna_shr_zone_s_25();
            26: tna_shr_zone_s_26();
            27: tna_shr_zone_s_27();
            28: tna_shr_zone_s_28();
            29: tna_shr_zone_s_29();
            30: tna_shr_zone_s_30();
            31: tna_shr_zone_s_31();
            32: tna_shr_zone_s_32();
            33: tna_shr_zone_s_33();
            34: tna_shr_zone_s_34();
            35: tna_shr_zone_s_35();
            36: tna_shr_zone_s_36();
            37: tna_shr_zone_s_37();
            38: tna_shr_zone_s_38();
            39: tna_shr_zone_s_39();
            40: tna_shr_zone_s_40();
            41: tna_shr_zone_s_41();
            42: tna_shr_zone_s_42();
            43: tna_shr_zone_s_43();
            44: tna_shr_zone_s_44();
            45: tna_shr_zone_s_45();
            46: tna_shr_zone_s_46();
            47: tna_shr_zone_s_47();
            48: tna_shr_zone_s_48();
            49: tna_shr_zone_s_49();
            50: tna_shr_zone_s_50();
            51: tna_shr_zone_s_51();
            52: tna_shr_zone_s_52();
            53: tna_shr_zone_s_53();
            54: tna_shr_zone_s_54();
            55: tna_shr_zone_s_55();
            56: tna_shr_zone_s_56();
            57: tna_shr_zone_s_57();
            58: tna_shr_zone_s_58();
            59: tna_shr_zone_s_59();
            60: tna_shr_zone_s_60();
            61: tna_shr_zone_s_61();
            62: tna_shr_zone_s_62();
            63: tna_shr_zone_s_63();
            64: tna_shr_zone_s_64();
        }
        size = 65;
    }
    /* modes 1-3: DST >> znode_shift */
    action tna_shr_znode_0() { meta.znode_k = hdr.sliced.word >> 0; }
    action tna_shr_znode_1() { meta.znode_k = hdr.sliced.word >> 1; }
    action tna_shr_znode_2() { meta.znode_k = hdr.sliced.word >> 2; }
    action tna_shr_znode_3() { meta.znode_k = hdr.sliced.word >> 3; }
    action tna_shr_znode_4() { meta.znode_k = hdr.sliced.word >> 4; }
    action tna_shr_znode_5() { meta.znode_k = hdr.sliced.word >> 5; }
    action tna_shr_znode_6() { meta.znode_k = hdr.sliced.word >> 6; }
    action tna_shr_znode_7() { meta.znode_k = hdr.sliced.word >> 7; }
    action tna_shr_znode_8() { meta.znode_k = hdr.sliced.word >> 8; }
    action tna_shr_znode_9() { meta.znode_k = hdr.sliced.word >> 9; }
    action tna_shr_znode_10() { meta.znode_k = hdr.sliced.word >> 10; }
    action tna_shr_znode_11() { meta.znode_k = hdr.sliced.word >> 11; }
    action tna_shr_znode_12() { meta.znode_k = hdr.sliced.word >> 12; }
    action tna_shr_znode_13() { meta.znode_k = hdr.sliced.word >> 13; }
    action tna_shr_znode_14() { meta.znode_k = hdr.sliced.word >> 14; }
    action tna_shr_znode_15() { meta.znode_k = hdr.sliced.word >> 15; }
    action tna_shr_znode_16() { meta.znode_k = hdr.sliced.word >> 16; }
    action tna_shr_znode_17() { meta.znode_k = hdr.sliced.word >> 17; }
    action tna_shr_znode_18() { meta.znode_k = hdr.sliced.word >> 18; }
    action tna_shr_znode_19() { meta.znode_k = hdr.sliced.word >> 19; }
    action tna_shr_znode_20() { meta.znode_k = hdr.sliced.word >> 20; }
    action tna_shr_znode_21() { meta.znode_k = hdr.sliced.word >> 21; }
    action tna_shr_znode_22() { meta.znode_k = hdr.sliced.word >> 22; }
    action tna_shr_znode_23() { meta.znode_k = hdr.sliced.word >> 23; }
    action tna_shr_znode_24() { meta.znode_k = hdr.sliced.word >> 24; }
    action tna_shr_znode_25() { meta.znode_k = hdr.sliced.word >> 25; }
    action tna_shr_znode_26() { meta.znode_k = hdr.sliced.word >> 26; }
    action tna_shr_znode_27() { meta.znode_k = hdr.sliced.word >> 27; }
    action tna_shr_znode_28() { meta.znode_k = hdr.sliced.word >> 28; }
    action tna_shr_znode_29() { meta.znode_k = hdr.sliced.word >> 29; }
    action tna_shr_znode_30() { meta.znode_k = hdr.sliced.word >> 30; }
    action tna_shr_znode_31() { meta.znode_k = hdr.sliced.word >> 31; }
    action tna_shr_znode_32() { meta.znode_k = hdr.sliced.word >> 32; }
    action tna_shr_znode_33() { meta.znode_k = hdr.sliced.word >> 33; }
    action tna_shr_znode_34() { meta.znode_k = hdr.sliced.word >> 34; }
    action tna_shr_znode_35() { meta.znode_k = hdr.sliced.word >> 35; }
    action tna_shr_znode_36() { meta.znode_k = hdr.sliced.word >> 36; }
    action tna_shr_znode_37() { meta.znode_k = hdr.sliced.word >> 37; }
    action tna_shr_znode_38() { meta.znode_k = hdr.sliced.word >> 38; }
    action tna_shr_znode_39() { meta.znode_k = hdr.sliced.word >> 39; }
    action tna_shr_znode_40() { meta.znode_k = hdr.sliced.word >> 40; }
    action tna_shr_znode_41() { meta.znode_k = hdr.sliced.word >> 41; }
    action tna_shr_znode_42() { meta.znode_k = hdr.sliced.word >> 42; }
    action tna_shr_znode_43() { meta.znode_k = hdr.sliced.word >> 43; }
    action tna_shr_znode_44() { meta.znode_k = hdr.sliced.word >> 44; }
    action tna_shr_znode_45() { meta.znode_k = hdr.sliced.word >> 45; }
    action tna_shr_znode_46() { meta.znode_k = hdr.sliced.word >> 46; }
    action tna_shr_znode_47() { meta.znode_k = hdr.sliced.word >> 47; }
    action tna_shr_znode_48() { meta.znode_k = hdr.sliced.word >> 48; }
    action tna_shr_znode_49() { meta.znode_k = hdr.sliced.word >> 49; }
    action tna_shr_znode_50() { meta.znode_k = hdr.sliced.word >> 50; }
    action tna_shr_znode_51() { meta.znode_k = hdr.sliced.word >> 51; }
    action tna_shr_znode_52() { meta.znode_k = hdr.sliced.word >> 52; }
    action tna_shr_znode_53() { meta.znode_k = hdr.sliced.word >> 53; }
    action tna_shr_znode_54() { meta.znode_k = hdr.sliced.word >> 54; }
    action tna_shr_znode_55() { meta.znode_k = hdr.sliced.word >> 55; }
    action tna_shr_znode_56() { meta.znode_k = hdr.sliced.word >> 56; }
    action tna_shr_znode_57() { meta.znode_k = hdr.sliced.word >> 57; }
    action tna_shr_znode_58() { meta.znode_k = hdr.sliced.word >> 58; }
    action tna_shr_znode_59() { meta.znode_k = hdr.sliced.word >> 59; }
    action tna_shr_znode_60() { meta.znode_k = hdr.sliced.word >> 60; }
    action tna_shr_znode_61() { meta.znode_k = hdr.sliced.word >> 61; }
    action tna_shr_znode_62() { meta.znode_k = hdr.sliced.word >> 62; }
    action tna_shr_znode_63() { meta.znode_k = hdr.sliced.word >> 63; }
    action tna_shr_znode_64() { meta.znode_k = 0; }
    table tna_shr_znode {
        key = { meta.sl_znode_shift: exact; }
        actions = { tna_shr_znode_0; tna_shr_znode_1; tna_shr_znode_2; tna_shr_znode_3; tna_shr_znode_4; tna_shr_znode_5; tna_shr_znode_6; tna_shr_znode_7; tna_shr_znode_8; tna_shr_znode_9; tna_shr_znode_10; tna_shr_znode_11; tna_shr_znode_12; tna_shr_znode_13; tna_shr_znode_14; tna_shr_znode_15; tna_shr_znode_16; tna_shr_znode_17; tna_shr_znode_18; tna_shr_znode_19; tna_shr_znode_20; tna_shr_znode_21; tna_shr_znode_22; tna_shr_znode_23; tna_shr_znode_24; tna_shr_znode_25; tna_shr_znode_26; tna_shr_znode_27; tna_shr_znode_28; tna_shr_znode_29; tna_shr_znode_30; tna_shr_znode_31; tna_shr_znode_32; tna_shr_znode_33; tna_shr_znode_34; tna_shr_znode_35; tna_shr_znode_36; tna_shr_znode_37; tna_shr_znode_38; tna_shr_znode_39; tna_shr_znode_40; tna_shr_znode_41; tna_shr_znode_42; tna_shr_znode_43; tna_shr_znode_44; tna_shr_znode_45; tna_shr_znode_46; tna_shr_znode_47; tna_shr_znode_48; tna_shr_znode_49; tna_shr_znode_50; tna_shr_znode_51; tna_shr_znode_52; tna_shr_znode_53; tna_shr_znode_54; tna_shr_znode_55; tna_shr_znode_56; tna_shr_znode_57; tna_shr_znode_58; tna_shr_znode_59; tna_shr_znode_60; tna_shr_znode_61; tna_shr_znode_62; tna_shr_znode_63; tna_shr_znode_64; }
        const entries = {
            0: tna_shr_znode_0();
            1: tna_shr_znode_1();
            2: tna_shr_znode_2();
            3: tna_shr_znode_3();
            4: tna_shr_znode_4();
            5: tna_shr_znode_5();
            6: tna_shr_znode_6();
            7: tna_shr_znode_7();
            8: tna_shr_znode_8();
            9: tna_shr_znode_9();
            10: tna_shr_znode_10();
            11: tna_shr_znode_11();
            12: tna_shr_znode_12();
            13: tna_shr_znode_13();
            14: tna_shr_znode_14();
            15: tna_shr_znode_15();
            16: tna_shr_znode_16();
            17: tna_shr_znode_17();
            18: tna_shr_znode_18();
            19: tna_shr_znode_19();
            20: tna_shr_znode_20();
            21: tna_shr_znode_21();
            22: tna_shr_znode_22();
            23: tna_shr_znode_23();
            24: tna_shr_znode_24();
            25: tna_shr_znode_25();
            26: tna_shr_znode_26();
            27: tna_shr_znode_27();
            28: tna_shr_znode_28();
            29: tna_shr_znode_29();
            30: tna_shr_znode_30();
            31: tna_shr_znode_31();
            32: tna_shr_znode_32();
            33: tna_shr_znode_33();
            34: tna_shr_znode_34();
            35: tna_shr_znode_35();
            36: tna_shr_znode_36();
            37: tna_shr_znode_37();
            38: tna_shr_znode_38();
            39: tna_shr_znode_39();
            40: tna_shr_znode_40();
            41: tna_shr_znode_41();
            42: tna_shr_znode_42();
            43: tna_shr_znode_43();
            44: tna_shr_znode_44();
            45: tna_shr_znode_45();
            46: tna_shr_znode_46();
            47: tna_shr_znode_47();
            48: tna_shr_znode_48();
            49: tna_shr_znode_49();
            50: tna_shr_znode_50();
            51: tna_shr_znode_51();
            52: tna_shr_znode_52();
            53: tna_shr_znode_53();
            54: tna_shr_znode_54();
            55: tna_shr_znode_55();
            56: tna_shr_znode_56();
            57: tna_shr_znode_57();
            58: tna_shr_znode_58();
            59: tna_shr_znode_59();
            60: tna_shr_znode_60();
            61: tna_shr_znode_61();
            62: tna_shr_znode_62();
            63: tna_shr_znode_63();
            64: tna_shr_znode_64();
        }
        size = 65;
    }
    /* R[head]: copy routing word head/8 (no runtime stack index) */
    action route_word_0() { meta.tr_word = hdr.route[0].w; }
    action route_word_1() { meta.tr_word = hdr.route[1].w; }
    action route_word_2() { meta.tr_word = hdr.route[2].w; }
    action route_word_3() { meta.tr_word = hdr.route[3].w; }
    action route_word_4() { meta.tr_word = hdr.route[4].w; }
    action route_word_5() { meta.tr_word = hdr.route[5].w; }
    action route_word_6() { meta.tr_word = hdr.route[6].w; }
    action route_word_7() { meta.tr_word = hdr.route[7].w; }
    action route_word_8() { meta.tr_word = hdr.route[8].w; }
    action route_word_9() { meta.tr_word = hdr.route[9].w; }
    action route_word_10() { meta.tr_word = hdr.route[10].w; }
    action route_word_11() { meta.tr_word = hdr.route[11].w; }
    action route_word_12() { meta.tr_word = hdr.route[12].w; }
    action route_word_13() { meta.tr_word = hdr.route[13].w; }
    action route_word_14() { meta.tr_word = hdr.route[14].w; }
    action route_word_15() { meta.tr_word = hdr.route[15].w; }
    action route_word_16() { meta.tr_word = hdr.route[16].w; }
    action route_word_17() { meta.tr_word = hdr.route[17].w; }
    action route_word_18() { meta.tr_word = hdr.route[18].w; }
    action route_word_19() { meta.tr_word = hdr.route[19].w; }
    action route_word_20() { meta.tr_word = hdr.route[20].w; }
    action route_word_21() { meta.tr_word = hdr.route[21].w; }
    action route_word_22() { meta.tr_word = hdr.route[22].w; }
    action route_word_23() { meta.tr_word = hdr.route[23].w; }
    action route_word_24() { meta.tr_word = hdr.route[24].w; }
    action route_word_25() { meta.tr_word = hdr.route[25].w; }
    action route_word_26() { meta.tr_word = hdr.route[26].w; }
    action route_word_27() { meta.tr_word = hdr.route[27].w; }
    action route_word_28() { meta.tr_word = hdr.route[28].w; }
    action route_word_29() { meta.tr_word = hdr.route[29].w; }
    action route_word_30() { meta.tr_word = hdr.route[30].w; }
    action route_word_31() { meta.tr_word = hdr.route[31].w; }
    table tna_route_word {
        /* head / 8, as a ternary match on head & 0xfff8 (a sliced key splits tr_head
         * across PHV containers); head < RouteLen <= 255 here */
        key = { meta.tr_head: ternary; }
        actions = { route_word_0; route_word_1; route_word_2; route_word_3; route_word_4; route_word_5; route_word_6; route_word_7; route_word_8; route_word_9; route_word_10; route_word_11; route_word_12; route_word_13; route_word_14; route_word_15; route_word_16; route_word_17; route_word_18; route_word_19; route_word_20; route_word_21; route_word_22; route_word_23; route_word_24; route_word_25; route_word_26; route_word_27; route_word_28; route_word_29; route_word_30; route_word_31; }
        const entries = {
            0x0000 &&& 0xfff8: route_word_0();
            0x0008 &&& 0xfff8: route_word_1();
            0x0010 &&& 0xfff8: route_word_2();
            0x0018 &&& 0xfff8: route_word_3();
            0x0020 &&& 0xfff8: route_word_4();
            0x0028 &&& 0xfff8: route_word_5();
            0x0030 &&& 0xfff8: route_word_6();
            0x0038 &&& 0xfff8: route_word_7();
            0x0040 &&& 0xfff8: route_word_8();
            0x0048 &&& 0xfff8: route_word_9();
            0x0050 &&& 0xfff8: route_word_10();
            0x0058 &&& 0xfff8: route_word_11();
            0x0060 &&& 0xfff8: route_word_12();
            0x0068 &&& 0xfff8: route_word_13();
            0x0070 &&& 0xfff8: route_word_14();
            0x0078 &&& 0xfff8: route_word_15();
            0x0080 &&& 0xfff8: route_word_16();
            0x0088 &&& 0xfff8: route_word_17();
            0x0090 &&& 0xfff8: route_word_18();
            0x0098 &&& 0xfff8: route_word_19();
            0x00a0 &&& 0xfff8: route_word_20();
            0x00a8 &&& 0xfff8: route_word_21();
            0x00b0 &&& 0xfff8: route_word_22();
            0x00b8 &&& 0xfff8: route_word_23();
            0x00c0 &&& 0xfff8: route_word_24();
            0x00c8 &&& 0xfff8: route_word_25();
            0x00d0 &&& 0xfff8: route_word_26();
            0x00d8 &&& 0xfff8: route_word_27();
            0x00e0 &&& 0xfff8: route_word_28();
            0x00e8 &&& 0xfff8: route_word_29();
            0x00f0 &&& 0xfff8: route_word_30();
            0x00f8 &&& 0xfff8: route_word_31();
        }
        size = 32;
    }
    /* Transit: the 2-bit pair Rot of byte head % 8 of the routing word, matched directly
     * (no shifted copies of the word and no sliced byte, which split the routing words into
     * 2-bit PHV slices): the pair's bit is 56 - 8 (head % 8) + 6 - 2 Rot. Rot < 4 here. */
    action tna_set_dir(bit<2> dir) { meta.tr_dir = dir; }
    table tna_dir {
        key = {
            meta.tr_word: ternary;
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
        meta.drop = 0;
        meta.hit = 0;
        meta.use_group = 0;
        tna_total = 0;
        tna_rec_total = 0;
        tna_flow = 0;
        bit<8> flags = 0;

        /* ---- Ethernet, VLAN tags, prefix ---- */
        bit<16> et = hdr.ethernet.ether_type;
        if (!hdr.ethernet.isValid()) {
            fail(DROP_TRUNCATED);
        } else if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
            if (!hdr.vlan0.isValid()) {
                fail(DROP_TRUNCATED);
            } else {
                et = hdr.vlan0.ether_type;
                if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
                    if (!hdr.vlan1.isValid()) {
                        fail(DROP_TRUNCATED);
                    } else {
                        et = hdr.vlan1.ether_type;
                        if (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
                            fail(DROP_TOO_MANY_VLAN_TAGS);
                        }
                    }
                }
            }
        }
        if (meta.drop == 0 && et != ETHERTYPE_CANOPY) { fail(DROP_NOT_CANOPY); }
        if (meta.drop == 0 && !hdr.prefix.isValid()) { fail(DROP_TRUNCATED); }
        if (meta.drop == 0 && hdr.prefix.version != 1) { fail(DROP_BAD_VERSION); }
        if (meta.drop == 0 && hdr.prefix.kind != KIND_SLICED && hdr.prefix.kind != KIND_TRANSIT
                && hdr.prefix.kind != KIND_PATHID) {
            fail(DROP_UNKNOWN_KIND);
        }
        if (meta.drop == 0 && (hdr.prefix.flags & 0x7f) != 0) { fail(DROP_RESERVED_BITS_SET); }
        /* hl < 16 + meas, body_len = hl - 8 - meas, with meas = 16 or 0: one branch each */
        tna_hl.apply();
        if ((hdr.prefix.flags & PREFIX_FLAG_MEAS) != 0) {
            if (meta.drop == 0 && meta.hl < 32) { fail(DROP_BAD_FIELD_VALUE); }
            tna_body_len_meas();
        } else {
            if (meta.drop == 0 && meta.hl < 16) { fail(DROP_BAD_FIELD_VALUE); }
            tna_body_len();
        }
        /* (no packet_length in TNA ingress: HdrLen against the frame end is not checked) */

        if (meta.drop == 0) {
            canopy_port.apply();
            if (meta.port_known == 0) { fail(DROP_BAD_INGRESS_PORT); }
        }
        if (meta.drop == 0 && hdr.prefix.hop_limit == 0) { fail(DROP_TTL_EXPIRED); }
        if (meta.drop == 0) {
            hdr.prefix.hop_limit = hdr.prefix.hop_limit - 1;
        }

        if (meta.drop == 0 && hdr.prefix.kind == KIND_SLICED) {
            /* ================= sliced-flit ================= */
            sliced_cfg.apply();
            if (meta.sl_on == 0) { fail(DROP_KIND_NOT_CONFIGURED); }
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
            tna_mask_len.apply();
            meta.beyond_w = 64 - hdr.sliced.slice_len;
            tna_mask_beyond.apply();
            if (hdr.sliced.mode == MODE_SLICED) {
                if (meta.drop == 0 && hdr.sliced.cursor > hdr.sliced.slice_len) {
                    fail(DROP_BAD_FIELD_VALUE);
                }
                if (meta.drop == 0 && (hdr.sliced.word & meta.mask_beyond) != 0) {
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
                if (meta.drop == 0 && has_src && (hdr.sliced_src.src & ~meta.mask) != 0) {
                    fail(DROP_RESERVED_BITS_SET);
                }
            }
            if (meta.drop == 0 && hdr.sliced.mode != meta.sl_mode) { fail(DROP_MODE_MISMATCH); }
            tna_flow = tna_flow_sliced.get({ hdr.sliced.word, hdr.sliced_src.src });
            flags = hdr.sliced.flags;
            bool go_up = false;
            bool go_down = false;
            bool want_side = false;
            bool side_or_up = false;
            if (meta.drop == 0 && hdr.sliced.mode == MODE_SLICED) {
                meta.pos = hdr.sliced.cursor;
                if (meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { fail(DROP_BAD_PHASE); }
                    /* take #1: rho */
                    if (meta.drop == 0 && (meta.pos >= 64 || meta.pos >= hdr.sliced.slice_len)) {
                        fail(DROP_SLICE_EXHAUSTED);
                    }
                    if (meta.drop == 0) {
                        tna_shl_a.apply();
                        meta.take_w = 63;
                        tna_shr_a.apply();
                        tna_pos_inc();
                        if (meta.take_v == 1) {
                            go_up = true;
                        } else {
                            flags = flags | SL_PHASE_DOWN;
                            go_down = true;
                            if (meta.sl_m > 1) {
                                /* take #2: side label, a bits */
                                /* pos + a > slice_len (16 bits) is a > slice_len - pos:
                                 * here pos <= slice_len (take #1 checked pos < slice_len) */
                                tna_slice_rem();
                                if (meta.sl_a > tna_rem) {
                                    fail(DROP_SLICE_EXHAUSTED);
                                } else {
                                    tna_shl_b.apply();
                                    meta.take_w2 = 64 - meta.sl_a;
                                    tna_shr_b.apply();
                                    tna_pos_add_a();
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
                } else {
                    if ((flags & SL_PHASE_DOWN) == 0
                            || (meta.role == ROLE_SIDE && (flags & SL_SIDE_TAKEN) == 0)) {
                        fail(DROP_BAD_PHASE);
                    } else {
                        go_down = true;
                    }
                }
                if (meta.drop == 0 && go_down) {
                    /* take #3: the level's label, b bits */
                    meta.label = 0;
                    /* pos + b > slice_len (16 bits) is b > slice_len - pos: pos <= slice_len
                     * (cursor <= slice_len was checked, and takes #1/#2 stay inside) */
                    tna_slice_rem();
                    if (meta.sl_b > tna_rem || (meta.sl_b != 0 && meta.pos >= 64)) {
                        fail(DROP_SLICE_EXHAUSTED);
                    } else if (meta.sl_b != 0) {
                        meta.pos2 = meta.pos;
                        tna_shl_c.apply();
                        meta.take_w3 = 64 - meta.sl_b;
                        tna_shr_c.apply();
                        tna_pos_add_b();
                    }
                    if (meta.drop == 0 && meta.sl_level <= 1 && hdr.sliced.slice_len > meta.pos) {
                        fail(DROP_SLICE_LEFTOVER);
                    }
                }
                hdr.sliced.cursor = meta.pos;
            } else if (meta.drop == 0) {
                /* modes 1-3 */
                if (hdr.sliced.slice_len != meta.sl_addr_bits) { fail(DROP_BAD_FIELD_VALUE); }
                tna_shr_label.apply();
                /* label = label_raw & mask(b): the AND with the constant is in the table's action
                 * (an AND of two 64-bit PHV fields needs too many PHV sources) */
                tna_mask_b.apply();
                if (meta.drop == 0 && meta.role == ROLE_DOWN) {
                    if ((flags & SL_PHASE_DOWN) != 0) { fail(DROP_BAD_PHASE); }
                    meta.above_w = 0;
                    if (meta.sl_znode_shift > meta.sl_zone_shift) {
                        meta.above_w = meta.sl_znode_shift - meta.sl_zone_shift;
                    }
                    tna_shr_zone_d.apply();
                    tna_shr_zone_s.apply();
                    /* above_dst/above_src & mask(above_w), the AND in the table's action */
                    tna_mask_above.apply();
                    /* Tofino: a comparison only as a condition, never as a value */
                    bool turn = false;
                    if (hdr.sliced.mode == MODE_SRCDST) {
                        if (meta.above_src == meta.above_dst) { turn = true; }
                    } else if (hdr.sliced.mode == MODE_DST) {
                        if (meta.above_dst == meta.sl_zone) { turn = true; }
                    } else if (meta.sl_has_up == 0) {
                        turn = true;
                    }
                    tna_shr_znode.apply();
                    meta.side_k = meta.znode_k;
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
            /* the only sliced_side application */
            if (meta.drop == 0 && want_side) {
                sliced_side.apply();
                if (meta.hit == 1) {
                    flags = flags | SL_PHASE_DOWN | SL_SIDE_TAKEN;
                } else if (side_or_up && meta.sl_has_up == 1) {
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
            /* ================= Transit ================= */
            transit_cfg.apply();
            if (meta.tr_on == 0) { fail(DROP_KIND_NOT_CONFIGURED); }
            if (meta.drop == 0 && meta.body_len < 8) { fail(DROP_TRUNCATED); }
            if (meta.drop == 0 && hdr.transit.msg > 5) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && (hdr.transit.flags & 0xe) != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && (hdr.transit.rot & 0xfc) != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.transit.head > hdr.transit.route_len) {
                fail(DROP_BAD_FIELD_VALUE);
            }
            /* total = 8 + RouteLen rounded to 64 bits (+ 8 + 4 RecSlots rounded, when
             * RecSlots > 0), from two constant tables */
            tna_route_total.apply();
            tna_rec_total_tbl.apply();
            if (meta.drop == 0 && meta.body_len < tna_total) { fail(DROP_TRUNCATED); }
            if (hdr.transit.rec_slots != 0) {
                tna_total_add_rec();
                if (meta.drop == 0 && meta.body_len < tna_total) { fail(DROP_TRUNCATED); }
                if (meta.drop == 0 && hdr.transit_rec.rec_count > hdr.transit.rec_slots) {
                    fail(DROP_BAD_FIELD_VALUE);
                }
                if (meta.drop == 0 && (hdr.transit_rec.rsvd1 != 0 || hdr.transit_rec.rsvd2 != 0)) {
                    fail(DROP_RESERVED_BITS_SET);
                }
            }
            if (meta.drop == 0 && meta.body_len != tna_total) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && hdr.transit.msg != 0) { fail(DROP_MODE_MISMATCH); }
            if (meta.drop == 0 && ig_intr_md.ingress_port >= 8) { fail(DROP_BAD_INGRESS_PORT); }
            /* tr_head = head + swallow */
            tna_tr_head();
            if (meta.swallow == 1) { tna_tr_head_inc(); }
            if (meta.drop == 0 && meta.tr_head >= tna_rl16) {
                fail(DROP_ROUTE_EXHAUSTED);
            }
            if (meta.drop == 0) {
                tna_route_word.apply();
                tna_dir.apply();
                meta.tr_half = 0;
                if (meta.tr_split == 1) {
                    meta.tr_half = ig_intr_md.ingress_port[2:2];
                }
                tna_flow = tna_flow_transit.get({ hdr.route[0].w, hdr.transit.route_len });
                transit_dir.apply();
                if (meta.hit == 0) {
                    fail(DROP_NO_OUTPUT);
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
        } else if (meta.drop == 0) {
            /* ================= path-ID ================= */
            pathid_cfg.apply();
            if (meta.pid_on == 0) { fail(DROP_KIND_NOT_CONFIGURED); }
            if (meta.drop == 0 && meta.body_len < 16) { fail(DROP_TRUNCATED); }
            if (meta.drop == 0 && (hdr.pathid.flags & 0x3f) != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.pathid.reserved != 0) { fail(DROP_RESERVED_BITS_SET); }
            if (meta.drop == 0 && hdr.pathid.id_len > 64) { fail(DROP_BAD_FIELD_VALUE); }
            bool local = (hdr.pathid.flags & PID_LOCAL) != 0;
            if (meta.drop == 0 && local && hdr.pathid.id_len != 0) { fail(DROP_BAD_FIELD_VALUE); }
            if (meta.drop == 0 && !local && hdr.pathid.id_len == 0) { fail(DROP_BAD_FIELD_VALUE); }
            meta.id_beyond_w = 64 - hdr.pathid.id_len;
            tna_mask_id.apply();
            if (meta.drop == 0 && (hdr.pathid.id & meta.mask_id) != 0) {
                fail(DROP_RESERVED_BITS_SET);
            }
            tna_flow = tna_flow_pathid.get({ hdr.pathid.id, hdr.pathid.host_label });
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
                    if (meta.down == 0) { fail(DROP_BAD_PHASE); }
                } else if (meta.down == 1) {
                    hdr.pathid.flags = hdr.pathid.flags | PID_PHASE_DOWN;
                }
            }
        }

        if (meta.drop == 0 && meta.use_group == 1) {
            fwd_group.apply();
        }
        if (meta.drop == 1) {
            ig_dprsr_md.drop_ctl = 1;
            canopy_drops.count(meta.drop_reason);
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
