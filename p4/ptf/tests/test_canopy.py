"""Canopy conformance cases as PTF tests (one BaseTest class per case, scapy frames).

The cases come from p4/ptf/cases.py applied to the plan run_suite.py wrote
(CANOPY_PTF_PLAN). A forwarding case sends a frame into one switch port and expects the
whole frame, byte for byte, on the expected port (or one port of the expected group) and
nothing anywhere else. A drop case expects no frame anywhere and the drop counter of its
reason +1, every other decision reason unchanged. A hop-record case is a forwarding case
whose frame gets a record from the switch (docs/wire-format.md §2.1): every byte but the
record's must be as expected, and the record must name the switch, the ingress port and
the port the frame came out of, with the target's clock and consistent times.
"""

import json
import re
import subprocess
import time
import unittest

import ptf
from ptf.base_tests import BaseTest
from ptf import testutils
from scapy.layers.l2 import Ether

import canopy_conf as cc

PLAN = cc.load_plan()
REASONS = PLAN["drop_reasons"]


def read_drops(inst):
    """{reason: count} of the switch's decision drop reasons, summed over ports."""
    c = inst["counter"]
    if c["type"] == "canopy":
        r = subprocess.run(c["cmd"], capture_output=True, text=True, check=True)
        d = json.loads(r.stdout)
        out = {name: 0 for name in REASONS}
        for p in d["ports"]:
            for name in REASONS:
                out[name] += p["drops"].get(name, 0)
        return out
    # bmv2: counter_read NAME IDX, index = position in DROP_REASON_NAMES
    cmds = "".join(f"counter_read {c['name']} {i}\n" for i in range(len(REASONS)))
    r = subprocess.run(c["cmd"], input=cmds, capture_output=True, text=True, check=True)
    # bmv2 1.15: `RuntimeCmd: CanopyIngress.canopy_drops[3]= (0 bytes, 0 packets)`
    got = {
        int(i): int(n)
        for i, n in re.findall(r"canopy_drops\[(\d+)\]=\s*\(\d+ bytes, (\d+) packets\)", r.stdout)
    }
    if sorted(got) != list(range(len(REASONS))):
        raise AssertionError(f"counter_read gave indexes {sorted(got)}:\n{r.stdout}")
    return {name: got[i] for i, name in enumerate(REASONS)}


RECORD_LEN = 48


def check_record(test, c, got, port):
    """The hop record of case `c` in the received frame `got` (bytes) that came out of
    `port`: the bytes around it as expected, its fields as the target writes them."""
    exp = c["expect"]
    want = bytes.fromhex(exp["frame"])
    at = exp["hop"]["at"]
    test.assertEqual(len(got), len(want), f"{c['name']}: length")
    test.assertEqual(got[:at], want[:at], f"{c['name']}: bytes before the record")
    test.assertEqual(got[at + RECORD_LEN:], want[at + RECORD_LEN:], f"{c['name']}: bytes after it")
    r = got[at:at + RECORD_LEN]
    field = lambda o, n: int.from_bytes(r[o:o + n], "big")  # noqa: E731
    switch, ingress, egress, clock = field(0, 4), field(4, 2), field(6, 2), r[12]
    rx, poll, tx, qdelay = field(16, 8), field(24, 8), field(32, 8), field(40, 4)
    test.assertEqual(
        (switch, ingress, egress), (exp["hop"]["switch"], exp["hop"]["ingress"], port),
        f"{c['name']}: switch, ingress, egress of {r.hex()}",
    )
    test.assertEqual((r[13:16], r[44:48]), (bytes(3), bytes(4)), f"{c['name']}: reserved bytes")
    test.assertTrue(0 < poll <= tx, f"{c['name']}: poll {poll} <= handoff {tx}")
    if PLAN["target"] in ("canopy", "canopy-p4rt"):
        # CLOCK_MONOTONIC; AF_PACKET ports give the kernel's receive stamp
        test.assertEqual(clock, 1, f"{c['name']}: clock")
        test.assertTrue(0 < rx <= poll, f"{c['name']}: kernel rx {rx} <= poll {poll}")
        test.assertEqual(qdelay, 0, f"{c['name']}: queue delay")
    else:
        # bmv2: its own clock (µs, written in ns), no kernel stamp
        test.assertEqual((clock, rx), (2, 0), f"{c['name']}: clock, kernel rx")
        test.assertEqual((poll % 1000, tx % 1000), (0, 0), f"{c['name']}: µs times")


class CanopyCase:
    """The body of every case class (a mixin, so PTF does not collect it as a test)."""

    case = None

    def setUp(self):
        BaseTest.setUp(self)
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()

    def runTest(self):
        c = self.case
        inst = PLAN["instances"][c["inst"]]
        dev = inst["dev"]
        pkt = Ether(bytes.fromhex(c["frame"]))
        exp = c["expect"]
        if "drop" in exp:
            before = read_drops(inst)
            testutils.send_packet(self, (dev, c["in_port"]), pkt)
            testutils.verify_no_other_packets(self, device_number=dev, timeout=0.3)
            deadline = time.time() + 3
            while True:
                after = read_drops(inst)
                if after[exp["drop"]] != before[exp["drop"]] or time.time() > deadline:
                    break
                time.sleep(0.05)
            diff = {k: after[k] - before[k] for k in REASONS if after[k] != before[k]}
            self.assertEqual(
                diff, {exp["drop"]: 1},
                f"{c['name']}: drop counters changed by {diff}, expected {exp['drop']} +1",
            )
        elif "hop" in exp:
            testutils.send_packet(self, (dev, c["in_port"]), pkt)
            res = testutils.dp_poll(self, device_number=dev, timeout=2)
            self.assertIsInstance(res, self.dataplane.PollSuccess, f"{c['name']}: no frame out")
            self.assertIn(res.port, exp["out"], f"{c['name']}: out of port {res.port}")
            check_record(self, c, bytes(res.packet), res.port)
            testutils.verify_no_other_packets(self, device_number=dev, timeout=0.2)
        else:
            want = Ether(bytes.fromhex(exp["frame"]))
            testutils.send_packet(self, (dev, c["in_port"]), pkt)
            if len(exp["out"]) == 1:
                testutils.verify_packet(self, want, (dev, exp["out"][0]), timeout=2)
            else:
                testutils.verify_packet_any_port(self, want, exp["out"], device_number=dev, timeout=2)
            testutils.verify_no_other_packets(self, device_number=dev, timeout=0.2)


for _c in PLAN["cases"]:
    _name = "Case_" + re.sub(r"\W", "_", _c["name"])
    _attrs = {"case": _c, "__doc__": f"{_c['kind']}: {_c['rule']}"}
    if _c["name"] in PLAN["known_failures"]:
        # known failure of this target (cases.KNOWN_FAILURES): must fail
        # (a new function: expectedFailure marks the function object it is given)
        _attrs["runTest"] = unittest.expectedFailure(lambda self: CanopyCase.runTest(self))
    globals()[_name] = type(_name, (CanopyCase, BaseTest), _attrs)
del _c, _name
