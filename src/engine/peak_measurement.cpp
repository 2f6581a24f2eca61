// `accelbench peak`: the device's ceilings, measured with plain ATen ops on the device's current
// stream. Every sample is timed on the host clock between two device synchronizations (the same
// clock as a training step), so a ceiling and a case's step time compare directly.
//   matmul: n x n x n per precision (tfloat32: float32 with TF32 tensor-core matmuls, CUDA only),
//     n doubled from 256 until one matmul takes long enough to saturate the device (5 ms on an
//     accelerator, 50 ms on the CPU) or the size limit; the size is said in the output. Each
//     sample is one burst (at least sample_target_s of matmuls) after an idle pause, so that a
//     power or thermal limit that acts after a fraction of a second of full load does not set the
//     ceiling: the H200 gave 801.8 TFLOP/s in bfloat16 that way and 690 TFLOP/s when its samples
//     ran back to back for half a second (its 700 W cap; docs/peak.md). On an accelerator the
//     sustained figure follows: matmuls back to back for a few seconds, the second half timed.
//   copy: a 1 GiB (CPU: 256 MiB) buffer copied on the device; read + write bytes per second. On the
//     CPU the two buffers are asked for transparent huge pages (madvise), so that the ceiling does
//     not depend on the TLB: on the H200's host the medians were 90-132 GB/s with them against
//     88-116 without, in the same four processes (docs/peak.md).
//   host<->device: 256 MiB between pinned (or pageable) host memory and the device (accelerators).
//   launch: a one-element in-place add, either followed by a synchronization each time (round trip:
//     each timed alone, a sample the median of them) or queued a thousand at a time (back to back:
//     the host's cost per launch when the device keeps up).
// Each ceiling keeps its samples, their median with its CI, and its best sample: the ceiling.
#include <ATen/Context.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <thread>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/durations.h"
#include "core/stats.h"
#include "core/system_info.h"
#include "device/device.h"
#include "engine/engine.h"
#include "optim/autocast.h"

namespace accelbench::engine {

namespace {

using PeakClock = std::chrono::steady_clock;

double peak_seconds_since(PeakClock::time_point t0) {
  return std::chrono::duration<double>(PeakClock::now() - t0).count();
}

// Seconds of `reps` calls of `op`, from a synchronized device to a synchronized device.
double time_reps(Device& dev, const std::function<void()>& op, int reps) {
  dev.synchronize();
  const auto t0 = PeakClock::now();
  for (int i = 0; i < reps; ++i) op();
  dev.synchronize();
  return peak_seconds_since(t0);
}

// TF32 matmuls on or off for the scope (Tf32Guard only switches them on), the previous setting restored.
class Tf32Setting {
 public:
  explicit Tf32Setting(bool on) : previous_(at::globalContext().allowTF32CuBLAS()) {
    at::globalContext().setAllowTF32CuBLAS(on);
  }
  ~Tf32Setting() { at::globalContext().setAllowTF32CuBLAS(previous_); }
  Tf32Setting(const Tf32Setting&) = delete;
  Tf32Setting& operator=(const Tf32Setting&) = delete;

 private:
  bool previous_;
};

// Ops per second over the second half of `seconds` of `op` back to back (the first half brings the
// device to the clock it can hold). The device is synchronized every few ops (about 50 ms of work),
// which leaves it idle for microseconds only.
double sustained_ops_per_s(Device& dev, const std::function<void()>& op, double op_s, double seconds) {
  const int chunk = std::max(1, static_cast<int>(0.05 / std::max(op_s, 1e-9)));
  const auto run_until = [&](double until_s, PeakClock::time_point from) {
    std::int64_t ops = 0;
    do {
      for (int i = 0; i < chunk; ++i) op();
      dev.synchronize();
      ops += chunk;
    } while (peak_seconds_since(from) < until_s);
    return ops;
  };
  dev.synchronize();
  run_until(seconds / 2, PeakClock::now());
  const auto t_half = PeakClock::now();
  const auto ops = run_until(seconds / 2, t_half);
  return static_cast<double>(ops) / peak_seconds_since(t_half);
}

struct PeakPlan {
  double op_target_s;      // a matmul at least this long saturates the device
  std::int64_t max_n;      // largest matmul side
  double sample_target_s;  // each sample repeats the op to at least this long
  int samples;
  double burst_pause_s;    // idle before each matmul sample (a burst)
  double sustain_s;        // matmuls back to back for this long (0: no sustained figure)
  std::int64_t copy_bytes, transfer_bytes;
};

PeakPlan plan_for(const Device& dev, const PeakSettings& s) {
  PeakPlan p;
  const bool cpu = dev.is_cpu();
  p.op_target_s = cpu ? 0.05 : 0.005;
  p.max_n = cpu ? 4096 : 16384;
  p.sample_target_s = cpu ? (s.quick ? 0.05 : 0.1) : (s.quick ? 0.01 : 0.025);
  p.samples = s.quick ? 5 : 15;
  p.burst_pause_s = 0.1;
  p.sustain_s = cpu ? 0.0 : (s.quick ? 1.0 : 3.0);
  p.copy_bytes = cpu ? (std::int64_t{256} << 20) : (std::int64_t{1} << 30);
  if (const auto total = dev.description().total_memory_bytes)
    p.copy_bytes = std::min<std::int64_t>(p.copy_bytes, static_cast<std::int64_t>(*total / 8));
  p.transfer_bytes = std::int64_t{256} << 20;
  if (s.quick) {
    p.copy_bytes /= 4;
    p.transfer_bytes /= 4;
  }
  return p;
}

// The ceiling from its samples (in its unit): the median with its 95% CI, the best sample (the
// highest rate, the shortest time) and every sample.
Ceiling from_samples(CeilingKind kind, std::string variant, std::string size, std::vector<double> values) {
  const auto s = summarize(values);
  Ceiling c;
  c.kind = kind;
  c.variant = std::move(variant);
  c.size = std::move(size);
  c.samples = s.n;
  c.median = s.median;
  c.ci_low = s.ci_low;
  c.ci_high = s.ci_high;
  if (!values.empty())
    c.best = ceiling_unit(kind) == "s" ? *std::min_element(values.begin(), values.end())
                                       : *std::max_element(values.begin(), values.end());
  c.values = std::move(values);
  return c;
}

// `samples` samples of `value_of(seconds per op)`, each sample `reps` ops long.
// `pause_s`: the device idles that long before each sample (a burst).
Ceiling sampled(CeilingKind kind, std::string variant, std::string size, Device& dev, const std::function<void()>& op,
                double op_s, const PeakPlan& plan, const std::function<double(double)>& value_of, int reps_at_least = 1,
                double pause_s = 0) {
  const int reps = std::max(reps_at_least, static_cast<int>(std::ceil(plan.sample_target_s / std::max(op_s, 1e-9))));
  std::vector<double> values;
  values.reserve(static_cast<std::size_t>(plan.samples));
  for (int i = 0; i < plan.samples; ++i) {
    if (pause_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(pause_s));
    values.push_back(value_of(time_reps(dev, op, reps) / reps));
  }
  return from_samples(kind, std::move(variant), std::move(size), std::move(values));
}

Ceiling unavailable(CeilingKind kind, std::string variant, std::string why) {
  Ceiling c;
  c.kind = kind;
  c.variant = std::move(variant);
  c.unavailable = std::move(why);
  return c;
}

// The first line of a torch error (no backtrace), else the exception's text.
std::string short_error(const std::exception& e) {
  auto m = torch_error_message(e);
  if (m.empty()) m = e.what();
  if (const auto nl = m.find('\n'); nl != std::string::npos) m.erase(nl);
  return m;
}

Ceiling measure_matmul(Device& dev, const std::string& precision_name, const PeakPlan& plan) {
  const auto precision = parse_precision(precision_name);
  Tf32Setting tf32(precision.tf32);
  const auto opts = at::TensorOptions().device(dev.torch_device()).dtype(precision.dtype);
  const auto element = static_cast<std::int64_t>(c10::elementSize(precision.dtype));
  const auto memory = dev.description().total_memory_bytes;
  std::int64_t n = 256;
  double op_s = 0;
  at::Tensor a, b, out;
  for (;;) {
    a = at::randn({n, n}, opts);
    b = at::randn({n, n}, opts);
    out = at::empty({n, n}, opts);
    at::mm_out(out, a, b);  // warm-up: library handles, kernel choice
    op_s = time_reps(dev, [&] { at::mm_out(out, a, b); }, 1);
    const std::int64_t next = 2 * n;
    const bool fits = !memory || static_cast<double>(3 * next * next * element) < 0.25 * static_cast<double>(*memory);
    if (op_s >= plan.op_target_s || next > plan.max_n || !fits) break;
    n = next;
  }
  const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  const auto op = [&] { at::mm_out(out, a, b); };
  auto c = sampled(CeilingKind::kMatmul, precision.name, fmt::format("{} x {} x {}", n, n, n), dev, op, op_s, plan,
                   [flop](double s) { return flop / s; }, 1, plan.burst_pause_s);
  if (plan.sustain_s > 0) {
    const auto sustained = sustained_ops_per_s(dev, op, op_s, plan.sustain_s);
    c.sustained = flop * sustained;
    c.sustained_s = plan.sustain_s;
  }
  return c;
}

// `bytes` of host memory asked for transparent huge pages (Linux madvise), as a byte tensor that
// unmaps it when freed; an undefined tensor where the kernel has them off (or none).
at::Tensor huge_page_bytes(std::int64_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  if (!std::getline(thp, modes) || modes.find("[never]") != std::string::npos) return {};
  const auto size = static_cast<std::size_t>(bytes);
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return {};
  if (::madvise(p, size, MADV_HUGEPAGE) != 0) {
    ::munmap(p, size);
    return {};
  }
  return at::from_blob(p, {bytes}, [size](void* q) { ::munmap(q, size); }, at::TensorOptions().dtype(at::kByte));
#else
  (void)bytes;
  return {};
#endif
}

Ceiling measure_copy(Device& dev, const PeakPlan& plan) {
  const auto opts = at::TensorOptions().device(dev.torch_device()).dtype(at::kByte);
  at::Tensor src, dst;
  if (dev.is_cpu()) {
    src = huge_page_bytes(plan.copy_bytes);
    dst = huge_page_bytes(plan.copy_bytes);
  }
  const bool huge = src.defined() && dst.defined();
  if (!huge) {
    src = at::empty({plan.copy_bytes}, opts);
    dst = at::empty({plan.copy_bytes}, opts);
  }
  src.fill_(1);  // touched before timing (on the CPU: the pages faulted in)
  dst.fill_(0);
  const auto op = [&] { dst.copy_(src); };
  op();
  const double op_s = time_reps(dev, op, 1);
  const double moved = 2.0 * static_cast<double>(plan.copy_bytes);
  const auto size = format_bytes(static_cast<double>(plan.copy_bytes)) + (huge ? ", huge pages (madvise)" : "");
  return sampled(CeilingKind::kCopy, "", size, dev, op, op_s, plan, [moved](double s) { return moved / s; });
}

Ceiling measure_transfer(Device& dev, CeilingKind kind, bool pinned, const PeakPlan& plan) {
  const std::string variant = pinned ? "pinned" : "pageable";
  try {
    auto host = at::empty({plan.transfer_bytes}, at::TensorOptions().dtype(at::kByte).pinned_memory(pinned));
    host.fill_(1);
    auto device = at::empty({plan.transfer_bytes}, at::TensorOptions().device(dev.torch_device()).dtype(at::kByte));
    const auto op = kind == CeilingKind::kHostToDevice ? std::function<void()>([&] { device.copy_(host); })
                                                       : std::function<void()>([&] { host.copy_(device); });
    for (int i = 0; i < 3; ++i) op();  // pageable copies stage through the driver's buffers: warm them
    const double op_s = time_reps(dev, op, 1);
    const double bytes = static_cast<double>(plan.transfer_bytes);
    return sampled(kind, variant, format_bytes(bytes), dev, op, op_s, plan, [bytes](double s) { return bytes / s; });
  } catch (const std::exception& e) {
    return unavailable(kind, variant, short_error(e));
  }
}

std::vector<Ceiling> measure_launch(Device& dev, PeakPlan plan) {
  // A launch takes microseconds and the host's noise is of that size: samples four times longer.
  plan.sample_target_s *= 4;
  auto x = at::zeros({1}, at::TensorOptions().device(dev.torch_device()));
  const auto add = [&] { x.add_(1.0); };
  std::vector<Ceiling> out;
  const auto round_trip = [&] {
    add();
    dev.synchronize();
  };
  for (int i = 0; i < 100; ++i) round_trip();  // warm-up
  const double rt_s = time_reps(dev, round_trip, 100) / 100;
  const auto identity = [](double s) { return s; };
  // Round trip: each one timed on its own, a sample the median of its round trips, so that the
  // moments the host was taken away (a descheduled thread: a round trip of milliseconds) do not
  // set it, as they set a mean. On the H200 two processes' medians of means were 12.6% apart.
  {
    const int reps = std::max(1, static_cast<int>(std::ceil(plan.sample_target_s / std::max(rt_s, 1e-9))));
    std::vector<double> values, each(static_cast<std::size_t>(reps));
    for (int i = 0; i < plan.samples; ++i) {
      for (auto& t : each) {
        const auto t0 = PeakClock::now();
        round_trip();
        t = peak_seconds_since(t0);
      }
      std::nth_element(each.begin(), each.begin() + reps / 2, each.end());
      values.push_back(each[static_cast<std::size_t>(reps / 2)]);
    }
    out.push_back(from_samples(CeilingKind::kLaunchRoundTrip, "", "1 element", std::move(values)));
  }
  // Back to back: at least a thousand launches between two synchronizations, so the two
  // synchronizations are under a thousandth of each figure.
  const double b2b_s = time_reps(dev, add, 1000) / 1000;
  out.push_back(sampled(CeilingKind::kLaunchBackToBack, "", "1 element", dev, add, b2b_s, plan, identity, 1000));
  return out;
}

}  // namespace

DeviceCeilings measure_ceilings(const std::string& device_id, const PeakSettings& settings,
                                const std::function<void(const std::string&)>& progress) {
  const auto start = PeakClock::now();
  auto dev = open_device(device_id);
  const auto plan = plan_for(*dev, settings);
  DeviceCeilings result;
  result.device = dev->id();
  result.device_name = dev->description().name;
  result.torch_version = torch_runtime().version;
  result.host = read_host_info().host;
  result.measured_utc = utc_timestamp_now();
  // One ceiling (or two: the launch) at a time; when it fails (out of memory, a backend without the
  // op) it is recorded as not measured, with the reason, and the others are still measured.
  const auto step = [&](CeilingKind kind, const std::string& variant, const std::function<void()>& f) {
    if (progress) progress(fmt::format("{}: {}", result.device, unavailable(kind, variant, "").label()));
    try {
      f();
    } catch (const std::exception& e) {
      result.ceilings.push_back(unavailable(kind, variant, short_error(e)));
    }
    dev->empty_cache();
  };
  for (const auto& p : accelbench::precisions_for(dev->torch_device().type()))
    step(CeilingKind::kMatmul, p, [&] { result.ceilings.push_back(measure_matmul(*dev, p, plan)); });
  step(CeilingKind::kCopy, "", [&] { result.ceilings.push_back(measure_copy(*dev, plan)); });
  if (!dev->is_cpu()) {
    for (const auto kind : {CeilingKind::kHostToDevice, CeilingKind::kDeviceToHost})
      for (const bool pinned : {true, false})
        step(kind, pinned ? "pinned" : "pageable",
             [&] { result.ceilings.push_back(measure_transfer(*dev, kind, pinned, plan)); });
  }
  step(CeilingKind::kLaunchRoundTrip, "", [&] {
    for (auto& c : measure_launch(*dev, plan)) result.ceilings.push_back(std::move(c));
  });
  result.wall_s = peak_seconds_since(start);
  return result;
}

}  // namespace accelbench::engine
