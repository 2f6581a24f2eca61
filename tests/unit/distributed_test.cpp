// Data-parallel training without GPUs: the gradient buckets and their all-reduce over the fake
// process group (ranks as threads), against single-process sums.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <thread>

#include "distributed/data_parallel_task.h"
#include "distributed/fake_collectives.h"
#include "distributed/gradient_reducer.h"
#include "workloads/workload.h"

namespace accelbench {
namespace {

TEST(GradientBuckets, ReverseOrderWithinTheCap) {
  // bytes of parameters 0..5; first bucket 8 B, then 10 B; the 40 B parameter gets a bucket alone.
  const auto b = assign_buckets({4, 4, 4, 4, 40, 4}, 10, 8);
  const std::vector<std::vector<std::size_t>> want{{5}, {4}, {3, 2}, {1, 0}};
  EXPECT_EQ(b, want);
  EXPECT_EQ(assign_buckets({4, 4}, 1 << 20, 1 << 20), (std::vector<std::vector<std::size_t>>{{1, 0}}));
  EXPECT_TRUE(assign_buckets({}, 10, 10).empty());
}

torch::nn::Sequential small_net(int seed) {
  torch::manual_seed(seed);
  return torch::nn::Sequential(torch::nn::Linear(8, 16), torch::nn::ReLU(), torch::nn::Linear(16, 4));
}

at::Tensor input_of(int rank) { return torch::linspace(-1.0 + rank, 1.0 + 2 * rank, 6 * 8).reshape({6, 8}); }

// Gradients of the loss on rank r's batch, with `net`'s current weights, single process.
std::vector<at::Tensor> single_process_grads(torch::nn::Sequential net, int rank) {
  net->zero_grad(true);
  net->forward(input_of(rank)).pow(2).mean().backward();
  std::vector<at::Tensor> g;
  for (auto& p : net->parameters()) g.push_back(p.grad().clone());
  return g;
}

TEST(GradientReducer, TwoRanksAverageLikeOneProcess) {
  FakeWorld world(2);
  std::vector<torch::nn::Sequential> nets{small_net(1), small_net(2)};  // different initial weights
  // The reference: rank 0's weights, the mean of the two ranks' gradients.
  auto ref = small_net(1);
  auto g0 = single_process_grads(ref, 0), g1 = single_process_grads(ref, 1);
  std::vector<int> launched(2);
  std::vector<std::vector<std::int64_t>> bucket_bytes(2);
  auto rank_main = [&](int r) {
    FakeCollectives c(world, r);
    broadcast_parameters(c, nets[r]->parameters(), 0);
    GradientReducer reducer(nets[r]->parameters(), c, /*bucket_bytes=*/200, /*first_bucket_bytes=*/64);
    nets[r]->forward(input_of(r)).pow(2).mean().backward();
    reducer.finish();
    launched[r] = reducer.launched_during_backward();
    bucket_bytes[r] = reducer.bucket_bytes();
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  for (int r = 0; r < 2; ++r) {
    auto params = nets[r]->parameters();
    for (std::size_t i = 0; i < params.size(); ++i) {
      EXPECT_TRUE(torch::allclose(params[i], ref->parameters()[i])) << "rank " << r << " weights not broadcast";
      EXPECT_TRUE(torch::allclose(params[i].grad(), (g0[i] + g1[i]) / 2, 1e-5, 1e-6)) << "rank " << r << " param " << i;
    }
    // Every bucket was full before backward returned: all launched from the hooks.
    EXPECT_EQ(launched[r], static_cast<int>(bucket_bytes[r].size()));
  }
  EXPECT_GE(bucket_bytes[0].size(), 3u);
  // On the wire: 4 broadcasts (the weights), then the buckets' all-reduces in bucket order.
  const auto calls = world.calls_of(0);
  ASSERT_EQ(calls.size(), 4 + bucket_bytes[0].size());
  for (std::size_t b = 0; b < bucket_bytes[0].size(); ++b) {
    EXPECT_EQ(calls[4 + b].kind, "allreduce");
    EXPECT_EQ(calls[4 + b].numel * 4, bucket_bytes[0][b]);
  }
}

// Both layouts: after finish() every .grad shares its bucket's storage and holds the mean of the
// ranks' gradients, step after step. bucket_views: after rebind_and_zero (the optimizer set the
// gradients to none) autograd accumulated into the views, no copy; when nobody rebinds, the hook
// copies each new gradient back into the bucket. copied: one multi-tensor copy a bucket, every step.
void expect_gradients_in_buckets_hold_the_mean(GradientLayout layout, ReducerLaunch launch = ReducerLaunch::from_hooks) {
  FakeWorld world(2);
  std::vector<torch::nn::Sequential> nets{small_net(1), small_net(2)};
  auto ref = small_net(1);
  auto batch = [](int r, int step) { return input_of(r) * (1.0 + step); };
  std::vector<std::vector<at::Tensor>> want;  // per step, per parameter: the single-process mean
  for (int s = 0; s < 3; ++s) {
    std::vector<at::Tensor> sum;
    for (int r = 0; r < 2; ++r) {
      ref->zero_grad(true);
      ref->forward(batch(r, s)).pow(2).mean().backward();
      auto ps = ref->parameters();
      for (std::size_t i = 0; i < ps.size(); ++i) {
        if (r == 0) sum.push_back(ps[i].grad().clone() / 2);
        else sum[i] += ps[i].grad() / 2;
      }
    }
    want.push_back(sum);
  }
  std::vector<std::vector<std::string>> failures(2);
  auto rank_main = [&](int r) {
    FakeCollectives c(world, r);
    broadcast_parameters(c, nets[r]->parameters(), 0);
    auto params = nets[r]->parameters();
    GradientReducer reducer(params, c, /*bucket_bytes=*/200, /*first_bucket_bytes=*/64, layout, launch);
    const int buckets = static_cast<int>(reducer.bucket_params().size());
    for (int s = 0; s < 3; ++s) {
      nets[r]->forward(batch(r, s)).pow(2).mean().backward();
      reducer.finish();
      int copies_expected = 0, launches_expected = 0;
      if (layout == GradientLayout::copied) {
        copies_expected = static_cast<int>(params.size());
        launches_expected = buckets;
      } else if (s == 2) {  // bucket views, step 2: nobody rebound, the hooks copied each gradient
        copies_expected = launches_expected = static_cast<int>(params.size());
      }
      if (reducer.copied_in_last_step() != copies_expected)
        failures[r].push_back(fmt::format("step {}: {} gradients copied, expected {}", s, reducer.copied_in_last_step(), copies_expected));
      const int in_backward = launch == ReducerLaunch::from_hooks ? buckets : 0;
      if (reducer.launched_during_backward() != in_backward)
        failures[r].push_back(fmt::format("step {}: {} buckets launched in the backward pass, expected {}", s,
                                          reducer.launched_during_backward(), in_backward));
      if (reducer.copy_launches_in_last_step() != launches_expected)
        failures[r].push_back(fmt::format("step {}: {} copy launches, expected {}", s, reducer.copy_launches_in_last_step(), launches_expected));
      for (std::size_t i = 0; i < params.size(); ++i) {
        bool aliased = false;
        for (std::size_t b = 0; b < reducer.bucket_params().size(); ++b)
          aliased = aliased || params[i].grad().is_alias_of(reducer.bucket_buffer(b));
        if (!aliased) failures[r].push_back(fmt::format("step {} param {}: grad not a view of a bucket", s, i));
        if (!torch::allclose(params[i].grad(), want[s][i], 1e-5, 1e-6))
          failures[r].push_back(fmt::format("step {} param {}: not the mean", s, i));
      }
      for (auto& p : params) p.mutable_grad().reset();  // as the optimizer's zero_grad (set to none)
      if (s == 0) reducer.rebind_and_zero();             // step 2: nobody rebinds
    }
    // The host time it spent, and its parts within it (each launched or waited for at least once).
    const auto& h = reducer.host_times();
    if (!(h.allreduce_calls_s > 0 && h.waits_s > 0 && h.copies_s + h.allreduce_calls_s + h.waits_s <= h.total_s))
      failures[r].push_back(fmt::format("host times: total {} copies {} all-reduce calls {} waits {}", h.total_s,
                                        h.copies_s, h.allreduce_calls_s, h.waits_s));
    if (layout == GradientLayout::copied && !(h.copies_s > 0)) failures[r].push_back("no host time in the copies");
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  for (int r = 0; r < 2; ++r) EXPECT_TRUE(failures[r].empty()) << "rank " << r << ": " << fmt::format("{}", fmt::join(failures[r], "; "));
}

TEST(GradientReducer, GradientsAreViewsOfTheBucketsAndHoldTheMean) {
  expect_gradients_in_buckets_hold_the_mean(GradientLayout::bucket_views);
}

TEST(GradientReducer, GradientsCopiedPerBucketHoldTheMean) {
  expect_gradients_in_buckets_hold_the_mean(GradientLayout::copied);
}

// No hooks: finish() takes the gradients autograd left and launches every bucket; the same means.
TEST(GradientReducer, AfterTheBackwardPassGradientsCopiedHoldTheMean) {
  expect_gradients_in_buckets_hold_the_mean(GradientLayout::copied, ReducerLaunch::after_backward);
}

TEST(GradientReducer, AfterTheBackwardPassGradientViewsHoldTheMean) {
  expect_gradients_in_buckets_hold_the_mean(GradientLayout::bucket_views, ReducerLaunch::after_backward);
}

// After the backward pass, a parameter whose gradient is none gets zeros; one whose gradient was
// left in place from the step before keeps it, as in training without data parallelism.
TEST(GradientReducer, AfterTheBackwardPassAnUnusedParameterGetsZeros) {
  FakeWorld world(1);
  FakeCollectives c(world, 0);
  auto net = small_net(3);
  auto unused = torch::ones({5}, torch::requires_grad());
  auto params = net->parameters();
  params.insert(params.begin(), unused);
  GradientReducer reducer(params, c, 64, 64, GradientLayout::copied, ReducerLaunch::after_backward);
  net->forward(input_of(0)).sum().backward();
  reducer.finish();
  ASSERT_TRUE(unused.grad().defined());
  EXPECT_EQ(unused.grad().abs().sum().item<double>(), 0.0);
  EXPECT_EQ(reducer.launched_during_backward(), 0);
  unused.grad().fill_(7.0);
  net->forward(input_of(0)).sum().backward();
  reducer.finish();
  EXPECT_EQ(unused.grad().sum().item<double>(), 35.0);
}

TEST(GradientReducer, UnusedParameterGetsZerosAndNothingHangs) {
  for (auto layout : {GradientLayout::bucket_views, GradientLayout::copied}) {
    FakeWorld world(1);
    FakeCollectives c(world, 0);
    auto net = small_net(3);
    auto unused = torch::ones({5}, torch::requires_grad());
    auto params = net->parameters();
    params.insert(params.begin(), unused);  // first: the last bucket, never filled by the backward pass
    GradientReducer reducer(params, c, 64, 64, layout);
    net->forward(input_of(0)).sum().backward();
    reducer.finish();
    ASSERT_TRUE(unused.grad().defined());
    EXPECT_EQ(unused.grad().abs().sum().item<double>(), 0.0);
    EXPECT_LT(reducer.launched_during_backward(), static_cast<int>(reducer.bucket_bytes().size()));
    // A second step with the gradients left in place (no zero_grad to none): the unused parameter's
    // gradient is zeros again, not what its slot held.
    unused.grad().fill_(7.0);
    net->forward(input_of(0)).sum().backward();
    reducer.finish();
    EXPECT_EQ(unused.grad().abs().sum().item<double>(), 0.0) << (layout == GradientLayout::copied ? "copied" : "views");
  }
}

TEST(FakeCollectives, AWaitNoRankAnswersTimesOut) {
  FakeWorld world(2, std::chrono::milliseconds(200));
  FakeCollectives c(world, 0);
  auto t = torch::ones({3});
  auto work = c.allreduce_sum(t);
  EXPECT_THROW(work->wait(), std::runtime_error);
}

TEST(FakeCollectives, MismatchedCollectivesAreAnError) {
  FakeWorld world(2, std::chrono::milliseconds(200));
  FakeCollectives c0(world, 0), c1(world, 1);
  auto a = torch::ones({3}), b = torch::ones({4});
  c0.allreduce_sum(a);
  EXPECT_THROW(c1.allreduce_sum(b), std::runtime_error);
}

// A real workload (mlp) trained on two fake ranks, in both layouts: the ranks' weights stay
// identical step after step.
void expect_ranks_stay_in_step(GradientLayout layout) {
  auto workload = make_workload("mlp");
  WorkloadOptions o;
  o.batch_size = 16;
  o.inputs.use_real_data = false;
  o.staged_batches = 2;
  std::vector<std::unique_ptr<TrainingTask>> inner;
  for (int r = 0; r < 2; ++r) {
    o.inputs.seed = 10 + r;  // different weights and data on each rank; rank 0's weights are broadcast
    inner.push_back(workload->build(o));
  }
  FakeWorld world(2);
  std::vector<std::vector<at::Tensor>> params(2);
  std::vector<int> copied(2, -1);
  std::vector<int> buckets(2, -1);
  auto rank_main = [&](int r) {
    FakeCollectives c(world, r);
    broadcast_parameters(c, inner[r]->trainable_parameters(), 0);
    DataParallelTask task(std::move(inner[r]), c, 1 << 20, layout);
    for (int s = 0; s < 3; ++s) task.step();
    copied[r] = task.reducer().copy_launches_in_last_step();
    buckets[r] = static_cast<int>(task.reducer().bucket_bytes().size());
    for (auto& p : task.trainable_parameters()) params[r].push_back(p.detach().clone());
  };
  std::thread t1(rank_main, 1);
  rank_main(0);
  t1.join();
  ASSERT_FALSE(params[0].empty());
  for (std::size_t i = 0; i < params[0].size(); ++i) EXPECT_TRUE(torch::equal(params[0][i], params[1][i])) << i;
  if (layout == GradientLayout::bucket_views)  // Adam's zero_grad set the grads to none: rebound, no copy
    EXPECT_EQ(copied, (std::vector<int>{0, 0})) << "gradients copied into the buckets instead of accumulated there";
  else  // one multi-tensor copy a bucket
    EXPECT_EQ(copied, buckets);
}

TEST(DataParallelTask, RanksStayInStep) { expect_ranks_stay_in_step(GradientLayout::copied); }
TEST(DataParallelTask, RanksStayInStepWithBucketViews) { expect_ranks_stay_in_step(GradientLayout::bucket_views); }

}  // namespace
}  // namespace accelbench
