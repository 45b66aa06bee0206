#!/usr/bin/env python3
"""Program a P4Runtime target with p4runtime-shell, then read back what was written.

    p4rt_program.py --grpc-addr 127.0.0.1:9559 --p4info canopy.p4info.json \\
        --entries write.json [--device-config FILE] [--device-id 1] [--election-id 1]

The P4Info is the proto3 JSON form (`canopyctl p4info`, or `p4c --p4runtime-files X.json`),
the entries a `p4.v1.WriteRequest` in proto3 JSON (`canopyctl p4-entries --format p4runtime`).
The shell arbitrates as primary, pushes the P4Info with VERIFY_AND_COMMIT, fetches it back
(as the shell always does), writes the request, then reads every table entry and the
default action of every table the request modifies, and compares them with what it wrote.

Runs in the p4runtime-shell environment that `scripts/install-deps` makes
(`.venv/p4runtime-shell`: p4runtime-shell 0.0.6 pins protobuf < 3.21 and p4runtime 1.4.1).
Exit status 0 with a `PROGRAMMED` line when the target holds exactly what was written;
1 with the differences otherwise.
"""

import argparse
import os
import sys
import tempfile

from google.protobuf import json_format, text_format
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2
import p4runtime_sh.shell as sh


def read_back(device_id, entities):
    """The entities a Read of `entities` returns."""
    req = p4runtime_pb2.ReadRequest(device_id=device_id)
    req.entities.extend(entities)
    out = []
    for rep in sh.client.stub.Read(req):
        out.extend(rep.entities)
    return out


def key(te):
    return te.SerializeToString(deterministic=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grpc-addr", required=True)
    ap.add_argument("--p4info", required=True, help="P4Info in proto3 JSON")
    ap.add_argument("--entries", required=True, help="WriteRequest in proto3 JSON")
    ap.add_argument("--device-config", default=None, help="the target's own configuration (default: empty)")
    ap.add_argument("--device-id", type=int, default=1)
    ap.add_argument("--election-id", type=int, default=1)
    a = ap.parse_args()

    with open(a.p4info, encoding="utf-8") as f:
        info = json_format.Parse(f.read(), p4info_pb2.P4Info())
    with open(a.entries, encoding="utf-8") as f:
        req = json_format.Parse(f.read(), p4runtime_pb2.WriteRequest())

    with tempfile.TemporaryDirectory() as d:
        txt = os.path.join(d, "p4info.txt")
        with open(txt, "w", encoding="utf-8") as f:
            f.write(text_format.MessageToString(info))
        dev = a.device_config
        if dev is None:
            dev = os.path.join(d, "device-config")
            open(dev, "wb").close()
        # exits with a message when the target refuses the P4Info
        sh.setup(device_id=a.device_id, grpc_addr=a.grpc_addr, election_id=(0, a.election_id),
                 config=sh.FwdPipeConfig(txt, dev), verbose=False)
    try:
        print(f"p4rt_program: pipeline set on {a.grpc_addr} (P4Runtime API {sh.client.api_version()})")
        sh.client.write(req)

        entries = [u.entity.table_entry for u in req.updates if not u.entity.table_entry.is_default_action]
        defaults = [u.entity.table_entry for u in req.updates if u.entity.table_entry.is_default_action]
        wild = p4runtime_pb2.Entity()
        wild.table_entry.table_id = 0
        got = {key(e.table_entry) for e in read_back(a.device_id, [wild])}
        want = {key(te) for te in entries}
        bad = 0
        if got != want:
            bad += 1
            print(f"p4rt_program: read {len(got)} entries, wrote {len(want)}: "
                  f"{len(want - got)} missing, {len(got - want)} not written", file=sys.stderr)
            for k in sorted(want - got)[:5]:
                print("  missing:", p4runtime_pb2.TableEntry.FromString(k), file=sys.stderr)
            for k in sorted(got - want)[:5]:
                print("  extra:", p4runtime_pb2.TableEntry.FromString(k), file=sys.stderr)
        for te in defaults:
            ask = p4runtime_pb2.Entity()
            ask.table_entry.table_id = te.table_id
            ask.table_entry.is_default_action = True
            back = [e.table_entry for e in read_back(a.device_id, [ask])]
            if [key(b) for b in back] != [key(te)]:
                bad += 1
                print(f"p4rt_program: default action of table {te.table_id}: wrote {te}, read {back}",
                      file=sys.stderr)
        if bad:
            return 1
        print(f"PROGRAMMED {len(entries)} entries and {len(defaults)} default actions on {a.grpc_addr}; "
              "read back identical")
        return 0
    finally:
        sh.teardown()


if __name__ == "__main__":
    sys.exit(main())
