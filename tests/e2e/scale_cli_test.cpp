// End-to-end: `accelbench scale` where there are not enough GPUs (here: the CPU only), its flags'
// checks, and `--ranks-from-env` without torchrun's environment. The GPU runs are in
// docs/multi-gpu.md and docs/results.md.
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
  expect_usage_error("scale --model mlp --ci-target 2", "--ci-target");
  expect_usage_error("scale --model mlp --min-samples 0", "--min-samples");
  expect_usage_error("scale --gpus 1", "--model");
}

// Several models in one call; a workload that cannot be trained data-parallel is refused before
// anything starts (dcgan: two optimizers), as is every model of the list that does not exist.
TEST(ScaleCli, ModelListsAndModelsThatCannotBeDataParallel) {
  expect_usage_error("scale --model dcgan --gpus 1", "--model dcgan: cannot be trained data-parallel: its generator");
  expect_usage_error("scale --model mlp,nosuchmodel --gpus 1", "nosuchmodel");
  expect_usage_error("scale --models mlp,cnn --gpus 1024", "scale needs 1024 CUDA GPUs");
  expect_usage_error("scale --model , --gpus 1", "--model: give at least one workload");
}

// `run --gpus N` trains the run's models data-parallel through `scale`: its options are checked
// first (the GPU count, the options that do not apply, the models), then the GPUs.
TEST(ScaleCli, RunGpusIsCheckedBeforeTheGpus) {
  expect_usage_error("run --gpus 1024 --models mlp --dtype bfloat16", "run needs 1024 CUDA GPUs for --gpus, this machine has");
  expect_usage_error("run --gpus 0", "--gpus must be a GPU count in [1, 1024]");
  expect_usage_error("run --gpus 2 --graphs", "--graphs does not apply with --gpus");
  expect_usage_error("run --gpus 2 --devices cpu", "--devices does not apply with --gpus");
  expect_usage_error("run --gpus 2 --rounds 3", "--rounds does not apply with --gpus");
  expect_usage_error("run --gpus 1 --models mlp,dcgan", "--model dcgan: cannot be trained data-parallel");
  expect_usage_error("run --gpus 1 --quick --max-time-per-case 0s", "--max-time-per-case");
  expect_usage_error("run --gpus 1 --dtype float8", "float8");
  expect_usage_error("run --gpus 1 --quick --ci-target 1", "--ci-target");
}

TEST(ScaleCli, RanksFromEnvNeedTheEnvironment) {
  expect_usage_error("scale --model mlp --ranks-from-env", "WORLD_SIZE is not set", "WORLD_SIZE= RANK= MASTER_ADDR=");
}

TEST(ScaleCli, HiddenRankCommandNeedsItsRequest) {
  const auto r = run_cli("_scale-rank --request-json '{' --out /dev/null");
  EXPECT_EQ(r.code, 2) << r.err;
}

}  // namespace
