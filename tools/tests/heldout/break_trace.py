# SPDX-License-Identifier: MIT
"""Broken copies of good exports, which validate_trace.py must refuse.

  break_trace.py PB2_DIR GOOD.json GOOD.pftrace OUT_DIR
writes OUT_DIR/open.json (a slice end removed), OUT_DIR/late.pftrace (the
descriptor of a track with events moved after them) and OUT_DIR/order.pftrace
(the first two slices of a track swapped).
"""
import json
import sys

sys.path.insert(0, sys.argv[1])
import perfetto_published_pb2 as pb  # noqa: E402

out = sys.argv[4]
doc = json.load(open(sys.argv[2]))
ev = doc["traceEvents"]
del ev[next(i for i, e in enumerate(ev) if e["ph"] == "E")]
json.dump(doc, open(f"{out}/open.json", "w"))

good = pb.Trace()
good.ParseFromString(open(sys.argv[3], "rb").read())

late = pb.Trace()
late.CopyFrom(good)
used = {p.track_event.track_uuid for p in good.packet if p.HasField("track_event")}
i = next(i for i, p in enumerate(late.packet)
         if p.HasField("track_descriptor") and p.track_descriptor.uuid in used)
moved = pb.TracePacket()
moved.CopyFrom(late.packet[i])
del late.packet[i]
late.packet.append(moved)
open(f"{out}/late.pftrace", "wb").write(late.SerializeToString())

order = pb.Trace()
order.CopyFrom(good)
pk = order.packet
begins = [i for i, p in enumerate(pk) if p.HasField("track_event") and p.track_event.type == 1]
track = pk[begins[0]].track_event.track_uuid
first, second = [i for i in begins if pk[i].track_event.track_uuid == track][:2]
# Each slice is its begin packet and the end packet right after it.
saved = [pb.TracePacket() for _ in range(4)]
for k, j in enumerate((first, first + 1, second, second + 1)):
    saved[k].CopyFrom(pk[j])
for k, j in enumerate((second, second + 1, first, first + 1)):
    pk[j].CopyFrom(saved[k])
open(f"{out}/order.pftrace", "wb").write(order.SerializeToString())
