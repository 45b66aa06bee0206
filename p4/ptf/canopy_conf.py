"""Shared code of the Canopy conformance suite (run_suite.py and tests/*.py).

Pure Python, no PTF or scapy import here: the plan (which switches, which ports, which
frames) is computed once by run_suite.py from `canopyctl` output and docs/wire-format.md,
written as JSON, and read back by the tests (environment variable CANOPY_PTF_PLAN).
"""

import json
import os
import re
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
WIRE_FORMAT = os.path.join(REPO, "docs", "wire-format.md")
DECIDE_RS = os.path.join(REPO, "dataplane", "src", "decide", "mod.rs")
WIRE_RS = os.path.join(REPO, "dataplane", "src", "wire", "mod.rs")

ETHERTYPE = 0x88B5
DST_MAC = bytes.fromhex("02434e00001a")
SRC_MAC = bytes.fromhex("02434e000005")
PAYLOAD = bytes.fromhex("deadbeef")


class PlanError(Exception):
    """The plan cannot be computed (tool output or document not as expected)."""


def _reason_list(path, enum):
    """The `=> "label"` (or `=> ..`, a nested enum's labels) entries of `enum`'s
    `drop_reasons!` list in the Rust source `path`, in order."""
    with open(path, encoding="utf-8") as f:
        src = f.read()
    start = src.find(f"pub enum {enum} {{")
    if start < 0:
        raise PlanError(f"{path}: enum {enum} not found")
    depth, end = 0, start
    for end in range(src.index("{", start), len(src)):
        depth += {"{": 1, "}": -1}.get(src[end], 0)
        if depth == 0:
            break
    return re.findall(r'=>\s*("[a-z_]+"|\.\.)', src[start:end])


def drop_reason_names(decide=DECIDE_RS, wire=WIRE_RS):
    """DROP_REASON_NAMES, in order (the counter index contract), read from the Rust
    source: the `drop_reasons!` list of `DropReason`, whose `Malformed(WireError) => ..`
    stands for `WireError`'s labels."""
    names = []
    for entry in _reason_list(decide, "DropReason"):
        if entry == "..":
            names += [e.strip('"') for e in _reason_list(wire, "WireError")]
        else:
            names.append(entry.strip('"'))
    if not names or any(n == ".." for n in names):
        raise PlanError(f"{decide}: DropReason's labels not found")
    return names


def parse_vectors(path=WIRE_FORMAT):
    """Every ```vectors line of the document: {id: (kind, header bytes)}.

    The same format the Rust tests parse (`canopy_dataplane::wire::doc_vectors`):
    `ID kind hexwords... # comment`.
    """
    out = {}
    inside = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if s.startswith("```"):
                inside = s == "```vectors"
                continue
            if not inside or not s:
                continue
            s = s.split("#", 1)[0].split()
            if len(s) < 3:
                raise PlanError(f"{path}:{n}: vector line needs ID, kind and hex")
            vid, kind, words = s[0], s[1], s[2:]
            if kind not in ("prefix", "sliced", "transit", "path-id"):
                raise PlanError(f"{path}:{n}: unknown vector kind {kind}")
            try:
                data = bytes.fromhex("".join(words))
            except ValueError as e:
                raise PlanError(f"{path}:{n}: bad hex: {e}") from e
            if vid in out:
                raise PlanError(f"{path}:{n}: duplicate vector {vid}")
            out[vid] = (kind, data)
    if not out:
        raise PlanError(f"{path}: no ```vectors lines")
    return out


def frame(header, payload_len=None, vlans=(), ethertype=ETHERTYPE):
    """An Ethernet frame carrying `header` and its payload, padded to 60 bytes.

    `payload_len` defaults to the prefix's payload length field (bytes 4-5)."""
    if payload_len is None:
        payload_len = int.from_bytes(header[4:6], "big") if len(header) >= 6 else 0
    payload = (PAYLOAD * (payload_len // 4 + 1))[:payload_len]
    tags = b"".join(tpid.to_bytes(2, "big") + vid.to_bytes(2, "big") for tpid, vid in vlans)
    f = DST_MAC + SRC_MAC + tags + ethertype.to_bytes(2, "big") + bytes(header) + payload
    return f + bytes(max(0, 60 - len(f)))


def run(cmd, **kw):
    """Run a command, return stdout; raise PlanError naming the command on failure."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise PlanError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


TRACE_HOP = re.compile(
    r"^\s*(\d+)\s+(\S+)\s+L(\d+) in p(\d+) \((\w+)\) -> out p(\d+) \((\w+)\) "
    r"\[(deterministic|group (\d+))\]\s+hdr ([0-9a-f]+)\s*$"
)


def parse_trace(text):
    """`canopyctl header ... --trace` output: (first header, [hop dict, ...])."""
    lines = text.splitlines()
    if not lines:
        raise PlanError("empty trace")
    first = bytes.fromhex(lines[0].strip())
    hops = []
    for line in lines[1:]:
        m = TRACE_HOP.match(line)
        if m:
            hops.append(
                {
                    "switch": m.group(2),
                    "level": int(m.group(3)),
                    "in_port": int(m.group(4)),
                    "in_role": m.group(5).lower(),
                    "out_port": int(m.group(6)),
                    "out_role": m.group(7).lower(),
                    "group": None if m.group(9) is None else int(m.group(9)),
                    "hdr": bytes.fromhex(m.group(10)),
                }
            )
    if not hops or not any(line.strip().startswith("=> Delivered") for line in lines):
        raise PlanError(f"trace without hops or delivery:\n{text}")
    return first, hops


TOPO_PORT = re.compile(r"^\s+p(\d+)\s+(\w+)\s+\w+\s+label (\d+)\s+group (\d+)\s+-> (\S+):p(\d+)")


def parse_topo_list(text):
    """`canopyctl topo SPEC --list`: {switch: {port: (role, label, peer, peer_port)}}."""
    out = {}
    cur = None
    for line in text.splitlines():
        if line and not line[0].isspace():
            cur = line.split()[0]
            out[cur] = {}
            continue
        m = TOPO_PORT.match(line)
        if m and cur is not None:
            out[cur][int(m.group(1))] = (m.group(2), int(m.group(3)), m.group(5), int(m.group(6)))
    return out


def target_ports(tables, target):
    """Ports of a table action: {"port": N} or {"group": G} (or "none")."""
    if isinstance(target, dict) and "port" in target:
        return [target["port"]]
    if isinstance(target, dict) and "group" in target:
        return list(tables["groups"][target["group"]])
    return []


def pathid_bits(hdr):
    """(id_len, ID as a '0'/'1' string) of a path-ID header (prefix + body)."""
    body = hdr[8:]
    n = body[1]
    word = int.from_bytes(body[8:16], "big")
    return n, format(word, "064b")[:n]


def pathid_lookup(tables, hdr, descending):
    """Ports of the path-ID table's decision for `hdr` and whether it turns, or None.

    Only the port choice is modelled (to find the egress of a vector whose path the
    builder would not pick); the expected bytes come from docs/wire-format.md."""
    pt = tables["pathid"]
    if pt["leaf"] and descending:
        label = int.from_bytes(hdr[12:16], "big")
        for h in pt["hosts"]:
            if h["label"] == label:
                return target_ports(tables, h["action"]), False
        return None
    n, bits = pathid_bits(hdr)
    best = None
    for e in pt["entries"]:
        p = e["prefix"]
        if len(p) <= n and bits.startswith(p) and (best is None or len(p) > len(best["prefix"])):
            best = e
    if best is None:
        return None
    return target_ports(tables, best["action"]), best["down"]


def load_plan():
    path = os.environ.get("CANOPY_PTF_PLAN")
    if not path:
        raise PlanError("CANOPY_PTF_PLAN is not set: run the suite with p4/ptf/run_suite.py")
    with open(path, encoding="utf-8") as f:
        return json.load(f)
