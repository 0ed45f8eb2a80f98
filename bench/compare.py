#!/usr/bin/env python3
"""Prints appraise's figures beside the peers' from one benchmark call.

usage: compare.py APPRAISE_JSON PEERS_JSON BABELSTREAM_CSV [MIXBENCH_TXT] [APPRAISE2_JSON]
"""
import csv
import json
import sys


def ours(path):
    """Figure name -> median of the first card (by bus address) in
    `appraise --json`."""
    cards = sorted((w for w in json.load(open(path)) if w["kind"] == "card"), key=lambda w: w.get("address", ""))
    return {f["name"]: f["median"] for f in cards[0].get("figures", [])}


def babelstream(path):
    """Kernel -> bytes/s from BabelStream --csv (MB/s is 1e6 bytes/s).

    Device lines and, in v5.0, a phase table come before the kernel table,
    whose header starts with "function".
    """
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("function,"))
    out = {}
    for r in csv.DictReader(lines[start:]):
        r = {k.lower(): v for k, v in r.items()}
        key = next(k for k in ("max_mbytes_per_sec", "max_mb_per_sec", "max_mibytes_per_sec") if k in r)
        scale = 1 << 20 if key == "max_mibytes_per_sec" else 1e6
        out[r["function"].lower()] = float(r[key]) * scale
    return out


def mixbench(path):
    """Precision -> peak ops/s over mixbench-cuda's CSV block."""
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines) if "CSV data" in l) + 3
    peaks = {"sp": 0.0, "dp": 0.0, "hp": 0.0, "int": 0.0}
    for l in lines[start:]:
        if l.startswith("---"):
            break
        c = [x.strip() for x in l.split(",")]
        for name, col in (("sp", 3), ("dp", 7), ("hp", 11), ("int", 15)):
            peaks[name] = max(peaks[name], float(c[col]) * 1e9)
    return peaks


def main():
    o, p, b = ours(sys.argv[1]), json.load(open(sys.argv[2])), babelstream(sys.argv[3])
    m = mixbench(sys.argv[4]) if len(sys.argv) > 4 else {}
    rows = [
        ("copy", "memory.bandwidth.copy", max(b.get("copy", 0), p["copy_bytes_per_s"]), "best of BabelStream CUDA double, PyTorch copy_", "B/s"),
        ("triad", "memory.bandwidth.triad", b.get("triad", 0), "BabelStream CUDA double", "B/s"),
        ("read", "memory.bandwidth.read", p["read_bytes_per_s"], "PyTorch sum", "B/s"),
        ("read", "memory.bandwidth.read", b.get("dot", 0), "BabelStream CUDA Dot", "B/s"),
        ("write", "memory.bandwidth.write", p["write_bytes_per_s"], "PyTorch fill_", "B/s"),
        ("fp32", "precision.fma.fp32", m.get("sp", 0), "mixbench-cuda SP peak", "OP/s"),
        ("fp16", "precision.fma.fp16", m.get("hp", 0), "mixbench-cuda HP peak", "OP/s"),
        ("fp64", "precision.fma.fp64", m.get("dp", 0), "mixbench-cuda DP peak", "OP/s"),
        ("int32", "precision.mad.int32", m.get("int", 0), "mixbench-cuda INT peak", "OP/s"),
        ("host→device", "interconnect.host_to_device", p["h2d_pinned_bytes_per_s"], "PyTorch pinned copy", "B/s"),
        ("device→host", "interconnect.device_to_host", p["d2h_pinned_bytes_per_s"], "PyTorch pinned copy", "B/s"),
        ("empty dispatch", "launch.empty_dispatch", p["tiny_kernel_round_trip_s"], "PyTorch tiny kernel + sync", "s"),
        ("1 MiB upload", "launch.upload_1mib", p["upload_1mib_s"], "PyTorch 1 MiB copy + sync", "s"),
    ]
    fmt = {"B/s": lambda x: f"{x/1e9:,.1f} GB/s", "OP/s": lambda x: f"{x/1e12:,.2f} TOP/s", "s": lambda x: f"{x*1e6:.1f} µs"}
    print("| figure | ours | peer | peer figure | ratio (ours/peer) |")
    print("| --- | --- | --- | --- | --- |")
    for label, key, peer, name, unit in rows:
        v = o.get(key)
        if v is None or not peer:
            print(f"| {label} | {fmt[unit](v) if v else '-'} | {name} | {fmt[unit](peer) if peer else '-'} | - |")
            continue
        print(f"| {label} | {fmt[unit](v)} | {name} | {fmt[unit](peer)} | {v/peer:.3f} |")
    if len(sys.argv) > 5:
        o2 = ours(sys.argv[5])
        print("\n| figure (two appraisals in a row) | first | second | change |")
        print("| --- | --- | --- | --- |")
        for k, v in o.items():
            if k in o2 and v:
                print(f"| {k} | {v:.4g} | {o2[k]:.4g} | {(o2[k]-v)/v*100:+.1f} % |")


if __name__ == "__main__":
    main()
