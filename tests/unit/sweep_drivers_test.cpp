// The sweep drivers (src/drivers/*_sweep.cpp) without torch and without the binary: a fake
// measurer returns scripted cases (a point that runs, one out of memory, one that crashes), a fake
// parity trainer scripted losses, and a recording printer keeps every event. Also the typed sweep
// records' JSON against stored sweep blocks (tests/data/sweep-records.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/sweep_records.h"
#include "drivers/batch_sweep.h"
#include "drivers/crossover_sweep.h"
#include "drivers/precision_sweep.h"
#include "drivers/setting_sweep.h"
#include "report/printer.h"
#include "report/sweep_tables.h"

namespace accelbench {
namespace {

using nlohmann::json;

// A case whose every sample is `step` seconds (so ratios and their CIs are exact), taking `wall_s`.
CaseResult ran(const CaseSpec& spec, double step, double wall_s = 1.0) {
  CaseResult c;
  c.spec = spec;
  c.samples.assign(20, step);
  c.stats = summarize(c.samples);
  c.samples_per_s = static_cast<double>(spec.batch_size) / step;
  c.wall_s = wall_s;
  return c;
}
CaseResult failed(const CaseSpec& spec, FailureKind kind, const std::string& error, double wall_s = 1.0) {
  CaseResult c;
  c.spec = spec;
  c.fail(kind, error);
  c.wall_s = wall_s;
  return c;
}

class FakeMeasurer : public CaseMeasurer {
 public:
  explicit FakeMeasurer(std::function<CaseResult(const CaseSpec&, const MeasureOptions&)> script) : script_(std::move(script)) {}
  CaseResult measure(const CaseSpec& spec, const MeasureOptions& options, const ProgressFn& progress) override {
    specs.push_back(spec);
    options_seen.push_back(options);
    if (progress) {
      ProgressEvent e;
      e.spec = &spec;
      e.stage = "measure";
      progress(e);
    }
    return script_(spec, options);
  }
  std::vector<CaseSpec> specs;
  std::vector<MeasureOptions> options_seen;

 private:
  std::function<CaseResult(const CaseSpec&, const MeasureOptions&)> script_;
};

class FakeParity : public ParityTrainer {
 public:
  // The loss after 3 steps drifts from 1.0 by `drift[dtype]`; float32's second run by `again`.
  std::map<std::string, double> drift;
  double again = 0.001;
  std::vector<std::string> calls;
  ParityTrace train(const CaseSpec& spec, const MeasureOptions&, int steps) override {
    calls.push_back(spec.dtype);
    double d = drift.count(spec.dtype) ? drift[spec.dtype] : 0;
    if (spec.dtype == "float32" && calls.size() == 2) d = again;
    ParityTrace t;
    for (int i = 0; i < steps; ++i) t.losses.push_back(3.0 - i);
    t.losses.back() *= 1 + d;
    t.grad_norm = 1.0;
    return t;
  }
};

struct RecordingPrinter : Printer {
  std::vector<std::string> lines;  // "plan: ...", "start [i]: label", "end [i]: line", "note: ..."
  std::vector<json> documents;
  std::string report;
  int contexts = 0;
  void context(const RunContext&) override { ++contexts; }
  void plan(const std::string& line) override { lines.push_back("plan: " + line); }
  void case_started(const CasePosition& at, const CaseSpec&, const std::string& label) override {
    lines.push_back("start [" + std::to_string(at.index + 1) + "]: " + label);
  }
  void case_finished(const CasePosition& at, const CaseResult&, const std::string& line) override {
    lines.push_back("end [" + std::to_string(at.index + 1) + "]: " + line);
  }
  void note(const std::string& line) override { lines.push_back("note: " + line); }
  void document(const json& doc) override { documents.push_back(doc); }
  void finished(const RunResult&, const std::string& r) override { report = r; }
  bool said(const std::string& text) const {
    for (const auto& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
};

SweepEnvironment environment(CaseMeasurer& m, Printer& p, ParityTrainer* parity = nullptr) {
  SweepEnvironment env;
  env.command = "sweep test";
  env.max_per_point_s = 60;
  env.measurer = &m;
  env.parity = parity;
  env.printer = &p;
  return env;
}

CaseSpec base(const std::string& device = "cuda:0") {
  CaseSpec s;
  s.workload = "transformer";
  s.device = device;
  s.batch_size = 64;
  return s;
}

std::string dump(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// ---- batch --------------------------------------------------------------------------------------

// Fits up to batch 100 (the throughput saturates at 64); larger batches run out of memory. The
// allocator's message has no "out of memory" prefix: the failure kind alone steers the bisection.
CaseResult up_to_100(const CaseSpec& s, const MeasureOptions&) {
  if (s.batch_size > 100) return failed(s, FailureKind::out_of_memory, "the allocator refused 2.00 GiB");
  return ran(s, s.batch_size <= 64 ? 0.01 : 0.01 * static_cast<double>(s.batch_size) / 64);
}

TEST(SweepDrivers, BatchOutOfMemoryStartsABisectionToTheLargestBatchThatFits) {
  FakeMeasurer m(up_to_100);
  RecordingPrinter p;
  BatchSweepRequest r{base(), {}, 8, 512, true, true, 0};
  const auto out = run_batch_sweep(r, environment(m, p));
  const auto s = out.document.at("sweep").get<BatchSweep>();
  ASSERT_GE(s.points.size(), 6u) << dump(p.lines);
  // Doubling 8..128, where 128 runs out; then the bisection between 64 and 128.
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(s.points[i].phase, "doubling") << i;
  EXPECT_EQ(s.points[4].batch, 128);
  EXPECT_EQ(s.points[4].outcome, PointOutcome::out_of_memory);
  EXPECT_EQ(s.points[5].phase, "bisection");
  EXPECT_EQ(s.first_oom, 128);
  ASSERT_TRUE(s.largest_fit);
  EXPECT_GT(*s.largest_fit, 64);
  EXPECT_LE(*s.largest_fit, 100);
  ASSERT_TRUE(s.smallest_oom);
  EXPECT_GT(*s.smallest_oom, 100);
  ASSERT_TRUE(s.bisection);
  EXPECT_EQ(s.bisection->low, 64);
  EXPECT_EQ(s.bisection->high, 128);
  EXPECT_EQ(s.knee, 64);
  EXPECT_TRUE(s.finished);
  EXPECT_EQ(out.exit_code, 0);
  // Every point measured once, appended, and the document streamed after each and at the end.
  EXPECT_EQ(m.specs.size(), s.points.size());
  EXPECT_EQ(out.run.cases.size(), s.points.size());
  EXPECT_EQ(p.documents.size(), s.points.size() + 1);
  EXPECT_FALSE(p.documents.front().at("sweep").at("finished").get<bool>());
  EXPECT_EQ(p.documents.front().at("cases").size(), 1u);
  EXPECT_EQ(p.contexts, 1);
  EXPECT_TRUE(p.said("start [1]: batch 8 (doubling)")) << dump(p.lines);
  EXPECT_TRUE(p.said("end [5]: batch 128: OOM at 128: the allocator refused 2.00 GiB")) << dump(p.lines);
  EXPECT_TRUE(p.said("start [6]: batch 96 (bisection)")) << dump(p.lines);
  EXPECT_NE(p.report.find("OOM at 128"), std::string::npos) << p.report;
  EXPECT_NE(p.report.find("largest batch that fits: "), std::string::npos) << p.report;
  EXPECT_NE(p.report.find("knee: batch 64"), std::string::npos) << p.report;
}

TEST(SweepDrivers, BatchCrashedPointIsRecordedAndTheSweepGoesOn) {
  FakeMeasurer m([](const CaseSpec& s, const MeasureOptions& o) {
    if (s.batch_size == 16) return failed(s, FailureKind::crashed, "child killed by signal 11 (SIGSEGV)");
    return up_to_100(s, o);
  });
  RecordingPrinter p;
  BatchSweepRequest r{base(), {}, 8, 64, false, true, 0};
  const auto out = run_batch_sweep(r, environment(m, p));
  const auto s = out.document.at("sweep").get<BatchSweep>();
  ASSERT_EQ(s.points.size(), 4u) << dump(p.lines);  // 8 16 32 64: a crash does not end the doubling
  EXPECT_EQ(s.points[1].outcome, PointOutcome::failed);
  EXPECT_EQ(s.points[1].error, "child killed by signal 11 (SIGSEGV)");
  EXPECT_FALSE(s.first_oom);
  EXPECT_EQ(s.largest_fit, 64);
  EXPECT_EQ(out.exit_code, 1);  // a failed point
  EXPECT_EQ(out.run.cases[1].failure, FailureKind::crashed);
  EXPECT_TRUE(p.said("end [2]: batch 16 failed: child killed by signal 11 (SIGSEGV)")) << dump(p.lines);
  // The JSON keeps "failed" and the error; not "out of memory".
  const auto& pt = out.document.at("sweep").at("points").at(1);
  EXPECT_EQ(pt.at("outcome"), "failed");
  EXPECT_FALSE(pt.contains("samples_per_s"));
}

TEST(SweepDrivers, BatchWithNothingThatFitsExitsOne) {
  FakeMeasurer m([](const CaseSpec& s, const MeasureOptions&) {
    return failed(s, FailureKind::out_of_memory, "out of memory: CUDA out of memory");
  });
  RecordingPrinter p;
  const auto out = run_batch_sweep({base(), {}, 8, 64, false, true, 0}, environment(m, p));
  const auto s = out.document.at("sweep").get<BatchSweep>();
  EXPECT_FALSE(s.largest_fit);
  EXPECT_FALSE(s.knee);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(p.report.find("knee: none (no point ran)"), std::string::npos) << p.report;
}

// ---- the budget ---------------------------------------------------------------------------------

TEST(SweepDrivers, TheBudgetIsSharedAndItsAllowanceShrinksToZeroWhenSpent) {
  // 6 s for 3 points, each taking 4 s: 6/3 = 2 s, then (6-4)/2 = 1 s, then nothing left: 0 s.
  FakeMeasurer m([](const CaseSpec& s, const MeasureOptions&) { return ran(s, 0.01, 4.0); });
  RecordingPrinter p;
  auto env = environment(m, p);
  env.budget_s = 6;
  SettingSweepRequest r{"threads", base("cpu"), {}, {1, 2, 4}};
  const auto out = run_setting_sweep(r, env);
  ASSERT_EQ(m.options_seen.size(), 3u);
  EXPECT_DOUBLE_EQ(m.options_seen[0].settings.stopping.max_time_s, 2.0);
  EXPECT_DOUBLE_EQ(m.options_seen[1].settings.stopping.max_time_s, 1.0);
  EXPECT_DOUBLE_EQ(m.options_seen[2].settings.stopping.max_time_s, 0.0);
  EXPECT_EQ(out.run.cases.size(), 3u);  // measured to its floor, as before: not skipped

  // No budget: every point gets the per-point maximum; a budget never raises it.
  FakeMeasurer m2([](const CaseSpec& s, const MeasureOptions&) { return ran(s, 0.01, 4.0); });
  auto env2 = environment(m2, p);
  env2.max_per_point_s = 1.5;
  run_setting_sweep(r, env2);
  for (const auto& o : m2.options_seen) EXPECT_DOUBLE_EQ(o.settings.stopping.max_time_s, 1.5);
  env2.budget_s = 600;
  FakeMeasurer m3([](const CaseSpec& s, const MeasureOptions&) { return ran(s, 0.01, 4.0); });
  env2.measurer = &m3;
  run_setting_sweep(r, env2);
  for (const auto& o : m3.options_seen) EXPECT_DOUBLE_EQ(o.settings.stopping.max_time_s, 1.5);
}

// ---- threads and workers ------------------------------------------------------------------------

TEST(SweepDrivers, ThreadsSpeedupOverOneThreadAndTheFewestWithinFivePercent) {
  // 1: 0.04 s, 2: 0.02 s, 4: 0.0102 s, 8: 0.01 s: 4 threads are within 5% of 8.
  const std::map<int, double> step{{1, 0.04}, {2, 0.02}, {4, 0.0102}, {8, 0.01}};
  FakeMeasurer m([&](const CaseSpec& s, const MeasureOptions&) {
    if (s.threads == 2) return failed(s, FailureKind::backend_error, "oneDNN said no");
    return ran(s, step.at(s.threads));
  });
  RecordingPrinter p;
  const auto out = run_setting_sweep({"threads", base("cpu"), {}, {1, 2, 4, 8}}, environment(m, p));
  const auto s = out.document.at("sweep").get<SettingSweep>();
  ASSERT_EQ(s.points.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(m.specs[i].threads, s.points[i].setting);
  EXPECT_EQ(s.best, 4);
  ASSERT_TRUE(s.points[2].speedup);
  EXPECT_NEAR(s.points[2].speedup->ratio, 0.04 / 0.0102, 1e-9);
  EXPECT_NEAR(*s.points[2].efficiency, 0.04 / 0.0102 / 4, 1e-9);
  EXPECT_EQ(s.points[1].outcome, "failed");
  EXPECT_FALSE(s.points[1].speedup);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_TRUE(p.said("end [2]: 2 threads: - samples/s: oneDNN said no")) << dump(p.lines);
  EXPECT_TRUE(p.said("start [1]: 1 thread")) << dump(p.lines);
  EXPECT_NE(p.report.find("best: 4 threads (the fewest within 5% of the best throughput"), std::string::npos) << p.report;
  EXPECT_EQ(out.document.at("sweep").at("device"), "cpu");
}

TEST(SweepDrivers, WorkersStagedFirstThenTheDataWait) {
  FakeMeasurer m([](const CaseSpec& s, const MeasureOptions& o) {
    auto c = ran(s, o.inputs.workers == kStagedWorkers ? 0.01 : o.inputs.workers == 0 ? 0.02 : 0.0105);
    c.data_wait_fraction = o.inputs.workers == 0 ? 0.5 : 0.02;
    c.input_bound = o.inputs.workers == 0;
    return c;
  });
  RecordingPrinter p;
  const auto out = run_setting_sweep({"workers", base("cpu"), {}, {kStagedWorkers, 0, 1, 2}}, environment(m, p));
  ASSERT_EQ(m.options_seen.size(), 4u);
  EXPECT_EQ(m.options_seen[0].inputs.workers, kStagedWorkers);
  EXPECT_EQ(m.options_seen[3].inputs.workers, 2);
  const auto& j = out.document.at("sweep");
  EXPECT_EQ(j.at("points").at(0).at("workers"), "staged");
  EXPECT_FALSE(j.at("points").at(0).contains("data_wait_fraction"));
  EXPECT_DOUBLE_EQ(j.at("points").at(1).at("data_wait_fraction").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j.at("staged_samples_per_s").get<double>(), 6400.0);
  EXPECT_EQ(j.at("best_workers"), 1);
  EXPECT_TRUE(p.said("end [2]: 0 workers: 3200 +-0.0% samples/s, data wait 50.0% of the step")) << dump(p.lines);
  EXPECT_TRUE(p.said("end [1]: staged: 6400 +-0.0% samples/s")) << dump(p.lines);
  EXPECT_EQ(out.exit_code, 0);
}

// ---- precision ----------------------------------------------------------------------------------

TEST(SweepDrivers, PrecisionFloorThresholdParityAndBest) {
  const std::map<std::string, double> step{{"float32", 0.1}, {"bfloat16", 0.05}, {"float16", 0.04}};
  FakeMeasurer m([&](const CaseSpec& s, const MeasureOptions&) { return ran(s, step.at(s.dtype)); });
  FakeParity parity;
  parity.drift = {{"bfloat16", 0.005}, {"float16", 0.05}};
  parity.again = 0.015;  // float32 against itself: the threshold becomes 3%
  RecordingPrinter p;
  PrecisionSweepRequest r{base(), {}, {"float32", "bfloat16", "tfloat32", "float16"}, {"", "", "no TF32 here", ""}, 3};
  const auto out = run_precision_sweep(r, environment(m, p, &parity));
  const auto s = out.document.at("sweep").get<PrecisionSweep>();
  // float32 trained twice (the floor), then once per measured precision; the refused one never.
  EXPECT_EQ(parity.calls, (std::vector<std::string>{"float32", "float32", "bfloat16", "float16"}));
  EXPECT_EQ(m.specs.size(), 3u);
  ASSERT_TRUE(s.parity_floor);
  EXPECT_NEAR(s.parity_floor->loss_rel_diff, 0.015, 1e-9);
  EXPECT_NEAR(s.parity_threshold, 0.03, 1e-9);
  ASSERT_EQ(s.points.size(), 4u);
  EXPECT_EQ(s.points[2].outcome, "not supported");
  EXPECT_FALSE(s.points[2].case_index);
  EXPECT_EQ(s.points[3].case_index, 2u);
  EXPECT_NEAR(s.points[1].speedup->ratio, 2.0, 1e-9);
  EXPECT_EQ(s.points[1].parity_ok, true);
  EXPECT_EQ(s.points[3].parity_ok, false);  // 5% > 3%: faster, but it drifts
  EXPECT_EQ(s.best, "bfloat16");
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_TRUE(p.said("note: [3] tfloat32: not supported: no TF32 here")) << dump(p.lines);
  EXPECT_TRUE(p.said("end [2]: bfloat16: 1280 +-0.0% samples/s, 2.00x [2.00, 2.00] over float32, loss")) << dump(p.lines);
  EXPECT_NE(p.report.find("loss drifts"), std::string::npos) << p.report;
  EXPECT_NE(p.report.find("best: bfloat16"), std::string::npos) << p.report;
  EXPECT_EQ(out.document.at("sweep").at("points").at(2).at("case_index"), nullptr);
}

TEST(SweepDrivers, PrecisionWhenFloat32FailsThereIsNoSpeedupAndNoBest) {
  FakeMeasurer m([](const CaseSpec& s, const MeasureOptions&) {
    if (s.dtype == "float32") return failed(s, FailureKind::diverged, "loss became NaN at step 4");
    return ran(s, 0.05);
  });
  RecordingPrinter p;
  const auto out = run_precision_sweep({base(), {}, {"float32", "bfloat16"}, {"", ""}, 0}, environment(m, p));
  const auto s = out.document.at("sweep").get<PrecisionSweep>();
  EXPECT_FALSE(s.points[1].speedup);
  EXPECT_FALSE(s.best);
  EXPECT_EQ(out.exit_code, 1);
}

// ---- crossover ----------------------------------------------------------------------------------

TEST(SweepDrivers, CrossoverMeasuresBothDevicesAndFindsWhereTheAcceleratorWins) {
  // CPU step = batch x 1 ms; accelerator step = 20 ms + batch x 0.1 ms: 0.38x at 8, 0.74x at 16,
  // 1.38x at 32, 2.42x at 64.
  FakeMeasurer m([](const CaseSpec& s, const MeasureOptions&) {
    const double b = static_cast<double>(s.batch_size);
    return ran(s, s.device == "cpu" ? 0.001 * b : 0.02 + 0.0001 * b, 2.0);
  });
  RecordingPrinter p;
  auto env = environment(m, p);
  env.budget_s = 16;
  const auto out = run_crossover_sweep({base(), {}, "batch", {8, 16, 32, 64}}, env);
  const auto s = out.document.at("sweep").get<CrossoverSweep>();
  ASSERT_EQ(m.specs.size(), 8u);
  EXPECT_EQ(m.specs[0].device, "cuda:0");
  EXPECT_EQ(m.specs[1].device, "cpu");
  EXPECT_EQ(m.specs[7].batch_size, 64);
  // The budget: 16 s over 8 cases of 2 s each: 2 s every time.
  for (const auto& o : m.options_seen) EXPECT_DOUBLE_EQ(o.settings.stopping.max_time_s, 2.0);
  ASSERT_EQ(s.points.size(), 4u);
  EXPECT_EQ(s.points[2].device_case_index, 4u);
  EXPECT_EQ(s.points[2].cpu_case_index, 5u);
  EXPECT_NEAR(s.points[2].speedup->ratio, 0.032 / 0.0232, 1e-9);
  EXPECT_EQ(s.crossover.kind, CrossoverKind::crosses);
  EXPECT_EQ(s.crossover.at, 32);
  EXPECT_EQ(s.crossover.cpu_until, 16);
  EXPECT_FALSE(s.batch);  // only a width sweep has one batch
  EXPECT_EQ(out.run.speedups.size(), 4u);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_TRUE(p.said("start [3]: batch 32 on cpu")) << dump(p.lines);
  EXPECT_TRUE(p.said("note: [4] batch 64: cuda:0 is 2.42x [2.42, 2.42] the CPU's speed")) << dump(p.lines);
  EXPECT_NE(p.report.find("crossover: "), std::string::npos) << p.report;
}

TEST(SweepDrivers, CrossoverAFailedCaseLeavesItsPointWithoutASpeedup) {
  FakeMeasurer m([](const CaseSpec& s, const MeasureOptions&) {
    if (s.device == "cpu" && s.width == 256) return failed(s, FailureKind::crashed, "child killed by signal 9 (SIGKILL)");
    return ran(s, s.device == "cpu" ? 1e-5 * static_cast<double>(s.width) : 0.001);
  });
  RecordingPrinter p;
  CaseSpec b = base();
  b.workload = "mlp";
  const auto out = run_crossover_sweep({b, {}, "width", {64, 256, 1024}}, environment(m, p));
  const auto s = out.document.at("sweep").get<CrossoverSweep>();
  EXPECT_EQ(m.specs[2].width, 256);
  EXPECT_FALSE(s.points[1].speedup);
  EXPECT_EQ(s.batch, 64);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_TRUE(p.said("end [2]: width on cpu failed: child killed by signal 9 (SIGKILL)")) << dump(p.lines);
}

// A point whose case took one sample has no speed-up (a bootstrap of one sample would give an
// interval of one value): none in the crossover, the threads or the precision sweep, and the
// crossover says why; a point with two samples a side has one.
TEST(SweepDrivers, APointWithOneSampleASideHasNoSpeedup) {
  auto one_sample_at = [](std::int64_t width) {
    return [width](const CaseSpec& s, const MeasureOptions&) {
      auto c = ran(s, s.device == "cpu" ? 1e-5 * static_cast<double>(s.width) : 0.001);
      if (s.device == "cpu" && s.width == width) c.samples.resize(1);
      return c;
    };
  };
  FakeMeasurer m(one_sample_at(256));
  RecordingPrinter p;
  CaseSpec b = base();
  b.workload = "mlp";
  const auto out = run_crossover_sweep({b, {}, "width", {64, 256}}, environment(m, p));
  const auto s = out.document.at("sweep").get<CrossoverSweep>();
  EXPECT_TRUE(s.points[0].speedup);
  EXPECT_FALSE(s.points[1].speedup);
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_TRUE(p.said("[2] width 256: too few samples for a speed-up")) << dump(p.lines);
  EXPECT_FALSE(ratio_of_medians_with_spread(std::vector<double>{1.0}, std::vector<double>{1.0, 2.0}));
  EXPECT_FALSE(ratio_of_medians_with_spread(std::vector<double>{1.0, 2.0}, std::vector<double>{1.0}));
  const auto two = ratio_of_medians_with_spread(std::vector<double>{2.0, 2.2}, std::vector<double>{1.0, 1.1});
  ASSERT_TRUE(two);
  EXPECT_NEAR(two->ratio, 2.0, 1e-9);
  EXPECT_LT(two->low, two->high);
}

// ---- the records' JSON --------------------------------------------------------------------------

// Each stored sweep block (tests/data/sweep-records.json: the sweep blocks of H200 and 2-core CPU
// runs, each named by its machine, sweep and model) reads into its record and writes back the same
// block.
TEST(SweepRecords, StoredSweepBlocksReadAndWriteBackUnchanged) {
  const auto file = std::filesystem::path(ACCELBENCH_TEST_DATA) / "sweep-records.json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  const json stored = json::parse(in);
  ASSERT_TRUE(stored.is_object()) << file;
  int read = 0;
  for (const auto& [name, doc] : stored.items()) {
    ASSERT_TRUE(doc.is_object() && doc.contains("sweep")) << name;
    const auto sweep = sweep_from_document(doc);
    ASSERT_TRUE(sweep) << name;
    const json back = sweep_to_json(*sweep);
    const json& expected = doc.at("sweep");
    // What the file has comes back the same; a key written since (the older blocks lack the
    // parity threshold and floor, a parity's skipped steps) may be added, nothing else.
    for (const auto& op : json::diff(expected, back)) {
      const auto path = op.at("path").get<std::string>();
      const bool newer_key = op.at("op") == "add" && (path.rfind('/') == 0 || path.ends_with("/skipped_steps"));
      EXPECT_TRUE(newer_key) << name << ": " << op.dump();
    }
    ++read;
  }
  EXPECT_EQ(read, 8);
}

// A sweep of the Python twin keeps its loop through the JSON (and its label says it); a C++ sweep's
// block has no "impl" key, as before.
TEST(SweepRecords, ThePythonLoopOfASweepRoundTrips) {
  for (const char* impl : {"", "python"}) {
    json doc{{"sweep", {{"kind", "threads"}, {"model", "mlp"}, {"device", "cpu"}, {"dtype", "float32"}, {"batch", 16},
                        {"best_threads", nullptr}, {"points", json::array()}}}};
    if (*impl) doc["sweep"]["impl"] = impl;
    if (*impl) doc["sweep"]["compile"] = "default";
    const auto sweep = sweep_from_document(doc);
    ASSERT_TRUE(sweep) << impl;
    const json back = sweep_to_json(*sweep);
    EXPECT_EQ(back.contains("impl"), *impl != '\0') << back.dump();
    if (*impl) EXPECT_EQ(back.at("compile"), "default");
    const auto& setting = std::get<SettingSweep>(*sweep);
    EXPECT_EQ(sweep_model_label(setting), *impl ? "mlp[python,compile=default]" : "mlp");
  }
}

TEST(SweepRecords, MalformedBlocksThrow) {
  EXPECT_THROW(sweep_from_document(json{{"sweep", {{"kind", "batch"}}}}), std::exception);
  EXPECT_THROW(sweep_from_document(json{{"sweep", {{"kind", "crossover"}, {"axis", 1}}}}), std::exception);
  EXPECT_THROW(sweep_from_document(json{{"sweep", {{"kind", "workers"}, {"model", "m"}, {"device", "cpu"}, {"best_workers", nullptr},
                                                   {"points", {{{"workers", 1}, {"data_wait_fraction", "5%"}}}}}}}),
               std::exception);
  EXPECT_FALSE(sweep_from_document(json{{"sweep", {{"kind", "frobnicate"}}}}));
  EXPECT_FALSE(sweep_from_document(json::object()));
}

}  // namespace
}  // namespace accelbench

// -------------------------------------------------------------------------------------------------
// The batch sweep's decisions with known answers: doubling, bisection after an out-of-memory, the
// knee, memory sizes, the memory limit's checks; and the child process that runs a point.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/errors.h"
#include "core/child_process.h"
#include "core/sweep_logic.h"
#include "test_files.h"

using namespace accelbench;

namespace {

struct Simulated {
  std::vector<std::int64_t> measured;  // in the order the planner asked for them
  std::optional<std::int64_t> largest_fit, first_oom, smallest_oom;
};

// Drives the planner against an oracle that says how each batch ends.
Simulated simulate(std::int64_t from, std::int64_t to, const std::function<PointOutcome(std::int64_t)>& oracle) {
  BatchSweepPlanner p(from, to);
  Simulated s;
  while (auto b = p.next()) {
    s.measured.push_back(*b);
    p.record(*b, oracle(*b));
    if (s.measured.size() > 100) break;  // a bug would loop forever
  }
  s.largest_fit = p.largest_fit();
  s.first_oom = p.first_oom();
  s.smallest_oom = p.smallest_oom();
  return s;
}

std::function<PointOutcome(std::int64_t)> fits_up_to(std::int64_t limit) {
  return [limit](std::int64_t b) { return b <= limit ? PointOutcome::fit : PointOutcome::out_of_memory; };
}

using V = std::vector<std::int64_t>;

}  // namespace

TEST(SweepLogic, DoublingPoints) {
  EXPECT_EQ(doubling_points(8, 256), (V{8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(doubling_points(8, 100), (V{8, 16, 32, 64, 100}));
  EXPECT_EQ(doubling_points(8, 8), (V{8}));
  EXPECT_EQ(doubling_points(3, 20), (V{3, 6, 12, 20}));
  EXPECT_EQ(doubling_points(8, 4096).size(), 10u);
  EXPECT_TRUE(doubling_points(0, 8).empty());
  EXPECT_TRUE(doubling_points(16, 8).empty());
}

TEST(SweepLogic, BisectionStepIsASixteenthRoundedToMultiplesOfEight) {
  EXPECT_EQ(bisection_step(0, 8), 1);
  EXPECT_EQ(bisection_step(16, 32), 1);
  EXPECT_EQ(bisection_step(64, 128), 4);
  EXPECT_EQ(bisection_step(128, 256), 8);
  EXPECT_EQ(bisection_step(256, 512), 16);
  EXPECT_EQ(bisection_step(1024, 2048), 64);
  EXPECT_EQ(bisection_step(2048, 4096), 128);
  EXPECT_EQ(bisection_step(100, 300), 8);   // 12.5 -> 12 -> a multiple of 8
  EXPECT_EQ(bisection_step(0, 400), 24);    // 25 -> 24
}

TEST(SweepLogic, NoOutOfMemoryRunsTheWholeRange) {
  const auto s = simulate(8, 256, fits_up_to(1 << 20));
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(s.largest_fit, 256);
  EXPECT_FALSE(s.first_oom);
}

TEST(SweepLogic, OutOfMemoryStopsTheDoublingAndBisects) {
  // Fits up to 100: the doubling runs out at 128, then [64, 128) is bisected in steps of 4.
  const auto s = simulate(8, 512, fits_up_to(100));
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64, 128, 96, 112, 104, 100}));
  EXPECT_EQ(s.largest_fit, 100);
  EXPECT_EQ(s.first_oom, 128);
  EXPECT_EQ(s.smallest_oom, 104);
}

TEST(SweepLogic, LargeBatchesBisectInStepsOfOneSixteenth) {
  // Fits up to 3000: 4096 runs out; [2048, 4096) in steps of 128 -> 2944 (3072 does not fit).
  const auto s = simulate(8, 4096, fits_up_to(3000));
  EXPECT_EQ(s.first_oom, 4096);
  EXPECT_EQ(s.largest_fit, 2944);
  EXPECT_EQ(s.smallest_oom, 3072);
  EXPECT_EQ(s.measured.size(), 10u + 4u);  // the doubling, then 4 bisection points
}

TEST(SweepLogic, ResolutionIsReachedExactly) {
  // Every limit between two doubling points is found to the resolution: the answer is the largest
  // candidate (64 + 4k) not above the limit.
  for (std::int64_t limit = 64; limit < 128; ++limit) {
    const auto s = simulate(8, 512, fits_up_to(limit));
    ASSERT_TRUE(s.largest_fit) << limit;
    EXPECT_EQ(*s.largest_fit, 64 + (limit - 64) / 4 * 4) << limit;
    EXPECT_EQ(s.first_oom, 128) << limit;
  }
}

TEST(SweepLogic, OutOfMemoryAtTheFirstPointBisectsBelowIt) {
  const auto s = simulate(8, 512, fits_up_to(5));
  EXPECT_EQ(s.measured, (V{8, 4, 6, 5}));
  EXPECT_EQ(s.largest_fit, 5);
  EXPECT_EQ(s.first_oom, 8);
}

TEST(SweepLogic, NothingFits) {
  const auto s = simulate(8, 512, fits_up_to(0));
  EXPECT_EQ(s.measured, (V{8, 4, 2, 1}));
  EXPECT_FALSE(s.largest_fit);
  EXPECT_EQ(s.first_oom, 8);
  EXPECT_EQ(s.smallest_oom, 1);
}

TEST(SweepLogic, ACrashIsRecordedAndTheDoublingGoesOn) {
  const auto s = simulate(8, 64, [](std::int64_t b) { return b == 16 ? PointOutcome::failed : PointOutcome::fit; });
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64}));
  EXPECT_EQ(s.largest_fit, 64);
  EXPECT_FALSE(s.first_oom);
}

TEST(SweepLogic, CrashesFromSomeBatchOnRunToTheEndWithoutBisection) {
  const auto s = simulate(8, 64, [](std::int64_t b) { return b >= 16 ? PointOutcome::failed : PointOutcome::fit; });
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64}));
  EXPECT_EQ(s.largest_fit, 8);
  EXPECT_FALSE(s.first_oom);
}

TEST(SweepLogic, AFailureDuringTheBisectionCountsAsNotFitting) {
  // Fits up to 100, but 96 crashes: the bisection goes below it.
  const auto s = simulate(8, 512, [](std::int64_t b) {
    if (b == 96) return PointOutcome::failed;
    return b <= 100 ? PointOutcome::fit : PointOutcome::out_of_memory;
  });
  EXPECT_EQ(s.measured, (V{8, 16, 32, 64, 128, 96, 80, 88, 92}));
  EXPECT_EQ(s.largest_fit, 92);
  EXPECT_EQ(s.smallest_oom, 128);
}

TEST(SweepLogic, BisectionStartsAboveTheLargestFitBelowTheOutOfMemory) {
  // 16 crashed, 32 ran out: the bisection is between 8 (the largest fit) and 32.
  BatchSweepPlanner p(8, 512);
  p.record(8, PointOutcome::fit);
  p.record(16, PointOutcome::failed);
  p.record(32, PointOutcome::out_of_memory);
  EXPECT_TRUE(p.bisecting());
  EXPECT_EQ(p.bisection_low(), 8);
  EXPECT_EQ(p.bisection_high(), 32);
  EXPECT_EQ(p.resolution(), 1);
  EXPECT_EQ(p.next(), 20);
}

TEST(SweepLogic, RemainingEstimate) {
  BatchSweepPlanner p(8, 256);
  EXPECT_EQ(p.remaining_estimate(), 6u);
  p.record(8, PointOutcome::fit);
  EXPECT_EQ(p.remaining_estimate(), 5u);
  p.record(16, PointOutcome::out_of_memory);  // [8, 16) in steps of 1: 3 bisection points
  EXPECT_EQ(p.remaining_estimate(), 3u);
}

TEST(SweepLogic, KneeIsTheSmallestBatchWithinFivePercentOfTheBest) {
  const std::vector<ThroughputPoint> pts{{8, 100}, {16, 190}, {32, 300}, {64, 390}, {128, 400}, {256, 395}};
  EXPECT_EQ(find_knee(pts), 64);  // 390 >= 0.95 x 400 = 380; 300 is not
  EXPECT_EQ(find_knee(pts, 0.30), 32);
  EXPECT_EQ(find_knee(pts, 0.0), 128);
  EXPECT_EQ(find_knee({{8, 96}, {16, 100}}), 8);
  EXPECT_EQ(find_knee({{8, 94}, {16, 100}}), 16);
  EXPECT_EQ(find_knee({{256, 400}, {8, 399}}), 8);  // order does not matter
  EXPECT_FALSE(find_knee({}));
  EXPECT_FALSE(find_knee({{8, 0}, {16, std::nan("")}}));
  EXPECT_EQ(find_knee({{8, std::nan("")}, {16, 50}}), 16);
}

TEST(SweepLogic, MemorySizes) {
  EXPECT_EQ(parse_memory_size("16GiB"), 16ull << 30);
  EXPECT_EQ(parse_memory_size(" 16 GiB "), 16ull << 30);
  EXPECT_EQ(parse_memory_size("16g"), 16ull << 30);
  EXPECT_EQ(parse_memory_size("8GB"), 8000000000ull);
  EXPECT_EQ(parse_memory_size("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_memory_size("1.5GiB"), 3ull << 29);
  EXPECT_EQ(parse_memory_size("1000"), 1000ull);
  EXPECT_EQ(parse_memory_size("2TiB"), 2ull << 40);
  for (const char* bad : {"", "abc", "GiB", "16 parsecs", "16GiBs", "nan", "inf"})
    EXPECT_THROW(parse_memory_size(bad), UsageError) << bad;
  for (const char* nonpositive : {"-1GiB", "0", "0.1"}) {
    try {
      parse_memory_size(nonpositive);
      ADD_FAILURE() << nonpositive;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("must be positive"), std::string::npos) << e.what();
    }
  }
}

TEST(SweepLogic, MemoryLimitChecks) {
  DeviceDescription cpu{"cpu", "cpu", "CPU", -1, 64ull << 30};
  DeviceDescription gpu{"cuda:0", "cuda", "GPU", 0, 80ull << 30};
  DeviceDescription unknown{"cuda:1", "cuda", "GPU", 1, std::nullopt};
  DeviceDescription xpu{"xpu:0", "xpu", "Intel GPU", 0, 16ull << 30};
  auto message = [](const DeviceDescription& d, std::uint64_t bytes) -> std::string {
    try {
      check_memory_limit(d, bytes);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(cpu, 1ull << 30).find("the CPU has none"), std::string::npos);
  EXPECT_EQ(message(gpu, 16ull << 30), "");
  EXPECT_EQ(message(gpu, 80ull << 30), "");
  EXPECT_NE(message(gpu, 81ull << 30).find("larger than the memory of cuda:0 (80.0 GiB)"), std::string::npos)
      << message(gpu, 81ull << 30);
  EXPECT_NE(message(unknown, 1ull << 30).find("unknown"), std::string::npos);
  EXPECT_NE(message(xpu, 1ull << 30).find("cuda and mps"), std::string::npos);
}

TEST(ChildProcess, ExitCodesSignalsAndTimeouts) {
  accelbench::testing::TempDir dir;
  const auto err = dir.file("err");
  auto r = run_child({"/bin/sh", "-c", "echo first >&2; echo last words >&2; exit 3"}, err, 0);
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(describe_child_failure(r), "exited with code 3");
  EXPECT_EQ(last_line_of_file(err), "last words");

  r = run_child({"/bin/sh", "-c", "kill -ABRT $$"}, "", 0);
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.signal, 6);
  EXPECT_EQ(describe_child_failure(r).rfind("crashed: signal 6", 0), 0u) << describe_child_failure(r);

  r = run_child({"/bin/sh", "-c", "kill -KILL $$"}, "", 0);
  EXPECT_EQ(r.signal, 9);
  EXPECT_EQ(describe_child_failure(r).rfind("crashed: signal 9", 0), 0u) << describe_child_failure(r);

  r = run_child({"/bin/sleep", "60"}, "", 0.2);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, 9);
  EXPECT_LT(r.wall_s, 30);  // the 60 s sleep was ended, not waited for
  EXPECT_NE(describe_child_failure(r).find("after the time limit"), std::string::npos);

  r = run_child({"/nonexistent/program"}, "", 0);
  EXPECT_FALSE(r.started);
  EXPECT_NE(describe_child_failure(r).find("could not start"), std::string::npos);

  EXPECT_FALSE(self_executable_path().empty());
}

// ---- threads and workers sweeps ------------------------------------------------------------------

TEST(SweepLogic, ThreadPointsArePowersOfTwoThenTheMaximum) {
  EXPECT_EQ(thread_points(16), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(thread_points(6), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_EQ(thread_points(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(thread_points(1), (std::vector<int>{1}));
}

TEST(SweepLogic, WorkerPointsStartAtZero) {
  EXPECT_EQ(worker_points(4), (std::vector<int>{0, 1, 2, 4}));
  EXPECT_EQ(worker_points(6), (std::vector<int>{0, 1, 2, 4, 6}));
  EXPECT_EQ(worker_points(1), (std::vector<int>{0, 1}));
  EXPECT_EQ(worker_points(0), (std::vector<int>{0}));
}

// ---- crossover -------------------------------------------------------------------------------------

TEST(Crossover, CrossesWhereTheCiLeavesOneForGood) {
  // CPU faster at 8 and 16, noise at 32, a lucky point at 64 (above 1) then noise at 128, then
  // faster from 256 on: the crossover is 256, not 64.
  const auto c = find_crossover({{8, 0.5, 0.4, 0.6},
                                 {16, 0.7, 0.6, 0.8},
                                 {32, 0.98, 0.9, 1.05},
                                 {64, 1.1, 1.02, 1.2},
                                 {128, 1.05, 0.97, 1.1},
                                 {256, 1.6, 1.4, 1.7},
                                 {512, 2.5, 2.3, 2.7}});
  EXPECT_EQ(c.kind, CrossoverKind::crosses);
  EXPECT_EQ(c.at, 256);
  EXPECT_EQ(c.cpu_until, 16);
  EXPECT_NE(describe_crossover(c, "batch").find("overtakes the CPU at batch 256"), std::string::npos);
}

TEST(Crossover, UnsortedInputIsSortedFirst) {
  const auto c = find_crossover({{512, 2.5, 2.3, 2.7}, {8, 0.5, 0.4, 0.6}, {64, 1.3, 1.2, 1.4}});
  EXPECT_EQ(c.kind, CrossoverKind::crosses);
  EXPECT_EQ(c.at, 64);
  EXPECT_EQ(c.cpu_until, 8);
}

TEST(Crossover, AlwaysFasterCpuAlwaysAndNever) {
  const auto a = find_crossover({{8, 1.2, 1.1, 1.3}, {16, 1.5, 1.4, 1.6}});
  EXPECT_EQ(a.kind, CrossoverKind::accelerator_always);
  EXPECT_EQ(a.at, 8);
  const auto b = find_crossover({{8, 0.5, 0.4, 0.6}, {16, 0.8, 0.7, 0.9}});
  EXPECT_EQ(b.kind, CrossoverKind::cpu_always);
  EXPECT_FALSE(b.at);
  EXPECT_EQ(b.cpu_until, 16);
  // The last point's CI touches 1: no crossover, even though an earlier point was faster.
  const auto n = find_crossover({{8, 0.5, 0.4, 0.6}, {16, 1.3, 1.2, 1.4}, {32, 1.02, 0.95, 1.1}});
  EXPECT_EQ(n.kind, CrossoverKind::never);
  EXPECT_FALSE(n.at);
  EXPECT_EQ(n.cpu_until, 8);
  EXPECT_EQ(find_crossover({}).kind, CrossoverKind::none);
  // Failed points (no ratio) are ignored.
  EXPECT_EQ(find_crossover({{8, 0, 0, 0}}).kind, CrossoverKind::none);
}

// -------------------------------------------------------------------------------------------------
// Numerical parity figures (core/parity.h) on known traces.
#include <gtest/gtest.h>

#include "core/parity.h"

namespace accelbench {
namespace {

TEST(Parity, RelativeDifferencesAtTheLastStepAndTheLargest) {
  const ParityTrace ref{{2.0, 1.0, 0.5}, 4.0, ""};
  const ParityTrace run{{2.0, 1.1, 0.505}, 4.4, ""};
  const auto p = make_parity(run, ref, "cpu float32");
  EXPECT_TRUE(p.error.empty());
  EXPECT_EQ(p.steps, 3);
  EXPECT_NEAR(p.loss_rel_diff, 0.01, 1e-12);
  EXPECT_NEAR(p.max_loss_rel_diff, 0.1, 1e-12);
  ASSERT_TRUE(p.grad_norm_rel_diff);
  EXPECT_NEAR(*p.grad_norm_rel_diff, 0.1, 1e-12);
  EXPECT_EQ(p.reference, "cpu float32");
  const auto text = describe_parity(p);
  EXPECT_NE(text.find("loss +1%"), std::string::npos) << text;
  EXPECT_NE(text.find("grad norm +10%"), std::string::npos) << text;
  EXPECT_NE(text.find("after 3 steps vs cpu float32"), std::string::npos) << text;
}

TEST(Parity, IdenticalRunsHaveZeroDifference) {
  const ParityTrace t{{0.7, 0.6}, 1.5, ""};
  const auto p = make_parity(t, t, "ref");
  EXPECT_EQ(p.loss_rel_diff, 0);
  EXPECT_EQ(p.max_loss_rel_diff, 0);
  EXPECT_EQ(*p.grad_norm_rel_diff, 0);
}

TEST(Parity, NonFiniteLossIsAnInfiniteDifference) {
  const auto p = make_parity({{0.7, NAN}, std::nullopt, ""}, {{0.7, 0.6}, 1.0, ""}, "ref");
  EXPECT_TRUE(std::isinf(p.loss_rel_diff));
  EXPECT_FALSE(p.grad_norm_rel_diff);  // the run has no gradient norm (a GAN)
}

TEST(Parity, AFailedRunOrReferenceCarriesTheError) {
  const auto a = make_parity({{}, std::nullopt, "out of memory: boom"}, {{1.0}, 1.0, ""}, "ref");
  EXPECT_EQ(a.error, "out of memory: boom");
  const auto b = make_parity({{1.0}, 1.0, ""}, {{}, std::nullopt, "NaN"}, "ref");
  EXPECT_EQ(b.error, "the reference run failed: NaN");
  EXPECT_EQ(describe_parity(b), "parity: the reference run failed: NaN");
  const auto c = make_parity({{}, std::nullopt, ""}, {{}, std::nullopt, ""}, "ref");
  EXPECT_EQ(c.error, "no training step to compare");
}

}  // namespace
}  // namespace accelbench

namespace accelbench {
namespace {
TEST(Parity, SkippedStepsAreCarriedAndSaid) {
  ParityTrace run{{1.0, 0.9}, 1.0, ""};
  run.skipped_steps = 1;
  const auto p = make_parity(run, {{1.0, 0.8}, 1.0, ""}, "cuda:0 float32");
  EXPECT_EQ(p.skipped_steps, 1);
  EXPECT_NE(describe_parity(p).find("loss scaling skipped 1 of the 2 optimizer steps"), std::string::npos) << describe_parity(p);
  Parity none = make_parity({{1.0}, 1.0, ""}, {{1.0}, 1.0, ""}, "x");
  EXPECT_EQ(describe_parity(none).find("skipped"), std::string::npos);
}
}  // namespace
}  // namespace accelbench
