#pragma once
// Runs with synthetic samples for the tests of the store, the comparisons and the reports: no
// benchmark is run. Numbers are made up (realistic in size), seeded, reproducible.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/results.h"
#include "core/stats.h"

namespace accelbench::testing {

// n step-time samples around `median` seconds with relative noise `rel_noise` (normal), seeded.
inline std::vector<double> samples_around(double median, double rel_noise, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, rel_noise);
  std::vector<double> v(n);
  for (auto& x : v) x = median * std::max(0.2, 1.0 + d(rng));
  return v;
}

inline CaseResult make_case(const std::string& workload, const std::string& device, std::int64_t batch, double median,
                            double rel_noise, std::size_t n, std::uint64_t seed) {
  CaseResult c;
  c.spec.workload = workload;
  c.spec.device = device;
  c.spec.batch_size = batch;
  c.spec.threads = device == "cpu" ? 8 : 0;
  c.samples = samples_around(median, rel_noise, n, seed);
  c.stats = summarize(c.samples);
  c.relative_ci_half_width = c.stats.ci_half_width_relative();
  c.samples_per_s = static_cast<double>(batch) / c.stats.median;
  c.samples_per_epoch = 60000;
  c.epoch_s_estimate = c.stats.median * (60000.0 / static_cast<double>(batch));
  c.measure_s = c.stats.median * static_cast<double>(n);
  c.wall_s = c.measure_s + 1.5;
  c.parameter_count = 1000000;
  c.data_source = "synthetic";
  c.synthetic_data = true;
  c.optimizer = "adam";
  if (device == "cpu") c.memory.peak_rss_bytes = static_cast<std::uint64_t>(400e6 + 2e6 * static_cast<double>(batch));
  else c.memory.peak_allocated_bytes = static_cast<std::uint64_t>(150e6 + 3e6 * static_cast<double>(batch));
  c.memory.source = device == "cpu" ? "rss" : "allocator";
  return c;
}

struct SyntheticOptions {
  std::string torch_version = "2.13.0";
  std::vector<std::string> workloads{"mlp", "cnn", "transformer"};
  std::vector<std::string> devices{"cpu", "cuda:0"};
  std::vector<std::int64_t> batch_sizes{64};
  double slowdown = 1.0;  // multiplies every step time
  double rel_noise = 0.01;
  std::size_t n = 20;
  std::uint64_t seed = 1;
};

// Step times in seconds at batch 64, CPU and accelerator (scaled with the batch).
inline double base_step_time(const std::string& workload, bool accelerator, std::int64_t batch) {
  double cpu = 0.004, acc = 0.0035;
  if (workload == "cnn") { cpu = 0.030; acc = 0.0045; }
  if (workload == "transformer") { cpu = 0.120; acc = 0.009; }
  const double scale = static_cast<double>(batch) / 64.0;
  return accelerator ? acc * (0.5 + 0.5 * scale) : cpu * scale;
}

inline RunResult make_run(const SyntheticOptions& o = {}) {
  RunResult run;
  run.context.accelbench_version = "0.1.0";
  run.context.git_commit = "abc1234";
  run.context.timestamp_utc = "2025-06-01T10:00:00Z";
  run.context.host = "testhost";
  run.context.os = "Linux";
  run.context.arch = "x86_64";
  run.context.cpu_model = "Synthetic CPU";
  run.context.physical_cores = 8;
  run.context.logical_cores = 16;
  run.context.memory_bytes = 32ull << 30;
  run.context.torch_version = o.torch_version;
  run.context.devices.push_back(DeviceDescription{"cpu", "cpu", "Synthetic CPU", -1, std::nullopt});
  for (const auto& d : o.devices)
    if (d != "cpu") run.context.devices.push_back(DeviceDescription{d, "cuda", "Synthetic GPU", 0, 80ull << 30});
  run.context.settings = {{"synthetic", true}};
  std::uint64_t seed = o.seed * 1000;
  for (const auto& w : o.workloads)
    for (const auto b : o.batch_sizes)
      for (const auto& d : o.devices)
        run.cases.push_back(make_case(w, d, b, base_step_time(w, d != "cpu", b) * o.slowdown, o.rel_noise, o.n, ++seed));
  run.speedups = compute_speedups(run.cases);
  run.wall_s = 12.5;
  return run;
}

// A document with telemetry on each accelerator case, in the engine's format
// (core/telemetry_summary.h): power and temperature of one channel, once a second.
inline nlohmann::json with_telemetry(const RunResult& run) {
  nlohmann::json doc = run;
  for (auto& c : doc["cases"]) {
    if (c["device"] == "cpu") continue;
    nlohmann::json t = nlohmann::json::array(), p = nlohmann::json::array(), k = nlohmann::json::array();
    for (int i = 0; i < 20; ++i) {
      t.push_back(i);
      p.push_back(180.0 + 90.0 * (1 - std::exp(-i / 4.0)));
      k.push_back(40.0 + 25.0 * (1 - std::exp(-i / 6.0)));
    }
    c["telemetry"] = {{"sample_hz", 1.0},
                      {"mean_power_w", {{"value", 250.0}, {"source", "synthetic"}}},
                      {"series", {{"t_s", t}, {"channels", {{"nvml:0", {{"power_w", p}, {"temperature_c", k}}}}}}}};
  }
  return doc;
}

}  // namespace accelbench::testing
