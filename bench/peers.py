#!/usr/bin/env python3
"""PyTorch peers for appraise's bandwidth, host-link and launch probes.

Measures on cuda:0, the way ../shared/anchors/h200.md describes, and prints
one JSON object: bytes/s for copy/read/write and pinned host<->device
copies, seconds for a tiny kernel round trip and a 1 MiB upload.
"""
import json
import statistics
import time

import torch


def timed(fn, iters, warm_s=0.3):
    """Median seconds of fn() over iters calls, after warm_s of warm-up."""
    end = time.perf_counter() + warm_s
    while time.perf_counter() < end:
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / 1e3)
    return statistics.median(samples)


def wall(fn, iters, warm=50):
    """Median host seconds of fn() followed by a synchronize."""
    for _ in range(warm):
        fn()
        torch.cuda.synchronize()
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main():
    dev = torch.device("cuda:0")
    n = (1 << 30) // 4  # 1 GiB of fp32
    a = torch.rand(n, device=dev)
    b = torch.empty_like(a)
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
    s = timed(lambda: b.copy_(a), 20)
    out["copy_bytes_per_s"] = 2 * a.numel() * 4 / s
    s = timed(lambda: a.sum(), 20)
    out["read_bytes_per_s"] = a.numel() * 4 / s
    s = timed(lambda: b.fill_(1.0), 20)
    out["write_bytes_per_s"] = b.numel() * 4 / s

    m = (256 << 20) // 4
    host = torch.rand(m).pin_memory()
    devbuf = torch.empty(m, device=dev)
    s = timed(lambda: devbuf.copy_(host, non_blocking=True), 20)
    out["h2d_pinned_bytes_per_s"] = m * 4 / s
    s = timed(lambda: host.copy_(devbuf, non_blocking=True), 20)
    out["d2h_pinned_bytes_per_s"] = m * 4 / s

    tiny = torch.zeros(1, device=dev)
    out["tiny_kernel_round_trip_s"] = wall(lambda: tiny.add_(1), 2000)
    small = torch.rand((1 << 20) // 4).pin_memory()
    small_dev = torch.empty_like(small, device=dev)
    out["upload_1mib_s"] = wall(lambda: small_dev.copy_(small, non_blocking=True), 2000)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
