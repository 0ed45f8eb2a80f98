#!/usr/bin/env python3
"""The host link and launch beside their peers and floors, from one call.

usage: linkfloor.py APPRAISE_JSON PEERS_JSON NVBANDWIDTH_JSON CUDAFLOOR_JSONL VKFLOOR_JSONL

Bandwidth: appraise's figure against PyTorch's pinned copy and every
nvbandwidth copy (copy engine, SM), ratio to the best peer. Latency:
appraise's figure against CUDA's (PyTorch, cudafloor) and Vulkan's own
floor (vkfloor, the fastest of its methods), as times.
"""
import json
import sys


def ours(path):
    cards = sorted((w for w in json.load(open(path)) if w["kind"] == "card"), key=lambda w: w.get("address", ""))
    return {f["name"]: f["median"] for f in cards[0].get("figures", [])}


def lines(path):
    try:
        return {j["method"]: j for j in map(json.loads, filter(str.strip, open(path)))}
    except (OSError, ValueError):
        return {}


def nvbandwidth(path):
    """Testcase name -> GB/s (sum over the matrix; one GPU here)."""
    try:
        cases = json.load(open(path))["nvbandwidth"]["testcases"]
    except (OSError, ValueError, KeyError):
        return {}
    return {c["name"]: c["sum"] for c in cases if c.get("status") == "Passed" and "sum" in c}


def main():
    o, p = ours(sys.argv[1]), json.load(open(sys.argv[2]))
    nvb, cu, vkf = nvbandwidth(sys.argv[3]), lines(sys.argv[4]), lines(sys.argv[5])
    print("\n| host link | ours | PyTorch pinned | nvbandwidth CE | nvbandwidth SM | ours ÷ best peer | Vulkan floor (vkfloor) | ours ÷ Vulkan floor |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for label, key, pt, ce, sm in (
        ("host → device", "interconnect.host_to_device", "h2d_pinned_bytes_per_s", "host_to_device_memcpy_ce", "host_to_device_memcpy_sm"),
        ("device → host", "interconnect.device_to_host", "d2h_pinned_bytes_per_s", "device_to_host_memcpy_ce", "device_to_host_memcpy_sm"),
    ):
        v, peers = o.get(key), [p.get(pt, 0) / 1e9, nvb.get(ce, 0), nvb.get(sm, 0)]
        best = max(peers)
        cells = " | ".join(f"{x:.1f} GB/s" if x else "-" for x in peers)
        way = "bulk.h2d." if "host_to" in key else "bulk.d2h."
        floors = {m: j["median_gbps"] for m, j in vkf.items() if m.startswith(way)}
        fm = max(floors, key=floors.get) if floors else None
        fl = f"{floors[fm]:.1f} GB/s ({fm[len(way):]})" if fm else "-"
        fr = f"{v/1e9/floors[fm]:.3f}" if v and fm else "-"
        r = f"{v/1e9/best:.3f}" if v and best else "-"
        print(f"| {label} | {v/1e9:.1f} GB/s | {cells} | {r} | {fl} | {fr} |" if v else f"| {label} | - | {cells} | - | {fl} | - |")
    if "host_device_latency_sm" in nvb:
        print(f"\nnvbandwidth host_device_latency_sm (a kernel's load from host memory): {nvb['host_device_latency_sm']:.1f} ns")
    print("\n| launch | ours | PyTorch | cudafloor | Vulkan floor (vkfloor) | ours ÷ Vulkan floor |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, key, pt, cuk, prefix in (
        ("empty dispatch", "launch.empty_dispatch", "tiny_kernel_round_trip_s", "dispatch.stream-sync", "dispatch."),
        ("1 MiB upload", "launch.upload_1mib", "upload_1mib_s", "upload-1mib.pinned-copy.stream-sync", "upload-1mib."),
    ):
        v = o.get(key)
        floors = {m: j["median_us"] for m, j in vkf.items() if m.startswith(prefix) and "median_us" in j}
        fm = min(floors, key=floors.get) if floors else None
        cud = cu.get(cuk, {}).get("median_us")
        us = lambda x: f"{x:.1f} µs" if x else "-"
        ratio = f"{v*1e6/floors[fm]:.3f}" if v and fm else "-"
        print(f"| {label} | {us(v*1e6 if v else None)} | {us(p.get(pt, 0)*1e6)} | {us(cud)} | {us(floors.get(fm))} ({fm}) | {ratio} |")
    if vkf:
        print("\nvkfloor, every method (median / min µs): " + ", ".join(f"{m} {j['median_us']:.1f} / {j['min_us']:.1f}" for m, j in vkf.items() if "median_us" in j))


if __name__ == "__main__":
    main()
