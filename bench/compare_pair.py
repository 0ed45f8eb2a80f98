#!/usr/bin/env python3
"""Prints appraise's multi-device figures beside PyTorch's from one call.

usage: compare_pair.py APPRAISE_JSON PEERS_PAIR_JSON

APPRAISE_JSON is `appraise --json` over two devices (a box and two cards,
in bus-address order, as CUDA_DEVICE_ORDER=PCI_BUS_ID numbers them).
"""
import json
import sys


def main():
    runs = json.load(open(sys.argv[1]))
    p = json.load(open(sys.argv[2]))
    box = next(w for w in runs if w["kind"] == "box")
    cards = sorted((w for w in runs if w["kind"] == "card"), key=lambda w: w["address"])
    fig = lambda w: {f["name"]: f["median"] for f in w.get("figures", [])}
    a, b = cards[0]["address"], cards[1]["address"]
    fa, fb, fx = fig(cards[0]), fig(cards[1]), fig(box)
    rows = [
        (f"{a} → {b}", fa.get(f"interconnect.peer.{b}"), p["peer_0_to_1_bytes_per_s"], "PyTorch copy_ cuda:0→1"),
        (f"{b} → {a}", fb.get(f"interconnect.peer.{a}"), p["peer_1_to_0_bytes_per_s"], "PyTorch copy_ cuda:1→0"),
        ("both ways, total", (fa.get(f"interconnect.peer.{b}.both_ways") or 0) + (fb.get(f"interconnect.peer.{a}.both_ways") or 0),
         p["peer_both_ways_total_bytes_per_s"], "PyTorch both copies at once"),
        (f"{a} host→device alone", fa.get("interconnect.host_to_device"), p["h2d_pinned_0_bytes_per_s"], "PyTorch pinned"),
        (f"{b} host→device alone", fb.get("interconnect.host_to_device"), p["h2d_pinned_1_bytes_per_s"], "PyTorch pinned"),
        ("host→device, both at once", fx.get("host.link.total.host_to_device"), p["h2d_pinned_at_once_total_bytes_per_s"], "PyTorch pinned, both"),
        ("device→host, both at once", fx.get("host.link.total.device_to_host"), p["d2h_pinned_at_once_total_bytes_per_s"], "PyTorch pinned, both"),
    ]
    print("| figure | ours | peer | peer figure | ratio (ours/peer) |")
    print("| --- | --- | --- | --- | --- |")
    for label, ours, peer, name in rows:
        r = f"{ours/peer:.3f}" if ours and peer else "-"
        o = f"{ours/1e9:,.1f} GB/s" if ours else "-"
        print(f"| {label} | {o} | {name} | {peer/1e9:,.1f} GB/s | {r} |")
    lat_a = fa.get(f"interconnect.peer.{b}.latency")
    if lat_a:
        print(f"| 4 KiB latency {a} → {b} | {lat_a*1e6:.1f} µs | PyTorch copy + sync | {p['peer_4kib_latency_s']*1e6:.1f} µs | {lat_a/p['peer_4kib_latency_s']:.3f} |")


if __name__ == "__main__":
    main()
