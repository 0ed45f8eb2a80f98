#!/usr/bin/env python3
"""PyTorch peers for appraise's multi-device figures on a two-GPU host.

Measures, the way ../shared/anchors/h200.md describes: 1 GiB copies
cuda:0 -> cuda:1 and cuda:1 -> cuda:0 with peer access (one way, then
both at once on two streams), 4 KiB peer copies (host-timed, with a
synchronize), and pinned host<->device copies of 256 MiB per device
alone and on both devices at once. Prints one JSON object (bytes/s,
seconds).
"""
import json
import statistics
import time

import torch


def wall_time(fn, iters=20, warm_s=0.3):
    """Median host seconds of fn() until every device is idle again."""
    end = time.perf_counter() + warm_s
    while time.perf_counter() < end:
        fn()
    for d in range(torch.cuda.device_count()):
        torch.cuda.synchronize(d)
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        for d in range(torch.cuda.device_count()):
            torch.cuda.synchronize(d)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main():
    assert torch.cuda.device_count() >= 2, "needs two GPUs"
    n = (1 << 30) // 4
    a0 = torch.rand(n, device="cuda:0")
    a1 = torch.rand(n, device="cuda:1")
    b0 = torch.empty_like(a0)
    b1 = torch.empty_like(a1)
    out = {"devices": [torch.cuda.get_device_name(i) for i in range(2)], "torch": torch.__version__,
           "can_access_peer": [torch.cuda.can_device_access_peer(0, 1), torch.cuda.can_device_access_peer(1, 0)]}
    s = wall_time(lambda: b1.copy_(a0, non_blocking=True))
    out["peer_0_to_1_bytes_per_s"] = n * 4 / s
    s = wall_time(lambda: b0.copy_(a1, non_blocking=True))
    out["peer_1_to_0_bytes_per_s"] = n * 4 / s
    s0, s1 = torch.cuda.Stream(device=0), torch.cuda.Stream(device=1)

    def both():
        with torch.cuda.stream(s0):
            b1.copy_(a0, non_blocking=True)
        with torch.cuda.stream(s1):
            b0.copy_(a1, non_blocking=True)
    s = wall_time(both)
    out["peer_both_ways_total_bytes_per_s"] = 2 * n * 4 / s
    assert torch.equal(b1.cpu(), a0.cpu()) and torch.equal(b0.cpu(), a1.cpu()), "peer copy check failed"

    small0 = torch.rand(1024, device="cuda:0")
    small1 = torch.empty_like(small0, device="cuda:1")
    lat = []
    for i in range(121):
        t0 = time.perf_counter()
        small1.copy_(small0)
        torch.cuda.synchronize(1)
        if i >= 20:
            lat.append(time.perf_counter() - t0)
    out["peer_4kib_latency_s"] = statistics.median(lat)

    m = (256 << 20) // 4
    hosts = [torch.rand(m).pin_memory() for _ in range(2)]
    devs = [torch.empty(m, device=f"cuda:{i}") for i in range(2)]
    for i in range(2):
        out[f"h2d_pinned_{i}_bytes_per_s"] = m * 4 / wall_time(lambda: devs[i].copy_(hosts[i], non_blocking=True))
        out[f"d2h_pinned_{i}_bytes_per_s"] = m * 4 / wall_time(lambda: hosts[i].copy_(devs[i], non_blocking=True))

    def at_once(direction):
        def run():
            for i in range(2):
                with torch.cuda.device(i):
                    if direction == "h2d":
                        devs[i].copy_(hosts[i], non_blocking=True)
                    else:
                        hosts[i].copy_(devs[i], non_blocking=True)
        return run
    out["h2d_pinned_at_once_total_bytes_per_s"] = 2 * m * 4 / wall_time(at_once("h2d"))
    out["d2h_pinned_at_once_total_bytes_per_s"] = 2 * m * 4 / wall_time(at_once("d2h"))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
