#include "report/profile_table.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/durations.h"

namespace accelbench {

namespace {
std::string format_calls(double c) {
  return c == static_cast<double>(static_cast<std::int64_t>(c)) ? fmt::format("{}", static_cast<std::int64_t>(c))
                                                                 : fmt::format("{:.1f}", c);
}
std::string shorten(const std::string& s, std::size_t w) { return s.size() <= w ? s : s.substr(0, w - 3) + "..."; }
}  // namespace

std::string render_profile_table(const OpProfile& p, std::size_t top) {
  const double steps = std::max(1, p.steps);
  const double ms = 1e-6 / steps;  // ns over all steps -> ms per step
  const bool accelerator = p.device_type != "cpu";
  std::string out;
  out += fmt::format("accelbench profile: {} on {}, batch {}, {} step{} profiled after {} warm-up step{}\n", p.workload,
                     p.device, p.batch_size, p.steps, p.steps == 1 ? "" : "s", p.warmup_steps, p.warmup_steps == 1 ? "" : "s");
  out += fmt::format("per step: wall {:.3f} ms, host busy {:.3f} ms, device busy {}\n", p.wall_ns * ms, p.host_busy_ns * ms,
                     p.device_busy_ns ? fmt::format("{:.3f} ms", *p.device_busy_ns * ms)
                                      : std::string(accelerator ? "n/a (the profiler records no device activity for this backend)"
                                                                : "n/a (CPU run)"));
  out += fmt::format("top {} ops by {} time (per step; % of the step's wall time):\n",
                     std::min(top, p.ops.size()), p.share_basis);
  const std::size_t w = 44;
  out += fmt::format("  {:<{}} {:>7} {:>12} {:>10} {:>9}\n", "op", w, "calls", "self CPU ms", "device ms", "% of step");
  auto line = [&](const OpRow& r) {
    out += fmt::format("  {:<{}} {:>7} {:>12.3f} {:>10} {:>8.1f}%\n", shorten(r.name, w), w,
                       format_calls(static_cast<double>(r.calls) / steps), r.self_cpu_ns * ms,
                       p.device_activity ? fmt::format("{:.3f}", r.device_ns * ms) : std::string("n/a"), 100 * r.share);
  };
  for (std::size_t i = 0; i < p.ops.size() && i < top; ++i) line(p.ops[i]);
  if (p.ops.size() > top) {
    OpRow rest;
    rest.name = fmt::format("[{} more aten ops]", p.ops.size() - top);
    for (std::size_t i = top; i < p.ops.size(); ++i) {
      rest.calls += p.ops[i].calls;
      rest.self_cpu_ns += p.ops[i].self_cpu_ns;
      rest.device_ns += p.ops[i].device_ns;
      rest.share += p.ops[i].share;
    }
    line(rest);
  }
  line(p.other_host);

  if (!accelerator) {
    out += "host<->device copies: none (CPU run)\n";
  } else if (p.copies.empty()) {
    out += "host<->device copies: none recorded\n";
  } else {
    out += "host<->device copies (aten::copy_ across devices, .item()):\n";
    for (const auto& c : p.copies)
      out += fmt::format("  {:<18} {} per step, {} per step, {:.3f} ms host per step\n", c.direction,
                         format_calls(static_cast<double>(c.count) / steps), format_bytes(static_cast<double>(c.bytes) / steps),
                         c.host_ns * ms);
  }
  for (const auto& c : p.device_copies)
    out += fmt::format("  device memcpy {:<6} {} per step, {}, {:.3f} ms device per step\n", c.direction,
                       format_calls(static_cast<double>(c.count) / steps),
                       c.bytes >= 0 ? format_bytes(static_cast<double>(c.bytes) / steps) + " per step" : "bytes n/a",
                       c.device_ns * ms);
  if (accelerator) {
    if (p.cpu_ops.empty()) {
      out += "ops on the CPU during this accelerator run: none (no aten op had all its tensor inputs on the CPU)\n";
    } else {
      out += "ops on the CPU during this accelerator run (all tensor inputs on the CPU):\n";
      for (const auto& r : p.cpu_ops)
        out += fmt::format("  {:<32} {} per step, {:.3f} ms host per step, e.g. {}\n", shorten(r.name, 32),
                           format_calls(static_cast<double>(r.calls) / steps), r.host_ns * ms, shorten(r.example_inputs, 80));
    }
  }
  if (p.device_type == "mps" || !p.fallback_warnings.empty()) {
    if (p.fallback_warnings.empty()) {
      out += "MPS CPU fallbacks: no fallback warnings during the profiled steps\n";
    } else {
      out += "MPS CPU fallbacks (warnings during the profiled steps):\n";
      for (const auto& [op, count] : p.fallback_warnings)
        out += fmt::format("  {:<32} {} per step\n", op, format_calls(static_cast<double>(count) / steps));
    }
  }
  if (!p.fallback_suspects.empty()) {
    out += "ops that moved their inputs to the CPU (aten::_to_cpu inside: the CPU fallback's pattern):\n";
    for (const auto& [op, count] : p.fallback_suspects)
      out += fmt::format("  {:<32} {} per step\n", op, format_calls(static_cast<double>(count) / steps));
  }
  if (!p.trace_path.empty()) out += fmt::format("Chrome trace: {}\n", p.trace_path);
  return out;
}

}  // namespace accelbench
