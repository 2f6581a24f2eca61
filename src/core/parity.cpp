#include "core/parity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace accelbench {

namespace {
double relative_diff(double x, double ref) {
  if (!std::isfinite(x) || !std::isfinite(ref)) return std::numeric_limits<double>::infinity();
  const double scale = std::max(std::abs(ref), 1e-12);
  return std::abs(x - ref) / scale;
}
}  // namespace

Parity make_parity(const ParityTrace& run, const ParityTrace& reference, const std::string& reference_label) {
  Parity p;
  p.reference = reference_label;
  p.losses = run.losses;
  p.reference_losses = reference.losses;
  p.grad_norm = run.grad_norm;
  p.skipped_steps = run.skipped_steps;
  p.reference_grad_norm = reference.grad_norm;
  if (!reference.error.empty()) {
    p.error = "the reference run failed: " + reference.error;
    return p;
  }
  if (!run.error.empty()) {
    p.error = run.error;
    return p;
  }
  const std::size_t n = std::min(run.losses.size(), reference.losses.size());
  if (n == 0) {
    p.error = "no training step to compare";
    return p;
  }
  p.steps = static_cast<int>(n);
  p.loss_rel_diff = relative_diff(run.losses[n - 1], reference.losses[n - 1]);
  for (std::size_t i = 0; i < n; ++i) p.max_loss_rel_diff = std::max(p.max_loss_rel_diff, relative_diff(run.losses[i], reference.losses[i]));
  if (run.grad_norm && reference.grad_norm) p.grad_norm_rel_diff = relative_diff(*run.grad_norm, *reference.grad_norm);
  return p;
}

std::string describe_parity(const Parity& p) {
  if (!p.error.empty()) return "parity: " + p.error;
  auto signed_pct = [](double x, double ref) { return fmt::format("{:+.2g}%", 100 * (x - ref) / std::max(std::abs(ref), 1e-12)); };
  std::string out = fmt::format("loss {} (max |d| {:.2g}%)", signed_pct(p.losses[p.steps - 1], p.reference_losses[p.steps - 1]),
                                100 * p.max_loss_rel_diff);
  if (p.grad_norm_rel_diff) out += fmt::format(", grad norm {}", signed_pct(*p.grad_norm, *p.reference_grad_norm));
  out += fmt::format(" after {} step{} vs {}", p.steps, p.steps == 1 ? "" : "s", p.reference);
  if (p.skipped_steps > 0)
    out += fmt::format(" (loss scaling skipped {} of the {} optimizer steps)", p.skipped_steps, p.steps);
  return out;
}

}  // namespace accelbench
