#include "distributed/data_parallel_task.h"

#include <torch/torch.h>

#include <stdexcept>

namespace accelbench {

void broadcast_parameters(Collectives& collectives, std::vector<at::Tensor> params, int root) {
  torch::NoGradGuard no_grad;
  std::vector<at::Tensor> data;
  for (auto& p : params) data.push_back(p.detach());  // in place, outside autograd
  collectives.broadcast(data, root);
}

DataParallelTask::DataParallelTask(std::unique_ptr<TrainingTask> inner, Collectives& collectives,
                                   std::int64_t bucket_bytes, GradientLayout layout, ReducerLaunch launch,
                                   std::int64_t first_bucket_bytes)
    : inner_(std::move(inner)) {
  auto params = inner_->trainable_parameters();
  if (params.empty()) throw std::invalid_argument("this workload does not expose its parameters to data-parallel training");
  reducer_ = std::make_unique<GradientReducer>(std::move(params), collectives, bucket_bytes, first_bucket_bytes,
                                                layout, launch);
}

}  // namespace accelbench
