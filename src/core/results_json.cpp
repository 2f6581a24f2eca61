#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/results.h"
#include "core/errors.h"
#include "core/json_util.h"

namespace accelbench {

using nlohmann::json;
using json_util::get_if;
using json_util::get_optional;
using json_util::put_optional;

namespace {
void required_string(const json& j, const char* key, std::string& v) {
  const auto it = j.find(key);
  if (it == j.end()) throw std::runtime_error(std::string("field '") + key + "' is missing");
  if (!it->is_string())
    throw std::runtime_error(std::string("field '") + key + "': a string was expected, found " + it->type_name());
  v = it->get<std::string>();
}
// A case's "run_to_run" block (analysis/run_to_run): nullopt when absent or null.
std::optional<RunToRun> run_to_run_from_json(const json& j) {
  const auto r = j.find("run_to_run");
  if (r == j.end() || !r->is_object()) return std::nullopt;
  RunToRun rr;
  get_if(*r, "earlier_runs", rr.earlier_runs);
  get_if(*r, "sd_log", rr.sd_log);
  get_if(*r, "half_width_log", rr.half_width_log);
  get_if(*r, "widened", rr.widened);
  get_if(*r, "prior_sd_log", rr.prior_sd_log);
  get_if(*r, "prior_basis", rr.prior_basis);
  get_if(*r, "dof", rr.dof);
  get_if(*r, "level_half_width_log", rr.level_half_width_log);
  get_if(*r, "kind", rr.kind);
  get_if(*r, "source", rr.source);
  get_if(*r, "history_cases", rr.history_cases);
  get_if(*r, "distorted_runs", rr.distorted_runs);
  get_if(*r, "outlier_runs", rr.outlier_runs);
  get_if(*r, "too_wide", rr.too_wide);
  if (!std::isfinite(rr.dof) || rr.dof < 0 || !std::isfinite(rr.level_half_width_log) || rr.level_half_width_log < 0)
    throw std::runtime_error("field 'run_to_run': dof and level_half_width_log must be finite and not negative");
  if (!std::isfinite(rr.sd_log) || rr.sd_log < 0 || !std::isfinite(rr.half_width_log) || rr.half_width_log < 0 ||
      !std::isfinite(rr.prior_sd_log) || rr.prior_sd_log < 0)
    throw std::runtime_error("field 'run_to_run': sd_log, half_width_log and prior_sd_log must be finite and not negative");
  return rr;
}

// The block above, written: the spread, both intervals' half-widths and where the estimate came from.
json run_to_run_json(const RunToRun& r) {
  return json{{"earlier_runs", r.earlier_runs}, {"sd_log", r.sd_log}, {"dof", r.dof},
              {"half_width_log", r.half_width_log}, {"level_half_width_log", r.level_half_width_log},
              {"interval", "next run's range: t * sd_log * sqrt(2); this run's precision: t * sd_log"},
              {"widened", r.widened}, {"kind", r.kind}, {"source", r.source}, {"history_cases", r.history_cases},
              {"prior_sd_log", r.prior_sd_log}, {"prior_basis", r.prior_basis},
              {"distorted_runs", r.distorted_runs}, {"outlier_runs", r.outlier_runs}, {"too_wide", r.too_wide}};
}
}  // namespace

void to_json(json& j, const CaseSpec& v) {
  j = json{{"workload", v.workload}, {"device", v.device}, {"dtype", v.dtype},
           {"batch_size", v.batch_size}, {"threads", v.threads}, {"width", v.width}, {"checkpoint", v.checkpoint}};
  if (v.graphs) j["graphs"] = true;
  if (!v.impl.empty()) j["impl"] = v.impl;
  if (!v.compile.empty()) j["compile"] = v.compile;
}
void from_json(const json& j, CaseSpec& v) {
  required_string(j, "workload", v.workload);
  required_string(j, "device", v.device);
  get_if(j, "dtype", v.dtype);
  get_if(j, "batch_size", v.batch_size);
  if (v.batch_size < 0) throw std::runtime_error("field 'batch_size': " + std::to_string(v.batch_size) + " is negative");
  get_if(j, "threads", v.threads);
  get_if(j, "width", v.width);
  get_if(j, "checkpoint", v.checkpoint);
  get_if(j, "graphs", v.graphs);
  get_if(j, "impl", v.impl);
  get_if(j, "compile", v.compile);
}

const char* to_string(CaseStatus status) { return status == CaseStatus::ok ? "ok" : "failed"; }

const char* to_string(FailureKind kind) {
  switch (kind) {
    case FailureKind::none: return "none";
    case FailureKind::out_of_memory: return "out_of_memory";
    case FailureKind::diverged: return "diverged";
    case FailureKind::backend_error: return "backend_error";
    case FailureKind::crashed: return "crashed";
  }
  return "backend_error";
}

namespace {
FailureKind failure_kind_named(const std::string& name) {
  for (auto k : {FailureKind::none, FailureKind::out_of_memory, FailureKind::diverged, FailureKind::backend_error,
                 FailureKind::crashed})
    if (name == to_string(k)) return k;
  return FailureKind::backend_error;
}
}  // namespace

FailureKind failure_kind_from_message(const std::string& error) {
  if (error.rfind("out of memory", 0) == 0) return FailureKind::out_of_memory;
  if (error.rfind("loss became", 0) == 0 || error.find("training diverged") != std::string::npos) return FailureKind::diverged;
  if (error.rfind("child ", 0) == 0 || error.rfind("crashed", 0) == 0) return FailureKind::crashed;
  return FailureKind::backend_error;
}

std::string model_label(const CaseSpec& spec) {
  std::string extra;
  if (spec.width > 0) extra = "width=" + std::to_string(spec.width);
  if (spec.checkpoint) extra += std::string(extra.empty() ? "" : ",") + "checkpoint";
  if (spec.graphs) extra += std::string(extra.empty() ? "" : ",") + "graphs";
  if (!spec.impl.empty()) extra += (extra.empty() ? "" : ",") + spec.impl;
  if (!spec.compile.empty()) extra += (extra.empty() ? "" : ",") + ("compile=" + spec.compile);
  return extra.empty() ? spec.workload : spec.workload + "[" + extra + "]";
}

std::string model_label_without_impl(const CaseSpec& spec) {
  CaseSpec s = spec;
  s.impl.clear();
  s.compile.clear();
  return model_label(s);
}

void to_json(json& j, const Summary& v) {
  j = json{{"n", v.n},           {"median", v.median}, {"mean", v.mean},     {"stddev", v.stddev},
           {"q1", v.q1},         {"q3", v.q3},         {"iqr", v.iqr},       {"min", v.min},
           {"max", v.max},       {"ci_low", v.ci_low}, {"ci_high", v.ci_high},
           {"ci_confidence", v.ci_confidence},         {"outliers", v.outliers}};
}
void from_json(const json& j, Summary& v) {
  get_if(j, "n", v.n); get_if(j, "median", v.median); get_if(j, "mean", v.mean);
  get_if(j, "stddev", v.stddev); get_if(j, "q1", v.q1); get_if(j, "q3", v.q3);
  get_if(j, "iqr", v.iqr); get_if(j, "min", v.min); get_if(j, "max", v.max);
  get_if(j, "ci_low", v.ci_low); get_if(j, "ci_high", v.ci_high);
  get_if(j, "ci_confidence", v.ci_confidence); get_if(j, "outliers", v.outliers);
}

void to_json(json& j, const RoundResult& v) {
  j = json{{"median_s", v.median_s}, {"samples", v.samples}, {"warmup_steps", v.warmup_steps},
           {"discarded_samples", v.discarded_samples}, {"drifting", v.drifting}, {"wall_s", v.wall_s}};
}
void from_json(const json& j, RoundResult& v) {
  get_if(j, "median_s", v.median_s);
  get_if(j, "samples", v.samples);
  get_if(j, "warmup_steps", v.warmup_steps);
  get_if(j, "discarded_samples", v.discarded_samples);
  get_if(j, "drifting", v.drifting);
  get_if(j, "wall_s", v.wall_s);
}

bool loss_rose(const CaseResult& c) { return c.ok() && c.loss_after > c.loss_before; }

void to_json(json& j, const MemoryUsage& v) {
  j = json::object();
  put_optional(j, "peak_allocated_bytes", v.peak_allocated_bytes);
  put_optional(j, "peak_reserved_bytes", v.peak_reserved_bytes);
  put_optional(j, "allocated_bytes", v.allocated_bytes);
  put_optional(j, "reserved_bytes", v.reserved_bytes);
  put_optional(j, "peak_rss_bytes", v.peak_rss_bytes);
  put_optional(j, "baseline_rss_bytes", v.baseline_rss_bytes);
  j["source"] = v.source;
}
void from_json(const json& j, MemoryUsage& v) {
  get_optional(j, "peak_allocated_bytes", v.peak_allocated_bytes);
  get_optional(j, "peak_reserved_bytes", v.peak_reserved_bytes);
  get_optional(j, "allocated_bytes", v.allocated_bytes);
  get_optional(j, "reserved_bytes", v.reserved_bytes);
  get_optional(j, "peak_rss_bytes", v.peak_rss_bytes);
  get_optional(j, "baseline_rss_bytes", v.baseline_rss_bytes);
  get_if(j, "source", v.source);
}

void to_json(json& j, const CaseResult& v) {
  j = json{{"workload", v.spec.workload},
           {"device", v.spec.device},
           {"dtype", v.spec.dtype},
           {"batch_size", v.spec.batch_size},
           {"threads", v.spec.threads},
           {"width", v.spec.width},
           {"checkpoint", v.spec.checkpoint},
           {"graphs", v.spec.graphs},
           {"status", to_string(v.status)},
           {"failure", to_string(v.failure)},
           {"error", v.error},
           {"stats", v.stats},
           {"noisy", v.noisy},
           {"ci_target", v.ci_target},
           {"relative_ci_half_width", v.relative_ci_half_width},
           {"steps_per_sample", v.steps_per_sample},
           {"warmup", {{"steps", v.warmup_steps}, {"seconds", v.warmup_s}, {"stable", v.warmup_stable}}},
           {"measure_s", v.measure_s},
           {"wall_s", v.wall_s},
           {"samples_per_s", v.samples_per_s},
           {"epoch", {{"samples_per_epoch", v.samples_per_epoch}, {"unit", v.epoch_unit},
                      {"seconds_estimate", v.epoch_s_estimate},
                      {"seconds_measured", v.epoch_s_measured ? json(*v.epoch_s_measured) : json(nullptr)},
                      {"seconds_each", v.epoch_s_all}}},
           {"train_flops_per_sample", v.train_flops_per_sample},
           {"achieved_flops_per_s", v.achieved_flops_per_s},
           {"utilisation", {{"ceiling_flops_per_s", v.ceiling_flops_per_s ? json(*v.ceiling_flops_per_s) : json(nullptr)},
                            {"ceiling_measured_utc", v.ceiling_measured_utc},
                            {"ceiling_precision", v.ceiling_precision},
                            {"share_of_ceiling", v.ceiling_share ? json(*v.ceiling_share) : json(nullptr)},
                            {"faster_precision", v.faster_precision},
                            {"faster_precision_flops_per_s",
                             v.faster_precision_flops_per_s ? json(*v.faster_precision_flops_per_s) : json(nullptr)},
                            {"bound", v.bound},
                            {"evidence", v.bound_evidence},
                            {"device_operations_per_step", v.device_operations_per_step}}},
           {"loss_before", v.loss_before},
           {"loss_after", v.loss_after},
           {"parameter_count", v.parameter_count},
           {"data_source", v.data_source},
           {"synthetic_data", v.synthetic_data},
           {"optimizer", v.optimizer},
           {"pipeline", v.pipeline},
           {"numerics", v.numerics},
           {"checkpointable", v.checkpointable},
           {"data_wait", {{"fraction_of_step", v.data_wait_fraction}, {"input_bound", v.input_bound},
                          {"samples", v.data_wait_samples}}},
           {"memory", v.memory},
           {"samples", v.samples},
           {"drift", {{"discarded_samples", v.discarded_samples}, {"drifting", v.drifting}}},
           {"rounds", v.rounds},
           {"rounds_disagree", v.rounds_disagree},
           {"interval_method", v.interval_method},
           {"run_to_run", v.run_to_run ? run_to_run_json(*v.run_to_run) : json(nullptr)},
           {"loss_rose", loss_rose(v)},
           {"device_time", {{"samples", v.device_samples},
                            {"clock_ratio", v.device_clock_ratio ? json(*v.device_clock_ratio) : json(nullptr)},
                            {"busy_samples", v.device_busy_samples},
                            {"busy_fraction", v.device_busy_fraction ? json(*v.device_busy_fraction) : json(nullptr)},
                            {"launch_bound", v.launch_bound}}}};
  if (v.phases) {
    j["phases"] = {{"forward", v.phases->forward}, {"backward", v.phases->backward},
                   {"optimizer", v.phases->optimizer}};
    json summary = json::object();
    for (auto [name, s] : {std::pair{"forward", &v.phases->forward}, {"backward", &v.phases->backward},
                           {"optimizer", &v.phases->optimizer}})
      summary[name] = summarize(*s);
    j["phase_stats"] = summary;
  }
  if (v.telemetry) j["telemetry"] = *v.telemetry;
  if (!v.spec.impl.empty()) j["impl"] = v.spec.impl;
  if (!v.spec.compile.empty()) j["compile"] = v.spec.compile;
}
namespace {
// The case's "utilisation" object (its share of the device's ceiling and the verdict), if any.
void utilisation_from_json(const json& j, CaseResult& v) {
  const auto u = j.find("utilisation");
  if (u == j.end() || !u->is_object()) return;
  get_optional(*u, "ceiling_flops_per_s", v.ceiling_flops_per_s);
  get_if(*u, "ceiling_measured_utc", v.ceiling_measured_utc);
  get_if(*u, "ceiling_precision", v.ceiling_precision);
  get_optional(*u, "share_of_ceiling", v.ceiling_share);
  get_if(*u, "faster_precision", v.faster_precision);
  get_optional(*u, "faster_precision_flops_per_s", v.faster_precision_flops_per_s);
  get_if(*u, "bound", v.bound);
  get_if(*u, "evidence", v.bound_evidence);
  get_if(*u, "device_operations_per_step", v.device_operations_per_step);
}
}  // namespace

void from_json(const json& j, CaseResult& v) {
  from_json(j, v.spec);
  std::string status = "ok";
  get_if(j, "status", status);
  v.status = status == "ok" ? CaseStatus::ok : CaseStatus::failed;
  get_if(j, "error", v.error);
  std::string failure;
  get_if(j, "failure", failure);
  v.failure = v.ok() ? FailureKind::none : failure.empty() ? failure_kind_from_message(v.error) : failure_kind_named(failure);
  if (j.contains("stats")) v.stats = j.at("stats").get<Summary>();
  get_if(j, "noisy", v.noisy);
  get_if(j, "ci_target", v.ci_target);
  get_if(j, "relative_ci_half_width", v.relative_ci_half_width);
  get_if(j, "steps_per_sample", v.steps_per_sample);
  if (auto w = j.find("warmup"); w != j.end()) {
    get_if(*w, "steps", v.warmup_steps); get_if(*w, "seconds", v.warmup_s); get_if(*w, "stable", v.warmup_stable);
  }
  get_if(j, "measure_s", v.measure_s);
  get_if(j, "wall_s", v.wall_s);
  get_if(j, "samples_per_s", v.samples_per_s);
  if (auto e = j.find("epoch"); e != j.end()) {
    get_if(*e, "samples_per_epoch", v.samples_per_epoch); get_if(*e, "unit", v.epoch_unit);
    get_if(*e, "seconds_estimate", v.epoch_s_estimate);
    get_optional(*e, "seconds_measured", v.epoch_s_measured);
    get_if(*e, "seconds_each", v.epoch_s_all);
  }
  get_if(j, "train_flops_per_sample", v.train_flops_per_sample);
  get_if(j, "achieved_flops_per_s", v.achieved_flops_per_s);
  utilisation_from_json(j, v);
  get_if(j, "loss_before", v.loss_before);
  get_if(j, "loss_after", v.loss_after);
  get_if(j, "parameter_count", v.parameter_count);
  get_if(j, "data_source", v.data_source);
  get_if(j, "synthetic_data", v.synthetic_data);
  get_if(j, "optimizer", v.optimizer);
  get_if(j, "pipeline", v.pipeline);
  get_if(j, "numerics", v.numerics);
  get_if(j, "checkpointable", v.checkpointable);
  if (auto w = j.find("data_wait"); w != j.end() && w->is_object()) {
    get_if(*w, "fraction_of_step", v.data_wait_fraction);
    get_if(*w, "input_bound", v.input_bound);
    get_if(*w, "samples", v.data_wait_samples);
  }
  if (j.contains("memory")) v.memory = j.at("memory").get<MemoryUsage>();
  get_if(j, "samples", v.samples);
  if (auto d = j.find("drift"); d != j.end() && d->is_object()) {
    get_if(*d, "discarded_samples", v.discarded_samples);
    get_if(*d, "drifting", v.drifting);
  }
  get_if(j, "rounds", v.rounds);
  get_if(j, "rounds_disagree", v.rounds_disagree);
  get_if(j, "interval_method", v.interval_method);
  v.run_to_run = run_to_run_from_json(j);
  if (auto d = j.find("device_time"); d != j.end() && d->is_object()) {
    get_if(*d, "samples", v.device_samples);
    get_optional(*d, "clock_ratio", v.device_clock_ratio);
    get_if(*d, "busy_samples", v.device_busy_samples);
    get_optional(*d, "busy_fraction", v.device_busy_fraction);
    get_if(*d, "launch_bound", v.launch_bound);
    if (!d->contains("busy_samples") && v.device_busy_fraction) {
      // Written before the busy time was measured: its "busy_fraction" was the events' span.
      v.device_clock_ratio = v.device_busy_fraction;
      v.device_busy_fraction.reset();
      v.launch_bound = false;
    }
  }
  if (auto p = j.find("phases"); p != j.end() && p->is_object()) {
    PhaseSamples ps;
    get_if(*p, "forward", ps.forward); get_if(*p, "backward", ps.backward); get_if(*p, "optimizer", ps.optimizer);
    v.phases = ps;
  }
  if (auto t = j.find("telemetry"); t != j.end() && t->is_object()) v.telemetry = t->get<TelemetrySummary>();
  else v.telemetry.reset();
}

void to_json(json& j, const Parity& v) {
  j = json{{"reference", v.reference}, {"steps", v.steps}, {"losses", v.losses},
           {"reference_losses", v.reference_losses}, {"loss_rel_diff", v.loss_rel_diff},
           {"max_loss_rel_diff", v.max_loss_rel_diff}, {"skipped_steps", v.skipped_steps}, {"error", v.error}};
  put_optional(j, "grad_norm", v.grad_norm);
  put_optional(j, "reference_grad_norm", v.reference_grad_norm);
  put_optional(j, "grad_norm_rel_diff", v.grad_norm_rel_diff);
}
void from_json(const json& j, Parity& v) {
  get_if(j, "reference", v.reference); get_if(j, "steps", v.steps);
  get_if(j, "losses", v.losses); get_if(j, "reference_losses", v.reference_losses);
  get_if(j, "loss_rel_diff", v.loss_rel_diff); get_if(j, "max_loss_rel_diff", v.max_loss_rel_diff);
  get_if(j, "error", v.error);
  get_if(j, "skipped_steps", v.skipped_steps);
  get_optional(j, "grad_norm", v.grad_norm);
  get_optional(j, "reference_grad_norm", v.reference_grad_norm);
  get_optional(j, "grad_norm_rel_diff", v.grad_norm_rel_diff);
}

void to_json(json& j, const Speedup& v) {
  j = json{{"workload", v.workload}, {"model", v.label()}, {"device", v.device},
           {"baseline_device", v.baseline_device}, {"batch_size", v.batch_size}, {"dtype", v.dtype},
           {"ratio", v.ratio}, {"ci_low", v.ci_low}, {"ci_high", v.ci_high},
           {"widened_by_history", v.widened_by_history},
           {"interval", v.widened_by_history ? "next run's range" : "this run's rounds"},
           {"level_ci_low", v.level_low}, {"level_ci_high", v.level_high}};
  if (!v.baseline_dtype.empty()) j["baseline_dtype"] = v.baseline_dtype;
  if (v.run_to_run) j["run_to_run"] = run_to_run_json(*v.run_to_run);
  j["parity"] = v.parity ? json(*v.parity) : json(nullptr);
}
void from_json(const json& j, Speedup& v) {
  required_string(j, "workload", v.workload); required_string(j, "device", v.device);
  get_if(j, "model", v.model);
  get_if(j, "baseline_device", v.baseline_device); get_if(j, "batch_size", v.batch_size);
  get_if(j, "dtype", v.dtype); get_if(j, "ratio", v.ratio);
  get_if(j, "ci_low", v.ci_low); get_if(j, "ci_high", v.ci_high);
  get_if(j, "widened_by_history", v.widened_by_history);
  get_if(j, "level_ci_low", v.level_low); get_if(j, "level_ci_high", v.level_high);
  get_if(j, "baseline_dtype", v.baseline_dtype);
  v.run_to_run = run_to_run_from_json(j);
  get_optional(j, "parity", v.parity);
}

void to_json(json& j, const RunContext& v) {
  json devices = json::array();
  for (const auto& d : v.devices) {
    json dj{{"id", d.id}, {"type", d.type}, {"index", d.index}, {"name", d.name}};
    put_optional(dj, "total_memory_bytes", d.total_memory_bytes);
    devices.push_back(dj);
  }
  j = json{{"accelbench_version", v.accelbench_version}, {"git_commit", v.git_commit},
           {"timestamp_utc", v.timestamp_utc},           {"host", v.host},
           {"os", v.os},                                 {"kernel", v.kernel},
           {"arch", v.arch},                             {"cpu_model", v.cpu_model},
           {"physical_cores", v.physical_cores},         {"logical_cores", v.logical_cores},
           {"memory_bytes", v.memory_bytes},             {"torch_version", v.torch_version},
           {"cpu_capability", v.cpu_capability},         {"parallel_backend", v.parallel_backend},
           {"compiler", v.compiler},                     {"backends", v.backends},
           {"devices", devices},                         {"settings", v.settings},
           {"warnings", v.warnings},                     {"distorted_by", v.distorted_by}};
}
void from_json(const json& j, RunContext& v) {
  get_if(j, "accelbench_version", v.accelbench_version); get_if(j, "git_commit", v.git_commit);
  get_if(j, "timestamp_utc", v.timestamp_utc); get_if(j, "host", v.host); get_if(j, "os", v.os);
  get_if(j, "kernel", v.kernel); get_if(j, "arch", v.arch); get_if(j, "cpu_model", v.cpu_model);
  get_if(j, "physical_cores", v.physical_cores); get_if(j, "logical_cores", v.logical_cores);
  get_if(j, "memory_bytes", v.memory_bytes); get_if(j, "torch_version", v.torch_version);
  get_if(j, "cpu_capability", v.cpu_capability); get_if(j, "parallel_backend", v.parallel_backend);
  get_if(j, "compiler", v.compiler);
  if (j.contains("backends")) v.backends = j.at("backends");
  if (j.contains("settings")) v.settings = j.at("settings");
  get_if(j, "warnings", v.warnings);
  v.distorted_by.clear();
  get_if(j, "distorted_by", v.distorted_by);
  if (v.distorted_by.empty() && std::any_of(v.warnings.begin(), v.warnings.end(), [](const std::string& w) {
        return w.rfind("timings may be DISTORTED", 0) == 0;
      }))
    v.distorted_by = {kUnnamedDistortion};  // a run stored before the mark: its warning says it
  v.devices.clear();
  if (auto d = j.find("devices"); d != j.end() && d->is_array()) {
    for (const auto& dj : *d) {
      DeviceDescription dd;
      get_if(dj, "id", dd.id); get_if(dj, "type", dd.type); get_if(dj, "index", dd.index);
      get_if(dj, "name", dd.name); get_optional(dj, "total_memory_bytes", dd.total_memory_bytes);
      v.devices.push_back(dd);
    }
  }
}

void to_json(json& j, const RunResult& v) {
  j = json{{"schema", v.schema}, {"command", v.command}, {"context", v.context},
           {"wall_s", v.wall_s}, {"speedups", v.speedups}, {"cases", v.cases}};
  if (!v.graph_speedups.empty()) j["graph_speedups"] = v.graph_speedups;
  if (!v.speedups_over_fastest_cpu.empty()) j["speedups_over_fastest_cpu"] = v.speedups_over_fastest_cpu;
}
void from_json(const json& j, RunResult& v) {
  if (!j.is_object() || !j.contains("schema"))
    throw std::runtime_error("not an accelbench result: no \"schema\" field");
  if (!j.at("schema").is_string())
    throw std::runtime_error(std::string("not an accelbench result: \"schema\" is ") + j.at("schema").type_name() +
                             ", not a string");
  const auto schema = j.at("schema").get<std::string>();
  if (schema != kRunSchema)
    throw std::runtime_error("unsupported schema '" + printable(schema) + "' (this accelbench reads '" + kRunSchema + "')");
  v.schema = schema;
  get_if(j, "command", v.command);
  if (auto c = j.find("context"); c != j.end() && !c->is_null()) {
    if (!c->is_object()) throw std::runtime_error(std::string("\"context\" must be an object, found ") + c->type_name());
    v.context = c->get<RunContext>();
  }
  get_if(j, "wall_s", v.wall_s);
  // Each case and speed-up on its own, so that an error names which one.
  auto read_array = [&](const char* key, auto& out) {
    out.clear();
    const auto a = j.find(key);
    if (a == j.end() || a->is_null()) return;
    if (!a->is_array()) throw std::runtime_error(std::string("\"") + key + "\" must be an array, found " + a->type_name());
    for (std::size_t i = 0; i < a->size(); ++i) {
      const auto& e = (*a)[i];
      try {
        if (!e.is_object()) throw std::runtime_error(std::string("an object was expected, found ") + e.type_name());
        out.push_back(e.get<typename std::decay_t<decltype(out)>::value_type>());
      } catch (const json::exception& ex) {
        throw std::runtime_error(std::string(key) + "[" + std::to_string(i) + "]: " +
                                 json_util::detail::short_message(ex.what()));
      } catch (const std::exception& ex) {
        throw std::runtime_error(std::string(key) + "[" + std::to_string(i) + "]: " + ex.what());
      }
    }
  };
  if (!j.contains("cases")) throw std::runtime_error("no \"cases\": not a run's results");
  read_array("cases", v.cases);
  read_array("speedups", v.speedups);
  read_array("graph_speedups", v.graph_speedups);
  read_array("speedups_over_fastest_cpu", v.speedups_over_fastest_cpu);
}

Rounds samples_by_round(const CaseResult& c) {
  Rounds out;
  std::size_t at = 0;
  for (const auto& r : c.rounds) {
    const std::size_t n = std::min(r.samples, c.samples.size() - std::min(at, c.samples.size()));
    out.samples.emplace_back(c.samples.begin() + static_cast<std::ptrdiff_t>(at),
                             c.samples.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  if (c.rounds.empty()) out.samples.push_back(c.samples);
  return out;
}

namespace {
// `c` over `base`: by the rounds' hierarchical bootstrap when both have rounds (the next run's
// variation), else by the samples'.
Speedup speedup_over(const CaseResult& base, const CaseResult& c, const std::string& baseline_device) {
  const bool by_rounds = base.rounds.size() >= 2 && c.rounds.size() >= 2;
  double ratio = 0, low = 0, high = 0;
  if (by_rounds) {
    const auto r = ratio_of_medians_hierarchical(samples_by_round(base), samples_by_round(c));
    ratio = r.ratio, low = r.low, high = r.high;
  } else {
    const auto r = ratio_of_medians(base.samples, c.samples);
    ratio = r.ratio, low = r.low, high = r.high;
  }
  return Speedup{c.spec.workload, c.spec.device, baseline_device, c.spec.batch_size, c.spec.dtype,
                 ratio, low, high, model_label(c.spec), std::nullopt};
}

bool same_model(const CaseSpec& a, const CaseSpec& b) {
  return a.workload == b.workload && a.dtype == b.dtype && a.batch_size == b.batch_size && a.width == b.width &&
         a.checkpoint == b.checkpoint && a.impl == b.impl && a.compile == b.compile;
}
}  // namespace

std::vector<Speedup> compute_speedups(const std::vector<CaseResult>& cases) {
  std::vector<Speedup> out;
  for (const auto& c : cases) {
    if (!c.ok() || c.spec.device == "cpu" || c.samples.empty()) continue;
    auto base = std::find_if(cases.begin(), cases.end(), [&](const CaseResult& b) {
      return b.ok() && b.spec.device == "cpu" && !b.spec.graphs && same_model(b.spec, c.spec) && !b.samples.empty();
    });
    if (base != cases.end()) out.push_back(speedup_over(*base, c, "cpu"));
  }
  return out;
}

std::vector<Speedup> compute_speedups_over_fastest_cpu(const std::vector<CaseResult>& cases) {
  std::vector<Speedup> out;
  for (const auto& c : cases) {
    if (!c.ok() || c.spec.device == "cpu" || c.samples.empty()) continue;
    const CaseResult* fastest = nullptr;
    for (const auto& b : cases) {
      if (!b.ok() || b.spec.device != "cpu" || b.spec.graphs || b.samples.empty()) continue;
      auto same = b.spec;
      same.dtype = c.spec.dtype;
      if (!same_model(same, c.spec)) continue;  // the model and batch, in any precision
      if (!fastest || b.stats.median < fastest->stats.median) fastest = &b;
    }
    if (!fastest || fastest->spec.dtype == c.spec.dtype) continue;
    auto s = speedup_over(*fastest, c, "cpu");
    s.baseline_dtype = fastest->spec.dtype;
    out.push_back(s);
  }
  return out;
}

std::vector<Speedup> compute_graph_speedups(const std::vector<CaseResult>& cases) {
  std::vector<Speedup> out;
  for (const auto& c : cases) {
    if (!c.ok() || !c.spec.graphs || c.samples.empty()) continue;
    auto eager = std::find_if(cases.begin(), cases.end(), [&](const CaseResult& b) {
      return b.ok() && !b.spec.graphs && b.spec.device == c.spec.device && same_model(b.spec, c.spec) && !b.samples.empty();
    });
    if (eager != cases.end()) out.push_back(speedup_over(*eager, c, c.spec.device));
  }
  return out;
}

}  // namespace accelbench
