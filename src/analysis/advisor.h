#pragma once
// The advisor: turns a run's measurements into concrete advice. Every advice quotes the measured
// figures it rests on; no rule fires without a measurement behind it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.h"

namespace accelbench {

struct Advice {
  std::string rule;      // which rule fired, e.g. "overhead-bound"
  std::string subject;   // the case(s) it is about, e.g. "mlp on cuda:0"
  std::string text;      // the advice, with the figures it rests on
  std::vector<std::string> evidence;  // the measured values quoted, as "name=value"
};

// `document` is the run's full JSON: a sweep's "sweep" block adds the rules of its kind (batch,
// precision, threads, workers, crossover).
std::vector<Advice> advise(const RunResult& run, const nlohmann::json& document = nlohmann::json::object());
std::string render_advice(const std::vector<Advice>& advice);

}  // namespace accelbench
