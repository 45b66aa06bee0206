/* Canopy: headers, metadata and parser states shared by canopy.p4 (v1model) and
 * canopy_tna.p4 (TNA). docs/wire-format.md is the authority for every byte; docs/p4.md
 * describes the program.
 *
 * The parser extracts greedily (every header the prefix announces) and never rejects on its
 * own: every validity and length check happens in the ingress control, in the same order as
 * canopy_dataplane::decide, so that the drop reason is the one the Rust switch counts. A
 * failed extraction (frame too short) only leaves the later headers invalid; the ingress
 * checks lengths against the frame length before it reads them.
 */
#ifndef CANOPY_HEADERS_P4
#define CANOPY_HEADERS_P4

const bit<16> ETHERTYPE_CANOPY = 0x88B5;
const bit<16> ETHERTYPE_VLAN   = 0x8100;
const bit<16> ETHERTYPE_QINQ   = 0x88A8;

/* Kinds (prefix low nibble of byte 0). */
const bit<4> KIND_SLICED  = 1;
const bit<4> KIND_TRANSIT = 2;
const bit<4> KIND_PATHID  = 3;

/* Prefix flags. */
const bit<8> PREFIX_FLAG_MEAS = 0x80;
const bit<8> PREFIX_FLAG_HOPS = 0x40;

/* Per-hop record area (wire-format.md §2.1): descriptor flag and record clock codes. */
const bit<8> HOPS_OVERFLOW = 0x80;
const bit<8> HOP_CLOCK_SWITCH_LOCAL = 2;
/* Record slots a v1model switch parses and can write (the first ones of the area). */
#ifndef CANOPY_HOP_SLOTS
#define CANOPY_HOP_SLOTS 16
#endif

/* Sliced-flit body flags and modes (wire-format.md §4.1). */
const bit<8> SL_PHASE_DOWN = 0x80;
const bit<8> SL_SIDE_TAKEN = 0x40;
const bit<8> SL_HAS_SRC    = 0x20;
const bit<8> MODE_SLICED = 0;
const bit<8> MODE_FLAT   = 1;
const bit<8> MODE_SRCDST = 2;
const bit<8> MODE_DST    = 3;

/* Path-ID body flags (wire-format.md §6). */
const bit<8> PID_PHASE_DOWN = 0x80;
const bit<8> PID_LOCAL      = 0x40;

/* Port roles as programmed by `canopyctl p4-entries` (canopy_dataplane::table::PortRole). */
const bit<2> ROLE_UP   = 0;
const bit<2> ROLE_DOWN = 1;
const bit<2> ROLE_SIDE = 2;

/* Drop reasons: index into the canopy_drops counter, the position of the name in
 * canopy_dataplane::decide::DROP_REASON_NAMES (the drop-counter contract with
 * canopy-switch). */
const bit<32> DROP_TRUNCATED          = 0;
const bit<32> DROP_NOT_CANOPY         = 1;
const bit<32> DROP_TOO_MANY_VLAN_TAGS = 2;
const bit<32> DROP_BAD_VERSION        = 3;
const bit<32> DROP_UNKNOWN_KIND       = 4;
const bit<32> DROP_RESERVED_BITS_SET  = 5;
const bit<32> DROP_BAD_FIELD_VALUE    = 6;
const bit<32> DROP_BAD_INGRESS_PORT   = 7;
const bit<32> DROP_TTL_EXPIRED        = 8;
const bit<32> DROP_KIND_NOT_CONFIGURED = 9;
const bit<32> DROP_NO_PORT            = 10;
const bit<32> DROP_SLICE_EXHAUSTED    = 11;
const bit<32> DROP_UP_AT_TOP          = 12;
const bit<32> DROP_BAD_LABEL          = 13;
const bit<32> DROP_BAD_SIDE_LABEL     = 14;
const bit<32> DROP_BAD_PHASE          = 15;
const bit<32> DROP_MODE_MISMATCH      = 16;
const bit<32> DROP_SLICE_LEFTOVER     = 17;
const bit<32> DROP_ROUTE_EXHAUSTED    = 18;
const bit<32> DROP_NO_OUTPUT          = 19;
const bit<32> DROP_NO_ROUTE           = 20;
const bit<32> CANOPY_DROPS_SIZE       = 32;
/* Per-port counters: one slot per port number (9-bit ports on both architectures), and
 * per (ingress port, reason) drops at index port * CANOPY_DROPS_SIZE + reason. */
const bit<32> CANOPY_PORTS            = 512;
#define CANOPY_PORT_DROP_INDEX(PORT, REASON) ((((bit<32>)(PORT)) << 5) + (REASON))

/* Transit: routing bytes are parsed as 64-bit words (RouteLen ≤ 255, padded to 8). */
#ifndef CANOPY_ROUTE_WORDS
#define CANOPY_ROUTE_WORDS 32
#endif

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

/* A VLAN tag after its TPID: the TCI, then the next EtherType. */
header vlan_t {
    bit<16> tci;
    bit<16> ether_type;
}

/* Common prefix, 8 bytes (wire-format.md §2). */
header prefix_t {
    bit<4>  version;
    bit<4>  kind;
    bit<8>  flags;
    bit<8>  hop_limit;
    bit<8>  hdr_len;
    bit<16> payload_len;
    bit<16> inner_type;
}

/* Sliced-flit body, 16 bytes (wire-format.md §4.1); SRC follows iff HAS_SRC. */
#ifdef CANOPY_NO_RUNTIME_SHIFT
/* TNA: the 64-bit words as two 32-bit halves (same bytes), so that every shift and mask
 * works on one 32-bit PHV container (canopy_tna.p4) */
header sliced_t {
    bit<8>  mode;
    bit<8>  flags;
    bit<8>  slice_len;
    bit<8>  cursor;
    bit<32> reserved;
    bit<32> word_hi;
    bit<32> word_lo;
}

header sliced_src_t {
    bit<32> src_hi;
    bit<32> src_lo;
}
#else
header sliced_t {
    bit<8>  mode;
    bit<8>  flags;
    bit<8>  slice_len;
    bit<8>  cursor;
    bit<32> reserved;
    bit<64> word;
}

header sliced_src_t {
    bit<64> src;
}
#endif

/* Transit fixed part, 8 bytes (wire-format.md §5). */
header transit_t {
    bit<4>  msg;
    bit<4>  flags;
    bit<8>  route_len;
    bit<8>  head;
    bit<8>  rot;      /* bits 7:2 reserved, bits 1:0 the rotation cursor */
    bit<8>  hops;
    bit<8>  rec_slots;
    bit<16> cycles;
}

header route_word_t {
    bit<64> w;
}

/* Transit record-area header (present iff RecSlots > 0). */
header transit_rec_t {
    bit<8>  rec_count;
    bit<8>  rsvd1;
    bit<16> circuit;
    bit<32> rsvd2;
}

/* Path-ID body, 16 bytes (wire-format.md §6). */
header pathid_t {
    bit<8>  flags;
    bit<8>  id_len;
    bit<16> reserved;
    bit<32> host_label;
    bit<64> id;
}

#ifdef CANOPY_HOP_RECORDS
/* Hop record area (only a program that defines CANOPY_HOP_RECORDS parses it: v1model):
 * the descriptor after the prefix, the measurement block, the record slots. */
header hops_desc_t {
    bit<8>  slots;
    bit<8>  count;
    bit<8>  flags;
    bit<40> reserved;
}

header meas_t {
    bit<64> seq;
    bit<64> ts;
}

header hop_rec_t {
    bit<32> switch_id;
    bit<16> ingress;
    bit<16> egress;
    bit<32> queue;
    bit<8>  clock;
    bit<8>  rsvd0;
    bit<16> rsvd1;
    bit<64> kernel_rx;
    bit<64> poll;
    bit<64> tx;
    bit<32> qdelay;
    bit<32> rsvd2;
}
#endif

struct canopy_headers_t {
    ethernet_t    ethernet;
    vlan_t        vlan0;
    vlan_t        vlan1;
    prefix_t      prefix;
#ifdef CANOPY_HOP_RECORDS
    hops_desc_t   hops_desc;
#endif
    sliced_t      sliced;
    sliced_src_t  sliced_src;
    transit_t     transit;
    route_word_t[CANOPY_ROUTE_WORDS] route;
    route_word_t  tr_cur;     /* TNA: the routing word at head / 8 (canopy_tna.p4's parser) */
    route_word_t  tr_nxt;     /* TNA: the word after it, when head % 8 == 7 */
    transit_rec_t transit_rec;
    pathid_t      pathid;
#ifdef CANOPY_HOP_RECORDS
    meas_t        meas;
    hop_rec_t[CANOPY_HOP_SLOTS] hops;
#endif
}

#ifdef CANOPY_NO_RUNTIME_SHIFT
struct canopy_fail_t {
    bit<1> f0;
    bit<1> f1;
    bit<1> f2;
    bit<1> f3;
    bit<1> f4;
    bit<1> f5;
    bit<1> f6;
    bit<1> f7;
    bit<1> f8;
    bit<1> f9;
    bit<1> f10;
    bit<1> f11;
    bit<1> f12;
    bit<1> f13;
    bit<1> f14;
    bit<1> f15;
    bit<1> f16;
    bit<1> f17;
    bit<1> f18;
    bit<1> f19;
    bit<1> f20;
    bit<1> f21;
    bit<1> f22;
    bit<1> f23;
    bit<1> f24;
    bit<1> f25;
    bit<1> f26;
    bit<1> f27;
    bit<1> f28;
    bit<1> f29;
    bit<1> f30;
    bit<1> f31;
    bit<1> f32;
    bit<1> f33;
    bit<1> f34;
    bit<1> f35;
    bit<1> f36;
    bit<1> f37;
    bit<1> f38;
    bit<1> f39;
    bit<1> f40;
    bit<1> f41;
    bit<1> f42;
    bit<1> f43;
    bit<1> f44;
    bit<1> f45;
}
struct canopy_meta_t {
    /* common */
    bit<16> hl;          /* header length in bytes */
    bit<16> body_len;    /* bytes of the kind body (header minus prefix and MEAS block) */
    bit<2>  role;        /* ingress port role */
    bit<1>  swallow;     /* Transit: the ingress input swallows */
    bit<1>  port_known;
    bit<1>  use_group;   /* the verdict is a group: apply fwd_group */
    bit<16> group;       /* SwitchTables group id */
    bit<1>  hit;         /* last kind lookup hit */
    bit<1>  down;        /* path-ID: the matching entry is a downward one */
    /* sliced configuration (sliced_cfg default action) */
    bit<1>  sl_on;
    bit<8>  sl_mode;
    bit<8>  sl_level;
    bit<32> sl_sid;
    bit<32> sl_m;
    bit<8>  sl_a;
    bit<8>  sl_b;
    bit<32> sl_z;
    bit<8>  sl_label_shift;
    bit<8>  sl_zone_shift;
    bit<8>  sl_znode_shift;
    bit<8>  sl_addr_bits;
    bit<1>  sl_has_up;
    bit<16> sl_up_group;
    /* sliced per-hop state: 32-bit values (labels are at most 32 bits on TNA) */
    bit<8>  pos;         /* bit cursor */
    bit<1>  take_v;      /* rho */
    bit<32> label;       /* down label */
    bit<32> side_k;      /* side label / low 32 bits of the Znode id of DST */
    bit<8>  side_s;      /* right shift of the side label */
    bit<8>  lab_s;       /* right shift of the label */
    bit<8>  p_a;         /* mode 0: cursor + a */
    bit<8>  c63b;        /* 63 - b */
    bit<8>  c64b;        /* 64 - b */
    bit<8>  b1;          /* b + 1 */
    bit<8>  rem0;        /* slice_len - cursor */
    bit<32> e1_th;       /* (word >> 8q): high and low halves, side label / Znode id */
    bit<32> e1_tl;
    bit<32> e1_ex;       /* (word >> S)[31:0], side label */
    bit<32> e2_th;       /* the same for the label */
    bit<32> e2_tl;
    bit<32> e2_ex;
    bit<1>  bits_bad;    /* word bits set where they must be zero */
    bit<1>  src_bad;     /* SRC bits set where they must be zero */
    bit<1>  len_bad;     /* modes 1-3: word bits set beyond SliceLen */
    bit<1>  o_up;        /* sliced outcome (tna_outcome): climb */
    bit<1>  o_down;      /* down by the label */
    bit<1>  o_side;      /* through the side link of side_k */
    bit<1>  o_sou;       /* a side miss climbs (modes 1-3) */
    bit<8>  o_pd;        /* flags to set: PHASE_DOWN or 0 */
    bit<8>  t8_head;     /* saturating differences (one per comparison) */
    bit<8>  t8_cur;
    bit<8>  t8_a;
    bit<8>  t8_b;
    bit<16> t16_tot;
    bit<16> t16_rec;
    bit<8>  t8_rl;
    bit<16> hl2;         /* hl, body_len again, for the field-field comparisons */
    bit<16> body_len2;
    bit<1>  use_nxt;     /* the new head is in tr_nxt */
    bit<32> t_cmp;       /* m & ~1, m |-| side_k, z |-| label */
    bit<32> t_sid;       /* side_k ^ sid */
    bit<1>  zone_big;    /* DST mode: the zone has bits beyond its digits (sliced_addr) */
    bit<1>  above_eq;    /* the digits above this level match */
    bit<32> wc_hi;       /* DST again, copied by the parser, for the modes 1-3 compare */
    bit<32> wc_lo;
    bit<32> x_hi;        /* zone << zone_shift (sliced_addr), then DST ^ SRC or DST ^ it */
    bit<32> x_lo;
    /* transit configuration and per-hop state */
    bit<1>  tr_on;
    bit<1>  tr_split;
    bit<8>  tr_head;
    bit<2>  tr_dir;
    bit<1>  tr_half;
    bit<2>  tr_rot;
    bit<8>  tr_delay;
    /* path-ID configuration */
    bit<1>  pid_on;
    bit<1>  pid_leaf;
    bit<1>  id_bad;      /* ID bits beyond IdLen */
    bit<8>  drop_reason;
    /* the canopy_port_drops index (port base, then | reason in fail) */
    bit<16> port_drop;
    bit<1>  drop;
    bit<8>  hc_prefix;  /* tna_hc_prefix: first failing check, 0 none */
    bit<8>  hc_sliced;  /* tna_hc_sliced: first failing check, 0 none */
    bit<8>  hc_transit;  /* tna_hc_transit: first failing check, 0 none */
    bit<8>  hc_pathid;  /* tna_hc_pathid: first failing check, 0 none */
    canopy_fail_t fl;  /* one flag per check (TNA: tna_drop_pick) */
}
#else
struct canopy_meta_t {
    /* parser */
    bit<16> route_words_left;
    bit<8>  hop_left;    /* record slots still to parse (the descriptor's Slots) */
    bit<8>  hop_idx;     /* record slots parsed (hdr.hops[0 .. hop_idx - 1]) */
    /* hop records */
    bit<32> hop_switch;  /* the switch id the records carry (hop_cfg) */
    /* common */
    bit<16> hl;          /* header length in bytes */
    bit<16> avail;       /* bytes from the Canopy prefix to the end of the frame */
    bit<16> body_len;    /* bytes of the kind body (header minus prefix and MEAS block) */
    bit<2>  role;        /* ingress port role */
    bit<1>  swallow;     /* Transit: the ingress input swallows */
    bit<1>  port_known;
    bit<1>  use_group;   /* the verdict is a group: apply fwd_group */
    bit<16> group;       /* SwitchTables group id */
    bit<16> group_size;  /* v1model: ports in the group */
    bit<16> bucket;      /* v1model: flow hash modulo group_size */
    bit<1>  hit;         /* last kind lookup hit */
    bit<1>  down;        /* path-ID: the matching entry is a downward one */
    bit<64> flow_a;      /* flow hash input (kind fields) */
    bit<64> flow_b;
    /* sliced configuration (sliced_cfg default action) */
    bit<1>  sl_on;
    bit<8>  sl_mode;
    bit<8>  sl_level;
    bit<32> sl_sid;
    bit<32> sl_m;
    bit<8>  sl_a;
    bit<8>  sl_b;
    bit<32> sl_z;
    bit<8>  sl_label_shift;
    bit<8>  sl_zone_shift;
    bit<8>  sl_znode_shift;
    bit<8>  sl_addr_bits;
    bit<64> sl_zone;
    bit<1>  sl_has_up;
    bit<16> sl_up_group;
    /* sliced per-hop state */
    bit<8>  pos;         /* bit cursor */
    bit<8>  take_w;      /* width of the field being read */
    bit<64> take_v;      /* value read */
    bit<1>  take_ok;
    bit<64> label;       /* down label / digit */
    bit<64> side_k;      /* side label / Znode id of DST */
    bit<64> mask;        /* scratch */
    bit<64> above_src;
    bit<64> above_dst;
    /* transit configuration and per-hop state */
    bit<1>  tr_on;
    bit<1>  tr_split;
    bit<16> tr_head;
    bit<64> tr_word;
    bit<8>  tr_byte;
    bit<2>  tr_dir;
    bit<1>  tr_half;
    bit<2>  tr_rot;
    bit<8>  tr_delay;
    /* path-ID configuration */
    bit<1>  pid_on;
    bit<1>  pid_leaf;
    bit<32> drop_reason;
    bit<1>  drop;
}
#endif

#ifndef CANOPY_NO_RUNTIME_SHIFT
/* The low w bits set (canopy_dataplane::wire::sliced::low_mask). Runtime shifts: v1model
 * only (TNA uses tables keyed on the width, see canopy_tna.p4). */
bit<64> low_mask64(in bit<8> w) {
    if (w >= 64) {
        return 0xffffffffffffffff;
    }
    return (64w1 << w) - 1;
}

/* BitCursor::take: read w bits of the left-aligned word at the cursor pos and advance it;
 * false when the field extends beyond len (slice_exhausted). */
bool take_bits(in bit<64> word, in bit<8> len, inout bit<8> pos, in bit<8> w,
               out bit<64> v) {
    v = 0;
    if (w == 0) {
        return true;
    }
    if ((bit<16>)pos + (bit<16>)w > (bit<16>)len || pos >= 64) {
        return false;
    }
    v = (word << pos) >> (8w64 - w);
    pos = pos + w;
    return true;
}

#endif

/* Counting the routing words in the parser. v1model: arithmetic on a metadata field; an
 * architecture without parser arithmetic defines these three before including this file
 * (canopy_tna.p4 uses a ParserCounter). */
#ifndef CANOPY_ROUTE_INIT
#define CANOPY_ROUTE_INIT(HDR, META) \
    META.route_words_left = ((bit<16>)HDR.transit.route_len + 7) >> 3;
#define CANOPY_ROUTE_TRANSITION(META)        \
    transition select(META.route_words_left) { \
        0: parse_route_end;                    \
        default: parse_route_word;             \
    }
#define CANOPY_ROUTE_DEC(META) \
    META.route_words_left = META.route_words_left - 1;
#endif

/* After the sliced body is extracted; canopy_tna.p4 copies DST into metadata here. */
#ifndef CANOPY_SLICED_COPY
#define CANOPY_SLICED_COPY(HDR, META)
#endif

/* The Transit states; an architecture may define its own (canopy_tna.p4). */
#ifndef CANOPY_TRANSIT_STATES
#define CANOPY_TRANSIT_STATES(HDR, META)                                        \
    state parse_transit {                                                       \
        pkt.extract(HDR.transit);                                               \
        CANOPY_ROUTE_INIT(HDR, META)                                            \
        transition parse_route;                                                 \
    }                                                                           \
    state parse_route {                                                         \
        CANOPY_ROUTE_TRANSITION(META)                                           \
    }                                                                           \
    state parse_route_word {                                                    \
        pkt.extract(HDR.route.next);                                            \
        CANOPY_ROUTE_DEC(META)                                                  \
        transition parse_route;                                                 \
    }                                                                           \
    state parse_route_end {                                                     \
        transition select(HDR.transit.rec_slots) {                              \
            0: CANOPY_AFTER_BODY;                                               \
            default: parse_transit_rec;                                         \
        }                                                                       \
    }                                                                           \
    state parse_transit_rec {                                                   \
        pkt.extract(HDR.transit_rec);                                           \
        transition accept;                                                      \
    }
#endif

/* The kind dispatch after the prefix (and, with hop records, after the descriptor). */
#define CANOPY_KIND_SELECT(HDR)                                                 \
    transition select(HDR.prefix.version, HDR.prefix.kind) {                    \
        (1, KIND_SLICED): parse_sliced;                                         \
        (1, KIND_TRANSIT): parse_transit;                                       \
        (1, KIND_PATHID): parse_pathid;                                         \
        default: accept;                                                        \
    }

/* Hop records (wire-format.md §2.1), for a program that defines CANOPY_HOP_RECORDS
 * before including this file (canopy.p4). The descriptor follows the prefix; after the
 * body come the measurement block and the first CANOPY_HOP_SLOTS record slots. A
 * Transit body with its own record area ends the parse (its records are not walked), so
 * such a frame's slots stay unparsed payload. Without CANOPY_HOP_RECORDS (TNA) the
 * states are those of a program without the area. */
#ifdef CANOPY_HOP_RECORDS
#define CANOPY_AFTER_BODY parse_tail
#define CANOPY_PREFIX_NEXT(HDR)                                                 \
    transition select(HDR.prefix.flags[6:6]) {                                  \
        1: parse_hops_desc;                                                     \
        default: parse_kind;                                                    \
    }
#define CANOPY_HOPS_STATES(HDR, META)                                           \
    state parse_hops_desc {                                                     \
        pkt.extract(HDR.hops_desc);                                             \
        META.hop_left = HDR.hops_desc.slots;                                    \
        transition parse_kind;                                                  \
    }                                                                           \
    state parse_kind {                                                          \
        CANOPY_KIND_SELECT(HDR)                                                 \
    }                                                                           \
    state parse_tail {                                                          \
        transition select(HDR.prefix.flags[7:6]) {                              \
            3: parse_meas;                                                      \
            1: parse_hop_slots;                                                 \
            default: accept;                                                    \
        }                                                                       \
    }                                                                           \
    state parse_meas {                                                          \
        pkt.extract(HDR.meas);                                                  \
        transition parse_hop_slots;                                             \
    }                                                                           \
    state parse_hop_slots {                                                     \
        META.hop_idx = 0;                                                       \
        transition parse_hop_loop;                                              \
    }                                                                           \
    state parse_hop_loop {                                                      \
        transition select(META.hop_left, META.hop_idx) {                        \
            (0, _): accept;                                                     \
            (_, CANOPY_HOP_SLOTS): accept;                                      \
            default: parse_hop_slot;                                            \
        }                                                                       \
    }                                                                           \
    state parse_hop_slot {                                                      \
        pkt.extract(HDR.hops.next);                                             \
        META.hop_left = META.hop_left - 1;                                      \
        META.hop_idx = META.hop_idx + 1;                                        \
        transition parse_hop_loop;                                              \
    }
#define CANOPY_EMIT_HOPS_DESC(HDR) pkt.emit(HDR.hops_desc);
#define CANOPY_EMIT_TAIL(HDR)      \
    pkt.emit(HDR.meas);            \
    pkt.emit(HDR.hops);
#else
#define CANOPY_AFTER_BODY accept
#define CANOPY_PREFIX_NEXT(HDR) CANOPY_KIND_SELECT(HDR)
#define CANOPY_HOPS_STATES(HDR, META)
#define CANOPY_EMIT_HOPS_DESC(HDR)
#define CANOPY_EMIT_TAIL(HDR)
#endif

/* Parser states shared by both architectures. The architecture-specific parser does its
 * own preamble and then `transition parse_ethernet;`. META is the name of the metadata
 * parameter. */
#define CANOPY_PARSER_STATES(HDR, META)                                         \
    state parse_ethernet {                                                      \
        pkt.extract(HDR.ethernet);                                              \
        transition select(HDR.ethernet.ether_type) {                            \
            ETHERTYPE_VLAN: parse_vlan0;                                        \
            ETHERTYPE_QINQ: parse_vlan0;                                        \
            ETHERTYPE_CANOPY: parse_prefix;                                     \
            default: accept;                                                    \
        }                                                                       \
    }                                                                           \
    state parse_vlan0 {                                                         \
        pkt.extract(HDR.vlan0);                                                 \
        transition select(HDR.vlan0.ether_type) {                               \
            ETHERTYPE_VLAN: parse_vlan1;                                        \
            ETHERTYPE_QINQ: parse_vlan1;                                        \
            ETHERTYPE_CANOPY: parse_prefix;                                     \
            default: accept;                                                    \
        }                                                                       \
    }                                                                           \
    state parse_vlan1 {                                                         \
        pkt.extract(HDR.vlan1);                                                 \
        transition select(HDR.vlan1.ether_type) {                               \
            ETHERTYPE_CANOPY: parse_prefix;                                     \
            default: accept;                                                    \
        }                                                                       \
    }                                                                           \
    state parse_prefix {                                                        \
        pkt.extract(HDR.prefix);                                                \
        CANOPY_PREFIX_NEXT(HDR)                                                 \
    }                                                                           \
    CANOPY_HOPS_STATES(HDR, META)                                               \
    state parse_sliced {                                                        \
        pkt.extract(HDR.sliced);                                                \
        CANOPY_SLICED_COPY(HDR, META)                                           \
        transition select(HDR.sliced.flags[5:5]) {                              \
            1: parse_sliced_src;                                                \
            default: CANOPY_AFTER_BODY;                                         \
        }                                                                       \
    }                                                                           \
    state parse_sliced_src {                                                    \
        pkt.extract(HDR.sliced_src);                                            \
        transition CANOPY_AFTER_BODY;                                           \
    }                                                                           \
    CANOPY_TRANSIT_STATES(HDR, META)                                        \
    state parse_pathid {                                                        \
        pkt.extract(HDR.pathid);                                                \
        transition CANOPY_AFTER_BODY;                                           \
    }

/* Deparser body shared by both architectures: the same headers back, so the frame length
 * never changes (only cursor, flags, hop limit and counters were rewritten in place). */
#define CANOPY_EMIT(HDR)                \
    pkt.emit(HDR.ethernet);             \
    pkt.emit(HDR.vlan0);                \
    pkt.emit(HDR.vlan1);                \
    pkt.emit(HDR.prefix);               \
    CANOPY_EMIT_HOPS_DESC(HDR)          \
    pkt.emit(HDR.sliced);               \
    pkt.emit(HDR.sliced_src);           \
    pkt.emit(HDR.transit);              \
    pkt.emit(HDR.route);                \
    pkt.emit(HDR.tr_cur);               \
    pkt.emit(HDR.tr_nxt);               \
    pkt.emit(HDR.transit_rec);          \
    pkt.emit(HDR.pathid);               \
    CANOPY_EMIT_TAIL(HDR)

#endif /* CANOPY_HEADERS_P4 */
