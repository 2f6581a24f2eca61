#include "core/sweep_records.h"

#include <algorithm>

#include "core/json_util.h"

namespace accelbench {

using nlohmann::json;
using json_util::get_if;
using json_util::get_optional;
using json_util::put_optional;

namespace {

json ratio_json(const std::optional<RatioEstimate>& r) {
  return r ? json{{"ratio", r->ratio}, {"low", r->low}, {"high", r->high}} : json(nullptr);
}

// A speed-up as written: null, or an object with all three figures.
std::optional<RatioEstimate> ratio_from(const json& j) {
  if (j.is_null()) return std::nullopt;
  return RatioEstimate{j.at("ratio").get<double>(), j.at("low").get<double>(), j.at("high").get<double>()};
}

template <class T>
std::optional<T> nullable(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<T>();
}

PointOutcome outcome_named(const std::string& name) {
  if (name == "ok") return PointOutcome::fit;
  if (name == "out of memory") return PointOutcome::out_of_memory;
  return PointOutcome::failed;
}

}  // namespace

bool knee_at_range_end(const BatchSweep& s) {
  if (!s.knee || s.first_oom) return false;
  std::int64_t largest = 0;
  for (const auto& p : s.points)
    if (p.outcome == PointOutcome::fit) largest = std::max(largest, p.batch);
  return largest > 0 && *s.knee == largest;
}

const char* outcome_name(PointOutcome o) {
  switch (o) {
    case PointOutcome::fit: return "ok";
    case PointOutcome::out_of_memory: return "out of memory";
    case PointOutcome::failed: return "failed";
  }
  return "failed";
}

double parity_threshold(const std::optional<Parity>& floor) {
  if (!floor || !floor->error.empty() || floor->steps == 0) return kParityTolerance;
  return std::max(kParityTolerance, 2 * floor->loss_rel_diff);
}

const char* crossover_kind_name(CrossoverKind kind) {
  switch (kind) {
    case CrossoverKind::accelerator_always: return "accelerator_always";
    case CrossoverKind::crosses: return "crosses";
    case CrossoverKind::cpu_always: return "cpu_always";
    case CrossoverKind::never: return "never";
    case CrossoverKind::none: return "none";
  }
  return "none";
}

// The loop every point ran in ("impl", "compile"), written only for the Python twin: a C++ sweep's
// JSON is as it was.
template <class Sweep>
void put_implementation(json& j, const Sweep& v) {
  if (!v.impl.empty()) j["impl"] = v.impl;
  if (!v.compile.empty()) j["compile"] = v.compile;
}
template <class Sweep>
void get_implementation(const json& j, Sweep& v) {
  get_if(j, "impl", v.impl);
  get_if(j, "compile", v.compile);
}

// ---- batch ------------------------------------------------------------------------------------

void to_json(json& j, const BatchSweep& v) {
  json pts = json::array();
  for (const auto& p : v.points) {
    json q{{"batch", p.batch}, {"outcome", outcome_name(p.outcome)}, {"phase", p.phase}, {"case_index", p.case_index}};
    if (p.outcome == PointOutcome::fit) q["samples_per_s"] = p.samples_per_s;
    else q["error"] = p.error;
    pts.push_back(std::move(q));
  }
  j = json{{"kind", "batch"},       {"model", v.model},          {"device", v.device},         {"dtype", v.dtype},
           {"width", v.width},      {"checkpoint", v.checkpoint}, {"graphs", v.graphs}, {"from", v.from},             {"to", v.to},
           {"to_default", v.to_default}, {"isolated", v.isolated}, {"knee_tolerance", v.knee_tolerance},
           {"points", pts},         {"finished", v.finished}};
  put_implementation(j, v);
  put_optional(j, "memory_limit_bytes", v.memory_limit_bytes);
  put_optional(j, "knee", v.knee);
  put_optional(j, "best_batch", v.best_batch);
  put_optional(j, "best_samples_per_s", v.best_samples_per_s);
  put_optional(j, "largest_fit", v.largest_fit);
  put_optional(j, "first_oom", v.first_oom);
  put_optional(j, "smallest_oom", v.smallest_oom);
  j["bisection"] = v.bisection ? json{{"low", v.bisection->low}, {"high", v.bisection->high}, {"resolution", v.bisection->resolution}}
                               : json(nullptr);
}

void from_json(const json& j, BatchSweep& v) {
  j.at("model").get_to(v.model);
  j.at("device").get_to(v.device);
  j.at("dtype").get_to(v.dtype);
  get_if(j, "width", v.width);
  get_implementation(j, v);
  get_if(j, "checkpoint", v.checkpoint);
  get_if(j, "graphs", v.graphs);
  get_if(j, "from", v.from);
  get_if(j, "to", v.to);
  get_if(j, "to_default", v.to_default);
  get_if(j, "isolated", v.isolated);
  get_if(j, "knee_tolerance", v.knee_tolerance);
  v.memory_limit_bytes = nullable<std::uint64_t>(j.at("memory_limit_bytes"));
  v.knee = nullable<std::int64_t>(j.at("knee"));
  v.largest_fit = nullable<std::int64_t>(j.at("largest_fit"));
  v.first_oom = nullable<std::int64_t>(j.at("first_oom"));
  v.smallest_oom = nullable<std::int64_t>(j.at("smallest_oom"));
  get_optional(j, "best_batch", v.best_batch);
  get_optional(j, "best_samples_per_s", v.best_samples_per_s);
  v.bisection.reset();
  if (auto it = j.find("bisection"); it != j.end() && !it->is_null())
    v.bisection = BisectionRange{it->at("low").get<std::int64_t>(), it->at("high").get<std::int64_t>(),
                                 it->at("resolution").get<std::int64_t>()};
  get_if(j, "finished", v.finished);
  v.points.clear();
  for (const auto& q : j.at("points")) {
    BatchSweepPoint p;
    q.at("batch").get_to(p.batch);
    p.outcome = outcome_named(q.at("outcome").get<std::string>());
    get_if(q, "phase", p.phase);
    get_if(q, "case_index", p.case_index);
    get_if(q, "samples_per_s", p.samples_per_s);
    get_if(q, "error", p.error);
    v.points.push_back(std::move(p));
  }
}

// ---- precision --------------------------------------------------------------------------------

void to_json(json& j, const PrecisionSweep& v) {
  json pts = json::array();
  for (const auto& p : v.points) {
    json q{{"precision", p.precision}, {"outcome", p.outcome}, {"error", p.error}};
    put_optional(q, "case_index", p.case_index);
    if (p.case_index) {
      q["samples_per_s"] = p.samples_per_s;
      q["median_step_s"] = p.median_step_s;
    }
    q["speedup"] = ratio_json(p.speedup);
    put_optional(q, "parity", p.parity);
    put_optional(q, "parity_ok", p.parity_ok);
    pts.push_back(std::move(q));
  }
  j = json{{"kind", "precision"},  {"model", v.model},           {"device", v.device},
           {"batch", v.batch},     {"width", v.width},           {"checkpoint", v.checkpoint}, {"graphs", v.graphs},
           {"reference", v.reference}, {"parity_steps", v.parity_steps}, {"parity_tolerance", v.parity_tolerance},
           {"parity_threshold", v.parity_threshold}, {"points", pts}, {"finished", v.finished}};
  put_implementation(j, v);
  put_optional(j, "parity_floor", v.parity_floor);
  put_optional(j, "best", v.best);
}

void from_json(const json& j, PrecisionSweep& v) {
  j.at("model").get_to(v.model);
  j.at("device").get_to(v.device);
  get_if(j, "batch", v.batch);
  get_if(j, "width", v.width);
  get_implementation(j, v);
  get_if(j, "checkpoint", v.checkpoint);
  get_if(j, "graphs", v.graphs);
  get_if(j, "reference", v.reference);
  get_if(j, "parity_steps", v.parity_steps);
  get_if(j, "parity_tolerance", v.parity_tolerance);
  v.parity_threshold = v.parity_tolerance;
  get_if(j, "parity_threshold", v.parity_threshold);
  get_optional(j, "parity_floor", v.parity_floor);
  get_optional(j, "best", v.best);
  get_if(j, "finished", v.finished);
  v.points.clear();
  for (const auto& q : j.at("points")) {
    PrecisionSweepPoint p;
    q.at("precision").get_to(p.precision);
    get_if(q, "outcome", p.outcome);
    get_if(q, "error", p.error);
    get_optional(q, "case_index", p.case_index);
    get_if(q, "samples_per_s", p.samples_per_s);
    get_if(q, "median_step_s", p.median_step_s);
    p.speedup = ratio_from(q.at("speedup"));
    const auto& parity = q.at("parity");
    if (!parity.is_null()) {
      p.parity = parity.get<Parity>();
      // A parity that ran must say how far it drifted.
      if (p.parity->error.empty() && p.parity->steps > 0) parity.at("loss_rel_diff").get<double>();
    }
    get_optional(q, "parity_ok", p.parity_ok);
    v.points.push_back(std::move(p));
  }
}

// ---- threads, workers -------------------------------------------------------------------------

void to_json(json& j, const SettingSweep& v) {
  const bool workers = v.kind == "workers";
  json pts = json::array();
  for (const auto& p : v.points) {
    json q{{v.kind, workers && p.setting == kStagedWorkers ? json("staged") : json(p.setting)},
           {"outcome", p.outcome}, {"error", p.error}, {"case_index", p.case_index}};
    if (p.samples_per_s) q["samples_per_s"] = *p.samples_per_s;
    if (p.speedup) q["speedup"] = ratio_json(p.speedup);
    if (p.efficiency) q["efficiency"] = *p.efficiency;
    if (p.data_wait_fraction) q["data_wait_fraction"] = *p.data_wait_fraction;
    if (p.input_bound) q["input_bound"] = *p.input_bound;
    pts.push_back(std::move(q));
  }
  j = json{{"kind", v.kind}, {"model", v.model}, {"device", v.device}, {"dtype", v.dtype}, {"batch", v.batch},
           {"width", v.width}, {"checkpoint", v.checkpoint}, {"graphs", v.graphs}, {"points", pts}, {"tolerance", v.tolerance},
           {"finished", v.finished}};
  put_implementation(j, v);
  if (workers) put_optional(j, "staged_samples_per_s", v.staged_samples_per_s);
  put_optional(j, ("best_" + v.kind).c_str(), v.best);
  put_optional(j, "best_samples_per_s", v.best_samples_per_s);
}

void from_json(const json& j, SettingSweep& v) {
  j.at("kind").get_to(v.kind);
  j.at("model").get_to(v.model);
  j.at("device").get_to(v.device);
  get_if(j, "dtype", v.dtype);
  get_if(j, "batch", v.batch);
  get_if(j, "width", v.width);
  get_implementation(j, v);
  get_if(j, "checkpoint", v.checkpoint);
  get_if(j, "graphs", v.graphs);
  get_if(j, "tolerance", v.tolerance);
  get_optional(j, "staged_samples_per_s", v.staged_samples_per_s);
  v.best = nullable<int>(j.at("best_" + v.kind));
  get_optional(j, "best_samples_per_s", v.best_samples_per_s);
  get_if(j, "finished", v.finished);
  v.points.clear();
  for (const auto& q : j.at("points")) {
    SettingSweepPoint p;
    const auto& setting = q.at(v.kind);
    p.setting = setting.is_string() && setting.get<std::string>() == "staged" ? kStagedWorkers : setting.get<int>();
    get_if(q, "outcome", p.outcome);
    get_if(q, "error", p.error);
    get_if(q, "case_index", p.case_index);
    get_optional(q, "samples_per_s", p.samples_per_s);
    if (auto it = q.find("speedup"); it != q.end()) p.speedup = ratio_from(*it);
    get_optional(q, "efficiency", p.efficiency);
    get_optional(q, "data_wait_fraction", p.data_wait_fraction);
    get_optional(q, "input_bound", p.input_bound);
    v.points.push_back(std::move(p));
  }
}

// ---- crossover --------------------------------------------------------------------------------

void to_json(json& j, const CrossoverSweep& v) {
  json pts = json::array();
  for (const auto& p : v.points)
    pts.push_back(json{{"x", p.x}, {"device_case_index", p.device_case_index}, {"cpu_case_index", p.cpu_case_index},
                       {"speedup", ratio_json(p.speedup)}});
  json c{{"kind", crossover_kind_name(v.crossover.kind)}, {"text", v.crossover_text}};
  put_optional(c, "at", v.crossover.at);
  put_optional(c, "cpu_until", v.crossover.cpu_until);
  j = json{{"kind", "crossover"}, {"axis", v.axis}, {"model", v.model}, {"device", v.device},
           {"baseline_device", v.baseline_device}, {"dtype", v.dtype}, {"width", v.width}, {"points", pts},
           {"crossover", c}, {"finished", v.finished}};
  put_implementation(j, v);
  put_optional(j, "batch", v.batch);
}

void from_json(const json& j, CrossoverSweep& v) {
  j.at("axis").get_to(v.axis);
  j.at("model").get_to(v.model);
  j.at("device").get_to(v.device);
  get_if(j, "baseline_device", v.baseline_device);
  get_if(j, "dtype", v.dtype);
  get_optional(j, "batch", v.batch);
  get_if(j, "width", v.width);
  get_implementation(j, v);
  get_if(j, "finished", v.finished);
  // The crossover's text is what a chart needs; its kind and `at` what advice needs (absent: none).
  const auto& c = j.at("crossover");
  c.at("text").get_to(v.crossover_text);
  std::string kind = "none";
  get_if(c, "kind", kind);
  v.crossover = Crossover{};
  for (auto k : {CrossoverKind::accelerator_always, CrossoverKind::crosses, CrossoverKind::cpu_always, CrossoverKind::never,
                 CrossoverKind::none})
    if (kind == crossover_kind_name(k)) v.crossover.kind = k;
  get_optional(c, "at", v.crossover.at);
  get_optional(c, "cpu_until", v.crossover.cpu_until);
  v.points.clear();
  for (const auto& q : j.at("points")) {
    CrossoverSweepPoint p;
    q.at("x").get_to(p.x);
    get_if(q, "device_case_index", p.device_case_index);
    get_if(q, "cpu_case_index", p.cpu_case_index);
    p.speedup = ratio_from(q.at("speedup"));
    v.points.push_back(p);
  }
}

json sweep_to_json(const AnySweep& sweep) {
  return std::visit([](const auto& s) { return json(s); }, sweep);
}

std::optional<AnySweep> sweep_from_document(const json& document) {
  const auto it = document.find("sweep");
  if (it == document.end() || !it->is_object()) return std::nullopt;
  const auto kind = it->value("kind", std::string());
  if (kind == "batch") return it->get<BatchSweep>();
  if (kind == "precision") return it->get<PrecisionSweep>();
  if (kind == "threads" || kind == "workers") return it->get<SettingSweep>();
  if (kind == "crossover") return it->get<CrossoverSweep>();
  return std::nullopt;
}

}  // namespace accelbench
