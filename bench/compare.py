#!/usr/bin/env python3
"""Prints appraise's figures beside the peers' from one benchmark call.

usage: compare.py APPRAISE_JSON PEERS_JSON BABELSTREAM_CSV
"""
import csv
import json
import sys


def ours(path):
    """Figure name -> median, from `appraise --json`."""
    out = {}
    for w in json.load(open(path)):
        for f in w.get("figures", []):
            out[f["name"]] = f["median"]
    return out


def babelstream(path):
    """Kernel -> bytes/s from BabelStream --csv (MB/s is 1e6 bytes/s).

    Device lines and, in v5.0, a phase table come before the kernel table,
    whose header starts with "function".
    """
    lines = open(path).read().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("function,"))
    out = {}
    for r in csv.DictReader(lines[start:]):
        key = "max_mbytes_per_sec" if "max_mbytes_per_sec" in r else "max_mibytes_per_sec"
        scale = 1e6 if key == "max_mbytes_per_sec" else 1 << 20
        out[r["function"].lower()] = float(r[key]) * scale
    return out


def main():
    o, p, b = ours(sys.argv[1]), json.load(open(sys.argv[2])), babelstream(sys.argv[3])
    rows = [
        ("copy", "memory.bandwidth.copy", max(b.get("copy", 0), p["copy_bytes_per_s"]), "best of BabelStream CUDA double, PyTorch copy_", True),
        ("triad", "memory.bandwidth.triad", b.get("triad", 0), "BabelStream CUDA double", True),
        ("read", "memory.bandwidth.read", p["read_bytes_per_s"], "PyTorch sum", True),
        ("write", "memory.bandwidth.write", p["write_bytes_per_s"], "PyTorch fill_", True),
        ("empty dispatch", "launch.empty_dispatch", p["tiny_kernel_round_trip_s"], "PyTorch tiny kernel + sync", False),
        ("1 MiB upload", "launch.upload_1mib", p["upload_1mib_s"], "PyTorch 1 MiB copy + sync", False),
    ]
    print("| figure | ours | peer | peer figure | ratio (ours/peer) |")
    print("| --- | --- | --- | --- | --- |")
    for label, key, peer, name, rate in rows:
        v = o.get(key)
        if v is None or not peer:
            print(f"| {label} | - | {name} | {peer:.4g} | - |")
            continue
        unit = (lambda x: f"{x/1e9:.1f} GB/s") if rate else (lambda x: f"{x*1e6:.1f} µs")
        print(f"| {label} | {unit(v)} | {name} | {unit(peer)} | {v/peer:.3f} |")


if __name__ == "__main__":
    main()
