#include "core/utilisation.h"

#include <fmt/format.h>

#include <cctype>

namespace accelbench {

const std::string& ceiling_precision_of(const CaseResult& c) {
  return c.ceiling_precision.empty() ? c.spec.dtype : c.ceiling_precision;
}

void apply_ceilings(CaseResult& c, const DeviceCeilings& ceilings) {
  c.ceiling_flops_per_s.reset();
  c.ceiling_share.reset();
  c.faster_precision.clear();
  c.faster_precision_flops_per_s.reset();
  c.ceiling_measured_utc.clear();
  c.bound.clear();
  c.bound_evidence.clear();
  const auto& precision = ceiling_precision_of(c);
  const auto* matmul = ceilings.find(CeilingKind::kMatmul, precision);
  if (!matmul || matmul->value() <= 0 || c.achieved_flops_per_s <= 0) return;
  c.ceiling_flops_per_s = matmul->value();
  c.ceiling_measured_utc = ceilings.measured_utc;
  c.ceiling_share = c.achieved_flops_per_s / matmul->value();
  for (const auto& other : ceilings.ceilings)
    if (other.kind == CeilingKind::kMatmul && other.samples > 0 && other.value() > 1.05 * matmul->value() &&
        (!c.faster_precision_flops_per_s || other.value() > *c.faster_precision_flops_per_s)) {
      c.faster_precision = other.variant;
      c.faster_precision_flops_per_s = other.value();
    }
  const double share = *c.ceiling_share;
  const auto of_ceiling = fmt::format("{:.0f}% of the {} matmul ceiling ({} of {}){}", 100 * share, precision,
                                      format_ceiling_value(CeilingKind::kMatmul, c.achieved_flops_per_s),
                                      format_ceiling_value(CeilingKind::kMatmul, matmul->value()),
                                      precision != c.spec.dtype ? fmt::format(": its convolutions run in {}", precision) : "");
  if (c.device_busy_fraction) {
    const double busy = *c.device_busy_fraction;
    const auto busy_text = fmt::format("device busy {:.0f}% of the step", 100 * busy);
    if (busy < kLaunchBoundShare) {
      c.bound = "launch-bound";
      c.bound_evidence = fmt::format("{}; {}", busy_text, of_ceiling);
    } else if (share >= kComputeBoundShare) {
      c.bound = "compute-bound";
      c.bound_evidence = fmt::format("{}; {}", busy_text, of_ceiling);
    } else if (const double per_kernel = c.device_operations_per_step > 0
                                             ? busy * c.stats.median / static_cast<double>(c.device_operations_per_step)
                                             : 0;
               per_kernel > 0 && per_kernel < kSmallKernelS) {
      c.bound = "small-kernel-bound";
      c.bound_evidence = fmt::format("{}, {} kernels a step averaging {:.1f} us each (under {:.0f} us: too small to "
                                     "fill the device); {}",
                                     busy_text, c.device_operations_per_step, per_kernel * 1e6, kSmallKernelS * 1e6,
                                     of_ceiling);
    } else {
      c.bound = "memory-bound";
      c.bound_evidence = fmt::format("{}, yet at {}: the time goes to kernels other than dense matmuls", busy_text,
                                     of_ceiling);
    }
    return;
  }
  if (share >= kComputeBoundShare) {
    c.bound = "compute-bound";
    c.bound_evidence = of_ceiling;
  } else {
    c.bound_evidence = of_ceiling + "; no device-busy figure for this case, so no verdict";
  }
}

std::string utilisation_note(const CaseResult& c) {
  if (!c.ceiling_share) return "";
  std::string verdict;
  if (c.bound == "launch-bound") return fmt::format("{:.0f}% of the {} matmul ceiling", 100 * *c.ceiling_share, ceiling_precision_of(c));  // the busy note says LAUNCH-BOUND
  for (const char ch : c.bound) verdict += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return fmt::format("{:.0f}% of the {} matmul ceiling{}", 100 * *c.ceiling_share, ceiling_precision_of(c),
                     verdict.empty() ? "" : ": " + verdict);
}

}  // namespace accelbench
