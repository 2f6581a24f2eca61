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
  const std::vector<std::string> header{
      "run_id", "run_uid", "published", "timestamp_utc", "host", "torch_version", "accelbench_version", "workload",
      "device", "dtype", "batch_size", "threads", "status", "n", "median_s", "ci_low_s", "ci_high_s", "mean_s",
      "stddev_s", "min_s", "max_s", "noisy", "samples_per_s", "epoch_s_estimate", "epoch_unit", "peak_memory_bytes",
      "speedup", "speedup_ci_low", "speedup_ci_high", "article_speedup", "error", "model",
      // appended after the older columns, which keep their places: over the CPU's fastest precision
      "speedup_over_fastest_cpu", "speedup_over_fastest_cpu_ci_low", "speedup_over_fastest_cpu_ci_high",
      "speedup_over_fastest_cpu_baseline_dtype",
      "numerics",  // a workload's choice of numerics, e.g. "residual stream in bfloat16" (empty: none)
      "impl", "compile"};  // the loop that trained it (cpp, python) and its torch.compile mode (empty: eager)
  std::string out;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (i) out += ',';
    out += header[i];
  }
  out += "\n";
  for (const auto& c : run.cases) {
    const auto* s = find_row_speedup(run.speedups, model_label(c.spec), c.spec.dtype, c.spec.device, c.spec.batch_size);
    const auto* fastest = find_speedup_over_fastest_cpu(run, c.spec);  // none: empty cells
    const double art = c.spec.graphs || c.spec.dtype != "float32" ? 0 : article_speedup(c.spec.workload);  // the article's are float32
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
                               ok && has_interval(c) ? num(c.stats.ci_low) : "",  // one sample: no interval
                               ok && has_interval(c) ? num(c.stats.ci_high) : "",
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
                               s ? num(s->ci_low) : "",
                               s ? num(s->ci_high) : "",
                               art > 0 && c.spec.device != "cpu" ? num(art) : "",
                               c.error,
                               model_label(c.spec),  // "mlp[graphs]": what tells a graphs row from the eager one
                               fastest ? num(fastest->ratio) : "",
                               fastest ? num(fastest->ci_low) : "",
                               fastest ? num(fastest->ci_high) : "",
                               fastest ? fastest->baseline_dtype : "",
                               c.numerics,
                               impl_name(c.spec),
                               c.spec.compile};
    for (std::size_t i = 0; i < f.size(); ++i) {
      if (i) out += ',';
      out += csv_field(f[i]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace accelbench
