// The CSV report: one row per case, every number in SI units (seconds, bytes), RFC 4180 quoting.
#include <fmt/format.h>

#include "report/article_reference.h"
#include "report/reports.h"

namespace accelbench {

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += "\"\"";
    else out += ch;
  }
  return out + "\"";
}
std::string num(double v) { return fmt::format("{:.9g}", v); }

const std::vector<std::string>& csv_columns() {
  // Interval columns say which interval they hold (core/durations.h interval_name): this_run_95 is
  // the run's own precision, next_run_95 where the next run's median falls (the run-to-run spread).
  static const std::vector<std::string> columns{
      "run_id", "run_uid", "published", "timestamp_utc", "host", "torch_version", "accelbench_version", "workload",
      "device", "dtype", "batch_size", "threads", "status", "n", "median_s", "this_run_95_low_s", "this_run_95_high_s", "mean_s",
      "stddev_s", "min_s", "max_s", "noisy", "samples_per_s", "epoch_s_estimate", "epoch_unit", "peak_memory_bytes",
      "speedup", "speedup_this_run_95_low", "speedup_this_run_95_high", "error", "model",
      // over the CPU's fastest precision
      "speedup_over_fastest_cpu", "speedup_over_fastest_cpu_this_run_95_low", "speedup_over_fastest_cpu_this_run_95_high",
      "speedup_over_fastest_cpu_baseline_dtype",
      "numerics",  // a workload's choice of numerics, e.g. "residual stream in bfloat16" (empty: none)
      "impl", "compile",  // the loop that trained it (cpp, python) and its torch.compile mode (empty: eager)
      // where the run-to-run spread widened the interval: the next run's range (empty: not widened)
      "next_run_95_low_s", "next_run_95_high_s", "speedup_next_run_95_low", "speedup_next_run_95_high",
      "speedup_over_fastest_cpu_next_run_95_low", "speedup_over_fastest_cpu_next_run_95_high"};
  return columns;
}

// A speed-up's bounds: this run's precision (its level interval where the next run's range was
// shown instead, empty where that is not known), or the next run's range.
std::string this_run_bound(const Speedup* s, bool high) {
  if (!s) return "";
  if (!s->widened_by_history) return num(high ? s->ci_high : s->ci_low);
  return s->level_low > 0 ? num(high ? s->level_high : s->level_low) : "";
}
std::string next_run_bound(const Speedup* s, bool high) {
  return s && s->widened_by_history ? num(high ? s->ci_high : s->ci_low) : "";
}
}  // namespace

std::string render_csv_report(const ReportSource& src) {
  const auto& run = src.run;
  const auto& ctx = run.context;
  const bool published = is_published_run(run);
  std::string run_id, run_uid;
  if (src.document.contains("stored") && src.document["stored"].is_object()) {
    run_id = std::to_string(src.document["stored"].value("id", 0));
    run_uid = src.document["stored"].value("uid", "");
  }
  const auto& header = csv_columns();
  std::string out;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (i) out += ',';
    out += header[i];
  }
  out += "\n";
  for (const auto& c : run.cases) {
    const auto* s = find_row_speedup(run.speedups, model_label(c.spec), c.spec.dtype, c.spec.device, c.spec.batch_size);
    const auto* fastest = find_speedup_over_fastest_cpu(run, c.spec);  // none: empty cells
    const bool widened = c.run_to_run && c.run_to_run->widened;
    const double mem = peak_memory_bytes(c);
    const bool ok = c.ok();
    std::vector<std::string> f{run_id,
                               run_uid,
                               published ? "true" : "false",
                               ctx.timestamp_utc,
                               ctx.host,
                               ctx.torch_version,
                               ctx.accelbench_version,
                               c.spec.workload,
                               c.spec.device,
                               c.spec.dtype,
                               std::to_string(c.spec.batch_size),
                               std::to_string(c.spec.threads),
                               to_string(c.status),
                               std::to_string(c.stats.n),
                               ok ? num(c.stats.median) : "",
                               ok && has_interval(c) && !widened ? num(c.stats.ci_low) : "",  // one sample: no interval
                               ok && has_interval(c) && !widened ? num(c.stats.ci_high) : "",
                               ok ? num(c.stats.mean) : "",
                               ok ? num(c.stats.stddev) : "",
                               ok ? num(c.stats.min) : "",
                               ok ? num(c.stats.max) : "",
                               c.noisy ? "true" : "false",
                               ok ? num(c.samples_per_s) : "",
                               ok ? num(c.epoch_s_estimate) : "",
                               c.epoch_unit,
                               mem > 0 ? num(mem) : "",
                               s ? num(s->ratio) : "",
                               this_run_bound(s, false),
                               this_run_bound(s, true),
                               c.error,
                               model_label(c.spec),  // "mlp[graphs]": what tells a graphs row from the eager one
                               fastest ? num(fastest->ratio) : "",
                               this_run_bound(fastest, false),
                               this_run_bound(fastest, true),
                               fastest ? fastest->baseline_dtype : "",
                               c.numerics,
                               impl_name(c.spec),
                               c.spec.compile,
                               ok && widened ? num(c.stats.ci_low) : "",
                               ok && widened ? num(c.stats.ci_high) : "",
                               next_run_bound(s, false),
                               next_run_bound(s, true),
                               next_run_bound(fastest, false),
                               next_run_bound(fastest, true)};
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (i) out += ',';
      out += csv_field(f[i]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace accelbench
