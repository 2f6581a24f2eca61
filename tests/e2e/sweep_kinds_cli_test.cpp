// End-to-end tests of the sweeps beside `sweep batch`: precision (speed-up over float32 and parity
// after K identical steps), threads, workers, crossover (refused without an accelerator), and the
// bad input of the options they brought (--width, --checkpoint, precisions per device).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli_runner.h"

namespace {
using accelbench::testing::count_lines;
using accelbench::testing::run_cli;
using accelbench::testing::slurp;

using accelbench::testing::expect_usage_error;

const std::string kFast = " --ci-target 0.5 --min-samples 3 --min-time 0 --max-time-per-point 2s --no-telemetry --synthetic";
}  // namespace

TEST(SweepKindsCli, BadInputIsOneLineAndExitCodeTwo) {
  expect_usage_error("sweep precision --model mlp --device cpu --dtypes tfloat32", "precision tfloat32 is not available on cpu");
  expect_usage_error("sweep precision --model mlp --device cpu --dtypes float64", "unknown precision 'float64'");
  expect_usage_error("sweep precision --model mlp --device cpu --dtype bfloat16", "--dtypes, not --dtype");
  expect_usage_error("sweep precision --model mlp --device cpu --parity-steps -1", "--parity-steps must be in [0, 1000]");
  expect_usage_error("sweep precision --model dcgan --device cpu --dtypes float16", "dcgan does not support --dtype float16");
  expect_usage_error("sweep batch --model cnn --device cpu --dtype tfloat32", "precision tfloat32 is not available on cpu");
  expect_usage_error("sweep threads --model mlp --max-threads 0", "--max-threads must be at least 1");
  expect_usage_error("sweep workers --model mlp --device cpu --max-workers -1", "--max-workers must be in [0, 256]");
  expect_usage_error("sweep crossover --model mlp --device cpu", "--device must be an accelerator");
  expect_usage_error("sweep crossover --model mlp --device cpu --axis depth", "--axis must be batch or width");
  expect_usage_error("sweep crossover --model mlp --device cpu --axis width --widths 64,x", "'x' is not a whole number");
  expect_usage_error("sweep crossover --model mlp --device cpu --axis width --widths=-8", "at least 1");
  expect_usage_error("sweep batch --model mlp --device cpu --width=-5", "--width must be at least 1 (got -5)");
  expect_usage_error("sweep batch --model cnn --device cpu --width 64", "--width applies to the mlp only");
  expect_usage_error("sweep batch --model mlp --device cpu --checkpoint", "--checkpoint applies to transformer and bert-base");
  expect_usage_error("run --models mlp --width=-3", "--width must be at least 1 (got -3)");
  expect_usage_error("run --models cnn --width 8", "--width applies to the mlp only, not to cnn");
  expect_usage_error("run --models mlp --parity-steps 5000", "--parity-steps must be in [0, 1000]");
  expect_usage_error("run --models mlp --dtype tf32 --devices cpu", "precision tfloat32 is not available on cpu");
  expect_usage_error("profile mlp --device cpu --dtype tfloat32", "precision tfloat32 is not available on cpu");
}

TEST(SweepKindsCli, PrecisionSweepOnTheCpuWithParity) {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("precision.json");
  const auto r = run_cli("sweep precision --model mlp --device cpu --parity-steps 3 --no-save --json " + json + kFast);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("precision sweep: mlp on cpu, batch 64"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("speed-up [this run 95%]"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["command"], "sweep precision");
  const auto& s = j["sweep"];
  EXPECT_EQ(s["kind"], "precision");
  EXPECT_TRUE(s["finished"].get<bool>());
  ASSERT_EQ(s["points"].size(), 3u);
  EXPECT_EQ(s["points"][0]["precision"], "float32");
  EXPECT_EQ(s["points"][1]["precision"], "bfloat16");
  EXPECT_EQ(s["points"][2]["precision"], "float16");
  ASSERT_EQ(j["cases"].size(), 3u);
  // float32 against itself: the CPU is deterministic, so the run-to-run floor is zero.
  EXPECT_EQ(s["parity_floor"]["loss_rel_diff"].get<double>(), 0.0);
  for (int i : {1, 2}) {
    const auto& p = s["points"][i];
    ASSERT_EQ(p["outcome"], "ok") << p;
    const auto& sp = p["speedup"];
    EXPECT_GT(sp["ratio"].get<double>(), 0);
    EXPECT_LE(sp["low"].get<double>(), sp["ratio"].get<double>());
    EXPECT_GE(sp["high"].get<double>(), sp["ratio"].get<double>());
    const auto& q = p["parity"];
    EXPECT_EQ(q["steps"], 3);
    ASSERT_EQ(q["losses"].size(), 3u);
    ASSERT_EQ(q["reference_losses"].size(), 3u);
    // Mixed precision after 3 steps of the same training: close to float32, but not bit-identical.
    const double d = q["loss_rel_diff"].get<double>();
    EXPECT_GT(d, 0.0) << "a lower precision that matched float32 exactly would mean it never ran";
    EXPECT_LT(d, 0.05);
    EXPECT_TRUE(std::isfinite(q["grad_norm_rel_diff"].get<double>()));
  }
}

TEST(SweepKindsCli, ThreadsSweepMeasuresOneAndTwoThreads) {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("threads.json");
  const auto r = run_cli("sweep threads --model mlp --max-threads 2 --no-save --json " + json + kFast);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(json));
  const auto& s = j["sweep"];
  EXPECT_EQ(s["kind"], "threads");
  ASSERT_EQ(s["points"].size(), 2u);
  EXPECT_EQ(s["points"][0]["threads"], 1);
  EXPECT_EQ(s["points"][1]["threads"], 2);
  EXPECT_EQ(j["cases"][0]["threads"], 1);
  EXPECT_EQ(j["cases"][1]["threads"], 2);
  EXPECT_DOUBLE_EQ(s["points"][0]["speedup"]["ratio"].get<double>(), 1.0);
  EXPECT_FALSE(s["best_threads"].is_null());
  EXPECT_NE(r.out.find("efficiency"), std::string::npos) << r.out;
}

TEST(SweepKindsCli, WorkersSweepHasTheStagedCeilingAndTheDataWait) {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("workers.json");
  const auto r = run_cli("sweep workers --model mlp --device cpu --max-workers 1 --no-save --json " + json + kFast);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(slurp(json));
  const auto& s = j["sweep"];
  EXPECT_EQ(s["kind"], "workers");
  ASSERT_EQ(s["points"].size(), 3u);
  EXPECT_EQ(s["points"][0]["workers"], "staged");
  EXPECT_EQ(s["points"][1]["workers"], 0);
  EXPECT_EQ(s["points"][2]["workers"], 1);
  EXPECT_FALSE(s["points"][0].contains("data_wait_fraction"));
  for (int i : {1, 2}) EXPECT_GE(s["points"][i]["data_wait_fraction"].get<double>(), 0.0);
  EXPECT_NE(j["cases"][1]["pipeline"].get<std::string>().find("data pipeline: 0 worker threads"), std::string::npos)
      << j["cases"][1]["pipeline"];
  EXPECT_FALSE(s["best_workers"].is_null());
}

TEST(SweepKindsCli, RunWithAWidthLabelsTheModel) {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("run.json");
  const auto r = run_cli("run --models mlp --devices cpu --width 128 --no-save --quick --no-progress --json " + json +
                         " --no-telemetry --synthetic");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mlp[width=128]"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["cases"][0]["width"], 128);
  EXPECT_EQ(j["cases"][0]["parameter_count"], 784 * 128 + 128 + 128 * 10 + 10);
}

TEST(SweepKindsCli, AdviseOnAStoredSweepGivesTheSweepsAdvice) {
  accelbench::testing::TempDir dir;
  const auto db = dir.file("h.db");
  const auto r = run_cli("sweep threads --model mlp --max-threads 2 --db " + db + kFast);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Advice (each rests on the measurement it quotes):"), std::string::npos) << r.out;
  const auto a = run_cli("advise --db " + db);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.out.find("mlp on cpu: use "), std::string::npos) << a.out;
  EXPECT_NE(a.out.find(" thread"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("samples/s"), std::string::npos) << a.out;
}
