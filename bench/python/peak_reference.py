"""Python reference for `accelbench peak`: the same ceilings measured with PyTorch from
Python, the same way (host clock between two device synchronizations, the median of 15 samples),
to check that accelbench's figures are the device's and not its own.
    python3 bench/python/peak_reference.py [--device cuda] [--json out.json]
"""
import argparse, json, statistics, time

import torch


def timed(op, reps, sync):
    sync()
    t0 = time.perf_counter()
    for _ in range(reps):
        op()
    sync()
    return (time.perf_counter() - t0) / reps


def sampled(op, op_s, sync, target_s=0.025, samples=15, at_least=1):
    reps = max(at_least, int(-(-target_s // max(op_s, 1e-9))))
    return statistics.median(timed(op, reps, sync) for _ in range(samples))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--json")
    a = ap.parse_args()
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"}
    for name, dtype, tf32 in [("float32", torch.float32, False), ("tfloat32", torch.float32, True),
                              ("bfloat16", torch.bfloat16, False), ("float16", torch.float16, False)]:
        torch.backends.cuda.matmul.allow_tf32 = tf32
        for n in (4096, 8192, 16384):
            x, y = torch.randn(n, n, device=dev, dtype=dtype), torch.randn(n, n, device=dev, dtype=dtype)
            o = torch.empty(n, n, device=dev, dtype=dtype)
            op = lambda: torch.mm(x, y, out=o)
            op()
            s = sampled(op, timed(op, 1, sync), sync)
            out[f"matmul {name} {n}"] = 2 * n ** 3 / s
            print(f"matmul {name:9} {n:6}: {2 * n ** 3 / s / 1e12:8.1f} TFLOP/s", flush=True)
            del x, y, o
    torch.backends.cuda.matmul.allow_tf32 = False
    nbytes = 1 << 30
    src, dst = torch.ones(nbytes, dtype=torch.uint8, device=dev), torch.empty(nbytes, dtype=torch.uint8, device=dev)
    op = lambda: dst.copy_(src)
    op()
    s = sampled(op, timed(op, 1, sync), sync)
    out["copy"] = 2 * nbytes / s
    print(f"copy 1 GiB (read + write): {2 * nbytes / s / 1e12:.3f} TB/s")
    del src, dst
    if dev.type == "cuda":
        nb = 256 << 20
        for pinned in (True, False):
            h = torch.ones(nb, dtype=torch.uint8, pin_memory=pinned)
            d = torch.empty(nb, dtype=torch.uint8, device=dev)
            for name, op in (("host_to_device", lambda: d.copy_(h)), ("device_to_host", lambda: h.copy_(d))):
                op()
                s = sampled(op, timed(op, 1, sync), sync)
                key = f"{name} {'pinned' if pinned else 'pageable'}"
                out[key] = nb / s
                print(f"{key}: {nb / s / 1e9:.2f} GB/s")
    x = torch.zeros(1, device=dev)
    add = lambda: x.add_(1.0)
    def rt():
        add(); sync()
    for _ in range(100):
        rt()
    out["launch_round_trip"] = sampled(rt, timed(rt, 100, sync), sync)
    out["launch_back_to_back"] = sampled(add, timed(add, 1000, sync), sync, at_least=1000)
    print(f"launch round trip {out['launch_round_trip'] * 1e6:.2f} us, back to back {out['launch_back_to_back'] * 1e6:.2f} us")
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
