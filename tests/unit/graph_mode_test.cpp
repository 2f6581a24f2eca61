// --graphs: the graph hooks of the built-in tasks (TrainingTask::enter_graph_mode,
// prepare_replay, captured_step, after_replay) train exactly as the eager step does. A CUDA graph
// cannot be captured here (no GPU), so the test plays the engine's part on the CPU: each "replay"
// runs captured_step() eagerly on the static inputs, and the gradients are cleared after it, as a
// replay's captured backward writes them anew (engine/graphed_task.cpp). The static inputs, the
// learning rate read from a device tensor (fused Adam's tensor-lr kernel) and the split of the
// host's bookkeeping are what this checks; the capture itself is checked on the GPU
// (tests/gpu/accelerator_test.cpp, Gpu.Graphs*). Also: what refuses --graphs, and why.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/errors.h"
#include "engine/engine.h"
#include "workloads/workload.h"

using namespace accelbench;

namespace {

WorkloadOptions small_options(const std::string& workload, const std::string& dtype) {
  WorkloadOptions o;
  o.dtype = dtype;
  o.staged_batches = 3;  // fewer than the steps: the cycle through the batches is checked too
  o.batch_size = workload == "mlp" || workload == "cnn" ? 16 : 4;
  o.dropout = false;     // the same masks need the same random stream; dropout in graphs is the GPU test's
  if (workload == "bert-base") o.inputs.seq_len = 16;
  // Learning rates that float32 holds exactly (2^-10 x k/4): graph mode reads the rate from a
  // float32 tensor (as Python's capturable Adam), the eager step from a double. With rates both
  // hold exactly the two paths must agree bit for bit; with 1e-3 they would differ by float32's
  // rounding, which Adam's normalised updates amplify to lr-sized steps within a few updates.
  o.lr_schedule = LrSchedule{.peak = 1.0 / 1024, .warmup_steps = 4};
  return o;
}

constexpr int kEagerSteps = 2;   // as capture_training_step's warm-up: prepare_replay() + step()
constexpr int kReplays = 5;

std::vector<double> eager_losses(const std::string& workload, const WorkloadOptions& o) {
  auto task = make_workload(workload)->build(o);
  std::vector<double> losses;
  for (int i = 0; i < kEagerSteps + kReplays; ++i) losses.push_back(task->step().item<double>());
  losses.push_back(task->evaluation_loss());
  return losses;
}

std::vector<double> graph_mode_losses(const std::string& workload, const WorkloadOptions& o) {
  auto task = make_workload(workload)->build(o);
  task->enter_graph_mode();
  std::vector<double> losses;
  for (int i = 0; i < kEagerSteps; ++i) {
    task->prepare_replay();
    losses.push_back(task->step().item<double>());
  }
  for (int i = 0; i < kReplays; ++i) {
    task->prepare_replay();
    const auto loss = task->captured_step();
    task->after_replay();
    losses.push_back(loss.item<double>());
    for (auto& p : task->trainable_parameters())
      if (p.grad().defined()) p.mutable_grad().reset();
  }
  losses.push_back(task->evaluation_loss());
  return losses;
}

struct Case {
  std::string workload, dtype;
};

class GraphMode : public ::testing::TestWithParam<Case> {};

TEST_P(GraphMode, TrainsAsTheEagerStep) {
  const auto& c = GetParam();
  const auto o = small_options(c.workload, c.dtype);
  const auto eager = eager_losses(c.workload, o);
  const auto graph = graph_mode_losses(c.workload, o);
  ASSERT_EQ(eager.size(), graph.size());
  for (std::size_t i = 0; i < eager.size(); ++i)
    EXPECT_DOUBLE_EQ(graph[i], eager[i]) << c.workload << " " << c.dtype << (i + 1 == eager.size() ? " evaluation loss" : " step " + std::to_string(i));
  // And training moved the model: a task that skipped its updates would give the first loss again.
  EXPECT_NE(graph.back(), graph.front()) << c.workload;
}

auto case_name = [](const auto& info) {
  auto name = info.param.workload + "_" + info.param.dtype;
  std::replace(name.begin(), name.end(), '-', '_');  // bert-base: a test name has no '-'
  return name;
};
INSTANTIATE_TEST_SUITE_P(Workloads, GraphMode,
                         ::testing::Values(Case{"mlp", "float32"}, Case{"mlp", "float16"}, Case{"cnn", "float32"},
                                           Case{"dcgan", "float32"}),
                         case_name);
// 15-45 s each on 2 cores: ctest label `slow` (tests/CMakeLists.txt runs Slow/* apart).
INSTANTIATE_TEST_SUITE_P(Slow, GraphMode,
                         ::testing::Values(Case{"transformer", "bfloat16"}, Case{"resnet18", "float32"},
                                           Case{"bert-base", "float32"}),
                         case_name);

// The prepared inputs are copies: the next batch goes into the static tensors, never into the
// staged batches (which the cycle reads again later).
TEST(GraphMode, StaticInputsCycleThroughTheStagedBatches) {
  auto o = small_options("mlp", "float32");
  auto task = make_workload("mlp")->build(o);
  task->enter_graph_mode();
  std::vector<double> first_losses;
  for (int i = 0; i < 2 * o.staged_batches; ++i) {
    task->prepare_replay();
    torch::NoGradGuard no_grad;
    first_losses.push_back(task->forward_loss().item<double>());  // no update: only the batch changes
  }
  for (int i = 0; i < o.staged_batches; ++i) {
    EXPECT_DOUBLE_EQ(first_losses[i], first_losses[i + o.staged_batches]) << "batch " << i;
    EXPECT_NE(first_losses[i], first_losses[(i + 1) % o.staged_batches]) << "batch " << i;
  }
}

TEST(GraphMode, RefusedWhereItCannotBeCaptured) {
  EXPECT_NE(engine::graphs_refusal("cpu").find("the CPU has no graph capture"), std::string::npos);
  EXPECT_NE(engine::graphs_refusal("mps:0").find("--graphs needs a CUDA device"), std::string::npos);
  CaseSpec spec{"mlp", "cpu", "float32", 64, 0, 0, false, true};
  try {
    engine::validate_case(spec, {});
    FAIL() << "--graphs on the CPU was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--graphs: cpu: the CPU has no graph capture"), std::string::npos) << e.what();
  }
  spec = CaseSpec{"transformer", "", "float32", 64, 0, 0, /*checkpoint=*/true, /*graphs=*/true};
  EXPECT_THROW(engine::validate_case(spec, {}), UsageError);
  spec.checkpoint = false;
  EXPECT_NO_THROW(engine::validate_case(spec, {}));
  for (const auto& name : workload_names())
    EXPECT_TRUE(make_workload(name)->info().graph_refusal.empty()) << name << ": " << make_workload(name)->info().graph_refusal;
}

}  // namespace
