#include "core/case_figures.h"

#include <algorithm>
#include <cmath>

#include "core/durations.h"

namespace accelbench {

double olympic_mean(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  if (v.size() >= 3) v = std::vector<double>(v.begin() + 1, v.end() - 1);
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

std::int64_t steps_per_epoch(const CaseResult& c) {
  if (c.spec.batch_size <= 0) return 0;
  return static_cast<std::int64_t>(
      std::ceil(static_cast<double>(c.samples_per_epoch) / static_cast<double>(c.spec.batch_size)));
}

void derive_case_figures(CaseResult& r) {
  if (r.samples.empty()) return;
  r.stats = summarize(r.samples);
  r.relative_ci_half_width = r.stats.ci_half_width_relative();
  r.samples_per_s = static_cast<double>(r.spec.batch_size) / r.stats.median;
  r.epoch_s_estimate = r.stats.median * static_cast<double>(steps_per_epoch(r));
  r.achieved_flops_per_s = r.train_flops_per_sample * r.samples_per_s;
  if (!r.epoch_s_all.empty()) r.epoch_s_measured = olympic_mean(r.epoch_s_all);
  if (!r.data_wait_samples.empty()) {
    r.data_wait_fraction = summarize(r.data_wait_samples).median / r.stats.median;
    r.input_bound = r.data_wait_fraction > 0.10;
  }
  // The device's clock against the host's (a cross-check), and its busy share of the step.
  if (!r.device_samples.empty()) r.device_clock_ratio = summarize(r.device_samples).median / r.stats.median;
  if (!r.device_busy_samples.empty()) {
    r.device_busy_fraction = summarize(r.device_busy_samples).median / r.stats.median;
    r.launch_bound = *r.device_busy_fraction < kLaunchBoundShare;
  }
}

namespace {
// The resident memory the case added to its process: the peak less what the process held before
// the model was built (the interpreter, the libraries), where that was recorded.
double case_rss_bytes(const MemoryUsage& m) {
  const double peak = static_cast<double>(*m.peak_rss_bytes);
  return m.baseline_rss_bytes ? std::max(0.0, peak - static_cast<double>(*m.baseline_rss_bytes)) : peak;
}
}  // namespace

std::string peak_memory_text(const CaseResult& c) {
  if (c.memory.peak_allocated_bytes) return format_bytes(static_cast<double>(*c.memory.peak_allocated_bytes));
  if (c.memory.allocated_bytes) return format_bytes(static_cast<double>(*c.memory.allocated_bytes)) + " (now)";
  if (c.memory.peak_rss_bytes) return format_bytes(case_rss_bytes(c.memory)) + " RSS";
  return "-";
}

double peak_memory_bytes(const CaseResult& c) {
  if (c.memory.peak_allocated_bytes) return static_cast<double>(*c.memory.peak_allocated_bytes);
  if (c.memory.allocated_bytes) return static_cast<double>(*c.memory.allocated_bytes);
  if (c.memory.peak_rss_bytes) return case_rss_bytes(c.memory);
  return 0;
}

}  // namespace accelbench
