#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/durations.h"
#include "core/errors.h"
#include "core/safe_write.h"
#include "report/article_reference.h"
#include "report/reports.h"

namespace accelbench {

using nlohmann::json;

void write_text_atomically(const std::string& path, const std::string& text) { write_file_atomically(path, text); }

std::vector<std::string> report_devices(const RunResult& run) {
  std::vector<std::string> devices;
  for (const auto& c : run.cases)
    if (std::find(devices.begin(), devices.end(), c.spec.device) == devices.end()) devices.push_back(c.spec.device);
  std::stable_partition(devices.begin(), devices.end(), [](const std::string& d) { return d == "cpu"; });
  return devices;
}

std::vector<std::string> report_workloads(const RunResult& run) {
  std::vector<std::string> models;
  for (const auto& c : run.cases)
    if (std::find(models.begin(), models.end(), model_label(c.spec)) == models.end()) models.push_back(model_label(c.spec));
  return models;
}

bool has_implementation_column(const RunResult& run) {
  return std::any_of(run.cases.begin(), run.cases.end(), [](const CaseResult& c) { return !c.spec.impl.empty(); });
}

void add_implementation_column(std::vector<std::vector<std::string>>& table, const RunResult& run) {
  if (!has_implementation_column(run) || table.size() != run.cases.size() + 1) return;
  table[0].insert(table[0].begin() + 1, "impl");
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    auto& row = table[i + 1];
    row[0] = model_label_without_impl(run.cases[i].spec);
    row.insert(row.begin() + 1, implementation_label(run.cases[i].spec));
  }
}

std::string report_rows_loop(const std::vector<ReportRow>& rows) {
  if (rows.empty() || rows.front().loop_in_label || rows.front().loop.empty()) return "";
  return rows.front().loop + " loop";
}

std::vector<ReportRow> report_rows(const RunResult& run) {
  std::vector<ReportRow> rows;
  bool several_dtypes = false, several_batches = false;
  const bool published = is_published_run(run);  // the article's figures: its loop is not ours to name
  for (const auto& c : run.cases) {
    several_dtypes = several_dtypes || c.spec.dtype != run.cases.front().spec.dtype;
    several_batches = several_batches || c.spec.batch_size != run.cases.front().spec.batch_size;
    const auto m = model_label(c.spec);
    if (std::none_of(rows.begin(), rows.end(), [&](const ReportRow& r) {
          return r.model == m && r.dtype == c.spec.dtype && r.batch == c.spec.batch_size;
        }))
      rows.push_back({m, c.spec.dtype, published ? m : model_label_without_impl(c.spec), published ? "" : loop_name(c.spec),
                      c.spec.batch_size});
  }
  const bool mixed = std::any_of(rows.begin(), rows.end(), [&](const ReportRow& r) { return r.loop != rows.front().loop; });
  for (auto& r : rows) {
    r.loop_in_label = mixed;
    if (mixed) r.label += " (" + r.loop + ")";
    if (several_dtypes) r.label += " " + r.dtype;
    if (several_batches) r.label += fmt::format(" b{}", r.batch);
    r.several_batches = several_batches;
  }
  return rows;
}

const CaseResult* find_row_case(const RunResult& run, const ReportRow& row, const std::string& device) {
  for (const auto& c : run.cases)
    if (model_label(c.spec) == row.model && c.spec.dtype == row.dtype && c.spec.device == device &&
        (row.batch == 0 || c.spec.batch_size == row.batch))
      return &c;
  return nullptr;
}

const Speedup* find_row_speedup(const std::vector<Speedup>& list, const std::string& model, const std::string& dtype,
                                const std::string& device, std::int64_t batch) {
  for (const auto& s : list)
    if (s.label() == model && s.dtype == dtype && s.device == device && (batch == 0 || s.batch_size == batch)) return &s;
  return nullptr;
}

const Speedup* find_speedup_over_fastest_cpu(const RunResult& run, const CaseSpec& spec) {
  return find_row_speedup(run.speedups_over_fastest_cpu, model_label(spec), spec.dtype, spec.device, spec.batch_size);
}

std::string over_fastest_cpu_text(const Speedup& s) {
  return fmt::format("{} (cpu {})", format_ratio_ci(s.ratio, s.ci_low, s.ci_high), s.baseline_dtype);
}

std::vector<std::vector<std::string>> over_fastest_cpu_rows(const RunResult& run, bool published) {
  if (run.speedups_over_fastest_cpu.empty()) return {};
  std::vector<std::vector<std::string>> t{
      {"model", "dtype", "device", "batch", fmt::format("speed-up over the CPU's fastest{}", published ? "" : " [" + speedup_interval_name(run.speedups_over_fastest_cpu) + "]")}};
  for (const auto& s : run.speedups_over_fastest_cpu)
    t.push_back({s.label(), s.dtype, s.device, std::to_string(s.batch_size),
                 published ? fmt::format("{:.2f}x (cpu {})", s.ratio, s.baseline_dtype) : over_fastest_cpu_text(s)});
  return t;
}

std::string speedup_interval_name(const std::vector<Speedup>& speedups) {
  const bool next = std::any_of(speedups.begin(), speedups.end(), [](const Speedup& s) { return s.widened_by_history; });
  return interval_name(next);
}

std::string speedup_ratio_text(const Speedup& s) {
  if (s.run_to_run && !s.run_to_run->too_wide.empty()) return fmt::format("{:.2f}x [{}]", s.ratio, kTooWideCell);
  return format_ratio_ci(s.ratio, s.ci_low, s.ci_high);
}

std::string case_interval_text(const CaseResult& c) {
  if (c.run_to_run && !c.run_to_run->too_wide.empty()) return kTooWideCell;
  if (!has_interval(c)) return "-";
  return format_relative_interval(c.stats.median, c.stats.ci_low, c.stats.ci_high);
}

std::string case_interval_name(const RunResult& run) {
  return interval_name(std::any_of(run.cases.begin(), run.cases.end(),
                                   [](const CaseResult& c) { return c.run_to_run && c.run_to_run->widened; }));
}

std::string speedup_words(const Speedup& s) {
  const auto name = s.dtype == "float32" ? s.label() : s.label() + " " + s.dtype;
  const auto which = interval_name(s.widened_by_history);
  if (!(s.ratio > 0) || !(s.ci_low > 0)) return fmt::format("{}: no interval", name);
  if (s.run_to_run && !s.run_to_run->too_wide.empty())
    return fmt::format("{}: this run cannot tell whether {} or the {} is faster ({:.2f}x measured): {}", name, s.device,
                       s.baseline_device, s.ratio, s.run_to_run->too_wide);
  if (s.ci_low > 1)
    return fmt::format("{}: {} is faster than the {} by {} ({})", name, s.device, s.baseline_device,
                       format_ratio_ci(s.ratio, s.ci_low, s.ci_high), which);
  if (s.ci_high < 1)
    return fmt::format("{}: the {} is faster than {} by {} ({})", name, s.baseline_device, s.device,
                       format_ratio_ci(1 / s.ratio, 1 / s.ci_high, 1 / s.ci_low), which);
  return fmt::format("{}: this run cannot tell whether {} or the {} is faster ({}, {}); more rounds (--rounds), more "
                     "stored runs of this host, --graphs (CUDA) or a larger --batch-size would narrow it",
                     name, s.device, s.baseline_device, format_ratio_ci(s.ratio, s.ci_low, s.ci_high), which);
}

std::string run_to_run_label(const RunToRun& r) {
  if (r.source == "fallback") return "CI: fallback constant";
  if (r.source == "rounds") return "CI: next run, from rounds";
  return fmt::format("CI: next run, from history ({} case{})", r.history_cases, r.history_cases == 1 ? "" : "s");
}

namespace {
double number_at(const json& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = obj.find(k); it != obj.end() && it->is_number()) return it->get<double>();
  return std::numeric_limits<double>::quiet_NaN();
}
const json* array_at(const json& obj, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = obj.find(k); it != obj.end() && it->is_array()) return &*it;
  return nullptr;
}

bool parse_telemetry(const json& t, TelemetryCurve& s) {
  if (!t.is_object()) return false;
  static const auto time_keys = {"t_s", "t", "time_s"};
  static const auto power_keys = {"power_w", "power", "watts"};
  static const auto temp_keys = {"temperature_c", "temp_c", "temperature"};
  if (const json* samples = array_at(t, {"samples", "series"})) {
    for (const auto& p : *samples) {
      if (!p.is_object()) continue;
      s.t_s.push_back(number_at(p, time_keys));
      s.power_w.push_back(number_at(p, power_keys));
      s.temperature_c.push_back(number_at(p, temp_keys));
    }
  } else if (const json* ts = array_at(t, time_keys)) {
    const json* pw = array_at(t, power_keys);
    const json* tc = array_at(t, temp_keys);
    for (std::size_t i = 0; i < ts->size(); ++i) {
      auto at = [&](const json* a) {
        return a && i < a->size() && (*a)[i].is_number() ? (*a)[i].get<double>() : std::numeric_limits<double>::quiet_NaN();
      };
      s.t_s.push_back(at(ts));
      s.power_w.push_back(at(pw));
      s.temperature_c.push_back(at(tc));
    }
  }
  // keep the points with a time
  TelemetryCurve clean{s.label, {}, {}, {}};
  for (std::size_t i = 0; i < s.t_s.size(); ++i) {
    if (!std::isfinite(s.t_s[i])) continue;
    clean.t_s.push_back(s.t_s[i]);
    clean.power_w.push_back(s.power_w[i]);
    clean.temperature_c.push_back(s.temperature_c[i]);
  }
  s = clean;
  return !s.t_s.empty();
}


// The engine's series: {"t_s": [...], "channels": {name: {"power_w": [...], "temperature_c": [...]}}}.
void parse_channels(const json& series, const std::string& label, std::vector<TelemetryCurve>& out) {
  const json* ts = array_at(series, {"t_s"});
  auto ch = series.find("channels");
  if (!ts || ch == series.end() || !ch->is_object()) return;
  for (const auto& [name, figs] : ch->items()) {
    if (!figs.is_object()) continue;
    const json* pw = array_at(figs, {"power_w"});
    const json* tc = array_at(figs, {"temperature_c"});
    if (!pw && !tc) continue;
    TelemetryCurve c{label + ": " + name, {}, {}, {}};
    for (std::size_t i = 0; i < ts->size(); ++i) {
      auto at = [&](const json* a) {
        return a && i < a->size() && (*a)[i].is_number() ? (*a)[i].get<double>() : std::numeric_limits<double>::quiet_NaN();
      };
      if (!(*ts)[i].is_number()) continue;
      c.t_s.push_back((*ts)[i].get<double>());
      c.power_w.push_back(at(pw));
      c.temperature_c.push_back(at(tc));
    }
    if (!c.t_s.empty()) out.push_back(std::move(c));
  }
}

void parse_any(const json& t, const std::string& label, std::vector<TelemetryCurve>& out) {
  if (!t.is_object()) return;
  if (auto s = t.find("series"); s != t.end() && s->is_object()) {
    parse_channels(*s, label, out);
    return;
  }
  TelemetryCurve c{label, {}, {}, {}};
  if (parse_telemetry(t, c)) out.push_back(std::move(c));
}
}  // namespace

std::vector<TelemetryCurve> telemetry_curves(const json& document) {
  std::vector<TelemetryCurve> out;
  if (!document.is_object()) return out;
  if (auto t = document.find("telemetry"); t != document.end()) parse_any(*t, "run", out);
  if (auto cs = document.find("cases"); cs != document.end() && cs->is_array()) {
    for (const auto& c : *cs) {
      if (!c.is_object() || !c.contains("telemetry")) continue;
      parse_any(c["telemetry"], fmt::format("{} on {}", c.value("workload", "?"), c.value("device", "?")), out);
    }
  }
  return out;
}

std::string machine_description(const RunContext& ctx, bool with_memory) {
  std::vector<std::string> parts{ctx.cpu_model.empty() ? "CPU" : ctx.cpu_model};
  if (ctx.physical_cores > 0 || ctx.logical_cores > 0)
    parts.push_back(fmt::format("{} physical / {} logical cores", ctx.physical_cores, ctx.logical_cores));
  std::string text = fmt::format("{} ({}", ctx.host, fmt::join(parts, "; "));
  if (with_memory && ctx.memory_bytes > 0) text += ", " + format_bytes(static_cast<double>(ctx.memory_bytes));
  return text + ")";
}

}  // namespace accelbench
