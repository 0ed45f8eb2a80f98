#!/usr/bin/env python3
"""Compares the runs of bench/modes.sh: each device's figures at once
against in turn, and the wall times.

usage: modes.py OUT_DIR

Per device and figure: the serial run's median, the concurrent run's and
their ratio, marked where it moved more than 3 % (the issue's rule for the
same figure at once and in turn). Then the wall times: concurrent,
serial, one device alone, the box's part of the concurrent run (host
links at once and the peer links, from its first "box:" progress line to
its last line) and concurrent ÷ (one device + that part).
"""
import os
import sys

from same_figures import cards, stage_lines


def walls(path):
    out = {}
    for line in open(path):
        parts = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
        out[line.split()[0]] = parts
    return out


def box_seconds(path):
    """Seconds from the first progress line of the box's part to the last line."""
    times, start = [], None
    for t, text in stage_lines(path):
        times.append(t)
        if start is None and text.startswith("box:"):
            start = t
    return (times[-1] - start) if start is not None and times else 0.0


def main():
    d = sys.argv[1]
    conc, ser = cards(os.path.join(d, "modes-concurrent.json")), cards(os.path.join(d, "modes-serial.json"))
    print("| device | figure | serial | concurrent | concurrent/serial | |")
    print("| --- | --- | --- | --- | --- | --- |")
    moved = total = 0
    for addr in sorted(set(conc) | set(ser)):
        c, s = conc.get(addr, {}), ser.get(addr, {})
        for name in sorted(set(c) & set(s)):
            a, b = s[name]["median"], c[name]["median"]
            total += 1
            if a == b:
                print(f"| {addr} | {name} | {a:.5g} | {b:.5g} | 1.000 | |")
                continue
            r = b / a if a else float("inf")
            mark = "MOVED" if abs(r - 1) > 0.03 else ""
            moved += bool(mark)
            print(f"| {addr} | {name} | {a:.5g} | {b:.5g} | {r:.3f} | {mark} |")
        for name in sorted(set(c) ^ set(s)):
            print(f"| {addr} | {name} | {'yes' if name in s else '—'} | {'yes' if name in c else '—'} | — | in one run only |")
    print(f"\n{moved} of {total} figures moved more than 3 % between the modes.")
    w = walls(os.path.join(d, "modes-summary.txt"))
    wall = {k: float(v.get("wall", "0")) for k, v in w.items()}
    box = box_seconds(os.path.join(d, "modes-concurrent.stages"))
    print("\n| run | exit | verify | wall s |")
    print("| --- | --- | --- | --- |")
    for k in ("concurrent", "serial", "one"):
        if k in w:
            print(f"| {k} | {w[k].get('rc')} | {w[k].get('verify')} | {wall[k]:.1f} |")
    one = wall.get("one", 0)
    if one and "concurrent" in wall:
        print(f"\nbox part of the concurrent run (host links at once, peer links): {box:.1f} s; "
              f"concurrent ÷ (one device + box part) = {wall['concurrent'] / (one + box):.2f} (target ≤ 1.25)")


if __name__ == "__main__":
    main()
