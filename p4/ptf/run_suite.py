#!/usr/bin/env python3
"""Run the Canopy PTF conformance suite against one target.

    sudo p4/ptf/run_suite.py --target canopy|canopy-p4rt|bmv2 [--bin-dir target/debug] [--keep]

Computes the plan (switches, ports, frames) from docs/wire-format.md and `canopyctl`,
creates one network namespace per switch (prefix `cnf`) plus one for PTF, joined by veth
pairs (one per switch port), starts the target on the switch-side veths, runs `ptf`
(PyPI `ptf`) on the test-side veths, checks that every declared case ran, and tears
everything down (also on failure, SIGINT and SIGTERM).

Targets: `canopy` (canopy-switch with the tables of its [tables] section), `canopy-p4rt`
(canopy-switch started without tables and programmed over P4Runtime by p4runtime-shell with
`canopyctl p4info` and `canopyctl p4-entries --format p4runtime`, read back identical first),
`bmv2` (simple_switch programmed by simple_switch_CLI).

Exit status 0: every case passed (or the bmv2 or canopy-p4rt target was skipped, with a
`SKIP bmv2:` or `SKIP canopy-p4rt:` line).
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import canopy_conf as cc  # noqa: E402
import cases as cases_mod  # noqa: E402

ZNODE = "znode:z=3,2,3;r=1,3,6;m=2"
ZNODE_SIDE = "znode:z=2;m=3"
HYBRID = "transit-hybrid:leaf=192;layers=2"
FULL = "transit-full:layers=2"
FAT = "fat-tree:k=4"


def log(msg):
    print(msg, flush=True)


class Planner:
    """Builds the plan: switch instances and the vector paths through them."""

    def __init__(self, ctl):
        self.ctl = ctl
        self.vectors = cc.parse_vectors()
        self.instances = {}
        self.tables_cache = {}

    def vec(self, vid):
        return self.vectors[vid][1]

    def tables(self, spec, kind, mode, name):
        key = (spec, kind, mode, name)
        if key not in self.tables_cache:
            cmd = [self.ctl, "tables", spec, "--kind", kind, "--switch", name]
            if mode:
                cmd += ["--mode", mode]
            self.tables_cache[key] = json.loads(cc.run(cmd))
        return self.tables_cache[key]

    def inst(self, spec, kind, mode, name):
        key = f"{kind}/{mode or '-'}/{spec}/{name}"
        if key not in self.instances:
            t = self.tables(spec, kind, mode, name)
            self.instances[key] = {
                "key": key,
                "dev": len(self.instances),
                "spec": spec,
                "kind": kind,
                "mode": mode,
                "name": name,
                "nports": len(t["ports"]),
            }
        return key

    def out_ports(self, t, hop):
        if hop["group"] is None:
            return [hop["out_port"]]
        g = list(t["groups"][hop["group"]])
        if hop["out_port"] not in g:
            raise cc.PlanError(f"{hop['switch']}: trace port {hop['out_port']} not in group {g}")
        return g

    def trace_path(self, spec, kind, src, dst, mode=None, first=None, last=None, steps=None, only=None):
        """The hops of `canopyctl header --trace` (all, or the indexes in `only`)."""
        cmd = [self.ctl, "header", spec, "--kind", kind, "--src", src, "--dst", dst, "--trace"]
        if mode:
            cmd += ["--mode", mode]
        hdr, hops = cc.parse_trace(cc.run(cmd))
        if first is not None and hdr != self.vec(first):
            raise cc.PlanError(f"{' '.join(cmd)}: header {hdr.hex()} is not vector {first}")
        if last is not None and hops[-1]["hdr"] != self.vec(last):
            raise cc.PlanError(f"{' '.join(cmd)}: delivered {hops[-1]['hdr'].hex()} is not {last}")
        if steps is not None:
            got = [h["hdr"] for h in hops]
            want = [self.vec(s) for s in steps]
            if got != want:
                raise cc.PlanError(f"{' '.join(cmd)}: hop headers differ from {steps}")
        out = []
        prev = hdr
        keep = range(len(hops)) if only is None else [i % len(hops) for i in only]
        with concurrent.futures.ThreadPoolExecutor(2) as ex:  # large topologies: ~15 s a call
            list(ex.map(lambda i: self.tables(spec, kind, mode, hops[i]["switch"]), keep))
        for i, h in enumerate(hops):
            if i not in keep:
                prev = h["hdr"]
                continue
            t = self.tables(spec, kind, mode, h["switch"])
            out.append(
                {
                    "inst": self.inst(spec, kind, mode, h["switch"]),
                    "switch": h["switch"],
                    "in_port": h["in_port"],
                    "in_role": h["in_role"],
                    "out_role": h["out_role"],
                    "out_ports": self.out_ports(t, h),
                    "hdr_in": prev.hex(),
                    "hdr_out": h["hdr"].hex(),
                }
            )
            prev = h["hdr"]
        return {"kind": kind, "spec": spec, "mode": mode, "hops": out}

    def pathid_walk(self, src_host, vid, states=None):
        """Walk vector `vid` from host src_host through fat-tree:k=4: the port comes from the
        tables' longest match, the new header is the old one with the hop limit decremented
        and PHASE_DOWN set at the turn (wire-format 6.3). `states` are the documented
        states after each switch; the walk must reproduce them."""
        topo = cc.parse_topo_list(cc.run([self.ctl, "topo", FAT, "--list"]))
        sw, port = None, None
        for name, ports in topo.items():
            for p, (_role, _l, peer, _pp) in ports.items():
                if peer == f"h{src_host}":
                    sw, port = name, p
        if sw is None:
            raise cc.PlanError(f"h{src_host} not found in {FAT}")
        hops = []
        cur = self.vec(vid)
        while not sw.startswith("h"):
            if len(hops) > 8:
                raise cc.PlanError(f"walk of {vid} loops")
            t = self.tables(FAT, "path-id", None, sw)
            role = topo[sw][port][0]
            local = bool(cur[8] & 0x40)
            res = cc.pathid_lookup(t, cur, role == "up" or local)
            if res is None:
                raise cc.PlanError(f"{sw}: no entry for {cur.hex()}")
            ports, turn = res
            out = bytearray(cur)
            out[2] -= 1
            if turn or local:
                out[8] |= 0x80
            out = bytes(out)
            if states is not None:
                want = self.vec(states[len(hops)])
                if out != want:
                    raise cc.PlanError(f"{vid} after {sw}: {out.hex()}, documented {want.hex()}")
            hops.append(
                {
                    "inst": self.inst(FAT, "path-id", None, sw),
                    "switch": sw,
                    "in_port": port,
                    "in_role": role,
                    "out_role": topo[sw][ports[0]][0],
                    "out_ports": ports,
                    "hdr_in": cur.hex(),
                    "hdr_out": out.hex(),
                }
            )
            _r, _l, peer, pport = topo[sw][ports[0]]
            sw, port, cur = peer, pport, out
        if states is not None and len(states) != len(hops):
            raise cc.PlanError(f"{vid}: {len(hops)} hops, {len(states)} documented states")
        return {"kind": "path-id", "spec": FAT, "mode": None, "hops": hops}, topo

    def build(self):
        p = {}
        s1 = ["S1.1", "S1.2", "S1.3", "S1.4", "S1.5", "S1.6"]
        p["S1"] = self.trace_path(ZNODE, "sliced", "5", "26", first="S1", steps=s1)
        p["S2"] = self.trace_path(ZNODE, "sliced", "0", "4", first="S2")
        p["S3"] = self.trace_path(ZNODE, "sliced", "8", "26", first="S3")
        p["S5"] = self.trace_path(ZNODE, "sliced", "5", "26", mode="dst", first="S5")
        p["S6"] = self.trace_path(ZNODE, "sliced", "5", "26", mode="srcdst", first="S6")
        p["S7"] = self.trace_path(ZNODE, "sliced", "5", "26", mode="flat", first="S7")
        p["T1"] = self.trace_path(HYBRID, "transit", "0xCC0234", "0xD84267", first="T1", last="T2", only=[0, -1])
        p["T4"] = self.trace_path(FULL, "transit", "0x1000", "0x2000", first="T4")
        p["I1"], topo = self.pathid_walk(0, "I1", ["I4", "I5", "I2", "I6", "I7"])
        p["I3"], _ = self.pathid_walk(0, "I3")
        p["I8"], _ = self.pathid_walk(0, "I8")
        # the h0 -> h15 path the builder picks (vector I9, not I1's), straight from the trace
        p["pathid_built_h0_h15"] = self.trace_path(FAT, "path-id", "0", "15", first="I9")

        plan = {"paths": p, "vectors": {k: v[1].hex() for k, v in self.vectors.items()}}

        # bad_side_label: a Znode of m = 3 (a = 2 bits), side label 3 >= m
        sp = self.trace_path(ZNODE_SIDE, "sliced", "0", "2")
        hop = dict(sp["hops"][0])
        h = bytearray(bytes.fromhex(hop["hdr_in"]))
        if h[16] != 0x20:
            raise cc.PlanError(f"{ZNODE_SIDE} 0 -> 2: SLICE {h[16]:02x}, expected 20 (0 01 0)")
        h[16] = 0x60
        hop["hdr_bad"] = bytes(h).hex()
        plan["side_label"] = hop

        # route_exhausted: the first T1 hop entering on a swallowing input, head on the last byte
        plan["transit_route_exhausted"] = None
        # and without a swallow: the first hop on an input that does not swallow, Head = RouteLen
        plan["transit_route_exhausted_no_swallow"] = None
        plan["transit_no_output"] = None
        for hop in p["T4"]["hops"] + p["T1"]["hops"]:
            inst = self.instances[hop["inst"]]
            t = self.tables(inst["spec"], "transit", None, inst["name"])["transit"]
            h = bytearray(bytes.fromhex(hop["hdr_in"]))
            route_len, head = h[9], h[10]
            if plan["transit_route_exhausted"] is None and t["config"]["swallow"][hop["in_port"]]:
                h2 = bytearray(h)
                h2[10] = route_len - 1
                plan["transit_route_exhausted"] = dict(hop, hdr_bad=bytes(h2).hex())
            swallows = t["config"]["swallow"][hop["in_port"]]
            if plan["transit_route_exhausted_no_swallow"] is None and not swallows:
                h2 = bytearray(h)
                h2[10] = route_len
                plan["transit_route_exhausted_no_swallow"] = dict(hop, hdr_bad=bytes(h2).hex())
            half = t["dirs"][hop["in_port"] // 4 if t["config"]["mode"] == "split" else 0]
            dead = [d for d, e in enumerate(half) if e["target"] == "none"]
            if plan["transit_no_output"] is None and dead:
                if t["config"]["swallow"][hop["in_port"]]:
                    head += 1
                byte = h[16 + head]
                for rot in range(4):
                    if (byte >> (6 - 2 * rot)) & 3 in dead:
                        h2 = bytearray(h)
                        h2[11] = rot
                        plan["transit_no_output"] = dict(hop, hdr_bad=bytes(h2).hex())
                        break
        for k in ("transit_route_exhausted", "transit_route_exhausted_no_swallow", "transit_no_output"):
            if plan[k] is None:
                raise cc.PlanError(f"no switch on the T1/T4 paths for {k}")

        # path-ID: agg-p0-a0's up port (for a descending frame) and agg-p3-a0's down port
        agg0 = p["I1"]["hops"][1]
        plan["pathid_up_port_agg"] = [q for q, v in topo[agg0["switch"]].items() if v[0] == "up"][0]
        agg3 = p["I1"]["hops"][3]
        plan["pathid_other_pod_down_port"] = [
            q for q, v in topo[agg3["switch"]].items() if v[0] == "down"
        ][0]
        t = self.tables(FAT, "path-id", None, agg3["switch"])
        if cc.pathid_lookup(t, self.vec("I8"), False) is not None:
            raise cc.PlanError(f"{agg3['switch']} has a route for I8")

        # the hop records' switch ids: the index in `canopyctl topo --list` order, which
        # canopy-switch (its [tables] switch) and `canopyctl p4-entries` (hop_cfg) write
        plan["fat_switch_ids"] = {name: i for i, name in enumerate(topo)}

        plan["instances"] = self.instances
        plan["drop_reasons"] = cc.drop_reason_names()
        return plan


class Testbed:
    """Namespaces, veths and target processes; everything removed by close()."""

    def __init__(self, plan, work, prefix):
        self.plan = plan
        self.work = work
        self.prefix = prefix
        self.test_ns = f"{prefix}t"
        self.namespaces = []
        self.procs = []

    def ns(self, inst):
        return f"{self.prefix}s{inst['dev']}"

    def sh(self, cmd, **kw):
        return cc.run(cmd, **kw)

    def make_ns(self, name):
        self.sh(["ip", "netns", "add", name])
        self.namespaces.append(name)
        # no IPv6 chatter (router solicitations, MLD) on the veths: it would count as not_canopy
        self.sh(
            ["ip", "netns", "exec", name, "sysctl", "-qw",
             "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
        )
        self.sh(["ip", "-n", name, "link", "set", "lo", "up"])

    def wire(self):
        self.make_ns(self.test_ns)
        test_cmds = []
        for inst in self.plan["instances"].values():
            ns = self.ns(inst)
            self.make_ns(ns)
            cmds = []
            for p in range(inst["nports"]):
                s, t = f"s{inst['dev']}p{p}", f"t{inst['dev']}p{p}"
                cmds.append(f"link add {s} type veth peer name {t} netns {self.test_ns}")
                cmds.append(f"link set {s} up")
                test_cmds.append(f"link set {t} up")
            self.batch(ns, cmds)
        self.batch(self.test_ns, test_cmds)

    def batch(self, ns, cmds):
        path = os.path.join(self.work, f"{ns}.ip")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(cmds) + "\n")
        self.sh(["ip", "-n", ns, "-batch", path])

    def spawn(self, inst, cmd, logname):
        out = open(os.path.join(self.work, logname), "w", encoding="utf-8")
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.ns(inst)] + cmd,
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self.procs.append(p)
        return p

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        deadline = time.time() + 5
        for p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for ns in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.namespaces = []


def start_canopy(tb, bins, p4rt=None):
    """One canopy-switch per instance on its veths. With `p4rt` (the p4runtime-shell
    environment's python), each starts without tables, serves P4Runtime on its namespace's
    loopback, and is programmed through p4runtime-shell (`program_p4rt`)."""
    switch = os.path.join(bins, "canopy-switch")
    ids = {}
    for inst in tb.plan["instances"].values():
        sock = os.path.join(tb.work, f"sw{inst['dev']}.sock")
        cfg = os.path.join(tb.work, f"sw{inst['dev']}.toml")
        lines = ["[switch]", "workers = 1", "pool = 256", "max_sleep_us = 1000"]
        if p4rt:
            # the hop records' id: the switch's index in `canopyctl topo --list` order, as
            # `canopyctl p4-entries` writes it into hop_cfg (canopy-switch refuses another)
            if inst["spec"] not in ids:
                listing = cc.run([os.path.join(bins, "canopyctl"), "topo", inst["spec"], "--list"])
                ids[inst["spec"]] = list(cc.parse_topo_list(listing))
            lines += [f"id = {ids[inst['spec']].index(inst['name'])}", "",
                      "[p4runtime]", f'listen = "127.0.0.1:{P4RT_PORT}"']
        else:
            lines += ["", "[tables]", f'topology = "{inst["spec"]}"', f'kind = "{inst["kind"]}"',
                      f'switch = "{inst["name"]}"']
            if inst["mode"]:
                lines.append(f'mode = "{inst["mode"]}"')
        lines += ["", "[management]", f'socket = "{sock}"', ""]
        for p in range(inst["nports"]):
            lines += ["[[port]]", 'backend = "afpacket"', f'interface = "s{inst["dev"]}p{p}"', ""]
        with open(cfg, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        tb.spawn(inst, [switch, "run", "--config", cfg, "--log", "warn"], f"sw{inst['dev']}.log")
        inst["counter"] = {"type": "canopy", "cmd": [switch, "ctl", "--socket", sock, "--json", "counters"]}
        inst["health"] = [switch, "ctl", "--socket", sock, "--json", "health"]
    deadline = time.time() + 60
    for inst in tb.plan["instances"].values():
        while True:
            r = subprocess.run(inst["health"], capture_output=True, text=True)
            if r.returncode == 0:
                h = json.loads(r.stdout)
                if (h.get("tables_loaded") or p4rt) and all(p.get("link") for p in h.get("ports", [])):
                    break
            if time.time() > deadline:
                raise cc.PlanError(f"switch {inst['key']} not ready: {r.stdout}{r.stderr}")
            time.sleep(0.1)
    if p4rt:
        program_p4rt(tb, bins, p4rt)


# The P4Runtime port of every switch (each on its own namespace's loopback).
P4RT_PORT = 9559


def p4rt_missing(venv_python):
    """`SKIP canopy-p4rt: ...` when the p4runtime-shell environment is missing."""
    if not os.path.isfile(venv_python):
        return (f"SKIP canopy-p4rt: {os.path.relpath(venv_python, cc.REPO)} not found "
                "(scripts/install-deps makes the p4runtime-shell environment)")
    r = subprocess.run([venv_python, "-c", "import p4runtime_sh.shell"], capture_output=True, text=True)
    if r.returncode != 0:
        return f"SKIP canopy-p4rt: p4runtime-shell does not import: {r.stderr.strip().splitlines()[-1:]}"
    return None


def program_p4rt(tb, bins, python):
    """Push canopy.p4's P4Info (`canopyctl p4info`) to every switch and write its entries
    (`canopyctl p4-entries --format p4runtime`) with p4runtime-shell (p4rt_program.py, which
    reads them back and compares); then check each switch forwards with those tables."""
    ctl = os.path.join(bins, "canopyctl")
    info = os.path.join(tb.work, "canopy.p4info.json")
    with open(info, "w", encoding="utf-8") as f:
        f.write(cc.run([ctl, "p4info"]))
    for inst in tb.plan["instances"].values():
        cmd = [ctl, "p4-entries", inst["spec"], "--kind", inst["kind"], "--switch", inst["name"],
               "--format", "p4runtime", "--p4info", info]
        if inst["mode"] and inst["mode"] != "sliced":
            cmd += ["--mode", inst["mode"]]
        entries = os.path.join(tb.work, f"sw{inst['dev']}.write.json")
        with open(entries, "w", encoding="utf-8") as f:
            f.write(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        r = subprocess.run(["ip", "netns", "exec", tb.ns(inst), python, os.path.join(HERE, "p4rt_program.py"),
                            "--grpc-addr", f"127.0.0.1:{P4RT_PORT}", "--p4info", info, "--entries", entries],
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise cc.PlanError(f"programming {inst['key']} over P4Runtime failed:\n{r.stdout}{r.stderr}")
        log(f"{inst['key']}: {r.stdout.strip().splitlines()[-1]}")
        h = json.loads(cc.run(inst["health"]))
        if h.get("tables") != "p4runtime:device1":
            raise cc.PlanError(f"switch {inst['key']} does not forward with its P4Runtime tables: {h}")


def bmv2_missing(bins, p4):
    """`SKIP bmv2: ...` when p4c, bmv2, the P4 program or `canopyctl p4-entries` is missing."""
    missing = [b for b in ("p4c", "simple_switch", "simple_switch_CLI") if shutil.which(b) is None]
    if not os.path.isfile(p4):
        missing.append(os.path.relpath(p4, cc.REPO))
    ctl = os.path.join(bins, "canopyctl")
    if subprocess.run([ctl, "p4-entries", "--help"], capture_output=True).returncode != 0:
        missing.append("`canopyctl p4-entries`")
    if missing:
        return "SKIP bmv2: " + ", ".join(missing) + " not found"
    return None


def start_bmv2(tb, bins, p4):
    """Compile p4/canopy.p4, start one simple_switch per instance, program it."""
    ctl = os.path.join(bins, "canopyctl")
    out = os.path.join(tb.work, "p4out")
    r = subprocess.run(["p4c", "--target", "bmv2", "--arch", "v1model", "-o", out, p4],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise cc.PlanError(f"p4c failed: {r.stderr}")
    json_path = os.path.join(out, "canopy.json")
    for inst in tb.plan["instances"].values():
        ifs = []
        for p in range(inst["nports"]):
            ifs += ["-i", f"{p}@s{inst['dev']}p{p}"]
        # the notification socket is a file: one per instance (the default is per device id)
        notif = f"ipc://{tb.work}/bmv2-{inst['dev']}-notifications.ipc"
        tb.spawn(inst, ["simple_switch", "--device-id", "0", "--thrift-port", "9090",
                        "--notifications-addr", notif] + ifs + [json_path],
                 f"bmv2-{inst['dev']}.log")
    cli = lambda inst: ["ip", "netns", "exec", tb.ns(inst), "simple_switch_CLI", "--thrift-port", "9090"]  # noqa: E731
    for inst in tb.plan["instances"].values():
        cmd = [ctl, "p4-entries", inst["spec"], "--kind", inst["kind"], "--switch", inst["name"],
               "--format", "bmv2-cli"]
        if inst["mode"] and inst["mode"] != "sliced":
            cmd += ["--mode", inst["mode"]]
        entries = cc.run(cmd)
        m = re.search(r"([\w.]*canopy_drops)", entries)
        counter = m.group(1) if m else "canopy_drops"
        deadline = time.time() + 30
        while True:
            r = subprocess.run(cli(inst), input=entries, capture_output=True, text=True)
            if r.returncode == 0 and "Could not connect" not in r.stdout + r.stderr:
                break
            if time.time() > deadline:
                raise cc.PlanError(f"simple_switch {inst['key']}: {r.stdout}{r.stderr}")
            time.sleep(0.5)
        if re.search(r"^Error|Invalid", r.stdout, re.M):
            raise cc.PlanError(f"programming {inst['key']} failed:\n{r.stdout}")
        inst["counter"] = {"type": "bmv2", "cmd": cli(inst), "name": counter}


def plan_cases(ctl):
    """The plan (instances, entries) and its cases; (None, None) after logging why not."""
    try:
        plan = Planner(ctl).build()
    except cc.PlanError as e:
        log(f"run_suite: {e}")
        return None, None
    return plan, cases_mod.build(plan)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", choices=["canopy", "canopy-p4rt", "bmv2"],
                    help="required unless --list; canopy-p4rt: canopy-switch programmed over P4Runtime by p4runtime-shell")
    ap.add_argument("--p4rt-python", default=os.path.join(cc.REPO, ".venv", "p4runtime-shell", "bin", "python"),
                    help="canopy-p4rt: the python of the p4runtime-shell environment (default .venv/p4runtime-shell)")
    ap.add_argument("--bin-dir", default=os.path.join(cc.REPO, "target", "debug"),
                    help="directory holding canopy-switch and canopyctl (default target/debug)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (configs, logs, plan, PTF log)")
    ap.add_argument("--test", default=None, help="run only this case (PTF test spec, e.g. test_canopy.Case_S1_hop1)")
    ap.add_argument("--p4", default=os.path.join(cc.REPO, "p4", "canopy.p4"),
                    help="bmv2: the v1model program (default p4/canopy.p4)")
    ap.add_argument("--list", action="store_true",
                    help="print the cases (markdown table: case, kind, rule or reason, switch, port) and exit; no root needed")
    a = ap.parse_args()
    # The cases run `canopy-switch` and `canopyctl` from PTF's own working directory.
    a.bin_dir = os.path.abspath(a.bin_dir)
    a.p4 = os.path.abspath(a.p4)

    if a.list:
        plan, cases = plan_cases(os.path.join(a.bin_dir, "canopyctl"))
        if plan is None:
            return 1
        log("| case | kind | rule / drop reason | switch | in port |")
        log("|---|---|---|---|---|")
        for c in cases:
            inst = plan["instances"][c["inst"]]
            sw = inst["name"] + (f" ({inst['mode']})" if inst["mode"] else "")
            rule = f"drop `{c['expect']['drop']}`" if "drop" in c["expect"] else c["rule"]
            log(f"| `{c['name']}` | {c['kind']} | {rule} | {inst['spec']} {sw} | {c['in_port']} |")
        for r, why in cases_mod.NOT_PRODUCIBLE.items():
            log(f"| (none) | all | drop `{r}` | not producible from outside: {why} | |")
        return 0

    if a.target is None:
        ap.error("--target is required (or --list)")
    if os.geteuid() != 0:
        log("run_suite: needs root (network namespaces)")
        return 2
    ctl = os.path.join(a.bin_dir, "canopyctl")
    need = [ctl] + ([os.path.join(a.bin_dir, "canopy-switch")] if a.target != "bmv2" else [])
    for b in need:
        if not os.path.isfile(b):
            log(f"run_suite: {b} missing: cargo build -p canopy-control -p canopy-switch")
            return 2

    if a.target == "bmv2":
        skip = bmv2_missing(a.bin_dir, a.p4)
        if skip:
            log(skip)
            return 0
    if a.target == "canopy-p4rt":
        skip = p4rt_missing(a.p4rt_python)
        if skip:
            log(skip)
            return 0

    plan, cases = plan_cases(ctl)
    if plan is None:
        return 1
    covered = {c["expect"]["drop"] for c in cases if "drop" in c["expect"]}
    uncovered = [r for r in plan["drop_reasons"] if r not in covered and r not in cases_mod.NOT_PRODUCIBLE]
    if uncovered:
        log(f"run_suite: drop reasons without a case: {', '.join(uncovered)}")
        return 1
    for kind in ("sliced", "transit", "path-id"):
        if not any(c["kind"] == kind and "out" in c["expect"] for c in cases):
            log(f"run_suite: no forwarding case for {kind}")
            return 1
    log(f"DECLARED {len(cases)} cases, {len(plan['instances'])} switches, "
        f"{sum(i['nports'] for i in plan['instances'].values())} ports")

    prefix = f"cnf{os.getpid() % 100000}"
    work = tempfile.mkdtemp(prefix=f"{prefix}-")
    tb = Testbed(plan, work, prefix)

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)  # also when started with SIGINT ignored (`cmd &`)
    status = 1
    try:
        tb.wire()
        if a.target == "canopy":
            start_canopy(tb, a.bin_dir)
        elif a.target == "canopy-p4rt":
            start_canopy(tb, a.bin_dir, p4rt=a.p4rt_python)
        else:
            start_bmv2(tb, a.bin_dir, a.p4)
        plan["target"] = a.target
        plan["cases"] = cases
        plan["known_failures"] = cases_mod.KNOWN_FAILURES[a.target]
        plan_path = os.path.join(work, "plan.json")
        with open(plan_path, "w", encoding="utf-8") as f:
            json.dump(plan, f)
        cmd = ["ip", "netns", "exec", tb.test_ns, shutil.which("ptf") or "ptf",
               "--test-dir", os.path.join(HERE, "tests"), "--pypath", HERE,
               "--log-file", os.path.join(work, "ptf.log")]
        for inst in plan["instances"].values():
            for p in range(inst["nports"]):
                cmd += ["--interface", f"{inst['dev']}-{p}@t{inst['dev']}p{p}"]
        if a.test:
            cmd.append(a.test)
        env = dict(os.environ, CANOPY_PTF_PLAN=plan_path, PYTHONPATH=HERE)
        log(f"running ptf ({a.target}) on {len(cmd) // 2} interfaces")
        r = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True)
        out = r.stdout + r.stderr
        with open(os.path.join(work, "ptf.out"), "w", encoding="utf-8") as f:
            f.write(out)
        results = re.findall(r"^test_canopy\.Case_(\S+) \.\.\. (\w+)", out, re.M)
        known = cases_mod.KNOWN_FAILURES[a.target]
        bad = [(n, v) for n, v in results if not (v == "ok" or (v == "expected" and n in known))]
        for n, v in results:
            if v == "expected":
                log(f"KNOWN FAILURE {n}: {known[n]}")
        ran = len(results)
        want = 1 if a.test else len(cases)
        if bad or r.returncode != 0:
            sys.stdout.write(out)
        for n, v in bad:
            log(f"CASE {v} {n}")
        xf = sum(1 for _n, v in results if v == "expected")
        log(f"RAN {ran} of {want} declared cases ({a.target}), {ran - len(bad) - xf} passed, "
            f"{xf} known failures, {len(bad)} failed")
        log(f"RESULT target={a.target} ran={ran} declared={want} passed={ran - len(bad) - xf} "
            f"known={xf} failed={len(bad)}")
        if r.returncode != 0:
            log(f"FAIL: ptf exited {r.returncode}")
        elif bad:
            log(f"FAIL: {len(bad)} case(s) failed")
        elif ran != want:
            log("FAIL: the number of cases run differs from the number declared")
        else:
            log(f"PASS: {ran} conformance cases against {a.target}")
            status = 0
    except KeyboardInterrupt as e:
        log(f"interrupted ({e}), tearing down")
        status = 130
    except cc.PlanError as e:
        log(f"run_suite: {e}")
    finally:
        tb.close()
        if a.keep:
            log(f"work directory kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
