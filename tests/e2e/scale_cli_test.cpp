// End-to-end: `accelbench scale` where there are not enough GPUs (here: the CPU only), its flags'
// checks, and `--ranks-from-env` without torchrun's environment. The GPU runs are in
// docs/results/2026-11-30-h200x2-scale.md.
#include <gtest/gtest.h>

#include "cli_runner.h"

namespace {
using accelbench::testing::expect_usage_error;
using accelbench::testing::run_cli;

TEST(ScaleCli, NotEnoughGpusIsOneLineAndExit2) {
  // 1024 GPUs: more than any machine this test runs on has.
  expect_usage_error("scale --model resnet18 --gpus 1,1024", "scale needs 1024 CUDA GPUs for --gpus, this machine has");
  expect_usage_error("scale --model resnet18 --gpus 1024 --overhead", "scale needs 1024 CUDA GPUs");
}

TEST(ScaleCli, BadFlagsAreUsageErrors) {
  expect_usage_error("scale --model nosuchmodel --gpus 1", "nosuchmodel");
  expect_usage_error("scale --model mlp --gpus 0", "--gpus");
  expect_usage_error("scale --model mlp --gpus 1,x", "--gpus");
  expect_usage_error("scale --model mlp --bucket-mb 0", "--bucket-mb");
  expect_usage_error("scale --model mlp --dtype float8", "float8");
  expect_usage_error("scale --gpus 1", "--model");
}

TEST(ScaleCli, RanksFromEnvNeedTheEnvironment) {
  expect_usage_error("scale --model mlp --ranks-from-env", "WORLD_SIZE is not set", "WORLD_SIZE= RANK= MASTER_ADDR=");
}

TEST(ScaleCli, HiddenRankCommandNeedsItsRequest) {
  const auto r = run_cli("_scale-rank --request-json '{' --out /dev/null");
  EXPECT_EQ(r.code, 2) << r.err;
}

}  // namespace
