#pragma once
// The checks of the requests that the hidden commands read as JSON (`_measure-case --spec-json`,
// `_scale-rank --request-json`): the same ranges as the public flags that fill them, so that a
// request written by hand (or damaged) is refused with one line naming the field (exit 2) before
// anything is built or measured, never measured into a misleading failure.
#include <string>

#include "core/options.h"

namespace accelbench {

struct MeasureRequest;
struct ScaleRankRequest;

// How a case is measured and what its workload reads: the stopping rule (ci_target, min_samples,
// finite non-negative times; max_time_s 0 is a sweep point with no time left: its floor samples
// only), warm-up, telemetry rate, epochs, the inputs.
void check_measure_options(const MeasureOptions& options);
// The case (a known workload on a present device in a precision it runs, batch_size in [1, 2^24],
// threads, width) and its options. UsageError "_measure-case: bad request: ..." naming the field.
void check_measure_request(const MeasureRequest& request);
// The workload (one that trains data-parallel), precision, batch_size, bucket_mb in (0, 4096], a
// positive collective timeout and the options. UsageError "_scale-rank: bad request: ...".
void check_scale_rank_request(const ScaleRankRequest& request);

}  // namespace accelbench
