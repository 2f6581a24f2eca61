// Gradient checkpointing (src/workloads/checkpoint.*, --checkpoint): the same gradients, losses and
// random stream as without it, with dropout on and under autocast, and the block really recomputed.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>
#include <vector>

#include "optim/autocast.h"
#include "workloads/checkpoint.h"
#include "workloads/workload.h"

using namespace accelbench;
namespace F = torch::nn::functional;

namespace {

double relative_difference(double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-30}); }

// max |a - b| / max |b|; 0 when both are undefined, infinite when only one is.
double relative_difference(const at::Tensor& a, const at::Tensor& b) {
  if (!a.defined() && !b.defined()) return 0;
  if (!a.defined() || !b.defined()) return INFINITY;
  const auto scale = b.abs().max().item<double>();
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>() / std::max(scale, 1e-30);
}

// --- a small block, through checkpointed() directly ------------------------------------------------

// Linear -> GELU -> dropout(0.5) -> Linear, residual, masked, LayerNorm: dropout draws from the
// CPU generator, the mask is an extra input captured by the block.
struct SmallBlock {
  torch::nn::Linear lin1{16, 32}, lin2{32, 16};
  torch::nn::LayerNorm norm{torch::nn::LayerNormOptions({16})};
  at::Tensor mask;
  int calls = 0;
  std::vector<at::ScalarType> matmul_dtypes;  // of lin1's output, each call (bf16 under autocast)

  SmallBlock() {
    torch::manual_seed(11);
    lin1 = torch::nn::Linear(16, 32);
    lin2 = torch::nn::Linear(32, 16);
    mask = (torch::rand({4, 16}) > 0.2).to(at::kFloat);
    lin2->bias.requires_grad_(false);  // a parameter without gradient
  }
  std::vector<at::Tensor> parameters() const {
    auto ps = lin1->parameters();
    for (const auto& m : {lin2->parameters(), norm->parameters()}) ps.insert(ps.end(), m.begin(), m.end());
    return ps;
  }
  CheckpointBlock block() {
    return [this, m = mask](const at::Tensor& x) {
      ++calls;
      auto h = lin1(x);
      matmul_dtypes.push_back(h.scalar_type());
      h = F::dropout(torch::gelu(h), F::DropoutFuncOptions().p(0.5).training(true));
      return norm(x + lin2(h) * m);
    };
  }
  void zero_grad() {
    for (auto& p : parameters()) p.mutable_grad() = at::Tensor();
  }
};

struct BlockRun {
  at::Tensor x_grad;
  std::vector<at::Tensor> param_grads;
  at::Tensor next_random;  // the random stream after the backward pass
  int calls_after_forward = 0, calls_after_backward = 0;
};

BlockRun run_block(SmallBlock& b, bool checkpoint, bool x_requires_grad = true, bool bf16_autocast = false) {
  b.zero_grad();
  b.calls = 0;
  b.matmul_dtypes.clear();
  torch::manual_seed(5);
  auto x = torch::randn({4, 16}).requires_grad_(x_requires_grad);
  const auto weights = torch::randn({4, 16});
  at::Tensor loss;
  BlockRun r;
  {
    AutocastGuard autocast(c10::kCPU, at::kBFloat16, bf16_autocast);
    const auto y = checkpoint ? checkpointed(b.block(), x, b.parameters()) : b.block()(x);
    // Random draws after the block and before the backward pass (as later layers' dropout): the
    // recompute must not leave the stream where the block's forward left it.
    loss = (F::dropout(y.to(at::kFloat), F::DropoutFuncOptions().p(0.5).training(true)) * weights).sum();
  }
  r.calls_after_forward = b.calls;
  loss.backward();  // outside autocast, as the workloads do
  r.calls_after_backward = b.calls;
  r.next_random = torch::rand({8});
  r.x_grad = x.grad();
  for (const auto& p : b.parameters()) r.param_grads.push_back(p.grad().defined() ? p.grad().clone() : at::Tensor());
  return r;
}

void expect_same_gradients(const BlockRun& plain, const BlockRun& ckpt, double tolerance) {
  EXPECT_LE(relative_difference(ckpt.x_grad, plain.x_grad), tolerance) << "input gradient";
  ASSERT_EQ(ckpt.param_grads.size(), plain.param_grads.size());
  for (std::size_t i = 0; i < plain.param_grads.size(); ++i)
    EXPECT_LE(relative_difference(ckpt.param_grads[i], plain.param_grads[i]), tolerance) << "parameter " << i;
}

// --- the real workloads ------------------------------------------------------------------------------

// One intra-op thread while the workloads train: on a shared 2-core machine OpenMP's spinning
// threads made a step several times slower; the comparison does not depend on threads.
class OneThread {
 public:
  OneThread() : previous_(at::get_num_threads()) { at::set_num_threads(1); }
  ~OneThread() { at::set_num_threads(previous_); }
  OneThread(const OneThread&) = delete;
  OneThread& operator=(const OneThread&) = delete;

 private:
  int previous_;
};

struct TrainingTrace {
  double eval_loss_before = 0;
  std::vector<double> losses;          // training losses (dropout on) of steps 0, 1 and the forward after them
  std::vector<double> gradient_norms;  // steps 0 and 1
  std::int64_t parameter_count = 0;
};

// Two optimizer steps and one more forward; every build seeds the global generator from o.inputs.seed, so
// two calls see the same random stream.
TrainingTrace train_two_steps(const std::string& model, WorkloadOptions o, bool checkpoint) {
  o.checkpoint = checkpoint;
  OneThread one_thread;
  auto task = make_workload(model)->build(o);
  TrainingTrace t;
  t.parameter_count = task->parameter_count();
  t.eval_loss_before = task->evaluation_loss();  // eval mode: draws no random numbers
  for (int step = 0; step < 2; ++step) {
    const auto loss = task->forward_loss();
    task->backward(loss);
    t.losses.push_back(loss.item<double>());
    t.gradient_norms.push_back(task->gradient_norm().value_or(NAN));
    task->optimizer_step();
  }
  t.losses.push_back(task->forward_loss().item<double>());
  return t;
}

void expect_same_training(const TrainingTrace& plain, const TrainingTrace& ckpt, double tolerance) {
  // Dropout is on (the training loss on the first batch is not the eval-mode one), so equal
  // gradients need the forward's dropout masks in the recompute.
  EXPECT_GT(relative_difference(plain.losses[0], plain.eval_loss_before), 1e-4) << "dropout is not active";
  EXPECT_EQ(ckpt.parameter_count, plain.parameter_count);
  for (std::size_t i = 0; i < plain.gradient_norms.size(); ++i) {
    EXPECT_TRUE(std::isfinite(plain.gradient_norms[i]) && plain.gradient_norms[i] > 0);
    EXPECT_LE(relative_difference(ckpt.gradient_norms[i], plain.gradient_norms[i]), tolerance)
        << "step " << i << ": " << ckpt.gradient_norms[i] << " vs " << plain.gradient_norms[i];
  }
  // Losses after the optimizer steps: the same updates, and the random stream after each
  // backward pass as without the recompute (else step 1's dropout masks differ).
  for (std::size_t i = 0; i < plain.losses.size(); ++i)
    EXPECT_LE(relative_difference(ckpt.losses[i], plain.losses[i]), tolerance)
        << "loss " << i << ": " << ckpt.losses[i] << " vs " << plain.losses[i];
}

}  // namespace

TEST(Checkpoint, RecomputesTheBlockInTheBackwardPass) {
  SmallBlock b;
  const auto plain = run_block(b, false);
  EXPECT_EQ(plain.calls_after_forward, 1);
  EXPECT_EQ(plain.calls_after_backward, 1);
  const auto ckpt = run_block(b, true);
  EXPECT_EQ(ckpt.calls_after_forward, 1);
  EXPECT_EQ(ckpt.calls_after_backward, 2);  // the recompute
}

TEST(Checkpoint, SameGradientsAndRandomStreamWithDropout) {
  SmallBlock b;
  const auto plain = run_block(b, false);
  const auto ckpt = run_block(b, true);
  expect_same_gradients(plain, ckpt, 1e-6);
  // lin2's bias does not require grad: no gradient, with or without checkpointing.
  EXPECT_FALSE(plain.param_grads[3].defined());
  EXPECT_FALSE(ckpt.param_grads[3].defined());
  // The random stream after the backward pass is the one without checkpointing.
  EXPECT_TRUE(torch::equal(ckpt.next_random, plain.next_random));
  // The control: another dropout mask gives other gradients (the comparison can see masks).
  torch::manual_seed(99);
  auto x = torch::randn({4, 16}).requires_grad_();
  b.zero_grad();
  (b.block()(x) * torch::randn({4, 16})).sum().backward();
  EXPECT_GT(relative_difference(b.lin1->weight.grad(), plain.param_grads[0]), 1e-3);
}

TEST(Checkpoint, InputWithoutGradientAndNoGradMode) {
  SmallBlock b;
  const auto plain = run_block(b, false, /*x_requires_grad=*/false);
  const auto ckpt = run_block(b, true, /*x_requires_grad=*/false);
  EXPECT_EQ(ckpt.calls_after_backward, 2);
  EXPECT_FALSE(ckpt.x_grad.defined());
  expect_same_gradients(plain, ckpt, 1e-6);
  // Without grad mode there is nothing to recompute: the block runs once, no graph.
  torch::NoGradGuard no_grad;
  b.calls = 0;
  const auto y = checkpointed(b.block(), torch::randn({4, 16}), b.parameters());
  EXPECT_EQ(b.calls, 1);
  EXPECT_FALSE(y.requires_grad());
}

TEST(Checkpoint, RecomputeRunsUnderTheForwardsAutocastBf16) {
  SmallBlock b;
  const auto plain = run_block(b, false, true, /*bf16_autocast=*/true);
  const auto ckpt = run_block(b, true, true, /*bf16_autocast=*/true);
  ASSERT_EQ(b.matmul_dtypes.size(), 2u);  // the checkpointed run's forward and recompute
  // The recompute runs in the backward pass, outside the guard: still bf16 matmuls.
  EXPECT_EQ(b.matmul_dtypes[0], at::kBFloat16);
  EXPECT_EQ(b.matmul_dtypes[1], at::kBFloat16);
  expect_same_gradients(plain, ckpt, 1e-5);
  // The backward pass's own autocast state is back after the recompute.
  EXPECT_FALSE(at::autocast::is_autocast_enabled(c10::kCPU));
}

TEST(Checkpoint, WorkloadsDeclareItWithTheSameModel) {
  for (const std::string name : {"transformer", "bert-base"}) {
    const auto w = make_workload(name);
    WorkloadOptions o;
    o.checkpoint = true;
    const auto plain = w->info(), ckpt = w->info_for(o);
    EXPECT_TRUE(plain.has_checkpoint) << name;
    EXPECT_TRUE(ckpt.has_checkpoint) << name;
    EXPECT_EQ(ckpt.parameter_count, plain.parameter_count) << name;
    EXPECT_EQ(ckpt.train_flops_per_sample, plain.train_flops_per_sample) << name;
    EXPECT_NE(ckpt.description.find("checkpointed"), std::string::npos) << name;
    EXPECT_EQ(plain.description.find("checkpointed"), std::string::npos) << name;
  }
  for (const std::string name : {"mlp", "cnn", "resnet18", "dcgan"}) EXPECT_FALSE(make_workload(name)->info().has_checkpoint) << name;
}

TEST(Checkpoint, TransformerSameGradientsAndLossesWithDropout) {
  WorkloadOptions o;
  o.batch_size = 2;
  o.staged_batches = 1;
  const auto plain = train_two_steps("transformer", o, false);
  const auto ckpt = train_two_steps("transformer", o, true);
  EXPECT_EQ(plain.parameter_count, 24100866);
  expect_same_training(plain, ckpt, 1e-6);
}

TEST(Checkpoint, BertSameGradientsAndLossesWithDropout) {
  WorkloadOptions o;
  o.batch_size = 1;
  o.inputs.seq_len = 16;
  o.staged_batches = 1;
  o.warmup_steps = 1;  // a non-zero learning rate from the second step on
  const auto plain = train_two_steps("bert-base", o, false);
  const auto ckpt = train_two_steps("bert-base", o, true);
  expect_same_training(plain, ckpt, 1e-6);
}

TEST(Checkpoint, TransformerSameGradientsUnderBf16Autocast) {
  WorkloadOptions o;
  o.batch_size = 1;
  o.staged_batches = 1;
  o.dtype = "bfloat16";
  const auto plain = train_two_steps("transformer", o, false);
  const auto ckpt = train_two_steps("transformer", o, true);
  expect_same_training(plain, ckpt, 1e-4);
}
