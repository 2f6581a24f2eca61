#include "analysis/advisor.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/durations.h"

namespace accelbench {

namespace {
std::string subject_of(const CaseResult& c) {
  return c.spec.dtype == "float32" ? fmt::format("{} on {}", c.spec.workload, c.spec.device)
                                   : fmt::format("{} on {} ({})", c.spec.workload, c.spec.device, c.spec.dtype);
}
std::string pct(double x) { return fmt::format("{:.1f}%", 100 * x); }

const CaseResult* find_case(const RunResult& run, const std::string& w, const std::string& d, const std::string& t,
                            std::int64_t batch) {
  for (const auto& c : run.cases)
    if (c.status == "ok" && c.spec.workload == w && c.spec.device == d && c.spec.dtype == t && c.spec.batch_size == batch)
      return &c;
  return nullptr;
}
}  // namespace

std::vector<Advice> advise(const RunResult& run) {
  std::vector<Advice> out;

  // 1. Speed-ups: the accelerator barely wins (or loses): the model is overhead-bound at this batch.
  for (const auto& s : run.speedups) {
    const std::string subject = fmt::format("{} on {}", s.workload, s.device);
    const std::string figure = fmt::format("{:.2f}x [{:.2f}, {:.2f}]", s.ratio, s.ci_low, s.ci_high);
    if (s.ci_high < 1.0) {
      out.push_back({"accelerator-slower", subject,
                     fmt::format("the CPU is faster: {} runs at {} the CPU's speed at batch {}; the model is too small for the "
                                 "device at this batch: train it on the CPU, or raise the batch size (sweep batch) until the "
                                 "accelerator wins",
                                 s.device, figure, s.batch_size),
                     {"speedup=" + figure}});
    } else if (s.ratio < 1.5) {
      out.push_back({"overhead-bound", subject,
                     fmt::format("the accelerator barely wins: {} over the CPU at batch {}: kernel launches, not arithmetic, "
                                 "set the pace (the article's 1.09x MLP); larger batches use the device better",
                                 figure, s.batch_size),
                     {"speedup=" + figure}});
    }
  }

  for (const auto& c : run.cases) {
    if (c.status != "ok") continue;
    // 2. Input-bound: the data pipeline holds the training back.
    if (c.input_bound) {
      out.push_back({"input-bound", subject_of(c),
                     fmt::format("data wait is {} of each step ({} of {}): the loader is the bottleneck; use more loader "
                                 "workers (--workers), or prepare batches ahead of time",
                                 pct(c.data_wait_fraction), format_seconds_short(c.data_wait_fraction * c.stats.median),
                                 format_seconds_short(c.stats.median)),
                     {"data_wait_fraction=" + pct(c.data_wait_fraction)}});
    }
    // 3. Noisy: the numbers are less certain than asked for.
    if (c.noisy) {
      out.push_back({"noisy", subject_of(c),
                     fmt::format("the median's 95% CI is +-{} (target +-{}) after {} samples: close other programs, or give "
                                 "it more time (--max-time-per-case, --budget) before trusting differences under {}",
                                 pct(c.relative_ci_half_width), pct(c.ci_target), c.stats.n, pct(c.relative_ci_half_width)),
                     {"ci_half_width=" + pct(c.relative_ci_half_width), fmt::format("n={}", c.stats.n)}});
    }
    // 4. Memory headroom on the device.
    if (c.memory.peak_reserved_bytes) {
      for (const auto& d : run.context.devices) {
        if (d.id != c.spec.device || !d.total_memory_bytes || *d.total_memory_bytes == 0) continue;
        const double share = static_cast<double>(*c.memory.peak_reserved_bytes) / static_cast<double>(*d.total_memory_bytes);
        if (share > 0.8) {
          out.push_back({"memory-headroom", subject_of(c),
                         fmt::format("peak reserved memory is {} of the device's {} ({}): a larger batch will run out of "
                                     "memory; use bfloat16 or gradient checkpointing to go further",
                                     format_bytes(static_cast<double>(*c.memory.peak_reserved_bytes)),
                                     format_bytes(static_cast<double>(*d.total_memory_bytes)), pct(share)),
                         {"peak_reserved=" + format_bytes(static_cast<double>(*c.memory.peak_reserved_bytes))}});
        }
      }
    }
    // 5. Lower precision measured beside float32: quote the gain and the loss it reached.
    if (c.spec.dtype != "float32") {
      const auto* base = find_case(run, c.spec.workload, c.spec.device, "float32", c.spec.batch_size);
      if (base && !base->samples.empty() && !c.samples.empty()) {
        const auto r = ratio_of_medians(base->samples, c.samples);
        const std::string figure = fmt::format("{:.2f}x [{:.2f}, {:.2f}]", r.ratio, r.low, r.high);
        const double loss_gap = base->loss_after != 0 ? (c.loss_after - base->loss_after) / std::abs(base->loss_after) : 0;
        if (r.low > 1.05) {
          out.push_back({"precision-faster", subject_of(c),
                         fmt::format("{} is {} faster than float32 (loss after the measured steps {:.4f} vs {:.4f}); "
                                     "check the loss over a longer run before switching",
                                     c.spec.dtype, figure, c.loss_after, base->loss_after),
                         {"speedup=" + figure, fmt::format("loss_gap={:.1f}%", 100 * loss_gap)}});
        } else if (r.high < 0.95) {
          out.push_back({"precision-slower", subject_of(c),
                         fmt::format("{} is slower than float32 here ({} the speed): this device has no fast {} path; "
                                     "stay in float32",
                                     c.spec.dtype, figure, c.spec.dtype),
                         {"speedup=" + figure}});
        }
      }
    }
  }
  return out;
}

std::string render_advice(const std::vector<Advice>& advice) {
  if (advice.empty()) return "";
  std::string out = "Advice (each rests on the measurement it quotes):\n";
  for (const auto& a : advice) out += fmt::format("  - {}: {}\n", a.subject, a.text);
  return out;
}

}  // namespace accelbench
