#!/usr/bin/env python3
"""Smoke test of p4/canopy.p4 on bmv2: the S1 vectors of docs/wire-format.md §4.6, hop by hop.

For each switch the S1 frame crosses in `znode:z=3,2,3;r=1,3,6;m=2` (as `canopyctl header --trace`
walks it), this starts one `simple_switch` with that switch's ports on veths in a network namespace
(prefix `pprg`), programs it with `canopyctl p4-entries ... --format bmv2-cli`, sends S1.k on the
trace's ingress port and expects exactly S1.(k+1) on the trace's egress port (for a group: on one
of the group's ports). At the first switch it also sends S1 with PHASE_DOWN set on the same down
port and expects one bad_phase drop in `counter_read CanopyIngress.canopy_drops 15`.

Needs root, p4c, simple_switch, simple_switch_CLI and scapy. Without p4c/bmv2 it prints why and
exits 77 (the conventional "skipped" status). Usage:
    sudo p4/bmv2_smoke.py [--canopyctl PATH]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SPEC = "znode:z=3,2,3;r=1,3,6;m=2"
# (spec, kind, src, dst): the S1 path of wire-format.md §4.6 first, then one path per other kind
PATHS = [
    (SPEC, "sliced", 5, 26),
    ("fat-tree:k=4", "path-id", 0, 15),
    ("transit-hybrid:leaf=12;layers=1", "transit", 0, 700),
]
NS = "pprg0"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DROP_BAD_PHASE = 15


def which(tool):
    return shutil.which(tool) or (os.path.exists(f"/usr/local/bin/{tool}") and f"/usr/local/bin/{tool}")


def sh(*args, check=True, **kw):
    return subprocess.run(list(args), check=check, capture_output=True, text=True, **kw)


def vectors():
    """S1, S1.1 … S1.6 from the ```vectors blocks of docs/wire-format.md."""
    doc = open(os.path.join(ROOT, "docs", "wire-format.md")).read()
    out = {}
    for block in re.findall(r"```vectors\n(.*?)```", doc, re.S):
        for line in block.splitlines():
            line = line.split("#")[0].split()
            if len(line) >= 3 and line[0].startswith("S1"):
                out[line[0]] = bytes.fromhex("".join(line[2:]))
    return out


def trace(canopyctl, spec, kind, src, dst):
    """(first header, [(switch, in_port, out_port, group?, header hex)]) of src -> dst."""
    out = sh(canopyctl, "header", spec, "--kind", kind, "--src", str(src), "--dst", str(dst),
             "--trace").stdout
    first = bytes.fromhex(out.split()[0])
    hops = []
    for m in re.finditer(r"^\s*\d+\s+(\S+)\s+L\d+ in p(\d+) \(\w+\) -> out p(\d+) \(\w+\) \[(\w+)[^\]]*\]\s+hdr (\w+)", out, re.M):
        hops.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4) == "group", m.group(5)))
    return first, hops


def port_count(canopyctl, spec, switch):
    out = sh(canopyctl, "topo", spec, "--list").stdout
    block = out.split(switch + " (", 1)[1].split("\n\n")[0]
    n = 0
    for line in block.splitlines()[1:]:
        if not re.match(r"^\s+p\d+\s", line):
            break
        n += 1
    return n


def group_ports(canopyctl, spec, kind, switch, port):
    """Ports of the group that contains `port` (from `tables --switch`)."""
    import json
    t = json.loads(sh(canopyctl, "tables", spec, "--kind", kind, "--switch", switch).stdout)
    for g in t["groups"]:
        if port in g:
            return g
    return [port]


def drops(cli):
    """The non-zero cells of canopy_drops, by reason index."""
    cmds = "".join(f"counter_read CanopyIngress.canopy_drops {i}\n" for i in range(21))
    r = subprocess.run([cli, "--thrift-port", "9090"], input=cmds, capture_output=True, text=True)
    cells = re.findall(r"canopy_drops\[(\d+)\]= \(\d+ bytes, (\d+) packets\)", r.stdout)
    return ", ".join(f"[{i}]={n}" for i, n in cells if n != "0") or "none"


def frame(hdr):
    eth = bytes.fromhex("02434e00001a" "02434e000005" "88b5")
    f = eth + hdr + bytes.fromhex("deadbeef")
    return f + bytes(max(0, 60 - len(f)))


def inner(args):
    """Runs inside the namespace: one switch per hop."""
    from scapy.all import conf  # noqa: E402
    conf.verb = 0
    sh("ip", "link", "set", "lo", "up")  # the Thrift server listens on 127.0.0.1
    vec = vectors()
    failures = 0
    only = [int(x) for x in os.environ.get("PRRG_ONLY", "").split(",") if x]
    for pi, (spec, kind, src, dst) in enumerate(PATHS):
        if only and pi not in only:
            continue
        failures += run_path(args, pi, spec, kind, src, dst, vec)
    return 1 if failures else 0


def run_path(args, pi, spec, kind, src, dst, vec):
    from scapy.all import AsyncSniffer, sendp  # noqa: E402
    first, hops = trace(args.canopyctl, spec, kind, src, dst)
    hdrs = [first] + [bytes.fromhex(h[4]) for h in hops]
    if pi == 0:
        names = ["S1"] + [f"S1.{k}" for k in range(1, 7)]
        # the S1 path: the trace must be the document's vectors
        assert hdrs == [vec[n] for n in names], "trace and wire-format.md §4.6 differ"
    else:
        names = [f"{kind} {src}->{dst} hop {k}" for k in range(len(hdrs))]
    failures = 0
    for k, (sw, pin, pout, is_group, _) in enumerate(hops):
        n = port_count(args.canopyctl, spec, sw)
        ifs = []
        for i in range(n):
            a, b = f"pprg{pi}{k}a{i}", f"pprg{pi}{k}b{i}"
            sh("ip", "link", "add", a, "type", "veth", "peer", "name", b)
            for x in (a, b):
                sh("sysctl", "-qw", f"net.ipv6.conf.{x}.disable_ipv6=1", check=False)
                sh("ip", "link", "set", x, "up")
            ifs.append((a, b))
        cmd = [args.simple_switch, "--device-id", "0", "--thrift-port", "9090"]
        for i, (a, _) in enumerate(ifs):
            cmd += ["-i", f"{i}@{a}"]
        cmd.append(os.path.join(args.out, "canopy.json"))
        log = open(os.path.join(args.out, f"ss{pi}{k}.log"), "w")
        ss = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            time.sleep(2)
            entries = sh(args.canopyctl, "p4-entries", spec, "--kind", kind, "--switch", sw,
                         "--format", "bmv2-cli").stdout
            r = subprocess.run([args.cli, "--thrift-port", "9090"], input=entries,
                               capture_output=True, text=True)
            if "Error" in r.stdout or r.returncode != 0:
                print(f"FAIL {sw}: programming: {r.stdout[-2000:]} {r.stderr[-500:]}")
                failures += 1
                continue
            ok_ports = group_ports(args.canopyctl, spec, kind, sw, pout) if is_group else [pout]
            want = frame(hdrs[k + 1])
            # one retry when nothing at all came out and nothing was counted as a drop
            # (bmv2 right after start-up occasionally loses the very first frame)
            for attempt in range(2):
                sniffers = {i: AsyncSniffer(iface=b, store=True) for i, (_, b) in enumerate(ifs)}
                for s in sniffers.values():
                    s.start()
                time.sleep(1.0)
                sendp(frame(hdrs[k]), iface=ifs[pin][1])
                time.sleep(2.0)
                got = {i: [bytes(p) for p in s.stop() if bytes(p)[12:14] == b"\x88\xb5"]
                       for i, s in sniffers.items()}
                got = {i: v for i, v in got.items() if v and i != pin}
                outs = [(i, f) for i, v in got.items() for f in v]
                if outs or attempt == 1 or drops(args.cli) != "none":
                    break
                print(f"note {sw}: nothing came out, sending again")
            if len(outs) == 1 and outs[0][0] in ok_ports and outs[0][1] == want:
                print(f"ok   {sw}: {names[k]} in p{pin} -> {names[k + 1]} out p{outs[0][0]}")
            else:
                print(f"FAIL {sw}: {names[k]} in p{pin}: want {names[k + 1]} on {ok_ports}, got "
                      + ", ".join(f"p{i} {f.hex()}" for i, f in outs))
                print("     drops: " + drops(args.cli))
                failures += 1
            # a drop: S1 with PHASE_DOWN set, arriving from below at the first switch
            if k == 0 and pi == 0:
                bad = bytearray(vec["S1"])
                bad[9] |= 0x80  # PHASE_DOWN on a frame arriving from below
                sendp(frame(bytes(bad)), iface=ifs[pin][1])
                time.sleep(1)
                r = subprocess.run([args.cli, "--thrift-port", "9090"],
                                   input=f"counter_read CanopyIngress.canopy_drops {DROP_BAD_PHASE}\n",
                                   capture_output=True, text=True)
                m = re.search(r"(\d+) packets", r.stdout)
                if m and int(m.group(1)) == 1:
                    print(f"ok   {sw}: PHASE_DOWN from below dropped, canopy_drops[bad_phase] = 1")
                else:
                    print(f"FAIL {sw}: bad_phase counter: {r.stdout[-500:]}")
                    failures += 1
        finally:
            ss.terminate()
            try:
                ss.wait(5)
            except subprocess.TimeoutExpired:
                ss.kill()
            for a, _ in ifs:
                sh("ip", "link", "del", a, check=False)
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--canopyctl", default=os.environ.get("CANOPYCTL", "canopyctl"))
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--simple-switch", dest="simple_switch", help=argparse.SUPPRESS)
    ap.add_argument("--cli", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        return inner(args)
    p4c, ss, cli = which("p4c"), which("simple_switch"), which("simple_switch_CLI")
    if not (p4c and ss and cli):
        print("SKIP: p4c, simple_switch and simple_switch_CLI are needed "
              "(docs/p4.md: installing p4c and bmv2)")
        return 77
    if os.geteuid() != 0:
        print("SKIP: needs root (network namespace and veths)")
        return 77
    out = tempfile.mkdtemp(prefix="canopy-p4-")
    r = sh(p4c, "--target", "bmv2", "--arch", "v1model", "-o", out,
           os.path.join(HERE, "canopy.p4"), check=False)
    msgs = (r.stdout + r.stderr).strip()
    if r.returncode != 0:
        print(f"FAIL: p4c: {msgs}")
        return 1
    if msgs:
        print(f"FAIL: p4c printed warnings:\n{msgs}")
        return 1
    print(f"ok   p4c --target bmv2 --arch v1model: no warnings ({out}/canopy.json)")
    sh("ip", "netns", "add", NS)
    try:
        return subprocess.run(["ip", "netns", "exec", NS, sys.executable, os.path.abspath(__file__),
                               "--inner", "--out", out, "--simple-switch", ss, "--cli", cli,
                               "--canopyctl", args.canopyctl]).returncode
    finally:
        sh("ip", "netns", "del", NS, check=False)


if __name__ == "__main__":
    sys.exit(main())
