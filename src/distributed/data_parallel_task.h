#pragma once
// A TrainingTask trained data-parallel: the wrapped task's forward and backward on this rank's
// batch, the gradients averaged over the ranks by a GradientReducer (bucketed all-reduces launched
// from the backward pass, or after it, the gradients copied into the buckets or views of them),
// then the wrapped task's optimizer step. Built after the initial weights were broadcast from rank 0
// (broadcast_parameters).
#include <memory>

#include "distributed/gradient_reducer.h"
#include "workloads/workload.h"

namespace accelbench {

// Rank `root`'s parameter values copied into every rank's (synchronizes).
void broadcast_parameters(Collectives& collectives, std::vector<at::Tensor> params, int root = 0);

class DataParallelTask final : public TrainingTask {
 public:
  // Throws std::invalid_argument when the task does not expose its parameters.
  DataParallelTask(std::unique_ptr<TrainingTask> inner, Collectives& collectives, std::int64_t bucket_bytes,
                   GradientLayout layout = GradientLayout::copied, ReducerLaunch launch = ReducerLaunch::from_hooks,
                   std::int64_t first_bucket_bytes = GradientReducer::kDefaultFirstBucketBytes);

  at::Tensor forward_loss() override { return inner_->forward_loss(); }
  void backward(const at::Tensor& loss) override { inner_->backward(loss); }
  void optimizer_step() override {
    reducer_->finish();
    inner_->optimizer_step();
    reducer_->rebind_and_zero();  // bucket views: the wrapped optimizer's zero_grad set the gradients to none
  }
  double evaluation_loss() override { return inner_->evaluation_loss(); }
  std::int64_t parameter_count() const override { return inner_->parameter_count(); }
  std::string data_source() const override { return inner_->data_source(); }
  bool synthetic_data() const override { return inner_->synthetic_data(); }
  std::string optimizer_description() const override { return inner_->optimizer_description(); }
  std::string numerics_description() const override { return inner_->numerics_description(); }
  std::vector<at::Tensor> trainable_parameters() override { return inner_->trainable_parameters(); }
  bool supports_phases() const override { return false; }

  GradientReducer& reducer() { return *reducer_; }

 private:
  std::unique_ptr<TrainingTask> inner_;
  std::unique_ptr<GradientReducer> reducer_;
};

}  // namespace accelbench
