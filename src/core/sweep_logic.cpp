#include "core/sweep_logic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "core/durations.h"
#include "core/errors.h"

namespace accelbench {

std::vector<std::int64_t> doubling_points(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out;
  if (from < 1 || to < from) return out;
  for (std::int64_t b = from; b <= to; b *= 2) {
    out.push_back(b);
    if (b > to / 2) break;  // the next doubling would pass `to` (and never overflows)
  }
  if (out.back() != to) out.push_back(to);
  return out;
}

std::int64_t bisection_step(std::int64_t last_fit, std::int64_t first_oom) {
  std::int64_t s = (first_oom - last_fit) / 16;
  if (s >= 8) s -= s % 8;
  return std::max<std::int64_t>(1, s);
}

BatchSweepPlanner::BatchSweepPlanner(std::int64_t from, std::int64_t to) : doubling_(doubling_points(from, to)) {}

std::int64_t BatchSweepPlanner::candidate(std::int64_t k) const { return k >= hi_k_ ? hi_batch_ : base_ + k * step_; }

std::optional<std::int64_t> BatchSweepPlanner::next() const {
  if (bisecting_) {
    if (hi_k_ - lo_k_ <= 1) return std::nullopt;
    return candidate((lo_k_ + hi_k_) / 2);
  }
  if (next_doubling_ < doubling_.size()) return doubling_[next_doubling_];
  return std::nullopt;
}

void BatchSweepPlanner::record(std::int64_t batch, PointOutcome outcome) {
  if (outcome == PointOutcome::fit) {
    fits_.push_back(batch);
    if (!largest_fit_ || batch > *largest_fit_) largest_fit_ = batch;
  } else if (outcome == PointOutcome::out_of_memory) {
    if (!smallest_oom_ || batch < *smallest_oom_) smallest_oom_ = batch;
  }
  if (bisecting_) {
    const std::int64_t k = (batch - base_) / step_;
    if (outcome == PointOutcome::fit) lo_k_ = std::max(lo_k_, k);
    else hi_k_ = std::min(hi_k_, k);
    return;
  }
  ++next_doubling_;
  if (outcome != PointOutcome::out_of_memory) return;
  // The first out-of-memory: the doubling ends; bisect between the largest batch that fit below
  // it (0 when none did) and it.
  first_oom_ = batch;
  base_ = 0;
  for (auto f : fits_)
    if (f < batch) base_ = std::max(base_, f);
  step_ = bisection_step(base_, batch);
  lo_k_ = 0;
  hi_k_ = (batch - base_ + step_ - 1) / step_;
  hi_batch_ = batch;
  bisecting_ = true;
}

std::size_t BatchSweepPlanner::remaining_estimate() const {
  if (!bisecting_) return doubling_.size() - std::min(next_doubling_, doubling_.size());
  std::size_t n = 0;
  for (std::int64_t w = hi_k_ - lo_k_; w > 1; w = (w + 1) / 2) ++n;
  return n;
}

std::optional<std::int64_t> BatchSweepPlanner::bisection_low() const {
  return bisecting_ ? std::optional<std::int64_t>(base_) : std::nullopt;
}
std::optional<std::int64_t> BatchSweepPlanner::bisection_high() const {
  return bisecting_ ? std::optional<std::int64_t>(hi_batch_) : std::nullopt;
}
std::optional<std::int64_t> BatchSweepPlanner::resolution() const {
  return bisecting_ ? std::optional<std::int64_t>(step_) : std::nullopt;
}

std::optional<std::int64_t> find_knee(const std::vector<ThroughputPoint>& points, double tolerance) {
  double best = 0;
  for (const auto& p : points)
    if (std::isfinite(p.samples_per_s) && p.samples_per_s > best) best = p.samples_per_s;
  if (best <= 0) return std::nullopt;
  std::optional<std::int64_t> knee;
  for (const auto& p : points)
    if (std::isfinite(p.samples_per_s) && p.samples_per_s >= (1 - tolerance) * best && (!knee || p.batch < *knee))
      knee = p.batch;
  return knee;
}

std::vector<int> thread_points(int max_threads) {
  std::vector<int> out;
  for (int t = 1; t < max_threads; t *= 2) out.push_back(t);
  if (max_threads >= 1) out.push_back(max_threads);
  return out;
}

std::vector<int> worker_points(int max_workers) {
  std::vector<int> out{0};
  if (max_workers < 1) return out;
  for (int w = 1; w < max_workers; w *= 2) out.push_back(w);
  out.push_back(max_workers);
  return out;
}

Crossover find_crossover(std::vector<SpeedupPoint> points) {
  Crossover c;
  std::erase_if(points, [](const SpeedupPoint& p) { return !std::isfinite(p.ratio) || p.ratio <= 0; });
  if (points.empty()) return c;
  std::sort(points.begin(), points.end(), [](const SpeedupPoint& a, const SpeedupPoint& b) { return a.x < b.x; });
  std::size_t first_fast = points.size();  // start of the suffix where every CI lies above 1
  while (first_fast > 0 && points[first_fast - 1].low > 1.0) --first_fast;
  auto cpu_faster_below = [&](std::size_t end) {
    std::optional<std::int64_t> last;
    for (std::size_t i = 0; i < end; ++i)
      if (points[i].high < 1.0) last = points[i].x;
    return last;
  };
  if (first_fast == 0) {
    c.kind = CrossoverKind::accelerator_always;
    c.at = points.front().x;
  } else if (first_fast < points.size()) {
    c.kind = CrossoverKind::crosses;
    c.at = points[first_fast].x;
    c.cpu_until = cpu_faster_below(first_fast);
  } else {
    const bool all_cpu = std::all_of(points.begin(), points.end(), [](const SpeedupPoint& p) { return p.high < 1.0; });
    c.kind = all_cpu ? CrossoverKind::cpu_always : CrossoverKind::never;
    c.cpu_until = cpu_faster_below(points.size());
  }
  return c;
}

std::string describe_crossover(const Crossover& c, const std::string& axis) {
  switch (c.kind) {
    case CrossoverKind::none: return "no point measured on both devices";
    case CrossoverKind::accelerator_always:
      return fmt::format("the accelerator is faster over the whole range (from {} {})", axis, *c.at);
    case CrossoverKind::crosses:
      return fmt::format("the accelerator overtakes the CPU at {} {} and stays ahead{}", axis, *c.at,
                         c.cpu_until ? fmt::format("; the CPU is faster up to {} {}", axis, *c.cpu_until)
                                     : std::string("; below it the two are within the noise"));
    case CrossoverKind::cpu_always: return "the CPU is faster at every point: the accelerator never overtakes it in this range";
    case CrossoverKind::never:
      return fmt::format("the accelerator does not overtake the CPU in this range (at the largest {} the two are within the noise{})",
                         axis, c.cpu_until ? fmt::format("; the CPU is faster up to {} {}", axis, *c.cpu_until) : std::string());
  }
  return "";
}

std::uint64_t parse_memory_size(std::string_view text) {
  const std::string original = printable(text);  // quoted on one line: a newline shows as \n
  auto bad = [&]() {
    return UsageError(fmt::format("invalid memory size '{}': use e.g. 16GiB, 512MiB, 8GB or a number of bytes", original));
  };
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) throw bad();
  if (text.front() == '-') throw UsageError(fmt::format("invalid memory size '{}': must be positive", original));
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data()) throw bad();
  text.remove_prefix(static_cast<std::size_t>(ptr - text.data()));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  std::string unit(text);
  std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  double scale;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "kib") scale = 1024.0;
  else if (unit == "m" || unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "t" || unit == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else if (unit == "tb") scale = 1e12;
  else throw bad();
  if (!std::isfinite(value)) throw bad();
  const double bytes = std::floor(value * scale);
  if (bytes < 1) throw UsageError(fmt::format("invalid memory size '{}': must be positive", original));
  if (bytes > 9.0e18) throw UsageError(fmt::format("invalid memory size '{}': too large", original));
  return static_cast<std::uint64_t>(bytes);
}

void check_memory_limit(const DeviceDescription& device, std::uint64_t bytes) {
  if (device.type == "cpu")
    throw UsageError(
        "--memory-limit caps an accelerator's memory allocator; the CPU has none (limit the process with ulimit -v or a "
        "cgroup instead)");
  if (device.type != "cuda" && device.type != "mps")
    throw UsageError(fmt::format("--memory-limit is supported on cuda and mps devices, not on {}", device.id));
  if (!device.total_memory_bytes || *device.total_memory_bytes == 0)
    throw UsageError(fmt::format("--memory-limit: the memory of {} is unknown, so no limit can be set", device.id));
  if (bytes > *device.total_memory_bytes)
    throw UsageError(fmt::format("--memory-limit {} is larger than the memory of {} ({})",
                                 format_bytes(static_cast<double>(bytes)), device.id,
                                 format_bytes(static_cast<double>(*device.total_memory_bytes))));
}

}  // namespace accelbench
