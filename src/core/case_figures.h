#pragma once
// The figures a case derives from its samples, computed in one place for a case measured in one
// go (engine/case_measurement) and for one merged from rounds (drivers/rounds): the summary, the
// throughput, the epoch estimate, FLOP/s, the data pipeline's wait and the device-busy share.
// No torch here.
#include <cstdint>
#include <string>
#include <vector>

#include "core/results.h"

namespace accelbench {

// MLPerf's olympic scoring: drop the fastest and the slowest, average the rest (a plain mean below
// 3 values; 0 when empty).
double olympic_mean(std::vector<double> values);

// Steps in one epoch at the case's batch size: ceil(samples per epoch / batch).
std::int64_t steps_per_epoch(const CaseResult& c);

// From r.samples (and r.data_wait_samples, r.device_samples, r.epoch_s_all): r.stats,
// relative_ci_half_width, samples_per_s, epoch_s_estimate, achieved_flops_per_s, data_wait_fraction,
// input_bound, device_clock_ratio, device_busy_fraction and launch_bound. Leaves them as they are when there is no sample.
void derive_case_figures(CaseResult& r);

// The case's peak memory as the tables show it: "1.2 GiB" (the device's peak allocation), "1.1 GiB
// (now)" (allocated at the end, where no peak is known), "900 MiB RSS" (the process's peak), else "-".
std::string peak_memory_text(const CaseResult& c);
// The same figure in bytes (CSV, HTML charts): 0 when unknown.
double peak_memory_bytes(const CaseResult& c);

}  // namespace accelbench
