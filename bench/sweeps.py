"""Per cuBLASLt figure, each build's runs and their spread (bench/sweeps.sh).

Usage: python3 bench/sweeps.py DIR. DIR holds old-N.json and new-N.json
(appraise --json) and their .stages files (stamped progress lines).
"""
import glob
import json
import os
import sys


def figures(path):
    """The card figures of one --json output, by name."""
    out = {}
    for doc in json.load(open(path)):
        if doc.get("kind") == "card":
            for f in doc["figures"]:
                out[f["name"]] = f["median"]
    return out


def blas_seconds(path):
    """Seconds from the vendor-BLAS stage's first line to the run's end."""
    start = end = None
    for line in open(path):
        parts = line.split()
        if len(parts) < 2:
            continue
        if start is None and "vendor BLAS" in line:
            start = float(parts[0])
        end = float(parts[0])
    return None if start is None else end - start


def main(d):
    runs = {}
    for build in ("old", "new"):
        for p in sorted(glob.glob(os.path.join(d, build + "-[0-9]*.json"))):
            runs.setdefault(build, []).append(p)
    figs = {b: [figures(p) for p in ps] for b, ps in runs.items()}
    names = sorted({n for fs in figs.values() for f in fs for n in f if "gemm" in n})
    print("| figure | old runs | old spread | new runs | new spread |")
    print("| --- | --- | --- | --- | --- |")
    for n in names:
        cells = []
        for b in ("old", "new"):
            vals = [f[n] for f in figs.get(b, []) if n in f]
            if not vals:
                cells += ["-", "-"]
                continue
            spread = (max(vals) - min(vals)) / min(vals) if min(vals) else 0
            cells += [", ".join("%.4g" % v for v in vals), "%.1f %%" % (100 * spread)]
        print("| %s | %s |" % (n, " | ".join(cells)))
    print()
    print("| run | vendor-BLAS stage s |")
    print("| --- | --- |")
    for p in sorted(glob.glob(os.path.join(d, "*.stages"))):
        s = blas_seconds(p)
        print("| %s | %s |" % (os.path.basename(p)[:-7], "-" if s is None else "%.1f" % s))


if __name__ == "__main__":
    main(sys.argv[1])
