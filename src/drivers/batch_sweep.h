#pragma once
// The batch sweep: throughput and memory against batch size, doubling from `from`, then a
// bisection after the first out-of-memory (BatchSweepPlanner) to the largest batch that fits; the
// knee. A point is classified by its failure kind: out of memory steers the bisection, any other
// failure (a crashed child, a backend error) is recorded and the sweep goes on. No torch here.
#include <cstdint>

#include "drivers/sweep_runner.h"

namespace accelbench {

struct BatchSweepRequest {
  CaseSpec base;                    // model, device, precision, threads, width, checkpoint
  MeasureOptions options;
  std::int64_t from = 8, to = 512;
  bool to_default = false;          // `to` is the default end of the range
  bool isolated = true;             // each point in a child process (the measurer is an IsolatedMeasurer)
  std::uint64_t memory_limit_bytes = 0;
};

// Exit status 1 when a point failed (other than out of memory) or no batch fit.
SweepOutcome run_batch_sweep(const BatchSweepRequest& request, const SweepEnvironment& env);

// How a point ended, by its failure kind.
PointOutcome classify_point(const CaseResult& result);

}  // namespace accelbench
