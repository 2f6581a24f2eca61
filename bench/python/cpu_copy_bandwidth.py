"""The CPU's copy bandwidth four ways, for telling why `peak`'s CPU copy differs between processes
while each process's own samples agree. One process, four ways of holding the two 256 MiB buffers, each timed
like `peak` (a sample repeats the copy for at least 100 ms; 9 samples; bytes read + written / s):
  same      two torch buffers for every sample (what `peak` does)
  fresh     new torch buffers before each sample (touched once before timing)
  huge      buffers from mmap with madvise(MADV_HUGEPAGE), wrapped by torch.frombuffer
  huge-fresh  the same, new before each sample
and the share of each buffer on transparent huge pages (AnonHugePages of /proc/self/smaps).
Run it in several processes: python3 bench/python/cpu_copy_bandwidth.py LABEL"""
import mmap
import statistics
import sys
import time

import torch

SIZE = 256 << 20


def huge_kib():
    total = 0
    with open("/proc/self/smaps_rollup") as f:
        for line in f:
            if line.startswith("AnonHugePages:"):
                total += int(line.split()[1])
    return total


def torch_buffers():
    src = torch.empty(SIZE, dtype=torch.uint8)
    dst = torch.empty(SIZE, dtype=torch.uint8)
    src.fill_(1)
    dst.fill_(0)
    return src, dst, None


def huge_buffers():
    maps = []
    tensors = []
    for value in (1, 0):
        m = mmap.mmap(-1, SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        m.madvise(mmap.MADV_HUGEPAGE)
        t = torch.frombuffer(m, dtype=torch.uint8)
        t.fill_(value)
        maps.append(m)
        tensors.append(t)
    return tensors[0], tensors[1], maps


def sample(src, dst):
    dst.copy_(src)
    t0 = time.perf_counter()
    reps = 0
    while True:
        dst.copy_(src)
        reps += 1
        el = time.perf_counter() - t0
        if el >= 0.1:
            return 2 * SIZE * reps / el / 1e9


def way(make, fresh, n=9):
    base = huge_kib()
    src, dst, keep = make()
    share = (huge_kib() - base) / (2 * SIZE / 1024)
    values = []
    for _ in range(n):
        if fresh:
            del src, dst, keep
            src, dst, keep = make()
        values.append(sample(src, dst))
    return values, share


label = sys.argv[1] if len(sys.argv) > 1 else "-"
thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read().strip()
print(f"{time.strftime('%H:%M:%S')} {label}: threads {torch.get_num_threads()}, THP {thp}", flush=True)
for name, make, fresh in (("same", torch_buffers, False), ("fresh", torch_buffers, True),
                          ("huge", huge_buffers, False), ("huge-fresh", huge_buffers, True)):
    values, share = way(make, fresh)
    print(f"  {name:<10} best {max(values):6.1f} median {statistics.median(values):6.1f} GB/s "
          f"(huge pages {100 * share:3.0f}%): {' '.join(f'{v:.0f}' for v in values)}", flush=True)
