#include "analysis/speedup_spread.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "core/rounds.h"
#include "core/t_distribution.h"

namespace accelbench {

namespace {
// "mlp[graphs]" -> "mlp", "mlp[width=8,graphs]" -> "mlp[width=8]": the label of the eager case.
std::string eager_label(std::string label) {
  for (const char* part : {",graphs]", "[graphs]"})
    if (const auto at = label.find(part); at != std::string::npos) label.replace(at, std::strlen(part), part[0] == ',' ? "]" : "");
  return label;
}

const CaseResult* ok_case(const RunResult& run, const std::string& model, const std::string& device, const Speedup& s) {
  for (const auto& c : run.cases)
    if (c.ok() && model_label(c.spec) == model && c.spec.device == device && c.spec.dtype == s.dtype &&
        c.spec.batch_size == s.batch_size && c.stats.median > 0 && std::isfinite(c.stats.median))
      return &c;
  return nullptr;
}

std::vector<double> round_medians(const CaseResult& c) {
  std::vector<double> out;
  for (const auto& r : c.rounds)
    if (r.median_s > 0 && std::isfinite(r.median_s)) out.push_back(r.median_s);
  return out;
}

// Every speed-up of the run with its two cases, the graph speed-ups too.
template <class F>
void for_each_speedup(const RunResult& run, F&& f) {
  for (const auto* list : {&run.speedups, &run.graph_speedups})
    for (const auto& s : *list)
      if (const auto cases = speedup_cases(run, s, list == &run.graph_speedups); cases.baseline && cases.device && s.ratio > 0)
        f(s, cases);
}
}  // namespace

SpeedupCases speedup_cases(const RunResult& run, const Speedup& s, bool graph) {
  return {ok_case(run, graph ? eager_label(s.label()) : s.label(), s.baseline_device, s), ok_case(run, s.label(), s.device, s)};
}

std::string speedup_kind(const CaseResult& device) { return "speed-up over " + spread_kind(device); }

std::string speedup_key(const Speedup& s) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}", s.label(), s.device, s.baseline_device, s.dtype, s.batch_size);
}

CaseVariances ratio_history_variances(const RunResult& run, const std::vector<CaseHistoryPoint>& history) {
  const auto stored = stored_cases(run, history);
  CaseVariances out;
  for_each_speedup(run, [&](const Speedup& s, const SpeedupCases& cases) {
    const auto a = stored.find(spread_case_key(cases.baseline->spec)), b = stored.find(spread_case_key(cases.device->spec));
    std::vector<double> logs;
    std::vector<std::int64_t> ids;
    CaseVariance v;
    if (a != stored.end() && b != stored.end()) {
      const std::map<std::int64_t, double> device(b->second.medians.begin(), b->second.medians.end());
      for (const auto& [id, median] : a->second.medians) {  // newest first
        const auto d = device.find(id);
        if (d == device.end() || ids.size() == kMaxEarlierRuns) continue;
        ids.push_back(id);
        logs.push_back(std::log(median / d->second));
      }
      std::reverse(ids.begin(), ids.end());
      std::reverse(logs.begin(), logs.end());
      v.distorted_runs = a->second.distorted_runs;
      for (const auto id : b->second.distorted_runs)
        if (std::find(v.distorted_runs.begin(), v.distorted_runs.end(), id) == v.distorted_runs.end()) v.distorted_runs.push_back(id);
    }
    logs.push_back(std::log(s.ratio));
    auto measured = series_variance(logs, ids, true);
    measured.distorted_runs = std::move(v.distorted_runs);
    measured.kind = speedup_kind(*cases.device);
    out[speedup_key(s)] = std::move(measured);
  });
  return out;
}

CaseVariances paired_rounds_variances(const RunResult& run) {
  CaseVariances out;
  for_each_speedup(run, [&](const Speedup& s, const SpeedupCases& cases) {
    const auto a = round_medians(*cases.baseline), b = round_medians(*cases.device);
    const auto n = std::min(a.size(), b.size());
    if (n < 2) return;
    std::vector<double> ratios;
    for (std::size_t i = 0; i < n; ++i) ratios.push_back(a[i] / b[i]);
    const double sd = sd_log(ratios), count = static_cast<double>(n);
    out[speedup_key(s)] = {speedup_kind(*cases.device), {sd * sd / count * median_variance_factor(n), count - 1}, {}, {}, 1};
  });
  return out;
}

RunToRun speedup_spread(const PooledVariance& history, const PooledVariance& paired, const RunToRun& baseline,
                        const RunToRun& device) {
  const double va = baseline.sd_log * baseline.sd_log, vb = device.sd_log * device.sd_log, v = va + vb;
  const bool shared = baseline.kind == device.kind && baseline.source == device.source && baseline.dof == device.dof && va == vb;
  const double welch = v > 0 ? v * v / ((va > 0 ? va * va / baseline.dof : 0) + (vb > 0 ? vb * vb / device.dof : 0)) : 0;
  const double cases_dof = shared ? baseline.dof : welch;
  RunToRun r = join_history_and_rounds(history, paired);
  if (r.source.empty()) {
    r.source = "cases";
    set_run_to_run_widths(r, v, cases_dof);
    return r;
  }
  r.source = r.source == "history" ? "ratio history" : r.source == "rounds" ? "paired rounds" : "ratio history and paired rounds";
  if (r.dof < kPriorRuns && v > 0 && cases_dof > 0) {
    r.prior_sd_log = std::sqrt(v);
    r.prior_basis = "its two cases' spreads added";
    set_run_to_run_widths(r, (kPriorRuns * v + r.dof * r.sd_log * r.sd_log) / (kPriorRuns + r.dof), kPriorRuns + r.dof);
  }
  return r;
}

void apply_speedup_spreads(RunResult& run, const std::vector<CaseHistoryPoint>& history) {
  const auto from_history = ratio_history_variances(run, history);
  const auto from_rounds = paired_rounds_variances(run);
  for (auto* list : {&run.speedups, &run.graph_speedups})
    for (auto& s : *list) {
      const auto cases = speedup_cases(run, s, list == &run.graph_speedups);
      if (!cases.baseline || !cases.device || !cases.baseline->run_to_run || !cases.device->run_to_run) continue;
      if (!(s.ratio > 0) || !std::isfinite(s.ratio)) continue;
      const auto kind = speedup_kind(*cases.device);
      const auto key = speedup_key(s);
      const auto h = moderated_variance(from_history, kind, key);
      RunToRun r = speedup_spread(h, moderated_variance(from_rounds, kind, key), *cases.baseline->run_to_run,
                                  *cases.device->run_to_run);
      if (!(r.sd_log > 0)) continue;
      r.kind = kind;
      r.history_cases = h.members;
      r.widened = true;
      double moved = 1;
      if (const auto own = from_history.find(key); own != from_history.end()) {
        r.earlier_runs = static_cast<std::size_t>(own->second.estimate.dof);
        r.distorted_runs = own->second.distorted_runs;
        r.outlier_runs = own->second.outlier_runs;
        moved = own->second.moved;
      }
      r.too_wide = too_wide_words(r, std::exp(2 * r.half_width_log), moved);
      s.level_low = s.ratio * std::exp(-r.level_half_width_log);
      s.level_high = s.ratio * std::exp(r.level_half_width_log);
      s.ci_low = s.ratio * std::exp(-r.half_width_log);
      s.ci_high = s.ratio * std::exp(r.half_width_log);
      s.widened_by_history = true;
      s.run_to_run = std::move(r);
    }
}

std::string speedup_spread_note(const RunResult& run) {
  std::string note;
  for (const auto* list : {&run.speedups, &run.graph_speedups})
    for (const auto& s : *list) {
      if (!s.run_to_run) continue;
      const auto& r = *s.run_to_run;
      const auto from = r.source == "cases"           ? std::string("its two cases' spreads added")
                        : r.source == "paired rounds" ? std::string("its paired rounds")
                                                      : fmt::format("its ratio in {} earlier run{}{}", r.earlier_runs,
                                                                    r.earlier_runs == 1 ? "" : "s",
                                                                    r.source == "ratio history" ? "" : " and its paired rounds");
      const auto prior = r.uses_prior() ? fmt::format(", its cases' spreads as a prior worth {:.0f} runs", kPriorRuns) : "";
      note += fmt::format("{}{} {}: {} (sd {:.1f}%, t with {:.0f} degrees of freedom{})", note.empty() ? "; speed-ups: " : ", ",
                          s.label(), s.device, from, 100 * r.sd_log, r.dof, prior);
    }
  return note;
}

}  // namespace accelbench
