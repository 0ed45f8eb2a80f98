#!/usr/bin/env python3
"""Compares two appraisals of the same device figure by figure, and where
their time went.

usage: same_figures.py OLD_JSON NEW_JSON [OLD_STAGES NEW_STAGES]

OLD_JSON and NEW_JSON are `appraise --json` outputs (the first card by bus
address is compared). Prints one row per figure either has: old, new, the
ratio new/old and a mark where it moved more than 2 %. With the stage
files (stderr of APPRAISE_PROGRESS=lines, each line prefixed with the
epoch seconds it was read, as bench/oldnew.sh writes them), also the
seconds per probe stage of each run.
"""
import json
import sys


def cards(path):
    """Bus address -> {figure name: figure} of every card in an
    `appraise --json` output."""
    return {w["address"]: {f["name"]: f for f in w.get("figures", [])}
            for w in json.load(open(path)) if w["kind"] == "card"}


def card(path):
    """The figures of the first card by bus address, {} without one."""
    cs = cards(path)
    return cs[min(cs)] if cs else {}


def stage_lines(path):
    """(epoch seconds, text) of each progress line of a stage file, the
    text being what follows the tool's own two clocks ("ADDRESS: STAGE")."""
    for line in open(path):
        parts = line.rstrip("\n").split(" ", 4)
        if len(parts) == 5 and parts[1] == "stage":
            yield float(parts[0]), parts[4]


def stages(path):
    """Probe stage -> seconds, from the first line naming it to the next
    line naming another; a stage is the text up to its first ':' after the
    device address (the probe or step)."""
    rows = []
    for t, text in stage_lines(path):
        if ": " in text:
            text = text.split(": ", 1)[1]
        if text.startswith("vulkan: "):
            text = "vulkan " + text[len("vulkan: "):]
        group = text.split(":")[0].split(" again")[0]
        rows.append((t, group))
    out = {}
    for (t, g), (t2, _) in zip(rows, rows[1:]):
        out[g] = out.get(g, 0) + t2 - t
    return out, (rows[-1][0] - rows[0][0] if rows else 0)


def main():
    old, new = card(sys.argv[1]), card(sys.argv[2])
    print("| figure | old | new | new/old | |")
    print("| --- | --- | --- | --- | --- |")
    moved = 0
    for name in sorted(set(old) | set(new)):
        o, n = old.get(name), new.get(name)
        if not o or not n:
            print(f"| {name} | {o['median'] if o else '—'} | {n['median'] if n else '—'} | — | {'only old' if o else 'only new'} |")
            continue
        if o["median"] == n["median"]:
            print(f"| {name} | {o['median']:.5g} | {n['median']:.5g} | 1.000 | |")
            continue
        r = n["median"] / o["median"] if o["median"] else float("inf")
        better = r >= 1 if o.get("higher_is_better", True) else r <= 1
        mark = "" if abs(r - 1) <= 0.02 else ("moved, better" if better else "MOVED, worse")
        moved += bool(mark)
        print(f"| {name} | {o['median']:.5g} | {n['median']:.5g} | {r:.3f} | {mark} |")
    print(f"\n{moved} of {len(set(old) & set(new))} figures in both moved more than 2 %.")
    if len(sys.argv) > 4:
        so, to = stages(sys.argv[3])
        sn, tn = stages(sys.argv[4])
        print("\n| stage | old s | new s |")
        print("| --- | --- | --- |")
        for g in list(dict.fromkeys(list(so) + list(sn))):
            print(f"| {g} | {so.get(g, 0):.1f} | {sn.get(g, 0):.1f} |")
        print(f"| all stages | {to:.1f} | {tn:.1f} |")


if __name__ == "__main__":
    main()
