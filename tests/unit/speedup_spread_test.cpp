// A speed-up's next-run range from its own spread (analysis/speedup_spread), and the history that
// one bad run cannot poison (analysis/run_to_run: distorted runs and outliers left out, a range too
// wide to print said so): unit cases, then calibration on simulated machines with two devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>

#include "analysis/run_to_run.h"
#include "analysis/speedup_spread.h"
#include "core/t_distribution.h"
#include "report/reports.h"
#include "support/interval_judgement.h"

namespace accelbench {
std::vector<Speedup> speedups_of(const std::vector<CaseResult>& cases);
namespace {

// An ok case whose rounds' medians are `rounds` (seconds, `samples` samples each); its median is theirs.
CaseResult measured(const std::string& workload, const std::string& device, std::vector<double> rounds,
                    std::size_t samples = 10) {
  CaseResult c;
  c.spec = CaseSpec{workload, device, "float32", 64, 2};
  for (double m : rounds) c.rounds.push_back(RoundResult{m, samples});
  std::sort(rounds.begin(), rounds.end());
  const auto n = rounds.size();
  c.stats.median = n % 2 ? rounds[n / 2] : (rounds[n / 2 - 1] + rounds[n / 2]) / 2;
  c.stats.n = samples * n;
  if (device != "cpu") c.device_busy_fraction = 0.3;  // launch-bound: host-bound like the CPU
  return c;
}

CaseHistoryPoint stored(std::int64_t run_id, const CaseResult& c, double median, const std::string& distorted_by = "") {
  const auto& s = c.spec;
  return CaseHistoryPoint{.run_id = run_id, .torch_version = "2.13.0", .host = "h", .workload = s.workload, .device = s.device,
                          .dtype = s.dtype, .batch_size = s.batch_size, .threads = s.threads, .n = 30, .median = median,
                          .device_busy_fraction = c.device_busy_fraction.value_or(-1), .rounds = 3,
                          .distorted_by = distorted_by};
}

}  // namespace

// Each accelerator case over the CPU case of its workload: the ratio of their medians, as `run`'s.
std::vector<Speedup> speedups_of(const std::vector<CaseResult>& cases) {
  std::vector<Speedup> out;
  for (const auto& d : cases)
    for (const auto& c : cases)
      if (d.spec.device != "cpu" && c.spec.device == "cpu" && c.spec.workload == d.spec.workload)
        out.push_back(Speedup{d.spec.workload, d.spec.device, "cpu", 64, "float32", c.stats.median / d.stats.median, 0, 0});
  return out;
}

namespace {
RunResult run_of(std::vector<CaseResult> cases) {
  RunResult run;
  run.context.host = "h";
  run.context.torch_version = "2.13.0";
  run.cases = std::move(cases);
  run.speedups = speedups_of(run.cases);
  return run;
}

double width(double low, double high) { return std::log(high / low); }

// Rounds that move together on both devices: the paired rounds see a steady ratio, which the two
// cases' spreads added would not.
TEST(SpeedupSpread, AFirstRunPairsTheRoundsOfTheTwoDevices) {
  auto run = run_of({measured("mlp", "cpu", {1.00, 1.20, 1.10, 0.95}), measured("mlp", "cuda:0", {0.50, 0.60, 0.55, 0.48})});
  ASSERT_EQ(run.speedups.size(), 1u);
  apply_run_to_run(run, {});
  const auto& s = run.speedups[0];
  ASSERT_TRUE(s.run_to_run);
  EXPECT_EQ(s.run_to_run->source, "paired rounds");
  EXPECT_EQ(s.run_to_run->kind, "speed-up over host-bound");
  const double va = std::pow(run.cases[0].run_to_run->sd_log, 2), vb = std::pow(run.cases[1].run_to_run->sd_log, 2);
  EXPECT_LT(s.run_to_run->sd_log * s.run_to_run->sd_log, (va + vb) / 4);
  EXPECT_NEAR(std::log(s.ci_high / s.ratio), s.run_to_run->half_width_log, 1e-12);
  EXPECT_NEAR(std::log(s.level_high / s.ratio), s.run_to_run->level_half_width_log, 1e-12);
  EXPECT_TRUE(s.widened_by_history);
  const auto note = run_to_run_note(run);
  EXPECT_NE(note.find("; speed-ups: mlp cuda:0: its paired rounds (sd"), std::string::npos) << note;
}

// Where the speed-up has neither history nor two rounds a side, its cases' spreads add (Welch).
TEST(SpeedupSpread, WithoutHistoryOrPairedRoundsTheCasesSpreadsAdd) {
  auto run = run_of({measured("mlp", "cpu", {1.0}), measured("mlp", "cuda:0", {0.5})});
  apply_run_to_run(run, {});
  const auto& s = run.speedups[0];
  ASSERT_TRUE(s.run_to_run);
  EXPECT_EQ(s.run_to_run->source, "cases");
  const auto& a = *run.cases[0].run_to_run;
  const auto& b = *run.cases[1].run_to_run;
  EXPECT_NEAR(s.run_to_run->sd_log * s.run_to_run->sd_log, a.sd_log * a.sd_log + b.sd_log * b.sd_log, 1e-15);
  EXPECT_DOUBLE_EQ(s.run_to_run->dof, a.dof);  // both the same fallback estimate: its own dof
}

// The history of the ratio: five earlier runs in which both devices moved 20% together, the ratio
// within 1%: the speed-up's range is its ratio's, far narrower than its cases'.
TEST(SpeedupSpread, TheRatiosHistorySetsTheRangeWhereBothDevicesMoveTogether) {
  const auto cpu = measured("mlp", "cpu", {1.0}), dev = measured("mlp", "cuda:0", {0.5});
  std::vector<CaseHistoryPoint> history;
  const double level[] = {1.0, 1.2, 0.9, 1.15, 1.05};
  const double wobble[] = {1.0, 1.01, 0.995, 1.005, 0.99};
  for (int i = 0; i < 5; ++i) {
    history.push_back(stored(i + 1, cpu, 1.0 * level[i]));
    history.push_back(stored(i + 1, dev, 0.5 * level[i] * wobble[i]));
  }
  auto run = run_of({cpu, dev});
  apply_run_to_run(run, history);
  const auto& s = run.speedups[0];
  ASSERT_TRUE(s.run_to_run);
  EXPECT_EQ(s.run_to_run->source, "ratio history");
  EXPECT_EQ(s.run_to_run->earlier_runs, 5u);
  EXPECT_DOUBLE_EQ(s.run_to_run->dof, 5);
  EXPECT_FALSE(s.run_to_run->uses_prior());
  EXPECT_LT(width(s.ci_low, s.ci_high), 0.1);
  EXPECT_GT(width(run.cases[0].stats.ci_low, run.cases[0].stats.ci_high), 0.3);  // each case moved 33%
  EXPECT_GT(s.ci_low, 1.9);  // a verdict: cuda:0 faster, about 2x
}

// One earlier run: one degree of freedom of the ratio's own; its cases' spreads join as a prior
// worth kPriorRuns runs.
TEST(SpeedupSpread, UnderThreeDegreesOfFreedomTheCasesSpreadsJoinAsAPrior) {
  const auto cpu = measured("mlp", "cpu", {1.0}), dev = measured("mlp", "cuda:0", {0.5});
  auto run = run_of({cpu, dev});
  apply_run_to_run(run, {stored(1, cpu, 1.1), stored(1, dev, 0.54)});
  const auto& r = *run.speedups[0].run_to_run;
  EXPECT_EQ(r.source, "ratio history");
  EXPECT_TRUE(r.uses_prior());
  EXPECT_DOUBLE_EQ(r.dof, kPriorRuns + 1);
  const auto& a = *run.cases[0].run_to_run;
  const auto& b = *run.cases[1].run_to_run;
  const double cases = a.sd_log * a.sd_log + b.sd_log * b.sd_log, own = std::pow(std::log(1.1 / 0.54 / 2.0), 2) / 2;
  EXPECT_NEAR(r.sd_log * r.sd_log, (kPriorRuns * cases + own) / (kPriorRuns + 1), 1e-12);
}

// A stored run 100 times slower than the others (a machine busy with something the checks did not
// see): left out of the case's history and of its speed-up's, which then give the ranges the runs
// without it give; its id is named.
TEST(SpeedupSpread, AnOutlierRunIsLeftOutOfTheHistory) {
  const auto cpu = measured("mlp", "cpu", {1.0}), dev = measured("mlp", "cuda:0", {0.5});
  std::vector<CaseHistoryPoint> clean, planted;
  const double level[] = {1.0, 1.1, 0.95, 1.05};
  for (int i = 0; i < 4; ++i)
    for (auto* h : {&clean, &planted}) {
      h->push_back(stored(i + 1, cpu, level[i]));
      h->push_back(stored(i + 1, dev, 0.5 * level[i] * (i % 2 ? 1.02 : 0.98)));
    }
  for (auto* h : {&clean, &planted}) h->push_back(stored(5, dev, 0.5));
  auto without = run_of({cpu, dev});
  apply_run_to_run(without, clean);
  planted.push_back(stored(5, cpu, 100.0));  // run 5: 100x on the CPU
  auto with = run_of({cpu, dev});
  apply_run_to_run(with, planted);
  const auto& c = *with.cases[0].run_to_run;
  EXPECT_EQ(c.outlier_runs, std::vector<std::int64_t>{5});
  EXPECT_NEAR(c.sd_log, without.cases[0].run_to_run->sd_log, 1e-12);
  EXPECT_DOUBLE_EQ(with.cases[0].stats.ci_high, without.cases[0].stats.ci_high);
  const auto& s = *with.speedups[0].run_to_run;
  EXPECT_EQ(s.outlier_runs, std::vector<std::int64_t>{5});
  EXPECT_NEAR(s.sd_log, without.speedups[0].run_to_run->sd_log, 1e-12);
  EXPECT_TRUE(c.too_wide.empty()) << c.too_wide;
  // This run is never its own outlier: a run 100x its history keeps its figure, and its range says
  // it is too wide to print, why and what to do.
  auto slow = run_of({measured("mlp", "cpu", {100.0}), dev});
  apply_run_to_run(slow, clean);
  const auto& r = *slow.cases[0].run_to_run;
  EXPECT_TRUE(r.outlier_runs.empty());
  EXPECT_NE(r.too_wide.find("accelbench history rm"), std::string::npos) << r.too_wide;
  EXPECT_NE(r.too_wide.find("moved 105.3x"), std::string::npos) << r.too_wide;
  EXPECT_EQ(case_interval_text(slow.cases[0]), kTooWideCell);
}

TEST(SpeedupSpread, TheOutlierRuleNeedsThreeRunsAndBothBounds) {
  EXPECT_EQ(inlier_indices({0.0, std::log(100.0)}, std::nullopt).size(), 2u);  // two runs: no median to judge by
  const std::vector<double> wild{0.0, 0.05, -0.03, std::log(100.0)};
  EXPECT_EQ(inlier_indices(wild, std::nullopt), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(inlier_indices(wild, 3).size(), 4u);  // this run's own is kept
  // 2.5x from the median: under kOutlierFactor, kept however tight the others are.
  EXPECT_EQ(inlier_indices({0.0, 0.001, -0.001, std::log(2.5)}, std::nullopt).size(), 4u);
  // A noisy series (robust sd about 0.9): 4x from its median is within 5 robust sds, kept.
  EXPECT_EQ(inlier_indices({0.0, 0.8, -0.8, 1.2, -1.2, std::log(4.0)}, std::nullopt).size(), 6u);
}

// A run measured under a distortion (the checks found load) is left out of the history of a run
// measured without it, not of one measured under the same; an older run marked without names
// (kUnnamedDistortion) is left out of both.
TEST(SpeedupSpread, DistortedRunsAreLeftOutOfTheHistoryOfRunsMeasuredWithoutIt) {
  const auto cpu = measured("mlp", "cpu", {1.0, 1.01, 0.99});
  std::vector<CaseHistoryPoint> history{stored(1, cpu, 1.0), stored(2, cpu, 20.0, "load, busy processes"),
                                        stored(3, cpu, 1.02), stored(4, cpu, 9.0, kUnnamedDistortion)};
  auto idle = run_of({cpu});
  apply_run_to_run(idle, history);
  const auto& r = *idle.cases[0].run_to_run;
  EXPECT_EQ(r.distorted_runs, (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(r.earlier_runs, 2u);
  EXPECT_LT(r.sd_log, 0.05);
  auto busy = run_of({cpu});
  busy.context.distorted_by = {"load", "busy processes", "swap"};
  apply_run_to_run(busy, history);
  EXPECT_EQ(busy.cases[0].run_to_run->distorted_runs, std::vector<std::int64_t>{4});
  EXPECT_EQ(busy.cases[0].run_to_run->earlier_runs, 3u);
  EXPECT_TRUE(comparable_distortion("", {}));
  EXPECT_TRUE(comparable_distortion("load", {"load"}));
  EXPECT_FALSE(comparable_distortion("load, swap", {"load"}));
}

// A case whose rounds took one sample each is a kind of its own: the many-sample cases' spread is
// no prior for it.
TEST(SpeedupSpread, AOneSampleCaseIsNotModeratedTowardsManySampleCases) {
  auto run = run_of({measured("mlp", "cpu", {1.0, 1.001, 0.999}, 30), measured("cnn", "cpu", {2.0, 2.002, 1.998}, 30),
                     measured("transformer", "cpu", {10.0}, 1)});
  apply_run_to_run(run, {});
  EXPECT_EQ(run.cases[2].run_to_run->kind, "host-bound, few samples");
  EXPECT_EQ(run.cases[2].run_to_run->source, "fallback");
  EXPECT_EQ(run.cases[0].run_to_run->kind, "host-bound");
  EXPECT_GT(run.cases[2].run_to_run->sd_log, 10 * run.cases[0].run_to_run->sd_log);
}

TEST(SpeedupSpread, TheJsonKeepsTheSpeedupsSpreadAndTheRunsMark) {
  auto run = run_of({measured("mlp", "cpu", {1.0, 1.1}), measured("mlp", "cuda:0", {0.5, 0.52})});
  run.context.distorted_by = {"load"};
  apply_run_to_run(run, {});
  const auto back = nlohmann::json(run).get<RunResult>();
  ASSERT_TRUE(back.speedups.at(0).run_to_run);
  EXPECT_EQ(back.speedups[0].run_to_run->source, run.speedups[0].run_to_run->source);
  EXPECT_EQ(back.context.distorted_by, std::vector<std::string>{"load"});
  auto older = nlohmann::json(run);
  older["context"].erase("distorted_by");
  older["context"]["warnings"] = {"timings may be DISTORTED: load 3.1 on 2 cores (accelbench doctor says how to fix it)"};
  EXPECT_EQ(older.get<RunResult>().context.distorted_by, std::vector<std::string>{kUnnamedDistortion});
  older["context"]["warnings"] = nlohmann::json::array();
  EXPECT_TRUE(older.get<RunResult>().context.distorted_by.empty());
}

}  // namespace
}  // namespace accelbench

// -------------------------------------------------------------------------------------------------
// The speed-up's range on simulated machines: ten runs of three models on the CPU and one
// accelerator (mlp and cnn host-bound there, the transformer device-bound), three rounds each, from
// an empty history, each run given its ranges by apply_run_to_run from the runs before it, as `run`
// does. The two devices' run and round effects move together (correlation 0.9), apart (0), or the
// accelerator switches between two levels 15% apart (an even chance between two runs) that no round
// sees. Over 200 machines each, every case's and speed-up's mean coverage (the share of ordered pairs
// of runs (i, j) whose run i's range holds run j's figure) must lie in [90%, 98%] and its mean width
// ratio (a range's log width over the log range of the ten figures) be at most 3.
namespace accelbench {
namespace {

struct TwoDeviceMachine {
  const char* name;
  double round_sd, run_sd, rho;  // log scale; rho: the correlation of the two devices' effects
  double level_step;             // the accelerator's second level (log), 0: none
  double switch_prob;
};

constexpr int kRuns = 10, kRounds = 3, kMachines = 200;
struct Model {
  const char* name;
  double cpu_s, device_s, busy;
};
constexpr Model kModels[] = {{"mlp", 2e-3, 6e-4, 0.3}, {"cnn", 5e-2, 8e-3, 0.4}, {"transformer", 12.0, 2.6e-2, 0.99}};

// Figures (median or ratio, low, high) per run: the six cases, then the three speed-ups.
using Series = std::vector<std::vector<std::array<double, 3>>>;

CaseResult simulated_case(const char* name, const std::string& device, double level, const std::vector<double>& effects,
                          double busy) {
  CaseResult c;
  c.spec = CaseSpec{name, device, "float32", 64, 2};
  std::vector<double> medians;
  for (double e : effects) medians.push_back(std::exp(level + e));
  for (double m : medians) c.rounds.push_back(RoundResult{m, 30});
  std::sort(medians.begin(), medians.end());
  c.stats.median = medians[medians.size() / 2];
  c.stats.n = 30 * medians.size();
  if (device != "cpu") c.device_busy_fraction = busy;
  return c;
}

void add_to_history(const RunResult& run, std::int64_t run_id, std::vector<CaseHistoryPoint>& history) {
  for (const auto& c : run.cases) {
    CaseHistoryPoint p;
    p.run_id = run_id, p.host = "h", p.torch_version = "2.13.0", p.workload = c.spec.workload, p.device = c.spec.device;
    p.dtype = "float32", p.batch_size = 64, p.threads = 2, p.n = c.stats.n, p.rounds = c.rounds.size();
    p.median = c.stats.median, p.device_busy_fraction = c.device_busy_fraction ? *c.device_busy_fraction : -1;
    history.push_back(p);
  }
}

RunResult simulated_run(const TwoDeviceMachine& m, bool slow, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0, 1);
  auto pair = [&](double sd, double rho) {
    const double a = normal(rng), b = normal(rng);
    return std::pair{sd * a, sd * (rho * a + std::sqrt(1 - rho * rho) * b)};
  };
  RunResult run;
  run.context.host = "h";
  run.context.torch_version = "2.13.0";
  for (const auto& model : kModels) {
    const bool device_bound = model.busy >= 0.9;
    const double rho = device_bound ? 0 : m.rho;
    auto [run_cpu, run_dev] = pair(m.run_sd, rho);
    if (device_bound) run_dev = 0.001 * normal(rng);
    std::vector<double> cpu_effects, dev_effects;
    for (int r = 0; r < kRounds; ++r) {
      const auto [a, b] = pair(m.round_sd, rho);
      cpu_effects.push_back(a);
      dev_effects.push_back(device_bound ? 0.002 * normal(rng) : b);
    }
    const double dev_level = std::log(model.device_s) + run_dev + (slow && !device_bound ? m.level_step : 0);
    run.cases.push_back(simulated_case(model.name, "cuda:0", dev_level, dev_effects, model.busy));
    run.cases.push_back(simulated_case(model.name, "cpu", std::log(model.cpu_s) + run_cpu, cpu_effects, -1));
  }
  run.speedups = speedups_of(run.cases);
  return run;
}

Series ten_runs(const TwoDeviceMachine& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0, 1);
  Series out(9);
  std::vector<CaseHistoryPoint> history;
  bool slow = uniform(rng) < 0.5;
  for (int run_id = 1; run_id <= kRuns; ++run_id) {
    if (run_id > 1 && uniform(rng) < m.switch_prob) slow = !slow;
    auto run = simulated_run(m, slow, rng);
    apply_run_to_run(run, history);
    for (std::size_t i = 0; i < run.cases.size(); ++i)
      out[i].push_back({run.cases[i].stats.median, run.cases[i].stats.ci_low, run.cases[i].stats.ci_high});
    for (std::size_t i = 0; i < run.speedups.size(); ++i)
      out[6 + i].push_back({run.speedups[i].ratio, run.speedups[i].ci_low, run.speedups[i].ci_high});
    add_to_history(run, run_id, history);
  }
  return out;
}

using Calibration = accelbench::testing::SeriesJudgement;

std::vector<Calibration> calibrate(const TwoDeviceMachine& m) {
  std::mt19937_64 rng(20261204);
  std::vector<Calibration> total(9);
  for (int k = 0; k < kMachines; ++k) {
    const auto series = ten_runs(m, rng);
    for (std::size_t f = 0; f < series.size(); ++f) {
      const auto judged = accelbench::testing::judge_series(series[f]);
      total[f].coverage += judged.coverage / kMachines;
      total[f].width_ratio += judged.width_ratio / kMachines;
      total[f].first_width_ratio += judged.first_width_ratio / kMachines;
    }
  }
  return total;
}

constexpr const char* kFigures[] = {"mlp cuda:0", "mlp cpu", "cnn cuda:0", "cnn cpu", "transformer cuda:0",
                                    "transformer cpu", "mlp speed-up", "cnn speed-up", "transformer speed-up"};

void expect_calibrated(const TwoDeviceMachine& m) {
  const auto c = calibrate(m);
  for (std::size_t f = 0; f < c.size(); ++f) {
    std::printf("%s, %s: coverage %.1f%%, width ratio %.2f (first run %.2f)\n", m.name, kFigures[f], 100 * c[f].coverage,
                c[f].width_ratio, c[f].first_width_ratio);
    EXPECT_GE(c[f].coverage, 0.90) << m.name << ", " << kFigures[f];
    EXPECT_LE(c[f].coverage, 0.98) << m.name << ", " << kFigures[f] << ": wider than the machine needs";
    EXPECT_LE(c[f].width_ratio, 3.0) << m.name << ", " << kFigures[f];
  }
}

// The two devices' figures move together: 7% a run in all, correlation 0.9 (the ratio moves 3%).
TEST(SpeedupCalibration, DevicesThatMoveTogether) { expect_calibrated({"together", 0.06, 0.04, 0.9, 0, 0}); }

// ... and apart (correlation 0): the ratio moves as both do.
TEST(SpeedupCalibration, DevicesThatMoveApart) { expect_calibrated({"apart", 0.06, 0.04, 0.0, 0, 0}); }

// The accelerator switches between two levels 15% apart; its rounds (2% apart) see none of it.
TEST(SpeedupCalibration, ADeviceThatChangesLevel) {
  expect_calibrated({"device changes level", 0.02, 0, 0, std::log(1.15), 0.5});
}

}  // namespace
}  // namespace accelbench
