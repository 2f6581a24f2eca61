#include "report/sweep_tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/advisor.h"
#include "core/durations.h"
#include "report/reports.h"
#include "report/terminal_table.h"
#include "system/machine_checks.h"

namespace accelbench {

using Rows = std::vector<std::vector<std::string>>;

// ---- cells ------------------------------------------------------------------------------------

std::string throughput_with_ci(const CaseResult& c) {
  if (!c.ok() || c.stats.median <= 0) return "-";
  const double b = static_cast<double>(c.spec.batch_size);
  if (!has_interval(c) || !(c.stats.ci_low > 0)) return format_count(c.samples_per_s) + (c.noisy ? "~" : "");
  const double lo = b / c.stats.ci_high, hi = b / c.stats.ci_low;
  return fmt::format("{} {}{}", format_count(c.samples_per_s), format_relative_interval(c.samples_per_s, lo, hi), c.noisy ? "~" : "");
}

namespace {
// The columns' names say which interval they hold (core/durations.h interval_name).
std::string throughput_header(const RunResult& run) { return fmt::format("samples/s ({})", case_interval_name(run)); }
std::string ratio_header(const std::string& name) { return fmt::format("{} [{}]", name, interval_name(false)); }
}  // namespace

std::string status_cell(const CaseResult& c) {
  std::string status = c.ok() ? "ok" : c.error;
  if (c.out_of_memory()) status = fmt::format("OOM at {}", c.spec.batch_size);
  if (status.size() > 60) status = status.substr(0, 57) + "...";
  return status;
}


// ---- header and ending ------------------------------------------------------------------------

std::string sweep_report_header(const RunResult& run, const std::string& title) {
  const auto& ctx = run.context;
  return fmt::format("accelbench {} ({}) | torch {} | {} | {} cores\n{}\n\n", ctx.accelbench_version, ctx.git_commit,
                     ctx.torch_version, ctx.cpu_model.empty() ? "CPU" : ctx.cpu_model, ctx.physical_cores, title);
}

std::string sweep_report_ending(const RunResult& run, const nlohmann::json& document) {
  std::string out;
  if (std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return c.noisy; }))
    out += "~ = noisy: CI target not met in the time allowed.\n";
  if (!run.context.distorted_by.empty())
    out += fmt::format("\nwarning: {} (by: {}; the warning before the points says how): the points above, and advice "
                       "from them, may be the machine's\n", kDistortionWarning, fmt::join(run.context.distorted_by, ", "));
  if (const auto advice = render_advice(advise(run, document)); !advice.empty()) out += "\n" + advice;
  return out;
}

// ---- batch ------------------------------------------------------------------------------------

namespace {
std::string batch_conclusion(const BatchSweep& s) {
  std::string out;
  if (knee_at_range_end(s))
    out += fmt::format("knee: none up to batch {}, the end of the range (throughput still rising; --to {} measures "
                       "beyond)\n", *s.knee, 2 * *s.knee);
  else if (s.knee)
    out += fmt::format("knee: batch {} (the smallest batch within {:.0f}% of the best throughput, {} samples/s at batch {})\n",
                       *s.knee, 100 * kKneeTolerance, format_count(s.best_samples_per_s.value_or(0)), s.best_batch.value_or(0));
  else
    out += "knee: none (no point ran)\n";
  if (s.first_oom) {
    const auto b = s.bisection.value_or(BisectionRange{});
    out += fmt::format("largest batch that fits: {} (first out of memory: OOM at {}; bisection between {} and {} to a resolution of {})\n",
                       s.largest_fit ? std::to_string(*s.largest_fit) : "none", *s.first_oom, b.low, b.high, b.resolution);
  } else if (s.largest_fit && *s.largest_fit == s.to) {
    out += fmt::format("largest batch that fits: {} or more (no out-of-memory up to {}, the end of the range{})\n", *s.largest_fit,
                       s.to, s.to_default ? ", by default" : "");
  } else if (s.largest_fit) {
    out += fmt::format("largest batch that ran: {} (no out-of-memory up to {}; the larger points failed, see their status)\n",
                       *s.largest_fit, s.to);
  } else {
    out += "largest batch that fits: none (no point ran)\n";
  }
  return out;
}
}  // namespace

std::string render_batch_sweep(const RunResult& run, const BatchSweep& s) {
  std::string out = sweep_report_header(
      run, fmt::format("batch sweep: {} on {} ({}), batches {}..{}{}{}", sweep_model_label(s), s.device, s.dtype, s.from, s.to,
                       s.isolated ? ", each point in a child process" : "",
                       s.memory_limit_bytes
                           ? fmt::format(", memory limited to {}", format_bytes(static_cast<double>(*s.memory_limit_bytes)))
                           : ""));
  std::vector<std::size_t> order(run.cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return run.cases[a].spec.batch_size < run.cases[b].spec.batch_size; });
  Rows t{{"batch", throughput_header(run), "median step", "peak memory", "status"}};
  for (auto i : order) {
    const auto& c = run.cases[i];
    std::string status = status_cell(c);
    if (i < s.points.size() && s.points[i].phase == "bisection") status += " (bisection)";
    t.push_back({std::to_string(c.spec.batch_size), throughput_with_ci(c), c.ok() ? format_seconds_short(c.stats.median) : "-",
                 c.ok() ? peak_memory_text(c) : "-", status});
  }
  return out + render_table(t, 0) + "\n" + batch_conclusion(s);
}

// ---- precision --------------------------------------------------------------------------------

namespace {
std::string pct_signed(double x) { return fmt::format("{:+.2g}%", 100 * x); }
double rel(double a, double b) { return (a - b) / std::max(1e-12, std::abs(b)); }

// The two parity cells: the loss after the steps and the gradient norm, against float32's.
void parity_cells(const PrecisionSweepPoint& p, const std::optional<Parity>& floor, std::vector<std::string>& row) {
  if (p.parity && p.parity->error.empty() && p.precision != "float32") {
    const auto& q = *p.parity;
    row.push_back(fmt::format("{:.4f} ({}{})", q.losses.back(), pct_signed(rel(q.losses.back(), q.reference_losses.back())),
                              q.skipped_steps ? fmt::format(", {} skipped", q.skipped_steps) : std::string()));
    row.push_back(q.grad_norm_rel_diff ? pct_signed(rel(*q.grad_norm, *q.reference_grad_norm)) : "-");
  } else if (p.parity && p.precision == "float32" && p.parity->error.empty()) {
    const bool has_floor = floor && floor->error.empty() && floor->steps > 0;
    row.push_back(has_floor ? fmt::format("{:.4f} (again: {})", p.parity->reference_losses.back(),
                                          pct_signed(rel(floor->losses.back(), floor->reference_losses.back())))
                            : fmt::format("{:.4f} (reference)", p.parity->reference_losses.back()));
    row.push_back(has_floor && floor->grad_norm_rel_diff
                      ? fmt::format("again: {}", pct_signed(rel(*floor->grad_norm, *floor->reference_grad_norm)))
                      : "reference");
  } else {
    row.push_back(p.parity ? "parity failed" : "-");
    row.push_back("-");
  }
}
}  // namespace

std::string render_precision_sweep(const RunResult& run, const PrecisionSweep& s) {
  std::string out = sweep_report_header(
      run, fmt::format("precision sweep: {} on {}, batch {}; speed-up over float32 and parity after {} identical steps "
                       "(dropout off)",
                       sweep_model_label(s), s.device, s.batch, s.parity_steps));
  Rows t{{"precision", "median step", throughput_header(run), ratio_header("speed-up"), "loss vs float32", "grad norm vs float32",
          "peak memory", "status"}};
  for (const auto& p : s.points) {
    std::vector<std::string> row{p.precision};
    if (p.case_index && *p.case_index < run.cases.size()) {
      const auto& c = run.cases[*p.case_index];
      const bool ok = c.ok();
      row.push_back(ok ? format_seconds_short(c.stats.median) : "-");
      row.push_back(throughput_with_ci(c));
      row.push_back(p.speedup ? format_ratio_ci(*p.speedup) : "-");
      parity_cells(p, s.parity_floor, row);
      row.push_back(ok ? peak_memory_text(c) : "-");
      std::string status = status_cell(c);
      if (ok && p.parity && !p.parity->error.empty()) status = "parity: " + p.parity->error.substr(0, 50);
      else if (ok && p.parity && p.parity->loss_rel_diff > s.parity_threshold) status = "loss drifts";
      row.push_back(status);
    } else {
      for (int i = 0; i < 6; ++i) row.push_back("-");
      row.push_back(p.error.size() > 60 ? p.error.substr(0, 57) + "..." : p.error);
    }
    t.push_back(row);
  }
  out += render_table(t, 0);
  out += fmt::format("\n\"loss drifts\": the loss after the parity steps differs from float32's by more than {:.2g}% (2%, or "
                     "twice float32's own run-to-run drift when larger). \"again\": float32 run a second time, the same way: "
                     "the floor of the comparison (non-deterministic kernels). \"N skipped\": optimizer steps that float16's loss "
                     "scaling skipped (Inf/NaN gradients while the scale backs off).\n",
                     100 * s.parity_threshold);
  if (s.best) out += fmt::format("best: {}\n", *s.best);
  return out;
}

// ---- threads, workers -------------------------------------------------------------------------

std::string best_setting_line(const SettingSweep& s) {
  if (!s.best) return "";
  return fmt::format("best: {} {} (the fewest within {:.0f}% of the best throughput, {} samples/s)\n", *s.best, s.kind,
                     100 * kKneeTolerance, format_count(s.best_samples_per_s.value_or(0)));
}

std::string render_setting_sweep(const RunResult& run, const SettingSweep& s) {
  const bool threads = s.kind == "threads";
  std::string out = sweep_report_header(
      run, threads ? fmt::format("threads sweep: {} on the CPU ({}), batch {}", sweep_model_label(s), s.dtype, s.batch)
                   : fmt::format("workers sweep: {} on {} ({}), batch {}", sweep_model_label(s), s.device, s.dtype, s.batch));
  Rows t;
  if (threads) t.push_back({"threads", throughput_header(run), "median step", ratio_header("speed-up over 1"), "efficiency", "status"});
  else t.push_back({"workers", throughput_header(run), "median step", "data wait", "status"});
  for (std::size_t i = 0; i < run.cases.size() && i < s.points.size(); ++i) {
    const auto& c = run.cases[i];
    const auto& p = s.points[i];
    const std::string median = c.ok() ? format_seconds_short(c.stats.median) : "-";
    if (threads) {
      t.push_back({std::to_string(p.setting), throughput_with_ci(c), median, p.speedup ? format_ratio_ci(*p.speedup) : "-",
                   p.efficiency ? fmt::format("{:.0f}%", 100 * *p.efficiency) : "-", status_cell(c)});
    } else {
      const bool staged = p.setting == kStagedWorkers;
      t.push_back({staged ? "staged" : std::to_string(p.setting), throughput_with_ci(c), median,
                   staged || !c.ok() ? "-" : fmt::format("{:.1f}%{}", 100 * c.data_wait_fraction, c.input_bound ? " (input-bound)" : ""),
                   status_cell(c)});
    }
  }
  out += render_table(t, 0);
  out += threads ? "\nefficiency: the speed-up over one thread divided by the threads (100% = perfect scaling).\n"
                 : "\nstaged: batches placed on the device before timing (compute only, the ceiling); 0 workers: each batch is "
                   "made in the training thread when needed; data wait: the share of each step spent waiting for input.\n";
  return out + best_setting_line(s);
}

// ---- crossover --------------------------------------------------------------------------------

std::string render_crossover_sweep(const RunResult& run, const CrossoverSweep& s) {
  std::string out = sweep_report_header(
      run, fmt::format("crossover: {} on {} against the CPU ({}), over {}{}", sweep_loop_label(s), s.device, s.dtype,
                       s.axis == "batch" ? "batch sizes" : "hidden widths",
                       s.axis == "width" ? fmt::format(" at batch {}", s.batch.value_or(0)) : std::string()));
  Rows t{{s.axis, s.device + " " + throughput_header(run), "cpu " + throughput_header(run), ratio_header("speed-up"), "status"}};
  for (const auto& p : s.points) {
    if (p.device_case_index >= run.cases.size() || p.cpu_case_index >= run.cases.size()) continue;
    const auto& d = run.cases[p.device_case_index];
    const auto& c = run.cases[p.cpu_case_index];
    std::string status = !d.ok() ? s.device + ": " + status_cell(d) : !c.ok() ? "cpu: " + status_cell(c) : "ok";
    if (p.speedup) status = p.speedup->low > 1 ? "accelerator faster" : p.speedup->high < 1 ? "CPU faster" : "within the noise";
    else if (d.ok() && c.ok()) status = "too few samples";
    t.push_back({std::to_string(p.x), throughput_with_ci(d), throughput_with_ci(c), p.speedup ? format_ratio_ci(*p.speedup) : "-",
                 status});
  }
  out += render_table(t, 0);
  return out + "\ncrossover: " + s.crossover_text + "\n";
}

}  // namespace accelbench
