"""One line of the host's speed, for telling a slower host from a slower accelbench: the
median time of a tiny CUDA launch (2,000 adds on one element, then a synchronize; 5 repeats), of a
pure-Python loop (a CPU-speed proxy), and the mean CPU clock from /proc/cpuinfo. Run between runs:
    python3 bench/python/host_speed_probe.py LABEL >> probes.txt"""
import statistics
import sys
import time

import torch


def launch_us():
    x = torch.zeros(1, device="cuda")
    for _ in range(200):
        x.add_(1)
    torch.cuda.synchronize()
    reps = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(2000):
            x.add_(1)
        torch.cuda.synchronize()
        reps.append((time.perf_counter() - t) / 2000 * 1e6)
    return statistics.median(reps)


def loop_ms():
    reps = []
    for _ in range(5):
        t = time.perf_counter()
        s = 0
        for i in range(1_000_000):
            s += i
        reps.append((time.perf_counter() - t) * 1e3)
    return statistics.median(reps)


def cpu_mhz():
    try:
        mhz = [float(l.split(":")[1]) for l in open("/proc/cpuinfo") if l.startswith("cpu MHz")]
        return statistics.mean(mhz) if mhz else float("nan")
    except OSError:
        return float("nan")


label = sys.argv[1] if len(sys.argv) > 1 else "-"
print(f"{time.strftime('%H:%M:%S')} {label}: launch {launch_us():.2f} us, python loop {loop_ms():.1f} ms, "
      f"cpu {cpu_mhz():.0f} MHz, load {open('/proc/loadavg').read().split()[0]}", flush=True)
