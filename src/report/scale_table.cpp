#include "report/scale_table.h"

#include <fmt/format.h>

#include "core/durations.h"

namespace accelbench {

std::string format_scale_table(const ScaleResult& r) {
  std::string numerics;  // the same workload on every rank: the first measured rank's
  for (const auto& p : r.points)
    if (numerics.empty() && p.error.empty() && !p.ranks.empty()) numerics = p.ranks.front().numerics;
  std::string out = fmt::format("{} {}{} batch {}/GPU, buckets {} MB{}, {}\n", r.request.workload, r.request.dtype,
                                numerics.empty() ? "" : " (" + numerics + ")", r.request.batch_size, r.request.bucket_mb,
                                r.request.bucket_views ? " (gradients as bucket views)" : "", r.launcher == "env" ? "ranks from the environment" : "ranks started by accelbench");
  out += fmt::format("{:>4} {:>12} {:>13} {:>11} {:>20} {:>9} {:>13} {:>13}\n", "GPUs", "step ms", interval_name(false), "samples/s",
                     "efficiency", "allreduce", "busbw step", "busbw bare");
  for (const auto& p : r.points) {
    if (!p.error.empty()) {
      out += fmt::format("{:>4} failed: {}\n", p.world_size, p.error);
      continue;
    }
    const auto eff = p.efficiency ? format_ratio_ci(*p.efficiency) : std::string("-");
    const auto gbs = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f} GB/s", *v) : std::string("-"); };
    out += fmt::format("{:>4} {:>12.3f} {:>13} {:>11.1f} {:>20} {:>9} {:>13} {:>13}\n", p.world_size, 1e3 * p.step.median,
                       format_relative_interval(p.step.median, p.step.ci_low, p.step.ci_high), p.samples_per_s, eff,
                       p.comm_share ? fmt::format("{:.1f}%", 100 * *p.comm_share) : std::string("-"), gbs(p.busbw_step_gbs),
                       gbs(p.busbw_bare_gbs));
  }
  for (const auto& p : r.points)
    if (p.error.empty() && !p.ranks.empty() && p.ranks.front().all_reduced_after_backward)
      out += fmt::format("{} GPU{}: every gradient in one bucket ({}), all-reduced after the backward pass: one rank has "
                         "nothing to overlap it with (--bucket-mb gives DDP's buckets and hooks here too)\n", p.world_size,
                         p.world_size == 1 ? "" : "s", format_bytes(static_cast<double>(p.ranks.front().gradient_bytes)));
  for (const auto& p : r.points)
    if (p.error.empty() && p.overhead)
      out += fmt::format("{} GPU{}: the data-parallel step is {} ({}) as long as the same step without "
                         "data parallelism (rank {}, {} pairs in this process: another process may differ by more "
                         "than this interval)\n", p.world_size, p.world_size == 1 ? "" : "s", format_ratio_ci(p.overhead->ratio, p.overhead->low, p.overhead->high, 3),
                         interval_name(false), p.slowest_rank, p.step.n);
  for (const auto& a : r.advice) out += "advice: " + a + "\n";
  return out;
}

}  // namespace accelbench
