// End-to-end tests of `--model-file`: models of the user's, exported with
// tools/export_model.py at build time (tests/e2e/own_model/make_models.py, with the Python of the
// libtorch the build uses), trained on the CPU by `run` and `sweep batch`; every bad input a
// one-line error and exit code 2.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "cli_runner.h"

namespace {
using accelbench::testing::expect_usage_error;
using accelbench::testing::run_cli;
using accelbench::testing::slurp;

// OWN_MODEL_DIR: where the build wrote the model files; empty when no Python with torch was found.
const std::string kDir = OWN_MODEL_DIR;
const std::string kQuick =
    " --devices cpu --quick --rounds 1 --in-process-rounds --parity-steps 0 --no-telemetry --no-save --no-progress"
    " --batch-size 16 --max-time-per-case 3s";

std::string model(const std::string& name) { return kDir + "/" + name; }

#define REQUIRE_MODEL_FILES()                                                                          \
  if (kDir.empty()) GTEST_SKIP() << "no Python with torch at configure time: the model files were not made"; \
  ASSERT_TRUE(std::filesystem::exists(model("conv.pt"))) << "missing " << model("conv.pt")

// Runs the model file on the CPU; returns its one case from the JSON (after checking it ran).
nlohmann::json run_model(const std::string& file, const std::string& extra = "") {
  accelbench::testing::TempDir dir;
  const auto json = dir.file("run.json");
  const auto r = run_cli("run --model-file " + model(file) + kQuick + " --json " + json + extra);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(slurp(json));  // valid JSON, or the test fails here
  EXPECT_EQ(j["cases"].size(), 1u);
  if (j["cases"].empty()) return {};
  const auto c = j["cases"][0];
  EXPECT_EQ(c["workload"], file);
  EXPECT_EQ(c["status"], "ok") << c["error"];
  EXPECT_TRUE(c["synthetic_data"].get<bool>());
  EXPECT_GT(c["samples_per_s"].get<double>(), 0);
  // Trained: the loss on the first batch after training is below the loss before.
  EXPECT_LT(c["loss_after"].get<double>(), c["loss_before"].get<double>()) << file;
  std::printf("%s: loss %.4f -> %.4f\n", file.c_str(), c["loss_before"].get<double>(), c["loss_after"].get<double>());
  return c;
}
}  // namespace

TEST(OwnModelCli, ScriptedModuleWithConvLayerNormDropoutAndResidualTrains) {
  REQUIRE_MODEL_FILES();
  const auto c = run_model("conv.pt");
  EXPECT_EQ(c["parameter_count"], 25978);
  // The FLOPs embedded by the helper (torch.utils.flop_counter): forward, loss and backward.
  EXPECT_NEAR(c["train_flops_per_sample"].get<double>(), 2.114e6, 0.01e6);
}

TEST(OwnModelCli, TracedModulesTrain) {
  REQUIRE_MODEL_FILES();
  run_model("traced.pt");  // --trace
  run_model("dict.pt");    // scripting failed, traced; the output is a dict: its "logits"
}

TEST(OwnModelCli, ModelThatReturnsItsLossTrains) {
  REQUIRE_MODEL_FILES();
  run_model("ownloss.pt");  // --target loss, integer inputs in [0, 50)
}

TEST(OwnModelCli, TheCommandLineDescriptionOverridesTheEmbeddedOne) {
  REQUIRE_MODEL_FILES();
  // Uniform inputs in [-1, 1) instead of N(0, 1), and given FLOPs instead of the embedded count.
  const auto c = run_model("conv.pt", " --input 3x16x16:float32:-1..1 --flops-per-sample 144");
  EXPECT_EQ(c["train_flops_per_sample"], 144.0);
}

TEST(OwnModelCli, BadInputIsOneLineAndExitCodeTwo) {
  REQUIRE_MODEL_FILES();
  const std::string run = "run --devices cpu --model-file ";
  expect_usage_error(run + model("not-torchscript.pt"), "not-torchscript.pt: not a TorchScript file");
  expect_usage_error(run + model("truncated.pt"), "truncated.pt: corrupt or truncated TorchScript file");
  expect_usage_error(run + model("state-dict.pt"), "state-dict.pt: a PyTorch archive but not TorchScript");
  expect_usage_error(run + model("missing.pt"), "no such file");
  expect_usage_error(run + model("conv.pt") + " --input 3x8x8:float32",
                     "conv.pt: the forward failed on input [2, 3, 8, 8] Float (declared --input 3x8x8:float32)");
  expect_usage_error(run + model("linear.pt") + " --input 7:float32", "mat1 and mat2 shapes cannot be multiplied (2x7 and 8x3)");
  expect_usage_error(run + model("frozen.pt"), "frozen.pt: the model has no trainable parameters");
  expect_usage_error(run + model("linear.pt") + " --target classes:10",  // exported for mse:3
                     "linear.pt: the output cannot take the loss (classes:10): the model's output is [2, 3]; "
                     "cross-entropy on 10 classes needs [2, 10]");
  expect_usage_error(run + model("conv.pt") + " --target loss", "needs one value (a 0-dim tensor)");
  expect_usage_error(run + model("conv.pt") + " --input 3xx16:float32", "--input '3xx16:float32': '3xx16' is not a shape");
  expect_usage_error(run + model("conv.pt") + " --input 3x16x16:float8", "unknown dtype 'float8'");
  expect_usage_error(run + model("conv.pt") + " --input 16:int64:5..1", "'5..1' is not a range LOW..HIGH with LOW < HIGH");
  expect_usage_error(run + model("conv.pt") + " --target classes:0", "--target 'classes:0'");
  expect_usage_error(run + model("conv.pt") + " --target hinge", "unknown loss 'hinge'");
  expect_usage_error("run --devices cpu --input 3x16x16:float32", "--input needs --model-file");
  expect_usage_error("sweep batch --device cpu", "--model or --model-file is required");
  expect_usage_error("sweep batch --device cpu --model mlp --model-file " + model("conv.pt"), "exclude each other");
}

TEST(OwnModelCli, SweepBatchRecordsAFailingBatchAsAFailedPoint) {
  REQUIRE_MODEL_FILES();
  accelbench::testing::TempDir dir;
  const auto json = dir.file("sweep.json");
  // small-batch.pt raises on batches above 4: points 2 and 4 run, 8 fails (in a child process).
  const auto r = run_cli("sweep batch --model-file " + model("small-batch.pt") +
                         " --device cpu --from 2 --to 8 --no-save --no-telemetry --ci-target 0.5 --min-samples 3 "
                         "--min-time 0 --max-time-per-point 2s --json " + json);
  EXPECT_EQ(r.code, 1) << r.out << r.err;  // a point failed; the sweep finished
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["cases"].size(), 3u) << r.out;
  EXPECT_EQ(j["cases"][0]["workload"], "small-batch.pt");
  EXPECT_EQ(j["cases"][0]["status"], "ok");
  EXPECT_EQ(j["cases"][1]["status"], "ok");
  EXPECT_EQ(j["cases"][2]["status"], "failed");
  EXPECT_NE(j["cases"][2]["error"].get<std::string>().find("batch larger than 4"), std::string::npos) << j["cases"][2]["error"];
  EXPECT_TRUE(j["sweep"]["finished"].get<bool>());
  EXPECT_EQ(j["sweep"]["largest_fit"], 4);
}
