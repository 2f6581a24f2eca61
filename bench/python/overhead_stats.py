"""What data parallelism costs a step at world size 1, from the JSON of `accelbench run` and
`accelbench scale --gpus 1` (bench/gpu/data-parallel-overhead.sh writes them): each process's median
step (`run`'s case, or the rank's samples of `scale`), and the paired 95% interval of one variant
against `run` (the mean of the pairs' log ratios, Student t): processes taken seconds apart share
the host's state, which moves for minutes.

  python3 bench/python/overhead_stats.py match DIR PAIRS model:dtype ...      (run-*.json, scale-*.json)
  python3 bench/python/overhead_stats.py variants DIR ROUNDS model:dtype ...  (R-*, S-*, D-*, V-*, F-*.json:
                                     R `run`, S `scale --gpus 1`, D without the all-reduce, V
                                     `--bucket-views`, F one bucket)
  python3 bench/python/overhead_stats.py pool model:dtype DIR:match:N DIR:variants:N ...
                                     (scale/run over the pairs of several folders together)
  python3 bench/python/overhead_stats.py overhead DIR GLOB  (each `scale --overhead` JSON matching
                                     DIR/GLOB: the paired overhead and the reducer's host time)
  python3 bench/python/overhead_stats.py between GLOB ...   (`scale --overhead` JSONs, one process
                                     each: the processes' overheads and the 95% interval of their
                                     mean, Student t over processes: what the next process gives)
"""
import glob, gzip, json, math, statistics, sys

T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
        10: 2.228, 11: 2.201, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t975(dof):
    return T975.get(dof) or T975[max(k for k in T975 if k <= dof)]


def load(path):
    """One process's JSON (plain or .gz), else None."""
    for p, opener in ((path, open), (path + ".gz", gzip.open)):
        try:
            with opener(p, "rt") as f:
                return json.load(f)
        except (OSError, ValueError):
            continue
    return None


def median_step(path):
    """The median step time in seconds in one process's JSON (plain or .gz), else None."""
    j = load(path)
    if j is None:
        return None
    if "cases" in j:
        return j["cases"][0]["stats"]["median"]
    return statistics.median(j["results"][0]["points"][0]["ranks"][0]["samples_s"])


def paired(base, other):
    """(mean, low, high) of other/base - 1 in percent over the pairs both have; None under 2 pairs."""
    logs = [math.log(b / a) for a, b in zip(base, other) if a and b]
    if len(logs) < 2:
        return None
    mean, sd = statistics.mean(logs), statistics.stdev(logs)
    h = t975(len(logs) - 1) * sd / math.sqrt(len(logs))
    pct = lambda x: 100 * (math.exp(x) - 1)
    return pct(mean), pct(mean - h), pct(mean + h), len(logs)


def ms(xs):
    return " ".join("-" if x is None else f"{1e3 * x:.3f}" for x in xs)


def pairs_in(d, kind, n, m, p):
    """(run, scale) medians of one call's folder: ws1-match.sh's pairs or ws1-variants.sh's R and S."""
    names = ("run", "scale") if kind == "match" else ("R", "S")
    return ([median_step(f"{d}/{names[0]}-{m}-{p}-{i}.json") for i in range(1, n + 1)],
            [median_step(f"{d}/{names[1]}-{m}-{p}-{i}.json") for i in range(1, n + 1)])


def overhead(d, pattern):
    """A line per `scale --overhead` JSON: medians, the paired overhead, the reducer's host time."""
    for f in sorted(glob.glob(f"{d}/{pattern}")):
        name = f.rsplit("/", 1)[1].removesuffix(".gz")
        pt = load(f.removesuffix(".gz"))["results"][0]["points"][0]
        r = pt["ranks"][0]
        o, h = pt.get("overhead", {}), r.get("reducer_host_parts_s", {})
        pct = lambda x: 100 * (x - 1)  # noqa: E731
        print(name, "after-backward" if r.get("all_reduced_after_backward") else "hooks", f"dp {1e3 * statistics.median(r['samples_s']):.3f} ms",
              f"base {1e3 * statistics.median(r['baseline_samples_s']):.3f} ms",
              f"n {len(r['samples_s'])} x {r['steps_per_sample']}",
              f"overhead {pct(o.get('ratio', 0)):+.2f}% [{pct(o.get('low', 0)):+.2f}, {pct(o.get('high', 0)):+.2f}]",
              f"host {1e6 * r['reducer_host_s']:.0f} us: copies {1e6 * h.get('copies', 0):.0f}",
              f"allreduce {1e6 * h.get('allreduce_calls', 0):.0f} waits {1e6 * h.get('waits', 0):.0f},",
              f"buckets {len(r['bucket_bytes'])}, loss {r['loss_before']:.3f} -> {r['loss_after']:.3f}")


def between(patterns):
    """The overhead of each process (its paired ratio) and the t-interval over processes."""
    logs = []
    for pattern in patterns:
        for f in sorted(glob.glob(pattern)):
            o = load(f.removesuffix(".gz"))["results"][0]["points"][0].get("overhead")
            if o:
                logs.append(math.log(o["ratio"]))
    n = len(logs)
    if n < 2:
        print(f"{n} processes: no interval")
        return
    m, sd = statistics.mean(logs), statistics.stdev(logs)
    h = t975(n - 1) * sd / math.sqrt(n)
    pct = lambda x: 100 * (math.exp(x) - 1)  # noqa: E731
    print(f"{n} processes: {' '.join(f'{pct(x):+.1f}' for x in logs)}%; mean {pct(m):+.2f}% "
          f"[95% CI over processes {pct(m - h):+.2f}, {pct(m + h):+.2f}]")


def main(argv):
    if argv[0] == "between":
        between(argv[1:])
        return
    if argv[0] == "overhead":
        overhead(argv[1], argv[2])
        return
    if argv[0] == "pool":
        m, p = argv[1].split(":")
        r, s = [], []
        for spec in argv[2:]:
            d, kind, n = spec.rsplit(":", 2)
            a, b = pairs_in(d, kind, int(n), m, p)
            r += a
            s += b
        q = paired(r, s)
        print(f"{m} {p} scale/run over {q[3]} pairs: {q[0]:+.1f}% [95% CI {q[1]:+.1f}%, {q[2]:+.1f}%]")
        return
    mode, d, n, cases = argv[0], argv[1], int(argv[2]), argv[3:]
    for md in cases:
        m, p = md.split(":")
        if mode == "match":
            r = [median_step(f"{d}/run-{m}-{p}-{i}.json") for i in range(1, n + 1)]
            s = [median_step(f"{d}/scale-{m}-{p}-{i}.json") for i in range(1, n + 1)]
            if None in r or None in s:
                print(m, p, "missing", r, s)
                continue
            rm, sm = statistics.median(r), statistics.median(s)
            print(f"{m:12} {p:9} run {ms(r)} ms (median {1e3 * rm:.3f})  scale ws1 {ms(s)} ms "
                  f"(median {1e3 * sm:.3f})  difference {100 * (sm / rm - 1):+.1f}%")
            if n >= 4 and (q := paired(r, s)):
                print(f"{'':22} paired scale/run {q[0]:+.1f}% [95% CI {q[1]:+.1f}%, {q[2]:+.1f}%] over {q[3]} pairs")
        else:
            v = {k: [median_step(f"{d}/{k}-{m}-{p}-{i}.json") for i in range(1, n + 1)] for k in "RSDVF"}
            v = {k: xs for k, xs in v.items() if any(xs)}  # the variants that ran
            for k in v:
                print(f"{m} {p} {k}: {ms(v[k])} ms")
            for k in (k for k in v if k != "R"):
                q = paired(v.get("R", []), v[k])
                if q is None:
                    continue
                print(f"{m} {p} {k}/R: {q[0]:+.1f}% [95% CI {q[1]:+.1f}%, {q[2]:+.1f}%] over {q[3]} rounds")


if __name__ == "__main__":
    main(sys.argv[1:])
