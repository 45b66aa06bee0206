-- canopy.lua: Wireshark/tshark dissector for Canopy data frames (EtherType 0x88B5).
--
-- The single authority for these bytes is docs/wire-format.md; section numbers below refer to
-- it. Every header kind is decoded: sliced-flit (kind 1, §4), Transit (kind 2, §5) and
-- path-ID (kind 3, §6), plus the common prefix (§2), the optional measurement block and the
-- optional per-hop record area (§2.1: its descriptor, every record written, and the time
-- each switch held the frame).
-- Malformed headers get expert info whose names are the drop reasons of §7
-- (truncated, bad_version, unknown_kind, reserved_bits_set, bad_field_value), and the
-- summary names the field as the Rust parsers do (e.g. `sliced.cursor`).
--
-- Registered in the `ethertype` table, so Wireshark's VLAN dissector hands over frames
-- behind one or two 802.1Q / 802.1ad tags as well.
--
-- Use:  tshark -X lua_script:testbed/wireshark/canopy.lua -r capture.pcap -V
-- or copy this file to the personal Lua plugins folder (see docs/wireshark.md).
-- One file, no external modules. testbed/tests/dissector.rs checks it field by field
-- against canopy_dataplane::wire for every vector of docs/wire-format.md.

local canopy = Proto("canopy", "Canopy fat-tree interconnect header")

local KINDS = { [1] = "sliced-flit", [2] = "Transit", [3] = "path-ID" }
local MODES = { [0] = "SLICED", [1] = "FLAT", [2] = "SRCDST", [3] = "DST" }
local MSGS = { [0] = "DATA", [1] = "OPEN", [2] = "TURN", [3] = "REPLY", [4] = "CLOSE", [5] = "ABORT" }
local STATUS = { [0] = "OK", [1] = "BLOCKED", [2] = "NO_ROUTE", [3] = "FAULT", [4] = "SWALLOW_MISALIGNED" }

local PREFIX_LEN = 8
local MEAS_LEN = 16
local DESC_LEN = 8
local RECORD_LEN = 48
local CLOCKS = { [0] = "none", [1] = "CLOCK_MONOTONIC", [2] = "switch-local" }

-- ---------------------------------------------------------------- fields
local f = {
    -- common prefix (§2)
    version     = ProtoField.uint8("canopy.version", "Version", base.DEC, nil, 0xf0),
    kind        = ProtoField.uint8("canopy.kind", "Kind", base.DEC, KINDS, 0x0f),
    flags       = ProtoField.uint8("canopy.flags", "Flags", base.HEX),
    flags_meas  = ProtoField.bool("canopy.flags.meas", "MEAS", 8, nil, 0x80),
    flags_hops  = ProtoField.bool("canopy.flags.hops", "HOPS", 8, nil, 0x40),
    hop_limit   = ProtoField.uint8("canopy.hop_limit", "Hop limit", base.DEC),
    hdr_len     = ProtoField.uint8("canopy.hdr_len", "Header length (8-byte units)", base.DEC),
    payload_len = ProtoField.uint16("canopy.payload_len", "Payload length", base.DEC),
    inner_type  = ProtoField.uint16("canopy.inner_type", "Inner EtherType", base.HEX),
    -- measurement block
    meas_seq    = ProtoField.uint64("canopy.meas.seq", "Sequence number", base.DEC),
    meas_ts     = ProtoField.uint64("canopy.meas.timestamp", "Transmit timestamp (ns)", base.DEC),
    -- per-hop record area (§2.1)
    h_slots     = ProtoField.uint8("canopy.hops.slots", "Slots", base.DEC),
    h_count     = ProtoField.uint8("canopy.hops.count", "Count", base.DEC),
    h_flags     = ProtoField.uint8("canopy.hops.flags", "Flags", base.HEX),
    h_overflow  = ProtoField.bool("canopy.hops.overflow", "OVERFLOW", 8, nil, 0x80),
    r_switch    = ProtoField.uint32("canopy.hop.switch", "Switch", base.DEC),
    r_ingress   = ProtoField.uint16("canopy.hop.ingress", "Ingress port", base.DEC),
    r_egress    = ProtoField.uint16("canopy.hop.egress", "Egress port", base.DEC),
    r_queue     = ProtoField.uint32("canopy.hop.queue", "Egress queue (frames)", base.DEC),
    r_clock     = ProtoField.uint8("canopy.hop.clock", "Clock", base.DEC, CLOCKS),
    r_kernel_rx = ProtoField.uint64("canopy.hop.kernel_rx", "Kernel RX (ns)", base.DEC),
    r_poll      = ProtoField.uint64("canopy.hop.poll", "Poll (ns)", base.DEC),
    r_tx        = ProtoField.uint64("canopy.hop.tx", "TX handoff (ns)", base.DEC),
    r_qdelay    = ProtoField.uint32("canopy.hop.queue_delay", "Queue delay (ns)", base.DEC),
    -- sliced-flit body (§4.1)
    s_mode      = ProtoField.uint8("canopy.sliced.mode", "Mode", base.DEC, MODES),
    s_flags     = ProtoField.uint8("canopy.sliced.flags", "Flags", base.HEX),
    s_phase     = ProtoField.bool("canopy.sliced.phase_down", "PHASE_DOWN", 8, nil, 0x80),
    s_side      = ProtoField.bool("canopy.sliced.side_taken", "SIDE_TAKEN", 8, nil, 0x40),
    s_has_src   = ProtoField.bool("canopy.sliced.has_src", "HAS_SRC", 8, nil, 0x20),
    s_len       = ProtoField.uint8("canopy.sliced.slice_len", "SliceLen", base.DEC),
    s_cursor    = ProtoField.uint8("canopy.sliced.cursor", "Cursor", base.DEC),
    s_reserved  = ProtoField.uint32("canopy.sliced.reserved", "Reserved", base.HEX),
    s_slice     = ProtoField.uint64("canopy.sliced.slice", "SLICE (left-aligned)", base.HEX),
    s_slice_bits= ProtoField.string("canopy.sliced.slice_bits", "SLICE bits"),
    s_dst       = ProtoField.uint64("canopy.sliced.dst", "DST", base.DEC),
    s_src       = ProtoField.uint64("canopy.sliced.src", "SRC", base.DEC),
    -- Transit body (§5)
    t_msg       = ProtoField.uint8("canopy.transit.msg", "Msg", base.DEC, MSGS, 0xf0),
    t_flags     = ProtoField.uint8("canopy.transit.flags", "Flags", base.HEX, nil, 0x0f),
    t_strip     = ProtoField.bool("canopy.transit.strip_last", "STRIP_LAST", 8, nil, 0x01),
    t_route_len = ProtoField.uint8("canopy.transit.route_len", "RouteLen", base.DEC),
    t_head      = ProtoField.uint8("canopy.transit.head", "Head", base.DEC),
    t_rot       = ProtoField.uint8("canopy.transit.rot", "Rot", base.DEC, nil, 0x03),
    t_hops      = ProtoField.uint8("canopy.transit.hops", "Hops", base.DEC),
    t_rec_slots = ProtoField.uint8("canopy.transit.rec_slots", "RecSlots", base.DEC),
    t_cycles    = ProtoField.uint16("canopy.transit.cycles", "Cycles", base.DEC),
    t_route     = ProtoField.bytes("canopy.transit.route", "Routing bytes R"),
    t_rec_count = ProtoField.uint8("canopy.transit.rec_count", "RecCount", base.DEC),
    t_circuit   = ProtoField.uint16("canopy.transit.circuit_id", "CircuitId", base.HEX),
    t_record    = ProtoField.bytes("canopy.transit.record", "Record"),
    t_rec_stage = ProtoField.uint8("canopy.transit.record.stage", "Stage", base.DEC),
    t_rec_status= ProtoField.uint8("canopy.transit.record.status", "Status", base.DEC, STATUS),
    t_rec_check = ProtoField.uint8("canopy.transit.record.check", "Check (CRC-8)", base.HEX),
    -- path-ID body (§6)
    p_flags     = ProtoField.uint8("canopy.pathid.flags", "Flags", base.HEX),
    p_phase     = ProtoField.bool("canopy.pathid.phase_down", "PHASE_DOWN (D)", 8, nil, 0x80),
    p_local     = ProtoField.bool("canopy.pathid.local", "LOCAL (L)", 8, nil, 0x40),
    p_id_len    = ProtoField.uint8("canopy.pathid.id_len", "ID len", base.DEC),
    p_reserved  = ProtoField.uint16("canopy.pathid.reserved", "Reserved", base.HEX),
    p_host      = ProtoField.uint32("canopy.pathid.host_label", "Host label", base.DEC),
    p_id        = ProtoField.uint64("canopy.pathid.id", "Path ID (left-aligned)", base.HEX),
    p_id_bits   = ProtoField.string("canopy.pathid.id_bits", "Path ID bits"),
}
local flist = {}
for _, v in pairs(f) do flist[#flist + 1] = v end
canopy.fields = flist

-- Expert info: one entry per drop reason of §7 that a header alone can show.
local e = {
    truncated   = ProtoExpert.new("canopy.truncated", "truncated", expert.group.MALFORMED, expert.severity.ERROR),
    bad_version = ProtoExpert.new("canopy.bad_version", "bad_version", expert.group.MALFORMED, expert.severity.ERROR),
    unknown_kind= ProtoExpert.new("canopy.unknown_kind", "unknown_kind", expert.group.MALFORMED, expert.severity.ERROR),
    reserved    = ProtoExpert.new("canopy.reserved_bits_set", "reserved_bits_set", expert.group.MALFORMED, expert.severity.WARN),
    bad_value   = ProtoExpert.new("canopy.bad_field_value", "bad_field_value", expert.group.MALFORMED, expert.severity.ERROR),
}
canopy.experts = { e.truncated, e.bad_version, e.unknown_kind, e.reserved, e.bad_value }

-- ---------------------------------------------------------------- helpers

-- Bits `len` of a left-aligned 8-byte range as a '0'/'1' string, with a '|' at the cursor.
local function bit_string(range, len, cursor)
    local s = {}
    for i = 0, len - 1 do
        if cursor ~= nil and i == cursor then s[#s + 1] = "|" end
        local byte = range:range(math.floor(i / 8), 1):uint()
        s[#s + 1] = (bit.band(byte, bit.rshift(0x80, i % 8)) ~= 0) and "1" or "0"
    end
    if cursor ~= nil and cursor == len then s[#s + 1] = "|" end
    return table.concat(s)
end

-- True if any bit of the left-aligned 64-bit range at or after bit `from` is set.
local function bits_set_from(range, from)
    for i = math.floor(from / 8), 7 do
        local byte = range:range(i, 1):uint()
        local first = i * 8
        local mask = 0xff
        if from > first then mask = bit.rshift(0xff, from - first) end
        if bit.band(byte, mask) ~= 0 then return true end
    end
    return false
end

-- True if any bit at or above bit `w` (0 = LSB) of the big-endian 64-bit range is set, i.e.
-- any of its first 64 - w bits counted from the MSB.
local function bits_set_above(range, w)
    if w >= 64 then return false end
    local k = 64 - w
    for i = 0, math.floor((k - 1) / 8) do
        local byte = range:range(i, 1):uint()
        local mask = 0xff
        if k < (i + 1) * 8 then mask = bit.band(0xff, bit.lshift(0xff, (i + 1) * 8 - k)) end
        if bit.band(byte, mask) ~= 0 then return true end
    end
    return false
end

-- Expert info on `item` naming the field as the Rust parsers do.
local function flag(item, ex, field, why)
    item:add_proto_expert_info(ex, ex == e.truncated and ("truncated: " .. field .. " " .. why)
        or ((ex == e.reserved and "reserved_bits_set: " or "bad_field_value: ") .. field .. " " .. why))
end

local function pad8(n) return math.floor((n + 7) / 8) * 8 end

-- ---------------------------------------------------------------- bodies

-- Sliced-flit body (§4.1). `b` is the body range, `tree` its subtree.
local function dissect_sliced(b, tree)
    local n = b:len()
    if n < 16 then flag(tree, e.truncated, "sliced.body", "needs 16 bytes, has " .. n); return end
    local mode = b:range(0, 1):uint()
    local mi = tree:add(f.s_mode, b:range(0, 1))
    if MODES[mode] == nil then flag(mi, e.bad_value, "sliced.mode", "= " .. mode) end
    local flags = b:range(1, 1):uint()
    local fi = tree:add(f.s_flags, b:range(1, 1))
    fi:add(f.s_phase, b:range(1, 1))
    fi:add(f.s_side, b:range(1, 1))
    fi:add(f.s_has_src, b:range(1, 1))
    if bit.band(flags, 0x1f) ~= 0 then flag(fi, e.reserved, "sliced.flags", "b4..b0 set") end
    local has_src = bit.band(flags, 0x20) ~= 0
    local len = b:range(2, 1):uint()
    local li = tree:add(f.s_len, b:range(2, 1))
    if len > 64 then flag(li, e.bad_value, "sliced.slice_len", "= " .. len .. " > 64") end
    local cursor = b:range(3, 1):uint()
    local ci = tree:add(f.s_cursor, b:range(3, 1))
    local ri = tree:add(f.s_reserved, b:range(4, 4))
    if b:range(4, 4):uint() ~= 0 then flag(ri, e.reserved, "sliced.reserved", "not 0") end
    local want = has_src and 24 or 16
    if n < want then flag(tree, e.truncated, "sliced.src", "needs 24 bytes, has " .. n)
    elseif n ~= want then flag(tree, e.bad_value, "sliced.body", "length " .. n .. " != " .. want) end
    local word = b:range(8, 8)
    local lenc = math.min(len, 64)
    if mode == 0 then
        local wi = tree:add(f.s_slice, word)
        tree:add(f.s_slice_bits, word, bit_string(word, lenc, math.min(cursor, lenc)))
        if cursor > len then flag(ci, e.bad_value, "sliced.cursor", "= " .. cursor .. " > SliceLen " .. len) end
        if bits_set_from(word, lenc) then flag(wi, e.reserved, "sliced.slice", "bits beyond SliceLen set") end
    else
        local di = tree:add(f.s_dst, word)
        if cursor ~= 0 then flag(ci, e.bad_value, "sliced.cursor", "must be 0 in modes 1-3") end
        if bits_set_above(word, lenc) then flag(di, e.reserved, "sliced.dst", "bits at or above W set") end
        if mode == 2 and not has_src then flag(fi, e.bad_value, "sliced.flags", "SRCDST without HAS_SRC") end
    end
    if has_src and n >= 24 then
        local si = tree:add(f.s_src, b:range(16, 8))
        if mode ~= 0 and MODES[mode] ~= nil and bits_set_above(b:range(16, 8), lenc) then
            flag(si, e.reserved, "sliced.src", "bits at or above W set")
        end
    end
    local info = string.format("%s len=%d cur=%d", MODES[mode] or "?", len, cursor)
    if bit.band(flags, 0x80) ~= 0 then info = info .. " DOWN" end
    if bit.band(flags, 0x40) ~= 0 then info = info .. " SIDE" end
    return info
end

-- Transit body (§5).
local function dissect_transit(b, tree)
    local n = b:len()
    if n < 8 then flag(tree, e.truncated, "transit.fixed", "needs 8 bytes, has " .. n); return end
    local msg = bit.rshift(b:range(0, 1):uint(), 4)
    local mi = tree:add(f.t_msg, b:range(0, 1))
    if MSGS[msg] == nil then flag(mi, e.bad_value, "transit.msg", "= " .. msg) end
    local fi = tree:add(f.t_flags, b:range(0, 1))
    fi:add(f.t_strip, b:range(0, 1))
    if bit.band(b:range(0, 1):uint(), 0x0e) ~= 0 then flag(fi, e.reserved, "transit.flags", "b1..b3 set") end
    local route_len = b:range(1, 1):uint()
    tree:add(f.t_route_len, b:range(1, 1))
    local head = b:range(2, 1):uint()
    local hi = tree:add(f.t_head, b:range(2, 1))
    if head > route_len then flag(hi, e.bad_value, "transit.head", "= " .. head .. " > RouteLen " .. route_len) end
    local ti = tree:add(f.t_rot, b:range(3, 1))
    if bit.band(b:range(3, 1):uint(), 0xfc) ~= 0 then flag(ti, e.reserved, "transit.rot", "bits 7:2 set") end
    tree:add(f.t_hops, b:range(4, 1))
    local slots = b:range(5, 1):uint()
    tree:add(f.t_rec_slots, b:range(5, 1))
    tree:add(f.t_cycles, b:range(6, 2))
    local rpad = pad8(route_len)
    if n < 8 + rpad then flag(tree, e.truncated, "transit.route", "needs " .. (8 + rpad) .. " bytes, has " .. n); return end
    if route_len > 0 then tree:add(f.t_route, b:range(8, route_len)) end
    local want = 8 + rpad
    if slots > 0 then
        local at = 8 + rpad
        want = at + 8 + pad8(4 * slots)
        if n < want then flag(tree, e.truncated, "transit.records", "needs " .. want .. " bytes, has " .. n); return end
        local count = b:range(at, 1):uint()
        local ci = tree:add(f.t_rec_count, b:range(at, 1))
        if count > slots then flag(ci, e.bad_value, "transit.rec_count", "= " .. count .. " > RecSlots " .. slots) end
        tree:add(f.t_circuit, b:range(at + 2, 2))
        if b:range(at + 1, 1):uint() ~= 0 or b:range(at + 4, 4):uint() ~= 0 then
            flag(ci, e.reserved, "transit.rec_header", "reserved bytes not 0")
        end
        for i = 0, math.min(count, slots) - 1 do
            local r = b:range(at + 8 + 4 * i, 4)
            local ri = tree:add(f.t_record, r)
            ri:add(f.t_rec_stage, r:range(0, 1))
            ri:add(f.t_rec_status, r:range(1, 1))
            ri:add(f.t_rec_check, r:range(2, 1))
        end
    end
    if n ~= want then flag(tree, e.bad_value, "transit.body_len", "= " .. n .. ", expected " .. want) end
    return string.format("%s R=%s head=%d rot=%d hops=%d", MSGS[msg] or "?",
        route_len > 0 and tostring(b:range(8, route_len):bytes()) or "-", head,
        bit.band(b:range(3, 1):uint(), 3), b:range(4, 1):uint())
end

-- Path-ID body (§6).
local function dissect_pathid(b, tree)
    local n = b:len()
    if n < 16 then flag(tree, e.truncated, "pathid.body", "needs 16 bytes, has " .. n); return end
    if n ~= 16 then flag(tree, e.bad_value, "pathid.body", "length " .. n .. " != 16") end
    local flags = b:range(0, 1):uint()
    local fi = tree:add(f.p_flags, b:range(0, 1))
    fi:add(f.p_phase, b:range(0, 1))
    fi:add(f.p_local, b:range(0, 1))
    if bit.band(flags, 0x3f) ~= 0 then flag(fi, e.reserved, "pathid.flags", "b5..b0 set") end
    local local_ = bit.band(flags, 0x40) ~= 0
    local id_len = b:range(1, 1):uint()
    local li = tree:add(f.p_id_len, b:range(1, 1))
    if id_len > 64 or (id_len == 0 and not local_) or (id_len ~= 0 and local_) then
        flag(li, e.bad_value, "pathid.id_len", "= " .. id_len .. (local_ and " with LOCAL" or ""))
    end
    local ri = tree:add(f.p_reserved, b:range(2, 2))
    if b:range(2, 2):uint() ~= 0 then flag(ri, e.reserved, "pathid.reserved", "not 0") end
    tree:add(f.p_host, b:range(4, 4))
    local word = b:range(8, 8)
    local ii = tree:add(f.p_id, word)
    local lenc = math.min(id_len, 64)
    -- The ID's split into Type . Top . Route . DP fields depends on the topology (§6.1), which
    -- the header does not carry; show the raw bits, most significant first.
    tree:add(f.p_id_bits, word, bit_string(word, lenc, nil))
    if bits_set_from(word, lenc) then flag(ii, e.reserved, "pathid.id", "bits past ID len set") end
    return string.format("id=%s/%d label=%d%s%s", bit_string(word, lenc, nil), id_len,
        b:range(4, 4):uint(), bit.band(flags, 0x80) ~= 0 and " DOWN" or "", local_ and " LOCAL" or "")
end

local BODIES = { [1] = dissect_sliced, [2] = dissect_transit, [3] = dissect_pathid }

-- The hop record descriptor (§2.1) at `d` (8 bytes), checked in the order of HopArea::parse
-- and the slots' fit; `room` is what HdrLen leaves for the slots. Returns Slots and Count,
-- or nil after flagging the first defect.
local function dissect_hop_desc(d, tree, room)
    local dt = tree:add(d, "Hop record descriptor")
    local slots, count, dflags = d:range(0, 1):uint(), d:range(1, 1):uint(), d:range(2, 1):uint()
    local si = dt:add(f.h_slots, d:range(0, 1))
    local ci = dt:add(f.h_count, d:range(1, 1))
    local fi = dt:add(f.h_flags, d:range(2, 1))
    fi:add(f.h_overflow, d:range(2, 1))
    if bit.band(dflags, 0x7f) ~= 0 then flag(fi, e.reserved, "hops.flags", "b6..b0 set")
    elseif d:range(3, 1):uint() ~= 0 or d:range(4, 4):uint() ~= 0 then
        flag(dt, e.reserved, "hops.reserved", "bytes 3-7 not 0")
    elseif count > slots then flag(ci, e.bad_value, "hops.count", "= " .. count .. " > Slots " .. slots)
    elseif slots * RECORD_LEN > room then
        flag(si, e.bad_value, "hops.slots", "= " .. slots .. ": " .. slots * RECORD_LEN
            .. " bytes of slots, HdrLen leaves " .. room)
    else return slots, count end
    return nil
end

-- A nanosecond difference b - a of two UInt64 times, as text ("?" unless a <= b and both set).
local function ns_between(a, b)
    if a == UInt64(0) or b == UInt64(0) or b < a then return "?" end
    return tostring(b - a) .. " ns"
end

-- The records written so far (Count of Slots, at `slots_at`), each with its fields and the
-- time the switch held the frame.
local function dissect_hop_records(tvb, tree, slots_at, slots, count)
    if slots == 0 then
        tree:add(tvb:range(PREFIX_LEN, DESC_LEN), "Hop records: no slot reserved")
        return
    end
    local at = tree:add(tvb:range(slots_at, slots * RECORD_LEN),
        string.format("Hop records (%d of %d slots used)", count, slots))
    for i = 0, count - 1 do
        local r = tvb:range(slots_at + i * RECORD_LEN, RECORD_LEN)
        local rt = at:add(r, string.format("Hop %d: switch %d, port %d -> %d", i,
            r:range(0, 4):uint(), r:range(4, 2):uint(), r:range(6, 2):uint()))
        rt:add(f.r_switch, r:range(0, 4))
        rt:add(f.r_ingress, r:range(4, 2))
        rt:add(f.r_egress, r:range(6, 2))
        rt:add(f.r_queue, r:range(8, 4))
        rt:add(f.r_clock, r:range(12, 1))
        rt:add(f.r_kernel_rx, r:range(16, 8))
        rt:add(f.r_poll, r:range(24, 8))
        rt:add(f.r_tx, r:range(32, 8))
        rt:add(f.r_qdelay, r:range(40, 4))
        local rx, poll, tx = r:range(16, 8):uint64(), r:range(24, 8):uint64(), r:range(32, 8):uint64()
        rt:add(r:range(16, 16), "RX ring wait (Poll - Kernel RX): " .. ns_between(rx, poll))
        rt:add(r:range(24, 16), "Switch residence (TX handoff - Poll): " .. ns_between(poll, tx))
        if i > 0 then
            local prev_tx = tvb:range(slots_at + (i - 1) * RECORD_LEN + 32, 8):uint64()
            local next_in = rx ~= UInt64(0) and rx or poll
            rt:add(r:range(16, 16), "Since the previous switch's TX handoff: " .. ns_between(prev_tx, next_in))
        end
    end
    if count < slots then
        at:add(tvb:range(slots_at + count * RECORD_LEN, (slots - count) * RECORD_LEN),
            string.format("%d empty slot(s)", slots - count))
    end
end

-- ---------------------------------------------------------------- main

function canopy.dissector(tvb, pinfo, root)
    pinfo.cols.protocol = "Canopy"
    local n = tvb:len()
    local tree = root:add(canopy, tvb:range(0, math.min(n, PREFIX_LEN)))
    if n < PREFIX_LEN then
        flag(tree, e.truncated, "prefix", "needs 8 bytes, has " .. n)
        pinfo.cols.info = "Canopy [truncated]"
        return n
    end
    local vk = tvb:range(0, 1):uint()
    local ver, kind = bit.rshift(vk, 4), bit.band(vk, 0x0f)
    local vi = tree:add(f.version, tvb:range(0, 1))
    local ki = tree:add(f.kind, tvb:range(0, 1))
    local flags = tvb:range(1, 1):uint()
    local fi = tree:add(f.flags, tvb:range(1, 1))
    fi:add(f.flags_meas, tvb:range(1, 1))
    fi:add(f.flags_hops, tvb:range(1, 1))
    tree:add(f.hop_limit, tvb:range(2, 1))
    local hl_units = tvb:range(3, 1):uint()
    local hli = tree:add(f.hdr_len, tvb:range(3, 1))
    local pli = tree:add(f.payload_len, tvb:range(4, 2))
    tree:add(f.inner_type, tvb:range(6, 2))
    -- Checks in the order of Header::check (dataplane/src/wire/mod.rs).
    if ver ~= 1 then
        vi:add_proto_expert_info(e.bad_version, "bad_version: version " .. ver .. " (only 1 is defined)")
        pinfo.cols.info = "Canopy [bad_version]"
        return n
    end
    if KINDS[kind] == nil then
        ki:add_proto_expert_info(e.unknown_kind, "unknown_kind: kind " .. kind)
        pinfo.cols.info = "Canopy [unknown_kind]"
        return n
    end
    if bit.band(flags, 0x3f) ~= 0 then flag(fi, e.reserved, "prefix.flags", "b5..b0 set") end
    local meas = bit.band(flags, 0x80) ~= 0
    local hops = bit.band(flags, 0x40) ~= 0
    local desc = hops and DESC_LEN or 0
    local hl = hl_units * 8
    local min = PREFIX_LEN + desc + 8 + (meas and MEAS_LEN or 0)
    if hl < min then
        flag(hli, e.bad_value, "prefix.hdr_len", "= " .. hl .. " bytes < " .. min)
        pinfo.cols.info = "Canopy [bad_field_value]"
        return n
    end
    if n < hl then
        flag(hli, e.truncated, "prefix.hdr_len", "needs " .. hl .. " bytes, has " .. n)
        pinfo.cols.info = "Canopy [truncated]"
        return n
    end
    tree:set_len(hl)
    local slots, count = 0, 0
    if hops then
        slots, count = dissect_hop_desc(tvb:range(PREFIX_LEN, DESC_LEN), tree, hl - min)
        if slots == nil then
            pinfo.cols.info = "Canopy [malformed hop record area]"
            return n
        end
    end
    -- The payload the prefix announces must be in the frame; more is Ethernet padding or a
    -- trailer (Header::check_payload).
    local plen = tvb:range(4, 2):uint()
    if plen > n - hl then
        flag(pli, e.truncated, "prefix.payload_len", "needs " .. (hl + plen) .. " bytes, has " .. n)
    end
    local slots_at = hl - slots * RECORD_LEN
    local body_at = PREFIX_LEN + desc
    local body_len = slots_at - body_at - (meas and MEAS_LEN or 0)
    local bt = tree:add(tvb:range(body_at, body_len), KINDS[kind] .. " body")
    local info = BODIES[kind](tvb:range(body_at, body_len), bt)
    if meas then
        local m = tvb:range(body_at + body_len, MEAS_LEN)
        local mt = tree:add(m, "Measurement block")
        mt:add(f.meas_seq, m:range(0, 8))
        mt:add(f.meas_ts, m:range(8, 8))
    end
    if hops then dissect_hop_records(tvb, tree, slots_at, slots, count) end
    pinfo.cols.info = string.format("Canopy %s hop=%d %s%s", KINDS[kind], tvb:range(2, 1):uint(),
        info or "[malformed]", hops and string.format(" records=%d/%d", count, slots) or "")
    -- The payload (payload_len bytes, then Ethernet padding) follows: hand it to the inner
    -- EtherType's dissector, or show it as data for a raw message.
    plen = math.min(plen, n - hl)
    if plen > 0 then
        local inner = tvb:range(6, 2):uint()
        local d = inner ~= 0 and DissectorTable.get("ethertype"):get_dissector(inner) or nil
        if d ~= nil then d:call(tvb:range(hl, plen):tvb(), pinfo, root)
        else Dissector.get("data"):call(tvb:range(hl, plen):tvb(), pinfo, root) end
    end
    return n
end

DissectorTable.get("ethertype"):add(0x88B5, canopy)
