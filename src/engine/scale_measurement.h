#pragma once
// One rank of `accelbench scale`: the workload on cuda:LOCAL_RANK, its initial weights broadcast
// from rank 0, trained data-parallel (distributed/data_parallel_task.h) and timed the way a case is
// (warm-up until the step time is stable, steps grouped so a sample lasts long enough, samples until
// the median's CI meets its target), every decision taken by all ranks together so that they run
// the same steps; then a bare all-reduce of the gradients' size for comparison.
#include <memory>
#include <string>

#include "core/scale_records.h"

namespace accelbench {

class Collectives;

// Measures this rank over `collectives`; writes its result to `out_path` (atomically) before the
// closing barrier, so that rank 0 may read every rank's file after it. Never throws for what goes
// wrong in the measurement: the result then has `error` (the file is still written).
RankMeasurement measure_scale_rank(const ScaleRankRequest& request, Collectives& collectives, int local_rank,
                                   const std::string& out_path);

}  // namespace accelbench
