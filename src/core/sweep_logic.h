#pragma once
// The batch-size sweep's decisions, without torch so that they are tested with known answers
// (tests/unit/sweep_drivers_test.cpp): which batch to measure next (doubling, then a bisection after
// an out-of-memory), the knee, memory sizes as people write them, and a memory limit's checks.
// See docs/sweeps.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/results.h"

namespace accelbench {

inline constexpr std::int64_t kSweepDefaultFrom = 8;
// The default end of the doubling: an accelerator runs out of memory long before 4096 for the
// large workloads; a CPU with plenty of RAM may never run out, so it stops at 512.
inline constexpr std::int64_t kSweepDefaultEndAccelerator = 4096;
inline constexpr std::int64_t kSweepDefaultEndCpu = 512;
// The knee: the smallest batch whose throughput is within this fraction of the best.
inline constexpr double kKneeTolerance = 0.05;

// How one sweep point ended. A crash (the child killed by a signal) or any other error counts as
// `failed`.
enum class PointOutcome { fit, out_of_memory, failed };

// from, 2 from, 4 from, ... while <= to; `to` itself ends the list when the doubling does not land
// on it (--from 8 --to 100: 8 16 32 64 100). Requires 1 <= from <= to.
std::vector<std::int64_t> doubling_points(std::int64_t from, std::int64_t to);

// The bisection's resolution between a batch that fit and a larger one that did not: 1/16 of the
// interval, rounded down to a multiple of 8 when that is 8 or more, and at least 1.
// [64, 128) -> 4, [128, 256) -> 8, [256, 512) -> 16, [2048, 4096) -> 128, [0, 8) -> 1.
std::int64_t bisection_step(std::int64_t last_fit, std::int64_t first_oom);

// Which batch to measure next. Doubling first; a failed point (crash, other error) is recorded
// and the doubling goes on; the first out-of-memory ends the doubling and starts a bisection
// between the largest batch that fit below it (0 when none did) and it, over the batches
// last_fit + k x step (bisection_step), where a failed point counts as not fitting: 4 bisection
// points for an interval of 16 steps (5 where the step was rounded down).
class BatchSweepPlanner {
 public:
  BatchSweepPlanner(std::int64_t from, std::int64_t to);

  // The batch to measure next; nullopt when the sweep is done.
  std::optional<std::int64_t> next() const;
  // The outcome of the batch next() gave.
  void record(std::int64_t batch, PointOutcome outcome);

  bool bisecting() const { return bisecting_; }
  // Points still to measure, as far as can be told now (for sharing a time budget).
  std::size_t remaining_estimate() const;

  std::optional<std::int64_t> largest_fit() const { return largest_fit_; }   // largest batch that ran
  std::optional<std::int64_t> first_oom() const { return first_oom_; }       // the doubling point that ran out
  std::optional<std::int64_t> smallest_oom() const { return smallest_oom_; } // smallest batch that ran out
  // The bisection's interval and resolution, once it started.
  std::optional<std::int64_t> bisection_low() const;
  std::optional<std::int64_t> bisection_high() const;
  std::optional<std::int64_t> resolution() const;

 private:
  std::vector<std::int64_t> doubling_;
  std::size_t next_doubling_ = 0;
  bool bisecting_ = false;
  std::int64_t base_ = 0, step_ = 1, lo_k_ = 0, hi_k_ = 0, hi_batch_ = 0;
  std::vector<std::int64_t> fits_;
  std::optional<std::int64_t> largest_fit_, first_oom_, smallest_oom_;
  std::int64_t candidate(std::int64_t k) const;
};

struct ThroughputPoint {
  std::int64_t batch = 0;
  double samples_per_s = 0;
};

// The knee: the smallest batch whose samples/s is within `tolerance` of the best (points with a
// non-finite or non-positive throughput are ignored); nullopt when there is none.
std::optional<std::int64_t> find_knee(const std::vector<ThroughputPoint>& points, double tolerance = kKneeTolerance);

// The CPU intra-op threads a threads sweep measures: powers of two below `max_threads`, then
// `max_threads` itself (16 -> 1 2 4 8 16; 6 -> 1 2 4 6). Requires max_threads >= 1.
std::vector<int> thread_points(int max_threads);
// The data-loader workers a workers sweep measures: 0 (in the training thread), then powers of two
// below `max_workers`, then `max_workers` (4 -> 0 1 2 4; 6 -> 0 1 2 4 6). Requires max_workers >= 0.
std::vector<int> worker_points(int max_workers);

// The accelerator's speed-up over the CPU at one point of a crossover sweep (a batch size or a
// width), with its 95% CI.
struct SpeedupPoint {
  std::int64_t x = 0;
  double ratio = 0, low = 0, high = 0;
};
enum class CrossoverKind {
  accelerator_always,  // faster (CI above 1) at every point of the range
  crosses,             // faster from `at` to the end of the range, not below it
  cpu_always,          // the CPU faster (CI below 1) at every point
  never,               // the accelerator is not faster at the end of the range (CIs touch 1 or the CPU wins)
  none,                // no point measured
};
struct Crossover {
  CrossoverKind kind = CrossoverKind::none;
  std::optional<std::int64_t> at;        // the smallest x from which the accelerator is faster up to the end
  std::optional<std::int64_t> cpu_until; // the largest x below `at` (or anywhere, when it never crosses) where the CPU is faster
};
// Where the accelerator overtakes the CPU: the smallest x such that the speed-up's CI lies above 1
// at x and at every larger x of the range (so a lucky point below a slower one does not count).
Crossover find_crossover(std::vector<SpeedupPoint> points);
std::string describe_crossover(const Crossover& c, const std::string& axis);

// "16GiB", "512 MiB", "1.5G", "8GB", "1000000" (bytes). Binary units: KiB MiB GiB TiB and the bare
// K M G T; decimal: KB MB GB TB (case-insensitive). Throws UsageError (one line) on anything else,
// on a negative size or on zero.
std::uint64_t parse_memory_size(std::string_view text);

// Checks --memory-limit against the device it is for: refused on the CPU, on a device whose memory
// is unknown, and above the device's memory. Throws UsageError (one line).
void check_memory_limit(const DeviceDescription& device, std::uint64_t bytes);

}  // namespace accelbench
