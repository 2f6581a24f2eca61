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
  EXPECT_TRUE(p.said("end [2]: 0 workers: 3200 [3200, 3200] samples/s, data wait 50.0% of the step")) << dump(p.lines);
  EXPECT_TRUE(p.said("end [1]: staged: 6400 [6400, 6400] samples/s")) << dump(p.lines);
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
  EXPECT_TRUE(p.said("end [2]: bfloat16: 1280 [1280, 1280] samples/s, 2.00x [2.00, 2.00] over float32, loss")) << dump(p.lines);
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

// ---- the records' JSON --------------------------------------------------------------------------

// Each stored sweep block (tests/data/sweep-records.json: the sweep blocks of H200 and 2-core CPU
// runs, each under the name of the run it came from) reads into its record and writes back the same
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
