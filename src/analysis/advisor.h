#pragma once
// The advisor: turns a run's measurements into concrete advice. Every advice quotes the measured
// figures it rests on; no rule fires without a measurement behind it.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/results.h"
#include "core/sweep_records.h"

namespace accelbench {

struct Advice {
  std::string rule;      // which rule fired, e.g. "overhead-bound"
  std::string subject;   // the case(s) it is about, e.g. "mlp on cuda:0"
  std::string text;      // the advice, with the figures it rests on
  std::vector<std::string> evidence;  // the measured values quoted, as "name=value"
};

// `document` is the run's full JSON: a sweep's "sweep" block (read into its typed record,
// core/sweep_records.h) adds the rules of its kind (batch, precision, threads, workers, crossover);
// a block that cannot be read adds none.
std::vector<Advice> advise(const RunResult& run, const nlohmann::json& document = nlohmann::json::object());
// The same with the sweep's record at hand.
std::vector<Advice> advise(const RunResult& run, const AnySweep& sweep);
std::string render_advice(const std::vector<Advice>& advice);

}  // namespace accelbench
