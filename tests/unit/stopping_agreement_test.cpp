// The Python loop's stopping rule and warm-up detector (python/accelbench_worker/timing.py) decide
// as the C++ engine's (core/stopping.h) on the same samples: a few hundred sequences (steady,
// noisy, warming up, drifting, with outliers, two levels; step times from 10 us to 2 s; many rules)
// replayed through both, and every decision compared: the sample at which each stops, whether its
// target was met then, the step at which each warm-up ends, its window and its median there.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/stopping.h"

#ifndef ACCELBENCH_PYTHON3
#define ACCELBENCH_PYTHON3 ""
#endif
#ifndef ACCELBENCH_PYTHON_WORKER_DIR
#define ACCELBENCH_PYTHON_WORKER_DIR ""
#endif

namespace accelbench {
namespace {

struct Sequence {
  std::vector<double> samples, elapsed;
  StoppingRule rule;
  WarmupDetector::Options warmup;
};

// One sequence of `n` samples around `level` seconds, of the given shape.
std::vector<double> shaped_samples(std::mt19937_64& rng, int shape, std::size_t n, double level) {
  const double sds[] = {0.002, 0.01, 0.03, 0.1, 0.4};
  std::lognormal_distribution<double> noise(0.0, sds[rng() % 5]);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) {
    double x = level * noise(rng);
    const double t = static_cast<double>(i);
    if (shape == 1) x *= 1.0 + 3.0 * std::exp(-t / 4.0);           // a warm-up that decays
    if (shape == 2 && u(rng) < 0.03) x *= 10.0;                     // outliers
    if (shape == 3) x *= 1.0 + 0.002 * t;                           // drifting slower
    if (shape == 4 && u(rng) < 0.4) x *= 1.3;                       // two levels
    if (shape == 5 && i % 7 == 0) x = v.empty() ? x : v.back();     // repeated values (ties)
    v.push_back(x);
  }
  return v;
}

std::vector<Sequence> sequences() {
  std::mt19937_64 rng(20240607);
  const double levels[] = {1e-5, 2e-4, 3e-3, 0.04, 0.6, 2.0};
  const double targets[] = {0.002, 0.01, 0.02, 0.05};
  const std::size_t min_samples[] = {3, 5, 10};
  const double min_times[] = {0.0, 0.2, 0.5};
  const double max_times[] = {0.3, 2.0, 30.0, 1e9};
  std::vector<Sequence> out;
  for (int k = 0; k < 360; ++k) {
    Sequence s;
    const std::size_t n = k % 12 == 0 ? 2600 : 5 + rng() % 400;  // some past 2000 samples: the normal approximation
    const double level = levels[rng() % 6];
    s.samples = shaped_samples(rng, k % 6, n, level);
    const double steps_per_sample = static_cast<double>(1 + rng() % 40);
    double t = 0;
    for (double x : s.samples) s.elapsed.push_back(t += x * steps_per_sample);
    s.rule.ci_target = targets[rng() % 4];
    s.rule.min_samples = min_samples[rng() % 3];
    s.rule.min_time_s = min_times[rng() % 3];
    s.rule.max_time_s = max_times[rng() % 4];
    s.warmup.min_steps = 2 + rng() % 2;
    out.push_back(s);
  }
  return out;
}

nlohmann::json cpp_decision(const Sequence& s) {
  nlohmann::json d{{"stop_at", 0}, {"target_met", false}, {"warm_at", 0}, {"window", 0}, {"recent_median", 0.0}};
  AdaptiveStopper stopper(s.rule);
  for (std::size_t i = 0; i < s.samples.size(); ++i) {
    stopper.add(s.samples[i], s.elapsed[i]);
    if (stopper.should_stop()) {
      d["stop_at"] = i + 1;
      d["target_met"] = stopper.target_met();
      break;
    }
  }
  WarmupDetector warmup(s.warmup);
  for (std::size_t i = 0; i < s.samples.size(); ++i) {
    warmup.add(s.samples[i]);
    if (warmup.stable()) {
      d["warm_at"] = i + 1;
      d["window"] = warmup.window();
      d["recent_median"] = warmup.recent_median();
      break;
    }
  }
  return d;
}

nlohmann::json as_json(const Sequence& s) {
  return {{"samples", s.samples},
          {"elapsed", s.elapsed},
          {"rule", {{"ci_target", s.rule.ci_target}, {"min_samples", s.rule.min_samples}, {"min_time_s", s.rule.min_time_s},
                    {"max_time_s", s.rule.max_time_s}, {"confidence", s.rule.confidence}}},
          {"warmup", {{"min_steps", s.warmup.min_steps}, {"tolerance", s.warmup.tolerance},
                      {"window_time_s", s.warmup.window_time_s}, {"max_window", s.warmup.max_window}}}};
}

// The Python rules' decisions on the sequences (python -m accelbench_worker.timing replay).
nlohmann::json python_decisions(const std::vector<Sequence>& all) {
  const auto dir = std::filesystem::temp_directory_path() / ("accelbench-stopping-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  nlohmann::json input{{"sequences", nlohmann::json::array()}};
  for (const auto& s : all) input["sequences"].push_back(as_json(s));
  std::ofstream(dir / "in.json") << input.dump();
  const auto command = std::string("cd '") + ACCELBENCH_PYTHON_WORKER_DIR + "' && '" + ACCELBENCH_PYTHON3 +
                       "' -m accelbench_worker.timing replay '" + (dir / "in.json").string() + "' > '" + (dir / "out.json").string() + "'";
  const int rc = std::system(command.c_str());
  std::ifstream in(dir / "out.json");
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(rc, 0) << command;
  return rc == 0 ? nlohmann::json::parse(text.str())["decisions"] : nlohmann::json::array();
}

TEST(StoppingRuleAgreement, PythonLoopStopsAndEndsItsWarmupWhereTheEngineDoes) {
  if (std::string(ACCELBENCH_PYTHON3).empty()) GTEST_SKIP() << "no python3 found at configure time";
  const auto all = sequences();
  const auto python = python_decisions(all);
  ASSERT_EQ(python.size(), all.size());
  int by_target = 0, by_time = 0, never = 0, warmed = 0, disagreements = 0;
  for (std::size_t k = 0; k < all.size(); ++k) {
    const auto cpp = cpp_decision(all[k]);
    const auto& py = python[k];
    const bool same = cpp["stop_at"] == py["stop_at"] && cpp["target_met"] == py["target_met"] &&
                      cpp["warm_at"] == py["warm_at"] && cpp["window"] == py["window"] &&
                      std::abs(cpp["recent_median"].get<double>() - py["recent_median"].get<double>()) <=
                          1e-12 * std::abs(cpp["recent_median"].get<double>());
    if (!same && ++disagreements <= 5) ADD_FAILURE() << "sequence " << k << ": C++ " << cpp.dump() << ", Python " << py.dump();
    if (cpp["stop_at"] == 0) ++never;
    else if (cpp["target_met"].get<bool>()) ++by_target;
    else ++by_time;
    if (cpp["warm_at"] != 0) ++warmed;
  }
  EXPECT_EQ(disagreements, 0) << "of " << all.size() << " sequences";
  // The sequences reach every kind of decision, so that the comparison can tell the rules apart.
  EXPECT_GE(by_target, 40);
  EXPECT_GE(by_time, 40);
  EXPECT_GE(never, 20);
  EXPECT_GE(warmed, 100);
}

}  // namespace
}  // namespace accelbench
